/*
 * Unit tests of the verbs stand-in (tests/transport/standin/standin.h), the
 * test driver the verbs transport runs over where there is no RDMA device.
 * Plain verbs and rdma_cm calls, written from the man pages, against it: the
 * rules it claims to enforce are each broken once and must be reported (and
 * fail as verbs fails them), and the semantics it claims to keep (RC order,
 * flushes, disconnects, a peer process that dies, private data) hold. A
 * stand-in that let these through would let the transport's breaches
 * through too.
 *
 * Check runs each test in a process of its own, so each starts with a fresh
 * stand-in; a connection is made inside that process (both ends), or with a
 * child process for the case of a peer that dies.
 */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_standin.h"

#define QP_WR 8

/* Check records every ck_assert through a pipe: loops test first and fail
 * through Check only when they must. */
#define LOOP_CHECK(cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond))                                                                           \
            ck_abort_msg(__VA_ARGS__);                                                         \
    } while (0)
#define INLINE 64

struct pair {
    struct rdma_event_channel *ch;
    struct rdma_cm_id *lid, *a, *b;   /* listener, connector, acceptor */
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_srq *srq;
    int port;
};

/* The next event of the channel (the stand-in moves packets on each call). */
static enum rdma_cm_event_type next_event(struct rdma_event_channel *ch, struct rdma_cm_id **id,
                                          int *status, uint8_t *pd, size_t *pdlen)
{
    struct rdma_cm_event *e;
    for (int i = 0; rdma_get_cm_event(ch, &e) < 0; i++) {
        LOOP_CHECK(errno == EAGAIN && i < 100000, "no rdma_cm event came");
        if (i > 1000)
            usleep(100);
    }
    enum rdma_cm_event_type t = e->event;
    if (id)
        *id = e->id;
    if (status)
        *status = e->status;
    if (pd) {
        *pdlen = e->param.conn.private_data_len;
        memcpy(pd, e->param.conn.private_data, *pdlen);
    }
    rdma_ack_cm_event(e);
    return t;
}

static void expect_event(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
                         struct rdma_cm_id *on)
{
    struct rdma_cm_id *id;
    enum rdma_cm_event_type t = next_event(ch, &id, NULL, NULL, NULL);
    ck_assert_msg(t == want, "event %s, expected %s", rdma_event_str(t), rdma_event_str(want));
    if (on)
        ck_assert_ptr_eq(id, on);
}

static struct ibv_qp_init_attr qp_attr(struct pair *p)
{
    return (struct ibv_qp_init_attr){
        .send_cq = p->cq, .recv_cq = p->cq, .srq = p->srq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = QP_WR, .max_recv_wr = p->srq ? 0 : QP_WR, .max_send_sge = 4,
                 .max_recv_sge = 1, .max_inline_data = INLINE },
    };
}

static void listen_on(struct pair *p)
{
    struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    ck_assert_int_eq(rdma_create_id(p->ch, &p->lid, NULL, RDMA_PS_TCP), 0);
    ck_assert_int_eq(rdma_bind_addr(p->lid, (struct sockaddr *)&lo), 0);
    ck_assert_int_eq(rdma_listen(p->lid, 4), 0);
    p->port = ntohs(rdma_get_src_port(p->lid));
}

/* A connector id with a queue pair, its address and route resolved. */
static struct rdma_cm_id *resolved(struct pair *p, struct rdma_event_channel *ch, int port)
{
    struct rdma_cm_id *id;
    struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    ck_assert_int_eq(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
    ck_assert_int_eq(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 1000), 0);
    expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id);
    ck_assert_int_eq(rdma_resolve_route(id, 1000), 0);
    expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, id);
    if (!p->pd) {
        p->pd = ibv_alloc_pd(id->verbs);
        p->cq = ibv_create_cq(id->verbs, 64, NULL, NULL, 0);
    }
    struct ibv_qp_init_attr a = qp_attr(p);
    ck_assert_int_eq(rdma_create_qp(id, p->pd, &a), 0);
    return id;
}

/* Both ends of one connection in this process. */
static void connect_pair(struct pair *p, int cqe, int srq)
{
    memset(p, 0, sizeof *p);
    p->ch = rdma_create_event_channel();
    ck_assert_ptr_nonnull(p->ch);
    listen_on(p);
    struct ibv_context *ctx = p->lid->verbs;
    p->pd = ibv_alloc_pd(ctx);
    p->cq = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
    if (srq) {
        struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
        p->srq = ibv_create_srq(p->pd, &sa);
    }
    p->a = resolved(p, p->ch, p->port);
    struct rdma_conn_param cp = { .private_data = "hello", .private_data_len = 5,
                                  .initiator_depth = 1, .responder_resources = 1 };
    ck_assert_int_eq(rdma_connect(p->a, &cp), 0);
    uint8_t pd[256];
    size_t pdlen;
    ck_assert_int_eq(next_event(p->ch, &p->b, NULL, pd, &pdlen), RDMA_CM_EVENT_CONNECT_REQUEST);
    ck_assert_uint_eq(pdlen, 56); /* InfiniBand's length, zero-padded */
    ck_assert_int_eq(memcmp(pd, "hello\0\0\0", 8), 0);
    struct ibv_qp_init_attr a = qp_attr(p);
    ck_assert_int_eq(rdma_create_qp(p->b, p->pd, &a), 0);
    ck_assert_int_eq(rdma_accept(p->b, &cp), 0);
    expect_event(p->ch, RDMA_CM_EVENT_ESTABLISHED, p->a);
    expect_event(p->ch, RDMA_CM_EVENT_ESTABLISHED, p->b);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}

static struct ibv_mr *reg(struct pair *p, void *buf, size_t len, int access)
{
    struct ibv_mr *mr = ibv_reg_mr(p->pd, buf, len, access);
    ck_assert_ptr_nonnull(mr);
    return mr;
}

static int post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *buf, uint32_t len, uint64_t id)
{
    struct ibv_sge s = { (uintptr_t)buf, len, mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1 }, *bad;
    return ibv_post_recv(qp, &wr, &bad);
}

static int post(struct ibv_qp *qp, enum ibv_wr_opcode op, unsigned flags, void *buf,
                uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t id)
{
    struct ibv_sge s = { (uintptr_t)buf, len, lkey };
    struct ibv_send_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1, .opcode = op,
                              .send_flags = IBV_SEND_SIGNALED | flags }, *bad;
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = rkey;
    return ibv_post_send(qp, &wr, &bad);
}

/* The next completion (the stand-in moves packets while it is polled). */
static struct ibv_wc next_wc(struct ibv_cq *cq)
{
    struct ibv_wc wc;
    for (int i = 0; ibv_poll_cq(cq, 1, &wc) == 0; i++)
        LOOP_CHECK(i < 100000, "no completion came");
    return wc;
}

static int no_wc(struct ibv_cq *cq)
{
    struct ibv_wc wc;
    for (int i = 0; i < 100; i++)
        if (ibv_poll_cq(cq, 1, &wc))
            return 0;
    return 1;
}

static void expect_error(const char *part)
{
    ck_assert_int_ge(verbs_standin_errors(), 1);
    ck_assert_msg(strstr(verbs_standin_first_error(), part), "the stand-in said \"%s\", not "
                  "\"%s\"", verbs_standin_first_error(), part);
}

/* ---- what must work ---- */

START_TEST(test_send_recv)
{
    struct pair p;
    char out[300], in[3][300];
    connect_pair(&p, 64, 0);
    struct ibv_mr *mo = reg(&p, out, sizeof out, 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(post_recv(p.b->qp, mi, in[i], 300, 10 + (uint64_t)i), 0);
    memset(out, 'x', sizeof out);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, 0, out, 300, mo->lkey, 0, 0, 1), 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, 40, 0, 0, 0, 2), 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, 0, out, 0, mo->lkey, 0, 0, 3), 0);
    uint64_t sends = 1, recvs = 10; /* each side in posting order */
    for (int i = 0; i < 6; i++) {
        struct ibv_wc wc = next_wc(p.cq);
        ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
        if (wc.opcode == IBV_WC_RECV) {
            ck_assert_uint_eq(wc.wr_id, recvs++);
            ck_assert_uint_eq(wc.byte_len, wc.wr_id == 10 ? 300 : wc.wr_id == 11 ? 40 : 0);
            ck_assert_uint_eq(wc.qp_num, p.b->qp->qp_num);
        } else {
            ck_assert_uint_eq(wc.wr_id, sends++);
        }
    }
    ck_assert_int_eq(memcmp(in[0], out, 300), 0);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}
END_TEST

/* A send posted after an RDMA write finds the written bytes in place. */
START_TEST(test_write_then_send)
{
    struct pair p;
    static char src[100000], dst[100000];
    char note[8], got[8];
    connect_pair(&p, 64, 0);
    struct ibv_mr *ms = reg(&p, src, sizeof src, 0);
    struct ibv_mr *md = reg(&p, dst, sizeof dst, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    struct ibv_mr *mn = reg(&p, note, sizeof note, 0);
    struct ibv_mr *mg = reg(&p, got, sizeof got, IBV_ACCESS_LOCAL_WRITE);
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (char)(i * 7);
    ck_assert_int_eq(post_recv(p.b->qp, mg, got, sizeof got, 9), 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_RDMA_WRITE, 0, src, sizeof src, ms->lkey,
                          (uintptr_t)dst, md->rkey, 1), 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, 0, note, sizeof note, mn->lkey, 0, 0, 2), 0);
    for (;;) {
        struct ibv_wc wc = next_wc(p.cq);
        ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
        if (wc.opcode == IBV_WC_RECV) {
            ck_assert_int_eq(memcmp(dst, src, sizeof src), 0);
            break;
        }
    }
    ck_assert_int_eq(verbs_standin_errors(), 0);
}
END_TEST

START_TEST(test_read)
{
    struct pair p;
    static char src[200000], dst[200000];
    connect_pair(&p, 64, 0);
    struct ibv_mr *ms = reg(&p, src, sizeof src, IBV_ACCESS_REMOTE_READ);
    struct ibv_mr *md = reg(&p, dst, sizeof dst, IBV_ACCESS_LOCAL_WRITE);
    memset(src, 'r', sizeof src);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_RDMA_READ, 0, dst, sizeof dst, md->lkey,
                          (uintptr_t)src, ms->rkey, 1), 0);
    struct ibv_wc wc = next_wc(p.cq);
    ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
    ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_READ);
    ck_assert_uint_eq(wc.byte_len, sizeof dst);
    ck_assert_int_eq(memcmp(dst, src, sizeof src), 0);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}
END_TEST

/* rdma_disconnect: both sides hear of it, posted receives are flushed. */
START_TEST(test_disconnect_flushes)
{
    struct pair p;
    char in[64];
    connect_pair(&p, 64, 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    ck_assert_int_eq(post_recv(p.a->qp, mi, in, 64, 1), 0);
    ck_assert_int_eq(post_recv(p.a->qp, mi, in, 64, 2), 0);
    ck_assert_int_eq(rdma_disconnect(p.a), 0);
    for (int i = 1; i <= 2; i++) {
        struct ibv_wc wc = next_wc(p.cq);
        ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
        ck_assert_uint_eq(wc.wr_id, (uint64_t)i);
    }
    expect_event(p.ch, RDMA_CM_EVENT_DISCONNECTED, p.a);
    expect_event(p.ch, RDMA_CM_EVENT_DISCONNECTED, p.b);
    /* The other side's sends now go nowhere: retries run out. */
    char out[8];
    ck_assert_int_eq(post(p.b->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, 8, 0, 0, 0, 7), 0);
    struct ibv_wc wc = next_wc(p.cq);
    ck_assert_int_eq(wc.status, IBV_WC_RETRY_EXC_ERR);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}
END_TEST

START_TEST(test_srq_last_wqe)
{
    struct pair p;
    char in[64];
    connect_pair(&p, 64, 1);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    struct ibv_recv_wr wr = { .wr_id = 5, .num_sge = 1 }, *bad;
    struct ibv_sge s = { (uintptr_t)in, 64, mi->lkey };
    wr.sg_list = &s;
    ck_assert_int_eq(ibv_post_srq_recv(p.srq, &wr, &bad), 0);
    ck_assert_int_eq(rdma_disconnect(p.b), 0);
    struct ibv_async_event ev;
    for (int i = 0; ibv_get_async_event(p.b->verbs, &ev) < 0; i++)
        LOOP_CHECK(i < 1000, "no asynchronous event");
    ck_assert_int_eq(ev.event_type, IBV_EVENT_QP_LAST_WQE_REACHED);
    ck_assert_ptr_eq(ev.element.qp, p.b->qp);
    ibv_ack_async_event(&ev);
    ck_assert_int_eq(no_wc(p.cq), 1); /* the SRQ keeps its receive */
}
END_TEST

START_TEST(test_no_listener_and_reject)
{
    struct pair p = { 0 };
    uint8_t pd[256];
    size_t pdlen;
    int status;
    p.ch = rdma_create_event_channel();
    listen_on(&p);
    int port = p.port; /* a port nobody listens on: one just given back */
    rdma_destroy_id(p.lid);
    listen_on(&p);
    struct rdma_cm_id *c = resolved(&p, p.ch, port);
    struct rdma_conn_param cp = { .private_data = "x", .private_data_len = 1 };
    ck_assert_int_eq(rdma_connect(c, &cp), 0);
    ck_assert_int_eq(next_event(p.ch, NULL, &status, NULL, NULL), RDMA_CM_EVENT_REJECTED);
    ck_assert_int_eq(status, 8); /* invalid service id: nobody listens there */
    struct rdma_cm_id *a = resolved(&p, p.ch, p.port), *b;
    ck_assert_int_eq(rdma_connect(a, &cp), 0);
    ck_assert_int_eq(next_event(p.ch, &b, NULL, pd, &pdlen), RDMA_CM_EVENT_CONNECT_REQUEST);
    ck_assert_int_eq(rdma_reject(b, "no", 2), 0);
    ck_assert_int_eq(next_event(p.ch, NULL, &status, pd, &pdlen), RDMA_CM_EVENT_REJECTED);
    ck_assert_int_eq(status, 28); /* consumer defined, with its private data */
    ck_assert_uint_eq(pdlen, 2);
    ck_assert_int_eq(memcmp(pd, "no", 2), 0);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}
END_TEST

/* A peer process that dies: the connection ends, what it never answered fails. */
START_TEST(test_peer_process_dies)
{
    struct pair p = { 0 };
    int sv[2];
    ck_assert_int_eq(pipe(sv), 0);
    p.ch = rdma_create_event_channel();
    listen_on(&p);
    pid_t pid = fork();
    if (pid == 0) { /* its own stand-in: connects, says so, waits to be killed */
        struct pair q = { 0 };
        q.ch = rdma_create_event_channel();
        struct rdma_cm_id *c = resolved(&q, q.ch, p.port);
        struct rdma_conn_param cp = { .private_data = "c", .private_data_len = 1 };
        rdma_connect(c, &cp);
        while (next_event(q.ch, NULL, NULL, NULL, NULL) != RDMA_CM_EVENT_ESTABLISHED)
            ;
        (void)!write(sv[1], "k", 1);
        for (;;)
            pause();
    }
    struct rdma_cm_id *b;
    ck_assert_int_eq(next_event(p.ch, &b, NULL, NULL, NULL), RDMA_CM_EVENT_CONNECT_REQUEST);
    p.pd = ibv_alloc_pd(b->verbs);
    p.cq = ibv_create_cq(b->verbs, 64, NULL, NULL, 0);
    struct ibv_qp_init_attr a = qp_attr(&p);
    ck_assert_int_eq(rdma_create_qp(b, p.pd, &a), 0);
    ck_assert_int_eq(rdma_accept(b, NULL), 0);
    expect_event(p.ch, RDMA_CM_EVENT_ESTABLISHED, b);
    char k;
    ck_assert_int_eq(read(sv[0], &k, 1), 1);
    /* A send the child will never answer: it is stopped, then killed. */
    kill(pid, SIGSTOP);
    char out[8];
    ck_assert_int_eq(post(b->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, 8, 0, 0, 0, 3), 0);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    struct ibv_wc wc = next_wc(p.cq);
    ck_assert_int_eq(wc.status, IBV_WC_RETRY_EXC_ERR);
    expect_event(p.ch, RDMA_CM_EVENT_DISCONNECTED, b);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}
END_TEST

START_TEST(test_wake_fd)
{
    struct pair p;
    char out[8], in[8];
    connect_pair(&p, 64, 0);
    struct ibv_comp_channel *cc = ibv_create_comp_channel(p.b->verbs);
    struct ibv_cq *cq = ibv_create_cq(p.b->verbs, 8, NULL, cc, 0);
    ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
    struct pollfd pf = { .fd = cc->fd, .events = POLLIN };
    ck_assert_int_eq(poll(&pf, 1, 0), 0); /* nothing yet: a sleeper would sleep */
    struct ibv_cq *got;
    void *ctx;
    ck_assert_int_eq(ibv_get_cq_event(cc, &got, &ctx), -1);
    ck_assert_int_eq(ibv_destroy_cq(cq), 0);
    ck_assert_int_eq(ibv_destroy_comp_channel(cc), 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    ck_assert_int_eq(post_recv(p.b->qp, mi, in, 8, 1), 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, 8, 0, 0, 0, 2), 0);
    pf.fd = p.ch->fd; /* a packet waiting makes the channels readable */
    ck_assert_int_eq(poll(&pf, 1, 1000), 1);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}
END_TEST

/* ---- what must be reported ---- */

START_TEST(test_send_not_rts)
{
    struct pair p = { 0 };
    char out[8];
    p.ch = rdma_create_event_channel();
    listen_on(&p);
    struct rdma_cm_id *c = resolved(&p, p.ch, p.port); /* not connected: INIT */
    ck_assert_int_eq(post(c->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, 8, 0, 0, 0, 1), EINVAL);
    expect_error("a send posted in state INIT");
}
END_TEST

START_TEST(test_unregistered_lkey)
{
    struct pair p;
    char out[100], in[100];
    connect_pair(&p, 64, 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    ck_assert_int_eq(post_recv(p.b->qp, mi, in, 100, 1), 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, 0, out, 100, 0xdead, 0, 0, 7), 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, 8, 0, 0, 0, 8), 0);
    struct ibv_wc wc = next_wc(p.cq);
    ck_assert_uint_eq(wc.wr_id, 7);
    ck_assert_int_eq(wc.status, IBV_WC_LOC_PROT_ERR);
    wc = next_wc(p.cq); /* the queue pair is in error: the next one is flushed */
    ck_assert_uint_eq(wc.wr_id, 8);
    ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
    expect_error("lkey 0xdead of a send (100 bytes at");
}
END_TEST

START_TEST(test_lkey_short)
{
    struct pair p;
    char out[100];
    connect_pair(&p, 64, 0);
    struct ibv_mr *mo = reg(&p, out, 50, 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, 0, out, 100, mo->lkey, 0, 0, 1), 0);
    ck_assert_int_eq(next_wc(p.cq).status, IBV_WC_LOC_PROT_ERR);
    expect_error("does not cover the bytes");
}
END_TEST

START_TEST(test_no_receive_posted)
{
    struct pair p;
    char out[8];
    connect_pair(&p, 64, 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, 8, 0, 0, 0, 1), 0);
    ck_assert_int_eq(next_wc(p.cq).status, IBV_WC_RNR_RETRY_EXC_ERR);
    expect_error("with no receive posted");
}
END_TEST

START_TEST(test_message_too_long)
{
    struct pair p;
    char out[100], in[16];
    connect_pair(&p, 64, 0);
    struct ibv_mr *mo = reg(&p, out, sizeof out, 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    ck_assert_int_eq(post_recv(p.b->qp, mi, in, 16, 1), 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, 0, out, 100, mo->lkey, 0, 0, 2), 0);
    int seen = 0;
    for (int i = 0; i < 2; i++) {
        struct ibv_wc wc = next_wc(p.cq);
        seen |= wc.wr_id == 1 && wc.status == IBV_WC_LOC_LEN_ERR;
        seen |= (wc.wr_id == 2 && wc.status == IBV_WC_REM_INV_REQ_ERR) << 1;
    }
    ck_assert_int_eq(seen, 3);
    expect_error("whose receive buffer holds 16");
}
END_TEST

START_TEST(test_receive_queue_overrun)
{
    struct pair p;
    char in[8];
    connect_pair(&p, 64, 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    for (int i = 0; i < QP_WR; i++)
        ck_assert_int_eq(post_recv(p.b->qp, mi, in, 8, (uint64_t)i), 0);
    ck_assert_int_eq(verbs_standin_errors(), 0);
    ck_assert_int_eq(post_recv(p.b->qp, mi, in, 8, 99), ENOMEM);
    expect_error("the receive queue overrun");
}
END_TEST

START_TEST(test_send_queue_overrun)
{
    struct pair p;
    char out[8], in[8];
    connect_pair(&p, 64, 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    for (int i = 0; i < QP_WR; i++) {
        ck_assert_int_eq(post_recv(p.b->qp, mi, in, 8, (uint64_t)i), 0);
        ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, 8, 0, 0, 0, 1), 0);
    }
    /* completed, maybe, but not polled: the slots are still taken */
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, 8, 0, 0, 0, 1), ENOMEM);
    expect_error("the send queue overrun");
}
END_TEST

START_TEST(test_work_request_limits)
{
    struct pair p;
    char out[200];
    connect_pair(&p, 64, 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, INLINE + 1, 0, 0, 0, 1),
                     EINVAL);
    expect_error("an inline send of 65 bytes (the queue pair sends 64 inline)");
    verbs_standin_clear();
    struct ibv_sge s[5];
    for (int i = 0; i < 5; i++)
        s[i] = (struct ibv_sge){ (uintptr_t)out, 8, 0 };
    struct ibv_send_wr wr = { .sg_list = s, .num_sge = 5, .opcode = IBV_WR_SEND,
                              .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE }, *bad;
    ck_assert_int_eq(ibv_post_send(p.a->qp, &wr, &bad), EINVAL);
    expect_error("a work request of 5 pieces (the queue pair takes 4)");
}
END_TEST

START_TEST(test_rkey_rights)
{
    struct pair p;
    char src[64], dst[64];
    connect_pair(&p, 64, 0);
    struct ibv_mr *ms = reg(&p, src, sizeof src, IBV_ACCESS_LOCAL_WRITE);
    struct ibv_mr *md = reg(&p, dst, sizeof dst, IBV_ACCESS_LOCAL_WRITE); /* no remote write */
    ck_assert_int_eq(post(p.a->qp, IBV_WR_RDMA_WRITE, 0, src, 64, ms->lkey, (uintptr_t)dst,
                          md->rkey, 1), 0);
    ck_assert_int_eq(next_wc(p.cq).status, IBV_WC_REM_ACCESS_ERR);
    expect_error("lacks remote write access");
}
END_TEST

START_TEST(test_read_into_read_only)
{
    struct pair p;
    char src[64], dst[64];
    connect_pair(&p, 64, 0);
    struct ibv_mr *ms = reg(&p, src, sizeof src, IBV_ACCESS_REMOTE_READ);
    struct ibv_mr *md = reg(&p, dst, sizeof dst, 0); /* a read would write here */
    ck_assert_int_eq(post(p.a->qp, IBV_WR_RDMA_READ, 0, dst, 64, md->lkey, (uintptr_t)src,
                          ms->rkey, 1), 0);
    ck_assert_int_eq(next_wc(p.cq).status, IBV_WC_LOC_PROT_ERR);
    expect_error("lacks local write access");
}
END_TEST

/* Freed and mapped again at the same address: a device keeps the old pages. */
START_TEST(test_stale_registration)
{
    if (!verbs_standin_pfn_checks())
        return; /* page frame numbers are not readable here (not root) */
    struct pair p;
    char in[8192];
    connect_pair(&p, 64, 0);
    size_t len = 8192;
    char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(buf, MAP_FAILED);
    memset(buf, 1, len);
    struct ibv_mr *mo = reg(&p, buf, len, 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    munmap(buf, len);
    ck_assert_ptr_eq(mmap(buf, len, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), buf);
    memset(buf, 2, len);
    ck_assert_int_eq(post_recv(p.b->qp, mi, in, sizeof in, 1), 0);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, 0, buf, (uint32_t)len, mo->lkey, 0, 0, 2), 0);
    ck_assert_int_eq(next_wc(p.cq).status, IBV_WC_LOC_PROT_ERR);
    expect_error("no longer the ones registered");
}
END_TEST

START_TEST(test_buffer_changed_in_flight)
{
    struct pair p;
    char out[100], in[100];
    connect_pair(&p, 64, 0);
    struct ibv_mr *mo = reg(&p, out, sizeof out, 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    ck_assert_int_eq(post_recv(p.b->qp, mi, in, 100, 1), 0);
    memset(out, 'a', sizeof out);
    ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, 0, out, 100, mo->lkey, 0, 0, 2), 0);
    out[50] = 'b'; /* before the completion: the device may still be reading */
    for (int i = 0; i < 2; i++)
        next_wc(p.cq);
    expect_error("changed before its completion");
}
END_TEST

START_TEST(test_dereg_in_use)
{
    struct pair p;
    char in[8];
    connect_pair(&p, 64, 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    ck_assert_int_eq(post_recv(p.b->qp, mi, in, 8, 1), 0);
    ibv_dereg_mr(mi);
    expect_error("while 1 posted work requests still use it");
}
END_TEST

START_TEST(test_completion_queue_overflow)
{
    struct pair p;
    char in[8], out[8];
    connect_pair(&p, 4, 0);
    struct ibv_mr *mi = reg(&p, in, sizeof in, IBV_ACCESS_LOCAL_WRITE);
    for (int i = 0; i < 3; i++) { /* six completions for four entries */
        ck_assert_int_eq(post_recv(p.b->qp, mi, in, 8, 1), 0);
        ck_assert_int_eq(post(p.a->qp, IBV_WR_SEND, IBV_SEND_INLINE, out, 8, 0, 0, 0, 2), 0);
    }
    struct ibv_wc wc[8];
    for (int i = 0; i < 100; i++)
        ibv_poll_cq(p.cq, 0, wc); /* move packets, take nothing */
    expect_error("completion queue overflow");
}
END_TEST

START_TEST(test_destroy_in_use)
{
    struct pair p;
    char buf[8];
    connect_pair(&p, 64, 0);
    reg(&p, buf, sizeof buf, 0);
    ck_assert_int_eq(ibv_destroy_cq(p.cq), EBUSY);
    expect_error("ibv_destroy_cq with 2 queue pairs still using it");
    verbs_standin_clear();
    ck_assert_int_eq(ibv_dealloc_pd(p.pd), EBUSY);
    expect_error("ibv_dealloc_pd with 1 memory regions and 2 queue pairs");
    verbs_standin_clear();
    ck_assert_int_eq(rdma_destroy_id(p.a), -1);
    expect_error("rdma_destroy_id with its queue pair");
    verbs_standin_clear();
    rdma_destroy_event_channel(p.ch);
    expect_error("rdma_destroy_event_channel with 3 ids still on it");
}
END_TEST

START_TEST(test_event_not_acked)
{
    struct pair p;
    struct rdma_cm_event *e;
    connect_pair(&p, 64, 0);
    ck_assert_int_eq(rdma_disconnect(p.a), 0);
    for (int i = 0; rdma_get_cm_event(p.ch, &e) < 0; i++)
        LOOP_CHECK(i < 1000, "no rdma_cm event came");
    ck_assert_ptr_eq(e->id, p.a);
    rdma_destroy_qp(p.a);
    rdma_destroy_id(p.a); /* librdmacm would wait for the ack forever */
    expect_error("rdma_destroy_id with 1 of its events not acked");
    rdma_ack_cm_event(e);
}
END_TEST

START_TEST(test_cm_out_of_order)
{
    struct pair p = { 0 };
    struct rdma_cm_id *id;
    p.ch = rdma_create_event_channel();
    ck_assert_int_eq(rdma_create_id(p.ch, &id, NULL, RDMA_PS_TCP), 0);
    ck_assert_int_eq(rdma_resolve_route(id, 100), -1);
    expect_error("rdma_resolve_route before the address was resolved");
    verbs_standin_clear();
    listen_on(&p);
    struct rdma_cm_id *c = resolved(&p, p.ch, p.port);
    uint8_t big[57] = { 0 };
    struct rdma_conn_param cp = { .private_data = big, .private_data_len = 57 };
    ck_assert_int_eq(rdma_connect(c, &cp), -1);
    expect_error("more private data than InfiniBand carries");
    verbs_standin_clear();
    ck_assert_int_eq(rdma_accept(c, NULL), -1);
    expect_error("rdma_accept of an id that is not a request");
}
END_TEST

START_TEST(test_no_device)
{
    int n = 5;
    verbs_standin_devices(0);
    errno = 0;
    ck_assert_ptr_null(ibv_get_device_list(&n));
    ck_assert_int_eq(errno, ENOSYS); /* libibverbs' answer where the kernel has no uverbs */
    ck_assert_int_eq(n, 0);
    ck_assert_ptr_null(rdma_create_event_channel());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verbs_standin");
    TCase *works = tcase_create("semantics");
    tcase_add_test(works, test_send_recv);
    tcase_add_test(works, test_write_then_send);
    tcase_add_test(works, test_read);
    tcase_add_test(works, test_disconnect_flushes);
    tcase_add_test(works, test_srq_last_wqe);
    tcase_add_test(works, test_no_listener_and_reject);
    tcase_add_test(works, test_peer_process_dies);
    tcase_add_test(works, test_wake_fd);
    tcase_add_test(works, test_no_device);
    suite_add_tcase(s, works);
    TCase *rules = tcase_create("rules");
    tcase_add_test(rules, test_send_not_rts);
    tcase_add_test(rules, test_unregistered_lkey);
    tcase_add_test(rules, test_lkey_short);
    tcase_add_test(rules, test_no_receive_posted);
    tcase_add_test(rules, test_message_too_long);
    tcase_add_test(rules, test_receive_queue_overrun);
    tcase_add_test(rules, test_send_queue_overrun);
    tcase_add_test(rules, test_work_request_limits);
    tcase_add_test(rules, test_rkey_rights);
    tcase_add_test(rules, test_read_into_read_only);
    tcase_add_test(rules, test_stale_registration);
    tcase_add_test(rules, test_buffer_changed_in_flight);
    tcase_add_test(rules, test_dereg_in_use);
    tcase_add_test(rules, test_completion_queue_overflow);
    tcase_add_test(rules, test_destroy_in_use);
    tcase_add_test(rules, test_event_not_acked);
    tcase_add_test(rules, test_cm_out_of_order);
    suite_add_tcase(s, rules);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
