/*
 * verbs transport: the connection state machine (verbs_conn.h has the
 * picture). One function, a switch per state; every (state, event) pair not
 * named is ignored on purpose: a stale event of an attempt already dropped,
 * or a duplicate.
 */
#include "config.h"

#include "verbs/verbs_conn.h"

/* The endpoint is lost: drop what is left of our attempt, fail the queue,
 * and report it once (not after the owner closed it). */
static unsigned conn_fail(struct verbs_conn *c, unsigned extra)
{
    unsigned a = extra | VA_FAIL_QUEUE;
    if (c->attempt) {
        a |= VA_DROP_ATTEMPT;
        c->attempt = 0;
    }
    if (!c->reported && !c->closed)
        a |= VA_REPORT_LOST;
    c->reported = 1;
    c->state = VC_FAILED;
    return a;
}

/* The peer's request while our own attempt is pending: the lower rank's stands. */
static unsigned conn_collide(struct verbs_conn *c, int me_lower)
{
    if (me_lower)
        return VA_REJECT_COLLISION;
    c->attempt = 0;
    c->state = VC_ACCEPTING;
    return VA_DROP_ATTEMPT | VA_ACCEPT;
}

/* The owner closes before the connection is up: nothing was sent on it. */
static unsigned conn_close_early(struct verbs_conn *c)
{
    unsigned a = VA_FAIL_QUEUE;
    if (c->attempt) {
        a |= VA_DROP_ATTEMPT;
        c->attempt = 0;
    }
    c->closed = c->reported = 1;
    c->state = VC_CLOSED;
    return a;
}

/* Before the connection is up: an attempt of ours, or waiting for the peer's. */
static unsigned conn_step_opening(struct verbs_conn *c, enum verbs_cev ev, int me_lower)
{
    switch (ev) {
    case VE_CONNECT:
        if (c->state != VC_IDLE)
            return 0;
        c->attempt = 1;
        c->state = VC_RESOLVING_ADDR;
        return VA_RESOLVE_ADDR;
    case VE_ADDR_RESOLVED:
        if (c->state != VC_RESOLVING_ADDR)
            return 0;
        c->state = VC_RESOLVING_ROUTE;
        return VA_RESOLVE_ROUTE;
    case VE_ROUTE_RESOLVED:
        if (c->state != VC_RESOLVING_ROUTE)
            return 0;
        c->state = VC_CONNECTING;
        return VA_CONNECT;
    case VE_ESTABLISHED:
        if (c->state != VC_CONNECTING)
            return 0;
        c->attempt = 0; /* the attempt is the connection now */
        c->state = VC_UP;
        return VA_SEND_HELLO | VA_START_SENDS;
    case VE_REQUEST:
        if (c->state == VC_IDLE || c->state == VC_WAIT_PEER) {
            c->state = VC_ACCEPTING;
            return VA_ACCEPT;
        }
        return conn_collide(c, me_lower);
    case VE_REJECTED_COLLISION:
        if (c->state != VC_CONNECTING)
            return 0;
        if (me_lower) /* the higher rank must accept ours: it broke the protocol */
            return conn_fail(c, 0);
        c->attempt = 0;
        c->state = VC_WAIT_PEER;
        return VA_DROP_ATTEMPT;
    case VE_ADDR_ERROR:
        return c->state == VC_RESOLVING_ADDR ? conn_fail(c, 0) : 0;
    case VE_ROUTE_ERROR:
        return c->state == VC_RESOLVING_ROUTE ? conn_fail(c, 0) : 0;
    case VE_REJECTED:
    case VE_UNREACHABLE:
    case VE_CONNECT_ERROR:
    case VE_DISCONNECTED:
    case VE_QP_ERROR:
        return c->state == VC_CONNECTING ? conn_fail(c, 0) : 0;
    case VE_CLOSE:
        return conn_close_early(c);
    case VE_DEVICE_REMOVAL:
        return conn_fail(c, 0);
    default:
        return 0;
    }
}

static unsigned conn_step_accepting(struct verbs_conn *c, enum verbs_cev ev)
{
    switch (ev) {
    case VE_HELLO:
        c->state = VC_UP;
        return VA_START_SENDS;
    case VE_REQUEST:
        return VA_REJECT_COLLISION; /* a duplicate */
    case VE_BYE: /* the connector speaks first, with its hello: broken protocol */
    case VE_QP_ERROR:
        return conn_fail(c, VA_DISCONNECT);
    case VE_DISCONNECTED:
    case VE_CONNECT_ERROR:
    case VE_UNREACHABLE:
    case VE_REJECTED:
    case VE_DEVICE_REMOVAL:
        return conn_fail(c, VA_DISCONNECT | VA_DESTROY);
    case VE_CLOSE:
        c->closed = c->reported = 1;
        c->state = VC_CLOSING;
        return VA_DISCONNECT | VA_FAIL_QUEUE;
    default:
        return 0;
    }
}

static unsigned conn_step_up(struct verbs_conn *c, enum verbs_cev ev)
{
    unsigned a;
    switch (ev) {
    case VE_BYE:
        a = VA_FAIL_QUEUE | (c->reported || c->closed ? 0 : VA_REPORT_ORDERLY);
        c->bye_in = c->reported = 1;
        c->state = VC_CLOSING;
        return a;
    case VE_CLOSE:
        c->closed = c->reported = c->bye_out = 1;
        c->state = VC_CLOSING;
        return VA_SEND_BYE;
    case VE_REQUEST:
        return VA_REJECT_COLLISION; /* stale: the other side dropped that attempt */
    case VE_QP_ERROR:
        return conn_fail(c, VA_DISCONNECT);
    case VE_DISCONNECTED:
    case VE_DEVICE_REMOVAL:
        return conn_fail(c, VA_DISCONNECT | VA_DESTROY);
    default:
        return 0;
    }
}

static unsigned conn_step_closing(struct verbs_conn *c, enum verbs_cev ev)
{
    unsigned a;
    switch (ev) {
    case VE_BYE_SENT:
        return VA_DISCONNECT;
    case VE_BYE:
        a = c->reported || c->closed ? 0 : VA_REPORT_ORDERLY;
        c->bye_in = c->reported = 1;
        return a;
    case VE_CLOSE:
        c->closed = 1;
        return c->bye_out ? 0 : VA_DISCONNECT; /* the peer said goodbye: no need for ours */
    case VE_QP_ERROR: /* flushed work after a disconnect */
        return VA_DISCONNECT;
    case VE_REQUEST:
        return VA_REJECT_COLLISION;
    case VE_DISCONNECTED:
    case VE_DEVICE_REMOVAL:
        c->state = VC_CLOSED;
        return VA_DISCONNECT | VA_DESTROY | VA_FAIL_QUEUE;
    default:
        return 0;
    }
}

/* CLOSED and FAILED: only the remains go. */
static unsigned conn_step_done(struct verbs_conn *c, enum verbs_cev ev)
{
    switch (ev) {
    case VE_DISCONNECTED:
    case VE_DEVICE_REMOVAL:
        return VA_DESTROY;
    case VE_REQUEST:
        return VA_REJECT;
    case VE_CLOSE:
        c->closed = 1;
        return 0;
    default:
        return 0;
    }
}

unsigned verbs_conn_step(struct verbs_conn *c, enum verbs_cev ev, int me_lower)
{
    switch (c->state) {
    case VC_IDLE:
    case VC_RESOLVING_ADDR:
    case VC_RESOLVING_ROUTE:
    case VC_CONNECTING:
    case VC_WAIT_PEER:
        return conn_step_opening(c, ev, me_lower);
    case VC_ACCEPTING:
        return conn_step_accepting(c, ev);
    case VC_UP:
        return conn_step_up(c, ev);
    case VC_CLOSING:
        return conn_step_closing(c, ev);
    default:
        return conn_step_done(c, ev);
    }
}

const char *verbs_conn_state_name(int state)
{
    static const char *const names[VC_NSTATES] = {
        "idle", "resolving address", "resolving route", "connecting", "waiting for the peer",
        "accepting", "up", "closing", "closed", "failed",
    };
    return state >= 0 && state < VC_NSTATES ? names[state] : "?";
}

const char *verbs_conn_event_name(int ev)
{
    static const char *const names[VE_NEVENTS] = {
        "connect", "address resolved", "address error", "route resolved", "route error",
        "established", "rejected (collision)", "rejected", "unreachable", "connect error",
        "request", "hello", "goodbye", "goodbye sent", "disconnected", "QP error", "close",
        "device removal",
    };
    return ev >= 0 && ev < VE_NEVENTS ? names[ev] : "?";
}
