/*
 * Matching: per communicator context, the queue of posted receives (in post
 * order) and the queue of unexpected messages (in arrival order). MPI's
 * non-overtaking rule holds because transports deliver each peer's messages in
 * order and both queues are searched from the front.
 */
#ifndef FARO_P2P_MATCH_H
#define FARO_P2P_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "p2p/header.h"

struct faro_request;

/* A message that arrived before its receive was posted (or a matched eager
 * message whose continuation fragments are still arriving). */
struct faro_unexp {
    struct faro_unexp *next;
    unsigned kind;             /* FARO_AM_EAGER or FARO_AM_RTS */
    int peer;                  /* the sender: its index in faro.peers */
    struct faro_hdr_rts h;     /* h.m for EAGER */
    char *data;                /* EAGER: the payload so far */
    size_t have;               /* EAGER: bytes arrived */
    size_t held;               /* bytes counted in faro_unexp_bytes (record and data) */
    struct faro_request *req;  /* matched receive still taking fragments */
};

struct faro_mq {
    struct faro_request *posted, *posted_tail;
    struct faro_unexp *unexp, *unexp_tail;
};

/* The queues of a context, created on first use (a message may arrive for a
 * communicator this rank has not finished creating): faro_mq_create. */
extern struct faro_mq **faro_mq_table;
extern uint32_t faro_mq_cap;
struct faro_mq *faro_mq_create(uint32_t ctx);
static inline struct faro_mq *faro_mq_get(uint32_t ctx)
{
    if (__builtin_expect(ctx < faro_mq_cap && faro_mq_table[ctx], 1))
        return faro_mq_table[ctx];
    return faro_mq_create(ctx);
}
void faro_mq_free_all(void);
/* The communicator of ctx is destroyed (comm.c): drop the messages still
 * unexpected there, which were sent to it and never received, so that a
 * communicator reusing the id cannot receive them. An eager message still
 * taking fragments stays. Returns how many were dropped. */
int faro_mq_drop(uint32_t ctx);
/* The same for the messages of one peer only (peer -1: every peer). */
int faro_mq_drop_peer(uint32_t ctx, int peer);

void faro_mq_post(struct faro_mq *q, struct faro_request *r);
/* First posted receive matching (src, tag) of an arrived message; removed. */
struct faro_request *faro_mq_take_posted(struct faro_mq *q, int src, int tag);
/* Removes r if still posted; returns 1 if it was. */
int faro_mq_unpost(struct faro_mq *q, struct faro_request *r);

void faro_mq_add_unexp(struct faro_mq *q, struct faro_unexp *u);
/* Messages in the unexpected queues of every context now, and the most there
 * ever were (MPI_T's p2p_unexpected_queued and its high watermark). */
extern size_t faro_unexp_queued, faro_unexp_queued_max;
/* Memory held by unexpected messages at this process (each one's record and
 * what it keeps: an eager payload, a rendezvous key), bounded by
 * FARO_UNEXPECTED_LIMIT: faro_unexp_eager makes the record of an eager
 * message from peer with header m and room for its m->len bytes after it
 * (one allocation), faro_unexp_rts the record of a rendezvous announcement
 * (with a copy of the keylen bytes of key when h says they are the
 * sender's memory key); both end the job with the numbers and the knob
 * when that would pass the bound. faro_unexp_free releases a record and
 * what it keeps. */
extern size_t faro_unexp_bytes;
/* FARO_UNEXPECTED_LIMIT was written (MPI_T_cvar_write): read it again. */
void faro_unexp_limit_changed(void);
struct faro_unexp *faro_unexp_eager(int peer, const struct faro_hdr_match *m);
struct faro_unexp *faro_unexp_rts(int peer, const struct faro_hdr_rts *h, const void *key,
                                  size_t keylen);
void faro_unexp_free(struct faro_unexp *u);
/* First unexpected message matching (src, tag), either may be a wildcard;
 * removed when take is set. */
struct faro_unexp *faro_mq_find_unexp(struct faro_mq *q, int src, int tag, int take);

#endif
