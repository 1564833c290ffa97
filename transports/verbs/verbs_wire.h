/*
 * verbs transport: what goes over the wire, byte for byte. Hardware-independent
 * (no ibverbs here), so tests/unit/test_verbs_wire.c checks every format
 * without a device.
 *
 * Every field has a fixed size and is little-endian; a format that changes
 * changes VERBS_WIRE_VERSION, which the address blob and the connection
 * messages carry and check (a peer of another version is refused by name).
 * Encoders write exactly the bytes below; decoders take a buffer and its
 * length, check every bound before reading and say what was wrong.
 *
 * 1. The message header, in front of every message on a queue pair (8 bytes):
 *
 *      0  u8   kind      the owner's kind (0..FARO_TP_MAX_KINDS-1), or
 *                        VERBS_KIND_HELLO / _CREDIT / _BYE (this transport's own)
 *      1  u8   hdrlen    bytes of the owner's header that follow (<= FARO_TP_MAX_HDR)
 *      2  u16  credits   data credits returned to the receiver (verbs_credit.h)
 *      4  u8   ctl       control credits returned
 *      5  u8   flags     0
 *      6  u16  reserved  0
 *    then the owner's header, then the payload (to the end of the message).
 *
 * 2. The connection message (48 bytes): the private data of an rdma_cm
 *    connect request (at most 56 bytes on InfiniBand), accept or reject.
 *
 *      0  u32  magic     VERBS_MAGIC
 *      4  u8   version   VERBS_WIRE_VERSION
 *      5  u8   type      VERBS_CM_REQUEST, _ACCEPT or _REJECT between ranks of
 *                        a job; VERBS_CM_PORT_REQUEST, _ACCEPT or _REJECT on a
 *                        port (endpoints outside the job)
 *      6  u8   verdict   reject: VERBS_REJ_COLLISION or _REFUSED; else 0
 *      7  u8   ctl       control credits the sender grants (buffers it posted)
 *      8  u16  credits   data credits the sender grants
 *     10  u16  reserved  0
 *     12  u32  buf_size  the sender's receive buffer size (must be equal)
 *     16  u64  id        request: the connector's job rank (port: the id its
 *                        owner gave); else the acceptor's rank (port: 0)
 *     24  u32  size      the sender's job size (port: 0)
 *     28  u32  dest      request: the rank it is meant for; else the
 *                        connector's (port: 0)
 *     32  u64  nonce     request: random; accept, reject: the request's, echoed
 *     40  u64  proof     SipHash-2-4 of bytes 0..39 and `bind` under the job
 *                        key, or the port's key for the PORT types
 *
 *    `bind` is the acceptor's instance number (its address blob) for a
 *    request, so a request recorded from an earlier process is refused by a
 *    new one; 0 for an accept or a reject, which echo the request's nonce. The
 *    key itself never travels: the proof shows the sender knew it (a port's
 *    acceptor finds the port by trying the key of every open port).
 *
 * 3. The address blob (40 bytes), published through the owner:
 *
 *      0  u32  magic, 4 u8 version, 5 u8 family (4 or 6), 6 u16 port (rdma_cm
 *      TCP port space), 8 u32 rank, 12 u32 buf_size, 16 u64 instance (random,
 *      per process), 24 16 bytes address (IPv4: the first 4)
 *
 * 4. The remote key (20 bytes; fits the 22 bytes the MPI core's RTS header
 *    has for one, so it travels in the header):
 *
 *      0  u32  rkey      the memory region's rkey
 *      4  u64  base      first address of the registered range
 *     12  u8   version
 *     13  u56  len       bytes registered (7 bytes)
 */
#ifndef FARO_VERBS_WIRE_H
#define FARO_VERBS_WIRE_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define VERBS_MAGIC 0x56526146u /* "FaRV" read as little-endian bytes */
#define VERBS_WIRE_VERSION 2 /* 2: the PORT connection messages */

/* ---- 1. message header ---- */
#define VERBS_MSG_HDR 8
#define VERBS_KIND_HELLO 0xfdu  /* the connector's first message */
#define VERBS_KIND_CREDIT 0xfeu /* credits only */
#define VERBS_KIND_BYE 0xffu    /* the sender closes */

struct verbs_msg {
    uint8_t kind;
    uint8_t hdrlen;
    uint16_t credits;
    uint8_t ctl;
};

enum verbs_wire_err {
    VERBS_WIRE_OK = 0,
    VERBS_WIRE_SHORT = -1,     /* fewer bytes than the format needs */
    VERBS_WIRE_MAGIC = -2,     /* not Faro's */
    VERBS_WIRE_VERSION_ERR = -3, /* Faro's, another version */
    VERBS_WIRE_MALFORMED = -4, /* a field out of range */
    VERBS_WIRE_PROOF = -5,     /* the proof does not match this job's key */
};

void verbs_msg_encode(uint8_t out[VERBS_MSG_HDR], const struct verbs_msg *m);
/* Decode the header of a message of len bytes; hdrlen is checked against
 * max_hdr and len, the kind against nkinds (owner kinds) and the three of
 * this transport. */
int verbs_msg_decode(const uint8_t *buf, size_t len, unsigned nkinds, size_t max_hdr,
                     struct verbs_msg *m);

/* ---- 2. connection message ---- */
#define VERBS_CM_LEN 48
enum verbs_cm_type {
    VERBS_CM_REQUEST = 1,
    VERBS_CM_ACCEPT = 2,
    VERBS_CM_REJECT = 3,
    VERBS_CM_PORT_REQUEST = 4,
    VERBS_CM_PORT_ACCEPT = 5,
    VERBS_CM_PORT_REJECT = 6,
};
#define VERBS_CM_PORT (VERBS_CM_PORT_REQUEST - VERBS_CM_REQUEST) /* job type + this: port's */
enum verbs_verdict { VERBS_REJ_NONE = 0, VERBS_REJ_COLLISION = 1, VERBS_REJ_REFUSED = 2 };

struct verbs_cm {
    uint8_t type, verdict, ctl;
    uint16_t credits;
    uint32_t buf_size;
    uint64_t id;
    uint32_t size, dest;
    uint64_t nonce;
};

/* A 16-byte SipHash key from a job key of any length (folded). */
void verbs_key16(const uint8_t *key, size_t len, uint8_t out[16]);
uint64_t verbs_siphash(const uint8_t key[16], const uint8_t *msg, size_t len);

void verbs_cm_encode(uint8_t out[VERBS_CM_LEN], const struct verbs_cm *m, const uint8_t key[16],
                     uint64_t bind);
/* len may exceed VERBS_CM_LEN (rdma_cm pads private data with zeros). */
int verbs_cm_decode(const uint8_t *buf, size_t len, const uint8_t key[16], uint64_t bind,
                    struct verbs_cm *m);

/* ---- 3. address blob ---- */
#define VERBS_ADDR_LEN 40
struct verbs_addr {
    uint8_t family;               /* 4 or 6 */
    uint16_t port;
    uint32_t rank;
    uint32_t buf_size;
    uint64_t instance;
    uint8_t ip[16];
};
void verbs_addr_encode(uint8_t out[VERBS_ADDR_LEN], const struct verbs_addr *a);
int verbs_addr_decode(const uint8_t *buf, size_t len, struct verbs_addr *a);

/* ---- 4. remote key ---- */
#define VERBS_RKEY_LEN 20
#define VERBS_RKEY_MAX_LEN ((1ull << 56) - 1)
struct verbs_rkey_wire {
    uint32_t rkey;
    uint64_t base, len;
};
/* Returns VERBS_WIRE_MALFORMED when len does not fit 56 bits. */
int verbs_rkey_encode(uint8_t out[VERBS_RKEY_LEN], const struct verbs_rkey_wire *k);
int verbs_rkey_decode(const uint8_t *buf, size_t len, struct verbs_rkey_wire *k);

/* One line for an error code. */
const char *verbs_wire_strerror(int err);

#pragma GCC visibility pop

#endif
