/*
 * Faro transport interface.
 *
 * A transport moves opaque messages between the processes of one job. The core
 * (src/) reaches every transport only through the ops table below; a transport
 * never sees an MPI object (communicator, datatype, request). Peers are named by
 * their job-wide rank, an integer in [0, env->size).
 *
 * Life of a transport
 * -------------------
 *  1. init: called once per process from MPI_Init, before any peer is known to be
 *     reachable. The transport probes the machine (devices, /dev/shm space, ptrace
 *     rules, interfaces), creates its local endpoint (a listening socket, a
 *     receive segment) and fills its attributes: capabilities and limits, as data.
 *     If it cannot work here it returns FARO_TP_UNAVAILABLE and writes one line
 *     into `why` saying why ("/dev/shm has 1 MiB free, needs 8 MiB; remount with
 *     size=..."), which faro_info and the debug log print. init never blocks on
 *     other processes.
 *  2. addr_get: the endpoint's address as an opaque blob (at most
 *     FARO_TP_MAX_ADDR bytes). The core publishes it in the job's key-value store
 *     and, after a job-wide barrier, hands every peer's blob to connect.
 *  3. connect(peer, blob): called once for each peer the core chose this
 *     transport for. It must not block: it may finish at once or leave the work
 *     to progress. Sends to a peer whose connection is not finished are legal:
 *     the transport queues them in order.
 *  4. wireup_done: called once, after a second job-wide barrier that follows
 *     every process's connect calls. Everything a peer needed to attach to is
 *     now attached; a transport removes names it published in the file system
 *     here (shm unlinks its segment, so a crash leaves nothing behind).
 *     The attributes filled at init may still be narrowed until wireup_done
 *     returns (shm clears GET when its CMA probe read from a peer fails); the
 *     core reads them after it.
 *  5. send_inline / isend / get / put move data (below). progress polls.
 *  6. finalize: called after a job-wide barrier in MPI_Finalize, once every send
 *     the core posted has completed and flush said nothing is held. Releases everything; a peer closing its end
 *     after this point is not a failure.
 *
 * Messages
 * --------
 * A message is a header of at most FARO_TP_MAX_HDR bytes, a kind in
 * [0, FARO_TP_MAX_KINDS), and a payload. The header is opaque to the transport:
 * it is delivered byte for byte, with the kind, to the handler the core
 * installed for that kind with set_handler. Per (sender, receiver) pair a
 * transport delivers messages in the order they were posted, whether they went
 * by send_inline or isend; that order is what MPI's non-overtaking rule stands on.
 *
 *  - send_inline copies header and payload out before it returns (the caller
 *    may reuse both at once). hdrlen + len must not exceed attr.max_inline. It
 *    returns FARO_TP_AGAIN when it cannot send now without blocking, including
 *    when earlier isends to the same peer are still queued (order!); the core
 *    then falls back to isend.
 *  - isend sends a header plus a payload gathered from an iovec (total payload
 *    at most attr.max_send bytes). The header is copied during the call; the
 *    payload memory belongs to the transport until completion. It returns
 *    FARO_TP_DONE when everything was sent (copied out) during the call, in
 *    which case `done` is NOT called; or FARO_TP_OK when the send was queued,
 *    in which case `done(arg, status)` is called exactly once, later, from
 *    progress. isend never returns FARO_TP_AGAIN: the transport queues.
 *
 * Receiving: during progress the transport calls handler(core, peer, hdr,
 * hdrlen, data, len) for every arrived message. `hdr` and `data` point into the
 * transport's memory and are valid only until the handler returns; the core
 * copies what it keeps. A handler may call send_inline, isend, get and put
 * (a rendezvous reply is sent from inside the handler); it never calls progress.
 *
 * RDMA-style operations (caps PUT/GET): mem_reg describes local memory for a
 * peer and writes a packed remote key of attr.rkey_size bytes; the core ships
 * the key in a header; the peer calls get (or put) with that key and the remote
 * address. For CMA (shm) the key is the owner's pid and get is one
 * process_vm_readv; for self it is a memcpy. Like isend, get and put return
 * FARO_TP_DONE when complete during the call, FARO_TP_OK when `done` will be
 * called from progress. A transport without these caps still carries every
 * message: the core falls back to a pipeline of isend fragments.
 *
 * Failure: when a peer goes away (connection reset, EOF before finalize) the
 * transport calls env->peer_failed(core, peer, why) from progress. The core
 * ends the job with that message; nothing waits forever on a dead peer.
 *
 * Threads: the core serializes every call into a transport (one lock or one
 * thread), unless attr.caps has FARO_TP_CAP_THREAD_SAFE.
 *
 * Ops a transport does not offer point at explicit stubs that return
 * FARO_TP_UNSUPPORTED; no op is ever NULL. faro_tp_unsupported_* below are the
 * shared stubs.
 */
#ifndef FARO_TRANSPORT_H
#define FARO_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define FARO_TP_MAX_HDR 64
#define FARO_TP_MAX_KINDS 16
#define FARO_TP_MAX_ADDR 256
#define FARO_TP_MAX_RKEY 32
#define FARO_TP_MAX_GET_IOV 1024 /* local iovecs of one get (Linux UIO_MAXIOV) */

enum faro_tp_status {
    FARO_TP_OK = 0,           /* accepted; completion comes later through `done` */
    FARO_TP_DONE = 1,         /* completed during the call; `done` is not called */
    FARO_TP_AGAIN = 2,        /* cannot proceed now without blocking; try later */
    FARO_TP_ERR = -1,         /* failed; the transport printed or returned why */
    FARO_TP_UNSUPPORTED = -2, /* this transport does not offer the op */
    FARO_TP_UNAVAILABLE = -3, /* init: this transport cannot work here (see why) */
};

enum faro_tp_cap {
    FARO_TP_CAP_PUT = 1u << 0,         /* put to registered remote memory */
    FARO_TP_CAP_GET = 1u << 1,         /* get from registered remote memory */
    FARO_TP_CAP_SINGLE_COPY = 1u << 2, /* get/put move data with one copy (CMA) and
                                        * complete during the call (FARO_TP_DONE) */
    FARO_TP_CAP_LOCAL_ONLY = 1u << 3,  /* reaches only peers on this node */
    FARO_TP_CAP_SELF_ONLY = 1u << 4,   /* reaches only this process */
    FARO_TP_CAP_THREAD_SAFE = 1u << 5, /* ops may be called from several threads at once */
    FARO_TP_CAP_DEVICE_MEM = 1u << 6,  /* can move GPU memory */
};

typedef struct faro_tp_attr {
    uint32_t caps;          /* FARO_TP_CAP_* */
    size_t max_inline;      /* largest hdrlen + len send_inline accepts */
    size_t max_send;        /* largest payload of one isend (a fragment) */
    size_t eager_limit;     /* payload size up to which the core sends eagerly */
    int eager_limit_user;   /* 1 when eager_limit came from the user's per-transport knob */
    size_t frag_size;       /* preferred rendezvous pipeline fragment (<= max_send) */
    size_t max_get;         /* largest single get/put; 0 when not offered */
    size_t rkey_size;       /* bytes of a packed remote key (<= FARO_TP_MAX_RKEY) */
    double latency_us;      /* hints for choosing between transports */
    double bandwidth_mbs;
} faro_tp_attr_t;

/* What the core tells a transport about the job. Valid from init to finalize. */
typedef struct faro_tp_env {
    int rank, size;          /* this process and the job size */
    const int *node_of;      /* node_of[r]: node index of rank r */
    int local_rank;          /* index among the ranks of this node */
    int local_size;          /* ranks on this node */
    const int *local_ranks;  /* local_ranks[i]: job rank of the i-th rank on this node */
    const char *jobid;       /* unique per job; [A-Za-z0-9_-] only, safe in file names.
                              * Names a transport creates in the file system start
                              * with "/<jobid>-" so the launcher can remove leftovers. */
    const uint8_t *job_key;  /* random secret shared by the job's ranks only */
    size_t job_key_len;
    int ncores;              /* usable cores on this node (for spin/yield choices) */
    void *core;              /* passed back in upcalls */
    void (*peer_failed)(void *core, int peer, const char *why);
    /* Optional placement upcall for transports that read a stream (tcp): with
     * the header of a message in hand but not yet its payload, a transport may
     * ask where the payload should land. A non-NULL answer is memory of len
     * bytes the transport fills directly; it then calls the kind's handler
     * with data pointing there. NULL: deliver as usual from its own buffer.
     * Asking again for the same message gets the same answer; the core may
     * match the message when asked, so a transport asks only once the
     * messages before it from that peer were delivered. */
    void *(*place)(void *core, int peer, unsigned kind, const void *hdr, size_t hdrlen,
                   size_t len);
} faro_tp_env_t;

typedef struct faro_tp faro_tp_t; /* a transport's private state */

typedef void (*faro_tp_handler_fn)(void *core, int peer, const void *hdr, size_t hdrlen,
                                   const void *data, size_t len);
typedef void (*faro_tp_done_fn)(void *arg, int status);

typedef struct faro_tp_ops {
    const char *name; /* "self", "shm", "tcp": used in FARO_TRANSPORTS and reports */

    int (*init)(faro_tp_t **tp, const faro_tp_env_t *env, faro_tp_attr_t *attr, char *why,
                size_t whylen);
    int (*finalize)(faro_tp_t *tp);

    int (*addr_get)(faro_tp_t *tp, void *blob, size_t *len);
    int (*connect)(faro_tp_t *tp, int peer, const void *blob, size_t len);
    int (*wireup_done)(faro_tp_t *tp);
    int (*listen)(faro_tp_t *tp);             /* servers and dynamic processes; */
    int (*accept)(faro_tp_t *tp, int *peer);  /* unsupported in every transport yet */
    int (*disconnect)(faro_tp_t *tp, int peer);

    int (*set_handler)(faro_tp_t *tp, unsigned kind, faro_tp_handler_fn fn);
    int (*send_inline)(faro_tp_t *tp, int peer, unsigned kind, const void *hdr, size_t hdrlen,
                       const void *data, size_t len);
    int (*isend)(faro_tp_t *tp, int peer, unsigned kind, const void *hdr, size_t hdrlen,
                 const struct iovec *iov, int iovcnt, faro_tp_done_fn done, void *arg);

    int (*mem_reg)(faro_tp_t *tp, void *buf, size_t len, void *rkey, void **handle);
    int (*mem_dereg)(faro_tp_t *tp, void *handle);
    int (*put)(faro_tp_t *tp, int peer, const void *local, size_t len, const void *rkey,
               uint64_t raddr, faro_tp_done_fn done, void *arg);
    /* get reads the iovecs' total length from raddr onward (contiguous at the
     * peer) into the local iovecs in order (at most FARO_TP_MAX_GET_IOV), so a
     * receiver can land data straight in a non-contiguous buffer. */
    int (*get)(faro_tp_t *tp, int peer, const struct iovec *local, int iovcnt, const void *rkey,
               uint64_t raddr, faro_tp_done_fn done, void *arg);
    /* FARO_TP_DONE when nothing this process posted to `peer` (every peer
     * when -1) is still held inside the transport: every message is in the
     * peer's memory or the kernel, every get/put is complete. FARO_TP_AGAIN
     * otherwise; never blocks. MPI_Finalize polls progress until every
     * transport says DONE, before its barrier. Every transport implements it. */
    int (*flush)(faro_tp_t *tp, int peer);

    /* Poll once: deliver arrived messages, run completions. Returns the number
     * of events (0 when idle) or FARO_TP_ERR. Never blocks. */
    int (*progress)(faro_tp_t *tp);
} faro_tp_ops_t;

/* The transports built into this library, in default preference order; NULL-terminated. */
extern const faro_tp_ops_t *const faro_transports[];

/* Shared "not supported" stubs, for ops a transport does not offer. */
int faro_tp_unsupported_listen(faro_tp_t *tp);
int faro_tp_unsupported_accept(faro_tp_t *tp, int *peer);
int faro_tp_unsupported_mem_reg(faro_tp_t *tp, void *buf, size_t len, void *rkey, void **handle);
int faro_tp_unsupported_mem_dereg(faro_tp_t *tp, void *handle);
int faro_tp_unsupported_put(faro_tp_t *tp, int peer, const void *local, size_t len,
                            const void *rkey, uint64_t raddr, faro_tp_done_fn done, void *arg);
int faro_tp_unsupported_get(faro_tp_t *tp, int peer, const struct iovec *local, int iovcnt,
                            const void *rkey, uint64_t raddr, faro_tp_done_fn done, void *arg);

#endif
