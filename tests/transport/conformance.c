/*
 * Transport conformance suite, in the spirit of libfabric's fabtests: the same
 * cases run against every transport built into the library that can work on
 * this machine (or the one named: `conformance tcp`, and one case of it:
 * `conformance tcp alltoall`). No launcher and no MPI
 * layer: the runner forks the processes of each case and bootstraps them
 * itself (conf_run.c, conf_boot.c).
 *
 * Output: one line per case, "ok N - transport case" or "not ok N - ...",
 * "# SKIP" for a case that does not apply, then "P passed, F failed". Exit
 * status 0 when nothing failed, 77 (skipped) when no transport could run.
 * Every wait times out (T_WAIT_S, T_CASE_S), so the suite never hangs.
 */
#include "config.h"

#include "conf.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/log.h"
#include "base/tunables.h"

/* The partner in two-process cases; in a self-only run, the process itself. */
static int t_other(const struct t *t)
{
    return t->size == 1 ? 0 : 1 - t->rank;
}

static int t_is_receiver(const struct t *t)
{
    return t->size == 1 || t->rank == 1;
}

static size_t t_min(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* ---- init, address, connect, wireup; the ops table and attributes ---- */

static int c_wireup(struct t *t)
{
    const faro_tp_ops_t *o = t->ops;
    const faro_tp_attr_t *a = &t->attr;
    const struct { const char *name; int set; } ops[] = {
        { "init", !!o->init }, { "finalize", !!o->finalize }, { "addr_get", !!o->addr_get },
        { "connect", !!o->connect }, { "wireup_done", !!o->wireup_done },
        { "listen", !!o->listen }, { "unlisten", !!o->unlisten },
        { "disconnect", !!o->disconnect }, { "set_handler", !!o->set_handler },
        { "send_inline", !!o->send_inline }, { "isend", !!o->isend },
        { "mem_reg", !!o->mem_reg }, { "mem_dereg", !!o->mem_dereg },
        { "rkey_pack", !!o->rkey_pack }, { "rkey_unpack", !!o->rkey_unpack },
        { "rkey_release", !!o->rkey_release }, { "put", !!o->put }, { "get", !!o->get },
        { "flush", !!o->flush }, { "progress", !!o->progress }, { "wait_fd", !!o->wait_fd },
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!ops[i].set)
            t_fail(t, "op %s is NULL (point it at a faro_tp_unsupported_* stub)", ops[i].name);
    if (a->max_inline < FARO_TP_MAX_HDR || a->max_send < 1024 || !a->frag_size ||
        a->frag_size > a->max_send || a->rkey_size > FARO_TP_MAX_RKEY ||
        !(a->caps & FARO_TP_CAP_GET) != !a->max_get || !(a->caps & FARO_TP_CAP_PUT) != !a->max_put ||
        !(a->caps & (FARO_TP_CAP_PUT | FARO_TP_CAP_GET)) != !a->rkey_size)
        t_fail(t, "attributes out of range: max_inline %zu (>= %d), max_send %zu (>= 1024), "
               "frag_size %zu (1..max_send), rkey_size %zu (<= %d, > 0 exactly when PUT or "
               "GET), max_get %zu (> 0 exactly when GET), max_put %zu (> 0 exactly when PUT)",
               a->max_inline, FARO_TP_MAX_HDR, a->max_send, a->frag_size, a->rkey_size,
               FARO_TP_MAX_RKEY, a->max_get, a->max_put);
    if (o->set_handler(t->tp, FARO_TP_MAX_KINDS, NULL) >= 0)
        t_fail(t, "set_handler accepted kind %d (kinds are 0..%d)", FARO_TP_MAX_KINDS,
               FARO_TP_MAX_KINDS - 1);
    if (!(a->caps & (FARO_TP_CAP_PUT | FARO_TP_CAP_GET))) {
        uint8_t buf[64];
        faro_tp_mem_t *m = NULL;
        if (o->mem_reg(t->tp, buf, sizeof buf, FARO_TP_MEM_REMOTE_READ, &m) !=
            FARO_TP_UNSUPPORTED)
            t_fail(t, "mem_reg did not return FARO_TP_UNSUPPORTED without PUT/GET caps");
    }
    if (!(a->caps & FARO_TP_CAP_PORTS)) {
        unsigned port;
        if (o->listen(t->tp, (const uint8_t *)"k", 1, &port) != FARO_TP_UNSUPPORTED)
            t_fail(t, "listen did not return FARO_TP_UNSUPPORTED without the PORTS cap");
    }
    if (t->rank == 0)
        t_note(t, "%s: caps 0x%x max_inline %zu max_send %zu eager_limit %zu frag_size %zu "
               "max_get %zu", o->name, a->caps, a->max_inline, a->max_send, a->eager_limit,
               a->frag_size, a->max_get);
    /* Everyone reaches everyone. */
    for (int p = 0; p < t->size; p++)
        if (p != t->rank || t->size == 1)
            t_send(t, p, 0, T_HDR_MIN, 8, T_AUTO);
    return t_wait(t, t_got, t->size == 1 ? 1 : t->size - 1, "a message from every peer");
}

/* ---- send_inline: 0 B and small payloads, every kind, short and long headers ---- */

static int c_inline(struct t *t)
{
    const size_t sizes[] = { 0, 1, 7, 8, 100, 1000, 4000, SIZE_MAX };
    const size_t hdrs[] = { T_HDR_MIN, FARO_TP_MAX_HDR };
    long n = 0;

    for (unsigned k = 0; k < FARO_TP_MAX_KINDS; k++)
        for (size_t h = 0; h < 2; h++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++, n++)
                if (t->rank == 0)
                    t_send(t, t_other(t), k, hdrs[h],
                           t_min(sizes[s], t->attr.max_inline - hdrs[h]), T_INLINE);
    return t_wait(t, t_got, t_is_receiver(t) ? n : 0, "inline messages");
}

/* ---- isend: every size up to max_send (capped), both ways at once ---- */

static int c_isend(struct t *t)
{
    const size_t sizes[] = { 0, 1, 3, 63, 4095, 4096, 4097, 65535, 65543, 262145,
                             1 << 20, 4 << 20 };
    long n = 0;

    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (sizes[s] > t->attr.max_send)
            continue;
        t_send(t, t_other(t), (unsigned)s % FARO_TP_MAX_KINDS,
               s % 2 ? FARO_TP_MAX_HDR : T_HDR_MIN, sizes[s], T_ISEND);
        n++;
    }
    return t_wait(t, t_got, n, "isends of every size");
}

/* ---- ordering: send_inline and isend mixed, both ways ---- */

static int c_order(struct t *t)
{
    const long n = 3000;

    for (long i = 0; i < n; i++) {
        size_t len = t_min(i % 50 == 49 ? 100000 + (size_t)i : (size_t)(i * 7919) % 9000,
                           t->attr.max_send);
        enum t_how how = i % 3 == 0 ? T_AUTO : i % 3 == 1 ? T_ISEND : T_INLINE;
        size_t hdrlen = i % 2 ? T_HDR_MIN : FARO_TP_MAX_HDR;
        if (how == T_INLINE && hdrlen + len > t->attr.max_inline)
            how = T_ISEND;
        t_send(t, t_other(t), (unsigned)i % 4, hdrlen, len, how);
        if (i % 64 == 0)
            t->ops->progress(t->tp);
    }
    return t_wait(t, t_got, n, "a mixed sequence");
}

/* ---- back-pressure: the receiver stops polling while the sender posts ---- */

static int c_backpressure(struct t *t)
{
    const long n = 10000;
    const size_t len = 1024;

    if (t_barrier(t) < 0)
        return -1;
    if (t->rank == 0) {
        double t0 = t_now();
        for (long i = 0; i < n; i++)
            if (t_send(t, t_other(t), 1, T_HDR_MIN, len, i % 2 ? T_ISEND : T_INLINE) < 0)
                return -1;
        double dt = t_now() - t0;
        if (t->size > 1 && dt > 0.9)
            t_fail(t, "posting %ld sends took %.2f s: a send blocked while the receiver "
                   "was not polling", n, dt);
    }
    if (t->size > 1 && t_is_receiver(t))
        usleep(1000 * 1000);
    return t_wait(t, t_got, t_is_receiver(t) ? n : 0, "every message after a stall");
}

/* ---- handler re-entrancy: replies sent from inside the upcall ---- */

#define T_TRIPS 1000

static void c_pingpong_hook(struct t *t, int peer, unsigned kind, const struct t_hdr *h,
                            const void *data, size_t len)
{
    if (kind == 1)
        t_send(t, peer, 2, T_HDR_MIN, 8, T_AUTO);             /* pong */
    else if (kind == 2 && ++t->count < T_TRIPS)
        t_send(t, peer, 1, T_HDR_MIN, 8, T_AUTO);             /* next ping */
}

static int c_pingpong(struct t *t)
{
    t->hook = c_pingpong_hook;
    if (t_barrier(t) < 0)
        return -1;
    double t0 = t_now();
    if (t->rank == 0)
        t_send(t, t_other(t), 1, T_HDR_MIN, 8, T_AUTO);
    if (t_wait(t, t_got, t->size == 1 ? 2 * T_TRIPS : T_TRIPS, "the ping-pong") < 0)
        return -1;
    if (t->rank == 0)
        t_note(t, "%s: ping-pong, 8 B payload + %zu B header, from inside the handler: "
               "%.2f us half round trip", t->ops->name, T_HDR_MIN,
               (t_now() - t0) * 1e6 / (2.0 * T_TRIPS));
    return 0;
}

/* ---- streaming: 1 MiB isends, eight in flight (a measurement) ---- */

static int t_window(struct t *t, long w)
{
    return t->pending < w;
}

static int c_stream(struct t *t)
{
    const long n = 200;
    size_t len = t_min(1 << 20, t->attr.max_send);
    uint8_t *buf = calloc(1, len);

    if (!buf || t_barrier(t) < 0) {
        free(buf);
        return -1;
    }
    double t0 = t_now();
    for (long i = 0; t->rank == 0 && i < n; i++)
        if (t_wait(t, t_window, 8, "room in the window") < 0 ||
            t_send_buf(t, t_other(t), 3, buf, len) < 0)
            break;
    int r = t_wait(t, t_got, t_is_receiver(t) ? n : 0, "the stream");
    if (r == 0 && t_is_receiver(t))
        t_note(t, "%s: stream of %ld x %zu B isends: %.0f MB/s", t->ops->name, n, len,
               (double)n * (double)len / (t_now() - t0) / 1e6);
    free(buf);
    return r;
}

/* ---- all-to-all on three processes, order checked per source ---- */

static int c_alltoall(struct t *t)
{
    const long n = 500;
    for (long i = 0; i < n; i++)
        for (int p = 0; p < t->size; p++)
            if (p != t->rank)
                t_send(t, p, (unsigned)i % 3, T_HDR_MIN,
                       t_min((size_t)(i * 131) % 20000, t->attr.max_send), T_AUTO);
    return t_wait(t, t_got, n * (t->size - 1), "messages from every peer");
}

/* ---- both ends connect at the same moment: one endpoint each, order kept ---- */

static int c_simultaneous(struct t *t)
{
    const long n = 300;
    if (t_barrier(t) < 0)
        return -1;
    /* No poll between the sends: both first messages leave before either
     * process has seen the other's connection. */
    for (long i = 0; i < n; i++)
        if (t_send(t, t_other(t), (unsigned)i % 4, T_HDR_MIN,
                   t_min((size_t)(i * 37) % 3000, t->attr.max_send), i % 2 ? T_ISEND : T_AUTO) < 0)
            return -1;
    if (t_wait(t, t_got, n, "messages sent while both ends connected") < 0)
        return -1;
    if (t->naccepted > 1)
        t_fail(t, "the peer showed itself %ld times (one endpoint per rank)", t->naccepted);
    return t->bad ? -1 : 0;
}

/* ---- the first message comes from the peer: replies go on its endpoint ---- */

static int c_accept_first(struct t *t)
{
    if (t->rank == 0)
        t_send(t, 1, 1, T_HDR_MIN, 100, T_AUTO);
    if (t_wait(t, t_got, t->rank == 1 ? 1 : 0, "the first message") < 0)
        return -1;
    if (t->rank == 1) {
        /* A transport connected at wire-up has its endpoint from connect. */
        int eager = (t->attr.caps & FARO_TP_CAP_LOCAL_ONLY) != 0;
        if (!t->peer[0].ep || (!eager && t->naccepted != 1))
            t_fail(t, "rank 0's first message came without an accepted upcall (%ld calls)",
                   t->naccepted);
        for (int i = 0; i < 50; i++)
            t_send(t, 0, 2, T_HDR_MIN, t_min((size_t)i * 100, t->attr.max_send), T_AUTO);
    }
    return t_wait(t, t_got, t->rank == 0 ? 50 : 1, "replies on the accepted endpoint");
}

/* ---- ports: endpoints outside the job, authenticated by a key ---- */

static const uint8_t t_port_key[] = "conformance-port-key";
static long t_port_msgs;
static struct t_peer t_client; /* the owner's context for the port's endpoint */

static void *t_port_accepted(void *core, faro_tp_ep_t *ep, uint64_t id, unsigned port)
{
    struct t *t = core;
    if (port == 0) /* job ranks still go through the harness */
        return t_accepted(core, ep, id, port);
    if (id != 4242) {
        t_fail(t, "a port client presented id %llu (sent 4242)", (unsigned long long)id);
        return NULL;
    }
    t_client.ep = ep;
    t_client.rank = 1;
    t_client.t = t;
    return &t_client;
}

/* Sends on a port's endpoint: inline, or (AGAIN: the connection is not up
 * yet, transport.h) an isend of the same constant bytes, as the core does. */
static long t_port_pending, t_port_failed;

static void t_port_done(void *arg, int status)
{
    t_port_pending--;
    t_port_failed += status < 0;
}

static void t_port_send(struct t *t, faro_tp_ep_t *ep, int inline_ok)
{
    static const char hdr[] = "h", data[] = "hello";
    struct iovec iov = { (void *)data, 5 };
    int r = inline_ok ? t->ops->send_inline(t->tp, ep, 9, hdr, 1, data, 5) : FARO_TP_AGAIN;
    if (r == FARO_TP_AGAIN) {
        r = t->ops->isend(t->tp, ep, 9, hdr, 1, &iov, 1, t_port_done, NULL);
        t_port_pending += r == FARO_TP_OK;
    }
    if (r < 0)
        t_fail(t, "a send on a port's endpoint returned %d", r);
}

static void t_port_handler(void *core, void *ctx, const void *hdr, size_t hdrlen,
                           const void *data, size_t len)
{
    struct t *t = core;
    if (ctx != &t_client || len != 5 || memcmp(data, "hello", 5))
        t_fail(t, "a port message arrived with the wrong context or payload");
    t_port_msgs++;
    if (t->rank == 0) /* the server answers on the client's endpoint */
        t_port_send(t, t_client.ep, 1);
}

static int t_port_got(struct t *t, long n)
{
    return t_port_msgs >= n;
}

static int c_port(struct t *t)
{
    unsigned port = 0;
    int r = t->ops->listen(t->tp, t_port_key, sizeof t_port_key, &port);
    if (r == FARO_TP_UNSUPPORTED) {
        t_skip(t, "no ports (the transport reaches only its own job)");
        return T_SKIP;
    }
    t->ops->set_handler(t->tp, 9, t_port_handler);
    if (t->rank == 0) {
        if (r != FARO_TP_OK || port == 0) {
            t_fail(t, "listen returned %d, port %u", r, port);
            return -1;
        }
        t->env.accepted = t_port_accepted; /* the server's policy */
    }
    if (t_barrier(t) < 0)
        return -1;
    if (t->rank == 1) {
        /* A wrong key first: refused, reported as lost, nothing delivered, and
         * what was queued to it completes with an error. */
        faro_tp_ep_t *bad = NULL, *ep = NULL;
        faro_tp_conn_t c = { .addr = t->blob[0], .addrlen = t->bloblen[0], .id = 4242,
                             .key = (const uint8_t *)"not-the-key", .keylen = 11,
                             .ctx = &t->peer[0] }; /* its loss counts as rank 0's */
        if (t->ops->connect(t->tp, &c, &bad) < 0 || !bad) {
            t_fail(t, "connect to a port returned an error at once");
            return -1;
        }
        t_port_send(t, bad, 0);
        long failed = t->nfailed;
        for (double end = t_now() + 2; t->nfailed == failed && t_now() < end;)
            t->ops->progress(t->tp);
        if (t->nfailed == failed)
            t_fail(t, "a connection with a wrong port key was not reported lost");
        else if (t_port_pending || t_port_failed != 1)
            t_fail(t, "an isend queued to a refused port connection did not complete with an "
                   "error before ep_lost (%ld pending, %ld failed)", t_port_pending,
                   t_port_failed);
        c.key = t_port_key;
        c.keylen = sizeof t_port_key;
        c.ctx = &t_client;
        t_client = (struct t_peer){ .t = t, .rank = 0 };
        if (t->ops->connect(t->tp, &c, &ep) < 0 || !ep) {
            t_fail(t, "connect to the port failed");
            return -1;
        }
        t_client.ep = ep;
        for (int i = 0; i < 10; i++)
            t_port_send(t, ep, 1);
    }
    if (t_wait(t, t_port_got, 10, "messages through the port") < 0)
        return -1;
    for (double end = t_now() + 5; t_port_pending && t_now() < end;)
        t->ops->progress(t->tp);
    if (t_port_pending || t_port_failed > (t->rank == 1))
        t_fail(t, "sends on the port's endpoint: %ld still pending, %ld failed", t_port_pending,
               t_port_failed - (t->rank == 1));
    if (t->rank == 0 && t->ops->unlisten(t->tp, port) != FARO_TP_OK)
        t_fail(t, "unlisten of port %u failed", port);
    if (t_barrier(t) < 0)
        return -1;
    t->nfailed = 0; /* the refused attempt above was the point */
    return t->bad ? -1 : 0;
}

/* ---- a peer that finalizes is not a failed peer ---- */

static int c_orderly(struct t *t)
{
    if (t_touch_all(t) < 0 || t_barrier(t) < 0)
        return -1;
    if (t->rank == 1) {
        t->ops->finalize(t->tp);
        t->tp = NULL;
    }
    if (t_barrier(t) < 0) /* rank 0 keeps polling through it */
        return -1;
    for (double end = t_now() + 0.3; t->tp && t_now() < end;)
        t->ops->progress(t->tp);
    if (t->nfailed)
        t_fail(t, "ep_lost reported a failure for a peer that finalized: %s", t->why);
    if (t->rank == 0 && !t->closed[1] && t->peer[1].ep)
        t_fail(t, "ep_lost did not report the orderly close of rank 1");
    return t->bad ? -1 : 0;
}

/* ---- a peer that goes away without finalize ---- */

static int t_saw_failure(struct t *t, long peer)
{
    return t->failed[peer] > 0;
}

static int t_got_from_other(struct t *t, long n)
{
    return t->nrecv_from[t_other(t)] >= n && t->pending == 0;
}

static int c_peer_gone(struct t *t)
{
    const int dead = t->size - 1;

    if (t_touch_all(t) < 0 || t_barrier(t) < 0)
        return -1;
    if (t->rank == dead)
        _exit(0); /* no finalize: the kernel closes what it must */
    double t0 = t_now();
    if (t_wait(t, t_saw_failure, dead, "ep_lost for the rank that exited") < 0)
        return -1;
    if (t->rank == 0)
        t_note(t, "%s: rank %d's exit reported after %.0f ms: %s", t->ops->name, dead,
               (t_now() - t0) * 1e3, t->why);
    if (!t->why[0])
        t_fail(t, "ep_lost gave no reason");
    for (int p = 0; p < dead; p++)
        if (t->failed[p])
            t_fail(t, "ep_lost reported rank %d, which is alive", p);
    if (t->size < 3)
        return t->bad ? -1 : 0;
    /* The survivors still talk: 100 more each, after the one of t_touch_all. */
    for (int i = 0; i < 100; i++)
        t_send(t, t_other(t), 1, T_HDR_MIN, (size_t)i * 10, T_AUTO);
    return t_wait(t, t_got_from_other, 101, "messages between the survivors");
}

/* ---- a process without the job's key is not heard ---- */

static int c_stranger(struct t *t)
{
    /* The stranger's sends may complete with an error once its connection is
     * refused (transport.h: queued sends to a lost endpoint do), or never. */
    t->sends_may_fail = t->rank == 1;
    if (t->rank == 1)
        for (int i = 0; i < 10; i++)
            t_send(t, 0, 1, T_HDR_MIN, 16, T_INLINE);
    for (double end = t_now() + 0.5; t_now() < end;)
        t->ops->progress(t->tp);
    if (t->rank == 0 && t->nrecv_from[1])
        t_fail(t, "rank 0 received %ld messages from a process with another job key",
               t->nrecv_from[1]);
    t->pending = 0; /* the stranger's sends may never complete; that is the point */
    return t->bad ? -1 : 0;
}

static const struct t_case t_cases[] = {
    { "wireup", 2, 0, c_wireup },
    { "inline", 2, 0, c_inline },
    { "isend", 2, 0, c_isend },
    { "order", 2, 0, c_order },
    { "backpressure", 2, 0, c_backpressure },
    { "pingpong", 2, 0, c_pingpong },
    { "stream", 2, 0, c_stream },
    { "alltoall", 3, T_PEERS, c_alltoall },
    { "rma", 2, 0, c_rma },
    { "rma-iov", 2, 0, c_rma_iov },
    { "rma-reuse", 2, T_PEERS, c_rma_reuse },
    { "simultaneous", 2, T_PEERS, c_simultaneous },
    { "accept-first", 2, T_PEERS, c_accept_first },
    { "wait-fd", 2, T_PEERS, c_wait_fd },
    { "wait-fd-race", 2, T_PEERS, c_wait_fd_race },
    { "port", 2, T_PEERS, c_port },
    { "orderly-close", 2, T_PEERS, c_orderly },
    { "peer-gone", 2, T_PEERS, c_peer_gone },
    { "peer-gone-3", 3, T_PEERS, c_peer_gone },
    { "stranger", 2, T_PEERS | T_NETWORK | T_STRANGER, c_stranger },
};

int main(int argc, char **argv)
{
    int num = 0, passed = 0, failed = 0, skipped = 0, ran = 0;
    char err[1024];

    setvbuf(stdout, NULL, _IOLBF, 0);
    setenv("FARO_TCP_IF", "lo", 0); /* stay on loopback unless told otherwise */
    if (faro_tunables_load(err, sizeof err) < 0) {
        fprintf(stderr, "conformance: %s\n", err);
        return 2;
    }
    faro_log_level = (int)faro_tun_int(FARO_TUN_VERBOSE);
    if (argc > 3 || (argc >= 2 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: %s [transport [case]]\n", argv[0]);
        return 2;
    }
    const char *only = argc == 3 ? argv[2] : NULL;
    int known = 0;
    for (const faro_tp_ops_t *const *o = faro_transports; *o; o++)
        known |= argc >= 2 && !strcmp((*o)->name, argv[1]);
    if (argc >= 2 && !known) {
        fprintf(stderr, "conformance: no transport named '%s'; built in:", argv[1]);
        for (const faro_tp_ops_t *const *o = faro_transports; *o; o++)
            fprintf(stderr, " %s", (*o)->name);
        fprintf(stderr, "\n");
        return 2;
    }

    for (const faro_tp_ops_t *const *o = faro_transports; *o; o++) {
        const faro_tp_ops_t *ops = *o;
        faro_tp_attr_t attr;
        if (argc >= 2 && strcmp(ops->name, argv[1]))
            continue;
        int r = t_probe(ops, &attr, err, sizeof err);
        if (r == T_SKIP) {
            printf("# %s: SKIP, unavailable here: %s\n", ops->name, err);
            continue;
        }
        if (r < 0) {
            printf("not ok %d - %s init: %s\n", ++num, ops->name, err);
            failed++;
            continue;
        }
        ran++;
        int self_only = (attr.caps & FARO_TP_CAP_SELF_ONLY) != 0;
        int network = !(attr.caps & (FARO_TP_CAP_SELF_ONLY | FARO_TP_CAP_LOCAL_ONLY));
        for (size_t i = 0; i < sizeof t_cases / sizeof t_cases[0]; i++) {
            const struct t_case *c = &t_cases[i];
            if (only && strcmp(c->name, only))
                continue;
            num++;
            if ((c->flags & T_PEERS) && self_only) {
                printf("ok %d - %s %s # SKIP needs other processes\n", num, ops->name, c->name);
                skipped++;
                continue;
            }
            if ((c->flags & T_NETWORK) && !network) {
                printf("ok %d - %s %s # SKIP not a network transport\n", num, ops->name,
                       c->name);
                skipped++;
                continue;
            }
            r = t_run_case(ops, c, self_only ? 1 : c->nprocs, num, err, sizeof err);
            if (r == T_SKIP) {
                printf("ok %d - %s %s # SKIP %s\n", num, ops->name, c->name, err);
                skipped++;
            } else if (r == 0) {
                printf("ok %d - %s %s\n", num, ops->name, c->name);
                passed++;
            } else {
                printf("not ok %d - %s %s: %s\n", num, ops->name, c->name, err);
                failed++;
            }
        }
    }
    printf("# %d skipped\n", skipped);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : ran ? 0 : 77;
}
