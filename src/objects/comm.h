/*
 * Communicators (owner: comm.c, context.c, topo.c).
 *
 * A communicator is a context id (the point-to-point matching space, agreed
 * by its members at creation), the job rank of each member, and what the
 * program hangs on it (errhandler, name, attributes, topology).
 *
 * Lifetime: the program's handle holds one reference and every request on
 * the communicator holds one (faro_comm_retain/release from request.c), so
 * MPI_Comm_free of a communicator with pending requests only marks it freed;
 * the memory and the context id go when the last request is released.
 */
#ifndef FARO_OBJECTS_COMM_H
#define FARO_OBJECTS_COMM_H

#include <stdint.h>
#include "mpi.h"

#define FARO_COMM_MAGIC 0x434f4d4du

struct faro_attr;
struct faro_topo;

struct faro_comm {
    uint32_t magic;        /* FARO_COMM_MAGIC while the program may use the handle */
    uint32_t context_id;   /* point-to-point matching context */
    int rank, size;
    int *world;            /* world[r]: job rank of comm rank r (NULL: identity) */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    int predefined;
    struct faro_attr *attrs; /* attribute list (attr.c) */
    int refcount;          /* the handle + pending requests (user communicators) */
    struct faro_topo *topo;  /* Cartesian/graph topology (topo.c), or NULL */
    MPI_Info info;         /* hints given by the program (a private copy), or NULL */
    /* Intercommunicators (intercomm.c): rank, size and world[] describe the
     * local group; point-to-point ranks name the remote group. Both groups
     * share context_id; local is a private intracommunicator over the local
     * group (its own context id) for the local steps of collectives. */
    int inter;
    int remote_size;
    int *remote_world;     /* job rank of remote rank r */
    struct faro_comm *local;
    /* Collectives (coll/): nonblocking collectives started (each takes the
     * next internal tag), and the node map of the node-aware algorithms. */
    unsigned nbc_seq;
    struct faro_coll_nodes *coll_nodes;
};

/* The job rank of the process a point-to-point rank r names (on an
 * intercommunicator, remote rank r). */
static inline int faro_comm_world_rank(MPI_Comm c, int r)
{
    if (c->inter)
        return c->remote_world[r];
    return c->world ? c->world[r] : r;
}
/* The number of ranks a point-to-point rank may name. */
static inline int faro_comm_peer_size(MPI_Comm c) { return c->inter ? c->remote_size : c->size; }
int faro_comm_check(MPI_Comm c); /* 0 when usable */

/* References held by requests (request.c). */
void faro_comm_destroy(MPI_Comm c);
static inline void faro_comm_retain(MPI_Comm c)
{
    if (c && !c->predefined)
        c->refcount++;
}
static inline void faro_comm_release(MPI_Comm c)
{
    if (c && !c->predefined && --c->refcount == 0)
        faro_comm_destroy(c);
}

/* Raise the error of a bad communicator argument under fn. */
int faro_comm_bad(const char *fn, MPI_Comm c);

/* A new communicator over the job ranks world[0..size) (taken over; freed
 * with the communicator) on context ctx; this process is world[rank]. The
 * errhandler is inherited from parent. NULL when out of memory. */
MPI_Comm faro_comm_new(MPI_Comm parent, uint32_t ctx, int size, int *world, int rank);

/* ---- context ids (context.c) ----
 * Every process keeps a mask of the ids it has free; a creation agrees on the
 * lowest id free at every participant. Participants that do not join the new
 * communicator (take = 0) only vote. */
int faro_ctx_agree(const char *fn, MPI_Comm parent, int take, uint32_t *ctx);
/* The same among the n parent ranks members[] only (this process is
 * members[me]), by point-to-point on parent; tag separates concurrent calls. */
int faro_ctx_agree_group(const char *fn, MPI_Comm parent, const int *members, int n, int me,
                         int tag, uint32_t *ctx);
void faro_ctx_release(uint32_t ctx);
/* Intercommunicator agreement: the masks are ANDed over local, the leaders
 * (local rank leader) exchange theirs by point-to-point on peer with rank
 * peer_rank and internal tag itag, and local broadcasts the result; both
 * groups take the lowest id free at every member of both. */
int faro_ctx_agree_inter(const char *fn, MPI_Comm local, int leader, MPI_Comm peer,
                         int peer_rank, int itag, uint32_t *ctx);

/* ---- intercommunicators (intercomm.c) ---- */
/* Internal tags: FARO_TAG_INTER_BASE down to FARO_TAG_INTER_BASE - 99. */
#define FARO_TAG_INTER_BASE (-1100)
/* Raises errclass under fn when comm is an intercommunicator (calls defined
 * on intracommunicators only: MPI_ERR_COMM; not built for intercommunicators
 * yet: MPI_ERR_UNSUPPORTED_OPERATION); 0 otherwise. */
int faro_comm_intra_only(const char *fn, MPI_Comm comm, int errclass);
#define FARO_CHECK_INTRA(fn, c, errclass)                                                     \
    do {                                                                                      \
        int intra_rc_ = faro_comm_intra_only(fn, c, errclass);                                \
        if (intra_rc_)                                                                        \
            return intra_rc_;                                                                 \
    } while (0)
/* Give inter (whose world[], remote_world[] are set) its private local
 * intracommunicator, agreed over parent_local (the local group). */
int faro_inter_make_local(const char *fn, MPI_Comm parent_local, MPI_Comm inter);
/* MPI_Comm_split and MPI_Comm_create on an intercommunicator (arguments
 * checked): the new intercommunicator joins the members of one colour (the
 * given subgroups) on both sides; MPI_COMM_NULL where a side has none. */
int faro_inter_split(const char *fn, MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int faro_inter_create(const char *fn, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
/* Internal tags of this area: FARO_TAG_COMM_BASE down to FARO_TAG_COMM_BASE - 99. */
#define FARO_TAG_COMM_BASE (-1000)

/* ---- topologies (topo.c) ---- */
struct faro_topo *faro_topo_dup(const struct faro_topo *t);
void faro_topo_free(struct faro_topo *t);
/* The neighbours of this process in comm's topology, in the order the
 * neighbourhood collectives use: sources in[0..indeg) and destinations
 * out[0..outdeg) (Cartesian: per dimension the -1 then the +1 neighbour,
 * MPI_PROC_NULL off a non-periodic edge; graph: the node's edges both ways,
 * as MPI_Graph_neighbors gives them; distributed graph: as
 * MPI_Dist_graph_neighbors gives them). The arrays belong to the topology and
 * live as long as comm. Returns the kind (MPI_CART, MPI_GRAPH,
 * MPI_DIST_GRAPH), or -1 when comm has no topology. */
int faro_topo_neighbors(MPI_Comm comm, int *indeg, const int **in, int *outdeg,
                        const int **out);
/* comm (a live intracommunicator) has a topology on which neighbourhood
 * collectives are defined: MPI_SUCCESS, else MPI_ERR_TOPOLOGY raised under fn
 * (no topology; a graph whose adjacency matrix is not symmetric). The answer
 * is the same at every process of comm. */
int faro_topo_check_neighborhood(const char *fn, MPI_Comm comm);

#endif
