/* rsend: ready sends. The receiver posts its receives, then sends a token;
 * the sender Rsends / Irsends only after the token, as MPI requires. Sizes
 * eager and rendezvous; several messages outstanding at once. Ranks pair up. */
#include "util.h"

#define NS 5
static const int sizes[NS] = {0, 16, 4000, 100000, 1 << 20};

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "rsend");
    tu_need_ranks(2);
    int sender;
    int peer = tu_pair(&sender);
    unsigned char *buf[NS];
    for (int k = 0; k < NS; k++)
        buf[k] = tu_malloc((size_t)sizes[k]);
    MPI_Request req[NS];
    MPI_Status sts[NS];

    for (int round = 0; round < 4; round++) {
        if (sender) {
            for (int k = 0; k < NS; k++)
                tu_fill(buf[k], (size_t)sizes[k], (unsigned)(round * 10 + k));
            tu_token_recv(peer, TU_TAG_TOKEN);
            if (round % 2 == 0) {
                for (int k = 0; k < NS; k++)
                    TU_CHECK(MPI_Rsend(buf[k], sizes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD));
            } else {
                for (int k = NS - 1; k >= 0; k--)
                    TU_CHECK(MPI_Irsend(buf[k], sizes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD,
                                        &req[k]));
                TU_CHECK(MPI_Waitall(NS, req, MPI_STATUSES_IGNORE));
            }
        } else {
            for (int k = 0; k < NS; k++) {
                memset(buf[k], 0, (size_t)sizes[k]);
                TU_CHECK(MPI_Irecv(buf[k], sizes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD, &req[k]));
            }
            tu_token_send(peer, TU_TAG_TOKEN);
            TU_CHECK(MPI_Waitall(NS, req, sts));
            for (int k = 0; k < NS; k++) {
                tu_check_status(&sts[k], peer, k, sizes[k], "ready-mode message");
                tu_check_pattern(buf[k], (size_t)sizes[k], (unsigned)(round * 10 + k),
                                 "round %d ready-mode message of %d bytes", round, sizes[k]);
            }
        }
    }
    for (int k = 0; k < NS; k++)
        free(buf[k]);
    tu_finish();
    return 0;
}
