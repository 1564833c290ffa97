/*
 * libFuzzer harness: the verbs transport's wire formats
 * (transports/verbs/verbs_wire.c), which decode what a peer's queue pair or
 * rdma_cm private data carries before and after it authenticated: message
 * headers, connection messages (with their SipHash proof under a fixed job
 * key), address blobs and remote keys. Needs no libibverbs, so it builds
 * everywhere. The input is decoded as each format; whatever decodes cleanly
 * is encoded again and must decode to the same fields, and a connection
 * message the harness signs itself must pass the proof check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transports/verbs/verbs_wire.h"

static const uint8_t job_key[16] = "faro-fuzz-jobkey";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct verbs_msg m, m2;
    uint8_t buf[VERBS_CM_LEN];
    if (verbs_msg_decode(data, size, 8, 64, &m) == VERBS_WIRE_OK) {
        verbs_msg_encode(buf, &m);
        if (verbs_msg_decode(buf, VERBS_MSG_HDR + m.hdrlen, 8, 64, &m2) != VERBS_WIRE_OK ||
            m2.kind != m.kind || m2.hdrlen != m.hdrlen || m2.credits != m.credits ||
            m2.ctl != m.ctl)
            abort();
    }

    uint64_t bind = size >= 8 ? (uint64_t)data[size - 1] << 8 | data[size - 2] : 0;
    struct verbs_cm c, c2;
    int rc = verbs_cm_decode(data, size, job_key, bind, &c);
    (void)verbs_wire_strerror(rc);
    if (size >= 24) { /* a message with fields from the input, signed here */
        memset(&c, 0, sizeof c);
        c.type = (uint8_t)(1 + data[0] % 3);
        c.verdict = c.type == VERBS_CM_REJECT ? (uint8_t)(1 + data[1] % 2) : 0;
        c.ctl = data[2];
        memcpy(&c.credits, data + 3, sizeof c.credits);
        memcpy(&c.buf_size, data + 5, sizeof c.buf_size);
        memcpy(&c.id, data + 9, sizeof c.id);
        memcpy(&c.nonce, data + 16, sizeof c.nonce);
        c.size = 4;
        c.dest = 1;
        verbs_cm_encode(buf, &c, job_key, bind);
        if (verbs_cm_decode(buf, sizeof buf, job_key, bind, &c2) == VERBS_WIRE_OK &&
            (c2.type != c.type || c2.id != c.id || c2.nonce != c.nonce ||
             c2.credits != c.credits || c2.buf_size != c.buf_size))
            abort(); /* decoded, but not what was signed */
        buf[40] ^= 1; /* one bit of the proof: must be refused */
        if (verbs_cm_decode(buf, sizeof buf, job_key, bind, &c2) == VERBS_WIRE_OK)
            abort();
    }

    struct verbs_addr a, a2;
    if (verbs_addr_decode(data, size, &a) == VERBS_WIRE_OK) {
        uint8_t ab[VERBS_ADDR_LEN];
        verbs_addr_encode(ab, &a);
        if (verbs_addr_decode(ab, sizeof ab, &a2) != VERBS_WIRE_OK || a2.rank != a.rank ||
            a2.port != a.port || a2.instance != a.instance || a2.family != a.family)
            abort();
    }

    struct verbs_rkey_wire k, k2;
    if (verbs_rkey_decode(data, size, &k) == VERBS_WIRE_OK) {
        uint8_t kb[VERBS_RKEY_LEN];
        if (verbs_rkey_encode(kb, &k) != VERBS_WIRE_OK ||
            verbs_rkey_decode(kb, sizeof kb, &k2) != VERBS_WIRE_OK || k2.rkey != k.rkey ||
            k2.base != k.base || k2.len != k.len)
            abort();
    }
    return 0;
}
