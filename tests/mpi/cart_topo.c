/*
 * cart_topo: Cartesian topologies. MPI_Dims_create against a table (the
 * standard's examples and more); MPI_Cart_create on grids from Dims_create
 * and on a grid smaller than the job (the rest get MPI_COMM_NULL);
 * coords/rank round trips, periodic wrap, shifts (MPI_PROC_NULL off
 * non-periodic edges) checked by real neighbour traffic; MPI_Cart_sub; the
 * topology surviving MPI_Comm_dup; MPI_Topo_test; error classes.
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

static void dims_case(int nnodes, int ndims, const int *in, const int *want)
{
    int d[8];
    memcpy(d, in, (size_t)ndims * sizeof(int));
    TU_CHECK(MPI_Dims_create(nnodes, ndims, d));
    for (int i = 0; i < ndims; i++)
        if (d[i] != want[i]) {
            char got[128] = "", exp[128] = "";
            for (int j = 0; j < ndims; j++) {
                snprintf(got + strlen(got), sizeof got - strlen(got), " %d", d[j]);
                snprintf(exp + strlen(exp), sizeof exp - strlen(exp), " %d", want[j]);
            }
            tu_fail("MPI_Dims_create(%d, %d): got%s, expected%s", nnodes, ndims, got, exp);
        }
}

static void check_dims_table(void)
{
    /* the standard's examples */
    dims_case(6, 2, (int[]){0, 0}, (int[]){3, 2});
    dims_case(7, 2, (int[]){0, 0}, (int[]){7, 1});
    dims_case(6, 3, (int[]){0, 3, 0}, (int[]){2, 3, 1});
    expect_class(MPI_Dims_create(7, 3, (int[]){0, 3, 0}), MPI_ERR_DIMS, "Dims_create(7, {0,3,0})");
    /* balanced factorisations */
    dims_case(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
    dims_case(12, 2, (int[]){0, 0}, (int[]){4, 3});
    dims_case(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
    dims_case(24, 3, (int[]){0, 0, 0}, (int[]){4, 3, 2});
    dims_case(36, 3, (int[]){0, 0, 0}, (int[]){4, 3, 3});
    dims_case(64, 3, (int[]){0, 0, 0}, (int[]){4, 4, 4});
    dims_case(100, 2, (int[]){0, 0}, (int[]){10, 10});
    dims_case(1024, 4, (int[]){0, 0, 0, 0}, (int[]){8, 8, 4, 4});
    dims_case(30, 4, (int[]){0, 0, 0, 0}, (int[]){5, 3, 2, 1});
    dims_case(2147483647, 2, (int[]){0, 0}, (int[]){2147483647, 1});
    dims_case(1 << 30, 2, (int[]){0, 0}, (int[]){32768, 32768});
    dims_case(720720, 6, (int[]){0, 0, 0, 0, 0, 0}, (int[]){13, 11, 10, 9, 8, 7});
    dims_case(12, 3, (int[]){0, 2, 0}, (int[]){3, 2, 2});
    dims_case(8, 2, (int[]){2, 4}, (int[]){2, 4});
    dims_case(1, 0, (int[]){0}, (int[]){0});
    expect_class(MPI_Dims_create(8, 2, (int[]){3, 0}), MPI_ERR_DIMS, "Dims_create(8, {3,0})");
    expect_class(MPI_Dims_create(8, 2, (int[]){2, 2}), MPI_ERR_DIMS, "Dims_create(8, {2,2})");
    expect_class(MPI_Dims_create(8, 2, (int[]){-1, 0}), MPI_ERR_DIMS, "Dims_create(8, {-1,0})");
    expect_class(MPI_Dims_create(0, 2, (int[]){0, 0}), MPI_ERR_DIMS, "Dims_create(0, ...)");
    expect_class(MPI_Dims_create(8, -1, (int[]){0}), MPI_ERR_DIMS, "Dims_create(ndims -1)");
}

/* Neighbour traffic along every dimension: send my rank both ways, compare
 * with what MPI_Cart_shift says and with coordinates computed by hand. */
static void check_grid(MPI_Comm cart, int ndims, const int *dims, const int *periods)
{
    int rank, size, coords[8], c2[8];
    TU_CHECK(MPI_Comm_rank(cart, &rank));
    TU_CHECK(MPI_Comm_size(cart, &size));
    int cells = 1;
    for (int i = 0; i < ndims; i++)
        cells *= dims[i];
    if (size != cells)
        tu_fail("grid of %d cells has size %d", cells, size);
    int nd, gd[8], gp[8], gc[8], status;
    TU_CHECK(MPI_Topo_test(cart, &status));
    TU_CHECK(MPI_Cartdim_get(cart, &nd));
    TU_CHECK(MPI_Cart_get(cart, 8, gd, gp, gc));
    if (status != MPI_CART || nd != ndims)
        tu_fail("Topo_test %d, Cartdim_get %d (ndims %d)", status, nd, ndims);
    /* every rank: coords row-major, and back */
    for (int r = 0; r < size; r++) {
        TU_CHECK(MPI_Cart_coords(cart, r, 8, coords));
        int x = r;
        for (int i = ndims - 1; i >= 0; i--) {
            if (coords[i] != x % dims[i])
                tu_fail("Cart_coords(%d)[%d] = %d, expected %d", r, i, coords[i], x % dims[i]);
            x /= dims[i];
        }
        int back;
        TU_CHECK(MPI_Cart_rank(cart, coords, &back));
        if (back != r)
            tu_fail("Cart_rank(Cart_coords(%d)) = %d", r, back);
        if (r == rank)
            for (int i = 0; i < ndims; i++)
                if (gc[i] != coords[i] || gd[i] != dims[i] || gp[i] != (periods[i] != 0))
                    tu_fail("Cart_get dimension %d: dims %d periods %d coords %d", i, gd[i],
                            gp[i], gc[i]);
    }
    TU_CHECK(MPI_Cart_coords(cart, rank, 8, coords));
    for (int dir = 0; dir < ndims; dir++)
        for (int disp = -dims[dir] - 1; disp <= dims[dir] + 1; disp++) {
            int src, dst;
            TU_CHECK(MPI_Cart_shift(cart, dir, disp, &src, &dst));
            int want[2];
            for (int k = 0; k < 2; k++) {
                memcpy(c2, coords, sizeof c2);
                c2[dir] += k ? disp : -disp;
                if (!periods[dir] && (c2[dir] < 0 || c2[dir] >= dims[dir])) {
                    want[k] = MPI_PROC_NULL;
                    continue;
                }
                if (periods[dir]) { /* Cart_rank wraps; check it against the modulus */
                    int w;
                    TU_CHECK(MPI_Cart_rank(cart, c2, &w));
                    c2[dir] = ((c2[dir] % dims[dir]) + dims[dir]) % dims[dir];
                    TU_CHECK(MPI_Cart_rank(cart, c2, &want[k]));
                    if (w != want[k])
                        tu_fail("Cart_rank does not wrap a periodic coordinate");
                } else {
                    TU_CHECK(MPI_Cart_rank(cart, c2, &want[k]));
                }
            }
            if (src != want[0] || dst != want[1])
                tu_fail("Cart_shift(dir %d, disp %d): %d, %d expected %d, %d", dir, disp, src,
                        dst, want[0], want[1]);
            /* the shift's pair exchanges: dst gets my rank, src sends its */
            int in = -7;
            TU_CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, dst, dir, &in, 1, MPI_INT, src, dir, cart,
                                  MPI_STATUS_IGNORE));
            if (in != (src == MPI_PROC_NULL ? -7 : src))
                tu_fail("shift traffic: got %d from %d", in, src);
        }
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "cart_topo");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    check_dims_table();
    int n = tu_size, status;
    TU_CHECK(MPI_Topo_test(MPI_COMM_WORLD, &status));
    if (status != MPI_UNDEFINED)
        tu_fail("MPI_COMM_WORLD has topology %d", status);

    /* 2-D and 3-D grids of everyone, periodic in some dimensions */
    for (int nd = 1; nd <= 3; nd++) {
        int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
        TU_CHECK(MPI_Dims_create(n, nd, dims));
        MPI_Comm cart, dup;
        TU_CHECK(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 1, &cart));
        check_grid(cart, nd, dims, periods);
        TU_CHECK(MPI_Comm_dup(cart, &dup));
        check_grid(dup, nd, dims, periods);
        TU_CHECK(MPI_Comm_free(&cart));
        check_grid(dup, nd, dims, periods);

        /* Cart_sub keeping each single dimension, and all but the first */
        for (int keep = 0; keep <= nd; keep++) {
            int remain[3], sd[3], sp[3], k = 0;
            for (int i = 0; i < nd; i++) {
                remain[i] = keep == nd ? i > 0 : i == keep;
                if (remain[i]) {
                    sd[k] = dims[i];
                    sp[k++] = periods[i];
                }
            }
            MPI_Comm sub;
            TU_CHECK(MPI_Cart_sub(dup, remain, &sub));
            check_grid(sub, k, sd, sp);
            /* the members are the ranks that share my dropped coordinates */
            int mine[3], sub_rank, sub_coords[3], j = 0;
            TU_CHECK(MPI_Cart_coords(dup, tu_rank, 3, mine));
            TU_CHECK(MPI_Comm_rank(sub, &sub_rank));
            TU_CHECK(MPI_Cart_coords(sub, sub_rank, 3, sub_coords));
            for (int i = 0; i < nd; i++)
                if (remain[i] && sub_coords[j++] != mine[i])
                    tu_fail("Cart_sub: my coordinate %d is %d in the subgrid, %d in the grid",
                            i, sub_coords[j - 1], mine[i]);
            TU_CHECK(MPI_Comm_free(&sub));
        }
        TU_CHECK(MPI_Comm_free(&dup));
    }

    /* a grid smaller than the job, non-periodic */
    if (n >= 2) {
        int dims[2];
        dims[0] = n - 1 >= 2 ? 2 : 1;
        dims[1] = (n - 1) / dims[0];
        int periods[2] = {0, 0}, cells = dims[0] * dims[1];
        MPI_Comm cart;
        TU_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
        if ((cart == MPI_COMM_NULL) != (tu_rank >= cells))
            tu_fail("grid of %d cells: rank %d got %s", cells, tu_rank,
                    cart == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
        if (cart != MPI_COMM_NULL) {
            check_grid(cart, 2, dims, periods);
            TU_CHECK(MPI_Comm_free(&cart));
        }
        int newrank;
        TU_CHECK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank));
        if (newrank != (tu_rank < cells ? tu_rank : MPI_UNDEFINED))
            tu_fail("Cart_map: %d", newrank);
    }

    /* zero dimensions: rank 0 gets a one-process communicator */
    MPI_Comm zero;
    TU_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &zero));
    if ((zero != MPI_COMM_NULL) != (tu_rank == 0))
        tu_fail("0-d grid: wrong ranks got it");
    if (zero != MPI_COMM_NULL) {
        int nd, r;
        TU_CHECK(MPI_Cartdim_get(zero, &nd));
        TU_CHECK(MPI_Cart_rank(zero, NULL, &r));
        if (nd != 0 || r != 0)
            tu_fail("0-d grid: ndims %d rank %d", nd, r);
        TU_CHECK(MPI_Comm_free(&zero));
    }

    /* errors */
    int dims[2] = {n, 1}, periods[2] = {0, 0}, coords[2], a, b;
    expect_class(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, coords), MPI_ERR_TOPOLOGY,
                 "Cart_coords(no topology)");
    expect_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &a, &b), MPI_ERR_TOPOLOGY,
                 "Cart_shift(no topology)");
    expect_class(MPI_Cartdim_get(MPI_COMM_WORLD, &a), MPI_ERR_TOPOLOGY, "Cartdim_get(no topology)");
    expect_class(MPI_Cart_create(MPI_COMM_NULL, 2, dims, periods, 0, &zero), MPI_ERR_COMM,
                 "Cart_create(MPI_COMM_NULL)");
    dims[1] = 2;
    expect_class(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &zero), MPI_ERR_ARG,
                 "Cart_create(grid larger than the job)");
    dims[1] = 0;
    expect_class(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &zero), MPI_ERR_DIMS,
                 "Cart_create(dims 0)");
    expect_class(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &zero), MPI_ERR_DIMS,
                 "Cart_create(ndims -1)");
    MPI_Comm cart;
    dims[1] = 1;
    TU_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    TU_CHECK(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
    expect_class(MPI_Cart_shift(cart, 2, 1, &a, &b), MPI_ERR_ARG, "Cart_shift(direction 2)");
    expect_class(MPI_Cart_coords(cart, n, 2, coords), MPI_ERR_RANK, "Cart_coords(rank n)");
    expect_class(MPI_Cart_coords(cart, 0, 1, coords), MPI_ERR_ARG, "Cart_coords(maxdims 1)");
    coords[0] = n;
    coords[1] = 0;
    expect_class(MPI_Cart_rank(cart, coords, &a), MPI_ERR_ARG,
                 "Cart_rank(outside a non-periodic dimension)");
    TU_CHECK(MPI_Comm_free(&cart));
    tu_finish();
    return 0;
}
