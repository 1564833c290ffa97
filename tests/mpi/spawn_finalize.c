/*
 * spawn_finalize: spawned jobs and their parents end in either order, and
 * the launch ends with 0 once both did (mpiexec waits for every job).
 * SPAWN_ORDER (in the environment, which the children inherit):
 *   children  the children disconnect and finalize at once; the parents
 *             work on for half a second
 *   parents   the parents disconnect and finalize at once; the children work
 *             on for half a second, with collectives among themselves
 *   connected both call MPI_Finalize still connected (no disconnect, no
 *             free), the children a little later
 */
#include "util.h"

#include <time.h>

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
    nanosleep(&ts, NULL);
}

/* Half a second of work: reductions, checked. */
static void work(void)
{
    for (int i = 0; i < 10; i++) {
        int sum = 0, one = 1;
        TU_CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        TU_ASSERT(sum == tu_size, "allreduce %d, expected %d", sum, tu_size);
        pause_ms(50);
    }
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "spawn_finalize");
    const char *order = getenv("SPAWN_ORDER");
    TU_ASSERT(order && (!strcmp(order, "children") || !strcmp(order, "parents") ||
                        !strcmp(order, "connected")),
              "set SPAWN_ORDER to children, parents or connected");
    MPI_Comm parent, ic;
    TU_CHECK(MPI_Comm_get_parent(&parent));
    int child = parent != MPI_COMM_NULL, token = 77;
    if (child) {
        ic = parent;
    } else {
        char *args[] = {"child", NULL};
        TU_CHECK(MPI_Comm_spawn(argv[0], args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                                MPI_ERRCODES_IGNORE));
    }
    /* one message each way between the ranks 0 */
    if (tu_rank == 0) {
        int got = 0;
        TU_CHECK(MPI_Sendrecv(&token, 1, MPI_INT, 0, 1, &got, 1, MPI_INT, 0, 1, ic,
                              MPI_STATUS_IGNORE));
        TU_ASSERT(got == 77, "got %d from the other job's rank 0", got);
    }
    int goes_first = !strcmp(order, child ? "children" : "parents");
    if (!strcmp(order, "connected")) {
        TU_CHECK(MPI_Barrier(ic));
        if (child)
            pause_ms(200);
    } else {
        TU_CHECK(MPI_Comm_disconnect(&ic));
        if (!goes_first)
            work();
    }
    alarm(0);
    TU_CHECK(MPI_Finalize());
    if (!child && tu_rank == 0)
        printf("spawn_finalize: OK (%s first)\n", order);
    return 0;
}
