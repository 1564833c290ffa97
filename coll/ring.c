/*
 * Ring allreduce (commutative ops), the bandwidth-optimal one for large
 * vectors on any number of ranks: each rank sends and receives about
 * 2 (size - 1) / size of the vector, whatever the size, always to the same
 * neighbours.
 *
 * The vector is cut into size chunks of whole elements (the first count mod
 * size one element longer; with count < size some are empty and simply carry
 * nothing). Reduce-scatter: in step s = 0 .. size - 2 rank r sends chunk
 * (r - s) to r + 1 and receives chunk (r - s - 1) from r - 1, adding it into
 * its own copy of that chunk; the chunk received in step s is the one sent
 * in step s + 1, so after size - 1 steps chunk (r + 1) has passed through
 * every rank and holds the full reduction. Allgather: size - 1 more steps
 * pass the finished chunks round the ring the same way, received straight
 * into place.
 *
 * Both passes are pipelined in segments of about FARO_COLL_PIPELINE_SEG
 * bytes (whole elements), across steps as well as within one: a segment is
 * forwarded to the right as soon as it has arrived (and been reduced) while
 * the next ones are still arriving from the left, with up to
 * FARO_COLL_WINDOW / 2 segment receives and sends in flight. So reductions
 * hide behind transfers and no step waits for the whole of the previous one.
 * Commutativity is needed because every rank combines the contributions in a
 * different order.
 */
#include "coll.h"

#define SEGS_IN_FLIGHT (FARO_COLL_WINDOW / 2)

static int chunk_start(int i, int count, int n)
{
    int q = count / n, r = count % n;
    return i * q + (i < r ? i : r);
}

struct ring {
    const struct faro_coll *c;
    void *buf, *tmp;
    MPI_Datatype t;
    MPI_Op op;
    int count, seg, slot; /* elements per segment and per tmp slot */
};

/* A walk over the segments of the chunks received in steps [s, last]: step
 * s brings chunk rank - s - shift. idx counts the segments passed. */
struct walk {
    int s, j, idx, last, shift;
};

/* The segment under w (empty chunks skipped): 0 at the end of the walk. */
static int walk_at(const struct ring *g, struct walk *w, int *off, int *len)
{
    int size = g->c->size;
    for (; w->s <= w->last; w->s++, w->j = 0) {
        int ch = ((g->c->rank - w->s - w->shift) % size + size) % size;
        int lo = chunk_start(ch, g->count, size), hi = chunk_start(ch + 1, g->count, size);
        if (lo + w->j * g->seg < hi) {
            *off = lo + w->j * g->seg;
            *len = hi - *off < g->seg ? hi - *off : g->seg;
            return 1;
        }
    }
    return 0;
}

static void walk_next(struct walk *w)
{
    w->j++;
    w->idx++;
}

/* One pass round the ring (size - 1 steps) as two streams of segments.
 * reduce (reduce-scatter): step s receives chunk rank - s - 1 into tmp
 * slots and adds it in; we start by sending our own chunk, rank. Else
 * (allgather): step s receives chunk rank - s straight into place; we start
 * with chunk rank + 1, the one the reduce-scatter finished here.
 * Receives: every segment of every step, posted up to SEGS_IN_FLIGHT ahead
 * and completed in order. Sends: the segments of our first chunk, then each
 * received segment once it is complete (and reduced), but those of the last
 * step. Both streams are in (step, segment) order, the order the neighbour
 * posts, and sends stay within SEGS_IN_FLIGHT of the receives done, so a
 * send slot is only ever waited for once the neighbour has its receive up. */
static int ring_pass(const struct ring *g, int reduce)
{
    const struct faro_coll *c = g->c;
    int size = c->size, right = (c->rank + 1) % size, left = (c->rank - 1 + size) % size;
    MPI_Request rreq[SEGS_IN_FLIGHT], sreq[SEGS_IN_FLIGHT];
    for (int k = 0; k < SEGS_IN_FLIGHT; k++)
        rreq[k] = sreq[k] = MPI_REQUEST_NULL;
    int shift = reduce ? 1 : 0;
    struct walk post = {0, 0, 0, size - 2, shift}, done = post;
    struct walk fwd = {0, 0, 0, size - 3, shift};
    int first = (c->rank + 1 - shift) % size;
    int first_lo = chunk_start(first, g->count, size);
    int first_n = chunk_start(first + 1, g->count, size) - first_lo;
    int first_j = 0, sent = 0, off, len, rc = MPI_SUCCESS, more = 1;
    while (!rc) {
        while (!rc && post.idx < done.idx + SEGS_IN_FLIGHT && walk_at(g, &post, &off, &len)) {
            int k = post.idx % SEGS_IN_FLIGHT;
            void *into = reduce ? faro_coll_at(g->tmp, (MPI_Aint)k * g->slot, g->t)
                                : faro_coll_at(g->buf, off, g->t);
            rc = faro_coll_irecv(c->fn, into, len, g->t, left, c->tag, c->comm, &rreq[k]);
            walk_next(&post);
        }
        while (!rc && (!more || sent < done.idx + SEGS_IN_FLIGHT)) {
            if (first_j * g->seg < first_n) {
                off = first_lo + first_j * g->seg;
                len = first_n - first_j * g->seg < g->seg ? first_n - first_j * g->seg : g->seg;
                first_j++;
            } else if (fwd.idx < done.idx && walk_at(g, &fwd, &off, &len)) {
                walk_next(&fwd);
            } else {
                break;
            }
            MPI_Request *r = &sreq[sent++ % SEGS_IN_FLIGHT];
            rc = faro_coll_waitall(1, r);
            if (!rc)
                rc = faro_coll_isend(c->fn, faro_coll_at(g->buf, off, g->t), len, g->t, right,
                                     c->tag, c->comm, r);
        }
        if (rc || !more)
            break;
        if (!walk_at(g, &done, &off, &len)) {
            more = 0; /* every receive complete: the rest of the sends, unbounded */
            continue;
        }
        int k = done.idx % SEGS_IN_FLIGHT;
        rc = faro_coll_waitall(1, &rreq[k]);
        if (!rc && reduce)
            rc = faro_coll_reduce_local(c, g->op,
                                        faro_coll_at(g->tmp, (MPI_Aint)k * g->slot, g->t),
                                        faro_coll_at(g->buf, off, g->t), len, g->t);
        walk_next(&done);
    }
    /* the sends must be done before the allgather overwrites what they read;
     * after an error, what is in flight finishes before the buffers go */
    int rr = faro_coll_waitall(SEGS_IN_FLIGHT, rreq);
    int rs = faro_coll_waitall(SEGS_IN_FLIGHT, sreq);
    return rc ? rc : rr ? rr : rs;
}

int faro_coll_allreduce_ring(const struct faro_coll *c, void *recvbuf, int count,
                             MPI_Datatype t, MPI_Op op)
{
    int size = c->size, rc;
    if (size == 1 || count == 0)
        return MPI_SUCCESS;
    struct ring g = {c, recvbuf, NULL, t, op, count, 0, 0};
    g.seg = t->size ? (int)(FARO_COLL_PIPELINE_SEG / t->size) : count;
    if (g.seg < 1)
        g.seg = 1;
    int maxchunk = chunk_start(1, count, size);
    g.slot = g.seg < maxchunk ? g.seg : maxchunk;
    /* slots: the receives in flight, no more than there are segments */
    long nrecv = (long)(size - 1) * ((maxchunk + g.seg - 1) / g.seg);
    int slots = nrecv < SEGS_IN_FLIGHT ? (int)nrecv : SEGS_IN_FLIGHT;
    struct faro_coll_tmp tt;
    g.tmp = faro_coll_tmp_typed(&tt, (size_t)slots * g.slot, t);
    if (!g.tmp)
        return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for %d elements", c->fn,
                        slots * g.slot);
    rc = ring_pass(&g, 1);
    if (!rc)
        rc = ring_pass(&g, 0);
    faro_coll_tmp_free(&tt);
    return rc;
}
