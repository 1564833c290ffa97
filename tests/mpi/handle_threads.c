/* handle_threads: ops, groups, infos and errhandlers made and freed from
 * several threads at once under MPI_THREAD_MULTIPLE (the standard lets any
 * thread call these, and Faro makes them outside its library lock). Their
 * objects come from pools (src/objects/arena.h): two threads given one
 * object, or a queue broken by a race, shows as an info holding another
 * thread's value, a group of the wrong size, an op with the wrong
 * commutativity, or a crash. TEST_THREADS threads (default 4), TEST_ITERS
 * rounds each (default 20000: with a pool's lock left out, 3 of 3 runs of
 * one rank failed within a second), keeping up to 8 objects of each kind
 * alive so that the pools both grow and recycle. */
#include "util.h"

#include <pthread.h>

#define MAX_THREADS 16
#define KEEP 8

static int nthreads, iters;
static MPI_Group world_group;

static void no_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in, (void)inout, (void)len, (void)t;
}

static void no_handler(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
}

struct kept {
    MPI_Info info;
    MPI_Group group;
    MPI_Op op;
    MPI_Errhandler eh;
    int t, it;
};

static void make(struct kept *k, int t, int it)
{
    char val[32];
    snprintf(val, sizeof val, "%d.%d", t, it);
    TU_CHECK(MPI_Info_create(&k->info));
    TU_CHECK(MPI_Info_set(k->info, "owner", val));
    int first = it % tu_size;
    TU_CHECK(MPI_Group_incl(world_group, 1, &first, &k->group));
    TU_CHECK(MPI_Op_create(no_op, (t + it) % 2, &k->op));
    TU_CHECK(MPI_Comm_create_errhandler(no_handler, &k->eh));
    k->t = t;
    k->it = it;
}

/* Everything k holds is still what make() put there; then free it. */
static void check_free(struct kept *k)
{
    char want[32], got[32];
    int flag, n, commute;
    snprintf(want, sizeof want, "%d.%d", k->t, k->it);
    TU_CHECK(MPI_Info_get(k->info, "owner", (int)sizeof got - 1, got, &flag));
    TU_ASSERT(flag && !strcmp(got, want), "thread %d: the info of round %d holds \"%s\"", k->t,
              k->it, flag ? got : "(nothing)");
    TU_CHECK(MPI_Group_size(k->group, &n));
    TU_ASSERT(n == 1, "thread %d: the group of round %d has %d members", k->t, k->it, n);
    TU_CHECK(MPI_Op_commutative(k->op, &commute));
    TU_ASSERT(commute == (k->t + k->it) % 2, "thread %d: the op of round %d says commutative %d",
              k->t, k->it, commute);
    TU_CHECK(MPI_Info_free(&k->info));
    TU_CHECK(MPI_Group_free(&k->group));
    TU_CHECK(MPI_Op_free(&k->op));
    TU_CHECK(MPI_Errhandler_free(&k->eh));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    struct kept keep[KEEP];
    for (int it = 0; it < iters; it++) {
        if (it >= KEEP)
            check_free(&keep[it % KEEP]);
        make(&keep[it % KEEP], t, it);
    }
    for (int it = iters > KEEP ? iters - KEEP : 0; it < iters; it++)
        check_free(&keep[it % KEEP]);
    return NULL;
}

int main(int argc, char **argv)
{
    tu_init_multiple(&argc, &argv, "handle_threads", 120);
    nthreads = tu_env_int("TEST_THREADS", 4);
    iters = tu_env_int("TEST_ITERS", 20000);
    TU_ASSERT(nthreads >= 1 && nthreads <= MAX_THREADS, "TEST_THREADS must be 1..%d",
              MAX_THREADS);
    TU_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    pthread_t th[MAX_THREADS];
    for (int t = 0; t < nthreads; t++)
        TU_ASSERT(!pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t),
                  "pthread_create failed");
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    TU_CHECK(MPI_Group_free(&world_group));
    tu_finish();
    return 0;
}
