/*
 * Requests: one object per send or receive, from the post until the user sees
 * it complete. The address of a request is its identity on the wire (sreq and
 * rreq in the headers), so requests come from a pool and never move.
 */
#ifndef FARO_P2P_REQUEST_H
#define FARO_P2P_REQUEST_H

#include "core.h"

enum faro_req_kind {
    FARO_REQ_SEND, FARO_REQ_RECV,
    FARO_REQ_DONE, /* born complete */
    FARO_REQ_GREQ, /* generalized: completed by the program (grequest.c) */
    FARO_REQ_COLL, /* nonblocking collective: ctx is its schedule (coll/nbc_sched.c) */
    FARO_REQ_COMM, /* MPI_Comm_idup: ctx is the new communicator (objects/comm.c) */
    FARO_REQ_OPS   /* made of other operations: ctx starts with its faro_req_ops (below) */
};
enum faro_send_mode { FARO_MODE_STANDARD, FARO_MODE_SYNC, FARO_MODE_READY, FARO_MODE_BUFFERED };

#define FARO_REQ_MAGIC 0x52455121u

struct faro_request {
    uint32_t magic;
    uint8_t kind, mode;
    uint8_t persistent;    /* Send_init/Recv_init: survives completion, holds its type */
    uint8_t active;        /* persistent: started and not yet waited */
    uint8_t user_freed;    /* MPI_Request_free while in flight: release on completion */
    uint8_t internal;      /* owned by the library (buffered send), not the user */
    uint8_t landed;        /* staged receive: the data is already in the user's buffer */
    uint8_t pack_lazy;     /* staged send: each pipeline fragment is packed as it leaves */
    volatile int complete;
    int pending;           /* transport completions and replies still awaited */
    MPI_Status status;
    MPI_Comm comm;

    /* what the user gave */
    void *ubuf;
    MPI_Count count;       /* the int calls' counts too: one wide path */
    MPI_Datatype type;
    int rank;              /* dest (send) or source (recv) in comm; may be a wildcard */
    int tag;

    /* the contiguous bytes on the wire */
    char *data;            /* user buffer itself, or tmp */
    size_t len;            /* send: bytes to send; recv: capacity */
    void *tmp;             /* packed/staging copy for non-contiguous types */
    int peer;              /* job rank of the partner */

    /* rendezvous */
    uint64_t rreq;         /* the receiver's request (pipeline) */
    size_t off;            /* next byte to send (pipeline) */
    size_t total, received;/* receive side of a pipeline; total: also the size of a
                            * truncated message */
    int inflight;
    faro_tp_mem_t *reg;    /* sender: the registration the receiver reads from */
    faro_tp_rkey_t *rkey;  /* receiver: the sender's key, while gets are under way */

    void (*on_complete)(struct faro_request *); /* internal requests */
    void *ctx;
    struct faro_request *next; /* posted queue / free list */
};

/* A request of kind FARO_REQ_OPS (MPI_Isendrecv, persistent collectives,
 * partitioned requests) is run by the file that made it: its ctx points to a
 * struct whose first member points to these. The file completes the request
 * with faro_req_complete; the core calls start on MPI_Start of a persistent
 * one (after checking it is inactive and marking it active), cancel on
 * MPI_Cancel, destroy when the request is released (ctx is then the file's
 * to free). what names the operation in messages ("MPI_Isendrecv"). */
struct faro_req_ops {
    const char *what;
    int (*start)(struct faro_request *r);
    int (*cancel)(struct faro_request *r);
    void (*destroy)(struct faro_request *r);
};
static inline const struct faro_req_ops *faro_req_ops_of(const struct faro_request *r)
{
    return *(const struct faro_req_ops *const *)r->ctx;
}

struct faro_request *faro_req_alloc(int kind, MPI_Comm comm);
void faro_req_release(struct faro_request *r);
/* Free the staging copy of the last start (r->tmp) and the type reference it held. */
void faro_req_unstage(struct faro_request *r);
/* Mark complete; frees it when the user already let go of it. */
void faro_req_complete(struct faro_request *r);
int faro_req_check(MPI_Request r); /* 0 when r is a live request */
/* The process beyond the job at peer index peer was lost: every send to it
 * (unless !sends_too), receive from it (matched, or posted for it or for any
 * source of a communicator it broke) completes with MPI_ERR_PROC_ABORTED. */
void faro_req_fail_peer(int peer, int sends_too);
/* How many operations on comm (or its local communicator) are not complete (cold: walks every
 * slab; MPI_Comm_disconnect waits for none). */
int faro_req_pending_on(MPI_Comm comm);

/* grequest.c: the program's callbacks of a generalized request. */
int faro_greq_query(struct faro_request *r);   /* fill r->status */
int faro_greq_free(struct faro_request *r);    /* the free callback, once */
void faro_greq_destroy(struct faro_request *r);/* at release */
int faro_greq_cancel(struct faro_request *r);

static inline void faro_status_empty(MPI_Status *s)
{
    s->MPI_SOURCE = MPI_ANY_SOURCE;
    s->MPI_TAG = MPI_ANY_TAG;
    s->MPI_ERROR = MPI_SUCCESS;
    s->faro_cancelled = 0;
    s->faro_count = 0;
}

/* The rendezvous protocol for a peer whose transport has attributes a
 * (FARO_RNDV_PROTOCOL, faro.rndv, forces one where the transport offers it;
 * otherwise the first offered of get, put, pipeline). Sender and receiver
 * compute it alike; each side also copes with the other's choice (an RTS
 * without a key, a CTS_PUT the sender cannot use). */
enum { FARO_RNDV_AUTO, FARO_RNDV_GET, FARO_RNDV_PUT, FARO_RNDV_PIPELINE };
static inline int faro_rndv_choice(const faro_tp_attr_t *a)
{
    if (faro.rndv == FARO_RNDV_PIPELINE)
        return FARO_RNDV_PIPELINE;
    if (faro.rndv == FARO_RNDV_PUT && (a->caps & FARO_TP_CAP_PUT))
        return FARO_RNDV_PUT;
    if (a->caps & FARO_TP_CAP_GET)
        return FARO_RNDV_GET;
    return (a->caps & FARO_TP_CAP_PUT) ? FARO_RNDV_PUT : FARO_RNDV_PIPELINE;
}

/* send.c: a blocking standard send, arguments checked, that fits the peer's
 * eager and inline limits goes out now without a request (nothing will refer
 * to it: no acknowledgement, no rendezvous). 1 when it left; 0 when the
 * caller must post a request (not small, not contiguous, MPI_PROC_NULL, the
 * transport said "again", or failed: the request's path reports that). */
int faro_send_inline_now(MPI_Comm comm, const void *buf, MPI_Count count, MPI_Datatype type,
                         int dest, int tag);
/* send.c / recv.c: start the protocol for a prepared request */
int faro_send_start(struct faro_request *r);
int faro_recv_start(struct faro_request *r);
/* Prepare data/len from the user's buffer; a non-contiguous send leaves data
 * NULL and faro_send_start packs it as its protocol needs. */
int faro_send_prepare(struct faro_request *r);
int faro_recv_prepare(struct faro_request *r);
/* A receive's bytes are all in: unpack, complete. */
void faro_recv_finish(struct faro_request *r);
/* Control message (header only, or with a small payload that is copied) to
 * a peer; never fails silently. */
void faro_send_ctrl(int peer, unsigned kind, const void *hdr, size_t hdrlen);
void faro_send_ctrl_data(int peer, unsigned kind, const void *hdr, size_t hdrlen,
                         const void *data, size_t len);
/* The placement upcall of faro_tp_env_t (direct reads of DATA fragments). */
void *faro_place(void *core, void *ctx, unsigned kind, const void *hdr, size_t hdrlen,
                 size_t len);
/* Installs the protocol handlers on a transport. */
void faro_p2p_handlers(struct faro_transport *t);
void faro_recv_handlers(struct faro_transport *t); /* recv.c's share of it */
/* A transport failed an operation for peer: a job rank's failure ends the
 * job; for a process beyond the job it returns (its loss fails what waits
 * for it, dynpeer.c), and faro_req_tp_failed marks the request that failed. */
void faro_tp_failed(int peer, const char *op, int rc);
void faro_req_tp_failed(struct faro_request *r, const char *op, int rc);

#endif
