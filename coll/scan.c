/*
 * MPI_Scan, MPI_Exscan: recursive doubling. In round mask, rank r trades
 * with r ^ mask the combination of its aligned block of mask ranks
 * ("partial"); the lower block always goes on the left of the op, so
 * non-commutative ops give rank-order prefixes. log2 size rounds, any size.
 * MPI_Exscan leaves rank 0's recvbuf untouched (the standard leaves it
 * undefined).
 */
#include "collcheck.h"

int faro_coll_scan_recursive_doubling(const struct faro_coll *c, const void *sendbuf,
                                      void *recvbuf, int count, MPI_Datatype t, MPI_Op op,
                                      int exclusive)
{
    int commute = faro_op_is_commutative(op), have = !exclusive, rc;
    struct faro_coll_tmp ta, tb;
    tb.heap = NULL;
    void *partial = faro_coll_tmp_typed(&ta, (size_t)count, t);
    void *tmp = partial ? faro_coll_tmp_typed(&tb, (size_t)count, t) : NULL;
    if (!tmp) {
        rc = faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for %d elements", c->fn, count);
        goto out;
    }
    rc = faro_coll_copy(c, sendbuf, count, t, partial, count, t);
    if (!rc && !exclusive)
        rc = faro_coll_copy(c, sendbuf, count, t, recvbuf, count, t);
    for (int mask = 1; mask < c->size && !rc; mask <<= 1) {
        int dst = c->rank ^ mask;
        if (dst >= c->size)
            continue;
        rc = faro_coll_sendrecv(c->fn, partial, count, t, dst, tmp, count, t, dst, c->tag,
                                c->comm, MPI_STATUS_IGNORE);
        if (rc)
            break;
        if (dst < c->rank) { /* tmp: the ranks just below ours */
            if (have) {
                rc = faro_coll_reduce_local(c, op, tmp, recvbuf, count, t);
            } else {
                rc = faro_coll_copy(c, tmp, count, t, recvbuf, count, t);
                have = 1;
            }
            if (!rc)
                rc = faro_coll_reduce_local(c, op, tmp, partial, count, t);
        } else if (commute) {
            rc = faro_coll_reduce_local(c, op, tmp, partial, count, t);
        } else { /* partial = partial op tmp, landing in tmp */
            rc = faro_coll_reduce_local(c, op, partial, tmp, count, t);
            void *x = partial;
            partial = tmp;
            tmp = x;
        }
    }
out:
    faro_coll_tmp_free(&ta);
    faro_coll_tmp_free(&tb);
    return rc;
}

static int scan(const char *fn, int tag, int exclusive, const void *sendbuf, void *recvbuf,
                int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_err(comm, MPI_ERR_COMM,
                        "%s: not defined on an intercommunicator (MPI-3.1 5.11: an "
                        "intracommunicator only)", fn);
    if (!rc)
        rc = faro_coll_check_reduction(fn, comm, sendbuf, recvbuf, count, type, op);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(NULL, fn, comm, -1, op, count, type, NULL);
    if (rc)
        return rc;
    if ((size_t)count * type->size == 0)
        return MPI_SUCCESS;
    struct faro_coll c = faro_coll_of(comm, fn, tag);
    const void *send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (comm->size == 1)
        return exclusive ? MPI_SUCCESS : faro_coll_copy(&c, send, count, type, recvbuf, count, type);
    int alg = faro_coll_select(comm, FARO_COLL_SCAN, (size_t)count * type->size,
                               faro_op_is_commutative(op), 1);
    return faro_coll_algs[alg].fn.scan(&c, send, recvbuf, count, type, op, exclusive);
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm)
{
    return scan("MPI_Scan", FARO_COLL_TAG_SCAN, 0, sendbuf, recvbuf, count, type, op, comm);
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm)
{
    return scan("MPI_Exscan", FARO_COLL_TAG_EXSCAN, 1, sendbuf, recvbuf, count, type, op, comm);
}
