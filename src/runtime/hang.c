/*
 * The hang report: the record of blocked waits and its printing (contract:
 * hang.h; the line format is faro-debug(7)'s, parsed by tools/hangdoc).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "p2p/request.h"
#include "runtime/hang.h"
#include "base/log.h"
#include "base/tunables.h"

/* Set by the signal handler, which may run in any thread while another one
 * polls: lock-free atomics (relaxed: a flag, no data rides on it), which are
 * safe in a handler where volatile sig_atomic_t is not across threads. */
atomic_int faro_hang_armed;
static atomic_int signalled;
static struct faro_wait *waits;  /* every wait in progress, newest first */
static double report_after;      /* FARO_HANG_REPORT seconds; 0: only on the signal */
static unsigned idle_calls;

struct faro_polling faro_polling;
faro_hang_sched_fn *faro_hang_sched;
faro_hang_tag_fn *faro_hang_coll_tag;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The thread's id, for the lines at MPI_THREAD_MULTIPLE (one system call
 * per thread). */
static int thread_id(void)
{
    static _Thread_local int tid;
    if (!tid)
        tid = (int)syscall(SYS_gettid);
    return tid;
}

/* A few stores: the clock is read later, at the first idle poll (which
 * faro_hang_armed sends to faro_hang_idle), so a wait that ends in its first
 * poll never pays for it. */
void faro_wait_begin(struct faro_wait *w)
{
    w->since = 0;
    w->tid = faro_thread_multiple ? thread_id() : 0;
    w->reported = 0;
    w->next = waits;
    w->pprev = &waits;
    if (waits)
        waits->pprev = &w->next;
    waits = w;
    atomic_store_explicit(&faro_hang_armed, 1, memory_order_relaxed);
}

void faro_wait_end(struct faro_wait *w)
{
    *w->pprev = w->next;
    if (w->next)
        w->next->pprev = w->pprev;
    /* the process did something: a poll counts from 0 again */
    faro_polling.polls = 0;
    if (__builtin_expect(faro_polling.reported, 0))
        faro_hang_poll_ended();
    if (__builtin_expect(w->reported, 0))
        faro_log_print("waiting", "resumed: %s after %.1f s", w->fn ? w->fn : "a collective",
                       now() - w->since);
}

/* ---- describing what a wait waits for ---- */

static const char *comm_name(MPI_Comm c, char *buf, size_t len)
{
    if (c->name[0])
        snprintf(buf, len, "%s", c->name);
    else
        snprintf(buf, len, "communicator %u", (unsigned)c->context_id);
    return buf;
}

/* "rank 3", "rank 3 (rank 1 of comm)", "any rank"; job ranks first */
static void peer_text(MPI_Comm c, int peer, char *buf, size_t len)
{
    if (peer == MPI_ANY_SOURCE) {
        snprintf(buf, len, "any rank");
        return;
    }
    if (peer == MPI_PROC_NULL) {
        snprintf(buf, len, "MPI_PROC_NULL");
        return;
    }
    int job = faro_comm_world_rank(c, peer);
    if (job == peer && !c->inter)
        snprintf(buf, len, "rank %d", job);
    else
        snprintf(buf, len, "rank %d (%s rank %d)", job, c->inter ? "remote" : "communicator",
                 peer);
}

/* The owner of an internal tag, for the line. */
static const char *tag_owner(int tag)
{
    if (tag <= -1000 && tag > -1100)
        return "MPI_Comm_create_group";
    if (tag <= FARO_TAG_INTER_BASE && tag > FARO_TAG_INTER_BASE - 100)
        return "intercommunicator creation";
    const char *who = faro_hang_coll_tag ? faro_hang_coll_tag(tag) : NULL;
    return who ? who : "internal";
}

static void tag_text(int tag, char *buf, size_t len)
{
    if (tag == MPI_ANY_TAG)
        snprintf(buf, len, "any tag");
    else if (tag < 0)
        snprintf(buf, len, "internal tag %d (%s)", tag, tag_owner(tag));
    else
        snprintf(buf, len, "tag %d", tag);
}

/* One point-to-point request: "receive from rank 0 tag 5 on MPI_COMM_WORLD
 * (0 of 40 bytes)". */
static void req_text(const struct faro_request *r, char *buf, size_t len)
{
    char peer[96], tag[96], cn[64];
    peer_text(r->comm, r->rank, peer, sizeof peer);
    tag_text(r->tag, tag, sizeof tag);
    comm_name(r->comm, cn, sizeof cn);
    if (r->kind == FARO_REQ_RECV)
        snprintf(buf, len, "receive from %s %s on %s (%zu of %zu bytes)", peer, tag, cn,
                 r->received, r->len);
    else
        snprintf(buf, len, "%ssend to %s %s on %s (%zu bytes, %zu sent)",
                 r->mode == FARO_MODE_SYNC ? "synchronous " : "", peer, tag, cn, r->len,
                 r->off);
}

/* The lines of one request of wait w (what: "request 2 of 5: " or ""). */
static int print_req(const char *head, struct faro_request *r)
{
    char text[512];
    if (r->kind == FARO_REQ_GREQ) {
        faro_log_print("waiting", "%sgeneralized request (MPI_Grequest_complete by the "
                       "program)", head);
        return 1;
    }
    if (r->kind == FARO_REQ_OPS) {
        faro_log_print("waiting", "%s%s", head, faro_req_ops_of(r)->what);
        return 1;
    }
    if (r->kind == FARO_REQ_COLL && faro_hang_sched) {
        struct faro_request *pending[8];
        const char *fn = "a nonblocking collective";
        char cn[64];
        int n = faro_hang_sched(r, &fn, pending, 8);
        comm_name(r->comm, cn, sizeof cn);
        if (n == 0)
            faro_log_print("waiting", "%s%s on %s (between rounds)", head, fn, cn);
        for (int i = 0; i < n; i++) {
            req_text(pending[i], text, sizeof text);
            faro_log_print("waiting", "%s%s: %s", head, fn, text);
        }
        return n ? n : 1;
    }
    req_text(r, text, sizeof text);
    faro_log_print("waiting", "%s%s", head, text);
    return 1;
}

static double waited(const struct faro_wait *w, double t)
{
    return w->since ? t - w->since : 0;
}

/* Still part of the wait: not null, not an inactive persistent request,
 * not complete. */
static int waiting_on(const struct faro_request *r)
{
    return r && !(r->persistent && !r->active) && !r->complete;
}

static int print_wait(struct faro_wait *w, double t)
{
    char head[128], th[32] = "";
    if (w->tid)
        snprintf(th, sizeof th, "thread %d: ", w->tid);
    if (!w->reqs && !w->comm) { /* MPI_Buffer_detach */
        faro_log_print("waiting", "%s%s for %.1f s: buffered sends still leaving", th, w->fn,
                       waited(w, t));
        return 1;
    }
    if (!w->reqs) { /* a probe */
        char peer[96], tag[96];
        peer_text(w->comm, w->peer, peer, sizeof peer);
        tag_text(w->tag, tag, sizeof tag);
        faro_log_print("waiting", "%s%s for %.1f s: probe from %s %s on %s", th, w->fn,
                       waited(w, t), peer, tag, comm_name(w->comm, head, sizeof head));
        return 1;
    }
    int lines = 0, pending = 0;
    const char *fn = w->fn;
    for (int i = 0; i < w->nreqs; i++) {
        if (!waiting_on(w->reqs[i]))
            continue;
        pending++;
        if (!fn) /* a collective's own wait: name the collective */
            fn = tag_owner(w->reqs[i]->tag);
    }
    for (int i = 0; i < w->nreqs; i++) {
        struct faro_request *r = w->reqs[i];
        if (!waiting_on(r))
            continue;
        if (w->nreqs == 1)
            snprintf(head, sizeof head, "%s%s for %.1f s: ", th, fn, waited(w, t));
        else
            snprintf(head, sizeof head, "%s%s for %.1f s: %s %d of %d (%d pending): ", th, fn,
                     waited(w, t), w->any ? "any of request" : "request", i, w->nreqs,
                     pending);
        lines += print_req(head, r);
    }
    return lines;
}

/* The report; poll: the polling call that prints it, or NULL. */
static void report(const struct faro_wait *poll)
{
    double t = now();
    int lines = 0, nwaits = 0;
    for (struct faro_wait *w = waits; w; w = w->next) {
        lines += print_wait(w, t);
        w->reported = report_after > 0;
        nwaits++;
    }
    if (poll && t - faro_polling.since >= FARO_POLL_MIN_S) {
        char fn[64];
        struct faro_wait pw = *poll;
        snprintf(fn, sizeof fn, "%s (polling)", poll->fn);
        pw.fn = fn;
        pw.since = faro_polling.since;
        pw.tid = faro_thread_multiple ? thread_id() : 0;
        lines += print_wait(&pw, t);
        faro_polling.reported = report_after > 0;
        nwaits++;
    }
    faro_log_print("waiting", "end of report (%d blocked call%s, %d line%s)", nwaits,
                   nwaits == 1 ? "" : "s", lines, lines == 1 ? "" : "s");
}

void faro_hang_report(void)
{
    report(NULL);
}

/* Messages this process sent and received, over every transport. */
static unsigned long long messages_moved(void)
{
    unsigned long long n = 0;
    for (int i = 0; i < faro.ntps; i++) {
        const uint64_t *c = faro.tps[i].count;
        n += c[FARO_CNT_EAGER_SENT] + c[FARO_CNT_RNDV_SENT] + c[FARO_CNT_EAGER_RECVD] +
             c[FARO_CNT_RNDV_RECVD];
    }
    return n;
}

void faro_hang_poll_tick(const struct faro_wait *w)
{
    double t = now();
    unsigned long long moved = messages_moved();
    if (faro_polling.polls == FARO_POLL_TICK) { /* the poll's first tick */
        faro_polling.since = t;
        faro_polling.moved = moved;
    } else if (moved != faro_polling.moved) { /* traffic between the polls: not stuck */
        if (faro_polling.reported)
            faro_hang_poll_ended();
        faro_polling.since = t;
        faro_polling.moved = moved;
    }
    if (atomic_exchange_explicit(&signalled, 0, memory_order_relaxed))
        report(w);
    else if (report_after > 0 && !faro_polling.reported &&
             t - faro_polling.since >= report_after)
        report(w);
}

void faro_hang_poll_ended(void)
{
    faro_polling.reported = 0;
    faro_log_print("waiting", "resumed: polling after %.1f s", now() - faro_polling.since);
}

void faro_hang_idle(void)
{
    double t = 0;
    for (struct faro_wait *w = waits; w; w = w->next)
        if (!w->since)
            w->since = t ? t : (t = now());
    /* disarm, then take the signal: one arriving in between is taken now,
     * one after re-arms */
    atomic_store_explicit(&faro_hang_armed, report_after > 0, memory_order_relaxed);
    if (atomic_exchange_explicit(&signalled, 0, memory_order_relaxed)) {
        faro_hang_report();
        return;
    }
    if (report_after <= 0 || ++idle_calls % 256)
        return;
    t = now();
    for (struct faro_wait *w = waits; w; w = w->next)
        if (!w->reported && t - w->since >= report_after) {
            faro_hang_report();
            return;
        }
}

static void on_signal(int sig)
{
    int saved = errno;
    (void)sig;
    atomic_store_explicit(&signalled, 1, memory_order_relaxed);
    atomic_store_explicit(&faro_hang_armed, 1, memory_order_relaxed);
    errno = saved;
}

void faro_hang_init(void)
{
    static const int sigs[] = {SIGUSR1, SIGUSR2, 0};
    report_after = (double)faro_tun_int(FARO_TUN_HANG_REPORT);
    atomic_store_explicit(&faro_hang_armed, report_after > 0, memory_order_relaxed);
    int sig = sigs[faro_tun_int(FARO_TUN_HANG_SIGNAL)];
    struct sigaction old;
    /* a program's own handler stays */
    if (!sig || sigaction(sig, NULL, &old) || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}
