/*
 * Transport conformance suite: the child side. Builds the environment a core
 * would build, wires the transport up as transport.h says (init, addr_get,
 * exchange, barrier, wireup_done; endpoints connected at their first send, or
 * at wire-up for node-local transports and T_EAGER cases, or shown through
 * the accepted upcall), and gives the cases checked sends and receives and
 * waits that never hang.
 */
#include "config.h"

#include "conf.h"

#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"

static struct t T; /* this process; the `core` of every upcall */

double t_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void t_tell(struct t *t, char op, const char *fmt, va_list ap)
{
    char msg[600];
    msg[0] = op;
    int n = vsnprintf(msg + 1, sizeof msg - 1, fmt, ap);
    size_t len = 1 + (n < 0 ? 0 : (size_t)n < sizeof msg - 1 ? (size_t)n : sizeof msg - 2);
    (void)send(t->fd, msg, len, MSG_NOSIGNAL);
}

void t_fail(struct t *t, const char *fmt, ...)
{
    va_list ap;
    if (t->bad++)
        return; /* the first failure is the one worth reading */
    va_start(ap, fmt);
    vsnprintf(t->err, sizeof t->err, fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    t_tell(t, 'F', fmt, ap);
    va_end(ap);
}

void t_note(struct t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t_tell(t, 'N', fmt, ap);
    va_end(ap);
}

void t_skip(struct t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t_tell(t, 'S', fmt, ap);
    va_end(ap);
}

/* Patterns: a byte stream from a seed, so a lost, doubled or shifted byte shows. */
void t_fill(uint8_t *p, size_t len, uint32_t seed)
{
    uint32_t s = seed | 1;
    for (size_t i = 0; i < len; i++) {
        s = s * 1103515245u + 12345u;
        p[i] = (uint8_t)(s >> 23);
    }
}

long t_check(const uint8_t *p, size_t len, uint32_t seed)
{
    uint32_t s = seed | 1;
    for (size_t i = 0; i < len; i++) {
        s = s * 1103515245u + 12345u;
        if (p[i] != (uint8_t)(s >> 23))
            return (long)i;
    }
    return -1;
}

static uint32_t t_seed(uint32_t src, uint32_t seq)
{
    return (src + 1) * 2654435761u ^ seq * 40503u;
}

/* ---- receiving ---- */

static void t_recv(struct t *t, unsigned kind, int peer, const void *hdr, size_t hdrlen,
                   const void *data, size_t len)
{
    struct t_hdr h;
    long bad;

    if (hdrlen < sizeof h || peer < 0 || peer >= t->size) {
        t_fail(t, "kind %u: message from rank %d with a %zu-byte header (sent >= %zu)", kind,
               peer, hdrlen, sizeof h);
        return;
    }
    memcpy(&h, hdr, sizeof h);
    if (h.src != (uint32_t)peer || h.kind != kind || h.hdrlen != hdrlen || h.len != len) {
        t_fail(t, "message #%u delivered as (rank %d, kind %u, header %zu, payload %zu); "
               "it was sent as (rank %u, kind %u, header %u, payload %u)", h.seq, peer, kind,
               hdrlen, len, h.src, h.kind, h.hdrlen, h.len);
        return;
    }
    if (h.seq != t->rseq[peer]) {
        t_fail(t, "out of order from rank %d: got message #%u, expected #%u", peer, h.seq,
               t->rseq[peer]);
        return;
    }
    t->rseq[peer]++;
    uint32_t seed = t_seed(h.src, h.seq);
    if ((bad = t_check((const uint8_t *)hdr + sizeof h, hdrlen - sizeof h, ~seed)) >= 0) {
        t_fail(t, "message #%u from rank %d: header byte %zu is wrong", h.seq, peer,
               (size_t)bad + sizeof h);
        return;
    }
    if (h.flags & T_RAW) {
        t->rawlen = len < sizeof t->raw ? len : sizeof t->raw;
        memcpy(t->raw, data, t->rawlen);
        t->nraw++;
    } else if ((bad = t_check(data, len, seed)) >= 0) {
        t_fail(t, "message #%u from rank %d (%zu bytes): payload byte %ld is wrong", h.seq,
               peer, len, bad);
        return;
    }
    t->nrecv++;
    t->nrecv_from[peer]++;
    t->bytes += len;
    if (t->hook)
        t->hook(t, peer, kind, &h, data, len);
}

/* One handler per kind, so delivery under the right kind is checked. */
#define T_H(k)                                                                             \
    static void t_h##k(void *c, void *x, const void *h, size_t hl, const void *d, size_t l) \
    {                                                                                      \
        struct t_peer *p = x;                                                              \
        if (!p || p->t != c) {                                                             \
            t_fail(c, "kind %u: a message with a context that is not a peer's", k);        \
            return;                                                                        \
        }                                                                                  \
        t_recv(c, k, p->rank, h, hl, d, l);                                                \
    }
T_H(0) T_H(1) T_H(2) T_H(3) T_H(4) T_H(5) T_H(6) T_H(7)
T_H(8) T_H(9) T_H(10) T_H(11) T_H(12) T_H(13) T_H(14) T_H(15)
static const faro_tp_handler_fn t_handlers[FARO_TP_MAX_KINDS] = {
    t_h0, t_h1, t_h2, t_h3, t_h4, t_h5, t_h6, t_h7,
    t_h8, t_h9, t_h10, t_h11, t_h12, t_h13, t_h14, t_h15,
};

static void t_ep_lost(void *core, void *ctx, int orderly, const char *why)
{
    struct t *t = core;
    struct t_peer *p = ctx;
    if (!p) {
        t_fail(t, "ep_lost without a context (%s)", why ? why : "orderly");
        return;
    }
    if (p < t->peer || p >= t->peer + T_MAXP) { /* an endpoint a case made itself */
        t->nother++;
        return;
    }
    if (orderly) {
        t->closed[p->rank]++;
        t->nclosed++;
        return;
    }
    t->failed[p->rank]++;
    t->nfailed++;
    snprintf(t->why, sizeof t->why, "%s", why ? why : "(null)");
}

/* A job rank showed itself: the same endpoint the harness connected, if it did. */
void *t_accepted(void *core, faro_tp_ep_t *ep, uint64_t id, unsigned port)
{
    struct t *t = core;
    if (port != 0 || id >= (uint64_t)t->size) {
        t_fail(t, "accepted: port %u id %llu (expected a job rank 0..%d on port 0)", port,
               (unsigned long long)id, t->size - 1);
        return NULL;
    }
    struct t_peer *p = &t->peer[id];
    if (p->ep && p->ep != ep) {
        t_fail(t, "rank %llu showed itself with a second endpoint", (unsigned long long)id);
        return NULL;
    }
    p->ep = ep;
    t->naccepted++;
    return p;
}

faro_tp_ep_t *t_ep(struct t *t, int rank)
{
    struct t_peer *p = &t->peer[rank];
    if (p->ep)
        return p->ep;
    faro_tp_conn_t c = { .addr = t->blob[rank], .addrlen = t->bloblen[rank],
                         .id = (uint64_t)t->rank, .ctx = p };
    int r = t->ops->connect(t->tp, &c, &p->ep);
    if ((r != FARO_TP_OK && r != FARO_TP_DONE) || !p->ep) {
        t_fail(t, "connect to rank %d returned %d", rank, r);
        p->ep = NULL;
    }
    return p->ep;
}

/* ---- sending ---- */

struct t_buf {
    struct t *t;
    int returned_done;
    uint8_t data[];
};

/* Buffers whose isend returned DONE are freed late, so that a transport that
 * also calls done for them is caught instead of corrupting memory. */
#define T_LATE 64
static struct t_buf *t_late[T_LATE];
static unsigned t_nlate;

static void t_done(void *arg, int status)
{
    struct t_buf *b = arg;
    struct t *t = b->t;
    if (b->returned_done) {
        t_fail(t, "done was called for an isend that returned FARO_TP_DONE");
        return;
    }
    if (status != 0 && !t->sends_may_fail)
        t_fail(t, "an isend completed with status %d", status);
    t->pending--;
    free(b);
}

static int t_post(struct t *t, int dest, unsigned kind, const uint8_t *hdr, size_t hdrlen,
                  struct t_buf *b, size_t len)
{
    /* Three pieces of unequal size, so gathering is exercised. */
    size_t a = len / 3, c = len / 5;
    struct iovec iov[3] = { { b->data, a }, { b->data + a, len - a - c },
                            { b->data + len - c, c } };
    faro_tp_ep_t *ep = t_ep(t, dest);
    int r = ep ? t->ops->isend(t->tp, ep, kind, hdr, hdrlen, iov, 3, t_done, b) : FARO_TP_ERR;
    if (r == FARO_TP_DONE) {
        b->returned_done = 1;
        free(t_late[t_nlate % T_LATE]);
        t_late[t_nlate++ % T_LATE] = b;
        return 0;
    }
    if (r == FARO_TP_OK) {
        t->pending++;
        return 0;
    }
    t_fail(t, "isend of %zu+%zu bytes to rank %d returned %d", hdrlen, len, dest, r);
    free(b);
    return -1;
}

static int t_send_any(struct t *t, int dest, unsigned kind, size_t hdrlen, const void *raw,
                      size_t len, enum t_how how)
{
    uint8_t hdr[FARO_TP_MAX_HDR];
    struct t_hdr h = { .seq = t->sseq[dest], .src = (uint32_t)t->rank, .len = (uint32_t)len,
                       .hdrlen = (uint32_t)hdrlen, .kind = kind, .flags = raw ? T_RAW : 0 };
    uint32_t seed = t_seed(h.src, h.seq);

    memcpy(hdr, &h, sizeof h);
    t_fill(hdr + sizeof h, hdrlen - sizeof h, ~seed);
    struct t_buf *b = malloc(sizeof *b + len + 1);
    if (!b) {
        t_fail(t, "out of memory for a %zu-byte message", len);
        return -1;
    }
    b->t = t;
    b->returned_done = 0;
    if (raw)
        memcpy(b->data, raw, len);
    else
        t_fill(b->data, len, seed);
    if (how == T_AUTO)
        how = hdrlen + len <= t->attr.max_inline ? T_INLINE : T_ISEND;
    if (how == T_INLINE) {
        faro_tp_ep_t *ep = t_ep(t, dest);
        int r = ep ? t->ops->send_inline(t->tp, ep, kind, hdr, hdrlen, b->data, len)
                   : FARO_TP_ERR;
        if (r == FARO_TP_DONE) {
            memset(b->data, 0xee, len); /* the transport must have copied it out */
            free(b);
            t->sseq[dest]++;
            return 0;
        }
        if (r != FARO_TP_AGAIN) {
            t_fail(t, "send_inline of %zu+%zu bytes to rank %d returned %d", hdrlen, len,
                   dest, r);
            free(b);
            return -1;
        }
        /* AGAIN: fall back to isend, as the core does. */
    }
    if (t_post(t, dest, kind, hdr, hdrlen, b, len) < 0)
        return -1;
    t->sseq[dest]++;
    return 0;
}

int t_send(struct t *t, int dest, unsigned kind, size_t hdrlen, size_t len, enum t_how how)
{
    return t_send_any(t, dest, kind, hdrlen, NULL, len, how);
}

int t_send_raw(struct t *t, int dest, unsigned kind, const void *data, size_t len)
{
    return t_send_any(t, dest, kind, T_HDR_MIN, data, len, T_AUTO);
}

static void t_done_keep(void *arg, int status)
{
    struct t *t = arg;
    if (status != 0)
        t_fail(t, "an isend completed with status %d", status);
    t->pending--;
}

/* Send the caller's buffer as it is (no copy, no pattern): for measurements. */
int t_send_buf(struct t *t, int dest, unsigned kind, const void *buf, size_t len)
{
    struct t_hdr h = { .seq = t->sseq[dest], .src = (uint32_t)t->rank, .len = (uint32_t)len,
                       .hdrlen = sizeof h, .kind = kind, .flags = T_RAW };
    struct iovec iov = { (void *)buf, len };
    faro_tp_ep_t *ep = t_ep(t, dest);
    int r = ep ? t->ops->isend(t->tp, ep, kind, &h, sizeof h, &iov, 1, t_done_keep, t)
               : FARO_TP_ERR;
    if (r == FARO_TP_OK)
        t->pending++;
    else if (r != FARO_TP_DONE) {
        t_fail(t, "isend of %zu bytes to rank %d returned %d", len, dest, r);
        return -1;
    }
    t->sseq[dest]++;
    return 0;
}

/* ---- waiting ---- */

int t_got(struct t *t, long n)
{
    return t->nrecv >= n && t->pending == 0;
}

int t_wait(struct t *t, int (*cond)(struct t *t, long arg), long arg, const char *what)
{
    double end = t_now() + T_WAIT_S;
    for (unsigned i = 0; !cond(t, arg); i++) {
        if (conf_driver_verdict && conf_driver_verdict())
            t_fail(t, "%s", conf_driver_verdict());
        if (t->bad)
            return -1;
        int r = t->ops->progress(t->tp);
        if (r < 0) {
            t_fail(t, "progress returned %d while waiting for %s", r, what);
            return -1;
        }
        if ((r == 0 || i % 256 == 0) && t_now() > end) {
            t_fail(t, "timed out after %.0f s waiting for %s (%ld messages received, %ld "
                   "isends pending)", T_WAIT_S, what, t->nrecv, t->pending);
            return -1;
        }
        if (r == 0)
            sched_yield(); /* two cores, up to three processes */
    }
    return t->bad ? -1 : 0;
}

/* The bootstrap: an allgather through the runner. Progresses the transport
 * while it waits, as a core would, so no peer is starved meanwhile. */
static int t_allgather(struct t *t, const void *data, size_t len,
                       uint8_t out[][FARO_TP_MAX_ADDR], size_t *outlen)
{
    uint8_t msg[1 + T_MAXP * (2 + FARO_TP_MAX_ADDR)];
    double end = t_now() + T_WAIT_S;

    msg[0] = 'A';
    if (len)
        memcpy(msg + 1, data, len);
    if (send(t->fd, msg, 1 + len, MSG_NOSIGNAL) < 0) {
        t_fail(t, "bootstrap: the runner is gone");
        return -1;
    }
    for (;;) {
        struct pollfd p = { .fd = t->fd, .events = POLLIN };
        int r = poll(&p, 1, t->tp ? 0 : 10);
        if (r > 0) {
            ssize_t n = recv(t->fd, msg, sizeof msg, 0);
            if (n != 1 + t->size * (2 + FARO_TP_MAX_ADDR) || msg[0] != 'A') {
                t_fail(t, "bootstrap: a peer ended before the barrier");
                return -1;
            }
            for (int i = 0; out && i < t->size; i++) {
                const uint8_t *s = msg + 1 + i * (2 + FARO_TP_MAX_ADDR);
                outlen[i] = (size_t)(s[0] | s[1] << 8);
                memcpy(out[i], s + 2, FARO_TP_MAX_ADDR);
            }
            return 0;
        }
        if (t->tp && t->ops->progress(t->tp) < 0) {
            t_fail(t, "progress failed during a barrier");
            return -1;
        }
        if (t_now() > end) {
            t_fail(t, "bootstrap: timed out after %.0f s in a barrier", T_WAIT_S);
            return -1;
        }
        sched_yield();
    }
}

int t_barrier(struct t *t)
{
    return t_allgather(t, NULL, 0, NULL, NULL);
}

/* Every process sends one message to every other and waits for its own:
 * afterwards every pair has a connection, made lazily. */
int t_touch_all(struct t *t)
{
    for (int p = 0; p < t->size; p++)
        if (p != t->rank)
            t_send(t, p, 0, T_HDR_MIN, 8, T_AUTO);
    return t_wait(t, t_got, t->nrecv + t->size - 1, "one message from every peer");
}

static int t_wireup(struct t *t, const struct t_case *c)
{
    uint8_t mine[FARO_TP_MAX_ADDR];
    size_t len = sizeof mine;
    int r;

    for (unsigned k = 0; k < FARO_TP_MAX_KINDS; k++)
        if ((r = t->ops->set_handler(t->tp, k, t_handlers[k])) != FARO_TP_OK) {
            t_fail(t, "set_handler(%u) returned %d", k, r);
            return -1;
        }
    if ((r = t->ops->addr_get(t->tp, mine, &len)) != FARO_TP_OK || len > FARO_TP_MAX_ADDR) {
        t_fail(t, "addr_get returned %d with a %zu-byte blob (at most %d)", r, len,
               FARO_TP_MAX_ADDR);
        return -1;
    }
    if (t_allgather(t, mine, len, t->blob, t->bloblen) < 0)
        return -1;
    /* Node-local transports are connected at wire-up, as the MPI core does;
     * the others at the first send, or by the peer (accepted). */
    int eager = (t->attr.caps & (FARO_TP_CAP_LOCAL_ONLY | FARO_TP_CAP_SELF_ONLY)) ||
                (c->flags & T_EAGER);
    for (int p = 0; eager && p < t->size; p++) {
        if (p == t->rank && t->size > 1)
            continue; /* the own rank is the self transport's */
        if (!t_ep(t, p))
            return -1;
    }
    if (t_barrier(t) < 0)
        return -1;
    if ((r = t->ops->wireup_done(t->tp)) < 0) {
        t_fail(t, "wireup_done returned %d", r);
        return -1;
    }
    return 0;
}

static int t_all_sent(struct t *t, long unused)
{
    return t->pending == 0;
}

/* One process of a case, from init to finalize. Returns the exit status. */
int t_child(const faro_tp_ops_t *ops, const struct t_case *c, int rank, int size, int fd,
            const char *jobid, const uint8_t *key, size_t keylen)
{
    static int node_of[T_MAXP], local_ranks[T_MAXP];
    static uint8_t mykey[64];
    struct t *t = &T;
    char why[512] = "";
    int r;

    t->ops = ops;
    t->rank = rank;
    t->size = size;
    t->fd = fd;
    faro_log_rank = rank;
    for (int i = 0; i < size; i++) {
        local_ranks[i] = i;
        t->peer[i] = (struct t_peer){ .t = t, .rank = i };
    }
    memcpy(mykey, key, keylen);
    if ((c->flags & T_STRANGER) && rank == size - 1)
        mykey[0] ^= 0x5a; /* a process of another job */
    t->env = (faro_tp_env_t){ .rank = rank, .size = size, .node_of = node_of,
                              .local_rank = rank, .local_size = size,
                              .local_ranks = local_ranks, .jobid = jobid, .job_key = mykey,
                              .job_key_len = keylen, .ncores = (int)sysconf(_SC_NPROCESSORS_ONLN),
                              .core = t, .accepted = t_accepted, .ep_lost = t_ep_lost };
    r = ops->init(&t->tp, &t->env, &t->attr, why, sizeof why);
    if (r == FARO_TP_UNAVAILABLE) {
        t_skip(t, "unavailable here: %s", why);
        return 0;
    }
    if (r != FARO_TP_OK || !t->tp) {
        t_fail(t, "init returned %d: %s", r, why);
        return 1;
    }
    if (t_wireup(t, c) == 0) {
        r = c->run(t);
        if (r < 0 && !t->bad)
            t_fail(t, "the case failed without saying why");
    }
    if (t->tp && !t->bad)
        t_wait(t, t_all_sent, 0, "the last isends to complete");
    t_barrier(t); /* then finalize, as MPI_Finalize does */
    if (t->tp)
        ops->finalize(t->tp);
    if (conf_driver_verdict && conf_driver_verdict())
        t_fail(t, "%s", conf_driver_verdict());
    for (unsigned i = 0; i < T_LATE; i++)
        free(t_late[i]);
    return t->bad ? 1 : 0;
}
