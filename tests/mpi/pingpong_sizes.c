/* pingpong_sizes: data integrity for message sizes from 0 B to 64 MiB that
 * straddle every likely protocol threshold (eager limits, fragment sizes,
 * pipeline depths). Ranks pair up (0-1, 2-3, ...); an odd last rank idles.
 * For each size the even rank sends a pattern, the odd rank checks it byte
 * for byte (and that nothing was written past the end of the buffer), then
 * answers with a different pattern. Even-numbered sizes are received after a
 * Probe (the message is unexpected), odd-numbered ones with a posted receive.
 * TEST_MAX_SIZE (bytes) limits the sweep. */
#include "util.h"

#define GUARD 64

static const size_t sizes[] = {
    0, 1, 7, 8, 63, 64, 65, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8192, 8193,
    16383, 16384, 16385, 32767, 32768, 32769, 65535, 65536, 65537,
    131071, 131072, 131073, 262143, 262144, 262145,
    (1u << 20) + 3, 4u << 20, (16u << 20) + 5, 64u << 20,
};

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "pingpong_sizes");
    tu_arm_alarm(120);
    tu_need_ranks(2);
    int peer = tu_rank ^ 1;
    size_t max = 64u << 20;
    const char *e = getenv("TEST_MAX_SIZE");
    if (e && *e)
        max = (size_t)strtoull(e, NULL, 0);
    if (peer >= tu_size) {
        tu_finish();
        return 0;
    }
    size_t nsizes = sizeof sizes / sizeof sizes[0];
    size_t bufmax = 0;
    for (size_t k = 0; k < nsizes; k++)
        if (sizes[k] <= max && sizes[k] > bufmax)
            bufmax = sizes[k];
    unsigned char *sbuf = tu_malloc(bufmax);
    unsigned char *rbuf = tu_malloc(bufmax + GUARD);
    int sender = (tu_rank % 2 == 0);

    for (size_t k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        if (n > max)
            continue;
        int count = (int)n, tag = (int)k + 1;
        unsigned seed_ping = (unsigned)(2 * k + 1), seed_pong = (unsigned)(2 * k + 2);
        MPI_Status st;
        memset(rbuf, 0xA5, n + GUARD);
        if (sender) {
            MPI_Request rr;
            tu_fill(sbuf, n, seed_ping);
            /* pre-post the receive of the answer, then send */
            TU_CHECK(MPI_Irecv(rbuf, count, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rr));
            TU_CHECK(MPI_Send(sbuf, count, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
            TU_CHECK(MPI_Wait(&rr, &st));
            tu_check_status(&st, peer, tag, count, "answer");
            tu_check_pattern(rbuf, n, seed_pong, "answer of %zu bytes from rank %d", n, peer);
            tu_check_fill(rbuf + n, GUARD, 0xA5, "guard after answer of %zu bytes", n);
        } else {
            if (k % 2 == 0) {
                TU_CHECK(MPI_Probe(peer, tag, MPI_COMM_WORLD, &st));
                tu_check_status(&st, peer, tag, count, "probed message");
            }
            TU_CHECK(MPI_Recv(rbuf, count, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
            tu_check_status(&st, peer, tag, count, "received message");
            tu_check_pattern(rbuf, n, seed_ping, "message of %zu bytes from rank %d", n, peer);
            tu_check_fill(rbuf + n, GUARD, 0xA5, "guard after message of %zu bytes", n);
            tu_fill(sbuf, n, seed_pong);
            TU_CHECK(MPI_Send(sbuf, count, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
        }
    }
    free(sbuf);
    free(rbuf);
    tu_finish();
    return 0;
}
