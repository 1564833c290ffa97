/*
 * MPI_Gather, MPI_Gatherv. Linear: every rank sends its block to the root,
 * which receives straight into its buffer with at most FARO_COLL_WINDOW
 * receives posted at a time. Blocks of zero bytes are not sent at all (both
 * sides know the size from their arguments).
 */
#include "collcheck.h"

int faro_coll_gather_linear(const struct faro_coll *c, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, const struct faro_coll_blocks *blks, int root)
{
    if (c->rank != root) {
        if ((size_t)sendcount * sendtype->size == 0)
            return MPI_SUCCESS;
        return faro_coll_send(c->fn, sendbuf, sendcount, sendtype, root, c->tag, c->comm);
    }
    /* A failed local copy (truncation) still receives every block: the
     * senders' rendezvous would wait for the root forever otherwise. */
    int lrc = sendbuf ? faro_coll_copy(c, sendbuf, sendcount, sendtype,
                                       faro_coll_baddr(blks, root), faro_coll_bcount(blks, root),
                                       faro_coll_btype(blks, root))
                      : MPI_SUCCESS;
    int rc = faro_coll_root_blocks(c, blks, root, 1);
    return lrc ? lrc : rc;
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Gather";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_gatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                                  recvtype, root, comm);
    if (!rc)
        rc = faro_coll_check_gather(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                    recvtype, root);
    if (rc)
        return rc;
    int is_root = comm->rank == root;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_GATHER);
    struct faro_coll_blocks blks =
        faro_coll_blocks_uniform(is_root ? recvbuf : NULL, recvcount, is_root ? recvtype : NULL);
    if (FARO_COLL_CHECKING && (rc = faro_cc_rooted(NULL, fn, comm, 0, sendcount,
                                   sendbuf == MPI_IN_PLACE ? NULL : sendtype, &blks, root)))
        return rc;
    /* one block's bytes: the same on every rank (matching signatures) */
    size_t block = sendbuf == MPI_IN_PLACE ? (size_t)recvcount * recvtype->size
                                           : (size_t)sendcount * sendtype->size;
    if (block == 0)
        return MPI_SUCCESS;
    if (comm->size == 1)
        return sendbuf == MPI_IN_PLACE
                   ? MPI_SUCCESS
                   : faro_coll_copy(&c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    int alg = faro_coll_select(comm, FARO_COLL_GATHER, block * (size_t)comm->size, 1, 1);
    return faro_coll_algs[alg].fn.gather(&c, sendbuf == MPI_IN_PLACE ? NULL : sendbuf, sendcount,
                                         sendtype, &blks, root);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    static const char fn[] = "MPI_Gatherv";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_gatherv(fn, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                                  recvtype, root, comm);
    if (!rc)
        rc = faro_coll_check_gatherv(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                     displs, recvtype, root);
    if (rc)
        return rc;
    int is_root = comm->rank == root;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_GATHER);
    struct faro_coll_blocks blks = faro_coll_blocks_v(is_root ? recvbuf : NULL, recvcounts,
                                                      displs, is_root ? recvtype : NULL);
    if (FARO_COLL_CHECKING && (rc = faro_cc_rooted(NULL, fn, comm, 0, sendcount,
                                   sendbuf == MPI_IN_PLACE ? NULL : sendtype, &blks, root)))
        return rc;
    int alg = faro_coll_select(comm, FARO_COLL_GATHER, 0, 1, 0);
    return faro_coll_algs[alg].fn.gather(&c, sendbuf == MPI_IN_PLACE ? NULL : sendbuf, sendcount,
                                         sendtype, &blks, root);
}
