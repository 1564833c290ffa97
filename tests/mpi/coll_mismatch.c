/*
 * coll_mismatch: collectives whose ranks disagree, one disagreement per
 * TEST_CASE. Run under FARO_COLL_CHECK=1 each must end the job with a
 * message naming the collective, the ranks and what differs (testlist-
 * collcheck, collcheck.sh checks the words). Without the check they hang or
 * give wrong results silently, as in other MPIs; a rank that gets through
 * prints what it got and the job exits 0, so the test list sees the miss.
 *
 * TEST_CASE=match runs calls that DO match although their arguments differ
 * (4 x MPI_INT against contiguous(4, MPI_INT) and a vector with holes,
 * MPI_2INT against 2 x MPI_INT, MPI_BYTE against typed data, in place): it
 * must pass under the check.
 */
#include "util.h"

static int is(const char *c, const char *name)
{
    return strcmp(c, name) == 0;
}

/* Calls that match in signature though not in datatype. */
static void matching_calls(void)
{
    int a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[64];
    MPI_Datatype four, holey;
    TU_CHECK(MPI_Type_contiguous(4, MPI_INT, &four));
    TU_CHECK(MPI_Type_commit(&four));
    TU_CHECK(MPI_Type_vector(4, 1, 2, MPI_INT, &holey));
    TU_CHECK(MPI_Type_commit(&holey));
    int r = tu_rank % 3;
    /* 4 ints three ways */
    TU_CHECK(MPI_Bcast(a, r == 0 ? 4 : 1, r == 0 ? MPI_INT : r == 1 ? four : holey, 0,
                       MPI_COMM_WORLD));
    /* pairs are their two basic types */
    TU_CHECK(MPI_Bcast(a, tu_rank % 2 ? 2 : 1, tu_rank % 2 ? MPI_INT : MPI_2INT, 0,
                       MPI_COMM_WORLD));
    /* bytes against ints */
    TU_CHECK(MPI_Gather(a, tu_rank == 0 ? 2 : 8, tu_rank == 0 ? MPI_INT : MPI_BYTE, b, 2,
                        MPI_INT, 0, MPI_COMM_WORLD));
    /* in place at the root of a gatherv, zero counts included */
    int *counts = malloc(tu_size * sizeof *counts), *displs = malloc(tu_size * sizeof *displs);
    for (int i = 0; i < tu_size; i++) {
        counts[i] = i % 2;
        displs[i] = 2 * i;
    }
    TU_CHECK(MPI_Gatherv(tu_rank == 0 ? MPI_IN_PLACE : a, tu_rank % 2, MPI_INT, b, counts,
                         displs, MPI_INT, 0, MPI_COMM_WORLD));
    TU_CHECK(MPI_Allgatherv(a, tu_rank % 2, MPI_INT, b, counts, displs, MPI_INT,
                            MPI_COMM_WORLD));
    MPI_Request req;
    TU_CHECK(MPI_Iallgatherv(a, tu_rank % 2, MPI_INT, b, counts, displs, MPI_INT,
                             MPI_COMM_WORLD, &req));
    TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    /* persistent: 4 ints three ways, started three times */
    TU_CHECK(MPI_Bcast_init(a, r == 0 ? 4 : 1, r == 0 ? MPI_INT : r == 1 ? four : holey, 0,
                            MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (int i = 0; i < 3; i++) {
        TU_CHECK(MPI_Start(&req));
        TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    TU_CHECK(MPI_Request_free(&req));
    free(counts);
    free(displs);
    TU_CHECK(MPI_Type_free(&four));
    TU_CHECK(MPI_Type_free(&holey));
}

/* The lower half of the job and the upper half, joined by an
 * intercommunicator; *low says which half this rank is in, *hr its rank
 * there. */
static MPI_Comm halves(int *low, int *hr)
{
    MPI_Comm half, inter;
    *low = tu_rank < tu_size / 2;
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, *low, tu_rank, &half));
    TU_CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, *low ? tu_size / 2 : 0, 7, &inter));
    TU_CHECK(MPI_Comm_rank(half, hr));
    return inter;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_mismatch");
    const char *c = getenv("TEST_CASE");
    if (!c)
        tu_fail("set TEST_CASE");
    if (tu_size < 2)
        tu_fail("needs 2 ranks or more");
    int me = tu_rank, last = tu_size - 1;
    int a[64] = {0}, b[64 * 16] = {0};
    int *counts = calloc(tu_size, sizeof *counts), *displs = calloc(tu_size, sizeof *displs);
    int *rcounts = calloc(tu_size, sizeof *rcounts), *rdispls = calloc(tu_size, sizeof *rdispls);
    for (int i = 0; i < tu_size; i++) {
        counts[i] = rcounts[i] = 4;
        displs[i] = rdispls[i] = 8 * i; /* room for the larger blocks below */
    }
    MPI_Request req;

    if (is(c, "match")) {
        matching_calls();
        free(counts);
        free(displs);
        free(rcounts);
        free(rdispls);
        tu_finish();
        return 0;
    } else if (is(c, "bcast_root")) { /* the last rank names another root */
        TU_CHECK(MPI_Bcast(a, 4, MPI_INT, me == last ? 1 : 0, MPI_COMM_WORLD));
    } else if (is(c, "allreduce_op")) {
        TU_CHECK(MPI_Allreduce(a, b, 4, MPI_INT, me == 1 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD));
    } else if (is(c, "bcast_count")) { /* the others take 10 of the root's 5: no error */
        TU_CHECK(MPI_Bcast(a, me == 0 ? 5 : 10, MPI_INT, 0, MPI_COMM_WORLD));
    } else if (is(c, "reduce_type")) { /* same size, different type: wrong sums */
        TU_CHECK(MPI_Reduce(a, b, 4, me == 1 ? MPI_FLOAT : MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    } else if (is(c, "kind")) { /* rank 1 reduces while the others broadcast */
        if (me == 1)
            TU_CHECK(MPI_Reduce(a, b, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
        else
            TU_CHECK(MPI_Bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD));
    } else if (is(c, "gatherv_counts")) { /* the root expects 5 from rank 1, which sends 4 */
        counts[1] = 5;
        TU_CHECK(MPI_Gatherv(a, 4, MPI_INT, b, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    } else if (is(c, "scatterv_counts")) { /* the root sends 3 to the last rank, it takes 4 */
        counts[last] = 3;
        TU_CHECK(MPI_Scatterv(a, counts, displs, MPI_INT, b, 4, MPI_INT, 0, MPI_COMM_WORLD));
    } else if (is(c, "allgatherv_counts")) { /* rank 0 thinks rank 1 sends 6 */
        if (me == 0)
            counts[1] = 6;
        TU_CHECK(MPI_Allgatherv(a, 4, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD));
    } else if (is(c, "allgather_own")) { /* rank 1 sends 3 but takes 4 from everyone */
        TU_CHECK(MPI_Allgather(a, me == 1 ? 3 : 4, MPI_INT, b, 4, MPI_INT, MPI_COMM_WORLD));
    } else if (is(c, "alltoallv_counts")) { /* rank 1 expects 5 from rank 0, which sends 4 */
        if (me == 1)
            rcounts[0] = 5;
        TU_CHECK(MPI_Alltoallv(a, counts, displs, MPI_INT, b, rcounts, rdispls, MPI_INT,
                               MPI_COMM_WORLD));
    } else if (is(c, "reduce_scatter_counts")) { /* same total, split otherwise */
        if (me == 1) {
            counts[0] = 3;
            counts[1] = 5;
        }
        TU_CHECK(MPI_Reduce_scatter(b, a, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    } else if (is(c, "ibcast_root")) {
        TU_CHECK(MPI_Ibcast(a, 4, MPI_INT, me == last ? 1 : 0, MPI_COMM_WORLD, &req));
        TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else if (is(c, "bcast_init_root")) { /* persistent: started twice */
        TU_CHECK(MPI_Bcast_init(a, 4, MPI_INT, me == last ? 1 : 0, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &req));
        for (int i = 0; i < 2; i++) {
            TU_CHECK(MPI_Start(&req));
            TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        TU_CHECK(MPI_Request_free(&req));
    } else if (is(c, "allreduce_init_op")) {
        TU_CHECK(MPI_Allreduce_init(a, b, 4, MPI_INT, me == 1 ? MPI_MAX : MPI_SUM,
                                    MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        TU_CHECK(MPI_Start(&req));
        TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Request_free(&req));
    } else if (is(c, "gatherv_init_counts")) { /* rank 1 sends 5, root expects 4 */
        TU_CHECK(MPI_Gatherv_init(a, me == 1 ? 5 : 4, MPI_INT, b, counts, displs, MPI_INT, 0,
                                  MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        TU_CHECK(MPI_Start(&req));
        TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Request_free(&req));
    } else if (is(c, "ialltoallv_counts")) {
        if (me == 1)
            rcounts[0] = 5;
        TU_CHECK(MPI_Ialltoallv(a, counts, displs, MPI_INT, b, rcounts, rdispls, MPI_INT,
                                MPI_COMM_WORLD, &req));
        TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else if (is(c, "bcast_vs_ibcast")) { /* blocking and nonblocking do not match */
        if (me == 1) {
            TU_CHECK(MPI_Ibcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD, &req));
            TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            TU_CHECK(MPI_Bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD));
        }
    } else if (is(c, "neighbor_counts")) { /* a periodic ring; rank 1 sends 3, expected 4 */
        int dims[1] = {tu_size}, periods[1] = {1};
        MPI_Comm ring;
        TU_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
        TU_CHECK(MPI_Neighbor_allgather(a, me == 1 ? 3 : 4, MPI_INT, b, 4, MPI_INT, ring));
    } else if (is(c, "inter_bcast_root") || is(c, "inter_ibcast_root")) {
        /* the upper half names the wrong root */
        int low, hr;
        MPI_Comm inter = halves(&low, &hr);
        int root = low ? (hr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 1;
        if (is(c, "inter_bcast_root")) {
            TU_CHECK(MPI_Bcast(a, 4, MPI_INT, root, inter));
        } else {
            TU_CHECK(MPI_Ibcast(a, 4, MPI_INT, root, inter, &req));
            TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
    } else if (is(c, "inter_gather_counts") || is(c, "inter_igather_counts")) {
        /* the lower half gathers from the upper half, whose last rank sends 3 of 4 */
        int low, hr;
        MPI_Comm inter = halves(&low, &hr);
        const void *sbuf = low ? NULL : a;
        int scount = low ? 0 : me == last ? 3 : 4;
        int root = low ? (hr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        void *rbuf = low ? b : NULL;
        if (is(c, "inter_gather_counts")) {
            TU_CHECK(MPI_Gather(sbuf, scount, MPI_INT, rbuf, 4, MPI_INT, root, inter));
        } else {
            TU_CHECK(MPI_Igather(sbuf, scount, MPI_INT, rbuf, 4, MPI_INT, root, inter, &req));
            TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
    } else if (is(c, "inter_iallreduce_op")) { /* the upper half's leader uses MPI_MAX */
        int low, hr;
        MPI_Comm inter = halves(&low, &hr);
        TU_CHECK(MPI_Iallreduce(a, b, 4, MPI_INT, !low && hr == 0 ? MPI_MAX : MPI_SUM, inter,
                                &req));
        TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        tu_fail("unknown TEST_CASE %s", c);
    }
    /* Without collective checking every rank gets here (or hangs); with it,
     * ranks that did not see the mismatch may, and wait in MPI_Finalize for
     * the one that did to end the job. */
    printf("coll_mismatch: rank %d: got through the mismatched call (%s)\n", me, c);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
