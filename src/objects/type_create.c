/*
 * Derived datatype constructors. Each describes its typemap to the builder
 * as copies of its old type(s) at byte displacements and records its
 * arguments for MPI_Type_get_contents. Bounds follow MPI 3.1 §4.1.7: the
 * lower/upper bound markers set by MPI_Type_create_resized are sticky;
 * without them the bounds are those of the data, and MPI_Type_create_struct
 * pads the extent to the largest alignment of its basic types.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigcount/wide.h"
#include "objects/type_build.h"
#include "runtime/thread.h"

/* ---- argument checks ---- */

static int bad_old(const char *fn, MPI_Datatype t, const char *what)
{
    if (t == MPI_DATATYPE_NULL)
        return faro_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: %s is MPI_DATATYPE_NULL", fn, what);
    return faro_err(MPI_COMM_NULL, MPI_ERR_TYPE,
                    "%s: %s is not a datatype (uninitialised, or freed with MPI_Type_free?)",
                    fn, what);
}

#define CHECK_OLD(fn, t)                                                                   \
    do {                                                                                   \
        if (faro_type_valid(t))                                                            \
            return bad_old(fn, t, "oldtype");                                              \
    } while (0)
#define CHECK_COUNT(fn, n, what)                                                           \
    do {                                                                                   \
        if ((n) < 0)                                                                       \
            return faro_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: %s %lld is negative", fn,   \
                            what, (long long)(n));                                         \
    } while (0)
#define CHECK_BLOCK(fn, n, i)                                                              \
    do {                                                                                   \
        if ((n) < 0)                                                                       \
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,                                    \
                            "%s: blocklength %lld (block %lld) is negative", fn,           \
                            (long long)(n), (long long)(i));                               \
    } while (0)
#define CHECK_ARRAY(fn, count, p, what)                                                    \
    do {                                                                                   \
        if ((count) > 0 && !(p))                                                           \
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s is NULL", fn, what);      \
    } while (0)
#define CHECK_OUT(fn, p)                                                                   \
    do {                                                                                   \
        if (!(p))                                                                          \
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: newtype is NULL", fn);        \
    } while (0)

/* The end of every constructor: the type made by tb_finish (NULL: why in b). */
static int done(const char *fn, const struct faro_tbuild *b, MPI_Datatype t,
                MPI_Datatype *newtype)
{
    if (!t && b->toobig)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: the type would hold more bytes than "
                        "MPI_Count can count (2^63 - 1)", fn);
    if (!t)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory flattening the type",
                        fn);
    *newtype = t;
    return MPI_SUCCESS;
}

/* ---- constructors ---- */

/* A constructor's count as MPI_Type_get_contents gives it: one beyond
 * INT_MAX (from a _c call) is MPI_UNDEFINED, since the int query cannot say
 * it and MPI_Type_get_contents_c is not built yet. */
static int contents_int(MPI_Count n)
{
    return n >= INT_MIN && n <= INT_MAX ? (int)n : MPI_UNDEFINED;
}

/* The int call and MPI_Type_contiguous_c (bigcount/wide.h). */
int faro_wide_Type_contiguous(const char *fn, MPI_Count count, MPI_Datatype old,
                              MPI_Datatype *newtype)
{
    FARO_LOCKED;
    CHECK_COUNT(fn, count, "count");
    CHECK_OLD(fn, old);
    CHECK_OUT(fn, newtype);
    struct faro_tbuild b;
    tb_init(&b);
    tb_add(&b, old, 0, (size_t)count, old->extent);
    struct faro_type_contents *c = faro_tc_new(MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    if (c) {
        c->ints[0] = contents_int(count);
        c->types[0] = old;
    }
    return done(fn, &b, tb_finish(&b, 0, 0, 0, 0, c), newtype);
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype)
{
    return faro_wide_Type_contiguous("MPI_Type_contiguous", count, old, newtype);
}

/* The vector constructors, int and _c (bigcount/wide.h) alike. */
static int hvector(const char *fn, int combiner, MPI_Count count, MPI_Count blocklength,
                   MPI_Aint stride, MPI_Count stride_elems, MPI_Datatype old,
                   MPI_Datatype *newtype)
{
    CHECK_COUNT(fn, count, "count");
    CHECK_BLOCK(fn, blocklength, 0);
    CHECK_OLD(fn, old);
    CHECK_OUT(fn, newtype);
    struct faro_tbuild b;
    tb_init(&b);
    tb_add_blocks(&b, old, 0, (size_t)count, stride, (size_t)blocklength);
    struct faro_type_contents *c =
        faro_tc_new(combiner, combiner == MPI_COMBINER_VECTOR ? 3 : 2,
                    combiner == MPI_COMBINER_VECTOR ? 0 : 1, 1);
    if (c) {
        c->ints[0] = contents_int(count);
        c->ints[1] = contents_int(blocklength);
        if (combiner == MPI_COMBINER_VECTOR)
            c->ints[2] = contents_int(stride_elems);
        else
            c->aints[0] = stride;
        c->types[0] = old;
    }
    return done(fn, &b, tb_finish(&b, 0, 0, 0, 0, c), newtype);
}

int faro_wide_Type_vector(const char *fn, MPI_Count count, MPI_Count blocklength,
                          MPI_Count stride, MPI_Datatype old, MPI_Datatype *newtype)
{
    FARO_LOCKED;
    if (faro_type_valid(old))
        return bad_old(fn, old, "oldtype");
    return hvector(fn, MPI_COMBINER_VECTOR, count, blocklength, (MPI_Aint)stride * old->extent,
                   stride, old, newtype);
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old,
                     MPI_Datatype *newtype)
{
    return faro_wide_Type_vector("MPI_Type_vector", count, blocklength, stride, old, newtype);
}

int faro_wide_Type_create_hvector(const char *fn, MPI_Count count, MPI_Count blocklength,
                                  MPI_Count stride, MPI_Datatype old, MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return hvector(fn, MPI_COMBINER_HVECTOR, count, blocklength, (MPI_Aint)stride, 0, old,
                   newtype);
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old,
                             MPI_Datatype *newtype)
{
    return faro_wide_Type_create_hvector("MPI_Type_create_hvector", count, blocklength, stride,
                                         old, newtype);
}

/* An array of block lengths or displacements as the int call (int, MPI_Aint)
 * or its _c form (MPI_Count) gives it: one pointer set. */
struct vals {
    const int *i;
    const MPI_Aint *a;
    const MPI_Count *c;
};
static inline int has_vals(struct vals v)
{
    return v.i || v.a || v.c;
}
static inline MPI_Count val(struct vals v, MPI_Count k)
{
    return v.i ? v.i[k] : v.a ? (MPI_Count)v.a[k] : v.c[k];
}

/* The contents record holds ints: at most this many blocks. */
#define MAX_BLOCKS ((INT_MAX - 2) / 2)
#define CHECK_BLOCKS(fn, count)                                                            \
    do {                                                                                   \
        if ((count) > MAX_BLOCKS)                                                          \
            return faro_err(MPI_COMM_NULL, MPI_ERR_UNSUPPORTED_OPERATION,                 \
                            "%s: count %lld is more blocks than Faro records (%d)", fn,    \
                            (long long)(count), MAX_BLOCKS);                               \
    } while (0)

/* The four indexed constructors, int and _c (bigcount/wide.h) alike:
 * blocklengths per block or one for all, displacements in elements of old
 * or (disp_bytes) in bytes. */
static int indexed(const char *fn, int combiner, MPI_Count count, struct vals blocklengths,
                   MPI_Count blocklength, struct vals disp, int disp_bytes, MPI_Datatype old,
                   MPI_Datatype *newtype)
{
    int per_block = combiner == MPI_COMBINER_INDEXED || combiner == MPI_COMBINER_HINDEXED;
    CHECK_COUNT(fn, count, "count");
    CHECK_BLOCKS(fn, count);
    if (per_block)
        CHECK_ARRAY(fn, count, has_vals(blocklengths), "array_of_blocklengths");
    else
        CHECK_BLOCK(fn, blocklength, 0);
    CHECK_ARRAY(fn, count, has_vals(disp), "array_of_displacements");
    CHECK_OLD(fn, old);
    CHECK_OUT(fn, newtype);
    for (MPI_Count i = 0; per_block && i < count; i++)
        CHECK_BLOCK(fn, val(blocklengths, i), i);
    int n = (int)count, ni, na;
    switch (combiner) {
    case MPI_COMBINER_INDEXED: ni = 2 * n + 1, na = 0; break;
    case MPI_COMBINER_HINDEXED: ni = n + 1, na = n; break;
    case MPI_COMBINER_INDEXED_BLOCK: ni = n + 2, na = 0; break;
    default: ni = 2, na = n; break; /* HINDEXED_BLOCK */
    }
    struct faro_tbuild b;
    tb_init(&b);
    for (int i = 0; i < n; i++) {
        MPI_Aint d = disp_bytes ? (MPI_Aint)val(disp, i) : (MPI_Aint)val(disp, i) * old->extent;
        tb_add(&b, old, d, (size_t)(per_block ? val(blocklengths, i) : blocklength),
               old->extent);
    }
    struct faro_type_contents *c = faro_tc_new(combiner, ni, na, 1);
    if (c) {
        int *in = c->ints;
        *in++ = n;
        if (!per_block)
            *in++ = contents_int(blocklength);
        for (int i = 0; per_block && i < n; i++)
            *in++ = contents_int(val(blocklengths, i));
        for (int i = 0; i < n; i++) {
            if (disp_bytes)
                c->aints[i] = (MPI_Aint)val(disp, i);
            else
                *in++ = contents_int(val(disp, i));
        }
        c->types[0] = old;
    }
    return done(fn, &b, tb_finish(&b, 0, 0, 0, 0, c), newtype);
}

#define VALS_I(p) ((struct vals){(p), NULL, NULL})
#define VALS_A(p) ((struct vals){NULL, (p), NULL})
#define VALS_C(p) ((struct vals){NULL, NULL, (p)})
#define NO_VALS ((struct vals){NULL, NULL, NULL})

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype old,
                      MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed("MPI_Type_indexed", MPI_COMBINER_INDEXED, count,
                   VALS_I(array_of_blocklengths), 0, VALS_I(array_of_displacements), 0, old,
                   newtype);
}

int faro_wide_Type_indexed(const char *fn, MPI_Count count,
                           const MPI_Count array_of_blocklengths[],
                           const MPI_Count array_of_displacements[], MPI_Datatype old,
                           MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed(fn, MPI_COMBINER_INDEXED, count, VALS_C(array_of_blocklengths), 0,
                   VALS_C(array_of_displacements), 0, old, newtype);
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype old,
                              MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count,
                   VALS_I(array_of_blocklengths), 0, VALS_A(array_of_displacements), 1, old,
                   newtype);
}

int faro_wide_Type_create_hindexed(const char *fn, MPI_Count count,
                                   const MPI_Count array_of_blocklengths[],
                                   const MPI_Count array_of_displacements[], MPI_Datatype old,
                                   MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed(fn, MPI_COMBINER_HINDEXED, count, VALS_C(array_of_blocklengths), 0,
                   VALS_C(array_of_displacements), 1, old, newtype);
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype old, MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count, NO_VALS,
                   blocklength, VALS_I(array_of_displacements), 0, old, newtype);
}

int faro_wide_Type_create_indexed_block(const char *fn, MPI_Count count, MPI_Count blocklength,
                                        const MPI_Count array_of_displacements[],
                                        MPI_Datatype old, MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed(fn, MPI_COMBINER_INDEXED_BLOCK, count, NO_VALS, blocklength,
                   VALS_C(array_of_displacements), 0, old, newtype);
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype old,
                                    MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, count,
                   NO_VALS, blocklength, VALS_A(array_of_displacements), 1, old, newtype);
}

int faro_wide_Type_create_hindexed_block(const char *fn, MPI_Count count, MPI_Count blocklength,
                                         const MPI_Count array_of_displacements[],
                                         MPI_Datatype old, MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed(fn, MPI_COMBINER_HINDEXED_BLOCK, count, NO_VALS, blocklength,
                   VALS_C(array_of_displacements), 1, old, newtype);
}

/* MPI_Type_create_struct and its _c form. */
static int create_struct(const char *fn, MPI_Count count, struct vals blocklengths,
                         struct vals displacements, const MPI_Datatype array_of_types[],
                         MPI_Datatype *newtype)
{
    CHECK_COUNT(fn, count, "count");
    CHECK_BLOCKS(fn, count);
    CHECK_ARRAY(fn, count, has_vals(blocklengths), "array_of_blocklengths");
    CHECK_ARRAY(fn, count, has_vals(displacements), "array_of_displacements");
    CHECK_ARRAY(fn, count, array_of_types, "array_of_types");
    CHECK_OUT(fn, newtype);
    int n = (int)count;
    for (int i = 0; i < n; i++) {
        CHECK_BLOCK(fn, val(blocklengths, i), i);
        if (faro_type_valid(array_of_types[i])) {
            char what[48];
            snprintf(what, sizeof what, "array_of_types[%d]", i);
            return bad_old(fn, array_of_types[i], what);
        }
    }
    struct faro_tbuild b;
    tb_init(&b);
    for (int i = 0; i < n; i++)
        tb_add(&b, array_of_types[i], (MPI_Aint)val(displacements, i),
               (size_t)val(blocklengths, i), array_of_types[i]->extent);
    struct faro_type_contents *c = faro_tc_new(MPI_COMBINER_STRUCT, n + 1, n, n);
    if (c) {
        c->ints[0] = n;
        for (int i = 0; i < n; i++) {
            c->ints[1 + i] = contents_int(val(blocklengths, i));
            c->aints[i] = (MPI_Aint)val(displacements, i);
        }
        if (n > 0)
            memcpy(c->types, array_of_types, (size_t)n * sizeof(MPI_Datatype));
    }
    return done(fn, &b, tb_finish(&b, 1, 0, 0, 0, c), newtype);
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return create_struct("MPI_Type_create_struct", count, VALS_I(array_of_blocklengths),
                         VALS_A(array_of_displacements), array_of_types, newtype);
}

int faro_wide_Type_create_struct(const char *fn, MPI_Count count,
                                 const MPI_Count array_of_blocklengths[],
                                 const MPI_Count array_of_displacements[],
                                 const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return create_struct(fn, count, VALS_C(array_of_blocklengths),
                         VALS_C(array_of_displacements), array_of_types, newtype);
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    FARO_LOCKED;
    const char *fn = "MPI_Type_create_resized";
    CHECK_OLD(fn, old);
    CHECK_OUT(fn, newtype);
    struct faro_tbuild b;
    tb_init(&b);
    tb_add(&b, old, 0, 1, 0);
    struct faro_type_contents *c = faro_tc_new(MPI_COMBINER_RESIZED, 0, 2, 1);
    if (c) {
        c->aints[0] = lb;
        c->aints[1] = extent;
        c->types[0] = old;
    }
    return done(fn, &b, tb_finish(&b, 0, 1, lb, extent, c), newtype);
}

/* ---- arrays: subarray and darray ---- */

/* The selected indices of one dimension: runs of consecutive ones. */
struct span {
    int first, n;
};

/* Add the elements of an ndims array selection in C order (the last
 * dimension varies fastest): along dimension k the selected indices are the
 * spans sp[k][0..ns[k]); the element at index tuple i lies at element offset
 * sum i_k * mult[k] (mult[ndims - 1] = 1). Rows of the last two dimensions go
 * to the builder as blocks, so a selection costs its number of spans and of
 * outer indices, not its number of elements. */
static void add_selection(struct faro_tbuild *b, MPI_Datatype old, int ndims,
                          struct span **sp, const int *ns, const MPI_Aint *mult)
{
    for (int k = 0; k < ndims; k++)
        if (ns[k] == 0)
            return;
    int last = ndims - 1, rows = ndims - 2; /* rows: the dimension of the rows, if any */
    MPI_Aint ext = old->extent;
    int si[ndims > 1 ? ndims : 1], off[ndims > 1 ? ndims : 1]; /* the odometer of outer indices */
    memset(si, 0, sizeof si);
    memset(off, 0, sizeof off);
    for (;;) {
        MPI_Aint base = 0;
        for (int k = 0; k < rows; k++)
            base += ((MPI_Aint)sp[k][si[k]].first + off[k]) * mult[k];
        if (ndims == 1) {
            for (int j = 0; j < ns[last]; j++)
                tb_add(b, old, (base + sp[last][j].first) * ext, (size_t)sp[last][j].n, ext);
        } else {
            for (int r = 0; r < ns[rows]; r++) {
                const struct span *row = &sp[rows][r];
                MPI_Aint first = base + (MPI_Aint)row->first * mult[rows];
                if (ns[last] == 1) { /* each row one span: the rows are blocks */
                    tb_add_blocks(b, old, (first + sp[last][0].first) * ext, (size_t)row->n,
                                  mult[rows] * ext, (size_t)sp[last][0].n);
                    continue;
                }
                for (int i = 0; i < row->n; i++)
                    for (int j = 0; j < ns[last]; j++)
                        tb_add(b, old, (first + i * mult[rows] + sp[last][j].first) * ext,
                               (size_t)sp[last][j].n, ext);
            }
        }
        int k = rows - 1;
        for (; k >= 0; k--) { /* next outer index tuple */
            if (++off[k] < sp[k][si[k]].n)
                break;
            off[k] = 0;
            if (++si[k] < ns[k])
                break;
            si[k] = 0;
        }
        if (k < 0)
            break;
    }
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                              const int starts[], int order, MPI_Datatype old,
                              MPI_Datatype *newtype)
{
    FARO_LOCKED;
    const char *fn = "MPI_Type_create_subarray";
    if (ndims <= 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: ndims %d must be positive", fn, ndims);
    CHECK_ARRAY(fn, ndims, sizes && subsizes && starts, "sizes, subsizes or starts");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "%s: order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", fn, order);
    CHECK_OLD(fn, old);
    CHECK_OUT(fn, newtype);
    for (int k = 0; k < ndims; k++)
        if (sizes[k] <= 0 || subsizes[k] <= 0 || subsizes[k] > sizes[k] || starts[k] < 0 ||
            starts[k] > sizes[k] - subsizes[k])
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                            "%s: dimension %d: size %d, subsize %d, start %d (need size >= 1, "
                            "1 <= subsize <= size, 0 <= start <= size - subsize)",
                            fn, k, sizes[k], subsizes[k], starts[k]);
    /* in C order as given; Fortran order is C order with the dimensions reversed */
    struct span spans[ndims], *sp[ndims];
    int ns[ndims];
    MPI_Aint mult[ndims], total = 1;
    for (int j = ndims - 1; j >= 0; j--) {
        int k = order == MPI_ORDER_C ? j : ndims - 1 - j;
        spans[j] = (struct span){starts[k], subsizes[k]};
        sp[j] = &spans[j];
        ns[j] = 1;
        mult[j] = total;
        total *= sizes[k];
    }
    struct faro_tbuild b;
    tb_init(&b);
    add_selection(&b, old, ndims, sp, ns, mult);
    struct faro_type_contents *c = faro_tc_new(MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1);
    if (c) {
        c->ints[0] = ndims;
        memcpy(c->ints + 1, sizes, (size_t)ndims * sizeof(int));
        memcpy(c->ints + 1 + ndims, subsizes, (size_t)ndims * sizeof(int));
        memcpy(c->ints + 1 + 2 * ndims, starts, (size_t)ndims * sizeof(int));
        c->ints[1 + 3 * ndims] = order;
        c->types[0] = old;
    }
    return done(fn, &b, tb_finish(&b, 0, 1, 0, total * old->extent, c), newtype);
}

/* The spans of a dimension of gsize that process coordinate r of p owns, in
 * out (NULL: only count them) and their number in *n. */
static int darray_dim(const char *fn, int k, int gsize, int distrib, int darg, int p, int r,
                      struct span *out, int *n)
{
    int m = 0;
    switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
        if (p != 1)
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                            "%s: dimension %d is MPI_DISTRIBUTE_NONE but psizes[%d] is %d "
                            "(must be 1)", fn, k, k, p);
        if (out)
            out[0] = (struct span){0, gsize};
        m = 1;
        break;
    case MPI_DISTRIBUTE_BLOCK: {
        long long bsz = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + p - 1) / p : darg;
        if (bsz <= 0 || bsz * p < gsize)
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                            "%s: dimension %d: block size %lld times %d processes does not "
                            "cover %d elements", fn, k, bsz, p, gsize);
        long long first = r * bsz, end = first + bsz < gsize ? first + bsz : gsize;
        if (first < end) {
            if (out)
                out[0] = (struct span){(int)first, (int)(end - first)};
            m = 1;
        }
        break;
    }
    case MPI_DISTRIBUTE_CYCLIC: {
        long long bsz = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        if (bsz <= 0)
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                            "%s: dimension %d: cyclic block size %d must be positive", fn, k,
                            darg);
        for (long long start = r * bsz; start < gsize; start += bsz * p, m++)
            if (out)
                out[m] = (struct span){(int)start,
                                       (int)(start + bsz < gsize ? bsz : gsize - start)};
        break;
    }
    default:
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "%s: distribs[%d] %d is not MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE",
                        fn, k, distrib);
    }
    *n = m;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                            const int distribs[], const int dargs[], const int psizes[],
                            int order, MPI_Datatype old, MPI_Datatype *newtype)
{
    FARO_LOCKED;
    const char *fn = "MPI_Type_create_darray";
    if (size <= 0 || rank < 0 || rank >= size)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: rank %d of size %d is invalid", fn,
                        rank, size);
    if (ndims <= 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: ndims %d must be positive", fn, ndims);
    CHECK_ARRAY(fn, ndims, gsizes && distribs && dargs && psizes,
                "gsizes, distribs, dargs or psizes");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "%s: order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", fn, order);
    CHECK_OLD(fn, old);
    CHECK_OUT(fn, newtype);
    long long procs = 1;
    for (int k = 0; k < ndims; k++) {
        if (gsizes[k] <= 0 || psizes[k] <= 0)
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                            "%s: gsizes[%d] = %d and psizes[%d] = %d must be positive", fn, k,
                            gsizes[k], k, psizes[k]);
        procs *= psizes[k];
    }
    if (procs != size)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "%s: the process grid has %lld processes, size is %d", fn, procs, size);
    /* the process grid is row-major whatever the array order */
    int coord[ndims];
    for (int k = ndims - 1, r = rank; k >= 0; k--) {
        coord[k] = r % psizes[k];
        r /= psizes[k];
    }
    /* in C order (dimension j); spans counted first, then filled in */
    int ns[ndims];
    long long nspan = 0;
    for (int j = 0; j < ndims; j++) {
        int k = order == MPI_ORDER_C ? j : ndims - 1 - j;
        int rc = darray_dim(fn, k, gsizes[k], distribs[k], dargs[k], psizes[k], coord[k], NULL,
                            &ns[j]);
        if (rc)
            return rc;
        nspan += ns[j];
    }
    struct span *all = malloc(sizeof *all * (size_t)(nspan ? nspan : 1)), *sp[ndims];
    MPI_Aint mult[ndims], total = 1;
    if (!all)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    struct span *p = all;
    for (int j = 0; j < ndims; j++) {
        int k = order == MPI_ORDER_C ? j : ndims - 1 - j;
        sp[j] = p;
        darray_dim(fn, k, gsizes[k], distribs[k], dargs[k], psizes[k], coord[k], p, &ns[j]);
        p += ns[j];
    }
    for (int j = ndims - 1; j >= 0; j--) {
        int k = order == MPI_ORDER_C ? j : ndims - 1 - j;
        mult[j] = total;
        total *= gsizes[k];
    }
    struct faro_tbuild b;
    tb_init(&b);
    add_selection(&b, old, ndims, sp, ns, mult);
    free(all);
    struct faro_type_contents *c = faro_tc_new(MPI_COMBINER_DARRAY, 4 * ndims + 4, 0, 1);
    if (c) {
        int *in = c->ints;
        in[0] = size, in[1] = rank, in[2] = ndims;
        memcpy(in + 3, gsizes, (size_t)ndims * sizeof(int));
        memcpy(in + 3 + ndims, distribs, (size_t)ndims * sizeof(int));
        memcpy(in + 3 + 2 * ndims, dargs, (size_t)ndims * sizeof(int));
        memcpy(in + 3 + 3 * ndims, psizes, (size_t)ndims * sizeof(int));
        in[3 + 4 * ndims] = order;
        c->types[0] = old;
    }
    return done(fn, &b, tb_finish(&b, 0, 1, 0, total * old->extent, c), newtype);
}
