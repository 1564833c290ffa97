/* tag_select: receives that name a tag pick exactly the messages with that
 * tag, whatever order they were sent in. Ranks pair up (0 sends, 1 receives;
 * 2 sends, 3 receives; ...).
 *   1. sender Isends tags 10..29 (small and large mixed); receiver takes them
 *      with specific tags in reverse order.
 *   2. two messages with the same tag and different content interleaved with
 *      other tags: a tag receive gets the earlier one first.
 *   3. receiver pre-posts receives for tags in a scrambled order, then the
 *      sender sends in increasing order; each receive gets its own tag.
 *   4. MPI_Iprobe for a tag that is never sent finds nothing. */
#include "util.h"

#define NT 20
#define BASE 10

static int tsize(int t) { return (t % 3 == 0) ? 150000 : 16 + t; }

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "tag_select");
    tu_need_ranks(2);
    int sender;
    int peer = tu_pair(&sender);
    unsigned char *buf[NT];
    for (int i = 0; i < NT; i++)
        buf[i] = tu_malloc(200000);
    MPI_Request req[NT];
    MPI_Status st;

    /* phase 1 */
    if (sender) {
        for (int i = 0; i < NT; i++) {
            int t = BASE + i;
            tu_fill(buf[i], (size_t)tsize(t), (unsigned)t);
            TU_CHECK(MPI_Isend(buf[i], tsize(t), MPI_BYTE, peer, t, MPI_COMM_WORLD, &req[i]));
        }
        TU_CHECK(MPI_Waitall(NT, req, MPI_STATUSES_IGNORE));
    } else {
        for (int i = NT - 1; i >= 0; i--) {
            int t = BASE + i;
            TU_CHECK(MPI_Recv(buf[0], 150000, MPI_BYTE, peer, t, MPI_COMM_WORLD, &st));
            tu_check_status(&st, peer, t, tsize(t), "phase 1");
            tu_check_pattern(buf[0], (size_t)tsize(t), (unsigned)t, "phase 1 tag %d", t);
        }
    }

    /* phase 2: tag 5 twice (A then B), tags 6 and 7 around them */
    {
        const int tags[4] = {6, 5, 7, 5};
        const int sizes[4] = {10, 100, 20, 200000};
        if (sender) {
            for (int i = 0; i < 4; i++) {
                tu_fill(buf[i], (size_t)sizes[i], (unsigned)(500 + i));
                TU_CHECK(MPI_Isend(buf[i], sizes[i], MPI_BYTE, peer, tags[i], MPI_COMM_WORLD,
                                   &req[i]));
            }
            TU_CHECK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
        } else {
            unsigned char *rb = tu_malloc(200000);
            /* order of receives: 7, 5 (must be A), 5 (must be B), 6 */
            const int order[4] = {2, 1, 3, 0};
            for (int k = 0; k < 4; k++) {
                int i = order[k];
                TU_CHECK(MPI_Recv(rb, 200000, MPI_BYTE, peer, tags[i], MPI_COMM_WORLD, &st));
                tu_check_status(&st, peer, tags[i], sizes[i], "phase 2");
                tu_check_pattern(rb, (size_t)sizes[i], (unsigned)(500 + i),
                                 "phase 2 message %d (tag %d)", i, tags[i]);
            }
            free(rb);
        }
    }

    /* phase 3: scrambled pre-posted receives */
    if (sender) {
        tu_token_recv(peer, TU_TAG_TOKEN);
        for (int i = 0; i < NT; i++) {
            int t = BASE + i;
            tu_fill(buf[i], (size_t)tsize(t), (unsigned)(t + 1000));
            TU_CHECK(MPI_Isend(buf[i], tsize(t), MPI_BYTE, peer, t, MPI_COMM_WORLD, &req[i]));
        }
        TU_CHECK(MPI_Waitall(NT, req, MPI_STATUSES_IGNORE));
    } else {
        for (int k = 0; k < NT; k++) {
            int i = (k * 7 + 3) % NT; /* 7 is coprime with 20: a permutation */
            TU_CHECK(MPI_Irecv(buf[i], 150000, MPI_BYTE, peer, BASE + i, MPI_COMM_WORLD, &req[i]));
        }
        tu_token_send(peer, TU_TAG_TOKEN);
        MPI_Status sts[NT];
        TU_CHECK(MPI_Waitall(NT, req, sts));
        for (int i = 0; i < NT; i++) {
            int t = BASE + i;
            tu_check_status(&sts[i], peer, t, tsize(t), "phase 3");
            tu_check_pattern(buf[i], (size_t)tsize(t), (unsigned)(t + 1000), "phase 3 tag %d", t);
        }
        /* phase 4 */
        int flag = -1;
        TU_CHECK(MPI_Iprobe(peer, 999, MPI_COMM_WORLD, &flag, &st));
        TU_ASSERT(flag == 0, "Iprobe found a message with tag 999 that was never sent");
        TU_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        TU_ASSERT(flag == 0, "Iprobe(ANY_SOURCE, ANY_TAG) found a message (source %d tag %d) "
                             "when all had been received", st.MPI_SOURCE, st.MPI_TAG);
    }
    for (int i = 0; i < NT; i++)
        free(buf[i]);
    tu_finish();
    return 0;
}
