/*
 * TCP transport: sending. A message goes straight to the socket with one
 * sendmsg when nothing is queued before it; whatever the kernel does not take
 * waits in the peer's queue, in order, until progress sees the socket
 * writable. send_inline copies its rest into the queue; isend keeps pointing
 * at the caller's payload and copies only the frame and header.
 */
#include "config.h"

#include "tcp/tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "base/log.h"

static struct tcp_sq *tcp_sq_new(int niov, size_t copy)
{
    struct tcp_sq *e = malloc(sizeof *e + (size_t)niov * sizeof(struct iovec) + copy);
    if (!e) {
        faro_error("tcp: out of memory queueing a send of %zu bytes", copy);
        return NULL;
    }
    e->next = NULL;
    e->done = NULL;
    e->arg = NULL;
    e->cur = 0;
    e->ctl = 0;
    e->copied = 0;
    e->iovcnt = niov;
    e->iov = (struct iovec *)(e + 1);
    e->framelen = 0;
    return e;
}

static void tcp_sq_append(faro_tp_t *tp, struct faro_tp_ep *p, struct tcp_sq *e)
{
    *p->qtail = e;
    p->qtail = &e->next;
    tcp_want_write(tp, p);
}

/* Consume up to n written bytes of e; returns how many it took. */
static size_t tcp_sq_advance(struct tcp_sq *e, size_t n)
{
    size_t took = 0;
    while (e->cur < e->iovcnt) {
        struct iovec *v = &e->iov[e->cur];
        size_t k = n - took < v->iov_len ? n - took : v->iov_len;
        v->iov_base = (uint8_t *)v->iov_base + k;
        v->iov_len -= k;
        took += k;
        if (v->iov_len)
            break;
        e->cur++;
    }
    return took;
}

static size_t tcp_frame_build(uint8_t *out, unsigned kind, const void *hdr, size_t hdrlen,
                              size_t len)
{
    struct tcp_frame f = { .len = htonl((uint32_t)len), .kind = (uint8_t)kind,
                           .hdrlen = (uint8_t)hdrlen };
    memcpy(out, &f, sizeof f);
    if (hdrlen)
        memcpy(out + sizeof f, hdr, hdrlen);
    return sizeof f + hdrlen;
}

/* Write what the kernel takes now. Returns bytes written (0 when the socket is
 * full), or -1 after recording the peer as failed. */
static ssize_t tcp_writev(faro_tp_t *tp, struct faro_tp_ep *p, struct iovec *iov, int n)
{
    struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };
    for (;;) {
        ssize_t w = sendmsg(p->fd, &m, MSG_NOSIGNAL);
        if (w >= 0)
            return w;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
            return 0;
        tcp_peer_fail(tp, p, "lost connection to", errno);
        return -1;
    }
}

/* Validate a send. NULL after printing why, or for a closed or failed endpoint. */
static struct faro_tp_ep *tcp_send_ep(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind,
                                      size_t hdrlen, const char *op)
{
    if (!p || kind >= FARO_TP_MAX_KINDS || hdrlen > FARO_TP_MAX_HDR) {
        faro_error("tcp: %s: endpoint %s, kind %u, header of %zu bytes: allowed are kinds "
                   "0..%d, headers up to %d bytes", op, p ? "given" : "NULL", kind, hdrlen,
                   FARO_TP_MAX_KINDS - 1, FARO_TP_MAX_HDR);
        return NULL;
    }
    if (p->fail == TCP_FAIL_REPORTED || p->closed)
        return NULL; /* already reported through ep_lost, or closed by the owner */
    return p;
}

static int tcp_can_write(const struct faro_tp_ep *p)
{
    return p->out == TCP_OUT_UP && !p->qhead && p->fail == TCP_FAIL_NONE;
}

int tcp_send_inline(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned kind, const void *hdr,
                    size_t hdrlen, const void *data, size_t len)
{
    struct faro_tp_ep *p = tcp_send_ep(tp, ep, kind, hdrlen, "send_inline");
    uint8_t frame[sizeof(struct tcp_frame) + FARO_TP_MAX_HDR];
    size_t w = 0;

    if (!p)
        return FARO_TP_ERR;
    if (hdrlen + len > TCP_MAX_INLINE) {
        faro_error("tcp: send_inline of %zu bytes exceeds max_inline (%d)", hdrlen + len,
                   TCP_MAX_INLINE);
        return FARO_TP_ERR;
    }
    size_t fl = tcp_frame_build(frame, kind, hdr, hdrlen, len), total = fl + len;
    /* The queue of copies is full: the caller's send waits (back-pressure). */
    if (!tcp_can_write(p) && p->qcopied + total > tp->qmax)
        return FARO_TP_AGAIN;
    if (tcp_can_write(p)) {
        struct iovec v[2] = { { frame, fl }, { (void *)data, len } };
        ssize_t r = tcp_writev(tp, p, v, len ? 2 : 1);
        if ((size_t)r == total)
            return FARO_TP_DONE;
        if (r > 0)
            w = (size_t)r;
    }
    /* Keep the unwritten rest, as one copy, behind whatever is queued. */
    struct tcp_sq *e = tcp_sq_new(1, total - w);
    if (!e)
        return FARO_TP_ERR;
    uint8_t *c = (uint8_t *)(e->iov + 1);
    if (w < fl) {
        memcpy(c, frame + w, fl - w);
        if (len)
            memcpy(c + fl - w, data, len);
    } else {
        memcpy(c, (const uint8_t *)data + (w - fl), total - w);
    }
    e->iov[0] = (struct iovec){ c, total - w };
    e->copied = total - w;
    p->qcopied += e->copied;
    tcp_sq_append(tp, p, e);
    return FARO_TP_DONE;
}

int tcp_isend(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned kind, const void *hdr,
              size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
              void *arg)
{
    struct faro_tp_ep *p = tcp_send_ep(tp, ep, kind, hdrlen, "isend");
    uint8_t frame[sizeof(struct tcp_frame) + FARO_TP_MAX_HDR];
    size_t len = 0, w = 0;

    if (!p || iovcnt < 0)
        return FARO_TP_ERR;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len > TCP_MAX_SEND) {
        faro_error("tcp: isend of %zu bytes exceeds max_send (%u)", len, TCP_MAX_SEND);
        return FARO_TP_ERR;
    }
    size_t fl = tcp_frame_build(frame, kind, hdr, hdrlen, len);
    if (tcp_can_write(p) && iovcnt < TCP_IOV_BATCH) {
        struct iovec v[TCP_IOV_BATCH];
        v[0] = (struct iovec){ frame, fl };
        memcpy(v + 1, iov, (size_t)iovcnt * sizeof *iov);
        ssize_t r = tcp_writev(tp, p, v, iovcnt + 1);
        if ((size_t)r == fl + len)
            return FARO_TP_DONE;
        if (r > 0)
            w = (size_t)r;
    }
    /* Queue the rest; the payload stays in the caller's memory until done. */
    struct tcp_sq *e = tcp_sq_new(iovcnt + 1, 0);
    if (!e)
        return FARO_TP_ERR;
    memcpy(e->frame, frame, fl);
    e->framelen = fl;
    e->iov[0] = (struct iovec){ e->frame, fl };
    memcpy(e->iov + 1, iov, (size_t)iovcnt * sizeof *iov);
    tcp_sq_advance(e, w);
    e->done = done;
    e->arg = arg;
    tcp_sq_append(tp, p, e);
    return FARO_TP_OK;
}

/* Control bytes (a hello) go first, ahead of any data queued before them,
 * and may be written before the connection is up. */
int tcp_queue_ctl(struct faro_tp_ep *p, const void *bytes, size_t len)
{
    struct tcp_sq *e = tcp_sq_new(1, len);
    if (!e)
        return -1;
    uint8_t *c = (uint8_t *)(e->iov + 1);
    memcpy(c, bytes, len);
    e->iov[0] = (struct iovec){ c, len };
    e->ctl = 1;
    e->next = p->qhead;
    if (!p->qhead)
        p->qtail = &e->next;
    p->qhead = e;
    return 0;
}

/* Write the queue, gathering many entries per sendmsg (back-pressure drains
 * fast); run completions after the queue is consistent, since a completion
 * may post the next send. Returns completions run. */
int tcp_flush(faro_tp_t *tp, struct faro_tp_ep *p)
{
    int events = 0;

    /* Before the verdict only control bytes leave. */
    int ctl_only = p->out == TCP_OUT_HELLO;
    while (p->qhead && (p->out == TCP_OUT_UP || (ctl_only && p->qhead->ctl)) &&
           p->fail == TCP_FAIL_NONE) {
        struct iovec v[TCP_IOV_BATCH];
        struct tcp_sq *e, *fin = NULL, **ft = &fin;
        size_t want = 0;
        int n = 0;

        for (e = p->qhead; e && n < TCP_IOV_BATCH && (!ctl_only || e->ctl); e = e->next)
            for (int i = e->cur; i < e->iovcnt && n < TCP_IOV_BATCH; i++) {
                v[n++] = e->iov[i];
                want += e->iov[i].iov_len;
            }
        ssize_t w = tcp_writev(tp, p, v, n);
        if (w <= 0)
            break;
        for (size_t left = (size_t)w; left > 0 && (e = p->qhead);) {
            left -= tcp_sq_advance(e, left);
            if (e->cur < e->iovcnt)
                break;
            p->qhead = e->next;
            if (!p->qhead)
                p->qtail = &p->qhead;
            e->next = NULL;
            *ft = e;
            ft = &e->next;
        }
        while ((e = fin)) {
            fin = e->next;
            p->qcopied -= e->copied;
            if (e->done)
                e->done(e->arg, 0);
            free(e);
            events++;
        }
        if ((size_t)w < want)
            break; /* the socket is full */
    }
    tcp_want_write(tp, p);
    return events;
}

/* Ask epoll for writability only while there is something to write. */
void tcp_want_write(faro_tp_t *tp, struct faro_tp_ep *p)
{
    if (p->fd < 0 || p->out == TCP_OUT_NONE || p->out == TCP_OUT_CLOSED)
        return;
    int writable = p->qhead && (p->out == TCP_OUT_UP || p->qhead->ctl);
    uint32_t want = (p->bye ? 0 : EPOLLRDHUP) |
                    (writable || p->out == TCP_OUT_CONNECTING ? EPOLLOUT : 0);
    if (want == p->events)
        return;
    struct epoll_event ev = { .events = want, .data.ptr = p };
    if (!want)
        epoll_ctl(tp->epfd, EPOLL_CTL_DEL, p->fd, NULL);
    else if (epoll_ctl(tp->epfd, p->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, p->fd, &ev) < 0)
        faro_warn("tcp: epoll_ctl for rank %d: %s", p->rank, strerror(errno));
    p->events = want;
}

/* Complete every queued send with `status`; from progress only. */
void tcp_queue_fail(struct faro_tp_ep *p, int status)
{
    struct tcp_sq *e;
    while ((e = p->qhead)) {
        p->qhead = e->next;
        if (!p->qhead)
            p->qtail = &p->qhead;
        p->qcopied -= e->copied;
        if (e->done)
            e->done(e->arg, status);
        free(e);
    }
}
