/* sendrecv: MPI_Sendrecv and MPI_Sendrecv_replace around a ring (every rank
 * sends right and receives from the left at the same time, which deadlocks
 * with blocking sends of large messages unless Sendrecv is done right).
 * Sizes small to rendezvous; send and receive counts differ; the ring also
 * runs in the other direction with MPI_ANY_SOURCE; MPI_PROC_NULL as either
 * partner is a no-op. */
#include "util.h"

#define NS 5
static const int sizes[NS] = {0, 3, 1000, 65536, 1200000};

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "sendrecv");
    tu_need_ranks(2);
    int right = (tu_rank + 1) % tu_size, left = (tu_rank + tu_size - 1) % tu_size;
    unsigned char *sb = tu_malloc(1200000 + 64), *rb = tu_malloc(1200000 + 64);
    MPI_Status st;

    for (int k = 0; k < NS; k++) {
        int n = sizes[k];
        /* to the right: sends n, receives into a larger buffer */
        tu_fill(sb, (size_t)n, (unsigned)(tu_rank * 100 + k));
        memset(rb, 0, (size_t)n + 64);
        TU_CHECK(MPI_Sendrecv(sb, n, MPI_BYTE, right, k, rb, n + 64, MPI_BYTE, left, k,
                              MPI_COMM_WORLD, &st));
        tu_check_status(&st, left, k, n, "Sendrecv to the right");
        tu_check_pattern(rb, (size_t)n, (unsigned)(left * 100 + k), "Sendrecv of %d bytes", n);

        /* to the left, receiving from any source */
        tu_fill(sb, (size_t)n, (unsigned)(tu_rank * 100 + k + 50));
        TU_CHECK(MPI_Sendrecv(sb, n, MPI_BYTE, left, 100 + k, rb, n, MPI_BYTE, MPI_ANY_SOURCE, 100 + k,
                              MPI_COMM_WORLD, &st));
        tu_check_status(&st, right, 100 + k, n, "Sendrecv to the left");
        tu_check_pattern(rb, (size_t)n, (unsigned)(right * 100 + k + 50),
                         "Sendrecv (any source) of %d bytes", n);

        /* in place: count in ints where possible */
        tu_fill(sb, (size_t)n, (unsigned)(tu_rank * 100 + k + 70));
        TU_CHECK(MPI_Sendrecv_replace(sb, n, MPI_BYTE, right, 200 + k, left, 200 + k,
                                      MPI_COMM_WORLD, &st));
        tu_check_status(&st, left, 200 + k, n, "Sendrecv_replace");
        tu_check_pattern(sb, (size_t)n, (unsigned)(left * 100 + k + 70),
                         "Sendrecv_replace of %d bytes", n);
    }

    /* MPI_PROC_NULL partners */
    tu_fill(sb, 100, 5);
    memset(rb, 0x3C, 100);
    TU_CHECK(MPI_Sendrecv(sb, 100, MPI_BYTE, MPI_PROC_NULL, 1, rb, 100, MPI_BYTE, MPI_PROC_NULL, 1,
                          MPI_COMM_WORLD, &st));
    tu_check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Sendrecv with MPI_PROC_NULL");
    tu_check_fill(rb, 100, 0x3C, "receive buffer of a Sendrecv from MPI_PROC_NULL");
    TU_CHECK(MPI_Sendrecv_replace(sb, 100, MPI_BYTE, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1,
                                  MPI_COMM_WORLD, &st));
    tu_check_pattern(sb, 100, 5, "Sendrecv_replace with MPI_PROC_NULL changed the buffer");
    /* a line instead of a ring: the ends talk to MPI_PROC_NULL */
    int r = tu_rank + 1 < tu_size ? tu_rank + 1 : MPI_PROC_NULL;
    int l = tu_rank > 0 ? tu_rank - 1 : MPI_PROC_NULL;
    int v = tu_rank, w = -1;
    TU_CHECK(MPI_Sendrecv(&v, 1, MPI_INT, r, 9, &w, 1, MPI_INT, l, 9, MPI_COMM_WORLD, &st));
    if (l == MPI_PROC_NULL)
        TU_ASSERT(w == -1, "receive from MPI_PROC_NULL wrote %d", w);
    else
        TU_ASSERT(w == l, "line shift: got %d, expected %d", w, l);
    free(sb);
    free(rb);
    tu_finish();
    return 0;
}
