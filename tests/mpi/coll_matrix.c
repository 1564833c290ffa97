/*
 * coll_matrix: every collective, under whichever algorithm the
 * FARO_COLL_<COLL>_ALGORITHM tunables force (tests/mpi/testlist-collalg runs
 * it once per algorithm and communicator size), checked value by value
 * against a reference computed locally.
 *
 * TEST_COLL (or argv[1]) picks the collectives: a comma-separated list of
 * barrier bcast reduce allreduce gather scatter allgather alltoall
 * reduce_scatter scan, or all (the default). gather also runs Gatherv,
 * scatter Scatterv, allgather Allgatherv, alltoall Alltoallv and Alltoallw,
 * reduce_scatter Reduce_scatter_block, scan Exscan: each group is what one
 * algorithm tunable governs.
 *
 * Each runs on MPI_COMM_WORLD, a dup of it and its odd/even halves
 * (MPI_Comm_split, keys reversed so that rank order differs from world's),
 * with counts 0, 1, 37 and 5000 (past the eager limit; not on the dup, whose
 * messages take the same paths as WORLD's), MPI_IN_PLACE
 * wherever the standard allows it, roots 0, the middle and the last rank,
 * v/w variants with uneven counts that include zeros, and a derived
 * datatype with holes and a lower bound of -4 bytes on one side against
 * plain ints on the other (coll_matrix.h). Reductions (coll_matrix_red.c)
 * use SUM and MAX on ints and integer-valued doubles and a non-commutative
 * user op. TEST_LARGE=1 adds 4 MiB messages on MPI_COMM_WORLD. TEST_NBC=1
 * instead starts the nonblocking variants on the three communicators at
 * once and waits for all of them (coll_matrix_nbc.c).
 *
 * A mismatch names the MPI call, the communicator, the case, the algorithm
 * tunable in effect, the rank, the index, and the expected and actual value.
 */
#include "util.h"

#include "coll_matrix.h"

/* ---- shared shapes ----------------------------------------------------- */

static const int base_counts[] = {0, 1, 37, 5000};
#define NCOUNTS (int)(sizeof base_counts / sizeof base_counts[0])

/* Counts of the case index ci: the base ones, then the large one (WORLD
 * and ints only: the whole message is 4 MiB). */
static int ncounts_k(int k)
{
    return cm.light ? NCOUNTS - 1 : NCOUNTS + (cm_large && cm.is_world && k == T_INT);
}
static int count_of(int ci, int per_block)
{
    if (ci < NCOUNTS)
        return base_counts[ci];
    return per_block ? (LARGE_INTS + cm.size - 1) / cm.size : LARGE_INTS;
}

/* The types of the data-moving tests: ints, then the holey vec against ints
 * (T_DOUBLE is for reductions). */
#define EACH_MOVE_KIND(k) for (int k = T_INT; k <= T_VEC; k += T_VEC - T_INT)

/* roots 0, middle, last (without repeats) */
static int nroots(void) { return cm.size >= 3 ? 3 : cm.size; }
static int root_of(int i) { return i == 0 ? 0 : i == 1 ? cm.size - 1 : cm.size / 2; }

/* v-variant blocks (in units): uneven, every third one empty; laid out in
 * reverse rank order with a one-unit gap after each. */
static int vcnt(int p, int u) { return p % 3 == 1 ? 0 : u + (p * 7) % 5; }
static void v_layout(const int *cnt, int n, int *displ, int *total)
{
    int d = 0;
    for (int p = n - 1; p >= 0; p--) {
        displ[p] = d;
        d += cnt[p] + 1;
    }
    *total = d;
}

/* ---- barrier ----------------------------------------------------------- */

static void t_barrier(void)
{
    cm_begin("MPI_Barrier", "BARRIER");
    int right = (cm.rank + 1) % cm.size, left = (cm.rank + cm.size - 1) % cm.size;
    for (int it = 0; it < 40; it++) {
        cm_case("iteration %d", it);
        int out = cm_val(cm.rank, right, (size_t)it, cm.salt), in = GAP;
        MPI_Request rq[2];
        CM_CALL(MPI_Irecv(&in, 1, MPI_INT, left, it, cm.comm, &rq[0]));
        CM_CALL(MPI_Isend(&out, 1, MPI_INT, right, it, cm.comm, &rq[1]));
        CM_CALL(MPI_Barrier(cm.comm));
        if (it % 2)
            CM_CALL(MPI_Barrier(cm.comm));
        CM_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        if (in != cm_val(left, cm.rank, (size_t)it, cm.salt))
            cm_fail("p2p around the barrier: expected %d from rank %d, got %d",
                    cm_val(left, cm.rank, (size_t)it, cm.salt), left, in);
    }
}

/* ---- bcast ------------------------------------------------------------- */

static void t_bcast(void)
{
    cm_begin("MPI_Bcast", "BCAST");
    EACH_MOVE_KIND(k)
        for (int ci = 0; ci < ncounts_k(k); ci++)
            for (int ri = 0; ri < nroots(); ri++) {
                int root = root_of(ri);
                size_t n = (size_t)count_of(ci, 0) * tk_per(k);
                cm_case("type %s count %zu root %d", tk_name(k), n / tk_per(k), root);
                struct tbuf b = tb_new(side_kind(k, cm.rank), n);
                double *w = want_new(n);
                for (size_t j = 0; j < n; j++)
                    w[j] = cm_val(root, 0, j, cm.salt);
                if (cm.rank == root)
                    for (size_t j = 0; j < n; j++)
                        tb_set(&b, j, w[j]);
                CM_CALL(MPI_Bcast(b.ptr, tb_count(&b), tb_type(&b), root, cm.comm));
                tb_compare(&b, w, "recvbuf");
                tb_free(&b);
                free(w);
            }
}

/* ---- gather(v), scatter(v), allgather(v) -------------------------------
 * One routine per shape, v selecting the v variant: block p has cnt[p]
 * units (1 unit = 2 logical ints in a vec case) at unit offset displ[p]. */

struct blocks {
    int *cnt, *displ, total; /* in units */
    int *mcnt, *mdispl;      /* in MPI elements of one side's type */
};

static struct blocks blocks_new(int u, int v)
{
    struct blocks b;
    int n = cm.size;
    b.cnt = tu_malloc(sizeof(int) * n);
    b.displ = tu_malloc(sizeof(int) * n);
    b.mcnt = tu_malloc(sizeof(int) * n);
    b.mdispl = tu_malloc(sizeof(int) * n);
    for (int p = 0; p < n; p++)
        b.cnt[p] = v ? vcnt(p, u) : u;
    if (v) {
        v_layout(b.cnt, n, b.displ, &b.total);
    } else {
        for (int p = 0; p < n; p++)
            b.displ[p] = p * u;
        b.total = n * u;
    }
    return b;
}

/* MPI counts and displacements for a buffer of kind bk in a case of kind k */
static void blocks_for(struct blocks *b, enum tkind k, enum tkind bk)
{
    int f = tk_per(k) / tk_per(bk);
    for (int p = 0; p < cm.size; p++) {
        b->mcnt[p] = b->cnt[p] * f;
        b->mdispl[p] = b->displ[p] * f;
    }
}

static void blocks_free(struct blocks *b)
{
    free(b->cnt);
    free(b->displ);
    free(b->mcnt);
    free(b->mdispl);
}

/* Fill block p of buf (logical, unit offsets from blocks) with src->dst values. */
static void put_block(struct tbuf *buf, double *w, const struct blocks *b, int p, int P, int src,
                      int dst)
{
    size_t off = (size_t)b->displ[p] * P, len = (size_t)b->cnt[p] * P;
    for (size_t j = 0; j < len; j++) {
        double x = cm_val(src, dst, j, cm.salt);
        if (buf)
            tb_set(buf, off + j, x);
        if (w)
            w[off + j] = x;
    }
}

static void t_gather_one(int v)
{
    cm_begin(v ? "MPI_Gatherv" : "MPI_Gather", "GATHER");
    EACH_MOVE_KIND(k)
        for (int ci = 0; ci < ncounts_k(k); ci++)
            for (int ri = 0; ri < nroots(); ri++)
                for (int ip = 0; ip < 2; ip++) {
                    int root = root_of(ri), P = tk_per(k), me = cm.rank;
                    struct blocks b = blocks_new(count_of(ci, 1), v);
                    cm_case("type %s count %d root %d in_place %d", tk_name(k), b.cnt[0], root,
                            ip);
                    enum tkind sk = side_kind(k, me), rk = side_kind(k, me + 1);
                    size_t sn = (size_t)b.cnt[me] * P;
                    struct tbuf s = tb_new(sk, sn);
                    for (size_t j = 0; j < sn; j++)
                        tb_set(&s, j, cm_val(me, root, j, cm.salt));
                    struct tbuf r = {NULL, NULL, 0, rk};
                    double *w = NULL;
                    const void *sb = s.ptr;
                    if (me == root) {
                        r = tb_new(rk, (size_t)b.total * P);
                        w = want_new(r.n);
                        blocks_for(&b, k, rk);
                        for (int p = 0; p < cm.size; p++)
                            put_block(NULL, w, &b, p, P, p, root);
                        if (ip) {
                            put_block(&r, NULL, &b, me, P, me, root);
                            sb = MPI_IN_PLACE;
                        }
                    }
                    if (v)
                        CM_CALL(MPI_Gatherv(sb, tb_count(&s), tb_type(&s), r.ptr,
                                            me == root ? b.mcnt : NULL,
                                            me == root ? b.mdispl : NULL, tk_type(rk), root,
                                            cm.comm));
                    else
                        CM_CALL(MPI_Gather(sb, tb_count(&s), tb_type(&s), r.ptr,
                                           me == root ? b.mcnt[0] : 0, tk_type(rk), root,
                                           cm.comm));
                    if (me == root) {
                        tb_compare(&r, w, "recvbuf at the root");
                        tb_free(&r);
                        free(w);
                    }
                    tb_free(&s);
                    blocks_free(&b);
                }
}

static void t_scatter_one(int v)
{
    cm_begin(v ? "MPI_Scatterv" : "MPI_Scatter", "SCATTER");
    EACH_MOVE_KIND(k)
        for (int ci = 0; ci < ncounts_k(k); ci++)
            for (int ri = 0; ri < nroots(); ri++)
                for (int ip = 0; ip < 2; ip++) {
                    int root = root_of(ri), P = tk_per(k), me = cm.rank;
                    struct blocks b = blocks_new(count_of(ci, 1), v);
                    cm_case("type %s count %d root %d in_place %d", tk_name(k), b.cnt[0], root,
                            ip);
                    enum tkind sk = side_kind(k, me + 1), rk = side_kind(k, me);
                    size_t rn = (size_t)b.cnt[me] * P;
                    struct tbuf r = tb_new(rk, rn), s = {NULL, NULL, 0, sk};
                    double *w = want_new(rn), *sw = NULL;
                    void *rb = r.ptr;
                    for (size_t j = 0; j < rn; j++)
                        w[j] = cm_val(root, me, j, cm.salt);
                    if (me == root) {
                        s = tb_new(sk, (size_t)b.total * P);
                        sw = want_new(s.n);
                        blocks_for(&b, k, sk);
                        for (int p = 0; p < cm.size; p++)
                            put_block(&s, sw, &b, p, P, root, p);
                        if (ip) {
                            rb = MPI_IN_PLACE;
                            for (size_t j = 0; j < rn; j++)
                                w[j] = GAP; /* recvbuf untouched */
                        }
                    }
                    if (v)
                        CM_CALL(MPI_Scatterv(s.ptr, me == root ? b.mcnt : NULL,
                                             me == root ? b.mdispl : NULL, tk_type(sk), rb,
                                             tb_count(&r), tb_type(&r), root, cm.comm));
                    else
                        CM_CALL(MPI_Scatter(s.ptr, me == root ? b.mcnt[0] : 0, tk_type(sk), rb,
                                            tb_count(&r), tb_type(&r), root, cm.comm));
                    tb_compare(&r, w, "recvbuf");
                    if (me == root) {
                        tb_compare(&s, sw, "sendbuf at the root (must not change)");
                        tb_free(&s);
                        free(sw);
                    }
                    tb_free(&r);
                    free(w);
                    blocks_free(&b);
                }
}

static void t_allgather_one(int v)
{
    cm_begin(v ? "MPI_Allgatherv" : "MPI_Allgather", "ALLGATHER");
    EACH_MOVE_KIND(k)
        for (int ci = 0; ci < ncounts_k(k); ci++)
            for (int ip = 0; ip < 2; ip++) {
                int P = tk_per(k), me = cm.rank;
                struct blocks b = blocks_new(count_of(ci, 1), v);
                cm_case("type %s count %d in_place %d", tk_name(k), b.cnt[0], ip);
                enum tkind sk = side_kind(k, me), rk = side_kind(k, me + 1);
                size_t sn = (size_t)b.cnt[me] * P;
                struct tbuf s = tb_new(sk, sn), r = tb_new(rk, (size_t)b.total * P);
                for (size_t j = 0; j < sn; j++)
                    tb_set(&s, j, cm_val(me, 0, j, cm.salt));
                double *w = want_new(r.n);
                blocks_for(&b, k, rk);
                for (int p = 0; p < cm.size; p++)
                    put_block(NULL, w, &b, p, P, p, 0);
                const void *sb = s.ptr;
                if (ip) {
                    put_block(&r, NULL, &b, me, P, me, 0);
                    sb = MPI_IN_PLACE;
                }
                if (v)
                    CM_CALL(MPI_Allgatherv(sb, tb_count(&s), tb_type(&s), r.ptr, b.mcnt,
                                           b.mdispl, tk_type(rk), cm.comm));
                else
                    CM_CALL(MPI_Allgather(sb, tb_count(&s), tb_type(&s), r.ptr, b.mcnt[0],
                                          tk_type(rk), cm.comm));
                tb_compare(&r, w, "recvbuf");
                tb_free(&s);
                tb_free(&r);
                free(w);
                blocks_free(&b);
            }
}

/* ---- alltoall(v,w) ------------------------------------------------------
 * src sends dst a2a_cnt(src, dst) units; symmetric counts when in place
 * (the data goes out from recvbuf, laid out by the receive counts). */
static int a2a_cnt(int src, int dst, int u, int v, int sym)
{
    if (!v)
        return u;
    int a = sym && src > dst ? dst : src, b = sym && src > dst ? src : dst;
    return (a + 2 * b) % 4 == 1 ? 0 : u + (a * 3 + b) % 5;
}

static void t_alltoall_one(int v)
{
    cm_begin(v ? "MPI_Alltoallv" : "MPI_Alltoall", "ALLTOALL");
    EACH_MOVE_KIND(k)
        for (int ci = 0; ci < ncounts_k(k); ci++)
            for (int ip = 0; ip < 2; ip++) {
                int P = tk_per(k), me = cm.rank, n = cm.size, u = count_of(ci, 1);
                cm_case("type %s count %d in_place %d", tk_name(k), u, ip);
                struct blocks sb = blocks_new(0, 0), rb = blocks_new(0, 0);
                for (int p = 0; p < n; p++) {
                    sb.cnt[p] = a2a_cnt(me, p, u, v, ip);
                    rb.cnt[p] = a2a_cnt(p, me, u, v, ip);
                }
                v_layout(sb.cnt, n, sb.displ, &sb.total);
                v_layout(rb.cnt, n, rb.displ, &rb.total);
                if (!v) { /* contiguous blocks in rank order */
                    for (int p = 0; p < n; p++)
                        sb.displ[p] = rb.displ[p] = p * u;
                    sb.total = rb.total = n * u;
                }
                enum tkind sk = side_kind(k, me), rk = side_kind(k, me + 1);
                struct tbuf s = tb_new(sk, (size_t)sb.total * P),
                            r = tb_new(rk, (size_t)rb.total * P);
                blocks_for(&sb, k, sk);
                blocks_for(&rb, k, rk);
                double *w = want_new(r.n);
                for (int p = 0; p < n; p++) {
                    put_block(&s, NULL, &sb, p, P, me, p);
                    put_block(NULL, w, &rb, p, P, p, me);
                    if (ip)
                        put_block(&r, NULL, &rb, p, P, me, p);
                }
                const void *sp = ip ? MPI_IN_PLACE : s.ptr;
                if (v)
                    CM_CALL(MPI_Alltoallv(sp, sb.mcnt, sb.mdispl, tk_type(sk), r.ptr, rb.mcnt,
                                          rb.mdispl, tk_type(rk), cm.comm));
                else
                    CM_CALL(MPI_Alltoall(sp, sb.mcnt[0], tk_type(sk), r.ptr, rb.mcnt[0],
                                         tk_type(rk), cm.comm));
                tb_compare(&r, w, "recvbuf");
                tb_free(&s);
                tb_free(&r);
                free(w);
                blocks_free(&sb);
                blocks_free(&rb);
            }
}

/* Alltoallw: a plain int buffer whose blocks have a type per peer: cm_vec
 * or MPI_INT; 2 x units logical ints per block, byte displacements, blocks
 * in reverse order with a gap of one int before each (cm_vec's lower bound
 * reaches one int below its pointer). */
static int w_kind_send(int me, int peer) { return (me + peer) % 2 == 0 ? T_VEC : T_INT; }
static int w_kind_recv(int me, int peer) { return (me + peer / 2) % 2 == 0 ? T_VEC : T_INT; }

static void w_layout(int me, const int *cnt, int recv, MPI_Datatype *types, int *mcnt,
                     int *bdispl, size_t *slots_at, size_t *total)
{
    size_t off = 1;
    for (int p = cm.size - 1; p >= 0; p--) {
        enum tkind k = recv ? w_kind_recv(me, p) : w_kind_send(me, p);
        size_t len = 2 * (size_t)cnt[p]; /* logical ints */
        types[p] = tk_type(k);
        mcnt[p] = (int)(len / tk_per(k));
        bdispl[p] = (int)(off * sizeof(int));
        slots_at[p] = off | (size_t)(k == T_VEC) << 62;
        off += (k == T_VEC ? 3 * len : len) + 1;
    }
    *total = off + 1;
}

static size_t w_slot(size_t at, size_t j)
{
    size_t off = at & ~((size_t)1 << 62);
    return off + (at >> 62 ? vec_slot(j) : j);
}

static void t_alltoallw(void)
{
    cm_begin("MPI_Alltoallw", "ALLTOALL");
    int n = cm.size, me = cm.rank;
    int *scnt = tu_malloc(sizeof(int) * n * 6), *rcnt = scnt + n, *sm = rcnt + n,
        *rm = sm + n, *sd = rm + n, *rd = sd + n;
    MPI_Datatype *st = tu_malloc(sizeof(MPI_Datatype) * n * 2), *rt = st + n;
    size_t *sat = tu_malloc(sizeof(size_t) * n * 2), *rat = sat + n;
    for (int ci = 0; ci < NCOUNTS; ci++)
        for (int ip = 0; ip < 2; ip++) {
            int u = base_counts[ci];
            cm_case("types vec/int per peer, count %d in_place %d", u, ip);
            for (int p = 0; p < n; p++) {
                scnt[p] = a2a_cnt(me, p, u, 1, ip);
                rcnt[p] = a2a_cnt(p, me, u, 1, ip);
            }
            size_t stot, rtot;
            w_layout(me, scnt, 0, st, sm, sd, sat, &stot);
            w_layout(me, rcnt, 1, rt, rm, rd, rat, &rtot);
            int *s = tu_malloc(stot * sizeof(int)), *r = tu_malloc(rtot * sizeof(int)),
                *w = tu_malloc(rtot * sizeof(int));
            for (size_t i = 0; i < stot; i++)
                s[i] = GAP;
            for (size_t i = 0; i < rtot; i++)
                r[i] = w[i] = GAP;
            for (int p = 0; p < n; p++) {
                for (size_t j = 0; j < 2 * (size_t)scnt[p]; j++)
                    s[w_slot(sat[p], j)] = cm_val(me, p, j, cm.salt);
                for (size_t j = 0; j < 2 * (size_t)rcnt[p]; j++) {
                    w[w_slot(rat[p], j)] = cm_val(p, me, j, cm.salt);
                    if (ip) /* what goes out to p, laid out as what comes from p */
                        r[w_slot(rat[p], j)] = cm_val(me, p, j, cm.salt);
                }
            }
            CM_CALL(MPI_Alltoallw(ip ? MPI_IN_PLACE : s, sm, sd, st, r, rm, rd, rt, cm.comm));
            for (size_t i = 0; i < rtot; i++)
                if (r[i] != w[i])
                    cm_fail("recvbuf int %zu: expected %d, got %d", i, w[i], r[i]);
            free(s);
            free(r);
            free(w);
        }
    free(scnt);
    free(st);
    free(sat);
}

/* ---- driver ------------------------------------------------------------ */

static void t_gather(void) { t_gather_one(0); t_gather_one(1); }
static void t_scatter(void) { t_scatter_one(0); t_scatter_one(1); }
static void t_allgather(void) { t_allgather_one(0); t_allgather_one(1); }
static void t_alltoall(void) { t_alltoall_one(0); t_alltoall_one(1); t_alltoallw(); }
static void t_rs(void) { t_reduce_scatter(); t_reduce_scatter_block(); }
static void t_scans(void) { t_scan(0); t_scan(1); }

static const struct {
    const char *name;
    void (*fn)(void);
} groups[] = {
    {"barrier", t_barrier},     {"bcast", t_bcast},         {"reduce", t_reduce},
    {"allreduce", t_allreduce}, {"gather", t_gather},       {"scatter", t_scatter},
    {"allgather", t_allgather}, {"alltoall", t_alltoall},   {"reduce_scatter", t_rs},
    {"scan", t_scans},
};
#define NGROUPS (int)(sizeof groups / sizeof groups[0])

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_matrix");
    const char *sel = argc > 1 ? argv[1] : getenv("TEST_COLL");
    if (!sel || !*sel)
        sel = "all";
    const char *e = getenv("TEST_LARGE");
    cm_large = e && *e && strcmp(e, "0") != 0;
    e = getenv("TEST_SLOW");
    if (e && *e)
        cm_slow_ms = atof(e);
    e = getenv("TEST_NBC");
    int nbc = e && *e && strcmp(e, "0") != 0;

    int chosen[NGROUPS] = {0};
    char list[256];
    snprintf(list, sizeof list, "%s", sel);
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int g = 0; g < NGROUPS; g++)
            if (strcmp(t, "all") == 0 || strcmp(t, groups[g].name) == 0)
                chosen[g] = found = 1;
        if (!found)
            tu_fail("TEST_COLL: unknown collective '%s' (barrier, bcast, reduce, allreduce, "
                    "gather, scatter, allgather, alltoall, reduce_scatter, scan or all)",
                    t);
    }

    MPI_Datatype v2;
    TU_CHECK(MPI_Type_vector(2, 1, 3, MPI_INT, &v2));
    TU_CHECK(MPI_Type_create_resized(v2, -(MPI_Aint)sizeof(int), 6 * sizeof(int), &cm_vec));
    TU_CHECK(MPI_Type_commit(&cm_vec));
    TU_CHECK(MPI_Type_free(&v2));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    cm_red_init();

    MPI_Comm comms[3];
    const char *names[3] = {"MPI_COMM_WORLD", "a dup of MPI_COMM_WORLD",
                            "a half of MPI_COMM_WORLD (split odd/even, keys reversed)"};
    comms[0] = MPI_COMM_WORLD;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]));
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, tu_rank % 2, tu_size - tu_rank, &comms[2]));

    for (int c = 0; c < 3; c++) {
        cm.comm = comms[c];
        cm.name = names[c];
        cm.is_world = c == 0;
        cm.light = c == 1;
        cm.salt = (unsigned)c * 100000u;
        TU_CHECK(MPI_Comm_rank(cm.comm, &cm.rank));
        TU_CHECK(MPI_Comm_size(cm.comm, &cm.size));
        if (nbc)
            break;
        for (int g = 0; g < NGROUPS; g++)
            if (chosen[g])
                groups[g].fn();
    }
    if (nbc) {
        const char *sel_names[NGROUPS];
        int nsel = 0;
        for (int g = 0; g < NGROUPS; g++)
            if (chosen[g])
                sel_names[nsel++] = groups[g].name;
        cm_nbc(comms, names, sel_names, nsel);
    }
    TU_CHECK(MPI_Comm_free(&comms[1]));
    TU_CHECK(MPI_Comm_free(&comms[2]));
    TU_CHECK(MPI_Type_free(&cm_vec));
    TU_CHECK(MPI_Op_free(&cm_noncomm));
    tu_finish();
    return 0;
}
