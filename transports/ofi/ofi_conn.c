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
 * faro-ofi(7): the sender knew it; nothing is encrypted. Ports (endpoints
 * outside the job) have a hello and a verdict of their own: ofi_port.c.
 *
 * Lost peers: a send or RMA that completes with an error ends its endpoint
 * (ep_lost with the provider's reason). Peers on this host are also watched
 * through a pidfd, as shm does, because a provider may deliver into a dead
 * process's memory without an error (shm). A remote peer that dies while
 * nothing is sent to it is noticed by the launcher (a job rank), or not at
 * all (a process of another job, until something is sent to it).
 */
#include "config.h"

#include "ofi/ofi.h"

#include <errno.h>
#include <fcntl.h>
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

/* The kernel's boot id, hashed: two processes that see the same one and the
 * same pid namespace name each other's processes by the same pids. 0 when
 * unknown (no peer is watched then). */
uint64_t ofi_boot_id(void)
{
    uint8_t id[64];
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, id, sizeof id) : -1;
    if (fd >= 0)
        close(fd);
    return n > 0 ? ofi_tag(id, (size_t)n) : 0;
}

int ofi_addr_get(faro_tp_t *tp, void *blob, size_t *len)
{
    if (*len < tp->selflen)
        return FARO_TP_ERR;
    memcpy(blob, &tp->self, tp->selflen);
    *len = tp->selflen;
    return FARO_TP_OK;
}

const char *ofi_blob(faro_tp_t *tp, const void *blob, size_t len, struct ofi_addr *a, int job,
                     char *why, size_t whylen)
{
    memset(a, 0, sizeof *a);
    if (len < OFI_ADDR_HDR || len > sizeof *a) {
        snprintf(why, whylen, "an address of %zu bytes is not an ofi address", len);
        return why;
    }
    memcpy(a, blob, len);
    a->prov[OFI_PROV_LEN - 1] = 0;
    if (a->magic != OFI_MAGIC || a->version != OFI_VERSION ||
        OFI_ADDR_HDR + a->namelen != len || a->rank < 0 || (job && a->rank >= tp->env->size)) {
        snprintf(why, whylen, "a malformed address (magic %#x, version %u (this process "
                 "speaks %u), rank %d)", a->magic, a->version, OFI_VERSION, a->rank);
        return why;
    }
    if (strcmp(a->prov, tp->self.prov)) {
        snprintf(why, whylen, "%s %d uses the provider %s, this process %s: set "
                 "FARO_OFI_PROVIDER (and FARO_OFI_DOMAIN) the same for every process",
                 job ? "rank" : "the process of pid", job ? a->rank : a->pid, a->prov,
                 tp->self.prov);
        return why;
    }
    return NULL;
}

/* The end of an endpoint's watch: when it is closed, said goodbye or failed,
 * so that port connections made and closed one after another do not pile up
 * descriptors (tests/mpi/dyn_cycles). */
void ofi_unwatch(struct faro_tp_ep *p)
{
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pidfd = -1;
}

/* Watch a peer on this host through its pidfd (same kernel and PID namespace). */
static void ofi_watch(faro_tp_t *tp, struct faro_tp_ep *p, const struct ofi_addr *a)
{
    p->pidfd = -1;
    p->pid = a->pid;
    if (a->pid <= 0 || !a->boot || a->boot != tp->self.boot || a->pidns != tp->self.pidns ||
        a->pid == tp->self.pid)
        return;
#ifdef SYS_pidfd_open
    p->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)a->pid, 0);
#endif
}

struct faro_tp_ep *ofi_ep_alloc(faro_tp_t *tp, const struct ofi_addr *a, void *ctx)
{
    struct ofi_av_addr *e = ofi_av_get(tp, a->name, a->namelen, 1);
    struct faro_tp_ep *p = e ? calloc(1, sizeof *p) : NULL;
    if (!p)
        return NULL;
    p->fiaddr = e->fiaddr;
    p->rank = a->rank;
    p->ctx = ctx;
    p->wsrc = tp->env->rank;
    p->wtag = tp->tag;
    p->slot = -1;
    p->qtail = &p->qhead;
    snprintf(p->name, sizeof p->name, "rank %d", a->rank);
    ofi_watch(tp, p, a);
    p->next = tp->eps;
    tp->eps = p;
    return p;
}

/* A new endpoint for a's rank: its address in the AV, our hello queued as
 * the first message to it. */
static struct faro_tp_ep *ofi_ep_new(faro_tp_t *tp, const struct ofi_addr *a, void *ctx)
{
    struct faro_tp_ep *p = ofi_ep_alloc(tp, a, ctx);
    if (!p)
        return NULL;
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
    if (conn->key) /* a port of another job, or of a server */
        return ofi_port_connect(tp, conn, ep);
    char why[200];
    const char *bad = ofi_blob(tp, conn->addr, conn->addrlen, &a, 1, why, sizeof why);
    if (bad) {
        faro_error("ofi: connect: %s", bad);
        return FARO_TP_ERR;
    }
    if (a.rank == tp->env->rank) {
        faro_error("ofi: connect: the address is this process's own (rank %d)", a.rank);
        return FARO_TP_ERR;
    }
    struct faro_tp_ep *p = tp->job[a.rank];
    if (!p && !(p = ofi_ep_new(tp, &a, conn->ctx)))
        return FARO_TP_ERR;
    if (!p->ctx)
        p->ctx = conn->ctx;
    *ep = p;
    return FARO_TP_OK;
}

/* Rate-limited: a stray sender must not flood the log. */
void ofi_dropped(faro_tp_t *tp, const char *what, int src)
{
    double now = ofi_now();
    tp->dropped++;
    if (now - tp->warned_at < 10.0)
        return;
    tp->warned_at = now;
    if (src < 0)
        faro_warn("ofi: dropped %s (%ld dropped so far)", what, tp->dropped);
    else
        faro_warn("ofi: dropped %s (claiming rank %d; %ld dropped so far): a process of "
                  "another job, or a stray sender", what, src, tp->dropped);
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
        !faro_tp_key_equal(data + sizeof h, h.keylen, tp->env->job_key, tp->env->job_key_len)) {
        ofi_dropped(tp, "a hello without this job's key", w->src);
        return;
    }
    char why[200];
    const char *bad =
        ofi_blob(tp, data + sizeof h + h.keylen, h.addrlen, &a, 1, why, sizeof why);
    if (bad || a.rank != w->src || a.rank == tp->env->rank) {
        faro_error("ofi: a hello with this job's key from rank %d: %s", w->src,
                   bad ? bad : "it names another rank");
        return;
    }
    struct faro_tp_ep *p = tp->job[a.rank];
    if (p) { /* we connected first, or both did: the same endpoint */
        p->heard = 1;
        return;
    }
    if (tp->finalizing || !(p = ofi_ep_new(tp, &a, NULL)))
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
    ofi_unwatch(p);
    if (p->fail != OFI_FAIL_NONE || tp->finalizing) /* the owner's contexts may be gone */
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
        ofi_unwatch(p);
        if (tp->finalizing)
            continue;
        if (p->ctx && tp->env->ep_lost)
            tp->env->ep_lost(tp->env->core, p->ctx, 0, p->why);
        else if (p->rank >= 0)
            faro_error("ofi: %s", p->why);
        else /* a refused client, or the address a refusal went to */
            faro_info(1, "ofi: %s", p->why);
    }
    return n;
}

#define OFI_POLL_BATCH 64

static void ofi_poll_pids(faro_tp_t *tp, struct pollfd *pf, struct faro_tp_ep **pp, nfds_t n)
{
    if (n == 0 || poll(pf, n, 0) <= 0)
        return;
    for (nfds_t i = 0; i < n; i++)
        if (pf[i].revents)
            ofi_peer_fail(tp, pp[i], "%s (pid %d, same host) exited without %s", pp[i]->name,
                          (int)pp[i]->pid, pp[i]->rank >= 0 ? "finalizing" : "closing");
}

/* Now and then: have peers on this host exited? */
void ofi_check_peers(faro_tp_t *tp)
{
    struct pollfd pf[OFI_POLL_BATCH];
    struct faro_tp_ep *pp[OFI_POLL_BATCH];
    nfds_t n = 0;
    double now = ofi_now();

    if (now - tp->last_check < OFI_CHECK_S)
        return;
    tp->last_check = now;
    for (struct faro_tp_ep *p = tp->eps; p; p = p->next) {
        if (p->pidfd < 0)
            continue;
        pf[n] = (struct pollfd){ .fd = p->pidfd, .events = POLLIN };
        pp[n++] = p;
        if (n == OFI_POLL_BATCH) {
            ofi_poll_pids(tp, pf, pp, n);
            n = 0;
        }
    }
    ofi_poll_pids(tp, pf, pp, n);
}

int ofi_disconnect(faro_tp_t *tp, struct faro_tp_ep *p)
{
    if (p->gated)
        return ofi_port_disconnect(tp, p);
    if (p->qhead)
        return FARO_TP_AGAIN;
    if (p->fail == OFI_FAIL_NONE && !p->bye && !p->closed)
        (void)ofi_send_ctl(tp, p, OFI_KIND_BYE, NULL, 0);
    p->closed = 1;
    p->heard = 0;
    ofi_unwatch(p);
    if (p->rank >= 0 && tp->job[p->rank] == p)
        tp->job[p->rank] = NULL; /* a later connect makes a new endpoint */
    return FARO_TP_OK;
}

/* Finalize: a goodbye to every peer still there, then wait (bounded) until
 * the provider has sent what it holds, so closing the endpoint loses nothing. */
void ofi_say_bye(faro_tp_t *tp)
{
    for (struct faro_tp_ep *p = tp->eps; p; p = p->next)
        if (p->gated) /* its port never answered: no way to address a goodbye */
            ofi_queue_fail(tp, p);
        else if (p->fail == OFI_FAIL_NONE && !p->bye && !p->closed && !p->refusal)
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
        ofi_unwatch(p);
        free(p);
    }
}
