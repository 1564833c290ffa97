/*
 * mpiexec main: start the ranks, then one poll() loop until every rank has
 * exited and its output is drained. See mpiexec.h for the pieces and
 * mpiexec(1) for the behaviour users rely on.
 */
#include "config.h"

#include "mpiexec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

long long mpx_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void main_signal_all(struct mpx_job *job, int sig)
{
    for (int i = 0; i < job->np; i++)
        if (job->ranks[i].pid > 0)
            kill(job->ranks[i].pid, sig);
}

static void main_end(struct mpx_job *job, int code, int sig)
{
    job->ending = 1;
    job->exit_code = code;
    job->kill_at = mpx_now_ms() + MPX_GRACE_MS;
    main_signal_all(job, sig);
}

void mpx_job_fail(struct mpx_job *job, int code, const char *fmt, ...)
{
    if (job->ending)
        return; /* the first failure decides; the rest is its consequence */
    if (fmt) {
        char line[2048];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line - 1, fmt, ap);
        va_end(ap);
        strcat(line, "\n");
        fputs(line, stderr);
        fflush(stderr);
    }
    main_end(job, code, SIGTERM);
}

/* A rank's process ended: forward what it wrote, then judge how it ended. */
static void main_reaped(struct mpx_job *job, struct mpx_rank *r, int status)
{
    pid_t pid = r->pid;
    r->pid = 0;
    job->alive--;
    mpx_pmi_serve(job, r); /* a finalize may still sit in the socket */
    mpx_stream_read(&r->out, job->opts.tag_output, 1);
    mpx_stream_read(&r->err, job->opts.tag_output, 1);

    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        mpx_job_fail(job, 128 + sig, "mpiexec: rank %d (pid %ld) was killed by signal %d (%s); "
                     "ending the job", r->rank, (long)pid, sig, strsignal(sig));
    } else if (WEXITSTATUS(status) != 0) {
        mpx_job_fail(job, WEXITSTATUS(status), "mpiexec: rank %d (pid %ld) exited with code %d; "
                     "ending the job", r->rank, (long)pid, WEXITSTATUS(status));
    } else if (r->pmi_state == MPX_PMI_INITED) {
        mpx_job_fail(job, 1, "mpiexec: rank %d (pid %ld) exited with code 0 without calling "
                     "MPI_Finalize; ending the job", r->rank, (long)pid);
    }
    if (job->opts.verbose)
        fprintf(stderr, "mpiexec: rank %d (pid %ld) ended: %s %d\n", r->rank, (long)pid,
                WIFSIGNALED(status) ? "signal" : "exit code",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    if (r->pmi_fd >= 0) {
        close(r->pmi_fd);
        r->pmi_fd = -1;
    }
}

static void main_reap(struct mpx_job *job)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int i = 0; i < job->np; i++)
            if (job->ranks[i].pid == pid) {
                main_reaped(job, &job->ranks[i], status);
                break;
            }
    }
}

static void main_on_signal(struct mpx_job *job, int sfd)
{
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD)
            continue; /* reaped below, whatever the count of queued SIGCHLDs */
        if (!job->ending) {
            fprintf(stderr, "mpiexec: received signal %d (%s); passing it to the ranks and "
                    "ending the job\n", sig, strsignal(sig));
            main_end(job, 128 + sig, sig);
        } else if (!job->killed) {
            /* Asked twice: do not wait for the grace period. */
            main_signal_all(job, SIGKILL);
            job->killed = 1;
        }
    }
    main_reap(job);
}

/* Transports name their files /dev/shm/<jobid>-...; a crashed job leaves them. */
static void main_clean_shm(const struct mpx_job *job)
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
        fprintf(stderr, "mpiexec: removed %d leftover file(s) /dev/shm/%s*\n", removed, prefix);
}

static int main_streams_open(const struct mpx_job *job)
{
    for (int i = 0; i < job->np; i++)
        if (job->ranks[i].out.fd >= 0 || job->ranks[i].err.fd >= 0)
            return 1;
    return 0;
}

/* Milliseconds until the earliest deadline, or -1 for none. */
static int main_wait_ms(long long now, const long long *deadlines, int n)
{
    long long best = -1;
    for (int i = 0; i < n; i++)
        if (deadlines[i] > 0 && (best < 0 || deadlines[i] < best))
            best = deadlines[i];
    if (best < 0)
        return -1;
    return best <= now ? 0 : (int)(best - now > 60000 ? 60000 : best - now);
}

static void main_loop(struct mpx_job *job, int sfd)
{
    int tag = job->opts.tag_output;
    size_t cap = 1 + 3 * (size_t)job->np;
    struct pollfd *pfd = calloc(cap, sizeof *pfd);
    int *who = calloc(cap, sizeof *who); /* rank * 3 + (0 pmi, 1 out, 2 err) */
    if (!pfd || !who) {
        mpx_job_fail(job, 1, "mpiexec: out of memory");
        main_signal_all(job, SIGKILL);
    }
    long long timeout_at = job->opts.timeout_s ? mpx_now_ms() + job->opts.timeout_s * 1000LL : 0;
    long long drain_at = 0;

    while (pfd && who) {
        long long now = mpx_now_ms();
        if (job->alive == 0) {
            if (!drain_at)
                drain_at = now + MPX_DRAIN_MS;
            /* A process the rank left behind may hold its pipes; do not wait on it. */
            if (!main_streams_open(job) || now >= drain_at)
                break;
        }
        if (timeout_at && now >= timeout_at && !job->ending)
            mpx_job_fail(job, MPX_EXIT_TIMEOUT, "mpiexec: job timed out after %d seconds; "
                         "ending it", job->opts.timeout_s);
        if (job->ending && !job->killed && now >= job->kill_at) {
            main_signal_all(job, SIGKILL);
            job->killed = 1;
        }

        nfds_t n = 0;
        pfd[n] = (struct pollfd){ .fd = sfd, .events = POLLIN };
        who[n++] = -1;
        for (int i = 0; i < job->np; i++) {
            struct mpx_rank *r = &job->ranks[i];
            int fds[3] = { r->pmi_fd, r->out.fd, r->err.fd };
            for (int k = 0; k < 3; k++)
                if (fds[k] >= 0) {
                    pfd[n] = (struct pollfd){ .fd = fds[k], .events = POLLIN };
                    who[n++] = i * 3 + k;
                }
        }
        long long deadlines[] = { timeout_at && !job->ending ? timeout_at : 0,
                                  job->ending && !job->killed ? job->kill_at : 0, drain_at };
        int rc = poll(pfd, n, main_wait_ms(now, deadlines, 3));
        if (rc < 0 && errno != EINTR) {
            mpx_job_fail(job, 1, "mpiexec: poll: %s", strerror(errno));
            main_signal_all(job, SIGKILL);
            break;
        }
        /* Requests and output first, so a finalize is seen before the exit. */
        for (nfds_t j = 1; rc > 0 && j < n; j++) {
            if (!pfd[j].revents)
                continue;
            struct mpx_rank *r = &job->ranks[who[j] / 3];
            switch (who[j] % 3) {
            case 0: mpx_pmi_serve(job, r); break;
            case 1: mpx_stream_read(&r->out, tag, 0); break;
            case 2: mpx_stream_read(&r->err, tag, 0); break;
            }
        }
        if (rc > 0 && pfd[0].revents)
            main_on_signal(job, sfd);
    }
    for (int i = 0; i < job->np; i++) {
        if (job->ranks[i].out.fd >= 0)
            mpx_stream_close(&job->ranks[i].out, tag);
        if (job->ranks[i].err.fd >= 0)
            mpx_stream_close(&job->ranks[i].err, tag);
    }
    free(pfd);
    free(who);
}

/* Ranks inherit 0, 1 and 2; make sure they are something. */
static void main_fix_stdio(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd) {
                dup2(n, fd);
                close(n);
            }
        }
}

/* Three descriptors per rank: use the hard limit, not the soft one. */
static void main_raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int main(int argc, char **argv)
{
    struct mpx_job job = { 0 };
    int done;
    main_fix_stdio();
    int rc = mpx_opts_parse(argc, argv, &job.opts, &done);
    if (rc || done) {
        mpx_opts_free(&job.opts);
        return rc;
    }
    if (job.opts.dry_run) {
        rc = mpx_dry_run(&job.opts);
        mpx_opts_free(&job.opts);
        return rc;
    }
    if ((rc = mpx_check_program(&job.opts)) != 0) {
        mpx_opts_free(&job.opts);
        return rc;
    }
    main_raise_nofile();

    job.np = job.opts.np;
    job.ranks = calloc((size_t)job.np, sizeof *job.ranks);
    job.kvs = mpx_kvs_new();
    if (!job.ranks || !job.kvs || mpx_make_kvsname(job.kvsname, sizeof job.kvsname) < 0) {
        fprintf(stderr, "mpiexec: out of memory setting up %d ranks\n", job.np);
        return 1;
    }
    for (int i = 0; i < job.np; i++)
        job.ranks[i].pmi_fd = job.ranks[i].out.fd = job.ranks[i].err.fd = -1;

    /* Signals arrive through a descriptor in the poll set; children get the
     * original mask back before exec. */
    sigset_t mask, old;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGQUIT);
    sigprocmask(SIG_BLOCK, &mask, &old);
    int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0) {
        fprintf(stderr, "mpiexec: signalfd: %s\n", strerror(errno));
        return 1;
    }
    signal(SIGPIPE, SIG_IGN); /* a rank closing its PMI socket must not kill us */

    mpx_spawn(&job, &old);
    main_loop(&job, sfd);

    /* Anything still alive here outlived SIGKILL's delivery or the drain. */
    while (job.alive > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0)
            break;
        for (int i = 0; i < job.np; i++)
            if (job.ranks[i].pid == pid) {
                main_reaped(&job, &job.ranks[i], status);
                break;
            }
    }
    main_clean_shm(&job);
    close(sfd);
    mpx_kvs_free(job.kvs);
    free(job.ranks);
    mpx_opts_free(&job.opts);
    return job.exit_code;
}
