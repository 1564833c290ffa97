/*
 * dyn_threads: dynamic connections from several threads at once, at
 * MPI_THREAD_MULTIPLE. Ranks 0 and 1 each run T threads (TEST_THREADS,
 * default 4): thread t of the rank t % 2 == 0 opens a port, sends its name
 * to the other rank (tag t) and accepts on MPI_COMM_SELF; thread t of the
 * other rank connects to it. So both ranks accept and connect at the same
 * time, on several ports. Each pair then exchanges messages both ways on its
 * intercommunicator, merges it and reduces over the merge, and disconnects;
 * TEST_CYCLES (default 5) times, with a fresh port every other cycle (the
 * others reuse the port). Meanwhile the main thread of every rank keeps
 * MPI_COMM_WORLD busy with Allreduce, so creations and traffic interleave.
 * Needs 2+ ranks; ranks 2 and up only join the Allreduce.
 */
#include "util.h"

#include <pthread.h>

static int rank, nthreads, ncycles;
static volatile int done_threads;

static void *pair(void *arg)
{
    int t = (int)(intptr_t)arg, accepting = (t % 2 == 0) == (rank == 0);
    int other = !rank;
    char port[MPI_MAX_PORT_NAME] = "";
    for (int c = 0; c < ncycles; c++) {
        MPI_Comm ic, m;
        if (accepting) {
            if (c % 2 == 0) {
                if (c)
                    TU_CHECK(MPI_Close_port(port));
                TU_CHECK(MPI_Open_port(MPI_INFO_NULL, port));
            }
            TU_CHECK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, other, t, MPI_COMM_WORLD));
            TU_CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
        } else {
            TU_CHECK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, other, t, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
            TU_CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
        }
        int v[3] = {rank, t, c}, got[3] = {-1, -1, -1};
        TU_CHECK(MPI_Sendrecv(v, 3, MPI_INT, 0, t, got, 3, MPI_INT, 0, t, ic,
                              MPI_STATUS_IGNORE));
        TU_ASSERT(got[0] == other && got[1] == t && got[2] == c,
                  "thread %d cycle %d: got %d/%d/%d from the other side", t, c, got[0], got[1],
                  got[2]);
        TU_CHECK(MPI_Intercomm_merge(ic, !accepting, &m));
        int sum = 0, one = t * 100 + c;
        TU_CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m));
        TU_ASSERT(sum == 2 * one, "thread %d cycle %d: allreduce over the merge gave %d", t, c,
                  sum);
        TU_CHECK(MPI_Comm_free(&m));
        TU_CHECK(MPI_Comm_disconnect(&ic));
    }
    if (accepting)
        TU_CHECK(MPI_Close_port(port));
    __atomic_add_fetch(&done_threads, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

int main(int argc, char **argv)
{
    tu_init_multiple(&argc, &argv, "dyn_threads", 240);
    rank = tu_rank;
    tu_need_ranks(2);
    nthreads = tu_env_int("TEST_THREADS", 4);
    ncycles = tu_env_int("TEST_CYCLES", 5);
    pthread_t th[64];
    if (nthreads > 64)
        nthreads = 64;
    if (rank < 2)
        for (int t = 0; t < nthreads; t++)
            TU_ASSERT(pthread_create(&th[t], NULL, pair, (void *)(intptr_t)t) == 0,
                      "pthread_create");
    /* the main thread keeps MPI_COMM_WORLD busy until every pair is done */
    for (int busy = 1; busy;) {
        int mine = rank < 2 && __atomic_load_n(&done_threads, __ATOMIC_SEQ_CST) < nthreads;
        TU_CHECK(MPI_Allreduce(&mine, &busy, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    }
    if (rank < 2)
        for (int t = 0; t < nthreads; t++)
            pthread_join(th[t], NULL);
    tu_finish();
    return 0;
}
