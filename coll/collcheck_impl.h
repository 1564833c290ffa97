/*
 * Collective checking: the description of one call, shared by the engine
 * (collcheck.c: phases, schedules, messages) and the builders
 * (collcheck_calls.c: one per shape of collective). Contract: collcheck.h.
 */
#ifndef FARO_COLL_COLLCHECK_IMPL_H
#define FARO_COLL_COLLCHECK_IMPL_H

#include <stdint.h>

#include "collcheck.h"

enum {
    CC_NONE = -1000000,      /* no root, no op */
    CC_ROOT_HERE,            /* intercommunicators: the root is in my group */
    CC_ROOT_IDLE,            /* intercommunicators: I passed MPI_PROC_NULL */
    CC_USER,                 /* a user op, non-commutative */
    CC_USER_COMMUTE,         /* a user op, commutative */
};

/* One block's description, as it travels in phase B (and inside a record). */
struct cc_sig {
    uint64_t h, n, bytes;    /* struct faro_type_sig without its base power */
    int64_t count;
    int32_t loose;
    int32_t block;           /* index in the sender's counts array; -1: one count */
    int32_t root, op;        /* intercommunicator rooted calls: the sender's */
    char type[32];           /* the datatype's name, for messages */
};

/* What a rank sends its neighbour in phase A. */
struct cc_wire {
    uint32_t magic;
    int32_t root, op;
    int32_t has_sig, has_digest;
    uint64_t digest;         /* Reduce_scatter's recvcounts */
    char fn[32];             /* the MPI function */
    struct cc_sig sig;       /* the (count, type) every rank passes alike */
};

/* One message of phase B: the block sent to peer, or the block expected
 * from it. */
struct cc_flow {
    int peer;
    struct cc_sig sig;
};

struct faro_cc {
    const char *fn;
    MPI_Comm comm;
    struct cc_wire mine, left, remote; /* remote: the other leader's (intercommunicators) */
    int nsend, nrecv;
    struct cc_flow *send, *recv;       /* in the same allocation */
    struct cc_sig *got;                /* what each receive brought */
    /* words for the messages: "rank 2 sends 4 x MPI_INT (sendcount; ...)" */
    const char *verb_send, *what_send, *verb_recv, *what_recv;
};

/* A description with room for nsend and nrecv flows; NULL: out of memory. */
struct faro_cc *faro_cc_new(const char *fn, MPI_Comm comm, int nsend, int nrecv);
void faro_cc_sig(struct cc_sig *s, MPI_Count count, MPI_Datatype t, int block);
void faro_cc_op(int32_t *code, MPI_Op op);
/* Append a flow: recv 1 for a block expected from peer, 0 for one sent. */
void faro_cc_add(struct faro_cc *cc, int recv, int peer, int count, MPI_Datatype t, int block);
/* A rank's block to itself: fatal when the two sides do not match. */
void faro_cc_local(const struct faro_cc *cc, int send_count, MPI_Datatype send_type,
                   int send_block, int recv_count, MPI_Datatype recv_type, int recv_block);
/* Run the description now (out NULL, freed after) or hand it to *out. */
int faro_cc_finish(struct faro_cc *cc, struct faro_cc **out);
int faro_cc_no_mem(const char *fn, MPI_Comm comm);
_Noreturn void faro_cc_fail(const struct faro_cc *cc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
