/*
 * Collectives on intercommunicators (MPI-3.1 5.2.2): the data-movement ones.
 * The MPI entry points check the communicator and hand intercommunicators
 * here; reductions are in inter_reduce.c.
 *
 * Roots: in the group that holds the root, the root passes MPI_ROOT and the
 * others MPI_PROC_NULL (they take no part); the other group passes the root's
 * rank in the remote group. Data flows from one group to the other.
 *
 * Algorithms, built from the private local intracommunicator's collectives
 * (comm->local, its own context) and point-to-point on the intercommunicator
 * with the internal tags FARO_COLL_TAG_INTER_*:
 *   barrier: local barrier, leaders exchange, local barrier;
 *   bcast: the root sends to remote rank 0, which broadcasts locally;
 *   gather(v)/scatter(v): the root exchanges with every remote rank directly;
 *   allgather(v), alltoall(v/w): every process exchanges with every remote
 *   rank directly, all receives and sends posted at once.
 * MPI_IN_PLACE is not defined on intercommunicators: MPI_ERR_BUFFER.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bigcount/wide.h"
#include "collcheck.h"

int faro_inter_role(const char *fn, MPI_Comm comm, int root, int *rc)
{
    *rc = MPI_SUCCESS;
    if (root == MPI_ROOT)
        return FARO_INTER_ROOT;
    if (root == MPI_PROC_NULL)
        return FARO_INTER_IDLE;
    if (root >= 0 && root < comm->remote_size)
        return FARO_INTER_REMOTE;
    *rc = faro_err(comm, MPI_ERR_ROOT,
                   "%s: root %d is invalid on an intercommunicator (MPI_ROOT at the root, "
                   "MPI_PROC_NULL at the others of its group, 0..%d in the remote group)", fn,
                   root, comm->remote_size - 1);
    return -1;
}

int faro_inter_no_in_place(const char *fn, MPI_Comm comm)
{
    return faro_err(comm, MPI_ERR_BUFFER,
                    "%s: MPI_IN_PLACE is not defined on an intercommunicator", fn);
}

static int no_mem(const char *fn, MPI_Comm comm)
{
    return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
}

static size_t bytes(MPI_Count count, MPI_Datatype t)
{
    return (size_t)count * t->size;
}

/* ---- barrier, bcast ---- */

int faro_inter_barrier(MPI_Comm comm)
{
    static const char fn[] = "MPI_Barrier";
    /* nobody leaves the second local barrier before its leader heard from
     * the remote leader, who had passed the first local barrier of its side */
    int rc = FARO_COLL_CHECKING ? faro_cc_same(NULL, fn, comm, -1, MPI_OP_NULL, 0, NULL, NULL)
                                : MPI_SUCCESS;
    if (!rc)
        rc = PMPI_Barrier(comm->local);
    if (!rc && comm->rank == 0)
        rc = faro_coll_sendrecv(fn, NULL, 0, MPI_BYTE, 0, NULL, 0, MPI_BYTE, 0,
                                FARO_COLL_TAG_INTER_BARRIER, comm, MPI_STATUS_IGNORE);
    if (!rc)
        rc = PMPI_Barrier(comm->local);
    return rc;
}

int faro_inter_bcast_args(const char *fn, MPI_Comm comm, MPI_Count count, MPI_Datatype type,
                          int root, int *role)
{
    int rc;
    *role = faro_inter_role(fn, comm, root, &rc);
    if (*role < 0 || *role == FARO_INTER_IDLE)
        return rc;
    return faro_coll_check_buf(fn, comm, count, type, "");
}

int faro_inter_bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int root,
                     MPI_Comm comm)
{
    int role, rc = faro_inter_bcast_args(fn, comm, count, type, root, &role);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_inter_rooted(NULL, fn, comm, role, root, MPI_OP_NULL, 0, count, type, NULL);
    if (rc || role == FARO_INTER_IDLE || bytes(count, type) == 0)
        return rc;
    if (role == FARO_INTER_ROOT)
        return faro_coll_send(fn, buf, count, type, 0, FARO_COLL_TAG_INTER_BCAST, comm);
    if (comm->rank == 0)
        rc = faro_coll_recv(fn, buf, count, type, root, FARO_COLL_TAG_INTER_BCAST, comm,
                            MPI_STATUS_IGNORE);
    return rc ? rc : faro_wide_Bcast(fn, buf, count, type, 0, comm->local);
}

/* ---- exchanges with every remote rank ---- */

/* For every remote rank r: send block r of send (all of send's first block
 * when same_send) and receive block r of recv; a side of zero bytes is not
 * posted (both ends know the size from their arguments). */
static int exchange(const char *fn, MPI_Comm comm, int tag, const struct faro_coll_blocks *send,
                    int same_send, const struct faro_coll_blocks *recv)
{
    int n = comm->remote_size;
    MPI_Request stack[2 * FARO_COLL_WINDOW];
    MPI_Request *reqs = n <= FARO_COLL_WINDOW ? stack : malloc((size_t)n * 2 * sizeof *reqs);
    if (!reqs)
        return no_mem(fn, comm);
    int k = 0, rc = MPI_SUCCESS;
    for (int r = 0; r < n && !rc; r++) {
        if (recv) {
            int cnt = faro_coll_bcount(recv, r);
            MPI_Datatype t = faro_coll_btype(recv, r);
            if (bytes(cnt, t) && !(rc = faro_coll_irecv(fn, faro_coll_baddr(recv, r), cnt, t, r,
                                                        tag, comm, &reqs[k])))
                k++;
        }
        if (send && !rc) {
            int i = same_send ? 0 : r;
            int cnt = faro_coll_bcount(send, i);
            MPI_Datatype t = faro_coll_btype(send, i);
            char *addr = same_send ? send->buf : faro_coll_baddr(send, r);
            if (bytes(cnt, t) && !(rc = faro_coll_isend(fn, addr, cnt, t, r, tag, comm, &reqs[k])))
                k++;
        }
    }
    int wrc = faro_coll_waitall(k, reqs);
    if (reqs != stack)
        free(reqs);
    return rc ? rc : wrc;
}

/* ---- gather(v), scatter(v) ---- */

static int check_v(const char *fn, MPI_Comm comm, MPI_Datatype type, const char *typename,
                   const int counts[], const char *countsname, const int displs[])
{
    int rc = faro_coll_check_type(fn, comm, type, typename);
    if (!rc)
        rc = faro_coll_check_counts(fn, comm, counts, comm->remote_size, countsname);
    if (!rc && !displs)
        rc = faro_err(comm, MPI_ERR_ARG, "%s: displs is NULL (an array of %d displacements)", fn,
                      comm->remote_size);
    return rc;
}

/* The root's blocks (v when counts, else uniform), or at a remote process
 * its one buffer; IDLE: nothing. side: "send" or "recv" (the root's). */
static int rooted_args(const char *fn, MPI_Comm comm, int root, const char *side,
                       const void *rootbuf, int rootcount, const int counts[], const int displs[],
                       MPI_Datatype roottype, const void *buf, int count, MPI_Datatype type,
                       int *role, struct faro_coll_blocks *blks)
{
    int rc;
    char what[16];
    *role = faro_inter_role(fn, comm, root, &rc);
    if (*role < 0 || *role == FARO_INTER_IDLE)
        return rc;
    int remote = *role == FARO_INTER_REMOTE;
    if ((remote ? buf : rootbuf) == MPI_IN_PLACE)
        return faro_inter_no_in_place(fn, comm);
    const char *other = side[0] == 's' ? "recv" : "send";
    if (remote) {
        *blks = faro_coll_blocks_uniform(buf, count, type);
        return faro_coll_check_buf(fn, comm, count, type, other);
    }
    if (counts) {
        char cname[16];
        snprintf(what, sizeof what, "%stype", side);
        snprintf(cname, sizeof cname, "%scounts", side);
        *blks = faro_coll_blocks_v(rootbuf, counts, displs, roottype);
        return check_v(fn, comm, roottype, what, counts, cname, displs);
    }
    *blks = faro_coll_blocks_uniform(rootbuf, rootcount, roottype);
    return faro_coll_check_buf(fn, comm, rootcount, roottype, side);
}

int faro_inter_gatherv_args(const char *fn, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                            int root, MPI_Comm comm, int *role, struct faro_coll_blocks *blks)
{
    return rooted_args(fn, comm, root, "recv", recvbuf, recvcount, recvcounts, displs, recvtype,
                       sendbuf, sendcount, sendtype, role, blks);
}

/* Gather (receive) or scatter: the root exchanges its blocks with every
 * remote rank; a remote process moves its one buffer (blks) with the root. */
static int rooted(const char *fn, MPI_Comm comm, int receive, int tag, int role,
                  const struct faro_coll_blocks *blks, int root)
{
    if (role == FARO_INTER_ROOT)
        return exchange(fn, comm, tag, receive ? NULL : blks, 0, receive ? blks : NULL);
    if (role == FARO_INTER_IDLE || bytes(blks->count, blks->type) == 0)
        return MPI_SUCCESS;
    if (receive)
        return faro_coll_send(fn, blks->buf, blks->count, blks->type, root, tag, comm);
    return faro_coll_recv(fn, blks->buf, blks->count, blks->type, root, tag, comm,
                          MPI_STATUS_IGNORE);
}

int faro_inter_gatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, const int recvcounts[], const int displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int role;
    struct faro_coll_blocks blks = {0};
    int rc = faro_inter_gatherv_args(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                     recvcounts, displs, recvtype, root, comm, &role, &blks);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_inter_rooted(NULL, fn, comm, role, root, MPI_OP_NULL, 0, 0, NULL, &blks);
    return rc ? rc : rooted(fn, comm, 1, FARO_COLL_TAG_INTER_GATHER, role, &blks, root);
}

int faro_inter_scatterv_args(const char *fn, const void *sendbuf, int sendcount,
                             const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, int *role, struct faro_coll_blocks *blks)
{
    return rooted_args(fn, comm, root, "send", sendbuf, sendcount, sendcounts, displs, sendtype,
                       recvbuf, recvcount, recvtype, role, blks);
}

int faro_inter_scatterv(const char *fn, const void *sendbuf, int sendcount,
                        const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm)
{
    int role;
    struct faro_coll_blocks blks = {0};
    int rc = faro_inter_scatterv_args(fn, sendbuf, sendcount, sendcounts, displs, sendtype,
                                      recvbuf, recvcount, recvtype, root, comm, &role, &blks);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_inter_rooted(NULL, fn, comm, role, root, MPI_OP_NULL, 1, 0, NULL, &blks);
    return rc ? rc : rooted(fn, comm, 0, FARO_COLL_TAG_INTER_SCATTER, role, &blks, root);
}

/* ---- allgather(v), alltoall(v/w) ---- */

int faro_inter_allgatherv_args(const char *fn, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm,
                               struct faro_coll_blocks *send, struct faro_coll_blocks *recv)
{
    if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
        return faro_inter_no_in_place(fn, comm);
    int rc = faro_coll_check_buf(fn, comm, sendcount, sendtype, "send");
    if (rc)
        return rc;
    *send = faro_coll_blocks_uniform(sendbuf, sendcount, sendtype);
    if (recvcounts) {
        *recv = faro_coll_blocks_v(recvbuf, recvcounts, displs, recvtype);
        return check_v(fn, comm, recvtype, "recvtype", recvcounts, "recvcounts", displs);
    }
    *recv = faro_coll_blocks_uniform(recvbuf, recvcount, recvtype);
    return faro_coll_check_buf(fn, comm, recvcount, recvtype, "recv");
}

int faro_inter_allgatherv(const char *fn, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                          MPI_Comm comm)
{
    struct faro_coll_blocks send, recv;
    int rc = faro_inter_allgatherv_args(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvcounts, displs, recvtype, comm, &send, &recv);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_inter_exchange(NULL, fn, comm, &send, 1, &recv);
    return rc ? rc : exchange(fn, comm, FARO_COLL_TAG_INTER_ALLGATHER, &send, 1, &recv);
}

/* The blocks of one side of an alltoall: uniform (counts NULL), v (types
 * NULL) or w (types[], displacements in bytes). */
static int alltoall_side(const char *fn, MPI_Comm comm, const char *side, const void *buf,
                         int count, const int counts[], const int displs[], MPI_Datatype type,
                         const MPI_Datatype types[], int w, struct faro_coll_blocks *b)
{
    char what[32];
    int n = comm->remote_size, rc;
    if (buf == MPI_IN_PLACE)
        return faro_inter_no_in_place(fn, comm);
    if (!counts) {
        *b = faro_coll_blocks_uniform(buf, count, type);
        return faro_coll_check_buf(fn, comm, count, type, side);
    }
    snprintf(what, sizeof what, "%scounts", side);
    rc = faro_coll_check_counts(fn, comm, counts, n, what);
    if (!rc && !displs && n > 0)
        rc = faro_err(comm, MPI_ERR_ARG, "%s: %sdispls is NULL (an array of %d displacements)",
                      fn, side, n);
    if (rc)
        return rc;
    if (!w) {
        snprintf(what, sizeof what, "%stype", side);
        *b = faro_coll_blocks_v(buf, counts, displs, type);
        return faro_coll_check_type(fn, comm, type, what);
    }
    if (n > 0 && !types)
        return faro_err(comm, MPI_ERR_ARG, "%s: %stypes is NULL (an array of %d datatypes)", fn,
                        side, n);
    for (int i = 0; i < n; i++) {
        snprintf(what, sizeof what, "%stypes[%d]", side, i);
        rc = faro_coll_check_type(fn, comm, types[i], what);
        if (rc)
            return rc;
    }
    *b = faro_coll_blocks_w(buf, counts, displs, types);
    return MPI_SUCCESS;
}

int faro_inter_alltoallw_args(const char *fn, int w, const void *sendbuf, int sendcount,
                              const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, const MPI_Datatype sendtypes[],
                              void *recvbuf, int recvcount, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype,
                              const MPI_Datatype recvtypes[], MPI_Comm comm,
                              struct faro_coll_blocks *send, struct faro_coll_blocks *recv)
{
    int rc = alltoall_side(fn, comm, "send", sendbuf, sendcount, sendcounts, sdispls, sendtype,
                           sendtypes, w, send);
    return rc ? rc : alltoall_side(fn, comm, "recv", recvbuf, recvcount, recvcounts, rdispls,
                                   recvtype, recvtypes, w, recv);
}

int faro_inter_alltoallw(const char *fn, int w, const void *sendbuf, int sendcount,
                         const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         const MPI_Datatype sendtypes[], void *recvbuf, int recvcount,
                         const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    struct faro_coll_blocks send, recv;
    int rc = faro_inter_alltoallw_args(fn, w, sendbuf, sendcount, sendcounts, sdispls, sendtype,
                                       sendtypes, recvbuf, recvcount, recvcounts, rdispls,
                                       recvtype, recvtypes, comm, &send, &recv);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_inter_exchange(NULL, fn, comm, &send, 0, &recv);
    return rc ? rc : exchange(fn, comm, FARO_COLL_TAG_INTER_ALLTOALL, &send, 0, &recv);
}
