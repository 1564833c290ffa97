/* PLACEHOLDER (being written this session): fails loudly until built. */
#include "coll.h"

int faro_coll_allreduce_ring(const struct faro_coll *c, void *recvbuf, int count, MPI_Datatype t, MPI_Op op)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the ring algorithm is not built yet", c->fn);
}
