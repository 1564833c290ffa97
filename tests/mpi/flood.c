/* A sender floods a receiver that is busy elsewhere: rank 0 sends
 * TEST_COUNT (default 6000) eager messages of 32 KiB to rank 1 with
 * MPI_Send while rank 1 computes for 2 s before receiving them. A transport
 * may keep some of them queued at the sender, but only a bounded amount
 * (FARO_TCP_SEND_QUEUE; shm's rings): afterwards the sender's sends wait.
 * So rank 0's peak resident memory may grow by no more than TEST_RSS_MB
 * (default 96) MiB while it sends 190 MiB, and every message arrives intact
 * and in order. */
#include "util.h"

#include <sys/resource.h>
#include <unistd.h>

#define LEN (32 * 1024)

static long peak_kib(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "flood");
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int count = tu_env_int("TEST_COUNT", 6000);
    long limit_kib = (long)tu_env_int("TEST_RSS_MB", 96) * 1024;
    unsigned char *buf = malloc(LEN);
    if (!buf)
        tu_fail("out of memory");
    tu_barrier();
    if (rank == 0) {
        long before = peak_kib();
        for (int i = 0; i < count; i++) {
            tu_fill(buf, LEN, (unsigned)i);
            TU_CHECK(MPI_Send(buf, LEN, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
        }
        long grew = peak_kib() - before;
        if (grew > limit_kib)
            tu_fail("sending %d x %d bytes to a busy rank grew this rank's memory by %ld MiB "
                    "(bound: %ld MiB): the sends queued without back-pressure", count, LEN,
                    grew / 1024, limit_kib / 1024);
    } else if (rank == 1) {
        sleep(2); /* busy, not calling MPI */
        for (int i = 0; i < count; i++) {
            TU_CHECK(MPI_Recv(buf, LEN, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            tu_check_pattern(buf, LEN, (unsigned)i, "message %d", i);
        }
    }
    free(buf);
    tu_finish();
    return 0;
}
