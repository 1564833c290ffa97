#include "p2p/match.h"
#include "base/tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "p2p/request.h"

/* Contexts are small integers handed out by the communicator layer, so a
 * growable array indexed by context is both the simplest and fastest map
 * (faro_mq_get reads it; match.h). */
struct faro_mq **faro_mq_table;
uint32_t faro_mq_cap;

struct faro_mq *faro_mq_create(uint32_t ctx)
{
    if (ctx < faro_mq_cap && faro_mq_table[ctx])
        return faro_mq_table[ctx];
    if (ctx >= faro_mq_cap) {
        uint32_t cap = faro_mq_cap ? faro_mq_cap : 16;
        while (cap <= ctx)
            cap *= 2;
        struct faro_mq **t = realloc(faro_mq_table, cap * sizeof *t);
        if (!t)
            return NULL;
        for (uint32_t i = faro_mq_cap; i < cap; i++)
            t[i] = NULL;
        faro_mq_table = t;
        faro_mq_cap = cap;
    }
    faro_mq_table[ctx] = calloc(1, sizeof(struct faro_mq));
    return faro_mq_table[ctx];
}

size_t faro_unexp_bytes;
/* FARO_UNEXPECTED_LIMIT, read at the first unexpected message after a change
 * (0: not read yet), so that keeping a message costs no call to the table. */
static size_t unexp_limit;

void faro_unexp_limit_changed(void)
{
    unexp_limit = 0;
}

/* Past the cached limit: read the limit again, and end the job when the
 * message (charge bytes: its record and what it keeps) would pass it. */
static __attribute__((noinline)) void unexp_over(int peer, const struct faro_hdr_match *m,
                                                 size_t charge, const char *kind)
{
    unexp_limit = (size_t)faro_tun_int(FARO_TUN_UNEXPECTED_LIMIT);
    if (faro_unexp_bytes + charge > unexp_limit) {
        char have[32], lim[32];
        snprintf(have, sizeof have, "%.1f MiB", (double)faro_unexp_bytes / 1048576.0);
        snprintf(lim, sizeof lim, "%s", faro_tun_str(FARO_TUN_UNEXPECTED_LIMIT));
        faro_fatal(MPI_ERR_NO_MEM, "messages that arrived before their receives hold %s here "
                   "(%zu messages: their data and a %zu-byte record each), and a %llu-byte "
                   "%s one from rank %d (tag %d) would pass FARO_UNEXPECTED_LIMIT=%s: post "
                   "the receives earlier, or let the sender wait (MPI_Ssend), or raise "
                   "FARO_UNEXPECTED_LIMIT", have, faro_unexp_queued, sizeof(struct faro_unexp),
                   (unsigned long long)m->len, kind, peer, m->tag, lim);
    }
}

struct faro_unexp *faro_unexp_eager(int peer, const struct faro_hdr_match *m)
{
    size_t len = (size_t)m->len;
    /* the record counts too: a flood of empty messages is no less a flood */
    if (__builtin_expect(faro_unexp_bytes + len + sizeof(struct faro_unexp) > unexp_limit, 0))
        unexp_over(peer, m, len + sizeof(struct faro_unexp), "eager");
    struct faro_unexp *u = malloc(sizeof *u + len);
    if (!u)
        faro_fatal(MPI_ERR_NO_MEM, "out of memory for an arriving message of %zu bytes from "
                   "rank %d (unexpected messages already hold %zu bytes here)", len, peer,
                   faro_unexp_bytes);
    memset(u, 0, sizeof *u);
    u->kind = FARO_AM_EAGER;
    u->peer = peer;
    u->h.m = *m;
    u->data = (char *)(u + 1);
    u->held = sizeof *u + len;
    faro_unexp_bytes += u->held;
    return u;
}

struct faro_unexp *faro_unexp_rts(int peer, const struct faro_hdr_rts *h, const void *key,
                                  size_t keylen)
{
    int keeps_key = (h->m.flags & FARO_HDR_RKEY_DATA) != 0;
    size_t charge = sizeof(struct faro_unexp) + (keeps_key ? keylen : 0);
    if (faro_unexp_bytes + charge > unexp_limit)
        unexp_over(peer, &h->m, charge, "rendezvous");
    struct faro_unexp *u = calloc(1, sizeof *u);
    if (u && keeps_key && (u->data = malloc(keylen ? keylen : 1)))
        memcpy(u->data, key, keylen); /* the key travels with the record */
    if (!u || (keeps_key && !u->data))
        faro_fatal(MPI_ERR_NO_MEM, "out of memory for a rendezvous record from rank %d "
                   "(unexpected messages already hold %zu bytes here)", peer, faro_unexp_bytes);
    u->kind = FARO_AM_RTS;
    u->peer = peer;
    u->h = *h;
    u->held = charge;
    faro_unexp_bytes += charge;
    return u;
}

void faro_unexp_free(struct faro_unexp *u)
{
    faro_unexp_bytes -= u->held;
    if (u->data != (char *)(u + 1)) /* not in the same allocation (an RTS's key) */
        free(u->data);
    free(u);
}

void faro_mq_free_all(void)
{
    for (uint32_t i = 0; i < faro_mq_cap; i++) {
        struct faro_mq *q = faro_mq_table[i];
        if (!q)
            continue;
        while (q->unexp) {
            struct faro_unexp *u = q->unexp;
            q->unexp = u->next;
            faro_unexp_free(u);
        }
        free(q);
    }
    faro_unexp_queued = 0;
    free(faro_mq_table);
    faro_mq_table = NULL;
    faro_mq_cap = 0;
}

int faro_mq_drop(uint32_t ctx)
{
    return faro_mq_drop_peer(ctx, -1);
}

int faro_mq_drop_peer(uint32_t ctx, int peer)
{
    if (ctx >= faro_mq_cap || !faro_mq_table[ctx])
        return 0;
    struct faro_mq *q = faro_mq_table[ctx];
    struct faro_unexp *keep = NULL, *tail = NULL;
    int dropped = 0;
    while (q->unexp) {
        struct faro_unexp *u = q->unexp;
        q->unexp = u->next;
        u->next = NULL;
        if ((peer >= 0 && u->peer != peer) ||
            (u->kind == FARO_AM_EAGER && u->have < u->h.m.len)) {
            if (tail)
                tail->next = u;
            else
                keep = u;
            tail = u;
            continue;
        }
        faro_unexp_free(u);
        faro_unexp_queued--;
        dropped++;
    }
    q->unexp = keep;
    q->unexp_tail = tail;
    return dropped;
}

static inline int matches(int want_src, int want_tag, int src, int tag)
{
    return (want_src == src || want_src == MPI_ANY_SOURCE) &&
           (want_tag == tag || (want_tag == MPI_ANY_TAG && tag >= 0));
}

void faro_mq_post(struct faro_mq *q, struct faro_request *r)
{
    r->next = NULL;
    if (q->posted_tail)
        q->posted_tail->next = r;
    else
        q->posted = r;
    q->posted_tail = r;
}

struct faro_request *faro_mq_take_posted(struct faro_mq *q, int src, int tag)
{
    struct faro_request *prev = NULL;
    for (struct faro_request *r = q->posted; r; prev = r, r = r->next) {
        if (!matches(r->rank, r->tag, src, tag))
            continue;
        if (prev)
            prev->next = r->next;
        else
            q->posted = r->next;
        if (q->posted_tail == r)
            q->posted_tail = prev;
        r->next = NULL;
        return r;
    }
    return NULL;
}

int faro_mq_unpost(struct faro_mq *q, struct faro_request *r)
{
    struct faro_request *prev = NULL;
    for (struct faro_request *p = q->posted; p; prev = p, p = p->next) {
        if (p != r)
            continue;
        if (prev)
            prev->next = p->next;
        else
            q->posted = p->next;
        if (q->posted_tail == p)
            q->posted_tail = prev;
        p->next = NULL;
        return 1;
    }
    return 0;
}

size_t faro_unexp_queued, faro_unexp_queued_max;

void faro_mq_add_unexp(struct faro_mq *q, struct faro_unexp *u)
{
    if (++faro_unexp_queued > faro_unexp_queued_max)
        faro_unexp_queued_max = faro_unexp_queued;
    u->next = NULL;
    if (q->unexp_tail)
        q->unexp_tail->next = u;
    else
        q->unexp = u;
    q->unexp_tail = u;
}

struct faro_unexp *faro_mq_find_unexp(struct faro_mq *q, int src, int tag, int take)
{
    struct faro_unexp *prev = NULL;
    for (struct faro_unexp *u = q->unexp; u; prev = u, u = u->next) {
        if (!matches(src, tag, u->h.m.src, u->h.m.tag))
            continue;
        if (take) {
            if (prev)
                prev->next = u->next;
            else
                q->unexp = u->next;
            if (q->unexp_tail == u)
                q->unexp_tail = prev;
            u->next = NULL;
            faro_unexp_queued--;
        }
        return u;
    }
    return NULL;
}
