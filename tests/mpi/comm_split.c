/*
 * comm_split: MPI_Comm_split by colour and key, MPI_UNDEFINED, splits of
 * splits, MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) (the ranks with this rank's
 * processor name: the job may span hosts), and MPI_Comm_compare of
 * the results. Membership and order are checked against a reference computed
 * from the colours and keys, through MPI_Group_translate_ranks; traffic with
 * equal tags on the parent and the children must not cross.
 */
#include "util.h"

/* The world ranks of colour `color` ordered by (key, world rank). */
static int reference(int color, const int *colors, const int *keys, int *out)
{
    int n = 0;
    for (int r = 0; r < tu_size; r++)
        if (colors[r] == color)
            out[n++] = r;
    for (int i = 1; i < n; i++) /* insertion sort: stable */
        for (int j = i; j > 0 && keys[out[j - 1]] > keys[out[j]]; j--) {
            int t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* Each rank's node, as the lowest world rank with the same processor name. */
static int *node_of_ranks(void)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len;
    TU_CHECK(MPI_Get_processor_name(name, &len));
    char *all = tu_malloc((size_t)tu_size * MPI_MAX_PROCESSOR_NAME);
    int *node = tu_malloc((size_t)tu_size * sizeof(int));
    TU_CHECK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME,
                           MPI_CHAR, MPI_COMM_WORLD));
    for (int r = 0; r < tu_size; r++) {
        node[r] = r;
        for (int q = 0; q < r && node[r] == r; q++)
            if (!strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME,
                        all + (size_t)r * MPI_MAX_PROCESSOR_NAME))
                node[r] = q;
    }
    free(all);
    return node;
}

static void check_members(MPI_Comm c, const int *expect, int n, const char *what)
{
    int size, rank;
    TU_CHECK(MPI_Comm_size(c, &size));
    TU_CHECK(MPI_Comm_rank(c, &rank));
    if (size != n)
        tu_fail("%s: size %d, expected %d", what, size, n);
    MPI_Group g, wg;
    TU_CHECK(MPI_Comm_group(c, &g));
    TU_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int *ranks = tu_malloc((size_t)n * sizeof(int)), *world = tu_malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    TU_CHECK(MPI_Group_translate_ranks(g, n, ranks, wg, world));
    for (int i = 0; i < n; i++)
        if (world[i] != expect[i])
            tu_fail("%s: rank %d is world rank %d, expected %d", what, i, world[i], expect[i]);
    if (expect[rank] != tu_rank)
        tu_fail("%s: my rank %d is world rank %d, expected me (%d)", what, rank, expect[rank],
                tu_rank);
    free(ranks);
    free(world);
    TU_CHECK(MPI_Group_free(&g));
    TU_CHECK(MPI_Group_free(&wg));
}

/* Everyone sends its world rank to its right neighbour in c with tag 0 while
 * a message with the same tag waits on the world. */
static void ring(MPI_Comm c, const int *members, int n)
{
    int rank;
    TU_CHECK(MPI_Comm_rank(c, &rank));
    int right = (rank + 1) % n, left = (rank + n - 1) % n, in = -1;
    TU_CHECK(MPI_Sendrecv(&tu_rank, 1, MPI_INT, right, 0, &in, 1, MPI_INT, MPI_ANY_SOURCE, 0, c,
                          MPI_STATUS_IGNORE));
    if (in != members[left])
        tu_fail("ring in a split: got %d, expected world rank %d", in, members[left]);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "comm_split");
    int n = tu_size;
    int *colors = tu_malloc((size_t)n * sizeof(int)), *keys = tu_malloc((size_t)n * sizeof(int));
    int *expect = tu_malloc((size_t)n * sizeof(int));

    /* park a tag-0 message on the world from every rank to its right */
    int parked = -5;
    MPI_Request pr;
    TU_CHECK(MPI_Isend(&parked, 1, MPI_INT, (tu_rank + 1) % n, 0, MPI_COMM_WORLD, &pr));

    /* colour rank % 3 (rank 4 undefined), key descending with ties on rank 1, 2 */
    for (int r = 0; r < n; r++) {
        colors[r] = r == 4 ? MPI_UNDEFINED : r % 3;
        keys[r] = (r == 1 || r == 2) ? 0 : -r;
    }
    MPI_Comm c;
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, colors[tu_rank], keys[tu_rank], &c));
    if (colors[tu_rank] == MPI_UNDEFINED) {
        if (c != MPI_COMM_NULL)
            tu_fail("MPI_UNDEFINED colour gave a communicator");
    } else {
        int m = reference(colors[tu_rank], colors, keys, expect);
        check_members(c, expect, m, "split by rank % 3");
        ring(c, expect, m);
        int cmp;
        TU_CHECK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
        if (cmp != (m == n ? (n == 1 ? MPI_CONGRUENT : MPI_SIMILAR) : MPI_UNEQUAL))
            tu_fail("split vs world compares %d", cmp);

        /* split the split in halves by rank, key 0 (keeps parent order) */
        int crank, csize;
        TU_CHECK(MPI_Comm_rank(c, &crank));
        TU_CHECK(MPI_Comm_size(c, &csize));
        MPI_Comm cc;
        TU_CHECK(MPI_Comm_split(c, crank < csize / 2, 0, &cc));
        int k = 0, *sub = tu_malloc((size_t)n * sizeof(int));
        for (int i = 0; i < csize; i++)
            if ((i < csize / 2) == (crank < csize / 2))
                sub[k++] = expect[i];
        check_members(cc, sub, k, "split of a split");
        ring(cc, sub, k);
        free(sub);
        TU_CHECK(MPI_Comm_free(&cc));
        TU_CHECK(MPI_Comm_free(&c));
    }

    /* one colour, reversed keys: similar to the world, not congruent */
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 3, n - tu_rank, &c));
    for (int r = 0; r < n; r++)
        expect[r] = n - 1 - r;
    check_members(c, expect, n, "reversed");
    ring(c, expect, n);
    int cmp;
    TU_CHECK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    if (cmp != (n == 1 ? MPI_CONGRUENT : MPI_SIMILAR))
        tu_fail("reversed split vs world compares %d", cmp);
    TU_CHECK(MPI_Comm_free(&c));

    /* same colour and key everywhere: congruent (ties go by parent rank) */
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &c));
    TU_CHECK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    if (cmp != MPI_CONGRUENT)
        tu_fail("split(0, 0) vs world compares %d, expected MPI_CONGRUENT", cmp);
    TU_CHECK(MPI_Comm_free(&c));

    /* everyone undefined */
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &c));
    if (c != MPI_COMM_NULL)
        tu_fail("all-undefined split gave a communicator");

    /* shared memory: the ranks of this rank's node, which is its processor
     * (the job may span hosts) */
    int *node = node_of_ranks(), m = 0;
    TU_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    for (int r = 0; r < n; r++)
        if (node[r] == node[tu_rank])
            expect[m++] = r;
    check_members(c, expect, m, "split_type shared");
    ring(c, expect, m);
    TU_CHECK(MPI_Comm_free(&c));
    TU_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, tu_rank == 0 ? MPI_UNDEFINED
                                                              : MPI_COMM_TYPE_SHARED,
                                 -tu_rank, MPI_INFO_NULL, &c));
    if (tu_rank == 0) {
        if (c != MPI_COMM_NULL)
            tu_fail("split_type MPI_UNDEFINED gave a communicator");
    } else {
        m = 0;
        for (int r = n - 1; r >= 1; r--)
            if (node[r] == node[tu_rank])
                expect[m++] = r;
        check_members(c, expect, m, "split_type shared, rank 0 undefined, reversed");
        TU_CHECK(MPI_Comm_free(&c));
    }

    int in = 0;
    TU_CHECK(MPI_Recv(&in, 1, MPI_INT, (tu_rank + n - 1) % n, 0, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
    if (in != -5)
        tu_fail("parked world message: got %d", in);
    free(colors);
    free(keys);
    free(expect);
    free(node);
    tu_finish();
    return 0;
}
