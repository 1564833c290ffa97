/*
 * MPI_Reduce_scatter_block, MPI_Reduce_scatter: a reduction of the whole
 * vector to rank 0 (order-preserving for non-commutative ops, see reduce.c)
 * followed by a scatter of the pieces. Simple and correct for every op, so
 * it serves the non-commutative ones; recursive halving and pairwise
 * (halving.c) serve commutative ops, as select.c chooses.
 */
#include <limits.h>

#include "collcheck.h"

int faro_coll_reduce_scatter_reduce_scatterv(const struct faro_coll *c, const void *sendbuf,
                                             void *recvbuf, const struct faro_coll_blocks *blks,
                                             int total, MPI_Datatype t, MPI_Op op)
{
    struct faro_coll_tmp tt;
    tt.heap = NULL;
    void *whole = NULL;
    if (c->rank == 0) {
        whole = faro_coll_tmp_typed(&tt, (size_t)total, t);
        if (!whole)
            return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for %d elements", c->fn,
                            total);
    }
    /* in place: the input is the whole of recvbuf */
    int rc = faro_coll_reduce_binomial(c, sendbuf ? sendbuf : recvbuf, whole, total, t, op, 0);
    if (!rc) {
        struct faro_coll_blocks from = *blks;
        from.buf = whole;
        rc = faro_coll_scatter_linear(c, &from, recvbuf, faro_coll_bcount(blks, c->rank), t, 0);
    }
    faro_coll_tmp_free(&tt);
    return rc;
}

static int check(const char *fn, MPI_Comm comm, const void *sendbuf, void *recvbuf,
                 MPI_Datatype type, MPI_Op op, size_t total_bytes)
{
    int rc = faro_coll_check_type(fn, comm, type, "datatype");
    if (!rc)
        rc = faro_coll_check_op(fn, comm, op, type);
    if (rc)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf");
    if (sendbuf == recvbuf && total_bytes > 0)
        return faro_coll_err_alias(fn, comm);
    return MPI_SUCCESS;
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce_scatter_block";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_reduce_scatter(fn, sendbuf, recvbuf, recvcount, NULL, type, op, comm);
    if (!rc)
        rc = faro_coll_check_count(fn, comm, recvcount, "recvcount");
    if (rc)
        return rc;
    long long total = (long long)recvcount * comm->size;
    rc = check(fn, comm, sendbuf, recvbuf, type, op, faro_type_check(type) ? 0 : (size_t)total * type->size);
    if (rc)
        return rc;
    if (total > INT_MAX)
        return faro_err(comm, MPI_ERR_COUNT,
                        "%s: recvcount %d x %d ranks exceeds INT_MAX elements", fn, recvcount,
                        comm->size);
    if (FARO_COLL_CHECKING && (rc = faro_cc_same(NULL, fn, comm, -1, op, recvcount, type, NULL)))
        return rc;
    if ((size_t)total * type->size == 0)
        return MPI_SUCCESS;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_REDUCE_SCATTER);
    const void *send = sendbuf == MPI_IN_PLACE ? NULL : sendbuf;
    if (comm->size == 1)
        return send ? faro_coll_copy(&c, send, recvcount, type, recvbuf, recvcount, type)
                    : MPI_SUCCESS;
    struct faro_coll_blocks blks = faro_coll_blocks_uniform(NULL, recvcount, type);
    int alg = faro_coll_select(comm, FARO_COLL_REDUCE_SCATTER, (size_t)total * type->size,
                               faro_op_is_commutative(op), 1);
    return faro_coll_algs[alg].fn.reduce_scatter(&c, send, recvbuf, &blks, (int)total, type, op);
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce_scatter";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_reduce_scatter(fn, sendbuf, recvbuf, 0, recvcounts, type, op, comm);
    if (!rc)
        rc = faro_coll_check_counts(fn, comm, recvcounts, comm->size, "recvcounts");
    if (rc)
        return rc;
    long long total = 0;
    for (int i = 0; i < comm->size; i++)
        total += recvcounts[i];
    rc = check(fn, comm, sendbuf, recvbuf, type, op, faro_type_check(type) ? 0 : (size_t)total * type->size);
    if (rc)
        return rc;
    if (total > INT_MAX)
        return faro_err(comm, MPI_ERR_COUNT, "%s: the recvcounts add up to %lld, over INT_MAX",
                        fn, total);
    if (FARO_COLL_CHECKING && (rc = faro_cc_same(NULL, fn, comm, -1, op, 0, type, recvcounts)))
        return rc;
    if ((size_t)total * type->size == 0)
        return MPI_SUCCESS;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_REDUCE_SCATTER);
    const void *send = sendbuf == MPI_IN_PLACE ? NULL : sendbuf;
    if (comm->size == 1)
        return send ? faro_coll_copy(&c, send, recvcounts[0], type, recvbuf, recvcounts[0], type)
                    : MPI_SUCCESS;
    /* the pieces lie one after another: displacements are the running sums */
    int stack_d[64], *displs = stack_d;
    struct faro_coll_tmp td;
    td.heap = NULL;
    if (comm->size > 64) {
        displs = faro_coll_tmp_get(&td, (size_t)comm->size * sizeof *displs);
        if (!displs)
            return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int i = 0, d = 0; i < comm->size; d += recvcounts[i], i++)
        displs[i] = d;
    struct faro_coll_blocks blks = faro_coll_blocks_v(NULL, recvcounts, displs, type);
    /* every rank knows all recvcounts: the total is known alike */
    int alg = faro_coll_select(comm, FARO_COLL_REDUCE_SCATTER, (size_t)total * type->size,
                               faro_op_is_commutative(op), 0);
    rc = faro_coll_algs[alg].fn.reduce_scatter(&c, send, recvbuf, &blks, (int)total, type, op);
    faro_coll_tmp_free(&td);
    return rc;
}
