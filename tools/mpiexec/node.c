/*
 * The loop every node of the launch tree runs: mpiexec (the root, with its
 * own ranks when the job has no hosts, else with child proxies only) and
 * each faro_proxy (its host's ranks, its parent, maybe children). One
 * poll() over everything the node owns; mpiexec.h has the picture.
 *
 * Nothing here blocks: control links are non-blocking and queue what the
 * kernel does not take, and mpiexec queues output for its own stdout and
 * stderr. When a queue grows past MPX_BACKLOG the node stops reading what
 * feeds it (its ranks' pipes, its children) until it drained, so a slow
 * reader of mpiexec's output (a paused pager) slows the job down instead of
 * making it eat memory, and never looks like a lost host: the silence of a
 * link that is not being read is not held against it.
 */
#include "config.h"

#include "mpiexec.h"

#include <dirent.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NODE_BACKLOG (4u << 20)     /* bytes queued before the node stops reading */
#define NODE_AUTH_MS 10000          /* an accepted connection must authenticate by then */
#define NODE_STDIN_WINDOW (1u << 20) /* stdin bytes in flight to rank 0's host */
#define NODE_SILENT_MAX 20          /* heartbeat times a live but silent peer gets */
#define NODE_STALL_SLACK_MS 100     /* a round later than its timers plus this: stalled */
#define NODE_ACCEPT_PAUSE_MS 1000   /* out of descriptors: accept nothing for this long */
#define NODE_WARN_MS 10000          /* one warning about strangers per this */

long long mpx_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *mpx_me(const struct mpx_job *job)
{
    static char me[MPX_HOST_NAME_MAX + 64];
    if (job->is_root && job->label[0]) {
        snprintf(me, sizeof me, "mpiexec (%s)", job->label);
        return me;
    }
    if (job->is_root)
        return "mpiexec";
    snprintf(me, sizeof me, "faro_proxy on %s",
             job->hostname && job->host >= 0 ? job->hostname[job->host] : "?");
    return me;
}

static void node_end(struct mpx_job *job, int code, int sig)
{
    job->ending = 1;
    job->exit_code = code;
    job->kill_at = mpx_now_ms() + MPX_GRACE_MS;
    mpx_signal_all(job, sig);
}

void mpx_job_fail(struct mpx_job *job, int code, const char *fmt, ...)
{
    if (job->ending)
        return; /* the first failure decides; the rest is its consequence */
    char line[2048] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line - 1, fmt, ap);
        va_end(ap);
    }
    if (job->top && !job->top_told && line[0]) {
        /* A spawned job that never started: its spawn fails with this, said
         * without "mpiexec...: " and "; ending the job". */
        char *why = strstr(line, ": "), *end = strstr(line, "; ending the job");
        if (end)
            *end = 0;
        mpx_subjob_failed(job, why ? why + 2 : line);
    } else if (!job->is_root && job->parent) {
        /* A proxy does not decide the job's end; it tells mpiexec that its
         * host failed (its ranks may never report). */
        struct mpx_buf b = { 0 };
        mpx_buf_u32(&b, (uint32_t)job->host);
        mpx_buf_str(&b, line[0] ? line : "its proxy failed");
        mpx_conn_send(job->parent, MPX_MSG_LOST, b.p, b.len, NULL, 0);
        mpx_buf_free(&b);
    } else if (line[0]) {
        strcat(line, "\n");
        fputs(line, stderr);
        fflush(stderr);
    }
    if (job->top && job->top_told)
        mpx_subjob_ending(job, code);
    node_end(job, code, SIGTERM);
}

/* Send to a child, or keep it for when it connects. */
void mpx_kid_send(struct mpx_job *job, struct mpx_link *k, int type, const void *a, size_t alen,
                  const void *b, size_t blen)
{
    if (k->state == MPX_LINK_UP) {
        mpx_conn_send(&k->c, type, a, alen, b, blen);
    } else if (k->state == MPX_LINK_STARTING) {
        mpx_frame_put(&k->early, type, a, alen, b, blen); /* sent after its LAUNCH */
    }
    (void)job;
}

int mpx_signals(sigset_t *old)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGQUIT);
    sigaddset(&mask, SIGUSR1); /* mpiexec: a hang report; a proxy ignores it */
    sigprocmask(SIG_BLOCK, &mask, old);
    return signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

void mpx_raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* ---- children connecting ---- */

/*
 * The listening socket faces whatever can reach it (issue 13, tests/launcher/
 * hostile-mpx.sh). A connection must prove it knows the job key within
 * NODE_AUTH_MS, in frames of at most MPX_FRAME_AUTH_MAX bytes (ctl.c); at
 * most MPX_MAX_PENDING wait at once, and a newer one closes the oldest (as the
 * tcp transport does: a stranger holding its slot cannot keep a late proxy
 * out). When descriptors run out, every unauthenticated connection is closed
 * and accepting pauses for NODE_ACCEPT_PAUSE_MS (the listener leaves the
 * poll set, which would otherwise report it ready forever); a proxy that
 * connects meanwhile waits in the kernel's backlog. Warnings about strangers
 * come at most once per NODE_WARN_MS, with the count of the others.
 */
enum { NODE_WARN_REFUSED, NODE_WARN_NOFILE, NODE_WARN_VERBOSE };

/* A stranger turned away: say so (kind: NODE_WARN_*; the verbose kind only
 * with -v), once per NODE_WARN_MS per kind. */
static void node_stranger(struct mpx_job *job, const char *what, const char *why, int kind)
{
    long long now = mpx_now_ms();
    int k = kind == NODE_WARN_NOFILE;
    if (kind == NODE_WARN_VERBOSE && !job->opts.verbose)
        return;
    job->strangers_unsaid[k]++;
    if (job->stranger_warned[k] && now - job->stranger_warned[k] < NODE_WARN_MS)
        return;
    if (job->strangers_unsaid[k] > 1)
        fprintf(stderr, "%s: %s a connection: %s (and %d more since the last such warning)\n",
                mpx_me(job), what, why, job->strangers_unsaid[k] - 1);
    else
        fprintf(stderr, "%s: %s a connection: %s\n", mpx_me(job), what, why);
    job->stranger_warned[k] = now;
    job->strangers_unsaid[k] = 0;
}

static void node_pending_drop(struct mpx_job *job, int i, const char *why)
{
    struct mpx_pending *p = &job->pending[i];
    if (why)
        node_stranger(job, "closed", why, NODE_WARN_VERBOSE);
    mpx_conn_close(&p->c);
    job->pending[i] = job->pending[--job->npending];
}

static void node_accept(struct mpx_job *job)
{
    for (;;) {
        int fd = accept4(job->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                char why[160];
                snprintf(why, sizeof why, "accept: %s; closing those not yet authenticated "
                         "and pausing new connections for %.1f s", strerror(errno),
                         NODE_ACCEPT_PAUSE_MS / 1000.0);
                while (job->npending > 0)
                    node_pending_drop(job, job->npending - 1, NULL);
                node_stranger(job, "refused", why, NODE_WARN_NOFILE);
                job->accept_paused_until = mpx_now_ms() + NODE_ACCEPT_PAUSE_MS;
            }
            return;
        }
        if (job->npending == MPX_MAX_PENDING) {
            int oldest = 0;
            for (int i = 1; i < job->npending; i++)
                if (job->pending[i].since < job->pending[oldest].since)
                    oldest = i;
            node_pending_drop(job, oldest, "too many connections waiting to authenticate");
        }
        struct mpx_pending *p = &job->pending[job->npending];
        mpx_conn_init(&p->c, fd, MPX_FRAME_AUTH_MAX);
        if (mpx_random(p->nonce, sizeof p->nonce) < 0 ||
            mpx_conn_send(&p->c, MPX_MSG_CHALLENGE, p->nonce, sizeof p->nonce, NULL, 0) < 0) {
            mpx_conn_close(&p->c);
            continue;
        }
        p->since = mpx_now_ms();
        job->npending++;
    }
}

/* A child's HELLO: attach it when it knows the key. */
static void node_pending_hello(struct mpx_job *job, int i, struct mpx_rd *rd)
{
    struct mpx_pending *p = &job->pending[i];
    uint32_t id = mpx_rd_u32(rd);
    const unsigned char *nonce_c = mpx_rd_bytes(rd, 16);
    uint64_t mac = (uint64_t)mpx_rd_u32(rd) << 32;
    mac |= mpx_rd_u32(rd);
    struct mpx_link *k = NULL;
    for (int j = 0; j < job->nkids && !rd->bad; j++)
        if (job->kids[j].host == (int)id && job->kids[j].state == MPX_LINK_STARTING)
            k = &job->kids[j];
    if (rd->bad || !k || mac != mpx_auth_mac(job->key, "child", p->nonce, id)) {
        node_stranger(job, "refused", rd->bad || !k ? "it is not a proxy this node waits for"
                                                    : "it did not prove it knows the job key",
                      NODE_WARN_REFUSED);
        node_pending_drop(job, i, NULL);
        return;
    }
    uint64_t mine = mpx_auth_mac(job->key, "parent", nonce_c, id);
    uint32_t w[2] = { htonl((uint32_t)(mine >> 32)), htonl((uint32_t)mine) };
    k->c = p->c;
    job->pending[i] = job->pending[--job->npending];
    k->c.max_frame = MPX_FRAME_MAX;
    k->state = MPX_LINK_UP;
    mpx_conn_send(&k->c, MPX_MSG_WELCOME, w, sizeof w, NULL, 0);
    mpx_conn_send(&k->c, MPX_MSG_LAUNCH, job->launch.p, job->launch.len, NULL, 0);
    if (k->early.len) {
        mpx_buf_put(&k->c.out, k->early.p, k->early.len);
        mpx_buf_free(&k->early);
        mpx_conn_flush(&k->c);
    }
    if (job->ending) {
        uint32_t s = htonl(job->killed ? SIGKILL : SIGTERM);
        mpx_conn_send(&k->c, MPX_MSG_SIGNAL, &s, 4, NULL, 0);
    }
    if (job->opts.verbose)
        fprintf(stderr, "%s: host %s: proxy connected after %lld ms\n", mpx_me(job),
                job->hostname[k->host], mpx_now_ms() - k->started);
}

/* ---- the parent ---- */

/* Lost the parent: nobody will ever judge or end this host's ranks, so end
 * them now, and let the children see this node go. */
static void node_orphaned(struct mpx_job *job, const char *why)
{
    if (job->orphaned)
        return;
    job->orphaned = 1;
    fprintf(stderr, "%s: lost mpiexec (%s); killing this host's ranks\n", mpx_me(job), why);
    for (int i = 0; i < job->nkids; i++)
        if (job->kids[i].state == MPX_LINK_UP || job->kids[i].state == MPX_LINK_STARTING) {
            mpx_conn_close(&job->kids[i].c);
            job->kids[i].state = MPX_LINK_LOST;
        }
    mpx_conn_close(job->parent);
    job->killed = 1;
    mpx_signal_all(job, SIGKILL);
}

/* ---- signals and exits ---- */

static void node_reaped(struct mpx_job *job, struct mpx_rank *r, int status)
{
    pid_t pid = r->pid;
    r->pid = 0;
    job->alive--;
    mpx_pmi_serve(job, r); /* a finalize may still sit in the socket */
    mpx_stream_read(job, &r->out, 1);
    mpx_stream_read(job, &r->err, 1);
    mpx_report_exit(job, r, (long)pid, status);
    if (r->pmi_fd >= 0) {
        close(r->pmi_fd);
        r->pmi_fd = -1;
    }
    if (r->stdin_fd >= 0) {
        close(r->stdin_fd);
        r->stdin_fd = -1;
    }
}

static void node_agent_ended(struct mpx_job *job, struct mpx_link *k, int status)
{
    k->agent = 0;
    if (k->state != MPX_LINK_STARTING) {
        if (job->opts.verbose)
            fprintf(stderr, "%s: host %s: its agent ended (%s %d)\n", mpx_me(job),
                    job->hostname[k->host], WIFSIGNALED(status) ? "signal" : "exit code",
                    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        return;
    }
    char why[160];
    if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "the command that starts its proxy was killed by signal %d "
                 "before the proxy connected", WTERMSIG(status));
    else
        snprintf(why, sizeof why, "the command that starts its proxy exited with code %d "
                 "before the proxy connected%s", WEXITSTATUS(status),
                 WEXITSTATUS(status) == 255 ? " (ssh could not connect?)" : "");
    mpx_kid_lost(job, k, why);
}

static void node_reap(struct mpx_job *job)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int found = 0;
        for (int i = 0; i < job->nlocal && !found; i++)
            if (job->ranks[i].pid == pid) {
                node_reaped(job, &job->ranks[i], status);
                found = 1;
            }
        for (int i = 0; i < job->nkids && !found; i++)
            if (job->kids[i].agent == pid) {
                node_agent_ended(job, &job->kids[i], status);
                found = 1;
            }
        if (!found)
            mpx_subjob_reaped(job, pid, status);
    }
}

static void node_on_signal(struct mpx_job *job, int sfd)
{
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD)
            continue; /* reaped below, whatever the count of queued SIGCHLDs */
        if (sig == SIGUSR1) {
            mpx_hang_ask(job, mpx_now_ms());
            continue;
        }
        if (!job->ending) {
            /* A spawned job's mpiexec hears from the first one when the
             * launch ends; that one has said why. */
            int from_top = job->top && si.ssi_pid == (uint32_t)getppid();
            if (job->is_root && !from_top)
                fprintf(stderr, "mpiexec: received signal %d (%s); passing it to the ranks and "
                        "ending the job\n", sig, strsignal(sig));
            node_end(job, 128 + sig, sig);
        } else if (!job->killed) {
            /* Asked twice: do not wait for the grace period. */
            mpx_signal_all(job, SIGKILL);
            job->killed = 1;
        }
    }
    node_reap(job);
}

/* ---- stdin of rank 0 ---- */

/* mpiexec: pass what its stdin holds to rank 0's host. */
static void node_read_stdin(struct mpx_job *job)
{
    char buf[65536];
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    uint32_t h = htonl((uint32_t)job->host_of[0]);
    struct mpx_link *k = mpx_kid_for(job, job->host_of[0]);
    if (n <= 0 || !k || k->state == MPX_LINK_DONE || k->state == MPX_LINK_LOST)
        job->stdin_open = 0; /* end of file (an empty STDIN says so), or nobody to read it */
    if (k)
        mpx_kid_send(job, k, MPX_MSG_STDIN, &h, 4, buf, n > 0 ? (size_t)n : 0);
    if (n > 0)
        job->stdin_sent += (uint64_t)n;
}

/* A proxy: write what is queued for rank 0; acknowledge it to mpiexec. */
void mpx_stdin_write(struct mpx_job *job)
{
    struct mpx_rank *r = NULL;
    for (int i = 0; i < job->nlocal; i++)
        if (job->ranks[i].rank == 0)
            r = &job->ranks[i];
    size_t done = 0, left = job->stdin_q.len;
    int closed = 0;
    while (r && r->stdin_fd >= 0 && done < left) {
        ssize_t n = write(r->stdin_fd, job->stdin_q.p + done, left - done);
        if (n > 0)
            done += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        else
            closed = 1, done = left; /* rank 0 closed its stdin or ended: drop the rest */
    }
    if (!r || r->stdin_fd < 0)
        closed = 1, done = left;
    if (closed && r && r->stdin_fd >= 0) {
        close(r->stdin_fd);
        r->stdin_fd = -1;
    }
    if (done || closed) {
        uint32_t ack[2] = { htonl((uint32_t)done), htonl((uint32_t)closed) };
        mpx_conn_send(job->parent, MPX_MSG_STDIN_ACK, ack, sizeof ack, NULL, 0);
    }
    if (done && left > done)
        memmove(job->stdin_q.p, job->stdin_q.p + done, left - done);
    job->stdin_q.len = left - done;
    if (job->stdin_eof && job->stdin_q.len == 0 && r && r->stdin_fd >= 0) {
        close(r->stdin_fd);
        r->stdin_fd = -1;
    }
}

/* ---- the loop ---- */

enum node_what { W_SIG, W_PMI, W_OUT, W_ERR, W_RSTDIN, W_LISTEN, W_PENDING, W_KID, W_PARENT,
                 W_STDIN, W_STDOUT, W_STDERR, W_SUBJOB, W_TOP };

struct node_poll {
    struct pollfd *pfd;
    struct { int what, idx; } *who;
    nfds_t n, cap;
};

static void np_add(struct node_poll *p, int fd, short events, int what, int idx)
{
    if (fd < 0 || p->n == p->cap)
        return;
    p->pfd[p->n] = (struct pollfd){ .fd = fd, .events = events };
    p->who[p->n].what = what;
    p->who[p->n].idx = idx;
    p->n++;
}

static int node_streams_open(const struct mpx_job *job)
{
    for (int i = 0; i < job->nlocal; i++)
        if (job->ranks[i].out.fd >= 0 || job->ranks[i].err.fd >= 0)
            return 1;
    return 0;
}

static int node_kids_running(const struct mpx_job *job)
{
    for (int i = 0; i < job->nkids; i++)
        if (job->kids[i].state == MPX_LINK_STARTING || job->kids[i].state == MPX_LINK_UP)
            return 1;
    return 0;
}

static void node_min(long long *best, long long t)
{
    if (t > 0 && (*best < 0 || t < *best))
        *best = t;
}

/* Is the other end of a silent link gone? Silence alone proves little: a
 * proxy that the kernel does not schedule for a while (a host loaded far past
 * its cores) is silent too. But this side sends a heartbeat at least every
 * quarter of the heartbeat time, and the other host's kernel acknowledges it
 * within milliseconds whatever its processes do. So a link is lost when it
 * has been silent for the heartbeat time and TCP has had no acknowledgement
 * for half of it: the other host, or the network link, is down. A process
 * that is alive but stopped (its kernel still acknowledging) is given
 * NODE_SILENT_MAX heartbeat times. A node that was itself not scheduled
 * restarts the clocks (node_stalled): it sent nothing to be acknowledged. */
enum node_silence { NODE_ALIVE, NODE_DOWN, NODE_STOPPED };

static enum node_silence node_silent(const struct mpx_conn *c, long long now, int hb)
{
    long long quiet = now - c->last_rx;
    if (quiet < hb)
        return NODE_ALIVE;
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
        ti.tcpi_last_ack_recv >= (unsigned)hb / 2)
        return NODE_DOWN;
    return quiet >= (long long)hb * NODE_SILENT_MAX ? NODE_STOPPED : NODE_ALIVE;
}

/* This node ran nothing for a while (not scheduled, or busy starting ranks):
 * what its links did meanwhile cannot be judged. */
static void node_stalled(struct mpx_job *job, long long now)
{
    for (int i = 0; i < job->nkids; i++)
        job->kids[i].c.last_rx = now;
    if (job->parent)
        job->parent->last_rx = now;
}

/* Heartbeats, late children, unauthenticated strangers (before poll). */
static void node_timers(struct mpx_job *job, long long now, int paused, long long *next)
{
    int hb = job->heartbeat_ms, beat = hb / 4;
    char why[160];
    for (int i = 0; i < job->nkids; i++) {
        struct mpx_link *k = &job->kids[i];
        if (k->state == MPX_LINK_STARTING) {
            if (now - k->started >= MPX_CONNECT_MS) {
                snprintf(why, sizeof why, "its proxy did not connect within %d s",
                         MPX_CONNECT_MS / 1000);
                mpx_kid_lost(job, k, why);
            } else {
                node_min(next, k->started + MPX_CONNECT_MS);
            }
            continue;
        }
        if (k->state != MPX_LINK_UP)
            continue;
        if (paused)
            k->c.last_rx = now; /* not read: its silence proves nothing */
        if (now - k->c.last_tx >= beat)
            mpx_conn_send(&k->c, MPX_MSG_HEARTBEAT, NULL, 0, NULL, 0);
        node_min(next, k->c.last_rx + hb);
        node_min(next, k->c.last_tx + beat);
    }
    if (job->parent && job->parent->fd >= 0) {
        struct mpx_conn *c = job->parent;
        if (now - c->last_tx >= beat)
            mpx_conn_send(c, MPX_MSG_HEARTBEAT, NULL, 0, NULL, 0);
        node_min(next, c->last_rx + hb);
        node_min(next, c->last_tx + beat);
    }
    for (int i = 0; i < job->npending; i++)
        if (now - job->pending[i].since >= NODE_AUTH_MS)
            node_pending_drop(job, i--, "it did not authenticate in time");
        else
            node_min(next, job->pending[i].since + NODE_AUTH_MS);
    if (job->accept_paused_until && now >= job->accept_paused_until)
        job->accept_paused_until = 0;
    node_min(next, job->accept_paused_until);
}

/* Silent links (after the input of this round was read: a node that was not
 * scheduled for a while must not blame its peers for it). */
static void node_silence(struct mpx_job *job, long long now)
{
    int hb = job->heartbeat_ms;
    char why[200];
    enum node_silence st;
    for (int i = 0; i < job->nkids; i++) {
        struct mpx_link *k = &job->kids[i];
        if (k->state != MPX_LINK_UP || (st = node_silent(&k->c, now, hb)) == NODE_ALIVE)
            continue;
        snprintf(why, sizeof why, "no message from its proxy for %.1f s%s",
                 (now - k->c.last_rx) / 1000.0,
                 st == NODE_DOWN ? " and TCP gets no acknowledgement (host or network link down)"
                                 : ", though its host answers (the proxy is stopped or hangs)");
        mpx_kid_lost(job, k, why);
    }
    if (job->parent && job->parent->fd >= 0 &&
        (st = node_silent(job->parent, now, hb)) != NODE_ALIVE) {
        snprintf(why, sizeof why, "no message for %.1f s%s", (now - job->parent->last_rx) / 1000.0,
                 st == NODE_DOWN ? " and TCP gets no acknowledgement" : "");
        node_orphaned(job, why);
    }
}

static void node_kid_input(struct mpx_job *job, struct mpx_link *k)
{
    if (mpx_conn_fill(&k->c) < 0) {
        int type;
        struct mpx_rd rd;
        /* Whatever arrived before the end still counts (a DONE, an EXIT). */
        while (k->state == MPX_LINK_UP && mpx_conn_frame(&k->c, &type, &rd) > 0)
            mpx_kid_message(job, k, type, &rd);
        if (k->state == MPX_LINK_UP) {
            char why[256];
            if (!strcmp(k->c.why, MPX_CONN_CLOSED))
                snprintf(why, sizeof why, "its proxy's connection closed (the proxy died or "
                         "was killed)");
            else
                snprintf(why, sizeof why, "its proxy's connection failed (%s)", k->c.why);
            mpx_kid_lost(job, k, why);
        }
        return;
    }
    int type, rc;
    struct mpx_rd rd;
    while (k->state == MPX_LINK_UP && (rc = mpx_conn_frame(&k->c, &type, &rd)) != 0) {
        if (rc < 0) {
            mpx_kid_lost(job, k, k->c.why);
            return;
        }
        mpx_kid_message(job, k, type, &rd);
    }
}

static void node_parent_input(struct mpx_job *job)
{
    struct mpx_conn *c = job->parent;
    int failed = mpx_conn_fill(c) < 0, type, rc;
    struct mpx_rd rd;
    while (!job->orphaned && (rc = mpx_conn_frame(c, &type, &rd)) != 0) {
        if (rc < 0) {
            node_orphaned(job, c->why);
            return;
        }
        mpx_parent_message(job, type, &rd);
    }
    if (failed)
        node_orphaned(job, c->why);
}

static void node_pending_input(struct mpx_job *job, int i)
{
    struct mpx_pending *p = &job->pending[i];
    int type, rc;
    struct mpx_rd rd;
    if (mpx_conn_fill(&p->c) < 0) {
        node_pending_drop(job, i, p->c.why);
        return;
    }
    rc = mpx_conn_frame(&p->c, &type, &rd);
    if (rc < 0 || (rc > 0 && type != MPX_MSG_HELLO))
        node_pending_drop(job, i, "it does not speak the proxy protocol");
    else if (rc > 0)
        node_pending_hello(job, i, &rd);
}

/* Is this node finished? A proxy then reports DONE. */
static int node_finished(struct mpx_job *job, long long now, long long *drain_at)
{
    if (job->alive > 0)
        return 0;
    if (!*drain_at)
        *drain_at = now + MPX_DRAIN_MS;
    /* A process the rank left behind may hold its pipes; do not wait on it. */
    if (node_streams_open(job) && now < *drain_at && !job->orphaned)
        return 0;
    for (int i = 0; i < job->nlocal; i++) {
        if (job->ranks[i].out.fd >= 0)
            mpx_stream_close(job, &job->ranks[i].out);
        if (job->ranks[i].err.fd >= 0)
            mpx_stream_close(job, &job->ranks[i].err);
    }
    /* The jobs this launch spawned end before it does (or with it). */
    return job->orphaned || (!node_kids_running(job) && !mpx_subjobs_running(job));
}

void mpx_node_loop(struct mpx_job *job, int sfd)
{
    size_t cap = 8 + 4 * (size_t)job->nlocal + (size_t)job->nkids + MPX_MAX_PENDING;
    struct node_poll P = { calloc(cap, sizeof(struct pollfd)), calloc(cap, sizeof *P.who), 0,
                           cap };
    if (!P.pfd || !P.who) {
        mpx_job_fail(job, 1, "%s: out of memory", mpx_me(job));
        mpx_signal_all(job, SIGKILL);
    }
    long long timeout_at = job->is_root && job->opts.timeout_s
                               ? mpx_now_ms() + job->opts.timeout_s * 1000LL : 0;
    long long drain_at = 0, last_round = 0;

    while (P.pfd && P.who) {
        size_t need = 8 + 4 * (size_t)job->nlocal + (size_t)job->nkids + MPX_MAX_PENDING +
                      (size_t)job->nsubjobs;
        if (need > P.cap) { /* spawned jobs come and go */
            struct pollfd *pfd = realloc(P.pfd, need * sizeof *P.pfd);
            void *who = pfd ? realloc(P.who, need * sizeof *P.who) : NULL;
            if (pfd)
                P.pfd = pfd;
            if (!pfd || !who) {
                mpx_job_fail(job, 1, "%s: out of memory", mpx_me(job));
                mpx_signal_all(job, SIGKILL);
                break;
            }
            P.who = who;
            P.cap = need;
        }
        long long now = mpx_now_ms(), next = -1;
        if (node_finished(job, now, &drain_at))
            break;
        if (timeout_at && now >= timeout_at && !job->ending && !mpx_hang_timeout(job, now))
            mpx_job_fail(job, MPX_EXIT_TIMEOUT, "mpiexec: job timed out after %d seconds; "
                         "ending it", job->opts.timeout_s);
        if (job->is_root)
            mpx_lost_report_due(job, now, &next);
        if (job->is_root && job->ending && !job->killed && now >= job->kill_at) {
            mpx_signal_all(job, SIGKILL);
            job->killed = 1;
        }
        mpx_subjob_check_started(job);
        if (last_round && now - last_round > job->heartbeat_ms / 4 + NODE_STALL_SLACK_MS)
            node_stalled(job, now);
        last_round = now;
        size_t backlog = job->parent ? mpx_conn_pending(job->parent) : mpx_output_pending(job);
        int paused = backlog > NODE_BACKLOG;
        node_timers(job, now, paused, &next);
        mpx_hang_tick(job, now, &next);

        P.n = 0;
        np_add(&P, sfd, POLLIN, W_SIG, 0);
        for (int i = 0; i < job->nlocal; i++) {
            struct mpx_rank *r = &job->ranks[i];
            np_add(&P, r->pmi_fd, POLLIN, W_PMI, i);
            if (!paused) {
                np_add(&P, r->out.fd, POLLIN, W_OUT, i);
                np_add(&P, r->err.fd, POLLIN, W_ERR, i);
            }
            if (r->stdin_fd >= 0 && job->stdin_q.len)
                np_add(&P, r->stdin_fd, POLLOUT, W_RSTDIN, i);
        }
        if (!job->accept_paused_until)
            np_add(&P, job->listen_fd, POLLIN, W_LISTEN, 0);
        for (int i = 0; i < job->npending; i++)
            np_add(&P, job->pending[i].c.fd, POLLIN, W_PENDING, i);
        for (int i = 0; i < job->nkids; i++) {
            struct mpx_link *k = &job->kids[i];
            if (k->state == MPX_LINK_UP)
                np_add(&P, k->c.fd, (short)((paused ? 0 : POLLIN) |
                                            (mpx_conn_pending(&k->c) ? POLLOUT : 0)), W_KID, i);
        }
        if (job->parent && job->parent->fd >= 0)
            np_add(&P, job->parent->fd,
                   (short)(POLLIN | (mpx_conn_pending(job->parent) ? POLLOUT : 0)), W_PARENT, 0);
        if (job->stdin_open && job->stdin_sent - job->stdin_acked < NODE_STDIN_WINDOW)
            np_add(&P, 0, POLLIN, W_STDIN, 0);
        for (int i = 0; i < job->nsubjobs; i++) {
            struct mpx_conn *c = mpx_subjob_conn(job, i);
            if (c)
                np_add(&P, c->fd, (short)(POLLIN | (mpx_conn_pending(c) ? POLLOUT : 0)),
                       W_SUBJOB, i);
        }
        if (job->top && job->top->fd >= 0)
            np_add(&P, job->top->fd,
                   (short)(POLLIN | (mpx_conn_pending(job->top) ? POLLOUT : 0)), W_TOP, 0);
        for (int dest = 1; dest <= 2; dest++)
            if (mpx_output_queued(job, dest))
                np_add(&P, dest, POLLOUT, W_STDOUT, dest);

        node_min(&next, timeout_at && !job->ending ? timeout_at : 0);
        node_min(&next, job->ending && !job->killed ? job->kill_at : 0);
        node_min(&next, node_streams_open(job) ? drain_at : 0); /* a deadline only while it matters */
        int wait_ms = next < 0 ? -1 : next <= now ? 0 : (int)(next - now > 60000 ? 60000 : next - now);
        int rc = poll(P.pfd, P.n, wait_ms);
        if (rc < 0 && errno != EINTR) {
            mpx_job_fail(job, 1, "%s: poll: %s", mpx_me(job), strerror(errno));
            mpx_signal_all(job, SIGKILL);
            break;
        }
        /* Requests and output first, so a finalize is seen before the exit. */
        int sig = 0;
        for (nfds_t j = 0; rc > 0 && j < P.n; j++) {
            if (!P.pfd[j].revents)
                continue;
            int i = P.who[j].idx;
            struct mpx_rank *r = i < job->nlocal ? &job->ranks[i] : NULL;
            switch (P.who[j].what) {
            case W_SIG: sig = 1; break;
            case W_PMI: mpx_pmi_serve(job, r); break;
            case W_OUT: mpx_stream_read(job, &r->out, 0); break;
            case W_ERR: mpx_stream_read(job, &r->err, 0); break;
            case W_RSTDIN: mpx_stdin_write(job); break;
            case W_LISTEN: node_accept(job); break;
            case W_PENDING: break; /* below: the array moves as entries go */
            case W_KID:
                if (P.pfd[j].revents & POLLOUT)
                    mpx_conn_flush(&job->kids[i].c);
                if (P.pfd[j].revents & (POLLIN | POLLHUP | POLLERR))
                    node_kid_input(job, &job->kids[i]);
                break;
            case W_PARENT:
                if (P.pfd[j].revents & POLLOUT)
                    mpx_conn_flush(job->parent);
                if (P.pfd[j].revents & (POLLIN | POLLHUP | POLLERR))
                    node_parent_input(job);
                break;
            case W_STDIN: node_read_stdin(job); break;
            case W_STDOUT: mpx_output_flush(job, i); break;
            case W_SUBJOB: mpx_subjob_input(job, i); break;
            case W_TOP: mpx_top_input(job); break;
            }
        }
        for (int i = job->npending - 1; rc > 0 && i >= 0; i--) {
            struct pollfd q = { .fd = job->pending[i].c.fd, .events = POLLIN };
            if (poll(&q, 1, 0) > 0)
                node_pending_input(job, i);
        }
        if (sig)
            node_on_signal(job, sfd);
        node_silence(job, mpx_now_ms());
    }
    free(P.pfd);
    free(P.who);
}

void mpx_job_free(struct mpx_job *job)
{
    for (int i = 0; i < job->nkids; i++) {
        mpx_conn_close(&job->kids[i].c);
        mpx_buf_free(&job->kids[i].early);
    }
    for (int i = 0; i < job->npending; i++)
        mpx_conn_close(&job->pending[i].c);
    if (job->parent) {
        mpx_conn_close(job->parent);
        free(job->parent);
    }
    if (job->listen_fd >= 0)
        close(job->listen_fd);
    for (int i = 0; i < job->nlocal; i++)
        mpx_mcmd_free(&job->ranks[i]);
    mpx_subjobs_free(job);
    free(job->kids);
    free(job->pending);
    mpx_buf_free(&job->fence);
    mpx_buf_free(&job->launch);
    mpx_buf_free(&job->stdin_q);
    mpx_kvs_free(job->kvs);
    free(job->ranks);
}

/* Transports name their files /dev/shm/<jobid>-...; a crashed job leaves them. */
void mpx_clean_shm(const struct mpx_job *job)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    char prefix[80];
    int plen = snprintf(prefix, sizeof prefix, "%s-", job->kvsname);
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, (size_t)plen) == 0 && unlinkat(dirfd(d), e->d_name, 0) == 0)
            removed++;
    closedir(d);
    if (removed && job->opts.verbose)
        fprintf(stderr, "%s: removed %d leftover file(s) /dev/shm/%s*\n", mpx_me(job), removed,
                prefix);
}
