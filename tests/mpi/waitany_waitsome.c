/* waitany_waitsome: the multiple-completion calls. Ranks pair up; the even
 * rank posts NR receives with distinct tags, the odd rank sends them in a
 * scrambled order (sizes mixed small/large). Each round completes the
 * receives with a different call and checks that every request completes
 * exactly once, with the right status and data, that completed requests
 * become MPI_REQUEST_NULL, and that an array of only null requests gives
 * MPI_UNDEFINED. Rounds: Waitany, Waitsome, Testany, Testsome, Testall,
 * Waitall with some null entries. The sender completes its Isends with
 * Waitsome/Testall too. */
#include "util.h"

#define NR 16
#define BIG 100000

static int rsize(int i) { return (i % 4 == 1) ? BIG : 4 * i + 1; }
static unsigned seed(int round, int i) { return (unsigned)(round * 100 + i); }

static int done[NR];

static void complete_one(int round, int idx, MPI_Status *st, unsigned char **buf, int peer)
{
    TU_ASSERT(idx >= 0 && idx < NR, "round %d: completion index %d out of range", round, idx);
    TU_ASSERT(!done[idx], "round %d: request %d completed twice", round, idx);
    done[idx] = 1;
    tu_check_status(st, peer, idx, rsize(idx), "completed receive");
    tu_check_pattern(buf[idx], (size_t)rsize(idx), seed(round, idx), "round %d request %d", round,
                     idx);
}

static void check_all_null(MPI_Request *req, int round)
{
    for (int i = 0; i < NR; i++)
        TU_ASSERT(req[i] == MPI_REQUEST_NULL, "round %d: request %d not MPI_REQUEST_NULL after "
                                              "completion", round, i);
    int idx = -5, flag = -5, out = -5, idxs[NR];
    MPI_Status st, sts[NR];
    TU_CHECK(MPI_Waitany(NR, req, &idx, &st));
    TU_ASSERT(idx == MPI_UNDEFINED, "Waitany on null requests gave index %d", idx);
    TU_CHECK(MPI_Testany(NR, req, &idx, &flag, &st));
    TU_ASSERT(idx == MPI_UNDEFINED && flag, "Testany on null requests gave index %d flag %d", idx,
              flag);
    TU_CHECK(MPI_Waitsome(NR, req, &out, idxs, sts));
    TU_ASSERT(out == MPI_UNDEFINED, "Waitsome on null requests gave outcount %d", out);
    TU_CHECK(MPI_Testsome(NR, req, &out, idxs, sts));
    TU_ASSERT(out == MPI_UNDEFINED, "Testsome on null requests gave outcount %d", out);
    TU_CHECK(MPI_Testall(NR, req, &flag, sts));
    TU_ASSERT(flag, "Testall on null requests gave flag 0");
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "waitany_waitsome");
    tu_need_ranks(2);
    int peer = tu_rank ^ 1;
    if (peer >= tu_size) {
        tu_finish();
        return 0;
    }
    int receiver = (tu_rank % 2 == 0);
    unsigned char *buf[NR];
    for (int i = 0; i < NR; i++)
        buf[i] = tu_malloc(BIG);
    MPI_Request req[NR];
    MPI_Status sts[NR];
    int idxs[NR];

    for (int round = 0; round < 6; round++) {
        if (!receiver) {
            tu_token_recv(peer, TU_TAG_TOKEN);
            for (int k = 0; k < NR; k++) {
                int i = (k * 5 + round) % NR; /* scrambled order */
                tu_fill(buf[i], (size_t)rsize(i), seed(round, i));
                TU_CHECK(MPI_Isend(buf[i], rsize(i), MPI_BYTE, peer, i, MPI_COMM_WORLD, &req[i]));
            }
            if (round % 2 == 0) {
                int left = NR, out;
                while (left > 0) {
                    TU_CHECK(MPI_Waitsome(NR, req, &out, idxs, MPI_STATUSES_IGNORE));
                    TU_ASSERT(out >= 1 && out <= left, "sender Waitsome outcount %d", out);
                    left -= out;
                }
            } else {
                int flag = 0;
                while (!flag)
                    TU_CHECK(MPI_Testall(NR, req, &flag, MPI_STATUSES_IGNORE));
            }
            continue;
        }
        memset(done, 0, sizeof done);
        for (int i = 0; i < NR; i++) {
            memset(buf[i], 0, (size_t)rsize(i));
            TU_CHECK(MPI_Irecv(buf[i], BIG, MPI_BYTE, peer, i, MPI_COMM_WORLD, &req[i]));
        }
        tu_token_send(peer, TU_TAG_TOKEN);
        int ndone = 0, idx, flag, out;
        MPI_Status st;
        switch (round) {
        case 0: /* Waitany */
            while (ndone < NR) {
                TU_CHECK(MPI_Waitany(NR, req, &idx, &st));
                complete_one(round, idx, &st, buf, peer);
                ndone++;
            }
            break;
        case 1: /* Waitsome */
            while (ndone < NR) {
                TU_CHECK(MPI_Waitsome(NR, req, &out, idxs, sts));
                TU_ASSERT(out >= 1 && out <= NR - ndone, "Waitsome outcount %d with %d pending", out,
                          NR - ndone);
                for (int j = 0; j < out; j++)
                    complete_one(round, idxs[j], &sts[j], buf, peer);
                ndone += out;
            }
            break;
        case 2: /* Testany */
            while (ndone < NR) {
                TU_CHECK(MPI_Testany(NR, req, &idx, &flag, &st));
                if (flag) {
                    TU_ASSERT(idx != MPI_UNDEFINED, "Testany: flag set, index undefined, %d pending",
                              NR - ndone);
                    complete_one(round, idx, &st, buf, peer);
                    ndone++;
                } else {
                    TU_ASSERT(idx == MPI_UNDEFINED, "Testany: flag 0 but index %d", idx);
                }
            }
            break;
        case 3: /* Testsome */
            while (ndone < NR) {
                TU_CHECK(MPI_Testsome(NR, req, &out, idxs, sts));
                TU_ASSERT(out >= 0 && out <= NR - ndone, "Testsome outcount %d with %d pending", out,
                          NR - ndone);
                for (int j = 0; j < out; j++)
                    complete_one(round, idxs[j], &sts[j], buf, peer);
                ndone += out;
            }
            break;
        case 4: /* Testall */
            flag = 0;
            while (!flag)
                TU_CHECK(MPI_Testall(NR, req, &flag, sts));
            for (int i = 0; i < NR; i++)
                complete_one(round, i, &sts[i], buf, peer);
            break;
        case 5: /* Waitall with null entries: complete the first half with Wait */
            for (int i = 0; i < NR / 2; i++) {
                TU_CHECK(MPI_Wait(&req[i], &st));
                complete_one(round, i, &st, buf, peer);
            }
            TU_CHECK(MPI_Waitall(NR, req, sts));
            for (int i = NR / 2; i < NR; i++)
                complete_one(round, i, &sts[i], buf, peer);
            break;
        }
        check_all_null(req, round);
    }
    for (int i = 0; i < NR; i++)
        free(buf[i]);
    tu_finish();
    return 0;
}
