/*
 * MPI_Scatter, MPI_Scatterv. Linear: the root sends each rank its block with
 * at most FARO_COLL_WINDOW sends in flight; zero-byte blocks are not sent.
 */
#include "collcheck.h"

int faro_coll_scatter_linear(const struct faro_coll *c, const struct faro_coll_blocks *blks,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    if (c->rank != root) {
        if ((size_t)recvcount * recvtype->size == 0)
            return MPI_SUCCESS;
        return faro_coll_recv(c->fn, recvbuf, recvcount, recvtype, root, c->tag, c->comm,
                              MPI_STATUS_IGNORE);
    }
    /* a failed local copy (truncation) still sends every block */
    int lrc = recvbuf ? faro_coll_copy(c, faro_coll_baddr(blks, root), faro_coll_bcount(blks, root),
                                       faro_coll_btype(blks, root), recvbuf, recvcount, recvtype)
                      : MPI_SUCCESS;
    int rc = faro_coll_root_blocks(c, blks, root, 0);
    return lrc ? lrc : rc;
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatter";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_scatterv(fn, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
                                   recvtype, root, comm);
    if (!rc)
        rc = faro_coll_check_scatter(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                     recvtype, root);
    if (rc)
        return rc;
    int is_root = comm->rank == root;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_SCATTER);
    struct faro_coll_blocks blks =
        faro_coll_blocks_uniform(is_root ? sendbuf : NULL, sendcount, is_root ? sendtype : NULL);
    if (FARO_COLL_CHECKING && (rc = faro_cc_rooted(NULL, fn, comm, 1, recvcount,
                                   recvbuf == MPI_IN_PLACE ? NULL : recvtype, &blks, root)))
        return rc;
    /* one block's bytes: the same on every rank (matching signatures) */
    size_t block = recvbuf == MPI_IN_PLACE ? (size_t)sendcount * sendtype->size
                                           : (size_t)recvcount * recvtype->size;
    if (block == 0)
        return MPI_SUCCESS;
    if (comm->size == 1)
        return recvbuf == MPI_IN_PLACE
                   ? MPI_SUCCESS
                   : faro_coll_copy(&c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    int alg = faro_coll_select(comm, FARO_COLL_SCATTER, block * (size_t)comm->size, 1, 1);
    return faro_coll_algs[alg].fn.scatter(&c, &blks, recvbuf == MPI_IN_PLACE ? NULL : recvbuf,
                                          recvcount, recvtype, root);
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatterv";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_scatterv(fn, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount,
                                   recvtype, root, comm);
    if (!rc)
        rc = faro_coll_check_scatterv(fn, comm, sendbuf, sendcounts, displs, sendtype, recvbuf,
                                      recvcount, recvtype, root);
    if (rc)
        return rc;
    int is_root = comm->rank == root;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_SCATTER);
    struct faro_coll_blocks blks = faro_coll_blocks_v(is_root ? sendbuf : NULL, sendcounts,
                                                      displs, is_root ? sendtype : NULL);
    if (FARO_COLL_CHECKING && (rc = faro_cc_rooted(NULL, fn, comm, 1, recvcount,
                                   recvbuf == MPI_IN_PLACE ? NULL : recvtype, &blks, root)))
        return rc;
    int alg = faro_coll_select(comm, FARO_COLL_SCATTER, 0, 1, 0);
    return faro_coll_algs[alg].fn.scatter(&c, &blks, recvbuf == MPI_IN_PLACE ? NULL : recvbuf,
                                          recvcount, recvtype, root);
}
