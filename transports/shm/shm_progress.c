/*
 * Progress: deliver what arrived in our rings, then move queued sends into
 * slots the receivers have freed.
 *
 * A message is handed to the core straight from its slot and the slot is
 * freed when the handler returns, so eager data is copied once on each side.
 * Handlers may send (send_inline, isend, get) but never poll: they touch only
 * outgoing rings and queues, never the incoming ring state held here.
 *
 * Shared memory cannot tell a dead peer from a quiet one, so now and then
 * (every SHM_CHECK_POLLS calls, at most every SHM_CHECK_NS) we ask the kernel
 * whether the senders of rings that stayed quiet since the last look still
 * exist: one poll() over their pidfds. The fast path pays one increment and
 * one branch for it.
 */
#include "shm.h"
#include "base/log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SHM_CHECK_POLLS 256
#define SHM_CHECK_NS 500000000ull

/* The sender of in finalized: its exit from now on is no failure. */
static void shm_bye(faro_tp_t *tp, struct shm_in *in)
{
    struct faro_tp_ep *p = &tp->peers[in->lidx];
    p->bye = 1;
    if (p->failed)
        return;
    p->failed = 1; /* reported: the liveness check leaves it alone */
    void *ctx = faro_shm_ctx(tp, p);
    if (tp->env->ep_lost && ctx)
        tp->env->ep_lost(tp->env->core, ctx, 1, NULL);
}

/* Best effort, at finalize: a goodbye in every connected peer's ring that has
 * a free slot (a full ring means the peer stopped reading; it will not miss it). */
void faro_shm_say_bye(faro_tp_t *tp)
{
    for (int l = 0; tp->peers && l < tp->env->local_size; l++) {
        struct faro_tp_ep *p = &tp->peers[l];
        struct shm_slot *s;
        if (!p->connected || p->failed || !(s = shm_tx_reserve(&p->tx)))
            continue;
        *s = (struct shm_slot){.kind = (uint8_t)SHM_KIND_BYE};
        shm_tx_publish(&p->tx);
        shm_tx_wake(p); /* a sleeping peer learns of the orderly close at once */
    }
}

static int shm_deliver(faro_tp_t *tp, struct shm_in *in)
{
    int n = 0;
    const struct shm_slot *s;
    /* At most one ring's worth per call, so one busy sender cannot starve the others. */
    while (n < (int)in->rx.nslots && (s = shm_rx_peek(&in->rx))) {
        faro_tp_handler_fn fn = s->kind < FARO_TP_MAX_KINDS ? tp->handlers[s->kind] : NULL;
        if (__builtin_expect(s->kind == SHM_KIND_BYE, 0)) {
            shm_rx_release(&in->rx);
            shm_bye(tp, in);
            n++;
            continue;
        }
        if (__builtin_expect(!fn || s->hdrlen > FARO_TP_MAX_HDR ||
                             SHM_RING_SEQ + SHM_SLOT_HDR + s->hdrlen + (size_t)s->len >
                                 in->rx.slot_size, 0)) {
            if (!fn && s->kind < FARO_TP_MAX_KINDS)
                faro_error("shm: message of kind %u from rank %d, but no handler is set for it",
                           s->kind, in->peer);
            else
                faro_error("shm: corrupt message from rank %d (kind %u, header %u bytes, "
                           "payload %u bytes, slot %zu bytes)",
                           in->peer, s->kind, s->hdrlen, s->len, in->rx.slot_size);
            shm_rx_release(&in->rx);
            return FARO_TP_ERR;
        }
        const char *hdr = (const char *)(s + 1);
        void *ctx = in->ctx;
        if (__builtin_expect(!ctx, 0) &&
            !(ctx = in->ctx = faro_shm_ctx(tp, &tp->peers[in->lidx]))) {
            faro_error("shm: rank %d was refused by this process; its messages cannot be "
                       "delivered", in->peer);
            return FARO_TP_ERR;
        }
        fn(tp->env->core, ctx, hdr, s->hdrlen, hdr + s->hdrlen, s->len);
        shm_rx_release(&in->rx);
        n++;
    }
    return n;
}

static uint64_t shm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t faro_shm_pidns(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Start watching p's process. A pidfd turns readable when the process ends,
 * even before its parent reaps it (kill(pid, 0) still succeeds on a zombie);
 * kernels before 5.3 fall back to kill. Across PID namespaces the pid names
 * some other process, so such a peer is not watched at all. */
void faro_shm_watch(faro_tp_t *tp, struct faro_tp_ep *p, uint64_t pidns)
{
    p->pidfd = -1;
    p->watch = p->pid > 0 && pidns == tp->pidns;
#ifdef SYS_pidfd_open
    if (p->watch)
        p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
#endif
}

void faro_shm_unwatch(struct faro_tp_ep *p)
{
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pidfd = -1;
    p->watch = 0;
}

/* The owner's context for p: the one connect gave, else asked for now (a
 * local rank the owner never connected to showed itself). */
void *faro_shm_ctx(faro_tp_t *tp, struct faro_tp_ep *p)
{
    if (!p->ctx && tp->env->accepted)
        p->ctx = tp->env->accepted(tp->env->core, p, (uint64_t)p->rank, 0);
    return p->ctx;
}

static void shm_peer_dead(faro_tp_t *tp, struct faro_tp_ep *p)
{
    char why[160];
    p->failed = 1;
    snprintf(why, sizeof why, "rank %d (pid %d, same node) exited without finalizing", p->rank,
             (int)p->pid);
    void *ctx = faro_shm_ctx(tp, p);
    if (tp->env->ep_lost && ctx)
        tp->env->ep_lost(tp->env->core, ctx, 0, why);
    else
        faro_error("shm: %s", why);
}

/* Ask whether the senders of rings that stayed quiet since the last look are alive. */
static void shm_check_peers(faro_tp_t *tp)
{
    uint64_t now = shm_now_ns();
    if (now - tp->last_check_ns < SHM_CHECK_NS)
        return;
    tp->last_check_ns = now;
    nfds_t n = 0;
    for (int i = 0; i < tp->nrings; i++) {
        struct shm_in *in = &tp->in[i];
        struct faro_tp_ep *p = &tp->peers[in->lidx];
        uint64_t tail = in->rx.tail_seen;
        int quiet = tail == in->tail_at_check;
        in->tail_at_check = tail;
        if (!quiet || p->failed || !p->watch)
            continue;
        if (p->pidfd >= 0)
            tp->pfd[n++] = (struct pollfd){.fd = p->pidfd, .events = POLLIN};
        else if (kill(p->pid, 0) != 0 && errno == ESRCH)
            shm_peer_dead(tp, p);
    }
    if (n == 0 || poll(tp->pfd, n, 0) <= 0)
        return;
    for (int i = 0, k = 0; i < tp->nrings && (nfds_t)k < n; i++) {
        struct faro_tp_ep *p = &tp->peers[tp->in[i].lidx];
        if (p->pidfd < 0 || tp->pfd[k].fd != p->pidfd)
            continue;
        if (tp->pfd[k++].revents & (POLLIN | POLLHUP | POLLERR) && !p->failed)
            shm_peer_dead(tp, p);
    }
}

int faro_shm_progress(faro_tp_t *tp)
{
    int events = 0;
    for (int i = 0; i < tp->nrings; i++) {
        int n = shm_deliver(tp, &tp->in[i]);
        if (n < 0)
            return FARO_TP_ERR;
        events += n;
    }
    if (tp->nqueued)
        events += faro_shm_drain(tp);
    if (__builtin_expect(++tp->polls % SHM_CHECK_POLLS == 0, 0))
        shm_check_peers(tp);
    return events;
}
