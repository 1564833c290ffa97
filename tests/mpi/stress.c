/*
 * stress: a bounded random point-to-point storm, checked message by message.
 *
 * Every rank derives the same plan for each round from the seed (printed by
 * rank 0; TEST_SEED repeats a run): messages between random pairs of four
 * communicators (MPI_COMM_WORLD, a dup, a split by parity, a split in
 * reversed order), sizes 0 B..8 MiB weighted toward small ones (60% up to
 * 256 B, 25% up to 64 KiB, 12% up to 1 MiB, 3% up to 8 MiB; at most 24 MiB a
 * round), a distinct tag each, sent with MPI_Send, MPI_Ssend, MPI_Isend or
 * MPI_Issend, and received by MPI_Recv or MPI_Irecv naming source and tag, or
 * by receives with MPI_ANY_SOURCE and MPI_ANY_TAG (a receiver takes all its
 * messages on a communicator that way in some rounds, and tells them apart
 * by their status). Each round also posts receives nobody sends to and
 * cancels them, and completes the nonblocking ones with Waitall, Waitany or
 * a Testsome loop.
 *
 * A round: post the nonblocking receives; send (blocking sends only to
 * receives posted in that first step, so no pair can wait on each other);
 * the blocking receives; cancel; complete; check every payload (a pattern
 * from the seed and the message's number) and its source, tag and size;
 * an Allreduce ends the round and says whether time is up (TEST_SECONDS,
 * default 3). At the end the counts of every rank are summed: the job fails
 * unless every message arrived once, intact ("0 corrupt, 0 lost").
 */
#include "util.h"

#include <time.h>

#define NCOMM 4
#define MAXMSG 48
#define ROUND_BYTES (24u << 20)
#define TAG0 100
#define TAG_NOBODY 30000

enum { SEND, SSEND, ISEND, ISSEND };
enum { RECV, IRECV };

struct msg {
    int comm, src, dst; /* ranks in the communicator */
    int tag, mode, rmode;
    size_t size;
    uint64_t seed;
};

static uint64_t rng;

static uint64_t next(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static int csize[NCOMM], cworld[NCOMM][64];

/* The rank in communicator c of world rank w. */
static int rank_in(int c, int w)
{
    for (int r = 0; r < csize[c]; r++)
        if (cworld[c][r] == w)
            return r;
    tu_fail("world rank %d is not in communicator %d", w, c);
}

static size_t pick_size(void)
{
    unsigned w = (unsigned)(next() % 100);
    if (w < 60)
        return (size_t)(next() % 257);
    if (w < 85)
        return (size_t)(next() % (64 << 10) + 1);
    if (w < 97)
        return (size_t)(next() % (1 << 20) + 1);
    return (size_t)(next() % (8 << 20) + 1);
}

static void fill(unsigned char *p, size_t n, uint64_t s)
{
    uint64_t x = s | 1;
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 0) {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
        }
        p[i] = (unsigned char)((x * 2685821657736338717ull) >> (8 * (i % 8)));
    }
}

/* -1 when intact, else the first wrong byte */
static long check(const unsigned char *p, size_t n, uint64_t s)
{
    static unsigned char *want;
    static size_t cap;
    if (cap < n) {
        free(want);
        want = tu_malloc(n);
        cap = n;
    }
    fill(want, n, s);
    if (!memcmp(want, p, n))
        return -1;
    size_t i = 0;
    while (want[i] == p[i])
        i++;
    return (long)i;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "stress");
    unsigned long long seed = (unsigned long long)tu_env_int("TEST_SEED", 0);
    if (!seed)
        seed = (unsigned long long)time(NULL);
    TU_CHECK(MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD));
    if (tu_rank == 0) {
        printf("stress: seed %llu (TEST_SEED=%llu repeats this run)\n", seed, seed);
        fflush(stdout);
    }
    double limit = tu_env_int("TEST_SECONDS", 3);
    MPI_Comm comms[NCOMM];
    comms[0] = MPI_COMM_WORLD;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]));
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, tu_rank % 2, tu_rank, &comms[2]));
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, -tu_rank, &comms[3]));
    if (tu_size > 64)
        tu_fail("at most 64 ranks");
    for (int c = 0; c < NCOMM; c++) {
        TU_CHECK(MPI_Comm_size(comms[c], &csize[c]));
        /* the world rank of each member, so every rank plans alike */
        TU_CHECK(MPI_Allgather(&tu_rank, 1, MPI_INT, cworld[c], 1, MPI_INT, comms[c]));
    }
    long long sent = 0, got = 0, corrupt = 0, bytes = 0, cancelled = 0;
    int rounds = 0;
    double t0 = MPI_Wtime();
    struct msg plan[MAXMSG];
    unsigned char *sbuf[MAXMSG], *rbuf[MAXMSG];
    MPI_Request sreq[MAXMSG], rreq[MAXMSG], dummy[4];
    for (int done = 0; !done; rounds++) {
        rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)rounds + 1;
        int n = (int)(next() % MAXMSG) + 1;
        size_t total = 0;
        /* The plan: world ranks, so the split communicators are planned
         * alike everywhere (comm 2 joins ranks of one parity only). */
        for (int m = 0; m < n; m++) {
            struct msg *g = &plan[m];
            g->comm = (int)(next() % NCOMM);
            int ws = (int)(next() % (unsigned)tu_size), wd = (int)(next() % (unsigned)tu_size);
            if (g->comm == 2 && (ws % 2) != (wd % 2))
                wd = (wd + 1) % tu_size;
            if (g->comm == 2 && (ws % 2) != (wd % 2))
                wd = ws; /* a world of one rank */
            g->src = ws; /* world ranks for now */
            g->dst = wd;
            g->tag = TAG0 + m;
            g->size = pick_size();
            if (total + g->size > ROUND_BYTES)
                g->size = g->size % 4096;
            total += g->size;
            g->mode = (int)(next() % 4);
            g->rmode = (int)(next() % 2);
            g->seed = next();
        }
        uint64_t wild = next(); /* bit (dst * NCOMM + comm): that receiver uses wildcards */
        size_t wildcap[NCOMM] = {0};
        for (int m = 0; m < n; m++) {
            struct msg *g = &plan[m];
            int iswild = (wild >> ((g->dst * NCOMM + g->comm) % 64)) & 1;
            if (iswild)
                g->rmode = (int)((wild >> 32) & 1) ? IRECV : RECV; /* one way per round */
            if (iswild || g->rmode == RECV)
                if (g->mode == SEND || g->mode == SSEND) /* blocking sends need a posted receive */
                    g->mode += 2;
            if (g->dst == tu_rank && iswild && g->size > wildcap[g->comm])
                wildcap[g->comm] = g->size;
        }
        /* 1. nonblocking receives, and receives nobody will satisfy */
        for (int m = 0; m < n; m++) {
            struct msg *g = &plan[m];
            rreq[m] = MPI_REQUEST_NULL;
            rbuf[m] = NULL;
            if (g->dst != tu_rank)
                continue;
            int iswild = (wild >> ((g->dst * NCOMM + g->comm) % 64)) & 1;
            size_t cap = iswild ? wildcap[g->comm] : g->size;
            rbuf[m] = tu_malloc(cap + 1);
            if (g->rmode != IRECV)
                continue;
            int src = rank_in(g->comm, g->src);
            TU_CHECK(MPI_Irecv(rbuf[m], (int)cap, MPI_BYTE, iswild ? MPI_ANY_SOURCE : src,
                               iswild ? MPI_ANY_TAG : g->tag, comms[g->comm], &rreq[m]));
        }
        int ndummy = (int)(next() % 3);
        for (int d = 0; d < ndummy; d++)
            TU_CHECK(MPI_Irecv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_NOBODY, comms[d % NCOMM],
                               &dummy[d]));
        /* 2. sends */
        for (int m = 0; m < n; m++) {
            struct msg *g = &plan[m];
            sreq[m] = MPI_REQUEST_NULL;
            sbuf[m] = NULL;
            if (g->src != tu_rank)
                continue;
            int dst = rank_in(g->comm, g->dst);
            sbuf[m] = tu_malloc(g->size + 1);
            fill(sbuf[m], g->size, g->seed);
            int cnt = (int)g->size;
            MPI_Comm c = comms[g->comm];
            switch (g->mode) {
            case SEND:
                TU_CHECK(MPI_Send(sbuf[m], cnt, MPI_BYTE, dst, g->tag, c));
                break;
            case SSEND:
                TU_CHECK(MPI_Ssend(sbuf[m], cnt, MPI_BYTE, dst, g->tag, c));
                break;
            case ISEND:
                TU_CHECK(MPI_Isend(sbuf[m], cnt, MPI_BYTE, dst, g->tag, c, &sreq[m]));
                break;
            default:
                TU_CHECK(MPI_Issend(sbuf[m], cnt, MPI_BYTE, dst, g->tag, c, &sreq[m]));
            }
            sent++;
        }
        /* 3. blocking receives (statuses kept for the check) */
        MPI_Status st[MAXMSG];
        int which[MAXMSG]; /* receive m took message which[m] */
        for (int m = 0; m < n; m++) {
            struct msg *g = &plan[m];
            if (g->dst != tu_rank || g->rmode != RECV)
                continue;
            int iswild = (wild >> ((g->dst * NCOMM + g->comm) % 64)) & 1;
            int src = rank_in(g->comm, g->src);
            size_t cap = iswild ? wildcap[g->comm] : g->size;
            TU_CHECK(MPI_Recv(rbuf[m], (int)cap, MPI_BYTE, iswild ? MPI_ANY_SOURCE : src,
                              iswild ? MPI_ANY_TAG : g->tag, comms[g->comm], &st[m]));
        }
        /* 4. cancel what nobody sends; complete the rest three ways */
        for (int d = 0; d < ndummy; d++) {
            MPI_Status ds;
            int flag;
            TU_CHECK(MPI_Cancel(&dummy[d]));
            TU_CHECK(MPI_Wait(&dummy[d], &ds));
            TU_CHECK(MPI_Test_cancelled(&ds, &flag));
            if (!flag)
                tu_fail("round %d: a receive nobody sends to was not cancelled", rounds);
            cancelled++;
        }
        int how = (int)(next() % 3);
        if (how == 0) {
            MPI_Status rs[MAXMSG];
            TU_CHECK(MPI_Waitall(n, rreq, rs));
            for (int m = 0; m < n; m++)
                if (plan[m].dst == tu_rank && plan[m].rmode == IRECV)
                    st[m] = rs[m];
        } else if (how == 1) {
            for (;;) {
                int idx;
                MPI_Status s;
                TU_CHECK(MPI_Waitany(n, rreq, &idx, &s));
                if (idx == MPI_UNDEFINED)
                    break;
                st[idx] = s;
            }
        } else {
            int left = 0;
            for (int m = 0; m < n; m++)
                left += rreq[m] != MPI_REQUEST_NULL;
            while (left > 0) {
                int outc, idx[MAXMSG];
                MPI_Status s[MAXMSG];
                TU_CHECK(MPI_Testsome(n, rreq, &outc, idx, s));
                for (int k = 0; k < outc && outc != MPI_UNDEFINED; k++)
                    st[idx[k]] = s[k];
                if (outc != MPI_UNDEFINED)
                    left -= outc;
            }
        }
        TU_CHECK(MPI_Waitall(n, sreq, MPI_STATUSES_IGNORE));
        /* 5. every received message against the plan: by its status for wildcards */
        for (int m = 0; m < n; m++)
            which[m] = -1;
        for (int m = 0; m < n; m++) {
            struct msg *g = &plan[m];
            if (g->dst != tu_rank)
                continue;
            int k = st[m].MPI_TAG - TAG0;
            if (k < 0 || k >= n || plan[k].dst != tu_rank || plan[k].comm != g->comm) {
                corrupt++;
                fprintf(stderr, "stress: rank %d: FAIL: round %d: a receive on communicator %d "
                        "got tag %d, which is no message of that round for this rank\n",
                        tu_rank, rounds, g->comm, st[m].MPI_TAG);
                continue;
            }
            int count;
            TU_CHECK(MPI_Get_count(&st[m], MPI_BYTE, &count));
            int wsrc = cworld[g->comm][st[m].MPI_SOURCE];
            long bad = -1;
            if (which[k] >= 0 || wsrc != plan[k].src || (size_t)count != plan[k].size ||
                (bad = check(rbuf[m], plan[k].size, plan[k].seed)) >= 0) {
                corrupt++;
                fprintf(stderr, "stress: rank %d: FAIL: round %d: message %d (from world rank "
                        "%d, %zu bytes) came %sfrom rank %d with %d bytes%s (byte %ld wrong)\n",
                        tu_rank, rounds, k, plan[k].src, plan[k].size,
                        which[k] >= 0 ? "twice, " : "", wsrc, count, "", bad);
            }
            which[k] = m;
            got++;
            bytes += count;
        }
        for (int m = 0; m < n; m++) {
            free(sbuf[m]);
            free(rbuf[m]);
        }
        int up = MPI_Wtime() - t0 >= limit, any;
        TU_CHECK(MPI_Allreduce(&up, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
        done = any;
    }
    long long mine[5] = {sent, got, corrupt, bytes, cancelled}, sum[5];
    TU_CHECK(MPI_Reduce(mine, sum, 5, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (tu_rank == 0) {
        printf("stress: %d rounds, %lld messages sent, %lld received, %lld bytes, %lld "
               "receives cancelled: %lld corrupt, %lld lost\n", rounds, sum[0], sum[1], sum[3],
               sum[4], sum[2], sum[0] - sum[1]);
        if (sum[2] || sum[0] != sum[1])
            tu_fail("seed %llu: %lld corrupt, %lld lost", seed, sum[2], sum[0] - sum[1]);
    }
    for (int c = 1; c < NCOMM; c++)
        TU_CHECK(MPI_Comm_free(&comms[c]));
    tu_finish();
    return 0;
}
