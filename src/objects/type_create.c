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

#include "objects/type_build.h"
#include "runtime/thread.h"

/* ---- the builder ---- */

void tb_init(struct faro_tbuild *b)
{
    memset(b, 0, sizeof *b);
    b->align = 1;
}

void tb_discard(struct faro_tbuild *b)
{
    free(b->seg);
    b->seg = NULL;
}

static inline void put_seg(struct faro_tbuild *b, MPI_Aint off, size_t len)
{
    if (b->nseg) {
        struct faro_seg *last = &b->seg[b->nseg - 1];
        if (last->off + (MPI_Aint)last->len == off) {
            last->len += len;
            return;
        }
    }
    if (b->nseg == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 8;
        struct faro_seg *s = realloc(b->seg, cap * sizeof *s);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->seg = s;
        b->cap = cap;
    }
    b->seg[b->nseg++] = (struct faro_seg){off, len};
}

void tb_add(struct faro_tbuild *b, MPI_Datatype t, MPI_Aint disp, size_t n, MPI_Aint stride)
{
    if (n == 0 || b->oom)
        return;
    MPI_Aint span = (MPI_Aint)(n - 1) * stride;
    MPI_Aint dmin = disp + (span < 0 ? span : 0), dmax = disp + (span > 0 ? span : 0);
    MPI_Aint ub = t->lb + t->extent;
    if (t->explicit_lb) {
        b->xlb = b->xl ? (b->xlb < dmin + t->lb ? b->xlb : dmin + t->lb) : dmin + t->lb;
        b->xl = 1;
    }
    if (t->explicit_ub) {
        b->xub = b->xu ? (b->xub > dmax + ub ? b->xub : dmax + ub) : dmax + ub;
        b->xu = 1;
    }
    if (t->size > 0 || t->explicit_lb || t->explicit_ub) {
        if (!t->explicit_lb || !t->explicit_ub) { /* data bounds where no marker says */
            MPI_Aint lo = dmin + t->lb, hi = dmax + ub;
            b->elb = b->have_e && b->elb < lo ? b->elb : lo;
            b->eub = b->have_e && b->eub > hi ? b->eub : hi;
            b->have_e = 1;
        }
    }
    if (t->size > 0) {
        MPI_Aint lo = dmin + t->true_lb, hi = dmax + t->true_lb + t->true_extent;
        b->tlb = b->have_t && b->tlb < lo ? b->tlb : lo;
        b->tub = b->have_t && b->tub > hi ? b->tub : hi;
        b->have_t = 1;
        if (!b->basic && !b->mixed)
            b->basic = t->basic;
        else if (b->basic != t->basic)
            b->mixed = 1;
        if (!t->basic)
            b->mixed = 1;
    }
    if (t->align > b->align)
        b->align = t->align;
    b->size += n * t->size;
    b->nbasic += (long long)n * t->nbasic;
    if (t->dense && t->size > 0) { /* each copy is one piece */
        for (size_t i = 0; i < n && !b->oom; i++)
            put_seg(b, disp + (MPI_Aint)i * stride + t->seg[0].off, t->size);
        return;
    }
    for (size_t i = 0; i < n && !b->oom; i++) {
        MPI_Aint d = disp + (MPI_Aint)i * stride;
        for (int s = 0; s < t->nseg; s++)
            put_seg(b, d + t->seg[s].off, t->seg[s].len);
    }
}

/* Group the segments into runs (equal lengths at a fixed stride). */
int faro_type_layout(MPI_Datatype t)
{
    size_t nrun = 0, pos = 0;
    for (int pass = 0; pass < 2; pass++) {
        nrun = 0;
        pos = 0;
        for (int i = 0; i < t->nseg;) {
            const struct faro_seg *s = &t->seg[i];
            int j = i + 1;
            MPI_Aint stride = (MPI_Aint)s->len;
            if (j < t->nseg && t->seg[j].len == s->len) {
                stride = t->seg[j].off - s->off;
                while (j < t->nseg && t->seg[j].len == s->len &&
                       t->seg[j].off - t->seg[j - 1].off == stride)
                    j++;
            }
            if (pass == 1)
                t->run[nrun] = (struct faro_run){.off = s->off, .stride = stride, .len = s->len,
                                                 .n = (size_t)(j - i), .pos = pos};
            pos += (size_t)(j - i) * s->len;
            nrun++;
            i = j;
        }
        if (pass == 0) {
            t->run = malloc((nrun ? nrun : 1) * sizeof *t->run);
            if (!t->run)
                return -1;
        }
    }
    t->nrun = (int)nrun;
    t->dense = t->size == 0 || (t->nseg == 1 && t->extent >= 0 && (size_t)t->extent == t->size);
    t->contig = t->dense && (t->nseg == 0 || t->seg[0].off == 0);
    return 0;
}

MPI_Datatype tb_finish(struct faro_tbuild *b, int pad_struct, int resized, MPI_Aint rlb,
                       MPI_Aint rextent, struct faro_type_contents *contents)
{
    MPI_Datatype t = NULL;
    if (b->oom || b->nseg > INT_MAX || !contents || !(t = faro_type_alloc()))
        goto fail;
    if (resized) {
        t->lb = rlb;
        t->extent = rextent;
        t->explicit_lb = t->explicit_ub = 1;
    } else {
        MPI_Aint lb = b->xl ? b->xlb : b->have_e ? b->elb : 0;
        MPI_Aint ub = b->xu ? b->xub : b->have_e ? b->eub : 0;
        if (b->xl && !b->xu && b->have_e && b->eub < lb)
            ub = lb;
        MPI_Aint ext = ub - lb;
        if (pad_struct && !b->xu && b->align > 1 && ext % (MPI_Aint)b->align)
            ext += (MPI_Aint)b->align - ext % (MPI_Aint)b->align;
        t->lb = lb;
        t->extent = ext;
        t->explicit_lb = b->xl;
        t->explicit_ub = b->xu;
    }
    t->size = b->size;
    t->nbasic = b->nbasic;
    t->true_lb = b->have_t ? b->tlb : 0;
    t->true_extent = b->have_t ? b->tub - b->tlb : 0;
    t->basic = b->mixed ? NULL : b->basic;
    t->align = b->align;
    t->nseg = (int)b->nseg;
    /* an empty type still has seg[0] = {0, 0}: users of a dense type read seg[0].off */
    t->seg = b->nseg ? realloc(b->seg, b->nseg * sizeof *b->seg) : calloc(1, sizeof *b->seg);
    if (!t->seg)
        t->seg = b->seg;
    else if (!b->nseg)
        free(b->seg);
    b->seg = NULL;
    if (!t->seg || faro_type_layout(t) != 0) {
        free(t->seg);
        t->seg = NULL;
        t->refs = 1;
        t->freed = 1;
        faro_type_release(t);
        t = NULL;
        goto fail;
    }
    for (int i = 0; i < contents->nt; i++)
        faro_type_retain(contents->types[i]);
    t->contents = contents;
    return t;
fail:
    tb_discard(b);
    free(contents);
    return NULL;
}

/* ---- argument checks ---- */

static int bad_old(const char *fn, MPI_Datatype t, const char *what)
{
    if (t == MPI_DATATYPE_NULL)
        return faro_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: %s is MPI_DATATYPE_NULL", fn, what);
    return faro_err(MPI_COMM_NULL, MPI_ERR_TYPE,
                    "%s: %s is not a datatype (freed with MPI_Type_free?)", fn, what);
}

#define CHECK_OLD(fn, t)                                                                   \
    do {                                                                                   \
        if (faro_type_valid(t))                                                            \
            return bad_old(fn, t, "oldtype");                                              \
    } while (0)
#define CHECK_COUNT(fn, n, what)                                                           \
    do {                                                                                   \
        if ((n) < 0)                                                                       \
            return faro_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: %s %d is negative", fn,     \
                            what, (int)(n));                                               \
    } while (0)
#define CHECK_BLOCK(fn, n, i)                                                              \
    do {                                                                                   \
        if ((n) < 0)                                                                       \
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,                                    \
                            "%s: blocklength %d (block %d) is negative", fn, (int)(n),     \
                            (int)(i));                                                     \
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

static int done(const char *fn, MPI_Datatype t, MPI_Datatype *newtype)
{
    if (!t)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory flattening the type",
                        fn);
    *newtype = t;
    return MPI_SUCCESS;
}

/* ---- constructors ---- */

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype)
{
    FARO_LOCKED;
    const char *fn = "MPI_Type_contiguous";
    CHECK_COUNT(fn, count, "count");
    CHECK_OLD(fn, old);
    CHECK_OUT(fn, newtype);
    struct faro_tbuild b;
    tb_init(&b);
    tb_add(&b, old, 0, (size_t)count, old->extent);
    struct faro_type_contents *c = faro_tc_new(MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    if (c) {
        c->ints[0] = count;
        c->types[0] = old;
    }
    return done(fn, tb_finish(&b, 0, 0, 0, 0, c), newtype);
}

static int hvector(const char *fn, int combiner, int count, int blocklength, MPI_Aint stride,
                   int stride_elems, MPI_Datatype old, MPI_Datatype *newtype)
{
    CHECK_COUNT(fn, count, "count");
    CHECK_BLOCK(fn, blocklength, 0);
    CHECK_OLD(fn, old);
    CHECK_OUT(fn, newtype);
    struct faro_tbuild b;
    tb_init(&b);
    for (int i = 0; i < count; i++)
        tb_add(&b, old, (MPI_Aint)i * stride, (size_t)blocklength, old->extent);
    struct faro_type_contents *c =
        faro_tc_new(combiner, combiner == MPI_COMBINER_VECTOR ? 3 : 2,
                    combiner == MPI_COMBINER_VECTOR ? 0 : 1, 1);
    if (c) {
        c->ints[0] = count;
        c->ints[1] = blocklength;
        if (combiner == MPI_COMBINER_VECTOR)
            c->ints[2] = stride_elems;
        else
            c->aints[0] = stride;
        c->types[0] = old;
    }
    return done(fn, tb_finish(&b, 0, 0, 0, 0, c), newtype);
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old,
                     MPI_Datatype *newtype)
{
    FARO_LOCKED;
    if (faro_type_valid(old))
        return bad_old("MPI_Type_vector", old, "oldtype");
    return hvector("MPI_Type_vector", MPI_COMBINER_VECTOR, count, blocklength,
                   (MPI_Aint)stride * old->extent, stride, old, newtype);
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old,
                             MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return hvector("MPI_Type_create_hvector", MPI_COMBINER_HVECTOR, count, blocklength, stride,
                   0, old, newtype);
}

/* The four indexed constructors: blocklengths per block or one for all,
 * displacements in elements of old (int) or in bytes (MPI_Aint). */
static int indexed(const char *fn, int combiner, int count, const int *blocklengths,
                   int blocklength, const int *idisp, const MPI_Aint *adisp, MPI_Datatype old,
                   MPI_Datatype *newtype)
{
    int per_block = blocklengths != NULL || combiner == MPI_COMBINER_INDEXED ||
                    combiner == MPI_COMBINER_HINDEXED;
    CHECK_COUNT(fn, count, "count");
    if (per_block)
        CHECK_ARRAY(fn, count, blocklengths, "array_of_blocklengths");
    else
        CHECK_BLOCK(fn, blocklength, 0);
    CHECK_ARRAY(fn, count, idisp || adisp, "array_of_displacements");
    CHECK_OLD(fn, old);
    CHECK_OUT(fn, newtype);
    for (int i = 0; per_block && i < count; i++)
        CHECK_BLOCK(fn, blocklengths[i], i);
    int ni, na;
    switch (combiner) {
    case MPI_COMBINER_INDEXED: ni = 2 * count + 1, na = 0; break;
    case MPI_COMBINER_HINDEXED: ni = count + 1, na = count; break;
    case MPI_COMBINER_INDEXED_BLOCK: ni = count + 2, na = 0; break;
    default: ni = 2, na = count; break; /* HINDEXED_BLOCK */
    }
    struct faro_tbuild b;
    tb_init(&b);
    for (int i = 0; i < count; i++) {
        MPI_Aint d = adisp ? adisp[i] : (MPI_Aint)idisp[i] * old->extent;
        tb_add(&b, old, d, (size_t)(per_block ? blocklengths[i] : blocklength), old->extent);
    }
    struct faro_type_contents *c = faro_tc_new(combiner, ni, na, 1);
    if (c && count == 0) {
        c->ints[0] = count;
        if (!per_block)
            c->ints[1] = blocklength;
        c->types[0] = old;
    } else if (c) {
        int *in = c->ints;
        *in++ = count;
        if (per_block)
            memcpy(in, blocklengths, (size_t)count * sizeof *in), in += count;
        else
            *in++ = blocklength;
        if (idisp)
            memcpy(in, idisp, (size_t)count * sizeof *in);
        else
            memcpy(c->aints, adisp, (size_t)count * sizeof *adisp);
        c->types[0] = old;
    }
    return done(fn, tb_finish(&b, 0, 0, 0, 0, c), newtype);
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype old,
                      MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed("MPI_Type_indexed", MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0,
                   array_of_displacements, NULL, old, newtype);
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype old,
                              MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count,
                   array_of_blocklengths, 0, NULL, array_of_displacements, old, newtype);
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype old, MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count, NULL,
                   blocklength, array_of_displacements, NULL, old, newtype);
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype old,
                                    MPI_Datatype *newtype)
{
    FARO_LOCKED;
    return indexed("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, count, NULL,
                   blocklength, NULL, array_of_displacements, old, newtype);
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    FARO_LOCKED;
    const char *fn = "MPI_Type_create_struct";
    CHECK_COUNT(fn, count, "count");
    CHECK_ARRAY(fn, count, array_of_blocklengths, "array_of_blocklengths");
    CHECK_ARRAY(fn, count, array_of_displacements, "array_of_displacements");
    CHECK_ARRAY(fn, count, array_of_types, "array_of_types");
    CHECK_OUT(fn, newtype);
    for (int i = 0; i < count; i++) {
        CHECK_BLOCK(fn, array_of_blocklengths[i], i);
        if (faro_type_valid(array_of_types[i])) {
            char what[48];
            snprintf(what, sizeof what, "array_of_types[%d]", i);
            return bad_old(fn, array_of_types[i], what);
        }
    }
    struct faro_tbuild b;
    tb_init(&b);
    for (int i = 0; i < count; i++)
        tb_add(&b, array_of_types[i], array_of_displacements[i],
               (size_t)array_of_blocklengths[i], array_of_types[i]->extent);
    struct faro_type_contents *c = faro_tc_new(MPI_COMBINER_STRUCT, count + 1, count, count);
    if (c)
        c->ints[0] = count;
    if (c && count > 0) {
        memcpy(c->ints + 1, array_of_blocklengths, (size_t)count * sizeof(int));
        memcpy(c->aints, array_of_displacements, (size_t)count * sizeof(MPI_Aint));
        memcpy(c->types, array_of_types, (size_t)count * sizeof(MPI_Datatype));
    }
    return done(fn, tb_finish(&b, 1, 0, 0, 0, c), newtype);
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
    return done(fn, tb_finish(&b, 0, 1, lb, extent, c), newtype);
}

/* ---- arrays: subarray and darray ---- */

/* Add the elements of an ndims array selection: along dimension k (C order:
 * the last varies fastest) the selected indices are idx[k][0..cnt[k]); the
 * element at index tuple i lies at linear offset sum i_k * mult[k]. */
static void add_selection(struct faro_tbuild *b, MPI_Datatype old, int ndims, int **idx,
                          const int *cnt, const MPI_Aint *mult)
{
    for (int k = 0; k < ndims; k++)
        if (cnt[k] == 0)
            return;
    int last = ndims - 1;
    int pos[ndims];
    memset(pos, 0, sizeof pos);
    for (;;) {
        MPI_Aint base = 0;
        for (int k = 0; k < last; k++)
            base += (MPI_Aint)idx[k][pos[k]] * mult[k];
        /* the fastest dimension: runs of consecutive indices as one add */
        for (int j = 0; j < cnt[last];) {
            int e = j + 1;
            while (e < cnt[last] && idx[last][e] == idx[last][e - 1] + 1)
                e++;
            tb_add(b, old, (base + (MPI_Aint)idx[last][j] * mult[last]) * old->extent,
                   (size_t)(e - j), old->extent);
            j = e;
        }
        int k = last - 1;
        while (k >= 0 && ++pos[k] == cnt[k])
            pos[k--] = 0;
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
    int *idx[ndims], cnt[ndims];
    MPI_Aint mult[ndims], total = 1;
    long long nidx = 0;
    for (int k = 0; k < ndims; k++)
        nidx += subsizes[k];
    int *all = malloc(sizeof(int) * (size_t)nidx);
    if (!all)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    int *p = all;
    for (int j = 0; j < ndims; j++) {
        int k = order == MPI_ORDER_C ? j : ndims - 1 - j;
        idx[j] = p;
        cnt[j] = subsizes[k];
        for (int i = 0; i < subsizes[k]; i++)
            *p++ = starts[k] + i;
    }
    for (int j = ndims - 1; j >= 0; j--) {
        int k = order == MPI_ORDER_C ? j : ndims - 1 - j;
        mult[j] = total;
        total *= sizes[k];
    }
    struct faro_tbuild b;
    tb_init(&b);
    add_selection(&b, old, ndims, idx, cnt, mult);
    free(all);
    struct faro_type_contents *c = faro_tc_new(MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1);
    if (c) {
        c->ints[0] = ndims;
        memcpy(c->ints + 1, sizes, (size_t)ndims * sizeof(int));
        memcpy(c->ints + 1 + ndims, subsizes, (size_t)ndims * sizeof(int));
        memcpy(c->ints + 1 + 2 * ndims, starts, (size_t)ndims * sizeof(int));
        c->ints[1 + 3 * ndims] = order;
        c->types[0] = old;
    }
    return done(fn, tb_finish(&b, 0, 1, 0, total * old->extent, c), newtype);
}

/* Indices of a dimension of gsize that process coordinate r of p owns. */
static int darray_dim(const char *fn, int k, int gsize, int distrib, int darg, int p, int r,
                      int *out, int *n)
{
    int m = 0;
    switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
        if (p != 1)
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                            "%s: dimension %d is MPI_DISTRIBUTE_NONE but psizes[%d] is %d "
                            "(must be 1)", fn, k, k, p);
        for (int i = 0; i < gsize; i++)
            out[m++] = i;
        break;
    case MPI_DISTRIBUTE_BLOCK: {
        long long bsz = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + p - 1) / p : darg;
        if (bsz <= 0 || bsz * p < gsize)
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                            "%s: dimension %d: block size %lld times %d processes does not "
                            "cover %d elements", fn, k, bsz, p, gsize);
        for (long long i = r * bsz; i < (r + 1) * bsz && i < gsize; i++)
            out[m++] = (int)i;
        break;
    }
    case MPI_DISTRIBUTE_CYCLIC: {
        long long bsz = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        if (bsz <= 0)
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                            "%s: dimension %d: cyclic block size %d must be positive", fn, k,
                            darg);
        for (long long start = r * bsz; start < gsize; start += bsz * p)
            for (long long i = start; i < start + bsz && i < gsize; i++)
                out[m++] = (int)i;
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
    long long procs = 1, nidx = 0;
    for (int k = 0; k < ndims; k++) {
        if (gsizes[k] <= 0 || psizes[k] <= 0)
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                            "%s: gsizes[%d] = %d and psizes[%d] = %d must be positive", fn, k,
                            gsizes[k], k, psizes[k]);
        procs *= psizes[k];
        nidx += gsizes[k];
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
    int *all = malloc(sizeof(int) * (size_t)nidx), *idx[ndims], cnt[ndims];
    MPI_Aint mult[ndims], total = 1;
    if (!all)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    int *p = all;
    for (int j = 0; j < ndims; j++) {
        int k = order == MPI_ORDER_C ? j : ndims - 1 - j;
        idx[j] = p;
        int rc = darray_dim(fn, k, gsizes[k], distribs[k], dargs[k], psizes[k], coord[k], p,
                            &cnt[j]);
        if (rc) {
            free(all);
            return rc;
        }
        p += cnt[j];
    }
    for (int j = ndims - 1; j >= 0; j--) {
        int k = order == MPI_ORDER_C ? j : ndims - 1 - j;
        mult[j] = total;
        total *= gsizes[k];
    }
    struct faro_tbuild b;
    tb_init(&b);
    add_selection(&b, old, ndims, idx, cnt, mult);
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
    return done(fn, tb_finish(&b, 0, 1, 0, total * old->extent, c), newtype);
}
