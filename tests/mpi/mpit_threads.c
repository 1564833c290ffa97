/*
 * MPI_T under MPI_THREAD_MULTIPLE: four threads init and finalize the
 * interface, make and free sessions and handles, start, read and stop
 * counters, read the per-communicator levels, and read and write control
 * variables, all at once and while the main thread runs a ping-pong. Every
 * call succeeds, a started counter never goes back, and a counter the main
 * thread started before its ping-pong moves by exactly the messages it sent.
 */
#include <pthread.h>

#include "util.h"

#define ITERS 300
#define PINGS 1000
#define NTHREADS 4

static void *tool(void *arg)
{
    int id = (int)(intptr_t)arg, provided, n, count, idx;
    for (int i = 0; i < ITERS; i++) {
        TU_CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
        MPI_T_pvar_session s;
        MPI_T_pvar_handle h, lvl;
        TU_CHECK(MPI_T_pvar_session_create(&s));
        TU_CHECK(MPI_T_pvar_get_index("p2p_eager_sent", MPI_T_PVAR_CLASS_COUNTER, &idx));
        TU_CHECK(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
        TU_CHECK(MPI_T_pvar_get_index("p2p_comm_posted_recvs", MPI_T_PVAR_CLASS_LEVEL, &idx));
        MPI_Comm world = MPI_COMM_WORLD;
        TU_CHECK(MPI_T_pvar_handle_alloc(s, idx, &world, &lvl, &count));
        TU_CHECK(MPI_T_pvar_start(s, h));
        unsigned long long a, b, l;
        TU_CHECK(MPI_T_pvar_read(s, h, &a));
        TU_CHECK(MPI_T_pvar_read(s, lvl, &l));
        TU_CHECK(MPI_T_pvar_read(s, h, &b));
        TU_ASSERT(b >= a, "thread %d: a started counter went back from %llu to %llu", id, a, b);
        TU_ASSERT(l <= 1, "thread %d: %llu receives posted on MPI_COMM_WORLD", id, l);
        TU_CHECK(MPI_T_pvar_stop(s, h));
        TU_CHECK(MPI_T_pvar_session_free(&s));
        TU_CHECK(MPI_T_cvar_get_num(&n));
        MPI_T_cvar_handle c;
        TU_CHECK(MPI_T_cvar_get_index("FARO_CONNECT_TIMEOUT", &idx));
        TU_CHECK(MPI_T_cvar_handle_alloc(idx, NULL, &c, &count));
        int v = 30 + id, r;
        TU_CHECK(MPI_T_cvar_write(c, &v));
        TU_CHECK(MPI_T_cvar_read(c, &r));
        TU_ASSERT(r >= 30 && r < 30 + NTHREADS, "thread %d: FARO_CONNECT_TIMEOUT reads %d", id,
                  r);
        TU_CHECK(MPI_T_cvar_handle_free(&c));
        char name[128];
        int len = sizeof name;
        TU_CHECK(MPI_T_cvar_get_info((i * 7 + id) % n, name, &len, NULL, NULL, NULL, NULL, NULL,
                                     NULL, NULL));
        TU_CHECK(MPI_T_finalize());
    }
    return NULL;
}

int main(int argc, char **argv)
{
    tu_init_multiple(&argc, &argv, "mpit_threads", 120);
    tu_need_ranks(2);
    int provided, idx, count;
    TU_CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    MPI_T_pvar_session s;
    MPI_T_pvar_handle sent;
    TU_CHECK(MPI_T_pvar_session_create(&s));
    TU_CHECK(MPI_T_pvar_get_index("p2p_eager_sent", MPI_T_PVAR_CLASS_COUNTER, &idx));
    TU_CHECK(MPI_T_pvar_handle_alloc(s, idx, NULL, &sent, &count));
    tu_barrier();
    TU_CHECK(MPI_T_pvar_start(s, sent));
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        TU_ASSERT(pthread_create(&th[t], NULL, tool, (void *)(intptr_t)t) == 0,
                  "pthread_create failed");
    char b[8] = {0};
    if (tu_rank < 2) {
        int peer = 1 - tu_rank;
        for (int i = 0; i < PINGS; i++) {
            if (tu_rank == 0) {
                TU_CHECK(MPI_Send(b, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
                TU_CHECK(MPI_Recv(b, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else {
                TU_CHECK(MPI_Recv(b, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                TU_CHECK(MPI_Send(b, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
            }
        }
    }
    unsigned long long v;
    TU_CHECK(MPI_T_pvar_read(s, sent, &v));
    TU_ASSERT(v == (tu_rank < 2 ? PINGS : 0), "p2p_eager_sent moved %llu during %d pings", v,
              PINGS);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    TU_CHECK(MPI_T_pvar_session_free(&s));
    TU_CHECK(MPI_T_finalize());
    tu_barrier();
    tu_finish();
    return 0;
}
