/*
 * Starting the launch tree: the listening socket children connect to, the
 * agent command that starts a child proxy on its host, and a proxy's
 * connection to its parent.
 *
 * A child is started as
 *     AGENT... HOST faro_proxy --parent ADDR:PORT[,...] --id H [--tcp-if SPEC] [-v]
 * (ssh -x -o BatchMode=yes, rsh, srun --nodelist=HOST ..., the -launcher-exec
 * command, or, for this machine, faro_proxy itself), with the job key on its
 * standard input: one line "FARO-KEY <hex>", which ssh and srun forward. The
 * proxy connects back to the first of the parent's addresses that answers
 * (they are tried at once), so a host that reaches its parent through only
 * one of its networks finds it; the interface it went out of is what its
 * ranks use for TCP unless FARO_TCP_IF says otherwise.
 */
#include "config.h"

#include "mpiexec.h"
#include "base/netif.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LAUNCH_CONNECT_MS 10000  /* a proxy's connection to its parent */
#define LAUNCH_MAX_ADDRS 16

static void launch_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int mpx_listen(struct mpx_job *job, int all_local, char *err, size_t errlen)
{
    struct faro_netif ifs[FARO_NETIF_MAX];
    char reason[256], why[1024];
    int n = 0;
    struct sockaddr_in sa = { .sin_family = AF_INET };
    if (all_local) {
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ifs[0].addr = sa.sin_addr;
        n = 1;
        snprintf(reason, sizeof reason, "every host is this machine");
    } else {
        n = faro_netif_choose(job->tcp_if, 1, job->ctl_if, ifs, FARO_NETIF_MAX, reason,
                              sizeof reason, why, sizeof why);
        if (n < 0) {
            snprintf(err, errlen, "no interface for the proxies to connect to: %s", why);
            return -1;
        }
        sa.sin_addr.s_addr = htonl(INADDR_ANY);
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    socklen_t alen = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, SOMAXCONN) < 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &alen) < 0) {
        snprintf(err, errlen, "cannot listen for the proxies: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    job->listen_fd = fd;
    if (!(job->pending = calloc(MPX_MAX_PENDING, sizeof *job->pending))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t used = 0;
    job->addrs[0] = 0;
    for (int i = 0; i < n && i < LAUNCH_MAX_ADDRS; i++) {
        char a[32];
        used += (size_t)snprintf(job->addrs + used, sizeof job->addrs - used, "%s%s:%u",
                                 i ? "," : "", faro_netif_str(ifs[i].addr, -1, a, sizeof a),
                                 ntohs(sa.sin_port));
        if (used >= sizeof job->addrs)
            break;
    }
    if (job->opts.verbose)
        fprintf(stderr, "%s: proxies connect to %s (%s)\n", mpx_me(job),
                job->addrs, reason);
    return 0;
}

int mpx_host_is_local(const char *name)
{
    char self[256];
    if (!strcmp(name, "localhost") || !strcmp(name, "127.0.0.1"))
        return 1;
    if (gethostname(self, sizeof self))
        return 0;
    self[sizeof self - 1] = 0;
    size_t a = strcspn(self, "."), b = strcspn(name, ".");
    return !strcmp(self, name) || (a == b && !strncmp(self, name, a));
}

/* Does host h go through the agent (else: fork, this machine)? */
static int launch_remote(const struct mpx_job *job, int h)
{
    if (!job->agent)
        return 0;
    /* An explicit -launcher-exec may be what makes a host a host (a
     * namespace, a container): it is used for every host. */
    return job->opts.launcher_exec || !mpx_host_is_local(job->hostname[h]);
}

/* Quote an argument for the remote shell when it needs it. */
static void launch_quote(const char *s, char *out, size_t len)
{
    int plain = *s != 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || strchr("_./:,=@+-%", *p)))
            plain = 0;
    if (plain) {
        snprintf(out, len, "%s", s);
        return;
    }
    size_t o = 0;
    if (o + 1 < len)
        out[o++] = '\'';
    for (const char *p = s; *p && o + 5 < len; p++) {
        if (*p == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *p;
        }
    }
    if (o + 1 < len)
        out[o++] = '\'';
    out[o] = 0;
}

/* argv for starting host h's proxy: agent words (%h is the host; without
 * %h the host follows them, as for ssh), then the proxy and its options.
 * Strings are allocated; free with mpx_argv_free. */
static char **launch_argv(const struct mpx_job *job, int h)
{
    char id[16], *proxy_args[10];
    int np = 0, remote = launch_remote(job, h);
    snprintf(id, sizeof id, "%d", h);
    proxy_args[np++] = (char *)job->proxy_path;
    proxy_args[np++] = "--parent";
    proxy_args[np++] = (char *)job->addrs;
    proxy_args[np++] = "--id";
    proxy_args[np++] = id;
    if (job->tcp_if && *job->tcp_if) {
        proxy_args[np++] = "--tcp-if";
        proxy_args[np++] = (char *)job->tcp_if;
    }
    if (job->opts.verbose)
        proxy_args[np++] = "-v";
    proxy_args[np] = NULL;

    size_t na = 0;
    while (remote && job->agent[na])
        na++;
    char **v = calloc(na + (size_t)np + 2, sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    int host_given = 0;
    for (size_t i = 0; i < na; i++) {
        const char *w = job->agent[i], *pct = strstr(w, "%h");
        if (pct) {
            size_t len = strlen(w) + strlen(job->hostname[h]);
            if ((v[k] = malloc(len)))
                snprintf(v[k], len, "%.*s%s%s", (int)(pct - w), w, job->hostname[h], pct + 2);
            host_given = 1;
        } else {
            v[k] = strdup(w);
        }
        k++;
    }
    if (remote && !host_given)
        v[k++] = strdup(job->hostname[h]);
    for (int i = 0; i < np; i++) {
        char q[4200];
        int quote = remote && job->agent_shell; /* ssh hands them to a shell */
        if (quote)
            launch_quote(proxy_args[i], q, sizeof q);
        v[k++] = strdup(quote ? q : proxy_args[i]);
    }
    for (size_t i = 0; i < k; i++)
        if (!v[i]) {
            mpx_argv_free(v);
            return NULL;
        }
    return v;
}

void mpx_agent_line(const struct mpx_job *job, int host, char *buf, size_t len)
{
    char **v = launch_argv(job, host);
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; v && v[i] && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", v[i]);
    mpx_argv_free(v);
}

int mpx_kids_init(struct mpx_job *job, int lo, int hi)
{
    int width = job->opts.tree_width > 0 ? job->opts.tree_width : MPX_TREE_WIDTH;
    int n = hi - lo < width ? hi - lo : width;
    if (n <= 0)
        return 0;
    int *child = calloc((size_t)n, sizeof *child), *end = calloc((size_t)n, sizeof *end);
    job->kids = calloc((size_t)n, sizeof *job->kids);
    if (!child || !end || !job->kids) {
        free(child);
        free(end);
        return -1;
    }
    job->nkids = mpx_tree_children(lo, hi, width, child, end);
    for (int i = 0; i < job->nkids; i++) {
        job->kids[i].host = child[i];
        job->kids[i].end = end[i];
        job->kids[i].state = MPX_LINK_STARTING;
        job->kids[i].c.fd = -1;
    }
    free(child);
    free(end);
    return 0;
}

int mpx_start_child(struct mpx_job *job, struct mpx_link *k, char *err, size_t errlen)
{
    char **argv = launch_argv(job, k->host);
    int kp[2];
    if (!argv || pipe2(kp, O_CLOEXEC) < 0) {
        mpx_argv_free(argv);
        snprintf(err, errlen, "cannot start the proxy of host %s: %s", job->hostname[k->host],
                 strerror(errno ? errno : ENOMEM));
        return -1;
    }
    if (job->opts.verbose) {
        char line[4096];
        mpx_agent_line(job, k->host, line, sizeof line);
        fprintf(stderr, "%s: host %s: starting %s\n", mpx_me(job),
                job->hostname[k->host], line);
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start the proxy of host %s: fork: %s",
                 job->hostname[k->host], strerror(errno));
        close(kp[0]);
        close(kp[1]);
        mpx_argv_free(argv);
        return -1;
    }
    if (pid == 0) {
        /* Terminal signals go to mpiexec, which passes them down the tree. */
        setpgid(0, 0);
        if (dup2(kp[0], 0) < 0)
            _exit(126);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[0], argv);
        fprintf(stderr, "mpiexec: host %s: cannot run '%s': %s\n", job->hostname[k->host],
                argv[0], strerror(errno));
        _exit(errno == ENOENT ? MPX_EXIT_NOTFOUND : MPX_EXIT_NOEXEC);
    }
    close(kp[0]);
    char line[64] = "FARO-KEY ";
    for (int i = 0; i < MPX_KEYLEN; i++)
        snprintf(line + 9 + 2 * i, 3, "%02x", job->key[i]);
    strcat(line, "\n");
    (void)faro_pmi_write_all(kp[1], line, strlen(line));
    close(kp[1]);
    mpx_argv_free(argv);
    k->agent = pid;
    k->started = mpx_now_ms();
    k->state = MPX_LINK_STARTING;
    return 0;
}

/* Wait for a frame of type want on c; 0 with the payload, -1 with err. */
static int launch_wait(struct mpx_conn *c, int want, struct mpx_rd *rd, long long until,
                       const char *what, char *err, size_t errlen)
{
    for (;;) {
        int type, rc = mpx_conn_frame(c, &type, rd);
        if (rc > 0 && type == want)
            return 0;
        if (rc != 0) {
            snprintf(err, errlen, "%s: %s", what,
                     rc < 0 ? c->why : "an unexpected message (not a Faro mpiexec?)");
            return -1;
        }
        long long left = until - mpx_now_ms();
        struct pollfd p = { .fd = c->fd, .events = POLLIN };
        if (left <= 0 || poll(&p, 1, (int)left) == 0) {
            snprintf(err, errlen, "%s: no answer within %d s", what, LAUNCH_CONNECT_MS / 1000);
            return -1;
        }
        if (mpx_conn_fill(c) < 0) {
            snprintf(err, errlen, "%s: %s", what, c->why);
            return -1;
        }
    }
}

/* Connect to every address at once; the first that answers wins. */
static int launch_connect_any(const struct mpx_job *job, const char *addrs, char *err,
                              size_t errlen)
{
    struct pollfd p[LAUNCH_MAX_ADDRS];
    char tried[1024] = "";
    int n = 0, winner = -1;
    struct sockaddr_in src = { .sin_family = AF_INET };
    if (job->tcp_if && *job->tcp_if) { /* leave through the interface FARO_TCP_IF names */
        struct faro_netif ifs[1];
        char reason[256], why[1024];
        if (faro_netif_choose(job->tcp_if, 1, NULL, ifs, 1, reason, sizeof reason, why,
                              sizeof why) < 0) {
            snprintf(err, errlen, "%s", why);
            return -1;
        }
        src.sin_addr = ifs[0].addr;
    }
    for (const char *a = addrs; *a && n < LAUNCH_MAX_ADDRS;) {
        size_t len = strcspn(a, ",");
        char one[64];
        snprintf(one, sizeof one, "%.*s", (int)(len < 63 ? len : 63), a);
        a += len + (a[len] == ',');
        char *colon = strrchr(one, ':');
        struct sockaddr_in sa = { .sin_family = AF_INET };
        if (!colon)
            continue;
        *colon = 0;
        if (inet_pton(AF_INET, one, &sa.sin_addr) != 1)
            continue;
        sa.sin_port = htons((uint16_t)atoi(colon + 1));
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        if (src.sin_addr.s_addr && bind(fd, (struct sockaddr *)&src, sizeof src) < 0) {
            close(fd);
            continue;
        }
        size_t u = strlen(tried);
        snprintf(tried + u, sizeof tried - u, "%s%s:%s", u ? ", " : "", one, colon + 1);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS) {
            u = strlen(tried);
            snprintf(tried + u, sizeof tried - u, " (%s)", strerror(errno));
            close(fd);
            continue;
        }
        p[n++] = (struct pollfd){ .fd = fd, .events = POLLOUT };
    }
    long long until = mpx_now_ms() + LAUNCH_CONNECT_MS;
    int open_n = n;
    while (winner < 0 && open_n > 0) {
        long long left = until - mpx_now_ms();
        if (left <= 0 || poll(p, (nfds_t)n, (int)left) <= 0)
            break;
        for (int i = 0; i < n && winner < 0; i++) {
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            int e = 0;
            socklen_t el = sizeof e;
            getsockopt(p[i].fd, SOL_SOCKET, SO_ERROR, &e, &el);
            if (e == 0) {
                winner = p[i].fd;
                p[i].fd = -1;
            } else {
                size_t u = strlen(tried);
                snprintf(tried + u, sizeof tried - u, "; one: %s", strerror(e));
                close(p[i].fd);
                p[i].fd = -1;
                open_n--;
            }
        }
    }
    for (int i = 0; i < n; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    if (winner < 0)
        snprintf(err, errlen, "cannot reach the parent at %s%s", tried[0] ? tried : addrs,
                 open_n > 0 ? " (no answer within 10 s)" : "");
    return winner;
}

int mpx_connect_parent(struct mpx_job *job, const char *addrs, uint32_t id, char *err,
                       size_t errlen)
{
    int fd = launch_connect_any(job, addrs, err, errlen);
    if (fd < 0)
        return -1;
    launch_nodelay(fd);
    struct sockaddr_in me;
    socklen_t ml = sizeof me;
    if (getsockname(fd, (struct sockaddr *)&me, &ml) == 0)
        faro_netif_of_addr(me.sin_addr, job->ctl_if, sizeof job->ctl_if);
    job->parent = calloc(1, sizeof *job->parent);
    if (!job->parent) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct mpx_conn *c = job->parent;
    mpx_conn_init(c, fd, MPX_FRAME_AUTH_MAX);
    long long until = mpx_now_ms() + LAUNCH_CONNECT_MS;
    struct mpx_rd rd;
    if (launch_wait(c, MPX_MSG_CHALLENGE, &rd, until, "the parent's challenge", err, errlen) < 0)
        return -1;
    const unsigned char *nonce_p = mpx_rd_bytes(&rd, 16);
    unsigned char nonce_c[16];
    if (!nonce_p || mpx_random(nonce_c, sizeof nonce_c) < 0) {
        snprintf(err, errlen, "a bad challenge from the parent, or no random bytes");
        return -1;
    }
    struct mpx_buf hello = { 0 };
    uint64_t mac = mpx_auth_mac(job->key, "child", nonce_p, id);
    mpx_buf_u32(&hello, id);
    mpx_buf_put(&hello, nonce_c, sizeof nonce_c);
    mpx_buf_u32(&hello, (uint32_t)(mac >> 32));
    mpx_buf_u32(&hello, (uint32_t)mac);
    int rc = mpx_conn_send(c, MPX_MSG_HELLO, hello.p, hello.len, NULL, 0);
    mpx_buf_free(&hello);
    if (rc < 0 ||
        launch_wait(c, MPX_MSG_WELCOME, &rd, until, "the parent's answer", err, errlen) < 0)
        return rc < 0 ? (snprintf(err, errlen, "%s", c->why), -1) : -1;
    uint64_t want = mpx_auth_mac(job->key, "parent", nonce_c, id);
    uint64_t got = (uint64_t)mpx_rd_u32(&rd) << 32;
    got |= mpx_rd_u32(&rd);
    if (rd.bad || got != want) {
        snprintf(err, errlen, "the process at the parent's address does not know the job key");
        return -1;
    }
    c->max_frame = MPX_FRAME_MAX;
    return fd;
}
