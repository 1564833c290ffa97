/*
 * Spawned jobs (MPI_Comm_spawn, MPI_Comm_spawn_multiple; faro-dynamic(7)).
 *
 * The first mpiexec of a launch serves every spawn request of every job in
 * it (spawn_req.c brings them: from its own ranks, up the tree from its
 * proxies, or from the mpiexec of a spawned job over its socket). For each
 * request it
 *
 *   - reads the commands and their info keys: `path` (the directory the
 *     program is in), `wdir` (relative: to the launch's directory), `host` /
 *     `hosts` (a host list, as -hosts takes it) and `hostfile`, as Hydra
 *     reads them; every other key is ignored, as the standard asks;
 *   - places the job: a command with hosts on those hosts (slot by slot);
 *     otherwise, in a launch with hosts, on the slots of the command line's
 *     hosts that no job uses yet, then spread over the least loaded ones;
 *     in a launch without hosts, here;
 *   - starts an mpiexec for it: the same program with the options this one
 *     was given (but -n, --timeout, -usize) and --faro-spawned-job FD, its
 *     end of a socket pair, on which the job follows (MPX_MSG_JOB: label,
 *     universe, programs, preput keys, hosts). That mpiexec runs it as any
 *     job: its own key-value space and job key, its ranks or proxies, its
 *     output tagged as the first job's, PMI_SPAWNED=1 and the preput keys in
 *     its store, MPI_APPNUM the command's index;
 *   - answers the rank that asked once the new mpiexec says its ranks
 *     started (MPX_MSG_STARTED; with hosts: once the proxies it starts itself
 *     connected), or why it could not (MPX_MSG_FAILED: a program that is not
 *     there, a working directory that does not exist, a host that cannot be
 *     reached): that spawn then fails, and the launch goes on.
 *
 * Ends: the first mpiexec waits for every spawned job, whether its parents
 * finished before or after it. One that fails after it started (a rank
 * killed, an exit without MPI_Finalize, MPI_Abort, a lost host; its mpiexec
 * says which rank of which spawned job) ends the whole launch with its exit
 * code, as a failed rank ends its own job. A signal to the first mpiexec, or
 * its end, reaches every spawned job's mpiexec (a signal; PR_SET_PDEATHSIG).
 */
#include "config.h"

#include "mpiexec.h"
#include "base/program.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define SJ_MAX_APPS 4096
#define SJ_RECEIVE_MS 10000 /* a spawned job's mpiexec gets its job within this */

enum sj_state { SJ_STARTING, SJ_RUNNING, SJ_FAILED, SJ_DONE };

struct mpx_subjob {
    pid_t pid;              /* its mpiexec; 0 once reaped */
    struct mpx_conn c;      /* the socket pair to it; fd -1 once closed */
    enum sj_state state;
    int from, host, rank;   /* who asked (from: -1 the first job, else a subjob index) */
    char label[48];
    char prog[160];         /* its first program, for messages */
    int np;
    int *used;              /* its ranks on each host of the command line, or NULL */
};

/* One command of a request, as the first mpiexec reads it. */
struct sj_app {
    const char *exe;        /* as the program gave it */
    int np;
    char **args, **info;    /* point into the request */
    char *prog, *wdir;      /* resolved (allocated) */
    struct mpx_hostlist hosts;
};

/* The placement of a new job. */
struct sj_place {
    char **names;           /* its hosts (pointers into the apps' lists or the job's) */
    int nhosts, cap;
    int *host_of;
    int *used;              /* its ranks per host of the command line */
};

/* ---- answering ---- */

static void sj_answer(struct mpx_job *job, int from, int host, int rank, int ok,
                      const char *msg)
{
    if (from < 0) {
        mpx_spawn_reply(job, host, rank, ok, msg);
        return;
    }
    struct mpx_subjob *s = job->subjobs[from];
    if (s->c.fd < 0)
        return; /* its mpiexec is gone, with the rank that asked */
    struct mpx_buf b = { 0 };
    mpx_buf_u32(&b, (uint32_t)host);
    mpx_buf_u32(&b, (uint32_t)rank);
    mpx_buf_u32(&b, (uint32_t)ok);
    mpx_buf_str(&b, msg ? msg : "");
    mpx_conn_send(&s->c, MPX_MSG_SPAWN_RESULT, b.p, b.len, NULL, 0);
    mpx_buf_free(&b);
}

/* ---- reading a request ---- */

static void sj_apps_free(struct sj_app *apps, int n)
{
    for (int a = 0; apps && a < n; a++) {
        free(apps[a].args);
        free(apps[a].info);
        free(apps[a].prog);
        free(apps[a].wdir);
        mpx_hosts_free(&apps[a].hosts);
    }
    free(apps);
}

static char *sj_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Its info keys, its program and its directory. 0, or -1 with why. */
static int sj_resolve(struct mpx_job *job, struct sj_app *a, int index, char *why, size_t len)
{
    const char *path = NULL, *wdir = NULL;
    char err[700], cwd[PATH_MAX];
    for (char **kv = a->info; kv && kv[0] && kv[1]; kv += 2) {
        const char *k = kv[0], *v = kv[1];
        if (!strcmp(k, "path")) {
            path = v;
        } else if (!strcmp(k, "wdir")) {
            wdir = v;
        } else if (!strcmp(k, "host") || !strcmp(k, "hosts")) {
            if (mpx_hosts_parse_list(&a->hosts, v, "the info key host", err, sizeof err) < 0)
                return snprintf(why, len, "command %d: %s", index, err), -1;
        } else if (!strcmp(k, "hostfile")) {
            if (mpx_hosts_read_file(&a->hosts, v, err, sizeof err) < 0)
                return snprintf(why, len, "command %d: the info key hostfile: %s", index, err),
                       -1;
        } else if (job->opts.verbose) {
            fprintf(stderr, "mpiexec: spawn: command %d: info key '%s' is not one mpiexec "
                    "reads (path, wdir, host, hosts, hostfile); ignored\n", index, k);
        }
    }
    a->prog = path && *path && !strchr(a->exe, '/') ? sj_join(path, a->exe) : strdup(a->exe);
    if (wdir && *wdir) {
        const char *base = job->wdir ? job->wdir : getcwd(cwd, sizeof cwd);
        a->wdir = wdir[0] == '/' || !base ? strdup(wdir) : sj_join(base, wdir);
        if (!a->wdir)
            return snprintf(why, len, "out of memory in mpiexec"), -1;
    }
    if (!a->prog)
        return snprintf(why, len, "out of memory in mpiexec"), -1;
    return 0;
}

/* The commands of a request (spawn_req.c's encoding). NULL with why. */
static struct sj_app *sj_read(struct mpx_rd *rd, int *napps, int *np, char ***preput,
                              char *why, size_t len)
{
    int n = (int)mpx_rd_u32(rd);
    if (rd->bad || n < 1 || n > SJ_MAX_APPS) {
        snprintf(why, len, "a malformed spawn request (%d commands)", n);
        return NULL;
    }
    struct sj_app *apps = calloc((size_t)n, sizeof *apps);
    long total = 0;
    for (int a = 0; apps && a < n && !rd->bad; a++) {
        apps[a].exe = mpx_rd_str(rd);
        apps[a].np = (int)mpx_rd_u32(rd);
        apps[a].args = mpx_rd_strv(rd);
        apps[a].info = mpx_rd_strv(rd);
        total += apps[a].np;
        if (apps[a].np < 1 || total > MPX_MAX_NP)
            rd->bad = 1;
    }
    *preput = apps ? mpx_rd_strv(rd) : NULL;
    if (!apps || rd->bad) {
        snprintf(why, len, !apps ? "out of memory in mpiexec"
                 : total > MPX_MAX_NP ? "more processes than the %d a job may have"
                                      : "a malformed spawn request", MPX_MAX_NP);
        sj_apps_free(apps, n);
        free(*preput);
        return NULL;
    }
    *napps = n;
    *np = (int)total;
    return apps;
}

/* ---- placing the new job ---- */

/* The index of host `name` in the new job's list (added when new). */
static int sj_host(struct sj_place *pl, char *name)
{
    for (int h = 0; h < pl->nhosts; h++)
        if (!strcmp(pl->names[h], name))
            return h;
    if (pl->nhosts == pl->cap) {
        int cap = pl->cap ? 2 * pl->cap : 8;
        char **n = realloc(pl->names, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        pl->names = n;
        pl->cap = cap;
    }
    pl->names[pl->nhosts] = name;
    return pl->nhosts++;
}

/* A host of the command line for one more rank: the first with a free slot,
 * else the least loaded (as slot mapping wraps around). */
static int sj_free_host(const struct mpx_job *job)
{
    const struct mpx_opts *o = &job->opts;
    int best = 0;
    long best_load = LONG_MAX;
    for (int h = 0; h < job->nhosts; h++) {
        int slots = o->ppn > 0 ? o->ppn : o->hosts.host[h].slots;
        long load = (long)job->host_used[h] - slots;
        if (load < 0)
            return h;
        if (load < best_load)
            best = h, best_load = load;
    }
    return best;
}

static int sj_place(struct mpx_job *job, struct sj_app *apps, int napps, int np,
                    struct sj_place *pl, char *why, size_t len)
{
    static char here[MPX_HOST_NAME_MAX + 1];
    int remote = job->hostname != NULL, *tmp = NULL;
    for (int a = 0; a < napps; a++) {
        int other = 0; /* a launch without hosts runs what names only this machine here */
        for (int h = 0; h < apps[a].hosts.n; h++)
            other |= !mpx_host_is_local(apps[a].hosts.host[h].name);
        if (!remote && !other)
            mpx_hosts_free(&apps[a].hosts);
        remote |= apps[a].hosts.n > 0;
    }
    if (!remote)
        return 0;
    if (gethostname(here, sizeof here - 1) < 0)
        snprintf(here, sizeof here, "localhost");
    pl->host_of = calloc((size_t)np, sizeof *pl->host_of);
    tmp = calloc((size_t)np, sizeof *tmp);
    if (job->host_used)
        pl->used = calloc((size_t)job->nhosts, sizeof *pl->used);
    if (!pl->host_of || !tmp || (job->host_used && !pl->used)) {
        free(tmp);
        return snprintf(why, len, "out of memory in mpiexec"), -1;
    }
    for (int a = 0, r = 0; a < napps; r += apps[a].np, a++) {
        struct sj_app *ap = &apps[a];
        if (ap->hosts.n && mpx_hosts_map(&ap->hosts, ap->np, MPX_MAP_SLOT, 0, tmp, why,
                                         len) < 0) {
            free(tmp);
            return -1;
        }
        for (int i = 0; i < ap->np; i++) {
            int h = -1;
            if (ap->hosts.n) {
                h = sj_host(pl, ap->hosts.host[tmp[i]].name);
            } else if (job->host_used) {
                int lh = sj_free_host(job);
                job->host_used[lh]++;
                pl->used[lh]++;
                h = sj_host(pl, job->hostname[lh]);
            } else {
                h = sj_host(pl, here);
            }
            if (h < 0) {
                free(tmp);
                return snprintf(why, len, "out of memory in mpiexec"), -1;
            }
            pl->host_of[r + i] = h;
        }
    }
    free(tmp);
    return 0;
}

/* ---- starting its mpiexec ---- */

static void sj_describe(struct mpx_buf *b, const struct mpx_subjob *s, int universe,
                        const struct sj_app *apps, int napps, char **preput,
                        const struct sj_place *pl, int np)
{
    mpx_buf_str(b, s->label);
    mpx_buf_u32(b, (uint32_t)universe);
    mpx_buf_u32(b, (uint32_t)napps);
    for (int a = 0; a < napps; a++) {
        mpx_buf_u32(b, (uint32_t)apps[a].np);
        mpx_buf_str(b, apps[a].wdir ? apps[a].wdir : "");
        uint32_t n = 0;
        while (apps[a].args && apps[a].args[n])
            n++;
        mpx_buf_u32(b, n + 1);
        mpx_buf_str(b, apps[a].prog);
        for (uint32_t i = 0; i < n; i++)
            mpx_buf_str(b, apps[a].args[i]);
    }
    mpx_buf_strv(b, preput);
    mpx_buf_u32(b, (uint32_t)pl->nhosts);
    for (int h = 0; h < pl->nhosts; h++)
        mpx_buf_str(b, pl->names[h]);
    for (int r = 0; pl->nhosts && r < np; r++)
        mpx_buf_u32(b, (uint32_t)pl->host_of[r]);
}

static int sj_fork(struct mpx_job *job, struct mpx_subjob *s, const struct mpx_buf *desc,
                   char *why, size_t len)
{
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
        return snprintf(why, len, "cannot start its mpiexec: socketpair: %s", strerror(errno)),
               -1;
    char **argv = mpx_opts_respawn(&job->opts, "mpiexec", sp[1]);
    pid_t self = getpid(), pid = argv ? fork() : -1;
    if (pid == 0) {
        /* Terminal signals go to the first mpiexec, which passes them on;
         * its end is this one's. */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != self)
            _exit(1);
        fcntl(sp[1], F_SETFD, 0);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0 && null != 0) {
            dup2(null, 0);
            close(null);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "mpiexec: cannot start the mpiexec of %s: /proc/self/exe: %s\n",
                s->label, strerror(errno));
        _exit(MPX_EXIT_NOEXEC);
    }
    int e = errno;
    mpx_argv_free(argv);
    close(sp[1]);
    if (pid < 0) {
        close(sp[0]);
        return snprintf(why, len, "cannot start its mpiexec: %s",
                        argv ? strerror(e) : "out of memory"), -1;
    }
    s->pid = pid;
    mpx_conn_init(&s->c, sp[0], MPX_FRAME_MAX);
    mpx_conn_send(&s->c, MPX_MSG_JOB, desc->p, desc->len, NULL, 0);
    return 0;
}

static struct mpx_subjob *sj_new(struct mpx_job *job)
{
    struct mpx_subjob **v = realloc(job->subjobs, ((size_t)job->nsubjobs + 1) * sizeof *v);
    if (!v)
        return NULL;
    job->subjobs = v;
    struct mpx_subjob *s = calloc(1, sizeof *s);
    if (s) {
        s->c.fd = -1;
        v[job->nsubjobs++] = s;
    }
    return s;
}

void mpx_subjob_start(struct mpx_job *job, int from, int host, int rank, const void *req,
                      size_t len)
{
    char why[1500] = "", **preput = NULL;
    int napps = 0, np = 0;
    struct mpx_rd rd;
    struct sj_place pl = { 0 };
    struct mpx_subjob *s = NULL;
    struct mpx_buf desc = { 0 };
    mpx_rd_init(&rd, req, len);
    struct sj_app *apps = sj_read(&rd, &napps, &np, &preput, why, sizeof why);
    if (apps && job->ending)
        snprintf(why, sizeof why, "the launch is ending");
    for (int a = 0; apps && !why[0] && a < napps; a++)
        sj_resolve(job, &apps[a], a, why, sizeof why);
    if (apps && !why[0] && !(s = sj_new(job)))
        snprintf(why, sizeof why, "out of memory in mpiexec");
    if (s) {
        s->label[0] = 0;
        s->state = SJ_DONE;
    }
    if (!why[0])
        sj_place(job, apps, napps, np, &pl, why, sizeof why);
    for (int a = 0; !why[0] && !pl.nhosts && a < napps; a++) {
        /* Here: what cannot start is said now, and this spawn fails alone. */
        char err[1200];
        const char *dir = apps[a].wdir ? apps[a].wdir : job->wdir;
        const char *cmd = job->opts.prefix ? job->opts.prefix[0] : apps[a].prog;
        if (apps[a].wdir && access(apps[a].wdir, X_OK) < 0)
            snprintf(why, sizeof why, "command %d: the working directory (info key wdir) %s: "
                     "%s", a, apps[a].wdir, strerror(errno));
        else if (faro_program_check(cmd, dir, err, sizeof err))
            snprintf(why, sizeof why, "command %d: %s", a, err);
    }
    if (!why[0]) {
        snprintf(s->label, sizeof s->label, "spawned job %d", ++job->next_label);
        snprintf(s->prog, sizeof s->prog, "%s", apps[0].prog);
        s->from = from;
        s->host = host;
        s->rank = rank;
        s->np = np;
        s->used = pl.used;
        pl.used = NULL;
        sj_describe(&desc, s, job->universe, apps, napps, preput, &pl, np);
        if (desc.oom)
            snprintf(why, sizeof why, "out of memory in mpiexec");
        else if (!sj_fork(job, s, &desc, why, sizeof why))
            s->state = SJ_STARTING;
    }
    if (why[0]) {
        if (job->opts.verbose)
            fprintf(stderr, "mpiexec: spawn for rank %d failed: %s\n", rank, why);
        sj_answer(job, from, host, rank, 0, why);
        if (s && s->used) /* it never ran: its slots are free again */
            for (int h = 0; h < job->nhosts; h++)
                job->host_used[h] -= s->used[h];
        if (s) {
            free(s->used);
            s->used = NULL;
        }
    } else if (job->opts.verbose) {
        fprintf(stderr, "mpiexec: %s: %d rank%s of %s%s (%d command%s) for rank %d, started "
                "as pid %ld\n", s->label, np, np == 1 ? "" : "s", s->prog,
                pl.nhosts ? " across hosts" : "", napps, napps == 1 ? "" : "s", rank,
                (long)s->pid);
    }
    if (pl.used) /* placed, then failed: give the slots back */
        for (int h = 0; h < job->nhosts; h++)
            job->host_used[h] -= pl.used[h];
    free(pl.used);
    free(pl.names);
    free(pl.host_of);
    mpx_buf_free(&desc);
    free(preput);
    sj_apps_free(apps, napps);
}

/* ---- watching them ---- */

struct mpx_conn *mpx_subjob_conn(struct mpx_job *job, int i)
{
    struct mpx_subjob *s = job->subjobs[i];
    return s->c.fd >= 0 ? &s->c : NULL;
}

static void sj_ended(struct mpx_job *job, struct mpx_subjob *s)
{
    for (int h = 0; s->used && h < job->nhosts; h++)
        job->host_used[h] -= s->used[h];
    free(s->used);
    s->used = NULL;
    mpx_conn_close(&s->c);
}

void mpx_subjob_input(struct mpx_job *job, int i)
{
    struct mpx_subjob *s = job->subjobs[i];
    if (s->c.fd < 0)
        return;
    mpx_conn_flush(&s->c);
    int failed = mpx_conn_fill(&s->c) < 0, type;
    struct mpx_rd p;
    while ((s = job->subjobs[i])->c.fd >= 0 && mpx_conn_frame(&s->c, &type, &p) > 0) {
        if (type == MPX_MSG_STARTED && s->state == SJ_STARTING) {
            s->state = SJ_RUNNING;
            sj_answer(job, s->from, s->host, s->rank, 1, NULL);
        } else if (type == MPX_MSG_FAILED && s->state == SJ_STARTING) {
            s->state = SJ_FAILED;
            sj_answer(job, s->from, s->host, s->rank, 0, mpx_rd_str(&p));
        } else if (type == MPX_MSG_ENDING && s->state == SJ_RUNNING) {
            int code = (int)mpx_rd_u32(&p);
            if (!p.bad && code) /* it said which rank and why */
                mpx_job_fail(job, code, NULL);
        } else if (type == MPX_MSG_NAME_REQ) { /* the launch's one table */
            struct mpx_buf b = { 0 };
            if (mpx_names_answer(&p, &b) == 0)
                mpx_conn_send(&s->c, MPX_MSG_NAME_REP, b.p, b.len, NULL, 0);
            mpx_buf_free(&b);
        } else if (type == MPX_MSG_SPAWN) {
            int host = (int)mpx_rd_u32(&p), rank = (int)mpx_rd_u32(&p);
            if (!p.bad) /* may add a subjob: s is fetched again */
                mpx_subjob_start(job, i, host, rank, p.p + p.off, p.len - p.off);
        }
    }
    if (failed && job->subjobs[i]->c.fd >= 0)
        mpx_conn_close(&job->subjobs[i]->c); /* its end comes with its exit status */
}

int mpx_subjob_reaped(struct mpx_job *job, pid_t pid, int status)
{
    for (int i = 0; i < job->nsubjobs; i++) {
        struct mpx_subjob *s = job->subjobs[i];
        if (s->pid != pid || pid <= 0)
            continue;
        s->pid = 0;
        mpx_subjob_input(job, i); /* what it said before it went */
        s = job->subjobs[i];
        int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
        if (s->state == SJ_STARTING) {
            char why[300];
            snprintf(why, sizeof why, "the mpiexec of %s (%s) ended with code %d before it "
                     "started it (see its message)", s->label, s->prog, code);
            sj_answer(job, s->from, s->host, s->rank, 0, why);
        } else if (s->state == SJ_RUNNING && code) {
            /* It said which rank failed and how; a signal to it says nothing. */
            if (WIFSIGNALED(status))
                mpx_job_fail(job, code, "mpiexec: the mpiexec of %s (%s) was killed by signal "
                             "%d (%s); ending the launch", s->label, s->prog, WTERMSIG(status),
                             strsignal(WTERMSIG(status)));
            else
                mpx_job_fail(job, code, NULL);
        }
        if (job->opts.verbose)
            fprintf(stderr, "mpiexec: %s ended (code %d)\n", s->label, code);
        s->state = SJ_DONE;
        sj_ended(job, s);
        return 1;
    }
    return 0;
}

int mpx_subjobs_running(const struct mpx_job *job)
{
    for (int i = 0; i < job->nsubjobs; i++)
        if (job->subjobs[i]->pid > 0)
            return 1;
    return 0;
}

void mpx_subjobs_signal(struct mpx_job *job, int sig)
{
    for (int i = 0; i < job->nsubjobs; i++)
        if (job->subjobs[i]->pid > 0)
            kill(job->subjobs[i]->pid, sig);
}

void mpx_subjobs_free(struct mpx_job *job)
{
    for (int i = 0; i < job->nsubjobs; i++) {
        sj_ended(job, job->subjobs[i]);
        free(job->subjobs[i]);
    }
    free(job->subjobs);
    job->subjobs = NULL;
    job->nsubjobs = 0;
    if (job->top) {
        mpx_conn_close(job->top);
        free(job->top);
        job->top = NULL;
    }
}

/* ---- the spawned job's side ---- */

/* The description stays here: the job's strings point into it. */
static struct mpx_buf sj_desc;

int mpx_subjob_receive(struct mpx_job *job, char *err, size_t errlen)
{
    if (!(job->top = calloc(1, sizeof *job->top)))
        return snprintf(err, errlen, "out of memory"), -1;
    mpx_conn_init(job->top, job->opts.spawned_fd, MPX_FRAME_MAX);
    long long until = mpx_now_ms() + SJ_RECEIVE_MS;
    struct mpx_rd r;
    int type = 0, rc;
    while ((rc = mpx_conn_frame(job->top, &type, &r)) == 0) {
        struct pollfd p = { .fd = job->top->fd, .events = POLLIN };
        long long left = until - mpx_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0 || mpx_conn_fill(job->top) < 0)
            return snprintf(err, errlen, "no job from the mpiexec that started this one: %s",
                            left <= 0 ? "timed out" : job->top->why), -1;
    }
    if (rc < 0 || type != MPX_MSG_JOB)
        return snprintf(err, errlen, "a wrong message from the mpiexec that started this one "
                        "(--faro-spawned-job is for mpiexec's own use)"), -1;
    mpx_buf_put(&sj_desc, r.p, r.len);
    mpx_rd_init(&r, sj_desc.p, sj_desc.len);
    snprintf(job->label, sizeof job->label, "%s", mpx_rd_str(&r));
    job->universe = (int)mpx_rd_u32(&r);
    struct mpx_opts *o = &job->opts;
    o->napps = (int)mpx_rd_u32(&r);
    job->spawned = 1;
    if (r.bad || sj_desc.oom || o->napps < 1 || o->napps > SJ_MAX_APPS ||
        !(o->apps = calloc((size_t)o->napps, sizeof *o->apps)))
        return snprintf(err, errlen, "a malformed job from the first mpiexec"), -1;
    for (int a = 0; a < o->napps && !r.bad; a++) {
        struct mpx_app *app = &o->apps[a];
        app->np = (int)mpx_rd_u32(&r);
        const char *wdir = mpx_rd_str(&r);
        app->wdir = *wdir ? wdir : NULL;
        app->argv = mpx_rd_strv(&r);
        if (app->np < 1 || app->np > MPX_MAX_NP - job->np || !app->argv || !app->argv[0])
            r.bad = 1;
        else
            job->np += app->np;
    }
    o->np = job->np;
    job->preput = mpx_rd_strv(&r);
    job->nhosts = (int)mpx_rd_u32(&r);
    if (!r.bad && job->nhosts > 0) {
        job->hostname = calloc((size_t)job->nhosts, sizeof *job->hostname);
        job->host_of = calloc((size_t)job->np, sizeof *job->host_of);
        if (!job->hostname || !job->host_of)
            return snprintf(err, errlen, "out of memory for the job"), -1;
        for (int h = 0; h < job->nhosts; h++)
            job->hostname[h] = (char *)mpx_rd_str(&r);
        for (int i = 0; i < job->np; i++)
            if ((job->host_of[i] = (int)mpx_rd_u32(&r)) >= job->nhosts || job->host_of[i] < 0)
                r.bad = 1;
    }
    if (r.bad || job->nhosts < 0)
        return snprintf(err, errlen, "a malformed job from the first mpiexec"), -1;
    return 0;
}

static void sj_tell_top(struct mpx_job *job, int type, const char *msg)
{
    struct mpx_buf b = { 0 };
    if (msg)
        mpx_buf_str(&b, msg);
    mpx_conn_send(job->top, type, b.p, b.len, NULL, 0);
    mpx_buf_free(&b);
    /* Before this mpiexec may leave: what it says must arrive. */
    while (mpx_conn_pending(job->top) && mpx_conn_flush(job->top) >= 0) {
        struct pollfd p = { .fd = job->top->fd, .events = POLLOUT };
        poll(&p, 1, 100);
    }
}

void mpx_subjob_started(struct mpx_job *job)
{
    if (!job->top_told)
        sj_tell_top(job, MPX_MSG_STARTED, NULL);
    job->top_told = 1;
}

void mpx_subjob_check_started(struct mpx_job *job)
{
    if (!job->top || job->top_told || job->ending)
        return;
    for (int i = 0; i < job->nkids; i++)
        if (job->kids[i].state == MPX_LINK_STARTING)
            return;
    mpx_subjob_started(job);
}

void mpx_subjob_failed(struct mpx_job *job, const char *why)
{
    if (!job->top_told)
        sj_tell_top(job, MPX_MSG_FAILED, why);
    job->top_told = 1;
}

void mpx_subjob_ending(struct mpx_job *job, int code)
{
    uint32_t c = htonl((uint32_t)code);
    if (job->top && job->top->fd >= 0)
        mpx_conn_send(job->top, MPX_MSG_ENDING, &c, sizeof c, NULL, 0);
}

void mpx_top_input(struct mpx_job *job)
{
    struct mpx_conn *c = job->top;
    mpx_conn_flush(c);
    int failed = mpx_conn_fill(c) < 0, type;
    struct mpx_rd p;
    while (mpx_conn_frame(c, &type, &p) > 0)
        if (type == MPX_MSG_SPAWN_RESULT)
            mpx_spawn_result(job, &p);
        else if (type == MPX_MSG_NAME_REP)
            mpx_names_reply(job, &p);
    if (failed) {
        mpx_conn_close(c);
        mpx_job_fail(job, 1, "mpiexec: %s: the mpiexec that started it is gone (%s); ending "
                     "it", job->label, c->why);
    }
}
