/*
 * The one progress engine: poll every transport that carries traffic, then
 * the pollers of work outside the transports (nonblocking collectives,
 * communicator creations), and the wait policy that blocking calls apply
 * between idle polls.
 */
#include <sched.h>

#include "core.h"

int (*faro_progress_hook)(void);
static int (*pollers[FARO_POLLERS])(void);

static int run_pollers(void)
{
    int events = 0;
    for (int i = 0; i < FARO_POLLERS; i++)
        if (pollers[i])
            events += pollers[i]();
    return events;
}

/* The hook is the one active poller itself, or run_pollers for several, or
 * NULL: an idle poll still pays one branch. */
void faro_poller_set(enum faro_poller slot, int (*fn)(void))
{
    pollers[slot] = fn;
    int n = 0, last = 0;
    for (int i = 0; i < FARO_POLLERS; i++)
        if (pollers[i]) {
            n++;
            last = i;
        }
    faro_progress_hook = n == 0 ? NULL : n == 1 ? pollers[last] : run_pollers;
}

int faro_progress(void)
{
    int events = 0;
    for (int i = 0; i < faro.ntps; i++) {
        struct faro_transport *t = &faro.tps[i];
        if (!t->used)
            continue;
        int n = t->ops->progress(t->tp);
        if (n < 0)
            faro_fatal(MPI_ERR_OTHER, "transport %s failed while polling", t->ops->name);
        events += n;
    }
    if (__builtin_expect(faro_progress_hook != NULL, 0))
        events += faro_progress_hook();
    return events;
}

/* Oversubscribed ranks give their core away after each idle poll, so the
 * peer they wait for can run; with a core each, spinning keeps latency low. */
void faro_progress_idle(int events)
{
    if (__builtin_expect(faro_thread_multiple, 0))
        faro_lock_idle(events); /* other threads get the lock between polls */
    else if (!events && faro.yield)
        sched_yield();
}
