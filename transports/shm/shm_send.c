/*
 * Sending: copy header and payload into a free slot of our ring in the
 * receiver's segment, then publish it.
 *
 * Order per peer is the contract, so once one isend to a peer waits in the
 * queue, every later send to that peer waits behind it: send_inline says
 * "again" and isend queues. progress (faro_shm_drain) empties the queues as
 * the receiver frees slots. A fragment never exceeds max_send, so every
 * message fits one slot and a queued isend needs exactly one slot to go.
 */
#include "shm.h"
#include "base/log.h"

#include <stdlib.h>
#include <string.h>

/* Fill a slot's header and message header; returns where the payload goes. */
static inline char *shm_slot_fill(void *slot, unsigned kind, const void *hdr, size_t hdrlen,
                                  size_t len)
{
    struct shm_slot *s = slot;
    s->len = (uint32_t)len;
    s->hdrlen = (uint8_t)hdrlen;
    s->kind = (uint8_t)kind;
    char *p = (char *)(s + 1);
    if (hdrlen)
        memcpy(p, hdr, hdrlen);
    return p + hdrlen;
}

static void shm_copy_iov(char *dst, const struct iovec *iov, int iovcnt)
{
    for (int i = 0; i < iovcnt; i++) {
        memcpy(dst, iov[i].iov_base, iov[i].iov_len);
        dst += iov[i].iov_len;
    }
}

/* Misuse by the caller: say what was wrong and what is allowed. */
static int shm_bad_send(faro_tp_t *tp, const char *op, struct faro_tp_ep *p, unsigned kind,
                        size_t hdrlen, size_t len, size_t max)
{
    int peer = p ? p->rank : -1;
    if (!p)
        faro_error("shm: %s: no endpoint (NULL)", op);
    else if (kind >= FARO_TP_MAX_KINDS)
        faro_error("shm: %s to rank %d: kind %u is invalid (0..%d)", op, peer, kind,
                   FARO_TP_MAX_KINDS - 1);
    else if (hdrlen > FARO_TP_MAX_HDR)
        faro_error("shm: %s to rank %d: header of %zu bytes is too long (at most %d)", op, peer,
                   hdrlen, FARO_TP_MAX_HDR);
    else
        faro_error("shm: %s to rank %d: %zu bytes exceed the limit of %zu "
                   "(FARO_SHM_SLOT_SIZE sets it)", op, peer, len, max);
    return FARO_TP_ERR;
}

int faro_shm_send_inline(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
                         size_t hdrlen, const void *data, size_t len)
{
    if (__builtin_expect(!p || kind >= FARO_TP_MAX_KINDS || hdrlen > FARO_TP_MAX_HDR ||
                         hdrlen + len > tp->max_inline, 0))
        return shm_bad_send(tp, "send_inline", p, kind, hdrlen, hdrlen + len, tp->max_inline);
    if (p->qhead || !p->connected)
        return FARO_TP_AGAIN;
    void *slot = shm_tx_reserve(&p->tx);
    if (!slot)
        return FARO_TP_AGAIN;
    char *payload = shm_slot_fill(slot, kind, hdr, hdrlen, len);
    if (len)
        memcpy(payload, data, len);
    shm_tx_publish(&p->tx);
    shm_tx_wake(p);
    return FARO_TP_DONE;
}

static struct shm_pend *shm_pend_get(faro_tp_t *tp, int iovcnt)
{
    struct shm_pend *e = tp->pend_free;
    if (e)
        tp->pend_free = e->next;
    else if (!(e = malloc(sizeof *e)))
        return NULL;
    e->iov = e->iov_inline;
    if (iovcnt > (int)(sizeof e->iov_inline / sizeof e->iov_inline[0]) &&
        !(e->iov = malloc(sizeof *e->iov * (size_t)iovcnt))) {
        e->next = tp->pend_free;
        tp->pend_free = e;
        return NULL;
    }
    return e;
}

static void shm_pend_put(faro_tp_t *tp, struct shm_pend *e)
{
    if (e->iov != e->iov_inline)
        free(e->iov);
    e->next = tp->pend_free;
    tp->pend_free = e;
}

int faro_shm_isend(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
                   size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
                   void *arg)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    /* max_send holds for any header; a message that send_inline accepted (and
     * answered "again" for) must be accepted here too, so the test is the slot. */
    if (!p || kind >= FARO_TP_MAX_KINDS || hdrlen > FARO_TP_MAX_HDR ||
        hdrlen + len > tp->max_inline || iovcnt < 0)
        return shm_bad_send(tp, "isend", p, kind, hdrlen, len, tp->max_inline - hdrlen);

    if (!p->qhead && p->connected) {
        void *slot = shm_tx_reserve(&p->tx);
        if (slot) {
            shm_copy_iov(shm_slot_fill(slot, kind, hdr, hdrlen, len), iov, iovcnt);
            shm_tx_publish(&p->tx);
            shm_tx_wake(p);
            return FARO_TP_DONE;
        }
    }

    struct shm_pend *e = shm_pend_get(tp, iovcnt);
    if (!e) {
        faro_error("shm: isend to rank %d: out of memory queueing %zu bytes", p->rank, len);
        return FARO_TP_ERR;
    }
    e->next = NULL;
    e->done = done;
    e->arg = arg;
    e->iovcnt = iovcnt;
    if (iovcnt)
        memcpy(e->iov, iov, sizeof *iov * (size_t)iovcnt);
    e->len = (uint32_t)len;
    e->kind = (uint8_t)kind;
    e->hdrlen = (uint8_t)hdrlen;
    if (hdrlen)
        memcpy(e->hdr, hdr, hdrlen);
    *p->qtail = e;
    p->qtail = &e->next;
    tp->nqueued++;
    return FARO_TP_OK;
}

/* Move queued isends into slots freed since the last call; returns completions.
 * A done callback may send again (the next fragment): the queue is re-read
 * after each one, so such a send lands behind what is still queued. */
int faro_shm_drain(faro_tp_t *tp)
{
    int events = 0;
    for (int l = 0; l < tp->env->local_size && tp->nqueued; l++) {
        struct faro_tp_ep *p = &tp->peers[l];
        int moved = 0;
        while (p->qhead && p->connected) {
            void *slot = shm_tx_reserve(&p->tx);
            if (!slot)
                break;
            struct shm_pend *e = p->qhead;
            shm_copy_iov(shm_slot_fill(slot, e->kind, e->hdr, e->hdrlen, e->len), e->iov,
                         e->iovcnt);
            shm_tx_publish(&p->tx);
            moved++;
            if (!(p->qhead = e->next))
                p->qtail = &p->qhead;
            tp->nqueued--;
            faro_tp_done_fn done = e->done;
            void *arg = e->arg;
            shm_pend_put(tp, e);
            if (done)
                done(arg, 0);
            events++;
        }
        if (moved && p->connected)
            shm_tx_wake(p); /* once for the batch */
    }
    return events;
}

void faro_shm_queue_free(faro_tp_t *tp)
{
    for (int l = 0; tp->peers && l < tp->env->local_size; l++) {
        struct faro_tp_ep *p = &tp->peers[l];
        while (p->qhead) {
            struct shm_pend *e = p->qhead;
            p->qhead = e->next;
            shm_pend_put(tp, e);
        }
        p->qtail = &p->qhead;
    }
    tp->nqueued = 0;
    while (tp->pend_free) {
        struct shm_pend *e = tp->pend_free;
        tp->pend_free = e->next;
        free(e);
    }
}
