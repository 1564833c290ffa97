/*
 * The one progress engine: poll every transport that may carry traffic, then
 * the registered pollers, and the wait policy that blocking calls apply
 * between idle polls.
 */
#include <poll.h>
#include <sched.h>
#include <stdlib.h>

#include "core.h"
#include "runtime/hang.h"

static struct {
    int (*fn)(void *arg);
    void *arg;
} pollers[FARO_MAX_POLLERS];
static int npollers; /* slots in use: 0 keeps the fast path at one branch */

int faro_progress_register(int (*fn)(void *arg), void *arg)
{
    for (int i = 0; i < FARO_MAX_POLLERS; i++)
        if (!pollers[i].fn) {
            pollers[i].fn = fn;
            pollers[i].arg = arg;
            npollers++;
            return i;
        }
    return -1;
}

void faro_progress_unregister(int slot)
{
    if (slot >= 0 && slot < FARO_MAX_POLLERS && pollers[slot].fn) {
        pollers[slot].fn = NULL;
        npollers--;
    }
}

/* A transport in standby (alive, no peer bound to it yet) is polled once in
 * this many calls: often enough that a peer connecting through it first is
 * answered within microseconds, rarely enough that an unused tcp costs a
 * single-node job nothing measurable. Binding a peer makes it a full member. */
#define FARO_STANDBY_EVERY 64

/* The full members, apart: those polled on every call, and those that say
 * when they have work (attr.pending: self), polled only then. */
static struct faro_transport **polled, **on_demand;
static int npolled, non_demand;

void faro_progress_transports(void)
{
    free(polled);
    polled = on_demand = NULL;
    npolled = non_demand = 0;
    if (!faro.tps || !faro.ntps)
        return;
    polled = malloc(2 * (size_t)faro.ntps * sizeof *polled);
    if (!polled)
        faro_fatal(MPI_ERR_NO_MEM, "out of memory listing the transports to poll");
    on_demand = polled + faro.ntps;
    for (int i = 0; i < faro.ntps; i++) {
        struct faro_transport *t = &faro.tps[i];
        if (!t->used || !t->tp)
            continue;
        if (t->attr.pending)
            on_demand[non_demand++] = t;
        else
            polled[npolled++] = t;
    }
}

static inline int poll_transport(struct faro_transport *t)
{
    int n = t->ops->progress(t->tp);
    if (n < 0)
        faro_fatal(MPI_ERR_OTHER, "transport %s failed while polling", t->ops->name);
    return n;
}

int faro_progress(void)
{
    int events = 0;
    for (int i = 0; i < npolled; i++)
        events += poll_transport(polled[i]);
    for (int i = 0; i < non_demand; i++)
        if (*on_demand[i]->attr.pending)
            events += poll_transport(on_demand[i]);
    if (__builtin_expect(faro.nstandby > 0, 0) && ++faro.polls % FARO_STANDBY_EVERY == 0)
        for (int i = 0; i < faro.ntps; i++)
            if (!faro.tps[i].used && faro.tps[i].tp)
                events += poll_transport(&faro.tps[i]);
    if (__builtin_expect(npollers > 0, 0))
        for (int i = 0; i < FARO_MAX_POLLERS; i++)
            if (pollers[i].fn) /* a poller may unregister itself, or another */
                events += pollers[i].fn(pollers[i].arg);
    return events;
}

/* After this many idle polls in a row, a yielding rank whose transports all
 * have a wait fd (or say by attr.pending that they have nothing to do) sleeps
 * in poll() until one turns readable. The sleep is
 * bounded (FARO_SLEEP_MS) because not every event comes from a transport: a
 * generalized request completed by the program, or another thread's work. */
#define FARO_IDLE_BEFORE_SLEEP 64
#define FARO_SLEEP_MS 1

static int idle_polls;

static void sleep_on_transports(void)
{
    struct pollfd pf[16];
    nfds_t n = 0;
    for (int i = 0; i < faro.ntps; i++) {
        struct faro_transport *t = &faro.tps[i];
        if (!t->used)
            continue;
        if (t->attr.pending) { /* its work comes from this process alone: no fd needed */
            if (*t->attr.pending)
                return;
            continue;
        }
        int fd;
        if (n == 16 || t->ops->wait_fd(t->tp, &fd) != FARO_TP_OK)
            return; /* one transport without an fd: keep polling */
        pf[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
    }
    if (n)
        (void)poll(pf, n, FARO_SLEEP_MS);
}

/* Oversubscribed ranks give their core away after each idle poll, so the
 * peer they wait for can run; with a core each, spinning keeps latency low. */
void faro_progress_idle(int events)
{
    if (__builtin_expect(atomic_load_explicit(&faro_hang_armed, memory_order_relaxed), 0))
        faro_hang_idle();
    if (__builtin_expect(faro_thread_multiple, 0)) {
        faro_lock_idle(events); /* other threads get the lock between polls */
        return;
    }
    if (events || !faro.yield) {
        idle_polls = 0;
        return;
    }
    if (++idle_polls < FARO_IDLE_BEFORE_SLEEP) {
        sched_yield();
        return;
    }
    idle_polls = 0;
    sleep_on_transports();
}
