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
#include <stdio.h>

#include "nbc_sched.h"

static int exchange(const char *fn, const struct faro_coll_blocks *send,
                    const struct faro_coll_blocks *recv, MPI_Comm comm, MPI_Request *request)
{
    struct faro_sched *s = faro_sched_new(comm, fn);
    if (!s)
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for the schedule", fn);
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
    if (!rc)
        rc = faro_coll_check_buf(fn, comm, recvcount, recvtype, "recv");
    if (!rc && sendbuf != MPI_IN_PLACE)
        rc = faro_coll_check_buf(fn, comm, sendcount, sendtype, "send");
    if (rc)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf");
    if (sendbuf == recvbuf && (size_t)recvcount * recvtype->size > 0)
        return faro_coll_err_alias(fn, comm);
    struct faro_coll_blocks recv = faro_coll_blocks_uniform(recvbuf, recvcount, recvtype);
    struct faro_coll_blocks send = faro_coll_blocks_uniform(sendbuf, sendcount, sendtype);
    return exchange(fn, sendbuf == MPI_IN_PLACE ? NULL : &send, &recv, comm, request);
}

static int check_v(const char *fn, MPI_Comm comm, const int *counts, const void *displs,
                   const char *side)
{
    char what[16];
    snprintf(what, sizeof what, "%scounts", side);
    int rc = faro_coll_check_counts(fn, comm, counts, comm->size, what);
    if (!rc && !displs)
        rc = faro_err(comm, MPI_ERR_ARG, "%s: %sdispls is NULL (an array of %d displacements)",
                      fn, side, comm->size);
    return rc;
}

/* Programs (mpi4py among them) pass the same pointer for empty buffers:
 * aliasing is an error only where data moves. */
static int moves_bytes(const int counts[], MPI_Datatype type, const MPI_Datatype types[], int n)
{
    for (int i = 0; i < n; i++)
        if (counts[i] > 0 && (types ? types[i] : type)->size > 0)
            return 1;
    return 0;
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
    if (!rc)
        rc = check_v(fn, comm, recvcounts, rdispls, "recv");
    if (!rc)
        rc = faro_coll_check_type(fn, comm, recvtype, "recvtype");
    if (!rc && sendbuf != MPI_IN_PLACE)
        rc = check_v(fn, comm, sendcounts, sdispls, "send");
    if (!rc && sendbuf != MPI_IN_PLACE)
        rc = faro_coll_check_type(fn, comm, sendtype, "sendtype");
    if (rc)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf");
    if (sendbuf == recvbuf && sendbuf && moves_bytes(sendcounts, sendtype, NULL, comm->size) &&
        moves_bytes(recvcounts, recvtype, NULL, comm->size))
        return faro_coll_err_alias(fn, comm);
    struct faro_coll_blocks recv = faro_coll_blocks_v(recvbuf, recvcounts, rdispls, recvtype);
    struct faro_coll_blocks send = faro_coll_blocks_v(sendbuf, sendcounts, sdispls, sendtype);
    return exchange(fn, sendbuf == MPI_IN_PLACE ? NULL : &send, &recv, comm, request);
}

static int check_types(const char *fn, MPI_Comm comm, MPI_Datatype const *types,
                       const char *side)
{
    if (!types)
        return faro_err(comm, MPI_ERR_ARG, "%s: %stypes is NULL (an array of %d datatypes)", fn,
                        side, comm->size);
    for (int i = 0; i < comm->size; i++)
        if (faro_type_check(types[i]))
            return faro_err(comm, MPI_ERR_TYPE, "%s: %stypes[%d] %s", fn, side, i,
                            types[i] == MPI_DATATYPE_NULL
                                ? "is MPI_DATATYPE_NULL"
                                : "is not a committed datatype (MPI_Type_commit)");
    return MPI_SUCCESS;
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
    if (!rc)
        rc = check_v(fn, comm, recvcounts, rdispls, "recv");
    if (!rc)
        rc = check_types(fn, comm, recvtypes, "recv");
    if (!rc && sendbuf != MPI_IN_PLACE)
        rc = check_v(fn, comm, sendcounts, sdispls, "send");
    if (!rc && sendbuf != MPI_IN_PLACE)
        rc = check_types(fn, comm, sendtypes, "send");
    if (rc)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf");
    if (sendbuf == recvbuf && sendbuf && moves_bytes(sendcounts, NULL, sendtypes, comm->size) &&
        moves_bytes(recvcounts, NULL, recvtypes, comm->size))
        return faro_coll_err_alias(fn, comm);
    struct faro_coll_blocks recv = faro_coll_blocks_w(recvbuf, recvcounts, rdispls, recvtypes);
    struct faro_coll_blocks send = faro_coll_blocks_w(sendbuf, sendcounts, sdispls, sendtypes);
    return exchange(fn, sendbuf == MPI_IN_PLACE ? NULL : &send, &recv, comm, request);
}
