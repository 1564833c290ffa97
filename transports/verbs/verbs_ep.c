/*
 * verbs transport: endpoints. Address blobs, connect to a job rank or to a
 * port, listen (ports), the port a connect request proves, disconnect, and
 * the queue pair number table the shared receive queue finds senders by.
 *
 * Ports (transport.h, "Identities, keys and endpoints outside the job"): a
 * port is a key that listen() opened; its clients reach this process at the
 * address of its one listening rdma_cm id, as job ranks do. The key never
 * travels: a client's connect request (verbs_wire.h, the PORT types) carries
 * a proof of it, a SipHash of the request and of this process's instance
 * number under the key, which only a holder of the key can make and which
 * only this process instance takes. The acceptor tries the job key first,
 * then the key of every open port; a request that proves none is rejected
 * before anything else happens: no queue pair, no receive buffer, no upcall
 * (verbs_refused). Otherwise the owner's accepted upcall decides, before the
 * accept, and the accept in turn proves the key to the client, echoing its
 * nonce; as for job ranks, the client speaks first (its hello), and nothing
 * reaches a handler before it. Each connect to a port makes a new endpoint,
 * on either side; a port connection never settles collisions (two processes
 * that connect to each other's ports keep both connections).
 */
#include "config.h"

#include "verbs/verbs.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* ---- queue pair number -> endpoint ---- */

void verbs_qpn_add(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    struct faro_tp_ep **b = &tp->qpn_tab[ep->qpn % VERBS_QPN_BUCKETS];
    ep->hnext = *b;
    *b = ep;
}

void verbs_qpn_del(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    for (struct faro_tp_ep **p = &tp->qpn_tab[ep->qpn % VERBS_QPN_BUCKETS]; *p; p = &(*p)->hnext)
        if (*p == ep) {
            *p = ep->hnext;
            return;
        }
}

struct faro_tp_ep *verbs_ep_by_qpn(faro_tp_t *tp, uint32_t qpn)
{
    for (struct faro_tp_ep *ep = tp->qpn_tab[qpn % VERBS_QPN_BUCKETS]; ep; ep = ep->hnext)
        if (ep->qpn == qpn && ep->qp)
            return ep;
    return NULL;
}

/* ---- endpoints ---- */

int verbs_addr_get(faro_tp_t *tp, void *blob, size_t *len)
{
    if (*len < VERBS_ADDR_LEN)
        return FARO_TP_ERR;
    memcpy(blob, tp->blob, VERBS_ADDR_LEN);
    *len = VERBS_ADDR_LEN;
    return FARO_TP_OK;
}

static struct faro_tp_ep *verbs_ep_alloc(faro_tp_t *tp, int rank)
{
    struct faro_tp_ep *ep = calloc(1, sizeof *ep);
    if (!ep) {
        faro_error("verbs: out of memory for an endpoint");
        return NULL;
    }
    ep->rank = rank;
    ep->qtail = &ep->qhead;
    ep->conn.state = VC_IDLE;
    ep->next = tp->eps;
    tp->eps = ep;
    return ep;
}

struct faro_tp_ep *verbs_job_ep(faro_tp_t *tp, int rank)
{
    struct faro_tp_ep *ep = verbs_ep_alloc(tp, rank);
    if (ep) {
        snprintf(ep->name, sizeof ep->name, "rank %d", rank);
        tp->job[rank] = ep;
    }
    return ep;
}

struct faro_tp_ep *verbs_port_ep(faro_tp_t *tp, uint64_t id, unsigned port,
                                 const uint8_t key16[16])
{
    struct faro_tp_ep *ep = verbs_ep_alloc(tp, -1);
    if (!ep)
        return NULL;
    ep->keyed = 1;
    ep->port = port;
    ep->conn_id = id;
    memcpy(ep->key16, key16, 16);
    snprintf(ep->name, sizeof ep->name, "client %llu of port %u", (unsigned long long)id, port);
    return ep;
}

static const char *verbs_addr_str(const struct verbs_addr *a, char *buf, size_t len)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->ip, ip, sizeof ip);
    snprintf(buf, len, a->family == 4 ? "%s:%u" : "[%s]:%u", ip, a->port);
    return buf;
}

/* connect with a key: a new endpoint to the port at a, every time. */
static int verbs_port_connect(faro_tp_t *tp, const faro_tp_conn_t *conn,
                              const struct verbs_addr *a, faro_tp_ep_t **out)
{
    char where[64];
    if (conn->keylen == 0 || conn->keylen > FARO_TP_MAX_KEY) {
        faro_error("verbs: connect: a port key of %zu bytes (allowed: 1..%d)", conn->keylen,
                   FARO_TP_MAX_KEY);
        return FARO_TP_ERR;
    }
    if (a->buf_size != tp->buf_size) {
        faro_error("verbs: the port at %s uses FARO_VERBS_BUF_SIZE=%u, this process %zu: set "
                   "it the same for both jobs", verbs_addr_str(a, where, sizeof where),
                   a->buf_size, tp->buf_size);
        return FARO_TP_ERR;
    }
    uint8_t key16[16];
    verbs_key16(conn->key, conn->keylen, key16);
    struct faro_tp_ep *ep = verbs_port_ep(tp, conn->id, 0, key16);
    if (!ep)
        return FARO_TP_ERR;
    snprintf(ep->name, sizeof ep->name, "the port at %s", verbs_addr_str(a, where, sizeof where));
    ep->ctx = conn->ctx;
    ep->addr = *a;
    ep->have_addr = 1;
    *out = ep;
    verbs_ep_event(tp, ep, VE_CONNECT, NULL);
    return FARO_TP_OK;
}

int verbs_connect(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **out)
{
    const faro_tp_env_t *env = tp->env;
    struct verbs_addr a;

    *out = NULL;
    int rc = verbs_addr_decode(conn->addr, conn->addrlen, &a);
    if (rc) {
        faro_error("verbs: connect: the address blob of %zu bytes is %s", conn->addrlen,
                   verbs_wire_strerror(rc));
        return FARO_TP_ERR;
    }
    if (conn->key)
        return verbs_port_connect(tp, conn, &a, out);
    if (a.rank >= (uint32_t)env->size || (int)a.rank == env->rank) {
        faro_error("verbs: connect: the address is of rank %u, not another rank of this job "
                   "(0..%d, this is %d)", a.rank, env->size - 1, env->rank);
        return FARO_TP_ERR;
    }
    if (a.buf_size != tp->buf_size) {
        faro_error("verbs: rank %u uses FARO_VERBS_BUF_SIZE=%u, this rank %zu: set it the "
                   "same for every rank", a.rank, a.buf_size, tp->buf_size);
        return FARO_TP_ERR;
    }
    struct faro_tp_ep *ep = tp->job[a.rank];
    if (ep) { /* connecting, connected or accepted already */
        if (!ep->ctx)
            ep->ctx = conn->ctx;
        *out = ep;
        return FARO_TP_OK;
    }
    if (!(ep = verbs_job_ep(tp, (int)a.rank)))
        return FARO_TP_ERR;
    ep->ctx = conn->ctx;
    ep->addr = a;
    ep->have_addr = 1;
    *out = ep;
    verbs_ep_event(tp, ep, VE_CONNECT, NULL);
    return FARO_TP_OK;
}

int verbs_listen(faro_tp_t *tp, const uint8_t *key, size_t keylen, unsigned *port)
{
    return faro_tp_ports_open(&tp->ports, "verbs", key, keylen, port);
}

int verbs_unlisten(faro_tp_t *tp, unsigned port)
{
    return faro_tp_ports_close(&tp->ports, port);
}

unsigned verbs_port_match(faro_tp_t *tp, const uint8_t *pd, size_t pdlen, struct verbs_cm *m,
                          uint8_t key16[16])
{
    unsigned port = 0;
    for (unsigned i = 1; i <= FARO_TP_PORTS_MAX; i++) { /* every slot: constant time */
        uint8_t k[16];
        struct verbs_cm d;
        verbs_key16(tp->ports.slot[i].key, tp->ports.slot[i].keylen, k);
        int ok = verbs_cm_decode(pd, pdlen, k, tp->instance, &d) == VERBS_WIRE_OK &&
                 d.type == VERBS_CM_PORT_REQUEST;
        if (ok && tp->ports.slot[i].open && !port) {
            port = i;
            *m = d;
            memcpy(key16, k, 16);
        }
    }
    return port;
}

int verbs_disconnect(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    if (ep->qhead && ep->conn.state == VC_UP)
        return FARO_TP_AGAIN; /* let progress post what is queued first */
    verbs_ep_event(tp, ep, VE_CLOSE, NULL);
    if (ep->rank >= 0 && tp->job[ep->rank] == ep)
        tp->job[ep->rank] = NULL; /* a later connect makes a new endpoint */
    return FARO_TP_OK;
}
