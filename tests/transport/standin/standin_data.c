/*
 * The verbs stand-in, the data path (standin.h has the picture and the
 * rules): posting sends, RDMA and receives, and what a queue pair does with
 * the packets of its connection, as the responder (a message lands in a
 * posted receive, a write in registered memory, a read is answered) and as
 * the requester (answers complete work requests, in order).
 */
#include "config.h"

#include "standin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sd_qp_rts(struct sd_qp *qp)
{
    if (qp->qp.state == IBV_QPS_INIT)
        qp->qp.state = IBV_QPS_RTS; /* through RTR, as librdmacm moves it */
}

static struct sd_swr *sd_swr_at(struct sd_qp *qp, int i)
{
    return &qp->sq[(qp->sq_head + i) % (int)qp->cap.max_send_wr];
}

static uint64_t sd_hash(const struct sd_swr *w)
{
    uint64_t h = 1469598103934665603ull;
    for (int k = 0; k < w->nsge; k++) {
        const uint8_t *p = (const uint8_t *)(uintptr_t)w->sge[k].addr;
        for (uint32_t i = 0; i < w->sge[k].length; i++)
            h = (h ^ p[i]) * 1099511628211ull;
    }
    return h;
}

/* Queue the completions of the answered work requests at the head, in order. */
static void sd_sq_advance(struct sd_qp *qp)
{
    while (qp->sq_n && sd_swr_at(qp, 0)->done) {
        struct sd_swr *w = sd_swr_at(qp, 0);
        for (int k = 0; w->held && k < w->nsge; k++)
            sd_mr_busy(w->sge[k].lkey, -1);
        if (w->status == IBV_WC_SUCCESS && w->held && w->op != IBV_WC_RDMA_READ &&
            sd_hash(w) != w->hash)
            sd_error("the bytes of a %s on queue pair %#x changed before its completion "
                     "(a device may have sent either)", w->op == IBV_WC_SEND ? "send"
                                                                             : "RDMA write",
                     qp->qp.qp_num);
        struct ibv_wc wc = { .wr_id = w->wr_id, .status = w->status, .opcode = w->op,
                             .byte_len = w->op == IBV_WC_RDMA_READ ? w->len : 0,
                             .qp_num = qp->qp.qp_num };
        sd_cq_push(qp->qp.send_cq, &wc, qp);
        qp->sq_head = (qp->sq_head + 1) % (int)qp->cap.max_send_wr;
        qp->sq_n--;
    }
}

static void sd_recv_complete(struct sd_qp *qp, const struct sd_rwr *r, enum ibv_wc_status st,
                             uint32_t len)
{
    struct ibv_wc wc = { .wr_id = r->wr_id, .status = st, .opcode = IBV_WC_RECV,
                         .byte_len = len, .qp_num = qp->qp.qp_num, .src_qp = qp->peer_qpn };
    sd_mr_busy(r->sge.lkey, -1);
    sd_cq_push(qp->qp.recv_cq, &wc, NULL);
}

/* The error state: what is posted is flushed (receives of an SRQ stay in it,
 * and the last-WQE event says the queue pair will take no more). */
void sd_qp_to_err(struct sd_qp *qp)
{
    if (qp->qp.state == IBV_QPS_ERR)
        return;
    qp->qp.state = IBV_QPS_ERR;
    for (int i = 0; i < qp->sq_n; i++) {
        struct sd_swr *w = sd_swr_at(qp, i);
        if (!w->done) {
            w->done = 1;
            w->status = IBV_WC_WR_FLUSH_ERR;
        }
    }
    sd_sq_advance(qp);
    if (qp->rs_on && qp->rs_have_rwr) {
        sd_recv_complete(qp, &qp->rs_rwr, IBV_WC_WR_FLUSH_ERR, 0);
        qp->rs_on = qp->rs_have_rwr = 0;
    }
    while (qp->rq_n) {
        struct sd_rwr r = qp->rq[qp->rq_head];
        qp->rq_head = (qp->rq_head + 1) % (int)qp->cap.max_recv_wr;
        qp->rq_n--;
        sd_recv_complete(qp, &r, IBV_WC_WR_FLUSH_ERR, 0);
    }
    if (qp->qp.srq)
        sd_push_async(IBV_EVENT_QP_LAST_WQE_REACHED, qp);
}

static void sd_answer_wr(struct sd_qp *qp, struct sd_swr *w, enum ibv_wc_status st)
{
    w->done = 1;
    w->status = st;
    if (st != IBV_WC_SUCCESS)
        sd_qp_to_err(qp); /* flushes the rest */
    sd_sq_advance(qp);
}

void sd_qp_peer_gone(struct sd_qp *qp)
{
    qp->peer_err = 1;
    for (int i = 0; i < qp->sq_n; i++)
        if (!sd_swr_at(qp, i)->done) { /* never answered: the retries ran out */
            sd_answer_wr(qp, sd_swr_at(qp, i), IBV_WC_RETRY_EXC_ERR);
            return;
        }
}

static int sd_bad_post(struct sd_qp *qp, const char *what, int err)
{
    sd_error("%s (queue pair %#x)", what, qp->qp.qp_num);
    return err;
}

/* One send-side work request. 0, or the error ibv_post_send returns. */
static int sd_post_one(struct sd_qp *qp, const struct ibv_send_wr *wr)
{
    char msg[200];
    uint64_t total = 0;
    int inl = (wr->send_flags & IBV_SEND_INLINE) != 0;
    for (int i = 0; i < wr->num_sge; i++)
        total += wr->sg_list[i].length;
    if (qp->qp.state != IBV_QPS_RTS && qp->qp.state != IBV_QPS_ERR) {
        snprintf(msg, sizeof msg, "a send posted in state %s (sends need RTS: the connection "
                 "is not established)", sd_state_name(qp->qp.state));
        return sd_bad_post(qp, msg, EINVAL);
    }
    if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_RDMA_WRITE &&
        wr->opcode != IBV_WR_RDMA_READ)
        return sd_bad_post(qp, "an opcode the stand-in does not model", EINVAL);
    if (wr->num_sge < 0 || wr->num_sge > (int)qp->cap.max_send_sge) {
        snprintf(msg, sizeof msg, "a work request of %d pieces (the queue pair takes %u)",
                 wr->num_sge, qp->cap.max_send_sge);
        return sd_bad_post(qp, msg, EINVAL);
    }
    if (inl && (wr->opcode == IBV_WR_RDMA_READ || total > qp->cap.max_inline_data)) {
        snprintf(msg, sizeof msg, "an inline %s of %llu bytes (the queue pair sends %u inline)",
                 wr->opcode == IBV_WR_RDMA_READ ? "RDMA read" : "send",
                 (unsigned long long)total, qp->cap.max_inline_data);
        return sd_bad_post(qp, msg, EINVAL);
    }
    if (!(wr->send_flags & IBV_SEND_SIGNALED))
        return sd_bad_post(qp, "an unsignaled work request (the stand-in needs every one "
                           "signaled)", EINVAL);
    if (total > SD_MAX_MSG)
        return sd_bad_post(qp, "a work request longer than the port's max_msg_sz", EINVAL);
    if (qp->sq_used >= (int)qp->cap.max_send_wr) {
        snprintf(msg, sizeof msg, "the send queue overrun: %d work requests not completed "
                 "and polled, it holds %u", qp->sq_used, qp->cap.max_send_wr);
        return sd_bad_post(qp, msg, ENOMEM);
    }

    struct sd_swr *w = sd_swr_at(qp, qp->sq_n);
    *w = (struct sd_swr){ .wr_id = wr->wr_id, .seq = qp->next_seq++, .len = (uint32_t)total,
                          .nsge = wr->num_sge, .inl = inl,
                          .op = wr->opcode == IBV_WR_SEND       ? IBV_WC_SEND
                                : wr->opcode == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE
                                                                  : IBV_WC_RDMA_READ };
    memcpy(w->sge, wr->sg_list, (size_t)wr->num_sge * sizeof *w->sge);
    qp->sq_n++;
    qp->sq_used++;
    if (wr->opcode == IBV_WR_SEND) {
        sd.sends++;
        sd.inline_sends += inl;
    } else if (wr->opcode == IBV_WR_RDMA_WRITE) {
        sd.writes++;
    } else {
        sd.reads++;
    }
    if (qp->qp.state == IBV_QPS_ERR) {
        sd_answer_wr(qp, w, IBV_WC_WR_FLUSH_ERR);
        return 0;
    }
    for (int k = 0; !inl && k < w->nsge; k++) {
        const char *why;
        int need = wr->opcode == IBV_WR_RDMA_READ ? IBV_ACCESS_LOCAL_WRITE : 0;
        if (!sd_mr_check(w->sge[k].lkey, 0, qp->qp.pd, w->sge[k].addr, w->sge[k].length, need,
                         &why)) {
            sd_error("queue pair %#x: lkey %#x of %s (%u bytes at %#llx) %s", qp->qp.qp_num,
                     w->sge[k].lkey, wr->opcode == IBV_WR_SEND ? "a send"
                                     : wr->opcode == IBV_WR_RDMA_WRITE ? "an RDMA write"
                                                                       : "an RDMA read",
                     w->sge[k].length, (unsigned long long)w->sge[k].addr, why);
            for (int j = 0; j < k; j++)
                sd_mr_busy(w->sge[j].lkey, -1);
            sd_answer_wr(qp, w, IBV_WC_LOC_PROT_ERR);
            return 0;
        }
        sd_mr_busy(w->sge[k].lkey, 1);
    }
    w->held = !inl;
    struct sd_conn *c = qp->id ? qp->id->conn : NULL;
    if (qp->peer_err || !c) {
        sd_answer_wr(qp, w, IBV_WC_RETRY_EXC_ERR);
        return 0;
    }
    struct sd_pkt h = { .type = wr->opcode == IBV_WR_SEND ? SD_SEND
                                : wr->opcode == IBV_WR_RDMA_WRITE ? SD_WRITE : SD_READ,
                        .seq = w->seq, .total = total, .raddr = wr->wr.rdma.remote_addr,
                        .rkey = wr->wr.rdma.rkey };
    if (wr->opcode == IBV_WR_RDMA_READ) {
        h.last = 1;
        sd_send_pkt(c, &h, sizeof h, NULL, 0);
        return 0;
    }
    uint8_t *data = malloc(total ? total : 1);
    if (!data)
        return ENOMEM;
    size_t off = 0;
    for (int k = 0; k < w->nsge; k++) {
        memcpy(data + off, (void *)(uintptr_t)w->sge[k].addr, w->sge[k].length);
        off += w->sge[k].length;
    }
    if (!inl)
        w->hash = sd_hash(w);
    do { /* in pieces of SD_FRAG; a zero-length message is one empty piece */
        size_t n = total - h.off < SD_FRAG ? total - h.off : SD_FRAG;
        h.last = h.off + n == total;
        sd_send_pkt(c, &h, sizeof h, data + h.off, n);
        h.off += n;
    } while (h.off < total);
    free(data);
    return 0;
}

int sd_post_send(struct ibv_qp *q, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    sd_init();
    sd_pump();
    for (; wr; wr = wr->next) {
        int rc = sd_post_one((struct sd_qp *)q, wr);
        if (rc) {
            *bad = wr;
            return rc;
        }
    }
    return 0;
}

int sd_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    struct sd_qp *qp = (struct sd_qp *)q;
    char msg[160];
    sd_init();
    for (; wr; wr = wr->next) {
        int err = 0;
        if (q->srq)
            err = sd_bad_post(qp, "ibv_post_recv on a queue pair that takes its receives from "
                              "an SRQ", EINVAL);
        else if (wr->num_sge != 1)
            err = sd_bad_post(qp, "a receive of other than one piece (the stand-in models "
                              "one)", EINVAL);
        else if (qp->rq_n >= (int)qp->cap.max_recv_wr) {
            snprintf(msg, sizeof msg, "the receive queue overrun: %d receives posted, it "
                     "holds %u", qp->rq_n + 1, qp->cap.max_recv_wr);
            err = sd_bad_post(qp, msg, ENOMEM);
        }
        if (err) {
            *bad = wr;
            return err;
        }
        struct sd_rwr r = { wr->wr_id, wr->sg_list[0] };
        sd_mr_busy(r.sge.lkey, 1);
        if (q->state == IBV_QPS_ERR) {
            sd_recv_complete(qp, &r, IBV_WC_WR_FLUSH_ERR, 0);
            continue;
        }
        qp->rq[(qp->rq_head + qp->rq_n++) % (int)qp->cap.max_recv_wr] = r;
    }
    return 0;
}

/* ---- the packets of a connection ---- */

static void sd_answer(struct sd_conn *c, int type, uint64_t seq, int answer)
{
    struct sd_pkt a = { .type = (uint8_t)type, .seq = seq, .last = 1,
                        .answer = (uint16_t)answer };
    sd_send_pkt(c, &a, sizeof a, NULL, 0);
}

/* A receive for an arriving message: the SRQ's or the queue pair's. */
static int sd_take_recv(struct sd_qp *qp, struct sd_rwr *r)
{
    if (qp->qp.srq) {
        struct sd_srq *s = (struct sd_srq *)qp->qp.srq;
        if (!s->n)
            return 0;
        *r = s->q[s->head];
        s->head = (s->head + 1) % s->cap;
        s->n--;
        return 1;
    }
    if (!qp->rq_n)
        return 0;
    *r = qp->rq[qp->rq_head];
    qp->rq_head = (qp->rq_head + 1) % (int)qp->cap.max_recv_wr;
    qp->rq_n--;
    return 1;
}

/* Responder: the first piece of a message. */
static void sd_send_start(struct sd_qp *qp, const struct sd_pkt *h)
{
    const char *why;
    qp->rs_on = 1;
    qp->rs_seq = h->seq;
    qp->rs_status = SD_ANS_OK;
    qp->rs_have_rwr = sd_take_recv(qp, &qp->rs_rwr);
    if (!qp->rs_have_rwr) {
        sd_error("a %llu-byte message reached queue pair %#x with no receive posted (a "
                 "device would answer receiver-not-ready; credits should prevent it)",
                 (unsigned long long)h->total, qp->qp.qp_num);
        qp->rs_status = SD_ANS_RNR;
    } else if (h->total > qp->rs_rwr.sge.length) {
        sd_error("a %llu-byte message reached queue pair %#x, whose receive buffer holds %u",
                 (unsigned long long)h->total, qp->qp.qp_num, qp->rs_rwr.sge.length);
        qp->rs_status = SD_ANS_INVREQ;
    } else if (!sd_mr_check(qp->rs_rwr.sge.lkey, 0, qp->qp.pd, qp->rs_rwr.sge.addr, h->total,
                            IBV_ACCESS_LOCAL_WRITE, &why)) {
        sd_error("queue pair %#x: the lkey %#x of a receive buffer %s", qp->qp.qp_num,
                 qp->rs_rwr.sge.lkey, why);
        qp->rs_status = SD_ANS_OP;
    }
}

static void sd_send_end(struct sd_conn *c, struct sd_qp *qp, const struct sd_pkt *h)
{
    int st = qp->rs_status;
    qp->rs_on = 0;
    if (qp->rs_have_rwr) {
        qp->rs_have_rwr = 0;
        sd_recv_complete(qp, &qp->rs_rwr, st == SD_ANS_OK      ? IBV_WC_SUCCESS
                                          : st == SD_ANS_INVREQ ? IBV_WC_LOC_LEN_ERR
                                                                : IBV_WC_LOC_PROT_ERR,
                         (uint32_t)h->total);
    }
    sd_answer(c, SD_ACK, h->seq, st);
    if (st == SD_ANS_INVREQ || st == SD_ANS_OP)
        sd_qp_to_err(qp);
}

static void sd_responder(struct sd_conn *c, struct sd_qp *qp, const struct sd_pkt *h,
                         const uint8_t *data, size_t len)
{
    const char *why;
    int receiving = qp && (qp->qp.state == IBV_QPS_RTR || qp->qp.state == IBV_QPS_RTS);
    if (!receiving) { /* dropped: the requester's retries will run out */
        if (h->last)
            sd_answer(c, h->type == SD_READ ? SD_RRESP : SD_ACK, h->seq, SD_ANS_DROP);
        return;
    }
    switch (h->type) {
    case SD_SEND:
        if (h->off == 0)
            sd_send_start(qp, h);
        if (qp->rs_status == SD_ANS_OK)
            memcpy((uint8_t *)(uintptr_t)qp->rs_rwr.sge.addr + h->off, data, len);
        if (h->last)
            sd_send_end(c, qp, h);
        return;
    case SD_WRITE:
        if (h->off == 0) {
            qp->rs_status = SD_ANS_OK;
            if (!sd_mr_check(h->rkey, 1, qp->qp.pd, h->raddr, h->total,
                             IBV_ACCESS_REMOTE_WRITE, &why)) {
                sd_error("an RDMA write of %llu bytes at %#llx to queue pair %#x: rkey %#x %s",
                         (unsigned long long)h->total, (unsigned long long)h->raddr,
                         qp->qp.qp_num, h->rkey, why);
                qp->rs_status = SD_ANS_ACCESS;
            }
        }
        if (qp->rs_status == SD_ANS_OK)
            memcpy((uint8_t *)(uintptr_t)(h->raddr + h->off), data, len);
        if (h->last)
            sd_answer(c, SD_ACK, h->seq, qp->rs_status);
        return;
    case SD_READ:
        if (!sd_mr_check(h->rkey, 1, qp->qp.pd, h->raddr, h->total, IBV_ACCESS_REMOTE_READ,
                         &why)) {
            sd_error("an RDMA read of %llu bytes at %#llx from queue pair %#x: rkey %#x %s",
                     (unsigned long long)h->total, (unsigned long long)h->raddr,
                     qp->qp.qp_num, h->rkey, why);
            sd_answer(c, SD_RRESP, h->seq, SD_ANS_ACCESS);
            return;
        }
        struct sd_pkt r = { .type = SD_RRESP, .seq = h->seq, .total = h->total };
        do {
            size_t n = h->total - r.off < SD_FRAG ? h->total - r.off : SD_FRAG;
            r.last = r.off + n == h->total;
            sd_send_pkt(c, &r, sizeof r, (const void *)(uintptr_t)(h->raddr + r.off), n);
            r.off += n;
        } while (r.off < h->total);
        return;
    }
}

static enum ibv_wc_status sd_wc_status(int answer)
{
    switch (answer) {
    case SD_ANS_OK: return IBV_WC_SUCCESS;
    case SD_ANS_RNR: return IBV_WC_RNR_RETRY_EXC_ERR;
    case SD_ANS_ACCESS: return IBV_WC_REM_ACCESS_ERR;
    case SD_ANS_INVREQ: return IBV_WC_REM_INV_REQ_ERR;
    case SD_ANS_OP: return IBV_WC_REM_OP_ERR;
    default: return IBV_WC_RETRY_EXC_ERR;
    }
}

/* Requester: a piece of an RDMA read's response lands in the local pieces. */
static int sd_scatter(struct sd_qp *qp, struct sd_swr *w, uint64_t off, const uint8_t *data,
                      size_t len)
{
    uint64_t pos = 0;
    for (int k = 0; k < w->nsge && len; k++) {
        uint64_t a = w->sge[k].addr, n = w->sge[k].length;
        if (off >= pos + n) {
            pos += n;
            continue;
        }
        uint64_t skip = off - pos, take = n - skip < len ? n - skip : len;
        const char *why;
        if (!sd_mr_check(w->sge[k].lkey, 0, qp->qp.pd, a + skip, take, IBV_ACCESS_LOCAL_WRITE,
                         &why)) {
            sd_error("queue pair %#x: an RDMA read's response lands where lkey %#x %s",
                     qp->qp.qp_num, w->sge[k].lkey, why);
            return -1;
        }
        memcpy((uint8_t *)(uintptr_t)(a + skip), data, take);
        data += take;
        len -= take;
        off += take;
        pos += n;
    }
    return 0;
}

static void sd_requester(struct sd_qp *qp, const struct sd_pkt *h, const uint8_t *data,
                         size_t len)
{
    struct sd_swr *w = NULL;
    for (int i = 0; i < qp->sq_n && !w; i++)
        if (sd_swr_at(qp, i)->seq == h->seq)
            w = sd_swr_at(qp, i);
    if (!w || w->done) /* flushed meanwhile */
        return;
    if (h->answer != SD_ANS_OK) {
        sd_answer_wr(qp, w, sd_wc_status(h->answer));
        return;
    }
    if (h->type == SD_RRESP && sd_scatter(qp, w, h->off, data, len) < 0) {
        sd_answer_wr(qp, w, IBV_WC_LOC_PROT_ERR);
        return;
    }
    if (h->last)
        sd_answer_wr(qp, w, IBV_WC_SUCCESS);
}

void sd_qp_packet(struct sd_conn *c, struct sd_qp *qp, const struct sd_pkt *h,
                  const uint8_t *data, size_t len)
{
    if (h->type == SD_ACK || h->type == SD_RRESP) {
        if (qp)
            sd_requester(qp, h, data, len);
        return;
    }
    sd_responder(c, qp, h, data, len);
}
