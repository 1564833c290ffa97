/*
 * What flows along the launch tree (mpiexec.h has the picture): the job
 * description every proxy gets, the fence that a PMI barrier becomes, and
 * the reports that go up to mpiexec, which alone judges them.
 *
 * The fence of a phase: a node collects the puts of its own ranks and the
 * FENCE_UP of each child; once all of its ranks are in the barrier and every
 * child's FENCE_UP arrived, it sends their concatenation up. mpiexec then
 * holds every put of the phase and sends them all down (FENCE_DOWN); each
 * node stores them, passes them on unchanged, and answers its ranks'
 * barrier. Gets are then answered from the node's own store: a phase costs
 * one message per link each way, whatever the number of keys.
 */
#include "config.h"

#include "mpiexec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAUNCH_VERSION 3

/* ---- the job description ---- */

static const char *opt_or_empty(const char *s)
{
    return s ? s : "";
}

int mpx_job_encode(struct mpx_job *job)
{
    struct mpx_buf *b = &job->launch;
    const struct mpx_opts *o = &job->opts;
    mpx_buf_u32(b, LAUNCH_VERSION);
    mpx_buf_str(b, job->kvsname);
    mpx_buf_u32(b, (uint32_t)job->np);
    mpx_buf_u32(b, (uint32_t)job->nhosts);
    for (int h = 0; h < job->nhosts; h++)
        mpx_buf_str(b, job->hostname[h]);
    for (int r = 0; r < job->np; r++)
        mpx_buf_u32(b, (uint32_t)job->host_of[r]);
    mpx_buf_str(b, job->mapping);
    mpx_buf_u32(b, (uint32_t)o->tree_width);
    mpx_buf_u32(b, (uint32_t)job->heartbeat_ms);
    mpx_buf_u32(b, (uint32_t)o->verbose);
    mpx_buf_str(b, opt_or_empty(job->tag));
    mpx_buf_str(b, opt_or_empty(job->wdir));
    mpx_buf_str(b, job->proxy_path);
    mpx_buf_strv(b, job->agent);
    mpx_buf_u32(b, (uint32_t)job->agent_all);
    mpx_buf_u32(b, (uint32_t)job->agent_shell);
    mpx_buf_str(b, opt_or_empty(job->tcp_if));
    mpx_buf_strv(b, job->fwd_env);
    mpx_buf_strv(b, o->env);
    mpx_buf_str(b, opt_or_empty(o->map_by));
    mpx_buf_str(b, opt_or_empty(o->bind_to));
    mpx_buf_str(b, opt_or_empty(o->topology));
    mpx_buf_str(b, opt_or_empty(o->cpus_per_rank));
    mpx_buf_u32(b, (uint32_t)o->report_bindings);
    mpx_buf_str(b, opt_or_empty(o->outfile_pattern));
    mpx_buf_str(b, opt_or_empty(o->errfile_pattern));
    mpx_buf_str(b, opt_or_empty(o->output_dir));
    mpx_buf_u32(b, (uint32_t)o->output_copy);
    mpx_buf_u32(b, (uint32_t)o->timestamp);
    mpx_buf_strv(b, o->prefix);
    mpx_buf_u32(b, (uint32_t)job->universe);
    mpx_buf_u32(b, (uint32_t)job->spawned);
    mpx_buf_str(b, job->label);
    mpx_buf_strv(b, job->preput);
    mpx_buf_u32(b, (uint32_t)o->napps);
    for (int k = 0; k < o->napps; k++) {
        const struct mpx_app *a = &o->apps[k];
        mpx_buf_u32(b, (uint32_t)a->np);
        mpx_buf_strv(b, a->argv);
        mpx_buf_strv(b, a->env);
        mpx_buf_str(b, opt_or_empty(a->wdir));
    }
    return b->oom ? -1 : 0;
}

static const char *null_if_empty(const char *s)
{
    return *s ? s : NULL;
}

int mpx_job_decode(struct mpx_job *job, struct mpx_rd *r, char *err, size_t errlen)
{
    struct mpx_opts *o = &job->opts;
    if (mpx_rd_u32(r) != LAUNCH_VERSION) {
        snprintf(err, errlen, "mpiexec speaks another version of the launch protocol (a "
                 "different Faro installed on this host?)");
        return -1;
    }
    snprintf(job->kvsname, sizeof job->kvsname, "%s", mpx_rd_str(r));
    job->np = (int)mpx_rd_u32(r);
    job->nhosts = (int)mpx_rd_u32(r);
    if (r->bad || job->np < 1 || job->np > MPX_MAX_NP || job->nhosts < 1 ||
        (size_t)job->nhosts > r->len) {
        snprintf(err, errlen, "a malformed job description");
        return -1;
    }
    job->hostname = calloc((size_t)job->nhosts, sizeof *job->hostname);
    job->host_of = calloc((size_t)job->np, sizeof *job->host_of);
    if (!job->hostname || !job->host_of) {
        snprintf(err, errlen, "out of memory for the job of %d ranks", job->np);
        return -1;
    }
    for (int h = 0; h < job->nhosts; h++)
        job->hostname[h] = (char *)mpx_rd_str(r);
    for (int i = 0; i < job->np; i++) {
        job->host_of[i] = (int)mpx_rd_u32(r);
        if (job->host_of[i] < 0 || job->host_of[i] >= job->nhosts)
            r->bad = 1;
    }
    snprintf(job->mapping, sizeof job->mapping, "%s", mpx_rd_str(r));
    o->tree_width = (int)mpx_rd_u32(r);
    job->heartbeat_ms = (int)mpx_rd_u32(r);
    int verbose = (int)mpx_rd_u32(r);
    if (verbose > o->verbose)
        o->verbose = verbose;
    job->tag = null_if_empty(mpx_rd_str(r));
    job->wdir = null_if_empty(mpx_rd_str(r));
    job->proxy_path = mpx_rd_str(r);
    job->agent = mpx_rd_strv(r);
    if (job->agent && !job->agent[0]) {
        free(job->agent);
        job->agent = NULL;
    }
    job->agent_all = (int)mpx_rd_u32(r);
    job->agent_shell = (int)mpx_rd_u32(r);
    job->tcp_if = null_if_empty(mpx_rd_str(r));
    job->fwd_env = mpx_rd_strv(r);
    o->env = mpx_rd_strv(r);
    for (o->nenv = 0; o->env && o->env[o->nenv]; o->nenv++)
        ;
    o->map_by = null_if_empty(mpx_rd_str(r));
    o->bind_to = null_if_empty(mpx_rd_str(r));
    o->topology = null_if_empty(mpx_rd_str(r));
    o->cpus_per_rank = null_if_empty(mpx_rd_str(r));
    o->report_bindings = (int)mpx_rd_u32(r);
    o->outfile_pattern = null_if_empty(mpx_rd_str(r));
    o->errfile_pattern = null_if_empty(mpx_rd_str(r));
    o->output_dir = null_if_empty(mpx_rd_str(r));
    o->output_copy = (int)mpx_rd_u32(r);
    o->timestamp = (int)mpx_rd_u32(r);
    o->prefix = mpx_rd_strv(r);
    if (o->prefix && !o->prefix[0]) {
        free(o->prefix);
        o->prefix = NULL;
    }
    job->universe = (int)mpx_rd_u32(r);
    job->spawned = (int)mpx_rd_u32(r);
    snprintf(job->label, sizeof job->label, "%s", mpx_rd_str(r));
    job->preput = mpx_rd_strv(r);
    uint32_t napps = mpx_rd_u32(r), total = 0;
    if (r->bad || napps < 1 || napps > (uint32_t)job->np ||
        !(o->apps = calloc(napps, sizeof *o->apps))) {
        snprintf(err, errlen, "a malformed job description");
        return -1;
    }
    for (o->napps = 0; o->napps < (int)napps && !r->bad; o->napps++) {
        struct mpx_app *a = &o->apps[o->napps];
        a->np = (int)mpx_rd_u32(r);
        a->argv = mpx_rd_strv(r);
        a->env = mpx_rd_strv(r);
        a->wdir = null_if_empty(mpx_rd_str(r));
        for (a->nenv = 0; a->env && a->env[a->nenv]; a->nenv++)
            ;
        total += (uint32_t)a->np;
        if (a->np < 1 || !a->argv || !a->argv[0])
            r->bad = 1;
    }
    if (r->bad || total != (uint32_t)job->np || job->heartbeat_ms < 100) {
        snprintf(err, errlen, "a malformed job description");
        return -1;
    }
    return 0;
}

/* ---- names in messages ---- */

void mpx_rank_name(const struct mpx_job *job, int rank, long pid, char *buf, size_t len)
{
    if (job->hostname && rank >= 0 && rank < job->np)
        snprintf(buf, len, "rank %d%s (pid %ld on %s)", rank, mpx_job_of(job), pid,
                 job->hostname[job->host_of[rank]]);
    else
        snprintf(buf, len, "rank %d%s (pid %ld)", rank, mpx_job_of(job), pid);
}

void mpx_host_ranks(const struct mpx_job *job, int h, char *buf, size_t len)
{
    size_t used = 0;
    int n = 0;
    buf[0] = 0;
    for (int r = 0; r < job->np && used < len; r++) {
        if (job->host_of[r] != h)
            continue;
        int e = r;
        while (e + 1 < job->np && job->host_of[e + 1] == h)
            e++;
        if (e > r)
            used += (size_t)snprintf(buf + used, len - used, "%s%d-%d", n ? "," : "", r, e);
        else
            used += (size_t)snprintf(buf + used, len - used, "%s%d", n ? "," : "", r);
        n++;
        r = e;
    }
    if (!n)
        snprintf(buf, len, "none");
}

/* ---- the fence ---- */

void mpx_fence_put(struct mpx_job *job, const char *key, const char *val)
{
    /* Visible to this host's ranks at once, to the others after the fence. */
    if (job->nkids > 0 || job->parent) {
        mpx_buf_str(&job->fence, key);
        mpx_buf_str(&job->fence, val);
    }
}

static int tree_kids_active(const struct mpx_job *job)
{
    int n = 0;
    for (int i = 0; i < job->nkids; i++)
        n += job->kids[i].state == MPX_LINK_STARTING || job->kids[i].state == MPX_LINK_UP;
    return n;
}

/* Store the pairs of a phase; what is malformed is dropped. */
static void tree_store(struct mpx_job *job, const unsigned char *p, size_t len)
{
    struct mpx_rd r;
    mpx_rd_init(&r, p, len);
    while (!r.bad && r.off < r.len) {
        const char *k = mpx_rd_str(&r), *v = mpx_rd_str(&r);
        if (!r.bad && mpx_kvs_put(job->kvs, k, v) < 0) {
            mpx_job_fail(job, 1, "%s: out of memory storing the key-value data",
                         mpx_me(job));
            return;
        }
    }
}

static void tree_fence_down(struct mpx_job *job, const unsigned char *p, size_t len)
{
    for (int i = 0; i < job->nkids; i++)
        if (job->kids[i].state == MPX_LINK_UP)
            mpx_conn_send(&job->kids[i].c, MPX_MSG_FENCE_DOWN, p, len, NULL, 0);
    if (job->nlocal > 0 && (job->nkids > 0 || job->parent)) /* mpiexec itself needs none */
        tree_store(job, p, len);
    job->fences++;
    job->fence_bytes += len;
    job->fence_sent = 0;
    job->fence_kids = 0;
    mpx_pmi_barrier_done(job);
}

void mpx_fence_local_ready(struct mpx_job *job)
{
    if (job->fence_sent || job->barrier_count < job->nlocal ||
        job->fence_kids < tree_kids_active(job))
        return;
    if (job->nlocal == 0 && job->fence_kids == 0)
        return; /* nobody is in a barrier */
    job->fence_sent = 1;
    if (job->is_root) {
        struct mpx_buf all = job->fence;
        memset(&job->fence, 0, sizeof job->fence);
        tree_fence_down(job, all.p, all.len);
        mpx_buf_free(&all);
    } else {
        mpx_conn_send(job->parent, MPX_MSG_FENCE_UP, job->fence.p, job->fence.len, NULL, 0);
        job->fence.len = 0;
        job->fence_kids = 0;
    }
}

/* ---- reports ---- */

/* Judge how a rank ended (mpiexec). */
void mpx_rank_ended(struct mpx_job *job, int rank, long pid, int status, int pmi_state)
{
    mpx_hang_exited(job, rank);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1 && mpx_hang_timed_out(job))
        return; /* the timeout's report killed a rank without Faro's handler: the timeout decides */
    char who[320];
    mpx_rank_name(job, rank, pid, who, sizeof who);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        mpx_job_fail(job, 128 + sig, "mpiexec: %s was killed by signal %d (%s); ending the job",
                     who, sig, strsignal(sig));
    } else if (WEXITSTATUS(status) != 0) {
        mpx_job_fail(job, WEXITSTATUS(status), "mpiexec: %s exited with code %d; ending the job",
                     who, WEXITSTATUS(status));
    } else if (pmi_state == MPX_PMI_INITED) {
        mpx_job_fail(job, 1, "mpiexec: %s exited with code 0 without calling MPI_Finalize; "
                     "ending the job", who);
    } else if (pmi_state == MPX_PMI_NONE && job->spawned) {
        /* Its parents wait in MPI_Comm_spawn for it to connect from MPI_Init. */
        mpx_job_fail(job, 1, "mpiexec: %s exited with code 0 without calling MPI_Init (a "
                     "spawned program must, so its parents' MPI_Comm_spawn can return); ending "
                     "the job", who);
    }
    if (job->opts.verbose)
        fprintf(stderr, "mpiexec: %s ended: %s %d\n", who,
                WIFSIGNALED(status) ? "signal" : "exit code",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* A rank of this node ended: judge it here, or report it up. */
void mpx_report_exit(struct mpx_job *job, const struct mpx_rank *r, long pid, int status)
{
    if (job->is_root) {
        mpx_rank_ended(job, r->rank, pid, status, r->pmi_state);
        return;
    }
    struct mpx_buf b = { 0 };
    mpx_buf_u32(&b, (uint32_t)r->rank);
    mpx_buf_u32(&b, (uint32_t)pid);
    mpx_buf_u32(&b, (uint32_t)status);
    mpx_buf_u32(&b, (uint32_t)r->pmi_state);
    mpx_conn_send(job->parent, MPX_MSG_EXIT, b.p, b.len, NULL, 0);
    mpx_buf_free(&b);
}

static const char *rank_host(const struct mpx_job *job, int rank, char *buf, size_t len)
{
    buf[0] = 0;
    if (job->hostname)
        snprintf(buf, len, " on %s", job->hostname[job->host_of[rank]]);
    return buf;
}

void mpx_rank_aborted(struct mpx_job *job, int rank, int code, const char *msg, int how)
{
    if (!job->is_root) {
        struct mpx_buf b = { 0 };
        mpx_buf_u32(&b, (uint32_t)rank);
        mpx_buf_u32(&b, (uint32_t)code);
        mpx_buf_str(&b, msg ? msg : "");
        mpx_buf_u32(&b, (uint32_t)how);
        mpx_conn_send(job->parent, MPX_MSG_ABORT, b.p, b.len, NULL, 0);
        mpx_buf_free(&b);
        return;
    }
    char where[300];
    rank_host(job, rank, where, sizeof where);
    int lost = how;
    if (lost >= 0 && lost < job->np && lost != rank) {
        /* The peer's own end (killed, aborted, exited) usually reaches us
         * a moment later, through its own proxy: give it a heartbeat. */
        if (!job->ending && !job->lost_report.due) {
            job->lost_report.due = mpx_now_ms() + job->heartbeat_ms;
            job->lost_report.rank = rank;
            job->lost_report.code = code;
            job->lost_report.lost = lost;
            snprintf(job->lost_report.msg, sizeof job->lost_report.msg, "%s", msg ? msg : "");
        }
        return;
    }
    /* Exit statuses are 8 bits; keep the low byte as the shell would see it. */
    mpx_job_fail(job, code & 0xff, "mpiexec: rank %d%s%s %s (code %d)%s%s", rank,
                 mpx_job_of(job), where,
                 how == MPX_ABORT_PROGRAM ? "called MPI_Abort" : "ended the job", code,
                 msg && *msg ? ": " : "", msg ? msg : "");
}

void mpx_lost_report_due(struct mpx_job *job, long long now, long long *next)
{
    if (!job->lost_report.due || job->ending)
        return;
    if (now < job->lost_report.due) {
        if (*next < 0 || job->lost_report.due < *next)
            *next = job->lost_report.due;
        return;
    }
    char where[300], lwhere[300];
    rank_host(job, job->lost_report.rank, where, sizeof where);
    rank_host(job, job->lost_report.lost, lwhere, sizeof lwhere);
    mpx_job_fail(job, job->lost_report.code & 0xff,
                 "mpiexec: rank %d%s%s ended the job (code %d): %s (no end of rank %d%s was "
                 "reported within %d ms)", job->lost_report.rank, mpx_job_of(job), where,
                 job->lost_report.code, job->lost_report.msg, job->lost_report.lost, lwhere,
                 job->heartbeat_ms);
}

/* Child k (and the hosts it started) is gone. */
void mpx_kid_lost(struct mpx_job *job, struct mpx_link *k, const char *why)
{
    if (k->state == MPX_LINK_LOST || k->state == MPX_LINK_DONE)
        return;
    k->state = MPX_LINK_LOST;
    mpx_conn_close(&k->c);
    if (!job->is_root) {
        struct mpx_buf b = { 0 };
        mpx_buf_u32(&b, (uint32_t)k->host);
        mpx_buf_str(&b, why);
        mpx_conn_send(job->parent, MPX_MSG_LOST, b.p, b.len, NULL, 0);
        mpx_buf_free(&b);
    } else {
        mpx_host_lost(job, k->host, why);
    }
    mpx_fence_local_ready(job); /* nobody waits for it any more */
}

void mpx_host_lost(struct mpx_job *job, int host, const char *why)
{
    char ranks[256];
    mpx_host_ranks(job, host, ranks, sizeof ranks);
    mpx_job_fail(job, MPX_EXIT_LOST, "%s: lost host %s (ranks %s%s): %s; ending the job",
                 mpx_me(job), job->hostname[host], ranks, mpx_job_of(job), why);
}

void mpx_signal_all(struct mpx_job *job, int sig)
{
    for (int i = 0; i < job->nlocal; i++) {
        const struct mpx_rank *r = &job->ranks[i];
        /* The hang report's signal goes only to ranks inside MPI: before
         * MPI_Init (or in a program that is not one) it would kill them. */
        if (r->pid > 0 && (sig != SIGUSR1 || r->pmi_state == MPX_PMI_INITED))
            kill(r->pid, sig);
    }
    uint32_t s = htonl((uint32_t)sig);
    for (int i = 0; i < job->nkids; i++)
        if (job->kids[i].state == MPX_LINK_UP)
            mpx_conn_send(&job->kids[i].c, MPX_MSG_SIGNAL, &s, 4, NULL, 0);
    mpx_subjobs_signal(job, sig);
}

/* ---- statistics ---- */

static void stats_put64(struct mpx_buf *b, uint64_t v)
{
    mpx_buf_u32(b, (uint32_t)(v >> 32));
    mpx_buf_u32(b, (uint32_t)v);
}

static uint64_t stats_get64(struct mpx_rd *r)
{
    uint64_t v = (uint64_t)mpx_rd_u32(r) << 32;
    return v | mpx_rd_u32(r);
}

/* This node's ranks and links, added to what its children reported. */
void mpx_stats_local(struct mpx_job *job)
{
    struct mpx_stats *s = &job->stats;
    for (int i = 0; i < job->nlocal; i++) {
        const struct mpx_rank *r = &job->ranks[i];
        s->ranks++;
        s->msgs += r->pmi_msgs;
        s->bytes += r->pmi_bytes;
        if (r->pmi_msgs > s->max_msgs)
            s->max_msgs = r->pmi_msgs;
        if (r->pmi_bytes > s->max_bytes)
            s->max_bytes = r->pmi_bytes;
    }
    if (job->parent) {
        s->ctl_frames += job->parent->frames_in + job->parent->frames_out;
        s->ctl_bytes += job->parent->bytes_in + job->parent->bytes_out;
    }
}

void mpx_stats_encode(const struct mpx_stats *s, struct mpx_buf *b)
{
    stats_put64(b, s->ranks);
    stats_put64(b, s->msgs);
    stats_put64(b, s->bytes);
    stats_put64(b, s->max_msgs);
    stats_put64(b, s->max_bytes);
    stats_put64(b, s->ctl_frames);
    stats_put64(b, s->ctl_bytes);
}

static void stats_add(struct mpx_stats *s, struct mpx_rd *r)
{
    struct mpx_stats k;
    k.ranks = stats_get64(r);
    k.msgs = stats_get64(r);
    k.bytes = stats_get64(r);
    k.max_msgs = stats_get64(r);
    k.max_bytes = stats_get64(r);
    k.ctl_frames = stats_get64(r);
    k.ctl_bytes = stats_get64(r);
    if (r->bad)
        return;
    s->ranks += k.ranks;
    s->msgs += k.msgs;
    s->bytes += k.bytes;
    s->max_msgs = k.max_msgs > s->max_msgs ? k.max_msgs : s->max_msgs;
    s->max_bytes = k.max_bytes > s->max_bytes ? k.max_bytes : s->max_bytes;
    s->ctl_frames += k.ctl_frames;
    s->ctl_bytes += k.ctl_bytes;
}

/* ---- messages from a child ---- */

/* Pass a child's report up unchanged (proxies). */
static void tree_relay(struct mpx_job *job, int type, const struct mpx_rd *p)
{
    mpx_conn_send(job->parent, type, p->p, p->len, NULL, 0);
}

/* The child of this node whose slice holds host h, or NULL. */
struct mpx_link *mpx_kid_for(struct mpx_job *job, int h)
{
    for (int i = 0; i < job->nkids; i++)
        if (h >= job->kids[i].host && h < job->kids[i].end)
            return &job->kids[i];
    return NULL;
}

void mpx_kid_message(struct mpx_job *job, struct mpx_link *k, int type, struct mpx_rd *p)
{
    switch (type) {
    case MPX_MSG_HEARTBEAT:
        return;
    case MPX_MSG_FENCE_UP:
        mpx_buf_put(&job->fence, p->p, p->len);
        job->fence_kids++;
        mpx_fence_local_ready(job);
        return;
    case MPX_MSG_DONE: /* its stats count the link to us: its side of it */
        stats_add(&job->stats, p);
        k->state = MPX_LINK_DONE;
        mpx_conn_close(&k->c);
        mpx_fence_local_ready(job);
        return;
    }
    if (!job->is_root) {
        if (type == MPX_MSG_EXIT || type == MPX_MSG_ABORT || type == MPX_MSG_OUTPUT ||
            type == MPX_MSG_LOST || type == MPX_MSG_STDIN_ACK || type == MPX_MSG_NAME_REQ ||
            type == MPX_MSG_SPAWN)
            tree_relay(job, type, p);
        return;
    }
    switch (type) {
    case MPX_MSG_EXIT: {
        int rank = (int)mpx_rd_u32(p);
        long pid = (long)mpx_rd_u32(p);
        int status = (int)mpx_rd_u32(p), st = (int)mpx_rd_u32(p);
        if (!p->bad && rank >= 0 && rank < job->np)
            mpx_rank_ended(job, rank, pid, status, st);
        break;
    }
    case MPX_MSG_ABORT: {
        int rank = (int)mpx_rd_u32(p), code = (int)mpx_rd_u32(p);
        const char *msg = mpx_rd_str(p);
        int how = (int)mpx_rd_u32(p);
        if (!p->bad && rank >= 0 && rank < job->np)
            mpx_rank_aborted(job, rank, code, msg, how);
        break;
    }
    case MPX_MSG_OUTPUT: {
        int dest = (int)mpx_rd_u32(p);
        if (!p->bad && (dest == 1 || dest == 2))
            mpx_output(job, dest, (const char *)p->p + p->off, p->len - p->off);
        break;
    }
    case MPX_MSG_LOST: {
        int h = (int)mpx_rd_u32(p);
        const char *why = mpx_rd_str(p);
        if (!p->bad && h >= 0 && h < job->nhosts)
            mpx_host_lost(job, h, why);
        break;
    }
    case MPX_MSG_NAME_REQ:
        mpx_names_request(job, p);
        break;
    case MPX_MSG_SPAWN: {
        int h = (int)mpx_rd_u32(p), rank = (int)mpx_rd_u32(p);
        if (!p->bad && h >= 0 && h < job->nhosts && rank >= 0 && rank < job->np)
            mpx_spawn_request(job, h, rank, p->p + p->off, p->len - p->off);
        break;
    }
    case MPX_MSG_STDIN_ACK: {
        uint32_t n = mpx_rd_u32(p), closed = mpx_rd_u32(p);
        job->stdin_acked += n;
        if (closed)
            job->stdin_open = 0; /* rank 0 stopped reading */
        break;
    }
    default:
        fprintf(stderr, "mpiexec: host %s sent a message of unknown type %d; ignored\n",
                job->hostname[k->host], type);
    }
}

/* ---- messages from the parent (proxies) ---- */

void mpx_parent_message(struct mpx_job *job, int type, struct mpx_rd *p)
{
    switch (type) {
    case MPX_MSG_HEARTBEAT:
        break;
    case MPX_MSG_FENCE_DOWN:
        tree_fence_down(job, p->p, p->len);
        break;
    case MPX_MSG_SIGNAL: {
        int sig = (int)mpx_rd_u32(p);
        if (!p->bad && sig > 0 && sig < NSIG) {
            if (sig == SIGKILL)
                job->killed = 1;
            if (sig != SIGUSR1 && sig != SIGUSR2) /* a hang report's: the job goes on */
                job->ending = 1;
            mpx_signal_all(job, sig);
        }
        break;
    }
    case MPX_MSG_NAME_REP:
        mpx_names_reply(job, p);
        break;
    case MPX_MSG_SPAWN_RESULT:
        mpx_spawn_result(job, p);
        break;
    case MPX_MSG_STDIN: {
        int h = (int)mpx_rd_u32(p);
        struct mpx_link *k = h == job->host ? NULL : mpx_kid_for(job, h);
        if (k) {
            mpx_conn_send(&k->c, MPX_MSG_STDIN, p->p, p->len, NULL, 0);
        } else if (h == job->host) {
            size_t n = p->len - p->off;
            if (n == 0)
                job->stdin_eof = 1;
            mpx_buf_put(&job->stdin_q, p->p + p->off, n);
            mpx_stdin_write(job);
        }
        break;
    }
    default:
        fprintf(stderr, "faro_proxy on %s: mpiexec sent a message of unknown type %d; "
                "ignored\n", job->hostname[job->host], type);
    }
}
