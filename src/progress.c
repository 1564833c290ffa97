/*
 * The one progress engine: poll every transport that carries traffic, and
 * the wait policy that blocking calls apply between idle polls.
 */
#include <sched.h>

#include "core.h"

int (*faro_progress_hook)(void);

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
