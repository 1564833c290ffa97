/*
 * The core's objects and its internal entry points. Nothing here names a
 * transport: peers reach transports through struct faro_peer (an ops table, its
 * state and its attributes), chosen once at MPI_Init.
 */
#ifndef FARO_CORE_H
#define FARO_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi.h"
#include "objects/predefined.h"
#include "transport.h"

#define FARO_TAG_UB 2147483647

/* ---- objects: one header per object, each owned by its .c file ---- */
#include "objects/handles.h"
#include "objects/datatype.h"
#include "objects/op.h"
#include "objects/info.h"
#include "objects/attr.h"
#include "rma/win.h"

/* ---- errors ---- */

#define FARO_ERRHANDLER_MAGIC 0x45524841u

struct faro_errhandler {
    uint32_t magic; /* FARO_ERRHANDLER_MAGIC while the handle is live */
    int kind; /* FARO_EH_FATAL, FARO_EH_RETURN, FARO_EH_ABORT, FARO_EH_USER */
    MPI_Comm_errhandler_function *fn;
    int refcount;   /* user handlers: the program's handle + each object using it */
    int predefined;
};
FARO_PREDEFINED_WRAPPER(faro_errhandler, ERRHANDLER);
enum { FARO_EH_FATAL, FARO_EH_RETURN, FARO_EH_ABORT, FARO_EH_USER };

/* References held by objects (a communicator holds one on its errhandler):
 * take one when an object starts using eh, drop it when it stops; the last
 * drop frees a user handler. Predefined handlers are not counted. */
void faro_errhandler_retain(MPI_Errhandler eh);
void faro_errhandler_release(MPI_Errhandler eh);
/* 0 when eh is a live errhandler (predefined or user). */
int faro_errhandler_check(MPI_Errhandler eh);
/* A user errhandler calling f, for MPI_Comm_ and MPI_Win_create_errhandler
 * (fn: the call, for its errors). The kind of f is the caller's word. */
int faro_errhandler_create(const char *fn, MPI_Comm_errhandler_function *f, MPI_Errhandler *eh);
/* The MPI_LASTUSEDCODE attribute: the last class or code the program added
 * (MPI_ERR_LASTCODE before any). */
extern int faro_lastusedcode;

/* Raise an error in an MPI call: builds "FUNC: message", stores it behind the
 * returned code (MPI_Error_string gives it back), and invokes the comm's
 * errhandler (NULL comm: MPI_COMM_WORLD's). Returns the code for the caller to
 * return when the handler returns. */
int faro_err(MPI_Comm comm, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* init.c: the runtime's references (MPI_Init and each session hold one):
 * the first brings it up at thread level required (*provided: the level it
 * has), the last release takes it down; once down it cannot come up again
 * (MPI_ERR_OTHER raised under fn). */
int faro_runtime_acquire(const char *fn, int required, int *provided);
void faro_runtime_release(void);
/* errors.c: record a message and return its code without calling any
 * errhandler (for objects with handlers of their own: sessions). */
int faro_err_code(int errclass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Until called again with NULL, a message that starts "from:" is recorded
 * as "to:" (a persistent collective's init runs the nonblocking call's
 * checks under the init's name: coll/persistent.c). */
void faro_err_alias(const char *from, const char *to);
/* The name fn goes by under the alias in force (to for from), else fn. */
const char *faro_err_alias_name(const char *fn);
/* Raise a code that came from the program (a callback's return value, an
 * MPI_Add_error_code code) unchanged: comm's errhandler gets it and the call
 * returns it. fmt says where it came from, for the fatal message. */
int faro_err_pass(MPI_Comm comm, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same on an object of another kind (files): eh is its handler, obj the
 * handle its user handler gets a copy of, object its name ("file"). */
int faro_obj_verr(MPI_Errhandler eh, void *obj, const char *object, int errclass,
                  const char *fmt, va_list ap);
int faro_obj_err_pass(MPI_Errhandler eh, void *obj, const char *object, int code);
/* Ends the job: message on stderr, then the launcher is asked to end every rank. */
_Noreturn void faro_fatal(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same when the cause is that job rank lost failed or went away under us
 * (a lost connection, a transport error with it): the launcher is told
 * which rank, so that it reports that rank's own end (killed by a signal,
 * MPI_Abort, an exit) as the cause when it learns of it, and this message
 * only when nothing explains it (faro_pmi_abort_error). */
_Noreturn void faro_fatal_lost(int code, int lost, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Give the default action back to every signal whose handler one of the
 * transports' libraries installed (runtime/signals.c says which and why). */
void faro_signals_restore(void);

#include "objects/group.h"
#include "objects/comm.h"

/* ---- point-to-point for collectives ----
 * Like MPI_Isend/Irecv/Send/Recv/Sendrecv on comm, with an internal tag at or
 * below FARO_TAG_COLL_MAX: user receives never match it (MPI_ANY_TAG included)
 * and errors are reported under fn, the collective's name. Requests from the
 * i-variants are completed with MPI_Wait/Waitall/Test like any other. */
#define FARO_TAG_COLL_MAX (-2)
int faro_coll_isend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type, int dest,
                    int tag, MPI_Comm comm, MPI_Request *req);
int faro_coll_irecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int source,
                    int tag, MPI_Comm comm, MPI_Request *req);
int faro_coll_send(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type, int dest,
                   int tag, MPI_Comm comm);
int faro_coll_recv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int source,
                   int tag, MPI_Comm comm, MPI_Status *status);
int faro_coll_sendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       int dest, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                       int tag, MPI_Comm comm, MPI_Status *status);
/* Wait until the requests of a blocking call (reqs[0..n), null and inactive
 * ones skipped) are complete (any: one of them), as a wait the hang report
 * shows under fn (runtime/hang.h; NULL: under the owner of the requests'
 * internal tag, for collectives). Completes nothing for the caller. */
void faro_wait_reqs(const char *fn, struct faro_request *const *reqs, int n, int any);

/* ---- peers and transports ---- */

/* What a transport instance carried, by protocol, for MPI_T's performance
 * variables (src/mpit/pvar.c): counted where the protocol layer decides (a
 * send) or an arrival is handed to the core (its first fragment), two adds
 * into a line the message path already reads. Not atomic: at
 * MPI_THREAD_MULTIPLE these paths run under the library lock. */
enum faro_tp_count { /* a message's two counts apart: gcc would pair them in SSE */
    FARO_CNT_EAGER_SENT, FARO_CNT_RNDV_SENT, FARO_CNT_EAGER_RECVD, FARO_CNT_RNDV_RECVD,
    FARO_CNT_EAGER_SENT_BYTES, FARO_CNT_RNDV_SENT_BYTES, FARO_CNT_EAGER_RECVD_BYTES,
    FARO_CNT_RNDV_RECVD_BYTES, FARO_CNT_N
};

struct faro_transport {
    const faro_tp_ops_t *ops;
    faro_tp_t *tp;
    faro_tp_attr_t attr;
    faro_tp_env_t env;     /* this instance's: env.core points back here */
    int used;              /* may carry traffic: progress polls it */
    uint64_t count[FARO_CNT_N]; /* enum faro_tp_count */
};

/* An instance's counts outlive it (MPI_T reads them after MPI_Finalize):
 * wireup.c hands them over before freeing it. */
void faro_mpit_retire(const struct faro_transport *t);

/* A process as a destination and a source: a job rank (index below
 * faro.size), or a process beyond the job reached through MPI_Comm_accept /
 * MPI_Comm_connect / MPI_Comm_join (index faro.size and up, peers.c). Its
 * transport and endpoint are chosen at the first message either way
 * (wireup.c, dynpeer.c): by this rank's first send (faro_peer_get), or by
 * the peer's connection (the accepted upcall). The endpoint's context in the
 * transport is the peer itself. Entries never move: transports hold pointers
 * to them. */
enum faro_peer_kind {
    FARO_PEER_JOB,   /* a rank of this job */
    FARO_PEER_DYN,   /* a process of another job, known by its gpid */
    FARO_PEER_LINK,  /* a port connection while its handshake runs (port.c) */
    FARO_PEER_FREE,  /* a slot to reuse */
};
/* How to send to a peer and its receive state: one cache line, so that the
 * index into the table is one shift on the send and receive paths. A second
 * endpoint of a peer beyond the job (dyn.h) is an "alias": a struct
 * faro_peer outside the table whose rank names the peer. */
struct faro_peer {
    struct faro_transport *t; /* NULL until connected */
    faro_tp_ep_t *ep;
    int rank;              /* index in faro.peers (an alias: its peer's index) */
    uint32_t node;         /* node id: equal for processes on one host (peers.c) */
    size_t eager_limit;    /* effective: user knobs applied */
    size_t max_inline;
    size_t frag;           /* pipeline fragment */
    struct faro_unexp *eager_in; /* multi-fragment eager message being received */
    struct faro_request *placed; /* matched at placement; its payload is arriving */
};
_Static_assert(sizeof(struct faro_peer) == 64, "struct faro_peer is one cache line");

/* The rest of what the core keeps about peer i, off the message path:
 * faro.pinfo[i] (peers.c). */
struct faro_peer_info {
    uint64_t gpid;         /* the process's id in every job (peers.c) */
    struct faro_dyn_desc *desc; /* how to reach a process beyond the job (dynpeer.c) */
    struct faro_link *link;     /* a link's handshake state (port.c) */
    uint16_t eps;          /* dynamic peers: its endpoints not yet lost (dynpeer.c) */
    uint8_t kind;          /* enum faro_peer_kind */
    uint8_t lost;          /* its connections broke (dynamic peers; dynpeer.c) */
};

struct faro_state {
    int initialized, finalized;
    int rank, size;
    int thread_level;
    int local_rank, local_size, node, nnodes;
    int *node_of, *local_ranks;
    struct faro_peer *peers; /* job ranks, then the processes beyond the job */
    struct faro_peer_info *pinfo; /* the same entries' cold part */
    int npeers;            /* entries in use (peers.c); maps indexed by peer: this many */
    uint64_t job_uid;      /* random, from rank 0: the job part of every gpid */
    uint32_t job_check;    /* 24 more random bits: tells jobs apart if two uids collide */
    char **hosts;          /* host name of each node id; the job's nodes first */
    int nhosts;
    struct faro_transport *tps;
    int ntps;
    int yield;             /* wait policy resolved */
    int depth;             /* FARO_RNDV_PIPELINE_DEPTH */
    int rndv;              /* FARO_RNDV_PROTOCOL: FARO_RNDV_* (p2p/request.h) */
    char jobid[256];
    char hostname[MPI_MAX_PROCESSOR_NAME];
    long outstanding;      /* transport operations not yet completed */
    int nstandby;          /* transports alive but carrying no peer yet (wireup.c) */
    unsigned polls;        /* progress calls, for polling standby transports */
};
extern struct faro_state faro;

/* wireup.c */
int faro_wireup(char *err, size_t errlen);
/* faro.hostname: FARO_HOSTNAME (set by mpiexec), else gethostname(). */
void faro_node_name(void);
/* Name the job's nodes (faro.hosts) whose names the wire-up did not learn
 * (with PMI_process_mapping only this node's is known): one get per node,
 * once, before processes of other jobs are placed by host name. Every
 * process must group them alike for the node-aware collectives. */
void faro_name_nodes(void);
#define FARO_UNNAMED "\x01" /* starts the placeholder name of a node not named yet */
/* Choose a transport for p and connect to it (the first message to it). */
void faro_peer_connect(struct faro_peer *p);
static inline struct faro_peer *faro_peer_get(int rank)
{
    struct faro_peer *p = &faro.peers[rank];
    if (__builtin_expect(!p->ep, 0))
        faro_peer_connect(p);
    return p;
}
void faro_wireup_finalize(void);
/* p's messages go through t's endpoint ep from now on (wireup.c). */
void faro_bind_peer(struct faro_peer *p, struct faro_transport *t, faro_tp_ep_t *ep);
void faro_quiesce(void); /* wait until every posted message has left this process */
/* A process of another job on this node became a peer: FARO_WAIT_POLICY=auto
 * yields from now on when this node's processes outnumber its cores. */
void faro_wait_more_here(void);
int faro_comm_init(void);

/* peers.c: the table of peers. Job ranks are entries 0..size-1; entries for
 * processes beyond the job are added after them and never move. */
int faro_peers_init(int size, char *err, size_t errlen);
void faro_peers_finalize(void);
/* A new entry (kind set, everything else zero); -1 when the table is full. */
int faro_peer_new(int kind);
void faro_peer_free_slot(int index); /* a link's slot, for reuse */
/* The gpid of a job rank: (job_uid << 24) | rank. */
#define FARO_GPID_RANK_BITS 24
static inline uint64_t faro_job_gpid(int rank)
{
    return faro.job_uid << FARO_GPID_RANK_BITS | (uint64_t)rank;
}
/* The entry of the process with this gpid: its job rank when it is in this
 * job, else its dynamic entry; -1 when unknown (create: a new empty entry,
 * -1 only when the table is full). */
int faro_peer_by_gpid(uint64_t gpid, int create);
/* The node id of a host name (an existing one, or a new one). */
int faro_node_of_host(const char *host);
/* "rank 3", or "rank 3 of job 5e1a04c2d7 (host h)" for a process beyond the job. */
const char *faro_peer_name(int index, char *buf, size_t len);

#include "runtime/thread.h"

/* progress.c */
int faro_progress(void);           /* poll every transport once, then the pollers */
/* The transports carrying peers changed (a first peer bound to one, or all
 * finalized): faro_progress lists again which it polls (wireup.c). */
void faro_progress_transports(void);
/* Work outside the transports that needs polling (nonblocking collective
 * schedules, later one-sided operations and GPU pipelines) registers a
 * poller while it has something in flight; faro_progress calls each after
 * the transports. fn returns the events it saw. Registering returns a slot
 * for unregister, or -1 when all FARO_MAX_POLLERS are taken. */
#define FARO_MAX_POLLERS 8
int faro_progress_register(int (*fn)(void *arg), void *arg);
void faro_progress_unregister(int slot);
void faro_progress_idle(int events); /* the wait policy, after an idle poll */

#define FARO_WAIT_UNTIL(cond)                       \
    do {                                            \
        while (!(cond))                             \
            faro_progress_idle(faro_progress());    \
    } while (0)

#endif
