/*
 * The verbs stand-in, librdmacm's calls (standin.h has the picture and the
 * rules): event channels and events, ids, address and route resolution,
 * listen, connect, accept, reject, disconnect. The connections' sockets and
 * what arrives on them are in standin_conn.c.
 *
 * A bound id holds an abstract Unix SOCK_SEQPACKET socket named after its
 * port, so the kernel hands out ports no other process of the machine holds;
 * a listening id listens on it. rdma_connect opens a socket to the port and
 * sends the request; the socket then carries the connection's whole life,
 * in order: REQ, then REP or REJ, RTU, the queue pairs' packets, DREQ. A
 * process that ends closes its sockets, which its peers see as the
 * connection going away (RDMA_CM_EVENT_DISCONNECTED, as when the kernel
 * destroys a dead process's ids).
 */
#include "config.h"

#include "standin.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define SD_BACKLOG 4096

socklen_t sd_sockname(int port, struct sockaddr_un *un)
{
    memset(un, 0, sizeof *un);
    un->sun_family = AF_UNIX;
    int n = snprintf(un->sun_path + 1, sizeof un->sun_path - 1, "faro-verbs-standin-%d", port);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int sd_is_lo(const struct sockaddr *sa)
{
    return sa && sa->sa_family == AF_INET &&
           ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_LOOPBACK);
}

int sd_sa_port(const struct sockaddr *sa)
{
    return sa->sa_family == AF_INET ? ntohs(((const struct sockaddr_in *)sa)->sin_port)
                                    : ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

void sd_set_lo(struct sockaddr_storage *ss, int port)
{
    struct sockaddr_in *in = (struct sockaddr_in *)ss;
    memset(ss, 0, sizeof *ss);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    in->sin_port = htons((uint16_t)port);
}

/* ---- events ---- */

void sd_push_ev(struct sd_id *sid, enum rdma_cm_event_type type, int status,
                       const void *pd, size_t pdlen, const struct sd_pkt *h,
                       struct sd_id *listener)
{
    if (sid->destroyed)
        return;
    struct sd_chan *ch = (struct sd_chan *)sid->id.channel;
    struct sd_ev *e = calloc(1, sizeof *e);
    e->sid = sid;
    e->e.id = &sid->id;
    e->e.listen_id = listener ? &listener->id : NULL;
    e->e.event = type;
    e->e.status = status;
    if (pd) {
        memcpy(e->pd, pd, pdlen < sizeof e->pd ? pdlen : sizeof e->pd);
        e->e.param.conn.private_data = e->pd;
        e->e.param.conn.private_data_len = (uint8_t)pdlen;
    }
    if (h) {
        e->e.param.conn.initiator_depth = h->rd;
        e->e.param.conn.responder_resources = h->ird;
    }
    *ch->tail = e;
    ch->tail = &e->next;
    (void)eventfd_write(ch->evfd, 1);
}

struct rdma_event_channel *rdma_create_event_channel(void)
{
    sd_init();
    if (!sd_present()) {
        errno = ENODEV;
        return NULL;
    }
    struct sd_chan *ch = calloc(1, sizeof *ch);
    ch->ch.fd = sd_wake_set(&ch->evfd);
    ch->tail = &ch->head;
    return &ch->ch;
}

void rdma_destroy_event_channel(struct rdma_event_channel *c)
{
    struct sd_chan *ch = (struct sd_chan *)c;
    if (ch->nids) {
        sd_error("rdma_destroy_event_channel with %d ids still on it", ch->nids);
        return;
    }
    while (ch->head) {
        struct sd_ev *e = ch->head;
        ch->head = e->next;
        free(e);
    }
    close(ch->evfd);
    close(c->fd);
    free(ch);
}

int rdma_get_cm_event(struct rdma_event_channel *c, struct rdma_cm_event **ev)
{
    struct sd_chan *ch = (struct sd_chan *)c;
    eventfd_t v;
    sd_init();
    sd_pump();
    struct sd_ev *e = ch->head;
    if (!e) { /* the descriptor is non-blocking (the transport set it) */
        errno = EAGAIN;
        return -1;
    }
    ch->head = e->next;
    if (!ch->head)
        ch->tail = &ch->head;
    (void)eventfd_read(ch->evfd, &v);
    e->sid->events_out++;
    *ev = &e->e;
    return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *ev)
{
    struct sd_ev *e = (struct sd_ev *)ev; /* the event is the first member */
    struct sd_id *sid = e->sid;
    if (--sid->events_out == 0 && sid->destroyed)
        free(sid);
    free(e);
    return 0;
}

/* ---- ids ---- */

int rdma_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **out, void *context,
                   enum rdma_port_space ps)
{
    sd_init();
    if (!ch || ps != RDMA_PS_TCP) {
        sd_error("rdma_create_id without an event channel or outside RDMA_PS_TCP (not "
                 "modelled)");
        errno = EINVAL;
        return -1;
    }
    struct sd_id *sid = calloc(1, sizeof *sid);
    sid->id.channel = ch;
    sid->id.context = context;
    sid->id.ps = ps;
    sid->id.qp_type = IBV_QPT_RC;
    sid->ref.kind = SD_FD_LISTEN;
    sid->lfd = -1;
    ((struct sd_chan *)ch)->nids++;
    sid->next = sd.ids;
    sd.ids = sid;
    *out = &sid->id;
    return 0;
}

int rdma_destroy_id(struct rdma_cm_id *i)
{
    struct sd_id *sid = (struct sd_id *)i;
    struct sd_chan *ch = (struct sd_chan *)i->channel;
    if (i->qp) {
        sd_error("rdma_destroy_id with its queue pair %#x still there (destroy it first)",
                 i->qp->qp_num);
        errno = EBUSY;
        return -1;
    }
    if (sid->conn && (sid->state == SD_ID_CONNECTED || sid->state == SD_ID_ACCEPTED) &&
        !sid->torn)
        sd_cm_pkt(sid->conn, SD_DREQ, 0, NULL, 0, 0, 0, 0); /* as the kernel does */
    sd_conn_close(sid->conn);
    if (sid->lfd >= 0) {
        epoll_ctl(sd.pump, EPOLL_CTL_DEL, sid->lfd, NULL);
        close(sid->lfd);
        sid->lfd = -1;
    }
    for (struct sd_ev **p = &ch->head; *p;) { /* its events not read yet go */
        struct sd_ev *e = *p;
        if (e->sid != sid) {
            p = &e->next;
            continue;
        }
        eventfd_t v;
        *p = e->next;
        (void)eventfd_read(ch->evfd, &v);
        free(e);
    }
    ch->tail = &ch->head;
    while (*ch->tail)
        ch->tail = &(*ch->tail)->next;
    ch->nids--;
    for (struct sd_id **p = &sd.ids; *p; p = &(*p)->next)
        if (*p == sid) {
            *p = sid->next;
            break;
        }
    sid->destroyed = 1;
    if (sid->events_out) /* kept for those events' acks */
        sd_error("rdma_destroy_id with %d of its events not acked (librdmacm would block "
                 "forever)", sid->events_out);
    else
        free(sid);
    return 0;
}

int rdma_bind_addr(struct rdma_cm_id *i, struct sockaddr *sa)
{
    struct sd_id *sid = (struct sd_id *)i;
    sd_init();
    if (sid->state != SD_ID_IDLE) {
        sd_error("rdma_bind_addr on an id already bound or in use");
        errno = EINVAL;
        return -1;
    }
    size_t salen = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                            : sizeof(struct sockaddr_in6);
    memcpy(&i->route.addr.src_storage, sa, salen);
    sid->state = SD_ID_BOUND;
    if (!sd_is_lo(sa))
        return 0; /* an address on no RDMA device: bound, with no device */
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un un;
    int port = sd_sa_port(sa);
    for (int tries = 0; fd >= 0 && tries < 1000; tries++) {
        int p = port ? port : 20000 + (int)((unsigned)rand() % 40000u);
        if (bind(fd, (struct sockaddr *)&un, sd_sockname(p, &un)) == 0) {
            sid->port = p;
            break;
        }
        if (port)
            break;
    }
    if (fd < 0 || !sid->port) {
        if (fd >= 0)
            close(fd);
        sid->state = SD_ID_IDLE;
        errno = EADDRINUSE;
        return -1;
    }
    sid->lfd = fd;
    sd_set_lo(&i->route.addr.src_storage, sid->port);
    i->verbs = &sd.ctx;
    i->port_num = 1;
    return 0;
}

int rdma_listen(struct rdma_cm_id *i, int backlog)
{
    struct sd_id *sid = (struct sd_id *)i;
    if (sid->state != SD_ID_BOUND || sid->lfd < 0 || listen(sid->lfd, SD_BACKLOG) < 0) {
        sd_error("rdma_listen on an id not bound to the device's address");
        errno = EINVAL;
        return -1;
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &sid->ref };
    epoll_ctl(sd.pump, EPOLL_CTL_ADD, sid->lfd, &ev);
    sid->state = SD_ID_LISTEN;
    return 0;
}

__be16 rdma_get_src_port(struct rdma_cm_id *i)
{
    return htons((uint16_t)((struct sd_id *)i)->port);
}

int rdma_resolve_addr(struct rdma_cm_id *i, struct sockaddr *src, struct sockaddr *dst,
                      int timeout_ms)
{
    struct sd_id *sid = (struct sd_id *)i;
    sd_init();
    if (sid->state != SD_ID_IDLE && sid->state != SD_ID_BOUND) {
        sd_error("rdma_resolve_addr on an id that is listening or connecting");
        errno = EINVAL;
        return -1;
    }
    memcpy(&i->route.addr.dst_storage, dst, dst->sa_family == AF_INET
                                                ? sizeof(struct sockaddr_in)
                                                : sizeof(struct sockaddr_in6));
    if (!sd_is_lo(dst)) { /* the device reaches 127.0.0.1 only */
        sd_push_ev(sid, RDMA_CM_EVENT_ADDR_ERROR, -ENETUNREACH, NULL, 0, NULL, NULL);
        return 0;
    }
    if (sid->state == SD_ID_IDLE)
        sd_set_lo(&i->route.addr.src_storage, 0);
    i->verbs = &sd.ctx;
    i->port_num = 1;
    sid->state = SD_ID_ADDR;
    sd_push_ev(sid, RDMA_CM_EVENT_ADDR_RESOLVED, 0, NULL, 0, NULL, NULL);
    return 0;
}

int rdma_resolve_route(struct rdma_cm_id *i, int timeout_ms)
{
    struct sd_id *sid = (struct sd_id *)i;
    if (sid->state != SD_ID_ADDR) {
        sd_error("rdma_resolve_route before the address was resolved");
        errno = EINVAL;
        return -1;
    }
    sid->state = SD_ID_ROUTE;
    sd_push_ev(sid, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0, NULL, NULL);
    return 0;
}

int rdma_create_qp(struct rdma_cm_id *i, struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
    if (!i->verbs || pd->context != i->verbs || i->qp) {
        sd_error("rdma_create_qp on an id %s", i->qp ? "that has one already"
                                                    : "with no device (resolve first)");
        errno = EINVAL;
        return -1;
    }
    struct ibv_qp *qp = ibv_create_qp(pd, a);
    if (!qp)
        return -1;
    ((struct sd_qp *)qp)->id = (struct sd_id *)i;
    i->qp = qp;
    return 0;
}

void rdma_destroy_qp(struct rdma_cm_id *i)
{
    if (i->qp)
        ibv_destroy_qp(i->qp);
    i->qp = NULL;
}

int rdma_connect(struct rdma_cm_id *i, struct rdma_conn_param *p)
{
    struct sd_id *sid = (struct sd_id *)i;
    if (sid->state != SD_ID_ROUTE || !i->qp || !p || p->private_data_len > SD_PD_REQ ||
        i->qp->state != IBV_QPS_INIT) {
        sd_error("rdma_connect %s", sid->state != SD_ID_ROUTE ? "before the route was resolved"
                                    : !i->qp || i->qp->state != IBV_QPS_INIT
                                        ? "without a fresh queue pair"
                                        : "with more private data than InfiniBand carries");
        errno = EINVAL;
        return -1;
    }
    struct sockaddr_un un;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&un,
                          sd_sockname(sd_sa_port(&i->route.addr.dst_addr), &un)) < 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        sid->state = SD_ID_REJECTED;
        if (err == EAGAIN)
            sd_push_ev(sid, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0, NULL, NULL);
        else /* nobody listens there */
            sd_push_ev(sid, RDMA_CM_EVENT_REJECTED, SD_REJ_NO_LISTENER, NULL, 0, NULL, NULL);
        return 0;
    }
    sid->conn = sd_conn_new(fd, sid, NULL);
    sid->state = SD_ID_CONNECTING;
    sd_cm_pkt(sid->conn, SD_REQ, 0, p->private_data, p->private_data_len, i->qp->qp_num,
              p->initiator_depth, p->responder_resources);
    return 0;
}

int rdma_accept(struct rdma_cm_id *i, struct rdma_conn_param *p)
{
    struct sd_id *sid = (struct sd_id *)i;
    if (sid->state != SD_ID_REQ || !i->qp || i->qp->state != IBV_QPS_INIT ||
        (p && p->private_data_len > SD_PD_REP)) {
        sd_error("rdma_accept %s", sid->state != SD_ID_REQ ? "of an id that is not a request"
                                   : !i->qp || i->qp->state != IBV_QPS_INIT
                                       ? "without a fresh queue pair"
                                       : "with more private data than InfiniBand carries");
        errno = EINVAL;
        return -1;
    }
    sid->state = SD_ID_ACCEPTED;
    if (sid->lost || !sid->conn) { /* the connector gave up meanwhile */
        sd_push_ev(sid, RDMA_CM_EVENT_CONNECT_ERROR, -ETIMEDOUT, NULL, 0, NULL, NULL);
        return 0;
    }
    struct sd_qp *qp = (struct sd_qp *)i->qp;
    qp->peer_qpn = sid->peer_qpn;
    sd_qp_rts(qp);
    sd_cm_pkt(sid->conn, SD_REP, 0, p ? p->private_data : NULL, p ? p->private_data_len : 0,
              i->qp->qp_num, p ? p->initiator_depth : 0, p ? p->responder_resources : 0);
    return 0;
}

int rdma_reject(struct rdma_cm_id *i, const void *pd, uint8_t len)
{
    struct sd_id *sid = (struct sd_id *)i;
    if (sid->state != SD_ID_REQ || len > SD_PD_REJ) {
        sd_error("rdma_reject %s", sid->state != SD_ID_REQ ? "of an id that is not a request"
                                                          : "with too much private data");
        errno = EINVAL;
        return -1;
    }
    sd_cm_pkt(sid->conn, SD_REJ, SD_REJ_CONSUMER, pd, len, 0, 0, 0);
    sd_conn_close(sid->conn);
    sid->state = SD_ID_REJECTED;
    return 0;
}

int rdma_disconnect(struct rdma_cm_id *i)
{
    struct sd_id *sid = (struct sd_id *)i;
    if (sid->state != SD_ID_CONNECTED && sid->state != SD_ID_ACCEPTED &&
        sid->state != SD_ID_DISCONNECTED) {
        errno = EINVAL; /* not connected: librdmacm's answer too */
        return -1;
    }
    if (i->qp) /* librdmacm moves the queue pair to the error state first */
        sd_qp_to_err((struct sd_qp *)i->qp);
    if (!sid->torn) {
        sid->torn = 1;
        sd_cm_pkt(sid->conn, SD_DREQ, 0, NULL, 0, 0, 0, 0);
        sd_push_ev(sid, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0, NULL, NULL);
    }
    sid->state = SD_ID_DISCONNECTED;
    return 0;
}

int rdma_notify(struct rdma_cm_id *i, enum ibv_event_type ev)
{
    return 0;
}

const char *rdma_event_str(enum rdma_cm_event_type t)
{
    static const char *const names[] = {
        "RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR",
        "RDMA_CM_EVENT_ROUTE_RESOLVED", "RDMA_CM_EVENT_ROUTE_ERROR",
        "RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
        "RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE", "RDMA_CM_EVENT_REJECTED",
        "RDMA_CM_EVENT_ESTABLISHED", "RDMA_CM_EVENT_DISCONNECTED",
        "RDMA_CM_EVENT_DEVICE_REMOVAL",
    };
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "RDMA_CM_EVENT_OTHER";
}
