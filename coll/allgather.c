/*
 * MPI_Allgather, MPI_Allgatherv. Recursive doubling when the size is a power
 * of two and the message is small (log2 size rounds, each doubling the
 * blocks held; on other sizes it runs the ring); a ring (size - 1 rounds,
 * each link carrying every block once), which suits any size, large messages
 * and the v variant. Bruck and node_aware are in bruck.c and node_aware.c;
 * select.c chooses.
 */
#include <limits.h>
#include <stdlib.h>

#include "bigcount/narrow.h"
#include "bigcount/wide.h"
#include "collcheck.h"

int faro_coll_allgather_recursive_doubling(const struct faro_coll *c,
                                           const struct faro_coll_blocks *blks)
{
    void *recvbuf = blks->buf;
    int recvcount = blks->count;
    MPI_Datatype recvtype = blks->type;
    /* the exchanges pair ranks r and r ^ mask: powers of two only; and the
     * last round's count, size/2 blocks, must fit an int */
    if ((c->size & (c->size - 1)) || (long long)recvcount * c->size > INT_MAX)
        return faro_coll_allgather_ring(c, blks);
    for (int mask = 1; mask < c->size; mask <<= 1) {
        int partner = c->rank ^ mask;
        int mine = c->rank & ~(mask - 1), theirs = partner & ~(mask - 1);
        int rc = faro_coll_sendrecv(
            c->fn, faro_coll_at(recvbuf, (MPI_Aint)mine * recvcount, recvtype), mask * recvcount,
            recvtype, partner, faro_coll_at(recvbuf, (MPI_Aint)theirs * recvcount, recvtype),
            mask * recvcount, recvtype, partner, c->tag, c->comm, MPI_STATUS_IGNORE);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

int faro_coll_allgather_ring(const struct faro_coll *c, const struct faro_coll_blocks *blks)
{
    int size = c->size;
    int right = (c->rank + 1) % size, left = (c->rank - 1 + size) % size;
    for (int i = 0; i < size - 1; i++) {
        int s = (c->rank - i + size) % size, r = (c->rank - i - 1 + size) % size;
        int rc = faro_coll_sendrecv(c->fn, faro_coll_baddr(blks, s), faro_coll_bcount(blks, s),
                                    faro_coll_btype(blks, s), right, faro_coll_baddr(blks, r),
                                    faro_coll_bcount(blks, r), faro_coll_btype(blks, r), left,
                                    c->tag, c->comm, MPI_STATUS_IGNORE);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgather";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                                     NULL, recvtype, comm);
    if (!rc)
        rc = faro_coll_check_allgather(fn, comm, sendbuf, sendcount, sendtype, recvbuf,
                                       recvcount, recvtype);
    if (rc)
        return rc;
    if (FARO_COLL_CHECKING) {
        struct faro_coll_blocks recv = faro_coll_blocks_uniform(recvbuf, recvcount, recvtype);
        if ((rc = faro_cc_allgather(NULL, fn, comm, sendcount,
                                    sendbuf == MPI_IN_PLACE ? NULL : sendtype, &recv)))
            return rc;
    }
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_ALLGATHER);
    if (sendbuf != MPI_IN_PLACE) {
        /* a failed local copy (truncation) still takes part: peers wait for us */
        rc = faro_coll_copy(&c, sendbuf, sendcount, sendtype,
                            faro_coll_at(recvbuf, (MPI_Aint)comm->rank * recvcount, recvtype),
                            recvcount, recvtype);
    }
    size_t total = (size_t)recvcount * recvtype->size * (size_t)comm->size;
    if (comm->size == 1 || total == 0)
        return rc;
    struct faro_coll_blocks blks = faro_coll_blocks_uniform(recvbuf, recvcount, recvtype);
    int alg = faro_coll_select(comm, FARO_COLL_ALLGATHER, total, 1, 1);
    int arc = faro_coll_algs[alg].fn.allgather(&c, &blks);
    return rc ? rc : arc;
}

/* Allgatherv once checked: blks are the receive blocks (displacements in
 * elements from the int call, in bytes from MPI_Allgatherv_c). */
static int allgatherv_run(const char *fn, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, const struct faro_coll_blocks *blks,
                          MPI_Comm comm)
{
    int rc;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_ALLGATHER);
    if (FARO_COLL_CHECKING && (rc = faro_cc_allgather(NULL, fn, comm, sendcount,
                                      sendbuf == MPI_IN_PLACE ? NULL : sendtype, blks)))
        return rc;
    rc = MPI_SUCCESS;
    if (sendbuf != MPI_IN_PLACE) {
        rc = faro_coll_copy(&c, sendbuf, sendcount, sendtype, faro_coll_baddr(blks, comm->rank),
                            blks->counts[comm->rank], blks->type);
    }
    if (comm->size == 1)
        return rc;
    int alg = faro_coll_select(comm, FARO_COLL_ALLGATHER, 0, 1, 0);
    int arc = faro_coll_algs[alg].fn.allgather(&c, blks);
    return rc ? rc : arc;
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgatherv";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                                     displs, recvtype, comm);
    if (!rc)
        rc = faro_coll_check_allgatherv(fn, comm, sendbuf, sendcount, sendtype, recvbuf,
                                        recvcounts, displs, recvtype);
    if (rc)
        return rc;
    struct faro_coll_blocks blks = faro_coll_blocks_v(recvbuf, recvcounts, displs, recvtype);
    return allgatherv_run(fn, sendbuf, sendcount, sendtype, &blks, comm);
}

/* MPI_Allgatherv_c: displacements are MPI_Aint all the way (the blocks hold
 * them in bytes); the counts still run as ints inside, so one beyond INT_MAX
 * is refused (faro_c_fits). An intercommunicator takes the int call. */
int faro_wide_Allgatherv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                         MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                         const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc)
        rc = faro_c_fits(fn, comm, "sendcount", sendcount);
    if (rc)
        return rc;
    int n = faro_comm_peer_size(comm), *counts = NULL, *idispls = NULL;
    MPI_Aint *bytes = NULL;
    if (recvcounts)
        rc = faro_c_ints(fn, comm, "recvcounts", recvcounts, n, &counts);
    if (!rc && comm->inter) {
        if (displs)
            rc = faro_c_ints_of_aints(fn, comm, "displs", displs, n, &idispls);
        if (!rc)
            rc = PMPI_Allgatherv(sendbuf, (int)sendcount, sendtype, recvbuf, counts, idispls,
                                 recvtype, comm);
        free(idispls);
        free(counts);
        return rc;
    }
    if (!rc)
        rc = faro_coll_check_allgatherv(fn, comm, sendbuf, (int)sendcount, sendtype, recvbuf,
                                        counts, displs, recvtype);
    if (!rc && !(bytes = malloc((size_t)n * sizeof *bytes)))
        rc = faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (!rc) {
        for (int i = 0; i < n; i++)
            bytes[i] = displs[i] * recvtype->extent;
        struct faro_coll_blocks blks = {recvbuf, 0, counts, NULL, bytes, recvtype, NULL};
        rc = allgatherv_run(fn, sendbuf, (int)sendcount, sendtype, &blks, comm);
    }
    free(bytes);
    free(counts);
    return rc;
}
