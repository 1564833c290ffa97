/* anysrc_anytag: wildcard matching. Every rank but 0 sends K messages to
 * rank 0 with tags it chooses; rank 0 receives them with
 *   1. MPI_ANY_SOURCE + MPI_ANY_TAG  (status must name the real source/tag,
 *      and per source the messages must arrive in send order),
 *   2. MPI_ANY_SOURCE + a specific tag, with receives pre-posted,
 *   3. a specific source + MPI_ANY_TAG.
 * Payload: {source, index, tag} followed by a pattern. */
#include "util.h"

#define K 40

static int msg_size(int i) { return (i % 5 == 4) ? 20000 : 12 + 4 * (i % 7); }

static void send_batch(int phase)
{
    unsigned char buf[20000];
    for (int i = 0; i < K; i++) {
        int n = msg_size(i);
        int tag = phase * 1000 + tu_rank * 50 + i % 50;
        if (phase == 2)
            tag = 7;
        tu_fill(buf, (size_t)n, (unsigned)(phase * 100000 + tu_rank * 1000 + i));
        int hdr[3] = {tu_rank, i, tag};
        memcpy(buf, hdr, sizeof hdr);
        TU_CHECK(MPI_Send(buf, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD));
    }
}

static void check_msg(unsigned char *buf, const MPI_Status *st, int phase, int *next)
{
    int hdr[3], count;
    memcpy(hdr, buf, sizeof hdr);
    int src = st->MPI_SOURCE;
    TU_CHECK(MPI_Get_count(st, MPI_BYTE, &count));
    TU_ASSERT(src > 0 && src < tu_size, "phase %d: status source %d out of range", phase, src);
    TU_ASSERT(hdr[0] == src, "phase %d: status source %d but message from rank %d", phase, src,
              hdr[0]);
    TU_ASSERT(hdr[2] == st->MPI_TAG, "phase %d: status tag %d but message sent with tag %d",
              phase, st->MPI_TAG, hdr[2]);
    TU_ASSERT(hdr[1] == next[src],
              "phase %d: from rank %d got message %d, expected %d (non-overtaking broken)", phase,
              src, hdr[1], next[src]);
    TU_ASSERT(count == msg_size(hdr[1]), "phase %d: message %d from %d has %d bytes, expected %d",
              phase, hdr[1], src, count, msg_size(hdr[1]));
    memcpy(buf, hdr, sizeof hdr); /* header bytes replaced the pattern: restore for check */
    unsigned char ref[12];
    tu_fill(ref, 12, (unsigned)(phase * 100000 + src * 1000 + hdr[1]));
    memcpy(buf, ref, 12);
    tu_check_pattern(buf, (size_t)count, (unsigned)(phase * 100000 + src * 1000 + hdr[1]),
                     "phase %d message %d from rank %d", phase, hdr[1], src);
    next[src]++;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "anysrc_anytag");
    tu_need_ranks(2);
    int nsend = tu_size - 1;
    int *next = calloc((size_t)tu_size, sizeof *next);
    TU_ASSERT(next, "out of memory");

    /* phase 1: any source, any tag */
    if (tu_rank == 0) {
        unsigned char *buf = tu_malloc(20000);
        for (int m = 0; m < nsend * K; m++) {
            MPI_Status st;
            TU_CHECK(MPI_Recv(buf, 20000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                              &st));
            check_msg(buf, &st, 1, next);
        }
        free(buf);
    } else {
        send_batch(1);
    }
    /* no tu_barrier() here: its message would match the ANY_TAG receives;
     * rank 0 releases each phase with a token instead */

    /* phase 2: receives posted before any message is sent, any source, tag 7 */
    if (tu_rank == 0) {
        int n = nsend * K;
        unsigned char *bufs = tu_malloc((size_t)n * 20000);
        MPI_Request *req = tu_malloc((size_t)n * sizeof *req);
        MPI_Status *st = tu_malloc((size_t)n * sizeof *st);
        for (int m = 0; m < n; m++)
            TU_CHECK(MPI_Irecv(bufs + (size_t)m * 20000, 20000, MPI_BYTE, MPI_ANY_SOURCE, 7,
                               MPI_COMM_WORLD, &req[m]));
        for (int r = 1; r < tu_size; r++)
            tu_token_send(r, TU_TAG_TOKEN);
        TU_CHECK(MPI_Waitall(n, req, st));
        memset(next, 0, (size_t)tu_size * sizeof *next);
        /* receives posted in order match in order: per source, message
         * indices must increase along the request array */
        for (int m = 0; m < n; m++)
            check_msg(bufs + (size_t)m * 20000, &st[m], 2, next);
        for (int r = 1; r < tu_size; r++)
            TU_ASSERT(next[r] == K, "phase 2: got %d messages from rank %d, expected %d", next[r],
                      r, K);
        free(bufs);
        free(req);
        free(st);
    } else {
        tu_token_recv(0, TU_TAG_TOKEN);
        send_batch(2);
    }
    if (tu_rank == 0)
        for (int r = 1; r < tu_size; r++)
            tu_token_send(r, TU_TAG_TOKEN);
    else
        tu_token_recv(0, TU_TAG_TOKEN);

    /* phase 3: specific source (highest rank first), any tag */
    if (tu_rank == 0) {
        unsigned char *buf = tu_malloc(20000);
        memset(next, 0, (size_t)tu_size * sizeof *next);
        for (int r = tu_size - 1; r >= 1; r--) {
            for (int i = 0; i < K; i++) {
                MPI_Status st;
                TU_CHECK(MPI_Recv(buf, 20000, MPI_BYTE, r, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                TU_ASSERT(st.MPI_SOURCE == r, "phase 3: asked for rank %d, got %d", r,
                          st.MPI_SOURCE);
                check_msg(buf, &st, 3, next);
            }
        }
        free(buf);
    } else {
        send_batch(3);
    }
    free(next);
    tu_finish();
    return 0;
}
