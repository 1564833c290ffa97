/* many_requests: 1000 outstanding Isends and 1000 outstanding Irecvs per
 * rank at once. Ranks form a ring: each sends NM messages to its right
 * neighbour and receives NM from its left (with two ranks both are the
 * peer). Round 1 uses distinct tags and posts receives in reverse order;
 * round 2 uses one tag for all, so order alone decides matching; round 3
 * posts the sends before the receives. Every 100th message is large. */
#include "util.h"

#define NM 1000

static int msz(int i) { return (i % 100 == 50) ? 70000 : 8 + (i % 13) * 8; }

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "many_requests");
    tu_arm_alarm(90);
    tu_need_ranks(2);
    int right = (tu_rank + 1) % tu_size, left = (tu_rank + tu_size - 1) % tu_size;
    unsigned char **sb = tu_malloc(NM * sizeof *sb), **rb = tu_malloc(NM * sizeof *rb);
    for (int i = 0; i < NM; i++) {
        sb[i] = tu_malloc((size_t)msz(i));
        rb[i] = tu_malloc((size_t)msz(i));
    }
    MPI_Request *req = tu_malloc(2 * NM * sizeof *req);
    MPI_Status *sts = tu_malloc(2 * NM * sizeof *sts);

    for (int round = 1; round <= 3; round++) {
        for (int i = 0; i < NM; i++) {
            tu_fill(sb[i], (size_t)msz(i), (unsigned)(round * 100000 + tu_rank * 2000 + i));
            memset(rb[i], 0, (size_t)msz(i));
        }
        int tagbase = round * 1000;
        if (round == 3)
            for (int i = 0; i < NM; i++)
                TU_CHECK(MPI_Isend(sb[i], msz(i), MPI_BYTE, right, tagbase + i, MPI_COMM_WORLD,
                                   &req[NM + i]));
        for (int k = 0; k < NM; k++) {
            int i = (round == 1) ? NM - 1 - k : k;
            int tag = (round == 2) ? tagbase : tagbase + i;
            TU_CHECK(MPI_Irecv(rb[i], msz(i), MPI_BYTE, left, tag, MPI_COMM_WORLD, &req[i]));
        }
        if (round != 3)
            for (int i = 0; i < NM; i++)
                TU_CHECK(MPI_Isend(sb[i], msz(i), MPI_BYTE, right,
                                   (round == 2) ? tagbase : tagbase + i, MPI_COMM_WORLD,
                                   &req[NM + i]));
        TU_CHECK(MPI_Waitall(2 * NM, req, sts));
        for (int i = 0; i < NM; i++) {
            int tag = (round == 2) ? tagbase : tagbase + i;
            tu_check_status(&sts[i], left, tag, msz(i), "receive");
            tu_check_pattern(rb[i], (size_t)msz(i), (unsigned)(round * 100000 + left * 2000 + i),
                             "round %d message %d from rank %d", round, i, left);
        }
        /* the next round reuses tags only after everyone is done */
        tu_barrier();
    }
    for (int i = 0; i < NM; i++) {
        free(sb[i]);
        free(rb[i]);
    }
    free(sb);
    free(rb);
    free(req);
    free(sts);
    tu_finish();
    return 0;
}
