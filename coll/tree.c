/* PLACEHOLDER (being written this session): fails loudly until built. */
#include "coll.h"

int faro_coll_barrier_tree(const struct faro_coll *c)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the tree algorithm is not built yet", c->fn);
}

int faro_coll_gather_binomial(const struct faro_coll *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype, const struct faro_coll_blocks *blks, int root)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the binomial algorithm is not built yet", c->fn);
}

int faro_coll_scatter_binomial(const struct faro_coll *c, const struct faro_coll_blocks *blks, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the binomial algorithm is not built yet", c->fn);
}
