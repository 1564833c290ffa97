/*
 * verbs transport: encoding and decoding of the wire formats (verbs_wire.h),
 * and SipHash-2-4 (Aumasson and Bernstein, 2012) for the connection proof.
 */
#include "config.h"

#include "verbs/verbs_wire.h"

#include "base/le.h"

#include <string.h>

/* ---- 1. message header ---- */

void verbs_msg_encode(uint8_t out[VERBS_MSG_HDR], const struct verbs_msg *m)
{
    out[0] = m->kind;
    out[1] = m->hdrlen;
    faro_le_put16(out + 2, m->credits);
    out[4] = m->ctl;
    out[5] = 0;
    faro_le_put16(out + 6, 0);
}

int verbs_msg_decode(const uint8_t *buf, size_t len, unsigned nkinds, size_t max_hdr,
                     struct verbs_msg *m)
{
    if (len < VERBS_MSG_HDR)
        return VERBS_WIRE_SHORT;
    m->kind = buf[0];
    m->hdrlen = buf[1];
    m->credits = faro_le_get16(buf + 2);
    m->ctl = buf[4];
    if (buf[5] || faro_le_get16(buf + 6))
        return VERBS_WIRE_MALFORMED;
    if (m->kind >= nkinds && m->kind != VERBS_KIND_HELLO && m->kind != VERBS_KIND_CREDIT &&
        m->kind != VERBS_KIND_BYE)
        return VERBS_WIRE_MALFORMED;
    if (m->hdrlen > max_hdr)
        return VERBS_WIRE_MALFORMED;
    if (VERBS_MSG_HDR + (size_t)m->hdrlen > len)
        return VERBS_WIRE_SHORT;
    return VERBS_WIRE_OK;
}

/* ---- SipHash-2-4 ---- */

static uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

#define SIPROUND()                                                                             \
    do {                                                                                       \
        v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);                              \
        v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;                                                 \
        v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;                                                 \
        v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);                              \
    } while (0)

uint64_t verbs_siphash(const uint8_t key[16], const uint8_t *msg, size_t len)
{
    uint64_t k0 = faro_le_get64(key), k1 = faro_le_get64(key + 8);
    uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
    size_t whole = len - len % 8;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m = faro_le_get64(msg + i);
        v3 ^= m;
        SIPROUND();
        SIPROUND();
        v0 ^= m;
    }
    uint64_t b = (uint64_t)(len & 0xff) << 56;
    for (size_t i = 0; i < len % 8; i++)
        b |= (uint64_t)msg[whole + i] << (8 * i);
    v3 ^= b;
    SIPROUND();
    SIPROUND();
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND();
    SIPROUND();
    SIPROUND();
    SIPROUND();
    return v0 ^ v1 ^ v2 ^ v3;
}

void verbs_key16(const uint8_t *key, size_t len, uint8_t out[16])
{
    memset(out, 0, 16);
    for (size_t i = 0; i < len; i++)
        out[i % 16] ^= key[i];
    out[15] ^= (uint8_t)len; /* keys of different lengths differ */
}

/* ---- 2. connection message ---- */

static uint64_t verbs_cm_proof(const uint8_t *msg40, const uint8_t key[16], uint64_t bind)
{
    uint8_t buf[VERBS_CM_LEN];
    memcpy(buf, msg40, 40);
    faro_le_put64(buf + 40, bind);
    return verbs_siphash(key, buf, sizeof buf);
}

void verbs_cm_encode(uint8_t out[VERBS_CM_LEN], const struct verbs_cm *m, const uint8_t key[16],
                     uint64_t bind)
{
    faro_le_put32(out, VERBS_MAGIC);
    out[4] = VERBS_WIRE_VERSION;
    out[5] = m->type;
    out[6] = m->verdict;
    out[7] = m->ctl;
    faro_le_put16(out + 8, m->credits);
    faro_le_put16(out + 10, 0);
    faro_le_put32(out + 12, m->buf_size);
    faro_le_put64(out + 16, m->id);
    faro_le_put32(out + 24, m->size);
    faro_le_put32(out + 28, m->dest);
    faro_le_put64(out + 32, m->nonce);
    faro_le_put64(out + 40, verbs_cm_proof(out, key, bind));
}

int verbs_cm_decode(const uint8_t *buf, size_t len, const uint8_t key[16], uint64_t bind,
                    struct verbs_cm *m)
{
    if (!buf || len < 5)
        return VERBS_WIRE_SHORT;
    if (faro_le_get32(buf) != VERBS_MAGIC)
        return VERBS_WIRE_MAGIC;
    if (buf[4] != VERBS_WIRE_VERSION)
        return VERBS_WIRE_VERSION_ERR;
    if (len < VERBS_CM_LEN)
        return VERBS_WIRE_SHORT;
    m->type = buf[5];
    m->verdict = buf[6];
    m->ctl = buf[7];
    m->credits = faro_le_get16(buf + 8);
    m->buf_size = faro_le_get32(buf + 12);
    m->id = faro_le_get64(buf + 16);
    m->size = faro_le_get32(buf + 24);
    m->dest = faro_le_get32(buf + 28);
    m->nonce = faro_le_get64(buf + 32);
    /* Compare the proof first: an answer about the fields is for key holders only. */
    if (faro_le_get64(buf + 40) != verbs_cm_proof(buf, key, bind))
        return VERBS_WIRE_PROOF;
    int port = m->type >= VERBS_CM_PORT_REQUEST;
    int type = port ? m->type - VERBS_CM_PORT : m->type; /* as a job's */
    if (m->type < VERBS_CM_REQUEST || m->type > VERBS_CM_PORT_REJECT || faro_le_get16(buf + 10) ||
        (type == VERBS_CM_REJECT) != (m->verdict != VERBS_REJ_NONE) ||
        m->verdict > VERBS_REJ_REFUSED)
        return VERBS_WIRE_MALFORMED;
    if (port ? m->size || m->dest || (type != VERBS_CM_REQUEST && m->id) ||
                   m->verdict == VERBS_REJ_COLLISION /* ports never collide */
             : m->size == 0 || m->id >= m->size || m->dest >= m->size || m->id == m->dest)
        return VERBS_WIRE_MALFORMED;
    if (type != VERBS_CM_REJECT && (m->credits == 0 || m->ctl == 0 || m->buf_size == 0))
        return VERBS_WIRE_MALFORMED;
    return VERBS_WIRE_OK;
}

/* ---- 3. address blob ---- */

void verbs_addr_encode(uint8_t out[VERBS_ADDR_LEN], const struct verbs_addr *a)
{
    faro_le_put32(out, VERBS_MAGIC);
    out[4] = VERBS_WIRE_VERSION;
    out[5] = a->family;
    faro_le_put16(out + 6, a->port);
    faro_le_put32(out + 8, a->rank);
    faro_le_put32(out + 12, a->buf_size);
    faro_le_put64(out + 16, a->instance);
    memcpy(out + 24, a->ip, 16);
    if (a->family == 4)
        memset(out + 28, 0, 12);
}

int verbs_addr_decode(const uint8_t *buf, size_t len, struct verbs_addr *a)
{
    if (len < 5)
        return VERBS_WIRE_SHORT;
    if (faro_le_get32(buf) != VERBS_MAGIC)
        return VERBS_WIRE_MAGIC;
    if (buf[4] != VERBS_WIRE_VERSION)
        return VERBS_WIRE_VERSION_ERR;
    if (len != VERBS_ADDR_LEN)
        return len < VERBS_ADDR_LEN ? VERBS_WIRE_SHORT : VERBS_WIRE_MALFORMED;
    a->family = buf[5];
    a->port = faro_le_get16(buf + 6);
    a->rank = faro_le_get32(buf + 8);
    a->buf_size = faro_le_get32(buf + 12);
    a->instance = faro_le_get64(buf + 16);
    memcpy(a->ip, buf + 24, 16);
    if ((a->family != 4 && a->family != 6) || a->port == 0 || a->buf_size == 0 ||
        a->rank > INT32_MAX)
        return VERBS_WIRE_MALFORMED;
    return VERBS_WIRE_OK;
}

/* ---- 4. remote key ---- */

int verbs_rkey_encode(uint8_t out[VERBS_RKEY_LEN], const struct verbs_rkey_wire *k)
{
    if (k->len > VERBS_RKEY_MAX_LEN)
        return VERBS_WIRE_MALFORMED;
    faro_le_put32(out, k->rkey);
    faro_le_put64(out + 4, k->base);
    out[12] = VERBS_WIRE_VERSION;
    for (int i = 0; i < 7; i++)
        out[13 + i] = (uint8_t)(k->len >> (8 * i));
    return VERBS_WIRE_OK;
}

int verbs_rkey_decode(const uint8_t *buf, size_t len, struct verbs_rkey_wire *k)
{
    if (len < VERBS_RKEY_LEN)
        return VERBS_WIRE_SHORT;
    if (len > VERBS_RKEY_LEN)
        return VERBS_WIRE_MALFORMED;
    if (buf[12] != VERBS_WIRE_VERSION)
        return VERBS_WIRE_VERSION_ERR;
    k->rkey = faro_le_get32(buf);
    k->base = faro_le_get64(buf + 4);
    k->len = 0;
    for (int i = 0; i < 7; i++)
        k->len |= (uint64_t)buf[13 + i] << (8 * i);
    if (k->len == 0 || k->base + k->len < k->base)
        return VERBS_WIRE_MALFORMED;
    return VERBS_WIRE_OK;
}

const char *verbs_wire_strerror(int err)
{
    switch (err) {
    case VERBS_WIRE_OK: return "ok";
    case VERBS_WIRE_SHORT: return "too short";
    case VERBS_WIRE_MAGIC: return "not a Faro verbs message";
    case VERBS_WIRE_VERSION_ERR: return "another version of Faro's verbs protocol (mixed builds?)";
    case VERBS_WIRE_MALFORMED: return "malformed";
    case VERBS_WIRE_PROOF: return "no proof of this job's key";
    }
    return "unknown error";
}
