/* ordering: MPI's non-overtaking rule. Every rank but 0 sends N messages to
 * rank 0; the tag of message i is i and sizes cycle through small and large
 * values (with one 2 MiB message in the middle), so eager and rendezvous
 * messages interleave. Rank 0 receives with MPI_ANY_SOURCE and MPI_ANY_TAG
 * and checks that, per source, message i arrives i-th, with its size and
 * data intact. Three phases:
 *   1. blocking Send / blocking Recv one at a time,
 *   2. Isend everything / windows of pre-posted Irecvs,
 *   3. late receiver: senders Isend everything and tell rank 0 (on another
 *      tag) before rank 0 posts any receive, so messages queue up unexpected. */
#include "util.h"

#define N 160
#define WINDOW 16
#define BIG ((2u << 20) + 3)

static const int cycle[] = {0, 1, 8, 100, 1500, 9000, 70000, 300000, 33, 4096};

static size_t msg_size(int i)
{
    if (i == N / 2)
        return BIG;
    return (size_t)cycle[i % (int)(sizeof cycle / sizeof cycle[0])];
}

static unsigned seed_of(int phase, int src, int i) { return (unsigned)(phase * 1000003 + src * 1009 + i); }

static void sender(int phase, unsigned char **bufs)
{
    MPI_Request req[N];
    for (int i = 0; i < N; i++)
        tu_fill(bufs[i], msg_size(i), seed_of(phase, tu_rank, i));
    if (phase == 1) {
        for (int i = 0; i < N; i++)
            TU_CHECK(MPI_Send(bufs[i], (int)msg_size(i), MPI_BYTE, 0, i, MPI_COMM_WORLD));
        return;
    }
    for (int i = 0; i < N; i++)
        TU_CHECK(MPI_Isend(bufs[i], (int)msg_size(i), MPI_BYTE, 0, i, MPI_COMM_WORLD, &req[i]));
    if (phase == 3)
        tu_token_send(0, TU_TAG_TOKEN); /* "all my sends are posted" */
    TU_CHECK(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));
}

static void check(int phase, unsigned char *buf, const MPI_Status *st, int *next)
{
    int src = st->MPI_SOURCE, i = st->MPI_TAG, count = -1;
    TU_ASSERT(src > 0 && src < tu_size, "phase %d: bad source %d", phase, src);
    TU_ASSERT(i == next[src],
              "phase %d: from rank %d received message %d before message %d (overtaking)",
              phase, src, i, next[src]);
    TU_CHECK(MPI_Get_count(st, MPI_BYTE, &count));
    TU_ASSERT((size_t)count == msg_size(i), "phase %d: message %d from rank %d has %d bytes, expected %zu",
              phase, i, src, count, msg_size(i));
    tu_check_pattern(buf, (size_t)count, seed_of(phase, src, i), "phase %d message %d from rank %d",
                     phase, i, src);
    next[src]++;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "ordering");
    tu_arm_alarm(120);
    tu_need_ranks(2);
    int total = (tu_size - 1) * N;
    int *next = calloc((size_t)tu_size, sizeof *next);
    TU_ASSERT(next, "out of memory");

    if (tu_rank != 0) {
        unsigned char *bufs[N];
        for (int i = 0; i < N; i++)
            bufs[i] = tu_malloc(msg_size(i));
        for (int phase = 1; phase <= 3; phase++) {
            tu_token_recv(0, TU_TAG_TOKEN); /* rank 0 ready for this phase */
            sender(phase, bufs);
        }
        for (int i = 0; i < N; i++)
            free(bufs[i]);
    } else {
        unsigned char *rb[WINDOW];
        for (int w = 0; w < WINDOW; w++)
            rb[w] = tu_malloc(BIG);
        MPI_Status st[WINDOW];
        MPI_Request req[WINDOW];

        /* phase 1 */
        for (int r = 1; r < tu_size; r++)
            tu_token_send(r, TU_TAG_TOKEN);
        for (int m = 0; m < total; m++) {
            TU_CHECK(MPI_Recv(rb[0], (int)BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                              &st[0]));
            check(1, rb[0], &st[0], next);
        }

        /* phase 2: windows of pre-posted receives */
        memset(next, 0, (size_t)tu_size * sizeof *next);
        for (int r = 1; r < tu_size; r++)
            tu_token_send(r, TU_TAG_TOKEN);
        for (int m = 0; m < total; m += WINDOW) {
            int w = total - m < WINDOW ? total - m : WINDOW;
            for (int k = 0; k < w; k++)
                TU_CHECK(MPI_Irecv(rb[k], (int)BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                   MPI_COMM_WORLD, &req[k]));
            TU_CHECK(MPI_Waitall(w, req, st));
            for (int k = 0; k < w; k++)
                check(2, rb[k], &st[k], next);
        }

        /* phase 3: wait until every sender has posted all its sends */
        memset(next, 0, (size_t)tu_size * sizeof *next);
        for (int r = 1; r < tu_size; r++)
            tu_token_send(r, TU_TAG_TOKEN);
        for (int r = 1; r < tu_size; r++)
            tu_token_recv(r, TU_TAG_TOKEN);
        for (int m = 0; m < total; m++) {
            TU_CHECK(MPI_Recv(rb[0], (int)BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                              &st[0]));
            check(3, rb[0], &st[0], next);
        }
        for (int r = 1; r < tu_size; r++)
            TU_ASSERT(next[r] == N, "got %d messages from rank %d, expected %d", next[r], r, N);
        for (int w = 0; w < WINDOW; w++)
            free(rb[w]);
    }
    free(next);
    tu_finish();
    return 0;
}
