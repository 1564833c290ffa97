/*
 * MPI_Reduce: binomial tree. Relative rank v receives the partial results
 * of ranks [v + mask, v + 2 mask) from its children in increasing mask order
 * and folds each in after its own, so the tree combines contiguous rank
 * ranges left to right. For a commutative op the tree is rooted at the root;
 * for a non-commutative one it is rooted at rank 0 (relative = real ranks, so
 * the result is in rank order) and rank 0 forwards the result to the root.
 */
#include "collcheck.h"

int faro_coll_reduce_binomial(const struct faro_coll *c, const void *sendbuf, void *recvbuf,
                              int count, MPI_Datatype t, MPI_Op op, int root)
{
    int size = c->size, rank = c->rank, rc = MPI_SUCCESS;
    int commute = faro_op_is_commutative(op);
    int troot = commute ? root : 0; /* the tree's root */
    int vr = (rank - troot + size) % size;
    const void *own = sendbuf ? sendbuf : recvbuf;
    struct faro_coll_tmp ta, tb;
    ta.heap = tb.heap = NULL;
    void *acc = NULL, *tmp = NULL; /* acc NULL: still just the own data */

    int mask = 1;
    for (; mask < size; mask <<= 1) {
        if (vr & mask)
            break;
        int vchild = vr + mask;
        if (vchild >= size)
            continue;
        if (!acc) {
            /* the first child: room for the partial result and one incoming */
            acc = rank == root ? recvbuf : faro_coll_tmp_typed(&ta, (size_t)count, t);
            tmp = faro_coll_tmp_typed(&tb, (size_t)count, t);
            if (!acc || !tmp) {
                rc = faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for %d elements",
                              c->fn, count);
                goto out;
            }
            rc = faro_coll_copy(c, own, count, t, acc, count, t);
            if (rc)
                goto out;
        }
        rc = faro_coll_recv(c->fn, tmp, count, t, (vchild + troot) % size, c->tag, c->comm,
                            MPI_STATUS_IGNORE);
        if (rc)
            goto out;
        if (commute) {
            rc = faro_coll_reduce_local(c, op, tmp, acc, count, t);
        } else { /* acc = acc op child's: the result lands in tmp */
            rc = faro_coll_reduce_local(c, op, acc, tmp, count, t);
            void *x = acc;
            acc = tmp;
            tmp = x;
        }
        if (rc)
            goto out;
    }
    const void *result = acc ? acc : own;
    if (vr != 0) {
        rc = faro_coll_send(c->fn, result, count, t, (vr - mask + troot) % size, c->tag, c->comm);
        if (!rc && rank == root) /* non-commutative: rank 0 forwards the result */
            rc = faro_coll_recv(c->fn, recvbuf, count, t, troot, c->tag, c->comm,
                                MPI_STATUS_IGNORE);
    } else if (rank == root) {
        rc = faro_coll_copy(c, result, count, t, recvbuf, count, t);
    } else {
        rc = faro_coll_send(c->fn, result, count, t, root, c->tag, c->comm);
    }
out:
    faro_coll_tmp_free(&ta);
    faro_coll_tmp_free(&tb);
    return rc;
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_reduce(sendbuf, recvbuf, count, type, op, root, comm);
    if (!rc)
        rc = faro_coll_check_reduce(fn, comm, sendbuf, recvbuf, count, type, op, root);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(NULL, fn, comm, root, op, count, type, NULL);
    if (rc)
        return rc;
    size_t bytes = (size_t)count * type->size;
    if (bytes == 0)
        return MPI_SUCCESS;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_REDUCE);
    const void *send = sendbuf == MPI_IN_PLACE ? NULL : sendbuf;
    if (comm->size == 1)
        return send ? faro_coll_copy(&c, send, count, type, recvbuf, count, type) : MPI_SUCCESS;
    int alg = faro_coll_select(comm, FARO_COLL_REDUCE, bytes, faro_op_is_commutative(op), 1);
    return faro_coll_algs[alg].fn.reduce(&c, send, recvbuf, count, type, op, root);
}
