/*
 * spawn_threads: MPI_Comm_spawn from several threads of each rank at once
 * (MPI_THREAD_MULTIPLE): TEST_THREADS threads (default 3), each on its own
 * duplicate of MPI_COMM_SELF, spawn one child TEST_CYCLES times (default 3),
 * send it a value it sends back incremented, and disconnect; meanwhile the
 * main thread reduces on MPI_COMM_WORLD. The requests of all threads and
 * ranks reach mpiexec interleaved; each child must answer its own parent.
 */
#include "util.h"

#include <pthread.h>

static char *self;
static int cycles;
static MPI_Comm comms[16];

static void *spawner(void *arg)
{
    int t = (int)(intptr_t)arg;
    char *args[] = {"child", NULL};
    for (int c = 0; c < cycles; c++) {
        MPI_Comm ic;
        int errcode = -1, v = 1000 * tu_rank + 100 * t + c, back = -1;
        TU_CHECK(MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, comms[t], &ic, &errcode));
        TU_ASSERT(errcode == MPI_SUCCESS, "thread %d cycle %d: errcode %d", t, c, errcode);
        TU_CHECK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &back, 1, MPI_INT, 0, 2, ic,
                              MPI_STATUS_IGNORE));
        TU_ASSERT(back == v + 1, "thread %d cycle %d: sent %d, the child answered %d", t, c, v,
                  back);
        TU_CHECK(MPI_Comm_disconnect(&ic));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child")) {
        tu_init(&argc, &argv, "spawn_threads");
        MPI_Comm parent;
        int v;
        TU_CHECK(MPI_Comm_get_parent(&parent));
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE));
        v++;
        TU_CHECK(MPI_Send(&v, 1, MPI_INT, 0, 2, parent));
        TU_CHECK(MPI_Comm_disconnect(&parent));
        TU_CHECK(MPI_Finalize());
        return 0;
    }
    tu_init_multiple(&argc, &argv, "spawn_threads", 240);
    self = argv[0];
    int nthreads = tu_env_int("TEST_THREADS", 3);
    cycles = tu_env_int("TEST_CYCLES", 3);
    TU_ASSERT(nthreads >= 1 && nthreads <= 16, "TEST_THREADS=%d (1..16)", nthreads);
    for (int t = 0; t < nthreads; t++)
        TU_CHECK(MPI_Comm_dup(MPI_COMM_SELF, &comms[t]));
    pthread_t th[16];
    for (int t = 0; t < nthreads; t++)
        TU_ASSERT(!pthread_create(&th[t], NULL, spawner, (void *)(intptr_t)t),
                  "pthread_create failed");
    for (int i = 0; i < 20; i++) {
        int one = 1, sum = 0;
        TU_CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        TU_ASSERT(sum == tu_size, "allreduce beside the spawns: %d", sum);
    }
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < nthreads; t++)
        TU_CHECK(MPI_Comm_free(&comms[t]));
    tu_finish();
    return 0;
}
