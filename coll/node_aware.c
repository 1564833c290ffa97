/*
 * Node-aware (hierarchical) collectives: one step inside every node and one
 * step among the nodes, so each node's data crosses the network once instead
 * of once per rank. The node map comes from node.c (real nodes, or
 * FARO_NODE_SIZE's fake ones).
 *
 * Everything runs as point-to-point on the caller's communicator over lists
 * of its ranks, never on sub-communicators (making one needs a context-id
 * agreement, which is itself a collective). A "virtual group" is such a list:
 * vrank v is comm rank list[v]. The group of a node is its ranks in ascending
 * order (its leader, the lowest, is vrank 0); the group of the nodes is their
 * leaders in node order. Small helpers run the classic algorithms over a
 * virtual group (binomial bcast and commutative reduce, zero-byte fan-in,
 * dissemination, recursive doubling), and the five collectives are built from
 * them:
 *  - barrier: fan-in to each node's leader, dissemination among the leaders,
 *    fan-out.
 *  - bcast and reduce: the root stands in for its node's leader for the call
 *    (one entry of the leaders' group is swapped), so no extra hop to or from
 *    the leader. Bcast: binomial among the nodes' heads from the root's node,
 *    then binomial inside each node from its head. Reduce (commutative ops):
 *    binomial reduce inside each node to its head, then among the heads to the
 *    root.
 *  - allreduce (commutative ops): reduce inside each node to its leader,
 *    recursive doubling among the leaders, bcast inside each node.
 *  - allgather (uniform blocks): each node's leader gathers its node's blocks,
 *    the leaders pass whole nodes' blocks round a ring, and each leader
 *    broadcasts the full buffer inside its node. The ring works on the blocks
 *    in node order; when the nodes hold contiguous rank ranges (the usual
 *    block placement) that is the user's buffer itself, otherwise (round-robin
 *    placement) the leader works in a temporary in node order and unpacks it.
 *
 * Tags: each collective's one tag serves every step. A pair of ranks talks in
 * at most one step of a call (two ranks of a node are never both leaders),
 * and within a step each receive names its sender, so messages cannot be
 * taken for another step's.
 */
#include <limits.h>

#include "coll.h"

/* vrank v is comm rank ranks[v], except that vrank swap_at is swap_rank */
struct vgroup {
    const int *ranks;
    int n;
    int me; /* this rank's vrank; -1: not a member */
    int swap_at, swap_rank;
};

static int vat(const struct vgroup *g, int v)
{
    return v == g->swap_at ? g->swap_rank : g->ranks[v];
}

static int no_map(const struct faro_coll *c)
{
    return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for the node map", c->fn);
}

static int no_mem(const struct faro_coll *c, int count)
{
    return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for %d elements", c->fn, count);
}

static struct vgroup node_group(const struct faro_coll_nodes *m)
{
    struct vgroup g = {m->local, m->local_size, m->local_rank, -1, 0};
    return g;
}

static struct vgroup leader_group(const struct faro_coll_nodes *m)
{
    struct vgroup g = {m->leaders, m->nnodes, m->local_rank == 0 ? m->my_node : -1, -1, 0};
    return g;
}

/* The heads of a rooted call: the leaders, the root in place of its node's. */
static struct vgroup head_group(const struct faro_coll *c, const struct faro_coll_nodes *m,
                                int root)
{
    int root_node = m->node_of[root];
    int head = m->my_node == root_node ? c->rank == root : m->local_rank == 0;
    struct vgroup g = {m->leaders, m->nnodes, head ? m->my_node : -1, root_node, root};
    return g;
}

/* This node's tree root for a rooted call: the root on its node, else the leader. */
static int node_vroot(const struct faro_coll_nodes *m, int root)
{
    if (m->node_of[root] != m->my_node)
        return 0;
    int lo = 0, hi = m->local_size - 1; /* local[] is ascending */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (m->local[mid] < root)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Binomial bcast over g from vroot: receives from the parent, then posts the
 * sends to the children into reqs (*n of them so far) for the caller to wait. */
static int vbcast_post(const struct faro_coll *c, const struct vgroup *g, int vroot, void *buf,
                       MPI_Count count, MPI_Datatype t, MPI_Request *reqs, int *n)
{
    int size = g->n, vr = (g->me - vroot + size) % size, mask = 1, rc;
    for (; mask < size; mask <<= 1) {
        if (vr & mask) {
            rc = faro_coll_recv(c->fn, buf, count, t, vat(g, (vr - mask + vroot) % size), c->tag,
                                c->comm, MPI_STATUS_IGNORE);
            if (rc)
                return rc;
            break;
        }
    }
    /* the biggest subtree first: it has the most left to do */
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask >= size)
            continue;
        rc = faro_coll_isend(c->fn, buf, count, t, vat(g, (vr + mask + vroot) % size), c->tag,
                             c->comm, &reqs[*n]);
        if (rc)
            return rc;
        ++*n;
    }
    return MPI_SUCCESS;
}

static int vbcast(const struct faro_coll *c, const struct vgroup *g, int vroot, void *buf,
                  MPI_Count count, MPI_Datatype t)
{
    MPI_Request reqs[32];
    int n = 0, rc = vbcast_post(c, g, vroot, buf, count, t, reqs, &n);
    int wrc = faro_coll_waitall(n, reqs);
    return rc ? rc : wrc;
}

/* Binomial reduce over g to vroot, for a commutative op. own: this rank's
 * data; out: where to combine (NULL: a temporary), which may be own; at vroot
 * it holds the result. */
static int vreduce(const struct faro_coll *c, const struct vgroup *g, int vroot, const void *own,
                   void *out, int count, MPI_Datatype t, MPI_Op op)
{
    int size = g->n, vr = (g->me - vroot + size) % size, mask = 1, rc = MPI_SUCCESS;
    struct faro_coll_tmp ta, tb;
    ta.heap = tb.heap = NULL;
    void *acc = NULL, *in = NULL; /* acc NULL: nothing received yet */
    for (; mask < size; mask <<= 1) {
        if (vr & mask)
            break;
        if (vr + mask >= size)
            continue;
        if (!acc) {
            acc = out ? out : faro_coll_tmp_typed(&ta, (size_t)count, t);
            in = faro_coll_tmp_typed(&tb, (size_t)count, t);
            if (!acc || !in) {
                rc = no_mem(c, count);
                goto done;
            }
            rc = faro_coll_copy(c, own, count, t, acc, count, t);
            if (rc)
                goto done;
        }
        rc = faro_coll_recv(c->fn, in, count, t, vat(g, (vr + mask + vroot) % size), c->tag,
                            c->comm, MPI_STATUS_IGNORE);
        if (!rc)
            rc = faro_coll_reduce_local(c, op, in, acc, count, t);
        if (rc)
            goto done;
    }
    if (vr != 0)
        rc = faro_coll_send(c->fn, acc ? acc : own, count, t, vat(g, (vr - mask + vroot) % size),
                            c->tag, c->comm);
    else if (!acc && out)
        rc = faro_coll_copy(c, own, count, t, out, count, t);
done:
    faro_coll_tmp_free(&ta);
    faro_coll_tmp_free(&tb);
    return rc;
}

/* Zero-byte binomial fan-in to vrank 0: returns once the whole subtree arrived. */
static int vfanin(const struct faro_coll *c, const struct vgroup *g)
{
    int size = g->n, vr = g->me, mask = 1, rc;
    for (; mask < size; mask <<= 1) {
        if (vr & mask)
            return faro_coll_send(c->fn, NULL, 0, MPI_BYTE, vat(g, vr - mask), c->tag, c->comm);
        if (vr + mask < size) {
            rc = faro_coll_recv(c->fn, NULL, 0, MPI_BYTE, vat(g, vr + mask), c->tag, c->comm,
                                MPI_STATUS_IGNORE);
            if (rc)
                return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Dissemination: in round k each member signals vrank + 2^k and hears from
 * vrank - 2^k; after ceil(log2 n) rounds everyone has heard from everyone. */
static int vdissemination(const struct faro_coll *c, const struct vgroup *g)
{
    int size = g->n, vr = g->me;
    for (int k = 1; k < size; k <<= 1) {
        int rc = faro_coll_sendrecv(c->fn, NULL, 0, MPI_BYTE, vat(g, (vr + k) % size), NULL, 0,
                                    MPI_BYTE, vat(g, (vr - k + size) % size), c->tag, c->comm,
                                    MPI_STATUS_IGNORE);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Recursive doubling allreduce over g on buf, as allreduce.c does it over a
 * communicator: the first 2 rem vranks fold pairwise into pof2, the pof2
 * exchange and combine in log2 pof2 rounds, the folded ones get the result
 * back. The lower vrank's data goes on the left so every member computes the
 * same bits even for an op that commutes only up to rounding. */
static int vallreduce(const struct faro_coll *c, const struct vgroup *g, void *buf, int count,
                      MPI_Datatype t, MPI_Op op)
{
    int size = g->n, vr = g->me, pof2 = faro_coll_pof2_below(size);
    int rem = size - pof2, rc = MPI_SUCCESS;
    struct faro_coll_tmp tt;
    void *other = faro_coll_tmp_typed(&tt, (size_t)count, t), *acc = buf;
    if (!other)
        return no_mem(c, count);
    int newr = faro_coll_fold_rank(vr, rem);
    if (vr < 2 * rem) {
        if (vr % 2 == 0) {
            rc = faro_coll_send(c->fn, buf, count, t, vat(g, vr + 1), c->tag, c->comm);
        } else {
            rc = faro_coll_recv(c->fn, other, count, t, vat(g, vr - 1), c->tag, c->comm,
                                MPI_STATUS_IGNORE);
            if (!rc)
                rc = faro_coll_reduce_local(c, op, other, acc, count, t);
        }
    }
    for (int mask = 1; !rc && newr >= 0 && mask < pof2; mask <<= 1) {
        int newdst = newr ^ mask;
        int dst = vat(g, faro_coll_unfold_rank(newdst, rem));
        rc = faro_coll_sendrecv(c->fn, acc, count, t, dst, other, count, t, dst, c->tag, c->comm,
                                MPI_STATUS_IGNORE);
        if (rc)
            break;
        if (newdst < newr) {
            rc = faro_coll_reduce_local(c, op, other, acc, count, t);
        } else {
            rc = faro_coll_reduce_local(c, op, acc, other, count, t);
            void *x = acc;
            acc = other;
            other = x;
        }
    }
    if (!rc && acc != buf)
        rc = faro_coll_copy(c, acc, count, t, buf, count, t);
    if (!rc && vr < 2 * rem) {
        if (vr % 2)
            rc = faro_coll_send(c->fn, buf, count, t, vat(g, vr - 1), c->tag, c->comm);
        else
            rc = faro_coll_recv(c->fn, buf, count, t, vat(g, vr + 1), c->tag, c->comm,
                                MPI_STATUS_IGNORE);
    }
    faro_coll_tmp_free(&tt);
    return rc;
}

int faro_coll_barrier_node_aware(const struct faro_coll *c)
{
    const struct faro_coll_nodes *m = faro_coll_nodes(c->comm);
    if (!m)
        return no_map(c);
    struct vgroup node = node_group(m), leaders = leader_group(m);
    int rc = vfanin(c, &node);
    if (!rc && leaders.me >= 0)
        rc = vdissemination(c, &leaders);
    return rc ? rc : vbcast(c, &node, 0, NULL, 0, MPI_BYTE);
}

int faro_coll_bcast_node_aware(const struct faro_coll *c, void *buf, MPI_Count count,
                               MPI_Datatype t, int root)
{
    const struct faro_coll_nodes *m = faro_coll_nodes(c->comm);
    if (!m)
        return no_map(c);
    struct vgroup heads = head_group(c, m, root), node = node_group(m);
    MPI_Request reqs[64];
    int n = 0, rc = MPI_SUCCESS;
    /* a head's node sends overlap its sends to other heads */
    if (heads.me >= 0)
        rc = vbcast_post(c, &heads, m->node_of[root], buf, count, t, reqs, &n);
    if (!rc)
        rc = vbcast_post(c, &node, node_vroot(m, root), buf, count, t, reqs, &n);
    int wrc = faro_coll_waitall(n, reqs);
    return rc ? rc : wrc;
}

int faro_coll_reduce_node_aware(const struct faro_coll *c, const void *sendbuf, void *recvbuf,
                                int count, MPI_Datatype t, MPI_Op op, int root)
{
    const struct faro_coll_nodes *m = faro_coll_nodes(c->comm);
    if (!m)
        return no_map(c);
    struct vgroup heads = head_group(c, m, root), node = node_group(m);
    const void *own = sendbuf ? sendbuf : recvbuf;
    /* a head keeps its node's partial result: in recvbuf at the root, else a temporary */
    struct faro_coll_tmp tt;
    tt.heap = NULL;
    void *part = NULL;
    if (heads.me >= 0) {
        part = c->rank == root ? recvbuf : faro_coll_tmp_typed(&tt, (size_t)count, t);
        if (!part)
            return no_mem(c, count);
    }
    int rc = vreduce(c, &node, node_vroot(m, root), own, part, count, t, op);
    if (!rc && heads.me >= 0)
        rc = vreduce(c, &heads, m->node_of[root], part, part, count, t, op);
    faro_coll_tmp_free(&tt);
    return rc;
}

int faro_coll_allreduce_node_aware(const struct faro_coll *c, void *recvbuf, int count,
                                   MPI_Datatype t, MPI_Op op)
{
    const struct faro_coll_nodes *m = faro_coll_nodes(c->comm);
    if (!m)
        return no_map(c);
    struct vgroup node = node_group(m), leaders = leader_group(m);
    /* recvbuf is overwritten by the result anyway: every rank combines in it */
    int rc = vreduce(c, &node, 0, recvbuf, recvbuf, count, t, op);
    if (!rc && leaders.me >= 0 && leaders.n > 1)
        rc = vallreduce(c, &leaders, recvbuf, count, t, op);
    return rc ? rc : vbcast(c, &node, 0, recvbuf, count, t);
}

/* Allgather: where node k's blocks lie in node order (first[k], len[k]) and,
 * when nodes interleave in rank order, each rank's place pos[r] in it. */
struct node_layout {
    int *first, *len, *pos; /* pos NULL: node order is rank order */
    struct faro_coll_tmp mem;
};

static int layout(const struct faro_coll_nodes *m, int size, struct node_layout *l)
{
    int nn = m->nnodes, contiguous = 1;
    for (int r = 1; r < size && contiguous; r++)
        contiguous = m->node_of[r] >= m->node_of[r - 1];
    int *mem = faro_coll_tmp_get(&l->mem, sizeof(int) * (2 * (size_t)nn + (contiguous ? 0 : size)));
    if (!mem)
        return -1;
    l->first = mem;
    l->len = mem + nn;
    l->pos = contiguous ? NULL : mem + 2 * nn;
    if (contiguous) {
        /* node k is ranks leaders[k] .. leaders[k+1]-1 */
        for (int k = 0; k < nn; k++) {
            l->first[k] = m->leaders[k];
            l->len[k] = (k + 1 < nn ? m->leaders[k + 1] : size) - m->leaders[k];
        }
        return 0;
    }
    for (int k = 0; k < nn; k++)
        l->len[k] = 0;
    for (int r = 0; r < size; r++)
        l->len[m->node_of[r]]++;
    for (int k = 0, at = 0; k < nn; k++) {
        l->first[k] = at;
        at += l->len[k];
        l->len[k] = 0; /* refilled below as the node's ranks are placed */
    }
    for (int r = 0; r < size; r++) {
        int k = m->node_of[r];
        l->pos[r] = l->first[k] + l->len[k]++;
    }
    return 0;
}

/* The leader's part: gather the node's blocks into work (blocks in node
 * order), pass nodes round the leaders' ring, unpack to the user's buffer. */
static int allgather_leader(const struct faro_coll *c, const struct faro_coll_nodes *m,
                            const struct faro_coll_blocks *blks)
{
    int size = c->size, count = blks->count, rc = MPI_SUCCESS;
    MPI_Datatype t = blks->type;
    struct node_layout l;
    if (layout(m, size, &l))
        return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory for the node layout",
                        c->fn);
    struct faro_coll_tmp tw;
    tw.heap = NULL;
    char *work = blks->buf;
    if (l.pos) {
        work = faro_coll_tmp_typed(&tw, (size_t)size * count, t);
        if (!work) {
            rc = no_mem(c, size * count);
            goto done;
        }
    }
#define PLACE(r) (l.pos ? l.pos[r] : (r))
#define BLOCKS_AT(i) faro_coll_at(work, (MPI_Aint)(i) * count, t)
    if (l.pos)
        rc = faro_coll_copy(c, faro_coll_baddr(blks, c->rank), count, t, BLOCKS_AT(PLACE(c->rank)),
                            count, t);
    /* gather the node's blocks, a window of receives at a time */
    for (int i = 1; !rc && i < m->local_size; i += FARO_COLL_WINDOW) {
        MPI_Request reqs[FARO_COLL_WINDOW];
        int n = 0;
        for (; !rc && n < FARO_COLL_WINDOW && i + n < m->local_size; n++) {
            int r = m->local[i + n];
            rc = faro_coll_irecv(c->fn, BLOCKS_AT(PLACE(r)), count, t, r, c->tag, c->comm,
                                 &reqs[n]);
            if (rc)
                break;
        }
        int wrc = faro_coll_waitall(n, reqs);
        rc = rc ? rc : wrc;
    }
    /* ring among the leaders: step s passes on node (me - s)'s blocks */
    int nn = m->nnodes, me = m->my_node;
    int right = m->leaders[(me + 1) % nn], left = m->leaders[(me - 1 + nn) % nn];
    for (int s = 0; !rc && s < nn - 1; s++) {
        int sk = (me - s + nn) % nn, rk = (me - s - 1 + nn) % nn;
        rc = faro_coll_sendrecv(c->fn, BLOCKS_AT(l.first[sk]), l.len[sk] * count, t, right,
                                BLOCKS_AT(l.first[rk]), l.len[rk] * count, t, left, c->tag,
                                c->comm, MPI_STATUS_IGNORE);
    }
    for (int r = 0; !rc && l.pos && r < size; r++)
        rc = faro_coll_copy(c, BLOCKS_AT(l.pos[r]), count, t, faro_coll_baddr(blks, r), count, t);
#undef PLACE
#undef BLOCKS_AT
done:
    faro_coll_tmp_free(&tw);
    faro_coll_tmp_free(&l.mem);
    return rc;
}

int faro_coll_allgather_node_aware(const struct faro_coll *c, const struct faro_coll_blocks *blks)
{
    int size = c->size, count = blks->count;
    MPI_Datatype t = blks->type;
    /* The whole buffer goes as one message of size * count elements; a
     * total every rank computes alike decides whether that fits an int. */
    unsigned long long total = (unsigned long long)size * count * t->size;
    if (total == 0)
        return MPI_SUCCESS;
    if (total > INT_MAX)
        return faro_coll_allgather_ring(c, blks);
    const struct faro_coll_nodes *m = faro_coll_nodes(c->comm);
    if (!m)
        return no_map(c);
    struct vgroup node = node_group(m);
    int rc;
    if (m->local_rank == 0)
        rc = allgather_leader(c, m, blks);
    else
        rc = faro_coll_send(c->fn, faro_coll_baddr(blks, c->rank), count, t, m->local[0], c->tag,
                            c->comm);
    return rc ? rc : vbcast(c, &node, 0, blks->buf, size * count, t);
}
