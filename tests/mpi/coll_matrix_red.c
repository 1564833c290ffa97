/*
 * coll_matrix_red: the reductions of the collective test matrix (Reduce,
 * Allreduce, Reduce_scatter, Reduce_scatter_block, Scan, Exscan).
 *
 * Each runs seven (type, op) pairs: SUM and MAX on MPI_INT and on
 * MPI_DOUBLE holding integer values (so every sum is exact whatever the
 * order), SUM on the holey cm_vec type, and a non-commutative user op on
 * MPI_INT and on cm_vec. The user op composes affine maps x -> a*x + b
 * modulo the prime 1009, encoded in one int as a*1009 + b: composition is
 * associative, so MPI may bracket it any way, but it does not commute, so
 * an algorithm that combines ranks out of order gives a different value.
 * The reference folds the ranks' inputs in rank order, value by value.
 */
#include "util.h"

#include "coll_matrix.h"

#define PRIME 1009

static int compose(int f, int g) /* f after g */
{
    int a1 = f / PRIME, b1 = f % PRIME, a2 = g / PRIME, b2 = g % PRIME;
    return (a1 * a2 % PRIME) * PRIME + (a1 * b2 + b1) % PRIME;
}

/* inout = in op inout, in from the lower ranks */
static void noncomm_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout;
    if (*dt == MPI_INT) {
        for (int k = 0; k < *len; k++)
            b[k] = compose(a[k], b[k]);
    } else if (*dt == cm_vec) {
        for (int k = 0; k < *len; k++) {
            b[6 * k] = compose(a[6 * k], b[6 * k]);
            b[6 * k + 3] = compose(a[6 * k + 3], b[6 * k + 3]);
        }
    } else {
        cm_fail("the user op was called with a datatype the call did not use");
    }
}

void cm_red_init(void)
{
    cm_tu_sync();
    TU_CHECK(MPI_Op_create(noncomm_fn, 0, &cm_noncomm));
}

MPI_Op op_handle(enum opkind o)
{
    return o == OP_SUM ? MPI_SUM : o == OP_MAX ? MPI_MAX : cm_noncomm;
}

const char *op_name(enum opkind o)
{
    return o == OP_SUM ? "MPI_SUM" : o == OP_MAX ? "MPI_MAX" : "non-commutative user op";
}

double red_input(enum opkind o, int r, size_t j, unsigned salt)
{
    int v = cm_val(r, 0, j, salt);
    if (o != OP_NONCOMM)
        return v;
    return (1 + v % (PRIME - 1)) * PRIME + (v / 7) % PRIME;
}

double red_fold(enum opkind o, int lo, int hi, size_t j, unsigned salt)
{
    double acc = red_input(o, lo, j, salt);
    for (int r = lo + 1; r <= hi; r++) {
        double x = red_input(o, r, j, salt);
        acc = o == OP_SUM ? acc + x : o == OP_MAX ? (x > acc ? x : acc)
                                                  : compose((int)acc, (int)x);
    }
    return acc;
}

static const struct {
    enum tkind k;
    enum opkind o;
} pairs[] = {
    {T_INT, OP_SUM},     {T_INT, OP_MAX}, {T_DOUBLE, OP_SUM}, {T_DOUBLE, OP_MAX},
    {T_INT, OP_NONCOMM}, {T_VEC, OP_SUM}, {T_VEC, OP_NONCOMM},
};
#define NPAIRS (int)(sizeof pairs / sizeof pairs[0])

static const int counts[] = {0, 1, 37, 5000, LARGE_INTS};
/* The large count runs on MPI_COMM_WORLD for int SUM and the user op only,
 * at one root and not in place: it is there for the long-message paths. */
static int ncounts(int pi)
{
    if (cm.light)
        return 3;
    return 4 + (cm_large && cm.is_world && pairs[pi].k == T_INT && pairs[pi].o != OP_MAX);
}

static struct tbuf input_buf(int pi, size_t n)
{
    struct tbuf b = tb_new(pairs[pi].k, n);
    for (size_t j = 0; j < n; j++)
        tb_set(&b, j, red_input(pairs[pi].o, cm.rank, j, cm.salt));
    return b;
}

static double *input_want(int pi, size_t n)
{
    double *w = want_new(n);
    for (size_t j = 0; j < n; j++)
        w[j] = red_input(pairs[pi].o, cm.rank, j, cm.salt);
    return w;
}

#define CASE_FMT "%s on %s, count %d"
#define CASE_ARGS(pi, c) op_name(pairs[pi].o), tk_name(pairs[pi].k), (c)

void t_reduce(void)
{
    cm_begin("MPI_Reduce", "REDUCE");
    for (int pi = 0; pi < NPAIRS; pi++)
        for (int ci = 0; ci < ncounts(pi); ci++)
            for (int ri = 0; ri < (cm.size >= 3 ? 3 : cm.size); ri++)
                for (int ip = 0; ip < 2; ip++) {
                    int root = ri == 0 ? 0 : ri == 1 ? cm.size - 1 : cm.size / 2;
                    /* every root for the order-sensitive op; the last for the rest */
                    if ((ci == 4 || pairs[pi].o != OP_NONCOMM) && ri != 1)
                        continue;
                    if (ci == 4 && ip)
                        continue;
                    int c = counts[ci], me = cm.rank;
                    size_t n = (size_t)c * tk_per(pairs[pi].k);
                    cm_case(CASE_FMT ", root %d, in_place %d", CASE_ARGS(pi, c), root, ip);
                    struct tbuf s = input_buf(pi, n), r = {NULL, NULL, 0, pairs[pi].k};
                    const void *sb = s.ptr;
                    if (me == root) {
                        r = ip ? input_buf(pi, n) : tb_new(pairs[pi].k, n);
                        if (ip)
                            sb = MPI_IN_PLACE;
                    }
                    CM_CALL(MPI_Reduce(sb, r.ptr, c, tk_type(pairs[pi].k),
                                       op_handle(pairs[pi].o), root, cm.comm));
                    double *w = input_want(pi, n);
                    tb_compare(&s, w, "sendbuf (must not change)");
                    if (me == root) {
                        for (size_t j = 0; j < n; j++)
                            w[j] = red_fold(pairs[pi].o, 0, cm.size - 1, j, cm.salt);
                        tb_compare(&r, w, "recvbuf at the root");
                        tb_free(&r);
                    }
                    free(w);
                    tb_free(&s);
                }
}

void t_allreduce(void)
{
    cm_begin("MPI_Allreduce", "ALLREDUCE");
    for (int pi = 0; pi < NPAIRS; pi++)
        for (int ci = 0; ci < ncounts(pi); ci++)
            for (int ip = 0; ip < 2 - (ci == 4); ip++) {
                int c = counts[ci];
                size_t n = (size_t)c * tk_per(pairs[pi].k);
                cm_case(CASE_FMT ", in_place %d", CASE_ARGS(pi, c), ip);
                struct tbuf s = input_buf(pi, n);
                struct tbuf r = ip ? input_buf(pi, n) : tb_new(pairs[pi].k, n);
                CM_CALL(MPI_Allreduce(ip ? MPI_IN_PLACE : s.ptr, r.ptr, c, tk_type(pairs[pi].k),
                                      op_handle(pairs[pi].o), cm.comm));
                double *w = input_want(pi, n);
                tb_compare(&s, w, "sendbuf (must not change)");
                for (size_t j = 0; j < n; j++)
                    w[j] = red_fold(pairs[pi].o, 0, cm.size - 1, j, cm.salt);
                tb_compare(&r, w, "recvbuf");
                free(w);
                tb_free(&s);
                tb_free(&r);
            }
}

/* Reduce_scatter(_block): rank p gets rc[p] elements of the reduced vector,
 * the pieces in rank order. block: every piece is c elements. */
static void reduce_scatter(int block)
{
    cm_begin(block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter", "REDUCE_SCATTER");
    int *rc = tu_malloc(sizeof(int) * cm.size);
    for (int pi = 0; pi < NPAIRS; pi++)
        for (int ci = 0; ci < ncounts(pi); ci++)
            for (int ip = 0; ip < 2 - (ci == 4); ip++) {
                int c = counts[ci], me = cm.rank, per = tk_per(pairs[pi].k);
                if (ci >= 3) /* the whole vector is about 5000 elements or 4 MiB */
                    c = (c + cm.size - 1) / cm.size;
                size_t total = 0, off = 0;
                for (int p = 0; p < cm.size; p++) {
                    rc[p] = block ? c : p % 3 == 1 ? 0 : c + (p * 7) % 5;
                    if (p == me)
                        off = total;
                    total += (size_t)rc[p];
                }
                cm_case(CASE_FMT ", in_place %d", CASE_ARGS(pi, c), ip);
                size_t n = total * per, mine = (size_t)rc[me] * per;
                struct tbuf s = input_buf(pi, n);
                struct tbuf r = ip ? input_buf(pi, n) : tb_new(pairs[pi].k, mine);
                if (block)
                    CM_CALL(MPI_Reduce_scatter_block(ip ? MPI_IN_PLACE : s.ptr, r.ptr, c,
                                                     tk_type(pairs[pi].k),
                                                     op_handle(pairs[pi].o), cm.comm));
                else
                    CM_CALL(MPI_Reduce_scatter(ip ? MPI_IN_PLACE : s.ptr, r.ptr, rc,
                                               tk_type(pairs[pi].k), op_handle(pairs[pi].o),
                                               cm.comm));
                double *w = input_want(pi, n);
                tb_compare(&s, w, "sendbuf (must not change)");
                for (size_t j = 0; j < mine; j++)
                    w[j] = red_fold(pairs[pi].o, 0, cm.size - 1, off * per + j, cm.salt);
                if (ip) /* in place, recvbuf past this rank's piece is undefined */
                    for (size_t j = mine; j < n; j++)
                        w[j] = tb_get(&r, j);
                tb_compare(&r, w, "recvbuf");
                free(w);
                tb_free(&s);
                tb_free(&r);
            }
    free(rc);
}

void t_reduce_scatter(void) { reduce_scatter(0); }
void t_reduce_scatter_block(void) { reduce_scatter(1); }

void t_scan(int exclusive)
{
    cm_begin(exclusive ? "MPI_Exscan" : "MPI_Scan", "SCAN");
    for (int pi = 0; pi < NPAIRS; pi++)
        for (int ci = 0; ci < ncounts(pi); ci++)
            for (int ip = 0; ip < 2 - (ci == 4); ip++) {
                int c = counts[ci], me = cm.rank;
                size_t n = (size_t)c * tk_per(pairs[pi].k);
                cm_case(CASE_FMT ", in_place %d", CASE_ARGS(pi, c), ip);
                struct tbuf s = input_buf(pi, n);
                struct tbuf r = ip ? input_buf(pi, n) : tb_new(pairs[pi].k, n);
                int (*fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm) =
                    exclusive ? MPI_Exscan : MPI_Scan;
                CM_CALL(fn(ip ? MPI_IN_PLACE : s.ptr, r.ptr, c, tk_type(pairs[pi].k),
                           op_handle(pairs[pi].o), cm.comm));
                double *w = input_want(pi, n);
                tb_compare(&s, w, "sendbuf (must not change)");
                int hi = exclusive ? me - 1 : me;
                for (size_t j = 0; j < n; j++) /* Exscan: rank 0's recvbuf is undefined */
                    w[j] = hi >= 0 ? red_fold(pairs[pi].o, 0, hi, j, cm.salt) : tb_get(&r, j);
                tb_compare(&r, w, "recvbuf");
                free(w);
                tb_free(&s);
                tb_free(&r);
            }
}
