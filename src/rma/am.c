/*
 * The target side of one-sided communication: the window poller receives
 * the request messages of every window (rma.h says what they hold), applies
 * them to the window's memory in each origin's order, grants and releases
 * locks, answers flushes and counts PSCW completions.
 *
 * The poller runs inside faro_progress: from any MPI call of this process,
 * or from the progress thread when FARO_ASYNC_PROGRESS is on. It posts
 * sends and receives but never waits. A request that cannot be applied at
 * once (its body has not arrived, or it asks for a lock held by another)
 * goes into its origin's queue, and everything that origin sends after it
 * waits behind it.
 */
#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"
#include "p2p/match.h"

struct rma_pend {
    struct rma_pend *next;
    struct rma_hdr h;
    char *body;            /* the body: inline copy, or received (malloc'ed) */
    int direct;            /* the body went straight into the window */
    struct faro_request *breq; /* the body's receive, until complete */
};

static int post_hreq(MPI_Win win)
{
    struct faro_rma_target *t = win->t;
    return faro_rma_post(win, FARO_REQ_RECV, t->hbuf, RMA_MSG_MAX, MPI_ANY_SOURCE, RMA_TAG_REQ,
                         NULL, NULL, &t->hreq);
}

int faro_rma_target_init(MPI_Win win)
{
    int n = win->comm->size;
    struct faro_rma_target *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    win->t = t;
    t->excl = -1;
    t->exposure = -1;
    t->hbuf = malloc(RMA_MSG_MAX);
    t->qhead = calloc((size_t)n, sizeof *t->qhead);
    t->qtail = calloc((size_t)n, sizeof *t->qtail);
    t->err = calloc((size_t)n, sizeof *t->err);
    if (!t->hbuf || !t->qhead || !t->qtail || !t->err)
        return -1;
    return post_hreq(win) ? -1 : 0;
}

void faro_rma_target_free(MPI_Win win)
{
    struct faro_rma_target *t = win->t;
    if (!t)
        return;
    if (t->hreq) {
        if (!t->hreq->complete)
            faro_mq_unpost(faro_mq_get(win->comm->context_id), t->hreq);
        faro_req_release(t->hreq);
    }
    free(t->hbuf);
    free(t->qhead);
    free(t->qtail);
    free(t->err);
    free(t->regions);
    free(t);
    win->t = NULL;
}

int faro_rma_in_window(MPI_Win win, uintptr_t addr, size_t len)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        uintptr_t b = (uintptr_t)win->base;
        return addr >= b && addr - b <= (size_t)win->size && len <= (size_t)win->size - (addr - b);
    }
    if (len == 0)
        return 1;
    const struct faro_rma_target *t = win->t;
    for (int i = 0; i < t->nregions; i++) {
        uintptr_t b = t->regions[i].base;
        if (addr >= b && addr - b < t->regions[i].size && len <= t->regions[i].size - (addr - b))
            return 1;
    }
    return 0;
}

/* The target address of a request. */
static uintptr_t target_addr(MPI_Win win, const struct rma_hdr *h)
{
    return (win->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : (uintptr_t)win->base) + h->addr;
}

/* The pieces of a request: one implied, or the list at the body's start. */
static const struct rma_seg *segs_of(const struct rma_hdr *h, const char *body,
                                     struct rma_seg *one)
{
    if (h->nseg > 1)
        return (const struct rma_seg *)body;
    *one = (struct rma_seg){0, h->len};
    return one;
}

static size_t segs_bytes(const struct rma_hdr *h)
{
    return h->nseg > 1 ? (size_t)h->nseg * sizeof(struct rma_seg) : 0;
}

/* Every piece inside the window's memory; else the origin's error is set. */
static int check_range(MPI_Win win, int src, const struct rma_hdr *h, const struct rma_seg *s)
{
    uintptr_t a = target_addr(win, h);
    for (uint32_t i = 0; i < h->nseg; i++)
        if (!faro_rma_in_window(win, a + (uintptr_t)s[i].off, s[i].len)) {
            if (!win->t->err[src])
                win->t->err[src] = MPI_ERR_RMA_RANGE;
            return -1;
        }
    return 0;
}

static void gather(uintptr_t a, const struct rma_seg *s, uint32_t n, char *out)
{
    for (uint32_t i = 0; i < n; i++) {
        memcpy(out, (const void *)(a + (uintptr_t)s[i].off), s[i].len);
        out += s[i].len;
    }
}

static void scatter(uintptr_t a, const struct rma_seg *s, uint32_t n, const char *in)
{
    for (uint32_t i = 0; i < n; i++) {
        memcpy((void *)(a + (uintptr_t)s[i].off), in, s[i].len);
        in += s[i].len;
    }
}

/* target op= data over the pieces, elements of type e. Dense elements are
 * reduced where they lie, piece by piece (a piece holds whole elements);
 * others (pairs with padding) through unpacked copies of the whole range. */
static void accumulate(MPI_Win win, const struct rma_hdr *h, const struct rma_seg *s,
                       const char *data)
{
    uintptr_t a = target_addr(win, h);
    if (h->op == FARO_OP_NO_OP)
        return;
    if (h->op == FARO_OP_REPLACE || h->elem < 0) {
        scatter(a, s, h->nseg, data);
        return;
    }
    MPI_Op op = faro_op_predef_at(h->op);
    MPI_Datatype e = faro_type_predef_at(h->elem);
    if (e->dense) {
        for (uint32_t i = 0; i < h->nseg; i++) {
            faro_op_reduce(op, data, (void *)(a + (uintptr_t)s[i].off), s[i].len / e->size, e);
            data += s[i].len;
        }
        return;
    }
    char *packed = malloc(h->len);
    if (!packed)
        faro_fatal(MPI_ERR_NO_MEM, "one-sided accumulate: out of memory for %zu bytes",
                   (size_t)h->len);
    gather(a, s, h->nseg, packed);
    faro_rma_reduce_packed(op, e, data, packed, h->len);
    scatter(a, s, h->nseg, packed);
    free(packed);
}

static void reply(MPI_Win win, int src, const struct rma_hdr *h, void *buf, size_t len)
{
    if (faro_rma_send_free(win, buf, len, src, rma_reply_tag(h->id)))
        faro_fatal(MPI_ERR_INTERN, "one-sided: cannot answer rank %d", src);
}

static void ack(MPI_Win win, int src, const struct rma_hdr *h)
{
    struct rma_ack *a = malloc(sizeof *a);
    if (!a)
        faro_fatal(MPI_ERR_NO_MEM, "one-sided: out of memory");
    a->err = win->t->err[src];
    a->rank = win->comm->rank;
    win->t->err[src] = 0;
    reply(win, src, h, a, sizeof *a);
}

static int lock_free_for(const struct faro_rma_target *t, int excl)
{
    return t->excl < 0 && (!excl || t->nshared == 0);
}

/* Apply one request whose body is at hand; 0 when it must wait (a lock). */
static int apply(MPI_Win win, int src, const struct rma_hdr *h, const char *body, int direct)
{
    struct faro_rma_target *t = win->t;
    struct rma_seg one;
    const struct rma_seg *s = segs_of(h, body, &one);
    const char *data = body + segs_bytes(h);
    switch (h->kind) {
    case RMA_PUT:
        if (!direct && !check_range(win, src, h, s))
            scatter(target_addr(win, h), s, h->nseg, data);
        return 1;
    case RMA_ACC:
        if (!check_range(win, src, h, s))
            accumulate(win, h, s, data);
        return 1;
    case RMA_GET:
    case RMA_GACC:
    case RMA_CAS: {
        char *out = calloc(1, h->len ? h->len : 1);
        if (!out)
            faro_fatal(MPI_ERR_NO_MEM, "one-sided: out of memory for %zu bytes", (size_t)h->len);
        if (!check_range(win, src, h, s)) { /* the reply is a snapshot, taken now */
            uintptr_t a = target_addr(win, h);
            gather(a, s, h->nseg, out);
            if (h->kind == RMA_GACC)
                accumulate(win, h, s, data);
            else if (h->kind == RMA_CAS && memcmp(out, data + h->len, h->len) == 0)
                scatter(a, s, h->nseg, data);
        }
        reply(win, src, h, out, h->len);
        return 1;
    }
    case RMA_LOCK: {
        int excl = h->flags & RMA_F_EXCL;
        if (!lock_free_for(t, excl))
            return 0;
        if (excl)
            t->excl = src;
        else
            t->nshared++;
        reply(win, src, h, NULL, 0);
        return 1;
    }
    case RMA_UNLOCK:
        if (t->excl == src)
            t->excl = -1;
        else if (t->nshared > 0)
            t->nshared--;
        ack(win, src, h);
        return 1;
    case RMA_FLUSH:
        ack(win, src, h);
        return 1;
    case RMA_COMPLETE:
        t->completes++;
        if (h->flags & RMA_F_ACK)
            ack(win, src, h);
        return 1;
    default:
        faro_fatal(MPI_ERR_INTERN, "one-sided: request of unknown kind %d from rank %d",
                   h->kind, src);
    }
}

/* Queue a request behind the others of its origin (copying what it needs),
 * posting the receive of its body when it has one to come. */
static void enqueue(MPI_Win win, int src, const struct rma_hdr *h, const char *inl)
{
    struct faro_rma_target *t = win->t;
    struct rma_pend *p = calloc(1, sizeof *p);
    size_t blen = h->body;
    if (!p || !(p->body = malloc(blen ? blen : 1)))
        faro_fatal(MPI_ERR_NO_MEM, "one-sided: out of memory queueing a request");
    p->h = *h;
    if (!(h->flags & RMA_F_BODY)) {
        memcpy(p->body, inl, blen);
    } else {
        void *dst = p->body;
        /* A put to one piece lands in the window itself when it fits there. */
        if (h->kind == RMA_PUT && h->nseg == 1) {
            uintptr_t a = target_addr(win, h);
            if (faro_rma_in_window(win, a, h->len)) {
                dst = (void *)a;
                p->direct = 1;
            } else if (!t->err[src]) {
                t->err[src] = MPI_ERR_RMA_RANGE;
            }
        }
        if (faro_rma_post(win, FARO_REQ_RECV, dst, blen, src, RMA_TAG_BODY, NULL, NULL,
                          &p->breq))
            faro_fatal(MPI_ERR_INTERN, "one-sided: cannot receive a request's body");
    }
    if (t->qtail[src])
        t->qtail[src]->next = p;
    else {
        t->qhead[src] = p;
        t->queued++;
    }
    t->qtail[src] = p;
}

/* Apply what is ready at the head of each origin's queue. */
static int drain(MPI_Win win)
{
    struct faro_rma_target *t = win->t;
    int events = 0;
    for (int src = 0; src < win->comm->size && t->queued; src++) {
        struct rma_pend *p;
        while ((p = t->qhead[src])) {
            if (p->breq) {
                if (!p->breq->complete)
                    break;
                faro_req_release(p->breq);
                p->breq = NULL;
            }
            if (!apply(win, src, &p->h, p->body, p->direct))
                break;
            events++;
            if (!(t->qhead[src] = p->next)) {
                t->qtail[src] = NULL;
                t->queued--;
            }
            free(p->body);
            free(p);
        }
    }
    return events;
}

static int serve(MPI_Win win)
{
    struct faro_rma_target *t = win->t;
    int events = 0;
    while (t->hreq && t->hreq->complete) {
        struct faro_request *r = t->hreq;
        int src = r->status.MPI_SOURCE;
        size_t got = (size_t)r->status.faro_count;
        t->hreq = NULL;
        if (got < sizeof(struct rma_hdr) || src < 0 || src >= win->comm->size)
            faro_fatal(MPI_ERR_INTERN, "one-sided: malformed request (%zu bytes from rank %d)",
                       got, src);
        faro_req_release(r);
        struct rma_hdr h;
        memcpy(&h, t->hbuf, sizeof h);
        const char *inl = t->hbuf + sizeof h;
        if (t->qhead[src] || (h.flags & RMA_F_BODY) || !apply(win, src, &h, inl, 0))
            enqueue(win, src, &h, inl);
        events++;
        if (post_hreq(win))
            faro_fatal(MPI_ERR_INTERN, "one-sided: cannot post the receive of requests");
    }
    if (t->queued)
        events += drain(win);
    return events;
}

/* The progress engine's poller while any window lives. Operations it posts
 * may poll; it does not run again inside itself. */
int faro_rma_poll(void *arg)
{
    (void)arg;
    static int serving;
    if (serving)
        return 0;
    serving = 1;
    int events = 0;
    for (struct faro_win *w = faro_rma_windows; w; w = w->next)
        events += serve(w);
    serving = 0;
    return events;
}
