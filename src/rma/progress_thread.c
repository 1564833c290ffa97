/*
 * The progress thread of one-sided communication (FARO_ASYNC_PROGRESS=1):
 * passive-target operations must not wait for a target that computes
 * without calling MPI. The thread starts with the process's first window
 * and ends in MPI_Finalize. While windows exist it takes the library lock,
 * polls once (transports, then the pollers: the window poller applies what
 * arrived) and lets go, every FARO_RMA_THREAD_US microseconds; with no
 * window it sleeps longer. The lock is the one of MPI_THREAD_MULTIPLE
 * (runtime/thread.h), switched on for every thread level at MPI_Init when
 * the knob is set, because the program's own calls run beside the thread.
 */
#include <pthread.h>
#include <time.h>

#include "rma/rma.h"
#include "base/tunables.h"

#define FARO_RMA_THREAD_US 20
#define FARO_RMA_IDLE_US 2000

static pthread_t thread;
static int running;
/* Written by MPI_Finalize without the library lock while the thread polls
 * it: atomic (volatile is no synchronization; ThreadSanitizer reported it). */
static int stop;

int faro_rma_wants_threads(void)
{
    return faro_tun_int(FARO_TUN_ASYNC_PROGRESS) != 0;
}

static void *progress_main(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        int live;
        faro_lock_acquire();
        live = faro_rma_windows != NULL;
        if (live && !faro.finalized)
            faro_progress();
        faro_lock_release();
        struct timespec ts = {0, 1000L * (live ? FARO_RMA_THREAD_US : FARO_RMA_IDLE_US)};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int faro_rma_thread_start(void)
{
    if (running || !faro_rma_wants_threads() || !faro_thread_multiple)
        return 0;
    if (pthread_create(&thread, NULL, progress_main, NULL) != 0)
        return -1;
    running = 1;
    return 0;
}

/* MPI_Finalize, before it quiesces (it does not hold the library lock). */
void faro_rma_finalize(void)
{
    if (!running)
        return;
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(thread, NULL);
    running = 0;
}
