/*
 * coll_matrix_util: the bookkeeping of the collective test matrix: the
 * communicator and case under test, failure messages that name them and the
 * algorithm tunable in effect, the TEST_SLOW timing aid, and the typed
 * buffers (coll_matrix.h) with their value-by-value and hole-by-hole check.
 */
#include "util.h"

#include "coll_matrix.h"

struct cm_comm cm;
MPI_Datatype cm_vec;
MPI_Op cm_noncomm;
int cm_large;

static const char *cur_fn = "?", *cur_alg = NULL;
static char cur_case[200];

static void case_done(void);

void cm_begin(const char *fn, const char *alg_coll)
{
    case_done();
    cur_fn = fn;
    cur_alg = alg_coll;
    cur_case[0] = '\0';
}

/* TEST_SLOW=ms: rank 0 reports every case that took longer (tuning aid) */
double cm_slow_ms = -1;
static double case_t0;

static void case_done(void)
{
    if (cm_slow_ms < 0 || cur_case[0] == '\0' || cm.rank != 0)
        return;
    double ms = (MPI_Wtime() - case_t0) * 1e3;
    if (ms > cm_slow_ms)
        printf("slow: %.1f ms: %s on %s (size %d) [%s]\n", ms, cur_fn, cm.name, cm.size,
               cur_case);
}

void cm_case(const char *fmt, ...)
{
    case_done();
    case_t0 = MPI_Wtime();
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cur_case, sizeof cur_case, fmt, ap);
    va_end(ap);
    cm.salt++;
}

void cm_fail(const char *fmt, ...)
{
    char msg[512], var[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *alg = NULL;
    var[0] = '\0';
    if (cur_alg) {
        snprintf(var, sizeof var, "FARO_COLL_%s_ALGORITHM", cur_alg);
        alg = getenv(var);
    }
    cm_tu_sync();
    tu_fail("%s on %s (size %d, rank %d there) [%s] %s=%s: %s", cur_fn, cm.name, cm.size,
            cm.rank, cur_case, cur_alg ? var : "algorithm", alg ? alg : "(default)", msg);
}

/* ---- typed buffers ---------------------------------------------------- */

static size_t tb_ints(enum tkind k, size_t n) /* ints of data span */
{
    return k == T_VEC ? 3 * n : k == T_DOUBLE ? 2 * n : n;
}

struct tbuf tb_new(enum tkind k, size_t n)
{
    struct tbuf b = {NULL, NULL, n, k};
    size_t ints = tb_ints(k, n) + 4; /* guards: 2 ints before (a double), 2 after */
    int *m = tu_malloc(ints * sizeof(int));
    if (k == T_DOUBLE) {
        double *d = (double *)m;
        for (size_t i = 0; i < ints / 2; i++)
            d[i] = GAP;
    } else {
        for (size_t i = 0; i < ints; i++)
            m[i] = GAP;
    }
    b.mem = (char *)m;
    b.ptr = m + 2;
    return b;
}

void tb_free(struct tbuf *b)
{
    free(b->mem);
    b->mem = b->ptr = NULL;
}

void *tb_at(const struct tbuf *b, size_t j)
{
    switch (b->k) {
    case T_INT:
        return (int *)b->ptr + j;
    case T_DOUBLE:
        return (double *)b->ptr + j;
    default:
        return (int *)b->ptr + vec_slot(j);
    }
}

void tb_set(struct tbuf *b, size_t j, double v)
{
    if (b->k == T_DOUBLE)
        *(double *)tb_at(b, j) = v;
    else
        *(int *)tb_at(b, j) = (int)v;
}

double tb_get(const struct tbuf *b, size_t j)
{
    return b->k == T_DOUBLE ? *(double *)tb_at(b, j) : *(int *)tb_at(b, j);
}

double *want_new(size_t n)
{
    double *w = tu_malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        w[i] = GAP;
    return w;
}

void tb_compare(const struct tbuf *b, const double *want, const char *what)
{
    size_t bad = 0, first = 0;
    for (size_t j = 0; j < b->n; j++)
        if (tb_get(b, j) != want[j] && bad++ == 0)
            first = j;
    if (bad)
        cm_fail("%s: index %zu: expected %.0f, got %.0f (%zu of %zu values wrong)", what, first,
                want[first], tb_get(b, first), bad, b->n);
    /* holes and guards: every int that is not a data slot */
    if (b->k == T_DOUBLE) {
        const double *d = (const double *)b->mem;
        if (d[0] != GAP || d[b->n + 1] != GAP)
            cm_fail("%s: wrote outside the buffer (guard %s)", what,
                    d[0] != GAP ? "before" : "after");
        return;
    }
    const int *m = (const int *)b->mem;
    size_t ints = tb_ints(b->k, b->n) + 4;
    for (size_t i = 0; i < ints; i++) {
        int data = 0;
        if (i >= 2 && i < ints - 2) {
            size_t s = i - 2;
            data = b->k == T_INT || s % 6 == 0 || s % 6 == 3;
        }
        if (!data && m[i] != GAP)
            cm_fail("%s: wrote a hole or guard: int %zd from the buffer pointer is %d", what,
                    (ptrdiff_t)i - 2, m[i]);
    }
}
