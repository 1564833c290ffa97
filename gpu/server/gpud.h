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
    uint8_t *stage;             /* D2H staging, chunk bytes */
};

/* session.c */
struct gpud_session *gpud_session_new(struct gpud *srv, faro_gpu_peer_t *peer);
void gpud_session_free(struct gpud_session *s);
/* Runs one message; returns -1 when the session must be dropped (protocol
 * violation: the reason is printed). */
int gpud_session_message(struct gpud_session *s, const struct faro_gpu_msg *m);

#endif
