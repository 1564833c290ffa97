/* Rank 1 waits in MPI_Recv for tag 2 while rank 0 first sends it TEST_COUNT
 * (default 64) eager messages of 1 MiB with tag 1: every one arrives before
 * its receive and is kept. With FARO_UNEXPECTED_LIMIT below that total, the
 * job must end with a message from rank 1 naming the memory held and the
 * knob (the test list expects the failure), instead of growing until the
 * kernel kills it. */
#include "util.h"

#define LEN (1024 * 1024)

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "unexpected_flood");
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int count = tu_env_int("TEST_COUNT", 64);
    char *buf = calloc(1, LEN);
    if (!buf)
        tu_fail("out of memory");
    if (rank == 0) {
        for (int i = 0; i < count; i++)
            TU_CHECK(MPI_Send(buf, LEN, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
        TU_CHECK(MPI_Send(buf, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
    } else if (rank == 1) {
        TU_CHECK(MPI_Recv(buf, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < count; i++)
            TU_CHECK(MPI_Recv(buf, LEN, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    free(buf);
    tu_finish();
    return 0;
}
