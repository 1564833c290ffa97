/*
 * TCP transport: connections (see tcp.h for the handshake). connect starts an
 * attempt and progress finishes it; an acceptor reads the hello, checks the
 * key, settles collisions between two ranks that connected to each other at
 * once, and answers with a verdict before anything the connection carries
 * reaches a handler. A lost connection becomes an endpoint failure, reported
 * from progress.
 */
#include "config.h" /* _GNU_SOURCE: accept4 */

#include "tcp/tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"

#define TCP_ACCEPT_PAUSE_S 0.1 /* out of descriptors: try accepting again after this */
#define TCP_WARN_EVERY_S 10.0  /* at most one refusal warning per this many seconds */

double tcp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *tcp_addr_str(const struct sockaddr_in *a, char *buf, size_t len)
{
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    snprintf(buf, len, "%s:%u", ip, ntohs(a->sin_port));
    return buf;
}

/* "rank 3 (10.0.0.2:4711)" or "port 1 client 42 (10.0.0.2:4711)", for messages. */
const char *tcp_ep_name(const struct faro_tp_ep *p, char *buf, size_t len)
{
    char a[64];
    const struct sockaddr_in *sa = p->addr.sin_family || !p->in ? &p->addr : &p->in->from;
    if (p->rank >= 0)
        snprintf(buf, len, "rank %d (%s)", p->rank, tcp_addr_str(sa, a, sizeof a));
    else
        snprintf(buf, len, "port %u client %llu (%s)", p->port, (unsigned long long)p->id,
                 tcp_addr_str(sa, a, sizeof a));
    return buf;
}

static int dup_cloexec(int fd)
{
    return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

/* Refusals are what a port scanner or a stray client causes: say so, but not
 * thousands of times. */
void tcp_refused(faro_tp_t *tp, const struct sockaddr_in *from, const char *why)
{
    char a[64];
    double now = tcp_now();
    tp->refused++;
    if (now - tp->warned_at < TCP_WARN_EVERY_S)
        return;
    tp->warned_at = now;
    faro_warn("tcp: closed a connection from %s: %s%s", tcp_addr_str(from, a, sizeof a), why,
              tp->refused > 1 ? " (and others since the last warning)" : "");
}

/* Start reading a socket: the reading side of a connection whose endpoint is
 * known (our own attempt: p set, its verdict still to come), or a new
 * connection whose hello is still to come (p NULL). Takes fd. */
int tcp_in_open(faro_tp_t *tp, int fd, struct faro_tp_ep *p, const struct sockaddr_in *from)
{
    struct tcp_in *in = fd >= 0 ? calloc(1, sizeof *in) : NULL;
    size_t cap = p ? TCP_RBUF_MIN : TCP_PREAUTH_BUF;
    if (in)
        in->buf = malloc(cap);
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
    in->ep = p;
    in->verdict = p != NULL;
    in->from = *from;
    in->cap = cap;
    in->next = tp->ins;
    tp->ins = in;
    if (p) {
        p->in = in;
    } else {
        in->deadline = tcp_now() + tp->auth_timeout;
        if (++tp->npreauth > TCP_MAX_PREAUTH)
            tcp_preauth_expire(tp);
    }
    return 0;
}

static struct faro_tp_ep *tcp_ep_new(faro_tp_t *tp, int rank)
{
    struct faro_tp_ep *p = calloc(1, sizeof *p);
    if (!p) {
        faro_error("tcp: out of memory for an endpoint");
        return NULL;
    }
    p->type = TCP_SOCK_OUT;
    p->rank = rank;
    p->fd = -1;
    p->qtail = &p->qhead;
    p->next = tp->eps;
    tp->eps = p;
    if (rank >= 0)
        tp->job[rank] = p;
    return p;
}

/* Open a socket to p->addr and queue the hello; data waits for the verdict. */
static int tcp_attempt(faro_tp_t *tp, struct faro_tp_ep *p)
{
    const faro_tp_env_t *env = tp->env;
    int one = 1;
    const uint8_t *key = p->rank >= 0 ? env->job_key : p->key;
    size_t keylen = p->rank >= 0 ? env->job_key_len : p->keylen;
    struct tcp_hello h = { .magic = htonl(TCP_MAGIC), .size = htonl((uint32_t)env->size),
                           .id = htobe64(p->rank >= 0 ? (uint64_t)env->rank : p->id),
                           .version = htons(TCP_VERSION), .keylen = htons((uint16_t)keylen),
                           .flags = htons(p->rank >= 0 ? 0 : TCP_HELLO_PORT) };
    uint8_t bytes[sizeof h + TCP_MAX_KEY];

    p->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (p->fd < 0) {
        char n[128];
        faro_error("tcp: cannot create a socket for %s: %s (raise `ulimit -n`?)",
                   tcp_ep_name(p, n, sizeof n), strerror(errno));
        return FARO_TP_ERR;
    }
    setsockopt(p->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    memcpy(bytes, &h, sizeof h);
    memcpy(bytes + sizeof h, key, keylen);
    if (tcp_queue_ctl(p, bytes, sizeof h + keylen) < 0)
        return FARO_TP_ERR;
    p->out = TCP_OUT_CONNECTING;
    if (connect(p->fd, (struct sockaddr *)&p->addr, sizeof p->addr) == 0)
        p->out = TCP_OUT_HELLO;
    else if (errno != EINPROGRESS)
        tcp_peer_fail(tp, p, "cannot connect to", errno);
    /* The verdict, then the peer's frames, come back on the same socket. */
    if (p->fail == TCP_FAIL_NONE && tcp_in_open(tp, dup_cloexec(p->fd), p, &p->addr) < 0)
        return FARO_TP_ERR;
    tcp_want_write(tp, p); /* the hello waits in the queue */
    return FARO_TP_OK;
}

/* A typed address, "HOST:PORT" (a port connection's: a server's), as the
 * blob a listener's addr_get would give. A host name is resolved here, which
 * may wait for the resolver: the one place where connect can block, and only
 * for addresses a user typed. */
static int tcp_addr_typed(const char *text, size_t len, struct tcp_addr *a)
{
    char buf[300], *colon;
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
    char *end;

    if (len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (!(colon = strrchr(buf, ':')) || colon == buf)
        return -1;
    *colon = '\0';
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (!colon[1] || *end || port == 0 || port > 65535)
        return -1;
    if (getaddrinfo(buf, NULL, &hints, &res) != 0)
        return -1;
    memset(a, 0, sizeof *a);
    a->ip = ((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr;
    a->port = htons((uint16_t)port);
    a->version = htons(TCP_VERSION);
    a->rank = (int32_t)htonl(0xffffffffu);
    freeaddrinfo(res);
    return 0;
}

int tcp_connect(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **out)
{
    struct tcp_addr a;
    const faro_tp_env_t *env = tp->env;

    /* A blob never holds text: its version field has a zero byte. */
    if (conn->key && conn->addrlen && !memchr(conn->addr, 0, conn->addrlen)) {
        if (tcp_addr_typed(conn->addr, conn->addrlen, &a) < 0) {
            faro_error("tcp: connect: cannot use address \"%.*s\" (expected HOST:PORT, "
                       "HOST a name or IPv4 address of a reachable host, PORT 1..65535)",
                       (int)(conn->addrlen > 200 ? 200 : conn->addrlen),
                       (const char *)conn->addr);
            return FARO_TP_ERR;
        }
    } else if (conn->addrlen != sizeof a) {
        faro_error("tcp: connect: address blob of %zu bytes (expected %zu: is the peer "
                   "running another Faro build?)", conn->addrlen, sizeof a);
        return FARO_TP_ERR;
    } else {
        memcpy(&a, conn->addr, sizeof a);
    }
    int rank = (int)ntohl((uint32_t)a.rank);
    if (ntohs(a.version) != TCP_VERSION) {
        faro_error("tcp: the peer speaks protocol version %u, this process %u: mixed Faro "
                   "builds", ntohs(a.version), TCP_VERSION);
        return FARO_TP_ERR;
    }
    if (conn->key && (conn->keylen == 0 || conn->keylen > TCP_MAX_KEY)) {
        faro_error("tcp: connect: a port key of %zu bytes (allowed: 1..%d)", conn->keylen,
                   TCP_MAX_KEY);
        return FARO_TP_ERR;
    }
    struct faro_tp_ep *p;
    if (!conn->key) { /* a rank of this job: one endpoint per rank */
        if (rank < 0 || rank >= env->size || rank == env->rank) {
            faro_error("tcp: connect: the address is of rank %d, not another rank of this "
                       "job (0..%d, this is %d)", rank, env->size - 1, env->rank);
            return FARO_TP_ERR;
        }
        p = tp->job[rank];
        if (p) { /* connected, accepted, or waiting for its connection */
            if (!p->ctx)
                p->ctx = conn->ctx;
            *out = p;
            return FARO_TP_OK;
        }
        if (!(p = tcp_ep_new(tp, rank)))
            return FARO_TP_ERR;
    } else {
        if (!(p = tcp_ep_new(tp, -1)))
            return FARO_TP_ERR;
        memcpy(p->key, conn->key, conn->keylen);
        p->keylen = conn->keylen;
        p->id = conn->id;
    }
    p->ctx = conn->ctx;
    p->addr.sin_family = AF_INET;
    p->addr.sin_addr.s_addr = a.ip;
    p->addr.sin_port = a.port;
    *out = p;
    return tcp_attempt(tp, p);
}

int tcp_listen(faro_tp_t *tp, const uint8_t *key, size_t keylen, unsigned *port)
{
    return faro_tp_ports_open(&tp->ports, "tcp", key, keylen, port);
}

int tcp_unlisten(faro_tp_t *tp, unsigned port)
{
    return faro_tp_ports_close(&tp->ports, port);
}

/* Progress saw the outbound socket writable while connecting. */
int tcp_connected(faro_tp_t *tp, struct faro_tp_ep *p)
{
    int err = 0;
    socklen_t len = sizeof err;

    if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    if (err) {
        tcp_peer_fail(tp, p, "cannot connect to", err);
        return 0;
    }
    p->out = TCP_OUT_HELLO;
    return 1;
}

/* Forget p's socket: its epoll registration, the descriptor and its reading side. */
static void tcp_ep_close_socket(faro_tp_t *tp, struct faro_tp_ep *p)
{
    if (p->fd >= 0) {
        epoll_ctl(tp->epfd, EPOLL_CTL_DEL, p->fd, NULL); /* the socket may live on */
        close(p->fd);
        p->closed_in_poll = tp->polls;
    }
    p->fd = -1;
    p->events = 0;
    if (p->in)
        tcp_in_close(tp, p->in);
}

/* Our attempt lost (a collision, or the other side's connection came first):
 * drop its socket and its unsent control bytes; queued data stays. */
static void tcp_attempt_drop(faro_tp_t *tp, struct faro_tp_ep *p)
{
    tcp_ep_close_socket(tp, p);
    for (struct tcp_sq **pp = &p->qhead; *pp;) {
        struct tcp_sq *e = *pp;
        if (!e->ctl) {
            pp = &e->next;
            continue;
        }
        *pp = e->next;
        free(e);
    }
    p->qtail = &p->qhead;
    while (*p->qtail)
        p->qtail = &(*p->qtail)->next;
    p->out = TCP_OUT_NONE;
}

int tcp_disconnect(faro_tp_t *tp, struct faro_tp_ep *p)
{
    struct tcp_frame bye = { .kind = TCP_KIND_BYE };

    if (p->qhead && p->fail == TCP_FAIL_NONE)
        return FARO_TP_AGAIN; /* let progress write what is queued first */
    p->closed = 1;
    if (p->out == TCP_OUT_UP)
        (void)send(p->fd, &bye, sizeof bye, MSG_NOSIGNAL | MSG_DONTWAIT);
    tcp_ep_close_socket(tp, p);
    p->out = TCP_OUT_CLOSED;
    tcp_queue_fail(p, FARO_TP_ERR);
    return FARO_TP_DONE;
}

void tcp_accept_all(faro_tp_t *tp)
{
    if (tp->listen.fd < 0)
        return;
    if (tp->accept_paused_until && tcp_now() < tp->accept_paused_until)
        return;
    tp->accept_paused_until = 0;
    for (;;) {
        struct sockaddr_in from;
        socklen_t len = sizeof from;
        int fd = accept4(tp->listen.fd, (struct sockaddr *)&from, &len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* Out of descriptors: drop the connections that have not
                 * authenticated and try again later; the job goes on. */
                tcp_preauth_expire(tp);
                tp->accept_paused_until = tcp_now() + TCP_ACCEPT_PAUSE_S;
                faro_info(1, "tcp: accept: %s; pausing new connections for %.1f s",
                          strerror(errno), TCP_ACCEPT_PAUSE_S);
            } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
                faro_warn("tcp: accept: %s", strerror(errno));
            }
            return;
        }
        tcp_in_open(tp, fd, NULL, &from);
    }
}

/* Answer a hello on the connection being read by in (before it has an
 * endpoint that could queue it): the verdict is the first thing written on a
 * fresh socket, so the kernel takes it whole. */
static int tcp_send_verdict(struct tcp_in *in, enum tcp_verdict v)
{
    struct tcp_frame f = { .len = htonl((uint32_t)v), .kind = TCP_KIND_VERDICT };
    return send(in->fd, &f, sizeof f, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof f ? 0 : -1;
}

/* The connection in authenticated as p's: it becomes the pair's connection. */
static int tcp_adopt(faro_tp_t *tp, struct tcp_in *in, struct faro_tp_ep *p)
{
    int one = 1;
    if (p->out == TCP_OUT_CONNECTING || p->out == TCP_OUT_HELLO)
        tcp_attempt_drop(tp, p); /* ours lost: nothing was written on it but the hello */
    if (tcp_send_verdict(in, TCP_ACCEPT) < 0 || (p->fd = dup_cloexec(in->fd)) < 0) {
        tcp_peer_fail(tp, p, "cannot answer", errno);
        return -1;
    }
    in->ep = p;
    p->in = in;
    setsockopt(in->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!p->addr.sin_family)
        p->addr = in->from;
    p->out = TCP_OUT_UP;
    tcp_want_write(tp, p); /* what waited in the queue goes now */
    return 0;
}

/* Check the hello at in->head. Returns 1 when the connection now belongs to an
 * endpoint, 0 when more bytes are needed, -1 when it was closed. */
int tcp_hello_check(faro_tp_t *tp, struct tcp_in *in)
{
    const faro_tp_env_t *env = tp->env;
    struct tcp_hello h;
    size_t avail = in->tail - in->head;
    char why[160], n[128];

    if (avail < sizeof h) {
        in->want = sizeof h;
        return 0;
    }
    memcpy(&h, in->buf + in->head, sizeof h);
    size_t keylen = ntohs(h.keylen);
    if (ntohl(h.magic) != TCP_MAGIC || ntohs(h.version) != TCP_VERSION ||
        keylen > TCP_MAX_KEY) {
        snprintf(why, sizeof why, "it is not a Faro peer of protocol version %u", TCP_VERSION);
        goto refuse;
    }
    if (avail < sizeof h + keylen) {
        in->want = sizeof h + keylen;
        return 0;
    }
    const uint8_t *key = in->buf + in->head + sizeof h;
    uint64_t id = be64toh(h.id);
    unsigned port = 0;
    if (ntohs(h.flags) & TCP_HELLO_PORT) {
        if (!(port = faro_tp_ports_match(&tp->ports, key, keylen))) {
            snprintf(why, sizeof why, "it did not present the key of an open port");
            goto refuse;
        }
    } else if (!faro_tp_key_equal(key, keylen, env->job_key, env->job_key_len)) {
        snprintf(why, sizeof why, "it did not present this job's key (a process of another "
                 "job, or a stray client)");
        goto refuse;
    } else if (id >= (uint64_t)env->size || id == (uint64_t)env->rank ||
               ntohl(h.size) != (uint32_t)env->size) {
        snprintf(why, sizeof why, "it claims rank %llu of %u, but this job has %d ranks and "
                 "this is rank %d", (unsigned long long)id, ntohl(h.size), env->size,
                 env->rank);
        goto refuse;
    }
    in->head += sizeof h + keylen;
    in->want = 0;
    tp->npreauth--;
    in->deadline = 0;

    if (port) { /* a client of a port: a new endpoint, if the owner takes it */
        struct faro_tp_ep *p = tcp_ep_new(tp, -1);
        if (!p)
            goto drop;
        p->port = port;
        p->id = id;
        p->addr = in->from;
        p->ctx = env->accepted ? env->accepted(env->core, p, id, port) : NULL;
        if (!p->ctx) {
            tcp_send_verdict(in, TCP_REFUSED);
            p->closed = 1;
            p->out = TCP_OUT_CLOSED;
            goto drop;
        }
        if (tcp_adopt(tp, in, p) < 0)
            return -1;
        faro_info(2, "tcp: %s connected", tcp_ep_name(p, n, sizeof n));
        return 1;
    }

    int rank = (int)id;
    struct faro_tp_ep *p = tp->job[rank];
    if (!p && !(p = tcp_ep_new(tp, rank)))
        goto drop;
    if (p->out == TCP_OUT_UP || p->out == TCP_OUT_CLOSED || p->fail != TCP_FAIL_NONE ||
        ((p->out == TCP_OUT_CONNECTING || p->out == TCP_OUT_HELLO) && env->rank < rank)) {
        /* Ours stands (or this is a stale attempt the other side dropped). */
        tcp_send_verdict(in, TCP_COLLISION);
        faro_info(2, "tcp: rank %d connected while our own connection to it stands: closed "
                  "its duplicate", rank);
        goto drop;
    }
    if (!p->ctx && env->accepted && !(p->ctx = env->accepted(env->core, p, id, 0))) {
        tcp_send_verdict(in, TCP_REFUSED);
        goto drop;
    }
    if (tcp_adopt(tp, in, p) < 0)
        return -1;
    faro_info(2, "tcp: %s connected", tcp_ep_name(p, n, sizeof n));
    return 1;

refuse:
    tcp_refused(tp, &in->from, why);
    tcp_send_verdict(in, TCP_REFUSED);
    tcp_in_close(tp, in);
    return -1;
drop:
    tcp_in_close(tp, in);
    return -1;
}

/* The verdict on our own attempt, at in->head. Returns 1 when the connection
 * is up, 0 when more bytes are needed, -1 when the attempt ended. */
int tcp_verdict_check(faro_tp_t *tp, struct tcp_in *in)
{
    struct faro_tp_ep *p = in->ep;
    struct tcp_frame f;
    char n[128];

    if (in->tail - in->head < sizeof f) {
        in->want = sizeof f;
        return 0;
    }
    memcpy(&f, in->buf + in->head, sizeof f);
    in->head += sizeof f;
    in->want = 0;
    unsigned v = f.kind == TCP_KIND_VERDICT ? ntohl(f.len) : 0;
    if (v == TCP_ACCEPT) {
        in->verdict = 0;
        p->out = TCP_OUT_UP;
        tcp_want_write(tp, p);
        faro_info(2, "tcp: connected to %s", tcp_ep_name(p, n, sizeof n));
        return 1;
    }
    if (v == TCP_COLLISION && p->rank >= 0) {
        faro_info(2, "tcp: rank %d connects to us too and its connection stands: waiting for "
                  "it", p->rank);
        tcp_attempt_drop(tp, p);
        return -1;
    }
    tcp_peer_fail(tp, p, v == TCP_REFUSED ? "was refused by" : "got no valid answer from",
                  v == TCP_REFUSED ? EACCES : EPROTO);
    tcp_in_close(tp, in);
    return -1;
}

/* A connection with p broke. If p is closing, its goodbye was written to the
 * pair's connection before it closed anything, so it is in our kernel
 * already: read it in before judging. Returns 1 when p's close is orderly.
 * Cold path: only on a broken socket. */
static int tcp_settle(faro_tp_t *tp, struct faro_tp_ep *p)
{
    if (!p->bye && !p->closed && !tp->finalizing && p->in && !p->in->dead)
        tcp_read(tp, p->in);
    return p->bye || p->closed || tp->finalizing;
}

/* The pair's socket reported the peer's end of file or an error: its close,
 * orderly if it said goodbye. */
void tcp_out_event(faro_tp_t *tp, struct faro_tp_ep *p, uint32_t ev)
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
void tcp_peer_fail(faro_tp_t *tp, struct faro_tp_ep *p, const char *what, int err)
{
    char n[128];

    if (p->fail != TCP_FAIL_NONE || p->closed)
        return;
    p->out = TCP_OUT_CLOSED; /* nothing more is written to it */
    if (tp->finalizing)
        return;
    p->fail = TCP_FAIL_PENDING; /* reported from progress, orderly after a goodbye */
    tp->nfail++;
    if (p->bye) { /* a closing peer: nothing more reaches it, and that is no failure */
        p->why[0] = 0;
        return;
    }
    snprintf(p->why, sizeof p->why, "%s %s: %s", what, tcp_ep_name(p, n, sizeof n),
             err == EACCES ? "it refused this process's key"
             : err         ? strerror(err)
                           : "the peer closed the connection (did the process end?)");
}

/* Close what a failed endpoint used, fail its queued sends and tell the owner. */
int tcp_report_failures(faro_tp_t *tp)
{
    const faro_tp_env_t *env = tp->env;
    int n = 0;

    for (struct faro_tp_ep *p = tp->eps; p && tp->nfail > 0; p = p->next) {
        if (p->fail != TCP_FAIL_PENDING)
            continue;
        int orderly = tcp_settle(tp, p);
        p->fail = TCP_FAIL_REPORTED;
        tp->nfail--;
        tcp_ep_close_socket(tp, p);
        p->out = TCP_OUT_CLOSED;
        tcp_queue_fail(p, FARO_TP_ERR);
        if (!orderly)
            faro_info(1, "tcp: %s", p->why);
        if (!p->ctx && env->accepted && p->rank >= 0)
            p->ctx = env->accepted(env->core, p, (uint64_t)p->rank, 0);
        if (env->ep_lost && p->ctx)
            env->ep_lost(env->core, p->ctx, orderly, orderly ? NULL : p->why);
        n++;
    }
    return n;
}
