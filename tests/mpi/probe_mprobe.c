/* probe_mprobe: MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv, and MPI_Get_count / MPI_Get_elements on probed statuses.
 * Ranks pair up; the even rank sends, the odd rank probes and receives.
 *   1. Probe (specific and wildcard) reports source, tag and count; the
 *      message is then received normally; sizes eager and rendezvous.
 *   2. Iprobe polls until the message is there.
 *   3. Matched probes: two messages with the same tag, A then B. Mprobe takes
 *      A; a later Iprobe sees B (A is no longer matchable); Mrecv gets A;
 *      Improbe polls for B; Imrecv + Wait gets B. The message handle becomes
 *      MPI_MESSAGE_NULL after Mrecv/Imrecv. */
#include "util.h"

#define NSZ 5
static const int sizes[NSZ] = {0, 4, 4000, 64000, 600000}; /* multiples of sizeof(int) */

static void check_ints(const int *v, int n, int base, const char *what)
{
    for (int i = 0; i < n; i++)
        if (v[i] != base + i)
            tu_fail("%s: int %d is %d, expected %d", what, i, v[i], base + i);
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
    free(a);
    free(b);
    tu_finish();
    return 0;
}
