/*
 * Transport conformance suite: the runner side. Forks the processes of one
 * case, serves their bootstrap (allgather over SOCK_SEQPACKET socketpairs),
 * collects what they report, and kills them when the case overruns.
 */
#include "config.h"

#include "conf.h"

#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define T_SLOT (2 + FARO_TP_MAX_ADDR)

int t_slow(void)
{
    static int slow;
    if (!slow) {
        const char *e = getenv("CONF_SLOW");
        slow = e && atoi(e) > 1 && atoi(e) <= 20 ? atoi(e) : 1;
    }
    return slow;
}

struct t_run {
    int n, fd[T_MAXP], in[T_MAXP];   /* in: contributed to the pending allgather */
    pid_t pid[T_MAXP];
    uint8_t reply[1 + T_MAXP * T_SLOT];
    int failed, skipped;
    char msg[1024];
};

static void t_run_say(struct t_run *r, int rank, const char *what, const char *text, size_t len)
{
    size_t used = strlen(r->msg);
    snprintf(r->msg + used, sizeof r->msg - used, "%srank %d: %s%.*s", used ? "; " : "", rank,
             what, (int)len, text);
}

/* Answer the allgather once every process still alive has contributed. */
static void t_run_gather(struct t_run *r)
{
    int any = 0;
    for (int i = 0; i < r->n; i++) {
        if (r->fd[i] >= 0 && !r->in[i])
            return;
        any |= r->in[i];
    }
    if (!any)
        return;
    r->reply[0] = 'A';
    for (int i = 0; i < r->n; i++) {
        if (r->in[i] && r->fd[i] >= 0)
            (void)send(r->fd[i], r->reply, 1 + (size_t)r->n * T_SLOT, MSG_NOSIGNAL);
        r->in[i] = 0;
    }
    memset(r->reply + 1, 0, (size_t)r->n * T_SLOT); /* an absent rank gets length 0 */
}

static void t_run_msg(struct t_run *r, int i, const uint8_t *m, size_t len)
{
    switch (m[0]) {
    case 'A':
        if (len - 1 > FARO_TP_MAX_ADDR) {
            r->failed = 1;
            t_run_say(r, i, "", "address blob too long", 21);
            break;
        }
        r->reply[1 + i * T_SLOT] = (uint8_t)(len - 1);
        r->reply[2 + i * T_SLOT] = (uint8_t)((len - 1) >> 8);
        memcpy(r->reply + 3 + i * T_SLOT, m + 1, len - 1);
        r->in[i] = 1;
        t_run_gather(r);
        break;
    case 'F':
        r->failed = 1;
        t_run_say(r, i, "", (const char *)m + 1, len - 1);
        break;
    case 'S':
        r->skipped = 1;
        if (!r->msg[0])
            snprintf(r->msg, sizeof r->msg, "%.*s", (int)len - 1, (const char *)m + 1);
        break;
    case 'N': /* over a test driver, a figure is the driver's, not the network's */
        printf("# %s%.*s\n", conf_driver_verdict ? "(over a test driver, not a device) " : "",
               (int)len - 1, (const char *)m + 1);
        break;
    }
}

/* A process the runner is about to kill says where it is stuck: a case that
 * overran on a loaded CI machine can then be read from the log alone. */
static void t_child_where(int sig)
{
    static const char head[] = "conformance: a process of an overrunning case is here:\n";
    void *frames[48];
    int n = backtrace(frames, 48);
    (void)sig;
    if (write(STDERR_FILENO, head, sizeof head - 1) > 0)
        backtrace_symbols_fd(frames, n, STDERR_FILENO);
}

static void t_run_reap(struct t_run *r, int killed)
{
    if (killed) {
        for (int i = 0; i < r->n; i++)
            if (r->pid[i] > 0)
                kill(r->pid[i], SIGUSR2);
        usleep(300 * 1000);
    }
    for (int i = 0; i < r->n; i++) {
        int st;
        if (r->pid[i] <= 0)
            continue;
        if (killed)
            kill(r->pid[i], SIGKILL);
        if (waitpid(r->pid[i], &st, 0) < 0 || killed)
            continue;
        char text[64];
        if (WIFSIGNALED(st))
            snprintf(text, sizeof text, "killed by signal %d", WTERMSIG(st));
        else if (WEXITSTATUS(st) && !r->failed)
            snprintf(text, sizeof text, "exited with status %d", WEXITSTATUS(st));
        else
            continue;
        r->failed = 1;
        t_run_say(r, i, "", text, strlen(text));
    }
}

/* Remove what the case's processes left in /dev/shm under the job's names
 * (a process killed or exiting without finalize), as mpiexec does. */
static void t_run_cleanup(const char *jobid)
{
    char path[300];
    size_t len = strlen(jobid);
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, jobid, len) && e->d_name[len] == '-') {
            snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
}

/* Run one case on n processes. Returns 0 passed, -1 failed, T_SKIP skipped;
 * `msg` says why. */
int t_run_case(const faro_tp_ops_t *ops, const struct t_case *c, int n, int num, char *msg,
               size_t msglen)
{
    struct t_run r = { .n = n };
    uint8_t key[32];
    char jobid[64];

    if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key) {
        snprintf(msg, msglen, "getrandom: %s", strerror(errno));
        return -1;
    }
    snprintf(jobid, sizeof jobid, "faro-conf-%d-%d", (int)getpid(), num);
    fflush(stdout);
    for (int i = 0; i < n; i++) {
        int sv[2];
        r.fd[i] = -1;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
            snprintf(msg, msglen, "socketpair: %s", strerror(errno));
            t_run_reap(&r, 1);
            return -1;
        }
        r.pid[i] = fork();
        if (r.pid[i] == 0) {
            for (int j = 0; j < i; j++)
                close(r.fd[j]);
            close(sv[0]);
            signal(SIGUSR2, t_child_where);
            alarm(T_CASE_S + 5); /* in case the runner itself is gone */
            int st = t_child(ops, c, i, n, sv[1], jobid, key, sizeof key);
            fflush(NULL);
            _exit(st);
        }
        close(sv[1]);
        r.fd[i] = sv[0];
    }

    int open = n, killed = 0;
    double end = t_now() + T_CASE_S;
    while (open > 0) {
        struct pollfd p[T_MAXP];
        for (int i = 0; i < n; i++)
            p[i] = (struct pollfd){ .fd = r.fd[i], .events = POLLIN };
        int left = (int)((end - t_now()) * 1000);
        if (left <= 0 || poll(p, (nfds_t)n, left) == 0) {
            snprintf(r.msg + strlen(r.msg), sizeof r.msg - strlen(r.msg),
                     "%stimed out after %d s; processes killed", r.msg[0] ? "; " : "",
                     T_CASE_S);
            r.failed = killed = 1;
            break;
        }
        for (int i = 0; i < n; i++) {
            uint8_t m[1 + T_MAXP * T_SLOT];
            if (r.fd[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t len = recv(r.fd[i], m, sizeof m, 0);
            if (len > 0) {
                t_run_msg(&r, i, m, (size_t)len);
                continue;
            }
            close(r.fd[i]);
            r.fd[i] = -1;
            r.in[i] = 0;
            open--;
            t_run_gather(&r); /* the others need not wait for it */
        }
    }
    for (int i = 0; i < n; i++)
        if (r.fd[i] >= 0)
            close(r.fd[i]);
    t_run_reap(&r, killed);
    t_run_cleanup(jobid);
    snprintf(msg, msglen, "%s", r.msg);
    return r.failed ? -1 : r.skipped ? T_SKIP : 0;
}

static void t_probe_lost(void *core, void *ctx, int orderly, const char *why)
{
}

/* Init the transport alone (one process, size 1) in a child, to learn its
 * caps or why it is unavailable. Returns 0, T_SKIP (unavailable) or -1. */
int t_probe(const faro_tp_ops_t *ops, faro_tp_attr_t *attr, char *why, size_t whylen)
{
    int pfd[2], st;
    struct { int r; faro_tp_attr_t attr; char why[400]; } res = { .r = -1 };

    if (pipe(pfd) < 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        static const int zero = 0;
        static const uint8_t key[8] = "probekey";
        char jobid[64];
        faro_tp_t *tp = NULL;
        snprintf(jobid, sizeof jobid, "faro-conf-%d-probe", (int)getppid());
        faro_tp_env_t env = { .rank = 0, .size = 1, .node_of = &zero, .local_size = 1,
                              .local_ranks = &zero, .jobid = jobid, .job_key = key,
                              .job_key_len = sizeof key, .ncores = 1,
                              .ep_lost = t_probe_lost };
        alarm(T_CASE_S);
        res.r = ops->init(&tp, &env, &res.attr, res.why, sizeof res.why);
        if (res.r == FARO_TP_OK)
            ops->finalize(tp);
        (void)!write(pfd[1], &res, sizeof res);
        _exit(0);
    }
    close(pfd[1]);
    ssize_t n = read(pfd[0], &res, sizeof res);
    close(pfd[0]);
    waitpid(pid, &st, 0);
    if (n != (ssize_t)sizeof res) {
        snprintf(why, whylen, "init crashed (%s %d)", WIFSIGNALED(st) ? "signal" : "status",
                 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        return -1;
    }
    snprintf(why, whylen, "%s", res.why);
    *attr = res.attr;
    return res.r == FARO_TP_OK ? 0 : res.r == FARO_TP_UNAVAILABLE ? T_SKIP : -1;
}
