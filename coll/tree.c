/*
 * Binomial trees: barrier, gather and scatter.
 *
 * Every rank works with its relative rank vr = (rank - root) mod size. Rank
 * vr's parent is vr with its lowest set bit cleared; its children are
 * vr + 1, vr + 2, vr + 4, ... below that bit (and below size). The subtree
 * of vr is then the contiguous range of relative ranks [vr, vr + low), low
 * being vr's lowest set bit (size for the root), cut at size; nothing about
 * this needs size to be a power of two, only the last subtrees come out
 * short. log2 size levels, size - 1 messages in all.
 *
 *  - barrier (tree): fan-in of zero-byte tokens to rank 0 (each rank waits
 *    for its children, then tells its parent), then the same tree backwards
 *    to release everyone. Twice the depth of dissemination, but only
 *    2 (size - 1) messages instead of size log2 size.
 *  - gather (binomial): a rank packs its own block followed by the blocks
 *    its children send (each child's subtree, in relative order) and sends
 *    the lot to its parent as one message, so the root takes log2 size
 *    messages instead of size - 1. Blocks are uniform (every rank's block has
 *    the same type signature), so a subtree's blocks are n x the block's
 *    bytes and relative rank j's block sits at (j - vr) blocks into its
 *    ancestor's temporary. Leaves send straight from the user's buffer. The
 *    root receives each child's subtree straight into its receive buffer,
 *    which is possible because relative ranks [a, b) are the real ranks
 *    a + root .. b - 1 + root, consecutive blocks of recvbuf, unless the
 *    range wraps past size - 1; that one child (at most one) goes through a
 *    temporary and is unpacked in two pieces.
 *  - scatter (binomial): the same tree the other way: the root sends each
 *    child its subtree's blocks (the largest subtree first, as it has the
 *    longest way to go), an inner rank receives its subtree's blocks packed,
 *    forwards the children's parts and unpacks its own.
 * A whole subtree travels as one message, so when all the blocks together
 * pass INT_MAX bytes these fall back to the linear algorithms.
 */
#include <limits.h>

#include "coll.h"

/* The lowest set bit of vr (for vr = 0: the first power of two >= size). */
static int low_bit(int vr, int size)
{
    int mask = 1;
    while (mask < size && !(vr & mask))
        mask <<= 1;
    return mask;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

int faro_coll_barrier_tree(const struct faro_coll *c)
{
    int size = c->size, vr = c->rank, low = low_bit(vr, size), rc = MPI_SUCCESS;
    for (int m = 1; m < low && vr + m < size && !rc; m <<= 1)
        rc = faro_coll_recv(c->fn, NULL, 0, MPI_BYTE, vr + m, c->tag, c->comm,
                            MPI_STATUS_IGNORE);
    if (!rc && vr) {
        rc = faro_coll_send(c->fn, NULL, 0, MPI_BYTE, vr - low, c->tag, c->comm);
        if (!rc)
            rc = faro_coll_recv(c->fn, NULL, 0, MPI_BYTE, vr - low, c->tag, c->comm,
                                MPI_STATUS_IGNORE);
    }
    for (int m = low >> 1; m > 0 && !rc; m >>= 1)
        if (vr + m < size)
            rc = faro_coll_send(c->fn, NULL, 0, MPI_BYTE, vr + m, c->tag, c->comm);
    return rc;
}

/* One request per child: at most one per bit of an int. */
#define MAX_CHILDREN 32

static int no_mem(const struct faro_coll *c, size_t bytes)
{
    return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", c->fn, bytes);
}

int faro_coll_gather_binomial(const struct faro_coll *c, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, const struct faro_coll_blocks *blks,
                              int root)
{
    int size = c->size, vr = (c->rank - root + size) % size;
    size_t B = vr == 0 ? (size_t)blks->count * blks->type->size
                       : (size_t)sendcount * sendtype->size;
    if (B == 0)
        return MPI_SUCCESS;
    if ((size_t)size * B > INT_MAX)
        return faro_coll_gather_linear(c, sendbuf, sendcount, sendtype, blks, root);
    int low = low_bit(vr, size), n = min_int(low, size - vr), rc = MPI_SUCCESS;
    if (vr && n == 1) /* a leaf */
        return faro_coll_send(c->fn, sendbuf, sendcount, sendtype, (vr - low + root) % size,
                              c->tag, c->comm);

    struct faro_coll_tmp tt;
    tt.heap = NULL;
    char *tmp = NULL;
    MPI_Request reqs[MAX_CHILDREN];
    int nreq = 0, wrap_start = -1, wrap_n = 0;
    if (vr) { /* own block first, the children's subtrees after it */
        if (!(tmp = faro_coll_tmp_get(&tt, (size_t)n * B)))
            return no_mem(c, (size_t)n * B);
        faro_type_pack(sendbuf, (size_t)sendcount, sendtype, tmp);
    } else if (sendbuf) {
        rc = faro_coll_copy(c, sendbuf, sendcount, sendtype, faro_coll_baddr(blks, root),
                            blks->count, blks->type);
    }
    for (int m = 1; m < low && vr + m < size && !rc; m <<= 1) {
        int cnt = min_int(m, size - vr - m), child = (vr + m + root) % size;
        if (vr) {
            rc = faro_coll_irecv(c->fn, tmp + (size_t)m * B, (int)(cnt * B), MPI_BYTE, child,
                                 c->tag, c->comm, &reqs[nreq]);
        } else if (child + cnt <= size) { /* consecutive blocks of recvbuf */
            rc = faro_coll_irecv(c->fn, faro_coll_baddr(blks, child), cnt * blks->count,
                                 blks->type, child, c->tag, c->comm, &reqs[nreq]);
        } else {
            if (!(tmp = faro_coll_tmp_get(&tt, (size_t)cnt * B))) {
                rc = no_mem(c, (size_t)cnt * B);
                break;
            }
            wrap_start = child;
            wrap_n = cnt;
            rc = faro_coll_irecv(c->fn, tmp, (int)(cnt * B), MPI_BYTE, child, c->tag, c->comm,
                                 &reqs[nreq]);
        }
        if (!rc)
            nreq++;
    }
    int rw = faro_coll_waitall(nreq, reqs);
    rc = rc ? rc : rw;
    if (!rc && vr) {
        rc = faro_coll_send(c->fn, tmp, (int)(n * B), MPI_BYTE, (vr - low + root) % size,
                            c->tag, c->comm);
    } else if (!rc && wrap_start >= 0) { /* ranks wrap_start..size-1, then 0.. */
        int k = size - wrap_start;
        faro_type_unpack(tmp, (size_t)k * B, faro_coll_baddr(blks, wrap_start), blks->type);
        faro_type_unpack(tmp + (size_t)k * B, (size_t)(wrap_n - k) * B, faro_coll_baddr(blks, 0),
                         blks->type);
    }
    faro_coll_tmp_free(&tt);
    return rc;
}

int faro_coll_scatter_binomial(const struct faro_coll *c, const struct faro_coll_blocks *blks,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    int size = c->size, vr = (c->rank - root + size) % size;
    size_t B = vr == 0 ? (size_t)blks->count * blks->type->size
                       : (size_t)recvcount * recvtype->size;
    if (B == 0)
        return MPI_SUCCESS;
    if ((size_t)size * B > INT_MAX)
        return faro_coll_scatter_linear(c, blks, recvbuf, recvcount, recvtype, root);
    int low = low_bit(vr, size), n = min_int(low, size - vr), rc = MPI_SUCCESS;
    int parent = (vr - low + root) % size;
    if (vr && n == 1) /* a leaf */
        return faro_coll_recv(c->fn, recvbuf, recvcount, recvtype, parent, c->tag, c->comm,
                              MPI_STATUS_IGNORE);

    struct faro_coll_tmp tt;
    tt.heap = NULL;
    char *tmp = NULL;
    if (vr) { /* own block first, the children's subtrees after it */
        if (!(tmp = faro_coll_tmp_get(&tt, (size_t)n * B)))
            return no_mem(c, (size_t)n * B);
        rc = faro_coll_recv(c->fn, tmp, (int)(n * B), MPI_BYTE, parent, c->tag, c->comm,
                            MPI_STATUS_IGNORE);
    }
    MPI_Request reqs[MAX_CHILDREN];
    int nreq = 0;
    for (int m = low >> 1; m > 0 && !rc; m >>= 1) { /* largest subtree first */
        if (vr + m >= size)
            continue;
        int cnt = min_int(m, size - vr - m), child = (vr + m + root) % size;
        if (vr) {
            rc = faro_coll_isend(c->fn, tmp + (size_t)m * B, (int)(cnt * B), MPI_BYTE, child,
                                 c->tag, c->comm, &reqs[nreq]);
        } else if (child + cnt <= size) { /* consecutive blocks of sendbuf */
            rc = faro_coll_isend(c->fn, faro_coll_baddr(blks, child), cnt * blks->count,
                                 blks->type, child, c->tag, c->comm, &reqs[nreq]);
        } else { /* the one range that wraps: packed, ranks child..size-1 then 0.. */
            int k = size - child;
            if (!(tmp = faro_coll_tmp_get(&tt, (size_t)cnt * B))) {
                rc = no_mem(c, (size_t)cnt * B);
                break;
            }
            faro_type_pack(faro_coll_baddr(blks, child), (size_t)k * blks->count, blks->type,
                           tmp);
            faro_type_pack(faro_coll_baddr(blks, 0), (size_t)(cnt - k) * blks->count,
                           blks->type, tmp + (size_t)k * B);
            rc = faro_coll_isend(c->fn, tmp, (int)(cnt * B), MPI_BYTE, child, c->tag, c->comm,
                                 &reqs[nreq]);
        }
        if (!rc)
            nreq++;
    }
    if (!rc && vr)
        faro_type_unpack(tmp, B, recvbuf, recvtype);
    else if (!rc && recvbuf)
        rc = faro_coll_copy(c, faro_coll_baddr(blks, root), blks->count, blks->type, recvbuf,
                            recvcount, recvtype);
    int rw = faro_coll_waitall(nreq, reqs);
    faro_coll_tmp_free(&tt);
    return rc ? rc : rw;
}
