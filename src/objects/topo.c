/*
 * Cartesian process topologies: MPI_Cart_create and the functions that read
 * or use the grid (coords, rank, shift, sub, get), MPI_Dims_create and
 * MPI_Topo_test.
 *
 * Ranks are laid out in row-major order (the last dimension varies fastest),
 * as the standard requires. MPI_Cart_create ignores reorder: the first
 * prod(dims) ranks of the old communicator keep their order, which is a
 * valid mapping; the others get MPI_COMM_NULL.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "objects/topo.h"

#define CHECK_COMM(fn, c)                                                                     \
    do {                                                                                      \
        if (faro_comm_check(c))                                                               \
            return faro_comm_bad(fn, c);                                                      \
    } while (0)

struct faro_topo *faro_topo_alloc(int kind, size_t n)
{
    struct faro_topo *t = calloc(1, sizeof *t + (n + 1) * sizeof(int));
    if (t) {
        t->kind = kind;
        t->n = n;
    }
    return t;
}

static void coords_of(const struct faro_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* The ranks disp steps before (source) and after (dest) rank along direction,
 * or MPI_PROC_NULL off a non-periodic edge. */
static void shift(const struct faro_topo *t, int rank, int direction, int disp, int *source,
                  int *dest)
{
    int coords[t->ndims];
    coords_of(t, rank, coords);
    int d = t->dims[direction], here = coords[direction], stride = 1;
    for (int i = t->ndims - 1; i > direction; i--)
        stride *= t->dims[i];
    int base = rank - here * stride;
    long to[2] = {(long)here - disp, (long)here + disp};
    int *out[2] = {source, dest};
    for (int k = 0; k < 2; k++) {
        long c = to[k];
        if (t->periods[direction]) {
            c %= d;
            if (c < 0)
                c += d;
        } else if (c < 0 || c >= d) {
            *out[k] = MPI_PROC_NULL;
            continue;
        }
        *out[k] = base + (int)c * stride;
    }
}

/* The grid as seen from rank (its neighbours are kept for the neighbourhood
 * collectives). */
static struct faro_topo *cart_new(int ndims, const int *dims, const int *periods, int rank)
{
    struct faro_topo *t = faro_topo_alloc(MPI_CART, 4 * (size_t)ndims);
    if (!t)
        return NULL;
    t->ndims = ndims;
    t->dims = t->data;
    t->periods = t->dims + ndims;
    t->nbrs = t->periods + ndims;
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    for (int i = 0; i < ndims; i++)
        shift(t, rank, i, 1, &t->nbrs[2 * i], &t->nbrs[2 * i + 1]);
    return t;
}

/* Same pointer, moved from old's data[] to new's. */
static int *rebase(const struct faro_topo *old, struct faro_topo *t, const int *p)
{
    return p ? t->data + (p - old->data) : NULL;
}

struct faro_topo *faro_topo_dup(const struct faro_topo *old)
{
    struct faro_topo *t = malloc(sizeof *t + (old->n + 1) * sizeof(int));
    if (!t)
        return NULL;
    memcpy(t, old, sizeof *t + old->n * sizeof(int));
    t->dims = rebase(old, t, old->dims);
    t->periods = rebase(old, t, old->periods);
    t->nbrs = rebase(old, t, old->nbrs);
    t->index = rebase(old, t, old->index);
    t->edges = rebase(old, t, old->edges);
    t->sources = rebase(old, t, old->sources);
    t->sweights = rebase(old, t, old->sweights);
    t->dests = rebase(old, t, old->dests);
    t->dweights = rebase(old, t, old->dweights);
    return t;
}

void faro_topo_free(struct faro_topo *t)
{
    free(t);
}

static int no_cart(const char *fn, MPI_Comm comm)
{
    return faro_err(comm, MPI_ERR_TOPOLOGY, "%s: the communicator has no Cartesian topology "
                    "(made by MPI_Cart_create or MPI_Cart_sub)", fn);
}

#define CHECK_CART(fn, c)                                                                     \
    do {                                                                                      \
        CHECK_COMM(fn, c);                                                                    \
        if (!(c)->topo || (c)->topo->kind != MPI_CART)                                        \
            return no_cart(fn, c);                                                            \
    } while (0)

/* Checks ndims/dims/periods of a grid description; *cells its size (capped
 * at INT_MAX + 1 so overflow cannot pass for a fit). */
static int check_grid(const char *fn, MPI_Comm comm, int ndims, const int dims[],
                      const int periods[], long *cells)
{
    if (ndims < 0)
        return faro_err(comm, MPI_ERR_DIMS, "%s: ndims %d is negative", fn, ndims);
    if (ndims > 0 && (!dims || !periods))
        return faro_err(comm, MPI_ERR_ARG, "%s: dims or periods is NULL with ndims %d", fn,
                        ndims);
    long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return faro_err(comm, MPI_ERR_DIMS, "%s: dims[%d] = %d is not positive", fn, i,
                            dims[i]);
        n *= dims[i];
        if (n > (long)INT_MAX)
            n = (long)INT_MAX + 1;
    }
    if (n > comm->size)
        return faro_err(comm, MPI_ERR_ARG,
                        "%s: the grid has %ld processes but the communicator only %d", fn, n,
                        comm->size);
    *cells = n;
    return MPI_SUCCESS;
}

int faro_topo_comm(const char *fn, MPI_Comm comm_old, int cells, struct faro_topo *t,
                   MPI_Comm *out)
{
    FARO_LOCKED; /* objects and context ids are shared with other threads */
    int in = comm_old->rank < cells;
    int *world = in ? malloc((size_t)cells * sizeof(int)) : NULL;
    if (world)
        for (int r = 0; r < cells; r++)
            world[r] = faro_comm_world_rank(comm_old, r);
    uint32_t ctx;
    int rc = faro_ctx_agree(fn, comm_old, in && world && t, &ctx); /* the others only vote */
    if (rc || !in || !world || !t) {
        free(world);
        free(t);
        if (rc)
            return rc;
        if (in)
            return faro_err(comm_old, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        *out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    MPI_Comm c = faro_comm_new(comm_old, ctx, cells, world, comm_old->rank);
    if (!c) {
        free(world);
        free(t);
        faro_ctx_release(ctx);
        return faro_err(comm_old, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    c->topo = t;
    *out = c;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    static const char fn[] = "MPI_Cart_create";
    (void)reorder;
    CHECK_COMM(fn, comm_old);
    FARO_CHECK_INTRA(fn, comm_old, MPI_ERR_COMM);
    if (!comm_cart)
        return faro_err(comm_old, MPI_ERR_ARG, "%s: comm_cart pointer is NULL", fn);
    long cells;
    int rc = check_grid(fn, comm_old, ndims, dims, periods, &cells);
    if (rc)
        return rc;
    /* the first cells ranks keep their rank */
    struct faro_topo *t =
        comm_old->rank < cells ? cart_new(ndims, dims, periods, comm_old->rank) : NULL;
    return faro_topo_comm(fn, comm_old, (int)cells, t, comm_cart);
}

#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char fn[] = "MPI_Cart_map";
    CHECK_COMM(fn, comm);
    if (!newrank)
        return faro_err(comm, MPI_ERR_ARG, "%s: newrank pointer is NULL", fn);
    long cells;
    int rc = check_grid(fn, comm, ndims, dims, periods, &cells);
    if (rc)
        return rc;
    *newrank = comm->rank < cells ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    CHECK_COMM("MPI_Topo_test", comm);
    if (!status)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Topo_test: status pointer is NULL");
    *status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    CHECK_CART("MPI_Cartdim_get", comm);
    if (!ndims)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Cartdim_get: ndims pointer is NULL");
    *ndims = comm->topo->ndims;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char fn[] = "MPI_Cart_get";
    CHECK_CART(fn, comm);
    const struct faro_topo *t = comm->topo;
    if (maxdims < t->ndims)
        return faro_err(comm, MPI_ERR_ARG, "%s: maxdims %d is less than the %d dimensions", fn,
                        maxdims, t->ndims);
    if (t->ndims > 0 && (!dims || !periods || !coords))
        return faro_err(comm, MPI_ERR_ARG, "%s: dims, periods or coords is NULL", fn);
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
    }
    coords_of(t, comm->rank, coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char fn[] = "MPI_Cart_coords";
    CHECK_CART(fn, comm);
    const struct faro_topo *t = comm->topo;
    if (rank < 0 || rank >= comm->size)
        return faro_err(comm, MPI_ERR_RANK, "%s: rank %d is invalid (0..%d)", fn, rank,
                        comm->size - 1);
    if (maxdims < t->ndims)
        return faro_err(comm, MPI_ERR_ARG, "%s: maxdims %d is less than the %d dimensions", fn,
                        maxdims, t->ndims);
    if (t->ndims > 0 && !coords)
        return faro_err(comm, MPI_ERR_ARG, "%s: coords is NULL", fn);
    coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char fn[] = "MPI_Cart_rank";
    CHECK_CART(fn, comm);
    const struct faro_topo *t = comm->topo;
    if (t->ndims > 0 && !coords)
        return faro_err(comm, MPI_ERR_ARG, "%s: coords is NULL", fn);
    if (!rank)
        return faro_err(comm, MPI_ERR_ARG, "%s: rank pointer is NULL", fn);
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];
        if (t->periods[i]) {
            c %= d;
            if (c < 0)
                c += d;
        } else if (c < 0 || c >= d) {
            return faro_err(comm, MPI_ERR_ARG,
                            "%s: coords[%d] = %d is outside the non-periodic dimension (0..%d)",
                            fn, i, coords[i], d - 1);
        }
        r = r * d + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char fn[] = "MPI_Cart_shift";
    CHECK_CART(fn, comm);
    const struct faro_topo *t = comm->topo;
    if (direction < 0 || direction >= t->ndims)
        return faro_err(comm, MPI_ERR_ARG, "%s: direction %d is not a dimension (0..%d)", fn,
                        direction, t->ndims - 1);
    if (!rank_source || !rank_dest)
        return faro_err(comm, MPI_ERR_ARG, "%s: rank_source or rank_dest is NULL", fn);
    shift(t, comm->rank, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

/* The subgrid of the kept dimensions through this process: the processes
 * that share its coordinates in the dropped dimensions, in rank order (which
 * is row-major order of the kept ones). Each process knows them, so only the
 * context id needs agreeing. */
#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    FARO_LOCKED; /* objects and context ids are shared with other threads */
    static const char fn[] = "MPI_Cart_sub";
    CHECK_CART(fn, comm);
    const struct faro_topo *t = comm->topo;
    if ((t->ndims > 0 && !remain_dims) || !newcomm)
        return faro_err(comm, MPI_ERR_ARG, "%s: remain_dims or newcomm is NULL", fn);
    int nd = t->ndims, keep = 0, n = 1;
    int coords[nd + 1], sub_dims[nd + 1], sub_periods[nd + 1];
    for (int i = 0; i < nd; i++)
        if (remain_dims[i]) {
            sub_dims[keep] = t->dims[i];
            sub_periods[keep++] = t->periods[i];
            n *= t->dims[i];
        }
    int *world = malloc((size_t)n * sizeof(int));
    /* walk the kept dimensions like an odometer from this process's corner */
    coords_of(t, comm->rank, coords);
    for (int i = 0; i < nd; i++)
        if (remain_dims[i])
            coords[i] = 0;
    int me = 0;
    for (int k = 0; k < n && world; k++) {
        int r = 0;
        for (int i = 0; i < nd; i++)
            r = r * t->dims[i] + coords[i];
        world[k] = faro_comm_world_rank(comm, r);
        if (r == comm->rank)
            me = k;
        for (int i = nd - 1; i >= 0; i--) {
            if (!remain_dims[i])
                continue;
            if (++coords[i] < t->dims[i])
                break;
            coords[i] = 0;
        }
    }
    struct faro_topo *sub = cart_new(keep, sub_dims, sub_periods, me);
    uint32_t ctx;
    int rc = faro_ctx_agree(fn, comm, world && sub, &ctx);
    if (rc || !world || !sub) {
        free(world);
        free(sub);
        return rc ? rc : faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    MPI_Comm c = faro_comm_new(comm, ctx, n, world, me);
    if (!c) {
        free(world);
        free(sub);
        faro_ctx_release(ctx);
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    c->topo = sub;
    *newcomm = c;
    return MPI_SUCCESS;
}

/* ---- MPI_Dims_create ---- */

/* Best split of m into k non-increasing factors by depth-first search over
 * the divisors of m: the smallest spread (largest - smallest factor); among
 * equal spreads the larger smallest factor, then the larger next-smallest
 * and so on (5040 in 3: 21x16x15, not 20x18x14). This is the order MPICH
 * ends up with (checked for every m <= 1000 in 1..5 dimensions). */
struct dims_search {
    int k, ndiv;
    long *div;             /* divisors of m, descending */
    int *cur, *best;
    long best_spread;
};

/* Equal spreads: is cur better than best, compared from the smallest end? */
static int larger_from_small_end(const int *cur, const int *best, int k)
{
    for (int i = k - 1; i >= 0; i--)
        if (cur[i] != best[i])
            return cur[i] > best[i];
    return 0;
}

static void search(struct dims_search *s, int depth, long m, int from)
{
    if (depth == s->k - 1) {
        if (depth > 0 && m > s->cur[depth - 1])
            return;
        s->cur[depth] = (int)m;
        long spread = s->cur[0] - m;
        if (s->best_spread < 0 || spread < s->best_spread ||
            (spread == s->best_spread && larger_from_small_end(s->cur, s->best, s->k))) {
            s->best_spread = spread;
            memcpy(s->best, s->cur, (size_t)s->k * sizeof(int));
        }
        return;
    }
    int left = s->k - depth;
    for (int i = from; i < s->ndiv; i++) {
        long d = s->div[i];
        if (d > m || m % d)
            continue;
        long p = 1; /* d^left < m: this and every smaller d leave a factor above d */
        for (int j = 0; j < left && p < m; j++)
            p *= d;
        if (p < m)
            break;
        /* the smallest factor will be at most d */
        if (depth > 0 && s->best_spread >= 0 && s->cur[0] - d > s->best_spread)
            break;
        s->cur[depth] = (int)d;
        search(s, depth + 1, m / d, i);
    }
}

static int balanced(long m, int k, int *out)
{
    long *div = malloc(1600 * sizeof(long));
    int *cur = malloc((size_t)k * sizeof(int));
    if (!div || !cur) {
        free(div);
        free(cur);
        return -1;
    }
    int nlow = 0, nhigh = 0;
    long low[800], high[800]; /* a number below 2^31 has at most 1600 divisors */
    for (long d = 1; d * d <= m; d++)
        if (m % d == 0) {
            low[nlow++] = d;
            if (d * d != m)
                high[nhigh++] = m / d;
        }
    int n = 0;
    for (int i = 0; i < nhigh; i++)
        div[n++] = high[i];
    for (int i = nlow - 1; i >= 0; i--)
        div[n++] = low[i];
    struct dims_search s = {.k = k, .ndiv = n, .div = div, .cur = cur, .best = out,
                            .best_spread = -1};
    search(&s, 0, m, 0);
    free(div);
    free(cur);
    return 0;
}

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char fn[] = "MPI_Dims_create";
    if (nnodes <= 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_DIMS, "%s: nnodes %d is not positive", fn, nnodes);
    if (ndims < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_DIMS, "%s: ndims %d is negative", fn, ndims);
    if (ndims > 0 && !dims)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: dims is NULL", fn);
    long fixed = 1;
    int free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return faro_err(MPI_COMM_NULL, MPI_ERR_DIMS,
                            "%s: dims[%d] = %d is negative (0: to be chosen, >0: fixed)", fn, i,
                            dims[i]);
        if (dims[i] == 0)
            free_dims++;
        else if ((fixed *= dims[i]) > nnodes)
            fixed = (long)nnodes + 1;
    }
    if (nnodes % fixed)
        return faro_err(MPI_COMM_NULL, MPI_ERR_DIMS,
                        "%s: the fixed entries of dims multiply to %ld, which does not divide "
                        "nnodes %d", fn, fixed, nnodes);
    long m = nnodes / fixed;
    if (free_dims == 0) {
        if (m != 1)
            return faro_err(MPI_COMM_NULL, MPI_ERR_DIMS,
                            "%s: every entry of dims is fixed and they multiply to %ld, not "
                            "nnodes %d", fn, fixed, nnodes);
        return MPI_SUCCESS;
    }
    int *best = malloc((size_t)free_dims * sizeof(int));
    if (!best || balanced(m, free_dims, best)) {
        free(best);
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = best[j++];
    free(best);
    return MPI_SUCCESS;
}
