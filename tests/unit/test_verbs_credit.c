/*
 * Unit tests of the verbs transport's credit accounting (transports/verbs/
 * verbs_credit.h), without a device: two sides of a connection exchange
 * messages through simulated wires, each side posting B receive buffers for
 * the other, under randomized traffic (bursts, replies sent from inside
 * receive handlers, receivers that stop polling for a while, the hardware
 * delivering at random moments). Checked throughout:
 *
 *   - no message ever arrives without a posted buffer (no overrun), and data
 *     and control messages each stay within their own share;
 *   - whenever a side has reached the threshold with nothing to piggy-back
 *     on, its control credit is there (the credit message can always go);
 *   - once traffic stops and both sides poll, everything is delivered within
 *     a bounded number of steps (no deadlock), and the credits add up.
 */
#include "verbs/verbs_credit.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIRE_CAP 4096

/* Check's ck_assert records every call through a pipe; the simulation's loops
 * check millions of times, so they test first and only fail through Check. */
#define SIM_CHECK(cond, ...)                                                                   \
    do {                                                                                       \
        if (!(cond))                                                                           \
            ck_abort_msg(__VA_ARGS__);                                                         \
    } while (0)

struct msg {
    int ctl;                      /* a credit message */
    uint16_t credits;
    uint8_t ctl_credits;
};

/* Messages in order: on the wire, then in the receiver's completion queue. */
struct fifo {
    struct msg m[WIRE_CAP];
    size_t head, n;
};

static void fifo_push(struct fifo *f, struct msg m)
{
    SIM_CHECK(f->n < WIRE_CAP, "a wire holds more than %d messages", WIRE_CAP);
    f->m[(f->head + f->n++) % WIRE_CAP] = m;
}

static struct msg fifo_pop(struct fifo *f)
{
    struct msg m = f->m[f->head];
    f->head = (f->head + 1) % WIRE_CAP;
    f->n--;
    return m;
}

struct side {
    struct verbs_credit c;
    uint32_t data_bufs, ctl_bufs; /* posted for the peer's messages, per share */
    uint32_t data_free, ctl_free; /* of those, not holding a message */
    long queued;                  /* owner messages waiting for a credit */
    long sent, received, credit_msgs;
    int stalled;                  /* not polling */
    struct fifo out;              /* on the wire to the peer */
    struct fifo cq;               /* arrived here, not yet processed */
};

struct sim {
    struct side s[2];
    unsigned seed;
    double reply_p;               /* chance that processing a message queues a reply */
    long steps;
};

static void side_init(struct sim *sim, int i, uint32_t bufs)
{
    struct side *s = &sim->s[i];
    memset(s, 0, sizeof *s);
    s->data_bufs = s->data_free = bufs - 1;
    s->ctl_bufs = s->ctl_free = 1;
}

static void sim_connect(struct sim *sim)
{
    /* Each side grants what it posted for the other (the connection messages). */
    for (int i = 0; i < 2; i++) {
        struct side *me = &sim->s[i], *peer = &sim->s[1 - i];
        ck_assert_int_eq(verbs_credit_init(&me->c, peer->data_bufs, peer->ctl_bufs,
                                           me->data_bufs), 0);
    }
}

/* The sender's side of a poll: queued messages while credits last, then an
 * explicit credit message if the returns cannot ride on anything. */
static void side_send(struct side *s)
{
    while (s->queued > 0 && verbs_credit_take(&s->c)) {
        struct msg m = { 0 };
        verbs_credit_piggyback(&s->c, &m.credits, &m.ctl_credits);
        fifo_push(&s->out, m);
        s->queued--;
        s->sent++;
    }
    int soon = s->queued > 0 && s->c.send > 0;
    if (s->c.ret >= s->c.thr && !soon) /* the reserved credit must be there */
        SIM_CHECK(s->c.ctl > 0, "a side with %u returns to make has no control credit", s->c.ret);
    if (verbs_credit_want_explicit(&s->c, soon)) {
        SIM_CHECK(verbs_credit_take_ctl(&s->c), "no control credit for a credit message");
        struct msg m = { .ctl = 1 };
        verbs_credit_piggyback(&s->c, &m.credits, &m.ctl_credits);
        fifo_push(&s->out, m);
        s->credit_msgs++;
    }
}

/* The hardware moves up to n messages from s's wire into the peer's buffers. */
static void wire_deliver(struct sim *sim, int from, long n)
{
    struct side *s = &sim->s[from], *peer = &sim->s[1 - from];
    while (n-- > 0 && s->out.n > 0) {
        struct msg m = fifo_pop(&s->out);
        uint32_t *free_bufs = m.ctl ? &peer->ctl_free : &peer->data_free;
        SIM_CHECK(*free_bufs > 0, "a %s message arrived with no buffer posted for it",
                  m.ctl ? "credit" : "data");
        (*free_bufs)--;
        fifo_push(&peer->cq, m);
    }
}

/* A poll: process what arrived (credits first, then the handler, then the
 * buffer is posted again and counted), then send. */
static void side_poll(struct sim *sim, int i, long max)
{
    struct side *s = &sim->s[i];
    while (max-- > 0 && s->cq.n > 0) {
        struct msg m = fifo_pop(&s->cq);
        SIM_CHECK(verbs_credit_returned(&s->c, m.credits, m.ctl_credits) == 0,
                  "returned more credits than were granted");
        if (!m.ctl) {
            s->received++;
            if ((double)rand_r(&sim->seed) / RAND_MAX < sim->reply_p)
                s->queued++; /* the handler answers */
            s->data_free++;
        } else {
            s->ctl_free++;
        }
        verbs_credit_consumed(&s->c, m.ctl);
        if (s->queued) /* a handler's send goes at once */
            side_send(s);
    }
    side_send(s);
}

static struct sim *sim_new(uint32_t bufs, unsigned seed, double reply_p)
{
    struct sim *sim = calloc(1, sizeof *sim);
    ck_assert_ptr_nonnull(sim);
    sim->seed = seed;
    sim->reply_p = reply_p;
    side_init(sim, 0, bufs);
    side_init(sim, 1, bufs);
    sim_connect(sim);
    return sim;
}

static void sim_random_step(struct sim *sim, int allow_new)
{
    int i = rand_r(&sim->seed) % 2;
    struct side *s = &sim->s[i];
    switch (rand_r(&sim->seed) % 6) {
    case 0:
        if (allow_new) {
            s->queued += rand_r(&sim->seed) % 4;
            side_send(s);
        }
        break;
    case 1:
    case 2:
        if (!s->stalled)
            side_poll(sim, i, 1 + rand_r(&sim->seed) % 16);
        break;
    case 3:
    case 4:
        wire_deliver(sim, i, 1 + rand_r(&sim->seed) % 16);
        break;
    case 5:
        if (allow_new && rand_r(&sim->seed) % 8 == 0)
            s->stalled = !s->stalled;
        else if (!allow_new)
            s->stalled = 0;
        break;
    }
    sim->steps++;
}

static int sim_quiet(const struct sim *sim)
{
    for (int i = 0; i < 2; i++) {
        const struct side *s = &sim->s[i];
        if (s->queued || s->out.n || s->cq.n)
            return 0;
    }
    return 1;
}

/* Traffic until `steps`, then only polling and delivery: everything must go. */
static void sim_run(uint32_t bufs, unsigned seed, double reply_p, long steps)
{
    struct sim *sim = sim_new(bufs, seed, reply_p);
    for (long k = 0; k < steps; k++)
        sim_random_step(sim, 1);
    /* Nothing moved for this many steps: stuck. Progress is slow with tiny
     * windows (one message per round trip), never absent. */
    long drain = 0, idle = 0, moved = -1;
    sim->s[0].stalled = sim->s[1].stalled = 0;
    while (!sim_quiet(sim) && idle < 100000) {
        /* Replies go on while draining; they die out (reply_p < 1). */
        sim_random_step(sim, 0);
        drain++;
        long now = sim->s[0].received + sim->s[1].received + sim->s[0].credit_msgs +
                   sim->s[1].credit_msgs + (long)sim->s[0].out.n + (long)sim->s[1].out.n;
        idle = now == moved ? idle + 1 : 0;
        moved = now;
    }
    ck_assert_msg(sim_quiet(sim),
                  "no progress for %ld steps (bufs %u seed %u): queued %ld/%ld, wires %zu/%zu,"
                  " completion queues %zu/%zu, credits %u/%u, control %u/%u, returns %u/%u,"
                  " control returns %u/%u", idle, bufs, seed, sim->s[0].queued,
                  sim->s[1].queued, sim->s[0].out.n, sim->s[1].out.n, sim->s[0].cq.n,
                  sim->s[1].cq.n, sim->s[0].c.send, sim->s[1].c.send, sim->s[0].c.ctl,
                  sim->s[1].c.ctl, sim->s[0].c.ret, sim->s[1].c.ret, sim->s[0].c.ctl_ret,
                  sim->s[1].c.ctl_ret);
    for (int i = 0; i < 2; i++) {
        struct side *s = &sim->s[i], *peer = &sim->s[1 - i];
        ck_assert_int_eq(s->sent, peer->received);
        /* every credit is with the sender or owed by the receiver */
        ck_assert_uint_eq(s->c.send + peer->c.ret, peer->data_bufs);
        ck_assert_uint_eq(s->c.ctl + peer->c.ctl_ret, peer->ctl_bufs);
        ck_assert_uint_eq(peer->data_free, peer->data_bufs);
    }
    free(sim);
}

START_TEST(test_init_limits)
{
    struct verbs_credit c;
    ck_assert_int_eq(verbs_credit_init(&c, 63, 1, 63), 0);
    ck_assert_uint_eq(c.thr, 32); /* more than half of the data buffers */
    ck_assert_int_eq(verbs_credit_init(&c, 0, 1, 63), -1);
    ck_assert_int_eq(verbs_credit_init(&c, 63, 0, 63), -1);
    ck_assert_int_eq(verbs_credit_init(&c, 63, 1, 0), -1);
    ck_assert_int_eq(verbs_credit_init(&c, VERBS_CREDIT_MAX + 1, 1, 63), -1);
    ck_assert_int_eq(verbs_credit_init(&c, 63, VERBS_CTL_MAX + 1, 63), -1);
    ck_assert_int_eq(verbs_credit_init(&c, 1, 1, 1), 0);
    ck_assert_uint_eq(c.thr, 1);
}
END_TEST

START_TEST(test_take_and_return)
{
    struct verbs_credit c;
    uint16_t d;
    uint8_t k;
    verbs_credit_init(&c, 3, 1, 4);
    ck_assert(verbs_credit_take(&c));
    ck_assert(verbs_credit_take(&c));
    ck_assert(verbs_credit_take(&c));
    ck_assert(!verbs_credit_take(&c)); /* the fourth waits */
    ck_assert_int_eq(verbs_credit_returned(&c, 2, 0), 0);
    ck_assert_uint_eq(c.send, 2);
    ck_assert_int_eq(verbs_credit_returned(&c, 2, 0), -1); /* more than ever granted */
    ck_assert_int_eq(verbs_credit_returned(&c, 0, 1), -1);
    verbs_credit_consumed(&c, 0);
    verbs_credit_consumed(&c, 0);
    verbs_credit_consumed(&c, 1);
    ck_assert(!verbs_credit_want_explicit(&c, 0)); /* 2 < threshold 3 */
    verbs_credit_consumed(&c, 0);
    ck_assert(verbs_credit_want_explicit(&c, 0));
    ck_assert(!verbs_credit_want_explicit(&c, 1)); /* a message is about to carry them */
    verbs_credit_piggyback(&c, &d, &k);
    ck_assert_uint_eq(d, 3);
    ck_assert_uint_eq(k, 1);
    ck_assert_uint_eq(c.ret, 0);
    verbs_credit_unsend(&c, 0, d, k); /* the post failed: all back */
    ck_assert_uint_eq(c.ret, 3);
    ck_assert_uint_eq(c.ctl_ret, 1);
    ck_assert_uint_eq(c.send, 3);
}
END_TEST

START_TEST(test_both_out_of_credits)
{
    /* Both sides spend every credit and keep more queued, then poll: each
     * must return the other's credits by a credit message and go on. */
    struct sim *sim = sim_new(8, 1, 0.0);
    sim->s[0].queued = sim->s[1].queued = 100;
    side_send(&sim->s[0]);
    side_send(&sim->s[1]);
    ck_assert_uint_eq(sim->s[0].c.send, 0);
    ck_assert_uint_eq(sim->s[1].c.send, 0);
    for (int round = 0; round < 1000 && !sim_quiet(sim); round++) {
        wire_deliver(sim, 0, WIRE_CAP);
        wire_deliver(sim, 1, WIRE_CAP);
        side_poll(sim, 0, WIRE_CAP);
        side_poll(sim, 1, WIRE_CAP);
    }
    ck_assert(sim_quiet(sim));
    ck_assert_int_eq(sim->s[0].received, 100);
    ck_assert_int_eq(sim->s[1].received, 100);
    free(sim);
}
END_TEST

START_TEST(test_one_way_stream)
{
    /* One side sends, the other never has anything to say: returns must come
     * by credit messages, about one per threshold of messages. */
    struct sim *sim = sim_new(64, 1, 0.0);
    sim->s[0].queued = 10000;
    for (int round = 0; round < 100000 && !sim_quiet(sim); round++) {
        side_send(&sim->s[0]);
        wire_deliver(sim, 0, 7);
        side_poll(sim, 1, 5);
        wire_deliver(sim, 1, 3);
        side_poll(sim, 0, 3);
    }
    ck_assert(sim_quiet(sim));
    ck_assert_int_eq(sim->s[1].received, 10000);
    ck_assert_int_eq(sim->s[1].sent, 0);
    ck_assert_int_le(sim->s[1].credit_msgs, 10000 / 32 + 1);
    ck_assert_int_ge(sim->s[1].credit_msgs, 10000 / 63);
    free(sim);
}
END_TEST

START_TEST(test_random_traffic)
{
    const uint32_t bufs[] = { 2, 3, 4, 5, 8, 17, 64 };
    const double reply[] = { 0.0, 0.3, 0.9 };
    for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++)
        for (size_t r = 0; r < sizeof reply / sizeof reply[0]; r++)
            for (unsigned seed = 1; seed <= 20; seed++)
                sim_run(bufs[b], seed * 7919u + (unsigned)b, reply[r], 20000);
}
END_TEST

static Suite *credit_suite(void)
{
    Suite *s = suite_create("verbs_credit");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_init_limits);
    tcase_add_test(tc, test_take_and_return);
    tcase_add_test(tc, test_both_out_of_credits);
    tcase_add_test(tc, test_one_way_stream);
    tcase_add_test(tc, test_random_traffic);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(credit_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
