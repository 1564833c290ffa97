/*
 * Sender side of the protocols.
 *
 * eager:      len <= the peer's eager limit. Header and payload in one
 *             send_inline when they fit, otherwise isend fragments straight
 *             from the user's buffer (EAGER then EAGER_CONT), all posted at
 *             once so no other message to the peer can come between them.
 * rendezvous: RTS with a remote key when the receiver is to read the buffer
 *             (get); the receiver either gets the data and answers FIN, or
 *             answers CTS_PUT with its own buffer's key and the sender puts
 *             the data there and answers PUT_DONE (put), or answers CTS and
 *             the sender pipelines DATA fragments, at most
 *             FARO_RNDV_PIPELINE_DEPTH in flight (faro_rndv_choice).
 *
 * Non-contiguous sends are packed into a staging copy. Over a single-copy
 * transport (CMA) the RTS leaves before the packing starts, and the sender
 * publishes how far it got in a counter in front of the copy after every
 * FARO_PACK_CHUNK bytes: the receiver reads each chunk while the next is
 * being packed, so the two copies overlap instead of adding up.
 */
#include <stdlib.h>
#include <string.h>

#include "p2p/header.h"
#include "p2p/request.h"
#include "base/log.h"

#define FARO_PACK_CHUNK (64 * 1024)

void faro_tp_failed(int peer, const char *op, int rc)
{
    if (peer >= faro.size)
        return;
    const struct faro_transport *t = faro.peers[peer].t;
    faro_fatal_lost(MPI_ERR_OTHER, peer, "%s to rank %d failed (transport %s, status %d)", op,
                    peer, t ? t->ops->name : "none", rc);
}

void faro_req_tp_failed(struct faro_request *r, const char *op, int rc)
{
    faro_tp_failed(r->peer, op, rc);
    r->status.MPI_ERROR = MPI_ERR_PROC_ABORTED;
}

static void ctrl_done(void *arg, int status)
{
    faro.outstanding--;
    if (status < 0)
        faro_tp_failed((int)(intptr_t)arg, "a control message", status);
}

/* A control message whose payload the transport may keep until done. */
struct ctrl_copy {
    int peer;
    char data[];
};

static void ctrl_copy_done(void *arg, int status)
{
    struct ctrl_copy *c = arg;
    int peer = c->peer;
    free(c);
    ctrl_done((void *)(intptr_t)peer, status);
}

void faro_send_ctrl_data(int peer, unsigned kind, const void *hdr, size_t hdrlen,
                         const void *data, size_t len)
{
    struct faro_peer *p = faro_peer_get(peer);
    struct faro_transport *t = p->t;
    int rc = FARO_TP_AGAIN;
    if (hdrlen + len <= p->max_inline)
        rc = t->ops->send_inline(t->tp, p->ep, kind, hdr, hdrlen, data, len);
    if (rc == FARO_TP_DONE || rc == FARO_TP_OK)
        return;
    if (rc == FARO_TP_AGAIN) {
        struct ctrl_copy *c = len ? malloc(sizeof *c + len) : NULL;
        if (len && !c)
            faro_fatal(MPI_ERR_NO_MEM, "out of memory for a %zu-byte control message", len);
        struct iovec iov = {c ? c->data : NULL, len};
        if (c) {
            c->peer = peer;
            memcpy(c->data, data, len);
        }
        rc = t->ops->isend(t->tp, p->ep, kind, hdr, hdrlen, &iov, len ? 1 : 0,
                           c ? ctrl_copy_done : ctrl_done, c ? (void *)c : (void *)(intptr_t)peer);
        if (rc == FARO_TP_OK)
            faro.outstanding++;
        else
            free(c);
        if (rc == FARO_TP_OK || rc == FARO_TP_DONE)
            return;
    }
    faro_tp_failed(peer, "sending a control message", rc);
}

void faro_send_ctrl(int peer, unsigned kind, const void *hdr, size_t hdrlen)
{
    faro_send_ctrl_data(peer, kind, hdr, hdrlen, NULL, 0);
}

/* One fragment of a send left the transport. */
static void frag_done(void *arg, int status)
{
    struct faro_request *r = arg;
    faro.outstanding--;
    if (status < 0)
        faro_req_tp_failed(r, "a send", status);
    if (--r->pending == 0)
        faro_req_complete(r);
}

static int isend_frag(struct faro_request *r, struct faro_peer *p, unsigned kind,
                      const void *hdr, size_t hdrlen, size_t off, size_t n,
                      faro_tp_done_fn done)
{
    struct iovec iov = {r->data + off, n};
    int rc = p->t->ops->isend(p->t->tp, p->ep, kind, hdr, hdrlen, &iov, n ? 1 : 0, done, r);
    if (rc == FARO_TP_OK) {
        faro.outstanding++;
        return 1;
    }
    if (rc != FARO_TP_DONE)
        faro_req_tp_failed(r, "a send", rc);
    return 0;
}

static int send_eager(struct faro_request *r, struct faro_peer *p)
{
    struct faro_transport *t = p->t;
    t->count[FARO_CNT_EAGER_SENT]++;
    t->count[FARO_CNT_EAGER_SENT_BYTES] += r->len;
    struct faro_hdr_match h = {
        .ctx = r->comm->context_id, .src = r->comm->rank, .tag = r->tag,
        .flags = r->mode == FARO_MODE_SYNC ? FARO_HDR_SYNC : 0,
        .len = r->len, .sreq = (uintptr_t)r,
    };
    if (!h.flags && sizeof h + r->len <= p->max_inline) {
        int rc = t->ops->send_inline(t->tp, p->ep, FARO_AM_EAGER, &h, sizeof h, r->data,
                                     r->len);
        if (rc == FARO_TP_DONE || rc == FARO_TP_OK) {
            faro_req_complete(r);
            return MPI_SUCCESS;
        }
        if (rc != FARO_TP_AGAIN) {
            faro_req_tp_failed(r, "an eager send", rc);
            faro_req_complete(r);
            return MPI_SUCCESS;
        }
    }
    size_t max = t->attr.max_send;
    size_t first = r->len < max ? r->len : max;
    r->pending = 1 + (h.flags ? 1 : 0); /* the guard below, plus the ACK */
    r->pending += isend_frag(r, p, FARO_AM_EAGER, &h, sizeof h, 0, first, frag_done);
    for (size_t off = first; off < r->len; off += max) {
        struct faro_hdr_data d = {.rreq = 0, .offset = off};
        size_t n = r->len - off < max ? r->len - off : max;
        r->pending += isend_frag(r, p, FARO_AM_EAGER_CONT, &d, sizeof d, off, n, frag_done);
    }
    if (--r->pending == 0)
        faro_req_complete(r);
    return MPI_SUCCESS;
}

/* Room for the packed copy of a non-contiguous send, hdr bytes in front. */
static int stage(struct faro_request *r, size_t hdr)
{
    r->tmp = malloc(hdr + r->len);
    if (!r->tmp)
        return faro_err(r->comm, MPI_ERR_NO_MEM, "out of memory packing %zu bytes (count %lld)",
                        r->len, (long long)r->count);
    r->data = (char *)r->tmp + hdr;
    return MPI_SUCCESS;
}

/* Register what the receiver will read and pack its key: into the RTS header
 * when it fits, else into the RTS payload. 0 when the receiver can get. */
static int expose(struct faro_request *r, struct faro_transport *t, void *region, size_t len,
                  struct faro_hdr_rts *h, uint8_t *key, size_t *keylen)
{
    if (faro_rndv_choice(&t->attr) != FARO_RNDV_GET ||
        t->ops->mem_reg(t->tp, region, len, FARO_TP_MEM_REMOTE_READ, &r->reg) != FARO_TP_OK)
        return -1;
    *keylen = FARO_TP_MAX_RKEY;
    if (t->ops->rkey_pack(t->tp, r->reg, key, keylen) != FARO_TP_OK) {
        t->ops->mem_dereg(t->tp, r->reg);
        r->reg = NULL;
        return -1;
    }
    h->rkey_len = (uint16_t)*keylen;
    if (*keylen <= sizeof h->rkey) {
        memcpy(h->rkey, key, *keylen);
        *keylen = 0; /* nothing in the payload */
    } else {
        h->m.flags |= FARO_HDR_RKEY_DATA;
    }
    return 0;
}

static int send_rts(struct faro_request *r, struct faro_peer *p)
{
    struct faro_transport *t = p->t;
    t->count[FARO_CNT_RNDV_SENT]++;
    t->count[FARO_CNT_RNDV_SENT_BYTES] += r->len;
    struct faro_hdr_rts h;
    uint8_t key[FARO_TP_MAX_RKEY];
    size_t keylen = 0;
    memset(&h, 0, sizeof h);
    h.m = (struct faro_hdr_match){
        .ctx = r->comm->context_id, .src = r->comm->rank, .tag = r->tag,
        .len = r->len, .sreq = (uintptr_t)r,
    };
    const uint32_t both = FARO_TP_CAP_GET | FARO_TP_CAP_SINGLE_COPY;
    int progressive = !r->data && (t->attr.caps & both) == both;
    if (!r->data) {
        int rc = stage(r, progressive ? FARO_PACK_HDR : 0);
        if (rc)
            return rc;
    }
    void *region = progressive ? r->tmp : r->data;
    size_t extra = progressive ? FARO_PACK_HDR : 0;
    if (expose(r, t, region, extra + r->len, &h, key, &keylen) == 0)
        h.raddr = (uintptr_t)r->data;
    else
        progressive = 0;
    /* Without a get the receiver answers CTS: the pipeline packs fragment by
     * fragment, so packing overlaps the transfer there too. */
    r->pack_lazy = r->tmp && !h.rkey_len;
    if (r->pack_lazy) /* packed after this call returns: MPI_Type_free may come first */
        faro_type_retain(r->type);
    if (r->tmp && !progressive && !r->pack_lazy)
        faro_type_pack(r->ubuf, (size_t)r->count, r->type, r->data);
    uint64_t *ready = r->tmp;
    if (progressive) {
        h.m.flags |= FARO_HDR_PROGRESSIVE;
        __atomic_store_n(ready, 0, __ATOMIC_RELAXED);
    }
    r->pending = 1; /* FIN, or the last DATA fragment */
    size_t hdrlen = offsetof(struct faro_hdr_rts, rkey) + (keylen ? 0 : h.rkey_len);
    faro_trace("RTS to rank %d: %s%s", r->peer,
               h.rkey_len ? (keylen ? "remote key in the payload" : "remote key in the header")
               : faro_rndv_choice(&t->attr) != FARO_RNDV_PIPELINE &&
                       (t->attr.caps & FARO_TP_CAP_PUT)
                   ? "no remote key (RDMA write: the receiver offers its buffer)"
                   : "no remote key (the receiver asks for the pipeline)",
               progressive ? ", packing while the receiver reads" : "");
    faro_send_ctrl_data(r->peer, FARO_AM_RTS, &h, hdrlen, key, keylen);
    for (size_t off = 0; progressive && off < r->len; off += FARO_PACK_CHUNK) {
        size_t n = r->len - off < FARO_PACK_CHUNK ? r->len - off : FARO_PACK_CHUNK;
        faro_type_pack_range(r->ubuf, r->type, off, n, r->data + off);
        __atomic_store_n(ready, off + n, __ATOMIC_RELEASE);
    }
    return MPI_SUCCESS;
}

static inline void trace_send(int peer, MPI_Comm comm, int tag, size_t len,
                              const struct faro_peer *p)
{
    faro_trace("send to rank %d (context %u, tag %d): %zu bytes %s over %s", peer,
               comm->context_id, tag, len, len > p->eager_limit ? "by rendezvous" : "eagerly",
               p->t->ops->name);
}

int faro_send_inline_now(MPI_Comm comm, const void *buf, MPI_Count count, MPI_Datatype type,
                         int dest, int tag)
{
    size_t len = (size_t)count * type->size;
    if (dest == MPI_PROC_NULL || !(type->dense || len == 0))
        return 0;
    int peer = faro_comm_world_rank(comm, dest);
    struct faro_peer *p = faro_peer_get(peer);
    struct faro_hdr_match h = {
        .ctx = comm->context_id, .src = comm->rank, .tag = tag, .len = len,
    };
    if (len > p->eager_limit || sizeof h + len > p->max_inline)
        return 0;
    struct faro_transport *t = p->t;
    t->count[FARO_CNT_EAGER_SENT]++; /* here, where t is at hand; taken back if it did not go */
    t->count[FARO_CNT_EAGER_SENT_BYTES] += len;
    int rc = t->ops->send_inline(t->tp, p->ep, FARO_AM_EAGER, &h, sizeof h,
                                 faro_type_dense_at(buf, type), len);
    if (rc != FARO_TP_DONE && rc != FARO_TP_OK) {
        p->t->count[FARO_CNT_EAGER_SENT]--;
        p->t->count[FARO_CNT_EAGER_SENT_BYTES] -= len;
        return 0;
    }
    trace_send(peer, comm, tag, len, p); /* once it left: the request's path says it otherwise */
    return 1;
}

int faro_send_start(struct faro_request *r)
{
    struct faro_peer *p = faro_peer_get(r->peer);
    trace_send(r->peer, r->comm, r->tag, r->len, p);
    if (r->len > p->eager_limit)
        return send_rts(r, p);
    if (!r->data) { /* non-contiguous: packed whole, it is small */
        int rc = stage(r, 0);
        if (rc)
            return rc;
        faro_type_pack(r->ubuf, (size_t)r->count, r->type, r->data);
    }
    return send_eager(r, p);
}

/* ---- replies the sender handles ---- */

static void pipeline_pump(struct faro_request *r);

static void pipeline_done(void *arg, int status)
{
    struct faro_request *r = arg;
    faro.outstanding--;
    if (status < 0)
        faro_req_tp_failed(r, "a rendezvous fragment", status);
    r->inflight--;
    pipeline_pump(r);
}

static void pipeline_pump(struct faro_request *r)
{
    struct faro_peer *p = &faro.peers[r->peer];
    while (r->off < r->len && r->inflight < faro.depth) {
        size_t n = r->len - r->off < p->frag ? r->len - r->off : p->frag;
        struct faro_hdr_data d = {.rreq = r->rreq, .offset = r->off};
        size_t off = r->off;
        r->off += n;
        if (r->pack_lazy)
            faro_type_pack_range(r->ubuf, r->type, off, n, r->data + off);
        r->inflight += isend_frag(r, p, FARO_AM_DATA, &d, sizeof d, off, n, pipeline_done);
    }
    if (r->off == r->len && r->inflight == 0 && r->pending) {
        if (r->reg) { /* exposed for a get the receiver could not do */
            p->t->ops->mem_dereg(p->t->tp, r->reg);
            r->reg = NULL;
        }
        r->pending = 0;
        faro_req_complete(r);
    }
}

static void on_cts(void *core, void *ctx, const void *hdr, size_t hdrlen, const void *data,
                   size_t len)
{
    struct faro_hdr_cts c;
    memcpy(&c, hdr, sizeof c);
    struct faro_request *r = (struct faro_request *)(uintptr_t)c.sreq;
    faro_trace("CTS from rank %d: pipelining %zu bytes in fragments of %zu",
               ((struct faro_peer *)ctx)->rank, r->len, ((struct faro_peer *)ctx)->frag);
    r->rreq = c.rreq;
    r->off = 0;
    r->inflight = 0;
    pipeline_pump(r);
}

/* ---- put: the receiver's buffer came with CTS_PUT ---- */

/* The data is in the receiver's memory (a put's done is remote completion):
 * tell it, and the send is complete. */
static void put_finish(struct faro_request *r)
{
    struct faro_transport *t = faro.peers[r->peer].t;
    t->ops->rkey_release(t->tp, r->rkey);
    r->rkey = NULL;
    if (r->reg) {
        t->ops->mem_dereg(t->tp, r->reg);
        r->reg = NULL;
    }
    struct faro_hdr_ack d = {.sreq = r->rreq};
    faro_trace("RDMA write to rank %d done (%zu bytes): PUT_DONE",
               r->peer, r->len);
    faro_send_ctrl(r->peer, FARO_AM_PUT_DONE, &d, sizeof d);
    if (--r->pending == 0)
        faro_req_complete(r);
}

static void put_done(void *arg, int status)
{
    struct faro_request *r = arg;
    faro.outstanding--;
    if (status < 0)
        faro_tp_failed(r->peer, "a rendezvous put", status);
    if (--r->inflight == 0)
        put_finish(r);
}

/* Put n bytes of r's data at raddr, in pieces of at most max_put. */
static void put_all(struct faro_request *r, struct faro_peer *p, uint64_t raddr, size_t n)
{
    struct faro_transport *t = p->t;
    if ((t->attr.caps & FARO_TP_CAP_LOCAL_REG) && n) {
        if (r->reg) /* exposed for a get the receiver did not choose */
            t->ops->mem_dereg(t->tp, r->reg);
        if (t->ops->mem_reg(t->tp, r->data, n, FARO_TP_MEM_LOCAL, &r->reg) != FARO_TP_OK)
            faro_tp_failed(r->peer, "registering a send buffer", FARO_TP_ERR);
    }
    r->inflight = 1; /* held while the pieces are posted */
    for (size_t off = 0; off < n;) {
        size_t k = n - off < t->attr.max_put ? n - off : t->attr.max_put;
        struct iovec iov = {r->data + off, k};
        int rc = t->ops->put(t->tp, p->ep, &iov, 1, r->reg, r->rkey, raddr + off, put_done, r);
        if (rc == FARO_TP_OK) {
            r->inflight++;
            faro.outstanding++;
        } else if (rc != FARO_TP_DONE) {
            faro_tp_failed(r->peer, "a rendezvous put", rc);
        }
        off += k;
    }
    if (--r->inflight == 0)
        put_finish(r);
}

static void on_cts_put(void *core, void *ctx, const void *hdr, size_t hdrlen, const void *data,
                       size_t len)
{
    struct faro_hdr_cts_put c;
    memcpy(&c, hdr, sizeof c);
    struct faro_request *r = (struct faro_request *)(uintptr_t)c.sreq;
    struct faro_peer *p = ctx;
    struct faro_transport *t = p->t;
    r->rreq = c.rreq;
    if (r->pack_lazy) /* nothing was packed yet: the pipeline would have packed as it went */
        faro_type_pack(r->ubuf, (size_t)r->count, r->type, r->data);
    r->rkey = NULL;
    if (c.rkey_len && (c.rkey_len > len ||
                       t->ops->rkey_unpack(t->tp, p->ep, data, (size_t)c.rkey_len, &r->rkey) !=
                           FARO_TP_OK)) {
        r->rkey = NULL; /* a key this side cannot use: the pipeline, into the same request */
        faro_trace("CTS_PUT from rank %d: its key is unusable here: pipelining %zu bytes in "
                   "fragments of %zu instead", p->rank, r->len, p->frag);
        r->off = 0;
        r->inflight = 0;
        pipeline_pump(r);
        return;
    }
    faro_trace("CTS_PUT from rank %d: writing %zu bytes into its buffer (RDMA write in "
               "pieces of at most %zu)", p->rank, c.rkey_len ? (size_t)c.len : (size_t)0,
               (size_t)t->attr.max_put);
    put_all(r, p, c.raddr, c.rkey_len ? (size_t)c.len : 0);
}

/* FIN (rendezvous data was fetched) and ACK (synchronous eager send matched). */
static void on_fin_ack(void *core, void *ctx, const void *hdr, size_t hdrlen,
                       const void *data, size_t len)
{
    struct faro_hdr_ack a;
    memcpy(&a, hdr, sizeof a);
    struct faro_request *r = (struct faro_request *)(uintptr_t)a.sreq;
    faro_trace("%s from rank %d: the send of %zu bytes is %s", r->reg ? "FIN" : "ACK",
               ((struct faro_peer *)ctx)->rank, r->len,
               r->pending == 1 ? "complete" : "matched");
    if (r->reg) {
        struct faro_transport *t = faro.peers[r->peer].t;
        t->ops->mem_dereg(t->tp, r->reg);
        r->reg = NULL;
    }
    if (--r->pending == 0)
        faro_req_complete(r);
}

void faro_p2p_handlers(struct faro_transport *t)
{
    t->ops->set_handler(t->tp, FARO_AM_CTS, on_cts);
    t->ops->set_handler(t->tp, FARO_AM_FIN, on_fin_ack);
    t->ops->set_handler(t->tp, FARO_AM_ACK, on_fin_ack);
    t->ops->set_handler(t->tp, FARO_AM_CTS_PUT, on_cts_put);
    faro_recv_handlers(t);
}
