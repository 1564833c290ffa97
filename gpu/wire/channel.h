/*
 * The GPU layer's authenticated channel over Faro's transports (libfaro_tp):
 * a server listens on a port of the tcp transport with its key, a client
 * connects to HOST:PORT with the same key, and both exchange the messages of
 * protocol.h. The channel owns the transport instance, its endpoints and the
 * memory of arrived messages; its owner (faro-gpud, the client library, a
 * test) sees peers and decoded messages through three callbacks.
 *
 * Who checks what: the transport checks the key before a connection reaches
 * the channel (its port authentication; a wrong key never gets a peer). The
 * channel decodes every message (codec.h) before the owner sees it; one that
 * does not decode drops its peer (disconnect, then `lost` with the reason),
 * so a malformed message never reaches the owner's dispatch. A lost
 * connection is reported once through `lost`.
 *
 * Threads and progress: one thread uses a channel. Callbacks run only from
 * faro_gpu_chan_poll and faro_gpu_chan_send (never from inside the
 * transport's progress, so a callback may send): messages arriving while a
 * send waits are queued and given out at the next poll, in arrival order.
 * `accepted` is the exception: it runs during the transport's progress and
 * must not send.
 *
 * Sending: faro_gpu_chan_send returns once the bytes left the caller's
 * buffers (copied by the transport or written to the socket); it makes
 * progress while it waits, so it never deadlocks against a peer that sends
 * at the same time. A peer that takes none of a message for the send
 * timeout (60 s unless set) is dropped: the send fails and `lost` follows
 * at the next poll, so one stuck client cannot hold up the others.
 */
#ifndef FARO_GPU_CHANNEL_H
#define FARO_GPU_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/wire/codec.h"

typedef struct faro_gpu_chan faro_gpu_chan_t;
typedef struct faro_gpu_peer faro_gpu_peer_t; /* one connection */

#define FARO_GPU_KEY_MAX 64 /* bytes of a key, at most (the transports' port keys) */

struct faro_gpu_chan_cb {
    /* Server: a client presented the key. Return the owner's context for it
     * (given back in message and lost), or NULL to refuse it. */
    void *(*accepted)(void *owner, faro_gpu_peer_t *peer);
    /* A well-formed message from peer. m points into the channel's memory,
     * valid until the callback returns. */
    void (*message)(void *owner, void *ctx, faro_gpu_peer_t *peer, const struct faro_gpu_msg *m);
    /* The peer is gone (orderly: it said goodbye) or was dropped for a
     * malformed message; why is one line. The peer is invalid afterwards. */
    void (*lost)(void *owner, void *ctx, int orderly, const char *why);
};

/* Server: listen on `listen` ("ADDR:PORT", "ADDR", ":PORT"; ADDR an address
 * or interface name of this host as FARO_TCP_IF takes it; NULL or "" for the
 * loopback at FARO_GPU_DEFAULT_PORT; port 0 takes a free one) with key.
 * *where says where it listens ("listening on 127.0.0.1:7370 (lo)"). 0, or -1
 * with err. */
int faro_gpu_chan_listen(const char *listen, const uint8_t *key, size_t keylen,
                         const struct faro_gpu_chan_cb *cb, void *owner, faro_gpu_chan_t **ch,
                         char *where, size_t wherelen, char *err, size_t errlen);

/* Client: connect to "HOST[:PORT]" (FARO_GPU_DEFAULT_PORT when no port) with
 * key; ctx is given back in message and lost. The connection comes up in the
 * background: sends queue until then, and a refused key shows as `lost`. */
int faro_gpu_chan_connect(const char *hostport, const uint8_t *key, size_t keylen,
                          const struct faro_gpu_chan_cb *cb, void *owner, void *ctx,
                          faro_gpu_chan_t **ch, faro_gpu_peer_t **peer, char *err,
                          size_t errlen);

/* Send one message: h's op, flags, seq, status and deferred (args_len is
 * set here), args as faro_gpu_args_encode made them, then data. 0, or -1
 * when the peer is lost (its `lost` comes at a poll) or was dropped. */
int faro_gpu_chan_send(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer, const struct faro_gpu_hdr *h,
                       const uint8_t *args, size_t args_len, const void *data, size_t len);

/* Post one message without waiting (the pipelined copies): header and
 * args are copied, data belongs to the transport until done(arg, ok) runs,
 * which it does exactly once, from a later poll or send (or at once, before
 * this returns, when the transport took the bytes during the call); ok is 0
 * when the connection failed. A peer whose posted sends make no progress for
 * the send timeout is dropped as a stuck send's is (`lost` follows at a
 * poll); its data stays the transport's until the connection fails or the
 * channel closes. 0, or -1 (nothing posted, done never runs). */
int faro_gpu_chan_post(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer, const struct faro_gpu_hdr *h,
                       const uint8_t *args, size_t args_len, const void *data, size_t len,
                       void (*done)(void *arg, int ok), void *arg);
/* How many of peer's posted sends are not done yet. */
unsigned faro_gpu_chan_posted(const faro_gpu_peer_t *peer);
/* 0 once the peer was dropped (stalled, malformed): its loss is on the way. */
int faro_gpu_chan_peer_ok(const faro_gpu_peer_t *peer);

/* How long a send may wait for its peer to take the bytes (seconds). */
void faro_gpu_chan_set_send_timeout(faro_gpu_chan_t *ch, double seconds);

/* For tests of the server's defences only: send hdr and payload as they are
 * (a header of any length up to the transport's limit, no encoding). */
int faro_gpu_chan_send_raw(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer, const void *hdr,
                           size_t hdrlen, const void *payload, size_t len);

/* Make progress and deliver what arrived; waits up to timeout_ms (0: not at
 * all, -1: until something happens) when nothing is there. Returns the
 * number of callbacks run, or -1 when the transport failed. */
int faro_gpu_chan_poll(faro_gpu_chan_t *ch, int timeout_ms);

/* Close one connection now (its queued messages are discarded; no `lost`
 * follows). The peer is invalid afterwards. */
void faro_gpu_chan_drop(faro_gpu_chan_t *ch, faro_gpu_peer_t *peer);

/* Close every connection and the transport. */
void faro_gpu_chan_close(faro_gpu_chan_t *ch);

/* "port 1 client 3 (127.0.0.1:4711)"-like name of a peer, for logs. */
const char *faro_gpu_peer_name(const faro_gpu_peer_t *peer, char *buf, size_t len);

/* The key: from file (which must be a regular file of mode 0600 or 0400,
 * owned by this user: anything looser is refused with a message saying so),
 * else from the environment variable env_var. Trailing newlines are not part
 * of it; 1..FARO_GPU_KEY_MAX bytes. 0, or -1 with err. */
int faro_gpu_key_load(const char *file, const char *env_var, uint8_t *key, size_t *keylen,
                      char *err, size_t errlen);

#endif
