/*
 * Unit tests of the verbs transport's decisions, over the verbs stand-in
 * (tests/transport/standin/standin.h) in one process: two instances of the
 * transport (ranks 0 and 1 of a job of two) connected to each other, whose
 * calls into libibverbs the stand-in answers and counts. What is checked is
 * what the conformance suite cannot see from outside:
 *
 *   - the device, port and GID choice (FARO_VERBS_DEVICE/_PORT/_GID_INDEX)
 *     and the reasons given when nothing qualifies;
 *   - the attributes the core's eager and rendezvous decisions read;
 *   - which sends go inline in the work request and which through a
 *     registered send buffer;
 *   - credits: a receiver that stops polling holds its sender to the credits
 *     it granted (the buffers posted for it, or its share of the SRQ);
 *   - the registration cache: the same buffer registered again is a hit, a
 *     buffer freed and mapped again at the same address is registered anew
 *     and read with its new bytes;
 *   - a get or put of more pieces than the device gathers is split.
 *
 * Check runs each test in a process of its own, after the environment for
 * it is set.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "base/tunables.h"
#include "common/rcache.h"
#include "transport.h"
#include "verbs_standin.h"

#define SPINS 200000

/* Check records every ck_assert through a pipe: loops test first and fail
 * through Check only when they must. */
#define LOOP_CHECK(cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond))                                                                           \
            ck_abort_msg(__VA_ARGS__);                                                         \
    } while (0)

struct side {
    faro_tp_t *tp;
    faro_tp_attr_t attr;
    faro_tp_env_t env;
    faro_tp_ep_t *ep;         /* to the other rank */
    long nrecv;
    uint32_t next;            /* sequence number expected */
    int bad, lost;
    uint8_t last[64];
};

struct glue {
    const faro_tp_ops_t *ops;
    struct side s[2];
};

static const faro_tp_ops_t *verbs_ops(void)
{
    for (int i = 0; faro_transports[i]; i++)
        if (!strcmp(faro_transports[i]->name, "verbs"))
            return faro_transports[i];
    ck_abort_msg("the verbs transport is not built in");
    return NULL;
}

static void load(void)
{
    char err[256];
    ck_assert_msg(faro_tunables_load(err, sizeof err) == 0, "%s", err);
}

static void handler(void *core, void *ctx, const void *hdr, size_t hdrlen, const void *data,
                    size_t len)
{
    struct side *s = core;
    uint32_t seq;
    memcpy(&seq, hdr, sizeof seq);
    if (ctx != s || seq != s->next)
        s->bad++;
    s->next++;
    s->nrecv++;
    memcpy(s->last, data, len < sizeof s->last ? len : sizeof s->last);
}

static void *accepted(void *core, faro_tp_ep_t *ep, uint64_t id, unsigned port)
{
    struct side *s = core;
    s->ep = ep;
    return s;
}

static void lost(void *core, void *ctx, int orderly, const char *why)
{
    ((struct side *)core)->lost++;
}

static const int node_of[2] = { 0, 1 }, locals[2] = { 0, 1 };
static const uint8_t key[16] = "glue-test-key-16";

/* One instance: rank of size; returns init's status, the reason in why. */
static int open_side(struct glue *g, int rank, int size, char *why, size_t whylen)
{
    struct side *s = &g->s[rank];
    s->env = (faro_tp_env_t){ .rank = rank, .size = size, .node_of = node_of,
                              .local_rank = 0, .local_size = 1, .local_ranks = &locals[rank],
                              .jobid = "glue", .job_key = key, .job_key_len = sizeof key,
                              .ncores = 2, .core = s, .accepted = accepted, .ep_lost = lost };
    why[0] = 0;
    int rc = g->ops->init(&s->tp, &s->env, &s->attr, why, whylen);
    for (unsigned k = 0; rc == FARO_TP_OK && k < FARO_TP_MAX_KINDS; k++)
        g->ops->set_handler(s->tp, k, handler);
    return rc;
}

static void progress(struct glue *g, int both)
{
    g->ops->progress(g->s[0].tp);
    if (both)
        g->ops->progress(g->s[1].tp);
}

/* Progress until rank r has n messages (both ranks, or only rank 0). */
static void wait_recv(struct glue *g, int r, long n, int both)
{
    for (int i = 0; g->s[r].nrecv < n; i++) {
        LOOP_CHECK(i < SPINS, "rank %d got %ld of %ld messages", r, g->s[r].nrecv, n);
        progress(g, both);
    }
    ck_assert_int_eq(g->s[r].bad, 0);
}

/* Progress both until rank 1 holds nothing posted (its gets and puts done). */
static void flush_wait(struct glue *g)
{
    for (int i = 0; g->ops->flush(g->s[1].tp, NULL) == FARO_TP_AGAIN; i++) {
        LOOP_CHECK(i < SPINS, "rank 1's gets and puts did not complete");
        progress(g, 1);
    }
}

static uint32_t seq_out[2];

static int send_msg(struct glue *g, int from, const void *data, size_t len, int inl)
{
    struct side *s = &g->s[from];
    uint8_t hdr[8] = { 0 };
    memcpy(hdr, &seq_out[from], 4);
    int rc = inl ? g->ops->send_inline(s->tp, s->ep, 1, hdr, sizeof hdr, data, len)
                 : FARO_TP_AGAIN;
    if (rc == FARO_TP_AGAIN) {
        struct iovec iov = { (void *)data, len };
        rc = g->ops->isend(s->tp, s->ep, 1, hdr, sizeof hdr, &iov, 1, NULL, NULL);
    }
    ck_assert_msg(rc == FARO_TP_OK || rc == FARO_TP_DONE, "send returned %d", rc);
    seq_out[from]++;
    return rc;
}

/* Ranks 0 and 1 of one job, connected (rank 0 connects, rank 1 accepts). */
static void pair_up(struct glue *g)
{
    char why[512];
    uint8_t blob[FARO_TP_MAX_ADDR];
    size_t len = sizeof blob;
    g->ops = verbs_ops();
    ck_assert_int_eq(open_side(g, 0, 2, why, sizeof why), FARO_TP_OK);
    ck_assert_int_eq(open_side(g, 1, 2, why, sizeof why), FARO_TP_OK);
    ck_assert_int_eq(g->ops->addr_get(g->s[1].tp, blob, &len), FARO_TP_OK);
    faro_tp_conn_t c = { .addr = blob, .addrlen = len, .id = 0, .ctx = &g->s[0] };
    ck_assert_int_eq(g->ops->connect(g->s[0].tp, &c, &g->s[0].ep), FARO_TP_OK);
    send_msg(g, 0, "hello", 5, 1);
    wait_recv(g, 1, 1, 1);
    send_msg(g, 1, "back", 4, 1);
    wait_recv(g, 0, 1, 1);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}

static void stats(struct verbs_standin_stats *st)
{
    verbs_standin_stats(st);
}

/* ---- the device, port and GID choice ---- */

static int try_init(const char *var, const char *val, char *why, size_t whylen)
{
    struct glue g = { .ops = verbs_ops() };
    if (var)
        setenv(var, val, 1);
    load();
    int rc = open_side(&g, 0, 1, why, whylen);
    if (rc == FARO_TP_OK)
        g.ops->finalize(g.s[0].tp);
    if (var)
        unsetenv(var);
    return rc;
}

START_TEST(test_choice)
{
    char why[4096];
    ck_assert_int_eq(try_init(NULL, NULL, why, sizeof why), FARO_TP_OK);
    ck_assert_msg(strstr(why, "chosen: standin0 port 1, address 127.0.0.1 (lo): the first "
                         "active port with an address"), "%s", why);
    ck_assert_msg(strstr(why, "receive: 64 x 8 KiB = 512 KiB per connected peer"), "%s", why);
    ck_assert_int_eq(try_init("FARO_VERBS_DEVICE", "standin0", why, sizeof why), FARO_TP_OK);
    ck_assert_int_eq(try_init("FARO_VERBS_GID_INDEX", "0", why, sizeof why), FARO_TP_OK);
    ck_assert_int_eq(try_init("FARO_VERBS_GID_INDEX", "1", why, sizeof why), FARO_TP_OK);
    ck_assert_int_eq(try_init("FARO_VERBS_DEVICE", "mlx5_0", why, sizeof why),
                     FARO_TP_UNAVAILABLE);
    ck_assert_msg(strstr(why, "no active RDMA port with an IP address matching "
                         "FARO_VERBS_DEVICE=mlx5_0"), "%s", why);
    ck_assert_int_eq(try_init("FARO_VERBS_PORT", "2", why, sizeof why), FARO_TP_UNAVAILABLE);
    ck_assert_msg(strstr(why, "FARO_VERBS_PORT=2"), "%s", why);
    ck_assert_int_eq(try_init("FARO_VERBS_GID_INDEX", "2", why, sizeof why),
                     FARO_TP_UNAVAILABLE);
    ck_assert_msg(strstr(why, "FARO_VERBS_GID_INDEX=2: standin0 port 1 has no GID there"), "%s",
                  why);
}
END_TEST

START_TEST(test_no_device)
{
    char why[1024];
    verbs_standin_devices(0);
    ck_assert_int_eq(try_init(NULL, NULL, why, sizeof why), FARO_TP_UNAVAILABLE);
    ck_assert_msg(!strncmp(why, "no RDMA device", 14), "%s", why);
}
END_TEST

/* ---- what the core's eager and rendezvous decisions read ---- */

START_TEST(test_attributes)
{
    char why[4096];
    struct glue g = { .ops = verbs_ops() };
    load();
    ck_assert_int_eq(open_side(&g, 0, 2, why, sizeof why), FARO_TP_OK);
    const faro_tp_attr_t *a = &g.s[0].attr;
    ck_assert_uint_eq(a->caps, FARO_TP_CAP_GET | FARO_TP_CAP_PUT | FARO_TP_CAP_LOCAL_REG |
                                   FARO_TP_CAP_PORTS);
    ck_assert_uint_eq(a->max_send, 8 * 1024 - 8 - FARO_TP_MAX_HDR);
    ck_assert_uint_eq(a->max_inline, 8 * 1024 - 8);
    ck_assert_uint_eq(a->frag_size, a->max_send);
    ck_assert_uint_eq(a->eager_limit, 16 * 1024);
    ck_assert_int_eq(a->eager_limit_user, 0);
    ck_assert_uint_eq(a->max_get, 1u << 30); /* the port's max_msg_sz */
    ck_assert_uint_eq(a->max_put, 1u << 30);
    ck_assert_uint_eq(a->rkey_size, 20);
    g.ops->finalize(g.s[0].tp);
    setenv("FARO_VERBS_EAGER_LIMIT", "4k", 1);
    setenv("FARO_VERBS_BUF_SIZE", "16k", 1);
    load();
    ck_assert_int_eq(open_side(&g, 0, 2, why, sizeof why), FARO_TP_OK);
    ck_assert_uint_eq(a->eager_limit, 4096);
    ck_assert_int_eq(a->eager_limit_user, 1); /* wins over FARO_EAGER_LIMIT in the core */
    ck_assert_uint_eq(a->max_send, 16 * 1024 - 8 - FARO_TP_MAX_HDR);
    g.ops->finalize(g.s[0].tp);
}
END_TEST

/* ---- inline or through a send buffer ---- */

START_TEST(test_inline_decision)
{
    struct glue g;
    struct verbs_standin_stats a, b;
    static uint8_t data[8192];
    memset(&g, 0, sizeof g);
    load();
    pair_up(&g);
    /* The stand-in's queue pairs send 128 bytes inline: 8 (transport) + 8 + 112. */
    stats(&a);
    send_msg(&g, 0, data, 112, 1);
    stats(&b);
    ck_assert_int_eq(b.sends - a.sends, 1);
    ck_assert_int_eq(b.inline_sends - a.inline_sends, 1);
    send_msg(&g, 0, data, 113, 1);
    send_msg(&g, 0, data, 8000, 0);
    send_msg(&g, 0, data, 8184 - 8, 1); /* max_inline: one buffer, header included */
    stats(&a);
    ck_assert_int_eq(a.sends - b.sends, 3);
    ck_assert_int_eq(a.inline_sends - b.inline_sends, 0);
    wait_recv(&g, 1, 5, 1);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}
END_TEST

/* ---- credits ---- */

/* Rank 1 stops polling; rank 0 posts n messages and progresses alone. */
static void flood(struct glue *g, long n, long credits)
{
    struct verbs_standin_stats a, b;
    static uint8_t data[300];
    long before = g->s[1].nrecv;
    stats(&a);
    for (long i = 0; i < n; i++)
        send_msg(g, 0, data, sizeof data, i % 2);
    for (int i = 0; i < 20000; i++)
        progress(g, 0);
    stats(&b);
    ck_assert_msg(b.sends - a.sends <= credits, "%ld messages left while the receiver did not "
                  "poll; it granted %ld credits", b.sends - a.sends, credits);
    ck_assert_int_ge(b.sends - a.sends, credits - 1);
    wait_recv(g, 1, before + n, 1);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}

START_TEST(test_credits)
{
    struct glue g;
    memset(&g, 0, sizeof g);
    load();
    pair_up(&g);
    flood(&g, 3000, 63); /* 64 buffers per peer: 63 data credits + 1 for credit messages */
}
END_TEST

START_TEST(test_credits_srq)
{
    struct glue g;
    memset(&g, 0, sizeof g);
    setenv("FARO_VERBS_SRQ_PEERS", "0", 1);
    load();
    pair_up(&g);
    flood(&g, 3000, 15); /* FARO_VERBS_SRQ_CREDITS=16: 15 data credits */
}
END_TEST

/* ---- the registration cache ---- */

static void get_check(struct glue *g, void *src, size_t len, int byte)
{
    uint8_t packed[FARO_TP_MAX_RKEY];
    size_t plen = sizeof packed;
    faro_tp_mem_t *m, *lm;
    faro_tp_rkey_t *rk;
    static uint8_t dst[1 << 20];
    const faro_tp_ops_t *o = g->ops;
    ck_assert_int_eq(o->mem_reg(g->s[0].tp, src, len, FARO_TP_MEM_REMOTE_READ, &m), FARO_TP_OK);
    ck_assert_int_eq(o->rkey_pack(g->s[0].tp, m, packed, &plen), FARO_TP_OK);
    ck_assert_int_eq(o->rkey_unpack(g->s[1].tp, g->s[1].ep, packed, plen, &rk), FARO_TP_OK);
    ck_assert_int_eq(o->mem_reg(g->s[1].tp, dst, len, FARO_TP_MEM_LOCAL, &lm), FARO_TP_OK);
    memset(dst, 0, len);
    struct iovec iov = { dst, len };
    int rc = o->get(g->s[1].tp, g->s[1].ep, &iov, 1, lm, rk, (uintptr_t)src, NULL, NULL);
    ck_assert_int_eq(rc, FARO_TP_OK);
    flush_wait(g);
    for (size_t i = 0; i < len; i++)
        ck_assert_msg(dst[i] == byte, "byte %zu read %#x, the source holds %#x", i, dst[i],
                      byte);
    o->rkey_release(g->s[1].tp, rk);
    o->mem_dereg(g->s[1].tp, lm);
    o->mem_dereg(g->s[0].tp, m);
}

START_TEST(test_registration_cache)
{
    struct glue g;
    struct verbs_standin_stats a, b;
    size_t len = 1 << 20;
    memset(&g, 0, sizeof g);
    load();
    pair_up(&g);
    int cached = strcmp(faro_rcache_monitor(), "userfaultfd") == 0;
    uint8_t *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(buf, MAP_FAILED);
    memset(buf, 0xaa, len);
    stats(&a);
    get_check(&g, buf, len, 0xaa);
    get_check(&g, buf, len, 0xaa); /* the same two buffers again */
    stats(&b);
    ck_assert_int_eq(b.mr_regs - a.mr_regs, cached ? 2 : 4);
    /* Freed and mapped again at the same address, with new bytes. */
    munmap(buf, len);
    ck_assert_ptr_eq(mmap(buf, len, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), buf);
    memset(buf, 0x55, len);
    get_check(&g, buf, len, 0x55);
    stats(&a);
    ck_assert_int_eq(a.mr_regs - b.mr_regs, cached ? 1 : 2); /* the source anew */
    ck_assert_int_eq(verbs_standin_errors(), 0);
}
END_TEST

/* ---- more pieces than the device gathers ---- */

START_TEST(test_rma_pieces)
{
    struct glue g;
    struct verbs_standin_stats a, b;
    static uint8_t src[20 * 100], dst[20 * 100 + 20];
    uint8_t packed[FARO_TP_MAX_RKEY];
    size_t plen = sizeof packed;
    faro_tp_mem_t *m, *lm;
    faro_tp_rkey_t *rk;
    memset(&g, 0, sizeof g);
    load();
    pair_up(&g);
    const faro_tp_ops_t *o = g.ops;
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 13);
    ck_assert_int_eq(o->mem_reg(g.s[0].tp, src, sizeof src,
                                FARO_TP_MEM_REMOTE_READ | FARO_TP_MEM_REMOTE_WRITE, &m),
                     FARO_TP_OK);
    ck_assert_int_eq(o->rkey_pack(g.s[0].tp, m, packed, &plen), FARO_TP_OK);
    ck_assert_int_eq(o->rkey_unpack(g.s[1].tp, g.s[1].ep, packed, plen, &rk), FARO_TP_OK);
    ck_assert_int_eq(o->mem_reg(g.s[1].tp, dst, sizeof dst, FARO_TP_MEM_LOCAL, &lm), FARO_TP_OK);
    struct iovec iov[20]; /* 20 pieces with gaps between them */
    for (int i = 0; i < 20; i++)
        iov[i] = (struct iovec){ dst + i * 101, 100 };
    stats(&a);
    ck_assert_int_eq(o->get(g.s[1].tp, g.s[1].ep, iov, 20, lm, rk, (uintptr_t)src, NULL, NULL),
                     FARO_TP_OK);
    flush_wait(&g);
    stats(&b);
    ck_assert_int_eq(b.reads - a.reads, 3); /* the stand-in gathers 8 pieces: 8 + 8 + 4 */
    for (int i = 0; i < 20; i++)
        ck_assert_int_eq(memcmp(dst + i * 101, src + i * 100, 100), 0);
    memset(src, 0, sizeof src);
    ck_assert_int_eq(o->put(g.s[1].tp, g.s[1].ep, iov, 20, lm, rk, (uintptr_t)src, NULL, NULL),
                     FARO_TP_OK);
    flush_wait(&g);
    stats(&a);
    ck_assert_int_eq(a.writes - b.writes, 3);
    for (int i = 0; i < 20; i++)
        ck_assert_int_eq(memcmp(dst + i * 101, src + i * 100, 100), 0);
    ck_assert_int_eq(verbs_standin_errors(), 0);
}
END_TEST

int main(void)
{
    faro_log_level = 0;
    Suite *s = suite_create("verbs_glue");
    TCase *tc = tcase_create("glue");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_choice);
    tcase_add_test(tc, test_no_device);
    tcase_add_test(tc, test_attributes);
    tcase_add_test(tc, test_inline_decision);
    tcase_add_test(tc, test_credits);
    tcase_add_test(tc, test_credits_srq);
    tcase_add_test(tc, test_registration_cache);
    tcase_add_test(tc, test_rma_pieces);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
