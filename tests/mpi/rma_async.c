/*
 * rma_async: passive-target progress while the target computes. Rank 1
 * (the target) exposes a flag and a counter, then computes for up to
 * 5 seconds in short sleeps without calling MPI, watching its flag. Rank 0
 * locks rank 1's window, adds to the counter with MPI_Fetch_and_op, flushes,
 * puts the flag and unlocks. The target must see the flag (and the counter)
 * change while it computes: with FARO_ASYNC_PROGRESS=1 the progress thread
 * serves the origin; without it nothing can, and the test fails (the
 * target's loop ends with the flag still 0). No assertion is on time: the
 * 5 s bound only ends the wait. Other ranks only take part in the
 * collectives. The window comes from MPI_Win_create (operations are
 * messages the target applies); with RMA_ASYNC_ALLOCATE=1 from
 * MPI_Win_allocate, which on one node is a shared segment the origin works
 * in itself: then it must pass without the progress thread too.
 * RMA_ASYNC_TARGET=R makes rank R the target instead of rank 1 (on another
 * host than rank 0 across test hosts).
 */
#include <time.h>

#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "rma_async");
    tu_need_ranks(2);
    int target = tu_env_int("RMA_ASYNC_TARGET", 1);
    if (target < 1 || target >= tu_size)
        tu_fail("RMA_ASYNC_TARGET=%d: the target must be a rank from 1 to %d", target,
                tu_size - 1);
    int *mem = NULL;
    MPI_Win win;
    if (tu_env_int("RMA_ASYNC_ALLOCATE", 0))
        TU_CHECK(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                  &mem, &win));
    else
        TU_CHECK(MPI_Win_create(mem = malloc(2 * sizeof(int)), 2 * sizeof(int), sizeof(int),
                                MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    mem[0] = mem[1] = 0;
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (tu_rank == target) {
        volatile int *flag = mem;
        int iters = 0;
        struct timespec ts = {0, 10 * 1000 * 1000};
        while (!*flag && iters < 500) { /* no MPI call in here */
            nanosleep(&ts, NULL);
            iters++;
        }
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        TU_ASSERT(*flag == 1, "the origin's lock/put/unlock did not reach this rank while it "
                  "computed for %d ms without calling MPI (is FARO_ASYNC_PROGRESS=1 set?)",
                  iters * 10);
        TU_ASSERT(mem[1] == 5, "the counter is %d while the flag is set, expected 5 (the "
                  "fetch-and-op was flushed before the put)", mem[1]);
    } else if (tu_rank == 0) {
        int five = 5, old = -1, one = 1;
        TU_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
        TU_CHECK(MPI_Fetch_and_op(&five, &old, MPI_INT, target, 1, MPI_SUM, win));
        TU_CHECK(MPI_Win_flush(target, win));
        TU_ASSERT(old == 0, "fetch_and_op fetched %d, expected 0", old);
        TU_CHECK(MPI_Put(&one, 1, MPI_INT, target, 0, 1, MPI_INT, win));
        TU_CHECK(MPI_Win_unlock(target, win));
    }
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Win_free(&win));
    if (!tu_env_int("RMA_ASYNC_ALLOCATE", 0))
        free(mem);
    tu_finish();
    return 0;
}
