/*
 * verbs transport: remote memory. Registrations through the registration
 * cache (transports/common/rcache.h), remote keys, get (IBV_WR_RDMA_READ) and
 * put (IBV_WR_RDMA_WRITE).
 *
 * Access rights follow the owner's flags (FARO_TP_MEM_*): LOCAL is the local
 * side of a get or put (IBV_ACCESS_LOCAL_WRITE: a read lands there),
 * REMOTE_READ lets peers read, REMOTE_WRITE lets them write (with
 * LOCAL_WRITE, which verbs requires with it). Memory the owner will write
 * anyway (LOCAL or REMOTE_WRITE) is registered with all three, so one cached
 * registration serves every later use of its pages; memory only to be read
 * by peers gets REMOTE_READ alone, so a send buffer in read-only memory
 * registers. A LOCAL registration that fails is tried once more with no write
 * right (the source of a put may be read-only memory too).
 *
 * A get or put becomes work requests of at most the device's gather limit of
 * local pieces (found at init); its done runs when the last completed. When
 * the send entries or the queue pair are full, or the connection is not up
 * yet, pieces wait in a list that progress posts from.
 *
 * Remote completion of a put: on a reliable connection the work completion
 * of an RDMA write comes after the responder acknowledged it, and a responder
 * executes the requests of one queue pair in order, so a message posted on
 * the same queue pair after the put's done is delivered (its receive
 * completion generated) only after the written bytes were placed in the
 * target's memory (InfiniBand's ordering rules for RC; iWARP's for a send
 * after an RDMA write). Every message and RMA to a peer uses its one queue
 * pair, so "a message posted after done arrives after the data" holds.
 */
#include "config.h"

#include "verbs/verbs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

#define VERBS_MEM_WRITABLE (FARO_TP_MEM_LOCAL | FARO_TP_MEM_REMOTE_WRITE)
#define VERBS_MEM_ALL (FARO_TP_MEM_LOCAL | FARO_TP_MEM_REMOTE_READ | FARO_TP_MEM_REMOTE_WRITE)

static int verbs_access(unsigned flags)
{
    int a = 0;
    if (flags & FARO_TP_MEM_LOCAL)
        a |= IBV_ACCESS_LOCAL_WRITE;
    if (flags & FARO_TP_MEM_REMOTE_READ)
        a |= IBV_ACCESS_REMOTE_READ;
    if (flags & FARO_TP_MEM_REMOTE_WRITE)
        a |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
    return a;
}

static int verbs_rc_reg(void *ctx, void *addr, size_t len, unsigned access, void **handle)
{
    faro_tp_t *tp = ctx;
    struct ibv_mr *mr = ibv_reg_mr(tp->pd, addr, len, verbs_access(access));
    if (!mr) {
        faro_info(1, "verbs: ibv_reg_mr of %zu bytes at %p (access %#x): %s", len, addr,
                  access, strerror(errno));
        return -1;
    }
    *handle = mr;
    return 0;
}

static void verbs_rc_dereg(void *ctx, void *handle)
{
    (void)ibv_dereg_mr(handle);
}

static const struct faro_rcache_ops verbs_rc_ops = { verbs_rc_reg, verbs_rc_dereg };

int verbs_rma_init(faro_tp_t *tp)
{
    return faro_rcache_open(&verbs_rc_ops, tp, &tp->rcache);
}

void verbs_rma_fini(faro_tp_t *tp)
{
    while (tp->rma_head) { /* finalize: nobody waits for these any more */
        struct verbs_rma *r = tp->rma_head;
        tp->rma_head = r->next;
        if (--r->req->left == 0)
            free(r->req);
        free(r);
    }
    tp->rma_tail = &tp->rma_head;
    faro_rcache_report(tp->rcache, "verbs");
    faro_rcache_close(tp->rcache); /* NULL: nothing */
    tp->rcache = NULL;
}

int verbs_mem_reg(faro_tp_t *tp, void *buf, size_t len, unsigned flags, faro_tp_mem_t **mem)
{
    struct faro_rcache_entry *e;
    if (flags & FARO_TP_MEM_DEVICE)
        return FARO_TP_UNSUPPORTED;
    unsigned want = flags & VERBS_MEM_WRITABLE ? VERBS_MEM_ALL : flags;
    if (faro_rcache_get(tp->rcache, buf, len, want, &e) < 0 &&
        ((flags & FARO_TP_MEM_REMOTE_WRITE) ||
         faro_rcache_get(tp->rcache, buf, len, flags & FARO_TP_MEM_REMOTE_READ, &e) < 0)) {
        faro_error("verbs: cannot register %zu bytes at %p with %s: %s (is `ulimit -l`, the "
                   "locked-memory limit, large enough?)", len, buf,
                   flags & VERBS_MEM_WRITABLE ? "write access" : "remote read access",
                   strerror(errno));
        return FARO_TP_ERR;
    }
    *mem = (faro_tp_mem_t *)e;
    return FARO_TP_OK;
}

int verbs_mem_dereg(faro_tp_t *tp, faro_tp_mem_t *mem)
{
    faro_rcache_put(tp->rcache, (struct faro_rcache_entry *)mem);
    return FARO_TP_OK;
}

int verbs_rkey_pack(faro_tp_t *tp, const faro_tp_mem_t *mem, void *buf, size_t *len)
{
    const struct faro_rcache_entry *e = (const struct faro_rcache_entry *)mem;
    const struct ibv_mr *mr = e->handle;
    struct verbs_rkey_wire k = { .rkey = mr->rkey, .base = e->start, .len = e->end - e->start };
    if (*len < VERBS_RKEY_LEN || verbs_rkey_encode(buf, &k) != VERBS_WIRE_OK)
        return FARO_TP_ERR;
    *len = VERBS_RKEY_LEN;
    return FARO_TP_OK;
}

int verbs_rkey_unpack(faro_tp_t *tp, struct faro_tp_ep *ep, const void *buf, size_t len,
                      faro_tp_rkey_t **rkey)
{
    struct verbs_rkey_wire k;
    int rc = verbs_rkey_decode(buf, len, &k);
    if (rc) {
        faro_error("verbs: a remote key from %s is %s", ep->name, verbs_wire_strerror(rc));
        return FARO_TP_ERR;
    }
    struct faro_tp_rkey *r = malloc(sizeof *r);
    if (!r)
        return FARO_TP_ERR;
    *r = (struct faro_tp_rkey){ .rkey = k.rkey, .base = k.base, .len = k.len };
    *rkey = r;
    return FARO_TP_OK;
}

int verbs_rkey_release(faro_tp_t *tp, faro_tp_rkey_t *rkey)
{
    free(rkey);
    return FARO_TP_OK;
}

/* One piece of a get or put completed (ok), or will never be posted. */
static void verbs_rma_piece_done(struct verbs_rma_req *q, int ok)
{
    if (!ok)
        q->status = -1;
    if (--q->left > 0)
        return;
    if (q->done)
        q->done(q->arg, q->status);
    free(q);
}

void verbs_rma_tx_done(faro_tp_t *tp, struct verbs_tx *tx, int ok)
{
    struct verbs_rma_req *q = tx->req;
    verbs_tx_put(tp, tx);
    verbs_rma_piece_done(q, ok);
}

/* Post one piece. 0 posted, FARO_TP_AGAIN (no entry or room, or the
 * connection is not up yet), -1 (the endpoint is gone). */
static int verbs_rma_post(faro_tp_t *tp, struct verbs_rma *r)
{
    struct faro_tp_ep *ep = r->req->ep;
    int st = ep->conn.state;
    if (st == VC_FAILED || st == VC_CLOSED || st == VC_CLOSING)
        return -1;
    if (st != VC_UP)
        return FARO_TP_AGAIN;
    struct verbs_tx *tx = verbs_tx_get(tp, ep);
    if (!tx)
        return FARO_TP_AGAIN;
    tx->type = VERBS_OP_RMA;
    tx->req = r->req;
    struct ibv_send_wr wr = { .wr_id = (uintptr_t)tx, .sg_list = r->sge, .num_sge = r->nsge,
                              .opcode = r->put ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
                              .send_flags = IBV_SEND_SIGNALED };
    wr.wr.rdma.remote_addr = r->raddr;
    wr.wr.rdma.rkey = r->rkey;
    struct ibv_send_wr *bad;
    int rc = ibv_post_send(ep->qp, &wr, &bad);
    if (!rc)
        return 0;
    verbs_tx_put(tp, tx);
    if (rc == ENOMEM)
        return FARO_TP_AGAIN;
    verbs_ep_event(tp, ep, VE_QP_ERROR, "posting an RDMA %s of the memory of %s failed: %s",
                   r->put ? "write" : "read", ep->name, strerror(rc));
    return -1;
}

/* Post what waited, in order, skipping pieces whose connection is not up yet. */
int verbs_rma_drain(faro_tp_t *tp)
{
    int n = 0;
    struct verbs_rma **pp = &tp->rma_head, *last = NULL;
    while (*pp) {
        struct verbs_rma *r = *pp;
        int rc = verbs_rma_post(tp, r);
        if (rc == FARO_TP_AGAIN) {
            last = r;
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        r->req->ep->rma_pending--;
        if (rc < 0)
            verbs_rma_piece_done(r->req, 0);
        free(r);
        n++;
    }
    tp->rma_tail = last ? &last->next : &tp->rma_head;
    return n;
}

static int verbs_rma(faro_tp_t *tp, struct faro_tp_ep *ep, const struct iovec *local, int iovcnt,
                     faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
                     faro_tp_done_fn done, void *arg, int put)
{
    const struct faro_rcache_entry *lm = (const struct faro_rcache_entry *)lmem;
    const char *what = put ? "put" : "get";
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++) {
        uintptr_t a = (uintptr_t)local[i].iov_base;
        total += local[i].iov_len;
        if (local[i].iov_len && (!lm || a < lm->start || a + local[i].iov_len > lm->end ||
                                 local[i].iov_len > UINT32_MAX)) {
            faro_error("verbs: a %s's local memory lies outside its registration", what);
            return FARO_TP_ERR;
        }
    }
    if (total == 0)
        return FARO_TP_DONE;
    int st = ep->conn.state;
    if (st == VC_FAILED || st == VC_CLOSED || st == VC_CLOSING)
        return FARO_TP_ERR;
    if (raddr < rkey->base || raddr + total > rkey->base + rkey->len || raddr + total < raddr) {
        faro_error("verbs: a %s of %zu bytes at %#llx lies outside the registration of %s "
                   "[%#llx, +%llu)", what, total, (unsigned long long)raddr, ep->name,
                   (unsigned long long)rkey->base, (unsigned long long)rkey->len);
        return FARO_TP_ERR;
    }
    struct verbs_rma_req *q = calloc(1, sizeof *q);
    if (!q)
        return FARO_TP_ERR;
    *q = (struct verbs_rma_req){ .done = done, .arg = arg, .ep = ep, .left = 1 };
    uint32_t lkey = ((const struct ibv_mr *)lm->handle)->lkey;
    for (int i = 0; i < iovcnt;) {
        int n = 0;
        size_t bytes = 0;
        while (i + n < iovcnt && n < tp->max_sge)
            bytes += local[i + n++].iov_len;
        struct verbs_rma *r = malloc(sizeof *r + (size_t)n * sizeof(struct ibv_sge));
        if (!r) {
            q->status = -1;
            break;
        }
        *r = (struct verbs_rma){ .req = q, .put = put, .nsge = n, .raddr = raddr,
                                 .rkey = rkey->rkey };
        for (int k = 0; k < n; k++)
            r->sge[k] = (struct ibv_sge){ .addr = (uintptr_t)local[i + k].iov_base,
                                          .length = (uint32_t)local[i + k].iov_len,
                                          .lkey = lkey };
        raddr += bytes;
        i += n;
        q->left++;
        int rc = tp->rma_head ? FARO_TP_AGAIN : verbs_rma_post(tp, r);
        if (rc == FARO_TP_AGAIN) { /* progress posts it */
            r->next = NULL;
            *tp->rma_tail = r;
            tp->rma_tail = &r->next;
            ep->rma_pending++;
            continue;
        }
        if (rc < 0)
            verbs_rma_piece_done(q, 0);
        free(r);
    }
    if (--q->left == 0) { /* every piece failed before it was posted */
        int status = q->status;
        free(q);
        return status < 0 ? FARO_TP_ERR : FARO_TP_DONE;
    }
    return FARO_TP_OK;
}

int verbs_get(faro_tp_t *tp, struct faro_tp_ep *ep, const struct iovec *local, int iovcnt,
              faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
              faro_tp_done_fn done, void *arg)
{
    return verbs_rma(tp, ep, local, iovcnt, lmem, rkey, raddr, done, arg, 0);
}

int verbs_put(faro_tp_t *tp, struct faro_tp_ep *ep, const struct iovec *local, int iovcnt,
              faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
              faro_tp_done_fn done, void *arg)
{
    return verbs_rma(tp, ep, local, iovcnt, lmem, rkey, raddr, done, arg, 1);
}
