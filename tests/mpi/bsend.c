/* bsend: buffered sends. Ranks pair up; the even rank attaches a buffer and
 * Bsends NB messages (small and large) plus Ibsends, all before the
 * receiver has posted anything: buffered sends must complete locally. The
 * sender then scribbles over its user buffers (the data must already have
 * been copied), tells the receiver to go, and the receiver checks every
 * message. MPI_Buffer_detach returns the attached buffer and size and waits
 * until buffered messages are gone. Repeated with attach/detach cycles. */
#include "util.h"

#define NB 6
static const int sizes[NB] = {0, 1, 100, 5000, 70000, 400000};

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "bsend");
    tu_need_ranks(2);
    int sender;
    int peer = tu_pair(&sender);
    unsigned char *ub[2 * NB];
    for (int i = 0; i < 2 * NB; i++)
        ub[i] = tu_malloc((size_t)sizes[i % NB]);
    int bsize = 0;
    for (int i = 0; i < 2 * NB; i++)
        bsize += sizes[i % NB] + MPI_BSEND_OVERHEAD;
    bsize += 1024;

    for (int cycle = 0; cycle < 3; cycle++) {
        if (sender) {
            char *bbuf = tu_malloc((size_t)bsize);
            TU_CHECK(MPI_Buffer_attach(bbuf, bsize));
            MPI_Request req[NB];
            for (int i = 0; i < 2 * NB; i++)
                tu_fill(ub[i], (size_t)sizes[i % NB], (unsigned)(cycle * 100 + i));
            for (int i = 0; i < NB; i++)
                TU_CHECK(MPI_Bsend(ub[i], sizes[i], MPI_BYTE, peer, i, MPI_COMM_WORLD));
            for (int i = 0; i < NB; i++)
                TU_CHECK(MPI_Ibsend(ub[NB + i], sizes[i], MPI_BYTE, peer, NB + i, MPI_COMM_WORLD,
                                    &req[i]));
            /* buffered sends complete without the receiver */
            TU_CHECK(MPI_Waitall(NB, req, MPI_STATUSES_IGNORE));
            for (int i = 0; i < 2 * NB; i++)
                memset(ub[i], 0xEE, (size_t)sizes[i % NB]);
            tu_token_send(peer, TU_TAG_TOKEN);
            void *back = NULL;
            int backsize = -1;
            TU_CHECK(MPI_Buffer_detach(&back, &backsize));
            TU_ASSERT(back == (void *)bbuf && backsize == bsize,
                      "Buffer_detach gave %p/%d, attached %p/%d", back, backsize, (void *)bbuf,
                      bsize);
            free(bbuf);
        } else {
            tu_token_recv(peer, TU_TAG_TOKEN);
            /* receive in reverse order, by tag */
            for (int i = 2 * NB - 1; i >= 0; i--) {
                MPI_Status st;
                int n = sizes[i % NB];
                memset(ub[i], 0, (size_t)n);
                TU_CHECK(MPI_Recv(ub[i], n, MPI_BYTE, peer, i, MPI_COMM_WORLD, &st));
                tu_check_status(&st, peer, i, n, "buffered message");
                tu_check_pattern(ub[i], (size_t)n, (unsigned)(cycle * 100 + i),
                                 "cycle %d buffered message %d (%d bytes)", cycle, i, n);
            }
        }
    }
    for (int i = 0; i < 2 * NB; i++)
        free(ub[i]);
    tu_finish();
    return 0;
}
