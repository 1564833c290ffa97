/*
 * ofi transport: sending. send_inline, isend, the send pool and buffers, the
 * per-peer queues and flush.
 *
 * A message leaves in one of three ways, the cheapest that applies:
 *   small      wire + header + payload up to OFI_TX_HEAD bytes are copied into
 *              the send's own pool entry
 *   buffer     up to 8 KiB (OFI_MAX_INLINE), and any message whose pieces are
 *              more than the provider takes at once, are copied into one of
 *              the send buffers (FARO_OFI_SEND_BUFS of 16 KiB); send_inline
 *              always takes one of these two, so its caller may reuse its
 *              memory at once
 *   in place   isend's payload goes from the owner's memory, behind the wire
 *              and header kept in the send's pool entry; under FI_MR_LOCAL the
 *              payload is registered through the registration cache
 *
 * Every send, copied or not, is an fi_sendmsg with a completion, and holds
 * its pool entry (struct ofi_tx, as many as the provider's transmit queue, at
 * most 1024) until the completion comes: that is how flush knows that
 * nothing is left inside the provider (fi_inject would not tell, and
 * udp;ofi_rxd loses the context of an injected send's completion). When no
 * entry or buffer is free, or the provider says -FI_EAGAIN (its queue is
 * full: FI_RM_ENABLED), send_inline says FARO_TP_AGAIN and isend queues the
 * send behind the peer's earlier ones, in order; progress posts queued sends
 * as completions free room. The queue holds the owner's own isends (their
 * payload in place, 112 bytes of bookkeeping each) and this transport's
 * hellos and goodbyes: it is bounded by what the owner has in flight.
 *
 * A connection to a port holds its sends behind a gate (an entry that is
 * never posted) until the port's verdict: nothing but the hello reaches a
 * process that has not accepted the key (ofi_port.c). While the gate is at
 * the head, the endpoint is off the list that progress drains.
 */
#include "config.h"

#include "ofi/ofi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/tunables.h"

#define OFI_MAX_TX 1024

int ofi_reg_local(faro_tp_t *tp, void *buf, size_t len, struct fid_mr **mr, void **desc,
                  char *why, size_t whylen)
{
    int rc;
    *mr = NULL;
    *desc = NULL;
    if (!tp->mr_local)
        return 0;
    rc = fi_mr_reg(tp->domain, buf, len, FI_SEND | FI_RECV | FI_READ | FI_WRITE, 0,
                   tp->mr_prov_key ? 0 : tp->next_key++, 0, mr, NULL);
    if (!rc && tp->mr_endpoint && !(rc = fi_mr_bind(*mr, &tp->ep->fid, 0)))
        rc = fi_mr_enable(*mr);
    if (rc) {
        snprintf(why, whylen, "registering %zu bytes of send or receive buffers: %s", len,
                 fi_strerror(-rc));
        if (*mr)
            fi_close(&(*mr)->fid);
        *mr = NULL;
        return -1;
    }
    *desc = fi_mr_desc(*mr);
    return 0;
}

int ofi_tx_init(faro_tp_t *tp, char *why, size_t whylen)
{
    size_t n = tp->info->tx_attr->size;
    tp->ntx = n && n < OFI_MAX_TX ? n : OFI_MAX_TX;
    tp->nbounce = (int)faro_tun_int(FARO_TUN_OFI_SEND_BUFS);
    tp->txs = aligned_alloc(64, (tp->ntx * sizeof *tp->txs + 63) / 64 * 64);
    tp->bounce = aligned_alloc(4096, (size_t)tp->nbounce * OFI_BOUNCE);
    tp->bfree = calloc((size_t)tp->nbounce, sizeof *tp->bfree);
    if (!tp->txs || !tp->bounce || !tp->bfree) {
        snprintf(why, whylen, "out of memory for the send pool");
        return -1;
    }
    memset(tp->txs, 0, tp->ntx * sizeof *tp->txs);
    for (size_t i = tp->ntx; i-- > 0;) {
        tp->txs[i].op.type = OFI_OP_SEND;
        tp->txs[i].next = tp->txfree;
        tp->txfree = &tp->txs[i];
    }
    for (int i = 0; i < tp->nbounce; i++)
        tp->bfree[tp->nbfree++] = i;
    return ofi_reg_local(tp, tp->txs, tp->ntx * sizeof *tp->txs, &tp->tx_mr, &tp->tx_desc, why,
                         whylen) < 0 ||
                   ofi_reg_local(tp, tp->bounce, (size_t)tp->nbounce * OFI_BOUNCE,
                                 &tp->bounce_mr, &tp->bounce_desc, why, whylen) < 0
               ? -1 : 0;
}

void ofi_tx_fini(faro_tp_t *tp)
{
    if (tp->tx_mr)
        fi_close(&tp->tx_mr->fid);
    if (tp->bounce_mr)
        fi_close(&tp->bounce_mr->fid);
    free(tp->txs);
    free(tp->bounce);
    free(tp->bfree);
}

static size_t ofi_iov_len(const struct iovec *iov, int iovcnt)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    return len;
}

static void *ofi_mr_desc(const struct faro_rcache_entry *e)
{
    return ((const struct ofi_mr *)e->handle)->desc;
}

/* A send's resources back, its counters down. */
static void ofi_tx_free(faro_tp_t *tp, struct ofi_tx *tx)
{
    for (int i = 0; i < tx->nreg; i++)
        faro_rcache_put(tp->rcache, tx->reg[i]);
    tx->nreg = 0;
    if (tx->bounce >= 0)
        tp->bfree[tp->nbfree++] = tx->bounce;
    tx->bounce = -1;
    tx->next = tp->txfree;
    tp->txfree = tx;
}

void ofi_tx_done(faro_tp_t *tp, struct ofi_tx *tx, int status)
{
    struct faro_tp_ep *p = tx->ep;
    faro_tp_done_fn done = tx->done;
    void *arg = tx->arg;
    ofi_tx_free(tp, tx);
    p->inflight--;
    tp->inflight--;
    if (status < 0)
        ofi_peer_fail(tp, p, "a send to %s failed: %s", p->name, fi_strerror(-status));
    if (done)
        done(arg, status < 0 ? -1 : 0);
}

/* Copy the wire, header and payload into dst (room enough checked by the caller). */
static size_t ofi_gather(const struct faro_tp_ep *p, uint8_t *dst, unsigned kind,
                         const void *hdr, size_t hdrlen, const struct iovec *iov, int iovcnt)
{
    struct ofi_wire w = { .kind = (uint8_t)kind, .hdrlen = (uint8_t)hdrlen, .src = p->wsrc,
                          .tag = p->wtag };
    size_t off = sizeof w;
    memcpy(dst, &w, sizeof w);
    if (hdrlen)
        memcpy(dst + off, hdr, hdrlen);
    off += hdrlen;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(dst + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    return off;
}

/* Post one message now. FARO_TP_DONE: copied out (done is not called);
 * FARO_TP_OK: in place, done(arg) comes from progress; FARO_TP_AGAIN: no
 * room now; FARO_TP_ERR. copy: the caller's memory may not stay (send_inline,
 * control messages). */
static int ofi_post(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
                    size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
                    void *arg, int copy)
{
    size_t len = ofi_iov_len(iov, iovcnt);
    size_t total = sizeof(struct ofi_wire) + hdrlen + len;
    struct ofi_tx *tx = tp->txfree;
    struct iovec v[OFI_TX_IOV];
    void *desc[OFI_TX_IOV] = { NULL };
    size_t nv = 1;
    int rc = FARO_TP_DONE;

    if (!tx)
        return FARO_TP_AGAIN;
    tp->txfree = tx->next;
    tx->ep = p;
    tx->done = NULL;
    tx->bounce = -1;
    tx->nreg = 0;
    if (total <= OFI_TX_HEAD) {
        v[0] = (struct iovec){ tx->head, ofi_gather(p, tx->head, kind, hdr, hdrlen, iov, iovcnt) };
        desc[0] = tp->tx_desc;
    } else if (copy || len <= 2048 || 1 + (size_t)iovcnt > tp->iov_limit) {
        if (!tp->nbfree)
            goto again;
        tx->bounce = tp->bfree[--tp->nbfree];
        uint8_t *b = tp->bounce + (size_t)tx->bounce * OFI_BOUNCE;
        v[0] = (struct iovec){ b, ofi_gather(p, b, kind, hdr, hdrlen, iov, iovcnt) };
        desc[0] = tp->bounce_desc;
    } else if (!copy && 1 + (size_t)iovcnt <= tp->iov_limit) { /* in place */
        v[0] = (struct iovec){ tx->head, ofi_gather(p, tx->head, kind, hdr, hdrlen, NULL, 0) };
        desc[0] = tp->tx_desc;
        for (int i = 0; i < iovcnt; i++) {
            v[nv] = iov[i];
            if (tp->mr_local && iov[i].iov_len) {
                if (faro_rcache_get(tp->rcache, iov[i].iov_base, iov[i].iov_len, 1,
                                    &tx->reg[tx->nreg]) < 0) {
                    ofi_tx_free(tp, tx);
                    return FARO_TP_ERR;
                }
                desc[nv] = ofi_mr_desc(tx->reg[tx->nreg++]);
            }
            nv++;
        }
        tx->done = done;
        tx->arg = arg;
        rc = FARO_TP_OK;
    } else {
        faro_error("ofi: a %zu-byte send in %d pieces fits neither a send buffer nor the "
                   "provider's %zu pieces", total, iovcnt, tp->iov_limit);
        ofi_tx_free(tp, tx);
        return FARO_TP_ERR;
    }
    struct fi_msg msg = { .msg_iov = v, .desc = desc, .iov_count = nv, .addr = p->fiaddr,
                          .context = tx };
    ssize_t r = fi_sendmsg(tp->ep, &msg, FI_COMPLETION);
    if (r == -FI_EAGAIN)
        goto again;
    if (r) {
        ofi_tx_free(tp, tx);
        ofi_peer_fail(tp, p, "a send to %s failed: %s", p->name, fi_strerror((int)-r));
        return FARO_TP_ERR;
    }
    p->inflight++;
    tp->inflight++;
    return rc;

again:
    ofi_tx_free(tp, tx);
    return FARO_TP_AGAIN;
}

static int ofi_usable(const struct faro_tp_ep *p)
{
    return p->fail == OFI_FAIL_NONE && !p->closed;
}

/* Queue a send behind p's earlier ones. copy: keep a copy of the payload. */
static int ofi_enqueue(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
                       size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
                       void *arg, int copy)
{
    size_t len = copy ? ofi_iov_len(iov, iovcnt) : 0;
    int n = copy ? (len ? 1 : 0) : iovcnt;
    struct ofi_sq *q = malloc(sizeof *q + (size_t)n * sizeof(struct iovec) + len);
    if (!q)
        return FARO_TP_ERR;
    q->next = NULL;
    q->done = done;
    q->arg = arg;
    q->kind = kind;
    q->hdrlen = (uint8_t)hdrlen;
    q->iovcnt = n;
    q->iov = (struct iovec *)(q + 1);
    if (hdrlen)
        memcpy(q->hdr, hdr, hdrlen);
    if (copy && len) {
        uint8_t *d = (uint8_t *)(q->iov + 1);
        q->iov[0] = (struct iovec){ d, len };
        for (int i = 0; i < iovcnt; i++) {
            memcpy(d, iov[i].iov_base, iov[i].iov_len);
            d += iov[i].iov_len;
        }
    } else if (!copy) {
        memcpy(q->iov, iov, (size_t)n * sizeof *iov);
    }
    *p->qtail = q;
    p->qtail = &q->next;
    if (!p->queued) {
        p->queued = 1;
        p->qnext = tp->qeps;
        tp->qeps = p;
    }
    return FARO_TP_OK;
}

int ofi_send_inline(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
                    size_t hdrlen, const void *data, size_t len)
{
    struct iovec iov = { (void *)data, len };
    if (!ofi_usable(p))
        return FARO_TP_ERR;
    if (p->qhead) /* order: behind the queued ones */
        return FARO_TP_AGAIN;
    int rc = ofi_post(tp, p, kind, hdr, hdrlen, &iov, len ? 1 : 0, NULL, NULL, 1);
    return rc == FARO_TP_OK ? FARO_TP_DONE : rc;
}

int ofi_isend(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
              size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
              void *arg)
{
    size_t len = ofi_iov_len(iov, iovcnt);
    if (len > tp->max_send) {
        faro_error("ofi: an isend of %zu bytes is larger than max_send (%zu)", len, tp->max_send);
        return FARO_TP_ERR;
    }
    if (!ofi_usable(p))
        return FARO_TP_ERR;
    if (!p->qhead) {
        int rc = ofi_post(tp, p, kind, hdr, hdrlen, iov, iovcnt, done, arg, 0);
        if (rc != FARO_TP_AGAIN)
            return rc;
    }
    return ofi_enqueue(tp, p, kind, hdr, hdrlen, iov, iovcnt, done, arg, 0);
}

/* Hellos and goodbyes: copied, in order with the owner's sends. */
int ofi_send_ctl(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *data,
                 size_t len)
{
    struct iovec iov = { (void *)data, len };
    if (!p->qhead) {
        int rc = ofi_post(tp, p, kind, NULL, 0, &iov, len ? 1 : 0, NULL, NULL, 1);
        if (rc != FARO_TP_AGAIN)
            return rc < 0 ? -1 : 0;
    }
    return ofi_enqueue(tp, p, kind, NULL, 0, &iov, len ? 1 : 0, NULL, NULL, 1) < 0 ? -1 : 0;
}

int ofi_gate(faro_tp_t *tp, struct faro_tp_ep *p)
{
    p->gated = 1;
    return ofi_enqueue(tp, p, OFI_KIND_GATE, NULL, 0, NULL, 0, NULL, NULL, 1) < 0 ? -1 : 0;
}

void ofi_ungate(faro_tp_t *tp, struct faro_tp_ep *p)
{
    p->gated = 0;
    for (struct ofi_sq **qq = &p->qhead; *qq; qq = &(*qq)->next) {
        struct ofi_sq *q = *qq;
        if (q->kind != OFI_KIND_GATE)
            continue;
        if (!(*qq = q->next))
            p->qtail = qq;
        free(q);
        break;
    }
    if (p->qhead && !p->queued) { /* what waited behind it goes now */
        p->queued = 1;
        p->qnext = tp->qeps;
        tp->qeps = p;
    }
}

/* Post queued sends while the provider takes them. Returns how many left. */
int ofi_drain(faro_tp_t *tp)
{
    int n = 0;
    struct faro_tp_ep **pp = &tp->qeps;
    while (*pp) {
        struct faro_tp_ep *p = *pp;
        while (p->qhead && p->qhead->kind != OFI_KIND_GATE) {
            struct ofi_sq *q = p->qhead;
            int rc = ofi_usable(p) || q->kind == OFI_KIND_BYE
                         ? ofi_post(tp, p, q->kind, q->hdr, q->hdrlen, q->iov, q->iovcnt,
                                    q->done, q->arg, q->done == NULL)
                         : FARO_TP_ERR;
            if (rc == FARO_TP_AGAIN)
                break;
            p->qhead = q->next;
            if (!p->qhead)
                p->qtail = &p->qhead;
            if (rc != FARO_TP_OK && q->done) /* copied out, or failed: tell the owner now */
                q->done(q->arg, rc == FARO_TP_DONE ? 0 : -1);
            free(q);
            n++;
        }
        if (p->qhead && p->qhead->kind != OFI_KIND_GATE) {
            pp = &p->qnext;
            continue;
        }
        p->queued = 0; /* empty, or waiting at its gate */
        *pp = p->qnext;
    }
    return n;
}

/* p is lost: its queued sends complete with an error. */
void ofi_queue_fail(faro_tp_t *tp, struct faro_tp_ep *p)
{
    while (p->qhead) {
        struct ofi_sq *q = p->qhead;
        p->qhead = q->next;
        if (q->done)
            q->done(q->arg, -1);
        free(q);
    }
    p->qtail = &p->qhead; /* drain drops it from the list of queued endpoints */
    p->gated = 0;         /* its gate went too */
}

int ofi_flush(faro_tp_t *tp, struct faro_tp_ep *p)
{
    if (p) { /* a port's gate alone is nothing the owner posted */
        int queued = p->qhead && (p->qhead->kind != OFI_KIND_GATE || p->qhead->next);
        return (queued || p->inflight) && p->fail == OFI_FAIL_NONE ? FARO_TP_AGAIN
                                                                   : FARO_TP_DONE;
    }
    return tp->qeps || tp->inflight ? FARO_TP_AGAIN : FARO_TP_DONE;
}
