/*
 * ofi transport: endpoints. Address blobs, connect, the hello that
 * authenticates a new source, goodbyes, disconnect and lost peers.
 *
 * A reliable-datagram endpoint has no connections: any process that knows
 * our address can send to it. So every message carries the sender's rank and
 * an 8-byte tag derived from the job key (struct ofi_wire), and the first
 * message from each sender is a hello with the whole key and the sender's
 * address blob:
 *
 *   connect(blob): insert the blob's address into the AV; queue a hello
 *   (key + our blob) as the first message to it; further sends follow it
 *   (the provider keeps their order, FI_ORDER_SAS)
 *
 *   a message arrives: a wrong tag is dropped; from a rank whose hello has
 *   not come, only a hello is taken, and only with the job key; its blob is
 *   inserted into the AV (so we can answer), and the owner hears of the new
 *   endpoint (accepted) before any of its messages reaches a handler
 *
 * Both sides send a hello before their first message, so two ranks that
 * start talking at once each insert the other, see the other's hello, and
 * keep one endpoint per rank: nothing to resolve. What the key proves is in
 * faro-ofi(7): the sender knew it; nothing is encrypted.
 *
 * Lost peers: a send or RMA that completes with an error ends its endpoint
 * (ep_lost with the provider's reason). Peers on this node are also watched
 * through a pidfd, as shm does, because a provider may deliver into a dead
 * process's memory without an error (shm). A remote peer that dies while
 * nothing is sent to it is noticed by the launcher, not here.
 */
#include "config.h"

#include "ofi/ofi.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"

#define OFI_CHECK_POLLS 256
#define OFI_CHECK_S 0.5

double ofi_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* FNV-1a over a fixed prefix and the key: the tag every message carries. */
uint64_t ofi_tag(const uint8_t *key, size_t len)
{
    static const char prefix[] = "faro-ofi-tag";
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof prefix - 1 + len; i++) {
        uint8_t c = i < sizeof prefix - 1 ? (uint8_t)prefix[i] : key[i - (sizeof prefix - 1)];
        h = (h ^ c) * 1099511628211ull;
    }
    return h;
}

uint64_t ofi_pidns(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

int ofi_addr_get(faro_tp_t *tp, void *blob, size_t *len)
{
    if (*len < tp->selflen)
        return FARO_TP_ERR;
    memcpy(blob, &tp->self, tp->selflen);
    *len = tp->selflen;
    return FARO_TP_OK;
}

/* Read and check a peer's blob. 0, or -1 with the reason logged. */
static int ofi_blob(faro_tp_t *tp, const void *blob, size_t len, struct ofi_addr *a)
{
    memset(a, 0, sizeof *a);
    if (len < OFI_ADDR_HDR || len > sizeof *a) {
        faro_error("ofi: an address of %zu bytes is not an ofi address", len);
        return -1;
    }
    memcpy(a, blob, len);
    a->prov[OFI_PROV_LEN - 1] = 0;
    if (a->magic != OFI_MAGIC || a->version != OFI_VERSION ||
        OFI_ADDR_HDR + a->namelen != len || a->rank < 0 || a->rank >= tp->env->size) {
        faro_error("ofi: a malformed address (magic %#x, version %u, rank %d)", a->magic,
                   a->version, a->rank);
        return -1;
    }
    if (strcmp(a->prov, tp->self.prov)) {
        faro_error("ofi: rank %d uses the provider %s, this rank %s: set FARO_OFI_PROVIDER "
                   "(and FARO_OFI_DOMAIN) the same for every rank", a->rank, a->prov,
                   tp->self.prov);
        return -1;
    }
    return 0;
}

/* Watch a peer on this node through its pidfd (same PID namespace only). */
static void ofi_watch(faro_tp_t *tp, struct faro_tp_ep *p, const struct ofi_addr *a)
{
    const faro_tp_env_t *env = tp->env;
    p->pidfd = -1;
    p->pid = a->pid;
    if (env->node_of[a->rank] != env->node_of[env->rank] || a->pid <= 0 ||
        a->pidns != tp->self.pidns)
        return;
#ifdef SYS_pidfd_open
    p->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)a->pid, 0);
#endif
}

/* A new endpoint for a's rank: its address in the AV, our hello queued as
 * the first message to it. */
static struct faro_tp_ep *ofi_ep_new(faro_tp_t *tp, const struct ofi_addr *a, void *ctx)
{
    struct faro_tp_ep *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    int n = fi_av_insert(tp->av, a->name, 1, &p->fiaddr, 0, NULL);
    if (n != 1) {
        faro_error("ofi: cannot insert rank %d's address into the address vector: %s",
                   a->rank, n < 0 ? fi_strerror(-n) : "not inserted");
        free(p);
        return NULL;
    }
    p->rank = a->rank;
    p->ctx = ctx;
    p->qtail = &p->qhead;
    ofi_watch(tp, p, a);
    p->next = tp->eps;
    tp->eps = p;
    tp->job[a->rank] = p;

    uint8_t hello[sizeof(struct ofi_hello) + FARO_TP_MAX_KEY + sizeof(struct ofi_addr)];
    struct ofi_hello h = { .magic = OFI_MAGIC, .keylen = (uint16_t)tp->env->job_key_len,
                           .addrlen = (uint16_t)tp->selflen };
    memcpy(hello, &h, sizeof h);
    memcpy(hello + sizeof h, tp->env->job_key, h.keylen);
    memcpy(hello + sizeof h + h.keylen, &tp->self, tp->selflen);
    if (ofi_send_ctl(tp, p, OFI_KIND_HELLO, hello, sizeof h + h.keylen + h.addrlen) < 0)
        ofi_peer_fail(tp, p, "cannot send the hello to rank %d", p->rank);
    return p;
}

int ofi_connect(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **ep)
{
    struct ofi_addr a;

    *ep = NULL;
    if (conn->key) /* ports: not offered by this transport (faro-ofi(7)) */
        return FARO_TP_UNSUPPORTED;
    if (ofi_blob(tp, conn->addr, conn->addrlen, &a) < 0)
        return FARO_TP_ERR;
    struct faro_tp_ep *p = tp->job[a.rank];
    if (!p && !(p = ofi_ep_new(tp, &a, conn->ctx)))
        return FARO_TP_ERR;
    if (!p->ctx)
        p->ctx = conn->ctx;
    *ep = p;
    return FARO_TP_OK;
}

static int ofi_key_ok(const faro_tp_env_t *env, const uint8_t *key, size_t len)
{
    uint8_t diff = len != env->job_key_len;
    for (size_t i = 0; i < len && i < env->job_key_len; i++)
        diff |= (uint8_t)(key[i] ^ env->job_key[i]);
    return diff == 0;
}

/* Rate-limited: a stray sender must not flood the log. */
void ofi_dropped(faro_tp_t *tp, const char *what, int src)
{
    double now = ofi_now();
    tp->dropped++;
    if (now - tp->warned_at < 10.0)
        return;
    tp->warned_at = now;
    faro_warn("ofi: dropped %s (claiming rank %d; %ld dropped so far): a process of another "
              "job, or a stray sender", what, src, tp->dropped);
}

void ofi_hello_in(faro_tp_t *tp, const struct ofi_wire *w, const uint8_t *data, size_t len)
{
    struct ofi_hello h;
    struct ofi_addr a;

    if (len < sizeof h) {
        ofi_dropped(tp, "a hello too short to read", w->src);
        return;
    }
    memcpy(&h, data, sizeof h);
    if (h.magic != OFI_MAGIC || sizeof h + h.keylen + (size_t)h.addrlen > len ||
        !ofi_key_ok(tp->env, data + sizeof h, h.keylen)) {
        ofi_dropped(tp, "a hello without this job's key", w->src);
        return;
    }
    if (ofi_blob(tp, data + sizeof h + h.keylen, h.addrlen, &a) < 0 || a.rank != w->src)
        return;
    struct faro_tp_ep *p = tp->job[a.rank];
    if (p) { /* we connected first, or both did: the same endpoint */
        p->heard = 1;
        return;
    }
    if (!(p = ofi_ep_new(tp, &a, NULL)))
        return;
    p->heard = 1;
    if (tp->env->accepted)
        p->ctx = tp->env->accepted(tp->env->core, p, (uint64_t)a.rank, 0);
    if (!p->ctx) { /* refused by the owner: its messages are not delivered */
        p->heard = 0;
        p->closed = 1;
    }
}

void ofi_bye_in(faro_tp_t *tp, struct faro_tp_ep *p)
{
    p->bye = 1;
    if (p->fail != OFI_FAIL_NONE)
        return;
    p->fail = OFI_FAIL_REPORTED;
    if (p->ctx && tp->env->ep_lost)
        tp->env->ep_lost(tp->env->core, p->ctx, 1, NULL);
}

void ofi_peer_fail(faro_tp_t *tp, struct faro_tp_ep *p, const char *fmt, ...)
{
    va_list ap;
    if (p->fail != OFI_FAIL_NONE || p->bye || p->closed)
        return;
    va_start(ap, fmt);
    vsnprintf(p->why, sizeof p->why, fmt, ap);
    va_end(ap);
    p->fail = OFI_FAIL_PENDING;
    tp->nfail++;
    ofi_queue_fail(tp, p);
}

/* ep_lost for endpoints that failed since the last call (from progress). */
int ofi_report_failures(faro_tp_t *tp)
{
    int n = 0;
    for (struct faro_tp_ep *p = tp->eps; p && tp->nfail; p = p->next) {
        if (p->fail != OFI_FAIL_PENDING)
            continue;
        p->fail = OFI_FAIL_REPORTED;
        tp->nfail--;
        n++;
        if (tp->finalizing)
            continue;
        if (p->ctx && tp->env->ep_lost)
            tp->env->ep_lost(tp->env->core, p->ctx, 0, p->why);
        else
            faro_error("ofi: %s", p->why);
    }
    return n;
}

/* Now and then: have peers on this node exited? */
void ofi_check_peers(faro_tp_t *tp)
{
    struct pollfd pf[64];
    struct faro_tp_ep *pp[64];
    nfds_t n = 0;
    double now = ofi_now();

    if (now - tp->last_check < OFI_CHECK_S)
        return;
    tp->last_check = now;
    for (struct faro_tp_ep *p = tp->eps; p && n < 64; p = p->next)
        if (p->pidfd >= 0 && p->fail == OFI_FAIL_NONE && !p->bye && !p->closed) {
            pf[n] = (struct pollfd){ .fd = p->pidfd, .events = POLLIN };
            pp[n++] = p;
        }
    if (n == 0 || poll(pf, n, 0) <= 0)
        return;
    for (nfds_t i = 0; i < n; i++)
        if (pf[i].revents)
            ofi_peer_fail(tp, pp[i], "rank %d (pid %d, same node) exited without finalizing",
                          pp[i]->rank, (int)pp[i]->pid);
}

int ofi_disconnect(faro_tp_t *tp, struct faro_tp_ep *p)
{
    if (p->qhead)
        return FARO_TP_AGAIN;
    if (p->fail == OFI_FAIL_NONE && !p->bye && !p->closed)
        (void)ofi_send_ctl(tp, p, OFI_KIND_BYE, NULL, 0);
    p->closed = 1;
    p->heard = 0;
    if (tp->job[p->rank] == p)
        tp->job[p->rank] = NULL; /* a later connect makes a new endpoint */
    return FARO_TP_OK;
}

/* Finalize: a goodbye to every peer still there, then wait (bounded) until
 * the provider has sent what it holds, so closing the endpoint loses nothing. */
void ofi_say_bye(faro_tp_t *tp)
{
    for (struct faro_tp_ep *p = tp->eps; p; p = p->next)
        if (p->fail == OFI_FAIL_NONE && !p->bye && !p->closed)
            (void)ofi_send_ctl(tp, p, OFI_KIND_BYE, NULL, 0);
    double end = ofi_now() + OFI_DRAIN_S;
    while ((tp->inflight || tp->qeps) && ofi_now() < end)
        if (ofi_progress(tp) < 0)
            break;
}

void ofi_free_eps(faro_tp_t *tp)
{
    while (tp->eps) {
        struct faro_tp_ep *p = tp->eps;
        tp->eps = p->next;
        while (p->qhead) {
            struct ofi_sq *q = p->qhead;
            p->qhead = q->next;
            free(q);
        }
        if (p->pidfd >= 0)
            close(p->pidfd);
        free(p);
    }
}
