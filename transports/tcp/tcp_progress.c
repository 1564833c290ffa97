/*
 * TCP transport: progress. One epoll_wait with a zero timeout tells which
 * sockets need work: the listener (accept), outbound sockets (connect
 * finished, room to write, peer closed) and inbound sockets (data). An inbound
 * socket is read into its own buffer as far as the kernel has data, and every
 * complete frame goes to its handler with pointers into that buffer.
 */
#include "config.h"

#include "tcp/tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"

#define TCP_EVENTS 64
#define TCP_READS 16 /* reads per socket per poll, so one busy peer cannot starve the rest */

/* Close an inbound connection now; its memory goes after the current poll,
 * since later events of the same poll may still point at it. */
void tcp_in_close(faro_tp_t *tp, struct tcp_in *in)
{
    if (in->dead)
        return;
    /* Leave the epoll set explicitly: the pair's socket may still be open
     * through the writing side's duplicate, and epoll forgets a registration
     * only when the last descriptor of the socket closes. */
    epoll_ctl(tp->epfd, EPOLL_CTL_DEL, in->fd, NULL);
    close(in->fd);
    in->fd = -1;
    in->dead = 1;
    if (in->ep && in->ep->in == in)
        in->ep->in = NULL;
    if (in->deadline) { /* it never authenticated */
        in->deadline = 0;
        tp->npreauth--;
    }
    tp->ndead++;
}

/* Close connections that did not authenticate in time, and the oldest ones
 * while there are too many (or when descriptors ran out: then all of them). */
void tcp_preauth_expire(faro_tp_t *tp)
{
    double now = tcp_now();
    int over = tp->npreauth - TCP_MAX_PREAUTH;
    if (tp->accept_paused_until == 0 && over <= 0) { /* only the late ones */
        for (struct tcp_in *in = tp->ins; in; in = in->next)
            if (in->deadline && in->deadline <= now) {
                tcp_refused(tp, &in->from, "it did not authenticate in time "
                            "(FARO_TCP_AUTH_TIMEOUT)");
                tcp_in_close(tp, in);
            }
        return;
    }
    /* tp->ins is newest first: the oldest are at the end. */
    int keep = tp->accept_paused_until ? 0 : TCP_MAX_PREAUTH;
    for (struct tcp_in *in = tp->ins; in; in = in->next) {
        if (!in->deadline)
            continue;
        if (keep > 0) {
            keep--;
            continue;
        }
        tcp_refused(tp, &in->from, "too many connections waiting to authenticate");
        tcp_in_close(tp, in);
    }
}

static void tcp_reap(faro_tp_t *tp)
{
    for (struct tcp_in **pp = &tp->ins; *pp && tp->ndead > 0;) {
        struct tcp_in *in = *pp;
        if (!in->dead) {
            pp = &in->next;
            continue;
        }
        *pp = in->next;
        free(in->buf);
        free(in);
        tp->ndead--;
    }
}

/* End of a connection: a failure, or an orderly close after a goodbye; both
 * reach the owner through ep_lost (tcp_report_failures). */
static void tcp_in_eof(faro_tp_t *tp, struct tcp_in *in, int err)
{
    if (in->ep)
        tcp_peer_fail(tp, in->ep, "lost connection to", err);
    tcp_in_close(tp, in);
}

/* The header of a large frame is here but not all its payload: if the core
 * names where the payload goes, read the rest straight there (no copy out of
 * our buffer). The part already buffered is copied now. */
static int tcp_direct_start(faro_tp_t *tp, struct tcp_in *in, const struct tcp_frame *f,
                            size_t len)
{
    const uint8_t *h = in->buf + in->head + sizeof *f;
    if (!tp->env->place)
        return 0;
    uint8_t *dst = tp->env->place(tp->env->core, in->ep->ctx, f->kind, h, f->hdrlen, len);
    if (!dst)
        return 0;
    size_t got = in->tail - in->head - sizeof *f - f->hdrlen;
    memcpy(dst, h + f->hdrlen, got);
    memcpy(in->dhdr, h, f->hdrlen);
    in->dkind = f->kind;
    in->dhdrlen = f->hdrlen;
    in->dest = dst;
    in->dgot = got;
    in->dlen = len;
    in->head = in->tail = 0;
    in->want = 0;
    return 1;
}

/* Continue a direct read; deliver the message when it is complete. */
static int tcp_direct_read(faro_tp_t *tp, struct tcp_in *in)
{
    size_t want = in->dlen - in->dgot;
    ssize_t n = recv(in->fd, in->dest + in->dgot, want, 0);
    if (n == 0) {
        tcp_in_eof(tp, in, 0);
        return -1;
    }
    if (n < 0) {
        if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
            tcp_in_eof(tp, in, errno);
        return -1;
    }
    in->dgot += (size_t)n;
    if (in->dgot < in->dlen)
        return (size_t)n < want ? -1 : 0; /* short: the kernel has no more now */
    uint8_t *dst = in->dest;
    in->dest = NULL;
    tp->handlers[in->dkind](tp->env->core, in->ep->ctx, in->dhdr, in->dhdrlen, dst, in->dlen);
    return 1;
}

/* Deliver every complete frame in the buffer. Returns messages delivered. */
static int tcp_parse(faro_tp_t *tp, struct tcp_in *in)
{
    int events = 0;

    while (!in->dead) {
        if (!in->ep) {
            if (tcp_hello_check(tp, in) <= 0)
                break;
            continue;
        }
        if (in->verdict) {
            if (tcp_verdict_check(tp, in) <= 0)
                break;
            continue;
        }
        if (tp->finalizing)
            break; /* only hellos now: the core is gone */
        size_t avail = in->tail - in->head;
        struct tcp_frame f;
        if (avail < sizeof f) {
            in->want = sizeof f;
            break;
        }
        memcpy(&f, in->buf + in->head, sizeof f);
        size_t len = ntohl(f.len), need = sizeof f + f.hdrlen + len;
        struct faro_tp_ep *p = in->ep;
        if (f.kind == TCP_KIND_BYE) {
            p->bye = 1;
            in->head += sizeof f;
            continue;
        }
        if (f.kind >= FARO_TP_MAX_KINDS || f.hdrlen > FARO_TP_MAX_HDR || len > TCP_MAX_SEND) {
            char n[128];
            faro_warn("tcp: %s sent a malformed frame (kind %u, header %u, payload %zu)",
                      tcp_ep_name(p, n, sizeof n), f.kind, f.hdrlen, len);
            tcp_in_eof(tp, in, EPROTO);
            break;
        }
        if (avail < need) {
            if (len >= TCP_DIRECT_MIN && avail >= sizeof f + f.hdrlen &&
                tcp_direct_start(tp, in, &f, len))
                continue;
            in->want = need;
            break;
        }
        const uint8_t *h = in->buf + in->head + sizeof f;
        in->head += need;
        in->want = 0;
        faro_tp_handler_fn fn = tp->handlers[f.kind];
        if (fn)
            fn(tp->env->core, p->ctx, h, f.hdrlen, h + f.hdrlen, len);
        else
            faro_warn("tcp: dropped a message of kind %u from rank %d: no handler is set",
                      f.kind, p->rank);
        events++;
    }
    return events;
}

/* Make room for the next read: at least the rest of the partial frame. */
static int tcp_room(struct tcp_in *in)
{
    /* Before authentication only a hello may come: keep such buffers small. */
    size_t floor = in->ep ? TCP_RBUF_MIN / 4 : TCP_PREAUTH_BUF / 2;
    size_t want = in->want > floor ? in->want : floor;
    if (in->head == in->tail)
        in->head = in->tail = 0;
    if (in->cap - in->head >= want && in->tail < in->cap)
        return 0;
    if (in->head) {
        memmove(in->buf, in->buf + in->head, in->tail - in->head);
        in->tail -= in->head;
        in->head = 0;
    }
    if (in->cap < want) {
        size_t cap = in->cap * 2 > want ? in->cap * 2 : want;
        uint8_t *b = realloc(in->buf, cap);
        if (!b) {
            faro_error("tcp: out of memory receiving %zu bytes from rank %d", want,
                       in->ep ? in->ep->rank : -1);
            return -1;
        }
        in->buf = b;
        in->cap = cap;
    }
    return 0;
}

int tcp_read(faro_tp_t *tp, struct tcp_in *in)
{
    int events = 0;

    for (int i = 0; i < TCP_READS && !in->dead; i++) {
        if (in->dest) {
            int r = tcp_direct_read(tp, in);
            if (r < 0)
                break;
            events += r;
            continue;
        }
        if (tcp_room(in) < 0) {
            tcp_in_eof(tp, in, ENOMEM);
            break;
        }
        /* Read in modest chunks: a large frame's header then arrives with only
         * a little of its payload, and the rest can go straight to its place. */
        size_t space = in->cap - in->tail;
        if (space > TCP_READ_CHUNK && in->want <= TCP_READ_CHUNK)
            space = TCP_READ_CHUNK;
        ssize_t n = recv(in->fd, in->buf + in->tail, space, 0);
        if (n > 0) {
            in->tail += (size_t)n;
            events += tcp_parse(tp, in);
            if ((size_t)n < space)
                break; /* drained what the kernel had */
        } else if (n == 0) {
            tcp_in_eof(tp, in, 0);
        } else if (errno != EINTR) {
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                tcp_in_eof(tp, in, errno);
            break;
        }
    }
    return events;
}

int tcp_progress(faro_tp_t *tp)
{
    struct epoll_event ev[TCP_EVENTS];
    int events = 0;
    int n = epoll_wait(tp->epfd, ev, TCP_EVENTS, 0);
    tp->polls++;

    if (n < 0 && errno != EINTR) {
        faro_error("tcp: epoll_wait: %s", strerror(errno));
        return FARO_TP_ERR;
    }
    for (int i = 0; i < n; i++) {
        int type = *(int *)ev[i].data.ptr;
        uint32_t e = ev[i].events;
        if (type == TCP_SOCK_LISTEN) {
            tcp_accept_all(tp);
        } else if (type == TCP_SOCK_IN) {
            struct tcp_in *in = ev[i].data.ptr;
            if (!in->dead)
                events += tcp_read(tp, in);
        } else {
            struct faro_tp_ep *p = ev[i].data.ptr;
            if (p->fd < 0 || p->fail != TCP_FAIL_NONE || p->closed_in_poll == tp->polls)
                continue; /* gone, or an event of a socket it replaced during this batch */
            if (p->out == TCP_OUT_CONNECTING && (e & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
                events += tcp_connected(tp, p);
            if ((p->out == TCP_OUT_UP || p->out == TCP_OUT_HELLO) && (e & EPOLLOUT))
                events += tcp_flush(tp, p);
            if ((e & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) && p->out == TCP_OUT_UP &&
                p->fail == TCP_FAIL_NONE)
                tcp_out_event(tp, p, e);
        }
    }
    if (tp->nfail)
        events += tcp_report_failures(tp);
    if (__builtin_expect(tp->npreauth > 0 || tp->accept_paused_until, 0)) {
        tcp_preauth_expire(tp);
        if (tp->accept_paused_until && tcp_now() >= tp->accept_paused_until)
            tcp_accept_all(tp); /* the listener's readiness was consumed while paused */
    }
    if (tp->ndead)
        tcp_reap(tp);
    return events;
}
