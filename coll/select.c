/*
 * Which algorithm serves a blocking collective call.
 *
 * The algorithm table (faro_coll_algs) is generated from algorithms.def: one
 * entry per algorithm with its name, FLAGS, summary and function. A call is
 * described by values every rank knows alike (communicator size, bytes of the
 * whole message, whether the op commutes, whether the blocks are uniform), so
 * every rank picks the same algorithm.
 *
 * The choice, in order:
 *  1. FARO_COLL_<COLL>_ALGORITHM names an algorithm: it serves every call
 *     whose kind meets its FLAGS. A call it cannot serve (a non-commutative op,
 *     a v variant) falls through to the rules; FARO_VERBOSE>=1 says so once
 *     per collective.
 *  2. The rules: FARO_COLL_TUNING_FILE's lines, then the built-in ones below,
 *     each {collective, ranks range, bytes range, op, algorithm}. The first
 *     rule that matches the call and whose algorithm can serve it wins. Two
 *     algorithms carry a condition of their own that only the rules apply (a
 *     forced algorithm runs anyway): node_aware needs a communicator that
 *     spans several nodes with several ranks on one of them (node.c's map),
 *     and allgather recursive_doubling a power-of-two size (elsewhere it would
 *     run as a ring, which the rules can name themselves).
 *  3. The built-in rules end each collective with a catch-all whose algorithm
 *     serves everything, so the search always ends; rules after a catch-all
 *     can never match and are dropped, which makes faro_info --coll's listing
 *     read back as the same table.
 *
 * Everything is built once, on the first collective (or by faro_info), into
 * one array of rules grouped by collective; a call then costs the forced-id
 * test and a few compares per rule of its collective, no allocation.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collcheck.h"
#include "nbc_sched.h"
#include "runtime/hang.h"
#include "select.h"
#include "base/log.h"
#include "base/tunables.h"

/* ---- the algorithm table, from algorithms.def ---- */

#define FN_BARRIER(n) {.barrier = faro_coll_barrier_##n}
#define FN_BCAST(n) {.bcast = faro_coll_bcast_##n}
#define FN_REDUCE(n) {.reduce = faro_coll_reduce_##n}
#define FN_ALLREDUCE(n) {.allreduce = faro_coll_allreduce_##n}
#define FN_GATHER(n) {.gather = faro_coll_gather_##n}
#define FN_SCATTER(n) {.scatter = faro_coll_scatter_##n}
#define FN_ALLGATHER(n) {.allgather = faro_coll_allgather_##n}
#define FN_ALLTOALL(n) {.alltoall = faro_coll_alltoall_##n}
#define FN_REDUCE_SCATTER(n) {.reduce_scatter = faro_coll_reduce_scatter_##n}
#define FN_SCAN(n) {.scan = faro_coll_scan_##n}

const struct faro_coll_alg faro_coll_algs[FARO_ALG_COUNT] = {
#define FARO_COLL_ALG(coll, name, flags, summary) \
    {FARO_COLL_##coll, #name, flags, summary, FN_##coll(name)},
#include "algorithms.def"
#undef FARO_COLL_ALG
};

static const struct {
    const char *name;   /* as the tuning file writes it */
    enum faro_tun_id tunable;
    int has_op;         /* takes an MPI_Op: the rules may name commutativity */
} kinds[FARO_COLL_NKINDS] = {
    [FARO_COLL_BARRIER] = {"barrier", FARO_TUN_COLL_BARRIER_ALGORITHM, 0},
    [FARO_COLL_BCAST] = {"bcast", FARO_TUN_COLL_BCAST_ALGORITHM, 0},
    [FARO_COLL_REDUCE] = {"reduce", FARO_TUN_COLL_REDUCE_ALGORITHM, 1},
    [FARO_COLL_ALLREDUCE] = {"allreduce", FARO_TUN_COLL_ALLREDUCE_ALGORITHM, 1},
    [FARO_COLL_GATHER] = {"gather", FARO_TUN_COLL_GATHER_ALGORITHM, 0},
    [FARO_COLL_SCATTER] = {"scatter", FARO_TUN_COLL_SCATTER_ALGORITHM, 0},
    [FARO_COLL_ALLGATHER] = {"allgather", FARO_TUN_COLL_ALLGATHER_ALGORITHM, 0},
    [FARO_COLL_ALLTOALL] = {"alltoall", FARO_TUN_COLL_ALLTOALL_ALGORITHM, 0},
    [FARO_COLL_REDUCE_SCATTER] = {"reduce_scatter", FARO_TUN_COLL_REDUCE_SCATTER_ALGORITHM, 1},
    [FARO_COLL_SCAN] = {"scan", FARO_TUN_COLL_SCAN_ALGORITHM, 1},
};

const char *faro_coll_kind_name(enum faro_coll_kind kind)
{
    return kinds[kind].name;
}

/* Conditions only the rules apply (see the top of the file). */
enum { NEED_NODES = 1, NEED_POF2 = 2 };

static int table_needs(int alg)
{
    if (!strcmp(faro_coll_algs[alg].name, "node_aware"))
        return NEED_NODES;
    if (alg == FARO_ALG_ALLGATHER_recursive_doubling)
        return NEED_POF2;
    return 0;
}

/* ---- rules ---- */

enum { OP_ANY, OP_COMMUTATIVE, OP_NONCOMMUTATIVE };
static const char *const op_names[] = {"any", "commutative", "noncommutative"};

struct rule {
    enum faro_coll_kind kind;
    int min_ranks, max_ranks;     /* INT_MAX: no upper bound */
    size_t min_bytes, max_bytes;  /* SIZE_MAX: no upper bound */
    int op;                       /* OP_* */
    int alg;                      /* FARO_ALG_* */
};

#define K *(size_t)1024
#define M *(size_t)1048576
#define ALL_RANKS 1, INT_MAX
#define INF SIZE_MAX

/*
 * The built-in table. Within a collective, order matters: the first rule that
 * matches and can serve wins. Bytes are the whole message (coll.h); for
 * gather/scatter/allgather/alltoall that is one block x ranks, so per-block
 * thresholds appear as rank bands. Reasons are from the algorithms' costs
 * (alpha: per-message latency, beta: per-byte time, p ranks, n bytes); the
 * lead re-measures and moves the numbers.
 */
static const struct rule builtin[] = {
    /* Across nodes, log2(nodes) rounds of slow messages instead of log2 p. */
    {FARO_COLL_BARRIER, ALL_RANKS, 0, INF, OP_ANY, FARO_ALG_BARRIER_node_aware},
    {FARO_COLL_BARRIER, ALL_RANKS, 0, INF, OP_ANY, FARO_ALG_BARRIER_dissemination},

    /* Small and medium across nodes: each node's data crosses the network once. */
    {FARO_COLL_BCAST, 2, INT_MAX, 0, 256 K, OP_ANY, FARO_ALG_BCAST_node_aware},
    /* Large with many ranks: a segmented chain moves about n per link and
     * keeps every link busy; its fill time (p segments) is small against n. */
    {FARO_COLL_BCAST, 8, INT_MAX, 2 M, INF, OP_ANY, FARO_ALG_BCAST_pipeline},
    /* Large: scatter + allgather moves about 2n per rank instead of n log2 p
     * (with 2 ranks it is only overhead). */
    {FARO_COLL_BCAST, 3, INT_MAX, 256 K, INF, OP_ANY, FARO_ALG_BCAST_scatter_allgather},
    {FARO_COLL_BCAST, ALL_RANKS, 0, INF, OP_ANY, FARO_ALG_BCAST_binomial},

    /* Across nodes, small and medium: one message per node over the network. */
    {FARO_COLL_REDUCE, 2, INT_MAX, 0, 256 K, OP_COMMUTATIVE, FARO_ALG_REDUCE_node_aware},
    /* Large, commutative: each rank combines about n instead of n log2 p. */
    {FARO_COLL_REDUCE, 4, INT_MAX, 256 K, INF, OP_COMMUTATIVE, FARO_ALG_REDUCE_rabenseifner},
    {FARO_COLL_REDUCE, ALL_RANKS, 0, INF, OP_ANY, FARO_ALG_REDUCE_binomial},

    /* Across nodes, small and medium: the network carries one vector per node. */
    {FARO_COLL_ALLREDUCE, 2, INT_MAX, 0, 256 K, OP_COMMUTATIVE,
     FARO_ALG_ALLREDUCE_node_aware},
    /* Large at 16+ ranks: the ring's 2n(p-1)/p per link beats halving's
     * log-round pattern once p alpha is small against n beta. Measured at 8
     * ranks (perf/tune-coll, docs/perf.md), Rabenseifner took half the ring's
     * time at 1 MiB, so the ring starts above that. */
    {FARO_COLL_ALLREDUCE, 16, INT_MAX, 1 M, INF, OP_COMMUTATIVE, FARO_ALG_ALLREDUCE_ring},
    /* Large: reduce-scatter + allgather, about 2n per rank instead of n log2 p. */
    {FARO_COLL_ALLREDUCE, 2, INT_MAX, 256 K, INF, OP_COMMUTATIVE,
     FARO_ALG_ALLREDUCE_rabenseifner},
    /* Small and medium, any op: log2 p rounds, rank-order exact. */
    {FARO_COLL_ALLREDUCE, ALL_RANKS, 0, INF, OP_ANY, FARO_ALG_ALLREDUCE_recursive_doubling},

    /* Small blocks, many ranks: log2 p messages at the root instead of p - 1. */
    {FARO_COLL_GATHER, 8, INT_MAX, 0, 64 K, OP_ANY, FARO_ALG_GATHER_binomial},
    {FARO_COLL_GATHER, ALL_RANKS, 0, INF, OP_ANY, FARO_ALG_GATHER_linear},
    {FARO_COLL_SCATTER, 8, INT_MAX, 0, 64 K, OP_ANY, FARO_ALG_SCATTER_binomial},
    {FARO_COLL_SCATTER, ALL_RANKS, 0, INF, OP_ANY, FARO_ALG_SCATTER_linear},

    /* Powers of two up to 512 KiB: log2 p rounds (the rule skips other sizes). */
    {FARO_COLL_ALLGATHER, 2, INT_MAX, 0, 512 K, OP_ANY, FARO_ALG_ALLGATHER_recursive_doubling},
    /* Other sizes, small: ceil(log2 p) rounds where the ring needs p - 1. */
    {FARO_COLL_ALLGATHER, 3, INT_MAX, 0, 64 K, OP_ANY, FARO_ALG_ALLGATHER_bruck},
    /* Large, and every v variant: each link carries each block once. */
    {FARO_COLL_ALLGATHER, ALL_RANKS, 0, INF, OP_ANY, FARO_ALG_ALLGATHER_ring},

    /* Blocks up to 256 B at 8+ ranks: Bruck's log2 p packed messages beat
     * p - 1 tiny ones (bands: 256 B x the band's fewest ranks). */
    {FARO_COLL_ALLTOALL, 8, 15, 0, 2 K, OP_ANY, FARO_ALG_ALLTOALL_bruck},
    {FARO_COLL_ALLTOALL, 16, 31, 0, 4 K, OP_ANY, FARO_ALG_ALLTOALL_bruck},
    {FARO_COLL_ALLTOALL, 32, 63, 0, 8 K, OP_ANY, FARO_ALG_ALLTOALL_bruck},
    {FARO_COLL_ALLTOALL, 64, INT_MAX, 0, 16 K, OP_ANY, FARO_ALG_ALLTOALL_bruck},
    /* Two ranks: one exchange either way; the window posts both at once. */
    {FARO_COLL_ALLTOALL, 1, 2, 0, INF, OP_ANY, FARO_ALG_ALLTOALL_scattered},
    /* Blocks up to 32 KiB: every transfer in flight, a window at a time;
     * larger ones pairwise, one exchange at a time, no link congestion. The
     * v/w variants (bytes 0) always land on the window. */
    {FARO_COLL_ALLTOALL, 3, 7, 0, 96 K, OP_ANY, FARO_ALG_ALLTOALL_scattered},
    {FARO_COLL_ALLTOALL, 8, 15, 0, 256 K, OP_ANY, FARO_ALG_ALLTOALL_scattered},
    {FARO_COLL_ALLTOALL, 16, 31, 0, 512 K, OP_ANY, FARO_ALG_ALLTOALL_scattered},
    {FARO_COLL_ALLTOALL, 32, 63, 0, 1 M, OP_ANY, FARO_ALG_ALLTOALL_scattered},
    {FARO_COLL_ALLTOALL, 64, INT_MAX, 0, 2 M, OP_ANY, FARO_ALG_ALLTOALL_scattered},
    {FARO_COLL_ALLTOALL, ALL_RANKS, 0, INF, OP_ANY, FARO_ALG_ALLTOALL_pairwise},

    /* Commutative: log2 p halving rounds for small and medium vectors,
     * p - 1 direct steps (each piece sent once) for large ones. */
    {FARO_COLL_REDUCE_SCATTER, 2, INT_MAX, 0, 512 K, OP_COMMUTATIVE,
     FARO_ALG_REDUCE_SCATTER_recursive_halving},
    {FARO_COLL_REDUCE_SCATTER, 2, INT_MAX, 512 K, INF, OP_COMMUTATIVE,
     FARO_ALG_REDUCE_SCATTER_pairwise},
    /* Non-commutative ops: reduce in rank order, then scatter. */
    {FARO_COLL_REDUCE_SCATTER, ALL_RANKS, 0, INF, OP_ANY,
     FARO_ALG_REDUCE_SCATTER_reduce_scatterv},

    /* log2 p rounds for any op; the chain (p - 1 hops) never wins on latency. */
    {FARO_COLL_SCAN, ALL_RANKS, 0, INF, OP_ANY, FARO_ALG_SCAN_recursive_doubling},
};

/* ---- the state built at init ---- */

static struct rule *table;                /* grouped by collective */
static int first[FARO_COLL_NKINDS], count[FARO_COLL_NKINDS];
static int forced[FARO_COLL_NKINDS];      /* algorithm id, or -1 */
static int needs[FARO_ALG_COUNT];         /* NEED_* */
static int catch_all[FARO_COLL_NKINDS];   /* last resort (never reached) */
static atomic_int ready;
static atomic_int fallback_said[FARO_COLL_NKINDS];
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* A rule every call matches and its algorithm serves. */
static int is_catch_all(const struct rule *r)
{
    return r->min_ranks <= 1 && r->max_ranks == INT_MAX && r->min_bytes == 0 &&
           r->max_bytes == INF && r->op == OP_ANY && faro_coll_algs[r->alg].flags == 0 &&
           needs[r->alg] == 0;
}

/* ---- the tuning file ---- */

struct parse {
    const char *path;
    int line;
    char *err;
    size_t errlen;
};

static int bad(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct parse *p, const char *fmt, ...)
{
    int n = snprintf(p->err, p->errlen, "FARO_COLL_TUNING_FILE %s line %d: ", p->path, p->line);
    if (n >= 0 && (size_t)n < p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A number; with_suffix: k, m, g multiply by powers of 1024. */
static int number(const char *s, int with_suffix, unsigned long long *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    if (with_suffix && *end) {
        switch (tolower((unsigned char)*end)) {
        case 'k': shift = 10; break;
        case 'm': shift = 20; break;
        case 'g': shift = 30; break;
        default: return -1;
        }
        end++;
    }
    if (*end || (shift && v > (ULLONG_MAX >> shift)))
        return -1;
    *out = v << shift;
    return 0;
}

/* "lo-hi", "lo-*", "lo-inf" or "n" (exactly n). */
static int range(const char *s, int with_suffix, unsigned long long *lo, unsigned long long *hi,
                 int *open)
{
    char buf[64];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *dash = strchr(buf, '-');
    *open = 0;
    if (dash)
        *dash = '\0';
    if (number(buf, with_suffix, lo))
        return -1;
    if (!dash) {
        *hi = *lo;
        return 0;
    }
    if (!strcmp(dash + 1, "*") || !strcasecmp(dash + 1, "inf")) {
        *open = 1;
        return 0;
    }
    return number(dash + 1, with_suffix, hi);
}

static int find_kind(const char *name)
{
    for (int k = 0; k < FARO_COLL_NKINDS; k++)
        if (!strcmp(kinds[k].name, name))
            return k;
    return -1;
}

/* "a, b, c": the algorithms of a collective, for messages. */
static void alg_list(enum faro_coll_kind kind, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int a = 0; a < FARO_ALG_COUNT; a++)
        if (faro_coll_algs[a].kind == kind && n < len)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
                                  faro_coll_algs[a].name);
}

static int parse_line(struct parse *p, char *text, struct rule *r)
{
    char *tok[6];
    int n = 0;
    char *save;
    for (char *s = strtok_r(text, " \t\r\n", &save); s; s = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == 6)
            return bad(p, "too many fields (expected <collective> <min-ranks>-<max-ranks> "
                          "<min-bytes>-<max-bytes> [commutative|noncommutative|any] <algorithm>)");
        tok[n++] = s;
    }
    if (n < 4 || n > 5)
        return bad(p, "%d fields (expected <collective> <min-ranks>-<max-ranks> "
                      "<min-bytes>-<max-bytes> [commutative|noncommutative|any] <algorithm>)", n);
    int kind = find_kind(tok[0]);
    if (kind < 0)
        return bad(p, "unknown collective '%s' (allowed: barrier, bcast, reduce, allreduce, "
                      "gather, scatter, allgather, alltoall, reduce_scatter, scan)", tok[0]);
    r->kind = (enum faro_coll_kind)kind;

    unsigned long long lo, hi;
    int open;
    if (range(tok[1], 0, &lo, &hi, &open) || lo < 1 || lo > INT_MAX ||
        (!open && (hi > INT_MAX || hi < lo)))
        return bad(p, "bad ranks range '%s' (allowed: <min>-<max> with 1 <= min <= max, "
                      "or <min>-* for no upper bound)", tok[1]);
    r->min_ranks = (int)lo;
    r->max_ranks = open ? INT_MAX : (int)hi;
    if (range(tok[2], 1, &lo, &hi, &open) || lo > SIZE_MAX ||
        (!open && (hi >= SIZE_MAX || hi < lo)))
        return bad(p, "bad bytes range '%s' (allowed: <min>-<max> with min <= max, sizes with "
                      "optional k, m or g suffixes, or <min>-* for no upper bound)", tok[2]);
    r->min_bytes = (size_t)lo;
    r->max_bytes = open ? INF : (size_t)hi;

    r->op = OP_ANY;
    if (n == 5) {
        int op;
        for (op = 0; op < 3 && strcmp(tok[3], op_names[op]); op++)
            ;
        if (op == 3)
            return bad(p, "unknown op class '%s' (allowed: commutative, noncommutative, any)",
                       tok[3]);
        if (op != OP_ANY && !kinds[kind].has_op)
            return bad(p, "'%s' given for %s, which takes no op (only reduce, allreduce, "
                          "reduce_scatter and scan do; write any or leave it out)",
                       tok[3], tok[0]);
        r->op = op;
    }
    const char *name = tok[n - 1];
    for (int a = 0; a < FARO_ALG_COUNT; a++) {
        if (faro_coll_algs[a].kind == r->kind && !strcmp(faro_coll_algs[a].name, name)) {
            r->alg = a;
            if ((faro_coll_algs[a].flags & FARO_ALG_COMMUTE) && r->op == OP_NONCOMMUTATIVE)
                return bad(p, "%s %s needs a commutative op, but the rule is for "
                              "noncommutative ones", tok[0], name);
            return 0;
        }
    }
    char list[512];
    alg_list(r->kind, list, sizeof list);
    return bad(p, "unknown algorithm '%s' for %s (allowed: %s)", name, tok[0], list);
}

/* The rules of an open tuning file (named path in messages), appended to
 * *rules (realloc'ed). */
static int read_rules(FILE *f, const char *path, struct rule **rules, int *n, char *err,
                      size_t errlen)
{
    struct parse p = {path, 0, err, errlen};
    char line[1024];
    int cap = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        p.line++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            rc = bad(&p, "longer than %zu characters", sizeof line - 2);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if (strspn(line, " \t\r\n") == strlen(line))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            struct rule *bigger = realloc(*rules, (size_t)cap * sizeof **rules);
            if (!bigger) {
                rc = bad(&p, "out of memory");
                break;
            }
            *rules = bigger;
        }
        rc = parse_line(&p, line, &(*rules)[*n]);
        if (rc)
            break;
        (*n)++;
    }
    if (!rc && ferror(f))
        rc = bad(&p, "read error: %s", strerror(errno));
    return rc;
}

static int read_file(const char *path, struct rule **rules, int *n, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "FARO_COLL_TUNING_FILE %s: cannot open it: %s", path,
                 strerror(errno));
        return -1;
    }
    int rc = read_rules(f, path, rules, n, err, errlen);
    fclose(f);
    return rc;
}

int faro_coll_tuning_parse(FILE *f, const char *name, char *err, size_t errlen)
{
    struct rule *rules = NULL;
    int n = 0, rc = read_rules(f, name, &rules, &n, err, errlen);
    free(rules);
    return rc ? -1 : n;
}

/* ---- set-up ---- */

void faro_coll_select_reset(void)
{
    free(table);
    table = NULL;
    atomic_store(&ready, 0);
}

int faro_coll_select_init(char *err, size_t errlen)
{
    /* coll/'s other set-up: collective checking, and what the hang report
     * asks of coll/ (runtime/hang.h) */
    faro_coll_checking = (int)faro_tun_int(FARO_TUN_COLL_CHECK);
    faro_hang_coll_tag = faro_coll_tag_owner;
    faro_hang_sched = faro_sched_describe;
    for (int a = 0; a < FARO_ALG_COUNT; a++)
        needs[a] = table_needs(a);

    /* forced algorithms: choice i of the tunable is the kind's i-th algorithm */
    for (int k = 0; k < FARO_COLL_NKINDS; k++) {
        long long choice = faro_tun_int(kinds[k].tunable);
        forced[k] = -1;
        for (int a = 0, i = 0; a < FARO_ALG_COUNT && choice > 0; a++)
            if (faro_coll_algs[a].kind == (enum faro_coll_kind)k && ++i == choice)
                forced[k] = a;
        if (choice > 0 && forced[k] < 0) {
            snprintf(err, errlen, "%s: choice %lld has no algorithm in coll/algorithms.def "
                     "(the tunable's choices and the table disagree)",
                     faro_tunable_table[kinds[k].tunable].name, choice);
            return -1;
        }
    }

    struct rule *file = NULL;
    int nfile = 0;
    const char *path = faro_tun_str(FARO_TUN_COLL_TUNING_FILE);
    if (path && path[0] && read_file(path, &file, &nfile, err, errlen)) {
        free(file);
        return -1;
    }

    /* group by collective: the file's rules first, each cut after its catch-all */
    int nbuiltin = (int)(sizeof builtin / sizeof builtin[0]);
    struct rule *t = malloc((size_t)(nfile + nbuiltin) * sizeof *t);
    if (!t) {
        free(file);
        snprintf(err, errlen, "selection of collective algorithms: out of memory");
        return -1;
    }
    int n = 0;
    for (int k = 0; k < FARO_COLL_NKINDS; k++) {
        int done = 0;
        first[k] = n;
        catch_all[k] = -1;
        for (int i = 0; i < nfile + nbuiltin && !done; i++) {
            const struct rule *r = i < nfile ? &file[i] : &builtin[i - nfile];
            if (r->kind != (enum faro_coll_kind)k)
                continue;
            t[n++] = *r;
            if (is_catch_all(r)) {
                done = 1;
                catch_all[k] = r->alg;
            }
        }
        count[k] = n - first[k];
        if (catch_all[k] < 0) { /* a built-in table without one is a bug here */
            free(file);
            free(t);
            snprintf(err, errlen, "the built-in selection table has no catch-all rule for %s",
                     kinds[k].name);
            return -1;
        }
    }
    free(file);
    free(table);
    table = t;
    for (int k = 0; k < FARO_COLL_NKINDS; k++)
        atomic_store(&fallback_said[k], 0);
    atomic_store_explicit(&ready, 1, memory_order_release);
    return 0;
}

static void init_once(void)
{
    pthread_mutex_lock(&init_lock);
    if (!atomic_load(&ready)) {
        char err[1024];
        if (faro_coll_select_init(err, sizeof err))
            faro_fatal(MPI_ERR_OTHER, "%s", err);
    }
    pthread_mutex_unlock(&init_lock);
}

/* ---- per call ---- */

static int spans_nodes(MPI_Comm comm)
{
    const struct faro_coll_nodes *m = faro_coll_nodes(comm);
    return m && m->nnodes > 1 && m->max_local > 1;
}

int faro_coll_select(MPI_Comm comm, enum faro_coll_kind kind, size_t bytes, int commute,
                     int uniform)
{
    if (!atomic_load_explicit(&ready, memory_order_acquire))
        init_once();
    int have = (commute ? FARO_ALG_COMMUTE : 0) | (uniform ? FARO_ALG_UNIFORM : 0);
    int f = forced[kind];
    if (f >= 0 && !(faro_coll_algs[f].flags & ~have))
        return f;

    int size = comm->size, nodes = -1, chosen = catch_all[kind];
    const struct rule *r = table + first[kind], *end = r + count[kind];
    for (; r < end; r++) {
        if (size < r->min_ranks || size > r->max_ranks || bytes < r->min_bytes ||
            bytes > r->max_bytes)
            continue;
        if ((r->op == OP_COMMUTATIVE && !commute) || (r->op == OP_NONCOMMUTATIVE && commute))
            continue;
        int a = r->alg;
        if (faro_coll_algs[a].flags & ~have)
            continue;
        if (needs[a]) {
            if ((needs[a] & NEED_POF2) && (size & (size - 1)))
                continue;
            if (needs[a] & NEED_NODES) {
                if (nodes < 0)
                    nodes = spans_nodes(comm);
                if (!nodes)
                    continue;
            }
        }
        chosen = a;
        break;
    }
    if (f >= 0 && faro_log_level >= 1 && !atomic_exchange(&fallback_said[kind], 1))
        faro_info(1, "%s=%s cannot serve this %s (it needs %s); the selection table chose %s "
                  "(said once per collective)", faro_tunable_table[kinds[kind].tunable].name,
                  faro_coll_algs[f].name, kinds[kind].name,
                  (faro_coll_algs[f].flags & ~have & FARO_ALG_COMMUTE)
                      ? "a commutative op" : "the same block on every rank, not a v/w variant",
                  faro_coll_algs[chosen].name);
    return chosen;
}

/* ---- listing ---- */

static void fmt_bytes(char *buf, size_t len, size_t v)
{
    if (v == INF)
        snprintf(buf, len, "*");
    else if (v && v % (1 << 30) == 0)
        snprintf(buf, len, "%zug", v >> 30);
    else if (v && v % (1 << 20) == 0)
        snprintf(buf, len, "%zum", v >> 20);
    else if (v && v % (1 << 10) == 0)
        snprintf(buf, len, "%zuk", v >> 10);
    else
        snprintf(buf, len, "%zu", v);
}

void faro_coll_print_algorithms(FILE *out)
{
    fprintf(out, "# Algorithms of each collective (FARO_COLL_<COLL>_ALGORITHM=<name> forces "
                 "one; faro-coll(7)).\n");
    for (int k = 0; k < FARO_COLL_NKINDS; k++) {
        fprintf(out, "# %s:\n", kinds[k].name);
        for (int a = 0; a < FARO_ALG_COUNT; a++) {
            const struct faro_coll_alg *g = &faro_coll_algs[a];
            if (g->kind != (enum faro_coll_kind)k)
                continue;
            fprintf(out, "#   %-19s %s", g->name, g->summary);
            int need = table_needs(a);
            const char *what[4] = {
                g->flags & FARO_ALG_COMMUTE ? "a commutative op" : NULL,
                g->flags & FARO_ALG_UNIFORM ? "uniform blocks (not v/w)" : NULL,
                need & NEED_NODES ? "several nodes (rules only)" : NULL,
                need & NEED_POF2 ? "a power-of-two size (rules only)" : NULL,
            };
            for (int i = 0, n = 0; i < 4; i++)
                if (what[i])
                    fprintf(out, "%s%s", n++ ? ", " : " [needs: ", what[i]);
            fputs(g->flags || need ? "]\n" : "\n", out);
        }
    }
}

void faro_coll_print_rules(FILE *out)
{
    const char *path = faro_tun_str(FARO_TUN_COLL_TUNING_FILE);
    fprintf(out, "# Collective algorithm selection rules in effect (%s%s), in the\n"
                 "# FARO_COLL_TUNING_FILE format:\n"
                 "#   <collective> <min-ranks>-<max-ranks> <min-bytes>-<max-bytes> "
                 "[commutative|noncommutative|any] <algorithm>\n"
                 "# Bytes: the whole message (one block x ranks for gather, scatter, allgather,\n"
                 "# alltoall; 0 for v/w variants). The first matching line whose algorithm can\n"
                 "# serve the call wins.\n",
            path && path[0] ? "FARO_COLL_TUNING_FILE=" : "built-in",
            path && path[0] ? path : "");
    for (int k = 0; k < FARO_COLL_NKINDS; k++) {
        if (forced[k] >= 0)
            fprintf(out, "# %s=%s forces %s wherever it can serve the call\n",
                    faro_tunable_table[kinds[k].tunable].name, faro_coll_algs[forced[k]].name,
                    faro_coll_algs[forced[k]].name);
        for (int i = first[k]; i < first[k] + count[k]; i++) {
            const struct rule *r = &table[i];
            char ranks[32], lo[32], hi[32], bytes[80];
            if (r->max_ranks == INT_MAX)
                snprintf(ranks, sizeof ranks, "%d-*", r->min_ranks);
            else
                snprintf(ranks, sizeof ranks, "%d-%d", r->min_ranks, r->max_ranks);
            fmt_bytes(lo, sizeof lo, r->min_bytes);
            fmt_bytes(hi, sizeof hi, r->max_bytes);
            snprintf(bytes, sizeof bytes, "%s-%s", lo, hi);
            fprintf(out, "%-15s %-8s %-12s %-15s %s\n", kinds[k].name, ranks, bytes,
                    op_names[r->op], faro_coll_algs[r->alg].name);
        }
    }
}
