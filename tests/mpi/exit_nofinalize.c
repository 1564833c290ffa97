/* exit_nofinalize (expected to FAIL): rank 1 calls exit() without
 * MPI_Finalize while the others wait for messages that will never come.
 * The exit code is TEST_EXIT_CODE (default 3); with 0 the launcher must still
 * see that the process ended without MPI_Finalize. The launcher must end
 * the job with a message naming the rank; it must not hang. (No watchdog,
 * and the program never prints the word "rank" itself.) */
#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "exit_nofinalize");
    tu_arm_alarm(0);
    tu_need_ranks(2);
    int code = 3;
    const char *e = getenv("TEST_EXIT_CODE");
    if (e && *e)
        code = atoi(e);
    int v = 0;
    if (tu_rank == 1) {
        TU_CHECK(MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        fprintf(stderr, "exit_nofinalize: process %d calling exit(%d) without MPI_Finalize\n",
                (int)getpid(), code);
        fflush(stderr);
        exit(code);
    } else if (tu_rank == 0) {
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int r = 2; r < tu_size; r++)
            TU_CHECK(MPI_Send(&v, 1, MPI_INT, r, 1, MPI_COMM_WORLD));
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    MPI_Finalize();
    fprintf(stderr, "exit_nofinalize: the job went on after a process exited\n");
    return 0;
}
