/*
 * ofi transport: remote memory. Registrations through the registration cache
 * (transports/common/rcache.h), remote keys, get (fi_readmsg) and put
 * (fi_writemsg).
 *
 * Every registration asks for all access rights (local and remote, read and
 * write), so one cached registration serves every later use of its pages.
 * Keys: the provider's (FI_MR_PROV_KEY), else a counter of this domain. A
 * packed remote key carries the key, the registered range and whether remote
 * addresses are virtual addresses (FI_MR_VIRT_ADDR) or offsets into it: 32
 * bytes, longer than the room in the core's RTS header, so the MPI core sends
 * it in the RTS payload.
 *
 * A get or put becomes provider operations of at most the provider's iov
 * limit of local pieces; its done runs when the last one completed. A put
 * asks for FI_DELIVERY_COMPLETE: its done means the bytes are in the target's
 * memory, so a message sent after it arrives after them (transport.h). When
 * the provider's queue is full (-FI_EAGAIN), operations wait in a list that
 * progress posts from.
 */
#include "config.h"

#include "ofi/ofi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

#define OFI_ACCESS (FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)

static int ofi_rc_reg(void *ctx, void *addr, size_t len, unsigned access, void **handle)
{
    faro_tp_t *tp = ctx;
    struct ofi_mr *m = calloc(1, sizeof *m);
    if (!m)
        return -1;
    int rc = fi_mr_reg(tp->domain, addr, len, OFI_ACCESS, 0,
                       tp->mr_prov_key ? 0 : tp->next_key++, 0, &m->mr, NULL);
    if (!rc && tp->mr_endpoint && !(rc = fi_mr_bind(m->mr, &tp->ep->fid, 0)))
        rc = fi_mr_enable(m->mr);
    if (!rc && (m->key = fi_mr_key(m->mr)) == FI_KEY_NOTAVAIL)
        rc = -FI_ENOKEY; /* raw keys (FI_MR_RAW) were not asked for */
    if (rc) {
        faro_error("ofi: registering %zu bytes at %p: %s", len, addr, fi_strerror(-rc));
        if (m->mr)
            fi_close(&m->mr->fid);
        free(m);
        return -1;
    }
    m->desc = fi_mr_desc(m->mr);
    *handle = m;
    return 0;
}

static void ofi_rc_dereg(void *ctx, void *handle)
{
    struct ofi_mr *m = handle;
    fi_close(&m->mr->fid);
    free(m);
}

static const struct faro_rcache_ops ofi_rc_ops = { ofi_rc_reg, ofi_rc_dereg };

int ofi_rma_init(faro_tp_t *tp)
{
    return faro_rcache_open(&ofi_rc_ops, tp, &tp->rcache);
}

void ofi_rma_fini(faro_tp_t *tp)
{
    while (tp->rma_head) {
        struct ofi_rma *r = tp->rma_head;
        tp->rma_head = r->next;
        if (--r->req->left == 0)
            free(r->req);
        free(r);
    }
    faro_rcache_report(tp->rcache, "ofi");
    faro_rcache_close(tp->rcache);
    tp->rcache = NULL;
}

int ofi_mem_reg(faro_tp_t *tp, void *buf, size_t len, unsigned flags, faro_tp_mem_t **mem)
{
    struct faro_rcache_entry *e;
    if (flags & FARO_TP_MEM_DEVICE)
        return FARO_TP_UNSUPPORTED;
    if (faro_rcache_get(tp->rcache, buf, len, 1, &e) < 0) /* every registration: all rights */
        return FARO_TP_ERR;
    *mem = (faro_tp_mem_t *)e;
    return FARO_TP_OK;
}

int ofi_mem_dereg(faro_tp_t *tp, faro_tp_mem_t *mem)
{
    faro_rcache_put(tp->rcache, (struct faro_rcache_entry *)mem);
    return FARO_TP_OK;
}

int ofi_rkey_pack(faro_tp_t *tp, const faro_tp_mem_t *mem, void *buf, size_t *len)
{
    const struct faro_rcache_entry *e = (const struct faro_rcache_entry *)mem;
    struct ofi_rkey_wire k = { .magic = OFI_MAGIC, .version = OFI_VERSION,
                               .virt = (uint16_t)tp->mr_virt,
                               .key = ((const struct ofi_mr *)e->handle)->key,
                               .base = e->start, .len = e->end - e->start };
    if (*len < sizeof k)
        return FARO_TP_ERR;
    memcpy(buf, &k, sizeof k);
    *len = sizeof k;
    return FARO_TP_OK;
}

int ofi_rkey_unpack(faro_tp_t *tp, struct faro_tp_ep *ep, const void *buf, size_t len,
                    faro_tp_rkey_t **rkey)
{
    struct ofi_rkey_wire k;
    if (len != sizeof k)
        return FARO_TP_ERR;
    memcpy(&k, buf, sizeof k);
    if (k.magic != OFI_MAGIC || k.version != OFI_VERSION || k.base + k.len < k.base)
        return FARO_TP_ERR;
    struct faro_tp_rkey *r = malloc(sizeof *r);
    if (!r)
        return FARO_TP_ERR;
    *r = (struct faro_tp_rkey){ .key = k.key, .base = k.base, .len = k.len, .virt = k.virt };
    *rkey = r;
    return FARO_TP_OK;
}

int ofi_rkey_release(faro_tp_t *tp, faro_tp_rkey_t *rkey)
{
    free(rkey);
    return FARO_TP_OK;
}

/* Post one provider operation. 0 posted, FARO_TP_AGAIN, or the error. */
static int ofi_rma_post(faro_tp_t *tp, struct ofi_rma *r)
{
    struct faro_tp_ep *ep = r->req->ep;
    void **desc = (void **)(r->iov + r->iovcnt);
    struct fi_msg_rma msg = { .msg_iov = r->iov, .desc = desc, .iov_count = r->iovcnt,
                              .addr = ep->fiaddr, .rma_iov = &r->rma, .rma_iov_count = 1,
                              .context = r };
    ssize_t rc;
    if (!r->put)
        rc = fi_readmsg(tp->ep, &msg, FI_COMPLETION);
    else if ((rc = fi_writemsg(tp->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE)) ==
             -FI_EBADFLAGS)
        faro_error("ofi: the provider %s refuses FI_DELIVERY_COMPLETE for a put",
                   tp->info->fabric_attr->prov_name);
    if (rc == 0) {
        r->posted = 1;
        tp->inflight++;
        return 0;
    }
    return rc == -FI_EAGAIN ? FARO_TP_AGAIN : (int)rc;
}

void ofi_rma_done(faro_tp_t *tp, struct ofi_rma *r, int status)
{
    struct ofi_rma_req *q = r->req;
    if (status < 0)
        q->status = -1;
    if (r->posted)
        tp->inflight--;
    free(r);
    if (--q->left > 0)
        return;
    q->ep->inflight--;
    if (q->done)
        q->done(q->arg, q->status);
    free(q);
}

/* Post what waited for room (in order). A failure completes it with an error. */
int ofi_rma_drain(faro_tp_t *tp)
{
    int n = 0;
    while (tp->rma_head) {
        struct ofi_rma *r = tp->rma_head;
        int rc = r->req->ep->fail == OFI_FAIL_NONE ? ofi_rma_post(tp, r) : -FI_ECONNABORTED;
        if (rc == FARO_TP_AGAIN)
            break;
        tp->rma_head = r->next;
        if (!tp->rma_head)
            tp->rma_tail = &tp->rma_head;
        n++;
        if (rc < 0) {
            ofi_peer_fail(tp, r->req->ep, "%s %s's memory failed: %s",
                          r->put ? "a put into" : "a get from", r->req->ep->name,
                          fi_strerror(-rc));
            ofi_rma_done(tp, r, rc);
        }
    }
    return n;
}

static int ofi_rma(faro_tp_t *tp, struct faro_tp_ep *ep, const struct iovec *local, int iovcnt,
                   faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
                   faro_tp_done_fn done, void *arg, int put)
{
    const struct faro_rcache_entry *lm = (const struct faro_rcache_entry *)lmem;
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++) {
        total += local[i].iov_len;
        if (tp->mr_local && local[i].iov_len &&
            (!lm || (uintptr_t)local[i].iov_base < lm->start ||
             (uintptr_t)local[i].iov_base + local[i].iov_len > lm->end)) {
            faro_error("ofi: a %s's local memory lies outside its registration", put ? "put" : "get");
            return FARO_TP_ERR;
        }
    }
    if (total == 0)
        return FARO_TP_DONE;
    if (ep->fail != OFI_FAIL_NONE || ep->closed)
        return FARO_TP_ERR;
    if (raddr < rkey->base || raddr + total > rkey->base + rkey->len || raddr + total < raddr) {
        faro_error("ofi: a %s of %zu bytes at %#llx lies outside %s's registration "
                   "[%#llx, +%llu)", put ? "put" : "get", total, (unsigned long long)raddr,
                   ep->name, (unsigned long long)rkey->base, (unsigned long long)rkey->len);
        return FARO_TP_ERR;
    }
    struct ofi_rma_req *q = calloc(1, sizeof *q);
    if (!q)
        return FARO_TP_ERR;
    *q = (struct ofi_rma_req){ .done = done, .arg = arg, .ep = ep, .left = 1 };
    void *desc = tp->mr_local ? ((const struct ofi_mr *)lm->handle)->desc : NULL;
    int rc = FARO_TP_OK;
    /* Pieces of at most rma_iov_limit local iovecs each. */
    for (int i = 0; i < iovcnt && rc == FARO_TP_OK;) {
        size_t n = 0, bytes = 0;
        while (i + (int)n < iovcnt && n < tp->rma_iov_limit)
            bytes += local[i + n++].iov_len;
        struct ofi_rma *r = malloc(sizeof *r + n * (sizeof(struct iovec) + sizeof(void *)));
        if (!r) {
            rc = FARO_TP_ERR;
            break;
        }
        r->op.type = OFI_OP_RMA;
        r->req = q;
        r->put = put;
        r->posted = 0;
        r->iovcnt = n;
        r->next = NULL;
        memcpy(r->iov, local + i, n * sizeof *local);
        for (size_t k = 0; k < n; k++)
            ((void **)(r->iov + n))[k] = desc;
        r->rma = (struct fi_rma_iov){ .addr = rkey->virt ? raddr : raddr - rkey->base,
                                      .len = bytes, .key = rkey->key };
        raddr += bytes;
        i += (int)n;
        q->left++;
        int pr = tp->rma_head ? FARO_TP_AGAIN : ofi_rma_post(tp, r);
        if (pr == FARO_TP_AGAIN || pr < 0) { /* progress posts it, or reports its error */
            *tp->rma_tail = r;
            tp->rma_tail = &r->next;
        }
    }
    ep->inflight++;
    if (rc != FARO_TP_OK)
        q->status = -1;
    if (--q->left == 0) { /* everything failed to be set up, or nothing was posted */
        ep->inflight--;
        free(q);
        return rc == FARO_TP_OK ? FARO_TP_DONE : rc;
    }
    return FARO_TP_OK;
}

int ofi_get(faro_tp_t *tp, struct faro_tp_ep *ep, const struct iovec *local, int iovcnt,
            faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
            faro_tp_done_fn done, void *arg)
{
    return ofi_rma(tp, ep, local, iovcnt, lmem, rkey, raddr, done, arg, 0);
}

int ofi_put(faro_tp_t *tp, struct faro_tp_ep *ep, const struct iovec *local, int iovcnt,
            faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
            faro_tp_done_fn done, void *arg)
{
    return ofi_rma(tp, ep, local, iovcnt, lmem, rkey, raddr, done, arg, 1);
}
