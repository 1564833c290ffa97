/* persistent_type_free: a persistent request keeps its datatype and its
 * communicator. The program makes the requests with MPI_Send_init /
 * MPI_Ssend_init / MPI_Rsend_init / MPI_Bsend_init / MPI_Recv_init on types
 * and a communicator it frees right after the init calls, then starts and
 * completes them ITER times: every round must move the right bytes and
 * report the right count.
 *
 * Types: a dup of MPI_INT (dense: sent straight from the buffer) and a
 * vector of doubles (packed and unpacked), each at a small and a
 * rendezvous-sized count. The receiver refills its buffer every round, so a
 * round that moved nothing is caught; the sender changes its data every
 * round, so a request that captured the data at init time is caught. */
#include "util.h"

#define ITER 6
#define NT 2
#define NC 2
#define NMODE 4 /* standard, synchronous, ready, buffered */

static const int counts[NC] = {10, 40000};

static MPI_Datatype make_type(int k)
{
    MPI_Datatype t;
    if (k == 0) {
        TU_CHECK(MPI_Type_dup(MPI_INT, &t));
    } else {
        TU_CHECK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &t)); /* 48 data bytes in 96 */
        TU_CHECK(MPI_Type_commit(&t));
    }
    return t;
}

/* Extent and data bytes of one element of type k, computed from its shape. */
static const size_t ext_of[NT] = {4, 12 * 8}, size_of[NT] = {4, 48};

/* Byte i of element e of type k's data lies at this offset of the buffer. */
static size_t data_off(int k, size_t e, size_t i)
{
    if (k == 0)
        return e * 4 + i;
    size_t block = i / 16, in = i % 16;
    return e * ext_of[1] + block * 40 + in;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "persistent_type_free");
    tu_need_ranks(2);
    int sender;
    int peer = tu_pair(&sender);
    MPI_Comm comm;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));

    size_t bsize = 0;
    for (int k = 0; k < NT; k++)
        for (int c = 0; c < NC; c++)
            bsize += (size_t)counts[c] * size_of[k] + MPI_BSEND_OVERHEAD;
    bsize *= 2; /* room for a round whose buffered copies have not left yet */
    void *battach = tu_malloc(bsize);
    TU_CHECK(MPI_Buffer_attach(battach, (int)bsize));

    /* one request per (mode, type, count); the receiver has NMODE times as many receives */
    enum { NREQ = NMODE * NT * NC };
    MPI_Request req[NREQ];
    unsigned char *buf[NREQ];
    for (int m = 0, i = 0; m < NMODE; m++)
        for (int k = 0; k < NT; k++)
            for (int c = 0; c < NC; c++, i++) {
                MPI_Datatype t = make_type(k);
                size_t bytes = (size_t)counts[c] * ext_of[k];
                buf[i] = tu_malloc(bytes);
                int tag = i;
                if (!sender)
                    TU_CHECK(MPI_Recv_init(buf[i], counts[c], t, peer, tag, comm, &req[i]));
                else if (m == 0)
                    TU_CHECK(MPI_Send_init(buf[i], counts[c], t, peer, tag, comm, &req[i]));
                else if (m == 1)
                    TU_CHECK(MPI_Ssend_init(buf[i], counts[c], t, peer, tag, comm, &req[i]));
                else if (m == 2)
                    TU_CHECK(MPI_Rsend_init(buf[i], counts[c], t, peer, tag, comm, &req[i]));
                else
                    TU_CHECK(MPI_Bsend_init(buf[i], counts[c], t, peer, tag, comm, &req[i]));
                TU_CHECK(MPI_Type_free(&t)); /* the request keeps it */
            }
    TU_CHECK(MPI_Comm_free(&comm)); /* and the communicator */

    for (int it = 0; it < ITER; it++) {
        for (int m = 0, i = 0; m < NMODE; m++)
            for (int k = 0; k < NT; k++)
                for (int c = 0; c < NC; c++, i++) {
                    size_t bytes = (size_t)counts[c] * ext_of[k];
                    unsigned seed = (unsigned)(it * 100 + i);
                    if (sender)
                        tu_fill(buf[i], bytes, seed);
                    else
                        memset(buf[i], 0xee, bytes);
                }
        if (!sender) { /* receives first: the ready sends need them posted */
            TU_CHECK(MPI_Startall(NREQ, req));
            tu_token_send(peer, 1);
        } else {
            tu_token_recv(peer, 1);
            TU_CHECK(MPI_Startall(NREQ, req));
        }
        MPI_Status st[NREQ];
        int rc = MPI_Waitall(NREQ, req, st);
        for (int i = 0; i < NREQ; i++)
            if (rc != MPI_SUCCESS && st[i].MPI_ERROR != MPI_SUCCESS)
                tu_fail("round %d: request %d failed: %s", it, i, tu_errstr(st[i].MPI_ERROR));
        TU_CHECK(rc);
        if (sender)
            continue;
        for (int m = 0, i = 0; m < NMODE; m++)
            for (int k = 0; k < NT; k++)
                for (int c = 0; c < NC; c++, i++) {
                    size_t want = (size_t)counts[c] * size_of[k];
                    int got = -1;
                    TU_CHECK(MPI_Get_count(&st[i], MPI_BYTE, &got));
                    TU_ASSERT((size_t)got == want,
                              "round %d, mode %d, type %d, count %d: received %d bytes, "
                              "expected %zu", it, m, k, counts[c], got, want);
                    unsigned seed = (unsigned)(it * 100 + i);
                    size_t bad = 0, first = 0;
                    for (size_t e = 0; e < (size_t)counts[c]; e++)
                        for (size_t b = 0; b < size_of[k]; b++) {
                            size_t off = data_off(k, e, b);
                            if (buf[i][off] != tu_pat(off, seed) && bad++ == 0)
                                first = off;
                        }
                    TU_ASSERT(bad == 0,
                              "round %d, mode %d, type %d, count %d: %zu data bytes wrong, "
                              "first at buffer offset %zu", it, m, k, counts[c], bad, first);
                }
    }
    for (int i = 0; i < NREQ; i++)
        TU_CHECK(MPI_Request_free(&req[i]));
    void *bp;
    int bs;
    TU_CHECK(MPI_Buffer_detach(&bp, &bs));
    free(battach);
    for (int i = 0; i < NREQ; i++)
        free(buf[i]);
    tu_finish();
    return 0;
}
