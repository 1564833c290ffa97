/*
 * graph_topo: graph and distributed-graph topologies. A ring as an
 * MPI_Graph_create graph on all but the last rank (that one gets
 * MPI_COMM_NULL), read back with Graphdims_get/Graph_get/Graph_neighbors and
 * used for traffic; distributed graphs of the same ring from
 * Dist_graph_create_adjacent and from Dist_graph_create with every edge
 * given by rank 0 (weighted and MPI_UNWEIGHTED); topologies surviving dup;
 * error classes.
 */
#include "util.h"

static void expect_class(int rc, int cls, const char *what)
{
    int c = -1;
    if (rc == MPI_SUCCESS)
        tu_fail("%s: succeeded, expected error class %d", what, cls);
    TU_CHECK(MPI_Error_class(rc, &c));
    if (c != cls)
        tu_fail("%s: error class %d, expected %d (%s)", what, c, cls, tu_errstr(rc));
}

static void check_dist(MPI_Comm c, int weighted, const char *what)
{
    int n = tu_size, left = (tu_rank + n - 1) % n, right = (tu_rank + 1) % n;
    int status, indeg, outdeg, w;
    TU_CHECK(MPI_Topo_test(c, &status));
    TU_CHECK(MPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &w));
    if (status != MPI_DIST_GRAPH || indeg != 1 || outdeg != 1 || !w != !weighted)
        tu_fail("%s: topology %d, degrees %d in %d out, weighted %d", what, status, indeg,
                outdeg, w);
    int src = -1, dst = -1, sw = -1, dw = -1;
    TU_CHECK(MPI_Dist_graph_neighbors(c, 1, &src, weighted ? &sw : MPI_UNWEIGHTED, 1, &dst,
                                      weighted ? &dw : MPI_UNWEIGHTED));
    if (src != left || dst != right)
        tu_fail("%s: source %d destination %d, expected %d and %d", what, src, dst, left, right);
    if (weighted && (sw != 100 + left || dw != 100 + tu_rank))
        tu_fail("%s: weights %d in, %d out; expected %d and %d", what, sw, dw, 100 + left,
                100 + tu_rank);
    int in = -1;
    TU_CHECK(MPI_Sendrecv(&tu_rank, 1, MPI_INT, dst, 0, &in, 1, MPI_INT, src, 0, c,
                          MPI_STATUS_IGNORE));
    if (in != left)
        tu_fail("%s: traffic from the source brought %d", what, in);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "graph_topo");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int n = tu_size;
    int nodes = n > 2 ? n - 1 : n;

    /* ring graph of `nodes` nodes: node i -> i-1, i+1 (one edge when nodes == 2,
     * none when 1) */
    int index[64], edges[128], e = 0;
    if (n > 64)
        tu_fail("at most 64 ranks");
    for (int i = 0; i < nodes; i++) {
        if (nodes > 1)
            edges[e++] = (i + nodes - 1) % nodes;
        if (nodes > 2)
            edges[e++] = (i + 1) % nodes;
        index[i] = e;
    }
    MPI_Comm g, gd;
    TU_CHECK(MPI_Graph_create(MPI_COMM_WORLD, nodes, index, edges, 1, &g));
    if ((g == MPI_COMM_NULL) != (tu_rank >= nodes))
        tu_fail("graph of %d nodes: rank %d %s", nodes, tu_rank,
                g == MPI_COMM_NULL ? "got MPI_COMM_NULL" : "got a communicator");
    if (g != MPI_COMM_NULL) {
        TU_CHECK(MPI_Comm_dup(g, &gd));
        TU_CHECK(MPI_Comm_free(&g));
        int status, nn, ne, gi[64], ge[128], nb[4], cnt;
        TU_CHECK(MPI_Topo_test(gd, &status));
        TU_CHECK(MPI_Graphdims_get(gd, &nn, &ne));
        if (status != MPI_GRAPH || nn != nodes || ne != e)
            tu_fail("graph: topology %d, %d nodes, %d edges", status, nn, ne);
        TU_CHECK(MPI_Graph_get(gd, 64, 128, gi, ge));
        if (memcmp(gi, index, (size_t)nodes * sizeof(int)) ||
            memcmp(ge, edges, (size_t)e * sizeof(int)))
            tu_fail("MPI_Graph_get differs from what was given");
        for (int r = 0; r < nodes; r++) {
            TU_CHECK(MPI_Graph_neighbors_count(gd, r, &cnt));
            TU_CHECK(MPI_Graph_neighbors(gd, r, 4, nb));
            int first = r ? index[r - 1] : 0;
            if (cnt != index[r] - first || memcmp(nb, edges + first, (size_t)cnt * sizeof(int)))
                tu_fail("neighbours of node %d are wrong (%d of them)", r, cnt);
        }
        /* send to every neighbour, receive from every neighbour */
        TU_CHECK(MPI_Graph_neighbors_count(gd, tu_rank, &cnt));
        TU_CHECK(MPI_Graph_neighbors(gd, tu_rank, 4, nb));
        int got[4];
        MPI_Request rq[8];
        for (int i = 0; i < cnt; i++) {
            TU_CHECK(MPI_Irecv(&got[i], 1, MPI_INT, nb[i], 1, gd, &rq[i]));
            TU_CHECK(MPI_Isend(&tu_rank, 1, MPI_INT, nb[i], 1, gd, &rq[cnt + i]));
        }
        TU_CHECK(MPI_Waitall(2 * cnt, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < cnt; i++)
            if (got[i] != nb[i])
                tu_fail("graph traffic from %d brought %d", nb[i], got[i]);
        expect_class(MPI_Cartdim_get(gd, &cnt), MPI_ERR_TOPOLOGY, "Cartdim_get(graph)");
        TU_CHECK(MPI_Comm_set_errhandler(gd, MPI_ERRORS_RETURN));
        expect_class(MPI_Graph_neighbors_count(gd, nodes, &cnt), MPI_ERR_RANK,
                     "Graph_neighbors_count(rank nnodes)");
        TU_CHECK(MPI_Comm_free(&gd));
    }
    int newrank;
    TU_CHECK(MPI_Graph_map(MPI_COMM_WORLD, nodes, index, edges, &newrank));
    if (newrank != (tu_rank < nodes ? tu_rank : MPI_UNDEFINED))
        tu_fail("Graph_map: %d", newrank);

    /* distributed ring, adjacent form, weighted */
    int left = (tu_rank + n - 1) % n, right = (tu_rank + 1) % n;
    int sw = 100 + left, dw = 100 + tu_rank;
    MPI_Comm d, dd;
    TU_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &sw, 1, &right, &dw,
                                            MPI_INFO_NULL, 0, &d));
    check_dist(d, 1, "adjacent, weighted");
    TU_CHECK(MPI_Comm_dup(d, &dd));
    check_dist(dd, 1, "dup of adjacent");
    TU_CHECK(MPI_Comm_free(&d));
    TU_CHECK(MPI_Comm_free(&dd));
    TU_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
    check_dist(d, 0, "adjacent, unweighted");
    TU_CHECK(MPI_Comm_free(&d));

    /* the same ring, every edge given by rank 0 */
    int srcs[64], degs[64], dsts[64], ws[64];
    for (int i = 0; i < n; i++) {
        srcs[i] = i;
        degs[i] = 1;
        dsts[i] = (i + 1) % n;
        ws[i] = 100 + i;
    }
    int k = tu_rank == 0 ? n : 0;
    TU_CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, k, srcs, degs, dsts, ws, MPI_INFO_NULL, 0, &d));
    check_dist(d, 1, "Dist_graph_create by rank 0, weighted");
    TU_CHECK(MPI_Comm_free(&d));
    /* each rank gives its own outgoing edge, unweighted */
    TU_CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &srcs[tu_rank], &degs[tu_rank],
                                   &dsts[tu_rank], MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
    check_dist(d, 0, "Dist_graph_create by every rank, unweighted");
    TU_CHECK(MPI_Comm_free(&d));

    /* errors */
    index[0] = -1;
    expect_class(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &g), MPI_ERR_ARG,
                 "Graph_create(index -1)");
    index[0] = 1;
    edges[0] = 5;
    expect_class(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &g), MPI_ERR_ARG,
                 "Graph_create(edge to node 5 of 1)");
    expect_class(MPI_Graph_create(MPI_COMM_WORLD, n + 1, index, edges, 0, &g), MPI_ERR_ARG,
                 "Graph_create(nnodes size+1)");
    expect_class(MPI_Graphdims_get(MPI_COMM_WORLD, &k, &k), MPI_ERR_TOPOLOGY,
                 "Graphdims_get(no topology)");
    expect_class(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &k, &k, &k), MPI_ERR_TOPOLOGY,
                 "Dist_graph_neighbors_count(no topology)");
    int bad = n;
    expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 0,
                                                NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d),
                 MPI_ERR_RANK, "Dist_graph_create_adjacent(source n)");
    tu_finish();
    return 0;
}
