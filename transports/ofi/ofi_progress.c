/*
 * ofi transport: receiving and progress.
 *
 * Receives land in FARO_OFI_RECV_BUFS pre-posted buffers of OFI_MAX_MSG bytes,
 * one message each (any sender). Every message is handed to its handler
 * straight from its buffer; handlers copy what they keep, so the buffer is
 * posted again as soon as the handler returns. The receive memory is these
 * buffers only, whatever the number of peers. A sender never overruns them:
 * the provider holds a message that finds no posted buffer until one is
 * posted again (FI_RM_ENABLED; tcp;ofi_rxm stops reading that connection, so
 * TCP pushes back on the sender, whose sends then queue in its transport).
 *
 * Not FI_MULTI_RECV: with libfabric 1.17, shm's multi-receive buffers stall
 * once messages have to wait for a buffer (conformance case "order", about
 * one run in three), and tcp;ofi_rxm overwrites a segmented or rendezvous
 * message in one with the messages that follow it. Single buffers work with
 * every provider, at the price of a whole buffer per small message.
 *
 * Progress reads at most OFI_POLL_MAX completions of sends, receives and RMA
 * from the one completion queue, then posts what waited for room.
 */
#include "config.h"

#include "ofi/ofi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include "base/log.h"
#include "base/tunables.h"

#define OFI_CHECK_POLLS 256

/* Post a receive buffer; when the provider has no room now, progress tries
 * again. 0, or the provider's error. */
static int ofi_rx_post(faro_tp_t *tp, struct ofi_rx *rx)
{
    struct iovec v = { rx->buf, rx->size };
    struct fi_msg msg = { .msg_iov = &v, .desc = &rx->desc, .iov_count = 1,
                          .addr = FI_ADDR_UNSPEC, .context = rx };
    ssize_t r = fi_recvmsg(tp->ep, &msg, FI_COMPLETION);
    if (r == 0)
        rx->posted = 1;
    else if (r == -FI_EAGAIN)
        tp->nunposted++;
    return r == -FI_EAGAIN ? 0 : (int)r;
}

int ofi_rx_init(faro_tp_t *tp, char *why, size_t whylen)
{
    void *desc = NULL;
    tp->nrx = (int)faro_tun_int(FARO_TUN_OFI_RECV_BUFS);
    if (tp->info->rx_attr->size && (size_t)tp->nrx > tp->info->rx_attr->size)
        tp->nrx = (int)tp->info->rx_attr->size; /* more would never be taken */
    tp->rx_size = OFI_MAX_MSG;
    tp->rxmem = aligned_alloc(4096, (size_t)tp->nrx * tp->rx_size);
    tp->rx = calloc((size_t)tp->nrx, sizeof *tp->rx);
    if (!tp->rxmem || !tp->rx) {
        snprintf(why, whylen, "out of memory for %d receive buffers of %zu bytes", tp->nrx,
                 tp->rx_size);
        return -1;
    }
    if (ofi_reg_local(tp, tp->rxmem, (size_t)tp->nrx * tp->rx_size, &tp->rx_mr, &desc, why,
                      whylen) < 0)
        return -1;
    for (int i = 0; i < tp->nrx; i++) {
        struct ofi_rx *rx = &tp->rx[i];
        rx->op.type = OFI_OP_RECV;
        rx->buf = tp->rxmem + (size_t)i * tp->rx_size;
        rx->size = tp->rx_size;
        rx->desc = desc;
        int r = ofi_rx_post(tp, rx);
        if (r) {
            snprintf(why, whylen, "posting a receive buffer: %s", fi_strerror(-r));
            return -1;
        }
    }
    return 0;
}

void ofi_rx_fini(faro_tp_t *tp)
{
    if (tp->rx_mr)
        fi_close(&tp->rx_mr->fid);
    free(tp->rxmem);
    free(tp->rx);
}

/* One arrived message: checked, then to its handler. */
void ofi_deliver(faro_tp_t *tp, const uint8_t *buf, size_t len)
{
    struct ofi_wire w;
    if (len < sizeof w) {
        ofi_dropped(tp, "a message too short to carry Faro's header", -1);
        return;
    }
    memcpy(&w, buf, sizeof w);
    if (__builtin_expect(w.tag != tp->tag, 0)) { /* a port's, or a stranger's */
        ofi_port_deliver(tp, &w, buf, len);
        return;
    }
    if (w.src < 0 || w.src >= tp->env->size || w.hdrlen > FARO_TP_MAX_HDR ||
        sizeof w + w.hdrlen > len) {
        ofi_dropped(tp, "a malformed message", w.src);
        return;
    }
    const uint8_t *data = buf + sizeof w + w.hdrlen;
    size_t dlen = len - sizeof w - w.hdrlen;
    if (w.kind == OFI_KIND_HELLO) {
        ofi_hello_in(tp, &w, data, dlen);
        return;
    }
    struct faro_tp_ep *p = tp->job[w.src];
    if (!p || !p->heard) {
        ofi_dropped(tp, "a message from a rank that has not said hello", w.src);
        return;
    }
    if (w.kind == OFI_KIND_BYE) {
        ofi_bye_in(tp, p);
        return;
    }
    if (w.kind < FARO_TP_MAX_KINDS && tp->handlers[w.kind])
        tp->handlers[w.kind](tp->env->core, p->ctx, buf + sizeof w, w.hdrlen, data, dlen);
}

static void ofi_complete(faro_tp_t *tp, const struct fi_cq_data_entry *e)
{
    struct ofi_op *op = e->op_context;
    switch (op->type) {
    case OFI_OP_SEND:
        ofi_tx_done(tp, (struct ofi_tx *)op, 0);
        break;
    case OFI_OP_RECV: {
        struct ofi_rx *rx = (struct ofi_rx *)op;
        rx->posted = 0;
        ofi_deliver(tp, rx->buf, e->len);
        if (ofi_rx_post(tp, rx))
            faro_error("ofi: posting a receive buffer again failed");
        break;
    }
    case OFI_OP_RMA:
        ofi_rma_done(tp, (struct ofi_rma *)op, 0);
        break;
    }
}

/* A completion with an error: the operation's peer is lost (sends, RMA), or
 * a receive buffer came back (cancelled at close, or a message did not fit). */
static void ofi_complete_err(faro_tp_t *tp)
{
    struct fi_cq_err_entry err;
    char buf[256];
    memset(&err, 0, sizeof err);
    if (fi_cq_readerr(tp->cq, &err, 0) != 1)
        return;
    struct ofi_op *op = err.op_context;
    const char *text = fi_cq_strerror(tp->cq, err.prov_errno, err.err_data, buf, sizeof buf);
    if (!text || !*text)
        text = fi_strerror(err.err);
    if (!op)
        return;
    switch (op->type) {
    case OFI_OP_SEND: {
        struct ofi_tx *tx = (struct ofi_tx *)op;
        ofi_peer_fail(tp, tx->ep, "a send to %s failed: %s", tx->ep->name, text);
        ofi_tx_done(tp, tx, -err.err);
        break;
    }
    case OFI_OP_RECV:
        ((struct ofi_rx *)op)->posted = 0;
        if (tp->finalizing || err.err == FI_ECANCELED)
            break;
        faro_error("ofi: a receive failed: %s", text);
        if (ofi_rx_post(tp, (struct ofi_rx *)op))
            faro_error("ofi: posting a receive buffer again failed");
        break;
    case OFI_OP_RMA: {
        struct ofi_rma *r = (struct ofi_rma *)op;
        ofi_peer_fail(tp, r->req->ep, "%s of %s's memory failed: %s",
                      r->put ? "a put into" : "a get", r->req->ep->name, text);
        ofi_rma_done(tp, r, -err.err);
        break;
    }
    }
}

int ofi_progress(faro_tp_t *tp)
{
    struct fi_cq_data_entry e[OFI_CQ_BATCH];
    int n = 0;

    if (tp->kicked) {
        eventfd_t v;
        (void)eventfd_read(tp->kickfd, &v);
        tp->kicked = 0;
    }
    while (n < OFI_POLL_MAX) {
        ssize_t r = fi_cq_read(tp->cq, e, OFI_CQ_BATCH);
        if (r == -FI_EAGAIN)
            break;
        if (r == -FI_EAVAIL) {
            ofi_complete_err(tp);
            n++;
            continue;
        }
        if (r < 0) {
            faro_error("ofi: reading the completion queue failed: %s", fi_strerror((int)-r));
            return FARO_TP_ERR;
        }
        for (ssize_t i = 0; i < r; i++)
            ofi_complete(tp, &e[i]);
        n += (int)r;
        if (r < OFI_CQ_BATCH)
            break;
    }
    if (__builtin_expect(tp->qeps != NULL, 0))
        n += ofi_drain(tp);
    if (__builtin_expect(tp->rma_head != NULL, 0))
        n += ofi_rma_drain(tp);
    if (__builtin_expect(tp->nunposted > 0, 0)) {
        tp->nunposted = 0;
        for (int i = 0; i < tp->nrx; i++)
            if (!tp->rx[i].posted && ofi_rx_post(tp, &tp->rx[i]))
                faro_error("ofi: posting a receive buffer again failed");
    }
    if (__builtin_expect(++tp->polls % OFI_CHECK_POLLS == 0, 0))
        ofi_check_peers(tp);
    if (__builtin_expect(tp->nfail > 0, 0))
        n += ofi_report_failures(tp);
    return n;
}
