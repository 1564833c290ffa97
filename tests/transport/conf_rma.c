/*
 * Transport conformance suite: the cases of remote memory (caps GET/PUT).
 *
 *   rma        register, pack and ship a key, get, get a piece from the middle,
 *              put; a put's done is remote completion, so a message sent after
 *              it finds the data in place
 *   rma-iov    get and put with 200 local pieces of uneven sizes, more than
 *              any provider takes in one operation (the transport splits)
 *   rma-reuse  the owner gives its buffer back (munmap) and maps new memory at
 *              the same address with new data, round after round; a get must
 *              read the new data (a registration cache must not hand out the
 *              old registration: transport.h, "Registration cache")
 */
#include "config.h"

#include "conf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

static size_t t_min(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* The largest transfer a case makes: want, cut to the transport's limits. */
static size_t t_rma_len(const struct t *t, size_t want)
{
    return t_min(want, t_min(t->attr.max_get ? t->attr.max_get : SIZE_MAX,
                             t->attr.max_put ? t->attr.max_put : SIZE_MAX));
}

/* What the remote side may do to a registration, from the caps. */
static unsigned t_access(const struct t *t)
{
    return ((t->attr.caps & FARO_TP_CAP_GET) ? FARO_TP_MEM_REMOTE_READ : 0) |
           ((t->attr.caps & FARO_TP_CAP_PUT) ? FARO_TP_MEM_REMOTE_WRITE : 0);
}

/* ---- get and put on registered memory ---- */

struct t_rkey {
    uint64_t raddr, len, rkey_len;
    uint8_t rkey[FARO_TP_MAX_RKEY];
};

static void t_rma_done(void *arg, int status)
{
    struct t *t = arg;
    if (status != 0)
        t_fail(t, "a get or put completed with status %d", status);
    t->count++;
}

static int t_raw(struct t *t, long n)
{
    return t->nraw >= n && t->pending == 0;
}

static int t_count(struct t *t, long n)
{
    return t->count >= n;
}

/* A get or put of the local pieces iov[0..n) from/to raddr at `owner`; waits
 * for its done when it completes later. */
static int t_rma_iov(struct t *t, int put, int owner, const faro_tp_rkey_t *rkey,
                     uint64_t raddr, faro_tp_mem_t *lmem, const struct iovec *iov, int n)
{
    faro_tp_ep_t *ep = t_ep(t, owner);
    if (!ep)
        return -1;
    int r = put ? t->ops->put(t->tp, ep, iov, n, lmem, rkey, raddr, t_rma_done, t)
                : t->ops->get(t->tp, ep, iov, n, lmem, rkey, raddr, t_rma_done, t);
    if (r == FARO_TP_OK) {
        long want = t->count + 1;
        return t_wait(t, t_count, want, put ? "a put" : "a get");
    }
    if (r != FARO_TP_DONE) {
        t_fail(t, "%s of %d pieces at %#llx from rank %d returned %d", put ? "put" : "get", n,
               (unsigned long long)raddr, owner, r);
        return -1;
    }
    return 0;
}

static int t_rma(struct t *t, int put, int owner, const faro_tp_rkey_t *rkey, uint64_t raddr,
                 faro_tp_mem_t *lmem, uint8_t *local, size_t off, size_t len)
{
    /* three local pieces, so the iovec walk is tested too */
    struct iovec iov[3] = {{local, len / 3}, {local + len / 3, len / 3},
                           {local + 2 * (len / 3), len - 2 * (len / 3)}};
    return t_rma_iov(t, put, owner, rkey, raddr + off, lmem, iov, 3);
}

/* Owner: register [buf, +len) for the peer and send it the key (kind 5). */
static int t_expose(struct t *t, void *buf, size_t len, int dest, faro_tp_mem_t **mem)
{
    struct t_rkey k;
    size_t klen = sizeof k.rkey;
    memset(&k, 0, sizeof k);
    if (t->ops->mem_reg(t->tp, buf, len, t_access(t), mem) < 0 || !*mem) {
        t_fail(t, "mem_reg of %zu bytes failed", len);
        *mem = NULL;
        return -1;
    }
    if (t->ops->rkey_pack(t->tp, *mem, k.rkey, &klen) < 0 || klen > t->attr.rkey_size) {
        t_fail(t, "rkey_pack failed or wrote %zu bytes (attr.rkey_size %zu)", klen,
               t->attr.rkey_size);
        return -1;
    }
    k.raddr = (uintptr_t)buf;
    k.len = len;
    k.rkey_len = klen;
    return t_send_raw(t, dest, 5, &k, sizeof k);
}

/* User: wait for the owner's nth key and unpack it; `damaged`: first check
 * that a key one byte short is refused. */
static int t_take_key(struct t *t, int owner, long nth, int damaged, struct t_rkey *k,
                      faro_tp_rkey_t **rkey)
{
    *rkey = NULL;
    if (t_wait(t, t_raw, nth, "the remote key") < 0)
        return -1;
    memcpy(k, t->raw, t_min(sizeof *k, t->rawlen));
    faro_tp_ep_t *ep = t_ep(t, owner);
    if (!ep)
        return -1;
    if (damaged && k->rkey_len > 1) { /* refused (or at least not trusted blindly) */
        uint8_t bad_key[FARO_TP_MAX_RKEY];
        faro_tp_rkey_t *rk = NULL;
        memcpy(bad_key, k->rkey, k->rkey_len);
        bad_key[0] ^= 0xff;
        bad_key[k->rkey_len - 1] ^= 0xff;
        if (t->ops->rkey_unpack(t->tp, ep, bad_key, k->rkey_len - 1, &rk) >= 0) {
            t_fail(t, "rkey_unpack accepted a key one byte short");
            t->ops->rkey_release(t->tp, rk);
            return -1;
        }
    }
    if (t->ops->rkey_unpack(t->tp, ep, k->rkey, k->rkey_len, rkey) < 0 || !*rkey) {
        t_fail(t, "rkey_unpack of a %llu-byte key from rank %d failed",
               (unsigned long long)k->rkey_len, owner);
        *rkey = NULL;
        return -1;
    }
    return 0;
}

static int t_no_rma(struct t *t)
{
    if (t->attr.caps & (FARO_TP_CAP_PUT | FARO_TP_CAP_GET))
        return 0;
    t_skip(t, "caps offer neither PUT nor GET");
    return 1;
}

int c_rma(struct t *t)
{
    const unsigned caps = t->attr.caps;
    const int owner = t->size == 1 ? 0 : 1, user = 0;
    size_t len = t_rma_len(t, 1 << 20);
    uint8_t *buf = NULL, *local = NULL;
    faro_tp_mem_t *mem = NULL, *lmem = NULL;
    faro_tp_rkey_t *rkey = NULL;
    struct t_rkey k;
    long bad;
    int r = -1;

    if (t_no_rma(t))
        return T_SKIP;
    if (t->rank == owner) {
        buf = malloc(len);
        t_fill(buf, len, 77);
        if (t_expose(t, buf, len, user, &mem) < 0)
            goto out;
    }
    if (t->rank == user) {
        if (t_take_key(t, owner, 1, 1, &k, &rkey) < 0)
            goto out;
        local = malloc(len);
        if ((caps & FARO_TP_CAP_LOCAL_REG) &&
            t->ops->mem_reg(t->tp, local, len, FARO_TP_MEM_LOCAL, &lmem) < 0) {
            t_fail(t, "mem_reg of the local buffer failed");
            goto out;
        }
        if ((caps & FARO_TP_CAP_GET)) {
            memset(local, 0, len);
            if (t_rma(t, 0, owner, rkey, k.raddr, lmem, local, 0, len) < 0)
                goto out;
            if ((bad = t_check(local, len, 77)) >= 0) {
                t_fail(t, "get of %zu bytes: byte %ld is wrong", len, bad);
                goto out;
            }
            /* A piece from the middle lands where asked, and nothing past it. */
            size_t off = t_min(12345, len / 2), part = t_min(1000, len - off - 1);
            uint8_t *want = malloc(len);
            t_fill(want, len, 77);
            memset(local, 0, len);
            if (t_rma(t, 0, owner, rkey, k.raddr, lmem, local, off, part) < 0) {
                free(want);
                goto out;
            }
            int ok = !memcmp(local, want + off, part) && local[part] == 0;
            free(want);
            if (!ok) {
                t_fail(t, "get of %zu bytes at offset %zu: wrong data or written past its end",
                       part, off);
                goto out;
            }
        }
        if (caps & FARO_TP_CAP_PUT) {
            t_fill(local, len, 99);
            if (t_rma(t, 1, owner, rkey, k.raddr, lmem, local, 0, len) < 0)
                goto out;
        }
        /* After the put's done: remote completion, so this arrives after the data. */
        t_send_raw(t, owner, 6, "done", 4);
    }
    if (t->rank == owner) {
        if (t_wait(t, t_raw, t->size == 1 ? 2 : 1, "the peer's get and put") < 0)
            goto out;
        if ((caps & FARO_TP_CAP_PUT) && (bad = t_check(buf, len, 99)) >= 0) {
            t_fail(t, "put of %zu bytes: byte %ld at the owner is wrong", len, bad);
            goto out;
        }
    }
    r = 0;
out:
    if (rkey && t->ops->rkey_release(t->tp, rkey) < 0)
        t_fail(t, "rkey_release failed");
    if (lmem && t->ops->mem_dereg(t->tp, lmem) < 0)
        t_fail(t, "mem_dereg of the local buffer failed");
    if (mem && t->ops->mem_dereg(t->tp, mem) < 0)
        t_fail(t, "mem_dereg failed");
    free(buf);
    free(local);
    return r;
}


/* ---- get and put with many uneven local pieces ---- */

#define T_PIECES 200

int c_rma_iov(struct t *t)
{
    const int owner = t->size == 1 ? 0 : 1, user = 0;
    size_t len = t_rma_len(t, 256 * 1024);
    uint8_t *buf = NULL, *local = NULL, *ref = NULL;
    faro_tp_mem_t *mem = NULL, *lmem = NULL;
    faro_tp_rkey_t *rkey = NULL;
    struct iovec iov[T_PIECES];
    struct t_rkey k;
    size_t total = 0;
    long bad;
    int r = -1, n = 0;

    if (t_no_rma(t))
        return T_SKIP;
    /* Pieces of 1..1100 bytes with 16-byte gaps between them locally, one
     * contiguous range remotely. */
    local = calloc(1, 2 * len);
    ref = malloc(len);
    for (size_t pos = 0; n < T_PIECES; n++) {
        size_t l = (size_t)(n * 379) % 1100 + 1;
        if (total + l > len || pos + l + 16 > 2 * len)
            break;
        iov[n] = (struct iovec){ local + pos, l };
        pos += l + 16;
        total += l;
    }
    if (t->rank == owner) {
        buf = malloc(len);
        t_fill(buf, len, 41);
        if (t_expose(t, buf, len, user, &mem) < 0)
            goto out;
    }
    if (t->rank == user) {
        if (t_take_key(t, owner, 1, 0, &k, &rkey) < 0)
            goto out;
        if ((t->attr.caps & FARO_TP_CAP_LOCAL_REG) &&
            t->ops->mem_reg(t->tp, local, 2 * len, FARO_TP_MEM_LOCAL, &lmem) < 0) {
            t_fail(t, "mem_reg of the local buffer failed");
            goto out;
        }
        t_fill(ref, len, 41);
        if (t->attr.caps & FARO_TP_CAP_GET) {
            if (t_rma_iov(t, 0, owner, rkey, k.raddr, lmem, iov, n) < 0)
                goto out;
            size_t off = 0;
            for (int i = 0; i < n; i++) {
                uint8_t *gap = (uint8_t *)iov[i].iov_base + iov[i].iov_len;
                if (memcmp(iov[i].iov_base, ref + off, iov[i].iov_len) || (i + 1 < n && *gap)) {
                    t_fail(t, "get into %d pieces: piece %d (%zu bytes at offset %zu) is wrong "
                           "or the gap after it was written", n, i, iov[i].iov_len, off);
                    goto out;
                }
                off += iov[i].iov_len;
            }
        }
        if (t->attr.caps & FARO_TP_CAP_PUT) {
            t_fill(ref, total, 43);
            for (int i = 0, off = 0; i < n; off += (int)iov[i++].iov_len)
                memcpy(iov[i].iov_base, ref + off, iov[i].iov_len);
            if (t_rma_iov(t, 1, owner, rkey, k.raddr, lmem, iov, n) < 0)
                goto out;
        }
        t_send_raw(t, owner, 6, "done", 4);
    }
    if (t->rank == owner) {
        if (t_wait(t, t_raw, t->size == 1 ? 2 : 1, "the peer's get and put") < 0)
            goto out;
        if ((t->attr.caps & FARO_TP_CAP_PUT) && (bad = t_check(buf, total, 43)) >= 0) {
            t_fail(t, "put from %d pieces: byte %ld at the owner is wrong", n, bad);
            goto out;
        }
    }
    r = 0;
out:
    if (rkey)
        t->ops->rkey_release(t->tp, rkey);
    if (lmem)
        t->ops->mem_dereg(t->tp, lmem);
    if (mem)
        t->ops->mem_dereg(t->tp, mem);
    free(buf);
    free(local);
    free(ref);
    return r;
}

/* ---- memory unmapped and mapped again at the same address ---- */

#define T_REUSE_ROUNDS 4
#define T_REUSE_LEN (1u << 20)

/* The owner's buffer of a round: at `at` when given (the last round's address). */
static uint8_t *t_map(void *at)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED_NOREPLACE : 0);
    void *p = mmap(at, T_REUSE_LEN, PROT_READ | PROT_WRITE, flags, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int c_rma_reuse(struct t *t)
{
    const int owner = 1, user = 0; /* two processes (T_PEERS) */
    size_t len = t_rma_len(t, T_REUSE_LEN);
    uint8_t *local = NULL, *at = NULL;
    faro_tp_mem_t *lmem = NULL;
    long bad;
    int r = -1;

    if (t_no_rma(t))
        return T_SKIP;
    if (!(t->attr.caps & FARO_TP_CAP_GET)) {
        t_skip(t, "caps offer no GET");
        return T_SKIP;
    }
    local = malloc(len);
    if (t->rank == user && (t->attr.caps & FARO_TP_CAP_LOCAL_REG) &&
        t->ops->mem_reg(t->tp, local, len, FARO_TP_MEM_LOCAL, &lmem) < 0) {
        t_fail(t, "mem_reg of the local buffer failed");
        goto out;
    }
    for (int round = 0; round < T_REUSE_ROUNDS; round++) {
        uint32_t seed = 500 + (uint32_t)round;
        if (t->rank == owner) {
            faro_tp_mem_t *mem = NULL;
            uint8_t *p = t_map(at);
            if (!p || (at && p != at)) {
                t_fail(t, "round %d: mmap at %p failed", round, (void *)at);
                goto out;
            }
            at = p;
            t_fill(p, len, seed);
            long seen = t->nraw;
            int ok = t_expose(t, p, len, user, &mem) == 0 &&
                     t_wait(t, t_raw, seen + 1, "the peer's get") == 0;
            if (mem)
                t->ops->mem_dereg(t->tp, mem);
            munmap(p, T_REUSE_LEN); /* given back: the next round maps new pages here */
            if (!ok)
                goto out;
        }
        if (t->rank == user) {
            struct t_rkey k;
            faro_tp_rkey_t *rkey = NULL;
            if (t_take_key(t, owner, round + 1, 0, &k, &rkey) < 0)
                goto out;
            memset(local, 0, len);
            int rc = t_rma(t, 0, owner, rkey, k.raddr, lmem, local, 0, len);
            t->ops->rkey_release(t->tp, rkey);
            if (rc < 0)
                goto out;
            if ((bad = t_check(local, len, seed)) >= 0) {
                t_fail(t, "round %d: the buffer was mapped again at %#llx with new data, but "
                       "byte %ld read through the new key is wrong (a stale registration?)",
                       round, (unsigned long long)k.raddr, bad);
                goto out;
            }
            t_send_raw(t, owner, 6, "done", 4);
        }
    }
    r = 0;
out:
    if (lmem)
        t->ops->mem_dereg(t->tp, lmem);
    free(local);
    return r;
}
