/* errors_fatal (expected to FAIL): under the default MPI_ERRORS_ARE_FATAL
 * (set explicitly here too), rank 1 sends to a rank that does not exist. The
 * library must end the job with a message that names the rank and the
 * problem, and the others (waiting in MPI_Recv) must not hang. */
#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "errors_fatal");
    tu_arm_alarm(0);
    tu_need_ranks(2);
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_Errhandler eh;
    TU_CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    TU_ASSERT(eh == MPI_ERRORS_ARE_FATAL, "Comm_get_errhandler did not give MPI_ERRORS_ARE_FATAL");
    int v = 0;
    if (tu_rank == 1) {
        MPI_Send(&v, 1, MPI_INT, tu_size + 5, 1, MPI_COMM_WORLD);
        fprintf(stderr, "errors_fatal: MPI_Send to a bad destination returned under "
                        "MPI_ERRORS_ARE_FATAL\n");
        return 0;
    }
    TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_Finalize();
    return 0;
}
