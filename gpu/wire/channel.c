/*
 * The GPU channel over the tcp transport (channel.h has the contract).
 *
 * Arrivals: the transport's handler runs inside its progress, where the
 * owner may not send; so the handler only copies the message into an event
 * queue (a payload the transport asked us to place is already ours: no copy),
 * and ep_lost queues a loss. faro_gpu_chan_poll and faro_gpu_chan_send hand
 * the events out after progress returned, in arrival order, decoding each
 * message first. A peer's memory stays until its loss was handed out, or
 * until the owner drops it (its queued events go with it).
 */
#include "config.h"

#include "gpu/wire/channel.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/tunables.h"
#include "transport.h"

#define CHAN_DRAIN_MS 500       /* a drop waits this long at most for queued sends */
#define CHAN_SEND_TIMEOUT_S 60  /* default: a send not done by then drops its peer */

struct faro_gpu_peer {
    faro_gpu_chan_t *ch;
    faro_tp_ep_t *ep;
    void *ctx;              /* the owner's */
    uint64_t id;            /* what the client presented (its pid) */
    unsigned num;           /* this channel's count of peers, for names */
    int dropped;            /* dropped; freed when the transport reports its loss */
    int send_state;         /* the send under way: 0 waiting, 1 done, -1 failed */
    unsigned posted;        /* faro_gpu_chan_post sends not yet done */
    double post_moved;      /* when one of them last completed (or the first was posted) */
    int freed;              /* off the list; freed by the last posted send's completion */
    uint8_t *placed;        /* the buffer place() gave for the message arriving now */
    size_t placed_len;
    struct faro_gpu_peer *next;
};

enum ev_type { EV_MSG, EV_LOST, EV_STALLED };

struct ev {
    struct ev *next;
    enum ev_type type;
    faro_gpu_peer_t *peer;
    uint8_t hdr[FARO_TP_MAX_HDR];
    size_t hdrlen;
    uint8_t *buf;           /* the payload, ours */
    size_t len;
    int orderly;
    char why[256];
};

struct faro_gpu_chan {
    const faro_tp_ops_t *ops;
    faro_tp_t *tp;
    faro_tp_env_t env;
    int node_of[1], local_ranks[1];
    uint8_t job_key[32];    /* random: nobody presents it */
    unsigned port;          /* the port our clients present the key of (server) */
    const struct faro_gpu_chan_cb *cb;
    void *owner;
    struct ev *head, **tail;
    faro_gpu_peer_t *peers;
    unsigned npeers;
    int dispatching;
    double send_timeout;    /* seconds */
};

static void ev_push(faro_gpu_chan_t *ch, struct ev *e)
{
    e->next = NULL;
    *ch->tail = e;
    ch->tail = &e->next;
}

static void *chan_accepted(void *core, faro_tp_ep_t *ep, uint64_t id, unsigned port)
{
    faro_gpu_chan_t *ch = core;
    if (port == 0 || port != ch->port || !ch->cb->accepted)
        return NULL; /* only our port's clients; the random job key is nobody's */
    faro_gpu_peer_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ch = ch;
    p->ep = ep;
    p->id = id;
    p->num = ++ch->npeers;
    if (!(p->ctx = ch->cb->accepted(ch->owner, p))) {
        free(p);
        return NULL;
    }
    p->next = ch->peers;
    ch->peers = p;
    return p;
}

/* Large payloads land in memory of ours, which the event then keeps. */
static void *chan_place(void *core, void *ctx, unsigned kind, const void *hdr, size_t hdrlen,
                        size_t len)
{
    faro_gpu_peer_t *p = ctx;
    (void)core;
    (void)hdr;
    (void)hdrlen;
    if (!p || kind != FARO_GPU_TP_KIND || len > FARO_GPU_CHUNK_MAX + FARO_GPU_ARGS_BYTES)
        return NULL;
    if (!p->placed) {
        p->placed = malloc(len ? len : 1);
        p->placed_len = len;
    }
    return p->placed;
}

static void chan_handler(void *core, void *ctx, const void *hdr, size_t hdrlen,
                         const void *data, size_t len)
{
    faro_gpu_chan_t *ch = core;
    faro_gpu_peer_t *p = ctx;
    struct ev *e = calloc(1, sizeof *e);
    if (!p || !e) {
        free(e);
        return;
    }
    e->type = EV_MSG;
    e->peer = p;
    e->hdrlen = hdrlen < sizeof e->hdr ? hdrlen : sizeof e->hdr;
    memcpy(e->hdr, hdr, e->hdrlen);
    if (hdrlen > sizeof e->hdr)
        e->hdrlen = sizeof e->hdr + 1; /* too long: the decoder refuses it */
    if (p->placed && data == p->placed) {
        e->buf = p->placed;
        p->placed = NULL;
    } else if (len && (e->buf = malloc(len))) {
        memcpy(e->buf, data, len);
    } else if (len) {
        snprintf(e->why, sizeof e->why, "out of memory for a %zu-byte message", len);
        e->type = EV_LOST;
    }
    e->len = len;
    ev_push(ch, e);
}

static void chan_ep_lost(void *core, void *ctx, int orderly, const char *why)
{
    faro_gpu_chan_t *ch = core;
    struct ev *e = ctx ? calloc(1, sizeof *e) : NULL;
    if (!e)
        return;
    e->type = EV_LOST;
    e->peer = ctx;
    e->orderly = orderly;
    snprintf(e->why, sizeof e->why, "%s", why ? why : "closed by the peer");
    ev_push(ch, e);
}

/* A message posted without waiting: its args live here until done. */
struct post {
    faro_gpu_peer_t *peer;
    void (*done)(void *arg, int ok);
    void *arg;
    uint8_t args[FARO_GPU_ARGS_BYTES];
};

static double mono_s(void);

static void post_done(void *arg, int status)
{
    struct post *p = arg;
    faro_gpu_peer_t *peer = p->peer;
    peer->post_moved = mono_s();
    if (--peer->posted == 0 && peer->freed)
        free(peer);
    if (p->done)
        p->done(p->arg, status >= 0);
    free(p);
}

static void peer_free_events(faro_gpu_chan_t *ch, faro_gpu_peer_t *p)
{
    struct ev **ep = &ch->head;
    ch->tail = &ch->head;
    while (*ep) {
        struct ev *e = *ep;
        if (e->peer == p) {
            *ep = e->next;
            free(e->buf);
            free(e);
        } else {
            ch->tail = &e->next;
            ep = &e->next;
        }
    }
}

static void peer_free(faro_gpu_chan_t *ch, faro_gpu_peer_t *p)
{
    for (faro_gpu_peer_t **pp = &ch->peers; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    peer_free_events(ch, p);
    free(p->placed);
    p->placed = NULL;
    if (p->posted) /* the transport still holds sends whose completion names it */
        p->freed = 1;
    else
        free(p);
}

static int chan_open(faro_gpu_chan_t **out, const struct faro_gpu_chan_cb *cb, void *owner,
                     char *note, size_t notelen, char *err, size_t errlen)
{
    faro_gpu_chan_t *ch = calloc(1, sizeof *ch);
    char why[1024] = "";
    faro_tp_attr_t attr;

    *out = NULL;
    if (!ch) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; faro_transports[i]; i++)
        if (!strcmp(faro_transports[i]->name, "tcp"))
            ch->ops = faro_transports[i];
    if (!ch->ops) {
        snprintf(err, errlen, "this build has no tcp transport");
        free(ch);
        return -1;
    }
    if (getrandom(ch->job_key, sizeof ch->job_key, 0) != (ssize_t)sizeof ch->job_key) {
        snprintf(err, errlen, "cannot draw a random key: %s", strerror(errno));
        free(ch);
        return -1;
    }
    ch->tail = &ch->head;
    ch->send_timeout = CHAN_SEND_TIMEOUT_S;
    ch->cb = cb;
    ch->owner = owner;
    ch->env = (faro_tp_env_t){ .rank = 0, .size = 1, .node_of = ch->node_of, .local_rank = 0,
                               .local_size = 1, .local_ranks = ch->local_ranks,
                               .jobid = "faro-gpu", .job_key = ch->job_key,
                               .job_key_len = sizeof ch->job_key, .ncores = 1, .core = ch,
                               .accepted = chan_accepted, .ep_lost = chan_ep_lost,
                               .place = chan_place };
    int rc = ch->ops->init(&ch->tp, &ch->env, &attr, why, sizeof why);
    if (rc != FARO_TP_OK) {
        snprintf(err, errlen, "tcp transport: %s", why[0] ? why : "init failed");
        free(ch);
        return -1;
    }
    if (note)
        snprintf(note, notelen, "%s", why);
    ch->ops->set_handler(ch->tp, FARO_GPU_TP_KIND, chan_handler);
    *out = ch;
    return 0;
}

int faro_gpu_chan_listen(const char *listen, const uint8_t *key, size_t keylen,
                         const struct faro_gpu_chan_cb *cb, void *owner, faro_gpu_chan_t **out,
                         char *where, size_t wherelen, char *err, size_t errlen)
{
    char addr[256], port[16], terr[256];
    const char *colon = listen ? strrchr(listen, ':') : NULL;

    *out = NULL;
    if (!listen || !*listen)
        listen = "127.0.0.1";
    size_t alen = colon ? (size_t)(colon - listen) : strlen(listen);
    if (alen >= sizeof addr) {
        snprintf(err, errlen, "listen address \"%s\" is too long", listen);
        return -1;
    }
    memcpy(addr, listen, alen);
    addr[alen] = '\0';
    snprintf(port, sizeof port, "%u", FARO_GPU_DEFAULT_PORT);
    if (colon && snprintf(port, sizeof port, "%s", colon + 1) >= (int)sizeof port) {
        snprintf(err, errlen, "listen port \"%s\" is not a port number (0..65535)", colon + 1);
        return -1;
    }
    if (!key || keylen == 0 || keylen > FARO_GPU_KEY_MAX) {
        snprintf(err, errlen, "a key of %zu bytes (allowed: 1..%d)", keylen, FARO_GPU_KEY_MAX);
        return -1;
    }
    if (faro_tun_set(FARO_TUN_TCP_IF, addr[0] ? addr : "127.0.0.1", terr, sizeof terr) != 0 ||
        faro_tun_set(FARO_TUN_TCP_PORT, port, terr, sizeof terr) != 0) {
        snprintf(err, errlen, "cannot listen on \"%s\": %s", listen, terr);
        return -1;
    }
    faro_gpu_chan_t *ch;
    if (chan_open(&ch, cb, owner, where, wherelen, err, errlen) < 0)
        return -1;
    if (ch->ops->listen(ch->tp, key, keylen, &ch->port) != FARO_TP_OK) {
        snprintf(err, errlen, "tcp transport: cannot open a port for the key");
        faro_gpu_chan_close(ch);
        return -1;
    }
    *out = ch;
    return 0;
}

int faro_gpu_chan_connect(const char *hostport, const uint8_t *key, size_t keylen,
                          const struct faro_gpu_chan_cb *cb, void *owner, void *ctx,
                          faro_gpu_chan_t **out, faro_gpu_peer_t **peer, char *err,
                          size_t errlen)
{
    char addr[300];
    const char *colon = strrchr(hostport, ':');

    *out = NULL;
    if (!key || keylen == 0 || keylen > FARO_GPU_KEY_MAX) {
        snprintf(err, errlen, "a key of %zu bytes (allowed: 1..%d)", keylen, FARO_GPU_KEY_MAX);
        return -1;
    }
    if (!*hostport || strlen(hostport) > 256) {
        snprintf(err, errlen, "server address \"%.256s\" (expected HOST[:PORT])", hostport);
        return -1;
    }
    if (colon)
        snprintf(addr, sizeof addr, "%s", hostport);
    else
        snprintf(addr, sizeof addr, "%s:%u", hostport, FARO_GPU_DEFAULT_PORT);
    faro_gpu_chan_t *ch;
    if (chan_open(&ch, cb, owner, NULL, 0, err, errlen) < 0)
        return -1;
    faro_gpu_peer_t *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        faro_gpu_chan_close(ch);
        return -1;
    }
    p->ch = ch;
    p->ctx = ctx;
    p->id = (uint64_t)getpid();
    p->num = ++ch->npeers;
    faro_tp_conn_t conn = { .addr = addr, .addrlen = strlen(addr), .id = p->id, .key = key,
                            .keylen = keylen, .ctx = p };
    if (ch->ops->connect(ch->tp, &conn, &p->ep) != FARO_TP_OK) {
        snprintf(err, errlen, "cannot connect to %s (see the message above)", addr);
        free(p);
        faro_gpu_chan_close(ch);
        return -1;
    }
    p->next = ch->peers;
    ch->peers = p;
    *out = ch;
    *peer = p;
    return 0;
}

/* Hand out queued events; returns how many. */
static int chan_dispatch(faro_gpu_chan_t *ch)
{
    int n = 0;
    if (ch->dispatching)
        return 0; /* a callback's send: the outer loop hands them out */
    ch->dispatching = 1;
    while (ch->head) {
        struct ev *e = ch->head;
        if (!(ch->head = e->next))
            ch->tail = &ch->head;
        faro_gpu_peer_t *p = e->peer;
        n++;
        if (e->type == EV_STALLED) {
            ch->cb->lost(ch->owner, p->ctx, 0, e->why); /* p stays, dropped, until its loss */
        } else if (p->dropped) {
            if (e->type == EV_LOST)
                peer_free(ch, p);
        } else if (e->type == EV_LOST) {
            void *ctx = p->ctx;
            peer_free(ch, p);
            ch->cb->lost(ch->owner, ctx, e->orderly, e->why);
        } else {
            struct faro_gpu_msg m;
            int rc = faro_gpu_decode(e->hdr, e->hdrlen, e->buf, e->len, &m);
            if (e->hdrlen >= 1 && e->hdrlen <= sizeof e->hdr && rc == FARO_GPU_WIRE_OK) {
                ch->cb->message(ch->owner, p->ctx, p, &m);
            } else {
                char why[256];
                void *ctx = p->ctx;
                snprintf(why, sizeof why, "malformed message (%s): connection dropped",
                         faro_gpu_wire_why(rc != FARO_GPU_WIRE_OK ? rc : FARO_GPU_WIRE_EHDR));
                faro_gpu_chan_drop(ch, p);
                ch->cb->lost(ch->owner, ctx, 0, why);
            }
        }
        free(e->buf);
        free(e);
    }
    ch->dispatching = 0;
    return n;
}

static void peer_stalled(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer);

/* Posted sends that have not moved for the send timeout: their peer stalls
 * (the rule chan_isend_wait applies to a send it waits for). */
static void check_posted(faro_gpu_chan_t *ch)
{
    double now = 0;
    for (faro_gpu_peer_t *p = ch->peers; p; p = p->next)
        if (p->posted && !p->dropped) {
            if (now == 0)
                now = mono_s();
            if (now - p->post_moved > ch->send_timeout)
                peer_stalled(ch, p);
        }
}

int faro_gpu_chan_poll(faro_gpu_chan_t *ch, int timeout_ms)
{
    int rc = ch->ops->progress(ch->tp);
    if (rc < 0)
        return -1;
    check_posted(ch);
    if (!ch->head && rc == 0 && timeout_ms != 0) {
        int fd;
        if (ch->ops->wait_fd(ch->tp, &fd) == FARO_TP_OK) {
            struct pollfd pf = { .fd = fd, .events = POLLIN };
            (void)poll(&pf, 1, timeout_ms);
        } else {
            usleep(1000);
        }
        if (ch->ops->progress(ch->tp) < 0)
            return -1;
    }
    return chan_dispatch(ch);
}

static void send_done(void *arg, int status)
{
    *(int *)arg = status < 0 ? -1 : 1;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A peer that takes none of our bytes for send_timeout (not reading, or
 * gone without a word across a network) would hold every other peer up:
 * drop it, and tell the owner at the next dispatch. Its queued bytes stay
 * with the transport until the connection fails or the channel closes. */
static void peer_stalled(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer)
{
    struct ev *e = calloc(1, sizeof *e);
    /* AGAIN (bytes still queued) leaves the endpoint to the transport until
     * the connection fails; either way the peer stays, dropped, until its
     * loss or the channel's close, so no callback can find it freed */
    (void)ch->ops->disconnect(ch->tp, peer->ep);
    peer->dropped = 1;
    peer_free_events(ch, peer);
    if (!e)
        return;
    e->type = EV_STALLED;
    e->peer = peer;
    snprintf(e->why, sizeof e->why, "took none of the data sent to it for %.0f s: "
             "connection dropped", ch->send_timeout);
    ev_push(ch, e);
}

void faro_gpu_chan_set_send_timeout(faro_gpu_chan_t *ch, double seconds)
{
    ch->send_timeout = seconds;
}

/* Post a message and wait until its bytes left the caller's buffers. */
static int chan_isend_wait(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer, const void *hdr,
                           size_t hdrlen, const struct iovec *iov, int n)
{
    if (peer->dropped || hdrlen > FARO_TP_MAX_HDR)
        return -1;
    /* done writes into the peer, which outlives any send it was given */
    peer->send_state = 0;
    int rc = ch->ops->isend(ch->tp, peer->ep, FARO_GPU_TP_KIND, hdr, hdrlen, iov, n,
                            send_done, &peer->send_state);
    if (rc == FARO_TP_DONE)
        return 0;
    if (rc != FARO_TP_OK)
        return -1;
    double end = mono_s() + ch->send_timeout;
    while (!peer->send_state) {
        int fd, got = ch->ops->progress(ch->tp);
        if (peer->send_state)
            break;
        if (mono_s() > end) {
            peer_stalled(ch, peer);
            return -1;
        }
        if (got <= 0 && ch->ops->wait_fd(ch->tp, &fd) == FARO_TP_OK) {
            struct pollfd pf = { .fd = fd, .events = POLLIN };
            (void)poll(&pf, 1, 100);
        }
    }
    return peer->send_state > 0 ? 0 : -1;
}

int faro_gpu_chan_send(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer, const struct faro_gpu_hdr *h,
                       const uint8_t *args, size_t args_len, const void *data, size_t len)
{
    uint8_t hdr[FARO_GPU_HDR_SIZE];
    struct faro_gpu_hdr hh = *h;
    struct iovec iov[2];
    int n = 0;

    hh.args_len = (uint32_t)args_len;
    faro_gpu_hdr_encode(&hh, hdr);
    if (args_len)
        iov[n++] = (struct iovec){ .iov_base = (void *)args, .iov_len = args_len };
    if (len)
        iov[n++] = (struct iovec){ .iov_base = (void *)data, .iov_len = len };
    return chan_isend_wait(ch, peer, hdr, sizeof hdr, iov, n);
}

int faro_gpu_chan_post(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer, const struct faro_gpu_hdr *h,
                       const uint8_t *args, size_t args_len, const void *data, size_t len,
                       void (*done)(void *arg, int ok), void *arg)
{
    uint8_t hdr[FARO_GPU_HDR_SIZE];
    struct faro_gpu_hdr hh = *h;
    struct iovec iov[2];
    int n = 0;
    struct post *p;

    if (peer->dropped || args_len > FARO_GPU_ARGS_BYTES || !(p = malloc(sizeof *p)))
        return -1;
    p->peer = peer;
    p->done = done;
    p->arg = arg;
    hh.args_len = (uint32_t)args_len;
    faro_gpu_hdr_encode(&hh, hdr);
    if (args_len) {
        memcpy(p->args, args, args_len);
        iov[n++] = (struct iovec){ .iov_base = p->args, .iov_len = args_len };
    }
    if (len)
        iov[n++] = (struct iovec){ .iov_base = (void *)data, .iov_len = len };
    if (!peer->posted)
        peer->post_moved = mono_s();
    peer->posted++;
    int rc = ch->ops->isend(ch->tp, peer->ep, FARO_GPU_TP_KIND, hdr, sizeof hdr, iov, n,
                            post_done, p);
    if (rc == FARO_TP_DONE) {
        post_done(p, 0);
        return 0;
    }
    if (rc != FARO_TP_OK) {
        peer->posted--;
        free(p);
        return -1;
    }
    return 0;
}

unsigned faro_gpu_chan_posted(const faro_gpu_peer_t *peer)
{
    return peer->posted;
}

int faro_gpu_chan_peer_ok(const faro_gpu_peer_t *peer)
{
    return !peer->dropped;
}

int faro_gpu_chan_send_raw(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer, const void *hdr,
                           size_t hdrlen, const void *payload, size_t len)
{
    struct iovec iov = { .iov_base = (void *)payload, .iov_len = len };
    return chan_isend_wait(ch, peer, hdr, hdrlen, &iov, len ? 1 : 0);
}

void faro_gpu_chan_drop(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer)
{
    int rc = FARO_TP_AGAIN;
    if (peer->dropped)
        return; /* stalled: already closed, and its loss is on the way */
    for (int waited = 0; waited < CHAN_DRAIN_MS; waited += 10) {
        if ((rc = ch->ops->disconnect(ch->tp, peer->ep)) != FARO_TP_AGAIN)
            break;
        ch->ops->progress(ch->tp);
        usleep(10000);
    }
    if (rc != FARO_TP_AGAIN) {
        peer_free(ch, peer);
        return;
    }
    /* Its sends are still queued (a peer that reads nothing): the transport
     * keeps the endpoint until it fails, so the peer stays, silenced, until
     * its loss arrives. */
    peer->dropped = 1;
    peer_free_events(ch, peer);
}

void faro_gpu_chan_close(faro_gpu_chan_t *ch)
{
    if (!ch)
        return;
    if (ch->tp)
        ch->ops->finalize(ch->tp);
    while (ch->head) {
        struct ev *e = ch->head;
        ch->head = e->next;
        free(e->buf);
        free(e);
    }
    while (ch->peers) {
        faro_gpu_peer_t *p = ch->peers;
        ch->peers = p->next;
        free(p->placed);
        free(p);
    }
    free(ch);
}

const char *faro_gpu_peer_name(const faro_gpu_peer_t *peer, char *buf, size_t len)
{
    snprintf(buf, len, "client %u (pid %llu)", peer->num, (unsigned long long)peer->id);
    return buf;
}
