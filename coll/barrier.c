/*
 * MPI_Barrier: dissemination (Hensgen, Finkel, Manber). In round k every rank
 * sends a zero-byte token to rank + 2^k and waits for one from rank - 2^k;
 * after ceil(log2 size) rounds each rank has heard, directly or through
 * others, from every rank. Works for any size and needs no memory.
 */
#include "collcheck.h"

int faro_coll_barrier_dissemination(const struct faro_coll *c)
{
    for (int dist = 1; dist < c->size; dist <<= 1) {
        int to = (c->rank + dist) % c->size;
        int from = (c->rank - dist + c->size) % c->size;
        int rc = faro_coll_sendrecv(c->fn, NULL, 0, MPI_BYTE, to, NULL, 0, MPI_BYTE, from,
                                    c->tag, c->comm, MPI_STATUS_IGNORE);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    int rc = faro_coll_check_comm("MPI_Barrier", comm);
    if (!rc && comm->inter)
        return faro_inter_barrier(comm);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(NULL, "MPI_Barrier", comm, -1, MPI_OP_NULL, 0, NULL, NULL);
    if (rc)
        return rc;
    if (comm->size == 1)
        return MPI_SUCCESS;
    struct faro_coll c = faro_coll_of(comm, "MPI_Barrier", FARO_COLL_TAG_BARRIER);
    int alg = faro_coll_select(comm, FARO_COLL_BARRIER, 0, 1, 1);
    return faro_coll_algs[alg].fn.barrier(&c);
}
