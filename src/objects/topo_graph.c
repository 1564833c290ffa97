/*
 * Graph topologies: MPI_Graph_create (every process knows the whole graph)
 * and the distributed graphs of MPI_Dist_graph_create_adjacent (each process
 * gives its own edges) and MPI_Dist_graph_create (any process gives any
 * edges; they are delivered to both ends with one Alltoall of counts and
 * one Alltoallv of the edges). reorder is ignored: ranks keep their order.
 * Also what neighbourhood collectives ask of a topology:
 * faro_topo_neighbors() (the neighbour lists, in the standard's order) and
 * faro_topo_check_neighborhood() (a topology exists; a graph is symmetric,
 * which MPI_Graph_create records while every process holds the whole graph).
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "objects/topo.h"

/* the addresses are the markers MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY */
int faro_mpi_unweighted, faro_mpi_weights_empty;

#define CHECK_COMM(fn, c)                                                                     \
    do {                                                                                      \
        if (faro_comm_check(c))                                                               \
            return faro_comm_bad(fn, c);                                                      \
    } while (0)

static int no_topo(const char *fn, MPI_Comm comm, const char *what)
{
    return faro_err(comm, MPI_ERR_TOPOLOGY, "%s: the communicator has no %s topology", fn, what);
}

#define CHECK_KIND(fn, c, k, what)                                                            \
    do {                                                                                      \
        CHECK_COMM(fn, c);                                                                    \
        if (!(c)->topo || (c)->topo->kind != (k))                                             \
            return no_topo(fn, c, what);                                                      \
    } while (0)

/* ---- MPI_Graph_create ---- */

static int check_graph(const char *fn, MPI_Comm comm, int nnodes, const int index[],
                       const int edges[])
{
    if (nnodes < 0 || nnodes > comm->size)
        return faro_err(comm, MPI_ERR_ARG, "%s: nnodes %d is out of range (0..%d, the "
                        "communicator's size)", fn, nnodes, comm->size);
    if (nnodes > 0 && !index)
        return faro_err(comm, MPI_ERR_ARG, "%s: index is NULL", fn);
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return faro_err(comm, MPI_ERR_ARG, "%s: index[%d] = %d is less than the one before "
                            "(index holds running totals of degrees)", fn, i, index[i]);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    if (nedges > 0 && !edges)
        return faro_err(comm, MPI_ERR_ARG, "%s: edges is NULL", fn);
    for (int i = 0; i < nedges; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return faro_err(comm, MPI_ERR_ARG, "%s: edges[%d] = %d is not a node (0..%d)", fn,
                            i, edges[i], nnodes - 1);
    return MPI_SUCCESS;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Neighbourhood collectives on a graph need its adjacency matrix symmetric
 * (MPI 3.1 section 7.6): every pair of nodes lists each other equally often.
 * The edges i->j and their reversals j->i, sorted, are equal lists exactly
 * then; at the first place they differ the smaller key names a pair whose
 * counts differ. Every process holds the whole graph, so all find the same
 * pair and a neighbourhood collective fails everywhere alike. Out of memory
 * leaves the graph marked symmetric (the check is skipped, not the graph). */
static void find_asymmetry(struct faro_topo *t)
{
    size_t ne = (size_t)t->nedges;
    long long n = t->nnodes, *fwd = malloc((2 * ne + 1) * sizeof *fwd);
    t->asym[0] = t->asym[1] = -1;
    if (!fwd)
        return;
    long long *rev = fwd + ne;
    for (int i = 0, e = 0; i < t->nnodes; i++)
        for (; e < t->index[i]; e++) {
            fwd[e] = i * n + t->edges[e];
            rev[e] = t->edges[e] * n + i;
        }
    qsort(fwd, ne, sizeof *fwd, cmp_ll);
    qsort(rev, ne, sizeof *rev, cmp_ll);
    for (size_t e = 0; e < ne; e++)
        if (fwd[e] != rev[e]) {
            long long key = fwd[e] < rev[e] ? fwd[e] : rev[e];
            t->asym[0] = (int)(key / n);
            t->asym[1] = (int)(key % n);
            break;
        }
    free(fwd);
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    static const char fn[] = "MPI_Graph_create";
    (void)reorder;
    CHECK_COMM(fn, comm_old);
    FARO_CHECK_INTRA(fn, comm_old, MPI_ERR_COMM);
    if (!comm_graph)
        return faro_err(comm_old, MPI_ERR_ARG, "%s: comm_graph pointer is NULL", fn);
    int rc = check_graph(fn, comm_old, nnodes, index, edges);
    if (rc)
        return rc;
    int nedges = nnodes ? index[nnodes - 1] : 0;
    struct faro_topo *t = NULL;
    if (comm_old->rank < nnodes && (t = faro_topo_alloc(MPI_GRAPH, (size_t)nnodes + nedges))) {
        t->nnodes = nnodes;
        t->nedges = nedges;
        t->index = t->data;
        t->edges = t->data + nnodes;
        memcpy(t->index, index, (size_t)nnodes * sizeof(int));
        memcpy(t->edges, edges, (size_t)nedges * sizeof(int));
        find_asymmetry(t);
    }
    return faro_topo_comm(fn, comm_old, nnodes, t, comm_graph);
}

#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    CHECK_COMM("MPI_Graph_map", comm);
    if (!newrank)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Graph_map: newrank pointer is NULL");
    int rc = check_graph("MPI_Graph_map", comm, nnodes, index, edges);
    if (rc)
        return rc;
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    CHECK_KIND("MPI_Graphdims_get", comm, MPI_GRAPH, "graph");
    if (!nnodes || !nedges)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Graphdims_get: %s pointer is NULL",
                        nnodes ? "nedges" : "nnodes");
    *nnodes = comm->topo->nnodes;
    *nedges = comm->topo->nedges;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    CHECK_KIND("MPI_Graph_get", comm, MPI_GRAPH, "graph");
    const struct faro_topo *t = comm->topo;
    if (maxindex < 0 || maxedges < 0)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Graph_get: maxindex %d or maxedges %d is "
                        "negative", maxindex, maxedges);
    if ((maxindex > 0 && !index) || (maxedges > 0 && !edges))
        return faro_err(comm, MPI_ERR_ARG, "MPI_Graph_get: %s is NULL",
                        maxindex > 0 && !index ? "index" : "edges");
    memcpy(index, t->index, (size_t)(maxindex < t->nnodes ? maxindex : t->nnodes) * sizeof(int));
    memcpy(edges, t->edges, (size_t)(maxedges < t->nedges ? maxedges : t->nedges) * sizeof(int));
    return MPI_SUCCESS;
}

static int graph_rank(const char *fn, MPI_Comm comm, int rank)
{
    if (rank < 0 || rank >= comm->topo->nnodes)
        return faro_err(comm, MPI_ERR_RANK, "%s: rank %d is not a node (0..%d)", fn, rank,
                        comm->topo->nnodes - 1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char fn[] = "MPI_Graph_neighbors_count";
    CHECK_KIND(fn, comm, MPI_GRAPH, "graph");
    if (!nneighbors)
        return faro_err(comm, MPI_ERR_ARG, "%s: nneighbors pointer is NULL", fn);
    int rc = graph_rank(fn, comm, rank);
    if (rc)
        return rc;
    const int *idx = comm->topo->index;
    *nneighbors = idx[rank] - (rank ? idx[rank - 1] : 0);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char fn[] = "MPI_Graph_neighbors";
    CHECK_KIND(fn, comm, MPI_GRAPH, "graph");
    int rc = graph_rank(fn, comm, rank);
    if (rc)
        return rc;
    const int *idx = comm->topo->index;
    int first = rank ? idx[rank - 1] : 0, n = idx[rank] - first;
    if (maxneighbors < n)
        n = maxneighbors < 0 ? 0 : maxneighbors;
    if (n > 0 && !neighbors)
        return faro_err(comm, MPI_ERR_ARG, "%s: neighbors is NULL", fn);
    memcpy(neighbors, comm->topo->edges + first, (size_t)n * sizeof(int));
    return MPI_SUCCESS;
}

/* ---- distributed graphs ---- */

static int check_ends(const char *fn, MPI_Comm comm, int n, const int ranks[], const char *what)
{
    if (n < 0)
        return faro_err(comm, MPI_ERR_ARG, "%s: %s degree %d is negative", fn, what, n);
    if (n > 0 && !ranks)
        return faro_err(comm, MPI_ERR_ARG, "%s: the %s array is NULL", fn, what);
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= comm->size)
            return faro_err(comm, MPI_ERR_RANK, "%s: %s[%d] = %d is not a rank (0..%d)", fn,
                            what, i, ranks[i], comm->size - 1);
    return MPI_SUCCESS;
}

static int unweighted(const int *w)
{
    return w == MPI_UNWEIGHTED;
}

/* A distributed-graph topology with room for the edges; weights of 1 when
 * unweighted. */
static struct faro_topo *dist_new(int indeg, int outdeg, int weighted)
{
    struct faro_topo *t = faro_topo_alloc(MPI_DIST_GRAPH, 2 * ((size_t)indeg + outdeg));
    if (!t)
        return NULL;
    t->indegree = indeg;
    t->outdegree = outdeg;
    t->weighted = weighted;
    t->sources = t->data;
    t->sweights = t->sources + indeg;
    t->dests = t->sweights + indeg;
    t->dweights = t->dests + outdeg;
    return t;
}

static int check_info(const char *fn, MPI_Comm comm, MPI_Info info)
{
    int n;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS)
        return faro_err(comm, MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    (void)reorder;
    CHECK_COMM(fn, comm_old);
    FARO_CHECK_INTRA(fn, comm_old, MPI_ERR_COMM);
    int rc;
    if ((rc = check_ends(fn, comm_old, indegree, sources, "sources")) ||
        (rc = check_ends(fn, comm_old, outdegree, destinations, "destinations")) ||
        (rc = check_info(fn, comm_old, info)))
        return rc;
    if (!comm_dist_graph)
        return faro_err(comm_old, MPI_ERR_ARG, "%s: comm_dist_graph pointer is NULL", fn);
    int weighted = !unweighted(sourceweights) && !unweighted(destweights);
    if (weighted && ((indegree > 0 && (!sourceweights || sourceweights == MPI_WEIGHTS_EMPTY)) ||
                     (outdegree > 0 && (!destweights || destweights == MPI_WEIGHTS_EMPTY))))
        return faro_err(comm_old, MPI_ERR_ARG, "%s: a weights array is NULL or "
                        "MPI_WEIGHTS_EMPTY with edges present (MPI_UNWEIGHTED: no weights)", fn);
    struct faro_topo *t = dist_new(indegree, outdegree, weighted);
    if (t) {
        for (int i = 0; i < indegree; i++) {
            t->sources[i] = sources[i];
            t->sweights[i] = weighted ? sourceweights[i] : 1;
        }
        for (int i = 0; i < outdegree; i++) {
            t->dests[i] = destinations[i];
            t->dweights[i] = weighted ? destweights[i] : 1;
        }
    }
    return faro_topo_comm(fn, comm_old, comm_old->size, t, comm_dist_graph);
}

/* Edges travel as (kind, other end, weight): kind 0 = an edge into the
 * receiver (other end = source), 1 = out of it (other end = destination). */
#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create";
    (void)reorder;
    CHECK_COMM(fn, comm_old);
    FARO_CHECK_INTRA(fn, comm_old, MPI_ERR_COMM);
    int rc;
    if ((rc = check_ends(fn, comm_old, n, sources, "sources")) ||
        (rc = check_info(fn, comm_old, info)))
        return rc;
    if (!comm_dist_graph || (n > 0 && !degrees))
        return faro_err(comm_old, MPI_ERR_ARG, "%s: degrees or comm_dist_graph is NULL", fn);
    long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return faro_err(comm_old, MPI_ERR_ARG, "%s: degrees[%d] = %d is negative", fn, i,
                            degrees[i]);
        nedges += degrees[i];
    }
    if ((rc = check_ends(fn, comm_old, (int)nedges, destinations, "destinations")))
        return rc;
    int weighted = !unweighted(weights);
    if (weighted && nedges > 0 && (!weights || weights == MPI_WEIGHTS_EMPTY))
        return faro_err(comm_old, MPI_ERR_ARG, "%s: weights is NULL or MPI_WEIGHTS_EMPTY with "
                        "edges present (MPI_UNWEIGHTED: no weights)", fn);

    int size = comm_old->size;
    int *scount = calloc((size_t)size, sizeof(int)), *rcount = calloc((size_t)size, sizeof(int));
    int *sdispl = calloc((size_t)size + 1, sizeof(int)), *rdispl = calloc((size_t)size + 1, sizeof(int));
    int *sbuf = malloc((size_t)(6 * nedges + 1) * sizeof(int)), *rbuf = NULL;
    struct faro_topo *t = NULL;
    rc = MPI_ERR_NO_MEM;
    if (!scount || !rcount || !sdispl || !rdispl || !sbuf)
        goto out;
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            scount[sources[i]] += 3;
            scount[destinations[e]] += 3;
        }
    for (int r = 0; r < size; r++)
        sdispl[r + 1] = sdispl[r] + scount[r];
    int *fill = calloc((size_t)size, sizeof(int));
    if (!fill)
        goto out;
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            int s = sources[i], d = destinations[e], w = weighted ? weights[e] : 1;
            int *p = sbuf + sdispl[s] + fill[s];
            p[0] = 1, p[1] = d, p[2] = w;
            fill[s] += 3;
            p = sbuf + sdispl[d] + fill[d];
            p[0] = 0, p[1] = s, p[2] = w;
            fill[d] += 3;
        }
    free(fill);
    rc = PMPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm_old);
    if (rc)
        goto out;
    for (int r = 0; r < size; r++)
        rdispl[r + 1] = rdispl[r] + rcount[r];
    rbuf = malloc(((size_t)rdispl[size] + 1) * sizeof(int));
    rc = MPI_ERR_NO_MEM;
    if (!rbuf)
        goto out;
    rc = PMPI_Alltoallv(sbuf, scount, sdispl, MPI_INT, rbuf, rcount, rdispl, MPI_INT, comm_old);
    if (rc)
        goto out;
    int indeg = 0, outdeg = 0;
    for (int k = 0; k < rdispl[size]; k += 3)
        if (rbuf[k])
            outdeg++;
        else
            indeg++;
    t = dist_new(indeg, outdeg, weighted);
    if (t) {
        int a = 0, b = 0;
        for (int k = 0; k < rdispl[size]; k += 3)
            if (rbuf[k]) {
                t->dests[b] = rbuf[k + 1];
                t->dweights[b++] = rbuf[k + 2];
            } else {
                t->sources[a] = rbuf[k + 1];
                t->sweights[a++] = rbuf[k + 2];
            }
    }
    rc = MPI_SUCCESS;
out:
    free(scount);
    free(rcount);
    free(sdispl);
    free(rdispl);
    free(sbuf);
    free(rbuf);
    if (rc == MPI_ERR_NO_MEM)
        return faro_err(comm_old, rc, "%s: out of memory for %ld edges", fn, nedges);
    if (rc)
        return rc;
    return faro_topo_comm(fn, comm_old, size, t, comm_dist_graph);
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    CHECK_KIND("MPI_Dist_graph_neighbors_count", comm, MPI_DIST_GRAPH, "distributed graph");
    if (!indegree || !outdegree || !weighted)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Dist_graph_neighbors_count: %s pointer is NULL",
                        !indegree ? "indegree" : !outdegree ? "outdegree" : "weighted");
    *indegree = comm->topo->indegree;
    *outdegree = comm->topo->outdegree;
    *weighted = comm->topo->weighted;
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    static const char fn[] = "MPI_Dist_graph_neighbors";
    CHECK_KIND(fn, comm, MPI_DIST_GRAPH, "distributed graph");
    const struct faro_topo *t = comm->topo;
    if (maxindegree < t->indegree || maxoutdegree < t->outdegree)
        return faro_err(comm, MPI_ERR_ARG, "%s: maxindegree %d or maxoutdegree %d is less than "
                        "the degrees (%d in, %d out; MPI_Dist_graph_neighbors_count gives them)",
                        fn, maxindegree, maxoutdegree, t->indegree, t->outdegree);
    if ((t->indegree && !sources) || (t->outdegree && !destinations))
        return faro_err(comm, MPI_ERR_ARG, "%s: %s is NULL", fn,
                        t->indegree && !sources ? "sources" : "destinations");
    memcpy(sources, t->sources, (size_t)t->indegree * sizeof(int));
    memcpy(destinations, t->dests, (size_t)t->outdegree * sizeof(int));
    if (t->weighted && !unweighted(sourceweights) && sourceweights)
        memcpy(sourceweights, t->sweights, (size_t)t->indegree * sizeof(int));
    if (t->weighted && !unweighted(destweights) && destweights)
        memcpy(destweights, t->dweights, (size_t)t->outdegree * sizeof(int));
    return MPI_SUCCESS;
}

/* ---- neighbour lists for neighbourhood collectives ---- */

int faro_topo_neighbors(MPI_Comm comm, int *indeg, const int **in, int *outdeg,
                        const int **out)
{
    const struct faro_topo *t = comm->topo;
    if (!t)
        return -1;
    if (t->kind == MPI_CART) {
        *indeg = *outdeg = 2 * t->ndims;
        *in = *out = t->nbrs;
    } else if (t->kind == MPI_GRAPH) {
        int r = comm->rank, first = r ? t->index[r - 1] : 0;
        *indeg = *outdeg = t->index[r] - first;
        *in = *out = t->edges + first;
    } else {
        *indeg = t->indegree;
        *outdeg = t->outdegree;
        *in = t->sources;
        *out = t->dests;
    }
    return t->kind;
}

/* times node i lists node j */
static int edge_count(const struct faro_topo *t, int i, int j)
{
    int n = 0;
    for (int e = i ? t->index[i - 1] : 0; e < t->index[i]; e++)
        n += t->edges[e] == j;
    return n;
}

int faro_topo_check_neighborhood(const char *fn, MPI_Comm comm)
{
    const struct faro_topo *t = comm->topo;
    if (!t)
        return faro_err(comm, MPI_ERR_TOPOLOGY, "%s: the communicator has no process topology "
                        "(neighbourhood collectives need one made by MPI_Cart_create, "
                        "MPI_Graph_create or MPI_Dist_graph_create(_adjacent))", fn);
    if (t->kind == MPI_GRAPH && t->asym[0] >= 0) {
        int i = t->asym[0], j = t->asym[1];
        return faro_err(comm, MPI_ERR_TOPOLOGY, "%s: the graph is not symmetric: node %d lists "
                        "node %d %d times but node %d lists node %d %d times (neighbourhood "
                        "collectives on an MPI_Graph_create graph need every pair of nodes to "
                        "list each other equally often)", fn, i, j, edge_count(t, i, j), j, i,
                        edge_count(t, j, i));
    }
    return MPI_SUCCESS;
}
