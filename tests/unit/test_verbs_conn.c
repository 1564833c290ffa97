/*
 * Unit tests of the verbs transport's connection state machine (transports/
 * verbs/verbs_conn.h), without a device:
 *
 *   - every event in every state (both rank orders, every flag combination a
 *     state can have): the result is a valid state and the actions are
 *     consistent (an endpoint is reported lost or closed at most once, only
 *     a request is accepted or rejected, an attempt is dropped only when one
 *     exists and exists exactly while resolving or connecting, ...);
 *   - the transitions that matter, one by one;
 *   - two endpoints played against each other through a simulated network
 *     that delivers every event in random order: lone connects, simultaneous
 *     connects (the lower rank's connection must win, on both sides, with one
 *     connection), orderly closes from either or both sides, and a peer that
 *     dies.
 */
#include "verbs/verbs_conn.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- every event in every state ---- */

static int has_attempt(int state)
{
    return state == VC_RESOLVING_ADDR || state == VC_RESOLVING_ROUTE || state == VC_CONNECTING;
}

/* The flag combinations state s can be in. */
static int conn_variants(int s, struct verbs_conn *out)
{
    int n = 0;
    for (int f = 0; f < 16; f++) {
        struct verbs_conn c = { .state = (uint8_t)s, .attempt = (uint8_t)has_attempt(s),
                                .bye_in = f & 1, .bye_out = (f >> 1) & 1,
                                .closed = (f >> 2) & 1, .reported = (f >> 3) & 1 };
        if (s != VC_CLOSING && (c.bye_in || c.bye_out))
            continue;
        if (s == VC_CLOSING && !c.bye_in && !c.closed)
            continue; /* closing: the owner closed, or the peer said goodbye */
        if (s == VC_CLOSING && c.bye_out && !c.closed)
            continue;
        if ((c.closed || c.bye_in) && !c.reported)
            continue; /* both set reported */
        if ((s == VC_CLOSED || s == VC_FAILED) && !c.reported)
            continue;
        if (s < VC_ACCEPTING && (c.closed || c.reported))
            continue;
        if ((s == VC_ACCEPTING || s == VC_UP) && (c.closed || c.reported))
            continue;
        out[n++] = c;
    }
    return n;
}

START_TEST(test_every_event_in_every_state)
{
    long pairs = 0;
    for (int s = 0; s < VC_NSTATES; s++) {
        struct verbs_conn v[16];
        int nv = conn_variants(s, v);
        ck_assert_int_gt(nv, 0);
        for (int k = 0; k < nv; k++)
            for (int ev = 0; ev < VE_NEVENTS; ev++)
                for (int lower = 0; lower < 2; lower++) {
                    struct verbs_conn c = v[k];
                    const struct verbs_conn before = c;
                    unsigned a = verbs_conn_step(&c, (enum verbs_cev)ev, lower);
                    char what[128];
                    snprintf(what, sizeof what, "%s + %s (%s rank)", verbs_conn_state_name(s),
                             verbs_conn_event_name(ev), lower ? "lower" : "higher");
                    pairs++;
                    ck_assert_msg(c.state < VC_NSTATES, "%s: bad state", what);
                    ck_assert_msg(c.attempt == has_attempt(c.state), "%s: attempt %d in %s",
                                  what, c.attempt, verbs_conn_state_name(c.state));
                    ck_assert_msg(!(a & VA_DROP_ATTEMPT) || before.attempt,
                                  "%s: drops an attempt it does not have", what);
                    ck_assert_msg(!(a & (VA_REPORT_LOST | VA_REPORT_ORDERLY)) || !before.reported,
                                  "%s: reported twice", what);
                    ck_assert_msg((a & (VA_REPORT_LOST | VA_REPORT_ORDERLY)) !=
                                      (VA_REPORT_LOST | VA_REPORT_ORDERLY), "%s: both reports", what);
                    ck_assert_msg(!(a & VA_REPORT_LOST) || c.state == VC_FAILED,
                                  "%s: lost but %s", what, verbs_conn_state_name(c.state));
                    ck_assert_msg(!(a & (VA_REPORT_LOST | VA_REPORT_ORDERLY)) || !before.closed,
                                  "%s: reported after the owner closed it", what);
                    unsigned answers = a & (VA_ACCEPT | VA_REJECT | VA_REJECT_COLLISION);
                    ck_assert_msg(ev == VE_REQUEST ? answers && !(answers & (answers - 1)) : !answers,
                                  "%s: a request gets exactly one answer, other events none", what);
                    ck_assert_msg(!(a & VA_ACCEPT) || c.state == VC_ACCEPTING, "%s", what);
                    ck_assert_msg(!(a & VA_RESOLVE_ADDR) || c.state == VC_RESOLVING_ADDR, "%s", what);
                    ck_assert_msg(!(a & VA_RESOLVE_ROUTE) || c.state == VC_RESOLVING_ROUTE, "%s", what);
                    ck_assert_msg(!(a & VA_CONNECT) || c.state == VC_CONNECTING, "%s", what);
                    ck_assert_msg(!(a & VA_START_SENDS) || c.state == VC_UP, "%s", what);
                    ck_assert_msg(!(a & VA_SEND_HELLO) || (before.state == VC_CONNECTING &&
                                                           ev == VE_ESTABLISHED), "%s", what);
                    ck_assert_msg(!(a & VA_SEND_BYE) || c.state == VC_CLOSING, "%s", what);
                    ck_assert_msg(!(a & VA_DESTROY) || c.state == VC_CLOSED || c.state == VC_FAILED,
                                  "%s: destroys a live connection", what);
                    if (before.state == VC_CLOSED || before.state == VC_FAILED)
                        ck_assert_msg(c.state == before.state &&
                                          !(a & ~(unsigned)(VA_DESTROY | VA_REJECT)),
                                      "%s: a closed endpoint came back to life", what);
                    if (c.state == VC_UP || c.state == VC_ACCEPTING)
                        ck_assert_msg(!c.closed && !c.reported, "%s", what);
                }
    }
    ck_assert_int_gt(pairs, VC_NSTATES * VE_NEVENTS * 2 - 1);
}
END_TEST

/* ---- the transitions that matter ---- */

static struct verbs_conn conn_in(int state)
{
    return (struct verbs_conn){ .state = (uint8_t)state, .attempt = (uint8_t)has_attempt(state) };
}

START_TEST(test_active_path)
{
    struct verbs_conn c = conn_in(VC_IDLE);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_CONNECT, 1), VA_RESOLVE_ADDR);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_CONNECT, 1), 0); /* already on its way */
    ck_assert_uint_eq(verbs_conn_step(&c, VE_ADDR_RESOLVED, 1), VA_RESOLVE_ROUTE);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_ROUTE_RESOLVED, 1), VA_CONNECT);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_ESTABLISHED, 1), VA_SEND_HELLO | VA_START_SENDS);
    ck_assert_uint_eq(c.state, VC_UP);
}
END_TEST

START_TEST(test_passive_path)
{
    struct verbs_conn c = conn_in(VC_IDLE);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_REQUEST, 0), VA_ACCEPT);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_ESTABLISHED, 0), 0); /* waits for the hello */
    ck_assert_uint_eq(c.state, VC_ACCEPTING);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_HELLO, 0), VA_START_SENDS);
    ck_assert_uint_eq(c.state, VC_UP);
    /* the hello may come before rdma_cm's ESTABLISHED */
    c = conn_in(VC_IDLE);
    verbs_conn_step(&c, VE_REQUEST, 0);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_HELLO, 0), VA_START_SENDS);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_ESTABLISHED, 0), 0);
    ck_assert_uint_eq(c.state, VC_UP);
}
END_TEST

START_TEST(test_collisions)
{
    const int opening[] = { VC_RESOLVING_ADDR, VC_RESOLVING_ROUTE, VC_CONNECTING };
    for (size_t i = 0; i < 3; i++) {
        struct verbs_conn c = conn_in(opening[i]);
        ck_assert_uint_eq(verbs_conn_step(&c, VE_REQUEST, 1), VA_REJECT_COLLISION);
        ck_assert_uint_eq(c.state, opening[i]); /* the lower rank's attempt goes on */
        c = conn_in(opening[i]);
        ck_assert_uint_eq(verbs_conn_step(&c, VE_REQUEST, 0), VA_DROP_ATTEMPT | VA_ACCEPT);
        ck_assert_uint_eq(c.state, VC_ACCEPTING);
    }
    struct verbs_conn c = conn_in(VC_CONNECTING);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_REJECTED_COLLISION, 0), VA_DROP_ATTEMPT);
    ck_assert_uint_eq(c.state, VC_WAIT_PEER);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_REQUEST, 0), VA_ACCEPT);
    /* the higher rank never answers "collision" to the lower one */
    c = conn_in(VC_CONNECTING);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_REJECTED_COLLISION, 1),
                      VA_DROP_ATTEMPT | VA_FAIL_QUEUE | VA_REPORT_LOST);
    /* duplicates and stale requests */
    const int settled[] = { VC_ACCEPTING, VC_UP, VC_CLOSING };
    for (size_t i = 0; i < 3; i++)
        for (int lower = 0; lower < 2; lower++) {
            c = conn_in(settled[i]);
            ck_assert_uint_eq(verbs_conn_step(&c, VE_REQUEST, lower), VA_REJECT_COLLISION);
        }
    c = conn_in(VC_FAILED);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_REQUEST, 0), VA_REJECT);
}
END_TEST

START_TEST(test_closing)
{
    struct verbs_conn c = conn_in(VC_UP);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_CLOSE, 0), VA_SEND_BYE);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_BYE_SENT, 0), VA_DISCONNECT);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_QP_ERROR, 0), VA_DISCONNECT); /* flushed */
    ck_assert_uint_eq(verbs_conn_step(&c, VE_DISCONNECTED, 0),
                      VA_DISCONNECT | VA_DESTROY | VA_FAIL_QUEUE);
    ck_assert_uint_eq(c.state, VC_CLOSED);

    c = conn_in(VC_UP); /* the peer closes */
    ck_assert_uint_eq(verbs_conn_step(&c, VE_BYE, 0), VA_REPORT_ORDERLY | VA_FAIL_QUEUE);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_CLOSE, 0), VA_DISCONNECT);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_DISCONNECTED, 0),
                      VA_DISCONNECT | VA_DESTROY | VA_FAIL_QUEUE);

    c = conn_in(VC_UP); /* both close at once */
    verbs_conn_step(&c, VE_CLOSE, 0);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_BYE, 0), 0); /* the owner closed: no report */

    c = conn_in(VC_UP); /* gone without a goodbye */
    ck_assert_uint_eq(verbs_conn_step(&c, VE_DISCONNECTED, 0),
                      VA_DISCONNECT | VA_DESTROY | VA_FAIL_QUEUE | VA_REPORT_LOST);
    c = conn_in(VC_UP);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_QP_ERROR, 0),
                      VA_DISCONNECT | VA_FAIL_QUEUE | VA_REPORT_LOST);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_QP_ERROR, 0), 0);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_DISCONNECTED, 0), VA_DESTROY);

    c = conn_in(VC_CONNECTING); /* closed before it was up */
    ck_assert_uint_eq(verbs_conn_step(&c, VE_CLOSE, 0), VA_DROP_ATTEMPT | VA_FAIL_QUEUE);
    ck_assert_uint_eq(c.state, VC_CLOSED);
}
END_TEST

START_TEST(test_errors_while_connecting)
{
    const struct { int state, ev; } cases[] = {
        { VC_RESOLVING_ADDR, VE_ADDR_ERROR }, { VC_RESOLVING_ROUTE, VE_ROUTE_ERROR },
        { VC_CONNECTING, VE_REJECTED },       { VC_CONNECTING, VE_UNREACHABLE },
        { VC_CONNECTING, VE_CONNECT_ERROR },  { VC_CONNECTING, VE_DEVICE_REMOVAL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct verbs_conn c = conn_in(cases[i].state);
        ck_assert_uint_eq(verbs_conn_step(&c, (enum verbs_cev)cases[i].ev, 0),
                          VA_DROP_ATTEMPT | VA_FAIL_QUEUE | VA_REPORT_LOST);
        ck_assert_uint_eq(c.state, VC_FAILED);
    }
    struct verbs_conn c = conn_in(VC_ACCEPTING);
    ck_assert_uint_eq(verbs_conn_step(&c, VE_BYE, 0),
                      VA_DISCONNECT | VA_FAIL_QUEUE | VA_REPORT_LOST); /* no hello first */
}
END_TEST

/* ---- two endpoints through a simulated network ---- */

enum { T_LOCAL, T_ATTEMPT, T_CONN, T_ANY }; /* what an event is for */

struct net_ev {
    int node, ev, target, id;     /* target: which of the node's ids must match */
};

struct node {
    struct verbs_conn c;
    int rank;
    int attempt_id;               /* our attempt (0: none) */
    int conn_id;                  /* the connection in use (ours or accepted) */
    int started;                  /* our attempt was started */
    int up_with;                  /* connection id when it went up */
    int reports_lost, reports_orderly, destroyed, disconnects;
    int dead;
};

struct net {
    struct node n[2];
    struct net_ev q[256];
    int nq, next_id;
    int disc[2];                  /* DISCONNECTED was sent to the node (rdma_cm: once) */
    unsigned seed;
};

static void net_push(struct net *net, int node, int ev, int target, int id)
{
    ck_assert_int_lt(net->nq, 256);
    net->q[net->nq++] = (struct net_ev){ node, ev, target, id };
}

static void net_act(struct net *net, int i, unsigned a, int req_id)
{
    struct node *me = &net->n[i];
    int peer = 1 - i;
    if (a & VA_REJECT_COLLISION)
        net_push(net, peer, VE_REJECTED_COLLISION, T_ATTEMPT, req_id);
    if (a & VA_REJECT)
        net_push(net, peer, VE_REJECTED, T_ATTEMPT, req_id);
    if (a & VA_DROP_ATTEMPT) {
        ck_assert_int_ne(me->attempt_id, 0);
        me->attempt_id = 0;
    }
    if (a & VA_RESOLVE_ADDR) {
        me->attempt_id = ++net->next_id;
        me->started = 1;
        net_push(net, i, VE_ADDR_RESOLVED, T_ATTEMPT, me->attempt_id);
    }
    if (a & VA_RESOLVE_ROUTE)
        net_push(net, i, VE_ROUTE_RESOLVED, T_ATTEMPT, me->attempt_id);
    if (a & VA_CONNECT)
        net_push(net, peer, VE_REQUEST, T_ANY, me->attempt_id);
    if (a & VA_ACCEPT) {
        me->conn_id = req_id;
        net_push(net, peer, VE_ESTABLISHED, T_ATTEMPT, req_id); /* the reply reaches it */
    }
    if (a & VA_SEND_HELLO) {
        me->conn_id = me->attempt_id;
        net_push(net, peer, VE_HELLO, T_CONN, me->conn_id);
        net_push(net, peer, VE_ESTABLISHED, T_CONN, me->conn_id); /* its RTU */
    }
    if (a & VA_START_SENDS)
        me->up_with = me->conn_id;
    if (a & VA_SEND_BYE) {
        net_push(net, peer, VE_BYE, T_CONN, me->conn_id);
        net_push(net, i, VE_BYE_SENT, T_CONN, me->conn_id);
    }
    if ((a & VA_DISCONNECT) && !me->disconnects++ && me->conn_id)
        for (int k = 0; k < 2; k++)
            if (!net->disc[k]) {
                net->disc[k] = 1;
                net_push(net, k, VE_DISCONNECTED, T_CONN, me->conn_id);
            }
    if (a & VA_DESTROY)
        me->destroyed++;
    if (a & VA_REPORT_LOST)
        me->reports_lost++;
    if (a & VA_REPORT_ORDERLY)
        me->reports_orderly++;
}

static void net_step(struct net *net, int i, int ev, int id)
{
    struct node *me = &net->n[i];
    if (me->dead)
        return;
    /* the passive side's attempt id for an established connection is conn_id */
    unsigned a = verbs_conn_step(&me->c, (enum verbs_cev)ev, me->rank < net->n[1 - i].rank);
    net_act(net, i, a, id);
}

/* Deliver one pending event, chosen at random; events for ids that are gone
 * are dropped, as rdma_cm drops the events of a destroyed id. */
static int net_deliver(struct net *net)
{
    if (!net->nq)
        return 0;
    int k = rand_r(&net->seed) % net->nq;
    struct net_ev e = net->q[k];
    net->q[k] = net->q[--net->nq];
    struct node *me = &net->n[e.node];
    if (e.ev == VE_DISCONNECTED) /* the glue polls the completion queue dry first */
        for (int j = 0; j < net->nq; j++)
            if (net->q[j].node == e.node && (net->q[j].ev == VE_BYE || net->q[j].ev == VE_HELLO)) {
                struct net_ev m = net->q[j];
                net->q[j] = net->q[--net->nq];
                j--;
                if (me->conn_id == m.id)
                    net_step(net, m.node, m.ev, m.id);
            }
    if (e.target == T_ATTEMPT && me->attempt_id != e.id)
        return 1;
    if (e.target == T_CONN && me->conn_id != e.id)
        return 1;
    if (e.ev == VE_ESTABLISHED && e.target == T_ATTEMPT)
        me->conn_id = e.id;
    net_step(net, e.node, e.ev, e.id);
    return 1;
}

static void net_init(struct net *net, unsigned seed)
{
    memset(net, 0, sizeof *net);
    net->seed = seed;
    net->n[0].rank = 3;
    net->n[1].rank = 7;
}

/* Connect by node 0, node 1 or both, at random moments. */
static void net_connect(struct net *net, int who)
{
    int pending[2] = { who & 1, (who >> 1) & 1 };
    while (pending[0] || pending[1] || net->nq) {
        int r = rand_r(&net->seed) % 4;
        if (r < 2 && pending[r]) {
            pending[r] = 0;
            if (net->n[r].c.state == VC_IDLE) /* connect() finds an existing endpoint */
                net_step(net, r, VE_CONNECT, 0);
            continue;
        }
        net_deliver(net);
    }
}

START_TEST(test_net_connect)
{
    for (unsigned seed = 1; seed <= 3000; seed++)
        for (int who = 1; who <= 3; who++) {
            struct net net;
            net_init(&net, seed);
            net_connect(&net, who);
            for (int i = 0; i < 2; i++) {
                ck_assert_msg(net.n[i].c.state == VC_UP, "seed %u who %d: node %d %s", seed,
                              who, i, verbs_conn_state_name(net.n[i].c.state));
                ck_assert_int_eq(net.n[i].reports_lost + net.n[i].reports_orderly, 0);
            }
            ck_assert_int_eq(net.n[0].up_with, net.n[1].up_with); /* one connection */
            if (net.n[0].started) /* the lower rank's attempt, whenever it made one */
                ck_assert_msg(net.n[0].up_with == net.n[0].conn_id && net.n[0].attempt_id ==
                                  net.n[0].up_with, "seed %u: the higher rank's connection won",
                              seed);
        }
}
END_TEST

START_TEST(test_net_close)
{
    for (unsigned seed = 1; seed <= 2000; seed++)
        for (int who = 1; who <= 3; who++) {
            struct net net;
            net_init(&net, seed);
            net_connect(&net, 3);
            int closing[2] = { who & 1, (who >> 1) & 1 };
            while (closing[0] || closing[1] || net.nq) {
                int r = rand_r(&net.seed) % 4;
                if (r < 2 && closing[r]) {
                    closing[r] = 0;
                    net_step(&net, r, VE_CLOSE, 0);
                    continue;
                }
                net_deliver(&net);
            }
            for (int i = 0; i < 2; i++) {
                struct node *n = &net.n[i];
                ck_assert_msg(n->c.state == VC_CLOSED, "seed %u: node %d %s", seed, i,
                              verbs_conn_state_name(n->c.state));
                ck_assert_int_eq(n->reports_lost, 0);
                ck_assert_int_ge(n->destroyed, 1);
                /* the side that did not close hears of it once, in order */
                ck_assert_int_eq(n->reports_orderly, who == 3 ? n->reports_orderly
                                                              : (who >> i & 1) ? 0 : 1);
                ck_assert_int_le(n->reports_orderly, 1);
            }
        }
}
END_TEST

START_TEST(test_net_peer_dies)
{
    for (unsigned seed = 1; seed <= 2000; seed++) {
        struct net net;
        net_init(&net, seed);
        net_connect(&net, seed % 3 + 1);
        /* node 1's process ends: its kernel tears the connection down */
        net.n[1].dead = 1;
        net.disc[0] = 1;
        net_push(&net, 0, VE_DISCONNECTED, T_CONN, net.n[0].conn_id);
        while (net.nq)
            net_deliver(&net);
        ck_assert_uint_eq(net.n[0].c.state, VC_FAILED);
        ck_assert_int_eq(net.n[0].reports_lost, 1);
        ck_assert_int_eq(net.n[0].reports_orderly, 0);
        ck_assert_int_ge(net.n[0].destroyed, 1);
    }
}
END_TEST

static Suite *conn_suite(void)
{
    Suite *s = suite_create("verbs_conn");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_every_event_in_every_state);
    tcase_add_test(tc, test_active_path);
    tcase_add_test(tc, test_passive_path);
    tcase_add_test(tc, test_collisions);
    tcase_add_test(tc, test_closing);
    tcase_add_test(tc, test_errors_while_connecting);
    tcase_add_test(tc, test_net_connect);
    tcase_add_test(tc, test_net_close);
    tcase_add_test(tc, test_net_peer_dies);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(conn_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
