/*
 * self: messages a process sends to itself. A send copies header and payload
 * into a queue entry; progress hands entries to the handlers in order. A get
 * or put is a memcpy inside the address space, so large self messages take
 * one copy. There is one endpoint, this process; registrations and remote
 * keys are tokens with nothing behind them.
 */
#include <stdlib.h>
#include <string.h>

#include "transport.h"

struct self_msg {
    struct self_msg *next;
    unsigned kind;
    size_t hdrlen, len;
    char bytes[]; /* header then payload */
};

struct faro_tp_ep {
    void *ctx;
};

struct faro_tp {
    faro_tp_handler_fn handler[FARO_TP_MAX_KINDS];
    void *core;
    struct faro_tp_ep self;
    struct self_msg *head, *tail;
    int queued; /* messages in the queue: attr.pending, so idle polls skip us */
};

/* What mem_reg and rkey_unpack hand out: any non-NULL token will do. */
static char self_token;

static int self_init(faro_tp_t **out, const faro_tp_env_t *env, faro_tp_attr_t *attr, char *why,
                     size_t whylen)
{
    faro_tp_t *tp = calloc(1, sizeof *tp);
    if (!tp)
        return FARO_TP_ERR;
    tp->core = env->core;
    *attr = (faro_tp_attr_t){
        .caps = FARO_TP_CAP_SELF_ONLY | FARO_TP_CAP_GET | FARO_TP_CAP_PUT |
                FARO_TP_CAP_SINGLE_COPY,
        .max_inline = 1 << 16,
        .max_send = (size_t)1 << 30,
        .eager_limit = 16384, /* beyond this one memcpy (get) beats two */
        .frag_size = 1 << 20,
        .max_get = SIZE_MAX,
        .max_put = SIZE_MAX,
        .rkey_size = 1,
        .latency_us = 0.05,
        .bandwidth_mbs = 10000,
        .pending = &tp->queued,
    };
    *out = tp;
    return FARO_TP_OK;
}

static int self_finalize(faro_tp_t *tp)
{
    while (tp->head) {
        struct self_msg *m = tp->head;
        tp->head = m->next;
        free(m);
    }
    free(tp);
    return FARO_TP_OK;
}

static int self_addr_get(faro_tp_t *tp, void *blob, size_t *len)
{
    *(char *)blob = 's';
    *len = 1;
    return FARO_TP_OK;
}

static int self_connect(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **ep)
{
    if (conn->addrlen != 1 || *(const char *)conn->addr != 's')
        return FARO_TP_ERR;
    tp->self.ctx = conn->ctx;
    *ep = &tp->self;
    return FARO_TP_OK;
}

static int self_wireup_done(faro_tp_t *tp) { return FARO_TP_OK; }
static int self_disconnect(faro_tp_t *tp, faro_tp_ep_t *ep) { return FARO_TP_OK; }

static int self_set_handler(faro_tp_t *tp, unsigned kind, faro_tp_handler_fn fn)
{
    if (kind >= FARO_TP_MAX_KINDS)
        return FARO_TP_ERR;
    tp->handler[kind] = fn;
    return FARO_TP_OK;
}

static int self_enqueue(faro_tp_t *tp, unsigned kind, const void *hdr, size_t hdrlen,
                        const struct iovec *iov, int iovcnt)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    struct self_msg *m = malloc(sizeof *m + hdrlen + len);
    if (!m)
        return FARO_TP_ERR;
    m->next = NULL;
    m->kind = kind;
    m->hdrlen = hdrlen;
    m->len = len;
    memcpy(m->bytes, hdr, hdrlen);
    char *p = m->bytes + hdrlen;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(p, iov[i].iov_base, iov[i].iov_len);
        p += iov[i].iov_len;
    }
    if (tp->tail)
        tp->tail->next = m;
    else
        tp->head = m;
    tp->tail = m;
    tp->queued++;
    return FARO_TP_DONE;
}

static int self_send_inline(faro_tp_t *tp, faro_tp_ep_t *ep, unsigned kind, const void *hdr,
                            size_t hdrlen, const void *data, size_t len)
{
    struct iovec iov = {(void *)data, len};
    return self_enqueue(tp, kind, hdr, hdrlen, &iov, len ? 1 : 0);
}

static int self_isend(faro_tp_t *tp, faro_tp_ep_t *ep, unsigned kind, const void *hdr,
                      size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
                      void *arg)
{
    return self_enqueue(tp, kind, hdr, hdrlen, iov, iovcnt);
}

static int self_mem_reg(faro_tp_t *tp, void *buf, size_t len, unsigned flags,
                        faro_tp_mem_t **mem)
{
    *mem = (faro_tp_mem_t *)&self_token;
    return FARO_TP_OK;
}

static int self_mem_dereg(faro_tp_t *tp, faro_tp_mem_t *mem) { return FARO_TP_OK; }

static int self_rkey_pack(faro_tp_t *tp, const faro_tp_mem_t *mem, void *buf, size_t *len)
{
    *(char *)buf = 's';
    *len = 1;
    return FARO_TP_OK;
}

static int self_rkey_unpack(faro_tp_t *tp, faro_tp_ep_t *ep, const void *buf, size_t len,
                            faro_tp_rkey_t **rkey)
{
    if (len != 1 || *(const char *)buf != 's')
        return FARO_TP_ERR;
    *rkey = (faro_tp_rkey_t *)&self_token;
    return FARO_TP_OK;
}

static int self_rkey_release(faro_tp_t *tp, faro_tp_rkey_t *rkey) { return FARO_TP_OK; }

static int self_get(faro_tp_t *tp, faro_tp_ep_t *ep, const struct iovec *local, int iovcnt,
                    faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
                    faro_tp_done_fn done, void *arg)
{
    const char *src = (const char *)(uintptr_t)raddr;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(local[i].iov_base, src, local[i].iov_len);
        src += local[i].iov_len;
    }
    return FARO_TP_DONE;
}

static int self_put(faro_tp_t *tp, faro_tp_ep_t *ep, const struct iovec *local, int iovcnt,
                    faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
                    faro_tp_done_fn done, void *arg)
{
    char *dst = (char *)(uintptr_t)raddr;
    for (int i = 0; i < iovcnt; i++) {
        memmove(dst, local[i].iov_base, local[i].iov_len);
        dst += local[i].iov_len;
    }
    return FARO_TP_DONE;
}

static int self_flush(faro_tp_t *tp, faro_tp_ep_t *ep) { return FARO_TP_DONE; }

static int self_progress(faro_tp_t *tp)
{
    int n = 0;
    /* Handlers may enqueue more (a reply to oneself); those wait for the next
     * poll so one call stays bounded. */
    struct self_msg *last = tp->tail;
    while (tp->head) {
        struct self_msg *m = tp->head;
        tp->head = m->next;
        if (!tp->head)
            tp->tail = NULL;
        int was_last = m == last;
        tp->queued--;
        tp->handler[m->kind](tp->core, tp->self.ctx, m->bytes, m->hdrlen,
                             m->bytes + m->hdrlen, m->len);
        free(m);
        n++;
        if (was_last)
            break;
    }
    return n;
}

const faro_tp_ops_t faro_tp_self_ops = {
    .name = "self",
    .init = self_init,
    .finalize = self_finalize,
    .addr_get = self_addr_get,
    .connect = self_connect,
    .wireup_done = self_wireup_done,
    .listen = faro_tp_unsupported_listen,
    .unlisten = faro_tp_unsupported_unlisten,
    .disconnect = self_disconnect,
    .set_handler = self_set_handler,
    .send_inline = self_send_inline,
    .isend = self_isend,
    .mem_reg = self_mem_reg,
    .mem_dereg = self_mem_dereg,
    .rkey_pack = self_rkey_pack,
    .rkey_unpack = self_rkey_unpack,
    .rkey_release = self_rkey_release,
    .get = self_get,
    .put = self_put,
    .flush = self_flush,
    .progress = self_progress,
    .wait_fd = faro_tp_unsupported_wait_fd,
};
