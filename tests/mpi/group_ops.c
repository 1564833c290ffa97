/*
 * group_ops: every group function against a reference computed on plain
 * arrays of world ranks (incl, excl, range forms, union, intersection,
 * difference, translate_ranks, compare, rank, size, MPI_GROUP_EMPTY), and
 * their error classes under MPI_ERRORS_RETURN.
 */
#include "util.h"

static MPI_Group world_group;

/* The world ranks of g, checked against expect[0..n). */
static void expect_group(MPI_Group g, const int *expect, int n, const char *what)
{
    int size, rank;
    TU_CHECK(MPI_Group_size(g, &size));
    if (size != n)
        tu_fail("%s: size %d, expected %d", what, size, n);
    int *idx = tu_malloc((size_t)n * sizeof(int) + 1), *w = tu_malloc((size_t)n * sizeof(int) + 1);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    TU_CHECK(MPI_Group_translate_ranks(g, n, idx, world_group, w));
    int me = MPI_UNDEFINED;
    for (int i = 0; i < n; i++) {
        if (w[i] != expect[i])
            tu_fail("%s: rank %d is world rank %d, expected %d", what, i, w[i], expect[i]);
        if (expect[i] == tu_rank)
            me = i;
    }
    TU_CHECK(MPI_Group_rank(g, &rank));
    if (rank != me)
        tu_fail("%s: MPI_Group_rank says %d, expected %d", what, rank, me);
    free(idx);
    free(w);
}

static void expect_class(int rc, int cls, const char *what)
{
    int c = -1;
    if (rc == MPI_SUCCESS)
        tu_fail("%s: succeeded, expected error class %d", what, cls);
    TU_CHECK(MPI_Error_class(rc, &c));
    if (c != cls)
        tu_fail("%s: error class %d, expected %d (%s)", what, c, cls, tu_errstr(rc));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "group_ops");
    int n = tu_size;
    if (n > 64)
        tu_fail("at most 64 ranks");
    TU_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    int all[64], list[64], expect[64];
    for (int i = 0; i < n; i++)
        all[i] = i;
    expect_group(world_group, all, n, "world group");

    /* empty */
    int size = -1, rank = -1;
    TU_CHECK(MPI_Group_size(MPI_GROUP_EMPTY, &size));
    TU_CHECK(MPI_Group_rank(MPI_GROUP_EMPTY, &rank));
    if (size != 0 || rank != MPI_UNDEFINED)
        tu_fail("MPI_GROUP_EMPTY: size %d rank %d", size, rank);

    /* incl: reversed */
    for (int i = 0; i < n; i++)
        list[i] = n - 1 - i;
    MPI_Group rev, g, h;
    TU_CHECK(MPI_Group_incl(world_group, n, list, &rev));
    expect_group(rev, list, n, "incl reversed");
    int cmp;
    TU_CHECK(MPI_Group_compare(rev, world_group, &cmp));
    if (cmp != (n == 1 ? MPI_IDENT : MPI_SIMILAR))
        tu_fail("reversed vs world compares %d", cmp);
    TU_CHECK(MPI_Group_compare(world_group, world_group, &cmp));
    if (cmp != MPI_IDENT)
        tu_fail("world vs world compares %d", cmp);

    /* incl of 0 ranks: empty */
    TU_CHECK(MPI_Group_incl(world_group, 0, list, &g));
    TU_CHECK(MPI_Group_size(g, &size));
    TU_CHECK(MPI_Group_compare(g, MPI_GROUP_EMPTY, &cmp));
    if (size != 0 || cmp != MPI_IDENT)
        tu_fail("incl of nothing: size %d, compares %d with MPI_GROUP_EMPTY", size, cmp);
    TU_CHECK(MPI_Group_free(&g));
    if (g != MPI_GROUP_NULL)
        tu_fail("MPI_Group_free left the handle non-null");

    /* excl of the even ranks: the odd ones in order */
    int k = 0, m = 0;
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0)
            list[k++] = i;
        else
            expect[m++] = i;
    }
    TU_CHECK(MPI_Group_excl(world_group, k, list, &g));
    expect_group(g, expect, m, "excl evens");
    MPI_Group odds = g;

    /* range_incl: (n-1 .. 0 step -2) and (0, 0, 1) when n-1 is odd */
    int ranges[2][3] = {{n - 1, 0, -2}, {0, 0, 1}};
    k = 0;
    for (int r = n - 1; r >= 0; r -= 2)
        expect[k++] = r;
    int nr = (n - 1) % 2 ? 2 : 1;
    if (nr == 2)
        expect[k++] = 0;
    TU_CHECK(MPI_Group_range_incl(world_group, nr, ranges, &g));
    expect_group(g, expect, k, "range_incl");
    TU_CHECK(MPI_Group_free(&g));

    /* range_excl: drop (1 .. n-1 step 3) */
    int r1[1][3] = {{n > 1 ? 1 : 0, n - 1, 3}};
    k = 0;
    for (int r = 0; r < n; r++)
        if (n == 1 ? 0 : !(r >= 1 && (r - 1) % 3 == 0))
            expect[k++] = r;
    TU_CHECK(MPI_Group_range_excl(world_group, 1, r1, &g));
    expect_group(g, expect, k, "range_excl");
    TU_CHECK(MPI_Group_free(&g));

    /* set operations: reversed world vs odds */
    TU_CHECK(MPI_Group_union(odds, rev, &g));
    k = 0;
    for (int r = 1; r < n; r += 2)
        expect[k++] = r;
    for (int r = n - 1; r >= 0; r--)
        if (r % 2 == 0)
            expect[k++] = r;
    expect_group(g, expect, k, "union(odds, reversed)");
    TU_CHECK(MPI_Group_free(&g));
    TU_CHECK(MPI_Group_intersection(rev, odds, &g));
    k = 0;
    for (int r = n - 1; r >= 0; r--)
        if (r % 2)
            expect[k++] = r;
    expect_group(g, expect, k, "intersection(reversed, odds)");
    TU_CHECK(MPI_Group_free(&g));
    TU_CHECK(MPI_Group_difference(rev, odds, &g));
    k = 0;
    for (int r = n - 1; r >= 0; r--)
        if (r % 2 == 0)
            expect[k++] = r;
    expect_group(g, expect, k, "difference(reversed, odds)");
    TU_CHECK(MPI_Group_difference(odds, rev, &h));
    TU_CHECK(MPI_Group_size(h, &size));
    if (size != 0)
        tu_fail("difference(odds, reversed) has %d members", size);
    TU_CHECK(MPI_Group_free(&h));
    TU_CHECK(MPI_Group_free(&g));
    TU_CHECK(MPI_Group_union(MPI_GROUP_EMPTY, rev, &g));
    for (int i = 0; i < n; i++)
        expect[i] = n - 1 - i;
    expect_group(g, expect, n, "union(empty, reversed)");
    TU_CHECK(MPI_Group_free(&g));

    /* translate_ranks: PROC_NULL stays, absent ranks are MPI_UNDEFINED */
    int in[3] = {MPI_PROC_NULL, 0, n - 1}, out[3];
    TU_CHECK(MPI_Group_translate_ranks(world_group, 3, in, odds, out));
    if (out[0] != MPI_PROC_NULL || out[1] != MPI_UNDEFINED ||
        out[2] != ((n - 1) % 2 ? (n - 1) / 2 : MPI_UNDEFINED))
        tu_fail("translate_ranks to odds: %d %d %d", out[0], out[1], out[2]);
    TU_CHECK(MPI_Group_translate_ranks(world_group, 3, in, rev, out));
    if (out[0] != MPI_PROC_NULL || out[1] != n - 1 || out[2] != 0)
        tu_fail("translate_ranks to reversed: %d %d %d", out[0], out[1], out[2]);

    /* errors, returned */
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Group bad = MPI_GROUP_NULL;
    expect_class(MPI_Group_size(MPI_GROUP_NULL, &size), MPI_ERR_GROUP, "size(NULL)");
    expect_class(MPI_Group_rank(MPI_GROUP_NULL, &rank), MPI_ERR_GROUP, "rank(NULL)");
    expect_class(MPI_Group_free(&bad), MPI_ERR_GROUP, "free(NULL)");
    expect_class(MPI_Group_union(MPI_GROUP_NULL, rev, &g), MPI_ERR_GROUP, "union(NULL)");
    expect_class(MPI_Group_compare(rev, MPI_GROUP_NULL, &cmp), MPI_ERR_GROUP, "compare(NULL)");
    list[0] = n;
    expect_class(MPI_Group_incl(world_group, 1, list, &g), MPI_ERR_RANK, "incl(rank n)");
    list[0] = -1;
    expect_class(MPI_Group_excl(world_group, 1, list, &g), MPI_ERR_RANK, "excl(rank -1)");
    if (n >= 2) {
        list[0] = list[1] = 0;
        expect_class(MPI_Group_incl(world_group, 2, list, &g), MPI_ERR_RANK, "incl(0, 0)");
    }
    expect_class(MPI_Group_incl(world_group, -1, list, &g), MPI_ERR_ARG, "incl(n -1)");
    expect_class(MPI_Group_incl(world_group, n + 1, all, &g), MPI_ERR_ARG, "incl(n size+1)");
    int zero_stride[1][3] = {{0, 0, 0}};
    expect_class(MPI_Group_range_incl(world_group, 1, zero_stride, &g), MPI_ERR_ARG,
                 "range_incl(stride 0)");
    int outside[1][3] = {{0, n, 1}};
    expect_class(MPI_Group_range_excl(world_group, 1, outside, &g), MPI_ERR_RANK,
                 "range_excl(last = size)");
    int twice[2][3] = {{0, 0, 1}, {0, 0, 1}};
    expect_class(MPI_Group_range_incl(world_group, 2, twice, &g), MPI_ERR_RANK,
                 "range_incl(rank twice)");
    in[0] = n;
    expect_class(MPI_Group_translate_ranks(world_group, 1, in, rev, out), MPI_ERR_RANK,
                 "translate_ranks(rank n)");
    expect_class(MPI_Group_translate_ranks(world_group, -1, in, rev, out), MPI_ERR_ARG,
                 "translate_ranks(n -1)");
    expect_class(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM, "Comm_group(NULL)");
    /* a freed group is no group */
    TU_CHECK(MPI_Group_incl(world_group, 1, all, &g));
    MPI_Group copy = g;
    TU_CHECK(MPI_Group_free(&g));
    (void)copy; /* its memory is gone: only the null handle is testable */
    /* the library stays usable */
    TU_CHECK(MPI_Group_size(rev, &size));

    TU_CHECK(MPI_Group_free(&rev));
    TU_CHECK(MPI_Group_free(&odds));
    TU_CHECK(MPI_Group_free(&world_group));
    tu_finish();
    return 0;
}
