/* Rank 1 waits in MPI_Recv for tag 2 while rank 0 first sends it TEST_COUNT
 * messages of TEST_LEN bytes (default 64 of 1 MiB) with tag 1: every one
 * arrives before its receive and is kept. With FARO_UNEXPECTED_LIMIT below
 * what they hold, the job must end with a message from rank 1 naming the
 * memory held and the knob (the test list expects the failure), instead of
 * growing until the kernel kills it. What a message holds is its record as
 * well as its data: a flood of empty messages (TEST_LEN=0) must end the same
 * way, and so must one of rendezvous announcements (TEST_ISEND=1: MPI_Isend,
 * with messages above FARO_EAGER_LIMIT, so that the sender need not wait for
 * each to be matched). */
#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "unexpected_flood");
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int count = tu_env_int("TEST_COUNT", 64);
    int len = tu_env_int("TEST_LEN", 1024 * 1024);
    int isend = tu_env_int("TEST_ISEND", 0);
    char *buf = calloc(1, len ? (size_t)len : 1);
    MPI_Request *reqs = calloc((size_t)count, sizeof *reqs);
    if (!buf || !reqs)
        tu_fail("out of memory");
    if (rank == 0) {
        for (int i = 0; i < count; i++)
            if (isend)
                TU_CHECK(MPI_Isend(buf, len, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &reqs[i]));
            else
                TU_CHECK(MPI_Send(buf, len, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
        TU_CHECK(MPI_Send(buf, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
        if (isend)
            TU_CHECK(MPI_Waitall(count, reqs, MPI_STATUSES_IGNORE));
    } else if (rank == 1) {
        TU_CHECK(MPI_Recv(buf, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < count; i++)
            TU_CHECK(MPI_Recv(buf, len, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    free(reqs);
    free(buf);
    tu_finish();
    return 0;
}
