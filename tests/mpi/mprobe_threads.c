/*
 * mprobe_threads: matched probes under MPI_THREAD_MULTIPLE. Ranks pair up
 * (0,1), (2,3)...; the even rank sends, the odd rank receives, each with
 * TEST_THREADS threads (default 4), TEST_ITERS messages per thread (default
 * 300).
 *
 * Sender thread t sends its messages alternately on MPI_COMM_WORLD with tag t
 * (received by receiver thread t, which probes for (peer, t)) and on a dup of
 * MPI_COMM_WORLD (received by whichever receiver thread probes first with
 * MPI_ANY_SOURCE / MPI_ANY_TAG). It sends with MPI_Send, MPI_Isend + MPI_Wait
 * or MPI_Sendrecv (the receive half takes a zero-byte acknowledgement that
 * the receiver sends when it has the message). Sizes go from 0 bytes to 4 MiB
 * (eager, several eager fragments, rendezvous).
 *
 * Receiver threads take every message with MPI_Mprobe or a MPI_Improbe loop,
 * then MPI_Mrecv, or MPI_Imrecv + MPI_Wait / MPI_Test loop, into a buffer of
 * exactly the probed size followed by a guard. A message carries its identity
 * (thread, iteration, style, size) in its first 16 bytes and a pattern seeded
 * by it after them; smaller ones carry a pattern seeded by thread and size.
 * Checked: the probe's and the receive's status (source, tag, count, and
 * MPI_ERROR left as the program set it), every byte, the guard, that each thread's own-tag messages come in order, and
 * that every message on the dup arrives exactly once.
 */
#include "util.h"

#include <pthread.h>

#define MAX_THREADS 32
#define HDR 16                 /* identity: thread, iteration, style, size */
#define GUARD 64
#define ACK_TAG 1000           /* + sender thread, on the message's communicator */
static const int sizes[] = {0, 1, 15, 16, 100, 4000, 4097, 65536, 300000, 1048576,
                            4194307, 24};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAX_MSG 4194307

enum { SEND, ISEND, SENDRECV };

static int peer, nthreads, iters;
static MPI_Comm anyc; /* the dup carrying the MPI_ANY_TAG traffic */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *seen; /* [thread * iters + it]: dup messages received */

static int size_of(int t, int it)
{
    return sizes[(it * 5 + t * 3) % NSIZES];
}

static int style_of(int t, int it, int n)
{
    int s = (it / 2 + t) % 3;
    return n < HDR && s == SENDRECV ? SEND : s; /* no room to ask for the ack */
}

static unsigned seed_of(int t, int it, int n)
{
    return n < HDR ? (unsigned)(t * 7919 + n) : (unsigned)(t * 1000003 + it * 31 + 1);
}

static void fill_msg(unsigned char *buf, int n, int t, int it, int style)
{
    tu_fill(buf, (size_t)n, seed_of(t, it, n));
    if (n >= HDR) {
        int id[4] = {t, it, style, n};
        memcpy(buf, id, sizeof id);
    }
}

static void *send_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *buf = tu_malloc(MAX_MSG);
    for (int it = 0; it < iters; it++) {
        int n = size_of(t, it), style = style_of(t, it, n);
        MPI_Comm comm = it % 2 ? anyc : MPI_COMM_WORLD;
        MPI_Request rq;
        MPI_Status st;
        fill_msg(buf, n, t, it, style);
        switch (style) {
        case SEND:
            TU_CHECK(MPI_Send(buf, n, MPI_BYTE, peer, t, comm));
            break;
        case ISEND:
            TU_CHECK(MPI_Isend(buf, n, MPI_BYTE, peer, t, comm, &rq));
            TU_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            break;
        default:
            TU_CHECK(MPI_Sendrecv(buf, n, MPI_BYTE, peer, t, NULL, 0, MPI_BYTE, peer,
                                  ACK_TAG + t, comm, &st));
            break;
        }
    }
    free(buf);
    return NULL;
}

/* Receive the message m (probed as st) into exactly n bytes plus a guard. */
static void mrecv(int how, unsigned char *buf, int n, MPI_Message *m, MPI_Status *st)
{
    MPI_Request rq;
    int flag = 0;
    switch (how) {
    case 0:
        TU_CHECK(MPI_Mrecv(buf, n, MPI_BYTE, m, st));
        break;
    case 1:
        TU_CHECK(MPI_Imrecv(buf, n, MPI_BYTE, m, &rq));
        TU_CHECK(MPI_Wait(&rq, st));
        break;
    default:
        TU_CHECK(MPI_Imrecv(buf, n, MPI_BYTE, m, &rq));
        while (!flag)
            TU_CHECK(MPI_Test(&rq, &flag, st));
    }
    TU_ASSERT(*m == MPI_MESSAGE_NULL, "the message handle is not MPI_MESSAGE_NULL after the "
              "receive");
}

/* One message: probe (own tag or any), receive, check; returns its iteration. */
static int take_one(int t, int k, int own, unsigned char *buf)
{
    MPI_Comm comm = own ? MPI_COMM_WORLD : anyc;
    int src = own ? peer : MPI_ANY_SOURCE, tag = own ? t : MPI_ANY_TAG;
    const char *what = own ? "own-tag" : "any-tag";
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status pst, rst;
    int n = -1, rn = -1;
    pst.MPI_ERROR = MPI_ERR_DIMS; /* the program's: no probe or receive writes it */
    rst.MPI_ERROR = MPI_ERR_TOPOLOGY;
    if ((k / 2 + t) % 2) {
        TU_CHECK(MPI_Mprobe(src, tag, comm, &m, &pst));
    } else {
        int flag = 0;
        while (!flag)
            TU_CHECK(MPI_Improbe(src, tag, comm, &flag, &m, &pst));
    }
    TU_ASSERT(pst.MPI_ERROR == MPI_ERR_DIMS, "thread %d %s probe %d wrote %d into "
              "status.MPI_ERROR", t, what, k, pst.MPI_ERROR);
    TU_CHECK(MPI_Get_count(&pst, MPI_BYTE, &n));
    TU_ASSERT(pst.MPI_SOURCE == peer && pst.MPI_TAG >= 0 && pst.MPI_TAG < nthreads &&
              (!own || pst.MPI_TAG == t) && n >= 0 && n <= MAX_MSG,
              "thread %d %s probe %d: source %d tag %d count %d", t, what, k, pst.MPI_SOURCE,
              pst.MPI_TAG, n);
    memset(buf + n, 0xa5, GUARD);
    memset(buf, 0xee, (size_t)n);
    mrecv((k / 4 + t) % 3, buf, n, &m, &rst);
    TU_ASSERT(rst.MPI_ERROR == MPI_ERR_TOPOLOGY, "thread %d %s receive %d wrote %d into "
              "status.MPI_ERROR", t, what, k, rst.MPI_ERROR);
    TU_CHECK(MPI_Get_count(&rst, MPI_BYTE, &rn));
    TU_ASSERT(rst.MPI_SOURCE == pst.MPI_SOURCE && rst.MPI_TAG == pst.MPI_TAG && rn == n,
              "thread %d %s receive %d: status source %d tag %d count %d, the probe said "
              "%d %d %d", t, what, k, rst.MPI_SOURCE, rst.MPI_TAG, rn, pst.MPI_SOURCE,
              pst.MPI_TAG, n);
    tu_check_fill(buf + n, GUARD, 0xa5, "thread %d %s receive %d of %d bytes: guard", t, what,
                  k, n);
    int from = pst.MPI_TAG, it = -1, style = SEND;
    if (n >= HDR) {
        int id[4];
        memcpy(id, buf, sizeof id);
        TU_ASSERT(id[0] == from && id[1] >= 0 && id[1] < iters && id[3] == n &&
                  size_of(from, id[1]) == n && style_of(from, id[1], n) == id[2],
                  "thread %d %s receive %d of %d bytes with tag %d: wrong message (identity "
                  "says thread %d iteration %d style %d size %d)", t, what, k, n, from, id[0],
                  id[1], id[2], id[3]);
        it = id[1];
        style = id[2];
    }
    unsigned char *ref = tu_malloc((size_t)n);
    fill_msg(ref, n, from, it, style);
    if (n >= HDR ? memcmp(ref + HDR, buf + HDR, (size_t)n - HDR) : memcmp(ref, buf, (size_t)n)) {
        int bad = n >= HDR ? HDR : 0, nbad = 0;
        while (ref[bad] == buf[bad])
            bad++;
        for (int i = bad; i < n; i++)
            nbad += ref[i] != buf[i];
        tu_fail("thread %d %s receive %d: message of thread %d iteration %d (%d bytes): %d "
                "bytes wrong, first at %d (0x%02x, expected 0x%02x)", t, what, k, from, it, n,
                nbad, bad, buf[bad], ref[bad]);
    }
    free(ref);
    if (style == SENDRECV)
        TU_CHECK(MPI_Send(NULL, 0, MPI_BYTE, peer, ACK_TAG + from,
                          own ? MPI_COMM_WORLD : anyc));
    if (!own && it >= 0) {
        pthread_mutex_lock(&seen_lock);
        int dup = seen[from * iters + it]++;
        pthread_mutex_unlock(&seen_lock);
        TU_ASSERT(!dup, "thread %d: message of thread %d iteration %d received twice", t, from,
                  it);
    }
    return it;
}

static void *recv_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *buf = tu_malloc(MAX_MSG + GUARD);
    int next_own = 0; /* own-tag messages come in order: iterations 0, 2, 4 ... */
    for (int k = 0; k < iters; k++) {
        int own = k % 2 == 0;
        int it = take_one(t, k, own, buf);
        if (own && it >= 0)
            TU_ASSERT(it == next_own, "thread %d: own-tag message of iteration %d came when "
                      "%d was due (overtaken?)", t, it, next_own);
        if (own)
            next_own += 2;
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    tu_init_multiple(&argc, &argv, "mprobe_threads", 240);
    nthreads = tu_env_int("TEST_THREADS", 4);
    iters = tu_env_int("TEST_ITERS", 300);
    TU_ASSERT(nthreads >= 1 && nthreads <= MAX_THREADS && iters >= 1,
              "TEST_THREADS=%d (1..%d), TEST_ITERS=%d (>= 1)", nthreads, MAX_THREADS, iters);
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &anyc));
    int sender;
    peer = tu_pair(&sender);
    seen = calloc((size_t)nthreads * (size_t)iters, 1);
    TU_ASSERT(seen, "out of memory");

    pthread_t th[MAX_THREADS];
    double t0 = MPI_Wtime();
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&th[t], NULL, sender ? send_thread : recv_thread,
                           (void *)(intptr_t)t))
            tu_fail("pthread_create failed");
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    double dt = MPI_Wtime() - t0;
    if (!sender) /* every message of the dup came exactly once */
        for (int t = 0; t < nthreads; t++)
            for (int it = 1; it < iters; it += 2)
                TU_ASSERT(size_of(t, it) < HDR || seen[t * iters + it] == 1,
                          "message of thread %d iteration %d on the dup received %d times", t,
                          it, seen[t * iters + it]);
    if (tu_rank == 0)
        printf("mprobe_threads: %d threads x %d messages in %.2f s\n", nthreads, iters, dt);
    free(seen);
    TU_CHECK(MPI_Comm_free(&anyc));
    tu_finish();
    return 0;
}
