/*
 * Wire headers of the point-to-point protocols. The transport carries them as
 * opaque bytes with a kind (the transport's handler index). They are in host
 * byte order: every rank of a job runs on the same architecture.
 *
 *   EAGER      match fields + the first part of the payload; the rest of a
 *              message larger than one transport send follows as EAGER_CONT
 *   RTS        match fields + the sender's request, and a remote key when the
 *              sender's transport can expose the buffer (get by the receiver):
 *              in the header when it fits, else as the RTS payload;
 *              a non-contiguous send over a single-copy transport is packed
 *              while the receiver already reads (FARO_HDR_PROGRESSIVE)
 *   CTS        receiver -> sender: matched, send the data as DATA fragments
 *   DATA       one pipeline fragment at an offset of the receiver's request
 *   FIN        receiver -> sender: the get finished, the send is complete
 *   ACK        receiver -> sender: a synchronous eager send was matched
 *   CTS_PUT    receiver -> sender: matched, put the data into this buffer
 *              (address, length, and the remote key as the payload)
 *   PUT_DONE   sender -> receiver: the puts completed (remote completion), the
 *              data is in the receive buffer
 */
#ifndef FARO_P2P_HEADER_H
#define FARO_P2P_HEADER_H

#include <stdint.h>
#include <string.h>

#include "transport.h"

enum faro_am_kind {
    FARO_AM_EAGER,
    FARO_AM_EAGER_CONT,
    FARO_AM_RTS,
    FARO_AM_CTS,
    FARO_AM_DATA,
    FARO_AM_FIN,
    FARO_AM_ACK,
    FARO_AM_CTS_PUT,
    FARO_AM_PUT_DONE,
    FARO_AM_NKINDS
};

enum {
    FARO_HDR_SYNC = 1,        /* the sender waits for ACK (eager) */
    FARO_HDR_PROGRESSIVE = 2, /* RTS: the sender is still packing; how far it got is the
                               * 8-byte counter FARO_PACK_HDR bytes before raddr */
    FARO_HDR_RKEY_DATA = 4,   /* RTS: the remote key is the payload (too long for rkey[]) */
};
#define FARO_PACK_HDR 64

struct faro_hdr_match {
    uint32_t ctx;
    int32_t src;    /* rank in the communicator */
    int32_t tag;
    uint32_t flags;
    uint64_t len;   /* total payload bytes of the message */
    uint64_t sreq;  /* sender's request, echoed in CTS/FIN/ACK (0: a send without one) */
};

struct faro_hdr_rts {
    struct faro_hdr_match m;
    uint64_t raddr;    /* sender's buffer address, for get */
    uint16_t rkey_len; /* 0: no get possible */
    uint8_t rkey[FARO_TP_MAX_HDR - sizeof(struct faro_hdr_match) - 10]; /* when it fits */
};

struct faro_hdr_cts {
    uint64_t sreq, rreq;
};

struct faro_hdr_cts_put {
    uint64_t sreq, rreq;
    uint64_t raddr;   /* the receive buffer */
    uint64_t len;     /* bytes to put there (the message, cut to the buffer) */
    uint64_t rkey_len;/* the key is the payload; 0: nothing to put */
};

struct faro_hdr_data {
    uint64_t rreq;    /* for EAGER_CONT: unused */
    uint64_t offset;
};

struct faro_hdr_ack {
    uint64_t sreq;    /* FIN and ACK; the receiver's request for PUT_DONE */
};

_Static_assert(sizeof(struct faro_hdr_rts) <= FARO_TP_MAX_HDR, "RTS header too large");
_Static_assert(FARO_AM_NKINDS <= FARO_TP_MAX_KINDS, "more kinds than a transport carries");

#endif
