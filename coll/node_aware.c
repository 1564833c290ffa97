/* PLACEHOLDER (being written this session): fails loudly until built. */
#include "coll.h"

int faro_coll_barrier_node_aware(const struct faro_coll *c)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the node_aware algorithm is not built yet", c->fn);
}

int faro_coll_bcast_node_aware(const struct faro_coll *c, void *buf, int count, MPI_Datatype t, int root)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the node_aware algorithm is not built yet", c->fn);
}

int faro_coll_reduce_node_aware(const struct faro_coll *c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op, int root)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the node_aware algorithm is not built yet", c->fn);
}

int faro_coll_allreduce_node_aware(const struct faro_coll *c, void *recvbuf, int count, MPI_Datatype t, MPI_Op op)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the node_aware algorithm is not built yet", c->fn);
}

int faro_coll_allgather_node_aware(const struct faro_coll *c, const struct faro_coll_blocks *blks)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the node_aware algorithm is not built yet", c->fn);
}
