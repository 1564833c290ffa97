/*
 * The core's objects and its internal entry points. Nothing here names a
 * transport: peers reach transports through struct faro_peer (an ops table, its
 * state and its attributes), chosen once at MPI_Init.
 */
#ifndef FARO_CORE_H
#define FARO_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "mpi.h"
#include "transport.h"

#define FARO_TAG_UB 2147483647

/* ---- datatypes ---- */

struct faro_seg {
    MPI_Aint off; /* from the element's start */
    size_t len;
};

struct faro_datatype {
    size_t size;           /* bytes of data per element */
    MPI_Aint lb, extent;   /* element spacing */
    int contig;            /* one segment at offset 0 with size == extent */
    int nseg;
    struct faro_seg *seg;  /* the element's typemap as byte segments */
    int predefined;
    const char *name;
};

int faro_type_check(MPI_Datatype t); /* 0 when usable in communication */
/* Copy count elements between a typed buffer and a contiguous byte stream. */
void faro_type_pack(const void *buf, size_t count, MPI_Datatype t, void *out);
void faro_type_unpack(const void *in, size_t bytes, void *buf, MPI_Datatype t);

/* ---- errors ---- */

struct faro_errhandler {
    int kind; /* FARO_EH_FATAL, FARO_EH_RETURN, FARO_EH_ABORT, FARO_EH_USER */
    MPI_Comm_errhandler_function *fn;
    int refcount;
    int predefined;
};
enum { FARO_EH_FATAL, FARO_EH_RETURN, FARO_EH_ABORT, FARO_EH_USER };

/* Raise an error in an MPI call: builds "FUNC: message", stores it behind the
 * returned code (MPI_Error_string gives it back), and invokes the comm's
 * errhandler (NULL comm: MPI_COMM_WORLD's). Returns the code for the caller to
 * return when the handler returns. */
int faro_err(MPI_Comm comm, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Ends the job: message on stderr, then the launcher is asked to end every rank. */
_Noreturn void faro_fatal(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- communicators ---- */

struct faro_comm {
    uint32_t context_id;   /* point-to-point matching context */
    int rank, size;
    int *world;            /* world[r]: job rank of comm rank r (NULL: identity) */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    int predefined;
};

static inline int faro_comm_world_rank(MPI_Comm c, int r) { return c->world ? c->world[r] : r; }
int faro_comm_check(MPI_Comm c); /* 0 when usable */

/* ---- peers and transports ---- */

struct faro_transport {
    const faro_tp_ops_t *ops;
    faro_tp_t *tp;
    faro_tp_attr_t attr;
    int used;              /* carries traffic to at least one peer: progress polls it */
};

struct faro_peer {
    struct faro_transport *t;
    size_t eager_limit;    /* effective: user knobs applied */
    size_t max_inline;
    size_t frag;           /* pipeline fragment */
    struct faro_unexp *eager_in; /* multi-fragment eager message being received */
    struct faro_request *placed; /* matched at placement; its payload is arriving */
    uint32_t node;
};

struct faro_state {
    int initialized, finalized;
    int rank, size;
    int thread_level;
    int local_rank, local_size, node, nnodes;
    int *node_of, *local_ranks;
    struct faro_peer *peers;
    struct faro_transport *tps;
    int ntps;
    int yield;             /* wait policy resolved */
    int depth;             /* FARO_RNDV_PIPELINE_DEPTH */
    char jobid[256];
    char hostname[MPI_MAX_PROCESSOR_NAME];
    long outstanding;      /* transport operations not yet completed */
};
extern struct faro_state faro;

/* wireup.c */
int faro_wireup(char *err, size_t errlen);
void faro_wireup_finalize(void);
void faro_quiesce(void); /* wait until every posted message has left this process */
int faro_comm_init(void);

/* progress.c */
int faro_progress(void);           /* poll every transport once; events seen */
void faro_progress_idle(int events); /* the wait policy, after an idle poll */

#define FARO_WAIT_UNTIL(cond)                       \
    do {                                            \
        while (!(cond))                             \
            faro_progress_idle(faro_progress());    \
    } while (0)

#endif
