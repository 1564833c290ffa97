/*
 * coll_neighbor: the five neighbourhood collectives (MPI_Neighbor_allgather,
 * _allgatherv, _alltoall, _alltoallv, _alltoallw), blocking and
 * nonblocking (all seven calls below started at once, then completed by
 * MPI_Waitall or by an MPI_Testall loop), on:
 *  - Cartesian grids: 1-D open and periodic (and a dup), 2-D from
 *    MPI_Dims_create, a periodic dimension of size 1 (every rank its own -1
 *    and +1 neighbour), an open dimension of size 1 (both MPI_PROC_NULL),
 *    3-D grids with periodic dimensions of size 1 and 2 (the same rank is
 *    the -1 and the +1 neighbour, so only the rule "block 2d of the sender
 *    lands in block 2d+1 of the receiver, and back" tells the blocks apart)
 *    and a ring cut from one of them by MPI_Cart_sub;
 *  - graphs (MPI_Graph_create) with multi-edges and self-loops, one with an
 *    isolated node, and a dup of one;
 *  - distributed graphs from MPI_Dist_graph_create_adjacent and
 *    MPI_Dist_graph_create with multi-edges, a self-loop, unequal in and out
 *    degrees, a sink and an isolated rank.
 * Every element a rank sends names its sender, its send block and its
 * position. What each receive block must hold is worked out from the
 * topology's query functions and the standard's rules: Cartesian block i
 * receives the sender's block i^1; on graphs the k-th edge from s to r
 * carries s's k-th block for r into r's k-th block from s. Receive buffers
 * start filled with a sentinel: holes of derived types, gaps between v/w
 * blocks and the blocks of MPI_PROC_NULL neighbours must keep it.
 * Datatypes: int, a strided vector on the send or the receive side, and in
 * alltoallw ints and vectors alternating per block at byte displacements.
 * TEST_LARGE=1: blocks of about 5000 ints (rendezvous sizes).
 */
#include "util.h"

#define SENTINEL (-7)

static int C = 3;                 /* ints in a block */
static MPI_Datatype vec[3];       /* vec[k]: C + k ints at a stride of 2 */

static int val(int sender, int block, int e)
{
    return sender * 1000000 + block * 10000 + e;
}

/* ints in the v/w forms' block j of sender s */
static int cnt(int s, int j)
{
    return C + (s + 2 * j) % 3;
}

/* This rank's view of one topology communicator. */
struct topo {
    const char *name;
    MPI_Comm comm;
    int rank;
    int indeg, outdeg;
    int *in, *out;
    int *from; /* from[i]: which of in[i]'s send blocks lands in receive block i */
};

/* Position of the k-th (from 0) occurrence of v in list[0..n), or -1. */
static int kth(const int *list, int n, int v, int k)
{
    for (int i = 0; i < n; i++)
        if (list[i] == v && k-- == 0)
            return i;
    return -1;
}

static int *ints(int n)
{
    return tu_malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
}

/* Graphs: receive block i pairs with the k-th edge to me in in[i]'s list of
 * destinations, k = how often in[i] came before in my list of sources. */
static void pair_edges(struct topo *t, int *const *outs, const int *outdegs)
{
    for (int i = 0; i < t->indeg; i++) {
        int s = t->in[i], k = 0;
        for (int h = 0; h < i; h++)
            k += t->in[h] == s;
        t->from[i] = kth(outs[s], outdegs[s], t->rank, k);
        if (t->from[i] < 0)
            tu_fail("%s: rank %d is source %d of mine but lists me fewer than %d times",
                    t->name, s, i, k + 1);
    }
}

static void read_topology(struct topo *t)
{
    int kind, size;
    TU_CHECK(MPI_Comm_rank(t->comm, &t->rank));
    TU_CHECK(MPI_Comm_size(t->comm, &size));
    TU_CHECK(MPI_Topo_test(t->comm, &kind));
    if (kind == MPI_CART) {
        int nd;
        TU_CHECK(MPI_Cartdim_get(t->comm, &nd));
        t->indeg = t->outdeg = 2 * nd;
        t->in = ints(2 * nd), t->out = ints(2 * nd), t->from = ints(2 * nd);
        for (int d = 0; d < nd; d++)
            TU_CHECK(MPI_Cart_shift(t->comm, d, 1, &t->in[2 * d], &t->in[2 * d + 1]));
        for (int i = 0; i < 2 * nd; i++) {
            t->out[i] = t->in[i];
            t->from[i] = i ^ 1; /* what the -1 neighbour sent towards +1, and back */
        }
        return;
    }
    int **outs = tu_malloc((size_t)size * sizeof *outs), *outdegs = ints(size);
    if (kind == MPI_GRAPH) {
        for (int r = 0; r < size; r++) {
            TU_CHECK(MPI_Graph_neighbors_count(t->comm, r, &outdegs[r]));
            outs[r] = ints(outdegs[r]);
            TU_CHECK(MPI_Graph_neighbors(t->comm, r, outdegs[r], outs[r]));
        }
        t->indeg = t->outdeg = outdegs[t->rank];
        t->in = ints(t->indeg), t->out = ints(t->outdeg);
        memcpy(t->in, outs[t->rank], (size_t)t->indeg * sizeof(int));
        memcpy(t->out, outs[t->rank], (size_t)t->outdeg * sizeof(int));
    } else {
        int weighted;
        TU_CHECK(MPI_Dist_graph_neighbors_count(t->comm, &t->indeg, &t->outdeg, &weighted));
        t->in = ints(t->indeg), t->out = ints(t->outdeg);
        int *w1 = ints(t->indeg), *w2 = ints(t->outdeg);
        TU_CHECK(MPI_Dist_graph_neighbors(t->comm, t->indeg, t->in, w1, t->outdeg, t->out, w2));
        free(w1), free(w2);
        /* everybody's destinations, in the order each rank's query gives */
        int *displs = ints(size);
        TU_CHECK(MPI_Allgather(&t->outdeg, 1, MPI_INT, outdegs, 1, MPI_INT, t->comm));
        int total = 0;
        for (int r = 0; r < size; r++)
            displs[r] = total, total += outdegs[r];
        int *all = ints(total);
        TU_CHECK(MPI_Allgatherv(t->out, t->outdeg, MPI_INT, all, outdegs, displs, MPI_INT,
                                t->comm));
        for (int r = 0; r < size; r++) {
            outs[r] = ints(outdegs[r]);
            memcpy(outs[r], all + displs[r], (size_t)outdegs[r] * sizeof(int));
        }
        free(all), free(displs);
    }
    t->from = ints(t->indeg);
    pair_edges(t, outs, outdegs);
    for (int r = 0; r < size; r++)
        free(outs[r]);
    free(outs), free(outdegs);
}

/* ---- one call: its buffers and what its receive buffer must hold ---- */

enum { AG, AG_VEC, AGV, A2A, A2A_VEC, A2AV, A2AW, NOPS };
static const char *const op_name[NOPS] = {
    "allgather", "allgather (vector sendtype)", "allgatherv", "alltoall",
    "alltoall (vector recvtype)", "alltoallv", "alltoallw"};

struct call {
    int *sbuf, *rbuf, *want;
    int rlen;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Aint *sbytes, *rbytes;
    MPI_Datatype *stypes, *rtypes;
};

/* Element e of a block of n ints at base, stride 1 or 2 (a vec type). */
static void put(int *buf, int base, int stride, int n, int sender, int block)
{
    for (int e = 0; e < n; e++)
        buf[base + e * stride] = val(sender, block, e);
}

static MPI_Datatype vec_of(int n)
{
    return vec[n - C];
}

/* Blocks of nb sizes span[] laid out backwards with 2-int gaps (block nb-1
 * first, one gap before it): displs[] in ints; returns the ints used. */
static int backwards(int nb, const int *span, int *displs)
{
    int pos = 1;
    for (int i = nb - 1; i >= 0; i--) {
        displs[i] = pos;
        pos += span[i] + 2;
    }
    return pos;
}

static void setup(int op, const struct topo *t, struct call *c)
{
    int me = t->rank, nin = t->indeg, nout = t->outdeg, slen = 0;
    memset(c, 0, sizeof *c);
    c->scounts = ints(nout), c->sdispls = ints(nout);
    c->rcounts = ints(nin), c->rdispls = ints(nin);
    c->sbytes = tu_malloc((size_t)(nout + 1) * sizeof(MPI_Aint));
    c->rbytes = tu_malloc((size_t)(nin + 1) * sizeof(MPI_Aint));
    c->stypes = tu_malloc((size_t)(nout + 1) * sizeof(MPI_Datatype));
    c->rtypes = tu_malloc((size_t)(nin + 1) * sizeof(MPI_Datatype));
    int *span = ints(nin > nout ? nin : nout), *nints = ints(nin > nout ? nin : nout);
    /* receive layout: where each block starts (ints), its stride and ints */
    int rstride = 1;
    switch (op) {
    case AG:
    case AG_VEC:
    case A2A:
        for (int i = 0; i < nin; i++)
            c->rdispls[i] = i * C, nints[i] = C;
        c->rlen = nin * C;
        break;
    case A2A_VEC:
        for (int i = 0; i < nin; i++)
            c->rdispls[i] = i * (2 * C - 1), nints[i] = C;
        c->rlen = nin * (2 * C - 1);
        rstride = 2;
        break;
    case AGV:
    case A2AV:
    case A2AW:
        for (int i = 0; i < nin; i++) {
            int s = t->in[i], is_vec = op == A2AW && i % 2 == 0;
            nints[i] = s == MPI_PROC_NULL ? C : cnt(s, op == AGV ? 0 : t->from[i]);
            /* alltoallw: even blocks one vector, odd ones ints */
            span[i] = is_vec ? 2 * nints[i] - 1 : nints[i];
            c->rtypes[i] = is_vec ? vec_of(nints[i]) : MPI_INT;
            c->rcounts[i] = is_vec ? 1 : nints[i];
        }
        c->rlen = backwards(nin, span, c->rdispls);
        for (int i = 0; i < nin; i++)
            c->rbytes[i] = (MPI_Aint)c->rdispls[i] * (MPI_Aint)sizeof(int);
        break;
    }
    c->rbuf = ints(c->rlen), c->want = ints(c->rlen);
    for (int k = 0; k < c->rlen; k++)
        c->rbuf[k] = c->want[k] = SENTINEL;
    for (int i = 0; i < nin; i++) {
        int s = t->in[i];
        if (s == MPI_PROC_NULL)
            continue; /* nothing arrives: the block keeps the sentinel */
        int stride = op == A2AW ? (i % 2 == 0 ? 2 : 1) : rstride;
        int block = op == AG || op == AG_VEC || op == AGV ? 0 : t->from[i];
        put(c->want, c->rdispls[i], stride, nints[i], s, block);
    }

    /* send side */
    switch (op) {
    case AG:
    case AGV:
        slen = op == AG ? C : cnt(me, 0);
        c->sbuf = ints(slen);
        put(c->sbuf, 0, 1, slen, me, 0);
        break;
    case AG_VEC:
        c->sbuf = ints(2 * C);
        for (int k = 0; k < 2 * C; k++)
            c->sbuf[k] = -1;
        put(c->sbuf, 0, 2, C, me, 0);
        break;
    case A2A:
    case A2A_VEC:
        c->sbuf = ints(nout * C);
        for (int j = 0; j < nout; j++)
            put(c->sbuf, j * C, 1, C, me, j);
        break;
    case A2AV:
    case A2AW:
        for (int j = 0; j < nout; j++) {
            int is_vec = op == A2AW && j % 2;
            nints[j] = cnt(me, j);
            /* alltoallw: odd blocks one vector, even ones ints */
            span[j] = is_vec ? 2 * nints[j] - 1 : nints[j];
            c->stypes[j] = is_vec ? vec_of(nints[j]) : MPI_INT;
            c->scounts[j] = is_vec ? 1 : nints[j];
        }
        slen = backwards(nout, span, c->sdispls);
        c->sbuf = ints(slen);
        for (int k = 0; k < slen; k++)
            c->sbuf[k] = -1;
        for (int j = 0; j < nout; j++) {
            put(c->sbuf, c->sdispls[j], op == A2AW && j % 2 ? 2 : 1, nints[j], me, j);
            c->sbytes[j] = (MPI_Aint)c->sdispls[j] * (MPI_Aint)sizeof(int);
        }
        break;
    }
    free(span), free(nints);
}

/* Blocking when req is NULL. */
static void start(int op, const struct topo *t, struct call *c, MPI_Request *req)
{
    MPI_Comm comm = t->comm;
    int rc = MPI_SUCCESS;
    switch (op) {
    case AG:
        rc = req ? MPI_Ineighbor_allgather(c->sbuf, C, MPI_INT, c->rbuf, C, MPI_INT, comm, req)
                 : MPI_Neighbor_allgather(c->sbuf, C, MPI_INT, c->rbuf, C, MPI_INT, comm);
        break;
    case AG_VEC:
        rc = req ? MPI_Ineighbor_allgather(c->sbuf, 1, vec[0], c->rbuf, C, MPI_INT, comm, req)
                 : MPI_Neighbor_allgather(c->sbuf, 1, vec[0], c->rbuf, C, MPI_INT, comm);
        break;
    case AGV: {
        int n = cnt(t->rank, 0);
        rc = req ? MPI_Ineighbor_allgatherv(c->sbuf, n, MPI_INT, c->rbuf, c->rcounts, c->rdispls,
                                            MPI_INT, comm, req)
                 : MPI_Neighbor_allgatherv(c->sbuf, n, MPI_INT, c->rbuf, c->rcounts, c->rdispls,
                                           MPI_INT, comm);
        break;
    }
    case A2A:
        rc = req ? MPI_Ineighbor_alltoall(c->sbuf, C, MPI_INT, c->rbuf, C, MPI_INT, comm, req)
                 : MPI_Neighbor_alltoall(c->sbuf, C, MPI_INT, c->rbuf, C, MPI_INT, comm);
        break;
    case A2A_VEC:
        rc = req ? MPI_Ineighbor_alltoall(c->sbuf, C, MPI_INT, c->rbuf, 1, vec[0], comm, req)
                 : MPI_Neighbor_alltoall(c->sbuf, C, MPI_INT, c->rbuf, 1, vec[0], comm);
        break;
    case A2AV:
        rc = req ? MPI_Ineighbor_alltoallv(c->sbuf, c->scounts, c->sdispls, MPI_INT, c->rbuf,
                                           c->rcounts, c->rdispls, MPI_INT, comm, req)
                 : MPI_Neighbor_alltoallv(c->sbuf, c->scounts, c->sdispls, MPI_INT, c->rbuf,
                                          c->rcounts, c->rdispls, MPI_INT, comm);
        break;
    case A2AW:
        rc = req ? MPI_Ineighbor_alltoallw(c->sbuf, c->scounts, c->sbytes, c->stypes, c->rbuf,
                                           c->rcounts, c->rbytes, c->rtypes, comm, req)
                 : MPI_Neighbor_alltoallw(c->sbuf, c->scounts, c->sbytes, c->stypes, c->rbuf,
                                          c->rcounts, c->rbytes, c->rtypes, comm);
        break;
    }
    if (rc != MPI_SUCCESS)
        tu_fail("%s: %s%s returned %s", t->name, req ? "MPI_Ineighbor_" : "MPI_Neighbor_",
                op_name[op], tu_errstr(rc));
}

static void verify(int op, const struct topo *t, struct call *c, const char *mode)
{
    for (int k = 0; k < c->rlen; k++) {
        if (c->rbuf[k] == c->want[k])
            continue;
        int block = -1; /* the block starting last at or before int k */
        for (int i = 0; i < t->indeg; i++)
            if (c->rdispls[i] <= k && (block < 0 || c->rdispls[i] > c->rdispls[block]))
                block = i;
        tu_fail("%s: %s %s: receive int %d (in or after block %d, from rank %d) is %d, "
                "expected %d", t->name, op_name[op], mode, k, block,
                block >= 0 ? t->in[block] : -1, c->rbuf[k], c->want[k]);
    }
    free(c->sbuf), free(c->rbuf), free(c->want);
    free(c->scounts), free(c->sdispls), free(c->rcounts), free(c->rdispls);
    free(c->sbytes), free(c->rbytes), free(c->stypes), free(c->rtypes);
}

static void run(struct topo *t)
{
    static const char *const modes[3] = {"blocking", "nonblocking+Waitall",
                                         "nonblocking+Testall"};
    read_topology(t);
    for (int mode = 0; mode < 3; mode++) {
        struct call calls[NOPS];
        MPI_Request reqs[NOPS];
        for (int op = 0; mode == 0 && op < NOPS; op++) {
            setup(op, t, &calls[op]);
            start(op, t, &calls[op], NULL);
            verify(op, t, &calls[op], modes[mode]);
        }
        if (mode == 0)
            continue;
        for (int op = 0; op < NOPS; op++)
            setup(op, t, &calls[op]);
        for (int op = 0; op < NOPS; op++)
            start(op, t, &calls[op], &reqs[op]);
        if (mode == 1)
            TU_CHECK(MPI_Waitall(NOPS, reqs, MPI_STATUSES_IGNORE));
        for (int done = 0; mode == 2 && !done;)
            TU_CHECK(MPI_Testall(NOPS, reqs, &done, MPI_STATUSES_IGNORE));
        for (int op = 0; op < NOPS; op++)
            verify(op, t, &calls[op], modes[mode]);
    }
    free(t->in), free(t->out), free(t->from);
    TU_CHECK(MPI_Comm_free(&t->comm));
}

/* ---- the topologies ---- */

/* how: 0 the grid itself, 1 a dup of it, 2 the MPI_Cart_sub of its last
 * dimension */
static void cart(const char *name, int nd, const int *dims, const int *periods, int how)
{
    struct topo t = {name, MPI_COMM_NULL, 0, 0, 0, NULL, NULL, NULL};
    TU_CHECK(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &t.comm));
    if (how) {
        MPI_Comm grid = t.comm;
        int keep[3] = {0, 0, 0};
        keep[nd - 1] = 1;
        if (how == 1)
            TU_CHECK(MPI_Comm_dup(grid, &t.comm));
        else
            TU_CHECK(MPI_Cart_sub(grid, keep, &t.comm));
        TU_CHECK(MPI_Comm_free(&grid));
    }
    run(&t);
}

static void graph(const char *name, int n, const int *index, const int *edges, int dup)
{
    struct topo t = {name, MPI_COMM_NULL, 0, 0, 0, NULL, NULL, NULL};
    TU_CHECK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &t.comm));
    if (dup) {
        MPI_Comm g = t.comm;
        TU_CHECK(MPI_Comm_dup(g, &t.comm));
        TU_CHECK(MPI_Comm_free(&g));
    }
    run(&t);
}

/* Edges of the distributed graphs, (src[e], dst[e]): a ring of m ranks where
 * each rank has one edge to the next and two to the one after (a
 * multi-edge; self-edges when m is 1 or 2), a self-loop at rank 0, edges
 * from rank 0 to all ring ranks, and (4 ranks and up) a sink that only
 * receives; with 3 ranks and up the last rank is isolated. */
static int dist_edges(int n, int *src, int *dst)
{
    int sink = n >= 4 ? n - 2 : -1, m = n - (n >= 3) - (sink >= 0), ne = 0;
    for (int r = 0; r < m; r++) {
        src[ne] = r, dst[ne++] = (r + 1) % m;
        src[ne] = r, dst[ne++] = (r + 2) % m;
        src[ne] = r, dst[ne++] = (r + 2) % m;
    }
    src[ne] = 0, dst[ne++] = 0;
    for (int k = 1; k < m; k++)
        src[ne] = 0, dst[ne++] = k;
    if (sink >= 0) {
        src[ne] = 0, dst[ne++] = sink;
        src[ne] = m - 1, dst[ne++] = sink;
        src[ne] = m - 1, dst[ne++] = sink;
    }
    return ne;
}

static void dist_graphs(void)
{
    int n = tu_size, me = tu_rank;
    int *src = ints(5 * n + 4), *dst = ints(5 * n + 4), ne = dist_edges(n, src, dst);
    /* adjacent: destinations in edge order, sources in reverse edge order */
    int *srcs = ints(ne), *dsts = ints(ne), *w = ints(ne), indeg = 0, outdeg = 0;
    for (int e = 0; e < ne; e++) {
        w[e] = 1;
        if (src[e] == me)
            dsts[outdeg++] = dst[e];
    }
    for (int e = ne - 1; e >= 0; e--)
        if (dst[e] == me)
            srcs[indeg++] = src[e];
    struct topo t = {"dist_graph_create_adjacent", MPI_COMM_NULL, 0, 0, 0, NULL, NULL, NULL};
    TU_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, srcs, MPI_UNWEIGHTED, outdeg,
                                            dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &t.comm));
    run(&t);
    /* general: rank r gives the edges e with e % n == r, one (source, 1,
     * destination) triple each */
    int *degs = ints(ne), given = 0;
    for (int e = me; e < ne; e += n) {
        srcs[given] = src[e], dsts[given] = dst[e], degs[given] = 1;
        given++;
    }
    struct topo g = {"dist_graph_create", MPI_COMM_NULL, 0, 0, 0, NULL, NULL, NULL};
    TU_CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, given, srcs, degs, dsts, w, MPI_INFO_NULL, 0,
                                   &g.comm));
    run(&g);
    free(src), free(dst), free(srcs), free(dsts), free(w), free(degs);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_neighbor");
    /* the topology communicators inherit it: errors come back as FAIL lines */
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    const char *large = getenv("TEST_LARGE");
    if (large && *large && strcmp(large, "0"))
        C = 5000;
    for (int k = 0; k < 3; k++) {
        TU_CHECK(MPI_Type_vector(C + k, 1, 2, MPI_INT, &vec[k]));
        TU_CHECK(MPI_Type_commit(&vec[k]));
    }
    int n = tu_size;

    int dims[3], periods[3] = {0, 0, 0};
    dims[0] = n;
    cart("cart 1-D open", 1, dims, periods, 0);
    periods[0] = 1;
    cart("cart 1-D periodic", 1, dims, periods, 0);
    cart("cart 1-D periodic (dup)", 1, dims, periods, 1);
    dims[0] = dims[1] = 0;
    TU_CHECK(MPI_Dims_create(n, 2, dims));
    periods[0] = 1, periods[1] = 0;
    cart("cart 2-D (Dims_create), periodic x open", 2, dims, periods, 0);
    dims[0] = 1, dims[1] = n, periods[0] = periods[1] = 1;
    cart("cart 1 x n periodic", 2, dims, periods, 0);
    dims[0] = n, dims[1] = 1, periods[0] = periods[1] = 0;
    cart("cart n x 1 open", 2, dims, periods, 0);
    periods[0] = periods[1] = periods[2] = 1;
    if (n % 2 == 0)
        dims[0] = 2, dims[1] = 1, dims[2] = n / 2;
    else
        dims[0] = 1, dims[1] = 1, dims[2] = n;
    cart("cart 3-D periodic with sides of 1 and 2", 3, dims, periods, 0);
    cart("cart 3-D periodic, Cart_sub of the last dimension", 3, dims, periods, 2);

    /* node r lists r+1, r-1, r, r+1, r-1: two edges each way to each side
     * (four to the one other node when n == 2, five self-loops when n == 1)
     * and a self-loop */
    int *index = ints(n), *edges = ints(5 * n + 2), ne = 0;
    for (int r = 0; r < n; r++) {
        int next = (r + 1) % n, prev = (r + n - 1) % n;
        edges[ne++] = next, edges[ne++] = prev, edges[ne++] = r;
        edges[ne++] = next, edges[ne++] = prev;
        index[r] = ne;
    }
    graph("graph ring with multi-edges and self-loops", n, index, edges, 0);
    graph("graph ring (dup)", n, index, edges, 1);
    /* the last node isolated (n > 1); the others a ring, node 0 with two
     * self-loops */
    int m = n > 1 ? n - 1 : n;
    ne = 0;
    for (int r = 0; r < n; r++) {
        if (r < m && m > 1)
            edges[ne++] = (r + 1) % m;
        if (r == 0)
            edges[ne++] = 0, edges[ne++] = 0;
        if (r < m && m > 1)
            edges[ne++] = (r + m - 1) % m;
        index[r] = ne;
    }
    graph("graph with an isolated node", n, index, edges, 0);
    free(index), free(edges);

    dist_graphs();

    for (int k = 0; k < 3; k++)
        TU_CHECK(MPI_Type_free(&vec[k]));
    tu_finish();
    return 0;
}
