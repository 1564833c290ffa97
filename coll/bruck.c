/* PLACEHOLDER (being written this session): fails loudly until built. */
#include "coll.h"

int faro_coll_allgather_bruck(const struct faro_coll *c, const struct faro_coll_blocks *blks)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the bruck algorithm is not built yet", c->fn);
}

int faro_coll_alltoall_bruck(const struct faro_coll *c, const struct faro_coll_blocks *send, const struct faro_coll_blocks *recv)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the bruck algorithm is not built yet", c->fn);
}
