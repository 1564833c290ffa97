/*
 * verbs transport: connections. rdma_cm's events turned into events of the
 * state machine (verbs_conn.h) and its actions carried out: queue pairs,
 * connect, accept, reject, hello, goodbye, disconnect, destroy, reports to
 * the owner. Endpoints themselves (connect, ports) are verbs_ep.c's.
 *
 * A request is authenticated before anything else happens: its private data
 * (verbs_wire.h) must carry a proof of the job key made for this process
 * instance and this rank, the job's size and this rank's buffer size, or a
 * proof of an open port's key (verbs_ep.c). The owner's accepted upcall runs
 * for a new peer before the accept, so it comes before any of the peer's
 * messages. The connector checks the answer the same way (an accept must
 * echo its request's nonce with a proof of the key).
 *
 * Receive buffers are posted before a request is accepted (the acceptor's)
 * and, on the connector's side, when the connection is established and
 * before the hello: the acceptor sends nothing before the hello, so they are
 * always there in time, and an attempt dropped after a collision has no work
 * request to flush. A connection that ends is disconnected (its queue pair
 * goes to the error state and flushes its work requests) and destroyed once
 * every work request came back, so no completion can name freed memory.
 */
#include "config.h"

#include "verbs/verbs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/log.h"

#define VERBS_REAP_S 5.0      /* a queue pair whose flushes never come is destroyed anyway */
#define VERBS_LAST_WQE_S 1.0  /* shared receive queue: wait this long for the last WQE event */
#define VERBS_WARN_EVERY_S 10.0

/* What verbs_cm_poll keeps of an rdma_cm event (the event itself is acked at once). */
struct verbs_cmev {
    enum rdma_cm_event_type type;
    struct rdma_cm_id *id;
    int status;
    uint8_t pd[64];
    size_t pdlen;
    uint8_t initiator_depth, responder_resources;
};

/* A request being answered. */
struct verbs_req {
    struct rdma_cm_id *id;
    struct verbs_cm m;
    uint8_t initiator_depth, responder_resources;
    unsigned port;                /* the port it proved (0: a job rank's request) */
    uint8_t key16[16];            /* that port's key */
};

static int verbs_busy(int state)
{
    return state != VC_IDLE && state != VC_UP && state != VC_CLOSED && state != VC_FAILED;
}

/* ---- the actions ---- */

static void verbs_conn_param(faro_tp_t *tp, struct rdma_conn_param *p, const uint8_t *pd,
                             uint8_t init_max)
{
    int rd = tp->dev_attr.max_qp_rd_atom, init = tp->dev_attr.max_qp_init_rd_atom;
    memset(p, 0, sizeof *p);
    p->private_data = pd;
    p->private_data_len = VERBS_CM_LEN;
    p->responder_resources = (uint8_t)(rd < VERBS_RD_ATOMIC ? rd : VERBS_RD_ATOMIC);
    p->initiator_depth = (uint8_t)(init < VERBS_RD_ATOMIC ? init : VERBS_RD_ATOMIC);
    if (p->initiator_depth > init_max)
        p->initiator_depth = init_max;
    p->retry_count = 7;
    p->rnr_retry_count = 7; /* "infinite": a receiver out of buffers holds the sender back */
}

/* The queue pair of ep's connection on id. 0, or -1 with the reason in ep->why. */
static int verbs_qp_create(faro_tp_t *tp, struct faro_tp_ep *ep, struct rdma_cm_id *id)
{
    struct ibv_qp_init_attr a = {
        .send_cq = tp->cq, .recv_cq = tp->cq, .srq = tp->srq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = (uint32_t)tp->sq_depth,
                 .max_recv_wr = tp->srq ? 0 : (uint32_t)tp->nrx,
                 .max_send_sge = (uint32_t)tp->max_sge, .max_recv_sge = 1,
                 .max_inline_data = tp->inline_max },
    };
    if (rdma_create_qp(id, tp->pd, &a)) {
        snprintf(ep->why, sizeof ep->why, "creating a queue pair for %s: %s", ep->name,
                 strerror(errno));
        return -1;
    }
    ep->qp = id->qp;
    ep->qpn = id->qp->qp_num;
    ep->inline_max = a.cap.max_inline_data < VERBS_INLINE_WANT ? a.cap.max_inline_data
                                                               : VERBS_INLINE_WANT;
    ep->sq_used = 0;
    ep->disconnected = ep->last_wqe = 0;
    verbs_qpn_add(tp, ep);
    return 0;
}

/* ep's id and queue pair go now: an attempt (no work request was posted on
 * it), or a connection whose work requests came back (verbs_reap). */
static void verbs_id_destroy(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    for (int i = 0; ep->rx && i < ep->nrx; i++)
        if (ep->rx[i].posted) { /* gone with the queue pair, without a completion */
            ep->rx[i].posted = 0;
            tp->rx_total--;
        }
    ep->rx_posted = 0;
    if (ep->qp) {
        verbs_qpn_del(tp, ep);
        rdma_destroy_qp(ep->id);
        ep->qp = NULL;
    }
    if (ep->id)
        rdma_destroy_id(ep->id);
    ep->id = NULL;
}

static void verbs_resolve_addr(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    struct sockaddr_storage dst;
    memset(&dst, 0, sizeof dst);
    if (ep->addr.family == 4) {
        struct sockaddr_in *in = (struct sockaddr_in *)&dst;
        in->sin_family = AF_INET;
        in->sin_port = htons(ep->addr.port);
        memcpy(&in->sin_addr, ep->addr.ip, 4);
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&dst;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(ep->addr.port);
        memcpy(&in6->sin6_addr, ep->addr.ip, 16);
    }
    struct sockaddr_storage src = tp->ch.sa; /* the chosen device, any port */
    if (src.ss_family == AF_INET)
        ((struct sockaddr_in *)&src)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)&src)->sin6_port = 0;
    if (rdma_create_id(tp->cm, &ep->id, ep, RDMA_PS_TCP)) {
        ep->id = NULL;
        verbs_ep_event(tp, ep, VE_ADDR_ERROR, "rdma_create_id for %s: %s", ep->name,
                       strerror(errno));
        return;
    }
    if (rdma_resolve_addr(ep->id, (struct sockaddr *)&src, (struct sockaddr *)&dst,
                          VERBS_TIMEOUT_MS))
        verbs_ep_event(tp, ep, VE_ADDR_ERROR, "resolving the address of %s: %s", ep->name,
                       strerror(errno));
}

/* Who speaks to whom, then encode: between this rank and job rank peer
 * (port_key NULL), or on a port (the PORT type; the connector's id only in
 * a request; proved with port_key). */
static void verbs_cm_seal(faro_tp_t *tp, struct verbs_cm *m, int peer, const uint8_t *port_key,
                          uint64_t id, uint64_t bind, uint8_t pd[VERBS_CM_LEN])
{
    m->buf_size = (uint32_t)tp->buf_size;
    if (port_key) {
        m->type += VERBS_CM_PORT;
        m->id = m->type == VERBS_CM_PORT_REQUEST ? id : 0;
        m->size = m->dest = 0;
    } else {
        m->id = (uint64_t)tp->env->rank;
        m->size = (uint32_t)tp->env->size;
        m->dest = (uint32_t)peer;
    }
    verbs_cm_encode(pd, m, port_key ? port_key : tp->key16, bind);
}

static const uint8_t *verbs_ep_key(faro_tp_t *tp, const struct faro_tp_ep *ep)
{
    return ep->keyed ? ep->key16 : tp->key16;
}

static void verbs_send_request(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    uint8_t pd[VERBS_CM_LEN];
    struct rdma_conn_param p;
    if (verbs_qp_create(tp, ep, ep->id) < 0) {
        verbs_ep_event(tp, ep, VE_CONNECT_ERROR, "%s", ep->why);
        return;
    }
    if (getrandom(&ep->nonce, sizeof ep->nonce, 0) != (ssize_t)sizeof ep->nonce)
        ep->nonce = tp->instance ^ ((uint64_t)ep->rank << 40) ^ (uint64_t)(verbs_now() * 1e9);
    struct verbs_cm m = { .type = VERBS_CM_REQUEST, .ctl = 1, .credits = (uint16_t)(tp->nrx - 1),
                          .nonce = ep->nonce };
    verbs_cm_seal(tp, &m, ep->rank, ep->keyed ? ep->key16 : NULL, ep->conn_id,
                  ep->addr.instance, pd);
    verbs_conn_param(tp, &p, pd, 255);
    if (rdma_connect(ep->id, &p))
        verbs_ep_event(tp, ep, VE_CONNECT_ERROR, "connecting to %s: %s", ep->name,
                       strerror(errno));
}

static void verbs_answer(faro_tp_t *tp, struct verbs_req *req, int verdict)
{
    uint8_t pd[VERBS_CM_LEN];
    struct verbs_cm m = { .type = VERBS_CM_REJECT, .verdict = (uint8_t)verdict,
                          .nonce = req->m.nonce };
    verbs_cm_seal(tp, &m, (int)req->m.id, req->port ? req->key16 : NULL, 0, 0, pd);
    (void)rdma_reject(req->id, pd, VERBS_CM_LEN);
    rdma_destroy_id(req->id);
    req->id = NULL;
}

static void verbs_accept(faro_tp_t *tp, struct faro_tp_ep *ep, struct verbs_req *req)
{
    uint8_t pd[VERBS_CM_LEN];
    struct rdma_conn_param p;
    ep->id = req->id;
    ep->id->context = ep;
    req->id = NULL;
    if (verbs_credit_init(&ep->cr, req->m.credits, req->m.ctl, (uint32_t)tp->nrx - 1) < 0) {
        verbs_ep_event(tp, ep, VE_CONNECT_ERROR, "%s granted %u credits (allowed: 1..%u)",
                       ep->name, req->m.credits, VERBS_CREDIT_MAX);
        return;
    }
    if (verbs_qp_create(tp, ep, ep->id) < 0 ||
        verbs_ep_rx_post(tp, ep, ep->why, sizeof ep->why) < 0) {
        (void)rdma_reject(ep->id, NULL, 0); /* the connector hears of it at once */
        if (ep->keyed) /* the owner may just drop it: the reason is this process's to say */
            faro_warn("verbs: could not take %s: %s", ep->name, ep->why);
        verbs_ep_event(tp, ep, VE_CONNECT_ERROR, "%s", ep->why);
        return;
    }
    struct verbs_cm m = { .type = VERBS_CM_ACCEPT, .ctl = 1, .credits = (uint16_t)(tp->nrx - 1),
                          .nonce = req->m.nonce };
    verbs_cm_seal(tp, &m, ep->rank, ep->keyed ? ep->key16 : NULL, 0, 0, pd);
    verbs_conn_param(tp, &p, pd, req->initiator_depth);
    if (rdma_accept(ep->id, &p))
        verbs_ep_event(tp, ep, VE_CONNECT_ERROR, "accepting %s: %s", ep->name, strerror(errno));
}

static void verbs_hello(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    if (verbs_ep_rx_post(tp, ep, ep->why, sizeof ep->why) < 0) {
        verbs_ep_event(tp, ep, VE_QP_ERROR, "%s", ep->why);
        return;
    }
    if (verbs_send_ctl(tp, ep, VERBS_KIND_HELLO, 1) < 0)
        verbs_ep_event(tp, ep, VE_QP_ERROR, "cannot send the hello to %s", ep->name);
}

static void verbs_act(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned a, struct verbs_req *req)
{
    if (a & (VA_REJECT_COLLISION | VA_REJECT))
        verbs_answer(tp, req, a & VA_REJECT ? VERBS_REJ_REFUSED : VERBS_REJ_COLLISION);
    if (a & VA_DROP_ATTEMPT)
        verbs_id_destroy(tp, ep);
    if (a & VA_RESOLVE_ADDR)
        verbs_resolve_addr(tp, ep);
    if ((a & VA_RESOLVE_ROUTE) && rdma_resolve_route(ep->id, VERBS_TIMEOUT_MS))
        verbs_ep_event(tp, ep, VE_ROUTE_ERROR, "resolving the route to %s: %s", ep->name,
                       strerror(errno));
    if (a & VA_CONNECT)
        verbs_send_request(tp, ep);
    if (a & VA_ACCEPT)
        verbs_accept(tp, ep, req);
    if (a & VA_SEND_HELLO)
        verbs_hello(tp, ep);
    if ((a & VA_START_SENDS) && ep->qhead)
        verbs_list(tp, ep);
    if ((a & VA_SEND_BYE) && verbs_send_ctl(tp, ep, VERBS_KIND_BYE, 0) < 0)
        verbs_ep_event(tp, ep, VE_BYE_SENT, NULL); /* no goodbye: close all the same */
    if ((a & VA_DISCONNECT) && ep->id && !ep->disconnected) {
        ep->disconnected = 1;
        (void)rdma_disconnect(ep->id);
    }
    if ((a & VA_DESTROY) && (ep->id || ep->qp) && !ep->zombie) {
        ep->zombie = 1;
        ep->zombie_since = verbs_now();
        tp->nzombie++;
    }
    if (a & VA_FAIL_QUEUE) {
        ep->fail_queue = 1;
        tp->nreport++;
    }
    if (a & (VA_REPORT_LOST | VA_REPORT_ORDERLY)) {
        ep->report = a & VA_REPORT_LOST ? VERBS_REPORT_LOST : VERBS_REPORT_ORDERLY;
        tp->nreport++;
    }
}

static void verbs_step(faro_tp_t *tp, struct faro_tp_ep *ep, enum verbs_cev ev,
                       struct verbs_req *req)
{
    int before = ep->conn.state;
    unsigned a = verbs_conn_step(&ep->conn, ev, tp->env->rank < ep->rank);
    tp->nopening += verbs_busy(ep->conn.state) - verbs_busy(before);
    if (ep->conn.state != before)
        faro_info(2, "verbs: %s: %s, %s -> %s", ep->name, verbs_conn_event_name(ev),
                  verbs_conn_state_name(before), verbs_conn_state_name(ep->conn.state));
    verbs_act(tp, ep, a, req);
}

void verbs_ep_event(faro_tp_t *tp, struct faro_tp_ep *ep, enum verbs_cev ev, const char *fmt, ...)
{
    if (fmt && ep->conn.state != VC_FAILED && ep->conn.state != VC_CLOSED) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ep->why, sizeof ep->why, fmt, ap);
        va_end(ap);
    }
    verbs_step(tp, ep, ev, NULL);
}

/* ---- rdma_cm events ---- */

static void verbs_refused(faro_tp_t *tp, struct rdma_cm_id *id, const char *why)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    struct sockaddr *sa = rdma_get_peer_addr(id);
    double now = verbs_now();
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, ip, sizeof ip);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)sa)->sin6_addr, ip, sizeof ip);
    (void)rdma_reject(id, NULL, 0);
    rdma_destroy_id(id);
    if (tp->refused++ && now - tp->warned_at < VERBS_WARN_EVERY_S)
        return;
    tp->warned_at = now;
    faro_warn("verbs: refused a connection from %s: %s", ip, why);
}

/* A request that proved an open port's key: a new endpoint, if the owner
 * takes it. */
static void verbs_port_request(faro_tp_t *tp, struct verbs_req *req)
{
    const faro_tp_env_t *env = tp->env;
    if (tp->finalizing) { /* no new client now */
        verbs_answer(tp, req, VERBS_REJ_REFUSED);
        return;
    }
    if (req->m.buf_size != tp->buf_size) {
        faro_error("verbs: client %llu of port %u uses FARO_VERBS_BUF_SIZE=%u, this process "
                   "%zu: set it the same for both jobs", (unsigned long long)req->m.id,
                   req->port, req->m.buf_size, tp->buf_size);
        verbs_answer(tp, req, VERBS_REJ_REFUSED);
        return;
    }
    struct faro_tp_ep *ep = verbs_port_ep(tp, req->m.id, req->port, req->key16);
    if (ep && env->accepted)
        ep->ctx = env->accepted(env->core, ep, req->m.id, req->port);
    if (!ep || !ep->ctx) { /* refused by the owner: nothing of it is delivered */
        verbs_answer(tp, req, VERBS_REJ_REFUSED);
        if (ep)
            verbs_ep_event(tp, ep, VE_CLOSE, NULL);
        faro_info(2, "verbs: %s refused by the owner", ep ? ep->name : "a port's client");
        return;
    }
    faro_info(2, "verbs: %s connects", ep->name);
    verbs_step(tp, ep, VE_REQUEST, req);
    if (req->id)
        verbs_answer(tp, req, VERBS_REJ_REFUSED);
}

static void verbs_request(faro_tp_t *tp, const struct verbs_cmev *c)
{
    const faro_tp_env_t *env = tp->env;
    struct verbs_req req = { .id = c->id, .initiator_depth = c->initiator_depth,
                             .responder_resources = c->responder_resources };
    char why[160];
    int rc = verbs_cm_decode(c->pd, c->pdlen, tp->key16, tp->instance, &req.m);
    if (rc == VERBS_WIRE_PROOF &&
        (req.port = verbs_port_match(tp, c->pd, c->pdlen, &req.m, req.key16))) {
        verbs_port_request(tp, &req);
        return;
    }
    if (rc || req.m.type != VERBS_CM_REQUEST || req.m.dest != (uint32_t)env->rank ||
        req.m.size != (uint32_t)env->size) {
        snprintf(why, sizeof why, "%s", rc == VERBS_WIRE_PROOF
                                            ? "it proved neither this job's key nor the key "
                                              "of an open port (a process of another job, or "
                                              "of an earlier run, or a port closed since)"
                                        : rc ? verbs_wire_strerror(rc)
                                             : "it was meant for another rank or job size");
        verbs_refused(tp, c->id, why);
        return;
    }
    struct faro_tp_ep *ep = tp->job[req.m.id];
    if (req.m.buf_size != tp->buf_size) {
        faro_error("verbs: rank %llu uses FARO_VERBS_BUF_SIZE=%u, this rank %zu: set it the "
                   "same for every rank", (unsigned long long)req.m.id, req.m.buf_size,
                   tp->buf_size);
        verbs_answer(tp, &req, VERBS_REJ_REFUSED);
        return;
    }
    if (!ep) { /* a new peer: the owner hears of it before any of its messages */
        if (!(ep = verbs_job_ep(tp, (int)req.m.id))) {
            verbs_answer(tp, &req, VERBS_REJ_REFUSED);
            return;
        }
        if (env->accepted)
            ep->ctx = env->accepted(env->core, ep, req.m.id, 0);
        if (!ep->ctx) {
            verbs_answer(tp, &req, VERBS_REJ_REFUSED);
            verbs_disconnect(tp, ep);
            return;
        }
    }
    verbs_step(tp, ep, VE_REQUEST, &req);
    if (req.id) /* neither accepted nor answered (cannot happen: the machine always answers) */
        verbs_answer(tp, &req, VERBS_REJ_REFUSED);
}

/* The connector's check of the acceptor's answer. 0, or -1 with ep->why set. */
static int verbs_check_accept(faro_tp_t *tp, struct faro_tp_ep *ep, const struct verbs_cmev *c)
{
    const faro_tp_env_t *env = tp->env;
    struct verbs_cm m;
    int rc = verbs_cm_decode(c->pd, c->pdlen, verbs_ep_key(tp, ep), 0, &m);
    int job = !ep->keyed;
    if (rc || m.type != (job ? VERBS_CM_ACCEPT : VERBS_CM_PORT_ACCEPT) ||
        m.nonce != ep->nonce || m.buf_size != tp->buf_size ||
        (job && (m.id != (uint64_t)ep->rank || m.dest != (uint32_t)env->rank ||
                 m.size != (uint32_t)env->size))) {
        snprintf(ep->why, sizeof ep->why, "%s answered without proof of %s (%s)", ep->name,
                 job ? "this job's key" : "the port's key",
                 rc ? verbs_wire_strerror(rc) : "wrong fields");
        return -1;
    }
    if (verbs_credit_init(&ep->cr, m.credits, m.ctl, (uint32_t)tp->nrx - 1) < 0) {
        snprintf(ep->why, sizeof ep->why, "%s granted %u credits", ep->name, m.credits);
        return -1;
    }
    return 0;
}

static void verbs_rejected(faro_tp_t *tp, struct faro_tp_ep *ep, const struct verbs_cmev *c)
{
    struct verbs_cm m;
    int rc = verbs_cm_decode(c->pd, c->pdlen, verbs_ep_key(tp, ep), 0, &m);
    int job = !ep->keyed;
    if (!rc && m.type == (job ? VERBS_CM_REJECT : VERBS_CM_PORT_REJECT) &&
        m.nonce == ep->nonce && (!job || m.id == (uint64_t)ep->rank)) {
        if (m.verdict == VERBS_REJ_COLLISION)
            verbs_ep_event(tp, ep, VE_REJECTED_COLLISION, NULL);
        else
            verbs_ep_event(tp, ep, VE_REJECTED, "%s refused the connection (%s)", ep->name,
                           job ? "see its error output"
                               : "its owner did not take it, or it is finalizing");
        return;
    }
    if (job)
        verbs_ep_event(tp, ep, VE_REJECTED, "the connection to rank %d was rejected (status "
                       "%d): no Faro process of this job listens there (did rank %d end?)",
                       ep->rank, c->status, ep->rank);
    else
        verbs_ep_event(tp, ep, VE_REJECTED, "the connection to %s was rejected (status %d): "
                       "the key opens no port there (was the port closed?), no Faro process "
                       "listens there any more, or it could not take one more connection (see "
                       "its error output)", ep->name, c->status);
}

static const char *verbs_status(int status, char *buf, size_t len)
{
    if (status < 0)
        snprintf(buf, len, "%s", strerror(-status));
    else
        snprintf(buf, len, "status %d", status);
    return buf;
}

static void verbs_cm_event(faro_tp_t *tp, const struct verbs_cmev *c)
{
    char st[64];
    if (c->type == RDMA_CM_EVENT_CONNECT_REQUEST) {
        verbs_request(tp, c);
        return;
    }
    struct faro_tp_ep *ep = c->id->context;
    if (!ep || ep->id != c->id) { /* the listening id, or an id already replaced */
        if (c->type == RDMA_CM_EVENT_DEVICE_REMOVAL)
            for (ep = tp->eps; ep; ep = ep->next)
                verbs_ep_event(tp, ep, VE_DEVICE_REMOVAL, "the RDMA device %s was removed",
                               tp->ch.dev);
        return;
    }
    switch (c->type) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (c->id->verbs != tp->ctx)
            verbs_ep_event(tp, ep, VE_ADDR_ERROR, "%s is reached through another RDMA "
                           "device than %s (set FARO_VERBS_DEVICE?)", ep->name, tp->ch.dev);
        else
            verbs_ep_event(tp, ep, VE_ADDR_RESOLVED, NULL);
        break;
    case RDMA_CM_EVENT_ADDR_ERROR:
        verbs_ep_event(tp, ep, VE_ADDR_ERROR, "cannot resolve the address of %s: %s", ep->name,
                       verbs_status(c->status, st, sizeof st));
        break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
        verbs_ep_event(tp, ep, VE_ROUTE_RESOLVED, NULL);
        break;
    case RDMA_CM_EVENT_ROUTE_ERROR:
        verbs_ep_event(tp, ep, VE_ROUTE_ERROR, "no route to %s: %s", ep->name,
                       verbs_status(c->status, st, sizeof st));
        break;
    case RDMA_CM_EVENT_ESTABLISHED:
        if (ep->conn.state == VC_CONNECTING && verbs_check_accept(tp, ep, c) < 0)
            verbs_ep_event(tp, ep, VE_REJECTED, "%s", ep->why);
        else
            verbs_ep_event(tp, ep, VE_ESTABLISHED, NULL);
        break;
    case RDMA_CM_EVENT_REJECTED:
        verbs_rejected(tp, ep, c);
        break;
    case RDMA_CM_EVENT_UNREACHABLE:
        verbs_ep_event(tp, ep, VE_UNREACHABLE, "%s is unreachable: %s", ep->name,
                       verbs_status(c->status, st, sizeof st));
        break;
    case RDMA_CM_EVENT_CONNECT_ERROR:
        verbs_ep_event(tp, ep, VE_CONNECT_ERROR, "connecting with %s failed: %s", ep->name,
                       verbs_status(c->status, st, sizeof st));
        break;
    case RDMA_CM_EVENT_DISCONNECTED:
        (void)verbs_poll_cq(tp, 1 << 30); /* a goodbye already received comes first */
        verbs_ep_event(tp, ep, VE_DISCONNECTED, "%s disconnected without saying goodbye "
                       "(did its process end?)", ep->name);
        break;
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
        verbs_ep_event(tp, ep, VE_DEVICE_REMOVAL, "the RDMA device %s was removed", tp->ch.dev);
        break;
    default: /* TIMEWAIT_EXIT, ADDR_CHANGE, ... */
        break;
    }
}

void verbs_cm_poll(faro_tp_t *tp)
{
    struct rdma_cm_event *e;
    while (rdma_get_cm_event(tp->cm, &e) == 0) { /* the channel's fd is non-blocking */
        struct verbs_cmev c = { .type = e->event, .id = e->id, .status = e->status };
        if (e->id->ps == RDMA_PS_TCP && e->param.conn.private_data) {
            c.pdlen = e->param.conn.private_data_len < sizeof c.pd
                          ? e->param.conn.private_data_len : sizeof c.pd;
            memcpy(c.pd, e->param.conn.private_data, c.pdlen);
            c.initiator_depth = e->param.conn.initiator_depth;
            c.responder_resources = e->param.conn.responder_resources;
        }
        rdma_ack_cm_event(e); /* before anything may destroy its id */
        verbs_cm_event(tp, &c);
    }
}

/* ---- reports, teardown ---- */

/* ep_lost and failed queues, from progress. */
int verbs_report(faro_tp_t *tp)
{
    const faro_tp_env_t *env = tp->env;
    int n = 0;
    for (struct faro_tp_ep *ep = tp->eps; ep && tp->nreport > 0; ep = ep->next) {
        if (ep->fail_queue) {
            ep->fail_queue = 0;
            tp->nreport--;
            verbs_queue_fail(tp, ep);
        }
        if (ep->report == VERBS_REPORT_NONE)
            continue;
        int orderly = ep->report == VERBS_REPORT_ORDERLY;
        ep->report = VERBS_REPORT_NONE;
        tp->nreport--;
        n++;
        if (tp->finalizing)
            continue;
        if (ep->ctx && env->ep_lost)
            env->ep_lost(env->core, ep->ctx, orderly, orderly ? NULL : ep->why);
        else if (!orderly)
            faro_error("verbs: %s", ep->why);
    }
    return n;
}

/* Destroy the queue pairs whose work requests all came back. */
void verbs_reap(faro_tp_t *tp)
{
    double now = verbs_now();
    for (struct faro_tp_ep *ep = tp->eps; ep && tp->nzombie; ep = ep->next) {
        if (!ep->zombie)
            continue;
        if (ep->id && !ep->disconnected) { /* to the error state: its work is flushed */
            ep->disconnected = 1;
            (void)rdma_disconnect(ep->id);
        }
        double age = now - ep->zombie_since;
        int flushed = ep->sq_used == 0 && ep->rx_posted == 0 &&
                      (!tp->srq || ep->last_wqe || age > VERBS_LAST_WQE_S);
        if (!flushed) {
            if (age < VERBS_REAP_S)
                continue;
            (void)verbs_poll_cq(tp, 1 << 30); /* what did come is handled first */
            verbs_tx_abandon(tp, ep);
        }
        verbs_id_destroy(tp, ep);
        if (ep->keyed) /* a port's connection is never made again: its buffers go */
            verbs_ep_rx_free(ep);
        ep->zombie = 0;
        tp->nzombie--;
    }
}

/* Finalize: a goodbye to every peer still there, then wait (bounded) until
 * the goodbyes went out and the connections closed. */
void verbs_say_bye(faro_tp_t *tp)
{
    for (struct faro_tp_ep *ep = tp->eps; ep; ep = ep->next)
        verbs_step(tp, ep, VE_CLOSE, NULL);
    double end = verbs_now() + VERBS_DRAIN_S;
    while (verbs_now() < end) {
        int busy = tp->inflight > 0 || tp->nzombie > 0;
        for (struct faro_tp_ep *ep = tp->eps; ep && !busy; ep = ep->next)
            busy = ep->conn.state == VC_CLOSING;
        if (!busy || verbs_progress(tp) < 0)
            break;
        tp->slow_due = 1;
    }
}

void verbs_free_eps(faro_tp_t *tp)
{
    while (tp->eps) {
        struct faro_tp_ep *ep = tp->eps;
        tp->eps = ep->next;
        verbs_queue_fail(tp, ep);
        verbs_id_destroy(tp, ep);
        verbs_ep_rx_free(ep);
        free(ep);
    }
}
