/* die_signal (expected to FAIL): rank 1 kills itself with SIGKILL in the
 * middle of the job while rank 0 waits in MPI_Recv for a message from it and
 * the other ranks wait for rank 0. The launcher must notice, end every rank
 * and say which rank died and how; the job must not hang. (No watchdog
 * alarm here: the launcher, not the test, has to end the job. This program
 * never prints the word "rank" itself, so the runner's check that the
 * failing rank is named tests the launcher's message.) */
#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "die_signal");
    tu_arm_alarm(0);
    tu_need_ranks(2);
    int v = 0;
    /* a first exchange so that everyone is connected and running */
    if (tu_rank == 1) {
        TU_CHECK(MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        fprintf(stderr, "die_signal: process %d sending itself SIGKILL\n", (int)getpid());
        fflush(stderr);
        raise(SIGKILL);
    } else if (tu_rank == 0) {
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int r = 2; r < tu_size; r++)
            TU_CHECK(MPI_Send(&v, 1, MPI_INT, r, 1, MPI_COMM_WORLD));
        /* never sent: only the launcher can end this wait */
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    MPI_Finalize();
    fprintf(stderr, "die_signal: the job went on after a process was killed\n");
    return 0;
}
