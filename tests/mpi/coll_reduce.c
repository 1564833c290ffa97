/*
 * coll_reduce: the reducing collectives (Reduce, Allreduce, Reduce_scatter,
 * Reduce_scatter_block, Scan, Exscan) against a reference folded locally in
 * rank order, with MPI_SUM and MPI_MAX on int, MPI_SUM on double (values
 * that add exactly), a commutative user op and a non-commutative user op
 * (2x2 unsigned matrix product, so a result out of rank order is caught).
 * Every root, counts 0, 1, odd and larger, MPI_IN_PLACE, on MPI_COMM_WORLD,
 * MPI_COMM_SELF and halves of MPI_COMM_WORLD. TEST_LARGE=1 adds a 4 MiB
 * Allreduce (int sum) and a 1 MiB non-commutative one.
 */
#include "util.h"

enum { K_ISUM, K_IMAX, K_DSUM, K_USUM, K_MAT, NKINDS };
static const char *kname[NKINDS] = {"MPI_SUM(int)", "MPI_MAX(int)", "MPI_SUM(double)",
                                    "user commutative sum(int)", "user 2x2 matrix product"};

typedef struct { unsigned a, b, c, d; } mat;

static MPI_Datatype mat_type;
static MPI_Op op_usum, op_mat;
static int rank, size;
static const char *cname;

static void usum_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* inout = in x inout: in holds the lower ranks */
static void mat_mul(const mat *x, const mat *y, mat *out)
{
    mat m = {x->a * y->a + x->b * y->c, x->a * y->b + x->b * y->d, x->c * y->a + x->d * y->c,
             x->c * y->b + x->d * y->d};
    *out = m;
}
static void mat_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        mat_mul((mat *)in + i, (mat *)inout + i, (mat *)inout + i);
}

static size_t esz(int k)
{
    return k == K_DSUM ? sizeof(double) : k == K_MAT ? sizeof(mat) : sizeof(int);
}
static MPI_Datatype ktype(int k)
{
    return k == K_DSUM ? MPI_DOUBLE : k == K_MAT ? mat_type : MPI_INT;
}
static MPI_Op kop(int k)
{
    return k == K_IMAX ? MPI_MAX : k == K_USUM ? op_usum : k == K_MAT ? op_mat : MPI_SUM;
}

/* element i of rank r's input */
static void gen(int k, int r, int i, void *out)
{
    switch (k) {
    case K_ISUM:
    case K_USUM: *(int *)out = (r + 1) * (i + 1) - 3 * r + i % 7; break;
    case K_IMAX: *(int *)out = (r * 7919 + i * 31) % 1000 - 500; break;
    case K_DSUM: *(double *)out = (i % 64) * 0.25 + r * 0.5 + 1.0; break;
    case K_MAT: {
        mat m = {1u + (unsigned)(r + i) % 3, (unsigned)(r * 5 + i) % 7, (unsigned)(i * 3 + r) % 4,
                 1u + (unsigned)r % 2};
        *(mat *)out = m;
        break;
    }
    }
}

/* acc = acc op x, acc holding the lower ranks */
static void comb(int k, void *acc, const void *x)
{
    switch (k) {
    case K_ISUM:
    case K_USUM: *(int *)acc += *(const int *)x; break;
    case K_IMAX: if (*(const int *)x > *(int *)acc) *(int *)acc = *(const int *)x; break;
    case K_DSUM: *(double *)acc += *(const double *)x; break;
    case K_MAT: mat_mul(acc, x, acc); break;
    }
}

/* the reduction of ranks [0, upto] for element i (upto >= 0) */
static void ref(int k, int upto, int i, void *out)
{
    char x[sizeof(mat)];
    gen(k, 0, i, out);
    for (int r = 1; r <= upto; r++) {
        gen(k, r, i, x);
        comb(k, out, x);
    }
}

static char *input(int k, int count, int r)
{
    char *b = tu_malloc((size_t)count * esz(k));
    for (int i = 0; i < count; i++)
        gen(k, r, i, b + (size_t)i * esz(k));
    return b;
}

static void expect_ref(int k, const char *what, const char *got, int count, int upto, int first)
{
    char e[sizeof(mat)];
    for (int i = 0; i < count; i++) {
        ref(k, upto, first + i, e);
        if (memcmp(e, got + (size_t)i * esz(k), esz(k)) != 0)
            tu_fail("%s on %s (size %d), %s, count %d: element %d differs from the reference "
                    "(ranks 0..%d)",
                    what, cname, size, kname[k], count, i, upto);
    }
}

static void t_reduce(int k, MPI_Comm comm, int count, int in_place)
{
    size_t bytes = (size_t)count * esz(k);
    for (int root = 0; root < size; root++) {
        char *s = input(k, count, rank), *r = tu_malloc(bytes + 1);
        const void *sb = s;
        if (in_place && rank == root) {
            memcpy(r, s, bytes);
            sb = MPI_IN_PLACE;
        }
        TU_CHECK(MPI_Reduce(sb, r, count, ktype(k), kop(k), root, comm));
        if (rank == root)
            expect_ref(k, in_place ? "MPI_Reduce (in place)" : "MPI_Reduce", r, count, size - 1,
                       0);
        free(s);
        free(r);
    }
}

static void t_allreduce(int k, MPI_Comm comm, int count, int in_place)
{
    size_t bytes = (size_t)count * esz(k);
    char *s = input(k, count, rank), *r = tu_malloc(bytes + 1);
    if (in_place)
        memcpy(r, s, bytes);
    TU_CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, count, ktype(k), kop(k), comm));
    expect_ref(k, in_place ? "MPI_Allreduce (in place)" : "MPI_Allreduce", r, count, size - 1, 0);
    free(s);
    free(r);
}

static void t_scan(int k, MPI_Comm comm, int count, int in_place, int exclusive)
{
    size_t bytes = (size_t)count * esz(k);
    char *s = input(k, count, rank), *r = tu_malloc(bytes + 1);
    if (in_place)
        memcpy(r, s, bytes);
    const void *sb = in_place ? MPI_IN_PLACE : s;
    if (exclusive)
        TU_CHECK(MPI_Exscan(sb, r, count, ktype(k), kop(k), comm));
    else
        TU_CHECK(MPI_Scan(sb, r, count, ktype(k), kop(k), comm));
    if (!exclusive || rank > 0)
        expect_ref(k, exclusive ? "MPI_Exscan" : "MPI_Scan", r, count,
                   exclusive ? rank - 1 : rank, 0);
    free(s);
    free(r);
}

static void t_reduce_scatter(int k, MPI_Comm comm, int count, int in_place, int block)
{
    int *counts = tu_malloc(size * sizeof(int));
    int total = 0, first = 0;
    for (int p = 0; p < size; p++) {
        counts[p] = block ? count : (count ? (p * 3 + count) % 5 : 0);
        if (p < rank)
            first += counts[p];
        total += counts[p];
    }
    char *s = input(k, total, rank);
    char *r = tu_malloc((size_t)(in_place ? total : counts[rank]) * esz(k) + 1);
    if (in_place)
        memcpy(r, s, (size_t)total * esz(k));
    const void *sb = in_place ? MPI_IN_PLACE : s;
    if (block)
        TU_CHECK(MPI_Reduce_scatter_block(sb, r, count, ktype(k), kop(k), comm));
    else
        TU_CHECK(MPI_Reduce_scatter(sb, r, counts, ktype(k), kop(k), comm));
    expect_ref(k, block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter", r, counts[rank],
               size - 1, first);
    free(s);
    free(r);
    free(counts);
}

static void run_all(MPI_Comm comm, const char *name)
{
    cname = name;
    TU_CHECK(MPI_Comm_rank(comm, &rank));
    TU_CHECK(MPI_Comm_size(comm, &size));
    static const int counts[] = {0, 1, 7, 1000};
    for (int k = 0; k < NKINDS; k++)
        for (int c = 0; c < 4; c++)
            for (int ip = 0; ip < 2; ip++) {
                int count = counts[c];
                t_reduce(k, comm, count, ip);
                t_allreduce(k, comm, count, ip);
                t_scan(k, comm, count, ip, 0);
                t_scan(k, comm, count, ip, 1);
                t_reduce_scatter(k, comm, count, ip, 0);
                t_reduce_scatter(k, comm, count, ip, 1);
            }
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_reduce");
    TU_CHECK(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type));
    TU_CHECK(MPI_Type_commit(&mat_type));
    TU_CHECK(MPI_Op_create(usum_fn, 1, &op_usum));
    TU_CHECK(MPI_Op_create(mat_fn, 0, &op_mat));

    run_all(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    run_all(MPI_COMM_SELF, "MPI_COMM_SELF");
    MPI_Comm half;
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, tu_rank % 2, -tu_rank, &half));
    run_all(half, "a half of MPI_COMM_WORLD");
    TU_CHECK(MPI_Comm_free(&half));

    const char *large = getenv("TEST_LARGE");
    if (large && *large == '1') {
        cname = "MPI_COMM_WORLD (large)";
        TU_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
        TU_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
        t_allreduce(K_ISUM, MPI_COMM_WORLD, (4 << 20) / 4 + 5, 0);
        t_allreduce(K_DSUM, MPI_COMM_WORLD, (4 << 20) / 8 + 3, 1);
        t_allreduce(K_MAT, MPI_COMM_WORLD, (1 << 20) / 16, 0);
        t_reduce(K_ISUM, MPI_COMM_WORLD, (4 << 20) / 4, 0);
    }

    TU_CHECK(MPI_Op_free(&op_usum));
    TU_CHECK(MPI_Op_free(&op_mat));
    TU_CHECK(MPI_Type_free(&mat_type));
    tu_finish();
    return 0;
}
