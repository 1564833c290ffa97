/*
 * The control links of the launch tree: byte buffers, frames on non-blocking
 * TCP connections, and the keyed hash that authenticates them.
 *
 * A frame is an 8-byte header (payload length, network order; type; three
 * zero bytes) and the payload. Integers in payloads are 32-bit network order,
 * strings a length, the bytes and a NUL (so a reader can point into the
 * frame). Before a connection authenticated, frames are at most
 * MPX_FRAME_AUTH_MAX bytes, so a stranger cannot make a node allocate.
 *
 * The hash is SipHash-2-4 keyed with the 16-byte job key, over a role
 * ("child" or "parent"), the other side's random 16-byte challenge and the
 * proxy's host index: each side proves it knows the key without sending it,
 * and a recorded exchange is worth nothing against a new challenge.
 */
#include "config.h"

#include "mpiexec.h"

#include "base/le.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- buffers ---- */

static void buf_reserve(struct mpx_buf *b, size_t more)
{
    if (b->oom || b->len + more <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return;
    }
    b->p = p;
    b->cap = cap;
}

void mpx_buf_put(struct mpx_buf *b, const void *p, size_t n)
{
    buf_reserve(b, n);
    if (b->oom || n == 0)
        return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

void mpx_buf_u32(struct mpx_buf *b, uint32_t v)
{
    uint32_t n = htonl(v);
    mpx_buf_put(b, &n, 4);
}

void mpx_buf_str(struct mpx_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    mpx_buf_u32(b, (uint32_t)n);
    mpx_buf_put(b, s ? s : "", n);
    mpx_buf_put(b, "", 1);
}

void mpx_buf_strv(struct mpx_buf *b, char *const *v)
{
    uint32_t n = 0;
    while (v && v[n])
        n++;
    mpx_buf_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        mpx_buf_str(b, v[i]);
}

void mpx_buf_free(struct mpx_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void mpx_rd_init(struct mpx_rd *r, const void *p, size_t len)
{
    r->p = p;
    r->len = len;
    r->off = 0;
    r->bad = 0;
}

const void *mpx_rd_bytes(struct mpx_rd *r, size_t n)
{
    if (r->bad || r->len - r->off < n) {
        r->bad = 1;
        return NULL;
    }
    const void *p = r->p + r->off;
    r->off += n;
    return p;
}

uint32_t mpx_rd_u32(struct mpx_rd *r)
{
    const void *p = mpx_rd_bytes(r, 4);
    uint32_t v = 0;
    if (p)
        memcpy(&v, p, 4);
    return ntohl(v);
}

const char *mpx_rd_str(struct mpx_rd *r)
{
    uint32_t n = mpx_rd_u32(r);
    const char *s = mpx_rd_bytes(r, (size_t)n + 1);
    if (!s || s[n] != 0 || memchr(s, 0, n)) {
        r->bad = 1;
        return "";
    }
    return s;
}

char **mpx_rd_strv(struct mpx_rd *r)
{
    uint32_t n = mpx_rd_u32(r);
    if (r->bad || n > r->len) { /* each string takes 5 bytes at least */
        r->bad = 1;
        return NULL;
    }
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v) {
        r->bad = 1;
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        v[i] = (char *)mpx_rd_str(r);
    return v;
}

/* ---- connections ---- */

void mpx_conn_init(struct mpx_conn *c, int fd, size_t max_frame)
{
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->max_frame = max_frame;
    c->last_rx = c->last_tx = mpx_now_ms();
}

void mpx_conn_close(struct mpx_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    mpx_buf_free(&c->in);
    mpx_buf_free(&c->out);
    c->in_off = c->out_off = 0;
}

size_t mpx_conn_pending(const struct mpx_conn *c)
{
    return c->out.len - c->out_off;
}

static int conn_failed(struct mpx_conn *c, const char *what, int err)
{
    snprintf(c->why, sizeof c->why, "%s%s%s", what, err ? ": " : "", err ? strerror(err) : "");
    return -1;
}

int mpx_conn_flush(struct mpx_conn *c)
{
    if (c->fd < 0)
        return -1;
    while (c->out_off < c->out.len) {
        ssize_t n = send(c->fd, c->out.p + c->out_off, c->out.len - c->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == ECONNRESET || errno == EPIPE) /* the peer is gone (see fill) */
                return conn_failed(c, MPX_CONN_CLOSED, 0);
            return conn_failed(c, "writing the connection failed", errno);
        }
        c->out_off += (size_t)n;
        c->bytes_out += (unsigned long long)n;
        c->last_tx = mpx_now_ms();
    }
    if (c->out_off == c->out.len) {
        c->out_off = c->out.len = 0;
    } else if (c->out_off > c->out.len / 2) {
        memmove(c->out.p, c->out.p + c->out_off, c->out.len - c->out_off);
        c->out.len -= c->out_off;
        c->out_off = 0;
    }
    return 0;
}

void mpx_frame_put(struct mpx_buf *out, int type, const void *a, size_t alen, const void *b,
                   size_t blen)
{
    unsigned char hdr[MPX_FRAME_HDR] = { 0 };
    uint32_t n = htonl((uint32_t)(alen + blen));
    memcpy(hdr, &n, 4);
    hdr[4] = (unsigned char)type;
    mpx_buf_put(out, hdr, sizeof hdr);
    mpx_buf_put(out, a, alen);
    mpx_buf_put(out, b, blen);
}

int mpx_conn_send(struct mpx_conn *c, int type, const void *a, size_t alen, const void *b,
                  size_t blen)
{
    if (c->fd < 0)
        return -1;
    mpx_frame_put(&c->out, type, a, alen, b, blen);
    if (c->out.oom)
        return conn_failed(c, "out of memory queueing a message", 0);
    c->frames_out++;
    /* A write now keeps latency low; what the socket does not take waits
     * for POLLOUT. */
    return mpx_conn_flush(c);
}

int mpx_conn_fill(struct mpx_conn *c)
{
    if (c->fd < 0)
        return -1;
    if (c->in_off > 0) { /* drop consumed frames */
        memmove(c->in.p, c->in.p + c->in_off, c->in.len - c->in_off);
        c->in.len -= c->in_off;
        c->in_off = 0;
    }
    for (int i = 0; i < 16; i++) {
        char tmp[65536];
        ssize_t n = recv(c->fd, tmp, sizeof tmp, MSG_DONTWAIT);
        if (n > 0) {
            mpx_buf_put(&c->in, tmp, (size_t)n);
            if (c->in.oom)
                return conn_failed(c, "out of memory reading a message", 0);
            c->bytes_in += (unsigned long long)n;
            c->last_rx = mpx_now_ms();
            if ((size_t)n < sizeof tmp)
                return 0;
            continue;
        }
        if (n == 0)
            return conn_failed(c, MPX_CONN_CLOSED, 0);
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        /* A peer killed with bytes unread in its socket resets instead of
         * closing: the same end, said the same way (a killed proxy was
         * reported either way, at random). */
        if (errno == ECONNRESET)
            return conn_failed(c, MPX_CONN_CLOSED, 0);
        return conn_failed(c, "reading the connection failed", errno);
    }
    return 0;
}

int mpx_conn_frame(struct mpx_conn *c, int *type, struct mpx_rd *payload)
{
    size_t have = c->in.len - c->in_off;
    if (have < MPX_FRAME_HDR)
        return 0;
    const unsigned char *h = c->in.p + c->in_off;
    uint32_t n;
    memcpy(&n, h, 4);
    n = ntohl(n);
    if (n > c->max_frame) {
        conn_failed(c, "a message larger than allowed (not a Faro proxy?)", 0);
        return -1;
    }
    if (have < MPX_FRAME_HDR + (size_t)n)
        return 0;
    *type = h[4];
    mpx_rd_init(payload, h + MPX_FRAME_HDR, n);
    c->in_off += MPX_FRAME_HDR + n;
    c->frames_in++;
    return 1;
}

/* ---- authentication ---- */

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                  \
    do {                                                                          \
        v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);                 \
        v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                                    \
        v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                                    \
        v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);                 \
    } while (0)

/* SipHash-2-4 (Aumasson and Bernstein), 64-bit output. */
static uint64_t siphash24(const unsigned char key[16], const unsigned char *m, size_t len)
{
    uint64_t k0 = faro_le_get64(key), k1 = faro_le_get64(key + 8);
    uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
    uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
    size_t full = len & ~(size_t)7;
    for (size_t i = 0; i < full; i += 8) {
        uint64_t w = faro_le_get64(m + i);
        v3 ^= w;
        SIPROUND;
        SIPROUND;
        v0 ^= w;
    }
    uint64_t b = (uint64_t)len << 56;
    for (size_t i = 0; i < (len & 7); i++)
        b |= (uint64_t)m[full + i] << (8 * i);
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t mpx_auth_mac(const unsigned char key[MPX_KEYLEN], const char *role,
                      const unsigned char nonce[16], uint32_t id)
{
    unsigned char m[64];
    size_t n = strlen(role);
    if (n > 32)
        n = 32;
    memcpy(m, role, n);
    memcpy(m + n, nonce, 16);
    uint32_t nid = htonl(id);
    memcpy(m + n + 16, &nid, 4);
    return siphash24(key, m, n + 20);
}

int mpx_random(void *p, size_t n)
{
    if (getrandom(p, n, 0) == (ssize_t)n)
        return 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, p, n) : -1;
    if (fd >= 0)
        close(fd);
    return got == (ssize_t)n ? 0 : -1;
}
