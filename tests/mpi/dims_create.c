/*
 * dims_create: MPI_Dims_create must return the most balanced grid.
 *
 * "As balanced as possible" is taken as Faro documents it (docs/notes.md):
 * the smallest spread (largest - smallest dimension); among grids of equal
 * spread the one with the larger smallest dimension, then the larger
 * next-smallest, and so on. That is the choice MPICH makes. This program
 * finds that grid by trying every non-increasing factorisation and compares:
 *   - every nnodes 1..TEST_DIMS_MAX (default 300) in 1..4 free dimensions;
 *   - the same with one or two fixed entries (kept as given, the free ones
 *     split nnodes / their product, non-increasing among themselves);
 *   - a few large and known cases: 5040 in 3 is 21x16x15 (20x18x14 has the
 *     same spread but a smaller smallest side), primes, powers of two;
 *   - errors under MPI_ERRORS_RETURN (MPI_ERR_DIMS, dims left untouched):
 *     fixed entries that do not divide nnodes, negative entries, every entry
 *     fixed with the wrong product, nnodes <= 0, ndims < 0.
 */
#include "util.h"

#define MAXD 8

/* ---- the reference: every non-increasing factorisation ---- */

static int ref_k, ref_cur[MAXD], ref_best[MAXD], ref_have;

static int ref_better(const int *a, const int *b, int k)
{
    int sa = a[0] - a[k - 1], sb = b[0] - b[k - 1];
    if (sa != sb)
        return sa < sb;
    for (int i = k - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] > b[i];
    return 0;
}

static void ref_walk(int depth, int m, int maxf)
{
    if (depth == ref_k - 1) {
        if (m > maxf)
            return;
        ref_cur[depth] = m;
        if (!ref_have || ref_better(ref_cur, ref_best, ref_k)) {
            memcpy(ref_best, ref_cur, sizeof ref_cur);
            ref_have = 1;
        }
        return;
    }
    for (int d = maxf; d >= 1; d--)
        if (m % d == 0) {
            ref_cur[depth] = d;
            ref_walk(depth + 1, m / d, d);
        }
}

static void reference(int m, int k, int *out)
{
    ref_k = k;
    ref_have = 0;
    ref_walk(0, m, m);
    memcpy(out, ref_best, (size_t)k * sizeof(int));
}

static const char *show(const int *d, int n)
{
    static char buf[4][160];
    static int which;
    char *b = buf[which++ % 4];
    b[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(b + strlen(b), 160 - strlen(b), "%s%d", i ? "x" : "", d[i]);
    return b;
}

/* Dims_create(nnodes, ndims, in) against the reference for the free entries. */
static void check(int nnodes, int ndims, const int *in)
{
    int d[MAXD], want[MAXD], fixed = 1, nfree = 0;
    memcpy(d, in, (size_t)ndims * sizeof(int));
    for (int i = 0; i < ndims; i++)
        if (in[i])
            fixed *= in[i];
        else
            nfree++;
    TU_CHECK(MPI_Dims_create(nnodes, ndims, d));
    if (nfree)
        reference(nnodes / fixed, nfree, want);
    int expect[MAXD];
    for (int i = 0, j = 0; i < ndims; i++)
        expect[i] = in[i] ? in[i] : want[j++];
    if (memcmp(d, expect, (size_t)ndims * sizeof(int)) != 0)
        tu_fail("MPI_Dims_create(%d, %d, {%s}) gave %s, expected %s", nnodes, ndims,
                show(in, ndims), show(d, ndims), show(expect, ndims));
}

static void known(int nnodes, int ndims, const int *want)
{
    int d[MAXD] = {0};
    TU_CHECK(MPI_Dims_create(nnodes, ndims, d));
    if (memcmp(d, want, (size_t)ndims * sizeof(int)) != 0)
        tu_fail("MPI_Dims_create(%d, %d) gave %s, expected %s", nnodes, ndims, show(d, ndims),
                show(want, ndims));
}

static void expect_dims_error(int nnodes, int ndims, const int *in, const char *why)
{
    int d[MAXD], cls = -1;
    if (ndims > 0)
        memcpy(d, in, (size_t)ndims * sizeof(int));
    int rc = MPI_Dims_create(nnodes, ndims, d);
    TU_ASSERT(rc != MPI_SUCCESS, "MPI_Dims_create(%d, %d, {%s}) succeeded (%s)", nnodes, ndims,
              ndims > 0 ? show(in, ndims) : "", why);
    TU_CHECK(MPI_Error_class(rc, &cls));
    TU_ASSERT(cls == MPI_ERR_DIMS, "MPI_Dims_create(%d, %d, ...) (%s): class %d, expected "
              "MPI_ERR_DIMS (%s)", nnodes, ndims, why, cls, tu_errstr(rc));
    for (int i = 0; i < ndims; i++)
        TU_ASSERT(d[i] == in[i], "MPI_Dims_create(%d, %d) failed (%s) but changed dims to {%s}",
                  nnodes, ndims, why, show(d, ndims));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "dims_create");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    const char *e = getenv("TEST_DIMS_MAX");
    int nmax = e && *e ? atoi(e) : 300;

    known(5040, 3, (int[]){21, 16, 15});
    known(5040, 2, (int[]){72, 70});
    known(5040, 4, (int[]){10, 9, 8, 7});
    known(6, 2, (int[]){3, 2});
    known(7, 2, (int[]){7, 1});
    known(1024, 3, (int[]){16, 8, 8});
    known(2147483647, 3, (int[]){2147483647, 1, 1});
    known(1 << 30, 3, (int[]){1024, 1024, 1024});
    known(720720, 6, (int[]){13, 11, 10, 9, 8, 7});

    int in[MAXD];
    for (int n = 1; n <= nmax; n++)
        for (int k = 1; k <= 4; k++) {
            memset(in, 0, sizeof in);
            check(n, k, in);
        }
    /* fixed entries: any divisor (or two whose product divides n) at any place */
    for (int n = 1; n <= nmax / 2; n++)
        for (int k = 2; k <= 4; k++)
            for (int f = 1; f <= n; f++) {
                if (n % f)
                    continue;
                for (int pos = 0; pos < k; pos++) {
                    memset(in, 0, sizeof in);
                    in[pos] = f;
                    check(n, k, in);
                    for (int g = 1; g <= n / f && k >= 3; g++)
                        if ((n / f) % g == 0) {
                            in[(pos + 1) % k] = g;
                            check(n, k, in);
                            in[(pos + 1) % k] = 0;
                        }
                }
            }
    memset(in, 0, sizeof in);
    check(1, 0, in); /* nothing to fill */

    expect_dims_error(12, 2, (int[]){5, 0}, "fixed 5 does not divide 12");
    expect_dims_error(12, 3, (int[]){2, 0, 4}, "fixed 2*4 does not divide 12");
    expect_dims_error(12, 2, (int[]){-2, 0}, "negative entry");
    expect_dims_error(12, 3, (int[]){0, 0, -1}, "negative entry");
    expect_dims_error(12, 2, (int[]){3, 5}, "all fixed, product 15");
    expect_dims_error(12, 2, (int[]){2, 2}, "all fixed, product 4");
    expect_dims_error(0, 2, (int[]){0, 0}, "nnodes 0");
    expect_dims_error(-4, 2, (int[]){0, 0}, "nnodes negative");
    expect_dims_error(4, -1, NULL, "ndims negative");
    known(12, 2, (int[]){4, 3}); /* still usable */

    tu_finish();
    return 0;
}
