/*
 * faro_proxy: mpiexec's helper on one host of a job (mpiexec.h has the
 * picture). mpiexec, or the proxy above it in the launch tree, starts it
 * through the agent as
 *
 *     faro_proxy --parent ADDR:PORT[,ADDR:PORT...] --id HOST [--tcp-if SPEC] [-v]
 *
 * with the job key on its standard input. It connects to the first address
 * that answers, proves it knows the key and checks that its parent does,
 * receives the job, starts the proxies of its slice of the tree and its
 * host's ranks, and then serves them until they have all ended: PMI, output,
 * exits, signals, rank 0's stdin. It accepts nothing but authenticated
 * connections of its own child proxies; ranks reach it only through the
 * socket pairs it hands them.
 *
 * When its parent goes away (end of file, or silence longer than the
 * heartbeat) it kills its ranks and exits; it also asks for SIGTERM when the
 * process that started it dies.
 */
#include "config.h"

#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROXY_KEY_WAIT_MS 10000

static const char proxy_usage[] =
    "Usage: faro_proxy --parent ADDR:PORT[,...] --id HOST [--tcp-if SPEC] [-v]\n"
    "mpiexec starts it on each host of a job, with the job key on its standard input;\n"
    "it is not meant to be run by hand. See mpiexec(1).\n";

/* The key arrives on stdin as "FARO-KEY <32 hex digits>\n". */
static int proxy_read_key(unsigned char *key, char *err, size_t errlen)
{
    char line[80];
    size_t n = 0;
    long long until = mpx_now_ms() + PROXY_KEY_WAIT_MS;
    while (n < sizeof line - 1 && (n == 0 || line[n - 1] != '\n')) {
        struct pollfd p = { .fd = 0, .events = POLLIN };
        long long left = until - mpx_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
            snprintf(err, errlen, "no job key on standard input within %d s",
                     PROXY_KEY_WAIT_MS / 1000);
            return -1;
        }
        ssize_t r = read(0, line + n, 1);
        if (r <= 0) {
            snprintf(err, errlen, "no job key on standard input (the agent must pass stdin "
                     "on, as ssh does)");
            return -1;
        }
        n++;
    }
    line[n] = 0;
    if (strncmp(line, "FARO-KEY ", 9) || n < 9 + 2 * MPX_KEYLEN) {
        snprintf(err, errlen, "standard input does not start with the job key");
        return -1;
    }
    for (int i = 0; i < MPX_KEYLEN; i++) {
        unsigned v;
        if (sscanf(line + 9 + 2 * i, "%2x", &v) != 1) {
            snprintf(err, errlen, "the job key on standard input is not hexadecimal");
            return -1;
        }
        key[i] = (unsigned char)v;
    }
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0 && null != 0) {
        dup2(null, 0);
        close(null);
    }
    return 0;
}

/* The job from the LAUNCH message; kept in job->launch for the children. */
static int proxy_receive_job(struct mpx_job *job, char *err, size_t errlen)
{
    struct mpx_conn *c = job->parent;
    long long until = mpx_now_ms() + PROXY_KEY_WAIT_MS;
    for (;;) {
        int type, rc;
        struct mpx_rd rd;
        while ((rc = mpx_conn_frame(c, &type, &rd)) > 0 && type == MPX_MSG_HEARTBEAT)
            ;
        if (rc > 0 && type == MPX_MSG_LAUNCH) {
            mpx_buf_put(&job->launch, rd.p, rd.len);
            if (job->launch.oom) {
                snprintf(err, errlen, "out of memory for the job description");
                return -1;
            }
            mpx_rd_init(&rd, job->launch.p, job->launch.len);
            return mpx_job_decode(job, &rd, err, errlen);
        }
        if (rc != 0) {
            snprintf(err, errlen, "mpiexec sent no job: %s", rc < 0 ? c->why : "a wrong message");
            return -1;
        }
        struct pollfd p = { .fd = c->fd, .events = POLLIN };
        long long left = until - mpx_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0 || mpx_conn_fill(c) < 0) {
            snprintf(err, errlen, "mpiexec sent no job: %s", left <= 0 ? "timed out" : c->why);
            return -1;
        }
    }
}

/* This host's ranks, numbered among themselves. */
static int proxy_ranks(struct mpx_job *job)
{
    for (int r = 0; r < job->np; r++)
        job->nlocal += job->host_of[r] == job->host;
    job->ranks = calloc((size_t)(job->nlocal ? job->nlocal : 1), sizeof *job->ranks);
    if (!job->ranks)
        return -1;
    for (int r = 0, i = 0; r < job->np; r++)
        if (job->host_of[r] == job->host) {
            job->ranks[i] = (struct mpx_rank){ .rank = r, .local = i, .pmi_fd = -1,
                                               .stdin_fd = -1, .app = mpx_app_of(&job->opts, r) };
            job->ranks[i].out.fd = job->ranks[i].err.fd = -1;
            i++;
        }
    return 0;
}

/* The working directory: -wdir must exist; mpiexec's own directory may not
 * exist here, and then the home directory does, as with ssh. */
static void proxy_wdir(struct mpx_job *job)
{
    if (!job->wdir || access(job->wdir, X_OK) == 0)
        return;
    const char *home = getenv("HOME");
    fprintf(stderr, "faro_proxy on %s: mpiexec's directory %s does not exist here; the ranks "
            "start in %s\n", job->hostname[job->host], job->wdir, home ? home : "/");
    job->wdir = home ? home : "/";
}

int main(int argc, char **argv)
{
    struct mpx_job job = { .listen_fd = -1, .host = -1 };
    const char *parent = NULL;
    int id = -1;
    char err[1200];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--parent") && i + 1 < argc)
            parent = argv[++i];
        else if (!strcmp(argv[i], "--id") && i + 1 < argc)
            id = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tcp-if") && i + 1 < argc)
            job.tcp_if = argv[++i];
        else if (!strcmp(argv[i], "-v"))
            job.opts.verbose++;
        else {
            fputs(proxy_usage, stderr);
            return MPX_EXIT_USAGE;
        }
    }
    if (!parent || id < 0) {
        fputs(proxy_usage, stderr);
        return MPX_EXIT_USAGE;
    }
    /* The agent that started us going away means the job is over. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    signal(SIGPIPE, SIG_IGN); /* a rank, a child or mpiexec closing must not kill us */
    job.t_start = mpx_now_ms();
    if (proxy_read_key(job.key, err, sizeof err) < 0 ||
        mpx_connect_parent(&job, parent, (uint32_t)id, err, sizeof err) < 0 ||
        proxy_receive_job(&job, err, sizeof err) < 0) {
        fprintf(stderr, "faro_proxy (host %d): %s\n", id, err);
        return 1;
    }
    if (id >= job.nhosts) {
        fprintf(stderr, "faro_proxy: host %d is not in the job's %d hosts\n", id, job.nhosts);
        return 1;
    }
    job.host = id;
    mpx_raise_nofile();
    if (proxy_ranks(&job) < 0 || !(job.kvs = mpx_kvs_new()) ||
        (job.mapping[0] && mpx_kvs_put(job.kvs, "PMI_process_mapping", job.mapping) < 0) ||
        mpx_kvs_put_pairs(job.kvs, job.preput) < 0) {
        fprintf(stderr, "faro_proxy on %s: out of memory\n", job.hostname[id]);
        return 1;
    }
    proxy_wdir(&job);

    sigset_t old;
    int sfd = mpx_signals(&old);
    if (sfd < 0) {
        fprintf(stderr, "faro_proxy on %s: signalfd: %s\n", job.hostname[id], strerror(errno));
        return 1;
    }

    /* The proxies of this host's slice of the tree, then its ranks: both
     * start at once. */
    int up, end = mpx_tree_slice(job.nhosts, job.opts.tree_width, id, &up);
    if (end > id + 1) {
        if (mpx_kids_init(&job, id + 1, end) < 0 ||
            mpx_listen(&job, !strcmp(job.ctl_if, "lo"), err, sizeof err) < 0) {
            fprintf(stderr, "faro_proxy on %s: %s\n", job.hostname[id], err);
            return 1;
        }
        for (int i = 0; i < job.nkids; i++)
            if (mpx_start_child(&job, &job.kids[i], err, sizeof err) < 0)
                mpx_kid_lost(&job, &job.kids[i], err);
    }
    mpx_spawn(&job, &old);
    mpx_node_loop(&job, sfd);

    if (!job.orphaned) {
        struct mpx_buf b = { 0 };
        mpx_stats_local(&job);
        mpx_stats_encode(&job.stats, &b);
        mpx_conn_send(job.parent, MPX_MSG_DONE, b.p, b.len, NULL, 0);
        mpx_buf_free(&b);
        long long until = mpx_now_ms() + MPX_GRACE_MS;
        while (mpx_conn_pending(job.parent) && mpx_now_ms() < until) {
            struct pollfd p = { .fd = job.parent->fd, .events = POLLOUT };
            if (poll(&p, 1, (int)(until - mpx_now_ms())) <= 0 ||
                mpx_conn_flush(job.parent) < 0)
                break;
        }
    }
    mpx_clean_shm(&job);
    close(sfd);
    int code = job.orphaned ? 1 : 0;
    mpx_job_free(&job);
    return code;
}
