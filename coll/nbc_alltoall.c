/*
 * MPI_Ialltoall, MPI_Ialltoallv, MPI_Ialltoallw: one round with everything
 * in flight. Each rank copies its own block locally, posts a receive from
 * every other rank, then a send to every other rank, the peers taken in the
 * order rank+1, rank+2, ... so that not every rank starts with rank 0.
 * Posting it all at once needs no further round, so the whole exchange
 * progresses while the program computes. Zero-byte blocks are not sent
 * (both ends know the size from their counts).
 *
 * In place: the data to send is in recvbuf and is overwritten by what
 * arrives, so round 0 first copies every outgoing block into a temporary of
 * the schedule (laid out like the block: count elements of its type) and
 * sends from there.
 */
#include "collcheck.h"
#include "nbc_sched.h"

static int exchange(const char *fn, const struct faro_coll_blocks *send,
                    const struct faro_coll_blocks *recv, MPI_Comm comm, MPI_Request *request)
{
    struct faro_cc *cc = NULL;
    int rc = FARO_COLL_CHECKING ? faro_cc_alltoall(&cc, fn, comm, send, recv) : MPI_SUCCESS;
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    int rank = comm->rank, size = comm->size;
    if (send)
        faro_sched_copy(s, faro_coll_baddr(send, rank), faro_coll_bcount(send, rank),
                        faro_coll_btype(send, rank), faro_coll_baddr(recv, rank),
                        faro_coll_bcount(recv, rank), faro_coll_btype(recv, rank));
    /* in place: the outgoing blocks saved before anything arrives */
    for (int k = 1; !send && k < size; k++) {
        int i = (rank + k) % size, n = faro_coll_bcount(recv, i);
        MPI_Datatype t = faro_coll_btype(recv, i);
        if ((size_t)n * t->size == 0)
            continue;
        void *tmp = faro_sched_tmp_typed(s, (size_t)n, t);
        if (tmp) {
            faro_sched_copy(s, faro_coll_baddr(recv, i), n, t, tmp, n, t);
            faro_sched_send(s, tmp, n, t, i);
        }
    }
    for (int k = 1; k < size; k++) {
        int i = (rank - k + size) % size;
        faro_sched_recv(s, faro_coll_baddr(recv, i), faro_coll_bcount(recv, i),
                        faro_coll_btype(recv, i), i);
    }
    for (int k = 1; send && k < size; k++) {
        int i = (rank + k) % size;
        faro_sched_send(s, faro_coll_baddr(send, i), faro_coll_bcount(send, i),
                        faro_coll_btype(send, i), i);
    }
    return faro_sched_start(s, request);
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Ialltoall";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_alltoallw(fn, 0, sendbuf, sendcount, NULL, NULL, sendtype, NULL,
                                        recvbuf, recvcount, NULL, NULL, recvtype, NULL, comm,
                                        request);
    if (!rc)
        rc = faro_coll_check_alltoall(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                      recvtype);
    if (rc)
        return rc;
    struct faro_coll_blocks recv = faro_coll_blocks_uniform(recvbuf, recvcount, recvtype);
    struct faro_coll_blocks send = faro_coll_blocks_uniform(sendbuf, sendcount, sendtype);
    return exchange(fn, sendbuf == MPI_IN_PLACE ? NULL : &send, &recv, comm, request);
}

#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Ialltoallv";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_alltoallw(fn, 0, sendbuf, 0, sendcounts, sdispls, sendtype, NULL,
                                        recvbuf, 0, recvcounts, rdispls, recvtype, NULL, comm,
                                        request);
    if (!rc)
        rc = faro_coll_check_alltoallv(fn, comm, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                       recvcounts, rdispls, recvtype);
    if (rc)
        return rc;
    struct faro_coll_blocks recv = faro_coll_blocks_v(recvbuf, recvcounts, rdispls, recvtype);
    struct faro_coll_blocks send = faro_coll_blocks_v(sendbuf, sendcounts, sdispls, sendtype);
    return exchange(fn, sendbuf == MPI_IN_PLACE ? NULL : &send, &recv, comm, request);
}

#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Ialltoallw";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_alltoallw(fn, 1, sendbuf, 0, sendcounts, sdispls, NULL, sendtypes,
                                        recvbuf, 0, recvcounts, rdispls, NULL, recvtypes, comm,
                                        request);
    if (!rc)
        rc = faro_coll_check_alltoallw(fn, comm, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                       recvcounts, rdispls, recvtypes);
    if (rc)
        return rc;
    struct faro_coll_blocks recv = faro_coll_blocks_w(recvbuf, recvcounts, rdispls, recvtypes);
    struct faro_coll_blocks send = faro_coll_blocks_w(sendbuf, sendcounts, sdispls, sendtypes);
    return exchange(fn, sendbuf == MPI_IN_PLACE ? NULL : &send, &recv, comm, request);
}
