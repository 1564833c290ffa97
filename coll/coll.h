/*
 * Collectives: the contract between the MPI entry points in coll/ and the
 * algorithms they call, and between coll/ and the rest of Faro.
 *
 * Layering. A collective never touches a transport or a request's fields. It
 * moves data only through the core's point-to-point calls for collectives
 * (faro_coll_isend/irecv/send/recv/sendrecv in core.h), completes requests
 * with PMPI_Wait (faro_coll_waitall below), combines data with faro_op_reduce
 * and copies typed data locally with faro_type_pack/unpack (objects/).
 *
 * Files. One file per collective (barrier.c, bcast.c, ...). Each holds its
 * algorithms, named faro_coll_<collective>_<algorithm>, and its MPI entry
 * point, which checks every argument (check.c), handles the trivial cases and
 * picks an algorithm. The choice depends only on values that are equal on
 * every rank (communicator size, bytes of the whole message, whether the op
 * commutes), never on a rank's own datatype, so every rank runs the same
 * algorithm even when send and receive signatures differ (4 x MPI_INT
 * against 1 x contiguous(4, MPI_INT)).
 *
 * Tags. Each kind of collective has one internal tag (FARO_COLL_TAG_*, from
 * -2 down; -1000..-1099 belong to communicator construction). One tag per
 * kind is enough for blocking collectives: MPI orders collectives on a
 * communicator, point-to-point does not overtake between a pair on one tag,
 * and every algorithm posts its receives from a given peer in the order that
 * peer sends. User receives never match these tags, MPI_ANY_TAG included.
 * An algorithm called from another collective (allreduce's reduce + bcast)
 * takes the caller's tag through struct faro_coll, so the later nonblocking
 * collectives can give each operation a tag of its own.
 *
 * Buffers. Algorithms get the user's buffers as the MPI call got them, with
 * MPI_IN_PLACE already resolved by the entry point into "the data is in
 * recvbuf". Temporaries of count elements of a type are laid out like the
 * user's buffer (faro_coll_tmp_typed: sized by the true extent, so derived
 * types with holes or negative lower bounds work); small ones live on the
 * stack inside struct faro_coll_tmp, larger ones are malloc'ed.
 *
 * Errors. faro_coll_* point-to-point calls raise their own errors under the
 * collective's name; algorithms only pass codes up. Argument errors are
 * raised by the entry point on the communicator (faro_err(comm, ...)).
 */
#ifndef FARO_COLL_COLL_H
#define FARO_COLL_COLL_H

#include <stddef.h>

#include "core.h"

/* One internal tag per kind of collective (blocking). */
enum {
    FARO_COLL_TAG_BARRIER = -2,
    FARO_COLL_TAG_BCAST = -3,
    FARO_COLL_TAG_REDUCE = -4,
    FARO_COLL_TAG_ALLREDUCE = -5,
    FARO_COLL_TAG_GATHER = -6,
    FARO_COLL_TAG_SCATTER = -7,
    FARO_COLL_TAG_ALLGATHER = -8,
    FARO_COLL_TAG_ALLTOALL = -9,
    FARO_COLL_TAG_REDUCE_SCATTER = -10,
    FARO_COLL_TAG_SCAN = -11,
    FARO_COLL_TAG_EXSCAN = -12,
    /* intercommunicator steps (inter.c, inter_reduce.c): -13 .. -21 */
    FARO_COLL_TAG_INTER_BARRIER = -13,
    FARO_COLL_TAG_INTER_BCAST = -14,
    FARO_COLL_TAG_INTER_GATHER = -15,
    FARO_COLL_TAG_INTER_SCATTER = -16,
    FARO_COLL_TAG_INTER_ALLGATHER = -17,
    FARO_COLL_TAG_INTER_ALLTOALL = -18,
    FARO_COLL_TAG_INTER_REDUCE = -19,
    FARO_COLL_TAG_INTER_ALLREDUCE = -20,
    FARO_COLL_TAG_INTER_REDUCE_SCATTER = -21,
    /* the five neighbourhood collectives (neighbor.c) */
    FARO_COLL_TAG_NEIGHBOR = -22,
    /* collective checking (collcheck.c): every call's record to the ring
     * neighbour, and blocking calls' block descriptions; -25 .. -30 free */
    FARO_COLL_TAG_CHECK = -23,
    FARO_COLL_TAG_CHECK_FLOW = -24,
};

/* Sizes inside algorithms. The thresholds of the algorithm choice are the
 * rules of select.c. */
#define FARO_COLL_WINDOW 32                       /* nonblocking posts in flight at most */
#define FARO_COLL_PIPELINE_SEG (64 * 1024)        /* segment bytes: chain.c, ring.c */

/* What every algorithm needs to know about the call it serves. */
struct faro_coll {
    MPI_Comm comm;
    const char *fn; /* the MPI function, for error messages */
    int tag;
    int rank, size;
};

static inline struct faro_coll faro_coll_of(MPI_Comm comm, const char *fn, int tag)
{
    struct faro_coll c = {comm, fn, tag, comm->rank, comm->size};
    return c;
}

/* ---- algorithm table and selection (algorithms.def, select.c) ----
 * Every blocking algorithm of a collective has that collective's signature
 * below. The MPI entry point resolves MPI_IN_PLACE and the trivial cases, then
 * asks faro_coll_select for an algorithm id and calls it through the table.
 * "bytes" is a value every rank of the call knows alike: the bytes of the
 * whole message (bcast, reduce, allreduce, scan: count x type size;
 * gather/scatter/allgather/alltoall: one block x size of the communicator;
 * reduce_scatter: the whole input vector; v/w variants where non-roots do not
 * know the total: 0). */
enum { FARO_ALG_COMMUTE = 1, FARO_ALG_UNIFORM = 2 };

enum faro_coll_kind {
    FARO_COLL_BARRIER, FARO_COLL_BCAST, FARO_COLL_REDUCE, FARO_COLL_ALLREDUCE,
    FARO_COLL_GATHER, FARO_COLL_SCATTER, FARO_COLL_ALLGATHER, FARO_COLL_ALLTOALL,
    FARO_COLL_REDUCE_SCATTER, FARO_COLL_SCAN,
    FARO_COLL_NKINDS
};

/* Algorithm ids, one per line of algorithms.def: FARO_ALG_<COLL>_<name>. */
enum faro_coll_alg_id {
#define FARO_COLL_ALG(coll, name, flags, summary) FARO_ALG_##coll##_##name,
#include "algorithms.def"
#undef FARO_COLL_ALG
    FARO_ALG_COUNT
};

typedef int faro_coll_barrier_fn(const struct faro_coll *c);
typedef int faro_coll_bcast_fn(const struct faro_coll *c, void *buf, MPI_Count count, MPI_Datatype t,
                               int root);
/* sendbuf NULL: the data is in recvbuf (in place, at root) */
typedef int faro_coll_reduce_fn(const struct faro_coll *c, const void *sendbuf, void *recvbuf,
                                int count, MPI_Datatype t, MPI_Op op, int root);
/* the data is in recvbuf */
typedef int faro_coll_allreduce_fn(const struct faro_coll *c, void *recvbuf, int count,
                                   MPI_Datatype t, MPI_Op op);
struct faro_coll_blocks;
/* blks: the root's blocks (unused elsewhere); at the root sendbuf NULL: in place */
typedef int faro_coll_gather_fn(const struct faro_coll *c, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, const struct faro_coll_blocks *blks,
                                int root);
/* at the root recvbuf NULL: in place */
typedef int faro_coll_scatter_fn(const struct faro_coll *c, const struct faro_coll_blocks *blks,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root);
/* the rank's own block is already in place in blks */
typedef int faro_coll_allgather_fn(const struct faro_coll *c, const struct faro_coll_blocks *blks);
typedef int faro_coll_alltoall_fn(const struct faro_coll *c, const struct faro_coll_blocks *send,
                                  const struct faro_coll_blocks *recv);
/* sendbuf NULL: in place; blks: the pieces of a vector of total elements */
typedef int faro_coll_reduce_scatter_fn(const struct faro_coll *c, const void *sendbuf,
                                        void *recvbuf, const struct faro_coll_blocks *blks,
                                        int total, MPI_Datatype t, MPI_Op op);
typedef int faro_coll_scan_fn(const struct faro_coll *c, const void *sendbuf, void *recvbuf,
                              int count, MPI_Datatype t, MPI_Op op, int exclusive);

/* The algorithm table (select.c), indexed by FARO_ALG_*: the entry point calls
 * faro_coll_algs[id].fn.<coll>. */
union faro_coll_alg_fn {
    faro_coll_barrier_fn *barrier;
    faro_coll_bcast_fn *bcast;
    faro_coll_reduce_fn *reduce;
    faro_coll_allreduce_fn *allreduce;
    faro_coll_gather_fn *gather;
    faro_coll_scatter_fn *scatter;
    faro_coll_allgather_fn *allgather;
    faro_coll_alltoall_fn *alltoall;
    faro_coll_reduce_scatter_fn *reduce_scatter;
    faro_coll_scan_fn *scan;
};
struct faro_coll_alg {
    enum faro_coll_kind kind;
    const char *name;    /* as users write it */
    int flags;           /* FARO_ALG_COMMUTE | FARO_ALG_UNIFORM */
    const char *summary;
    union faro_coll_alg_fn fn;
};
extern const struct faro_coll_alg faro_coll_algs[FARO_ALG_COUNT];

/* The algorithm for a call (select.c): forced by FARO_COLL_<COLL>_ALGORITHM,
 * else the tuning file's first matching rule, else the built-in table; an
 * algorithm whose FLAGS the call does not meet is never returned. */
int faro_coll_select(MPI_Comm comm, enum faro_coll_kind kind, size_t bytes, int commute,
                     int uniform);

/* ---- the node map (node.c) ----
 * Which ranks of a communicator share a node: the real map (faro.node_of) or
 * FARO_NODE_SIZE's fake one. Computed locally (no communication) on first use,
 * cached on the communicator (comm->coll_nodes), freed with it. */
struct faro_coll_nodes {
    int nnodes;       /* nodes the communicator spans */
    int my_node;      /* this rank's node: 0..nnodes-1, nodes ordered by their leaders */
    int *node_of;     /* node of each comm rank */
    int *leaders;     /* comm rank of each node's leader (its lowest rank) */
    int *local;       /* comm ranks on this rank's node, ascending */
    int local_size, local_rank;
    int max_local;    /* most ranks on one node */
};
const struct faro_coll_nodes *faro_coll_nodes(MPI_Comm comm); /* NULL: out of memory */
void faro_coll_nodes_free(MPI_Comm comm);                     /* comm.c, at destroy */

/* ---- argument checks (check.c); each raises its error on comm ---- */
int faro_coll_check_comm(const char *fn, MPI_Comm comm);
int faro_coll_check_count(const char *fn, MPI_Comm comm, MPI_Count count, const char *what);
int faro_coll_check_type(const char *fn, MPI_Comm comm, MPI_Datatype t, const char *what);
/* count and type of one buffer together (what: "sendcount"/"sendtype" base name) */
int faro_coll_check_buf(const char *fn, MPI_Comm comm, MPI_Count count, MPI_Datatype t,
                        const char *what);
int faro_coll_check_root(const char *fn, MPI_Comm comm, int root);
int faro_coll_check_op(const char *fn, MPI_Comm comm, MPI_Op op, MPI_Datatype t);
/* A reduction every rank receives (Allreduce, Scan, Exscan): count and type, op
 * on type, recvbuf not MPI_IN_PLACE, sendbuf and recvbuf not the same buffer. */
int faro_coll_check_reduction(const char *fn, MPI_Comm comm, const void *sendbuf,
                              const void *recvbuf, int count, MPI_Datatype type, MPI_Op op);
int faro_coll_check_bcast(const char *fn, MPI_Comm comm, const void *buf, MPI_Count count,
                          MPI_Datatype type, int root);
/* Reduce to root: as above, but MPI_IN_PLACE is the root's sendbuf. */
int faro_coll_check_reduce(const char *fn, MPI_Comm comm, const void *sendbuf,
                           const void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                           int root);
/* counts[0..n) >= 0 (and displacements are not checked: any value is legal) */
int faro_coll_check_counts(const char *fn, MPI_Comm comm, const int *counts, int n,
                           const char *what);
/* Each data-moving collective's arguments after the communicator (arguments
 * in the MPI call's order): root, counts, types, displacements, where
 * MPI_IN_PLACE is allowed, sendbuf not aliasing recvbuf where data moves.
 * Used by the blocking and the nonblocking entry point alike. */
int faro_coll_check_gather(const char *fn, MPI_Comm comm, const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root);
int faro_coll_check_gatherv(const char *fn, MPI_Comm comm, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, const void *recvbuf, const int recvcounts[],
                            const int displs[], MPI_Datatype recvtype, int root);
int faro_coll_check_scatter(const char *fn, MPI_Comm comm, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root);
int faro_coll_check_scatterv(const char *fn, MPI_Comm comm, const void *sendbuf,
                             const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                             const void *recvbuf, int recvcount, MPI_Datatype recvtype, int root);
int faro_coll_check_allgather(const char *fn, MPI_Comm comm, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                              MPI_Datatype recvtype);
int faro_coll_check_allgatherv(const char *fn, MPI_Comm comm, const void *sendbuf,
                               int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                               const int recvcounts[], const void *displs, MPI_Datatype recvtype);
int faro_coll_check_alltoall(const char *fn, MPI_Comm comm, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                             MPI_Datatype recvtype);
int faro_coll_check_alltoallv(const char *fn, MPI_Comm comm, const void *sendbuf,
                              const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                              const void *recvbuf, const int recvcounts[], const int rdispls[],
                              MPI_Datatype recvtype);
int faro_coll_check_alltoallw(const char *fn, MPI_Comm comm, const void *sendbuf,
                              const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], const void *recvbuf,
                              const int recvcounts[], const int rdispls[],
                              const MPI_Datatype recvtypes[]);
/* The neighbourhood collectives: the same checks, with the blocks counted
 * by the neighbours (n from faro_nbrs_get: indegree receive blocks,
 * outdegree send blocks); MPI_IN_PLACE is refused on either side, and
 * arrays may be NULL where their degree is 0. */
struct faro_nbrs;
/* Neighbor_allgather and Neighbor_alltoall: one count and type a side. */
int faro_coll_check_neighbor_uniform(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                                     const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     const void *recvbuf, int recvcount, MPI_Datatype recvtype);
int faro_coll_check_neighbor_allgatherv(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                                        const void *sendbuf, int sendcount,
                                        MPI_Datatype sendtype, const void *recvbuf,
                                        const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype);
int faro_coll_check_neighbor_alltoallv(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                                       const void *sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype,
                                       const void *recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype);
int faro_coll_check_neighbor_alltoallw(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                                       const void *sendbuf, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       const void *recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[],
                                       const MPI_Datatype recvtypes[]);
/* MPI_IN_PLACE given where the standard does not allow it */
int faro_coll_err_in_place(const char *fn, MPI_Comm comm, const char *which);
/* sendbuf == recvbuf without MPI_IN_PLACE */
int faro_coll_err_alias(const char *fn, MPI_Comm comm);

/* ---- helpers (util.c) ---- */

/* A temporary buffer: on the stack up to sizeof stack, else on the heap. */
struct faro_coll_tmp {
    void *heap;
    union {
        char bytes[512];
        long double align;
    } stack;
};
void *faro_coll_tmp_get(struct faro_coll_tmp *t, size_t bytes);
/* Room for count elements of type laid out as a user buffer would be;
 * returns the buffer pointer to pass with (count, type), NULL when out of memory. */
void *faro_coll_tmp_typed(struct faro_coll_tmp *t, size_t count, MPI_Datatype type);
void faro_coll_tmp_free(struct faro_coll_tmp *t);

/* Bytes from a typed buffer's pointer to its first and past its last data byte. */
void faro_coll_span(size_t count, MPI_Datatype type, MPI_Aint *lo, MPI_Aint *hi);

/* Local typed copy (the same type map rules as a message); MPI_ERR_TRUNCATE
 * raised under c->fn when the source holds more than the destination. */
int faro_coll_copy(const struct faro_coll *c, const void *src, int scount, MPI_Datatype stype,
                   void *dst, int rcount, MPI_Datatype rtype);

/* Wait for n requests; the first error's code (its own class), after all completed. */
int faro_coll_waitall(int n, MPI_Request *reqs);

/* The collective an internal tag belongs to ("MPI_Bcast"), NULL when none:
 * the hang report names it (runtime/hang.h). */
const char *faro_coll_tag_owner(int tag);

/* Combine with faro_op_reduce: inout = in op inout; errors raised under c->fn. */
int faro_coll_reduce_local(const struct faro_coll *c, MPI_Op op, const void *in, void *inout,
                           int count, MPI_Datatype type);

/* Recursive doubling/halving on any size: pof2 is the largest power of two
 * <= size and rem = size - pof2; the first 2 rem ranks pair up, the even one
 * of each pair folds its data into the odd one and sits out (new rank -1),
 * and the pof2 ranks left are renumbered 0..pof2-1. */
static inline int faro_coll_pof2_below(int size)
{
    int p = 1;
    while (p * 2 <= size)
        p *= 2;
    return p;
}
static inline int faro_coll_fold_rank(int rank, int rem)
{
    if (rank < 2 * rem)
        return rank % 2 ? rank / 2 : -1;
    return rank - rem;
}
static inline int faro_coll_unfold_rank(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

/* Address of element i of a typed buffer. */
static inline char *faro_coll_at(const void *buf, MPI_Aint i, MPI_Datatype t)
{
    return (char *)buf + i * t->extent;
}

/* ---- algorithms: buffers as the MPI call has them, MPI_IN_PLACE resolved ---- */

int faro_coll_barrier_dissemination(const struct faro_coll *c);

int faro_coll_bcast_binomial(const struct faro_coll *c, void *buf, MPI_Count count, MPI_Datatype t,
                             int root);
int faro_coll_bcast_scatter_allgather(const struct faro_coll *c, void *buf, MPI_Count count,
                                      MPI_Datatype t, int root);

/* sendbuf NULL: the data is in recvbuf (in place, at root) */
int faro_coll_reduce_binomial(const struct faro_coll *c, const void *sendbuf, void *recvbuf,
                              int count, MPI_Datatype t, MPI_Op op, int root);

/* the data is in recvbuf */
int faro_coll_allreduce_recursive_doubling(const struct faro_coll *c, void *recvbuf, int count,
                                           MPI_Datatype t, MPI_Op op);
int faro_coll_allreduce_reduce_bcast(const struct faro_coll *c, void *recvbuf, int count,
                                     MPI_Datatype t, MPI_Op op);
int faro_coll_allreduce_rabenseifner(const struct faro_coll *c, void *recvbuf, int count,
                                     MPI_Datatype t, MPI_Op op);

/* The blocks of a gather/scatter/alltoall buffer, one per rank: uniform
 * (count, type), v (counts, displs in elements, type) or w (counts, displs
 * in bytes, types; MPI_Aint byte displacements through bdispls). */
struct faro_coll_blocks {
    char *buf;
    int count;
    const int *counts, *displs;
    const MPI_Aint *bdispls;
    MPI_Datatype type;
    MPI_Datatype const *types;
};
static inline struct faro_coll_blocks faro_coll_blocks_uniform(const void *buf, int count,
                                                                MPI_Datatype type)
{
    struct faro_coll_blocks b = {(char *)buf, count, NULL, NULL, NULL, type, NULL};
    return b;
}
static inline struct faro_coll_blocks faro_coll_blocks_v(const void *buf, const int *counts,
                                                          const int *displs, MPI_Datatype type)
{
    struct faro_coll_blocks b = {(char *)buf, 0, counts, displs, NULL, type, NULL};
    return b;
}
static inline struct faro_coll_blocks faro_coll_blocks_w(const void *buf, const int *counts,
                                                          const int *byte_displs,
                                                          MPI_Datatype const *types)
{
    struct faro_coll_blocks b = {(char *)buf, 0, counts, byte_displs, NULL, NULL, types};
    return b;
}
static inline int faro_coll_bcount(const struct faro_coll_blocks *b, int i)
{
    return b->counts ? b->counts[i] : b->count;
}
static inline MPI_Datatype faro_coll_btype(const struct faro_coll_blocks *b, int i)
{
    return b->types ? b->types[i] : b->type;
}
static inline char *faro_coll_baddr(const struct faro_coll_blocks *b, int i)
{
    if (b->bdispls)
        return b->buf + b->bdispls[i];
    if (b->displs)
        return b->buf + (MPI_Aint)b->displs[i] * (b->types ? 1 : b->type->extent);
    return b->buf + (MPI_Aint)i * b->count * b->type->extent;
}

/* The root's side of a linear gather (receive) or scatter (send): one message
 * per rank's block but the root's own, zero-byte blocks skipped, at most
 * FARO_COLL_WINDOW in flight. */
int faro_coll_root_blocks(const struct faro_coll *c, const struct faro_coll_blocks *blks,
                          int root, int receive);

/* gather(v)/scatter(v): the root's blocks described by blks (unused
 * elsewhere); at the root sendbuf (gather) or recvbuf (scatter) NULL: in place. */
faro_coll_gather_fn faro_coll_gather_linear;
faro_coll_scatter_fn faro_coll_scatter_linear;

/* allgather(v): the rank's own block is already in place */
faro_coll_allgather_fn faro_coll_allgather_ring;
/* uniform blocks only; a size that is not a power of two runs the ring */
faro_coll_allgather_fn faro_coll_allgather_recursive_doubling;

/* alltoall(v/w): sendbuf blocks, recvbuf blocks; in place: the data is in
 * recv and goes out from there (pairwise exchange through a temporary). */
int faro_coll_alltoall_scattered(const struct faro_coll *c, const struct faro_coll_blocks *send,
                                 const struct faro_coll_blocks *recv);
int faro_coll_alltoall_pairwise(const struct faro_coll *c, const struct faro_coll_blocks *send,
                                const struct faro_coll_blocks *recv);
int faro_coll_alltoall_inplace_pairwise(const struct faro_coll *c,
                                        const struct faro_coll_blocks *recv);

/* reduce_scatter(_block): sendbuf NULL: in place (the input is all of
 * recvbuf); blks describes the pieces inside a vector of total elements
 * (its buf is ignored). */
int faro_coll_reduce_scatter_reduce_scatterv(const struct faro_coll *c, const void *sendbuf,
                                             void *recvbuf, const struct faro_coll_blocks *blks,
                                             int total, MPI_Datatype t, MPI_Op op);

/* scan/exscan: the input is sendbuf (recvbuf itself when in place) */
int faro_coll_scan_recursive_doubling(const struct faro_coll *c, const void *sendbuf,
                                      void *recvbuf, int count, MPI_Datatype t, MPI_Op op,
                                      int exclusive);

/* ---- algorithms added for the selection table (one file per technique) ---- */
/* tree.c */
faro_coll_barrier_fn faro_coll_barrier_tree;
faro_coll_gather_fn faro_coll_gather_binomial;
faro_coll_scatter_fn faro_coll_scatter_binomial;
/* bruck.c */
faro_coll_allgather_fn faro_coll_allgather_bruck;
faro_coll_alltoall_fn faro_coll_alltoall_bruck;
/* ring.c */
faro_coll_allreduce_fn faro_coll_allreduce_ring;
/* chain.c */
faro_coll_bcast_fn faro_coll_bcast_pipeline;
faro_coll_scan_fn faro_coll_scan_linear;
/* halving.c */
faro_coll_reduce_fn faro_coll_reduce_rabenseifner;
faro_coll_reduce_scatter_fn faro_coll_reduce_scatter_recursive_halving;
faro_coll_reduce_scatter_fn faro_coll_reduce_scatter_pairwise;
/* node_aware.c */
faro_coll_barrier_fn faro_coll_barrier_node_aware;
faro_coll_bcast_fn faro_coll_bcast_node_aware;
faro_coll_reduce_fn faro_coll_reduce_node_aware;
faro_coll_allreduce_fn faro_coll_allreduce_node_aware;
faro_coll_allgather_fn faro_coll_allgather_node_aware;

/* ---- neighbourhood collectives (neighbor.c, nbc_neighbor.c) ----
 * Block i of the receive side comes from in[i], block i of the send side
 * goes to out[i], the neighbours in the order faro_topo_neighbors gives them
 * (MPI_PROC_NULL: nothing moves, the block is left alone). */
struct faro_nbrs {
    int indeg, outdeg;
    const int *in, *out; /* the topology's own lists */
    int cart;            /* a Cartesian topology: see faro_nbrs_post */
};
/* comm is an intracommunicator with a topology on which neighbourhood
 * collectives are defined (MPI_ERR_COMM, MPI_ERR_TOPOLOGY otherwise); the
 * answer is the same at every rank. Then n holds this rank's neighbours. */
int faro_nbrs_get(const char *fn, MPI_Comm comm, struct faro_nbrs *n);
/* One message of an exchange: recv or send of (buf, count, type) with peer. */
typedef int faro_nbrs_post_fn(void *ctx, int recv, void *buf, int count, MPI_Datatype t,
                              int peer);
/* Hand every message of one neighbourhood exchange to post, in the order
 * they must be posted on one tag: the receives first, then the sends
 * (same_block: every destination gets send's block 0, the allgathers).
 * Blocks with MPI_PROC_NULL or of zero bytes are left out. Stops at the
 * first error post returns. */
int faro_nbrs_post(const struct faro_nbrs *n, const struct faro_coll_blocks *send,
                   int same_block, const struct faro_coll_blocks *recv,
                   faro_nbrs_post_fn *post, void *ctx);
/* The nonblocking exchange (nbc_neighbor.c): one round of those messages. */
int faro_nbrs_schedule(const char *fn, MPI_Comm comm, const struct faro_nbrs *n,
                       const struct faro_coll_blocks *send, int same_block,
                       const struct faro_coll_blocks *recv, MPI_Request *request);
/* Each collective, checked and run: blocking, or (nonblocking set) started
 * as a schedule whose request goes to *request. faro_neighbor_uniform serves
 * allgather (same_block: the one send buffer to every destination) and
 * alltoall (a block each). */
int faro_neighbor_uniform(const char *fn, int same_block, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, int nonblocking,
                          MPI_Request *request);
int faro_neighbor_allgatherv(const char *fn, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             int nonblocking, MPI_Request *request);
int faro_neighbor_alltoallv(const char *fn, const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, int nonblocking, MPI_Request *request);
int faro_neighbor_alltoallw(const char *fn, const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm, int nonblocking,
                            MPI_Request *request);

/* ---- intercommunicators (inter.c, inter_reduce.c) ----
 * Each MPI entry point hands an intercommunicator (comm->inter) to these
 * after faro_coll_check_comm; they check the rest of the arguments with the
 * intercommunicator rules (roots MPI_ROOT / MPI_PROC_NULL / remote rank,
 * counts arrays over the remote group, no MPI_IN_PLACE). The checks alone
 * are the faro_inter_*_args functions, which the nonblocking forms
 * (nbc_inter.c) share: they raise the error, or give this process's role
 * (rooted ones) and the blocks each side moves. */
enum { FARO_INTER_ROOT, FARO_INTER_IDLE, FARO_INTER_REMOTE };
/* This process's part for root: FARO_INTER_*, or -1 with the error in *rc. */
int faro_inter_role(const char *fn, MPI_Comm comm, int root, int *rc);
int faro_inter_no_in_place(const char *fn, MPI_Comm comm);
int faro_inter_barrier(MPI_Comm comm);
int faro_inter_bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int root,
                     MPI_Comm comm);
/* recvcounts NULL: uniform blocks of recvcount (MPI_Gather) */
int faro_inter_gatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, const int recvcounts[], const int displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm);
/* sendcounts NULL: uniform blocks of sendcount (MPI_Scatter) */
int faro_inter_scatterv(const char *fn, const void *sendbuf, int sendcount,
                        const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm);
/* recvcounts NULL: MPI_Allgather */
int faro_inter_allgatherv(const char *fn, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                          MPI_Comm comm);
/* counts NULL: MPI_Alltoall; w: MPI_Alltoallw (types[], byte displacements) */
int faro_inter_alltoallw(const char *fn, int w, const void *sendbuf, int sendcount,
                         const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         const MPI_Datatype sendtypes[], void *recvbuf, int recvcount,
                         const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         const MPI_Datatype recvtypes[], MPI_Comm comm);
int faro_inter_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                      MPI_Op op, int root, MPI_Comm comm);
int faro_inter_bcast_args(const char *fn, MPI_Comm comm, MPI_Count count, MPI_Datatype type,
                          int root, int *role);
/* blks: the root's blocks, or a remote process's one buffer */
int faro_inter_gatherv_args(const char *fn, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                            int root, MPI_Comm comm, int *role, struct faro_coll_blocks *blks);
int faro_inter_scatterv_args(const char *fn, const void *sendbuf, int sendcount,
                             const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, int *role, struct faro_coll_blocks *blks);
int faro_inter_allgatherv_args(const char *fn, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm,
                               struct faro_coll_blocks *send, struct faro_coll_blocks *recv);
int faro_inter_alltoallw_args(const char *fn, int w, const void *sendbuf, int sendcount,
                              const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, const MPI_Datatype sendtypes[],
                              void *recvbuf, int recvcount, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype,
                              const MPI_Datatype recvtypes[], MPI_Comm comm,
                              struct faro_coll_blocks *send, struct faro_coll_blocks *recv);
int faro_inter_reduce_args(const char *fn, const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, int *role);
int faro_inter_allreduce_args(const char *fn, const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm);
/* *total: the elements of each group's vector (the sum of the local counts) */
int faro_inter_reduce_scatter_args(const char *fn, const void *sendbuf, void *recvbuf,
                                   int recvcount, const int recvcounts[], MPI_Datatype type,
                                   MPI_Op op, MPI_Comm comm, int *total);
int faro_inter_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm);
/* recvcounts NULL: MPI_Reduce_scatter_block */
int faro_inter_reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, int recvcount,
                              const int recvcounts[], MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm);

#endif
