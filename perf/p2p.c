/*
 * p2p: point-to-point latency, bandwidth and message rate, in the style of
 * the Intel MPI Benchmarks tables (IMB-MPI1), mpptest's bisection test and
 * osu_mbw_mr. Standard MPI C: builds unchanged with any MPI's mpicc.
 *
 *   pingpong    ranks 0 and 1 (others idle): 0 sends, 1 sends back;
 *               t = half the round trip, Mbytes/sec = n / t.
 *   pingping    ranks 0 and 1 send to each other at once (Isend + Recv +
 *               Wait); t = one iteration, Mbytes/sec = n / t.
 *   sendrecv    every rank: MPI_Sendrecv to the right neighbour, from the
 *               left (a ring); t = one iteration, Mbytes/sec = 2n / t (IMB).
 *   exchange    every rank: Isend to left and right, Recv from both,
 *               Waitall; t = one iteration, Mbytes/sec = 4n / t (IMB).
 *   bisect-*    the ranks split in halves, rank i paired with i + np/2; for
 *               each count k of --pairs (default 1, 2, 4, .. np/2) the
 *               first k pairs run at once: blocking round trip (Send/Recv
 *               there and back), nonblocking round trip (receives posted
 *               before the sends: Irecv + Isend + Waitall), or head-to-head
 *               (both sides Irecv + Isend + Waitall at once). t = one
 *               iteration; Mbytes/sec is the aggregate, k * 2n / t.
 *   msgrate     np/2 pairs (i sends to i + np/2), all at once: a window of
 *               W (--window, 64) Isends and a Waitall, then a zero-byte ack
 *               (osu_mbw_mr); t = window time / W, Msg/sec the aggregate
 *               over pairs. Sizes above 64 KiB are left out.
 *
 * Each size runs a correctness check first (one iteration on fresh buffers;
 * every receiver looks at the first and last byte of each message, which
 * carry the sender's mark), a warm-up, then --rounds measurement rounds of
 * `reps` iterations, each round starting after a barrier. A rank's round
 * time is its own clock from after the barrier to its last completion; the
 * round's time is the slowest participating rank's, and t_min/t_max/t_avg
 * are over the rounds (per-iteration time); Mbytes/sec uses t_avg
 * (1 Mbyte = 10^6 bytes). Repetitions shrink with size (perf_common.h).
 * With --off-cache the buffers move through a region larger than the
 * last-level cache, one slot per iteration, so no message starts in cache.
 *
 * --datatype: what a message of n bytes is: n MPI_BYTEs (byte), one
 * MPI_Type_contiguous(n, MPI_BYTE) (contig), or an MPI_Type_vector of
 * n/B blocks of B bytes at a stride of 2B (vector, B = --block, 512). The
 * byte count n is the data moved in every case (vector: when n is not a
 * multiple of B, the rows still say n, Mbytes/sec counts the whole blocks).
 *
 * Usage and output formats: perf/README.
 */
#include "perf_common.h"

enum bench {
    B_PINGPONG, B_PINGPING, B_SENDRECV, B_EXCHANGE, B_BISECT_BLOCKING, B_BISECT_NONBLOCKING,
    B_BISECT_H2H, B_MSGRATE, NBENCH
};
static const char *const bench_name[NBENCH] = {
    "pingpong", "pingping", "sendrecv", "exchange", "bisect-blocking", "bisect-nonblocking",
    "bisect-h2h", "msgrate"};
static const char *const bench_title[NBENCH] = {
    "PingPong", "PingPing", "Sendrecv", "Exchange", "Bisect (blocking round trip)",
    "Bisect (nonblocking round trip)", "Bisect (head-to-head)", "Msgrate (window of Isends)"};

#define MSGRATE_MAX_SIZE ((size_t)64 * 1024)
#define TAG_DATA 1
#define TAG_ACK 2

static int rank, np;
static int dt_kind; /* 0 byte, 1 contig, 2 vector */
static size_t dt_block = 512;
static int window = 64;

/* A message of n bytes as (count, type) and where its bytes lie. */
struct msg {
    int count;
    MPI_Datatype dt;
    size_t n;
    size_t span; /* bytes from the first to the last byte, plus one */
};

static struct msg msg_make(size_t n)
{
    struct msg m = {(int)n, MPI_BYTE, n, n};
    if (dt_kind == 0 || n == 0)
        return m;
    m.count = 1;
    if (dt_kind == 1) {
        MPI_Type_contiguous((int)n, MPI_BYTE, &m.dt);
    } else {
        size_t b = n < dt_block ? n : dt_block;
        MPI_Type_vector((int)(n / b), (int)b, (int)(2 * b), MPI_BYTE, &m.dt);
        m.n = n / b * b;
        m.span = (n / b - 1) * 2 * b + b;
    }
    MPI_Type_commit(&m.dt);
    return m;
}

static void msg_free(struct msg *m)
{
    if (m->dt != MPI_BYTE)
        MPI_Type_free(&m->dt);
}

/* Who does what in a benchmark. */
struct role {
    int active;    /* takes part */
    int initiator; /* pingpong/bisect: starts the round trip; msgrate: sends */
    int peer;      /* the partner (pingpong, pingping, bisect, msgrate) */
    int left, right;
    int nrecv;     /* receive slots per iteration */
};

static struct role role_for(int b, int pairs)
{
    struct role r = {0, 0, -1, (rank - 1 + np) % np, (rank + 1) % np, 1};
    int half = np / 2;
    switch (b) {
    case B_PINGPONG:
    case B_PINGPING:
        r.active = rank < 2;
        r.initiator = rank == 0;
        r.peer = 1 - rank;
        break;
    case B_SENDRECV:
        r.active = 1;
        break;
    case B_EXCHANGE:
        r.active = 1;
        r.nrecv = 2;
        break;
    default: /* bisect-*, msgrate: pairs (i, i + half) for i < pairs */
        if (rank < pairs) {
            r.active = 1, r.initiator = 1, r.peer = rank + half;
        } else if (rank >= half && rank < half + pairs) {
            r.active = 1, r.peer = rank - half;
        }
        if (b == B_MSGRATE)
            r.nrecv = window;
        break;
    }
    return r;
}

static struct perf_cycle scyc, rcyc;

/* MPI_STATUSES_IGNORE through a variable: MPICH's header makes GCC warn
 * (-Wstringop-overflow) on the constant passed to Waitall. */
static MPI_Status *no_statuses;

/* One round of `reps` iterations of benchmark b; returns seconds. */
static double run(int b, const struct role *ro, const struct msg *m, long reps)
{
    const int c = m->count, peer = ro->peer;
    const MPI_Datatype dt = m->dt;
    const MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request rq[2 * 1024 + 2];
    double t0 = MPI_Wtime();
    for (long i = 0; i < reps; i++) {
        char *s = perf_cycle_next(&scyc), *r = perf_cycle_next(&rcyc);
        switch (b) {
        case B_PINGPONG:
        case B_BISECT_BLOCKING:
            if (ro->initiator) {
                MPI_Send(s, c, dt, peer, TAG_DATA, w);
                MPI_Recv(r, c, dt, peer, TAG_DATA, w, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(r, c, dt, peer, TAG_DATA, w, MPI_STATUS_IGNORE);
                MPI_Send(s, c, dt, peer, TAG_DATA, w);
            }
            break;
        case B_PINGPING:
            MPI_Isend(s, c, dt, peer, TAG_DATA, w, &rq[0]);
            MPI_Recv(r, c, dt, peer, TAG_DATA, w, MPI_STATUS_IGNORE);
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            break;
        case B_BISECT_NONBLOCKING:
            /* the reply's receive is posted before the request goes out */
            MPI_Irecv(r, c, dt, peer, TAG_DATA, w, &rq[0]);
            if (ro->initiator) {
                MPI_Isend(s, c, dt, peer, TAG_DATA, w, &rq[1]);
                MPI_Waitall(2, rq, no_statuses);
            } else {
                MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
                MPI_Isend(s, c, dt, peer, TAG_DATA, w, &rq[1]);
                MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
            }
            break;
        case B_BISECT_H2H:
            MPI_Irecv(r, c, dt, peer, TAG_DATA, w, &rq[0]);
            MPI_Isend(s, c, dt, peer, TAG_DATA, w, &rq[1]);
            MPI_Waitall(2, rq, no_statuses);
            break;
        case B_SENDRECV:
            MPI_Sendrecv(s, c, dt, ro->right, TAG_DATA, r, c, dt, ro->left, TAG_DATA, w,
                         MPI_STATUS_IGNORE);
            break;
        case B_EXCHANGE:
            MPI_Isend(s, c, dt, ro->left, TAG_DATA, w, &rq[0]);
            MPI_Isend(s, c, dt, ro->right, TAG_DATA, w, &rq[1]);
            MPI_Recv(r, c, dt, ro->left, TAG_DATA, w, MPI_STATUS_IGNORE);
            MPI_Recv(r + m->span, c, dt, ro->right, TAG_DATA, w, MPI_STATUS_IGNORE);
            MPI_Waitall(2, rq, no_statuses);
            break;
        case B_MSGRATE:
            if (ro->initiator) {
                for (int k = 0; k < window; k++)
                    MPI_Isend(s, c, dt, peer, TAG_DATA, w, &rq[k]);
                MPI_Waitall(window, rq, no_statuses);
                MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_ACK, w, MPI_STATUS_IGNORE);
            } else {
                for (int k = 0; k < window; k++)
                    MPI_Irecv(r + (size_t)k * m->span, c, dt, peer, TAG_DATA, w, &rq[k]);
                MPI_Waitall(window, rq, no_statuses);
                MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_ACK, w);
            }
            break;
        }
    }
    return MPI_Wtime() - t0;
}

/* Every byte a rank sends carries its mark; the check looks for the right
 * mark at both ends of every message received. */
static unsigned char mark_of(int r)
{
    return (unsigned char)(r % 251 + 1);
}

static int check_slot(const char *r, const struct msg *m, int from)
{
    if (m->n == 0 || from < 0)
        return 1;
    return (unsigned char)r[0] == mark_of(from) && (unsigned char)r[m->span - 1] == mark_of(from);
}

/* One iteration on freshly cleared buffers; 1 when everything arrived. */
static int check(int b, const struct role *ro, const struct msg *m)
{
    int ok = 1;
    if (ro->active) {
        scyc.cur = rcyc.cur = 0;
        char *r = rcyc.base;
        memset(r, 0, (size_t)ro->nrecv * m->span);
        run(b, ro, m, 1);
        if (b == B_SENDRECV) {
            ok = check_slot(r, m, ro->left);
        } else if (b == B_EXCHANGE) {
            ok = check_slot(r, m, ro->left) && check_slot(r + m->span, m, ro->right);
        } else if (b == B_MSGRATE) {
            for (int k = 0; k < window && !ro->initiator; k++)
                ok = ok && check_slot(r + (size_t)k * m->span, m, ro->peer);
        } else {
            ok = check_slot(r, m, ro->peer);
        }
    }
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

struct opts {
    struct perf_opts c;
    size_t *sizes;
    int nsizes;
    int *pairs;
    int npairs;
};

static struct perf_out out;
static int step, nsteps;

/* One benchmark over the size sweep with `pairs` pairs (bisect, msgrate). */
static void bench(int b, int pairs, const struct opts *o, char *sbuf, size_t sregion, char *rbuf,
                  size_t rregion)
{
    struct role ro = role_for(b, pairs);
    int has_pairs = b >= B_BISECT_BLOCKING, is_rate = b == B_MSGRATE;
    double *times = malloc(sizeof(double) * (size_t)o->c.rounds * 2);
    if (!times)
        perf_oom(sizeof(double) * (size_t)o->c.rounds * 2);
    double *maxt = times + o->c.rounds;
    if (rank == 0 && o->c.format == PERF_TABLE) {
        printf("#-----------------------------------------------------------------------------\n");
        printf("# Benchmark: %s\n", bench_title[b]);
        if (b <= B_PINGPING)
            printf("# ranks 0 and 1 (of %d)", np);
        else if (b <= B_EXCHANGE)
            printf("# all %d ranks (ring)", np);
        else
            printf("# %d pair(s): rank i with i + %d", pairs, np / 2);
        printf(", %d rounds per size%s\n", o->c.rounds, o->c.off_cache ? ", off-cache" : "");
        printf("#-----------------------------------------------------------------------------\n");
        if (has_pairs)
            printf("%7s ", "#pairs");
        printf("%12s %13s %12s %12s %12s %12s", "#bytes", "#repetitions", "t_min[usec]",
               "t_max[usec]", "t_avg[usec]", "Mbytes/sec");
        if (is_rate)
            printf(" %14s", "Msg/sec");
        printf("\n");
    }
    for (int si = 0; si < o->nsizes; si++) {
        size_t n = o->sizes[si];
        if (is_rate && n > MSGRATE_MAX_SIZE)
            break;
        step++;
        if (rank == 0)
            perf_progress("p2p: %s%s%.0d %zu bytes [%d/%d]", bench_name[b],
                          has_pairs ? " pairs " : "", has_pairs ? pairs : 0, n, step, nsteps);
        struct msg m = msg_make(n);
        long reps = perf_reps(n, o->c.scale);
        if (is_rate)
            reps = reps / window < 2 ? 2 : reps / window;
        perf_cycle_init(&scyc, sbuf, sregion, m.span);
        perf_cycle_init(&rcyc, rbuf, rregion, (size_t)ro.nrecv * m.span);
        if (!o->c.off_cache)
            scyc.nslots = rcyc.nslots = 1;
        if (!check(b, &ro, &m))
            perf_die("%s: wrong data received at %zu bytes: this MPI is broken", bench_name[b], n);
        MPI_Barrier(MPI_COMM_WORLD);
        if (ro.active)
            run(b, &ro, &m, reps / 10 + 2); /* warm-up */
        for (int r = 0; r < o->c.rounds; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            times[r] = ro.active ? run(b, &ro, &m, reps) : 0.0;
        }
        MPI_Reduce(times, maxt, o->c.rounds, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        msg_free(&m);
        if (rank != 0)
            continue;
        /* per-iteration (msgrate: per-message) time of each round */
        double per = (double)reps * (b == B_PINGPONG ? 2 : 1) * (is_rate ? window : 1);
        double tmin = 1e300, tmax = 0, tsum = 0;
        for (int r = 0; r < o->c.rounds; r++) {
            double t = maxt[r] / per;
            tmin = t < tmin ? t : tmin;
            tmax = t > tmax ? t : tmax;
            tsum += t;
        }
        double tavg = tsum / o->c.rounds;
        double factor = b == B_SENDRECV ? 2 : b == B_EXCHANGE ? 4 : has_pairs && !is_rate ? 2.0 * pairs
                      : is_rate ? pairs : 1;
        double mbs = tavg > 0 ? factor * (double)m.n / tavg / 1e6 : 0;
        double rate = is_rate && tavg > 0 ? pairs / tavg : 0;
        long shown_reps = is_rate ? reps * window : reps;
        if (o->c.format == PERF_TABLE) {
            if (has_pairs)
                printf("%7d ", pairs);
            printf("%12zu %13ld %12.2f %12.2f %12.2f %12.2f", n, shown_reps, tmin * 1e6, tmax * 1e6,
                   tavg * 1e6, mbs);
            if (is_rate)
                printf(" %14.0f", rate);
            printf("\n");
            fflush(stdout);
        } else {
            char v[10][40];
            const char *vals[10];
            snprintf(v[1], 40, "%d", np);
            snprintf(v[2], 40, "%d", pairs);
            snprintf(v[3], 40, "%zu", n);
            snprintf(v[4], 40, "%ld", shown_reps);
            snprintf(v[5], 40, "%.3f", tmin * 1e6);
            snprintf(v[6], 40, "%.3f", tmax * 1e6);
            snprintf(v[7], 40, "%.3f", tavg * 1e6);
            snprintf(v[8], 40, "%.3f", mbs);
            snprintf(v[9], 40, "%.1f", rate);
            vals[0] = bench_name[b];
            for (int i = 1; i < 10; i++)
                vals[i] = v[i];
            if (!has_pairs)
                vals[2] = NULL;
            if (!is_rate)
                vals[9] = NULL;
            perf_out_row(&out, vals);
        }
    }
    if (rank == 0 && o->c.format == PERF_TABLE)
        printf("\n");
    free(times);
}

static void usage(void)
{
    if (rank == 0)
        printf("usage: p2p [--bench LIST|all] [--min-size N] [--max-size N] [--fine-sweep]\n"
               "           [--around 4k,64k,..] [--off-cache[=BYTES]] [--rounds N] [--iters-scale F]\n"
               "           [--format table|csv|json] [--csv] [--progress[=always]]\n"
               "           [--datatype byte|contig|vector] [--block BYTES] [--pairs 1,2,..] [--window W]\n"
               "  benches: pingpong pingping sendrecv exchange bisect (= bisect-blocking\n"
               "           bisect-nonblocking bisect-h2h) msgrate; sizes take k/m/g (1k = 1024)\n"
               "  see perf/README\n");
}

static void parse_bench_list(const char *v, int *want)
{
    char *copy = strdup(v);
    memset(want, 0, sizeof(int) * NBENCH);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int b = 0; b < NBENCH; b++) {
            if (!strcmp(tok, "all") || !strcmp(tok, bench_name[b]) ||
                (!strcmp(tok, "bisect") && !strncmp(bench_name[b], "bisect-", 7))) {
                want[b] = 1;
                found = 1;
            }
        }
        if (!found)
            perf_die("--bench: unknown benchmark '%s' (pingpong pingping sendrecv exchange bisect "
                     "bisect-blocking bisect-nonblocking bisect-h2h msgrate all)", tok);
    }
    free(copy);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    perf_tool = "p2p";
    no_statuses = MPI_STATUSES_IGNORE;
    struct opts o = {{0, (size_t)4 << 20, 1.0, 5, PERF_TABLE, 0, 0}, NULL, 0, NULL, 0};
    int want[NBENCH], fine = 0;
    size_t *around = NULL;
    int naround = 0;
    const char *pairs_arg = NULL;
    for (int b = 0; b < NBENCH; b++)
        want[b] = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (perf_parse_common(argc, argv, &i, &o.c))
            continue;
        if (!strcmp(a, "--bench") && v) {
            parse_bench_list(v, want), i++;
        } else if (!strcmp(a, "--fine-sweep")) {
            fine = 1;
        } else if (!strcmp(a, "--around") && v) {
            free(around);
            naround = perf_parse_size_list(v, &around), i++;
            fine = 1;
        } else if (!strcmp(a, "--datatype") && v) {
            if (!strcmp(v, "byte"))
                dt_kind = 0;
            else if (!strcmp(v, "contig"))
                dt_kind = 1;
            else if (!strcmp(v, "vector"))
                dt_kind = 2;
            else
                perf_die("--datatype takes byte, contig or vector");
            i++;
        } else if (!strcmp(a, "--block") && v) {
            dt_block = perf_parse_size(v), i++;
            if (dt_block == 0)
                perf_die("--block must be > 0");
        } else if (!strcmp(a, "--pairs") && v) {
            pairs_arg = v, i++;
        } else if (!strcmp(a, "--window") && v) {
            window = atoi(v), i++;
            if (window < 1 || window > 1024)
                perf_die("--window must be 1..1024");
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            MPI_Finalize();
            return 0;
        } else {
            perf_die("unknown option '%s' (try --help)", a);
        }
    }
    if (np < 2)
        perf_die("needs at least 2 ranks");
    if (o.c.minsz > o.c.maxsz)
        perf_die("--min-size is larger than --max-size");
    if (o.c.maxsz > (size_t)0x7fffffff)
        perf_die("--max-size must fit in an int count");
    if (fine && !around)
        naround = (int)(sizeof(perf_default_around) / sizeof(perf_default_around[0]));
    o.nsizes = perf_sizes(o.c.minsz, o.c.maxsz,
                          fine ? (around ? around : perf_default_around) : NULL,
                          fine ? naround : 0, &o.sizes);
    /* bisect pair counts: the list given, else 1, 2, 4, .., np/2 */
    int half = np / 2;
    o.pairs = malloc(sizeof(int) * 64);
    if (pairs_arg) {
        size_t *pv;
        int k = perf_parse_size_list(pairs_arg, &pv);
        if (k > 64)
            perf_die("--pairs: at most 64 values");
        for (int i = 0; i < k; i++) {
            if (pv[i] < 1 || pv[i] > (size_t)half)
                perf_die("--pairs: %zu is not in 1..%d (np/2)", pv[i], half);
            o.pairs[o.npairs++] = (int)pv[i];
        }
        free(pv);
    } else {
        for (int k = 1; k < half; k *= 2)
            o.pairs[o.npairs++] = k;
        o.pairs[o.npairs++] = half;
    }
    perf_progress_enable(rank, &o.c);

    /* buffers: a send slot is one message; a receive slot holds the
     * messages of one iteration (exchange 2, msgrate the window) */
    struct msg big = msg_make(o.c.maxsz);
    size_t span = big.span ? big.span : 1, rate_span = span;
    msg_free(&big);
    if (want[B_MSGRATE]) {
        struct msg mr = msg_make(o.c.maxsz < MSGRATE_MAX_SIZE ? o.c.maxsz : MSGRATE_MAX_SIZE);
        rate_span = (mr.span ? mr.span : 1) * (size_t)window;
        msg_free(&mr);
    }
    size_t sregion = span + 64, rregion = 2 * span + 64;
    if (want[B_MSGRATE] && rate_span + 64 > rregion)
        rregion = rate_span + 64;
    if (o.c.off_cache > sregion)
        sregion = o.c.off_cache;
    if (o.c.off_cache > rregion)
        rregion = o.c.off_cache;
    char *sbuf = malloc(sregion), *rbuf = malloc(rregion);
    if (!sbuf || !rbuf)
        perf_oom(sregion + rregion);
    memset(sbuf, mark_of(rank), sregion);
    memset(rbuf, 0, rregion);

    nsteps = 0;
    for (int b = 0; b < NBENCH; b++) {
        if (!want[b])
            continue;
        int ns = 0;
        for (int i = 0; i < o.nsizes; i++)
            ns += b != B_MSGRATE || o.sizes[i] <= MSGRATE_MAX_SIZE;
        nsteps += ns * (b >= B_BISECT_BLOCKING && b != B_MSGRATE ? o.npairs : 1);
    }
    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 32];
    perf_library(lib, sizeof(lib));
    static const char *const keys[] = {"bench", "np", "pairs", "bytes", "reps", "t_min_us",
                                       "t_max_us", "t_avg_us", "mbytes_per_s", "msgs_per_s"};
    out.format = o.c.format;
    out.nkeys = 10;
    out.keys = keys;
    if (rank == 0) {
        if (o.c.format == PERF_TABLE) {
            printf("# p2p: %s\n# %d ranks, %d sizes %zu..%zu bytes, datatype %s", lib, np, o.nsizes,
                   o.sizes[0], o.sizes[o.nsizes - 1],
                   dt_kind == 0 ? "byte" : dt_kind == 1 ? "contig" : "vector");
            if (o.c.off_cache)
                printf(", off-cache region %zu bytes", o.c.off_cache);
            printf("\n\n");
        } else {
            perf_out_begin(&out, lib, np);
        }
    }
    for (int b = 0; b < NBENCH; b++) {
        if (!want[b])
            continue;
        if (b >= B_BISECT_BLOCKING && b != B_MSGRATE) {
            for (int k = 0; k < o.npairs; k++)
                bench(b, o.pairs[k], &o, sbuf, sregion, rbuf, rregion);
        } else {
            bench(b, b == B_MSGRATE ? half : 0, &o, sbuf, sregion, rbuf, rregion);
        }
    }
    if (rank == 0) {
        perf_progress_done();
        if (o.c.format != PERF_TABLE)
            perf_out_end(&out);
    }
    free(sbuf);
    free(rbuf);
    free(o.sizes);
    free(o.pairs);
    free(around);
    MPI_Finalize();
    return 0;
}
