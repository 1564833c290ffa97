/*
 * grequest: generalized requests. The query callback fills the status at
 * completion, the free callback runs exactly once (also for a request the
 * program freed before completing it), the cancel callback gets whether the
 * request had completed, callback errors come back from the call, and a
 * request completed by another thread wakes a waiting MPI_Wait.
 */
#include "util.h"

#include <pthread.h>

struct state {
    int queries, frees, cancels, last_complete;
    int query_rc;
};

static int query(void *extra, MPI_Status *st)
{
    struct state *s = extra;
    s->queries++;
    st->MPI_SOURCE = 7;
    st->MPI_TAG = 42;
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    return s->query_rc;
}

static int release(void *extra)
{
    ((struct state *)extra)->frees++;
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    struct state *s = extra;
    s->cancels++;
    s->last_complete = complete;
    return MPI_SUCCESS;
}

static void *completer(void *arg)
{
    usleep(20000);
    MPI_Grequest_complete(*(MPI_Request *)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    tu_name = "grequest"; /* tu_init would call MPI_Init: this test asks for threads */
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        return 1;
    TU_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &tu_rank));
    TU_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &tu_size));
    tu_arm_alarm(60);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    struct state s = {0};
    MPI_Request r;
    MPI_Status st;
    int flag, n;
    TU_CHECK(MPI_Grequest_start(query, release, cancel, &s, &r));
    TU_CHECK(MPI_Test(&r, &flag, &st));
    TU_ASSERT(!flag && s.queries == 0, "an incomplete generalized request tested complete");
    TU_CHECK(MPI_Cancel(&r));
    TU_ASSERT(s.cancels == 1 && s.last_complete == 0, "cancel callback: %d calls, complete=%d",
              s.cancels, s.last_complete);
    TU_CHECK(MPI_Grequest_complete(r));
    TU_CHECK(MPI_Wait(&r, &st));
    TU_ASSERT(r == MPI_REQUEST_NULL, "MPI_Wait left the request handle set");
    TU_ASSERT(s.queries == 1 && s.frees == 1, "query %d times, free %d times (want 1, 1)",
              s.queries, s.frees);
    TU_CHECK(MPI_Get_count(&st, MPI_INT, &n));
    TU_ASSERT(st.MPI_SOURCE == 7 && st.MPI_TAG == 42 && n == 3,
              "status from the query callback: source %d tag %d count %d", st.MPI_SOURCE,
              st.MPI_TAG, n);

    /* Freed by the program first: the free callback runs at completion. */
    struct state s2 = {0};
    TU_CHECK(MPI_Grequest_start(query, release, cancel, &s2, &r));
    MPI_Request keep = r;
    TU_CHECK(MPI_Request_free(&r));
    TU_ASSERT(s2.frees == 0, "free callback ran before the request completed");
    TU_CHECK(MPI_Grequest_complete(keep));
    TU_ASSERT(s2.frees == 1 && s2.queries == 0, "after free+complete: %d frees, %d queries",
              s2.frees, s2.queries);

    /* A failing query callback: its code comes back from MPI_Wait. */
    struct state s3 = {.query_rc = MPI_ERR_OTHER};
    TU_CHECK(MPI_Grequest_start(query, release, cancel, &s3, &r));
    TU_CHECK(MPI_Grequest_complete(r));
    int rc = MPI_Wait(&r, MPI_STATUS_IGNORE), cls;
    MPI_Error_class(rc, &cls);
    TU_ASSERT(cls == MPI_ERR_OTHER && s3.frees == 1, "failing query: class %d, %d frees", cls,
              s3.frees);

    /* Completed by another thread while this one waits. */
    if (provided == MPI_THREAD_MULTIPLE) {
        struct state s4 = {0};
        pthread_t th;
        TU_CHECK(MPI_Grequest_start(query, release, cancel, &s4, &r));
        MPI_Request shared = r;
        pthread_create(&th, NULL, completer, &shared);
        TU_CHECK(MPI_Wait(&r, &st));
        pthread_join(th, NULL);
        TU_ASSERT(s4.queries == 1 && s4.frees == 1, "threaded: %d queries, %d frees",
                  s4.queries, s4.frees);
    }

    /* Errors: bad arguments and a request that is not generalized. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Grequest_start(NULL, release, cancel, &s, &r);
    MPI_Error_class(rc, &cls);
    TU_ASSERT(cls == MPI_ERR_ARG, "NULL query function: class %d, want MPI_ERR_ARG", cls);
    rc = MPI_Grequest_complete(MPI_REQUEST_NULL);
    MPI_Error_class(rc, &cls);
    TU_ASSERT(cls == MPI_ERR_REQUEST, "complete(MPI_REQUEST_NULL): class %d", cls);
    tu_finish();
    return 0;
}
