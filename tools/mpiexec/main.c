/*
 * mpiexec main: work out the job (ranks, hosts, environment), start it, run
 * the loop (node.c) until every rank has exited and its output is drained.
 * Without hosts mpiexec starts the ranks itself; with hosts it starts one
 * proxy per host, as a tree, and only coordinates. See mpiexec.h for the
 * pieces and mpiexec(1) for the behaviour users rely on.
 */
#include "config.h"

#include "mpiexec.h"
#include "base/program.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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

/* Inside a Slurm allocation and without hosts given: the allocation's nodes,
 * with its task counts as slots (as Hydra and Open MPI do). 1 when used. */
static int main_slurm_hosts(struct mpx_opts *o)
{
    const char *id = getenv("SLURM_JOB_ID"), *nodes = getenv("SLURM_JOB_NODELIST");
    if (!nodes)
        nodes = getenv("SLURM_NODELIST");
    if (o->have_hosts || !id || !nodes || !*nodes)
        return 0;
    const char *counts = getenv("SLURM_TASKS_PER_NODE");
    if (!counts || !*counts)
        counts = getenv("SLURM_JOB_CPUS_PER_NODE");
    char err[600];
    if (mpx_hosts_from_slurm(&o->hosts, nodes, counts, err, sizeof err) < 0) {
        fprintf(stderr, "mpiexec: the Slurm allocation: %s\n", err);
        return -1;
    }
    o->have_hosts = 1;
    return 1;
}

static int main_in_path(const char *cmd)
{
    const char *path = getenv("PATH");
    char full[PATH_MAX];
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(full, sizeof full, "%.*s/%s", (int)n, n ? p : ".", cmd);
        if (access(full, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

/* How proxies are started: an argv prefix (%h: the host), or NULL to fork. */
static char **main_agent(const struct mpx_opts *o, int in_slurm)
{
    const char *l = o->launcher;
    if (o->launcher_exec) {
        char **v = calloc(64, sizeof *v);
        for (int i = 0; v && i < 63 && o->launcher_exec[i]; i++)
            v[i] = o->launcher_exec[i];
        return v;
    }
    if (!l)
        l = in_slurm && main_in_path("srun") ? "slurm" : "ssh";
    static char *ssh[] = { "ssh", "-x", "-o", "BatchMode=yes", NULL };
    static char *rsh[] = { "rsh", NULL };
    /* --mpi=none: the proxy is no MPI task; under MpiDefault=pmi2 or pmix
     * srun would serve it PMI and its ranks would inherit PMI_JOBID or
     * PMIX_* (Open MPI's mpirun passes it too). */
    static char *srun[] = { "srun", "--nodes=1", "--ntasks=1", "--nodelist=%h", "--overlap",
                            "--cpu-bind=none", "--mpi=none", "--quiet", NULL };
    char **src = !strcmp(l, "fork") ? NULL : !strcmp(l, "rsh") ? rsh
                 : !strcmp(l, "slurm") ? srun : ssh;
    if (!src)
        return NULL;
    char **v = calloc(16, sizeof *v);
    for (int i = 0; v && src[i]; i++)
        v[i] = src[i];
    return v;
}

/* Variables that describe this process or this shell, not the job's
 * environment: never forwarded. */
static int main_env_local(const char *e)
{
    static const char *const names[] = { "HOSTNAME", "PWD", "OLDPWD", "SHLVL", "_",
                                         "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "FARO_HOSTNAME",
                                         NULL };
    static const char *const prefixes[] = { "PMI_", "FARO_INTERNAL_", "SSH_", NULL };
    size_t n = strcspn(e, "=");
    for (int i = 0; names[i]; i++)
        if (strlen(names[i]) == n && !strncmp(e, names[i], n))
            return 1;
    for (int i = 0; prefixes[i]; i++)
        if (!strncmp(e, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

/* What goes to the ranks on the hosts besides -x: -envall (default), -envlist
 * or -envnone; FARO_TCP_IF always, since the links follow it too. */
static char **main_forward_env(const struct mpx_opts *o)
{
    size_t n = 0;
    for (char **e = environ; *e; e++)
        n++;
    char **v = calloc(n + 2, sizeof *v);
    size_t k = 0;
    for (char **e = environ; v && *e; e++) {
        size_t len = strcspn(*e, "=");
        int take = 0;
        if (o->env_mode == MPX_ENV_ALL)
            take = !main_env_local(*e);
        for (size_t i = 0; o->env_mode == MPX_ENV_LIST && i < o->nenvlist; i++)
            take |= strlen(o->envlist[i]) == len && !strncmp(*e, o->envlist[i], len);
        take |= len == 11 && !strncmp(*e, "FARO_TCP_IF", 11);
        if (take)
            v[k++] = *e;
    }
    return v;
}

/* The job on hosts: map, names, agent, listening socket, the children. */
static int main_setup_hosts(struct mpx_job *job, int in_slurm)
{
    struct mpx_opts *o = &job->opts;
    char err[1200];
    if (!job->hostname) { /* a spawned job comes placed (subjob.c) */
        job->nhosts = o->hosts.n;
        job->hostname = calloc((size_t)job->nhosts, sizeof *job->hostname);
        job->host_of = calloc((size_t)job->np, sizeof *job->host_of);
        if (!job->hostname || !job->host_of)
            return fprintf(stderr, "mpiexec: out of memory for %d ranks\n", job->np), -1;
        for (int h = 0; h < job->nhosts; h++)
            job->hostname[h] = o->hosts.host[h].name;
        if (mpx_hosts_map(&o->hosts, job->np, o->map_policy, o->ppn, job->host_of, err,
                          sizeof err) < 0)
            return fprintf(stderr, "mpiexec: %s\n", err), -1;
    }
    if (mpx_process_mapping(job->host_of, job->np, job->mapping, sizeof job->mapping) < 0)
        job->mapping[0] = 0; /* too irregular to describe: ranks exchange host names */
    job->agent = main_agent(o, in_slurm);
    job->agent_all = o->launcher_exec != NULL;
    /* ssh, rsh and commands called like them hand the command line to a
     * shell; srun runs it as it is. */
    job->agent_shell = job->agent && strcmp(job->agent[0], "srun") != 0;
    char dir[PATH_MAX];
    static char proxy[PATH_MAX + 16];
    mpx_self_dir(dir, sizeof dir);
    snprintf(proxy, sizeof proxy, "%s/faro_proxy", dir[0] ? dir : ".");
    job->proxy_path = o->proxy_path ? o->proxy_path : proxy;
    job->fwd_env = main_forward_env(o);
    static char cwd[PATH_MAX];
    job->wdir = getcwd(cwd, sizeof cwd); /* unless a program has its own -wdir */
    job->tcp_if = getenv("FARO_TCP_IF");
    job->heartbeat_ms = o->heartbeat_ms;
    if (mpx_kids_init(job, 0, job->nhosts) < 0)
        return fprintf(stderr, "mpiexec: out of memory for %d hosts\n", job->nhosts), -1;
    return 0;
}

/* Every host is this machine: the links stay on loopback. */
static int main_all_local(const struct mpx_job *job)
{
    if (!job->agent)
        return 1;
    for (int h = 0; h < job->nhosts && !job->agent_all; h++)
        if (!mpx_host_is_local(job->hostname[h]))
            return 0;
    return !job->agent_all;
}

static void main_print_map(const struct mpx_job *job)
{
    char ranks[512], line[4096];
    for (int h = 0; h < job->nhosts; h++) {
        mpx_host_ranks(job, h, ranks, sizeof ranks);
        mpx_agent_line(job, h, line, sizeof line);
        printf("host %s: ranks %s; proxy started by: %s\n", job->hostname[h], ranks, line);
    }
    printf("PMI_process_mapping: %s\n", job->mapping[0] ? job->mapping : "(too irregular)");
}

/* --display-map: hosts and programs of the ranks, before they start. */
static void main_display_map(const struct mpx_job *job)
{
    char ranks[512], here[256];
    const struct mpx_opts *o = &job->opts;
    if (job->nhosts == 0 && gethostname(here, sizeof here))
        snprintf(here, sizeof here, "localhost");
    here[sizeof here - 1] = 0;
    printf("mpiexec: %d rank(s) on %d host(s)\n", job->np, job->nhosts ? job->nhosts : 1);
    for (int h = 0; h < (job->nhosts ? job->nhosts : 1); h++) {
        if (job->nhosts)
            mpx_host_ranks(job, h, ranks, sizeof ranks);
        else
            snprintf(ranks, sizeof ranks, job->np > 1 ? "0-%d" : "0", job->np - 1);
        printf("  host %s: ranks %s\n", job->nhosts ? job->hostname[h] : here, ranks);
    }
    for (int k = 0, first = 0; o->napps > 1 && k < o->napps; first += o->apps[k++].np)
        printf("  program %d (%s): ranks %d-%d\n", k, o->apps[k].argv[0], first,
               first + o->apps[k].np - 1);
    fflush(stdout);
}

static void main_report(const struct mpx_job *job)
{
    const struct mpx_stats *s = &job->stats;
    double n = s->ranks ? (double)s->ranks : 1;
    fprintf(stderr, "%s: %d ranks on %d host(s) ran %lld ms; key-value exchange: %u "
            "fence(s) moved %llu bytes%s; per rank %.1f PMI messages and %.1f KiB on average "
            "(at most %llu and %.1f KiB); control links: %llu messages, %.1f KiB\n",
            mpx_me(job), job->np, job->nhosts ? job->nhosts : 1, mpx_now_ms() - job->t_start,
            job->fences,
            (unsigned long long)job->fence_bytes,
            job->nhosts > 1 ? " down to every host, one message per link each way per fence"
                            : "",
            (double)s->msgs / n, (double)s->bytes / n / 1024, (unsigned long long)s->max_msgs,
            (double)s->max_bytes / 1024, (unsigned long long)s->ctl_frames,
            (double)s->ctl_bytes / 1024);
}

/* MPI_UNIVERSE_SIZE: -usize or MPIEXEC_UNIVERSE_SIZE (as Hydra), else the
 * slots of the hosts given (or of the Slurm allocation), never fewer than
 * the job's ranks; without hosts it is not known (-1: the attribute is not
 * set, as under Hydra; programs such as MPICH's spawn tests take a universe
 * no larger than their job for "no room to spawn"). */
static int main_universe(const struct mpx_opts *o, int np)
{
    if (o->usize)
        return o->usize;
    if (!o->have_hosts)
        return -1;
    int n = mpx_hosts_total_slots(&o->hosts, o->ppn);
    return n > np ? n : np;
}

int main(int argc, char **argv)
{
    struct mpx_job job = { .listen_fd = -1, .host = -1, .is_root = 1 };
    int done;
    job.t_start = mpx_now_ms();
    main_fix_stdio();
    int rc = mpx_opts_parse(argc, argv, &job.opts, &done);
    /* A spawned job comes placed, but starts its proxies as the first did
     * (srun inside an allocation). */
    int in_slurm = rc || done ? 0 : main_slurm_hosts(&job.opts);
    if (in_slurm < 0)
        rc = MPX_EXIT_USAGE;
    if (rc || done) {
        mpx_opts_free(&job.opts);
        return rc;
    }
    struct mpx_opts *o = &job.opts;
    char err[1200];
    int spawned = o->spawned_fd >= 0;
    if (spawned) {
        /* A job MPI_Comm_spawn asked the first mpiexec for (subjob.c): the
         * programs, the universe and the hosts come on the socket. */
        o->timeout_s = 0;
        if (mpx_subjob_receive(&job, err, sizeof err) < 0) {
            fprintf(stderr, "mpiexec (spawned job): %s\n", err);
            return 1;
        }
    } else {
        job.np = o->np ? o->np : o->have_hosts ? mpx_hosts_total_slots(&o->hosts, o->ppn) : 1;
        if (job.np > MPX_MAX_NP) {
            fprintf(stderr, "mpiexec: the hosts offer %d slots, more ranks than the %d a job "
                    "may have; give -n\n", job.np, MPX_MAX_NP);
            return MPX_EXIT_USAGE;
        }
        mpx_apps_resolve(o, job.np);
        job.universe = main_universe(o, job.np);
    }
    int hosts_mode = spawned ? job.nhosts > 0 : o->have_hosts;
    job.tag = o->tag;
    if (mpx_make_kvsname(job.kvsname, sizeof job.kvsname) < 0 ||
        mpx_random(job.key, sizeof job.key) < 0 || !(job.kvs = mpx_kvs_new())) {
        fprintf(stderr, "mpiexec: cannot set up the job (no random bytes or no memory)\n");
        return 1;
    }
    if (hosts_mode && o->napps && main_setup_hosts(&job, in_slurm) < 0) {
        if (spawned)
            mpx_subjob_failed(&job, "its hosts could not be set up (see above)");
        return MPX_EXIT_USAGE;
    }
    if (o->dry_run) {
        int per_host = job.np;
        if (o->have_hosts && o->napps) {
            snprintf(job.addrs, sizeof job.addrs, "ADDRESS:PORT"); /* chosen when it runs */
            main_print_map(&job);
            per_host = 0;
            for (int h = 0; h < job.nhosts; h++) {
                int c = 0;
                for (int r = 0; r < job.np; r++)
                    c += job.host_of[r] == h;
                per_host = c > per_host ? c : per_host;
            }
        } else if (o->have_hosts) {
            per_host = (job.np + o->hosts.n - 1) / o->hosts.n;
        }
        rc = mpx_dry_run(o, per_host > 0 ? per_host : 1);
        mpx_opts_free(o);
        return rc;
    }
    for (int k = 0; spawned && !hosts_mode && k < o->napps; k++) {
        /* (the first mpiexec checked them too; said here, a spawn fails alone) */
        const char *cmd = o->prefix ? o->prefix[0] : o->apps[k].argv[0];
        if ((rc = faro_program_check(cmd, o->apps[k].wdir, err, sizeof err)) != 0) {
            fprintf(stderr, "mpiexec: %s\n", err);
            mpx_subjob_failed(&job, err);
            mpx_opts_free(o);
            return rc;
        }
    }
    if (!spawned && !hosts_mode && (rc = mpx_check_program(o)) != 0) {
        mpx_opts_free(o);
        return rc;
    }
    mpx_raise_nofile();

    if (!hosts_mode) {
        /* Every rank here, started by mpiexec itself: one node of all. */
        job.nlocal = job.np;
        if (!(job.ranks = calloc((size_t)job.np, sizeof *job.ranks))) {
            fprintf(stderr, "mpiexec: out of memory setting up %d ranks\n", job.np);
            return 1;
        }
        for (int i = 0; i < job.np; i++) {
            job.ranks[i] = (struct mpx_rank){ .rank = i, .local = i, .pmi_fd = -1,
                                              .stdin_fd = -1, .app = mpx_app_of(o, i) };
            job.ranks[i].out.fd = job.ranks[i].err.fd = -1;
        }
        snprintf(job.mapping, sizeof job.mapping, "(vector,(0,1,%d))", job.np);
        job.heartbeat_ms = MPX_HEARTBEAT_MS;
    }
    if (!spawned && hosts_mode &&
        !(job.host_used = calloc((size_t)job.nhosts, sizeof *job.host_used))) {
        fprintf(stderr, "mpiexec: out of memory for %d hosts\n", job.nhosts);
        return 1;
    }
    for (int r = 0; job.host_used && r < job.np; r++)
        job.host_used[job.host_of[r]]++; /* spawned jobs fill the other slots first */
    if (mpx_kvs_put(job.kvs, "PMI_process_mapping", job.mapping) < 0 ||
        mpx_kvs_put_pairs(job.kvs, job.preput) < 0)
        return 1;
    if (o->display_map)
        main_display_map(&job);
    if (mpx_hang_init(&job) < 0) {
        fprintf(stderr, "mpiexec: out of memory for %d ranks\n", job.np);
        return 1;
    }

    /* Signals arrive through a descriptor in the poll set; children get the
     * original mask back before exec. */
    sigset_t old;
    int sfd = mpx_signals(&old);
    if (sfd < 0) {
        fprintf(stderr, "mpiexec: signalfd: %s\n", strerror(errno));
        return 1;
    }
    signal(SIGPIPE, SIG_IGN); /* a rank closing its PMI socket must not kill us */

    if (hosts_mode) {
        if (mpx_listen(&job, main_all_local(&job), err, sizeof err) < 0) {
            fprintf(stderr, "mpiexec: %s\n", err);
            return 1;
        }
        if (mpx_job_encode(&job) < 0) {
            fprintf(stderr, "mpiexec: out of memory for the job description\n");
            return 1;
        }
        if (o->verbose) {
            char ranks[512];
            for (int h = 0; h < job.nhosts; h++) {
                mpx_host_ranks(&job, h, ranks, sizeof ranks);
                fprintf(stderr, "%s: host %s: ranks %s\n", mpx_me(&job), job.hostname[h], ranks);
            }
        }
        /* stdin goes to rank 0's host, unless reading it would stop us (a
         * terminal we are in the background of). */
        job.stdin_open = !(isatty(0) && tcgetpgrp(0) != getpgrp());
        if (!job.stdin_open) {
            uint32_t h = htonl((uint32_t)job.host_of[0]);
            mpx_kid_send(&job, mpx_kid_for(&job, job.host_of[0]), MPX_MSG_STDIN, &h, 4, NULL, 0);
        }
        for (int i = 0; i < job.nkids && !job.ending; i++)
            if (mpx_start_child(&job, &job.kids[i], err, sizeof err) < 0)
                mpx_kid_lost(&job, &job.kids[i], err);
    } else {
        mpx_spawn(&job, &old);
    }
    if (spawned && !hosts_mode && !job.ending)
        mpx_subjob_started(&job); /* with hosts: once its proxies connected (node.c) */
    mpx_node_loop(&job, sfd);

    /* Anything still alive here outlived SIGKILL's delivery or the drain. */
    while (job.alive > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0)
            break;
        for (int i = 0; i < job.nlocal; i++)
            if (job.ranks[i].pid == pid) {
                job.ranks[i].pid = 0;
                job.alive--;
                mpx_report_exit(&job, &job.ranks[i], (long)pid, status);
            }
    }
    mpx_output_drain(&job, 2000);
    mpx_stats_local(&job);
    if (o->verbose)
        main_report(&job);
    if (!hosts_mode)
        mpx_clean_shm(&job);
    close(sfd);
    int code = job.exit_code;
    mpx_hang_free(&job);
    mpx_job_free(&job);
    free(job.agent);
    free(job.fwd_env);
    free(job.hostname);
    free(job.host_of);
    free(job.host_used);
    mpx_opts_free(o);
    return code;
}
