/*
 * Transport conformance suite: the cases of waiting (transport.h, "Waiting").
 *
 * An owner whose last poll found nothing asks for the wait fd and sleeps in
 * poll() on it. Whenever a message comes, the fd must wake it: when the
 * message comes long after the sleep began (wait-fd), and however the
 * message, the arming call and the sleep meet (wait-fd-race: before the
 * arming, during it, between it and poll(), during poll()). Every sleep has a
 * long timeout (T_WAIT_S); a sleep that lasts it is a missed wake-up, which
 * is what fails. A transport without a wait fd skips both.
 */
#include "config.h"

#include "conf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define T_RACE_ROUNDS 2000

/* The wait fd (arming it, for transports that arm): 0, T_SKIP when the
 * transport has none, -1 after a failure. */
static int t_arm(struct t *t, int *fd)
{
    int r = t->ops->wait_fd(t->tp, fd);
    if (r == FARO_TP_UNSUPPORTED) {
        t_skip(t, "no wait fd (the transport offers none here)");
        return T_SKIP;
    }
    if (r != FARO_TP_OK || *fd < 0) {
        t_fail(t, "wait_fd returned %d, fd %d", r, *fd);
        return -1;
    }
    return 0;
}

/* Sleep on fd, armed by the caller, until a message beyond `before` has
 * arrived; the fd is asked for again before every further sleep, as the core
 * does. Returns the seconds slept, or -1 when a sleep lasted the whole
 * timeout (a missed wake-up). */
static double t_sleep_for_message(struct t *t, int fd, long before, const char *what)
{
    double t0 = t_now(), end = t0 + T_WAIT_S;
    for (;;) {
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        double left = end - t_now();
        int n = left > 0 ? poll(&pf, 1, (int)(left * 1e3) + 1) : 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            t_fail(t, "%s: slept %.1f s in poll() on the wait fd and nothing woke it (%ld "
                   "messages received, %ld expected)", what, t_now() - t0, t->nrecv,
                   before + 1);
            return -1;
        }
        if (t->ops->progress(t->tp) < 0) {
            t_fail(t, "progress failed after a wake-up");
            return -1;
        }
        if (t->nrecv > before)
            return t_now() - t0;
        if (t_arm(t, &fd) != 0) {
            t_fail(t, "wait_fd failed the second time");
            return -1;
        }
    }
}

/* One sleep with a long timeout; the peer sends after 200 ms. */
int c_wait_fd(struct t *t)
{
    int fd = -1, r = t_arm(t, &fd);
    if (r != 0)
        return r;
    if (t_touch_all(t) < 0 || t_barrier(t) < 0)
        return -1;
    if (t->rank == 1) {
        usleep(200 * 1000);
        t_send(t, 0, 3, T_HDR_MIN, 64, T_AUTO);
        return t_wait(t, t_got, t->nrecv, "the message to leave");
    }
    while (t->ops->progress(t->tp) > 0) /* drain: the fd is level-triggered */
        ;
    long before = t->nrecv;
    if (t_arm(t, &fd) != 0)
        return -1;
    double slept = t_sleep_for_message(t, fd, before, "a message sent after 200 ms");
    if (slept < 0)
        return -1;
    t_note(t, "%s: woke from poll() on the wait fd after %.0f ms (sender waited 200)",
           t->ops->name, slept * 1e3);
    return 0;
}

/* A counter both processes of the case map (a file under the job's name,
 * which the runner removes): how many answers rank 0 has sent. It tells rank
 * 1 that an answer is on its way without polling the transport. */
static _Atomic long *t_answers(struct t *t)
{
    char path[300];
    snprintf(path, sizeof path, "/dev/shm/%s-conf-wait", t->env.jobid);
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    void *p = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, 4096) == 0)
        p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED) {
        t_fail(t, "cannot share a counter through %s: %s", path, strerror(errno));
        return NULL;
    }
    return p;
}

static int t_await_answer(struct t *t, _Atomic long *answers, long n)
{
    for (double end = t_now() + T_WAIT_S; atomic_load(answers) < n;)
        if (t_now() > end) {
            t_fail(t, "rank 0 did not answer question %ld in %.0f s", n, T_WAIT_S);
            return -1;
        }
    return 0;
}

/* Rank 1 asks, rank 0 answers at once, T_RACE_ROUNDS times, and rank 1 sleeps
 * on the wait fd for each answer, which lands (by rounds, in turn):
 *   0: between the arming call and poll() (arm, ask, see it sent, poll);
 *   1: before the arming call (ask, see it sent, arm, poll);
 *   2: whenever it comes (arm, ask, spin 0 to a few us, poll): during the
 *      spin or during poll(). */
int c_wait_fd_race(struct t *t)
{
    int fd = -1, r = t_arm(t, &fd);
    if (r != 0)
        return r;
    _Atomic long *answers = t_answers(t);
    if (!answers || t_touch_all(t) < 0 || t_barrier(t) < 0)
        return -1;
    long base = t->nrecv;
    if (t->rank == 0) {
        for (long i = 1; i <= T_RACE_ROUNDS; i++) {
            if (t_wait(t, t_got, base + i, "the next question") < 0)
                return -1;
            t_send(t, 1, 3, T_HDR_MIN, 8, T_AUTO);
            atomic_store(answers, i);
        }
        return t_wait(t, t_got, base + T_RACE_ROUNDS, "the last answer to leave");
    }
    static const char *const how[] = { "armed, asked, answered, poll",
                                       "asked, answered, armed, poll",
                                       "armed, asked, poll at once" };
    double longest = 0;
    for (long i = 0; i < T_RACE_ROUNDS; i++) {
        while (t->ops->progress(t->tp) > 0)
            ;
        long before = t->nrecv;
        int kind = (int)(i % 3);
        if (kind != 1 && t_arm(t, &fd) != 0)
            return -1;
        t_send(t, 0, 3, T_HDR_MIN, 8, T_AUTO);
        if (kind != 2 && t_await_answer(t, answers, i + 1) < 0)
            return -1;
        for (volatile long k = kind == 2 ? (i * 7919) % 4000 : 0; k > 0; k--)
            ;
        if (kind == 1 && t_arm(t, &fd) != 0)
            return -1;
        char what[80];
        snprintf(what, sizeof what, "round %ld (%s)", i, how[kind]);
        double slept = t_sleep_for_message(t, fd, before, what);
        if (slept < 0)
            return -1;
        if (slept > longest)
            longest = slept;
    }
    if (t_wait(t, t_got, base + T_RACE_ROUNDS, "the last answer") < 0)
        return -1;
    t_note(t, "%s: %d sleeps on the wait fd, none missed; longest %.1f ms", t->ops->name,
           T_RACE_ROUNDS, longest * 1e3);
    return 0;
}
