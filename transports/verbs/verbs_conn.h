/*
 * verbs transport: the connection state machine of one endpoint, without the
 * device. verbs_cm.c turns rdma_cm events, work completions and the owner's
 * calls into events, feeds them here, and carries out the actions returned;
 * tests/unit/test_verbs_conn.c feeds every event in every state and plays
 * two endpoints against each other through a simulated network.
 *
 * Connector (active side):
 *
 *   IDLE --connect--> RESOLVING_ADDR --addr--> RESOLVING_ROUTE --route-->
 *   CONNECTING (the request with its private data is out) --established-->
 *   UP, sending the hello first: on iWARP the active side must speak first,
 *   so the acceptor sends nothing before the hello arrives
 *
 * Acceptor (passive side): a request that proved the job key and is meant
 * for this rank makes ACCEPTING (the owner's accepted upcall runs before the
 * accept, so it precedes any message); the hello makes UP (it may arrive
 * before rdma_cm's ESTABLISHED, which is then ignored).
 *
 * Two ranks connecting to each other at once keep the lower rank's connection,
 * as tcp does: the lower rank rejects the higher one's request with "collision"
 * while its own attempt is pending; the higher rank, on the lower one's
 * request, drops its own attempt (nothing was sent on it: data waits for UP)
 * and accepts; a higher rank whose attempt was rejected with "collision" waits
 * (WAIT_PEER) for the lower one's request, which is on its way. A request for
 * an endpoint already ACCEPTING, UP or CLOSING is a stale duplicate and is
 * rejected the same way.
 *
 * Closing: the owner's disconnect (or finalize) queues a goodbye behind the
 * endpoint's sends (CLOSING); when it completed, rdma_disconnect. The peer
 * reports the goodbye as an orderly close and disconnects when its
 * DISCONNECTED event comes. A DISCONNECTED without a goodbye, a failed work
 * completion, an address, route or connect error, or a refusal is a lost
 * endpoint (FAILED, reported once). The glue polls the completion queue dry
 * before it feeds DISCONNECTED, so a goodbye already received is seen first.
 */
#ifndef FARO_VERBS_CONN_H
#define FARO_VERBS_CONN_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

enum verbs_cstate {
    VC_IDLE,            /* created, nothing started */
    VC_RESOLVING_ADDR,  /* our attempt: rdma_resolve_addr */
    VC_RESOLVING_ROUTE, /* our attempt: rdma_resolve_route */
    VC_CONNECTING,      /* our attempt: rdma_connect, waiting for the answer */
    VC_WAIT_PEER,       /* our attempt lost a collision; the peer's request is coming */
    VC_ACCEPTING,       /* we accepted the peer's request; waiting for its hello */
    VC_UP,              /* messages flow */
    VC_CLOSING,         /* our goodbye is on its way, or the peer's arrived */
    VC_CLOSED,          /* closed in order */
    VC_FAILED,          /* lost */
    VC_NSTATES
};

enum verbs_cev {
    VE_CONNECT,           /* the owner connects: start our attempt */
    VE_ADDR_RESOLVED,
    VE_ADDR_ERROR,
    VE_ROUTE_RESOLVED,
    VE_ROUTE_ERROR,
    VE_ESTABLISHED,       /* rdma_cm, on our attempt or on the accepted connection */
    VE_REJECTED_COLLISION, /* our request was rejected: the peer's stands */
    VE_REJECTED,          /* our request was refused, or rejected without Faro's verdict */
    VE_UNREACHABLE,
    VE_CONNECT_ERROR,
    VE_REQUEST,           /* the peer's request arrived, authenticated */
    VE_HELLO,             /* the peer's first message */
    VE_BYE,               /* the peer's goodbye */
    VE_BYE_SENT,          /* our goodbye completed */
    VE_DISCONNECTED,      /* rdma_cm: the connection ended */
    VE_QP_ERROR,          /* a failed work completion or a fatal QP event */
    VE_CLOSE,             /* the owner disconnects, or finalize */
    VE_DEVICE_REMOVAL,
    VE_NEVENTS
};

/* Actions, for the glue to carry out in this order (bit order). */
enum verbs_caction {
    VA_REJECT_COLLISION = 1u << 0, /* reject the request just received: ours stands */
    VA_REJECT = 1u << 1,           /* reject the request just received: refused */
    VA_DROP_ATTEMPT = 1u << 2,     /* destroy our attempt's QP and id */
    VA_RESOLVE_ADDR = 1u << 3,
    VA_RESOLVE_ROUTE = 1u << 4,
    VA_CONNECT = 1u << 5,          /* QP, receives posted, rdma_connect with our request */
    VA_ACCEPT = 1u << 6,           /* QP on the request's id, receives, rdma_accept */
    VA_SEND_HELLO = 1u << 7,       /* the first message, before anything queued */
    VA_START_SENDS = 1u << 8,      /* post what waited for the connection */
    VA_SEND_BYE = 1u << 9,         /* queue the goodbye behind the queued sends */
    VA_DISCONNECT = 1u << 10,      /* rdma_disconnect */
    VA_DESTROY = 1u << 11,         /* QP and id go (once their events are acked) */
    VA_FAIL_QUEUE = 1u << 12,      /* queued sends complete with an error */
    VA_REPORT_ORDERLY = 1u << 13,  /* ep_lost(orderly) */
    VA_REPORT_LOST = 1u << 14,     /* ep_lost(not orderly) */
};

struct verbs_conn {
    uint8_t state;      /* enum verbs_cstate */
    uint8_t attempt;    /* our active attempt's id exists */
    uint8_t bye_in;     /* the peer said goodbye */
    uint8_t bye_out;    /* our goodbye is queued or sent */
    uint8_t closed;     /* the owner closed the endpoint */
    uint8_t reported;   /* ep_lost was called (or is not to be) */
};

/* Apply ev to c; me_lower: this rank is lower than the peer's. Returns the
 * VA_* actions. Events that do not apply in a state change nothing and
 * return 0 (stale events of a dropped attempt, duplicates). */
unsigned verbs_conn_step(struct verbs_conn *c, enum verbs_cev ev, int me_lower);

const char *verbs_conn_state_name(int state);
const char *verbs_conn_event_name(int ev);

#pragma GCC visibility pop

#endif
