/*
 * Unit tests of the shared-memory transport's slot ring (transports/shm/shm_ring.h):
 * empty and full rings, wrap-around with slot counts that are not powers of
 * two, attaching to a ring in use, and a two-thread producer/consumer stress
 * that checks every byte and the order of a million messages.
 */
#include "shm/shm_ring.h"

#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ring_fixture {
    struct shm_ring *ring;
    char *slots;
    struct shm_tx tx;
    struct shm_rx rx;
};

static void fixture_open(struct ring_fixture *f, uint32_t nslots, size_t slot_size)
{
    f->ring = aligned_alloc(SHM_RING_LINE, sizeof *f->ring);
    /* aligned_alloc wants a multiple of the alignment */
    size_t bytes = (nslots * slot_size + SHM_RING_LINE - 1) / SHM_RING_LINE * SHM_RING_LINE;
    f->slots = aligned_alloc(SHM_RING_LINE, bytes);
    ck_assert_ptr_nonnull(f->ring);
    ck_assert_ptr_nonnull(f->slots);
    memset(f->slots, 0, bytes); /* like a new segment: no slot published */
    shm_ring_format(f->ring);
    shm_tx_attach(&f->tx, f->ring, f->slots, nslots, slot_size);
    shm_rx_attach(&f->rx, f->ring, f->slots, nslots, slot_size);
}

static void fixture_close(struct ring_fixture *f)
{
    free(f->ring);
    free(f->slots);
}

static int send_u64(struct shm_tx *tx, uint64_t v)
{
    void *slot = shm_tx_reserve(tx);
    if (!slot)
        return 0;
    memcpy(slot, &v, sizeof v);
    shm_tx_publish(tx);
    return 1;
}

static int recv_u64(struct shm_rx *rx, uint64_t *v)
{
    void *slot = shm_rx_peek(rx);
    if (!slot)
        return 0;
    memcpy(v, slot, sizeof *v);
    shm_rx_release(rx);
    return 1;
}

START_TEST(test_empty)
{
    struct ring_fixture f;
    fixture_open(&f, 4, 64);
    ck_assert_ptr_null(shm_rx_peek(&f.rx));
    ck_assert_ptr_nonnull(shm_tx_reserve(&f.tx));
    /* Reserved but not published: the receiver must not see it. */
    ck_assert_ptr_null(shm_rx_peek(&f.rx));
    fixture_close(&f);
}
END_TEST

START_TEST(test_full)
{
    struct ring_fixture f;
    uint64_t v;
    fixture_open(&f, 4, 64);
    for (uint64_t i = 0; i < 4; i++)
        ck_assert_int_eq(send_u64(&f.tx, i), 1);
    ck_assert_ptr_null(shm_tx_reserve(&f.tx));
    ck_assert_int_eq(send_u64(&f.tx, 99), 0);

    /* Peeking does not free a slot; releasing does. */
    ck_assert_ptr_nonnull(shm_rx_peek(&f.rx));
    ck_assert_ptr_null(shm_tx_reserve(&f.tx));
    ck_assert_int_eq(recv_u64(&f.rx, &v), 1);
    ck_assert_uint_eq(v, 0);
    ck_assert_int_eq(send_u64(&f.tx, 4), 1);
    ck_assert_ptr_null(shm_tx_reserve(&f.tx));

    for (uint64_t i = 1; i <= 4; i++) {
        ck_assert_int_eq(recv_u64(&f.rx, &v), 1);
        ck_assert_uint_eq(v, i);
    }
    ck_assert_int_eq(recv_u64(&f.rx, &v), 0);
    fixture_close(&f);
}
END_TEST

/* Slot counts 2, 3, 5, 7, 32: the index wraps without a power-of-two mask. */
static const uint32_t wrap_slots[] = {2, 3, 5, 7, 32};

START_TEST(test_wrap)
{
    struct ring_fixture f;
    uint32_t nslots = wrap_slots[_i];
    const size_t slot_size = 128;
    fixture_open(&f, nslots, slot_size);
    uint64_t sent = 0, got = 0, v;
    /* Uneven bursts so that head and tail cross the end at different points. */
    for (int round = 0; round < 200; round++) {
        uint32_t burst = 1 + (uint32_t)round % nslots;
        for (uint32_t k = 0; k < burst; k++)
            ck_assert_int_eq(send_u64(&f.tx, sent++), 1);
        for (uint32_t k = 0; k < burst; k++) {
            ck_assert_int_eq(recv_u64(&f.rx, &v), 1);
            ck_assert_uint_eq(v, got++);
        }
        ck_assert_int_eq(recv_u64(&f.rx, &v), 0);
    }
    /* Every slot was used and each sits where the counter says. */
    ck_assert_uint_eq(f.tx.pos, sent % nslots);
    ck_assert_uint_eq(f.rx.pos, got % nslots);
    shm_tx_detach(&f.tx); /* the tail reaches the ring only then */
    ck_assert_uint_eq(atomic_load(&f.ring->tail), sent);
    ck_assert_uint_eq(atomic_load(&f.ring->head), got);
    fixture_close(&f);
}
END_TEST

START_TEST(test_attach_in_use)
{
    struct ring_fixture f;
    uint64_t v;
    fixture_open(&f, 3, 64);
    for (uint64_t i = 0; i < 7; i++) {
        ck_assert_int_eq(send_u64(&f.tx, i), 1);
        ck_assert_int_eq(recv_u64(&f.rx, &v), 1);
    }
    ck_assert_int_eq(send_u64(&f.tx, 7), 1);
    /* A second view attached after the first detached continues where the
     * ring stands. */
    shm_tx_detach(&f.tx);
    struct shm_tx tx2;
    struct shm_rx rx2;
    shm_tx_attach(&tx2, f.ring, f.slots, 3, 64);
    shm_rx_attach(&rx2, f.ring, f.slots, 3, 64);
    ck_assert_uint_eq(tx2.pos, 8 % 3);
    ck_assert_int_eq(send_u64(&tx2, 8), 1);
    ck_assert_int_eq(send_u64(&tx2, 9), 1);
    ck_assert_int_eq(send_u64(&tx2, 10), 0); /* 7, 8, 9 fill the three slots */
    for (uint64_t i = 7; i <= 9; i++) {
        ck_assert_int_eq(recv_u64(&rx2, &v), 1);
        ck_assert_uint_eq(v, i);
    }
    fixture_close(&f);
}
END_TEST

/* Two threads, one per side: every message carries its sequence number and a
 * length that varies, filled with a pattern derived from both. */
#define STRESS_MIN 10000
#define STRESS_MSGS 1000000
#define STRESS_SLOT 256
#define STRESS_SECONDS 20

struct stress {
    struct ring_fixture f;
    _Atomic long deadline; /* time(NULL) limit; the consumer sets 0 to stop the producer */
    atomic_int timed_out;
};

static size_t stress_len(uint64_t seq)
{
    const size_t room = STRESS_SLOT - SHM_RING_SEQ - sizeof(uint64_t) - 1; /* usable bytes */
    return sizeof(uint64_t) + 1 + (size_t)(seq * 2654435761u % room);
}

static void *stress_producer(void *arg)
{
    struct stress *s = arg;
    for (uint64_t seq = 0; seq < STRESS_MSGS; seq++) {
        unsigned char *slot;
        unsigned spins = 0;
        while (!(slot = shm_tx_reserve(&s->f.tx))) {
            if (++spins % 64 == 0) { /* cores may be shared: let the consumer run */
                sched_yield();
                if (time(NULL) > atomic_load(&s->deadline)) {
                    atomic_store(&s->timed_out, 1);
                    return NULL;
                }
            }
        }
        size_t len = stress_len(seq);
        memcpy(slot, &seq, sizeof seq);
        for (size_t i = sizeof seq; i < len; i++)
            slot[i] = (unsigned char)(seq + i);
        shm_tx_publish(&s->f.tx);
    }
    return NULL;
}

START_TEST(test_two_thread_stress)
{
    static struct stress s;
    atomic_init(&s.deadline, (long)time(NULL) + STRESS_SECONDS);
    atomic_init(&s.timed_out, 0);
    fixture_open(&s.f, 16, STRESS_SLOT);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, stress_producer, &s), 0);

    uint64_t want = 0;
    unsigned spins = 0;
    while (want < STRESS_MSGS && !atomic_load(&s.timed_out)) {
        const unsigned char *slot = shm_rx_peek(&s.f.rx);
        if (!slot) {
            if (++spins % 64 == 0) {
                sched_yield();
                if (time(NULL) > atomic_load(&s.deadline))
                    break;
            }
            continue;
        }
        uint64_t seq;
        memcpy(&seq, slot, sizeof seq);
        ck_assert_msg(seq == want, "message %llu arrived as number %llu",
                      (unsigned long long)seq, (unsigned long long)want);
        size_t len = stress_len(seq);
        for (size_t i = sizeof seq; i < len; i++)
            if (slot[i] != (unsigned char)(seq + i)) {
                ck_assert_msg(0, "message %llu corrupt at byte %zu", (unsigned long long)seq, i);
                break;
            }
        shm_rx_release(&s.f.rx);
        want++;
    }
    if (want < STRESS_MSGS)
        atomic_store(&s.deadline, 0); /* stop the producer too */
    pthread_join(th, NULL);
    /* The point is order and integrity under real concurrency; how far it got
     * in the time given depends on the machine's load, so only a minimum of
     * traffic is required (a stuck ring delivers nothing). */
    ck_assert_msg(want >= STRESS_MIN, "only %llu messages arrived in %d s (at least %d "
                  "expected even on a loaded machine)", (unsigned long long)want,
                  STRESS_SECONDS, STRESS_MIN);
    ck_assert_uint_eq(atomic_load(&s.f.ring->head), want);
    fixture_close(&s.f);
}
END_TEST

static Suite *ring_suite(void)
{
    Suite *s = suite_create("shm_ring");
    TCase *tc = tcase_create("single thread");
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_full);
    tcase_add_loop_test(tc, test_wrap, 0, (int)(sizeof wrap_slots / sizeof wrap_slots[0]));
    tcase_add_test(tc, test_attach_in_use);
    suite_add_tcase(s, tc);

    tc = tcase_create("two threads");
    tcase_set_timeout(tc, STRESS_SECONDS + 10);
    tcase_add_test(tc, test_two_thread_stress);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(ring_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
