/*
 * rma_threads: one-sided operations from several threads at once
 * (MPI_THREAD_MULTIPLE), repeated to catch races in the target's queues and
 * the origin's counts:
 *   - each thread owns a window (made by the main thread) and increments a
 *     counter at rank 0 under an exclusive lock with get + put, many times:
 *     the lock makes the read-modify-write atomic, so every increment counts;
 *   - all threads accumulate into one window under one MPI_Win_lock_all of
 *     the main thread, and fetch-and-add into it.
 * Rank 0 checks the sums.
 */
#include <pthread.h>

#include "util.h"

#define THREADS 4
#define REPS 40

static MPI_Win wins[THREADS], shared;
static int *counters[THREADS];
static long long *acc;

static void *worker(void *arg)
{
    int k = (int)(intptr_t)arg;
    for (int i = 0; i < REPS; i++) {
        int v = -1;
        TU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wins[k]));
        TU_CHECK(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, wins[k]));
        TU_CHECK(MPI_Win_flush(0, wins[k]));
        v++;
        TU_CHECK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, wins[k]));
        TU_CHECK(MPI_Win_unlock(0, wins[k]));
        long long one = 1, old;
        TU_CHECK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, k, 1, MPI_LONG_LONG, MPI_SUM,
                                shared));
        TU_CHECK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, THREADS, MPI_SUM, shared));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    tu_init_multiple(&argc, &argv, "rma_threads", 120);
    for (int k = 0; k < THREADS; k++) {
        TU_CHECK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                  &counters[k], &wins[k]));
        *counters[k] = 0;
    }
    TU_CHECK(MPI_Win_allocate((THREADS + 1) * sizeof(long long), sizeof(long long),
                              MPI_INFO_NULL, MPI_COMM_WORLD, &acc, &shared));
    memset(acc, 0, (THREADS + 1) * sizeof(long long));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Win_lock_all(0, shared));
    pthread_t th[THREADS];
    for (int k = 0; k < THREADS; k++)
        pthread_create(&th[k], NULL, worker, (void *)(intptr_t)k);
    for (int k = 0; k < THREADS; k++)
        pthread_join(th[k], NULL);
    TU_CHECK(MPI_Win_unlock_all(shared));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (tu_rank == 0) {
        for (int k = 0; k < THREADS; k++)
            TU_ASSERT(*counters[k] == REPS * tu_size, "window %d: counter %d, expected %d (an "
                      "exclusive lock let two increments overlap)", k, *counters[k],
                      REPS * tu_size);
        for (int k = 0; k < THREADS; k++)
            TU_ASSERT(acc[k] == REPS * tu_size, "accumulate slot %d: %lld, expected %d", k,
                      acc[k], REPS * tu_size);
        TU_ASSERT(acc[THREADS] == (long long)REPS * tu_size * THREADS, "fetch-and-op total %lld, "
                  "expected %lld", acc[THREADS], (long long)REPS * tu_size * THREADS);
    }
    for (int k = 0; k < THREADS; k++)
        TU_CHECK(MPI_Win_free(&wins[k]));
    TU_CHECK(MPI_Win_free(&shared));
    tu_finish();
    return 0;
}
