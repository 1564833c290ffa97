/* probe_mprobe: MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv, and MPI_Get_count / MPI_Get_elements on probed statuses.
 * Ranks pair up; the even rank sends, the odd rank probes and receives.
 *   1. Probe (specific and wildcard) reports source, tag and count; the
 *      message is then received normally; sizes eager and rendezvous.
 *   2. Iprobe polls until the message is there.
 *   3. Matched probes: two messages with the same tag, A then B. Mprobe takes
 *      A; a later Iprobe sees B (A is no longer matchable); Mrecv gets A;
 *      Improbe polls for B; Imrecv + Wait gets B. The message handle becomes
 *      MPI_MESSAGE_NULL after Mrecv/Imrecv.
 *   4. The MPI_ERROR field of a status is the program's: every probe and
 *      every call that completes one receive (Recv, Mrecv, Imrecv + Wait,
 *      Irecv + Test, Waitany, Sendrecv), also on MPI_PROC_NULL, leaves the
 *      value the program put there (MPI 3.1 3.2.5: only the calls that
 *      return several statuses write it). */
#include "util.h"

#define NSZ 5
static const int sizes[NSZ] = {0, 4, 4000, 64000, 600000}; /* multiples of sizeof(int) */

static void check_ints(const int *v, int n, int base, const char *what)
{
    for (int i = 0; i < n; i++)
        if (v[i] != base + i)
            tu_fail("%s: int %d is %d, expected %d", what, i, v[i], base + i);
}

/* Phase 4: st->MPI_ERROR must still be the sentinel the program put there. */
#define SENTINEL MPI_ERR_DIMS
static void check_untouched(const MPI_Status *st, const char *call)
{
    TU_ASSERT(st->MPI_ERROR == SENTINEL, "%s wrote %d into status.MPI_ERROR (the program had "
              "put %d there; only calls returning several statuses may write it)", call,
              st->MPI_ERROR, SENTINEL);
}

static void error_field(int sender, int peer)
{
    int v[4] = {1, 2, 3, 4}, w[4];
    MPI_Status st;
    MPI_Message m;
    MPI_Request rq;
    int flag = 0, idx = -1;
    if (sender) {
        tu_token_recv(peer, 39); /* phase 3 ends with "nothing left to receive" */
        for (int i = 0; i < 7; i++)
            TU_CHECK(MPI_Send(v, 4, MPI_INT, peer, 40 + i, MPI_COMM_WORLD));
        TU_CHECK(MPI_Recv(w, 4, MPI_INT, peer, 47, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        return;
    }
    tu_token_send(peer, 39);
    st.MPI_ERROR = SENTINEL;
    TU_CHECK(MPI_Probe(peer, 40, MPI_COMM_WORLD, &st));
    check_untouched(&st, "MPI_Probe");
    while (!flag)
        TU_CHECK(MPI_Iprobe(peer, 40, MPI_COMM_WORLD, &flag, &st));
    check_untouched(&st, "MPI_Iprobe");
    TU_CHECK(MPI_Recv(w, 4, MPI_INT, peer, 40, MPI_COMM_WORLD, &st));
    check_untouched(&st, "MPI_Recv");
    TU_CHECK(MPI_Mprobe(peer, 41, MPI_COMM_WORLD, &m, &st));
    check_untouched(&st, "MPI_Mprobe");
    TU_CHECK(MPI_Mrecv(w, 4, MPI_INT, &m, &st));
    check_untouched(&st, "MPI_Mrecv");
    for (flag = 0; !flag;)
        TU_CHECK(MPI_Improbe(peer, 42, MPI_COMM_WORLD, &flag, &m, &st));
    check_untouched(&st, "MPI_Improbe");
    TU_CHECK(MPI_Imrecv(w, 4, MPI_INT, &m, &rq));
    TU_CHECK(MPI_Wait(&rq, &st));
    check_untouched(&st, "MPI_Wait of an MPI_Imrecv");
    TU_CHECK(MPI_Irecv(w, 4, MPI_INT, peer, 43, MPI_COMM_WORLD, &rq));
    for (flag = 0; !flag;)
        TU_CHECK(MPI_Test(&rq, &flag, &st));
    check_untouched(&st, "MPI_Test of an MPI_Irecv");
    TU_CHECK(MPI_Irecv(w, 4, MPI_INT, peer, 44, MPI_COMM_WORLD, &rq));
    TU_CHECK(MPI_Waitany(1, &rq, &idx, &st));
    check_untouched(&st, "MPI_Waitany");
    TU_CHECK(MPI_Irecv(w, 4, MPI_INT, peer, 45, MPI_COMM_WORLD, &rq));
    for (flag = 0; !flag;)
        TU_CHECK(MPI_Testany(1, &rq, &idx, &flag, &st));
    check_untouched(&st, "MPI_Testany");
    TU_CHECK(MPI_Sendrecv(v, 4, MPI_INT, peer, 47, w, 4, MPI_INT, peer, 46, MPI_COMM_WORLD,
                          &st));
    check_untouched(&st, "MPI_Sendrecv");
    /* MPI_PROC_NULL: source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0, error untouched */
    int count = -1;
    TU_CHECK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st));
    TU_CHECK(MPI_Get_count(&st, MPI_INT, &count));
    TU_ASSERT(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL &&
              st.MPI_TAG == MPI_ANY_TAG && count == 0, "Mprobe(MPI_PROC_NULL): message %s, "
              "source %d tag %d count %d", m == MPI_MESSAGE_NO_PROC ? "NO_PROC" : "not NO_PROC",
              st.MPI_SOURCE, st.MPI_TAG, count);
    check_untouched(&st, "MPI_Mprobe(MPI_PROC_NULL)");
    TU_CHECK(MPI_Mrecv(w, 4, MPI_INT, &m, &st));
    TU_ASSERT(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL,
              "Mrecv(MPI_MESSAGE_NO_PROC): source %d", st.MPI_SOURCE);
    check_untouched(&st, "MPI_Mrecv(MPI_MESSAGE_NO_PROC)");
    TU_CHECK(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &st));
    check_untouched(&st, "MPI_Improbe(MPI_PROC_NULL)");
    TU_CHECK(MPI_Imrecv(w, 4, MPI_INT, &m, &rq));
    TU_CHECK(MPI_Wait(&rq, &st));
    check_untouched(&st, "MPI_Wait of MPI_Imrecv(MPI_MESSAGE_NO_PROC)");
    TU_CHECK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    check_untouched(&st, "MPI_Probe(MPI_PROC_NULL)");
    TU_CHECK(MPI_Recv(w, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    check_untouched(&st, "MPI_Recv(MPI_PROC_NULL)");
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "probe_mprobe");
    tu_need_ranks(2);
    int sender;
    int peer = tu_pair(&sender);
    int maxn = 600000 / (int)sizeof(int);
    int *a = tu_malloc(600000), *b = tu_malloc(600000);
    MPI_Status st;

    /* phases 1 and 2 */
    for (int k = 0; k < NSZ; k++) {
        int n = sizes[k] / (int)sizeof(int);
        if (sender) {
            for (int i = 0; i < n; i++)
                a[i] = k * 1000000 + i;
            TU_CHECK(MPI_Send(a, n, MPI_INT, peer, 10 + k, MPI_COMM_WORLD));
            TU_CHECK(MPI_Send(a, n, MPI_INT, peer, 20 + k, MPI_COMM_WORLD));
        } else {
            int count = -1, elems = -1;
            if (k % 2 == 0)
                TU_CHECK(MPI_Probe(peer, 10 + k, MPI_COMM_WORLD, &st));
            else
                TU_CHECK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            TU_ASSERT(st.MPI_SOURCE == peer && st.MPI_TAG == 10 + k,
                      "Probe: source %d tag %d, expected %d and %d", st.MPI_SOURCE, st.MPI_TAG,
                      peer, 10 + k);
            TU_CHECK(MPI_Get_count(&st, MPI_INT, &count));
            TU_CHECK(MPI_Get_elements(&st, MPI_INT, &elems));
            TU_ASSERT(count == n && elems == n, "Probe of %d ints: Get_count %d, Get_elements %d",
                      n, count, elems);
            TU_CHECK(MPI_Get_count(&st, MPI_BYTE, &count));
            TU_ASSERT(count == sizes[k], "Probe: Get_count(MPI_BYTE) %d, expected %d", count,
                      sizes[k]);
            /* probe twice: the message is still there */
            TU_CHECK(MPI_Probe(peer, 10 + k, MPI_COMM_WORLD, &st));
            memset(b, 0xff, (size_t)sizes[k]);
            TU_CHECK(MPI_Recv(b, count / (int)sizeof(int), MPI_INT, st.MPI_SOURCE, st.MPI_TAG,
                              MPI_COMM_WORLD, &st));
            check_ints(b, n, k * 1000000, "Probe then Recv");

            int flag = 0;
            while (!flag) {
                TU_CHECK(MPI_Iprobe(peer, 20 + k, MPI_COMM_WORLD, &flag, &st));
            }
            TU_CHECK(MPI_Get_count(&st, MPI_INT, &count));
            TU_ASSERT(st.MPI_TAG == 20 + k && count == n, "Iprobe: tag %d count %d, expected %d %d",
                      st.MPI_TAG, count, 20 + k, n);
            TU_CHECK(MPI_Recv(b, maxn, MPI_INT, peer, 20 + k, MPI_COMM_WORLD, &st));
            check_ints(b, n, k * 1000000, "Iprobe then Recv");
        }
    }

    /* phase 3: matched probes */
    for (int k = 0; k < NSZ; k++) {
        int na = sizes[k] / (int)sizeof(int), nb = na + 3;
        if (nb > maxn)
            nb = maxn - 1;
        if (sender) {
            for (int i = 0; i < na; i++)
                a[i] = 7000000 + i;
            for (int i = 0; i < nb; i++)
                b[i] = 8000000 + i;
            /* nonblocking: A may need its receive before it completes */
            MPI_Request r2[2];
            TU_CHECK(MPI_Isend(a, na, MPI_INT, peer, 30, MPI_COMM_WORLD, &r2[0]));
            TU_CHECK(MPI_Isend(b, nb, MPI_INT, peer, 30, MPI_COMM_WORLD, &r2[1]));
            TU_CHECK(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
        } else {
            MPI_Message ma = MPI_MESSAGE_NULL, mb = MPI_MESSAGE_NULL;
            int count = -1, flag = 0;
            if (k % 2 == 0)
                TU_CHECK(MPI_Mprobe(peer, 30, MPI_COMM_WORLD, &ma, &st));
            else
                TU_CHECK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ma, &st));
            TU_ASSERT(ma != MPI_MESSAGE_NULL, "Mprobe returned MPI_MESSAGE_NULL");
            TU_CHECK(MPI_Get_count(&st, MPI_INT, &count));
            TU_ASSERT(st.MPI_SOURCE == peer && st.MPI_TAG == 30 && count == na,
                      "Mprobe: source %d tag %d count %d, expected %d 30 %d", st.MPI_SOURCE,
                      st.MPI_TAG, count, peer, na);
            /* A is taken: probes now see B */
            while (!flag)
                TU_CHECK(MPI_Iprobe(peer, 30, MPI_COMM_WORLD, &flag, &st));
            TU_CHECK(MPI_Get_count(&st, MPI_INT, &count));
            TU_ASSERT(count == nb, "after Mprobe, Iprobe saw %d ints, expected B with %d "
                                   "(matched message A still visible?)", count, nb);
            int *ra = tu_malloc(600000), *rb = tu_malloc(600000);
            TU_CHECK(MPI_Mrecv(ra, maxn, MPI_INT, &ma, &st));
            TU_ASSERT(ma == MPI_MESSAGE_NULL, "Mrecv did not set the message to MPI_MESSAGE_NULL");
            TU_CHECK(MPI_Get_count(&st, MPI_INT, &count));
            TU_ASSERT(count == na && st.MPI_TAG == 30, "Mrecv: count %d tag %d", count, st.MPI_TAG);
            check_ints(ra, na, 7000000, "Mrecv of A");

            flag = 0;
            while (!flag)
                TU_CHECK(MPI_Improbe(MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &flag, &mb, &st));
            TU_CHECK(MPI_Get_count(&st, MPI_INT, &count));
            TU_ASSERT(count == nb && st.MPI_SOURCE == peer, "Improbe: count %d source %d", count,
                      st.MPI_SOURCE);
            MPI_Request req;
            TU_CHECK(MPI_Imrecv(rb, maxn, MPI_INT, &mb, &req));
            TU_ASSERT(mb == MPI_MESSAGE_NULL, "Imrecv did not set the message to MPI_MESSAGE_NULL");
            TU_CHECK(MPI_Wait(&req, &st));
            TU_CHECK(MPI_Get_count(&st, MPI_INT, &count));
            TU_ASSERT(count == nb, "Imrecv: count %d, expected %d", count, nb);
            check_ints(rb, nb, 8000000, "Imrecv of B");
            if (k == NSZ - 1) { /* the sender has nothing more to send */
                flag = -1;
                TU_CHECK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &mb,
                                     &st));
                TU_ASSERT(flag == 0, "Improbe found a message when none was left");
            }
            free(ra);
            free(rb);
        }
    }
    error_field(sender, peer);
    free(a);
    free(b);
    tu_finish();
    return 0;
}
