/* Stays in the job for TEST_SECONDS (default 5) doing a little traffic every
 * 10 ms (an Allreduce and a ring exchange checked for the right values), so
 * that a test script can do something to the running job (connect to its
 * ports, kill a rank) and then see whether it still works. Rank 0 prints
 * "linger: N rounds" at the end. */
#include "util.h"

#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "linger");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double end = now() + tu_env_int("TEST_SECONDS", 5);
    long rounds = 0;
    for (int go = 1; go; rounds++) {
        int in = rank, sum = 0, got = -1;
        TU_CHECK(MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (sum != size * (size - 1) / 2)
            tu_fail("round %ld: Allreduce gave %d, expected %d", rounds, sum,
                    size * (size - 1) / 2);
        TU_CHECK(MPI_Sendrecv(&in, 1, MPI_INT, (rank + 1) % size, 1, &got, 1, MPI_INT,
                              (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (got != (rank + size - 1) % size)
            tu_fail("round %ld: the ring gave %d, expected %d", rounds, got,
                    (rank + size - 1) % size);
        usleep(10000);
        go = rank == 0 ? now() < end : 1;
        TU_CHECK(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD));
    }
    if (rank == 0)
        printf("linger: %ld rounds\n", rounds);
    tu_finish();
    return 0;
}
