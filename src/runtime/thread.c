/*
 * The library lock of MPI_THREAD_MULTIPLE (see thread.h).
 *
 * A plain mutex plus a per-thread depth makes it recursive, and lets a wait
 * loop drop it completely whatever the depth. Mutexes are not fair: a thread
 * that unlocks and locks again at once usually wins against a waiter that is
 * still waking up. So a wait loop that sees another thread waiting unlocks
 * and then waits (yielding the core) until some other thread has taken the
 * lock, bounded, before it locks again: that is the hand-over. A thread that
 * left the library while others waited does the same before it comes back,
 * so a thread polling with MPI_Test or MPI_Iprobe cannot starve the rest.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "core.h"

int faro_thread_multiple;

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static __thread int depth;            /* this thread's nesting; > 0: it holds the lock */
static atomic_int waiting;            /* threads blocked in pthread_mutex_lock */
static atomic_uint taken;             /* acquisitions, to see a hand-over happen */
static pthread_t main_thread;
static int main_known;

static __thread int owe;              /* released while others waited: let one in first */
static __thread unsigned owe_since;   /* `taken` when it released */

#define HANDOVER_TRIES 1000

/* Give the waiters a chance: yield until the lock changed hands (bounded). */
static void let_one_in(unsigned seen)
{
    for (int i = 0; i < HANDOVER_TRIES &&
                    atomic_load_explicit(&waiting, memory_order_relaxed) > 0 &&
                    atomic_load_explicit(&taken, memory_order_relaxed) == seen; i++)
        sched_yield();
}

static void lock_mutex(void)
{
    if (pthread_mutex_trylock(&big) != 0) {
        atomic_fetch_add_explicit(&waiting, 1, memory_order_relaxed);
        pthread_mutex_lock(&big);
        atomic_fetch_sub_explicit(&waiting, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&taken, 1, memory_order_relaxed);
}

void faro_lock_acquire(void)
{
    if (depth++ > 0)
        return;
    if (owe) {
        owe = 0;
        let_one_in(owe_since);
    }
    lock_mutex();
}

void faro_lock_release(void)
{
    if (--depth > 0)
        return;
    if (atomic_load_explicit(&waiting, memory_order_relaxed) > 0) {
        owe = 1;
        owe_since = atomic_load_explicit(&taken, memory_order_relaxed);
    }
    pthread_mutex_unlock(&big);
}

void faro_lock_idle(int events)
{
    if (depth == 0) { /* a caller outside the locked entry points */
        if (!events && faro.yield)
            sched_yield();
        return;
    }
    if (atomic_load_explicit(&waiting, memory_order_relaxed) > 0) {
        unsigned seen = atomic_load_explicit(&taken, memory_order_relaxed);
        pthread_mutex_unlock(&big);
        let_one_in(seen);
        lock_mutex();
    } else if (!events && faro.yield) {
        pthread_mutex_unlock(&big);
        sched_yield();
        lock_mutex();
    }
}

void faro_thread_init(int level)
{
    main_thread = pthread_self();
    main_known = 1;
    faro_thread_multiple = level == MPI_THREAD_MULTIPLE;
}

int faro_thread_is_main(void)
{
    return !main_known || pthread_equal(pthread_self(), main_thread);
}
