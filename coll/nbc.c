/*
 * Nonblocking collectives that move data without combining it: MPI_Ibarrier,
 * MPI_Ibcast, MPI_Igather(v), MPI_Iscatter(v), MPI_Iallgather(v). Each entry
 * point checks its arguments with the blocking call's check (check.c), writes
 * the call's schedule (nbc_sched.h) and starts it; the algorithms are chosen for few rounds,
 * since a round can only begin when the program next enters the library.
 *  - barrier: dissemination. In round k every rank signals rank + 2^k and
 *    awaits rank - 2^k; after ceil(log2 p) rounds each rank has heard,
 *    directly or not, from every other.
 *  - bcast: binomial tree from the root. A rank receives the message from
 *    its parent in one round and sends it to all its children in the next.
 *  - gather(v) / scatter(v): linear. The root posts every receive (send) in
 *    one round and copies its own block locally; the others send (receive)
 *    one message. Everything is in flight at once.
 *  - allgather(v): ring. Each rank places its own block, then in p - 1
 *    rounds passes to its right neighbour the block it got last from its
 *    left one; the v variant works alike since every rank knows every count.
 */
#include "collcheck.h"
#include "nbc_sched.h"

static int peer_of(int vrank, int root, int size)
{
    return (vrank + root) % size;
}

void faro_nbc_barrier(struct faro_sched *s)
{
    int rank = faro_sched_coll(s)->rank, size = faro_sched_coll(s)->size;
    for (int k = 1; k < size; k <<= 1) {
        faro_sched_signal(s, (rank + k) % size);
        faro_sched_await(s, (rank - k + size) % size);
        faro_sched_round(s);
    }
}

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Ibarrier";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_barrier(fn, comm, request);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(&cc, fn, comm, -1, MPI_OP_NULL, 0, NULL, NULL);
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    faro_nbc_barrier(s);
    return faro_sched_start(s, request);
}

void faro_nbc_bcast(struct faro_sched *s, void *buf, int count, MPI_Datatype type, int root)
{
    int size = faro_sched_coll(s)->size, vr = (faro_sched_coll(s)->rank - root + size) % size;
    int mask = 1;
    for (; mask < size; mask <<= 1) {
        if (vr & mask) {
            faro_sched_recv(s, buf, count, type, peer_of(vr - mask, root, size));
            faro_sched_round(s);
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < size)
            faro_sched_send(s, buf, count, type, peer_of(vr + mask, root, size));
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Ibcast";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_bcast(fn, buf, count, type, root, comm, request);
    if (!rc)
        rc = faro_coll_check_bcast(fn, comm, buf, count, type, root);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(&cc, fn, comm, root, MPI_OP_NULL, count, type, NULL);
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    faro_nbc_bcast(s, buf, count, type, root);
    return faro_sched_start(s, request);
}

/* ---- gather / scatter ---- */

/* The root's side: one message per other rank's block, its own block copied
 * locally (own NULL: in place). receive: gather, else scatter. */
void faro_nbc_root_side(struct faro_sched *s, const struct faro_coll_blocks *blks, int receive,
                        void *own, int owncount, MPI_Datatype owntype)
{
    int rank = faro_sched_coll(s)->rank, size = faro_sched_coll(s)->size;
    char *mine = faro_coll_baddr(blks, rank);
    if (own && receive)
        faro_sched_copy(s, own, owncount, owntype, mine, faro_coll_bcount(blks, rank),
                        faro_coll_btype(blks, rank));
    else if (own)
        faro_sched_copy(s, mine, faro_coll_bcount(blks, rank), faro_coll_btype(blks, rank), own,
                        owncount, owntype);
    for (int k = 1; k < size; k++) {
        int i = (rank + k) % size;
        if (receive)
            faro_sched_recv(s, faro_coll_baddr(blks, i), faro_coll_bcount(blks, i),
                            faro_coll_btype(blks, i), i);
        else
            faro_sched_send(s, faro_coll_baddr(blks, i), faro_coll_bcount(blks, i),
                            faro_coll_btype(blks, i), i);
    }
}

/* Shared by Igather and Igatherv once the arguments are checked. */
static int gather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  const struct faro_coll_blocks *blks, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    struct faro_cc *cc = NULL;
    int rc = FARO_COLL_CHECKING
                 ? faro_cc_rooted(&cc, fn, comm, 0, sendcount,
                                  sendbuf == MPI_IN_PLACE ? NULL : sendtype, blks, root)
                 : MPI_SUCCESS;
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if (comm->rank == root)
        faro_nbc_root_side(s, blks, 1, sendbuf == MPI_IN_PLACE ? NULL : (void *)sendbuf,
                           sendcount, sendtype);
    else
        faro_sched_send(s, sendbuf, sendcount, sendtype, root);
    return faro_sched_start(s, request);
}

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Igather";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_gatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                      NULL, NULL, recvtype, root, comm, request);
    if (!rc)
        rc = faro_coll_check_gather(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                    recvtype, root);
    if (rc)
        return rc;
    int is_root = comm->rank == root;
    struct faro_coll_blocks blks =
        faro_coll_blocks_uniform(is_root ? recvbuf : NULL, recvcount, is_root ? recvtype : NULL);
    return gather(fn, sendbuf, sendcount, sendtype, &blks, root, comm, request);
}

#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Igatherv";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_gatherv(fn, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                                      displs, recvtype, root, comm, request);
    if (!rc)
        rc = faro_coll_check_gatherv(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                     displs, recvtype, root);
    if (rc)
        return rc;
    int is_root = comm->rank == root;
    struct faro_coll_blocks blks = faro_coll_blocks_v(is_root ? recvbuf : NULL, recvcounts,
                                                      displs, is_root ? recvtype : NULL);
    return gather(fn, sendbuf, sendcount, sendtype, &blks, root, comm, request);
}

static int scatter(const char *fn, const struct faro_coll_blocks *blks, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    struct faro_cc *cc = NULL;
    int rc = FARO_COLL_CHECKING
                 ? faro_cc_rooted(&cc, fn, comm, 1, recvcount,
                                  recvbuf == MPI_IN_PLACE ? NULL : recvtype, blks, root)
                 : MPI_SUCCESS;
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if (comm->rank == root)
        faro_nbc_root_side(s, blks, 0, recvbuf == MPI_IN_PLACE ? NULL : recvbuf, recvcount,
                           recvtype);
    else
        faro_sched_recv(s, recvbuf, recvcount, recvtype, root);
    return faro_sched_start(s, request);
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Iscatter";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_scatterv(fn, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                                       recvcount, recvtype, root, comm, request);
    if (!rc)
        rc = faro_coll_check_scatter(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                     recvtype, root);
    if (rc)
        return rc;
    int is_root = comm->rank == root;
    struct faro_coll_blocks blks =
        faro_coll_blocks_uniform(is_root ? sendbuf : NULL, sendcount, is_root ? sendtype : NULL);
    return scatter(fn, &blks, recvbuf, recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Iscatterv";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_scatterv(fn, sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                                       recvcount, recvtype, root, comm, request);
    if (!rc)
        rc = faro_coll_check_scatterv(fn, comm, sendbuf, sendcounts, displs, sendtype, recvbuf,
                                      recvcount, recvtype, root);
    if (rc)
        return rc;
    int is_root = comm->rank == root;
    struct faro_coll_blocks blks = faro_coll_blocks_v(is_root ? sendbuf : NULL, sendcounts,
                                                      displs, is_root ? sendtype : NULL);
    return scatter(fn, &blks, recvbuf, recvcount, recvtype, root, comm, request);
}

/* ---- allgather ---- */

static int allgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     const struct faro_coll_blocks *blks, MPI_Comm comm, MPI_Request *request)
{
    struct faro_cc *cc = NULL;
    int rc = FARO_COLL_CHECKING
                 ? faro_cc_allgather(&cc, fn, comm, sendcount,
                                     sendbuf == MPI_IN_PLACE ? NULL : sendtype, blks)
                 : MPI_SUCCESS;
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    int rank = comm->rank, size = comm->size;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    if (sendbuf != MPI_IN_PLACE)
        faro_sched_copy(s, sendbuf, sendcount, sendtype, faro_coll_baddr(blks, rank),
                        faro_coll_bcount(blks, rank), faro_coll_btype(blks, rank));
    for (int k = 0; k < size - 1; k++) {
        int out = (rank - k + size) % size, in = (rank - k - 1 + size) % size;
        faro_sched_send(s, faro_coll_baddr(blks, out), faro_coll_bcount(blks, out),
                        faro_coll_btype(blks, out), right);
        faro_sched_recv(s, faro_coll_baddr(blks, in), faro_coll_bcount(blks, in),
                        faro_coll_btype(blks, in), left);
        faro_sched_round(s);
    }
    return faro_sched_start(s, request);
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Iallgather";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                         NULL, NULL, recvtype, comm, request);
    if (!rc)
        rc = faro_coll_check_allgather(fn, comm, sendbuf, sendcount, sendtype, recvbuf,
                                       recvcount, recvtype);
    if (rc)
        return rc;
    struct faro_coll_blocks blks = faro_coll_blocks_uniform(recvbuf, recvcount, recvtype);
    return allgather(fn, sendbuf, sendcount, sendtype, &blks, comm, request);
}

#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Iallgatherv";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, 0,
                                         recvcounts, displs, recvtype, comm, request);
    if (!rc)
        rc = faro_coll_check_allgatherv(fn, comm, sendbuf, sendcount, sendtype, recvbuf,
                                        recvcounts, displs, recvtype);
    if (rc)
        return rc;
    struct faro_coll_blocks blks = faro_coll_blocks_v(recvbuf, recvcounts, displs, recvtype);
    return allgather(fn, sendbuf, sendcount, sendtype, &blks, comm, request);
}
