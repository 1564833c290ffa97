/* ssend: a synchronous send completes only once a matching receive has been
 * posted. The check does not depend on timing:
 *   A: rank 0 Issends message M (tag 1) to rank 1.
 *   B: rank 1 blocks in MPI_Probe until M (or its rendezvous request) has
 *      arrived - a probe is not a receive, so M is still unmatched - then
 *      sends "arrived" (tag 2) to rank 0.
 *   C: rank 0 receives "arrived"; anything rank 1 sent before it (such as a
 *      wrong early acknowledgement) has been seen by now on an ordered
 *      channel. MPI_Test on the Issend must say "not complete", several times.
 *   D: rank 0 sends "go" (tag 3); only then does rank 1 post its receive for
 *      M; rank 0's MPI_Wait must then complete and the data must be intact.
 * Done for a 0-byte, an eager-sized and a rendezvous-sized message, then a
 * plain blocking MPI_Ssend exchange in both directions. With more than two
 * ranks, pairs (0,1), (2,3), ... run the same test. */
#include "util.h"

static const int sizes[] = {0, 8, 1000, 40000, 1 << 20};

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "ssend");
    tu_need_ranks(2);
    int peer = tu_rank ^ 1;
    if (peer >= tu_size) {
        tu_finish();
        return 0;
    }
    int first = (tu_rank % 2 == 0);
    unsigned char *buf = tu_malloc(1 << 20);

    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        MPI_Status st;
        if (first) {
            MPI_Request req;
            int flag = -1;
            tu_fill(buf, (size_t)n, (unsigned)k + 1);
            TU_CHECK(MPI_Issend(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req));
            tu_token_recv(peer, 2); /* "arrived" */
            for (int t = 0; t < 100; t++) {
                TU_CHECK(MPI_Test(&req, &flag, &st));
                TU_ASSERT(!flag, "MPI_Issend of %d bytes completed before the receiver posted "
                                 "a matching receive (MPI_Test #%d)", n, t);
            }
            tu_token_send(peer, 3); /* "go" */
            TU_CHECK(MPI_Wait(&req, &st));
            TU_ASSERT(req == MPI_REQUEST_NULL, "request not freed by MPI_Wait");
        } else {
            TU_CHECK(MPI_Probe(peer, 1, MPI_COMM_WORLD, &st));
            tu_check_status(&st, peer, 1, n, "probed synchronous message");
            tu_token_send(peer, 2);
            tu_token_recv(peer, 3);
            memset(buf, 0, (size_t)n);
            TU_CHECK(MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
            tu_check_status(&st, peer, 1, n, "synchronous message");
            tu_check_pattern(buf, (size_t)n, (unsigned)k + 1, "Issend of %d bytes", n);
        }
    }

    /* blocking Ssend both ways: the receiver posts first in one direction,
     * late (after an Iprobe loop) in the other */
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        MPI_Status st;
        for (int dir = 0; dir < 2; dir++) {
            int i_send = (dir == 0) == first;
            unsigned seed = (unsigned)(100 + 2 * k + (unsigned)dir);
            if (i_send) {
                tu_fill(buf, (size_t)n, seed);
                TU_CHECK(MPI_Ssend(buf, n, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
            } else {
                if (dir == 1) {
                    int flag = 0;
                    while (!flag)
                        TU_CHECK(MPI_Iprobe(peer, 4, MPI_COMM_WORLD, &flag, &st));
                }
                memset(buf, 0, (size_t)n);
                TU_CHECK(MPI_Recv(buf, n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &st));
                tu_check_status(&st, peer, 4, n, "Ssend message");
                tu_check_pattern(buf, (size_t)n, seed, "Ssend of %d bytes", n);
            }
        }
    }
    free(buf);
    tu_finish();
    return 0;
}
