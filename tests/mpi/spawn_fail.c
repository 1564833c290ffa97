/*
 * spawn_fail: a spawned job that fails ends the launch, and mpiexec names
 * the process and its job, as it does for a rank of the first job; nothing
 * waits for ever. Run with expect=fail. SPAWN_FAIL (in the environment,
 * which the children inherit):
 *   kill    child rank 1 kills itself with SIGKILL while the parents wait in
 *           a barrier on the intercommunicator
 *   exit    child rank 1 exits with code 3 without MPI_Finalize
 *   abort   child rank 1 calls MPI_Abort (code 7) on its parent
 *           intercommunicator
 *   noinit  the child (one here) exits 0 without calling MPI_Init, while the
 *           parents wait in MPI_Comm_spawn
 */
#include "util.h"

#include <signal.h>

int main(int argc, char **argv)
{
    const char *how = getenv("SPAWN_FAIL");
    if (!how)
        how = "";
    if (argc > 1 && !strcmp(argv[1], "child") && !strcmp(how, "noinit"))
        return 0;
    tu_init(&argc, &argv, "spawn_fail");
    MPI_Comm parent, ic;
    TU_CHECK(MPI_Comm_get_parent(&parent));
    if (parent == MPI_COMM_NULL) {
        char *args[] = {"child", NULL};
        int n = strcmp(how, "noinit") ? 2 : 1; /* noinit: the message names rank 0 */
        TU_CHECK(MPI_Comm_spawn(argv[0], args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                                MPI_ERRCODES_IGNORE));
        TU_CHECK(MPI_Barrier(ic)); /* never returns: a child fails first */
        tu_fail("the parents' barrier returned though child rank 1 failed (%s)", how);
    }
    if (tu_rank == 1) {
        if (!strcmp(how, "kill"))
            raise(SIGKILL);
        else if (!strcmp(how, "exit"))
            exit(3);
        else if (!strcmp(how, "abort"))
            MPI_Abort(parent, 7);
        tu_fail("unknown SPAWN_FAIL '%s' (kill, exit, abort, noinit)", how);
    }
    TU_CHECK(MPI_Barrier(parent));
    tu_fail("child rank 0's barrier returned though rank 1 failed");
}
