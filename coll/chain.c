/* PLACEHOLDER (being written this session): fails loudly until built. */
#include "coll.h"

int faro_coll_bcast_pipeline(const struct faro_coll *c, void *buf, int count, MPI_Datatype t, int root)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the pipeline algorithm is not built yet", c->fn);
}

int faro_coll_scan_linear(const struct faro_coll *c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op, int exclusive)
{
    return faro_err(c->comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the linear algorithm is not built yet", c->fn);
}
