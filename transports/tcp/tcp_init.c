/*
 * TCP transport: interface choice, listening socket, attributes, finalize and
 * the ops table.
 */
#include "config.h"

#include "tcp/tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/netif.h"
#include "base/tunables.h"

/* The address to listen on (base/netif.h has the rules); on failure `why`
 * lists what exists. The launcher's hint names the interface its own
 * connection from this host used. */
static int tcp_pick_if(faro_tp_t *tp, const char *spec, int multi_host, char *why, size_t whylen)
{
    struct faro_netif ifs[FARO_NETIF_MAX];
    char reason[256], a[64];
    int n = faro_netif_choose(spec, multi_host, getenv("FARO_INTERNAL_CONTROL_IF"), ifs,
                              FARO_NETIF_MAX, reason, sizeof reason, why, whylen);
    if (n < 0)
        return -1;
    memset(&tp->self, 0, sizeof tp->self);
    tp->self.sin_family = AF_INET;
    tp->self.sin_addr = ifs[0].addr;
    snprintf(tp->ifname, sizeof tp->ifname, "%s", ifs[0].name);
    faro_info(1, "tcp: interface %s %s: %s", ifs[0].name,
              faro_netif_str(ifs[0].addr, ifs[0].prefix, a, sizeof a), reason);
    return 0;
}

static int tcp_listen_on(faro_tp_t *tp, char *why, size_t whylen)
{
    char a[64];
    socklen_t alen = sizeof tp->self;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        snprintf(why, whylen, "cannot create a TCP socket: %s", strerror(errno));
        return -1;
    }
    /* Ranks take a free port; a server may name its own (FARO_TCP_PORT). */
    int one = 1, port = (int)faro_tun_int(FARO_TUN_TCP_PORT);
    tp->self.sin_port = htons((uint16_t)port);
    if (port)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&tp->self, sizeof tp->self) < 0 ||
        listen(fd, SOMAXCONN) < 0 ||
        getsockname(fd, (struct sockaddr *)&tp->self, &alen) < 0) {
        snprintf(why, whylen, "cannot listen on %s (%s): %s",
                 tcp_addr_str(&tp->self, a, sizeof a), tp->ifname, strerror(errno));
        close(fd);
        return -1;
    }
    tp->listen.type = TCP_SOCK_LISTEN;
    tp->listen.fd = fd;
    return 0;
}

static int tcp_finalize(faro_tp_t *tp);

static int tcp_init(faro_tp_t **out, const faro_tp_env_t *env, faro_tp_attr_t *attr, char *why,
                    size_t whylen)
{
    faro_tp_t *tp = calloc(1, sizeof *tp);
    char a[64];

    *out = NULL;
    /* Endpoints of job ranks are made at first use; only the table is here. */
    if (!tp || !(tp->job = calloc((size_t)env->size, sizeof *tp->job))) {
        free(tp);
        snprintf(why, whylen, "out of memory for %d ranks", env->size);
        return FARO_TP_ERR;
    }
    tp->env = env;
    tp->listen.fd = tp->epfd = -1;
    tp->auth_timeout = (double)faro_tun_int(FARO_TUN_TCP_AUTH_TIMEOUT);
    tp->qmax = (size_t)faro_tun_int(FARO_TUN_TCP_SEND_QUEUE);
    if (env->job_key_len > TCP_MAX_KEY) {
        snprintf(why, whylen, "job key of %zu bytes is longer than %d", env->job_key_len,
                 TCP_MAX_KEY);
        goto unavailable;
    }
    /* A job that lives on one node talks over loopback unless told otherwise:
     * it never needs a routable address, and loopback is the fastest path. */
    int one_node = 1;
    for (int r = 0; r < env->size; r++)
        if (env->node_of[r] != env->node_of[env->rank])
            one_node = 0;
    if (tcp_pick_if(tp, faro_tun_str(FARO_TUN_TCP_IF), !one_node, why, whylen) < 0 ||
        tcp_listen_on(tp, why, whylen) < 0)
        goto unavailable;
    tp->epfd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &tp->listen };
    if (tp->epfd < 0 || epoll_ctl(tp->epfd, EPOLL_CTL_ADD, tp->listen.fd, &ev) < 0) {
        snprintf(why, whylen, "epoll: %s", strerror(errno));
        goto unavailable;
    }

    memset(attr, 0, sizeof *attr);
    attr->caps = FARO_TP_CAP_PORTS;
    attr->max_inline = TCP_MAX_INLINE;
    attr->max_send = TCP_MAX_SEND;
    attr->eager_limit = (size_t)faro_tun_int(FARO_TUN_TCP_EAGER_LIMIT);
    attr->eager_limit_user = faro_tun_isset(FARO_TUN_TCP_EAGER_LIMIT);
    attr->frag_size = (size_t)faro_tun_int(FARO_TUN_TCP_FRAG_SIZE);
    if (attr->frag_size > attr->max_send)
        attr->frag_size = attr->max_send;
    attr->latency_us = 10.0;      /* loopback ping-pong half round trip, measured */
    attr->bandwidth_mbs = 3000.0; /* loopback, 1 MiB messages, measured */
    faro_info(2, "tcp: listening on %s (%s)", tcp_addr_str(&tp->self, a, sizeof a), tp->ifname);
    /* The note says where, for a server to print (faro-gpud) and faro_info. */
    snprintf(why, whylen, "listening on %s (%s)", tcp_addr_str(&tp->self, a, sizeof a),
             tp->ifname);
    *out = tp;
    return FARO_TP_OK;

unavailable:
    tcp_finalize(tp);
    return FARO_TP_UNAVAILABLE;
}

static int tcp_addr_get(faro_tp_t *tp, void *blob, size_t *len)
{
    struct tcp_addr a = { .ip = tp->self.sin_addr.s_addr, .port = tp->self.sin_port,
                          .version = htons(TCP_VERSION),
                          .rank = (int32_t)htonl((uint32_t)tp->env->rank) };
    if (*len < sizeof a)
        return FARO_TP_ERR;
    memcpy(blob, &a, sizeof a);
    *len = sizeof a;
    return FARO_TP_OK;
}

static int tcp_wireup_done(faro_tp_t *tp)
{
    return FARO_TP_OK; /* nothing published outside the process */
}

static int tcp_set_handler(faro_tp_t *tp, unsigned kind, faro_tp_handler_fn fn)
{
    if (kind >= FARO_TP_MAX_KINDS)
        return FARO_TP_ERR;
    tp->handlers[kind] = fn;
    return FARO_TP_OK;
}

/* Write what is still queued (the core flushed before finalize, so this is
 * only for sends made since, such as a disconnect's); bounded for peers that
 * cannot be reached. Peers' kernels take these bytes even when the peers no
 * longer poll. */
static void tcp_drain(faro_tp_t *tp)
{
    double end = tcp_now() + TCP_DRAIN_S;

    for (;;) {
        struct pollfd pf[64];
        struct faro_tp_ep *pp[64];
        nfds_t n = 0;
        for (struct faro_tp_ep *p = tp->eps; p && n < 64; p = p->next)
            if (p->fd >= 0 && p->fail == TCP_FAIL_NONE && p->out == TCP_OUT_UP && p->qhead) {
                pf[n] = (struct pollfd){ .fd = p->fd, .events = POLLOUT };
                pp[n++] = p;
            }
        double now = tcp_now();
        if (!n || now >= end || poll(pf, n, (int)((end - now) * 1000) + 1) <= 0)
            return;
        for (nfds_t i = 0; i < n; i++)
            if (pf[i].revents)
                tcp_flush(tp, pp[i]);
    }
}

/* Bytes still queued for an endpoint (or any) have not left this process:
 * send_inline copies into the queue and says done, so the owner asks here. */
static int tcp_flush_op(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    for (struct faro_tp_ep *p = ep ? ep : tp->eps; p; p = ep ? NULL : p->next)
        if (p->qhead && p->fail == TCP_FAIL_NONE && !p->closed)
            return FARO_TP_AGAIN;
    return FARO_TP_DONE;
}

/* The epoll set: readable while any socket has input, a finished connect or
 * room for queued bytes (level-triggered), which is what progress handles. */
static int tcp_wait_fd(faro_tp_t *tp, int *fd)
{
    *fd = tp->epfd;
    return FARO_TP_OK;
}

/* Say goodbye on every connection first, then close: a peer that still polls
 * then reads the goodbye before it sees any end of file. */
static int tcp_finalize(faro_tp_t *tp)
{
    struct tcp_frame bye = { .kind = TCP_KIND_BYE };

    if (!tp)
        return FARO_TP_OK;
    tp->finalizing = 1;
    tcp_drain(tp);
    for (struct faro_tp_ep *p = tp->eps; p; p = p->next)
        if (p->out == TCP_OUT_UP && !p->qhead)
            (void)send(p->fd, &bye, sizeof bye, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (tp->eps) {
        struct faro_tp_ep *p = tp->eps;
        tp->eps = p->next;
        if (p->fd >= 0)
            close(p->fd);
        while (p->qhead) {
            struct tcp_sq *e = p->qhead;
            p->qhead = e->next;
            free(e);
        }
        free(p);
    }
    while (tp->ins) {
        struct tcp_in *in = tp->ins;
        tp->ins = in->next;
        if (in->fd >= 0) {
            /* Unread bytes would make close() reset the connection, and a
             * reset can destroy a goodbye the peer has not read yet. */
            char sink[4096];
            while (recv(in->fd, sink, sizeof sink, MSG_DONTWAIT) > 0)
                ;
            close(in->fd);
        }
        free(in->buf);
        free(in);
    }
    if (tp->listen.fd >= 0)
        close(tp->listen.fd);
    if (tp->epfd >= 0)
        close(tp->epfd);
    free(tp->job);
    free(tp);
    return FARO_TP_OK;
}

const faro_tp_ops_t faro_tp_tcp_ops = {
    .name = "tcp",
    .init = tcp_init,
    .finalize = tcp_finalize,
    .addr_get = tcp_addr_get,
    .connect = tcp_connect,
    .wireup_done = tcp_wireup_done,
    .listen = tcp_listen,
    .unlisten = tcp_unlisten,
    .disconnect = tcp_disconnect,
    .set_handler = tcp_set_handler,
    .send_inline = tcp_send_inline,
    .isend = tcp_isend,
    .mem_reg = faro_tp_unsupported_mem_reg,
    .mem_dereg = faro_tp_unsupported_mem_dereg,
    .rkey_pack = faro_tp_unsupported_rkey_pack,
    .rkey_unpack = faro_tp_unsupported_rkey_unpack,
    .rkey_release = faro_tp_unsupported_rkey_release,
    .get = faro_tp_unsupported_get,
    .put = faro_tp_unsupported_put,
    .flush = tcp_flush_op,
    .progress = tcp_progress,
    .wait_fd = tcp_wait_fd,
};
