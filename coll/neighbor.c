/*
 * The neighbourhood collectives (MPI 3.1 section 7.6): MPI_Neighbor_allgather(v)
 * and MPI_Neighbor_alltoall(v,w), each blocking here and nonblocking in
 * nbc_neighbor.c; both forms share the calls below up to the point where the
 * messages are posted.
 *
 * Who talks to whom. The topology gives each rank its sources in[0..indeg)
 * and its destinations out[0..outdeg) (faro_topo_neighbors): receive block i
 * comes from in[i], send block i goes to out[i]; the allgathers send their
 * one buffer to every destination. Cartesian: per dimension the -1, then the
 * +1 neighbour, MPI_PROC_NULL off a non-periodic edge (that block is neither
 * sent nor touched). Graph: the node's neighbours both ways, as
 * MPI_Graph_neighbors lists them; the graph must be symmetric, which
 * faro_topo_check_neighborhood checks. Distributed graph: sources and
 * destinations as MPI_Dist_graph_neighbors lists them.
 *
 * Which block lands where. When several edges join a pair of ranks, only the
 * order of their messages on the call's one tag tells the blocks apart:
 * messages between a pair do not overtake and receives match in the order
 * they were posted. Graphs: the k-th edge from s to r carries s's k-th block
 * for r into r's k-th block from s, which sends and receives posted in list
 * order give. Cartesian: in a periodic dimension of size 1 or 2 one rank (the
 * rank itself, or the other one) is both the -1 and the +1 neighbour. What a
 * rank sends towards -1 arrives at that neighbour from its +1 side, so block
 * 2d of the sender lands in block 2d+1 of the receiver and block 2d+1 in
 * block 2d (MPI-4.0's erratum to 3.1, section 8.6 of MPI-4.1). The sends go
 * in list order and each dimension's two receives are posted swapped, +1
 * first: between a pair, a dimension's first message is the one sent towards
 * -1 and it meets the receive from +1. Two dimensions share no peer except
 * the rank itself, whose messages to itself keep their order, so the swap is
 * right for every shape of grid.
 *
 * Algorithm: one, for every size: all receives posted, then all sends, then
 * (blocking) one wait for all. No windows of partial posts: the neighbour
 * relation is arbitrary, and a rank waiting on part of its messages could
 * wait for a peer that waits on a part that does not include it. Blocking
 * calls share the tag FARO_COLL_TAG_NEIGHBOR (collectives on a communicator
 * are ordered); nonblocking ones take the tag of their sequence number.
 *
 * Cost of a call beyond its messages: the checks, and nothing allocated up
 * to 32 messages (the neighbour lists are the topology's own, the Cartesian
 * ones worked out when the grid was made).
 */
#include <stdlib.h>

#include "collcheck.h"
#include "nbc_sched.h"

int faro_nbrs_get(const char *fn, MPI_Comm comm, struct faro_nbrs *n)
{
    int rc = faro_coll_check_comm(fn, comm);
    if (rc)
        return rc;
    if (comm->inter)
        return faro_err(comm, MPI_ERR_COMM, "%s: the communicator is an intercommunicator "
                        "(neighbourhood collectives need an intracommunicator with a process "
                        "topology)", fn);
    if ((rc = faro_topo_check_neighborhood(fn, comm)))
        return rc;
    n->cart = faro_topo_neighbors(comm, &n->indeg, &n->in, &n->outdeg, &n->out) == MPI_CART;
    return MPI_SUCCESS;
}

/* Block i of b with peer, unless nothing moves. */
static int post_block(faro_nbrs_post_fn *post, void *ctx, int recv,
                      const struct faro_coll_blocks *b, int i, int peer)
{
    int count = faro_coll_bcount(b, i);
    MPI_Datatype t = faro_coll_btype(b, i);
    if (peer == MPI_PROC_NULL || (size_t)count * t->size == 0)
        return MPI_SUCCESS;
    return post(ctx, recv, faro_coll_baddr(b, i), count, t, peer);
}

int faro_nbrs_post(const struct faro_nbrs *n, const struct faro_coll_blocks *send,
                   int same_block, const struct faro_coll_blocks *recv,
                   faro_nbrs_post_fn *post, void *ctx)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < n->indeg && !rc; k++) {
        int i = n->cart ? k ^ 1 : k; /* Cartesian: the +1 neighbour's block first */
        rc = post_block(post, ctx, 1, recv, i, n->in[i]);
    }
    for (int i = 0; i < n->outdeg && !rc; i++)
        rc = post_block(post, ctx, 0, send, same_block ? 0 : i, n->out[i]);
    return rc;
}

/* ---- the blocking exchange ---- */

struct posted {
    const struct faro_coll *c;
    MPI_Request *reqs;
    int n;
};

static int post_now(void *ctx, int recv, void *buf, int count, MPI_Datatype t, int peer)
{
    struct posted *p = ctx;
    const struct faro_coll *c = p->c;
    MPI_Request *req = &p->reqs[p->n];
    int rc = recv ? faro_coll_irecv(c->fn, buf, count, t, peer, c->tag, c->comm, req)
                  : faro_coll_isend(c->fn, buf, count, t, peer, c->tag, c->comm, req);
    if (!rc)
        p->n++;
    return rc;
}

static int exchange(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                    const struct faro_coll_blocks *send, int same_block,
                    const struct faro_coll_blocks *recv)
{
    enum { STACK_REQS = 32 };
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_NEIGHBOR);
    MPI_Request stack[STACK_REQS], *reqs = stack;
    size_t most = (size_t)n->indeg + (size_t)n->outdeg;
    if (most > STACK_REQS && !(reqs = malloc(most * sizeof *reqs)))
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for %zu requests", fn, most);
    struct posted p = {&c, reqs, 0};
    /* a failed post still waits for what was posted: peers count on it */
    int rc = faro_nbrs_post(n, send, same_block, recv, post_now, &p);
    int wrc = faro_coll_waitall(p.n, reqs);
    if (reqs != stack)
        free(reqs);
    return rc ? rc : wrc;
}

/* ---- one function per shape, for the blocking entry points below and the
 * nonblocking ones (nbc_neighbor.c: nonblocking set, request given) ---- */

/* The checks every call starts with, and the neighbours into n. A
 * nonblocking call takes its sequence number after the checks whose answer
 * every rank shares, before those whose answer may differ. */
static int begin(const char *fn, MPI_Comm comm, int nonblocking, MPI_Request *request,
                 struct faro_nbrs *n)
{
    int rc = faro_nbrs_get(fn, comm, n);
    if (!rc && nonblocking)
        rc = faro_nbc_check(fn, comm, request);
    return rc;
}

/* After the checks (rc): the exchange, blocking or scheduled. */
static int finish(int rc, const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                  const struct faro_coll_blocks *send, int same_block,
                  const struct faro_coll_blocks *recv, int nonblocking, MPI_Request *request)
{
    if (rc)
        return rc;
    if (nonblocking)
        return faro_nbrs_schedule(fn, comm, n, send, same_block, recv, request);
    if (FARO_COLL_CHECKING && (rc = faro_cc_neighbor(NULL, fn, comm, n, send, same_block, recv)))
        return rc;
    return exchange(fn, comm, n, send, same_block, recv);
}

int faro_neighbor_uniform(const char *fn, int same_block, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, int nonblocking,
                          MPI_Request *request)
{
    struct faro_nbrs n;
    int rc = begin(fn, comm, nonblocking, request, &n);
    if (!rc)
        rc = faro_coll_check_neighbor_uniform(fn, comm, &n, sendbuf, sendcount, sendtype,
                                              recvbuf, recvcount, recvtype);
    struct faro_coll_blocks send = faro_coll_blocks_uniform(sendbuf, sendcount, sendtype);
    struct faro_coll_blocks recv = faro_coll_blocks_uniform(recvbuf, recvcount, recvtype);
    return finish(rc, fn, comm, &n, &send, same_block, &recv, nonblocking, request);
}

int faro_neighbor_allgatherv(const char *fn, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             int nonblocking, MPI_Request *request)
{
    struct faro_nbrs n;
    int rc = begin(fn, comm, nonblocking, request, &n);
    if (!rc)
        rc = faro_coll_check_neighbor_allgatherv(fn, comm, &n, sendbuf, sendcount, sendtype,
                                                 recvbuf, recvcounts, displs, recvtype);
    struct faro_coll_blocks send = faro_coll_blocks_uniform(sendbuf, sendcount, sendtype);
    struct faro_coll_blocks recv = faro_coll_blocks_v(recvbuf, recvcounts, displs, recvtype);
    return finish(rc, fn, comm, &n, &send, 1, &recv, nonblocking, request);
}

int faro_neighbor_alltoallv(const char *fn, const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, int nonblocking, MPI_Request *request)
{
    struct faro_nbrs n;
    int rc = begin(fn, comm, nonblocking, request, &n);
    if (!rc)
        rc = faro_coll_check_neighbor_alltoallv(fn, comm, &n, sendbuf, sendcounts, sdispls,
                                                sendtype, recvbuf, recvcounts, rdispls,
                                                recvtype);
    struct faro_coll_blocks send = faro_coll_blocks_v(sendbuf, sendcounts, sdispls, sendtype);
    struct faro_coll_blocks recv = faro_coll_blocks_v(recvbuf, recvcounts, rdispls, recvtype);
    return finish(rc, fn, comm, &n, &send, 0, &recv, nonblocking, request);
}

/* byte displacements as MPI_Aint (Alltoallw's are int) */
static struct faro_coll_blocks blocks_aint(const void *buf, const int *counts,
                                           const MPI_Aint *bdispls, MPI_Datatype const *types)
{
    struct faro_coll_blocks b = {(char *)buf, 0, counts, NULL, bdispls, NULL, types};
    return b;
}

int faro_neighbor_alltoallw(const char *fn, const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm, int nonblocking,
                            MPI_Request *request)
{
    struct faro_nbrs n;
    int rc = begin(fn, comm, nonblocking, request, &n);
    if (!rc)
        rc = faro_coll_check_neighbor_alltoallw(fn, comm, &n, sendbuf, sendcounts, sdispls,
                                                sendtypes, recvbuf, recvcounts, rdispls,
                                                recvtypes);
    struct faro_coll_blocks send = blocks_aint(sendbuf, sendcounts, sdispls, sendtypes);
    struct faro_coll_blocks recv = blocks_aint(recvbuf, recvcounts, rdispls, recvtypes);
    return finish(rc, fn, comm, &n, &send, 0, &recv, nonblocking, request);
}

/* ---- the blocking entry points ---- */

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return faro_neighbor_uniform("MPI_Neighbor_allgather", 1, sendbuf, sendcount, sendtype,
                                 recvbuf, recvcount, recvtype, comm, 0, NULL);
}

#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    return faro_neighbor_allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype,
                                    recvbuf, recvcounts, displs, recvtype, comm, 0, NULL);
}

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return faro_neighbor_uniform("MPI_Neighbor_alltoall", 0, sendbuf, sendcount, sendtype,
                                 recvbuf, recvcount, recvtype, comm, 0, NULL);
}

#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return faro_neighbor_alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls,
                                   sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, 0,
                                   NULL);
}

#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf,
                            const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return faro_neighbor_alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls,
                                   sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, 0,
                                   NULL);
}
