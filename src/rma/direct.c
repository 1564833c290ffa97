/*
 * The fast path of windows whose members all share a node and whose memory
 * is one shared segment (MPI_Win_allocate_shared, and MPI_Win_allocate on a
 * one-node communicator, unless FARO_RMA_SHM_DIRECT=0): every member has
 * every other member's memory mapped, so an operation is done by the origin
 * itself, at the call, with loads and stores, and needs nothing from the
 * target (no message, no progress).
 *
 * The segment starts with one cache line per member (struct line): its
 * passive-target lock word and the lock word that makes accumulates
 * atomic. A lock word is the count of shared holders, or LOCK_EXCL.
 * Accumulate-type operations (accumulate, get-accumulate, fetch-and-op,
 * compare-and-swap) to a member take its accumulate lock for the whole
 * operation, so they are atomic with one another whatever their size, op
 * and type, as the standard asks; puts and gets are plain copies.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"
#include "base/tunables.h"

#define LOCK_EXCL 0x80000000u

struct line {
    uint32_t lock;         /* passive target: shared holders, or LOCK_EXCL */
    uint32_t acc;          /* 1 while an accumulate to this member runs */
    char pad[56];
};
_Static_assert(sizeof(struct line) == 64, "one cache line per member");

size_t faro_rma_direct_header(int size)
{
    return (size_t)size * sizeof(struct line);
}

int faro_rma_direct_wanted(void)
{
    return faro_tun_int(FARO_TUN_RMA_SHM_DIRECT) != 0;
}

static struct line *line_of(MPI_Win win, int r)
{
    return (struct line *)win->seg + r;
}

/* ---- passive-target locks ---- */

static int try_lock(uint32_t *w, int excl)
{
    uint32_t v = __atomic_load_n(w, __ATOMIC_RELAXED);
    if (excl ? v != 0 : (v & LOCK_EXCL) != 0)
        return 0;
    return __atomic_compare_exchange_n(w, &v, excl ? LOCK_EXCL : v + 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* Spin with progress: this process may be a target others wait on. */
void faro_rma_direct_lock(MPI_Win win, int rank, int excl)
{
    uint32_t *w = &line_of(win, rank)->lock;
    FARO_WAIT_UNTIL(try_lock(w, excl));
}

void faro_rma_direct_unlock(MPI_Win win, int rank, int excl)
{
    uint32_t *w = &line_of(win, rank)->lock;
    if (excl)
        __atomic_store_n(w, 0, __ATOMIC_RELEASE);
    else
        __atomic_fetch_sub(w, 1, __ATOMIC_RELEASE);
}

static void acc_lock(struct line *l)
{
    while (__atomic_exchange_n(&l->acc, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&l->acc, __ATOMIC_RELAXED))
            sched_yield();
}

static void acc_unlock(struct line *l)
{
    __atomic_store_n(&l->acc, 0, __ATOMIC_RELEASE);
}

/* ---- data ---- */

/* Copy count elements between two typed buffers of the same signature. */
static int copy_typed(const void *src, int scount, MPI_Datatype st, void *dst, int dcount,
                      MPI_Datatype dt)
{
    size_t bytes = (size_t)scount * st->size;
    if (bytes == 0)
        return 0;
    if (st->dense && dt->dense) {
        memmove(faro_type_dense_at(dst, dt), faro_type_dense_at(src, st), bytes);
        return 0;
    }
    if (st->dense) {
        faro_type_unpack(faro_type_dense_at(src, st), bytes, dst, dt);
        return 0;
    }
    char *tmp = malloc(bytes);
    if (!tmp)
        return -1;
    faro_type_pack(src, (size_t)scount, st, tmp);
    faro_type_unpack(tmp, bytes, dst, dt);
    (void)dcount;
    free(tmp);
    return 0;
}

void faro_rma_reduce_packed(MPI_Op op, MPI_Datatype e, const void *p, void *q, size_t len)
{
    size_t n = len / e->size;
    if (e->dense) {
        faro_op_reduce(op, p, q, n, e);
        return;
    }
    size_t ext = (size_t)e->extent;
    char *in = malloc(n * ext), *io = malloc(n * ext);
    if (!in || !io)
        faro_fatal(MPI_ERR_NO_MEM, "one-sided accumulate: out of memory for %zu bytes", len);
    faro_type_unpack(p, len, in, e);
    faro_type_unpack(q, len, io, e);
    faro_op_reduce(op, in, io, n, e);
    faro_type_pack(io, n, e, q);
    free(in);
    free(io);
}

/* target op= origin, both typed. */
static int accumulate(const struct rma_args *a, char *t)
{
    if (a->op == MPI_NO_OP)
        return 0;
    if (a->op == MPI_REPLACE || !a->ttype->basic)
        return copy_typed(a->oaddr, a->ocount, a->otype, t, a->tcount, a->ttype);
    MPI_Datatype e = a->ttype->basic;
    size_t bytes = (size_t)a->tcount * a->ttype->size;
    if (a->ttype->dense && a->otype->dense && e->dense) {
        faro_op_reduce(a->op, faro_type_dense_at(a->oaddr, a->otype),
                       faro_type_dense_at(t, a->ttype), bytes / e->size, e);
        return 0;
    }
    char *p = malloc(2 * bytes);
    if (!p)
        return -1;
    char *q = p + bytes;
    faro_type_pack(a->oaddr, (size_t)a->ocount, a->otype, p);
    faro_type_pack(t, (size_t)a->tcount, a->ttype, q);
    faro_rma_reduce_packed(a->op, e, p, q, bytes);
    faro_type_unpack(q, bytes, t, a->ttype);
    free(p);
    return 0;
}

int faro_rma_direct_op(MPI_Win win, const struct rma_args *a)
{
    const struct faro_win_rank *r = &win->ranks[a->target];
    char *t = (char *)win->seg + r->base + (ptrdiff_t)a->disp * r->disp_unit;
    struct line *l = line_of(win, a->target);
    int rc = 0;
    switch (a->kind) {
    case RMA_PUT:
        rc = copy_typed(a->oaddr, a->ocount, a->otype, t, a->tcount, a->ttype);
        break;
    case RMA_GET:
        rc = copy_typed(t, a->tcount, a->ttype, a->raddr, a->rcount, a->rtype);
        break;
    case RMA_ACC:
        acc_lock(l);
        rc = accumulate(a, t);
        acc_unlock(l);
        break;
    case RMA_GACC:
        acc_lock(l);
        rc = copy_typed(t, a->tcount, a->ttype, a->raddr, a->rcount, a->rtype);
        if (!rc)
            rc = accumulate(a, t);
        acc_unlock(l);
        break;
    case RMA_CAS: {
        size_t n = a->ttype->size;
        acc_lock(l);
        memcpy(a->raddr, t, n);
        if (memcmp(t, a->caddr, n) == 0)
            memcpy(t, a->oaddr, n);
        acc_unlock(l);
        break;
    }
    default:
        break;
    }
    if (rc)
        return faro_win_err(win, MPI_ERR_NO_MEM, "%s: out of memory", a->fn);
    return MPI_SUCCESS;
}
