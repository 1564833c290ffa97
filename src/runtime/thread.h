/*
 * MPI_THREAD_MULTIPLE: one library lock (owner: thread.c).
 *
 * Below MPI_THREAD_MULTIPLE the lock costs one predictable branch on a flag
 * and nothing else. At MULTIPLE every API entry point of point-to-point,
 * probe and completion (and the internal faro_coll_* calls) holds the lock
 * for the whole call; the wait loops hand it over between polls when another
 * thread wants it, so every thread's operations progress.
 *
 * The lock is recursive per thread (a user errhandler or attribute callback
 * that calls MPI from inside the library re-enters), and a wait loop releases
 * it completely however deep it was taken, so a callback that blocks cannot
 * stall the other threads.
 *
 * Entry points write FARO_LOCKED; as their first statement: the lock is taken
 * there and released when the function returns, on every path.
 */
#ifndef FARO_RUNTIME_THREAD_H
#define FARO_RUNTIME_THREAD_H

#define FARO_HIDDEN __attribute__((visibility("hidden")))

/* Set once by MPI_Init_thread, before any second thread may call MPI. */
extern int faro_thread_multiple FARO_HIDDEN;

void faro_lock_acquire(void) FARO_HIDDEN;
void faro_lock_release(void) FARO_HIDDEN;
/* The wait policy at MULTIPLE (from faro_progress_idle): hand the lock to a
 * waiting thread, or yield the core with the lock free. */
void faro_lock_idle(int events) FARO_HIDDEN;
void faro_thread_init(int level) FARO_HIDDEN;
int faro_thread_is_main(void) FARO_HIDDEN;

static inline void faro_lock(void)
{
    if (__builtin_expect(faro_thread_multiple, 0))
        faro_lock_acquire();
}

static inline void faro_unlock(void)
{
    if (__builtin_expect(faro_thread_multiple, 0))
        faro_lock_release();
}

static inline void faro_unlock_scope(int *scope)
{
    (void)scope;
    faro_unlock();
}

#define FARO_LOCKED                                                                  \
    faro_lock();                                                                     \
    int faro_locked_scope_ __attribute__((cleanup(faro_unlock_scope), unused)) = 0

#endif
