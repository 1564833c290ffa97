/*
 * comm_threads: communicators created from several threads at once under
 * MPI_THREAD_MULTIPLE, as the standard allows: collective creations on
 * different parent communicators concurrently, and MPI_Comm_create_group on
 * one parent with a different tag in each thread.
 *
 * Each rank runs TEST_THREADS threads (default 4) for TEST_ITERS iterations
 * (default 20).
 *  - Disjoint parents: thread t owns a duplicate of MPI_COMM_WORLD and, in
 *    iteration i, makes a communicator from it with one of MPI_Comm_dup,
 *    MPI_Comm_create (every rank but the last), MPI_Comm_create_group (the
 *    ranks in reverse order), MPI_Comm_idup + MPI_Wait, MPI_Comm_split (by
 *    parity), MPI_Comm_idup + an MPI_Test loop; the kind rotates with t + i,
 *    so different threads create in different ways at the same time.
 *  - One parent: every thread calls MPI_Comm_create_group on
 *    MPI_COMM_WORLD with tag t (odd threads leave rank 0 out).
 * Every new communicator is used at once by its thread: an allreduce and a
 * ring exchange on one tag shared by all threads, the payload naming thread
 * and iteration, so a context id given to two communicators at one process
 * shows as a message from the wrong thread (or as a hang).
 */
#include "util.h"

#include <pthread.h>

#define MAX_THREADS 16
#define TAG 9

static int nthreads, iters;
static MPI_Comm parents[MAX_THREADS];
static MPI_Group world_group;

static void use_comm(MPI_Comm c, int t, int it, const char *what)
{
    int rank, size;
    TU_CHECK(MPI_Comm_rank(c, &rank));
    TU_CHECK(MPI_Comm_size(c, &size));
    int one[2] = {1, rank}, sum[2] = {0, 0};
    TU_CHECK(MPI_Allreduce(one, sum, 2, MPI_INT, MPI_SUM, c));
    TU_ASSERT(sum[0] == size && sum[1] == size * (size - 1) / 2,
              "thread %d iteration %d (%s): allreduce gave %d, %d (expected %d, %d)", t, it,
              what, sum[0], sum[1], size, size * (size - 1) / 2);
    int out[3] = {t, it, rank}, in[3] = {-1, -1, -1};
    MPI_Request rq[2];
    TU_CHECK(MPI_Irecv(in, 3, MPI_INT, (rank + size - 1) % size, TAG, c, &rq[0]));
    TU_CHECK(MPI_Isend(out, 3, MPI_INT, (rank + 1) % size, TAG, c, &rq[1]));
    TU_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    TU_ASSERT(in[0] == t && in[1] == it && in[2] == (rank + size - 1) % size,
              "thread %d iteration %d (%s): got the message of thread %d iteration %d rank %d "
              "(context ids crossed)", t, it, what, in[0], in[1], in[2]);
}

/* A group of WORLD: every rank (drop < 0) or all but rank drop, in
 * reverse order when reverse. */
static MPI_Group group_of(int drop, int reverse)
{
    int n = 0, *ranks = tu_malloc(sizeof(int) * (size_t)tu_size);
    for (int i = 0; i < tu_size; i++) {
        int r = reverse ? tu_size - 1 - i : i;
        if (r != drop)
            ranks[n++] = r;
    }
    MPI_Group g;
    TU_CHECK(MPI_Group_incl(world_group, n, ranks, &g));
    free(ranks);
    return g;
}

enum { K_DUP, K_CREATE, K_CREATE_GROUP, K_IDUP_WAIT, K_SPLIT, K_IDUP_TEST, K_KINDS };
static const char *const kind_names[K_KINDS] = {"MPI_Comm_dup", "MPI_Comm_create",
                                                "MPI_Comm_create_group", "MPI_Comm_idup+Wait",
                                                "MPI_Comm_split", "MPI_Comm_idup+Test"};

/* Thread t's parent is a duplicate of WORLD (same ranks). */
static MPI_Comm make(int kind, MPI_Comm parent, int t)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Request r;
    MPI_Group g;
    int flag = 0;
    switch (kind) {
    case K_DUP:
        TU_CHECK(MPI_Comm_dup(parent, &c));
        break;
    case K_CREATE:
        g = group_of(tu_size > 1 ? tu_size - 1 : -1, 0);
        TU_CHECK(MPI_Comm_create(parent, g, &c));
        TU_CHECK(MPI_Group_free(&g));
        break;
    case K_CREATE_GROUP:
        g = group_of(-1, 1);
        TU_CHECK(MPI_Comm_create_group(parent, g, 100 + t, &c));
        TU_CHECK(MPI_Group_free(&g));
        break;
    case K_IDUP_WAIT:
        TU_CHECK(MPI_Comm_idup(parent, &c, &r));
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        break;
    case K_SPLIT:
        TU_CHECK(MPI_Comm_split(parent, tu_rank % 2, -tu_rank, &c));
        break;
    default:
        TU_CHECK(MPI_Comm_idup(parent, &c, &r));
        while (!flag)
            TU_CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        break;
    }
    return c;
}

static void *disjoint(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int it = 0; it < iters; it++) {
        int kind = (t + it) % K_KINDS;
        MPI_Comm c = make(kind, parents[t], t);
        if (c != MPI_COMM_NULL) {
            use_comm(c, t, it, kind_names[kind]);
            TU_CHECK(MPI_Comm_free(&c));
        }
    }
    return NULL;
}

static void *same_parent(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int it = 0; it < iters; it++) {
        /* odd threads leave rank 0 out (when there is another rank) */
        int drop = t % 2 && tu_size > 1 ? 0 : -1;
        if (tu_rank == drop)
            continue;
        MPI_Group g = group_of(drop, it % 2);
        MPI_Comm c;
        TU_CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, t, &c));
        TU_CHECK(MPI_Group_free(&g));
        use_comm(c, t, it, "MPI_Comm_create_group on MPI_COMM_WORLD");
        TU_CHECK(MPI_Comm_free(&c));
    }
    return NULL;
}

static void run(void *(*fn)(void *))
{
    pthread_t th[MAX_THREADS];
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t))
            tu_fail("pthread_create failed");
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
    int provided;
    tu_name = "comm_threads"; /* tu_init would call MPI_Init: this test asks for threads */
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        return 1;
    TU_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &tu_rank));
    TU_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &tu_size));
    tu_arm_alarm(120);
    if (provided != MPI_THREAD_MULTIPLE)
        tu_fail("MPI_Init_thread provided %d, not MPI_THREAD_MULTIPLE", provided);
    const char *e = getenv("TEST_THREADS");
    nthreads = e && *e ? atoi(e) : 4;
    e = getenv("TEST_ITERS");
    iters = e && *e ? atoi(e) : 20;
    if (nthreads < 1 || nthreads > MAX_THREADS)
        tu_fail("TEST_THREADS=%d is not in 1..%d", nthreads, MAX_THREADS);
    TU_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    for (int t = 0; t < nthreads; t++)
        TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]));

    run(disjoint);
    run(same_parent);

    for (int t = 0; t < nthreads; t++)
        TU_CHECK(MPI_Comm_free(&parents[t]));
    TU_CHECK(MPI_Group_free(&world_group));
    tu_finish();
    return 0;
}
