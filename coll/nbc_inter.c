/*
 * Nonblocking collectives on intercommunicators (MPI-3.1 5.12 with the
 * intercommunicator rules of 5.2.2): the MPI_I* entry points hand an
 * intercommunicator here after faro_nbc_check. The arguments are checked by
 * the blocking forms' checks (inter.c, inter_reduce.c: faro_inter_*_args),
 * and the schedules (nbc_sched.h) do what the blocking algorithms do, with
 * their local steps built by the intracommunicator builders over the
 * private local communicator (faro_sched_local):
 *   barrier: local barrier, the leaders exchange a signal, local barrier
 *     (nobody finishes the second before its leader heard from the other
 *     leader, who had passed the first barrier of its group);
 *   bcast: the root sends to remote rank 0, which broadcasts locally;
 *   gather(v)/scatter(v): the root exchanges with every remote rank at once;
 *   allgather(v), alltoall(v/w): every process posts its receives from and
 *     sends to every remote rank in one round;
 *   reduce: the non-root group reduces to its rank 0, which sends to the root;
 *   allreduce: each group reduces to its rank 0, the leaders swap, each
 *     broadcasts what it got locally;
 *   reduce_scatter(_block): as allreduce, the leader scatters locally.
 * Every step of one operation uses the operation's tag, on the
 * intercommunicator and on its local communicator alike (nothing else
 * sends with nonblocking tags on the local communicator). Zero-byte blocks
 * are not sent: both ends know the size from their arguments.

 * Under FARO_COLL_CHECK each describes its call as the blocking form does
 * (collcheck.h) and the check runs as the schedule's first rounds.
 */
#include "collcheck.h"
#include "nbc_sched.h"

static size_t bytes(int count, MPI_Datatype t)
{
    return (size_t)count * t->size;
}

int faro_nbc_inter_barrier(const char *fn, MPI_Comm comm, MPI_Request *request)
{
    struct faro_cc *cc = NULL;
    int rc = FARO_COLL_CHECKING ? faro_cc_same(&cc, fn, comm, -1, MPI_OP_NULL, 0, NULL, NULL)
                                : MPI_SUCCESS;
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    faro_sched_local(s, 1);
    faro_nbc_barrier(s);
    faro_sched_local(s, 0);
    if (comm->rank == 0) {
        faro_sched_signal(s, 0);
        faro_sched_await(s, 0);
        faro_sched_round(s);
    }
    faro_sched_local(s, 1);
    faro_nbc_barrier(s);
    return faro_sched_start(s, request);
}

int faro_nbc_inter_bcast(const char *fn, void *buf, int count, MPI_Datatype type, int root,
                         MPI_Comm comm, MPI_Request *request)
{
    int role, rc = faro_inter_bcast_args(fn, comm, count, type, root, &role);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_inter_rooted(&cc, fn, comm, role, root, MPI_OP_NULL, 0, count, type, NULL);
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if (role == FARO_INTER_ROOT) {
        faro_sched_send(s, buf, count, type, 0);
    } else if (role == FARO_INTER_REMOTE && bytes(count, type) > 0) {
        if (comm->rank == 0) {
            faro_sched_recv(s, buf, count, type, root);
            faro_sched_round(s);
        }
        faro_sched_local(s, 1);
        faro_nbc_bcast(s, buf, count, type, 0);
    }
    return faro_sched_start(s, request);
}

/* For every remote rank r: receive block r of recv, send block r of send
 * (send's first block to all when same_send); one round. */
static int exchange(struct faro_sched *s, const struct faro_coll_blocks *send, int same_send,
                    const struct faro_coll_blocks *recv, MPI_Request *request)
{
    int n = faro_sched_coll(s)->comm->remote_size;
    for (int r = 0; recv && r < n; r++)
        faro_sched_recv(s, faro_coll_baddr(recv, r), faro_coll_bcount(recv, r),
                        faro_coll_btype(recv, r), r);
    for (int r = 0; send && r < n; r++) {
        int i = same_send ? 0 : r;
        faro_sched_send(s, same_send ? send->buf : faro_coll_baddr(send, r),
                        faro_coll_bcount(send, i), faro_coll_btype(send, i), r);
    }
    return faro_sched_start(s, request);
}

/* Gather (receive) or scatter: the root exchanges its blocks with every
 * remote rank; a remote process moves its one buffer (blks) with the root. */
static int rooted(const char *fn, MPI_Comm comm, int receive, int role,
                  const struct faro_coll_blocks *blks, int root, MPI_Request *request)
{
    struct faro_cc *cc = NULL;
    int rc = FARO_COLL_CHECKING ? faro_cc_inter_rooted(&cc, fn, comm, role, root, MPI_OP_NULL,
                                                       !receive, 0, NULL, blks)
                                : MPI_SUCCESS;
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if (role == FARO_INTER_ROOT)
        return exchange(s, receive ? NULL : blks, 0, receive ? blks : NULL, request);
    if (role == FARO_INTER_REMOTE && receive)
        faro_sched_send(s, blks->buf, blks->count, blks->type, root);
    else if (role == FARO_INTER_REMOTE)
        faro_sched_recv(s, blks->buf, blks->count, blks->type, root);
    return faro_sched_start(s, request);
}

int faro_nbc_inter_gatherv(const char *fn, const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           int root, MPI_Comm comm, MPI_Request *request)
{
    int role;
    struct faro_coll_blocks blks = {0};
    int rc = faro_inter_gatherv_args(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                     recvcounts, displs, recvtype, root, comm, &role, &blks);
    return rc ? rc : rooted(fn, comm, 1, role, &blks, root, request);
}

int faro_nbc_inter_scatterv(const char *fn, const void *sendbuf, int sendcount,
                            const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request)
{
    int role;
    struct faro_coll_blocks blks = {0};
    int rc = faro_inter_scatterv_args(fn, sendbuf, sendcount, sendcounts, displs, sendtype,
                                      recvbuf, recvcount, recvtype, root, comm, &role, &blks);
    return rc ? rc : rooted(fn, comm, 0, role, &blks, root, request);
}

int faro_nbc_inter_allgatherv(const char *fn, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct faro_coll_blocks send, recv;
    int rc = faro_inter_allgatherv_args(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvcounts, displs, recvtype, comm, &send, &recv);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_inter_exchange(&cc, fn, comm, &send, 1, &recv);
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    return exchange(s, &send, 1, &recv, request);
}

int faro_nbc_inter_alltoallw(const char *fn, int w, const void *sendbuf, int sendcount,
                             const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             const MPI_Datatype sendtypes[], void *recvbuf, int recvcount,
                             const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    struct faro_coll_blocks send, recv;
    int rc = faro_inter_alltoallw_args(fn, w, sendbuf, sendcount, sendcounts, sdispls, sendtype,
                                       sendtypes, recvbuf, recvcount, recvcounts, rdispls,
                                       recvtype, recvtypes, comm, &send, &recv);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_inter_exchange(&cc, fn, comm, &send, 0, &recv);
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    return exchange(s, &send, 0, &recv, request);
}

/* ---- reductions ---- */

int faro_nbc_inter_reduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                          MPI_Request *request)
{
    int role, rc = faro_inter_reduce_args(fn, sendbuf, recvbuf, count, type, op, root, comm,
                                          &role);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_inter_rooted(&cc, fn, comm, role, root, op, 0, count, type, NULL);
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if (role == FARO_INTER_ROOT) {
        faro_sched_recv(s, recvbuf, count, type, 0);
    } else if (role == FARO_INTER_REMOTE && bytes(count, type) > 0) {
        void *mine = comm->rank == 0 ? faro_sched_tmp_typed(s, (size_t)count, type) : NULL;
        faro_sched_local(s, 1);
        faro_nbc_reduce(s, sendbuf, mine, count, type, op, 0);
        faro_sched_local(s, 0);
        if (comm->rank == 0)
            faro_sched_send(s, mine, count, type, root);
    }
    return faro_sched_start(s, request);
}

/* Each group's reduction of count elements to its rank 0, swapped between
 * the leaders: the other group's lands in got at the leader. */
static void reduce_swap(struct faro_sched *s, const void *sendbuf, void *got, int count,
                        MPI_Datatype type, MPI_Op op)
{
    int leader = faro_sched_coll(s)->rank == 0;
    void *mine = leader ? faro_sched_tmp_typed(s, (size_t)count, type) : NULL;
    faro_sched_local(s, 1);
    faro_nbc_reduce(s, sendbuf, mine, count, type, op, 0);
    faro_sched_local(s, 0);
    if (leader) {
        faro_sched_recv(s, got, count, type, 0);
        faro_sched_send(s, mine, count, type, 0);
        faro_sched_round(s);
    }
}

int faro_nbc_inter_allreduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    int rc = faro_inter_allreduce_args(fn, sendbuf, recvbuf, count, type, op, comm);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(&cc, fn, comm, -1, op, count, type, NULL);
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if (bytes(count, type) > 0) {
        reduce_swap(s, sendbuf, recvbuf, count, type, op);
        faro_sched_local(s, 1);
        faro_nbc_bcast(s, recvbuf, count, type, 0);
    }
    return faro_sched_start(s, request);
}

int faro_nbc_inter_reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                                  int recvcount, const int recvcounts[], MPI_Datatype type,
                                  MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    int total, rc = faro_inter_reduce_scatter_args(fn, sendbuf, recvbuf, recvcount, recvcounts,
                                                   type, op, comm, &total);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(&cc, fn, comm, -1, op, total, type, recvcounts);
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if (bytes(total, type) == 0)
        return faro_sched_start(s, request);
    int rank = comm->rank, n = comm->size;
    void *got = rank == 0 ? faro_sched_tmp_typed(s, (size_t)total, type) : NULL;
    reduce_swap(s, sendbuf, got, total, type, op);
    faro_sched_local(s, 1);
    int mine = recvcounts ? recvcounts[rank] : recvcount;
    if (rank != 0) {
        faro_sched_recv(s, recvbuf, mine, type, 0);
        return faro_sched_start(s, request);
    }
    /* the leader's pieces of got: the block displacements are read now */
    int *displs = recvcounts ? faro_sched_tmp(s, (size_t)n * sizeof(int)) : NULL;
    for (int i = 0, at = 0; displs && i < n; i++) {
        displs[i] = at;
        at += recvcounts[i];
    }
    struct faro_coll_blocks blks = recvcounts ? faro_coll_blocks_v(got, recvcounts, displs, type)
                                              : faro_coll_blocks_uniform(got, recvcount, type);
    if (got && (!recvcounts || displs))
        faro_nbc_root_side(s, &blks, 0, recvbuf, mine, type);
    return faro_sched_start(s, request);
}
