/* PLACEHOLDER (being written this session): fails loudly until built. */
#include "coll.h"

int faro_coll_reduce_rabenseifner(const struct faro_coll *c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op, int root)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the rabenseifner algorithm is not built yet", c->fn);
}

int faro_coll_reduce_scatter_recursive_halving(const struct faro_coll *c, const void *sendbuf, void *recvbuf, const struct faro_coll_blocks *blks, int total, MPI_Datatype t, MPI_Op op)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the recursive_halving algorithm is not built yet", c->fn);
}

int faro_coll_reduce_scatter_pairwise(const struct faro_coll *c, const void *sendbuf, void *recvbuf, const struct faro_coll_blocks *blks, int total, MPI_Datatype t, MPI_Op op)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the pairwise algorithm is not built yet", c->fn);
}
