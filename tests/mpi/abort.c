/* abort (expected to FAIL): rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while
 * the others wait in MPI_Recv. The job must end (exit code non-zero, ideally
 * 7) with a message naming the aborting rank, and must not hang. */
#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "abort");
    tu_arm_alarm(0);
    tu_need_ranks(2);
    int v = 0;
    if (tu_rank == 1) {
        TU_CHECK(MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        MPI_Abort(MPI_COMM_WORLD, 7);
    } else {
        if (tu_rank == 0)
            TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    MPI_Finalize();
    fprintf(stderr, "abort: the job went on after MPI_Abort\n");
    return 0;
}
