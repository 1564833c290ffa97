/*
 * Receiver side of the protocols: arrival handlers, matching, and delivery
 * into the user's buffer. A message longer than the receive buffer is
 * truncated to it and reported as MPI_ERR_TRUNCATE; the rest is dropped but
 * the protocol still runs to its end so the sender completes.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "p2p/header.h"
#include "p2p/match.h"
#include "p2p/request.h"
#include "base/log.h"

static void set_status(struct faro_request *r, const struct faro_hdr_match *m)
{
    r->status.MPI_SOURCE = m->src;
    r->status.MPI_TAG = m->tag;
    if (m->len > r->len) {
        r->status.MPI_ERROR = MPI_ERR_TRUNCATE;
        r->status.faro_count = (long long)r->len;
        r->total = m->len; /* the incoming size, for the error message (wait.c) */
    } else {
        r->status.faro_count = (long long)m->len;
    }
}

static inline void copy_in(struct faro_request *r, size_t off, const void *src, size_t n)
{
    if (off >= r->len)
        return;
    if (n > r->len - off)
        n = r->len - off;
    memcpy(r->data + off, src, n);
}

void faro_recv_finish(struct faro_request *r)
{
    if (r->tmp && !r->landed)
        faro_type_unpack(r->tmp, (size_t)r->status.faro_count, r->ubuf, r->type);
    faro_req_complete(r);
}

static void send_ack(int peer, uint64_t sreq, unsigned kind)
{
    struct faro_hdr_ack a = {.sreq = sreq};
    faro_send_ctrl(peer, kind, &a, sizeof a);
}

/* ---- rendezvous ---- */

/* The sender's buffer is read: let its key and our registration go, tell it. */
static void get_finish(struct faro_request *r)
{
    struct faro_transport *t = faro.peers[r->peer].t;
    t->ops->rkey_release(t->tp, r->rkey);
    r->rkey = NULL;
    if (r->reg) {
        t->ops->mem_dereg(t->tp, r->reg);
        r->reg = NULL;
    }
    faro_trace("get from rank %d done (%zu bytes): FIN", r->peer,
               (size_t)r->status.faro_count);
    send_ack(r->peer, r->rreq, FARO_AM_FIN);
    faro_recv_finish(r);
}

/* One piece of an asynchronous get landed; the last one finishes. */
static void get_done(void *arg, int status)
{
    struct faro_request *r = arg;
    faro.outstanding--;
    if (status < 0)
        faro_req_tp_failed(r, "a rendezvous get", status);
    if (--r->inflight == 0)
        get_finish(r);
}

/* An RDMA-style get that completes later: the core splits it at the
 * transport's max_get, registers the landing area when the transport needs
 * local registration, and finishes when the last piece is in. */
static void get_async(struct faro_request *r, struct faro_peer *pe, uint64_t raddr, size_t n)
{
    struct faro_transport *t = pe->t;
    if ((t->attr.caps & FARO_TP_CAP_LOCAL_REG) && n &&
        t->ops->mem_reg(t->tp, r->data, n, FARO_TP_MEM_LOCAL, &r->reg) != FARO_TP_OK)
        faro_req_tp_failed(r, "registering a receive buffer", FARO_TP_ERR);
    r->inflight = 1; /* held while the pieces are posted */
    for (size_t off = 0; off < n;) {
        size_t k = n - off < t->attr.max_get ? n - off : t->attr.max_get;
        struct iovec iov = {r->data + off, k};
        int rc = t->ops->get(t->tp, pe->ep, &iov, 1, r->reg, r->rkey, raddr + off, get_done, r);
        if (rc == FARO_TP_OK) {
            r->inflight++;
            faro.outstanding++;
        } else if (rc != FARO_TP_DONE) {
            faro_req_tp_failed(r, "a rendezvous get", rc);
        }
        off += k;
    }
    if (--r->inflight == 0)
        get_finish(r);
}

/* A staged receive lands straight in the user's buffer (the get scatters into
 * its pieces) when the pieces are long enough for the kernel's per-piece cost
 * not to matter; shorter pieces are read into the staging copy and unpacked
 * chunk by chunk. Measured here, 1 MiB: 512-byte pieces scatter in 155 us
 * against get 90 + unpack 29; 2 KiB pieces 97 against 77 + 28. */
#define FARO_GET_IOV_MIN_PIECE 2048

/* A single-copy get (it completes in the call), split at the transport's
 * max_get: local iovecs iov[0..n) read from raddr onward. */
static void get_sync(struct faro_request *r, struct faro_peer *pe, const struct iovec *iov,
                     int n, uint64_t raddr)
{
    struct faro_transport *t = pe->t;
    size_t max = t->attr.max_get, total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (total <= max) {
        int rc = t->ops->get(t->tp, pe->ep, iov, n, NULL, r->rkey, raddr, NULL, NULL);
        if (rc != FARO_TP_DONE)
            faro_tp_failed(pe->rank, "a single-copy get", rc);
        return;
    }
    for (int i = 0; i < n; i++) /* rare (a transport with a small max_get): piece by piece */
        for (size_t off = 0; off < iov[i].iov_len;) {
            size_t k = iov[i].iov_len - off < max ? iov[i].iov_len - off : max;
            struct iovec one = {(char *)iov[i].iov_base + off, k};
            get_sync(r, pe, &one, 1, raddr);
            raddr += k, off += k;
        }
}

/* Bytes [pos, pos + n) of the message, from the sender's copy into place. */
static void pull_range(struct faro_request *r, struct faro_peer *pe,
                       const struct faro_hdr_rts *h, size_t pos, size_t n, int scatter)
{
    struct iovec iov[FARO_TP_MAX_IOV];
    if (!r->tmp || !scatter) {
        iov[0] = (struct iovec){r->data + pos, n};
        get_sync(r, pe, iov, 1, h->raddr + pos);
        if (r->tmp)
            faro_type_unpack_range(r->data + pos, r->type, pos, n, r->ubuf);
        return;
    }
    while (n > 0) {
        size_t got;
        int k = faro_type_iov(r->ubuf, r->type, pos, n, iov, FARO_TP_MAX_IOV, &got);
        get_sync(r, pe, iov, k, h->raddr + pos);
        pos += got, n -= got;
    }
}

/* Single-copy rendezvous: the get completes in the call. A progressive sender
 * is still packing; its counter says how much of its copy is ready. */
static void rndv_pull(struct faro_request *r, struct faro_peer *pe,
                      const struct faro_hdr_rts *h, size_t n)
{
    int scatter = r->tmp && r->type->size / (size_t)r->type->nseg >= FARO_GET_IOV_MIN_PIECE;
    uint64_t ready = h->m.flags & FARO_HDR_PROGRESSIVE ? 0 : n;
    size_t got = 0;
    while (got < n) {
        if (ready <= got) {
            struct iovec c = {&ready, sizeof ready};
            get_sync(r, pe, &c, 1, h->raddr - FARO_PACK_HDR);
            if (ready <= got) { /* the sender is packing: let it run */
                if (faro.yield)
                    sched_yield();
                continue;
            }
        }
        size_t end = ready < n ? (size_t)ready : n;
        pull_range(r, pe, h, got, end - got, scatter);
        got = end;
    }
    r->landed = r->tmp != NULL;
}

static void rput_refused(const struct faro_peer *pe)
{
    faro_trace("rendezvous from rank %d: the receive buffer cannot be registered for an RDMA "
               "write: asking for the pipeline (CTS) instead", pe->rank);
}

/* Put: register the landing area and send its key in CTS_PUT; the sender
 * puts and answers PUT_DONE (on_put_done). A sender that cannot use the key
 * sends DATA fragments to the same request instead (on_data), so the
 * pipeline's counters are set too. 0, or -1 when the area cannot be
 * registered (the caller asks for the pipeline). */
static int rput_start(struct faro_request *r, struct faro_peer *pe,
                      const struct faro_hdr_rts *h, size_t n)
{
    struct faro_transport *t = pe->t;
    uint8_t key[FARO_TP_MAX_RKEY];
    size_t keylen = sizeof key;
    unsigned flags = FARO_TP_MEM_REMOTE_WRITE |
                     ((t->attr.caps & FARO_TP_CAP_LOCAL_REG) ? FARO_TP_MEM_LOCAL : 0);
    if (n && t->ops->mem_reg(t->tp, r->data, n, flags, &r->reg) != FARO_TP_OK)
        return rput_refused(pe), -1;
    if (n && t->ops->rkey_pack(t->tp, r->reg, key, &keylen) != FARO_TP_OK) {
        t->ops->mem_dereg(t->tp, r->reg);
        r->reg = NULL;
        return rput_refused(pe), -1;
    }
    r->total = h->m.len;
    r->received = 0;
    r->landed = 0; /* the put lands in r->data; on_data unpacks fragments itself */
    struct faro_hdr_cts_put c = {.sreq = h->m.sreq, .rreq = (uintptr_t)r,
                                 .raddr = (uintptr_t)r->data, .len = n,
                                 .rkey_len = n ? keylen : 0};
    faro_trace("CTS_PUT to rank %d: %zu bytes may be written at 0x%llx%s", pe->rank, n,
               (unsigned long long)c.raddr, n ? "" : " (nothing to write)");
    faro_send_ctrl_data(pe->rank, FARO_AM_CTS_PUT, &c, sizeof c, key, n ? keylen : 0);
    return 0;
}

/* A put or pipeline into a registered receive buffer ended. */
static void rndv_recv_finish(struct faro_request *r)
{
    if (r->reg) {
        struct faro_transport *t = faro.peers[r->peer].t;
        t->ops->mem_dereg(t->tp, r->reg);
        r->reg = NULL;
    }
    faro_recv_finish(r);
}

static void on_put_done(void *core, void *ctx, const void *hdr, size_t hdrlen,
                        const void *data, size_t len)
{
    struct faro_hdr_ack d;
    memcpy(&d, hdr, sizeof d);
    struct faro_request *r = (struct faro_request *)(uintptr_t)d.sreq;
    faro_trace("PUT_DONE from rank %d: the RDMA write of %zu bytes landed; the receive is "
               "complete", ((struct faro_peer *)ctx)->rank, (size_t)r->status.faro_count);
    rndv_recv_finish(r);
}

/* An RTS met its receive. key: the RTS payload, when the key travels there.
 * With a usable key (and get chosen) the receiver reads the data (single copy
 * in the call, or an asynchronous get); else, where put is chosen or the
 * sender sent no key, it offers its buffer for a put (CTS_PUT); otherwise it
 * asks for the pipeline (CTS). A sender that packs progressively has packed
 * everything before its RTS call returned, so the other two are correct
 * fallbacks for it too. */
static void rndv_matched(struct faro_request *r, int peer, const struct faro_hdr_rts *h,
                         const void *key)
{
    struct faro_peer *pe = &faro.peers[peer];
    struct faro_transport *t = pe->t;
    int proto = faro_rndv_choice(&t->attr);
    set_status(r, &h->m);
    r->peer = peer;
    size_t n = (size_t)r->status.faro_count;
    if (!(h->m.flags & FARO_HDR_RKEY_DATA))
        key = h->rkey;
    r->rkey = NULL;
    if (h->rkey_len && proto == FARO_RNDV_GET &&
        t->ops->rkey_unpack(t->tp, pe->ep, key, h->rkey_len, &r->rkey) != FARO_TP_OK)
        r->rkey = NULL;
    faro_trace("rendezvous from rank %d (context %u, tag %d, %zu of %llu bytes): %s", peer,
               h->m.ctx, h->m.tag, n, (unsigned long long)h->m.len,
               r->rkey ? ((t->attr.caps & FARO_TP_CAP_SINGLE_COPY) ? "single-copy get"
                                                                   : "asynchronous get")
               : proto != FARO_RNDV_PIPELINE && (t->attr.caps & FARO_TP_CAP_PUT)
                   ? "RDMA write: offering the receive buffer (CTS_PUT)"
                   : "asking for the pipeline (CTS)");
    if (r->rkey && (t->attr.caps & FARO_TP_CAP_SINGLE_COPY)) {
        r->rreq = h->m.sreq;
        rndv_pull(r, pe, h, n);
        get_finish(r);
        return;
    }
    if (r->rkey) {
        r->rreq = h->m.sreq; /* get_finish answers FIN to this */
        get_async(r, pe, h->raddr, n);
        return;
    }
    r->rreq = h->m.sreq;
    if (proto != FARO_RNDV_PIPELINE && (t->attr.caps & FARO_TP_CAP_PUT) &&
        rput_start(r, pe, h, n) == 0)
        return;
    r->total = h->m.len;
    r->received = 0;
    struct faro_hdr_cts c = {.sreq = h->m.sreq, .rreq = (uintptr_t)r};
    faro_send_ctrl(peer, FARO_AM_CTS, &c, sizeof c);
}

/* Where a payload goes, for transports that can read it there directly
 * (env->place): a pipeline fragment into its request, a whole eager message
 * into the receive it matches. Matching here is final: the transport asks in
 * arrival order, and the handler that follows takes the request matched now.
 * A payload that does not fit whole (truncation) is copied as usual. */
void *faro_place(void *core, void *ctx, unsigned kind, const void *hdr, size_t hdrlen,
                 size_t len)
{
    int peer = ((struct faro_peer *)ctx)->rank;
    if (kind == FARO_AM_EAGER) {
        struct faro_hdr_match m;
        memcpy(&m, hdr, sizeof m);
        if (m.len != len) /* more fragments follow: the usual path */
            return NULL;
        struct faro_request *r = faro.peers[peer].placed; /* asked again: same answer */
        if (!r)
            r = faro.peers[peer].placed =
                faro_mq_take_posted(faro_mq_get(m.ctx), m.src, m.tag);
        return r && len <= r->len ? r->data : NULL;
    }
    if (kind != FARO_AM_DATA)
        return NULL;
    struct faro_hdr_data d;
    memcpy(&d, hdr, sizeof d);
    struct faro_request *r = (struct faro_request *)(uintptr_t)d.rreq;
    if (r->tmp) /* staged: on_data unpacks from where the fragment is */
        return NULL;
    return d.offset + len <= r->len ? r->data + d.offset : NULL;
}

static void on_data(void *core, void *ctx, const void *hdr, size_t hdrlen, const void *data,
                    size_t len)
{
    struct faro_hdr_data d;
    memcpy(&d, hdr, sizeof d);
    struct faro_request *r = (struct faro_request *)(uintptr_t)d.rreq;
    if (r->tmp) { /* staged type: straight into the user's buffer, fragment by fragment */
        if (d.offset < r->len)
            faro_type_unpack_range(data, r->type, d.offset,
                                   len < r->len - d.offset ? len : r->len - d.offset, r->ubuf);
        r->landed = 1;
    } else if (data != r->data + d.offset) { /* not already placed by the transport */
        copy_in(r, d.offset, data, len);
    }
    r->received += len;
    if (r->received == r->total)
        rndv_recv_finish(r);
}

/* ---- eager ---- */

/* Deliver the part of an eager message (header m, from peer) that is here.
 * 1 when that was all of it; 0 when the rest comes as EAGER_CONT fragments,
 * tracked by the peer's eager_in, whose record the caller points at r. */
static int eager_matched(struct faro_request *r, int peer, const struct faro_hdr_match *m,
                         const void *data, size_t have)
{
    set_status(r, m);
    r->peer = peer;
    if (data != r->data) /* not placed there by the transport */
        copy_in(r, 0, data, have);
    if (m->flags & FARO_HDR_SYNC)
        send_ack(peer, m->sreq, FARO_AM_ACK);
    if (have == m->len) {
        faro_recv_finish(r);
        return 1;
    }
    return 0;
}

static void on_eager(void *core, void *ctx, const void *hdr, size_t hdrlen, const void *data,
                     size_t len)
{
    int peer = ((struct faro_peer *)ctx)->rank;
    struct faro_hdr_match m;
    memcpy(&m, hdr, sizeof m);
    struct faro_transport *t = core;
    t->count[FARO_CNT_EAGER_RECVD]++;
    t->count[FARO_CNT_EAGER_RECVD_BYTES] += m.len;
    faro_trace("eager from rank %d (context %u, tag %d, %llu bytes)", peer, m.ctx, m.tag,
               (unsigned long long)m.len);
    struct faro_mq *q = faro_mq_get(m.ctx);
    struct faro_request *r = faro.peers[peer].placed;
    if (r)
        faro.peers[peer].placed = NULL; /* matched when the transport asked */
    else
        r = faro_mq_take_posted(q, m.src, m.tag);
    if (r && len == m.len) { /* the common case: no bookkeeping */
        eager_matched(r, peer, &m, data, len);
        return;
    }
    if (!r) { /* unexpected: kept, with room for the fragments still to come */
        struct faro_unexp *u = faro_unexp_eager(peer, &m);
        memcpy(u->data, data, len);
        u->have = len;
        if (len < m.len)
            faro.peers[peer].eager_in = u;
        faro_mq_add_unexp(q, u);
        return;
    }
    /* matched, and fragments follow: they go straight to r */
    struct faro_unexp *u = calloc(1, sizeof *u);
    if (!u)
        faro_fatal(MPI_ERR_NO_MEM, "out of memory for an arriving message of %zu bytes",
                   (size_t)m.len);
    u->kind = FARO_AM_EAGER;
    u->peer = peer;
    u->h.m = m;
    u->have = len;
    faro.peers[peer].eager_in = u;
    if (!eager_matched(r, peer, &m, data, len))
        u->req = r;
}

static void on_eager_cont(void *core, void *ctx, const void *hdr, size_t hdrlen,
                          const void *data, size_t len)
{
    int peer = ((struct faro_peer *)ctx)->rank;
    struct faro_hdr_data d;
    memcpy(&d, hdr, sizeof d);
    struct faro_unexp *u = faro.peers[peer].eager_in;
    if (u->req)
        copy_in(u->req, d.offset, data, len);
    else
        memcpy(u->data + d.offset, data, len);
    u->have += len;
    if (u->have < u->h.m.len)
        return;
    faro.peers[peer].eager_in = NULL;
    if (u->req) { /* matched: done with the record */
        faro_recv_finish(u->req);
        faro_unexp_free(u);
    }
}

static void on_rts(void *core, void *ctx, const void *hdr, size_t hdrlen, const void *data,
                   size_t len)
{
    int peer = ((struct faro_peer *)ctx)->rank;
    struct faro_hdr_rts h;
    memset(&h, 0, sizeof h);
    memcpy(&h, hdr, hdrlen < sizeof h ? hdrlen : sizeof h);
    struct faro_transport *t = core;
    t->count[FARO_CNT_RNDV_RECVD]++;
    t->count[FARO_CNT_RNDV_RECVD_BYTES] += h.m.len;
    struct faro_mq *q = faro_mq_get(h.m.ctx);
    struct faro_request *r = faro_mq_take_posted(q, h.m.src, h.m.tag);
    if (r) {
        rndv_matched(r, peer, &h, data);
        return;
    }
    faro_trace("RTS from rank %d (context %u, tag %d, %llu bytes): unexpected", peer, h.m.ctx,
               h.m.tag, (unsigned long long)h.m.len);
    faro_mq_add_unexp(q, faro_unexp_rts(peer, &h, data, len));
}

/* A receive takes an unexpected message (posted late, or Mrecv). */
void faro_recv_take_unexp(struct faro_request *r, struct faro_unexp *u)
{
    if (u->kind == FARO_AM_RTS) {
        rndv_matched(r, u->peer, &u->h, u->data);
        faro_unexp_free(u);
        return;
    }
    if (eager_matched(r, u->peer, &u->h.m, u->data, u->have))
        faro_unexp_free(u);
    else
        u->req = r; /* the fragments still to come go straight to r */
}

int faro_recv_start(struct faro_request *r)
{
    struct faro_mq *q = faro_mq_get(r->comm->context_id);
    struct faro_unexp *u = q->unexp ? faro_mq_find_unexp(q, r->rank, r->tag, 1) : NULL;
    faro_trace("receive posted (context %u, source %d, tag %d): %s", r->comm->context_id,
               r->rank, r->tag, u ? "takes an unexpected message" : "waits");
    if (u)
        faro_recv_take_unexp(r, u);
    else
        faro_mq_post(q, r);
    return MPI_SUCCESS;
}

void faro_recv_handlers(struct faro_transport *t)
{
    t->ops->set_handler(t->tp, FARO_AM_EAGER, on_eager);
    t->ops->set_handler(t->tp, FARO_AM_EAGER_CONT, on_eager_cont);
    t->ops->set_handler(t->tp, FARO_AM_RTS, on_rts);
    t->ops->set_handler(t->tp, FARO_AM_DATA, on_data);
    t->ops->set_handler(t->tp, FARO_AM_PUT_DONE, on_put_done);
}
