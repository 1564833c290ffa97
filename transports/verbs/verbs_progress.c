/*
 * verbs transport: receiving and progress.
 *
 * Receive buffers: without a shared receive queue, each connection posts
 * FARO_VERBS_RECV_BUFS buffers of its own before it connects or accepts
 * (allocated and registered at its first connection, kept for its endpoint's
 * life); with one, FARO_VERBS_SRQ_BUFS buffers are posted to it at start and
 * serve every connection (the sender is found by the completion's queue pair
 * number). Either way a message is handed to its handler straight from its
 * buffer, the buffer is posted again as soon as the handler returned, and
 * only then is its credit counted as returnable (verbs_credit.h).
 *
 * Progress reads at most VERBS_POLL_MAX completions (sends, receives, RDMA)
 * from the one completion queue, posts what waited for credits or room, and
 * every VERBS_SLOW_POLLS calls (every call while a connection is being made
 * or closed) reads rdma_cm's events and the device's asynchronous events.
 */
#include "config.h"

#include "verbs/verbs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include "base/log.h"

static struct ibv_mr *verbs_rx_area(faro_tp_t *tp, int n, uint8_t **mem, struct verbs_rx **rx,
                                    struct faro_tp_ep *ep)
{
    *mem = aligned_alloc(4096, (size_t)n * tp->buf_size);
    *rx = calloc((size_t)n, sizeof **rx);
    if (!*mem || !*rx)
        return NULL;
    struct ibv_mr *mr = ibv_reg_mr(tp->pd, *mem, (size_t)n * tp->buf_size,
                                   IBV_ACCESS_LOCAL_WRITE);
    if (!mr)
        return NULL;
    for (int i = 0; i < n; i++)
        (*rx)[i] = (struct verbs_rx){ .type = VERBS_OP_RECV, .ep = ep,
                                      .buf = *mem + (size_t)i * tp->buf_size, .lkey = mr->lkey };
    return mr;
}

static int verbs_rx_post(faro_tp_t *tp, struct verbs_rx *rx)
{
    struct ibv_sge sge = { .addr = (uintptr_t)rx->buf, .length = (uint32_t)tp->buf_size,
                           .lkey = rx->lkey };
    struct ibv_recv_wr wr = { .wr_id = (uintptr_t)rx, .sg_list = &sge, .num_sge = 1 }, *bad;
    int rc = rx->ep ? ibv_post_recv(rx->ep->qp, &wr, &bad) : ibv_post_srq_recv(tp->srq, &wr, &bad);
    if (rc)
        return rc;
    rx->posted = 1;
    tp->rx_total++;
    if (rx->ep)
        rx->ep->rx_posted++;
    return 0;
}

int verbs_rx_init(faro_tp_t *tp, char *why, size_t whylen)
{
    if (!tp->nsrx)
        return 0;
    struct ibv_srq_init_attr a = { .attr = { .max_wr = (uint32_t)tp->nsrx, .max_sge = 1 } };
    if (!(tp->srq = ibv_create_srq(tp->pd, &a))) {
        snprintf(why, whylen, "ibv_create_srq of %d buffers: %s", tp->nsrx, strerror(errno));
        return -1;
    }
    if (!(tp->srx_mr = verbs_rx_area(tp, tp->nsrx, &tp->srxmem, &tp->srx, NULL))) {
        snprintf(why, whylen, "%d receive buffers of %zu bytes: %s (is `ulimit -l` large "
                 "enough?)", tp->nsrx, tp->buf_size, strerror(errno ? errno : ENOMEM));
        return -1;
    }
    for (int i = 0; i < tp->nsrx; i++) {
        int rc = verbs_rx_post(tp, &tp->srx[i]);
        if (rc) {
            snprintf(why, whylen, "posting to the shared receive queue: %s", strerror(rc));
            return -1;
        }
    }
    return 0;
}

void verbs_rx_fini(faro_tp_t *tp)
{
    if (tp->srq)
        ibv_destroy_srq(tp->srq);
    if (tp->srx_mr)
        ibv_dereg_mr(tp->srx_mr);
    free(tp->srxmem);
    free(tp->srx);
}

/* Post ep's receive buffers on its new queue pair (none with a shared
 * receive queue). 0, or -1 with the reason in why. */
int verbs_ep_rx_post(faro_tp_t *tp, struct faro_tp_ep *ep, char *why, size_t whylen)
{
    if (tp->srq)
        return 0;
    if (tp->rx_total + tp->nrx > tp->rx_capacity) {
        snprintf(why, whylen, "the completion queue has room for %d receive buffers, %d per "
                 "peer: no more peers without a shared receive queue (raise "
                 "FARO_VERBS_PORT_PEERS for more connections beyond the job, or lower "
                 "FARO_VERBS_SRQ_PEERS or FARO_VERBS_RECV_BUFS)", tp->rx_capacity, tp->nrx);
        return -1;
    }
    if (!ep->rx) {
        ep->nrx = tp->nrx;
        if (!(ep->rx_mr = verbs_rx_area(tp, ep->nrx, &ep->rxmem, &ep->rx, ep))) {
            snprintf(why, whylen, "%d receive buffers of %zu bytes: %s (is `ulimit -l` large "
                     "enough?)", ep->nrx, tp->buf_size, strerror(errno ? errno : ENOMEM));
            return -1;
        }
    }
    for (int i = 0; i < ep->nrx; i++) {
        int rc = ep->rx[i].posted ? 0 : verbs_rx_post(tp, &ep->rx[i]);
        if (rc) {
            snprintf(why, whylen, "posting a receive buffer: %s", strerror(rc));
            return -1;
        }
    }
    return 0;
}

void verbs_ep_rx_free(struct faro_tp_ep *ep)
{
    if (ep->rx_mr)
        ibv_dereg_mr(ep->rx_mr);
    free(ep->rxmem);
    free(ep->rx);
    ep->rx_mr = NULL;
    ep->rxmem = NULL;
    ep->rx = NULL;
}

/* The buffer goes back to its queue while its connection can still receive. */
static void verbs_rx_again(faro_tp_t *tp, struct verbs_rx *rx)
{
    struct faro_tp_ep *ep = rx->ep;
    if (tp->finalizing && !ep)
        return;
    if (ep && (ep->disconnected || ep->zombie || !ep->qp))
        return;
    int rc = verbs_rx_post(tp, rx);
    if (rc && ep)
        verbs_ep_event(tp, ep, VE_QP_ERROR, "posting a receive buffer for %s again: %s",
                       ep->name, strerror(rc));
    else if (rc)
        faro_error("verbs: posting to the shared receive queue again: %s", strerror(rc));
}

/* A message arrived in rx: its credits, then its handler, then the buffer
 * goes back and its credit becomes returnable. */
static void verbs_recv(faro_tp_t *tp, struct verbs_rx *rx, const struct ibv_wc *wc)
{
    struct faro_tp_ep *ep = rx->ep ? rx->ep : verbs_ep_by_qpn(tp, wc->qp_num);
    struct verbs_msg m;
    if (!ep) { /* a queue pair already gone: its buffer serves the others */
        verbs_rx_again(tp, rx);
        return;
    }
    int st = ep->conn.state;
    if (st != VC_ACCEPTING && st != VC_UP && st != VC_CLOSING) {
        verbs_rx_again(tp, rx); /* after a failure or a close: nothing more is delivered */
        return;
    }
    int rc = verbs_msg_decode(rx->buf, wc->byte_len, FARO_TP_MAX_KINDS, FARO_TP_MAX_HDR, &m);
    if (rc) {
        verbs_ep_event(tp, ep, VE_QP_ERROR, "%s sent a message that is %s", ep->name,
                       verbs_wire_strerror(rc));
        verbs_rx_again(tp, rx);
        return;
    }
    if (st == VC_ACCEPTING && m.kind != VERBS_KIND_HELLO) {
        verbs_ep_event(tp, ep, VE_QP_ERROR, "the first message of %s was not its hello",
                       ep->name);
        verbs_rx_again(tp, rx);
        return;
    }
    if (verbs_credit_returned(&ep->cr, m.credits, m.ctl) < 0) {
        verbs_ep_event(tp, ep, VE_QP_ERROR, "%s returned more credits than it was "
                       "granted", ep->name);
        verbs_rx_again(tp, rx);
        return;
    }
    if ((m.credits || m.ctl) && (ep->qhead || ep->want_credit))
        verbs_list(tp, ep);
    const uint8_t *hdr = rx->buf + VERBS_MSG_HDR;
    switch (m.kind) {
    case VERBS_KIND_HELLO:
        verbs_ep_event(tp, ep, VE_HELLO, NULL);
        break;
    case VERBS_KIND_CREDIT:
        break;
    case VERBS_KIND_BYE:
        verbs_ep_event(tp, ep, VE_BYE, NULL);
        break;
    default:
        if (st == VC_UP && tp->handlers[m.kind] && ep->ctx)
            tp->handlers[m.kind](tp->env->core, ep->ctx, hdr, m.hdrlen, hdr + m.hdrlen,
                                 wc->byte_len - VERBS_MSG_HDR - m.hdrlen);
        break;
    }
    verbs_rx_again(tp, rx);
    verbs_credit_consumed(&ep->cr, m.kind == VERBS_KIND_CREDIT);
    verbs_credit_check(tp, ep);
}

/* The endpoint a failed work completion belongs to is lost, unless the
 * failure is the flush of a queue pair already closing or failed. */
static void verbs_wc_failed(faro_tp_t *tp, struct faro_tp_ep *ep, const struct ibv_wc *wc,
                            const char *what)
{
    if (!ep)
        return;
    verbs_ep_event(tp, ep, VE_QP_ERROR, "%s %s failed: %s (vendor error %#x)", what,
                   ep->name, ibv_wc_status_str(wc->status), wc->vendor_err);
}

static void verbs_complete(faro_tp_t *tp, const struct ibv_wc *wc)
{
    int type = *(const int *)(uintptr_t)wc->wr_id;
    int ok = wc->status == IBV_WC_SUCCESS;
    if (type == VERBS_OP_RECV) {
        struct verbs_rx *rx = (struct verbs_rx *)(uintptr_t)wc->wr_id;
        rx->posted = 0;
        tp->rx_total--;
        if (rx->ep)
            rx->ep->rx_posted--;
        if (ok) {
            verbs_recv(tp, rx, wc);
            return;
        }
        struct faro_tp_ep *ep = rx->ep ? rx->ep : verbs_ep_by_qpn(tp, wc->qp_num);
        if (!rx->ep)
            verbs_rx_again(tp, rx); /* a shared buffer a dying queue pair held */
        if (wc->status != IBV_WC_WR_FLUSH_ERR)
            verbs_wc_failed(tp, ep, wc, "a receive from");
        return;
    }
    struct verbs_tx *tx = (struct verbs_tx *)(uintptr_t)wc->wr_id;
    struct faro_tp_ep *ep = tx->ep;
    if (type == VERBS_OP_SEND)
        verbs_tx_done(tp, tx, ok);
    else
        verbs_rma_tx_done(tp, tx, ok);
    if (!ok)
        verbs_wc_failed(tp, ep, wc, type == VERBS_OP_SEND ? "a send to" : "an RDMA read or "
                                                                          "write of");
}

int verbs_poll_cq(faro_tp_t *tp, int max)
{
    struct ibv_wc wc[VERBS_CQ_BATCH];
    int n = 0;
    if (tp->nstash) { /* what wait_fd took out */
        int k = tp->nstash;
        tp->nstash = 0;
        memcpy(wc, tp->stash, (size_t)k * sizeof *wc);
        for (int i = 0; i < k; i++)
            verbs_complete(tp, &wc[i]);
        n += k;
    }
    while (n < max) {
        int r = ibv_poll_cq(tp->cq, VERBS_CQ_BATCH, wc);
        if (r < 0) {
            faro_error("verbs: reading the completion queue failed");
            return -1;
        }
        for (int i = 0; i < r; i++)
            verbs_complete(tp, &wc[i]);
        n += r;
        if (r < VERBS_CQ_BATCH)
            break;
    }
    return n;
}

static struct faro_tp_ep *verbs_ep_by_qp(faro_tp_t *tp, const struct ibv_qp *qp)
{
    for (struct faro_tp_ep *ep = tp->eps; ep; ep = ep->next)
        if (ep->qp == qp)
            return ep;
    return NULL;
}

/* Every endpoint is lost: the device is gone or broken. */
static void verbs_fail_all(faro_tp_t *tp, const char *what)
{
    faro_error("verbs: %s %s", tp->ch.dev, what);
    for (struct faro_tp_ep *ep = tp->eps; ep; ep = ep->next)
        verbs_ep_event(tp, ep, VE_DEVICE_REMOVAL, "%s %s", tp->ch.dev, what);
}

void verbs_async_poll(faro_tp_t *tp)
{
    struct ibv_async_event ev;
    while (ibv_get_async_event(tp->ctx, &ev) == 0) { /* the fd is non-blocking */
        struct faro_tp_ep *ep = NULL;
        switch (ev.event_type) {
        case IBV_EVENT_QP_FATAL:
        case IBV_EVENT_QP_REQ_ERR:
        case IBV_EVENT_QP_ACCESS_ERR:
            if ((ep = verbs_ep_by_qp(tp, ev.element.qp)))
                verbs_ep_event(tp, ep, VE_QP_ERROR, "the connection to %s failed: %s",
                               ep->name, ibv_event_type_str(ev.event_type));
            break;
        case IBV_EVENT_COMM_EST: /* data before rdma_cm's RTU: tell rdma_cm (rdma_notify(3)) */
            if ((ep = verbs_ep_by_qp(tp, ev.element.qp)) && ep->id)
                (void)rdma_notify(ep->id, IBV_EVENT_COMM_EST);
            break;
        case IBV_EVENT_QP_LAST_WQE_REACHED:
            if ((ep = verbs_ep_by_qp(tp, ev.element.qp)))
                ep->last_wqe = 1;
            break;
        case IBV_EVENT_CQ_ERR:
        case IBV_EVENT_SRQ_ERR:
        case IBV_EVENT_DEVICE_FATAL:
            ibv_ack_async_event(&ev);
            verbs_fail_all(tp, ibv_event_type_str(ev.event_type));
            continue;
        case IBV_EVENT_PORT_ERR:
            faro_warn("verbs: %s port %d went down", tp->ch.dev, ev.element.port_num);
            break;
        default:
            break;
        }
        ibv_ack_async_event(&ev);
    }
}

int verbs_progress(faro_tp_t *tp)
{
    if (tp->kicked) {
        eventfd_t v;
        (void)eventfd_read(tp->kickfd, &v);
        tp->kicked = 0;
    }
    int n = verbs_poll_cq(tp, VERBS_POLL_MAX);
    if (n < 0)
        return FARO_TP_ERR;
    if (__builtin_expect(tp->qeps != NULL, 0))
        n += verbs_drain(tp);
    if (__builtin_expect(tp->rma_head != NULL, 0))
        n += verbs_rma_drain(tp);
    if (__builtin_expect(tp->slow_due || tp->nopening || ++tp->polls % VERBS_SLOW_POLLS == 0,
                         0)) {
        tp->slow_due = 0;
        verbs_cm_poll(tp);
        verbs_async_poll(tp);
        if (tp->nzombie)
            verbs_reap(tp);
    }
    if (__builtin_expect(tp->nreport > 0, 0))
        n += verbs_report(tp);
    return n;
}
