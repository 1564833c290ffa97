/*
 * Collective checking: one description per shape of collective, from the
 * call's (already checked) arguments (contract: collcheck.h). Each sets what
 * every rank must pass alike (phase A: root, op, one signature) and the
 * blocks that travel between pairs (phase B: a send flow at the rank that
 * gives data, a receive flow where it lands), in the order the data itself
 * is posted between each pair.
 */
#include "collcheck_impl.h"

static void words(struct faro_cc *cc, const char *verb_send, const char *what_send,
                  const char *verb_recv, const char *what_recv)
{
    cc->verb_send = verb_send;
    cc->what_send = what_send;
    cc->verb_recv = verb_recv;
    cc->what_recv = what_recv;
}

/* counts[] as one number: equal arrays give equal digests */
static uint64_t digest(const int *counts, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint32_t)counts[i]) * 1099511628211ull;
    return h;
}

/* The index a block has in its counts array, for messages (-1: one count). */
static int block_index(const struct faro_coll_blocks *b, int i)
{
    return b->counts ? i : -1;
}

int faro_cc_same(struct faro_cc **out, const char *fn, MPI_Comm comm, int root, MPI_Op op,
                 MPI_Count count, MPI_Datatype type, const int *counts)
{
    struct faro_cc *cc = faro_cc_new(fn, comm, 0, 0);
    if (!cc)
        return faro_cc_no_mem(fn, comm);
    cc->mine.root = root >= 0 ? root : CC_NONE;
    faro_cc_op(&cc->mine.op, op);
    if (counts) { /* the whole vector's signature, and the vector itself */
        long long total = 0;
        for (int i = 0; i < comm->size; i++)
            total += counts[i];
        count = total;
        cc->mine.has_digest = 1;
        cc->mine.digest = digest(counts, comm->size);
    }
    if (type) {
        cc->mine.has_sig = 1;
        faro_cc_sig(&cc->mine.sig, count, type, -1);
    }
    return faro_cc_finish(cc, out);
}

int faro_cc_rooted(struct faro_cc **out, const char *fn, MPI_Comm comm, int scatter,
                   int leaf_count, MPI_Datatype leaf_type, const struct faro_coll_blocks *blks,
                   int root)
{
    int me = comm->rank, size = comm->size, is_root = me == root;
    int nflows = is_root ? size - 1 : 1;
    struct faro_cc *cc = faro_cc_new(fn, comm, scatter ? nflows : !is_root,
                                     scatter ? !is_root : nflows);
    if (!cc)
        return faro_cc_no_mem(fn, comm);
    cc->mine.root = root;
    words(cc, "sends", "sendcount", "expects", "recvcount");
    if (!is_root) {
        faro_cc_add(cc, scatter, root, leaf_count, leaf_type, -1);
    } else {
        for (int k = 1; k < size; k++) {
            int i = (me + k) % size;
            faro_cc_add(cc, !scatter, i, faro_coll_bcount(blks, i), faro_coll_btype(blks, i),
                        block_index(blks, i));
        }
        if (leaf_type && !scatter)
            faro_cc_local(cc, leaf_count, leaf_type, -1, faro_coll_bcount(blks, me),
                          faro_coll_btype(blks, me), block_index(blks, me));
        else if (leaf_type)
            faro_cc_local(cc, faro_coll_bcount(blks, me), faro_coll_btype(blks, me),
                          block_index(blks, me), leaf_count, leaf_type, -1);
    }
    return faro_cc_finish(cc, out);
}

int faro_cc_allgather(struct faro_cc **out, const char *fn, MPI_Comm comm, int send_count,
                      MPI_Datatype send_type, const struct faro_coll_blocks *recv)
{
    int me = comm->rank, size = comm->size;
    struct faro_cc *cc = faro_cc_new(fn, comm, size - 1, size - 1);
    if (!cc)
        return faro_cc_no_mem(fn, comm);
    words(cc, "sends", "sendcount", "expects", "recvcount");
    int own_block = -1;
    if (!send_type) { /* in place: the rank's own block goes out */
        send_count = faro_coll_bcount(recv, me);
        send_type = faro_coll_btype(recv, me);
        own_block = block_index(recv, me);
        cc->what_send = "recvcount";
    } else {
        faro_cc_local(cc, send_count, send_type, -1, faro_coll_bcount(recv, me),
                      faro_coll_btype(recv, me), block_index(recv, me));
    }
    for (int k = 1; k < size; k++) {
        int i = (me + k) % size;
        faro_cc_add(cc, 0, i, send_count, send_type, own_block);
        faro_cc_add(cc, 1, i, faro_coll_bcount(recv, i), faro_coll_btype(recv, i),
                    block_index(recv, i));
    }
    return faro_cc_finish(cc, out);
}

int faro_cc_alltoall(struct faro_cc **out, const char *fn, MPI_Comm comm,
                     const struct faro_coll_blocks *send, const struct faro_coll_blocks *recv)
{
    int me = comm->rank, size = comm->size;
    struct faro_cc *cc = faro_cc_new(fn, comm, size - 1, size - 1);
    if (!cc)
        return faro_cc_no_mem(fn, comm);
    words(cc, "sends", send ? "sendcount" : "recvcount", "expects", "recvcount");
    const struct faro_coll_blocks *out_blocks = send ? send : recv;
    if (send)
        faro_cc_local(cc, faro_coll_bcount(send, me), faro_coll_btype(send, me),
                      block_index(send, me), faro_coll_bcount(recv, me),
                      faro_coll_btype(recv, me), block_index(recv, me));
    for (int k = 1; k < size; k++) {
        int i = (me + k) % size;
        faro_cc_add(cc, 0, i, faro_coll_bcount(out_blocks, i), faro_coll_btype(out_blocks, i),
                    block_index(out_blocks, i));
        faro_cc_add(cc, 1, i, faro_coll_bcount(recv, i), faro_coll_btype(recv, i),
                    block_index(recv, i));
    }
    return faro_cc_finish(cc, out);
}

/* The neighbourhood flows go in faro_nbrs_post's order (receives with the
 * Cartesian swap, then sends), so that where several edges join a pair the
 * k-th description meets the k-th block, as the data does. Zero-byte blocks
 * are described too: a 0 against a 5 is what is being looked for. */
int faro_cc_neighbor(struct faro_cc **out, const char *fn, MPI_Comm comm,
                     const struct faro_nbrs *n, const struct faro_coll_blocks *send,
                     int same_block, const struct faro_coll_blocks *recv)
{
    struct faro_cc *cc = faro_cc_new(fn, comm, n->outdeg, n->indeg);
    if (!cc)
        return faro_cc_no_mem(fn, comm);
    words(cc, "sends", "sendcount", "expects", "recvcount");
    for (int k = 0; k < n->indeg; k++) {
        int i = n->cart ? k ^ 1 : k;
        if (n->in[i] != MPI_PROC_NULL)
            faro_cc_add(cc, 1, n->in[i], faro_coll_bcount(recv, i), faro_coll_btype(recv, i),
                        block_index(recv, i));
    }
    for (int i = 0; i < n->outdeg; i++) {
        int b = same_block ? 0 : i;
        if (n->out[i] != MPI_PROC_NULL)
            faro_cc_add(cc, 0, n->out[i], faro_coll_bcount(send, b), faro_coll_btype(send, b),
                        same_block ? -1 : block_index(send, b));
    }
    return faro_cc_finish(cc, out);
}

/* ---- intercommunicators ---- */

int faro_cc_inter_rooted(struct faro_cc **out, const char *fn, MPI_Comm comm, int role, int root,
                         MPI_Op op, int scatter, int leaf_count, MPI_Datatype leaf_type,
                         const struct faro_coll_blocks *blks)
{
    int n = comm->remote_size, remote = role == FARO_INTER_REMOTE;
    if (blks && remote) {
        leaf_count = blks->count;
        leaf_type = blks->type;
    }
    struct faro_cc *cc = faro_cc_new(fn, comm, remote ? n : 0, remote ? 0 : n);
    if (!cc)
        return faro_cc_no_mem(fn, comm);
    /* Every remote-group rank describes its block to every rank of the
     * root's group: a pattern that does not depend on the root arguments,
     * so a wrong one is reported, not waited for. */
    cc->mine.root = remote ? root : CC_ROOT_HERE;
    words(cc, "passes", "count", "passes", "count");
    if (blks && !scatter)
        words(cc, "sends", "sendcount", "expects", "recvcount");
    else if (blks) /* the remote ranks describe what they expect to receive */
        words(cc, "expects", "recvcount", "sends", "sendcount");
    int32_t opcode;
    faro_cc_op(&opcode, op);
    for (int r = 0; r < n; r++) {
        if (remote) {
            faro_cc_add(cc, 0, r, leaf_count, leaf_type, -1);
            cc->send[r].sig.root = root;
            cc->send[r].sig.op = opcode;
        } else if (role == FARO_INTER_IDLE) {
            faro_cc_add(cc, 1, r, 0, MPI_BYTE, -1);
            cc->recv[r].sig.root = CC_ROOT_IDLE;
        } else {
            if (blks)
                faro_cc_add(cc, 1, r, faro_coll_bcount(blks, r), faro_coll_btype(blks, r),
                            block_index(blks, r));
            else
                faro_cc_add(cc, 1, r, leaf_count, leaf_type, -1);
            cc->recv[r].sig.root = comm->rank;
            cc->recv[r].sig.op = opcode;
        }
    }
    return faro_cc_finish(cc, out);
}

int faro_cc_inter_exchange(struct faro_cc **out, const char *fn, MPI_Comm comm,
                           const struct faro_coll_blocks *send, int same_send,
                           const struct faro_coll_blocks *recv)
{
    int n = comm->remote_size;
    struct faro_cc *cc = faro_cc_new(fn, comm, n, n);
    if (!cc)
        return faro_cc_no_mem(fn, comm);
    words(cc, "sends", "sendcount", "expects", "recvcount");
    for (int r = 0; r < n; r++) {
        int b = same_send ? 0 : r;
        faro_cc_add(cc, 0, r, faro_coll_bcount(send, b), faro_coll_btype(send, b),
                    same_send ? -1 : block_index(send, b));
        faro_cc_add(cc, 1, r, faro_coll_bcount(recv, r), faro_coll_btype(recv, r),
                    block_index(recv, r));
    }
    return faro_cc_finish(cc, out);
}
