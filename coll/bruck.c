/*
 * Bruck's algorithms (Bruck, Ho, Kipnis, Upfal, Weathersby 1997): allgather
 * and alltoall in ceil(log2 size) rounds for any size, for small blocks where
 * the number of messages, not the bytes, sets the time. Both work on packed
 * copies of the blocks (B bytes each; blocks are uniform, so every rank's B
 * is the same) in a temporary indexed relative to the rank, and finish with
 * a local rotation into the user's buffer.
 *
 *  - allgather: tmp[i] is to hold the block of rank (rank + i) mod size.
 *    Start with tmp[0] = our own block. In the round of distance d = 1, 2,
 *    4, ... (d < size) every rank sends tmp[0 .. n) to rank - d and receives
 *    tmp[d .. d + n) from rank + d, n = min(d, size - d): the partner above
 *    holds exactly the blocks of ranks rank + d .. rank + d + n - 1 at its
 *    own indices 0 .. n - 1. After the round a rank has blocks 0 .. 2d, so
 *    ceil(log2 size) rounds give all size of them, the last one short when
 *    size is not a power of two. Then tmp[i] goes to block (rank + i) of
 *    recvbuf: two runs of consecutive blocks, unpacked in two calls.
 *  - alltoall: tmp[i] starts as the block we send to rank + i. In the round
 *    of bit k (d = 2^k) every block whose index has bit k set travels to
 *    rank + d, and the blocks with the same indices arrive from rank - d in
 *    their place. A block sent by rank s to s + i moves by exactly the bits
 *    of i, so it ends at s + i under index i: at the end tmp[i] holds the
 *    block from rank - i, unpacked into its place in recvbuf. Each round
 *    moves about half the blocks, so this pays only while blocks are small.
 * A round's blocks travel as one message of bytes, so when all the blocks
 * together pass INT_MAX bytes these hand over to the ring allgather and the
 * pairwise alltoall.
 */
#include <limits.h>
#include <string.h>

#include "coll.h"

static int no_mem(const struct faro_coll *c, size_t bytes)
{
    return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", c->fn, bytes);
}

int faro_coll_allgather_bruck(const struct faro_coll *c, const struct faro_coll_blocks *blks)
{
    int size = c->size, rank = c->rank, rc = MPI_SUCCESS;
    size_t B = (size_t)blks->count * blks->type->size;
    if (B == 0 || size == 1)
        return MPI_SUCCESS;
    if ((size_t)size * B > INT_MAX) /* rounds move up to half of it as one message */
        return faro_coll_allgather_ring(c, blks);
    struct faro_coll_tmp tt;
    char *tmp = faro_coll_tmp_get(&tt, (size_t)size * B);
    if (!tmp)
        return no_mem(c, (size_t)size * B);
    faro_type_pack(faro_coll_baddr(blks, rank), (size_t)blks->count, blks->type, tmp);
    for (int d = 1; d < size && !rc; d <<= 1) {
        int n = d < size - d ? d : size - d;
        size_t bytes = (size_t)n * B;
        rc = faro_coll_sendrecv(c->fn, tmp, (int)bytes, MPI_BYTE, (rank - d + size) % size,
                                tmp + (size_t)d * B, (int)bytes, MPI_BYTE, (rank + d) % size,
                                c->tag, c->comm, MPI_STATUS_IGNORE);
    }
    if (!rc) { /* tmp[1 .. size - rank) -> blocks rank + 1 .., the rest -> blocks 0 .. */
        int k = size - rank;
        faro_type_unpack(tmp + B, (size_t)(k - 1) * B, faro_coll_baddr(blks, rank + 1),
                         blks->type);
        faro_type_unpack(tmp + (size_t)k * B, (size_t)rank * B, faro_coll_baddr(blks, 0),
                         blks->type);
    }
    faro_coll_tmp_free(&tt);
    return rc;
}

int faro_coll_alltoall_bruck(const struct faro_coll *c, const struct faro_coll_blocks *send,
                             const struct faro_coll_blocks *recv)
{
    int size = c->size, rank = c->rank, rc;
    size_t B = (size_t)recv->count * recv->type->size;
    /* own block first: it never travels */
    int lrc = faro_coll_copy(c, faro_coll_baddr(send, rank), send->count, send->type,
                             faro_coll_baddr(recv, rank), recv->count, recv->type);
    rc = MPI_SUCCESS;
    if (B == 0 || size == 1)
        return lrc;
    if ((size_t)size * B > INT_MAX) /* rounds move up to half of it as one message */
        return faro_coll_alltoall_pairwise(c, send, recv);
    /* tmp: size blocks; out, in: the blocks of one round (at most half, rounded up) */
    size_t half = (size_t)(size / 2 + 1) * B;
    struct faro_coll_tmp tt;
    char *tmp = faro_coll_tmp_get(&tt, (size_t)size * B + 2 * half);
    if (!tmp)
        return no_mem(c, (size_t)size * B + 2 * half);
    char *out = tmp + (size_t)size * B, *in = out + half;
    /* tmp[i] = the block for rank + i: two runs of consecutive send blocks */
    size_t sB = (size_t)send->count * send->type->size;
    if (sB == B) {
        faro_type_pack(faro_coll_baddr(send, rank), (size_t)(size - rank) * send->count,
                       send->type, tmp);
        faro_type_pack(faro_coll_baddr(send, 0), (size_t)rank * send->count, send->type,
                       tmp + (size_t)(size - rank) * B);
    } else { /* signatures differ (an erroneous call, lrc says so): still take part,
              * moving what fits, never past tmp */
        size_t m = sB < B ? sB : B;
        for (int i = 0; i < size; i++) {
            faro_type_pack_range(faro_coll_baddr(send, (rank + i) % size), send->type, 0, m,
                                 tmp + (size_t)i * B);
            memset(tmp + (size_t)i * B + m, 0, B - m);
        }
    }
    for (int d = 1; d < size && !rc; d <<= 1) {
        size_t n = 0;
        for (int i = d; i < size; i++)
            if (i & d)
                memcpy(out + n++ * B, tmp + (size_t)i * B, B);
        rc = faro_coll_sendrecv(c->fn, out, (int)(n * B), MPI_BYTE, (rank + d) % size, in,
                                (int)(n * B), MPI_BYTE, (rank - d + size) % size, c->tag,
                                c->comm, MPI_STATUS_IGNORE);
        n = 0;
        for (int i = d; i < size && !rc; i++)
            if (i & d)
                memcpy(tmp + (size_t)i * B, in + n++ * B, B);
    }
    for (int i = 1; i < size && !rc; i++) /* tmp[i] came from rank - i */
        faro_type_unpack(tmp + (size_t)i * B, B, faro_coll_baddr(recv, (rank - i + size) % size),
                         recv->type);
    faro_coll_tmp_free(&tt);
    return lrc ? lrc : rc;
}
