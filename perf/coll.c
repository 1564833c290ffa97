/*
 * coll: time per call of every blocking collective (and, by name, their
 * nonblocking I* forms: call + MPI_Wait), over a message-size sweep, in the
 * style of the Intel MPI Benchmarks tables. Standard MPI C: builds
 * unchanged with any MPI's mpicc.
 *
 * #bytes follows IMB: the message of one process. bcast, reduce,
 * allreduce, scan, exscan and reduce_scatter: the whole vector;
 * gather(v), scatter(v), allgather(v), alltoall(v) and
 * reduce_scatter_block: one block (the block to or from one peer).
 * Reductions are MPI_SUM over MPI_FLOAT, so they skip sizes that are not a
 * multiple of 4. Roots are rank 0. barrier has one row (0 bytes).
 *
 * Timing: for each size, one checked call (below), a warm-up, then
 * --rounds rounds; each round starts with a barrier and times `reps`
 * back-to-back calls on the rank's own clock. A rank's time is its median
 * round divided by reps; t_min, t_max and t_avg are over the ranks of the
 * communicator (as IMB reports them). t_max is the number to compare: a
 * collective is done when its slowest rank is.
 *
 * Check: before timing each size, the collective runs once on marked data
 * (bytes carry their sender's rank, floats are rank + 1) and every rank
 * looks at the first and last element of what it received; a wrong value
 * stops the program, so a broken MPI cannot look fast.
 *
 * --ranks k1,k2,..: also (or only) time on the communicator of the first k
 * ranks of the world (MPI_Comm_split); the others wait. --off-cache moves
 * the buffers through a region larger than the last-level cache, one slot
 * per call.
 *
 * The nonblocking forms need MPI-3 (MPI_VERSION >= 3); with an older mpi.h
 * they are reported and skipped.
 *
 * Usage and output formats: perf/README.
 */
#include "perf_common.h"

#if MPI_VERSION >= 3
#define PERF_NBC 1
#endif

enum coll {
    C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV,
    C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV, C_REDUCE_SCATTER, C_REDUCE_SCATTER_BLOCK,
    C_SCAN, C_EXSCAN, NCOLL
};
static const char *const coll_name[NCOLL] = {
    "barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "scatterv",
    "allgather", "allgatherv", "alltoall", "alltoallv", "reduce_scatter", "reduce_scatter_block",
    "scan", "exscan"};

static int is_reduction(int c)
{
    return c == C_REDUCE || c == C_ALLREDUCE || c == C_REDUCE_SCATTER ||
           c == C_REDUCE_SCATTER_BLOCK || c == C_SCAN || c == C_EXSCAN;
}

/* Blocks of n bytes a rank sends (s) and receives (r) per call, in units
 * of n; root-only sides count at every rank (the buffers are the same). */
static void coll_blocks(int c, int p, size_t *s, size_t *r)
{
    *s = *r = 1;
    switch (c) {
    case C_GATHER: case C_GATHERV: case C_ALLGATHER: case C_ALLGATHERV:
        *r = (size_t)p; break;
    case C_SCATTER: case C_SCATTERV: case C_REDUCE_SCATTER_BLOCK:
        *s = (size_t)p; break;
    case C_ALLTOALL: case C_ALLTOALLV:
        *s = *r = (size_t)p; break;
    default: break;
    }
}

static int wrank;

/* The call of one size on one communicator. */
struct call {
    MPI_Comm comm;
    int me, p;
    size_t n;      /* bytes (IMB convention) */
    int count;     /* floats of a reduction's vector or block */
    int *counts;   /* p byte counts (v-variants) or float counts (reduce_scatter) */
    int *displs;   /* p byte displacements */
};

static int nb_missing(int c)
{
#if defined(PERF_NBC)
    (void)c;
    return 0;
#else
    (void)c;
    return 1;
#endif
}

/* One call of collective c (nb: its I* form and a Wait). */
static void call(int c, int nb, const struct call *k, char *s, char *r)
{
    const MPI_Comm m = k->comm;
    const int n = (int)k->n, cnt = k->count;
    MPI_Request rq = MPI_REQUEST_NULL;
    if (!nb) {
        switch (c) {
        case C_BARRIER: MPI_Barrier(m); break;
        case C_BCAST: MPI_Bcast(r, n, MPI_BYTE, 0, m); break;
        case C_REDUCE: MPI_Reduce(s, r, cnt, MPI_FLOAT, MPI_SUM, 0, m); break;
        case C_ALLREDUCE: MPI_Allreduce(s, r, cnt, MPI_FLOAT, MPI_SUM, m); break;
        case C_GATHER: MPI_Gather(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, m); break;
        case C_GATHERV:
            MPI_Gatherv(s, n, MPI_BYTE, r, k->counts, k->displs, MPI_BYTE, 0, m); break;
        case C_SCATTER: MPI_Scatter(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, m); break;
        case C_SCATTERV:
            MPI_Scatterv(s, k->counts, k->displs, MPI_BYTE, r, n, MPI_BYTE, 0, m); break;
        case C_ALLGATHER: MPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, m); break;
        case C_ALLGATHERV:
            MPI_Allgatherv(s, n, MPI_BYTE, r, k->counts, k->displs, MPI_BYTE, m); break;
        case C_ALLTOALL: MPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, m); break;
        case C_ALLTOALLV:
            MPI_Alltoallv(s, k->counts, k->displs, MPI_BYTE, r, k->counts, k->displs, MPI_BYTE, m);
            break;
        case C_REDUCE_SCATTER:
            MPI_Reduce_scatter(s, r, k->counts, MPI_FLOAT, MPI_SUM, m); break;
        case C_REDUCE_SCATTER_BLOCK:
            MPI_Reduce_scatter_block(s, r, cnt, MPI_FLOAT, MPI_SUM, m); break;
        case C_SCAN: MPI_Scan(s, r, cnt, MPI_FLOAT, MPI_SUM, m); break;
        case C_EXSCAN: MPI_Exscan(s, r, cnt, MPI_FLOAT, MPI_SUM, m); break;
        }
        return;
    }
#ifdef PERF_NBC
    switch (c) {
    case C_BARRIER: MPI_Ibarrier(m, &rq); break;
    case C_BCAST: MPI_Ibcast(r, n, MPI_BYTE, 0, m, &rq); break;
    case C_REDUCE: MPI_Ireduce(s, r, cnt, MPI_FLOAT, MPI_SUM, 0, m, &rq); break;
    case C_ALLREDUCE: MPI_Iallreduce(s, r, cnt, MPI_FLOAT, MPI_SUM, m, &rq); break;
    case C_GATHER: MPI_Igather(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, m, &rq); break;
    case C_GATHERV:
        MPI_Igatherv(s, n, MPI_BYTE, r, k->counts, k->displs, MPI_BYTE, 0, m, &rq); break;
    case C_SCATTER: MPI_Iscatter(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, m, &rq); break;
    case C_SCATTERV:
        MPI_Iscatterv(s, k->counts, k->displs, MPI_BYTE, r, n, MPI_BYTE, 0, m, &rq); break;
    case C_ALLGATHER: MPI_Iallgather(s, n, MPI_BYTE, r, n, MPI_BYTE, m, &rq); break;
    case C_ALLGATHERV:
        MPI_Iallgatherv(s, n, MPI_BYTE, r, k->counts, k->displs, MPI_BYTE, m, &rq); break;
    case C_ALLTOALL: MPI_Ialltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, m, &rq); break;
    case C_ALLTOALLV:
        MPI_Ialltoallv(s, k->counts, k->displs, MPI_BYTE, r, k->counts, k->displs, MPI_BYTE, m,
                       &rq);
        break;
    case C_REDUCE_SCATTER:
        MPI_Ireduce_scatter(s, r, k->counts, MPI_FLOAT, MPI_SUM, m, &rq); break;
    case C_REDUCE_SCATTER_BLOCK:
        MPI_Ireduce_scatter_block(s, r, cnt, MPI_FLOAT, MPI_SUM, m, &rq); break;
    case C_SCAN: MPI_Iscan(s, r, cnt, MPI_FLOAT, MPI_SUM, m, &rq); break;
    case C_EXSCAN: MPI_Iexscan(s, r, cnt, MPI_FLOAT, MPI_SUM, m, &rq); break;
    }
#endif
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

static unsigned char mark_of(int x)
{
    return (unsigned char)(x % 251 + 1);
}

/* Is block i of r (n bytes) marked x at both ends? */
static int block_is(const char *r, size_t n, int i, int x)
{
    if (n == 0)
        return 1;
    const unsigned char *b = (const unsigned char *)r + (size_t)i * n;
    return b[0] == mark_of(x) && b[n - 1] == mark_of(x);
}

static int floats_are(const char *r, int count, float v)
{
    float a, z;
    if (count == 0)
        return 1;
    memcpy(&a, r, sizeof(a));
    memcpy(&z, r + (size_t)(count - 1) * sizeof(float), sizeof(z));
    return a == v && z == v;
}

/* One call on marked data; 1 when every rank got what it should. */
static int check(int c, int nb, const struct call *k, char *s, char *r, size_t sbytes,
                 size_t rbytes)
{
    const int me = k->me, p = k->p;
    const size_t n = k->n;
    memset(r, 0, rbytes);
    if (is_reduction(c)) {
        int total = c == C_REDUCE_SCATTER_BLOCK ? k->count * p : k->count;
        float v = (float)(me + 1);
        for (int i = 0; i < total; i++)
            memcpy(s + (size_t)i * sizeof(float), &v, sizeof(v));
    } else if (c == C_BCAST) {
        if (me == 0)
            memset(r, mark_of(0), n);
    } else if (c == C_SCATTER || c == C_SCATTERV || c == C_ALLTOALL || c == C_ALLTOALLV) {
        /* block j goes to rank j: mark it with who sends and to whom */
        for (int j = 0; j < p; j++)
            memset(s + (size_t)j * n, mark_of(c >= C_ALLTOALL ? me + 7 * j : j), n);
    } else {
        memset(s, mark_of(me), sbytes);
    }
    call(c, nb, k, s, r);
    float all = (float)p * (float)(p + 1) / 2;
    int ok = 1;
    switch (c) {
    case C_BCAST: ok = block_is(r, n, 0, 0); break;
    case C_REDUCE: ok = me != 0 || floats_are(r, k->count, all); break;
    case C_ALLREDUCE: ok = floats_are(r, k->count, all); break;
    case C_REDUCE_SCATTER: ok = floats_are(r, k->counts[me], all); break;
    case C_REDUCE_SCATTER_BLOCK: ok = floats_are(r, k->count, all); break;
    case C_SCAN: ok = floats_are(r, k->count, (float)(me + 1) * (float)(me + 2) / 2); break;
    case C_EXSCAN: ok = me == 0 || floats_are(r, k->count, (float)me * (float)(me + 1) / 2); break;
    case C_SCATTER: case C_SCATTERV: ok = block_is(r, n, 0, me); break;
    case C_GATHER: case C_GATHERV:
        for (int i = 0; i < p && me == 0; i++)
            ok = ok && block_is(r, n, i, i);
        break;
    case C_ALLGATHER: case C_ALLGATHERV:
        for (int i = 0; i < p; i++)
            ok = ok && block_is(r, n, i, i);
        break;
    case C_ALLTOALL: case C_ALLTOALLV:
        for (int i = 0; i < p; i++)
            ok = ok && block_is(r, n, i, i + 7 * me);
        break;
    default: break;
    }
    int every = 0;
    MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, k->comm);
    return every;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct opts {
    struct perf_opts c;
    size_t *sizes;
    int nsizes;
};

static struct perf_out out;
static int step, nsteps;

/* Calls per round: about 16 MiB through each rank, 1000 at most. */
static long coll_reps(size_t n, int p, double scale)
{
    double per = (double)n * p;
    long r = (long)((16.0 * 1024 * 1024) / (per > 4096 ? per : 4096));
    if (r > 1000)
        r = 1000;
    if (r < 10)
        r = 10;
    r = (long)((double)r * scale);
    return r < 2 ? 2 : r;
}

/* Collective c (nb: nonblocking) over the sweep on comm. */
static void bench(int c, int nb, MPI_Comm comm, const struct opts *o, char *sbuf, size_t sregion,
                  char *rbuf, size_t rregion)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    char name[32];
    snprintf(name, sizeof(name), "%s%s", nb ? "i" : "", coll_name[c]);
    if (nb && nb_missing(c)) {
        if (wrank == 0)
            fprintf(stderr, "coll: %s: not provided by this MPI, skipped\n", name);
        return;
    }
    if (wrank == 0 && o->c.format == PERF_TABLE) {
        printf("#----------------------------------------------------------------\n");
        printf("# Benchmark: %s\n# #processes = %d, %d rounds per size%s\n", name, p, o->c.rounds,
               o->c.off_cache ? ", off-cache" : "");
        printf("#----------------------------------------------------------------\n");
        printf("%12s %13s %12s %12s %12s\n", "#bytes", "#repetitions", "t_min[usec]",
               "t_max[usec]", "t_avg[usec]");
    }
    int *counts = malloc(sizeof(int) * (size_t)p * 2);
    double *rt = malloc(sizeof(double) * (size_t)o->c.rounds);
    if (!counts || !rt)
        perf_oom(sizeof(int) * (size_t)p * 2 + sizeof(double) * (size_t)o->c.rounds);
    struct call k = {comm, me, p, 0, 0, counts, counts + p};
    for (int si = 0; si < o->nsizes; si++) {
        size_t n = o->sizes[si];
        if (c == C_BARRIER && si > 0)
            break;
        if (c == C_BARRIER)
            n = 0;
        if (is_reduction(c) && n % sizeof(float))
            continue;
        step++;
        if (wrank == 0)
            perf_progress("coll: %s np %d %zu bytes [%d/%d]", name, p, n, step, nsteps);
        k.n = n;
        k.count = (int)(n / sizeof(float));
        for (int i = 0; i < p; i++) {
            if (c == C_REDUCE_SCATTER)
                counts[i] = k.count / p + (i < k.count % p);
            else
                counts[i] = (int)n;
            k.displs[i] = (int)((size_t)i * n);
        }
        size_t sb, rb;
        coll_blocks(c, p, &sb, &rb);
        sb *= n ? n : 1;
        rb *= n ? n : 1;
        struct perf_cycle sc, rc;
        perf_cycle_init(&sc, sbuf, sregion, sb);
        perf_cycle_init(&rc, rbuf, rregion, rb);
        if (!o->c.off_cache)
            sc.nslots = rc.nslots = 1;
        if (!check(c, nb, &k, sbuf, rbuf, sb, rb))
            perf_die("%s: wrong result at %zu bytes on %d ranks: this MPI is broken", name, n, p);
        long reps = c == C_BARRIER ? coll_reps(0, p, o->c.scale) : coll_reps(n, p, o->c.scale);
        for (long i = 0; i < reps / 10 + 1; i++) /* warm-up */
            call(c, nb, &k, perf_cycle_next(&sc), perf_cycle_next(&rc));
        for (int r = 0; r < o->c.rounds; r++) {
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            for (long i = 0; i < reps; i++)
                call(c, nb, &k, perf_cycle_next(&sc), perf_cycle_next(&rc));
            rt[r] = (MPI_Wtime() - t0) / (double)reps;
        }
        qsort(rt, (size_t)o->c.rounds, sizeof(double), cmp_double);
        double t = o->c.rounds % 2 ? rt[o->c.rounds / 2] : (rt[o->c.rounds / 2 - 1] + rt[o->c.rounds / 2]) / 2;
        double tmin = 0, tmax = 0, tsum = 0;
        MPI_Reduce(&t, &tmin, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        MPI_Reduce(&t, &tsum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        if (me != 0)
            continue;
        double tavg = tsum / p;
        if (o->c.format == PERF_TABLE) {
            printf("%12zu %13ld %12.2f %12.2f %12.2f\n", n, reps, tmin * 1e6, tmax * 1e6,
                   tavg * 1e6);
            fflush(stdout);
        } else {
            char v[7][40];
            const char *vals[7] = {name, v[1], v[2], v[3], v[4], v[5], v[6]};
            snprintf(v[1], 40, "%d", p);
            snprintf(v[2], 40, "%zu", n);
            snprintf(v[3], 40, "%ld", reps);
            snprintf(v[4], 40, "%.3f", tmin * 1e6);
            snprintf(v[5], 40, "%.3f", tmax * 1e6);
            snprintf(v[6], 40, "%.3f", tavg * 1e6);
            perf_out_row(&out, vals);
        }
    }
    if (wrank == 0 && o->c.format == PERF_TABLE)
        printf("\n");
    free(counts);
    free(rt);
}

/* --coll LIST: want[c] bit 1 blocking, bit 2 nonblocking */
static void parse_coll_list(const char *v, int *want)
{
    char *copy = strdup(v);
    memset(want, 0, sizeof(int) * NCOLL);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int c = 0; c < NCOLL; c++) {
            if (!strcmp(tok, "all") || !strcmp(tok, coll_name[c]))
                want[c] |= 1, found = 1;
            if (!strcmp(tok, "iall") || (tok[0] == 'i' && !strcmp(tok + 1, coll_name[c])))
                want[c] |= 2, found = 1;
        }
        if (!found)
            perf_die("--coll: unknown collective '%s' (barrier bcast reduce allreduce gather "
                     "gatherv scatter scatterv allgather allgatherv alltoall alltoallv "
                     "reduce_scatter reduce_scatter_block scan exscan, an i-prefixed one, all, "
                     "iall)", tok);
    }
    free(copy);
}

static void usage(void)
{
    if (wrank == 0)
        printf("usage: coll [--coll LIST|all|iall] [--nonblocking] [--min-size N] [--max-size N]\n"
               "            [--rounds N] [--iters-scale F] [--off-cache[=BYTES]]\n"
               "            [--format table|csv|json] [--progress[=always]] [--ranks k1,k2,..]\n"
               "  collectives: barrier bcast reduce allreduce gather gatherv scatter scatterv\n"
               "  allgather allgatherv alltoall alltoallv reduce_scatter reduce_scatter_block\n"
               "  scan exscan; i-prefixed names are the nonblocking forms. See perf/README.\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    perf_tool = "coll";
    struct opts o = {{0, (size_t)1 << 20, 1.0, 5, PERF_TABLE, 0, 0}, NULL, 0};
    int want[NCOLL], nonblocking = 0;
    const char *ranks_arg = NULL;
    for (int c = 0; c < NCOLL; c++)
        want[c] = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (perf_parse_common(argc, argv, &i, &o.c))
            continue;
        if (!strcmp(a, "--coll") && v) {
            parse_coll_list(v, want), i++;
        } else if (!strcmp(a, "--nonblocking")) {
            nonblocking = 1;
        } else if (!strcmp(a, "--ranks") && v) {
            ranks_arg = v, i++;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            MPI_Finalize();
            return 0;
        } else {
            perf_die("unknown option '%s' (try --help)", a);
        }
    }
    if (nonblocking)
        for (int c = 0; c < NCOLL; c++)
            want[c] = want[c] & 1 ? (want[c] & ~1) | 2 : want[c];
    if (o.c.minsz > o.c.maxsz)
        perf_die("--min-size is larger than --max-size");
    if ((double)o.c.maxsz * np > 0x7fffffff)
        perf_die("--max-size times the number of ranks must fit in an int");
    o.nsizes = perf_sizes(o.c.minsz, o.c.maxsz, NULL, 0, &o.sizes);
    int *ks, nks = 1;
    if (ranks_arg) {
        size_t *kv;
        nks = perf_parse_size_list(ranks_arg, &kv);
        ks = malloc(sizeof(int) * (size_t)nks);
        for (int i = 0; i < nks; i++) {
            if (kv[i] < 1 || kv[i] > (size_t)np)
                perf_die("--ranks: %zu is not in 1..%d", kv[i], np);
            ks[i] = (int)kv[i];
        }
        free(kv);
    } else {
        ks = malloc(sizeof(int));
        ks[0] = np;
    }
    perf_progress_enable(wrank, &o.c);

    /* the largest call: np blocks of max-size on both sides */
    size_t need = (o.c.maxsz ? o.c.maxsz : 1) * (size_t)np + 64;
    size_t region = o.c.off_cache > need ? o.c.off_cache : need;
    char *sbuf = malloc(region), *rbuf = malloc(region);
    if (!sbuf || !rbuf)
        perf_oom(2 * region);
    /* rank marks: normal floats for the reductions wherever they read */
    memset(sbuf, mark_of(wrank), region);
    memset(rbuf, 0, region);

    nsteps = 0;
    for (int c = 0; c < NCOLL; c++) {
        int ns = 0;
        for (int i = 0; i < o.nsizes; i++)
            ns += !is_reduction(c) || o.sizes[i] % sizeof(float) == 0;
        if (c == C_BARRIER)
            ns = 1;
        nsteps += ns * nks * (!!(want[c] & 1) + !!(want[c] & 2));
    }
    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 32];
    perf_library(lib, sizeof(lib));
    static const char *const keys[] = {"coll", "np", "bytes", "reps", "t_min_us", "t_max_us",
                                       "t_avg_us"};
    out.format = o.c.format;
    out.nkeys = 7;
    out.keys = keys;
    if (wrank == 0) {
        if (o.c.format == PERF_TABLE) {
            printf("# coll: %s\n# %d ranks, sizes %zu..%zu bytes (IMB: per process)", lib, np,
                   o.sizes[0], o.sizes[o.nsizes - 1]);
            if (o.c.off_cache)
                printf(", off-cache region %zu bytes", o.c.off_cache);
            printf("\n\n");
        } else {
            perf_out_begin(&out, lib, np);
        }
    }
    for (int ki = 0; ki < nks; ki++) {
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, wrank < ks[ki] ? 0 : MPI_UNDEFINED, wrank, &comm);
        if (comm != MPI_COMM_NULL) {
            for (int c = 0; c < NCOLL; c++) {
                if (want[c] & 1)
                    bench(c, 0, comm, &o, sbuf, region, rbuf, region);
                if (want[c] & 2)
                    bench(c, 1, comm, &o, sbuf, region, rbuf, region);
            }
            MPI_Comm_free(&comm);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (wrank == 0) {
        perf_progress_done();
        if (o.c.format != PERF_TABLE)
            perf_out_end(&out);
    }
    free(sbuf);
    free(rbuf);
    free(o.sizes);
    free(ks);
    MPI_Finalize();
    return 0;
}
