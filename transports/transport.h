/*
 * Faro transport interface, version 2.
 *
 * A transport moves opaque messages, and (where it can) reads and writes
 * remote memory, between endpoints. Its user is "the owner": the MPI core for
 * the ranks of a job, or any other client of the transports (a test program,
 * a server outside the job). The owner reaches a transport only through the
 * ops table below; a transport never sees an MPI object (communicator,
 * datatype, request) and links without the MPI core: it may use only the
 * base layer (base/: logging, tunables) besides the C library and its own
 * system libraries.
 *
 * Objects
 * -------
 *   faro_tp_t       one instance of a transport in this process (init..finalize)
 *   faro_tp_ep_t    an endpoint: the transport's handle for one remote process
 *   faro_tp_mem_t   a registration of local memory (the local side of get/put,
 *                   and what a remote key is packed from)
 *   faro_tp_rkey_t  a remote key, unpacked for one endpoint
 * All four are opaque and owned by the transport: it allocates them and frees
 * them in disconnect / mem_dereg / rkey_release / finalize.
 *
 * Life of a transport
 * -------------------
 *  1. init: probe the machine (devices, providers, /dev/shm space, ptrace
 *     rules, interfaces), create the local endpoint (a listening socket, a
 *     receive segment, a fabric endpoint) and fill the attributes: capabilities
 *     and limits, as data. A transport that cannot work here returns
 *     FARO_TP_UNAVAILABLE with one line in `why` ("/dev/shm has 1 MiB free,
 *     needs 8 MiB; remount with size=..."), which faro_info and the log print;
 *     FARO_TP_ERR means it is broken, not merely absent. On FARO_TP_OK it may
 *     leave in `why` a note of what it found and chose (lines separated by
 *     newlines: ofi's providers), which faro_info prints and the MPI core
 *     ignores. init never blocks on other processes.
 *  2. addr_get: this endpoint's address, an opaque blob of at most
 *     FARO_TP_MAX_ADDR bytes. The owner publishes it (the MPI core: in the
 *     job's key-value store).
 *  3. connect: the owner asks for an endpoint to the process behind an address
 *     blob. connect never blocks: the endpoint is returned at once and sends
 *     to it are legal immediately (they queue, in order, until the connection
 *     is up). The MPI core connects lazily, at the first message to a peer,
 *     except for peers reached by a node-local transport (shm), which it
 *     connects during MPI_Init: their number is bounded by the node's cores.
 *  4. accepted (an upcall, not an op): the first time a process that
 *     connected to us shows itself, during progress, the transport calls
 *     env->accepted(core, ep, id, port) with the id the connector gave, before
 *     any of its messages reaches a handler. The owner returns the context
 *     pointer that handlers will get for this endpoint, or NULL to refuse it
 *     (the transport closes it). A transport that knows its peers without a
 *     connection (shm's rings are per sender) calls it at the first message.
 *     Two processes of one job may connect to each other at the same moment:
 *     the transport resolves that itself and shows the owner one endpoint per
 *     remote job rank (id below env->size, port 0), so a pair's messages keep
 *     one order.
 *  5. wireup_done: called once during MPI_Init after every eager connect of
 *     the job (a barrier separates them). A transport removes names it
 *     published in the file system here (shm unlinks its segment), and may
 *     narrow its attributes one last time (shm clears GET when its CMA probe
 *     read from a peer failed); the owner reads them after it.
 *  6. send_inline / isend / get / put move data (below); progress polls.
 *  7. disconnect(ep): FARO_TP_AGAIN while sends posted to ep are still queued
 *     (progress, then call again); then the endpoint is closed and invalid for
 *     the owner, and the remote side sees an orderly close (env->ep_lost with
 *     orderly = 1).
 *  8. finalize: the MPI core calls it after a job-wide barrier in
 *     MPI_Finalize, once every send it posted has completed and flush said
 *     nothing is held. It releases everything; a peer closing after this
 *     point is not a failure.
 *
 * Identities, keys and endpoints outside the job
 * ----------------------------------------------
 * Every connection authenticates before anything it carries reaches the
 * owner. By default a connector presents env->job_key and its id (its job
 * rank) and an acceptor takes only that key; ids below env->size are the
 * job's ranks. listen(key) opens a "port": connections that present that key
 * are accepted too and reported with that port number in env->accepted (the
 * owner decides what their ids mean: the MPI core listens once per process
 * with a "dynamic key" whose clients present their gpid, and once per
 * MPI_Open_port, whose clients present a link number; a GPU server's
 * clients). connect with a key reaches such a port in another job or a
 * server; each such connect makes a new endpoint, and two processes that
 * connect to each other's ports at once keep both (only job ranks are
 * settled to one endpoint per pair). A transport may also take, in a connect
 * with a key, an address a user typed: text such as "HOST:PORT" with no NUL
 * byte, addrlen its length (blobs from addr_get always hold a zero byte);
 * its man page says which forms (tcp: HOST:PORT, listening on a fixed port
 * with FARO_TCP_PORT). Keys travel only to the transport's own
 * listening endpoint; what a key proves is written in each transport's man
 * page.
 *
 * Messages
 * --------
 * A message is a header of at most FARO_TP_MAX_HDR bytes, a kind in
 * [0, FARO_TP_MAX_KINDS) and a payload. The header is opaque to the transport:
 * it is delivered byte for byte, with the kind, to the handler the owner
 * installed for that kind with set_handler.
 *
 * Ordering: per endpoint, messages are delivered in the order they were
 * posted, whether by send_inline or by isend. This is a contract, not a
 * capability: MPI's non-overtaking rule stands on it, and the core keeps no
 * sequence numbers (measured and decided in docs/transports.md). A transport
 * over an unordered network restores the order itself (ofi asks its provider
 * for FI_ORDER_SAS). get and put are not ordered with messages, except that a
 * put's `done` means remote completion (below).
 *
 *  - send_inline copies header and payload out before it returns (the caller
 *    may reuse both at once). hdrlen + len must not exceed attr.max_inline. It
 *    returns FARO_TP_AGAIN when it cannot send now without blocking, including
 *    when earlier isends to the same endpoint are still queued (order!) or the
 *    connection is not up yet; the caller then falls back to isend.
 *  - isend sends a header plus a payload gathered from an iovec (total payload
 *    at most attr.max_send bytes). The header is copied during the call; the
 *    payload memory belongs to the transport until completion. It returns
 *    FARO_TP_DONE when everything was sent (copied out) during the call, in
 *    which case `done` is NOT called; or FARO_TP_OK when the send was queued,
 *    in which case `done(arg, status)` is called exactly once, later, from
 *    progress. isend never returns FARO_TP_AGAIN: the transport queues. How
 *    much a transport may queue is its own bound, stated in its man page.
 *
 * Receiving: during progress the transport calls handler(core, ctx, hdr,
 * hdrlen, data, len) for every arrived message, ctx being what the owner
 * returned from accepted or gave to connect for that endpoint. `hdr` and
 * `data` point into the transport's memory and are valid only until the
 * handler returns; the owner copies what it keeps. A handler may call
 * send_inline, isend, get, put and connect; it never calls progress.
 *
 * Remote memory (caps GET/PUT)
 * ----------------------------
 * mem_reg registers local memory with access flags and a memory type and
 * returns a faro_tp_mem_t. rkey_pack writes a remote key for it (at most
 * attr.rkey_size bytes); the owner ships the key to the peer in its own
 * messages (the MPI core puts it in the RTS header when it fits, in the RTS
 * payload otherwise), and the peer turns it into a faro_tp_rkey_t with
 * rkey_unpack for the endpoint it came from. get and put then move bytes
 * between local iovecs and the remote range starting at the remote virtual
 * address raddr (inside the registered range); when attr.caps has
 * FARO_TP_CAP_LOCAL_REG the local iovecs must lie inside `lmem`, a
 * registration of this process with FARO_TP_MEM_LOCAL, otherwise lmem may be
 * NULL. One get or put moves at most attr.max_get / attr.max_put bytes and at
 * most FARO_TP_MAX_IOV local iovecs: the owner splits larger transfers.
 *
 * get and put are asynchronous in general: FARO_TP_OK means `done` comes
 * later from progress; FARO_TP_DONE means the transfer completed during the
 * call (CMA, self). For get, done means the bytes are in local memory. For
 * put, done means remote completion: the bytes are in the target's memory,
 * and a message posted after done is delivered after them. flush(ep) reports
 * whether anything posted to ep is still held (below).
 *
 * Registration cache: the owner pairs every mem_reg with one mem_dereg and
 * may register the same memory many times. A transport whose registrations
 * are expensive keeps a cache behind these two calls (mem_reg finds a
 * covering registration, mem_dereg defers the real deregistration) and owns
 * its invalidation when the program frees or remaps the memory; the owner
 * never sees the cache. Which mechanism each transport uses is in its man
 * page.
 *
 * Failure
 * -------
 * When an endpoint goes away (connection reset, end of file without an
 * orderly close, the process gone) the transport calls env->ep_lost(core,
 * ctx, 0, why) from progress, once; after an orderly disconnect or finalize
 * of the other side, ep_lost(core, ctx, 1, NULL). The policy is the owner's:
 * the MPI core ends the job when a job peer is lost, and fails what waits
 * for a lost process of another job (runtime/dyn.h); a server drops the lost
 * client and goes on. Sends queued to a lost endpoint complete with a
 * negative status, all of them before ep_lost is called (the owner may then
 * release what still waits for that endpoint); later sends to it return
 * FARO_TP_ERR. Messages that arrived before the loss are delivered before
 * ep_lost. After the owner's own disconnect(ep), nothing more is called for
 * ep.
 *
 * Waiting
 * -------
 * wait_fd gives a file descriptor that becomes readable when progress may
 * have something to do (level-triggered: it stays readable while input is
 * pending). An owner whose last poll found nothing calls wait_fd on each of
 * its transports (again before every sleep: a transport may arm its
 * descriptor then, as libfabric's fi_trywait requires, and makes it readable
 * at once when sleeping is not safe) and may then sleep in poll() on them,
 * with a timeout. A transport that polls memory offers one by pairing it with
 * a flag in that memory (shm: the receiver arms the flag and looks at its
 * rings once more; a sender that finds it armed after a message rings a
 * doorbell socket; shm_wait.c has the handshake). A transport that cannot
 * offer one (ofi over a provider without a wait object) returns
 * FARO_TP_UNSUPPORTED, and an owner using it keeps polling.
 *
 * A transport whose work all comes from the owner's own calls (self: what
 * this process sent to itself) may point attr.pending at its count of the
 * work progress would find; the owner then calls progress only while that
 * count is nonzero, and needs no wait fd from it (none is asked for while
 * the count is zero; the owner does not sleep while it is not). Others leave
 * it NULL and are polled on every call.
 *
 * Threads: the owner serializes every call into one transport instance (one
 * lock or one thread), unless attr.caps has FARO_TP_CAP_THREAD_SAFE.
 *
 * Ops a transport does not offer point at explicit stubs that return
 * FARO_TP_UNSUPPORTED (faro_tp_unsupported_* below); no op is ever NULL.
 */
#ifndef FARO_TRANSPORT_H
#define FARO_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define FARO_TP_MAX_HDR 64
#define FARO_TP_MAX_KINDS 16
#define FARO_TP_MAX_ADDR 256
#define FARO_TP_MAX_RKEY 256  /* bytes of a packed remote key, at most */
#define FARO_TP_MAX_KEY 64    /* bytes of a job or port key, at most */
#define FARO_TP_MAX_IOV 1024  /* local iovecs of one get or put (Linux UIO_MAXIOV) */

enum faro_tp_status {
    FARO_TP_OK = 0,           /* accepted; completion comes later through `done` */
    FARO_TP_DONE = 1,         /* completed during the call; `done` is not called */
    FARO_TP_AGAIN = 2,        /* cannot proceed now without blocking; try later */
    FARO_TP_ERR = -1,         /* failed; the transport logged or returned why */
    FARO_TP_UNSUPPORTED = -2, /* this transport does not offer the op */
    FARO_TP_UNAVAILABLE = -3, /* init: this transport cannot work here (see why) */
};

enum faro_tp_cap {
    FARO_TP_CAP_PUT = 1u << 0,         /* put to registered remote memory */
    FARO_TP_CAP_GET = 1u << 1,         /* get from registered remote memory */
    FARO_TP_CAP_SINGLE_COPY = 1u << 2, /* get/put copy once and complete during the call
                                        * (FARO_TP_DONE): CMA, self */
    FARO_TP_CAP_LOCAL_ONLY = 1u << 3,  /* reaches only processes on this node */
    FARO_TP_CAP_SELF_ONLY = 1u << 4,   /* reaches only this process */
    FARO_TP_CAP_THREAD_SAFE = 1u << 5, /* ops may be called from several threads at once */
    FARO_TP_CAP_DEVICE_MEM = 1u << 6,  /* mem_reg takes FARO_TP_MEM_DEVICE */
    FARO_TP_CAP_LOCAL_REG = 1u << 7,   /* get/put need the local side registered (lmem) */
    FARO_TP_CAP_PORTS = 1u << 8,       /* listen and connect with a key: endpoints
                                        * outside the job */
};

/* mem_reg flags: what the remote side may do, and what memory it is. */
enum faro_tp_mem_flag {
    FARO_TP_MEM_LOCAL = 1u << 0,        /* the local side of this process's get/put */
    FARO_TP_MEM_REMOTE_READ = 1u << 1,  /* peers may get from it */
    FARO_TP_MEM_REMOTE_WRITE = 1u << 2, /* peers may put into it */
    FARO_TP_MEM_DEVICE = 1u << 8,       /* GPU memory (caps DEVICE_MEM) */
};

typedef struct faro_tp_attr {
    uint32_t caps;          /* FARO_TP_CAP_* */
    size_t max_inline;      /* largest hdrlen + len send_inline accepts */
    size_t max_send;        /* largest payload of one isend (a fragment) */
    size_t eager_limit;     /* payload size up to which the core sends eagerly */
    int eager_limit_user;   /* 1 when eager_limit came from the user's per-transport knob */
    size_t frag_size;       /* preferred rendezvous pipeline fragment (<= max_send) */
    size_t max_get;         /* largest single get; 0 when not offered */
    size_t max_put;         /* largest single put; 0 when not offered */
    size_t rkey_size;       /* bytes of a packed remote key (<= FARO_TP_MAX_RKEY) */
    double latency_us;      /* hints for choosing between transports */
    double bandwidth_mbs;
    const int *pending;     /* NULL, or the work progress would find ("Waiting") */
} faro_tp_attr_t;

typedef struct faro_tp faro_tp_t;           /* a transport instance's private state */
typedef struct faro_tp_ep faro_tp_ep_t;     /* one remote endpoint */
typedef struct faro_tp_mem faro_tp_mem_t;   /* one local registration */
typedef struct faro_tp_rkey faro_tp_rkey_t; /* one unpacked remote key */

/* What the owner tells a transport instance. Valid from init to finalize. */
typedef struct faro_tp_env {
    int rank, size;          /* this process and the job size (a lone server: 0 of 1) */
    const int *node_of;      /* node_of[r]: node index of job rank r */
    int local_rank;          /* index among the ranks of this node */
    int local_size;          /* ranks on this node */
    const int *local_ranks;  /* local_ranks[i]: job rank of the i-th rank on this node */
    const char *jobid;       /* unique per job; [A-Za-z0-9_-] only, safe in file names.
                              * Names a transport creates in the file system start
                              * with "/<jobid>-" so the launcher can remove leftovers. */
    const uint8_t *job_key;  /* random secret shared by the job's ranks only */
    size_t job_key_len;      /* <= FARO_TP_MAX_KEY */
    int ncores;              /* usable cores on this node (for spin/yield choices) */
    void *core;              /* passed back in upcalls */
    /* A process connected to us and authenticated (see "accepted" above).
     * Returns the endpoint's context for handlers, or NULL to refuse it. */
    void *(*accepted)(void *core, faro_tp_ep_t *ep, uint64_t id, unsigned port);
    /* An endpoint went away: orderly (its owner disconnected or finalized) or
     * not, with a one-line reason. Called once per endpoint, from progress. */
    void (*ep_lost)(void *core, void *ctx, int orderly, const char *why);
    /* Optional, for transports that read a stream (tcp): with the header of a
     * message in hand but not yet its payload, a transport may ask where the
     * payload should land. A non-NULL answer is memory of len bytes the
     * transport fills directly; it then calls the kind's handler with data
     * pointing there. NULL: deliver as usual from its own buffer. Asking again
     * for the same message gets the same answer; the owner may match the
     * message when asked, so a transport asks only once the messages before it
     * from that endpoint were delivered. NULL in env: never ask. */
    void *(*place)(void *core, void *ctx, unsigned kind, const void *hdr, size_t hdrlen,
                   size_t len);
} faro_tp_env_t;

/* How to reach an endpoint (connect). */
typedef struct faro_tp_conn {
    const void *addr;        /* the remote addr_get blob */
    size_t addrlen;
    uint64_t id;             /* who we are for the remote side: our job rank, or an id
                              * the port's owner understands */
    const uint8_t *key;      /* the remote port's key; NULL: our job key (job peers) */
    size_t keylen;
    void *ctx;               /* handlers and ep_lost get this for the endpoint */
} faro_tp_conn_t;

typedef void (*faro_tp_handler_fn)(void *core, void *ctx, const void *hdr, size_t hdrlen,
                                   const void *data, size_t len);
typedef void (*faro_tp_done_fn)(void *arg, int status);

typedef struct faro_tp_ops {
    const char *name; /* "self", "shm", "tcp": used in FARO_TRANSPORTS and reports */

    int (*init)(faro_tp_t **tp, const faro_tp_env_t *env, faro_tp_attr_t *attr, char *why,
                size_t whylen);
    int (*finalize)(faro_tp_t *tp);

    /* ---- endpoints ---- */
    int (*addr_get)(faro_tp_t *tp, void *blob, size_t *len);
    /* The endpoint to conn->addr, new or (for a job rank already connected or
     * accepted) the existing one. Never blocks. */
    int (*connect)(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **ep);
    int (*wireup_done)(faro_tp_t *tp);
    /* Accept connections that present key too; *port names them in accepted. */
    int (*listen)(faro_tp_t *tp, const uint8_t *key, size_t keylen, unsigned *port);
    int (*unlisten)(faro_tp_t *tp, unsigned port);
    int (*disconnect)(faro_tp_t *tp, faro_tp_ep_t *ep);

    /* ---- messages ---- */
    int (*set_handler)(faro_tp_t *tp, unsigned kind, faro_tp_handler_fn fn);
    int (*send_inline)(faro_tp_t *tp, faro_tp_ep_t *ep, unsigned kind, const void *hdr,
                       size_t hdrlen, const void *data, size_t len);
    int (*isend)(faro_tp_t *tp, faro_tp_ep_t *ep, unsigned kind, const void *hdr,
                 size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
                 void *arg);

    /* ---- remote memory ---- */
    int (*mem_reg)(faro_tp_t *tp, void *buf, size_t len, unsigned flags, faro_tp_mem_t **mem);
    int (*mem_dereg)(faro_tp_t *tp, faro_tp_mem_t *mem);
    int (*rkey_pack)(faro_tp_t *tp, const faro_tp_mem_t *mem, void *buf, size_t *len);
    int (*rkey_unpack)(faro_tp_t *tp, faro_tp_ep_t *ep, const void *buf, size_t len,
                       faro_tp_rkey_t **rkey);
    int (*rkey_release)(faro_tp_t *tp, faro_tp_rkey_t *rkey);
    int (*get)(faro_tp_t *tp, faro_tp_ep_t *ep, const struct iovec *local, int iovcnt,
               faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
               faro_tp_done_fn done, void *arg);
    int (*put)(faro_tp_t *tp, faro_tp_ep_t *ep, const struct iovec *local, int iovcnt,
               faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
               faro_tp_done_fn done, void *arg);

    /* ---- completion and polling ---- */
    /* FARO_TP_DONE when nothing this process posted to ep (every endpoint when
     * NULL) is still held inside the transport: every message is in the
     * peer's memory or the kernel, every get/put is complete. FARO_TP_AGAIN
     * otherwise; never blocks. */
    int (*flush)(faro_tp_t *tp, faro_tp_ep_t *ep);
    /* Poll once: deliver arrived messages, run completions. Returns the number
     * of events (0 when idle) or FARO_TP_ERR. Never blocks. */
    int (*progress)(faro_tp_t *tp);
    /* A descriptor that is readable while progress may find work (see
     * "Waiting"), or FARO_TP_UNSUPPORTED. */
    int (*wait_fd)(faro_tp_t *tp, int *fd);
} faro_tp_ops_t;

/* The transports built into this library, in default preference order; NULL-terminated. */
extern const faro_tp_ops_t *const faro_transports[];
/* A list of transport names as FARO_TRANSPORTS spells it (separated by commas
 * or spaces): the position of name in it, -1 when absent; and a check that
 * every name in it is built in (-1 with err naming the stranger and the
 * transports there are). MPI_Init and faro_info judge the list alike. */
int faro_tp_list_pos(const char *list, const char *name);
int faro_tp_list_check(const char *list, char *err, size_t errlen);

/* Shared "not supported" stubs, for ops a transport does not offer. */
int faro_tp_unsupported_listen(faro_tp_t *tp, const uint8_t *key, size_t keylen,
                               unsigned *port);
int faro_tp_unsupported_unlisten(faro_tp_t *tp, unsigned port);
int faro_tp_unsupported_mem_reg(faro_tp_t *tp, void *buf, size_t len, unsigned flags,
                                faro_tp_mem_t **mem);
int faro_tp_unsupported_mem_dereg(faro_tp_t *tp, faro_tp_mem_t *mem);
int faro_tp_unsupported_rkey_pack(faro_tp_t *tp, const faro_tp_mem_t *mem, void *buf,
                                  size_t *len);
int faro_tp_unsupported_rkey_unpack(faro_tp_t *tp, faro_tp_ep_t *ep, const void *buf,
                                    size_t len, faro_tp_rkey_t **rkey);
int faro_tp_unsupported_rkey_release(faro_tp_t *tp, faro_tp_rkey_t *rkey);
int faro_tp_unsupported_get(faro_tp_t *tp, faro_tp_ep_t *ep, const struct iovec *local,
                            int iovcnt, faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey,
                            uint64_t raddr, faro_tp_done_fn done, void *arg);
int faro_tp_unsupported_put(faro_tp_t *tp, faro_tp_ep_t *ep, const struct iovec *local,
                            int iovcnt, faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey,
                            uint64_t raddr, faro_tp_done_fn done, void *arg);
int faro_tp_unsupported_wait_fd(faro_tp_t *tp, int *fd);

#endif
