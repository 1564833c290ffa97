/*
 * faro-gpud's private state: the server (gpud.c: options, the channel, the
 * loop) and its sessions (session.c: one per connected client, the dispatch
 * of protocol.h's ops to the backend).
 *
 * A session exists from the client's authenticated connection to its loss
 * (or BYE, or a malformed message); it owns its backend session, so freeing
 * it frees everything the client allocated or loaded. Sessions do not share
 * anything but the backend instance.
 */
#ifndef FARO_GPUD_H
#define FARO_GPUD_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/server/backend.h"
#include "gpu/wire/channel.h"

struct gpud {
    const struct faro_gpu_be_ops *be_ops;
    faro_gpu_be_t *be;
    faro_gpu_chan_t *ch;
    int nsessions;
    struct gpud_session *sessions; /* all of them, for the loop's D2H pumping */
};

#define GPUD_DEPTH_DEFAULT 4    /* D2H chunks in flight per session when HELLO asks none */
#define GPUD_DEPTH_MAX 16

/* D2H staging: depth buffers of one chunk (the backend's stage_alloc:
 * pinned on cuda), used in turn: chunk k of the ring's life goes through
 * slot k % depth, free -> copying (the backend's async copy) -> sending (a
 * posted send) -> free, so chunks leave in order and a slot is reused only
 * once its send is done. The ring is shared by the session and its sends in
 * flight (refs), so a session freed while the transport still holds a
 * buffer leaves the ring to the last completion. */
enum gpud_slot_state { SLOT_FREE, SLOT_COPYING, SLOT_SENDING };
struct gpud_slot {
    struct gpud_ring *ring;
    enum gpud_slot_state state;
    uint64_t off;               /* the chunk's offset in its copy */
    size_t len;
    uint8_t *buf;
};
struct gpud_ring {
    unsigned refs, depth;
    const struct faro_gpu_be_ops *be_ops;
    faro_gpu_be_t *be;
    uint64_t started, posted;   /* chunks started and posted in the ring's life */
    struct gpud_slot slot[GPUD_DEPTH_MAX];
};

struct gpud_d2h {               /* the MEMCPY_D2H reply series under way */
    int active;
    uint32_t seq;
    uint64_t src, size, off, stream; /* off: the next chunk to start */
};

struct gpud_load {              /* a MODULE_LOAD arriving in chunks */
    uint64_t client_id, total, got;
    uint8_t *buf;
};

struct gpud_session {
    struct gpud *srv;
    faro_gpu_peer_t *peer;
    faro_gpu_be_sess_t *bs;
    char name[96];
    int hello;                  /* HELLO done */
    uint32_t chunk;             /* granted chunk size */
    int32_t deferred;           /* first error of a one-way message, not yet reported */
    int32_t sticky;             /* an error that poisons the session until reset */
    int32_t h2d_err;            /* first error of the H2D copy under way */
    struct gpud_load load;
    struct gpud_ring *ring;     /* D2H staging (HELLO's depth x chunk) */
    struct gpud_d2h d2h;
    struct gpud_session *next;  /* in srv->sessions */
};

/* session.c */
struct gpud_session *gpud_session_new(struct gpud *srv, faro_gpu_peer_t *peer);
void gpud_session_free(struct gpud_session *s);
/* Runs one message; returns -1 when the session must be dropped (protocol
 * violation: the reason is printed). */
int gpud_session_message(struct gpud_session *s, const struct faro_gpu_msg *m);
/* Moves every session's D2H series on as far as its free staging buffers
 * allow, without waiting; returns how many are still under way. */
int gpud_pump(struct gpud *srv);

#endif
