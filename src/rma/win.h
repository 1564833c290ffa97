/*
 * Windows (owner: src/rma/). A window is the memory a group of processes
 * exposes to one another's one-sided operations, and the state of the
 * synchronization epochs on it.
 *
 * Every window has a private communicator over the group it was created on
 * (its own context id): all the window's traffic (the operations' active
 * messages, replies, acknowledgements, the PSCW notices, the fence and free
 * barriers) goes over it on internal tags, so it can never match a message
 * of the program. rma.h holds the protocol state each window points to.
 *
 * Lifetime: MPI_Win_create/allocate/allocate_shared/create_dynamic make it
 * (collectively), MPI_Win_free ends it (collectively, after every operation
 * of every member on it has completed). The attribute list (attr.c) goes
 * first at free, like a communicator's.
 */
#ifndef FARO_RMA_WIN_H
#define FARO_RMA_WIN_H

#include <stdint.h>
#include "mpi.h"

#define FARO_WIN_MAGIC 0x57494e44u

struct faro_attr;
struct faro_rma_origin;
struct faro_rma_target;
struct faro_rma_single;

/* What each member published at creation, indexed by its rank in the window. */
struct faro_win_rank {
    uint64_t base;         /* its base address (shared windows: offset in the segment) */
    uint64_t size;         /* bytes exposed (dynamic: 0) */
    int64_t disp_unit;
};

struct faro_win {
    uint32_t magic;          /* FARO_WIN_MAGIC while the program may use the handle */
    MPI_Comm comm;           /* private: the creation communicator's group, own context */
    struct faro_attr *attrs; /* attribute list (attr.c) */
    MPI_Errhandler errhandler; /* inherited from the creation communicator */
    MPI_Info info;           /* the hints as given (MPI_Win_get_info), or NULL */
    char name[MPI_MAX_OBJECT_NAME];
    int flavor;              /* MPI_WIN_FLAVOR_* */
    int model;               /* MPI_WIN_UNIFIED */
    void *base;              /* local memory (dynamic: MPI_BOTTOM) */
    MPI_Aint size;
    int disp_unit;
    int node_local;          /* every member on this node */
    int no_locks;            /* info no_locks=true: passive target is erroneous */
    struct faro_win_rank *ranks; /* [comm->size] */
    void *seg;               /* the mapping of the node's segment (shared, and allocate on
                              * one node when direct) */
    int direct;              /* operations are loads and stores in seg (direct.c) */
    size_t seglen;
    void *owned;             /* allocate: the memory this window frees */
    struct faro_rma_origin *o; /* origin side of the protocol (rma.h) */
    struct faro_rma_target *t; /* target side */
    struct faro_rma_single *sc; /* single-copy keys (single.c), or NULL */
    struct faro_win *next;   /* the list of live windows the poller serves */
};

int faro_win_check(MPI_Win w); /* 0 when usable */
/* The MPI_ERR_WIN error of a bad window argument under fn (raised on
 * MPI_COMM_WORLD's handler: a bad window has none). */
int faro_win_bad(const char *fn, MPI_Win w);
/* Raise an error on a window (its errhandler): like faro_err (errors.c). */
int faro_win_err(MPI_Win win, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A code that came from elsewhere (a completed request's), unchanged. */
int faro_win_err_pass(MPI_Win win, int code);
/* MPI_Win_get_attr's predefined keys (MPI_WIN_BASE...): 1 when keyval is one. */
int faro_win_predefined_attr(MPI_Win win, int keyval, void *value, int *flag);
/* MPI_Finalize: stop the progress thread (FARO_ASYNC_PROGRESS), if it runs. */
void faro_rma_finalize(void);
/* MPI_Init_thread: whether FARO_ASYNC_PROGRESS asks for the library lock. */
int faro_rma_wants_threads(void);

#endif
