/*
 * The origin side of the one-sided operations: MPI_Put, MPI_Get,
 * MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 * MPI_Compare_and_swap and the request versions MPI_Rput, MPI_Rget,
 * MPI_Raccumulate, MPI_Rget_accumulate.
 *
 * Each call checks its arguments (the epoch, the ranks, the types, the op,
 * the target range against the size the target published), flattens the
 * target type into pieces (offset, length) from the target address, and
 * sends one request (rma.h). Data goes from the origin buffer as it is when
 * the request's body travels alone; otherwise packed into the request. A
 * reply (get, fetch) is received straight into the origin or result buffer
 * with its own type, by a receive posted before the request leaves.
 *
 * Completion: each operation is a record of the internal requests it has in
 * flight; when the last completes, the operation is locally complete (the
 * window's per-target count drops, a request-based operation's request
 * completes). Remote completion is the target's acknowledgement (sync.c).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "p2p/pt2pt.h"
#include "rma/rma.h"

struct rma_op {
    MPI_Win win;
    int target;
    int left;              /* internal requests not complete */
    void *buf;             /* the packed request, freed at the end */
    struct faro_request *ureq; /* a request-based operation's request */
};

int faro_rma_origin_init(MPI_Win win)
{
    int n = win->comm->size;
    struct faro_rma_origin *o = calloc(1, sizeof *o);
    if (!o)
        return -1;
    win->o = o;
    o->naccess = -1;
    o->pend = calloc((size_t)n, sizeof *o->pend);
    o->touched = calloc((size_t)n, 1);
    o->lock = calloc((size_t)n, 1);
    o->in_access = calloc((size_t)n, 1);
    return o->pend && o->touched && o->lock && o->in_access ? 0 : -1;
}

void faro_rma_origin_free(MPI_Win win)
{
    struct faro_rma_origin *o = win->o;
    if (!o)
        return;
    free(o->pend);
    free(o->touched);
    free(o->lock);
    free(o->in_access);
    free(o->access);
    free(o);
    win->o = NULL;
}

/* A post of count elements of type (origin buffers keep their datatypes). */
static int post_typed(MPI_Win win, int kind, void *buf, int count, MPI_Datatype type, int rank,
                      int tag, void (*cb)(struct faro_request *), void *ctx,
                      struct faro_request **out)
{
    struct faro_request *r = faro_req_alloc(kind, win->comm);
    if (!r)
        return MPI_ERR_NO_MEM;
    r->mode = FARO_MODE_STANDARD;
    r->ubuf = buf;
    r->count = count;
    r->type = type;
    r->rank = rank;
    r->tag = tag;
    r->on_complete = cb;
    r->ctx = ctx;
    if (out)
        *out = r;
    int rc = faro_req_start(r); /* may complete r, and run cb, before it returns */
    if (rc && out)
        *out = NULL;
    return rc;
}

int faro_rma_post(MPI_Win win, int kind, void *buf, size_t bytes, int rank, int tag,
                  void (*cb)(struct faro_request *), void *ctx, struct faro_request **out)
{
    if (bytes > (size_t)INT32_MAX)
        return MPI_ERR_COUNT;
    return post_typed(win, kind, buf, (int)bytes, MPI_BYTE, rank, tag, cb, ctx, out);
}

static void free_done(struct faro_request *r)
{
    free(r->ctx);
    faro_req_release(r);
}

int faro_rma_send_free(MPI_Win win, void *buf, size_t bytes, int rank, int tag)
{
    return faro_rma_post(win, FARO_REQ_SEND, buf, bytes, rank, tag, free_done, buf, NULL);
}

/* An internal request of an operation completed. */
static void op_step_done(struct faro_request *r)
{
    struct rma_op *op = r->ctx;
    faro_req_release(r);
    if (--op->left > 0)
        return;
    struct faro_rma_origin *o = op->win->o;
    o->pend[op->target]--;
    o->pending--;
    free(op->buf);
    if (op->ureq)
        faro_req_complete(op->ureq);
    free(op);
}

/* ---- argument checks ---- */

static int check_type(MPI_Win win, const char *fn, const char *what, int count, MPI_Datatype t)
{
    if (count < 0)
        return faro_win_err(win, MPI_ERR_COUNT, "%s: %s count %d is negative", fn, what, count);
    if (faro_type_check(t))
        return faro_win_err(win, MPI_ERR_TYPE, "%s: %s datatype is %s", fn, what,
                            t == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                                                   : "not a committed datatype");
    return MPI_SUCCESS;
}

int faro_rma_check_access(const char *fn, MPI_Win win, int target)
{
    const struct faro_rma_origin *o = win->o;
    if (o->lock[target] || o->lock_all || o->fence || o->in_access[target])
        return MPI_SUCCESS;
    return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: no access epoch to rank %d is open on the "
                        "window (call MPI_Win_fence, MPI_Win_start, MPI_Win_lock or "
                        "MPI_Win_lock_all first)", fn, target);
}

/* The extent of count elements of t as the target sees it: [lo, hi). */
static void span(int count, MPI_Datatype t, MPI_Aint *lo, MPI_Aint *hi)
{
    if (count == 0 || t->size == 0) {
        *lo = *hi = 0;
        return;
    }
    *lo = t->true_lb + (t->extent < 0 ? (MPI_Aint)(count - 1) * t->extent : 0);
    *hi = t->true_lb + t->true_extent + (t->extent > 0 ? (MPI_Aint)(count - 1) * t->extent : 0);
}

/* ---- the operation ---- */


static int check_op(MPI_Win win, const struct rma_args *a)
{
    const char *fn = a->fn;
    int rc = MPI_SUCCESS;
    int n = win->comm->size;
    if (a->target != MPI_PROC_NULL && (a->target < 0 || a->target >= n))
        return faro_win_err(win, MPI_ERR_RANK, "%s: target rank %d is invalid (window of %d "
                            "processes: 0..%d, MPI_PROC_NULL)", fn, a->target, n, n - 1);
    if (a->kind != RMA_GET && !(a->kind == RMA_GACC && a->op == MPI_NO_OP) &&
        (rc = check_type(win, fn, "origin", a->ocount, a->otype)))
        return rc;
    if ((a->kind == RMA_GET || a->kind == RMA_GACC || a->kind == RMA_CAS) &&
        (rc = check_type(win, fn, a->kind == RMA_GET ? "origin" : "result", a->rcount,
                         a->rtype)))
        return rc;
    if ((rc = check_type(win, fn, "target", a->tcount, a->ttype)))
        return rc;
    if (a->kind == RMA_CAS && !faro_type_compares(a->ttype))
        return faro_win_err(win, MPI_ERR_TYPE, "%s: %s is not a type it takes (C or Fortran "
                            "integer, logical, multi-language or byte types: MPI_INT, "
                            "MPI_C_BOOL, MPI_AINT, MPI_BYTE, ...)", fn,
                            a->ttype->name ? a->ttype->name : "the datatype");
    if (a->kind == RMA_ACC && a->op == MPI_NO_OP)
        return faro_win_err(win, MPI_ERR_OP, "%s: MPI_NO_OP is not an accumulate operation "
                            "(MPI_Get_accumulate and MPI_Fetch_and_op take it; here a "
                            "predefined op such as MPI_SUM or MPI_REPLACE)", fn);
    if (a->target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((rc = faro_rma_check_access(fn, win, a->target)))
        return rc;
    size_t tbytes = (size_t)a->tcount * a->ttype->size;
    if (a->kind != RMA_GET && !(a->kind == RMA_GACC && a->op == MPI_NO_OP) &&
        (size_t)a->ocount * a->otype->size != tbytes)
        return faro_win_err(win, MPI_ERR_TYPE, "%s: the origin holds %zu bytes but the target "
                            "%zu (the type signatures must match)", fn,
                            (size_t)a->ocount * a->otype->size, tbytes);
    if (a->kind != RMA_PUT && a->kind != RMA_ACC && (size_t)a->rcount * a->rtype->size != tbytes)
        return faro_win_err(win, MPI_ERR_TYPE, "%s: the %s buffer holds %zu bytes but the "
                            "target %zu (the type signatures must match)", fn,
                            a->kind == RMA_GET ? "origin" : "result",
                            (size_t)a->rcount * a->rtype->size, tbytes);
    /* Zero elements: nothing to combine, so no op to check (MPICH and Open MPI accept
     * MPI_SUM on MPI_BYTE there, and mpi4py relies on it). */
    if ((a->kind == RMA_ACC || a->kind == RMA_GACC) && tbytes > 0) {
        if (faro_op_check(a->op))
            return faro_win_err(win, MPI_ERR_OP, "%s: op is not a valid operation", fn);
        if (!a->op->predefined)
            return faro_win_err(win, MPI_ERR_OP, "%s: %s is a user operation; one-sided "
                                "accumulates take predefined operations only", fn,
                                a->op->name ? a->op->name : "op");
        char msg[256];
        if (faro_op_valid(a->op, a->ttype, msg, sizeof msg))
            return faro_win_err(win, MPI_ERR_OP, "%s: %s", fn, msg);
        if (a->op != MPI_REPLACE && a->op != MPI_NO_OP && a->ttype->basic &&
            a->kind == RMA_ACC && a->otype->basic != a->ttype->basic)
            return faro_win_err(win, MPI_ERR_TYPE, "%s: origin and target are made of "
                                "different basic types (%s, %s)", fn,
                                a->otype->basic ? a->otype->basic->name : "mixed",
                                a->ttype->basic->name);
    }
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        const struct faro_win_rank *r = &win->ranks[a->target];
        MPI_Aint lo, hi;
        span(a->tcount, a->ttype, &lo, &hi);
        long long at = (long long)a->disp * r->disp_unit;
        if (tbytes > 0 && (a->disp < 0 || at + lo < 0 || (unsigned long long)(at + hi) > r->size))
            return faro_win_err(win, MPI_ERR_RMA_RANGE, "%s: the target range [%lld, %lld) "
                                "(target_disp %ld x disp_unit %lld) lies outside rank %d's "
                                "window of %llu bytes", fn, at + lo, at + hi, (long)a->disp,
                                (long long)r->disp_unit, a->target,
                                (unsigned long long)r->size);
    }
    return MPI_SUCCESS;
}

/* The target pieces of (tcount, ttype) from the target address: one
 * (nseg 1, nothing written) or a list in segs (malloc'ed). */
#define FAKE_BASE ((uintptr_t)1 << 62)
static int flatten(int count, MPI_Datatype t, struct rma_seg **segs, uint32_t *nseg,
                   int64_t *first)
{
    size_t total = (size_t)count * t->size;
    *segs = NULL;
    *nseg = 1;
    *first = 0;
    if (total == 0)
        return 0;
    if (t->dense) {
        *first = (int64_t)t->run[0].off;
        return 0;
    }
    size_t cap = 16, n = 0, pos = 0;
    struct rma_seg *s = malloc(cap * sizeof *s);
    struct iovec iov[64];
    while (s && pos < total) {
        size_t covered;
        int k = faro_type_iov((void *)FAKE_BASE, t, pos, total - pos, iov, 64, &covered);
        for (int i = 0; i < k; i++) {
            int64_t off = (int64_t)((uintptr_t)iov[i].iov_base - FAKE_BASE);
            if (n && s[n - 1].off + (int64_t)s[n - 1].len == off) {
                s[n - 1].len += iov[i].iov_len;
                continue;
            }
            if (n == cap) {
                struct rma_seg *b = realloc(s, 2 * cap * sizeof *s);
                if (!b) {
                    free(s);
                    return -1;
                }
                s = b;
                cap *= 2;
            }
            s[n++] = (struct rma_seg){off, iov[i].iov_len};
        }
        pos += covered;
    }
    if (!s)
        return -1;
    if (n == 1) {
        *first = s[0].off;
        free(s);
        return 0;
    }
    *segs = s;
    *nseg = (uint32_t)n;
    return 0;
}

static int rma_issue(MPI_Win win, const struct rma_args *a, struct faro_request **ureq)
{
    struct faro_rma_origin *o = win->o;
    const char *fn = a->fn;
    int t = a->target;
    struct rma_seg *segs;
    uint32_t nseg;
    int64_t first;
    if (flatten(a->tcount, a->ttype, &segs, &nseg, &first))
        return faro_win_err(win, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    size_t tbytes = (size_t)a->tcount * a->ttype->size;
    int sends_data = a->kind == RMA_PUT || a->kind == RMA_ACC ||
                     (a->kind == RMA_GACC && a->op != MPI_NO_OP) || a->kind == RMA_CAS;
    size_t dlen = sends_data ? (a->kind == RMA_CAS ? 2 * tbytes : tbytes) : 0;
    size_t sbytes = nseg > 1 ? nseg * sizeof *segs : 0;
    struct rma_hdr h = {.kind = (uint8_t)a->kind, .elem = -1, .id = o->next_id++,
                        .nseg = nseg, .len = tbytes, .body = sbytes + dlen};
    int64_t disp = (int64_t)a->disp * (win->flavor == MPI_WIN_FLAVOR_DYNAMIC
                                           ? 1 : win->ranks[t].disp_unit);
    h.addr = (uint64_t)(disp + first);
    /* The op travels only with elements to combine (check_op left it unchecked at zero). */
    if ((a->kind == RMA_ACC || a->kind == RMA_GACC) && tbytes > 0) {
        h.op = (uint8_t)a->op->kind;
        if (a->ttype->basic)
            h.elem = faro_type_predef_index(a->ttype->basic);
    }
    /* Body apart: large, and when a put or accumulate's data can leave from the origin
     * buffer itself (one target piece, not a request-based call that must copy). */
    int apart = sizeof h + h.body > RMA_MSG_MAX;
    int direct = apart && nseg == 1 && (a->kind == RMA_PUT || a->kind == RMA_ACC) && !ureq;
    if (apart)
        h.flags |= RMA_F_BODY;
    size_t msglen = sizeof h + (apart ? 0 : h.body);
    size_t buflen = msglen + (apart && !direct ? h.body : 0);
    struct rma_op *op = calloc(1, sizeof *op);
    char *buf = malloc(buflen);
    if (!op || !buf) {
        free(op);
        free(buf);
        free(segs);
        return faro_win_err(win, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    memcpy(buf, &h, sizeof h);
    char *body = apart ? buf + msglen : buf + sizeof h;
    if (!direct) {
        if (sbytes)
            memcpy(body, segs, sbytes);
        if (sends_data)
            faro_type_pack(a->oaddr, (size_t)a->ocount, a->otype, body + sbytes);
        if (a->kind == RMA_CAS)
            faro_type_pack(a->caddr, (size_t)a->ocount, a->otype, body + sbytes + tbytes);
    }
    free(segs);
    op->win = win;
    op->target = t;
    op->buf = buf;
    op->left = 1 + apart + (a->kind == RMA_GET || a->kind == RMA_GACC || a->kind == RMA_CAS);
    op->ureq = ureq ? *ureq : NULL;
    o->pend[t]++;
    o->pending++;
    o->touched[t] = 1;
    int rc = MPI_SUCCESS;
    if (op->left > 1 + apart) /* the reply's receive goes first */
        rc = post_typed(win, FARO_REQ_RECV, a->raddr, a->rcount, a->rtype, t,
                        rma_reply_tag(h.id), op_step_done, op, NULL);
    if (!rc)
        rc = faro_rma_post(win, FARO_REQ_SEND, buf, msglen, t, RMA_TAG_REQ, op_step_done, op,
                           NULL);
    if (!rc && apart)
        rc = direct ? post_typed(win, FARO_REQ_SEND, (void *)a->oaddr, a->ocount, a->otype, t,
                                 RMA_TAG_BODY, op_step_done, op, NULL)
                    : faro_rma_post(win, FARO_REQ_SEND, body, h.body, t, RMA_TAG_BODY,
                                    op_step_done, op, NULL);
    if (rc)
        return faro_win_err(win, MPI_ERR_INTERN, "%s: posting the request to rank %d failed",
                            fn, t);
    return MPI_SUCCESS;
}

static int rma_call(const struct rma_args *a, MPI_Win win, MPI_Request *request)
{
    if (faro_win_check(win))
        return faro_win_bad(a->fn, win);
    if (request)
        *request = MPI_REQUEST_NULL;
    int rc = check_op(win, a);
    if (rc)
        return rc;
    struct faro_request *ureq = NULL;
    if (request) {
        ureq = faro_req_alloc(FARO_REQ_DONE, win->comm);
        if (!ureq)
            return faro_win_err(win, MPI_ERR_NO_MEM, "%s: out of memory", a->fn);
        *request = ureq;
    }
    if (a->target == MPI_PROC_NULL || (a->tcount == 0 && a->kind != RMA_CAS) ||
        a->ttype->size == 0 || win->direct) {
        if (ureq)
            ureq->complete = 1; /* a direct operation is complete when it returns */
        return a->target != MPI_PROC_NULL && win->direct ? faro_rma_direct_op(win, a)
                                                         : MPI_SUCCESS;
    }
    if (faro_rma_single_op(win, a)) { /* copied by the transport, complete */
        if (ureq)
            ureq->complete = 1;
        return MPI_SUCCESS;
    }
    rc = rma_issue(win, a, ureq ? &ureq : NULL);
    if (rc && ureq) {
        faro_req_release(ureq);
        *request = MPI_REQUEST_NULL;
    }
    return rc;
}

#pragma weak MPI_Put = PMPI_Put
int PMPI_Put(const void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
             int tcount, MPI_Datatype ttype, MPI_Win win)
{
    FARO_LOCKED;
    struct rma_args a = {"MPI_Put", RMA_PUT, oaddr, ocount, otype, NULL, 0, NULL, NULL,
                         target, disp, tcount, ttype, MPI_OP_NULL};
    return rma_call(&a, win, NULL);
}

#pragma weak MPI_Rput = PMPI_Rput
int PMPI_Rput(const void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
              int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *request)
{
    FARO_LOCKED;
    struct rma_args a = {"MPI_Rput", RMA_PUT, oaddr, ocount, otype, NULL, 0, NULL, NULL,
                         target, disp, tcount, ttype, MPI_OP_NULL};
    if (!request)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Rput: request pointer is NULL");
    return rma_call(&a, win, request);
}

#pragma weak MPI_Get = PMPI_Get
int PMPI_Get(void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount,
             MPI_Datatype ttype, MPI_Win win)
{
    FARO_LOCKED;
    struct rma_args a = {"MPI_Get", RMA_GET, NULL, 0, NULL, oaddr, ocount, otype, NULL,
                         target, disp, tcount, ttype, MPI_OP_NULL};
    return rma_call(&a, win, NULL);
}

#pragma weak MPI_Rget = PMPI_Rget
int PMPI_Rget(void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
              int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *request)
{
    FARO_LOCKED;
    struct rma_args a = {"MPI_Rget", RMA_GET, NULL, 0, NULL, oaddr, ocount, otype, NULL,
                         target, disp, tcount, ttype, MPI_OP_NULL};
    if (!request)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Rget: request pointer is NULL");
    return rma_call(&a, win, request);
}

#pragma weak MPI_Accumulate = PMPI_Accumulate
int PMPI_Accumulate(const void *oaddr, int ocount, MPI_Datatype otype, int target,
                    MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    FARO_LOCKED;
    struct rma_args a = {"MPI_Accumulate", RMA_ACC, oaddr, ocount, otype, NULL, 0, NULL, NULL,
                         target, disp, tcount, ttype, op};
    return rma_call(&a, win, NULL);
}

#pragma weak MPI_Raccumulate = PMPI_Raccumulate
int PMPI_Raccumulate(const void *oaddr, int ocount, MPI_Datatype otype, int target,
                     MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    FARO_LOCKED;
    struct rma_args a = {"MPI_Raccumulate", RMA_ACC, oaddr, ocount, otype, NULL, 0, NULL,
                         NULL, target, disp, tcount, ttype, op};
    if (!request)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Raccumulate: request pointer is NULL");
    return rma_call(&a, win, request);
}

#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
int PMPI_Get_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
                        int rcount, MPI_Datatype rtype, int target, MPI_Aint disp, int tcount,
                        MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    FARO_LOCKED;
    struct rma_args a = {"MPI_Get_accumulate", RMA_GACC, oaddr, ocount, otype, raddr, rcount,
                         rtype, NULL, target, disp, tcount, ttype, op};
    return rma_call(&a, win, NULL);
}

#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
int PMPI_Rget_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
                         int rcount, MPI_Datatype rtype, int target, MPI_Aint disp, int tcount,
                         MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    FARO_LOCKED;
    struct rma_args a = {"MPI_Rget_accumulate", RMA_GACC, oaddr, ocount, otype, raddr, rcount,
                         rtype, NULL, target, disp, tcount, ttype, op};
    if (!request)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Rget_accumulate: request pointer is NULL");
    return rma_call(&a, win, request);
}

/* MPI_Fetch_and_op and MPI_Compare_and_swap take one element of a predefined
 * type (a bad window or type is left to rma_call's checks). */
static int check_single(const char *fn, MPI_Datatype t, MPI_Win win)
{
    if (faro_win_check(win) || faro_type_check(t) || t->predefined)
        return MPI_SUCCESS;
    return faro_win_err(win, MPI_ERR_TYPE, "%s: the datatype is a derived one; it takes one "
                        "element of a predefined datatype", fn);
}

#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
int PMPI_Fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype type, int target,
                      MPI_Aint disp, MPI_Op op, MPI_Win win)
{
    FARO_LOCKED;
    struct rma_args a = {"MPI_Fetch_and_op", RMA_GACC, oaddr, 1, type, raddr, 1, type, NULL,
                         target, disp, 1, type, op};
    int rc = check_single(a.fn, type, win);
    return rc ? rc : rma_call(&a, win, NULL);
}

#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
int PMPI_Compare_and_swap(const void *oaddr, const void *caddr, void *raddr, MPI_Datatype type,
                          int target, MPI_Aint disp, MPI_Win win)
{
    FARO_LOCKED;
    struct rma_args a = {"MPI_Compare_and_swap", RMA_CAS, oaddr, 1, type, raddr, 1, type,
                         caddr, target, disp, 1, type, MPI_OP_NULL};
    int rc = check_single(a.fn, type, win);
    return rc ? rc : rma_call(&a, win, NULL);
}
