/*
 * MPI_Allreduce.
 *  - recursive doubling (small and medium messages, any op): with pof2 the
 *    largest power of two <= size and rem = size - pof2, the first 2 rem
 *    ranks pair up and the even one of each pair hands its data to the odd
 *    one; the pof2 ranks left exchange and combine in log2 pof2 rounds. The
 *    lower-ranked side always goes on the left of the op, and every round
 *    combines two adjacent rank ranges, so a non-commutative op gets the
 *    rank-order result and every rank computes exactly the same bits.
 *  - rabenseifner: reduce-scatter + allgather (large messages, commutative
 *    ops): recursive halving leaves each of the pof2 ranks with the reduced
 *    1/pof2 of the vector, recursive doubling gathers it back. About 2x the
 *    message per rank instead of log2 size times.
 *  - reduce + bcast (binomial both ways), for the selection table.
 * The entry point picks one through select.c (ring and node_aware live in
 * ring.c and node_aware.c).
 */
#include "collcheck.h"

/* Fold in: even ranks below 2 rem give their data to rank + 1. */
static int fold_in(const struct faro_coll *c, void *recvbuf, void *tmp, int count,
                   MPI_Datatype t, MPI_Op op, int rem)
{
    if (c->rank >= 2 * rem)
        return MPI_SUCCESS;
    if (c->rank % 2 == 0)
        return faro_coll_send(c->fn, recvbuf, count, t, c->rank + 1, c->tag, c->comm);
    int rc = faro_coll_recv(c->fn, tmp, count, t, c->rank - 1, c->tag, c->comm,
                            MPI_STATUS_IGNORE);
    return rc ? rc : faro_coll_reduce_local(c, op, tmp, recvbuf, count, t);
}

/* Fold out: the odd ranks give the result back. */
static int fold_out(const struct faro_coll *c, void *recvbuf, int count, MPI_Datatype t,
                    int rem)
{
    if (c->rank >= 2 * rem)
        return MPI_SUCCESS;
    if (c->rank % 2)
        return faro_coll_send(c->fn, recvbuf, count, t, c->rank - 1, c->tag, c->comm);
    return faro_coll_recv(c->fn, recvbuf, count, t, c->rank + 1, c->tag, c->comm,
                          MPI_STATUS_IGNORE);
}

int faro_coll_allreduce_recursive_doubling(const struct faro_coll *c, void *recvbuf, int count,
                                           MPI_Datatype t, MPI_Op op)
{
    int pof2 = faro_coll_pof2_below(c->size), rem = c->size - pof2;
    int commute = faro_op_is_commutative(op);
    struct faro_coll_tmp tt;
    void *tmp = faro_coll_tmp_typed(&tt, (size_t)count, t);
    if (!tmp)
        return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for %d elements", c->fn,
                        count);
    int rc = fold_in(c, recvbuf, tmp, count, t, op, rem);
    int newrank = faro_coll_fold_rank(c->rank, rem);
    void *acc = recvbuf, *other = tmp;
    for (int mask = 1; !rc && newrank >= 0 && mask < pof2; mask <<= 1) {
        int newdst = newrank ^ mask, dst = faro_coll_unfold_rank(newdst, rem);
        rc = faro_coll_sendrecv(c->fn, acc, count, t, dst, other, count, t, dst, c->tag,
                                c->comm, MPI_STATUS_IGNORE);
        if (rc)
            break;
        if (newdst < newrank || commute) {
            rc = faro_coll_reduce_local(c, op, other, acc, count, t);
        } else {
            rc = faro_coll_reduce_local(c, op, acc, other, count, t);
            void *x = acc;
            acc = other;
            other = x;
        }
    }
    if (!rc && acc != recvbuf)
        rc = faro_coll_copy(c, acc, count, t, recvbuf, count, t);
    if (!rc)
        rc = fold_out(c, recvbuf, count, t, rem);
    faro_coll_tmp_free(&tt);
    return rc;
}

/* Elements of block i when count is cut into n blocks (the first count % n one longer). */
static int block_start(int i, int count, int n)
{
    int q = count / n, r = count % n;
    return i * q + (i < r ? i : r);
}

int faro_coll_allreduce_rabenseifner(const struct faro_coll *c, void *recvbuf, int count,
                                     MPI_Datatype t, MPI_Op op)
{
    int pof2 = faro_coll_pof2_below(c->size), rem = c->size - pof2;
    struct faro_coll_tmp tt;
    char *tmp = faro_coll_tmp_typed(&tt, (size_t)count, t);
    if (!tmp)
        return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for %d elements", c->fn,
                        count);
    int rc = fold_in(c, recvbuf, tmp, count, t, op, rem);
    int newrank = faro_coll_fold_rank(c->rank, rem);
    if (!rc && newrank >= 0) {
        /* reduce-scatter by recursive halving: keep the half on our side */
        int lo = 0, hi = pof2;
        for (int mask = pof2 / 2; mask >= 1 && !rc; mask >>= 1) {
            int newdst = newrank ^ mask, dst = faro_coll_unfold_rank(newdst, rem);
            int mid = lo + (hi - lo) / 2;
            int klo = newrank < newdst ? lo : mid, khi = newrank < newdst ? mid : hi;
            int slo = newrank < newdst ? mid : lo, shi = newrank < newdst ? hi : mid;
            int ks = block_start(klo, count, pof2), ke = block_start(khi, count, pof2);
            int ss = block_start(slo, count, pof2), se = block_start(shi, count, pof2);
            rc = faro_coll_sendrecv(c->fn, faro_coll_at(recvbuf, ss, t), se - ss, t, dst,
                                    faro_coll_at(tmp, ks, t), ke - ks, t, dst, c->tag, c->comm,
                                    MPI_STATUS_IGNORE);
            if (!rc)
                rc = faro_coll_reduce_local(c, op, faro_coll_at(tmp, ks, t),
                                            faro_coll_at(recvbuf, ks, t), ke - ks, t);
            lo = klo;
            hi = khi;
        }
        /* allgather by recursive doubling: block newrank grows back to the whole */
        for (int mask = 1; mask < pof2 && !rc; mask <<= 1) {
            int newdst = newrank ^ mask, dst = faro_coll_unfold_rank(newdst, rem);
            int mlo = newrank & ~(mask - 1), plo = newdst & ~(mask - 1);
            int ms = block_start(mlo, count, pof2), me = block_start(mlo + mask, count, pof2);
            int ps = block_start(plo, count, pof2), pe = block_start(plo + mask, count, pof2);
            rc = faro_coll_sendrecv(c->fn, faro_coll_at(recvbuf, ms, t), me - ms, t, dst,
                                    faro_coll_at(recvbuf, ps, t), pe - ps, t, dst, c->tag,
                                    c->comm, MPI_STATUS_IGNORE);
        }
    }
    if (!rc)
        rc = fold_out(c, recvbuf, count, t, rem);
    faro_coll_tmp_free(&tt);
    return rc;
}

int faro_coll_allreduce_reduce_bcast(const struct faro_coll *c, void *recvbuf, int count,
                                     MPI_Datatype t, MPI_Op op)
{
    int rc = faro_coll_reduce_binomial(c, NULL, recvbuf, count, t, op, 0);
    return rc ? rc : faro_coll_bcast_binomial(c, recvbuf, count, t, 0);
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm)
{
    static const char fn[] = "MPI_Allreduce";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_allreduce(sendbuf, recvbuf, count, type, op, comm);
    if (!rc)
        rc = faro_coll_check_reduction(fn, comm, sendbuf, recvbuf, count, type, op);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(NULL, fn, comm, -1, op, count, type, NULL);
    if (rc)
        return rc;
    size_t bytes = (size_t)count * type->size;
    if (bytes == 0)
        return MPI_SUCCESS;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_ALLREDUCE);
    if (sendbuf != MPI_IN_PLACE) {
        rc = faro_coll_copy(&c, sendbuf, count, type, recvbuf, count, type);
        if (rc)
            return rc;
    }
    if (comm->size == 1)
        return MPI_SUCCESS;
    int alg = faro_coll_select(comm, FARO_COLL_ALLREDUCE, bytes, faro_op_is_commutative(op), 1);
    return faro_coll_algs[alg].fn.allreduce(&c, recvbuf, count, type, op);
}
