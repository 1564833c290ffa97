/*
 * Recursive halving and its relatives, for commutative ops on large vectors:
 * each rank reduces only a share of the vector instead of all of it.
 *
 * Non-powers of two. With pof2 the largest power of two <= size and
 * rem = size - pof2, the first 2 rem ranks pair up: the even one of each
 * pair sends its whole input to the odd one, which adds it in, and sits out
 * the halving. That leaves pof2 "new" ranks (odd ranks below 2 rem are
 * new rank r / 2, ranks from 2 rem on are r - rem) holding between them
 * every input once (as allreduce.c does).
 *
 * Recursive halving among the new ranks: the vector is cut into pof2 parts;
 * new ranks [lo, hi) share parts [lo, hi). In the round of distance mask
 * (pof2 / 2 down to 1) a rank and its partner (new rank ^ mask) split their
 * range: each sends the half the other keeps and adds the half it receives
 * into its own. After log2 pof2 rounds new rank n holds part n fully reduced.
 *
 *  - reduce (rabenseifner): halving with equal parts (the first count mod
 *    pof2 one element longer), then a binomial gather of the parts to the
 *    root's new rank (the root itself, or its odd partner when the root sat
 *    out, which then sends the whole result over): in the round of distance
 *    mask = 1, 2, ... a rank whose (new rank ^ new root) has bit mask set
 *    sends the parts it holds, [n & ~(mask - 1), + mask), to new rank
 *    n ^ mask and drops out. The parts a rank holds are always one run of
 *    consecutive elements, so they move as one message straight into place.
 *    About 2 x the vector per rank against log2 size x for a binomial tree.
 *  - reduce_scatter (recursive_halving): the parts are the pieces of the
 *    call (uneven as given). New rank n's part is the pieces of the old
 *    ranks it stands for: 2n and 2n + 1 for n < rem, n + rem otherwise, so
 *    the parts are consecutive runs and a range of new ranks is one run of
 *    elements. After the halving each odd rank below 2 rem sends its even
 *    partner that rank's piece.
 *  - reduce_scatter (pairwise): size - 1 steps; in step k a rank sends rank
 *    + k the piece of its input that rank + k owns and adds in the piece
 *    that rank - k sends it. Every rank moves (size - 1) / size of the
 *    vector and each link sees one message per step: fine for large vectors,
 *    and needs no folding for any size.
 * The pieces of a reduce_scatter lie one after another in rank order
 * (as both MPI_Reduce_scatter and MPI_Reduce_scatter_block lay them).
 */
#include "coll.h"

static int no_mem(const struct faro_coll *c, int count)
{
    return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for %d elements", c->fn, count);
}

/* How the vector of count elements is cut into the n = pof2 parts of the
 * halving: equal parts (blks NULL), or each new rank's pieces of the call. */
struct parts {
    int count, n, rem;
    const struct faro_coll_blocks *blks; /* NULL: equal parts */
};

static int piece_start(const struct faro_coll_blocks *b, int i)
{
    return b->displs ? b->displs[i] : i * b->count;
}

static int part_start(const struct parts *p, int i)
{
    if (i >= p->n)
        return p->count;
    if (!p->blks) {
        int q = p->count / p->n, r = p->count % p->n;
        return i * q + (i < r ? i : r);
    }
    return piece_start(p->blks, i < p->rem ? 2 * i : i + p->rem);
}

/* Fold in: the even ranks below 2 rem give their input to rank + 1. */
static int fold_in(const struct faro_coll *c, const void *in, void *acc, void *tmp, int count,
                   MPI_Datatype t, MPI_Op op, int rem)
{
    if (c->rank >= 2 * rem)
        return MPI_SUCCESS;
    if (c->rank % 2 == 0)
        return faro_coll_send(c->fn, in, count, t, c->rank + 1, c->tag, c->comm);
    int rc = faro_coll_recv(c->fn, tmp, count, t, c->rank - 1, c->tag, c->comm,
                            MPI_STATUS_IGNORE);
    return rc ? rc : faro_coll_reduce_local(c, op, tmp, acc, count, t);
}

/* Recursive halving of acc among the pof2 new ranks; tmp holds a half. */
static int halve(const struct faro_coll *c, void *acc, void *tmp, const struct parts *p,
                 MPI_Datatype t, MPI_Op op, int newrank)
{
    int lo = 0, hi = p->n, rc = MPI_SUCCESS;
    for (int mask = p->n / 2; mask >= 1 && !rc; mask >>= 1) {
        int newdst = newrank ^ mask, dst = faro_coll_unfold_rank(newdst, p->rem);
        int mid = lo + (hi - lo) / 2, mine_low = newrank < newdst;
        int klo = mine_low ? lo : mid, khi = mine_low ? mid : hi;
        int slo = mine_low ? mid : lo, shi = mine_low ? hi : mid;
        int ks = part_start(p, klo), ke = part_start(p, khi);
        int ss = part_start(p, slo), se = part_start(p, shi);
        rc = faro_coll_sendrecv(c->fn, faro_coll_at(acc, ss, t), se - ss, t, dst, tmp, ke - ks, t,
                                dst, c->tag, c->comm, MPI_STATUS_IGNORE);
        if (!rc)
            rc = faro_coll_reduce_local(c, op, tmp, faro_coll_at(acc, ks, t), ke - ks, t);
        lo = klo;
        hi = khi;
    }
    return rc;
}

/* The larger of the two halves of the first round: room enough for tmp. */
static int max_half(const struct parts *p)
{
    int mid = part_start(p, p->n / 2);
    return mid > p->count - mid ? mid : p->count - mid;
}

int faro_coll_reduce_rabenseifner(const struct faro_coll *c, const void *sendbuf,
                                  void *recvbuf, int count, MPI_Datatype t, MPI_Op op, int root)
{
    int pof2 = faro_coll_pof2_below(c->size), rem = c->size - pof2, rc;
    int newrank = faro_coll_fold_rank(c->rank, rem), is_root = c->rank == root;
    const void *own = sendbuf ? sendbuf : recvbuf;
    /* the new rank that collects the result: the root's, or its partner's */
    int newroot = faro_coll_fold_rank(root, rem);
    if (newroot < 0)
        newroot = faro_coll_fold_rank(root + 1, rem);
    if (newrank < 0) { /* sat out: give the input, the root then gets the result */
        rc = fold_in(c, own, NULL, NULL, count, t, op, rem);
        if (!rc && is_root)
            rc = faro_coll_recv(c->fn, recvbuf, count, t, c->rank + 1, c->tag, c->comm,
                                MPI_STATUS_IGNORE);
        return rc;
    }
    struct parts p = {count, pof2, rem, NULL};
    int folds = c->rank < 2 * rem;
    struct faro_coll_tmp ta, tb;
    ta.heap = NULL;
    void *acc = is_root ? recvbuf : faro_coll_tmp_typed(&ta, (size_t)count, t);
    void *tmp = acc ? faro_coll_tmp_typed(&tb, (size_t)(folds ? count : max_half(&p)), t) : NULL;
    if (!tmp) {
        faro_coll_tmp_free(&ta);
        return no_mem(c, count);
    }
    rc = faro_coll_copy(c, own, count, t, acc, count, t);
    if (!rc)
        rc = fold_in(c, own, acc, tmp, count, t, op, rem);
    if (!rc)
        rc = halve(c, acc, tmp, &p, t, op, newrank);
    /* binomial gather of the parts to newroot, relative ranks newrank ^ newroot */
    int vr = newrank ^ newroot;
    for (int mask = 1; mask < pof2 && !rc; mask <<= 1) {
        int partner = faro_coll_unfold_rank(newrank ^ mask, rem);
        if (vr & mask) {
            int mlo = newrank & ~(mask - 1);
            int s = part_start(&p, mlo), e = part_start(&p, mlo + mask);
            rc = faro_coll_send(c->fn, faro_coll_at(acc, s, t), e - s, t, partner, c->tag,
                                c->comm);
            break;
        }
        int plo = (newrank ^ mask) & ~(mask - 1);
        int s = part_start(&p, plo), e = part_start(&p, plo + mask);
        rc = faro_coll_recv(c->fn, faro_coll_at(acc, s, t), e - s, t, partner, c->tag, c->comm,
                            MPI_STATUS_IGNORE);
    }
    if (!rc && newrank == newroot && !is_root) /* the root sat out: hand it over */
        rc = faro_coll_send(c->fn, acc, count, t, root, c->tag, c->comm);
    faro_coll_tmp_free(&ta);
    faro_coll_tmp_free(&tb);
    return rc;
}

int faro_coll_reduce_scatter_recursive_halving(const struct faro_coll *c, const void *sendbuf,
                                               void *recvbuf,
                                               const struct faro_coll_blocks *blks, int total,
                                               MPI_Datatype t, MPI_Op op)
{
    int pof2 = faro_coll_pof2_below(c->size), rem = c->size - pof2, rank = c->rank, rc;
    int newrank = faro_coll_fold_rank(rank, rem), mycount = faro_coll_bcount(blks, rank);
    const void *in = sendbuf ? sendbuf : recvbuf; /* in place: all of recvbuf */
    if (newrank < 0) { /* sat out: give the input, get the piece back */
        rc = fold_in(c, in, NULL, NULL, total, t, op, rem);
        return rc ? rc : faro_coll_recv(c->fn, recvbuf, mycount, t, rank + 1, c->tag, c->comm,
                                        MPI_STATUS_IGNORE);
    }
    struct parts p = {total, pof2, rem, blks};
    struct faro_coll_tmp ta, tb;
    tb.heap = NULL;
    void *acc = faro_coll_tmp_typed(&ta, (size_t)total, t);
    void *tmp = acc ? faro_coll_tmp_typed(&tb, (size_t)(rank < 2 * rem ? total : max_half(&p)), t)
                    : NULL;
    if (!tmp) {
        rc = no_mem(c, total);
        goto out;
    }
    rc = faro_coll_copy(c, in, total, t, acc, total, t);
    if (!rc)
        rc = fold_in(c, in, acc, tmp, total, t, op, rem);
    if (!rc)
        rc = halve(c, acc, tmp, &p, t, op, newrank);
    if (!rc && rank < 2 * rem) /* the partner's piece */
        rc = faro_coll_send(c->fn, faro_coll_at(acc, piece_start(blks, rank - 1), t),
                            faro_coll_bcount(blks, rank - 1), t, rank - 1, c->tag, c->comm);
    if (!rc)
        rc = faro_coll_copy(c, faro_coll_at(acc, piece_start(blks, rank), t), mycount, t, recvbuf,
                            mycount, t);
out:
    faro_coll_tmp_free(&ta);
    faro_coll_tmp_free(&tb);
    return rc;
}

int faro_coll_reduce_scatter_pairwise(const struct faro_coll *c, const void *sendbuf,
                                      void *recvbuf, const struct faro_coll_blocks *blks,
                                      int total, MPI_Datatype t, MPI_Op op)
{
    int size = c->size, rank = c->rank, mycount = faro_coll_bcount(blks, rank), rc;
    (void)total;
    const void *in = sendbuf ? sendbuf : recvbuf;
    /* acc: recvbuf itself, unless in place (recvbuf is the input, still
     * being sent from, and its start is where our piece must end up) */
    struct faro_coll_tmp ta, tb;
    ta.heap = tb.heap = NULL;
    void *acc = sendbuf ? recvbuf : faro_coll_tmp_typed(&ta, (size_t)mycount, t);
    void *tmp = acc ? faro_coll_tmp_typed(&tb, (size_t)mycount, t) : NULL;
    if (!tmp) {
        rc = no_mem(c, mycount);
        goto out;
    }
    rc = faro_coll_copy(c, faro_coll_at(in, piece_start(blks, rank), t), mycount, t, acc,
                        mycount, t);
    for (int k = 1; k < size && !rc; k++) {
        int dst = (rank + k) % size, src = (rank - k + size) % size;
        rc = faro_coll_sendrecv(c->fn, faro_coll_at(in, piece_start(blks, dst), t),
                                faro_coll_bcount(blks, dst), t, dst, tmp, mycount, t, src, c->tag,
                                c->comm, MPI_STATUS_IGNORE);
        if (!rc)
            rc = faro_coll_reduce_local(c, op, tmp, acc, mycount, t);
    }
    if (!rc && acc != recvbuf)
        rc = faro_coll_copy(c, acc, mycount, t, recvbuf, mycount, t);
out:
    faro_coll_tmp_free(&ta);
    faro_coll_tmp_free(&tb);
    return rc;
}
