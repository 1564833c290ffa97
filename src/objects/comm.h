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
};

static inline int faro_comm_world_rank(MPI_Comm c, int r) { return c->world ? c->world[r] : r; }
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
/* Internal tags of this area: FARO_TAG_COMM_BASE down to FARO_TAG_COMM_BASE - 99. */
#define FARO_TAG_COMM_BASE (-1000)

/* ---- topologies (topo.c) ---- */
struct faro_topo *faro_topo_dup(const struct faro_topo *t);
void faro_topo_free(struct faro_topo *t);
/* The neighbours of this process in comm's topology, in the order the
 * neighbourhood collectives use: sources in[0..indeg) and destinations
 * out[0..outdeg) (Cartesian: per dimension the -1 then the +1 neighbour,
 * MPI_PROC_NULL off a non-periodic edge; graph: the node's edges both ways).
 * Both arrays are malloc'd for the caller to free. -1: no topology / memory. */
int faro_topo_neighbors(MPI_Comm comm, int *indeg, int **in, int *outdeg, int **out);

#endif
