/*
 * coll_interleave: collectives while user point-to-point traffic is in
 * flight. Every rank pre-posts MPI_ANY_SOURCE/MPI_ANY_TAG receives and
 * leaves user messages unexpected at its peers, then runs collectives of
 * every kind; the user receives must get only user messages (a collective
 * message stolen by them, or a user message taken by a collective, shows up
 * as wrong data or a hang), and MPI_Iprobe(ANY, ANY) must never see a
 * collective message.
 */
#include "util.h"

#define ROUNDS 20

static int payload(int src, int dst, int k) { return src * 10000 + dst * 100 + k; }

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_interleave");
    int rank = tu_rank, size = tu_size;
    int n = 2 * (size - 1); /* user messages to each rank per round: two from each peer */
    MPI_Request *rq = tu_malloc((size_t)(n ? n : 1) * sizeof *rq);
    int *rbuf = tu_malloc((size_t)(n ? n : 1) * 2 * sizeof(int));
    int *abuf = tu_malloc((size_t)size * 2 * sizeof(int)), *bbuf = tu_malloc((size_t)size * 2 * sizeof(int));

    for (int round = 0; round < ROUNDS; round++) {
        /* half the user messages are pre-posted receives ... */
        for (int i = 0; i < n; i++)
            TU_CHECK(MPI_Irecv(rbuf + 2 * i, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                               MPI_COMM_WORLD, &rq[i]));
        /* ... and the first message to each peer is sent before the collectives
         * (eager: it sits unexpected there, or matches a pre-posted receive) */
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            int m[2] = {payload(rank, p, 0), round};
            TU_CHECK(MPI_Send(m, 2, MPI_INT, p, 5 + round % 3, MPI_COMM_WORLD));
        }

        int x = rank + round, y = -1;
        TU_CHECK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (y != size * (size - 1) / 2 + size * round)
            tu_fail("round %d: Allreduce gave %d", round, y);
        int bc = round * 7 + 1;
        if (rank != round % size)
            bc = -1;
        TU_CHECK(MPI_Bcast(&bc, 1, MPI_INT, round % size, MPI_COMM_WORLD));
        if (bc != round * 7 + 1)
            tu_fail("round %d: Bcast gave %d", round, bc);
        for (int p = 0; p < size; p++) {
            abuf[2 * p] = payload(rank, p, round);
            abuf[2 * p + 1] = -round;
        }
        TU_CHECK(MPI_Alltoall(abuf, 2, MPI_INT, bbuf, 2, MPI_INT, MPI_COMM_WORLD));
        for (int p = 0; p < size; p++)
            if (bbuf[2 * p] != payload(p, rank, round) || bbuf[2 * p + 1] != -round)
                tu_fail("round %d: Alltoall block from %d wrong", round, p);
        int flag = 0;
        MPI_Status st;
        TU_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        if (flag && (st.MPI_TAG < 5 || st.MPI_TAG > 7))
            tu_fail("round %d: MPI_Iprobe(ANY, ANY) saw tag %d", round, st.MPI_TAG);
        TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));

        /* the second message to each peer after the collectives */
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            int m[2] = {payload(rank, p, 1), round};
            TU_CHECK(MPI_Send(m, 2, MPI_INT, p, 5 + round % 3, MPI_COMM_WORLD));
        }
        MPI_Status *sts = tu_malloc((size_t)(n ? n : 1) * sizeof *sts);
        TU_CHECK(MPI_Waitall(n, rq, sts));
        int seen[2][64] = {{0}};
        for (int i = 0; i < n; i++) {
            int src = sts[i].MPI_SOURCE, k = rbuf[2 * i] - payload(src, rank, 0);
            if (sts[i].MPI_TAG != 5 + round % 3 || (k != 0 && k != 1) || rbuf[2 * i + 1] != round)
                tu_fail("round %d: user receive got tag %d from %d: {%d, %d}", round,
                        sts[i].MPI_TAG, src, rbuf[2 * i], rbuf[2 * i + 1]);
            if (src < 64)
                seen[k][src]++;
        }
        for (int p = 0; p < size && p < 64; p++)
            if (p != rank && (seen[0][p] != 1 || seen[1][p] != 1))
                tu_fail("round %d: from rank %d got %d first and %d second messages", round, p,
                        seen[0][p], seen[1][p]);
        free(sts);
        /* no rank's next-round messages may meet this round's ANY_TAG receives */
        TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(rq);
    free(rbuf);
    free(abuf);
    free(bbuf);
    tu_finish();
    return 0;
}
