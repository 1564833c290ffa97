/*
 * Unit tests of the verbs transport's sizing plan (transports/verbs/
 * verbs_plan.h), without a device: the numbers faro-verbs(7) quotes (buffers
 * and memory per peer, the shared receive queue's threshold), the device
 * limits that cut them down, and the invariants the rest of the transport
 * stands on: a message fits one receive buffer, the credits a peer is granted
 * are the buffers posted for it, the completion queue holds every work
 * request that can complete at once.
 */
#include "verbs/verbs_plan.h"

#include <check.h>

#include "transport.h"
#include "verbs/verbs_wire.h"

#define KIB 1024ul
#define MIB (1024ul * 1024ul)

/* A ConnectX-class device and the tunables' defaults (verbs_tunables.def). */
static struct verbs_plan_in defaults(int peers)
{
    return (struct verbs_plan_in){
        .peers = peers, .max_qp_wr = 32768, .max_srq = 1 << 23, .max_srq_wr = 32767,
        .max_cqe = 4194303, .max_msg = 1u << 30, .buf_size = 8 * KIB,
        .eager_limit = 16 * KIB, .recv_bufs = 64, .srq_peers = 16, .srq_credits = 16,
        .srq_bufs = 1024, .send_bufs = 128,
    };
}

/* What must hold for every plan. */
static void check_invariants(const struct verbs_plan_in *in, const struct verbs_plan *p)
{
    /* the largest message (header, largest owner header, max_send) is one buffer */
    ck_assert_uint_eq(VERBS_MSG_HDR + FARO_TP_MAX_HDR + p->max_send, p->buf_size);
    ck_assert_uint_eq(VERBS_MSG_HDR + p->max_inline, p->buf_size);
    /* at least one data credit and the control credit per peer */
    ck_assert_int_ge(p->nrx, 2);
    ck_assert_int_le(p->nrx, 65536);
    /* the completion queue: every send entry and every receive that can be posted */
    ck_assert_int_le(p->cq_size, in->max_cqe);
    ck_assert_int_ge(p->cq_size, p->ntx + (p->srq ? p->srq_bufs : 0));
    ck_assert_int_eq(p->cq_size, p->ntx + p->rx_capacity);
    ck_assert_int_le(p->sq_depth, in->max_qp_wr);
    if (p->srq) {
        ck_assert_int_le(p->srq_bufs, in->max_srq_wr);
        ck_assert_int_le(p->srq_bufs, p->rx_capacity);
        ck_assert_uint_eq(p->rx_per_peer, 0);
    } else {
        ck_assert_int_eq(p->srq_bufs, 0);
        ck_assert_int_le(p->nrx, in->max_qp_wr); /* a queue pair's receive queue holds them */
        ck_assert_uint_eq(p->rx_per_peer, (size_t)p->nrx * p->buf_size);
    }
    ck_assert_uint_le(p->max_rma, VERBS_MAX_RMA);
    ck_assert_uint_gt(p->max_rma, 0);
}

static struct verbs_plan plan(const struct verbs_plan_in *in)
{
    struct verbs_plan p;
    verbs_plan_make(in, &p);
    check_invariants(in, &p);
    return p;
}

START_TEST(test_defaults)
{
    struct verbs_plan_in in = defaults(1);
    struct verbs_plan p = plan(&in);
    ck_assert_int_eq(p.srq, 0);
    ck_assert_int_eq(p.nrx, 64);                 /* 63 data credits + 1 control */
    ck_assert_uint_eq(p.rx_per_peer, 512 * KIB); /* 64 x 8 KiB */
    ck_assert_uint_eq(p.tx_process, 1 * MIB);    /* 128 x 8 KiB */
    ck_assert_uint_eq(p.rx_process, 0);
    ck_assert_uint_eq(p.max_send, 8120);
    ck_assert_uint_eq(p.max_inline, 8184);
    ck_assert_uint_eq(p.eager_limit, 16 * KIB);
    ck_assert_uint_eq(p.max_rma, 1ul << 30);
    ck_assert_int_eq(p.sq_depth, 256);
    ck_assert_int_eq(p.ntx, 2048);
    ck_assert_int_eq(p.rx_capacity, 64);
}
END_TEST

START_TEST(test_srq_threshold)
{
    struct verbs_plan_in in = defaults(16);
    struct verbs_plan p = plan(&in);
    ck_assert_msg(!p.srq, "16 other ranks (FARO_VERBS_SRQ_PEERS=16): no SRQ yet");
    ck_assert_int_eq(p.rx_capacity, 16 * 64);
    in = defaults(17);
    p = plan(&in);
    ck_assert_msg(p.srq, "17 other ranks: an SRQ");
    ck_assert_int_eq(p.nrx, 16);                 /* FARO_VERBS_SRQ_CREDITS */
    ck_assert_int_eq(p.srq_bufs, 1024);
    ck_assert_uint_eq(p.rx_process, 8 * MIB);    /* 1024 x 8 KiB, whatever the peers */
    in = defaults(100000);
    p = plan(&in);
    ck_assert(p.srq);
    ck_assert_uint_eq(p.rx_process, 8 * MIB);
    ck_assert_int_eq(p.cq_size, 2048 + 1024);
}
END_TEST

START_TEST(test_srq_choice)
{
    struct verbs_plan_in in = defaults(1000);
    in.iwarp = 1; /* a message that finds no buffer ends an iWARP connection */
    ck_assert(!plan(&in).srq);
    in = defaults(1000);
    in.max_srq = 0; /* the device has none */
    ck_assert(!plan(&in).srq);
    in = defaults(1);
    in.srq_peers = 0; /* always, with at least one peer */
    ck_assert(plan(&in).srq);
    in = defaults(0);
    in.srq_peers = 0; /* a singleton has nobody to share it with */
    ck_assert(!plan(&in).srq);
}
END_TEST

/* Without an SRQ the completion queue also has room for connections beyond
 * the job (ports): a singleton too, which has no other rank. */
START_TEST(test_port_peers)
{
    struct verbs_plan_in in = defaults(3);
    in.port_peers = 16;
    struct verbs_plan p = plan(&in);
    ck_assert(!p.srq);
    ck_assert_int_eq(p.rx_capacity, (3 + 16) * 64);
    in = defaults(0);
    in.port_peers = 2;
    p = plan(&in);
    ck_assert_int_eq(p.rx_capacity, 2 * 64);
    in = defaults(20); /* an SRQ serves them all: the room is its buffers */
    in.port_peers = 16;
    p = plan(&in);
    ck_assert(p.srq);
    ck_assert_int_eq(p.rx_capacity, 1024);
}
END_TEST

START_TEST(test_small_completion_queue)
{
    struct verbs_plan_in in = defaults(100);
    in.srq_peers = 1000;
    in.max_cqe = 4096; /* 100 peers x 64 buffers do not fit next to 2048 send entries */
    struct verbs_plan p = plan(&in);
    ck_assert_int_eq(p.ntx, 2048);
    ck_assert_int_eq(p.rx_capacity, 2048);       /* 32 peers' buffers: more are refused */
    in.max_cqe = 1000;
    p = plan(&in);
    ck_assert_int_eq(p.ntx, 500);
    ck_assert_int_eq(p.rx_capacity, 500);
    in = defaults(20);
    in.max_cqe = 2000; /* the SRQ is cut to what the CQ holds */
    p = plan(&in);
    ck_assert(p.srq);
    ck_assert_int_eq(p.srq_bufs, 2000 - 1000);
}
END_TEST

START_TEST(test_device_limits)
{
    struct verbs_plan_in in = defaults(1);
    in.recv_bufs = 4096;
    in.max_qp_wr = 1024;
    struct verbs_plan p = plan(&in);
    ck_assert_int_eq(p.nrx, 1024);
    in.max_qp_wr = 128;
    p = plan(&in);
    ck_assert_int_eq(p.sq_depth, 128);
    in = defaults(40);
    in.srq_bufs = 100000;
    in.max_srq_wr = 16384;
    p = plan(&in);
    ck_assert_int_eq(p.srq_bufs, 16384);
    in = defaults(1);
    in.max_msg = 65536;
    ck_assert_uint_eq(plan(&in).max_rma, 65536);
    in.max_msg = 0; /* unknown */
    ck_assert_uint_eq(plan(&in).max_rma, 1ul << 30);
    in.max_msg = 0x80000000u;
    ck_assert_uint_eq(plan(&in).max_rma, 1ul << 30);
}
END_TEST

START_TEST(test_buffer_sizes)
{
    /* every size the tunable allows keeps the invariants */
    for (size_t b = 2 * KIB; b <= 1024 * KIB; b *= 2) {
        struct verbs_plan_in in = defaults(3);
        in.buf_size = b;
        struct verbs_plan p = plan(&in);
        ck_assert_uint_eq(p.rx_per_peer, 64 * b);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verbs_plan");
    TCase *tc = tcase_create("plan");
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_srq_threshold);
    tcase_add_test(tc, test_srq_choice);
    tcase_add_test(tc, test_small_completion_queue);
    tcase_add_test(tc, test_port_peers);
    tcase_add_test(tc, test_device_limits);
    tcase_add_test(tc, test_buffer_sizes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
