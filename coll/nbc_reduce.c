/*
 * Nonblocking collectives that combine data: MPI_Ireduce, MPI_Iallreduce,
 * MPI_Ireduce_scatter(_block), MPI_Iscan, MPI_Iexscan, as schedules
 * (nbc_sched.h). Every algorithm keeps rank order, so user ops that do not
 * commute get the result the standard defines.
 *  - reduce: binomial tree. A rank receives the partial results of all its
 *    children (relative ranks [v + mask, v + 2 mask), one temporary each) in
 *    one round, then folds them in after its own data in increasing mask
 *    order and sends the result to its parent. Folding "acc op child" into
 *    the child's temporary leaves the user's send buffer untouched and needs
 *    no copy of it. A commutative op roots the tree at the root; any other
 *    roots it at rank 0 (relative ranks are real ranks, so ranges combine
 *    left to right) and rank 0 forwards the result to the root.
 *  - allreduce: recursive doubling as in allreduce.c: with pof2 the largest
 *    power of two <= p and rem = p - pof2, the first 2 rem ranks fold pairwise
 *    into pof2 ranks, which exchange and combine in log2 pof2 rounds (the
 *    lower ranks' data always on the left), and the folded ranks get the
 *    result back at the end.
 *  - reduce_scatter(_block): the reduce above to rank 0 into a temporary of
 *    the whole vector, then a linear scatterv of the pieces.
 *  - scan / exscan: a chain. Rank r receives the prefix of ranks 0..r-1 from
 *    r - 1, combines it with its own data and passes the new prefix to r + 1.
 *    p - 1 steps, but each rank takes part in at most two rounds, so it
 *    overlaps well with computation.
 */
#include <limits.h>

#include "collcheck.h"
#include "nbc_sched.h"

/* Binomial reduce of own (this rank's data) to recvbuf at root (recvbuf may
 * be own: in place). */
void faro_nbc_reduce(struct faro_sched *s, const void *own, void *recvbuf, int count,
                     MPI_Datatype t, MPI_Op op, int root)
{
    const struct faro_coll *c = faro_sched_coll(s);
    int size = c->size, rank = c->rank;
    int commute = faro_op_is_commutative(op);
    int troot = commute ? root : 0;
    int vr = (rank - troot + size) % size;
    void *child[32];
    int nchild = 0, mask = 1;
    for (; mask < size; mask <<= 1) {
        if (vr & mask)
            break;
        if (vr + mask >= size)
            continue;
        child[nchild] = faro_sched_tmp_typed(s, (size_t)count, t);
        if (!child[nchild])
            return;
        faro_sched_recv(s, child[nchild++], count, t, (vr + mask + troot) % size);
    }
    faro_sched_round(s);
    const void *acc = own;
    for (int i = 0; i < nchild; i++) {
        faro_sched_reduce(s, acc, child[i], count, t, op); /* child = acc op child */
        acc = child[i];
    }
    if (vr != 0) {
        faro_sched_send(s, acc, count, t, (vr - (vr & -vr) + troot) % size);
        faro_sched_round(s);
        if (!commute && root != 0 && rank == root)
            faro_sched_recv(s, recvbuf, count, t, 0);
    } else if (rank == root) {
        if (acc != recvbuf)
            faro_sched_copy(s, acc, count, t, recvbuf, count, t);
    } else {
        faro_sched_send(s, acc, count, t, root);
    }
    faro_sched_round(s);
}

#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Ireduce";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_reduce(fn, sendbuf, recvbuf, count, type, op, root, comm, request);
    if (!rc)
        rc = faro_coll_check_reduce(fn, comm, sendbuf, recvbuf, count, type, op, root);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(&cc, fn, comm, root, op, count, type, NULL);
    if (rc)
        return rc;
    size_t bytes = (size_t)count * type->size;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if (bytes > 0)
        faro_nbc_reduce(s, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, type, op,
                        root);
    return faro_sched_start(s, request);
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Iallreduce";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_allreduce(fn, sendbuf, recvbuf, count, type, op, comm, request);
    if (!rc)
        rc = faro_coll_check_reduction(fn, comm, sendbuf, recvbuf, count, type, op);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(&cc, fn, comm, -1, op, count, type, NULL);
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if ((size_t)count * type->size == 0)
        return faro_sched_start(s, request);
    int rank = comm->rank, size = comm->size;
    if (sendbuf != MPI_IN_PLACE)
        faro_sched_copy(s, sendbuf, count, type, recvbuf, count, type);
    int pof2 = faro_coll_pof2_below(size), rem = size - pof2;
    int commute = faro_op_is_commutative(op);
    void *tmp = size > 1 ? faro_sched_tmp_typed(s, (size_t)count, type) : NULL;
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            faro_sched_send(s, recvbuf, count, type, rank + 1);
        } else {
            faro_sched_recv(s, tmp, count, type, rank - 1);
            faro_sched_round(s);
            faro_sched_reduce(s, tmp, recvbuf, count, type, op);
        }
        faro_sched_round(s);
    }
    int newrank = faro_coll_fold_rank(rank, rem);
    void *acc = recvbuf, *other = tmp;
    for (int mask = 1; newrank >= 0 && mask < pof2; mask <<= 1) {
        int newdst = newrank ^ mask, dst = faro_coll_unfold_rank(newdst, rem);
        faro_sched_send(s, acc, count, type, dst);
        faro_sched_recv(s, other, count, type, dst);
        faro_sched_round(s);
        if (newdst < newrank || commute) {
            faro_sched_reduce(s, other, acc, count, type, op);
        } else {
            faro_sched_reduce(s, acc, other, count, type, op);
            void *x = acc;
            acc = other;
            other = x;
        }
    }
    if (acc != recvbuf)
        faro_sched_copy(s, acc, count, type, recvbuf, count, type);
    if (rank < 2 * rem) {
        if (rank % 2)
            faro_sched_send(s, recvbuf, count, type, rank - 1);
        else
            faro_sched_recv(s, recvbuf, count, type, rank + 1);
    }
    return faro_sched_start(s, request);
}

/* ---- reduce_scatter ---- */

static int reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                          const int counts[], int recvcount, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, MPI_Request *request)
{
    int rc = faro_coll_check_type(fn, comm, type, "datatype");
    if (!rc)
        rc = faro_coll_check_op(fn, comm, op, type);
    if (rc)
        return rc;
    int size = comm->size, rank = comm->rank;
    long long total = 0;
    for (int i = 0; i < size; i++)
        total += counts ? counts[i] : recvcount;
    if (recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf");
    if (sendbuf == recvbuf && (size_t)total * type->size > 0)
        return faro_coll_err_alias(fn, comm);
    if (total > INT_MAX)
        return faro_err(comm, MPI_ERR_COUNT, "%s: the pieces add up to %lld elements, over "
                        "INT_MAX", fn, total);
    struct faro_cc *cc = NULL;
    if (FARO_COLL_CHECKING && (rc = faro_cc_same(&cc, fn, comm, -1, op, counts ? 0 : recvcount,
                                                 type, counts)))
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if ((size_t)total * type->size == 0)
        return faro_sched_start(s, request);
    const void *own = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    char *whole = rank == 0 ? faro_sched_tmp_typed(s, (size_t)total, type) : NULL;
    faro_nbc_reduce(s, own, whole, (int)total, type, op, 0);
    if (rank == 0) {
        MPI_Aint at = 0;
        for (int i = 0; i < size; i++) {
            int n = counts ? counts[i] : recvcount;
            char *piece = faro_coll_at(whole, at, type);
            if (i == 0)
                faro_sched_copy(s, piece, n, type, recvbuf, n, type);
            else
                faro_sched_send(s, piece, n, type, i);
            at += n;
        }
    } else {
        int n = counts ? counts[rank] : recvcount;
        faro_sched_recv(s, recvbuf, n, type, 0);
    }
    return faro_sched_start(s, request);
}

#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Ireduce_scatter_block";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_reduce_scatter(fn, sendbuf, recvbuf, recvcount, NULL, type, op,
                                             comm, request);
    if (!rc)
        rc = faro_coll_check_count(fn, comm, recvcount, "recvcount");
    return rc ? rc
              : reduce_scatter(fn, sendbuf, recvbuf, NULL, recvcount, type, op, comm, request);
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Ireduce_scatter";
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_nbc_inter_reduce_scatter(fn, sendbuf, recvbuf, 0, recvcounts, type, op,
                                             comm, request);
    if (!rc)
        rc = faro_coll_check_counts(fn, comm, recvcounts, comm->size, "recvcounts");
    return rc ? rc : reduce_scatter(fn, sendbuf, recvbuf, recvcounts, 0, type, op, comm, request);
}

/* ---- scan / exscan ---- */

static int scan(const char *fn, int exclusive, const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    int rc = faro_nbc_check(fn, comm, request);
    if (!rc && comm->inter)
        return faro_err(comm, MPI_ERR_COMM,
                        "%s: not defined on an intercommunicator (scans take an "
                        "intracommunicator only, as MPI_Scan and MPI_Exscan do)", fn);
    if (!rc)
        rc = faro_coll_check_reduction(fn, comm, sendbuf, recvbuf, count, type, op);
    struct faro_cc *cc = NULL;
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(&cc, fn, comm, -1, op, count, type, NULL);
    if (rc)
        return rc;
    struct faro_sched *s = faro_sched_new(comm, fn, cc);
    if (!s)
        return faro_sched_no_mem(comm, fn);
    if ((size_t)count * type->size == 0)
        return faro_sched_start(s, request);
    int rank = comm->rank, last = comm->size - 1;
    const void *own = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (!exclusive) {
        if (own != recvbuf)
            faro_sched_copy(s, own, count, type, recvbuf, count, type);
        if (rank > 0) {
            void *prefix = faro_sched_tmp_typed(s, (size_t)count, type);
            faro_sched_recv(s, prefix, count, type, rank - 1);
            faro_sched_round(s);
            faro_sched_reduce(s, prefix, recvbuf, count, type, op);
        }
        if (rank < last)
            faro_sched_send(s, recvbuf, count, type, rank + 1);
    } else if (rank == 0) {
        if (last > 0)
            faro_sched_send(s, own, count, type, 1); /* rank 0's recvbuf stays untouched */
    } else {
        /* own may be recvbuf (in place): keep it before the prefix lands there */
        void *next = NULL;
        if (rank < last) {
            next = faro_sched_tmp_typed(s, (size_t)count, type);
            faro_sched_copy(s, own, count, type, next, count, type);
        }
        faro_sched_recv(s, recvbuf, count, type, rank - 1);
        faro_sched_round(s);
        if (next) {
            faro_sched_reduce(s, recvbuf, next, count, type, op);
            faro_sched_send(s, next, count, type, rank + 1);
        }
    }
    return faro_sched_start(s, request);
}

#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    return scan("MPI_Iscan", 0, sendbuf, recvbuf, count, type, op, comm, request);
}

#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    FARO_LOCKED;
    return scan("MPI_Iexscan", 1, sendbuf, recvbuf, count, type, op, comm, request);
}
