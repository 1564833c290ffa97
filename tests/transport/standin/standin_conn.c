/*
 * The verbs stand-in, connections (standin.h has the picture and the rules):
 * the sockets that carry them, packets going out (queued when the socket has
 * no room, so no call ever blocks), and the pump that reads what arrived:
 * new connections on listening ids, connection messages (request, reply,
 * ready-to-use, reject, disconnect request), a closed socket, and the queue
 * pairs' packets, handed to standin_data.c.
 */
#include "config.h"

#include "standin.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define SD_CONTAINER(p, type, member) ((type *)(void *)((char *)(p) - offsetof(type, member)))

/* ---- connections ---- */

static void sd_conn_watch(struct sd_conn *c, int out)
{
    struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = &c->ref };
    c->watch_out = out;
    epoll_ctl(sd.pump, EPOLL_CTL_MOD, c->fd, &ev);
}

struct sd_conn *sd_conn_new(int fd, struct sd_id *id, struct sd_id *listener)
{
    struct sd_conn *c = calloc(1, sizeof *c);
    c->ref.kind = SD_FD_CONN;
    c->fd = fd;
    c->id = id;
    c->listener = listener;
    c->ot = &c->oh;
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &c->ref };
    epoll_ctl(sd.pump, EPOLL_CTL_ADD, fd, &ev);
    c->next = sd.conns;
    sd.conns = c;
    return c;
}

void sd_conn_shut(struct sd_conn *c)
{
    epoll_ctl(sd.pump, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    c->dead = 1;
    while (c->oh) {
        struct sd_out *o = c->oh;
        c->oh = o->next;
        free(o);
    }
}

/* The connection ends here: once what is queued went out. */
void sd_conn_close(struct sd_conn *c)
{
    if (!c || c->dead || c->closing)
        return;
    if (c->id && c->id->conn == c)
        c->id->conn = NULL;
    c->id = NULL;
    if (c->oh)
        c->closing = 1;
    else
        sd_conn_shut(c);
}

static void sd_conn_flush(struct sd_conn *c)
{
    while (c->oh) {
        struct sd_out *o = c->oh;
        ssize_t n = send(c->fd, o->buf, o->len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        c->oh = o->next;
        free(o);
        if (n < 0) { /* the other end is gone: the pump sees it */
            while (c->oh) {
                o = c->oh;
                c->oh = o->next;
                free(o);
            }
        }
    }
    c->ot = &c->oh;
    if (c->watch_out)
        sd_conn_watch(c, 0);
    if (c->closing)
        sd_conn_shut(c);
}

void sd_send_pkt(struct sd_conn *c, const void *hdr, size_t hdrlen, const void *data,
                 size_t len)
{
    if (!c || c->dead || c->fd < 0)
        return;
    struct sd_out *o = malloc(sizeof *o + hdrlen + len);
    if (!o) {
        sd_error("out of memory for a packet of %zu bytes", hdrlen + len);
        return;
    }
    memcpy(o->buf, hdr, hdrlen);
    if (len)
        memcpy(o->buf + hdrlen, data, len);
    o->len = hdrlen + len;
    o->next = NULL;
    *c->ot = o;
    c->ot = &o->next;
    sd_conn_flush(c);
    if (c->oh && !c->watch_out)
        sd_conn_watch(c, 1); /* the pump sends the rest when the socket has room */
}

void sd_cm_pkt(struct sd_conn *c, int type, int status, const void *pd, size_t pdlen,
                      uint32_t qpn, uint8_t rd, uint8_t ird)
{
    struct sd_pkt h = { .type = (uint8_t)type, .status = status, .pdlen = (uint16_t)pdlen,
                        .qpn = qpn, .rd = rd, .ird = ird, .last = 1 };
    sd_send_pkt(c, &h, sizeof h, pd, pdlen);
}

/* ---- what arrives ---- */

static void sd_on_req(struct sd_conn *c, const struct sd_pkt *h, const uint8_t *pd)
{
    struct sd_id *l = c->listener;
    struct rdma_cm_id *ni;
    if (c->id || !l || l->destroyed || rdma_create_id(l->id.channel, &ni, l->id.context,
                                                      RDMA_PS_TCP) < 0) {
        sd_conn_close(c);
        return;
    }
    struct sd_id *sid = (struct sd_id *)ni;
    uint8_t padded[SD_PD_REQ] = { 0 }; /* InfiniBand pads a request's private data */
    memcpy(padded, pd, h->pdlen < SD_PD_REQ ? h->pdlen : SD_PD_REQ);
    ni->verbs = &sd.ctx;
    ni->port_num = 1;
    sd_set_lo(&ni->route.addr.src_storage, l->port);
    sd_set_lo(&ni->route.addr.dst_storage, 0);
    sid->state = SD_ID_REQ;
    sid->conn = c;
    sid->peer_qpn = h->qpn;
    c->id = sid;
    sd_push_ev(sid, RDMA_CM_EVENT_CONNECT_REQUEST, 0, padded, SD_PD_REQ, h, l);
}

static void sd_on_cm(struct sd_conn *c, const struct sd_pkt *h, const uint8_t *data)
{
    struct sd_id *sid = c->id;
    struct sd_qp *qp = sid ? (struct sd_qp *)sid->id.qp : NULL;
    switch (h->type) {
    case SD_REQ:
        sd_on_req(c, h, data);
        break;
    case SD_REP:
        if (!sid || sid->state != SD_ID_CONNECTING)
            break;
        if (!qp || qp->qp.state != IBV_QPS_INIT) {
            sd_cm_pkt(c, SD_REJ, SD_REJ_CONSUMER, NULL, 0, 0, 0, 0);
            sd_conn_close(c);
            sid->state = SD_ID_REJECTED;
            sd_push_ev(sid, RDMA_CM_EVENT_CONNECT_ERROR, -EINVAL, NULL, 0, NULL, NULL);
            break;
        }
        qp->peer_qpn = h->qpn;
        sd_qp_rts(qp);
        sid->state = SD_ID_CONNECTED;
        sd_cm_pkt(c, SD_RTU, 0, NULL, 0, 0, 0, 0);
        sd_push_ev(sid, RDMA_CM_EVENT_ESTABLISHED, 0, data, h->pdlen, h, NULL);
        break;
    case SD_RTU:
        if (sid && sid->state == SD_ID_ACCEPTED) {
            sid->state = SD_ID_CONNECTED;
            sd_push_ev(sid, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, 0, NULL, NULL);
        }
        break;
    case SD_REJ:
        if (!sid)
            break;
        if (sid->state == SD_ID_CONNECTING) {
            sid->state = SD_ID_REJECTED;
            sd_push_ev(sid, RDMA_CM_EVENT_REJECTED, h->status, data, h->pdlen, NULL, NULL);
        } else if (sid->state == SD_ID_ACCEPTED) {
            sd_push_ev(sid, RDMA_CM_EVENT_CONNECT_ERROR, -ECONNREFUSED, NULL, 0, NULL, NULL);
        }
        sd_conn_close(c);
        break;
    case SD_DREQ:
        if (!sid)
            break;
        if (qp)
            qp->peer_err = 1; /* its queue pair is in the error state now */
        if (!sid->torn && (sid->state == SD_ID_CONNECTED || sid->state == SD_ID_ACCEPTED)) {
            sid->torn = 1;
            sd_push_ev(sid, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0, NULL, NULL);
        }
        break;
    }
}

/* The other end of c closed (its process ended, or it destroyed its id). */
static void sd_on_eof(struct sd_conn *c)
{
    struct sd_id *sid = c->id;
    sd_conn_close(c);
    if (!sid)
        return;
    sid->lost = 1;
    switch (sid->state) {
    case SD_ID_CONNECTING:
        sd_push_ev(sid, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0, NULL, NULL);
        sid->state = SD_ID_REJECTED;
        break;
    case SD_ID_ACCEPTED:
        sd_push_ev(sid, RDMA_CM_EVENT_CONNECT_ERROR, -ETIMEDOUT, NULL, 0, NULL, NULL);
        break;
    case SD_ID_CONNECTED:
        if (!sid->torn) {
            sid->torn = 1;
            sd_push_ev(sid, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0, NULL, NULL);
        }
        break;
    default:
        break;
    }
    if (sid->id.qp)
        sd_qp_peer_gone((struct sd_qp *)sid->id.qp);
}

static void sd_read_conn(struct sd_conn *c)
{
    static uint8_t buf[sizeof(struct sd_pkt) + SD_FRAG + 256];
    while (!c->dead) {
        ssize_t n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        if (n <= 0) {
            if (c->closing)
                sd_conn_shut(c);
            else
                sd_on_eof(c);
            return;
        }
        if (c->closing) /* ours is closed: what still comes is dropped */
            continue;
        struct sd_pkt h;
        if ((size_t)n < sizeof h) {
            sd_error("a short packet on a connection (%zd bytes)", n);
            return;
        }
        memcpy(&h, buf, sizeof h);
        const uint8_t *data = buf + sizeof h;
        size_t len = (size_t)n - sizeof h;
        if (h.type <= SD_DREQ)
            sd_on_cm(c, &h, data);
        else
            sd_qp_packet(c, c->id ? (struct sd_qp *)c->id->id.qp : NULL, &h, data, len);
    }
}

static void sd_accept_all(struct sd_id *l)
{
    for (;;) {
        int fd = accept4(l->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        sd_conn_new(fd, NULL, l); /* its request comes as its first packet */
    }
}

void sd_pump(void)
{
    struct epoll_event ev[32];
    int n;
    if (!sd.ready)
        return;
    do {
        n = epoll_wait(sd.pump, ev, 32, 0);
        for (int k = 0; k < n; k++) {
            struct sd_fdref *r = ev[k].data.ptr;
            if (r->kind == SD_FD_LISTEN) {
                sd_accept_all(SD_CONTAINER(r, struct sd_id, ref));
                continue;
            }
            struct sd_conn *c = SD_CONTAINER(r, struct sd_conn, ref);
            if (!c->dead && (ev[k].events & EPOLLOUT))
                sd_conn_flush(c);
            if (!c->dead && (ev[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                sd_read_conn(c);
        }
        /* Connections closed during this round are freed only now: the
         * round's events may still have named them. */
        for (struct sd_conn **p = &sd.conns; *p;) {
            struct sd_conn *c = *p;
            if (!c->dead) {
                p = &c->next;
                continue;
            }
            *p = c->next;
            free(c);
        }
    } while (n == 32);
}

/* A forked child: the parent's sockets stay the parent's. */
void sd_cm_reset(void)
{
    for (struct sd_conn *c = sd.conns; c; c = c->next)
        if (c->fd >= 0)
            close(c->fd);
    for (struct sd_id *s = sd.ids; s; s = s->next)
        if (s->lfd >= 0)
            close(s->lfd);
}
