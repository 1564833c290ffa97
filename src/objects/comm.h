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

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "objects/arena.h"
#include "objects/predefined.h"

#define FARO_COMM_MAGIC 0x434f4d4du
#define FARO_COMM_FREED 0x66726565u /* the program freed it; requests may still use it */
#define FARO_COMM_PENDING 0x70656e64u /* an MPI_Comm_idup has not completed: not usable yet */
#define FARO_COMM_BROKEN 0x6c6f7374u /* a member beyond the job was lost: only free and
                                      * disconnect take it (runtime/dyn.h) */

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
    /* Creations from this communicator as parent, blocking or not (each
     * takes the next internal tag of its context id agreement). */
    unsigned ctx_seq;
    struct faro_coll_nodes *coll_nodes;
    /* Every communicator made by faro_comm_new is on one list, so that the
     * loss of a process beyond the job finds those that contain it. */
    struct faro_comm *all_next, *all_prev;
    int lost_peer;         /* FARO_COMM_BROKEN: the peer whose loss broke it */
};
FARO_PREDEFINED_WRAPPER(faro_comm, COMM);

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
/* The pool communicators come from (comm.c): a handle is read only once it
 * is known to lie in its arena. */
extern struct faro_pool faro_comm_pool;
/* 0 when usable; inline: every communicating call checks its communicator. */
static inline int faro_comm_check(MPI_Comm c)
{
    return faro_arena_has_recent(&faro_comm_pool.arena, c) && c->magic == FARO_COMM_MAGIC ? 0
                                                                                          : -1;
}
/* 1 when c is a communicator that lost a peer (only free and disconnect take it). */
int faro_comm_broken(MPI_Comm c);
/* 0 when usable for calls that do not communicate (names, errhandlers,
 * attributes, rank, size, group, info): also while an MPI_Comm_idup of it is
 * pending, as MPICH and Open MPI allow (mpi4py sets the errhandler of an idup's
 * communicator before waiting). Communication on it waits for completion. */
int faro_comm_check_local(MPI_Comm c);
/* The library's own operations (a pending nonblocking collective or idup)
 * may go on using a communicator the program freed: it lives while they hold
 * references. */
static inline int faro_comm_alive(MPI_Comm c)
{
    return c && (c->magic == FARO_COMM_MAGIC || (c->magic == FARO_COMM_FREED && c->refcount > 0));
}

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
/* Every communicator (of the program or the library) with peer among its
 * members, local or remote, is broken from now on. */
void faro_comm_break(int peer);
/* comm has a member that is not a rank of this job (peers.c). */
int faro_comm_has_dynamic(MPI_Comm c);

/* A new communicator over the job ranks world[0..size) (taken over; freed
 * with the communicator) on context ctx; this process is world[rank]. The
 * errhandler is inherited from parent. NULL when out of memory. */
MPI_Comm faro_comm_new(MPI_Comm parent, uint32_t ctx, int size, int *world, int rank);

/* ---- context ids (context.c) ----
 * Every process keeps a mask of the ids it has free; a creation agrees on the
 * lowest id (or two) free at every participant, safely while other creations
 * run at once (context.c says how). Participants that do not join the new
 * communicator (take = 0) only vote. */
#define FARO_CTX_NONE UINT32_MAX /* the id of a communicator still being agreed */
/* Reserved: ports' links carry their handshakes on it (port.c), each link
 * on its own tags. 0 and 1 are MPI_COMM_WORLD and MPI_COMM_SELF. */
#define FARO_CTX_LINK 2u
struct faro_ctx_spec {
    const char *fn;
    MPI_Comm tree;      /* the intracommunicator the participants exchange over */
    MPI_Comm errcomm;   /* where a failure is raised (NULL: tree) */
    const int *members; /* tree rank of participant i (NULL: (root + i) % n) */
    int root, n, me;    /* participants 0..n-1 (0 is the root); this process is me */
    int tag;            /* internal tag on tree */
    MPI_Comm bridge;    /* the root's way to the other group (intercommunicators, */
    int bridge_rank;    /* at the root only): its peer there and the tag; NULL */
    int bridge_tag;     /* for an intracommunicator */
    int bridge_peer_tag; /* the tag the other root receives on, when not bridge_tag
                          * (a port's link: dynconn.c); 0: bridge_tag */
    int take, want;     /* this process takes the ids; how many: 1 or 2 */
    uint32_t base;      /* where the first round looks for ids: the same at every
                         * participant, different for concurrent agreements */
};
/* The agreement of a creation collective over all of parent (intra: over
 * parent; inter: over both groups, local rank 0 the leaders), on the next tag
 * of parent (faro_ctx_tag). */
void faro_ctx_spec_whole(struct faro_ctx_spec *s, const char *fn, MPI_Comm parent, int take,
                         int want);
/* The next internal tag of a creation from comm (takes comm->ctx_seq); the
 * base of an agreement known as (context id, tag) at every participant. */
int faro_ctx_tag(MPI_Comm comm);
uint32_t faro_ctx_base(uint32_t ctx, int tag);
/* Agree and wait: ids[0..want) free at every taker, taken here when take.
 * Errors are raised on s->errcomm (NULL: s->tree). */
int faro_ctx_agree_spec(const struct faro_ctx_spec *s, uint32_t ids[2]);
/* The same without waiting: the progress engine runs it, and calls done with
 * MPI_SUCCESS or an error class (not raised; faro_ctx_failed raises it) and
 * the ids, under the library lock, from inside some later MPI call. */
int faro_ctx_agree_start(const struct faro_ctx_spec *s,
                         void (*done)(void *arg, int errclass, const uint32_t ids[2]),
                         void *arg);
int faro_ctx_failed(const char *fn, MPI_Comm comm, int errclass);
/* Shorthands: one id over all of parent; over the n parent ranks members[]
 * only (this process is members[me]), tag separating concurrent calls. */
int faro_ctx_agree(const char *fn, MPI_Comm parent, int take, uint32_t *ctx);
int faro_ctx_agree_group(const char *fn, MPI_Comm parent, const int *members, int n, int me,
                         int tag, uint32_t *ctx);
void faro_ctx_release(uint32_t ctx);
/* Internal tags of the agreements: creations from a communicator as parent
 * FARO_TAG_CTX_BASE - ctx_seq % FARO_TAG_CTX_SEQS; MPI_Comm_create_group
 * FARO_TAG_GROUP_BASE - tag % FARO_TAG_GROUP_TAGS (concurrent calls on one
 * parent are told apart by their tags, up to 2^30 apart). */
#define FARO_TAG_CTX_BASE (-(1 << 20))
#define FARO_TAG_CTX_SEQS 65536
#define FARO_TAG_GROUP_BASE (-(1 << 30))
#define FARO_TAG_GROUP_TAGS (1 << 30)

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
/* At the members other than the leader, an error the leader raised (code:
 * the leader's own, whose text lives there): each raises its own, of the
 * same class, saying so. */
int faro_leader_failed(const char *fn, MPI_Comm comm, int code, int leader);
/* spawn.c: a spawned job's MPI_Init connects to its parents (0, or -1 with
 * err); the program freed or disconnected c (the parent's, maybe). */
int faro_spawn_connect(char *err, size_t errlen);
void faro_spawn_forget(MPI_Comm c);
/* An intercommunicator over lw[0..ln) (this process is lw[rank]) and
 * rw[0..rn), both taken over, on ids[0], its local communicator on ids[1]
 * (all released on failure); errors raised on parent_local under fn. */
int faro_inter_new(const char *fn, MPI_Comm parent_local, const uint32_t ids[2], int ln,
                   int *lw, int rank, int rn, int *rw, MPI_Comm *out);
/* Give inter (whose world[] is set) its private local intracommunicator on
 * context lctx (taken over); -1 when out of memory. */
int faro_inter_make_local(MPI_Comm inter, uint32_t lctx);
/* MPI_Comm_split and MPI_Comm_create on an intercommunicator (arguments
 * checked): the new intercommunicator joins the members of one colour (the
 * given subgroups) on both sides; MPI_COMM_NULL where a side has none. */
int faro_inter_split(const char *fn, MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int faro_inter_create(const char *fn, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
/* Internal tags FARO_TAG_COMM_BASE down to FARO_TAG_COMM_BASE - 99 are reserved for
 * this area (unused since the agreements moved to FARO_TAG_CTX/GROUP_BASE). */
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
