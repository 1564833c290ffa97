/*
 * Argument checks shared by the collective entry points. Each raises its
 * error on the communicator (its errhandler decides) with a message naming
 * the function, the bad value and what is allowed.
 */
#include <stdio.h>

#include "coll.h"

int faro_coll_check_comm(const char *fn, MPI_Comm comm)
{
    if (!faro.initialized || faro.finalized)
        faro_fatal(MPI_ERR_OTHER, "%s called %s", fn,
                   faro.finalized ? "after MPI_Finalize" : "before MPI_Init");
    if (faro_comm_check(comm))
        return faro_comm_bad(fn, comm);
    return MPI_SUCCESS;
}

int faro_coll_check_count(const char *fn, MPI_Comm comm, MPI_Count count, const char *what)
{
    if (count < 0)
        return faro_err(comm, MPI_ERR_COUNT, "%s: %s %lld is negative (0 or more)", fn, what,
                        (long long)count);
    return MPI_SUCCESS;
}

int faro_coll_check_type(const char *fn, MPI_Comm comm, MPI_Datatype t, const char *what)
{
    if (!faro_type_check(t))
        return MPI_SUCCESS;
    if (t == MPI_DATATYPE_NULL)
        return faro_err(comm, MPI_ERR_TYPE, "%s: %s is MPI_DATATYPE_NULL", fn, what);
    if (faro_type_valid(t))
        return faro_err(comm, MPI_ERR_TYPE,
                        "%s: %s is not a datatype (uninitialised, or freed with MPI_Type_free?)",
                        fn, what);
    return faro_err(comm, MPI_ERR_TYPE,
                    "%s: %s is not committed (call MPI_Type_commit before using it in "
                    "communication)",
                    fn, what);
}

int faro_coll_check_buf(const char *fn, MPI_Comm comm, MPI_Count count, MPI_Datatype t,
                        const char *what)
{
    if (count >= 0 && !faro_type_check(t)) /* the common case: no names to build */
        return MPI_SUCCESS;
    char name[32];
    snprintf(name, sizeof name, "%scount", what);
    int rc = faro_coll_check_count(fn, comm, count, name);
    if (rc)
        return rc;
    snprintf(name, sizeof name, "%stype", what);
    return faro_coll_check_type(fn, comm, t, name);
}

int faro_coll_check_root(const char *fn, MPI_Comm comm, int root)
{
    if (root < 0 || root >= comm->size)
        return faro_err(comm, MPI_ERR_ROOT, "%s: root %d is invalid (communicator size %d: 0..%d)",
                        fn, root, comm->size, comm->size - 1);
    return MPI_SUCCESS;
}

int faro_coll_check_op(const char *fn, MPI_Comm comm, MPI_Op op, MPI_Datatype t)
{
    if (op == MPI_OP_NULL)
        return faro_err(comm, MPI_ERR_OP, "%s: op is MPI_OP_NULL", fn);
    char msg[256];
    msg[0] = '\0';
    int cls = faro_op_valid(op, t, msg, sizeof msg);
    if (cls)
        return faro_err(comm, cls, "%s: %s", fn, msg[0] ? msg : "invalid op for this datatype");
    return MPI_SUCCESS;
}

int faro_coll_check_reduction(const char *fn, MPI_Comm comm, const void *sendbuf,
                              const void *recvbuf, int count, MPI_Datatype type, MPI_Op op)
{
    int rc = faro_coll_check_buf(fn, comm, count, type, "");
    if (!rc)
        rc = faro_coll_check_op(fn, comm, op, type);
    if (rc)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf");
    if (sendbuf == recvbuf && (size_t)count * type->size > 0)
        return faro_coll_err_alias(fn, comm);
    return MPI_SUCCESS;
}

int faro_coll_check_counts(const char *fn, MPI_Comm comm, const int *counts, int n,
                           const char *what)
{
    if (!counts && n > 0)
        return faro_err(comm, MPI_ERR_ARG, "%s: %s is NULL (an array of %d counts)", fn, what, n);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return faro_err(comm, MPI_ERR_COUNT, "%s: %s[%d] = %d is negative (0 or more)", fn,
                            what, i, counts[i]);
    return MPI_SUCCESS;
}

/* counts[0..n) present and >= 0: the fast path ahead of the named checks */
static int counts_ok(const int *counts, int n)
{
    if (!counts)
        return n <= 0;
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return 0;
    return 1;
}

int faro_coll_err_in_place(const char *fn, MPI_Comm comm, const char *which)
{
    return faro_err(comm, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed as %s", fn, which);
}

int faro_coll_err_alias(const char *fn, MPI_Comm comm)
{
    return faro_err(comm, MPI_ERR_BUFFER,
                    "%s: sendbuf and recvbuf are the same buffer (pass MPI_IN_PLACE as sendbuf "
                    "for an in-place operation)",
                    fn);
}

/* ---- the data-moving collectives: one check per call, shared by the
 * blocking and the nonblocking entry point (the communicator, and for the
 * nonblocking ones the request, are checked before) ---- */

/* displs: an array of n displacements (int or MPI_Aint; only its presence
 * is checked: any value is legal) */
static int check_displs(const char *fn, MPI_Comm comm, const void *displs, int n,
                        const char *what)
{
    if (!displs && n > 0)
        return faro_err(comm, MPI_ERR_ARG, "%s: %s is NULL (an array of %d displacements)", fn,
                        what, n);
    return MPI_SUCCESS;
}

/* Gather(v) and Scatter(v) are mirror images: the leaf side (gather's send,
 * scatter's receive) is on every rank but may be MPI_IN_PLACE at the root;
 * the root side (gather's receive, scatter's send) is checked at the root
 * only: one count and type, or (vector) counts, displs and a type. The
 * names say which side is which in the messages. */
struct rooted_side {
    const void *buf;
    int count;
    const int *counts, *displs;
    MPI_Datatype type;
    const char *name; /* "send" or "recv" */
};

static int check_rooted(const char *fn, MPI_Comm comm, const struct rooted_side *leaf,
                        const struct rooted_side *top, int vector, int root)
{
    char what[48];
    int rc = faro_coll_check_root(fn, comm, root);
    if (rc)
        return rc;
    if (leaf->buf == MPI_IN_PLACE) {
        if (comm->rank != root) {
            snprintf(what, sizeof what, "%sbuf on a rank other than the root", leaf->name);
            return faro_coll_err_in_place(fn, comm, what);
        }
    } else if ((rc = faro_coll_check_buf(fn, comm, leaf->count, leaf->type, leaf->name))) {
        return rc;
    }
    if (comm->rank != root)
        return MPI_SUCCESS;
    if (!vector) {
        rc = faro_coll_check_buf(fn, comm, top->count, top->type, top->name);
    } else {
        if (faro_type_check(top->type)) {
            snprintf(what, sizeof what, "%stype", top->name);
            rc = faro_coll_check_type(fn, comm, top->type, what);
        }
        if (!rc && !counts_ok(top->counts, comm->size)) {
            snprintf(what, sizeof what, "%scounts", top->name);
            rc = faro_coll_check_counts(fn, comm, top->counts, comm->size, what);
        }
        if (!rc)
            rc = check_displs(fn, comm, top->displs, comm->size, "displs");
    }
    if (rc)
        return rc;
    if (top->buf == MPI_IN_PLACE) {
        snprintf(what, sizeof what, "%sbuf", top->name);
        return faro_coll_err_in_place(fn, comm, what);
    }
    if (leaf->buf != top->buf)
        return MPI_SUCCESS;
    /* aliasing matters where bytes move: uniform blocks are sized on the
     * root's side, vector ones by the leaf's own block */
    int moves = vector ? leaf->buf && (size_t)leaf->count * leaf->type->size > 0
                       : (size_t)top->count * top->type->size > 0;
    return moves ? faro_coll_err_alias(fn, comm) : MPI_SUCCESS;
}

int faro_coll_check_gather(const char *fn, MPI_Comm comm, const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root)
{
    struct rooted_side leaf = {sendbuf, sendcount, NULL, NULL, sendtype, "send"};
    struct rooted_side top = {recvbuf, recvcount, NULL, NULL, recvtype, "recv"};
    return check_rooted(fn, comm, &leaf, &top, 0, root);
}

int faro_coll_check_gatherv(const char *fn, MPI_Comm comm, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, const void *recvbuf, const int recvcounts[],
                            const int displs[], MPI_Datatype recvtype, int root)
{
    struct rooted_side leaf = {sendbuf, sendcount, NULL, NULL, sendtype, "send"};
    struct rooted_side top = {recvbuf, 0, recvcounts, displs, recvtype, "recv"};
    return check_rooted(fn, comm, &leaf, &top, 1, root);
}

int faro_coll_check_scatter(const char *fn, MPI_Comm comm, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root)
{
    struct rooted_side leaf = {recvbuf, recvcount, NULL, NULL, recvtype, "recv"};
    struct rooted_side top = {sendbuf, sendcount, NULL, NULL, sendtype, "send"};
    return check_rooted(fn, comm, &leaf, &top, 0, root);
}

int faro_coll_check_scatterv(const char *fn, MPI_Comm comm, const void *sendbuf,
                             const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                             const void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    struct rooted_side leaf = {recvbuf, recvcount, NULL, NULL, recvtype, "recv"};
    struct rooted_side top = {sendbuf, 0, sendcounts, displs, sendtype, "send"};
    return check_rooted(fn, comm, &leaf, &top, 1, root);
}

int faro_coll_check_bcast(const char *fn, MPI_Comm comm, const void *buf, MPI_Count count,
                          MPI_Datatype type, int root)
{
    int rc = faro_coll_check_buf(fn, comm, count, type, "");
    if (!rc)
        rc = faro_coll_check_root(fn, comm, root);
    if (!rc && buf == MPI_IN_PLACE)
        rc = faro_coll_err_in_place(fn, comm, "the buffer");
    return rc;
}

int faro_coll_check_reduce(const char *fn, MPI_Comm comm, const void *sendbuf,
                           const void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                           int root)
{
    int rc = faro_coll_check_root(fn, comm, root);
    if (!rc)
        rc = faro_coll_check_buf(fn, comm, count, type, "");
    if (!rc)
        rc = faro_coll_check_op(fn, comm, op, type);
    if (rc)
        return rc;
    int is_root = comm->rank == root;
    if (sendbuf == MPI_IN_PLACE && !is_root)
        return faro_coll_err_in_place(fn, comm, "sendbuf on a rank other than the root");
    if (is_root && recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf");
    if (is_root && sendbuf == recvbuf && (size_t)count * type->size > 0)
        return faro_coll_err_alias(fn, comm);
    return MPI_SUCCESS;
}

/* Allgather(v): the send side unless in place, and no alias of recvbuf. */
static int check_allgather_send(const char *fn, MPI_Comm comm, const void *sendbuf,
                                int sendcount, MPI_Datatype sendtype, const void *recvbuf)
{
    if (sendbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    int rc = faro_coll_check_buf(fn, comm, sendcount, sendtype, "send");
    if (!rc && sendbuf == recvbuf && sendbuf && (size_t)sendcount * sendtype->size > 0)
        rc = faro_coll_err_alias(fn, comm);
    return rc;
}

int faro_coll_check_allgather(const char *fn, MPI_Comm comm, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                              MPI_Datatype recvtype)
{
    int rc = faro_coll_check_buf(fn, comm, recvcount, recvtype, "recv");
    if (!rc)
        rc = check_allgather_send(fn, comm, sendbuf, sendcount, sendtype, recvbuf);
    if (!rc && recvbuf == MPI_IN_PLACE)
        rc = faro_coll_err_in_place(fn, comm, "recvbuf");
    return rc;
}

int faro_coll_check_allgatherv(const char *fn, MPI_Comm comm, const void *sendbuf,
                               int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                               const int recvcounts[], const void *displs, MPI_Datatype recvtype)
{
    int rc = faro_coll_check_type(fn, comm, recvtype, "recvtype");
    if (!rc)
        rc = faro_coll_check_counts(fn, comm, recvcounts, comm->size, "recvcounts");
    if (!rc)
        rc = check_displs(fn, comm, displs, comm->size, "displs");
    if (!rc)
        rc = check_allgather_send(fn, comm, sendbuf, sendcount, sendtype, recvbuf);
    if (!rc && recvbuf == MPI_IN_PLACE)
        rc = faro_coll_err_in_place(fn, comm, "recvbuf");
    return rc;
}

int faro_coll_check_alltoall(const char *fn, MPI_Comm comm, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                             MPI_Datatype recvtype)
{
    int rc = faro_coll_check_buf(fn, comm, recvcount, recvtype, "recv");
    if (!rc && sendbuf != MPI_IN_PLACE)
        rc = faro_coll_check_buf(fn, comm, sendcount, sendtype, "send");
    if (rc)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf");
    if (sendbuf == recvbuf && (size_t)recvcount * recvtype->size > 0)
        return faro_coll_err_alias(fn, comm);
    return MPI_SUCCESS;
}

/* One side of Alltoallv/w (n blocks): counts and displacements, then the
 * type (v) or the array of types (w: types non-NULL or the error says which
 * is). */
static int check_alltoall_side(const char *fn, MPI_Comm comm, int n, const int *counts,
                               const void *displs, MPI_Datatype type, const MPI_Datatype *types,
                               int per_block, const char *side)
{
    char what[16];
    int rc = MPI_SUCCESS;
    if (!counts_ok(counts, n)) {
        snprintf(what, sizeof what, "%scounts", side);
        rc = faro_coll_check_counts(fn, comm, counts, n, what);
    }
    if (!rc && !displs && n > 0) {
        snprintf(what, sizeof what, "%sdispls", side);
        rc = check_displs(fn, comm, displs, n, what);
    }
    if (rc)
        return rc;
    if (!per_block) {
        if (!faro_type_check(type))
            return MPI_SUCCESS;
        snprintf(what, sizeof what, "%stype", side);
        return faro_coll_check_type(fn, comm, type, what);
    }
    if (!types && n > 0)
        return faro_err(comm, MPI_ERR_ARG, "%s: %stypes is NULL (an array of %d datatypes)", fn,
                        side, n);
    for (int i = 0; i < n; i++)
        if (faro_type_check(types[i]))
            return faro_err(comm, MPI_ERR_TYPE, "%s: %stypes[%d] %s", fn, side, i,
                            types[i] == MPI_DATATYPE_NULL
                                ? "is MPI_DATATYPE_NULL"
                                : "is not a committed datatype (MPI_Type_commit)");
    return MPI_SUCCESS;
}

/* The standard forbids overlapping buffers only where data moves: programs
 * (mpi4py among them) pass the same pointer for empty buffers. */
static int moves_bytes(const int counts[], MPI_Datatype type, const MPI_Datatype types[], int n)
{
    for (int i = 0; i < n; i++)
        if (counts[i] > 0 && (types ? types[i] : type)->size > 0)
            return 1;
    return 0;
}

/* Alltoallv (types NULL, one type a side) and Alltoallw (arrays of types). */
static int check_alltoall_vw(const char *fn, MPI_Comm comm, const void *sendbuf,
                             const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             const MPI_Datatype sendtypes[], const void *recvbuf,
                             const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             const MPI_Datatype recvtypes[], int per_block)
{
    int rc = check_alltoall_side(fn, comm, comm->size, recvcounts, rdispls, recvtype, recvtypes,
                                 per_block, "recv");
    if (!rc && sendbuf != MPI_IN_PLACE)
        rc = check_alltoall_side(fn, comm, comm->size, sendcounts, sdispls, sendtype, sendtypes,
                                 per_block, "send");
    if (rc)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf");
    if (sendbuf == recvbuf && sendbuf && moves_bytes(sendcounts, sendtype, sendtypes, comm->size) &&
        moves_bytes(recvcounts, recvtype, recvtypes, comm->size))
        return faro_coll_err_alias(fn, comm);
    return MPI_SUCCESS;
}

int faro_coll_check_alltoallv(const char *fn, MPI_Comm comm, const void *sendbuf,
                              const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                              const void *recvbuf, const int recvcounts[], const int rdispls[],
                              MPI_Datatype recvtype)
{
    return check_alltoall_vw(fn, comm, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                             recvcounts, rdispls, recvtype, NULL, 0);
}

int faro_coll_check_alltoallw(const char *fn, MPI_Comm comm, const void *sendbuf,
                              const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], const void *recvbuf,
                              const int recvcounts[], const int rdispls[],
                              const MPI_Datatype recvtypes[])
{
    return check_alltoall_vw(fn, comm, sendbuf, sendcounts, sdispls, NULL, sendtypes, recvbuf,
                             recvcounts, rdispls, NULL, recvtypes, 1);
}

/* ---- the neighbourhood collectives: blocks counted by the neighbours ---- */

static int no_in_place(const char *fn, MPI_Comm comm, const void *sendbuf, const void *recvbuf)
{
    if (sendbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "sendbuf (neighbourhood collectives have no "
                                      "in-place form)");
    if (recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf (neighbourhood collectives have no "
                                      "in-place form)");
    return MPI_SUCCESS;
}

static int any_peer(const int *ranks, int n)
{
    for (int i = 0; i < n; i++)
        if (ranks[i] != MPI_PROC_NULL)
            return 1;
    return 0;
}

/* Uniform blocks (allgather, alltoall) from one buffer into the same one
 * overlap whenever bytes move both ways. The v/w forms are not checked: a
 * halo exchange within one array, its blocks apart, is common and works. */
static int check_uniform_alias(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                               const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               const void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
    if (sendbuf == recvbuf && sendbuf && (size_t)sendcount * sendtype->size > 0 &&
        (size_t)recvcount * recvtype->size > 0 && any_peer(n->out, n->outdeg) &&
        any_peer(n->in, n->indeg))
        return faro_coll_err_alias(fn, comm);
    return MPI_SUCCESS;
}

int faro_coll_check_neighbor_uniform(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                                     const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     const void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
    int rc = no_in_place(fn, comm, sendbuf, recvbuf);
    if (!rc)
        rc = faro_coll_check_buf(fn, comm, sendcount, sendtype, "send");
    if (!rc)
        rc = faro_coll_check_buf(fn, comm, recvcount, recvtype, "recv");
    if (!rc)
        rc = check_uniform_alias(fn, comm, n, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype);
    return rc;
}

int faro_coll_check_neighbor_allgatherv(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                                        const void *sendbuf, int sendcount,
                                        MPI_Datatype sendtype, const void *recvbuf,
                                        const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype)
{
    int rc = no_in_place(fn, comm, sendbuf, recvbuf);
    if (!rc)
        rc = faro_coll_check_buf(fn, comm, sendcount, sendtype, "send");
    if (!rc)
        rc = faro_coll_check_type(fn, comm, recvtype, "recvtype");
    if (!rc)
        rc = faro_coll_check_counts(fn, comm, recvcounts, n->indeg, "recvcounts");
    if (!rc)
        rc = check_displs(fn, comm, displs, n->indeg, "displs");
    return rc;
}

/* Neighbor_alltoallv (one type a side) and _alltoallw (arrays of types). */
static int check_neighbor_vw(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                             const void *sendbuf, const int sendcounts[], const void *sdispls,
                             MPI_Datatype sendtype, const MPI_Datatype sendtypes[],
                             const void *recvbuf, const int recvcounts[], const void *rdispls,
                             MPI_Datatype recvtype, const MPI_Datatype recvtypes[], int per_block)
{
    int rc = no_in_place(fn, comm, sendbuf, recvbuf);
    if (!rc)
        rc = check_alltoall_side(fn, comm, n->outdeg, sendcounts, sdispls, sendtype, sendtypes,
                                 per_block, "send");
    if (!rc)
        rc = check_alltoall_side(fn, comm, n->indeg, recvcounts, rdispls, recvtype, recvtypes,
                                 per_block, "recv");
    return rc;
}

int faro_coll_check_neighbor_alltoallv(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                                       const void *sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype,
                                       const void *recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype)
{
    return check_neighbor_vw(fn, comm, n, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                             recvcounts, rdispls, recvtype, NULL, 0);
}

int faro_coll_check_neighbor_alltoallw(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                                       const void *sendbuf, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       const void *recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[],
                                       const MPI_Datatype recvtypes[])
{
    return check_neighbor_vw(fn, comm, n, sendbuf, sendcounts, sdispls, NULL, sendtypes, recvbuf,
                             recvcounts, rdispls, NULL, recvtypes, 1);
}
