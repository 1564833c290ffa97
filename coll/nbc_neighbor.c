/*
 * MPI_Ineighbor_allgather(v) and MPI_Ineighbor_alltoall(v,w). The checks and
 * the neighbour lists are the blocking calls' (neighbor.c, which also says
 * which block goes where); the schedule is one round holding every message
 * in the order faro_nbrs_post gives, receives first. Posting everything in
 * round 0 leaves nothing for later rounds, so the whole exchange progresses
 * while the program computes.
 */
#include "collcheck.h"
#include "nbc_sched.h"

static int post_step(void *ctx, int recv, void *buf, int count, MPI_Datatype t, int peer)
{
    struct faro_sched *s = ctx;
    /* out of memory marks the schedule failed; faro_sched_start reports it */
    if (recv)
        faro_sched_recv(s, buf, count, t, peer);
    else
        faro_sched_send(s, buf, count, t, peer);
    return MPI_SUCCESS;
}

int faro_nbrs_schedule(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                       const struct faro_coll_blocks *send, int same_block,
                       const struct faro_coll_blocks *recv, MPI_Request *request)
{
    struct faro_cc *cc = NULL;
    int rc = FARO_COLL_CHECKING ? faro_cc_neighbor(&cc, fn, comm, n, send, same_block, recv)
                                : MPI_SUCCESS;
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    faro_nbrs_post(n, send, same_block, recv, post_step, s);
    return faro_sched_start(s, request);
}

#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    FARO_LOCKED;
    return faro_neighbor_uniform("MPI_Ineighbor_allgather", 1, sendbuf, sendcount, sendtype,
                                 recvbuf, recvcount, recvtype, comm, 1, request);
}

#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    return faro_neighbor_allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype,
                                    recvbuf, recvcounts, displs, recvtype, comm, 1, request);
}

#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    FARO_LOCKED;
    return faro_neighbor_uniform("MPI_Ineighbor_alltoall", 0, sendbuf, sendcount, sendtype,
                                 recvbuf, recvcount, recvtype, comm, 1, request);
}

#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    FARO_LOCKED;
    return faro_neighbor_alltoallv("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, sdispls,
                                   sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, 1,
                                   request);
}

#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    return faro_neighbor_alltoallw("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls,
                                   sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, 1,
                                   request);
}
