/*
 * TCP transport: connections. A lower rank's connect starts the pair's
 * connection and progress finishes it; the higher rank accepts it in progress,
 * and it must present the job's key before anything it carries reaches a
 * handler.
 * A lost connection becomes a peer failure, reported from progress.
 */
#include "config.h" /* _GNU_SOURCE: accept4 */

#include "tcp/tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/log.h"

const char *tcp_addr_str(const struct sockaddr_in *a, char *buf, size_t len)
{
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    snprintf(buf, len, "%s:%u", ip, ntohs(a->sin_port));
    return buf;
}

static int dup3_cloexec(int fd)
{
    return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

/* Start reading a socket: the reading side of a pair's connection, or a new
 * connection whose hello is still to come (peer -1). Takes fd. */
int tcp_in_open(faro_tp_t *tp, int fd, int peer, const struct sockaddr_in *from)
{
    struct tcp_in *in = fd >= 0 ? calloc(1, sizeof *in) : NULL;
    if (in)
        in->buf = malloc(TCP_RBUF_MIN);
    struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = in };
    if (!in || !in->buf || epoll_ctl(tp->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        faro_warn("tcp: cannot watch a connection: %s", strerror(errno ? errno : ENOMEM));
        if (in)
            free(in->buf);
        free(in);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    in->type = TCP_SOCK_IN;
    in->fd = fd;
    in->peer = peer;
    in->from = *from;
    in->cap = TCP_RBUF_MIN;
    in->next = tp->ins;
    tp->ins = in;
    if (peer >= 0)
        tp->peers[peer].in = in;
    return 0;
}

int tcp_connect(faro_tp_t *tp, int peer, const void *blob, size_t len)
{
    struct tcp_addr a;
    struct tcp_peer *p;
    int one = 1;

    if (peer < 0 || peer >= tp->env->size || len != sizeof a) {
        faro_error("tcp: connect to rank %d: bad rank or address blob of %zu bytes "
                   "(expected a rank in 0..%d and %zu bytes)", peer, len, tp->env->size - 1,
                   sizeof a);
        return FARO_TP_ERR;
    }
    memcpy(&a, blob, sizeof a);
    if (ntohs(a.version) != TCP_VERSION) {
        faro_error("tcp: rank %d speaks protocol version %u, this rank %u: mixed Faro builds",
                   peer, ntohs(a.version), TCP_VERSION);
        return FARO_TP_ERR;
    }
    p = &tp->peers[peer];
    if (p->out != TCP_OUT_NONE)
        return FARO_TP_OK;
    p->addr.sin_family = AF_INET;
    p->addr.sin_addr.s_addr = a.ip;
    p->addr.sin_port = a.port;
    if (peer < tp->env->rank) {
        p->out = TCP_OUT_AWAIT; /* the lower rank connects to us */
        return FARO_TP_OK;
    }
    p->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (p->fd < 0) {
        faro_error("tcp: cannot create a socket for rank %d: %s (raise `ulimit -n`?)", peer,
                   strerror(errno));
        return FARO_TP_ERR;
    }
    setsockopt(p->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (tcp_queue_hello(tp, p) < 0)
        return FARO_TP_ERR;
    p->out = TCP_OUT_CONNECTING;
    if (connect(p->fd, (struct sockaddr *)&p->addr, sizeof p->addr) == 0)
        p->out = TCP_OUT_UP;
    else if (errno != EINPROGRESS)
        tcp_peer_fail(tp, p, "cannot connect to", errno);
    /* The peer's replies come back on the same socket. */
    if (p->fail == TCP_FAIL_NONE && tcp_in_open(tp, dup3_cloexec(p->fd), peer, &p->addr) < 0)
        return FARO_TP_ERR;
    tcp_want_write(tp, p); /* the hello waits in the queue */
    return FARO_TP_OK;
}

/* Progress saw the outbound socket writable while connecting. */
int tcp_connected(faro_tp_t *tp, struct tcp_peer *p)
{
    int err = 0;
    socklen_t len = sizeof err;

    if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    if (err) {
        tcp_peer_fail(tp, p, "cannot connect to", err);
        return 0;
    }
    p->out = TCP_OUT_UP;
    return 1;
}

int tcp_disconnect(faro_tp_t *tp, int peer)
{
    struct tcp_frame bye = { .kind = TCP_KIND_BYE };
    struct tcp_peer *p;

    if (peer < 0 || peer >= tp->env->size)
        return FARO_TP_ERR;
    p = &tp->peers[peer];
    if (p->qhead && p->fail == TCP_FAIL_NONE)
        return FARO_TP_AGAIN; /* let progress write what is queued first */
    p->closed = 1;
    if (p->out == TCP_OUT_UP)
        (void)send(p->fd, &bye, sizeof bye, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (p->fd >= 0) {
        epoll_ctl(tp->epfd, EPOLL_CTL_DEL, p->fd, NULL); /* the socket may live on */
        close(p->fd);
        p->fd = -1;
    }
    p->out = TCP_OUT_CLOSED;
    p->events = 0;
    tcp_queue_fail(p, FARO_TP_ERR);
    if (p->in)
        tcp_in_close(tp, p->in);
    return FARO_TP_DONE;
}

void tcp_accept_all(faro_tp_t *tp)
{
    for (;;) {
        struct sockaddr_in from;
        socklen_t len = sizeof from;
        int fd = accept4(tp->listen.fd, (struct sockaddr *)&from, &len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                faro_warn("tcp: accept: %s", strerror(errno));
            return;
        }
        tcp_in_open(tp, fd, -1, &from);
    }
}

/* Check the hello at in->head. Returns 1 when the connection now belongs to a
 * peer, 0 when more bytes are needed, -1 when it was refused (and closed). */
int tcp_hello_check(faro_tp_t *tp, struct tcp_in *in)
{
    const faro_tp_env_t *env = tp->env;
    struct tcp_hello h;
    size_t avail = in->tail - in->head;
    char a[64];

    if (avail < sizeof h) {
        in->want = sizeof h;
        return 0;
    }
    memcpy(&h, in->buf + in->head, sizeof h);
    size_t keylen = ntohs(h.keylen);
    unsigned rank = ntohl(h.rank);
    if (ntohl(h.magic) != TCP_MAGIC || ntohs(h.version) != TCP_VERSION ||
        keylen > TCP_MAX_KEY) {
        faro_warn("tcp: closing connection from %s: it is not a Faro %u peer",
                  tcp_addr_str(&in->from, a, sizeof a), TCP_VERSION);
        goto refuse;
    }
    if (avail < sizeof h + keylen) {
        in->want = sizeof h + keylen;
        return 0;
    }
    /* Compare in constant time, so the time taken does not leak the key. */
    const uint8_t *key = in->buf + in->head + sizeof h;
    unsigned diff = keylen != env->job_key_len;
    for (size_t i = 0; i < keylen && i < env->job_key_len; i++)
        diff |= key[i] ^ env->job_key[i];
    if (diff) {
        faro_warn("tcp: closing connection from %s: it did not present this job's key "
                  "(a process of another job, or a stray client)",
                  tcp_addr_str(&in->from, a, sizeof a));
        goto refuse;
    }
    if (rank >= (unsigned)env->size || ntohl(h.size) != (uint32_t)env->size ||
        rank >= (unsigned)env->rank || tp->peers[rank].in) {
        faro_warn("tcp: closing connection from %s: it claims rank %u of %u, but this job "
                  "has %d ranks%s", tcp_addr_str(&in->from, a, sizeof a), rank, ntohl(h.size),
                  env->size, rank < (unsigned)env->size && tp->peers[rank].in ?
                  " and that rank is already connected" :
                  rank >= (unsigned)env->rank ? " and only lower ranks connect to this one" :
                  "");
        goto refuse;
    }
    struct tcp_peer *p = &tp->peers[rank];
    in->peer = (int)rank;
    p->in = in;
    in->head += sizeof h + keylen;
    in->want = 0;
    /* The pair's connection: our sends to that rank go out on it too. */
    int one = 1;
    setsockopt(in->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (p->out == TCP_OUT_AWAIT || p->out == TCP_OUT_NONE) {
        p->fd = dup3_cloexec(in->fd);
        if (p->fd < 0) {
            tcp_peer_fail(tp, p, "cannot use the connection of", errno);
            return 1;
        }
        p->out = TCP_OUT_UP;
        tcp_want_write(tp, p); /* what waited in the queue goes now */
    }
    faro_info(2, "tcp: rank %u connected from %s", rank, tcp_addr_str(&in->from, a, sizeof a));
    return 1;

refuse:
    tcp_in_close(tp, in);
    return -1;
}

/* A connection with p broke. If p is finalizing, its goodbye was written to
 * its own connection to us before it closed anything, so it is in our kernel
 * already, maybe in a connection not yet accepted. Read it in before judging.
 * Returns 1 when p's close is orderly. Cold path: only on a broken socket. */
static int tcp_settle(faro_tp_t *tp, struct tcp_peer *p)
{
    if (!p->bye && !p->closed && !tp->finalizing) {
        tcp_accept_all(tp);
        for (struct tcp_in *in = tp->ins; in; in = in->next)
            if (!in->dead && (in->peer < 0 || in->peer == p->rank))
                tcp_read(tp, in);
    }
    return p->bye || p->closed || tp->finalizing;
}

/* The pair's socket reported the peer's end of file or an error: its close,
 * orderly if it said goodbye. */
void tcp_out_event(faro_tp_t *tp, struct tcp_peer *p, uint32_t ev)
{
    int err = 0;
    socklen_t len = sizeof err;

    if (p->bye || p->closed || tp->finalizing) {
        epoll_ctl(tp->epfd, EPOLL_CTL_DEL, p->fd, NULL);
        p->events = 0;
        return;
    }
    if (ev & EPOLLERR)
        getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    tcp_peer_fail(tp, p, "lost connection to", err);
}

/* Record a failure; progress reports it once its current poll is done.
 * err 0 means the peer closed without saying goodbye. */
void tcp_peer_fail(faro_tp_t *tp, struct tcp_peer *p, const char *what, int err)
{
    char a[64];

    if (p->fail != TCP_FAIL_NONE || p->closed)
        return;
    p->out = TCP_OUT_CLOSED; /* nothing more is written to it */
    if (tp->finalizing)
        return;
    p->fail = TCP_FAIL_PENDING;
    tp->nfail++;
    if (p->bye) { /* a finalizing peer: nothing more reaches it, and that is no failure */
        p->why[0] = 0;
        return;
    }
    /* Name the peer's listening address, or where it came from if we never connected. */
    const struct sockaddr_in *sa = p->addr.sin_family || !p->in ? &p->addr : &p->in->from;
    snprintf(p->why, sizeof p->why, "%s rank %d (%s): %s", what, p->rank,
             tcp_addr_str(sa, a, sizeof a),
             err ? strerror(err) : "the peer closed the connection (did the process end?)");
}

/* Close what a failed peer used, fail its queued sends and tell the core. */
int tcp_report_failures(faro_tp_t *tp)
{
    int n = 0;

    for (int r = 0; r < tp->env->size && tp->nfail > 0; r++) {
        struct tcp_peer *p = &tp->peers[r];
        if (p->fail != TCP_FAIL_PENDING)
            continue;
        if (tcp_settle(tp, p))
            p->why[0] = 0; /* it said goodbye after all */
        p->fail = TCP_FAIL_REPORTED;
        tp->nfail--;
        if (p->fd >= 0) {
            epoll_ctl(tp->epfd, EPOLL_CTL_DEL, p->fd, NULL); /* the socket may live on */
            close(p->fd);
        }
        p->fd = -1;
        p->events = 0;
        p->out = TCP_OUT_CLOSED;
        if (p->in)
            tcp_in_close(tp, p->in);
        tcp_queue_fail(p, FARO_TP_ERR);
        if (!p->why[0])
            continue; /* it had said goodbye */
        faro_info(1, "tcp: %s", p->why);
        tp->env->peer_failed(tp->env->core, r, p->why);
        n++;
    }
    return n;
}
