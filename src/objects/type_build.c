/*
 * The builder of derived datatypes: what a constructor says about its
 * typemap ("n copies of this type at these displacements") becomes the runs
 * of the new type (n equal pieces at a fixed stride), the form pack.c walks.
 *
 * Pieces are appended in typemap order (no sorting: packed order is typemap
 * order). A piece that starts where the previous one ends is merged into it;
 * a piece as long as the pieces of the last run, at that run's stride, joins
 * the run. Copies of a type that is one run (a predefined type, a vector)
 * are appended as a whole run at once, so a dense run of any length is one
 * piece and a strided one is one run: building contiguous(INT_MAX, MPI_CHAR)
 * or vector(INT_MAX / 2, 1, 2, MPI_CHAR) costs the same as building it with
 * a count of 2. Only copies of a type of several runs that do not continue
 * each other are appended copy by copy (their runs are the type's shape).
 *
 * The bounds, size, element count and basic type are kept as copies are
 * added (MPI 3.1 §4.1.7; see type_create.c).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "objects/type_build.h"

void tb_init(struct faro_tbuild *b)
{
    memset(b, 0, sizeof *b);
    b->align = 1;
}

void tb_discard(struct faro_tbuild *b)
{
    free(b->run);
    b->run = NULL;
}

/* ---- runs ---- */

static struct faro_run *new_run(struct faro_tbuild *b, MPI_Aint off, MPI_Aint stride, size_t len,
                                size_t n)
{
    if (b->nrun == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 8;
        struct faro_run *r = realloc(b->run, cap * sizeof *r);
        if (!r) {
            b->oom = 1;
            return NULL;
        }
        b->run = r;
        b->cap = cap;
    }
    struct faro_run *r = &b->run[b->nrun++];
    *r = (struct faro_run){.off = off, .stride = n > 1 ? stride : (MPI_Aint)len, .len = len,
                           .n = n};
    return r;
}

static inline MPI_Aint last_piece(const struct faro_run *r)
{
    return r->off + (MPI_Aint)(r->n - 1) * r->stride;
}

/* One piece of len bytes at off. */
static void put_piece(struct faro_tbuild *b, MPI_Aint off, size_t len)
{
    if (b->nrun) {
        struct faro_run *l = &b->run[b->nrun - 1];
        MPI_Aint lp = last_piece(l);
        if (lp + (MPI_Aint)l->len == off) { /* continues the last piece: merge */
            if (l->n == 1) {
                l->len += len;
                return;
            }
            l->n--; /* the last piece leaves its run, longer */
            new_run(b, lp, 0, l->len + len, 1);
            return;
        }
        if (l->len == len && (l->n == 1 || off - lp == l->stride)) { /* joins the run */
            if (l->n == 1)
                l->stride = off - l->off;
            l->n++;
            return;
        }
    }
    new_run(b, off, 0, len, 1);
}

/* n pieces of len bytes at off, off + stride, ... (n >= 1, len > 0). */
static void put_run(struct faro_tbuild *b, MPI_Aint off, MPI_Aint stride, size_t len, size_t n)
{
    if (stride == (MPI_Aint)len) { /* dense: one piece */
        put_piece(b, off, n * len);
        return;
    }
    put_piece(b, off, len);
    if (n == 1 || b->oom)
        return;
    struct faro_run *l = &b->run[b->nrun - 1];
    if (l->len == len && last_piece(l) == off) { /* the first piece ended the last run */
        if (l->n == 1) {
            l->stride = stride;
            l->n = n;
            return;
        }
        if (l->stride == stride) {
            l->n += n - 1;
            return;
        }
    }
    new_run(b, off + stride, stride, len, n - 1);
}

/* ---- copies of a type ---- */

/* Bounds, size and basic type of n copies of t whose displacements span
 * [dmin, dmax]; the data itself is placed by place(). */
static void account(struct faro_tbuild *b, MPI_Datatype t, MPI_Aint dmin, MPI_Aint dmax,
                    size_t n)
{
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
    if (t->size && n > (LLONG_MAX - b->size) / t->size) { /* MPI_Count could not say it */
        b->toobig = 1;
        return;
    }
    b->size += n * t->size;
    b->nbasic += (long long)n * t->nbasic;
}

/* The pieces of n copies of t at disp, disp + stride, ...: one run when t is
 * one piece, or one run whose copies continue each other. */
static void place(struct faro_tbuild *b, MPI_Datatype t, MPI_Aint disp, size_t n,
                  MPI_Aint stride)
{
    if (t->size == 0)
        return;
    if (t->nrun == 1) {
        const struct faro_run *r = &t->run[0];
        if (r->n == 1) {
            put_run(b, disp + r->off, stride, r->len, n);
            return;
        }
        if ((MPI_Aint)r->n * r->stride == stride) {
            put_run(b, disp + r->off, r->stride, r->len, r->n * n);
            return;
        }
    }
    for (size_t i = 0; i < n && !b->oom; i++) {
        MPI_Aint d = disp + (MPI_Aint)i * stride;
        for (int k = 0; k < t->nrun && !b->oom; k++) {
            const struct faro_run *r = &t->run[k];
            put_run(b, d + r->off, r->stride, r->len, r->n);
        }
    }
}

static inline MPI_Aint span_lo(size_t n, MPI_Aint stride)
{
    MPI_Aint s = (MPI_Aint)(n - 1) * stride;
    return s < 0 ? s : 0;
}

static inline MPI_Aint span_hi(size_t n, MPI_Aint stride)
{
    MPI_Aint s = (MPI_Aint)(n - 1) * stride;
    return s > 0 ? s : 0;
}

void tb_add(struct faro_tbuild *b, MPI_Datatype t, MPI_Aint disp, size_t n, MPI_Aint stride)
{
    if (n == 0 || b->oom || b->toobig)
        return;
    account(b, t, disp + span_lo(n, stride), disp + span_hi(n, stride), n);
    if (!b->toobig)
        place(b, t, disp, n, stride);
}

void tb_add_blocks(struct faro_tbuild *b, MPI_Datatype t, MPI_Aint disp, size_t nblocks,
                   MPI_Aint bstride, size_t blocklen)
{
    if (nblocks == 0 || blocklen == 0 || b->oom || b->toobig)
        return;
    MPI_Aint e = t->extent;
    account(b, t, disp + span_lo(nblocks, bstride) + span_lo(blocklen, e),
            disp + span_hi(nblocks, bstride) + span_hi(blocklen, e), nblocks * blocklen);
    if (t->size == 0 || b->toobig)
        return;
    /* A block that is one run (off, s, len, m) makes the blocks one run when
     * it is one piece or when the blocks continue each other. */
    if (t->nrun == 1) {
        const struct faro_run *r = &t->run[0];
        MPI_Aint off = r->off, s;
        size_t len = r->len, m;
        int one_run = 1;
        if (r->n == 1 && e == (MPI_Aint)len) { /* the block is one piece */
            len *= blocklen;
            s = (MPI_Aint)len, m = 1;
        } else if (r->n == 1) {
            s = e, m = blocklen;
        } else if (blocklen == 1 || (MPI_Aint)r->n * r->stride == e) {
            s = r->stride, m = r->n * blocklen;
        } else {
            one_run = 0, s = 0, m = 0;
        }
        if (one_run && m == 1) {
            put_run(b, disp + off, bstride, len, nblocks);
            return;
        }
        if (one_run && (MPI_Aint)m * s == bstride) {
            put_run(b, disp + off, s, len, m * nblocks);
            return;
        }
        if (one_run) {
            for (size_t i = 0; i < nblocks && !b->oom; i++)
                put_run(b, disp + (MPI_Aint)i * bstride + off, s, len, m);
            return;
        }
    }
    for (size_t i = 0; i < nblocks && !b->oom; i++)
        place(b, t, disp + (MPI_Aint)i * bstride, blocklen, e);
}

/* ---- the type ---- */

void faro_type_layout(MPI_Datatype t)
{
    size_t pos = 0, pieces = 0;
    for (int k = 0; k < t->nrun; k++) {
        t->run[k].pos = pos;
        pos += t->run[k].n * t->run[k].len;
        pieces += t->run[k].n;
    }
    t->nseg = pieces;
    t->dense = t->size == 0 || (pieces == 1 && t->extent >= 0 && (size_t)t->extent == t->size);
    t->contig = t->dense && (t->nrun == 0 || t->run[0].off == 0);
}

MPI_Datatype tb_finish(struct faro_tbuild *b, int pad_struct, int resized, MPI_Aint rlb,
                       MPI_Aint rextent, struct faro_type_contents *contents)
{
    MPI_Datatype t = NULL;
    if (b->oom || b->toobig || b->nrun > INT_MAX || !contents || !(t = faro_type_alloc()))
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
    t->nrun = (int)b->nrun;
    /* an empty type still has run[0] = {0}: users of a dense type read run[0].off */
    t->run = b->nrun ? realloc(b->run, b->nrun * sizeof *b->run) : calloc(1, sizeof *b->run);
    if (!t->run)
        t->run = b->run;
    else if (!b->nrun)
        free(b->run);
    b->run = NULL;
    if (!t->run) {
        t->refs = 1;
        t->freed = 1;
        faro_type_release(t);
        t = NULL;
        goto fail;
    }
    faro_type_layout(t);
    for (int i = 0; i < contents->nt; i++)
        faro_type_retain(contents->types[i]);
    t->contents = contents;
    return t;
fail:
    tb_discard(b);
    free(contents);
    return NULL;
}
