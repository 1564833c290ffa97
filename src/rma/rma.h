/*
 * One-sided communication: the active-message protocol (owner: src/rma/).
 *
 * Every operation is a message from the origin to the target over the
 * window's private communicator, carried by the core's own point-to-point
 * (so it works over every transport, with its eager and rendezvous paths),
 * and applied at the target by the window poller (am.c) that the progress
 * engine runs: whenever the target is inside any MPI call, or always when
 * the progress thread of FARO_ASYNC_PROGRESS runs (win_create.c).
 *
 * A request message (RMA_TAG_REQ) is a struct rma_hdr and its body: the
 * target's pieces when there are more than one (struct rma_seg, offsets
 * from the target address), then the data (put, accumulate; a
 * compare-and-swap's origin value then compare value). A request whose
 * message would pass RMA_MSG_MAX carries RMA_F_BODY and sends the body as a
 * second message (RMA_TAG_BODY) from the same origin, which the target
 * receives straight into the window when the target is one piece.
 *
 * Order: the target applies the requests of each origin in the order they
 * were sent (a queue per origin holds those behind one that waits for its
 * body or for a lock), so an acknowledgement (flush, unlock) covers every
 * operation the origin posted before it, and accumulates from one origin
 * are applied in order. Accumulates are atomic per element (per operation,
 * in fact): the poller applies each whole, one at a time.
 *
 * Replies (get data, fetched values, lock grants, acknowledgements) go back
 * on tag rma_reply_tag(id), id a number the origin chose for the request,
 * into a receive the origin posted before it sent the request.
 */
#ifndef FARO_RMA_RMA_H
#define FARO_RMA_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "p2p/request.h"

/* Internal tags on a window's private communicator (below the collectives'
 * -2..-30 and the nonblocking collectives' -4096..-20479). */
#define RMA_TAG_REQ (-1200)
#define RMA_TAG_BODY (-1201)
#define RMA_TAG_POST (-1202)
#define RMA_TAG_REPLY_BASE (-(1 << 22))
#define RMA_REPLY_TAGS (1 << 21)
static inline int rma_reply_tag(uint32_t id)
{
    return RMA_TAG_REPLY_BASE - (int)(id % RMA_REPLY_TAGS);
}

/* The largest request message: larger bodies follow on their own. */
#define RMA_MSG_MAX 4096

enum rma_kind {
    RMA_PUT, RMA_GET, RMA_ACC, RMA_GACC, RMA_CAS, /* operations */
    RMA_LOCK, RMA_UNLOCK, RMA_FLUSH, RMA_COMPLETE  /* synchronization */
};
/* ACK: a COMPLETE that wants an rma_ack back */
enum { RMA_F_BODY = 1, RMA_F_EXCL = 2, RMA_F_ACK = 4 };

struct rma_hdr {
    uint8_t kind;          /* enum rma_kind */
    uint8_t flags;         /* RMA_F_* */
    uint8_t op;            /* accumulates: enum faro_op_kind */
    uint8_t pad;
    int32_t elem;          /* accumulates: predefined type index of the elements; -1 none */
    uint32_t id;           /* reply tag */
    uint32_t nseg;         /* target pieces (1: one piece of len bytes at addr) */
    uint64_t addr;         /* target address: bytes from the window base (dynamic: absolute) */
    uint64_t len;          /* data bytes at the target */
    uint64_t body;         /* body bytes (in this message unless RMA_F_BODY) */
};

struct rma_seg {
    int64_t off;           /* from addr */
    uint64_t len;
};

/* The acknowledgement of a flush, an unlock or a COMPLETE after operations:
 * the first error an operation of this origin met at the target since the
 * last one (0: none). */
struct rma_ack {
    int32_t err;
    int32_t rank;          /* unused; keeps the message 8 bytes */
};

/* ---- origin side (ops.c, sync.c) ---- */
struct faro_rma_origin {
    uint32_t next_id;
    long pending;          /* internal requests of this window not complete */
    int *pend;             /* [size] the same per target */
    unsigned char *touched;/* [size] operations since the last acknowledgement */
    unsigned char *lock;   /* [size] 0, MPI_LOCK_SHARED or _EXCLUSIVE (+ RMA_LOCK_NOCHECK) */
    int nlocks;
    int lock_all;          /* inside MPI_Win_lock_all (1 + NOCHECK << 1) */
    int fence;             /* an epoch of fences is open */
    int *access;           /* PSCW: targets of MPI_Win_start (win ranks) */
    int naccess;           /* -1: no access epoch */
    unsigned char *in_access; /* [size] */
};
#define RMA_LOCK_NOCHECK 0x80

/* ---- target side (am.c) ---- */
struct rma_pend;
struct rma_region { uintptr_t base; size_t size; };
struct faro_rma_target {
    struct faro_request *hreq; /* the posted receive of requests */
    char *hbuf;                /* its buffer: RMA_MSG_MAX bytes */
    struct rma_pend **qhead, **qtail; /* [size] requests waiting, per origin */
    int queued;                /* origins with a non-empty queue */
    int excl;                  /* the exclusive lock's holder, or -1 */
    int nshared;               /* shared locks granted */
    int32_t *err;              /* [size] first error per origin since its last ack */
    int exposure;              /* PSCW: origins of MPI_Win_post; -1: none */
    int completes;             /* MPI_Win_complete notices received */
    struct rma_region *regions;/* dynamic windows: attached memory */
    int nregions, capregions;
};

/* am.c */
int faro_rma_target_init(MPI_Win win);
void faro_rma_target_free(MPI_Win win);
int faro_rma_poll(void *arg); /* the poller of every window */
/* 1 when [addr, addr + len) lies in the window's memory at this process. */
int faro_rma_in_window(MPI_Win win, uintptr_t addr, size_t len);

/* One operation as the program gave it (ops.c). */
struct rma_args {
    const char *fn;
    int kind;                   /* RMA_PUT ... RMA_CAS */
    const void *oaddr;
    int ocount;
    MPI_Datatype otype;
    void *raddr;                /* get: oaddr; gacc/cas: result */
    int rcount;
    MPI_Datatype rtype;
    const void *caddr;          /* cas: compare */
    int target;
    MPI_Aint disp;
    int tcount;
    MPI_Datatype ttype;
    MPI_Op op;
};

/* ops.c / sync.c: the origin side */
int faro_rma_origin_init(MPI_Win win);
void faro_rma_origin_free(MPI_Win win);
/* Post an internal send or receive on the window's communicator; cb (may be
 * NULL) runs at completion, possibly before this returns. */
int faro_rma_post(MPI_Win win, int kind, void *buf, size_t bytes, int rank, int tag,
                  void (*cb)(struct faro_request *), void *ctx, struct faro_request **out);
/* A send whose buffer (malloc'ed, or NULL) is freed at completion. */
int faro_rma_send_free(MPI_Win win, void *buf, size_t bytes, int rank, int tag);
/* Send a synchronization request (kind) to target and, when want_reply,
 * post the receive of its reply into reply (len bytes) first: *req. */
int faro_rma_ctrl(MPI_Win win, int kind, int flags, int target, void *reply, size_t len,
                  struct faro_request **req);
/* Wait until every operation to target (-1: all) is complete here (local
 * completion); with ack, also acknowledged by the target (flush). */
int faro_rma_complete(const char *fn, MPI_Win win, int target, int ack);
/* direct.c: windows whose every member's memory is mapped here (one node,
 * MPI_Win_allocate or _allocate_shared, FARO_RMA_SHM_DIRECT): operations are
 * loads, stores and reductions under a lock word of the target in the
 * segment, and passive-target locks are lock words too. */
int faro_rma_direct_op(MPI_Win win, const struct rma_args *a);
void faro_rma_direct_lock(MPI_Win win, int rank, int excl);
void faro_rma_direct_unlock(MPI_Win win, int rank, int excl);
/* single.c: single-copy puts and gets through the transport (CMA, self) for
 * windows of the program's memory. init is collective (it exchanges keys);
 * op returns 1 when it did the operation (complete), 0 when it must travel
 * as a message. */
int faro_rma_single_init(MPI_Win win);
void faro_rma_single_free(MPI_Win win);
int faro_rma_single_op(MPI_Win win, const struct rma_args *a);
/* Bytes before the members' parts in a segment: one lock line per member. */
size_t faro_rma_direct_header(int size);
int faro_rma_direct_wanted(void);
/* Q op= P, both packed elements of predefined type e (len bytes). */
void faro_rma_reduce_packed(MPI_Op op, MPI_Datatype e, const void *p, void *q, size_t len);
/* The list of every live window, for the poller. */
extern struct faro_win *faro_rma_windows;
/* Predefined datatypes and ops by number, as the messages name them. */
int faro_type_predef_index(MPI_Datatype t);
MPI_Datatype faro_type_predef_at(int i);
MPI_Op faro_op_predef_at(int kind);

#endif
