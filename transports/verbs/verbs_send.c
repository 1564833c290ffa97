/*
 * verbs transport: sending. send_inline, isend, the send entries and buffers,
 * the per-peer queues, credit messages and flush.
 *
 * Every message is one signalled IBV_WR_SEND of the 8-byte header, the
 * owner's header and the payload, copied out during the call: into the work
 * request itself (IBV_SEND_INLINE) when the queue pair's inline limit allows,
 * else into one of FARO_VERBS_SEND_BUFS registered buffers. Copying is cheaper
 * than registering an eager payload (at most FARO_VERBS_BUF_SIZE bytes), and
 * it lets send_inline and isend both return "done" at once; large data goes
 * by RDMA instead (verbs_rma.c). A message leaves only with a credit
 * (verbs_credit.h), a send entry (VERBS_MAX_TX per process), room in its
 * queue pair (VERBS_SQ_DEPTH) and, when not inline, a send buffer; without
 * one, send_inline says FARO_TP_AGAIN and isend queues the message behind the
 * endpoint's earlier ones, in order, its payload in place (104 bytes of
 * bookkeeping each, and 16 per iovec). Progress posts queued messages as credits come back and
 * completions free entries, and calls done once a message is copied out.
 * The queue holds what the owner posted: it is bounded by the owner.
 */
#include "config.h"

#include "verbs/verbs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

int verbs_tx_init(faro_tp_t *tp, char *why, size_t whylen)
{
    tp->txs = calloc((size_t)tp->ntx, sizeof *tp->txs);
    tp->sbuf = aligned_alloc(4096, (size_t)tp->nsbuf * tp->buf_size);
    tp->sfree = calloc((size_t)tp->nsbuf, sizeof *tp->sfree);
    if (!tp->txs || !tp->sbuf || !tp->sfree) {
        snprintf(why, whylen, "out of memory for %d send buffers of %zu bytes", tp->nsbuf,
                 tp->buf_size);
        return -1;
    }
    for (int i = tp->ntx; i-- > 0;) {
        tp->txs[i].type = VERBS_OP_SEND;
        tp->txs[i].next = tp->txfree;
        tp->txfree = &tp->txs[i];
    }
    for (int i = 0; i < tp->nsbuf; i++)
        tp->sfree[tp->nsfree++] = i;
    tp->sbuf_mr = ibv_reg_mr(tp->pd, tp->sbuf, (size_t)tp->nsbuf * tp->buf_size, 0);
    if (!tp->sbuf_mr) {
        snprintf(why, whylen, "registering %zu bytes of send buffers: %m (is `ulimit -l` "
                 "large enough?)", (size_t)tp->nsbuf * tp->buf_size);
        return -1;
    }
    return 0;
}

void verbs_tx_fini(faro_tp_t *tp)
{
    if (tp->sbuf_mr)
        ibv_dereg_mr(tp->sbuf_mr);
    free(tp->txs);
    free(tp->sbuf);
    free(tp->sfree);
}

/* A send entry for ep, when one is free and its queue pair has room. */
struct verbs_tx *verbs_tx_get(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    struct verbs_tx *tx = tp->txfree;
    if (!tx || ep->sq_used >= tp->sq_depth)
        return NULL;
    tp->txfree = tx->next;
    tx->type = VERBS_OP_SEND;
    tx->inuse = 1;
    tx->ep = ep;
    tx->buf = -1;
    tx->req = NULL;
    tx->kind = 0;
    ep->sq_used++;
    ep->inflight++;
    tp->inflight++;
    return tx;
}

void verbs_tx_put(faro_tp_t *tp, struct verbs_tx *tx)
{
    struct faro_tp_ep *ep = tx->ep;
    if (tx->buf >= 0)
        tp->sfree[tp->nsfree++] = tx->buf;
    tx->buf = -1;
    tx->inuse = 0;
    ep->sq_used--;
    ep->inflight--;
    tp->inflight--;
    tx->next = tp->txfree;
    tp->txfree = tx;
}

/* ep's queue pair is destroyed with work requests whose completions never
 * came (a device that does not flush): they complete here, as failed. */
void verbs_tx_abandon(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    for (int i = 0; i < tp->ntx; i++) {
        struct verbs_tx *tx = &tp->txs[i];
        if (!tx->inuse || tx->ep != ep)
            continue;
        if (tx->type == VERBS_OP_RMA)
            verbs_rma_tx_done(tp, tx, 0);
        else
            verbs_tx_done(tp, tx, 0);
    }
}

static size_t iov_len(const struct iovec *iov, int iovcnt)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    return len;
}

/* Post one message on ep, whose connection is up. FARO_TP_DONE: copied out;
 * FARO_TP_AGAIN: no credit, entry, buffer or room now; FARO_TP_ERR. */
static int verbs_post_msg(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned kind, const void *hdr,
                          size_t hdrlen, const struct iovec *iov, int iovcnt)
{
    int ctl_msg = kind == VERBS_KIND_CREDIT;
    size_t total = VERBS_MSG_HDR + hdrlen + iov_len(iov, iovcnt);
    int inl = total <= ep->inline_max;
    uint8_t local[VERBS_INLINE_WANT];

    if ((ctl_msg ? !ep->cr.ctl : !ep->cr.send) || (!inl && !tp->nsfree))
        return FARO_TP_AGAIN;
    struct verbs_tx *tx = verbs_tx_get(tp, ep);
    if (!tx)
        return FARO_TP_AGAIN;
    if (ctl_msg)
        verbs_credit_take_ctl(&ep->cr);
    else
        verbs_credit_take(&ep->cr);
    struct verbs_msg m = { .kind = (uint8_t)kind, .hdrlen = (uint8_t)hdrlen };
    verbs_credit_piggyback(&ep->cr, &m.credits, &m.ctl);

    uint8_t *dst = local;
    uint32_t lkey = 0;
    if (!inl) {
        tx->buf = tp->sfree[--tp->nsfree];
        dst = tp->sbuf + (size_t)tx->buf * tp->buf_size;
        lkey = tp->sbuf_mr->lkey;
    }
    verbs_msg_encode(dst, &m);
    size_t off = VERBS_MSG_HDR;
    if (hdrlen)
        memcpy(dst + off, hdr, hdrlen);
    off += hdrlen;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(dst + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    struct ibv_sge sge = { .addr = (uintptr_t)dst, .length = (uint32_t)total, .lkey = lkey };
    struct ibv_send_wr wr = { .wr_id = (uintptr_t)tx, .sg_list = &sge, .num_sge = 1,
                              .opcode = IBV_WR_SEND,
                              .send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0) };
    struct ibv_send_wr *bad;
    int rc = ibv_post_send(ep->qp, &wr, &bad);
    if (rc) {
        verbs_credit_unsend(&ep->cr, ctl_msg, m.credits, m.ctl);
        verbs_tx_put(tp, tx);
        if (rc == ENOMEM) /* the send queue is full after all */
            return FARO_TP_AGAIN;
        verbs_ep_event(tp, ep, VE_QP_ERROR, "posting a send to %s failed: %s", ep->name,
                       strerror(rc));
        return FARO_TP_ERR;
    }
    tx->kind = (uint8_t)kind;
    return FARO_TP_DONE;
}

/* Can the owner send to ep? 1 yes, 0 not yet (connecting), -1 never again. */
static int verbs_usable(const struct faro_tp_ep *ep)
{
    switch (ep->conn.state) {
    case VC_UP:
        return 1;
    case VC_CLOSING:
    case VC_CLOSED:
    case VC_FAILED:
        return -1;
    default:
        return 0;
    }
}

/* May ep's queue be posted now? 1 yes (up, or closing by us: what was queued
 * before the goodbye, and the goodbye, still go), 0 not yet, -1 never. */
static int verbs_postable(const struct faro_tp_ep *ep)
{
    if (ep->conn.state == VC_CLOSING)
        return ep->conn.bye_out && !ep->conn.bye_in && !ep->disconnected ? 1 : -1;
    return verbs_usable(ep);
}

void verbs_list(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    if (ep->listed)
        return;
    ep->listed = 1;
    ep->qnext = tp->qeps;
    tp->qeps = ep;
}

/* Queue a message behind ep's earlier ones (head: in front of them). Its
 * payload stays in place until it is posted. */
static int verbs_enqueue(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned kind, const void *hdr,
                         size_t hdrlen, const struct iovec *iov, int iovcnt,
                         faro_tp_done_fn done, void *arg, int head)
{
    struct verbs_sq *q = malloc(sizeof *q + (size_t)iovcnt * sizeof(struct iovec));
    if (!q)
        return FARO_TP_ERR;
    q->done = done;
    q->arg = arg;
    q->kind = (uint8_t)kind;
    q->hdrlen = (uint8_t)hdrlen;
    q->iovcnt = iovcnt;
    q->iov = (struct iovec *)(q + 1);
    if (hdrlen)
        memcpy(q->hdr, hdr, hdrlen);
    if (iovcnt)
        memcpy(q->iov, iov, (size_t)iovcnt * sizeof *iov);
    if (head) {
        q->next = ep->qhead;
        if (!ep->qhead)
            ep->qtail = &q->next;
        ep->qhead = q;
    } else {
        q->next = NULL;
        *ep->qtail = q;
        ep->qtail = &q->next;
    }
    tp->nqueued++;
    if (verbs_postable(ep) > 0)
        verbs_list(tp, ep);
    return FARO_TP_OK;
}

int verbs_send_inline(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned kind, const void *hdr,
                      size_t hdrlen, const void *data, size_t len)
{
    struct iovec iov = { (void *)data, len };
    int u = verbs_usable(ep);
    if (u <= 0)
        return u < 0 ? FARO_TP_ERR : FARO_TP_AGAIN;
    if (ep->qhead) /* order: behind the queued ones */
        return FARO_TP_AGAIN;
    return verbs_post_msg(tp, ep, kind, hdr, hdrlen, &iov, len ? 1 : 0);
}

int verbs_isend(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned kind, const void *hdr,
                size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
                void *arg)
{
    /* Whatever fits one buffer: max_send with any header, and every message
     * send_inline takes (its fallback when it says AGAIN). */
    size_t len = iov_len(iov, iovcnt);
    if (hdrlen + len > tp->buf_size - VERBS_MSG_HDR) {
        faro_error("verbs: an isend of %zu + %zu bytes is larger than a buffer holds (max_send "
                   "%zu, max_inline %zu)", hdrlen, len, tp->plan.max_send, tp->plan.max_inline);
        return FARO_TP_ERR;
    }
    int u = verbs_usable(ep);
    if (u < 0)
        return FARO_TP_ERR;
    if (u > 0 && !ep->qhead) {
        int rc = verbs_post_msg(tp, ep, kind, hdr, hdrlen, iov, iovcnt);
        if (rc != FARO_TP_AGAIN)
            return rc;
    }
    return verbs_enqueue(tp, ep, kind, hdr, hdrlen, iov, iovcnt, done, arg, 0);
}

/* This transport's own messages: the hello (first on the connection, before
 * anything queued) and the goodbye (after everything queued). */
int verbs_send_ctl(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned kind, int first)
{
    if ((first || !ep->qhead) &&
        verbs_post_msg(tp, ep, kind, NULL, 0, NULL, 0) == FARO_TP_DONE)
        return 0;
    if (verbs_postable(ep) < 0)
        return -1;
    return verbs_enqueue(tp, ep, kind, NULL, 0, NULL, 0, NULL, NULL, first) < 0 ? -1 : 0;
}

/* Return ep's credits by a message of their own when they cannot ride on one. */
void verbs_credit_check(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    int soon = ep->qhead && ep->cr.send > 0;
    ep->want_credit = 0;
    if (ep->conn.state != VC_UP || !verbs_credit_want_explicit(&ep->cr, soon))
        return;
    if (verbs_post_msg(tp, ep, VERBS_KIND_CREDIT, NULL, 0, NULL, 0) == FARO_TP_AGAIN) {
        ep->want_credit = 1; /* progress tries again as completions free entries */
        verbs_list(tp, ep);
    }
}

/* A message's completion (ok: it reached the peer's receive buffer). */
void verbs_tx_done(faro_tp_t *tp, struct verbs_tx *tx, int ok)
{
    struct faro_tp_ep *ep = tx->ep;
    unsigned kind = tx->kind;
    verbs_tx_put(tp, tx);
    if (ep->qhead || ep->want_credit)
        verbs_list(tp, ep);
    if (ok && kind == VERBS_KIND_BYE)
        verbs_ep_event(tp, ep, VE_BYE_SENT, NULL);
}

/* Post ep's queued messages while it has what they need. */
static int verbs_drain_ep(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    int n = 0;
    while (ep->qhead) {
        struct verbs_sq *q = ep->qhead;
        int rc = verbs_post_msg(tp, ep, q->kind, q->hdr, q->hdrlen, q->iov, q->iovcnt);
        if (rc == FARO_TP_AGAIN)
            break;
        ep->qhead = q->next;
        if (!ep->qhead)
            ep->qtail = &ep->qhead;
        tp->nqueued--;
        if (q->done) /* copied out, or failed */
            q->done(q->arg, rc == FARO_TP_DONE ? 0 : -1);
        free(q);
        n++;
        if (rc != FARO_TP_DONE)
            break; /* the endpoint failed: progress fails the rest */
    }
    return n;
}

int verbs_drain(faro_tp_t *tp)
{
    int n = 0;
    struct faro_tp_ep **pp = &tp->qeps;
    while (*pp) {
        struct faro_tp_ep *ep = *pp;
        int u = verbs_postable(ep);
        if (u > 0) {
            n += verbs_drain_ep(tp, ep);
            verbs_credit_check(tp, ep);
        } else if (u < 0 && ep->qhead) {
            verbs_queue_fail(tp, ep);
        }
        if (u > 0 && (ep->qhead || ep->want_credit)) {
            pp = &ep->qnext;
            continue;
        }
        ep->listed = 0; /* waiting for its connection: listed again when it is up */
        *pp = ep->qnext;
    }
    return n;
}

/* ep will not send any more: its queued messages complete with an error. */
void verbs_queue_fail(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    while (ep->qhead) {
        struct verbs_sq *q = ep->qhead;
        ep->qhead = q->next;
        tp->nqueued--;
        if (q->done)
            q->done(q->arg, -1);
        free(q);
    }
    ep->qtail = &ep->qhead;
}

int verbs_flush(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    if (ep)
        return (ep->qhead || ep->inflight || ep->rma_pending) && ep->conn.state != VC_FAILED
                   ? FARO_TP_AGAIN : FARO_TP_DONE;
    return tp->nqueued || tp->inflight || tp->rma_head ? FARO_TP_AGAIN : FARO_TP_DONE;
}
