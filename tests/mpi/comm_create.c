/*
 * comm_create: MPI_Comm_create (collective over the parent, one group or
 * disjoint groups per process) and MPI_Comm_create_group (collective over
 * the group only), including overlapping creations told apart by their tags
 * and a creation while other ranks are busy elsewhere. Each new communicator
 * is checked for size, rank order and traffic.
 */
#include "util.h"

static void check_comm(MPI_Comm c, const int *world, int n, const char *what)
{
    int size, rank;
    TU_CHECK(MPI_Comm_size(c, &size));
    TU_CHECK(MPI_Comm_rank(c, &rank));
    if (size != n || world[rank] != tu_rank)
        tu_fail("%s: size %d rank %d, expected size %d and my rank at world %d", what, size,
                rank, n, world[rank]);
    /* everyone sends its world rank to everyone (same tag) */
    int *in = tu_malloc((size_t)n * sizeof(int));
    MPI_Request *rq = tu_malloc(2 * (size_t)n * sizeof(MPI_Request));
    for (int r = 0; r < n; r++) {
        TU_CHECK(MPI_Irecv(&in[r], 1, MPI_INT, r, 11, c, &rq[r]));
        TU_CHECK(MPI_Isend(&tu_rank, 1, MPI_INT, r, 11, c, &rq[n + r]));
    }
    TU_CHECK(MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE));
    for (int r = 0; r < n; r++)
        if (in[r] != world[r])
            tu_fail("%s: rank %d says it is world rank %d, expected %d", what, r, in[r], world[r]);
    free(in);
    free(rq);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "comm_create");
    int n = tu_size;
    MPI_Group wg, g;
    TU_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int *list = tu_malloc((size_t)n * sizeof(int));

    /* even ranks, in reverse order */
    int k = 0;
    for (int r = (n - 1) / 2 * 2; r >= 0; r -= 2)
        list[k++] = r;
    TU_CHECK(MPI_Group_incl(wg, k, list, &g));
    MPI_Comm c;
    TU_CHECK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    if (tu_rank % 2) {
        if (c != MPI_COMM_NULL)
            tu_fail("odd rank got a communicator from Comm_create of the even ranks");
    } else {
        check_comm(c, list, k, "create(evens reversed)");
        int cmp;
        MPI_Group cg;
        TU_CHECK(MPI_Comm_group(c, &cg));
        TU_CHECK(MPI_Group_compare(cg, g, &cmp));
        if (cmp != MPI_IDENT)
            tu_fail("the group of the new communicator compares %d with its group", cmp);
        TU_CHECK(MPI_Group_free(&cg));
        /* a create over the new communicator, of its first member only */
        MPI_Group g1, sub;
        int zero = 0;
        TU_CHECK(MPI_Comm_group(c, &g1));
        TU_CHECK(MPI_Group_incl(g1, 1, &zero, &sub));
        MPI_Comm cc;
        TU_CHECK(MPI_Comm_create(c, sub, &cc));
        if ((cc != MPI_COMM_NULL) != (tu_rank == list[0]))
            tu_fail("create of one member: wrong ranks got a communicator");
        if (cc != MPI_COMM_NULL) {
            check_comm(cc, list, 1, "create(one)");
            TU_CHECK(MPI_Comm_free(&cc));
        }
        TU_CHECK(MPI_Group_free(&g1));
        TU_CHECK(MPI_Group_free(&sub));
        TU_CHECK(MPI_Comm_free(&c));
    }
    TU_CHECK(MPI_Group_free(&g));

    /* disjoint groups: lower and upper half, each passes its own */
    int half = n / 2;
    int lo = tu_rank < half;
    k = 0;
    for (int r = lo ? 0 : half; r < (lo ? half : n); r++)
        list[k++] = r;
    TU_CHECK(MPI_Group_incl(wg, k, list, &g));
    TU_CHECK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
    check_comm(c, list, k, "create(halves)");
    TU_CHECK(MPI_Comm_free(&c));
    TU_CHECK(MPI_Group_free(&g));

    /* empty group */
    TU_CHECK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    if (c != MPI_COMM_NULL)
        tu_fail("create of MPI_GROUP_EMPTY gave a communicator");

    /* create_group: only odd ranks call, the even ranks talk meanwhile */
    k = 0;
    for (int r = 1; r < n; r += 2)
        list[k++] = r;
    if (tu_rank % 2) {
        TU_CHECK(MPI_Group_incl(wg, k, list, &g));
        TU_CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &c));
        check_comm(c, list, k, "create_group(odds)");
        TU_CHECK(MPI_Comm_free(&c));
        TU_CHECK(MPI_Group_free(&g));
    } else if ((tu_rank ^ 2) < n) {
        int peer = tu_rank ^ 2, in;
        TU_CHECK(MPI_Sendrecv(&tu_rank, 1, MPI_INT, peer, 5, &in, 1, MPI_INT, peer, 5,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }

    /* overlapping create_group calls: A = ranks 0..m, B = ranks m..n-1 with
     * m = n/2; rank m is in both and does A first, then B. */
    int m = n / 2;
    if (tu_rank <= m) {
        k = 0;
        for (int r = 0; r <= m; r++)
            list[k++] = r;
        TU_CHECK(MPI_Group_incl(wg, k, list, &g));
        TU_CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 100, &c));
        check_comm(c, list, k, "create_group(A)");
        TU_CHECK(MPI_Comm_free(&c));
        TU_CHECK(MPI_Group_free(&g));
    }
    if (tu_rank >= m) {
        k = 0;
        for (int r = n - 1; r >= m; r--) /* reversed order */
            list[k++] = r;
        TU_CHECK(MPI_Group_incl(wg, k, list, &g));
        TU_CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 200, &c));
        check_comm(c, list, k, "create_group(B)");
        MPI_Comm keep = c;
        /* a create_group over the new communicator too */
        TU_CHECK(MPI_Comm_create_group(keep, g, 0, &c));
        check_comm(c, list, k, "create_group over a created comm");
        TU_CHECK(MPI_Comm_free(&c));
        TU_CHECK(MPI_Comm_free(&keep));
        TU_CHECK(MPI_Group_free(&g));
    }

    /* many create_group calls in a row over a group of everyone */
    for (int i = 0; i < 200; i++) {
        TU_CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, wg, i, &c));
        int size;
        TU_CHECK(MPI_Comm_size(c, &size));
        if (size != n)
            tu_fail("create_group of everyone: size %d", size);
        TU_CHECK(MPI_Comm_free(&c));
    }
    for (int r = 0; r < n; r++)
        list[r] = r;
    TU_CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, wg, 1, &c));
    check_comm(c, list, n, "create_group(all)");
    TU_CHECK(MPI_Comm_free(&c));

    TU_CHECK(MPI_Group_free(&wg));
    free(list);
    tu_finish();
    return 0;
}
