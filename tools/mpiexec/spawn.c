/*
 * Starting a node's ranks: one socketpair (PMI) and two pipes (stdout,
 * stderr) per rank, then fork/exec. Every descriptor a node opens is
 * close-on-exec, so a rank inherits only its own three plus stdin: mpiexec's
 * own for rank 0 when mpiexec starts it, a pipe fed from mpiexec's stdin when
 * a proxy does, /dev/null for every other rank.
 *
 * The environment of a rank started by a proxy: the proxy's own (the remote
 * login's), then what mpiexec forwards (all of its environment by default),
 * then -genv, then its program's -x and -env, then the affinity options, then
 * the PMI variables and FARO_HOSTNAME, the host name the launcher used for
 * this host.
 */
#include "config.h"

#include "mpiexec.h"
#include "base/program.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int mpx_make_kvsname(char *buf, size_t len)
{
    unsigned char r[4];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        /* Uniqueness only needs the pid plus something that differs per run. */
        unsigned x = (unsigned)getpid() * 2654435761u ^ (unsigned)mpx_now_ms();
        memcpy(r, &x, sizeof r);
    }
    int n = snprintf(buf, len, "faro-%ld-%02x%02x%02x%02x", (long)getpid(), r[0], r[1], r[2],
                     r[3]);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int mpx_check_program(const struct mpx_opts *o)
{
    char err[4400];
    int rc = o->prefix ? faro_program_check(o->prefix[0], NULL, err, sizeof err) : 0;
    for (int k = 0; !rc && !o->prefix && k < o->napps; k++) /* the prefix runs them */
        rc = faro_program_check(o->apps[k].argv[0], o->apps[k].wdir, err, sizeof err);
    if (rc)
        fprintf(stderr, "mpiexec: %s\n", err);
    return rc;
}

const char *mpx_job_of(const struct mpx_job *job)
{
    static char of[sizeof job->label + 8];
    snprintf(of, sizeof of, "%s%s", job->label[0] ? " of " : "", job->label);
    return of;
}

static void spawn_setenv_int(const char *name, int v)
{
    char s[16];
    snprintf(s, sizeof s, "%d", v);
    setenv(name, s, 1);
}

/* In the child, between fork and exec: only async-signal-safe-enough calls on
 * a single-threaded parent's copy. Never returns. */
static void spawn_child(struct mpx_job *job, struct mpx_rank *r, int pmi_fd, int out_fd,
                        int err_fd, int in_fd, pid_t parent, const sigset_t *mask)
{
    /* Die with this node, even when it is killed with SIGKILL. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);

    if (dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(126);
    if (in_fd >= 0) {
        if (dup2(in_fd, 0) < 0)
            _exit(126);
    } else if (r->rank != 0 || !job->is_root) {
        int null = open("/dev/null", O_RDONLY);
        if (null < 0 || dup2(null, 0) < 0)
            _exit(126);
        if (null > 2)
            close(null);
    }
    fcntl(pmi_fd, F_SETFD, 0); /* the one descriptor that must survive exec */

    const struct mpx_opts *o = &job->opts;
    const struct mpx_app *app = &o->apps[r->app];
    for (char **e = job->fwd_env; e && *e; e++)
        putenv(*e);
    for (size_t i = 0; i < o->nenv; i++)
        putenv(o->env[i]);
    for (size_t i = 0; i < app->nenv; i++)
        putenv(app->env[i]);
    mpx_policy_setenv(o);
    /* -v: rank 0 says which process-manager protocol, transports and tcp
     * interface the ranks use (only a rank knows); a FARO_VERBOSE of the
     * user's stands. */
    if (o->verbose && r->rank == 0)
        setenv("FARO_VERBOSE", "1", 0);
    spawn_setenv_int("PMI_FD", pmi_fd);
    spawn_setenv_int("PMI_RANK", r->rank);
    spawn_setenv_int("PMI_SIZE", job->np);
    setenv("PMI_SPAWNED", job->spawned ? "1" : "0", 1);
    /* Hydra's names for the node-local rank. */
    spawn_setenv_int("MPI_LOCALRANKID", r->local);
    spawn_setenv_int("MPI_LOCALNRANKS", job->nlocal);
    if (job->hostname)
        setenv("FARO_HOSTNAME", job->hostname[job->host], 1);
    if (job->ctl_if[0])
        setenv("FARO_INTERNAL_CONTROL_IF", job->ctl_if, 1);
    const char *wdir = app->wdir ? app->wdir : job->wdir;
    if (wdir) {
        if (chdir(wdir) < 0) {
            fprintf(stderr, "mpiexec: rank %d%s%s%s: cannot change to the working directory "
                    "%s: %s\n", r->rank, mpx_job_of(job), job->hostname ? " on " : "",
                    job->hostname ? job->hostname[job->host] : "", wdir, strerror(errno));
            _exit(MPX_EXIT_NOEXEC);
        }
        setenv("PWD", wdir, 1);
    }

    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, mask, NULL);

    size_t np = 0, na = 0;
    while (o->prefix && o->prefix[np])
        np++;
    while (app->argv[na])
        na++;
    char **argv = malloc((np + na + 1) * sizeof *argv);
    if (!argv)
        _exit(126);
    if (np)
        memcpy(argv, o->prefix, np * sizeof *argv);
    memcpy(argv + np, app->argv, (na + 1) * sizeof *argv);
    execvp(argv[0], argv);
    int e = errno;
    fprintf(stderr, "mpiexec: rank %d%s%s%s: cannot execute '%s': %s\n", r->rank,
            mpx_job_of(job), job->hostname ? " on " : "",
            job->hostname ? job->hostname[job->host] : "", argv[0], strerror(e));
    _exit(e == ENOENT ? MPX_EXIT_NOTFOUND : MPX_EXIT_NOEXEC);
}

static void spawn_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int mpx_spawn(struct mpx_job *job, const sigset_t *child_mask)
{
    pid_t self = getpid();
    for (int i = 0; i < job->nlocal; i++) {
        struct mpx_rank *r = &job->ranks[i];
        int sv[2], po[2], pe[2], pi[2] = { -1, -1 };
        /* A proxy feeds rank 0's stdin from mpiexec's. */
        int want_in = r->rank == 0 && !job->is_root;
        char why[PATH_MAX + 128];
        if (mpx_stream_files(job, r, why, sizeof why) < 0) {
            mpx_job_fail(job, 1, "%s: %s", mpx_me(job), why);
            return -1;
        }
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
            pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 ||
            (want_in && pipe2(pi, O_CLOEXEC) < 0)) {
            mpx_job_fail(job, 1, "%s: cannot create the descriptors of rank %d: %s%s",
                         mpx_me(job), r->rank, strerror(errno),
                         errno == EMFILE ? " (raise the limit: ulimit -n)" : "");
            return -1;
        }
        pid_t pid = fork();
        if (pid < 0) {
            mpx_job_fail(job, 1, "%s: cannot start rank %d: fork: %s", mpx_me(job), r->rank,
                         strerror(errno));
            close(sv[0]), close(sv[1]), close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
            return -1;
        }
        if (pid == 0)
            spawn_child(job, r, sv[1], po[1], pe[1], pi[0], self, child_mask);
        close(sv[1]);
        close(po[1]);
        close(pe[1]);
        if (want_in) {
            close(pi[0]);
            spawn_nonblock(pi[1]);
        }
        spawn_nonblock(sv[0]);
        spawn_nonblock(po[0]);
        spawn_nonblock(pe[0]);
        r->pid = pid;
        r->pmi_fd = sv[0];
        r->stdin_fd = pi[1];
        faro_pmi_reader_init(&r->reader, sv[0]);
        mpx_stream_init(job, &r->out, po[0], 1, r->rank);
        mpx_stream_init(job, &r->err, pe[0], 2, r->rank);
        job->alive++;
        if (job->opts.verbose)
            fprintf(stderr, "%s: rank %d started as pid %ld%s%s\n",
                    mpx_me(job), r->rank, (long)pid,
                    job->hostname ? " on " : "", job->hostname ? job->hostname[job->host] : "");
    }
    return 0;
}
