/*
 * thread_pingpong: MPI_THREAD_MULTIPLE point-to-point. Ranks pair up (0,1),
 * (2,3)...; each runs TEST_THREADS threads (default 4).
 *
 * Default mode: thread t of one rank ping-pongs with thread t of its partner
 * on tag t, cycling through message sizes (eager and rendezvous) and through
 * the ways to complete: blocking Send/Recv, Isend/Irecv + Waitall, and
 * Irecv + a Test loop. Every byte is checked.
 *
 * TEST_ANY=1: the sender's threads ping on their own tag; the receiver's
 * threads take whatever comes (MPI_ANY_SOURCE, MPI_ANY_TAG; half of them
 * through MPI_Mprobe/MPI_Mrecv), check it by the sender thread and sequence
 * number in its first bytes, and answer on that thread's tag.
 *
 * Also checked: MPI_Init_thread provides MPI_THREAD_MULTIPLE, MPI_Query_thread
 * says so, MPI_Is_thread_main is true only in the main thread, and a user
 * errhandler that calls MPI (raised in a second thread) does not deadlock.
 * TEST_ITERS sets the ping-pongs per thread (default 200).
 */
#include "util.h"

#include <pthread.h>

#define MAX_THREADS 64
static const int sizes[] = {0, 8, 100, 4000, 5000, 70000, 300000, 16};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAX_MSG 300000

static int peer, sender, nthreads, iters, any_mode;

static unsigned seed_of(int thread, int it, int pong)
{
    return (unsigned)(thread * 100003 + it * 7 + pong);
}

/* A message: its pattern, with the thread and iteration in front when it
 * has room (the receiver in TEST_ANY mode reads them to know what to check). */
static void fill_msg(unsigned char *buf, int n, int thread, int it, int pong)
{
    tu_fill(buf, (size_t)n, seed_of(thread, it, pong));
    if (n >= 8) {
        memcpy(buf, &thread, 4);
        memcpy(buf + 4, &it, 4);
    }
}

static void check_msg(const unsigned char *buf, int n, int thread, int it, int pong)
{
    unsigned char *ref = tu_malloc((size_t)n);
    fill_msg(ref, n, thread, it, pong);
    if (memcmp(ref, buf, (size_t)n) != 0) {
        int bad = 0;
        while (ref[bad] == buf[bad])
            bad++;
        tu_fail("thread %d iteration %d %s of %d bytes: byte %d is 0x%02x, expected 0x%02x",
                thread, it, pong ? "pong" : "ping", n, bad, buf[bad], ref[bad]);
    }
    free(ref);
}

static void check_thread_main(int expect)
{
    int flag = -1;
    TU_CHECK(MPI_Is_thread_main(&flag));
    TU_ASSERT(flag == expect, "MPI_Is_thread_main says %d in a thread that is%s the main one",
              flag, expect ? "" : " not");
}

/* Send n bytes to the partner's thread on tag, in one of three styles. */
static void xfer(int style, unsigned char *out, int nout, unsigned char *in, int nin,
                 int tag_out, int tag_in, int send_first, MPI_Status *st)
{
    MPI_Request rq[2];
    switch (style) {
    case 0:
        if (send_first) {
            TU_CHECK(MPI_Send(out, nout, MPI_BYTE, peer, tag_out, MPI_COMM_WORLD));
            TU_CHECK(MPI_Recv(in, nin, MPI_BYTE, peer, tag_in, MPI_COMM_WORLD, st));
        } else {
            TU_CHECK(MPI_Recv(in, nin, MPI_BYTE, peer, tag_in, MPI_COMM_WORLD, st));
            TU_CHECK(MPI_Send(out, nout, MPI_BYTE, peer, tag_out, MPI_COMM_WORLD));
        }
        break;
    case 1: {
        MPI_Status sts[2];
        TU_CHECK(MPI_Irecv(in, nin, MPI_BYTE, peer, tag_in, MPI_COMM_WORLD, &rq[0]));
        if (!send_first) { /* the ping must be in before the pong goes */
            TU_CHECK(MPI_Wait(&rq[0], st));
            TU_CHECK(MPI_Send(out, nout, MPI_BYTE, peer, tag_out, MPI_COMM_WORLD));
            break;
        }
        TU_CHECK(MPI_Isend(out, nout, MPI_BYTE, peer, tag_out, MPI_COMM_WORLD, &rq[1]));
        TU_CHECK(MPI_Waitall(2, rq, sts));
        *st = sts[0];
        break;
    }
    default: {
        int flag = 0;
        if (send_first)
            TU_CHECK(MPI_Ssend(out, nout, MPI_BYTE, peer, tag_out, MPI_COMM_WORLD));
        TU_CHECK(MPI_Irecv(in, nin, MPI_BYTE, peer, tag_in, MPI_COMM_WORLD, &rq[0]));
        while (!flag)
            TU_CHECK(MPI_Test(&rq[0], &flag, st));
        if (!send_first)
            TU_CHECK(MPI_Ssend(out, nout, MPI_BYTE, peer, tag_out, MPI_COMM_WORLD));
    }
    }
}

static void *paired(void *arg)
{
    int t = (int)(intptr_t)arg;
    check_thread_main(0);
    unsigned char *out = tu_malloc(MAX_MSG), *in = tu_malloc(MAX_MSG);
    for (int it = 0; it < iters; it++) {
        int n = sizes[(it + t) % NSIZES];
        MPI_Status st;
        fill_msg(out, n, t, it, !sender);
        memset(in, 0xee, (size_t)n);
        xfer((it / NSIZES) % 3, out, n, in, MAX_MSG, t, t, sender, &st);
        tu_check_status(&st, peer, t, n, "paired receive");
        check_msg(in, n, t, it, sender);
    }
    free(out);
    free(in);
    return NULL;
}

/* TEST_ANY mode, the side that pings: like paired, always blocking. */
static void *pinger(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *out = tu_malloc(MAX_MSG), *in = tu_malloc(MAX_MSG);
    for (int it = 0; it < iters; it++) {
        int n = sizes[(it + t) % NSIZES];
        if (n < 8)
            n = 8; /* room for the thread and iteration */
        MPI_Status st;
        fill_msg(out, n, t, it, 0);
        xfer(it % 2, out, n, in, MAX_MSG, t, t, 1, &st);
        tu_check_status(&st, peer, t, n, "pong");
        check_msg(in, n, t, it, 1);
    }
    free(out);
    free(in);
    return NULL;
}

/* TEST_ANY mode, the side that answers: any message from anyone. */
static void *answerer(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *buf = tu_malloc(MAX_MSG);
    for (int k = 0; k < iters; k++) {
        MPI_Status st;
        int n;
        if (t % 2) {
            MPI_Message m;
            TU_CHECK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
            TU_CHECK(MPI_Get_count(&st, MPI_BYTE, &n));
            TU_CHECK(MPI_Mrecv(buf, n, MPI_BYTE, &m, &st));
        } else {
            TU_CHECK(MPI_Recv(buf, MAX_MSG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                              MPI_COMM_WORLD, &st));
        }
        TU_CHECK(MPI_Get_count(&st, MPI_BYTE, &n));
        TU_ASSERT(st.MPI_SOURCE == peer && n >= 8, "any receive: source %d, %d bytes",
                  st.MPI_SOURCE, n);
        int thread, it;
        memcpy(&thread, buf, 4);
        memcpy(&it, buf + 4, 4);
        TU_ASSERT(thread == st.MPI_TAG && thread >= 0 && thread < nthreads && it >= 0 &&
                  it < iters, "any receive: header says thread %d iteration %d, tag %d",
                  thread, it, st.MPI_TAG);
        check_msg(buf, n, thread, it, 0);
        fill_msg(buf, n, thread, it, 1);
        TU_CHECK(MPI_Send(buf, n, MPI_BYTE, peer, thread, MPI_COMM_WORLD));
    }
    free(buf);
    return NULL;
}

/* An errhandler that calls point-to-point from inside the library's lock. */
static int handler_calls;
static void reentering_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    int flag = -1;
    TU_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE));
    TU_ASSERT(flag == 0, "Iprobe in the errhandler found a message");
    handler_calls++;
}

static void *bad_send(void *arg)
{
    (void)arg;
    int rc = MPI_Send(NULL, 0, MPI_BYTE, 5, 0, MPI_COMM_SELF); /* rank 5 of 1 */
    TU_ASSERT(rc != MPI_SUCCESS && handler_calls == 1,
              "bad send in a thread: rc %d, handler calls %d", rc, handler_calls);
    return NULL;
}

int main(int argc, char **argv)
{
    tu_init_multiple(&argc, &argv, "thread_pingpong", 120);
    int q = -1;
    TU_CHECK(MPI_Query_thread(&q));
    TU_ASSERT(q == MPI_THREAD_MULTIPLE, "MPI_Query_thread says %d", q);
    check_thread_main(1);

    nthreads = tu_env_int("TEST_THREADS", 4);
    iters = tu_env_int("TEST_ITERS", 200);
    any_mode = tu_env_int("TEST_ANY", 0);
    TU_ASSERT(nthreads >= 1 && nthreads <= MAX_THREADS, "TEST_THREADS=%d (1..%d)", nthreads,
              MAX_THREADS);
    /* an errhandler that calls MPI, raised from a second thread, does not deadlock */
    MPI_Errhandler eh;
    TU_CHECK(MPI_Comm_create_errhandler(reentering_handler, &eh));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    TU_CHECK(MPI_Errhandler_free(&eh));
    pthread_t bad;
    if (pthread_create(&bad, NULL, bad_send, NULL))
        tu_fail("pthread_create failed");
    pthread_join(bad, NULL);
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    peer = tu_pair(&sender);

    pthread_t th[MAX_THREADS];
    void *(*body)(void *) = !any_mode ? paired : sender ? pinger : answerer;
    double t0 = MPI_Wtime();
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&th[t], NULL, body, (void *)(intptr_t)t))
            tu_fail("pthread_create failed");
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    double dt = MPI_Wtime() - t0;
    if (tu_rank == 0)
        printf("thread_pingpong: %d threads x %d ping-pongs%s in %.2f s\n", nthreads, iters,
               any_mode ? " (any source/tag)" : "", dt);
    tu_barrier();
    tu_finish();
    return 0;
}
