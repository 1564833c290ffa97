/*
 * Chains: the pipelined broadcast and the linear scan.
 *
 *  - bcast (pipeline): the ranks form a chain in relative order root,
 *    root + 1, ..., root - 1, and the message flows down it in segments of
 *    whole elements, about FARO_COLL_PIPELINE_SEG bytes each. A rank keeps
 *    up to FARO_COLL_WINDOW / 2 segment receives posted ahead and forwards
 *    segment k to the next rank as soon as it has arrived, while k + 1 ..
 *    are still arriving, so after the first segment has crossed the chain
 *    every link is busy at once: the time is about (size - 1 + segments)
 *    segment times, close to the time of one message of the whole size for
 *    large messages. Bad for small ones (size - 1 hops in sequence).
 *  - scan (linear): rank r receives from r - 1 the combination of the
 *    inputs of ranks 0 .. r - 1, puts it on the left of its own input
 *    (prefix op own, so non-commutative ops get rank order) and passes the
 *    result to r + 1. size - 1 messages in sequence; each rank does one
 *    reduction, against log2 size for recursive doubling, which pays for
 *    large vectors or few ranks. Exscan: rank r's result is the received
 *    prefix itself and it sends prefix op own on; rank 0 has no prefix (its
 *    recvbuf is left alone) and sends its input, so rank 1 gets rank 0's.
 */
#include "coll.h"

#define SEGS_IN_FLIGHT (FARO_COLL_WINDOW / 2)

int faro_coll_bcast_pipeline(const struct faro_coll *c, void *buf, MPI_Count count,
                             MPI_Datatype t, int root)
{
    int size = c->size, vr = (c->rank - root + size) % size, rc = MPI_SUCCESS;
    if (size == 1 || count == 0)
        return MPI_SUCCESS;
    int prev = vr ? (c->rank - 1 + size) % size : -1;
    int next = vr + 1 < size ? (c->rank + 1) % size : -1;
    MPI_Count seg = t->size ? (MPI_Count)(FARO_COLL_PIPELINE_SEG / t->size) : count;
    if (seg < 1)
        seg = 1;
    MPI_Count nseg = (count + seg - 1) / seg, posted = 0;
    MPI_Request rreq[SEGS_IN_FLIGHT], sreq[SEGS_IN_FLIGHT];
    for (int k = 0; k < SEGS_IN_FLIGHT; k++)
        rreq[k] = sreq[k] = MPI_REQUEST_NULL;
    for (MPI_Count j = 0; j < nseg && !rc; j++) {
        int k = (int)(j % SEGS_IN_FLIGHT);
        MPI_Count off = j * seg, len = count - off < seg ? count - off : seg;
        if (prev >= 0) {
            for (; posted < nseg && posted < j + SEGS_IN_FLIGHT && !rc; posted++) {
                MPI_Count po = posted * seg, plen = count - po < seg ? count - po : seg;
                rc = faro_coll_irecv(c->fn, faro_coll_at(buf, po, t), plen, t, prev, c->tag,
                                     c->comm, &rreq[posted % SEGS_IN_FLIGHT]);
            }
            if (!rc)
                rc = faro_coll_waitall(1, &rreq[k]);
        }
        if (next >= 0 && !rc) {
            rc = faro_coll_waitall(1, &sreq[k]); /* segment j - SEGS_IN_FLIGHT */
            if (!rc)
                rc = faro_coll_isend(c->fn, faro_coll_at(buf, off, t), len, t, next, c->tag,
                                     c->comm, &sreq[k]);
        }
    }
    int rr = faro_coll_waitall(SEGS_IN_FLIGHT, rreq);
    int rs = faro_coll_waitall(SEGS_IN_FLIGHT, sreq);
    return rc ? rc : rr ? rr : rs;
}

int faro_coll_scan_linear(const struct faro_coll *c, const void *sendbuf, void *recvbuf,
                          int count, MPI_Datatype t, MPI_Op op, int exclusive)
{
    int rank = c->rank, rc = MPI_SUCCESS;
    int last = rank == c->size - 1;
    if (count == 0)
        return MPI_SUCCESS;
    if (rank == 0) {
        if (!exclusive && sendbuf != recvbuf)
            rc = faro_coll_copy(c, sendbuf, count, t, recvbuf, count, t);
        if (!rc && !last)
            rc = faro_coll_send(c->fn, sendbuf, count, t, 1, c->tag, c->comm);
        return rc;
    }
    /* Scan: the prefix arrives in tmp, recvbuf = prefix op own. Exscan: the
     * prefix arrives in recvbuf (in place: over our input, so own is copied
     * to tmp first), tmp = prefix op own goes on. The last rank of an Exscan
     * needs no tmp. */
    struct faro_coll_tmp tt;
    tt.heap = NULL;
    void *tmp = NULL;
    if (!exclusive || !last) {
        tmp = faro_coll_tmp_typed(&tt, (size_t)count, t);
        if (!tmp)
            return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for %d elements",
                            c->fn, count);
    }
    if (!exclusive) {
        if (sendbuf != recvbuf)
            rc = faro_coll_copy(c, sendbuf, count, t, recvbuf, count, t);
        if (!rc)
            rc = faro_coll_recv(c->fn, tmp, count, t, rank - 1, c->tag, c->comm,
                                MPI_STATUS_IGNORE);
        if (!rc)
            rc = faro_coll_reduce_local(c, op, tmp, recvbuf, count, t);
        if (!rc && !last)
            rc = faro_coll_send(c->fn, recvbuf, count, t, rank + 1, c->tag, c->comm);
    } else {
        if (!last)
            rc = faro_coll_copy(c, sendbuf, count, t, tmp, count, t);
        if (!rc)
            rc = faro_coll_recv(c->fn, recvbuf, count, t, rank - 1, c->tag, c->comm,
                                MPI_STATUS_IGNORE);
        if (!rc && !last)
            rc = faro_coll_reduce_local(c, op, recvbuf, tmp, count, t);
        if (!rc && !last)
            rc = faro_coll_send(c->fn, tmp, count, t, rank + 1, c->tag, c->comm);
    }
    faro_coll_tmp_free(&tt);
    return rc;
}
