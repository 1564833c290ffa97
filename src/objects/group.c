/*
 * Groups: MPI_GROUP_EMPTY, the set operations (union, intersection,
 * difference), the subset constructors (incl/excl and their range forms),
 * rank translation and comparison. A group is the job rank of each member in
 * group order (group.h). Membership questions go through a scratch map from
 * job rank to group rank, so every operation is linear in the group sizes.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "objects/arena.h"

struct faro_group_predefined faro_mpi_group_empty = {.obj = {
    .magic = FARO_GROUP_MAGIC, .size = 0, .rank = MPI_UNDEFINED, .predefined = 1}};

/* Group objects come from a FIFO pool over their arena (objects/arena.h,
 * linked through world while free), so that a made-up handle is refused
 * before it is read; the member list is malloc'ed. */
static struct faro_pool group_pool = FARO_POOL_INIT("group", FARO_ARENA_SMALL, struct faro_group,
                                                    world, 64);

__attribute__((constructor)) static void group_arena_init(void)
{
    static const void *const fixed[] = {MPI_GROUP_EMPTY};
    faro_pool_start(&group_pool, fixed, 1, sizeof(struct faro_group_predefined));
}

int faro_group_check(MPI_Group g)
{
    return g && faro_pool_has(&group_pool, g) && g->magic == FARO_GROUP_MAGIC ? 0 : -1;
}

static void group_destroy(struct faro_group *g)
{
    free(g->world);
    faro_pool_put(&group_pool, g);
}

struct faro_group *faro_group_alloc(int n)
{
    struct faro_group *g = faro_pool_get(&group_pool);
    if (!g)
        return NULL;
    if (n && !(g->world = malloc((size_t)n * sizeof(int)))) {
        faro_pool_put(&group_pool, g);
        return NULL;
    }
    g->magic = FARO_GROUP_MAGIC;
    g->size = n;
    g->rank = MPI_UNDEFINED;
    g->refcount = 1;
    g->predefined = 0;
    return g;
}

void faro_group_finish(struct faro_group *g)
{
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == faro.rank)
            g->rank = i;
}

struct faro_group *faro_group_from_world(int n, const int *world)
{
    struct faro_group *g = faro_group_alloc(n);
    if (!g)
        return NULL;
    if (n)
        memcpy(g->world, world, (size_t)n * sizeof(int));
    faro_group_finish(g);
    return g;
}

void faro_group_release(struct faro_group *g)
{
    if (g->predefined || --g->refcount > 0)
        return;
    faro_handle_forget(FARO_H_GROUP, g);
    group_destroy(g);
}

static int bad_group(const char *fn, const char *which, MPI_Group g)
{
    return faro_err(MPI_COMM_NULL, MPI_ERR_GROUP, "%s: %s is %s", fn, which,
                    g == MPI_GROUP_NULL ? "MPI_GROUP_NULL" : "not a valid group");
}

#define CHECK_GROUP(fn, which, g)                                                             \
    do {                                                                                      \
        if (faro_group_check(g))                                                              \
            return bad_group(fn, which, g);                                                   \
    } while (0)

/* map[job rank] = group rank + 1 (0: not a member), for g's members. The
 * caller frees the map. */
static int *member_map(MPI_Group g)
{
    int *map = calloc((size_t)faro.npeers, sizeof(int));
    if (map)
        for (int i = 0; i < g->size; i++)
            map[g->world[i]] = i + 1;
    return map;
}

static int no_mem(const char *fn)
{
    return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
}

/* Hand a result to the program: an empty result is MPI_GROUP_EMPTY. */
static int result(const char *fn, struct faro_group *g, MPI_Group *out)
{
    if (!g)
        return no_mem(fn);
    if (g->size == 0) {
        group_destroy(g);
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    faro_group_finish(g);
    *out = g;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int *size)
{
    CHECK_GROUP("MPI_Group_size", "group", group);
    if (!size)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Group_size: size pointer is NULL");
    *size = group->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int *rank)
{
    CHECK_GROUP("MPI_Group_rank", "group", group);
    if (!rank)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Group_rank: rank pointer is NULL");
    *rank = group->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group *group)
{
    if (!group)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Group_free: group pointer is NULL");
    CHECK_GROUP("MPI_Group_free", "group", *group);
    faro_group_release(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    static const char fn[] = "MPI_Group_translate_ranks";
    CHECK_GROUP(fn, "group1", group1);
    CHECK_GROUP(fn, "group2", group2);
    if (n < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: n %d is negative", fn, n);
    if (n > 0 && (!ranks1 || !ranks2))
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s is NULL with n %d", fn,
                        ranks1 ? "ranks2" : "ranks1", n);
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= group1->size))
            return faro_err(MPI_COMM_NULL, MPI_ERR_RANK,
                            "%s: ranks1[%d] = %d is not a rank of group1 (0..%d or "
                            "MPI_PROC_NULL)", fn, i, ranks1[i], group1->size - 1);
    int *map = member_map(group2);
    if (!map)
        return no_mem(fn);
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL
                                               : map[group1->world[ranks1[i]]] - 1;
    for (int i = 0; i < n; i++)
        if (ranks2[i] == -1)
            ranks2[i] = MPI_UNDEFINED;
    free(map);
    return MPI_SUCCESS;
}

/* MPI_IDENT: same members in the same order; MPI_SIMILAR: same members. */
int faro_group_compare(const int *w1, int n1, const int *w2, int n2, int *result)
{
    if (n1 != n2) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (n1 == 0 || memcmp(w1, w2, (size_t)n1 * sizeof(int)) == 0) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    char *in = calloc((size_t)faro.npeers, 1);
    if (!in)
        return -1;
    for (int i = 0; i < n1; i++)
        in[w1[i]] = 1;
    *result = MPI_SIMILAR;
    for (int i = 0; i < n2; i++)
        if (!in[w2[i]])
            *result = MPI_UNEQUAL;
    free(in);
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    CHECK_GROUP("MPI_Group_compare", "group1", group1);
    CHECK_GROUP("MPI_Group_compare", "group2", group2);
    if (!result)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Group_compare: result pointer is NULL");
    if (faro_group_compare(group1->world, group1->size, group2->world, group2->size, result))
        return no_mem("MPI_Group_compare");
    return MPI_SUCCESS;
}

/* ---- set operations ---- */

enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int set_op(const char *fn, int op, MPI_Group g1, MPI_Group g2, MPI_Group *out)
{
    CHECK_GROUP(fn, "group1", g1);
    CHECK_GROUP(fn, "group2", g2);
    if (!out)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: newgroup pointer is NULL", fn);
    int *in2 = member_map(g2);
    struct faro_group *g = in2 ? faro_group_alloc(g1->size + g2->size) : NULL;
    if (!g) {
        free(in2);
        return no_mem(fn);
    }
    int n = 0;
    for (int i = 0; i < g1->size; i++) {
        int w = g1->world[i];
        if ((op == SET_UNION) || (op == SET_INTERSECTION) == (in2[w] != 0))
            g->world[n++] = w;
        if (op == SET_UNION)
            in2[w] = -1; /* already in: skip it in group2 */
    }
    if (op == SET_UNION)
        for (int i = 0; i < g2->size; i++)
            if (in2[g2->world[i]] > 0)
                g->world[n++] = g2->world[i];
    free(in2);
    g->size = n;
    return result(fn, g, out);
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_union", SET_UNION, group1, group2, newgroup);
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_intersection", SET_INTERSECTION, group1, group2, newgroup);
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_difference", SET_DIFFERENCE, group1, group2, newgroup);
}

/* ---- subsets ---- */

/* sel[i] = 1 for each listed rank of g; MPI_ERR_RANK for a rank outside g or
 * listed twice. */
static int select_ranks(const char *fn, MPI_Group g, int n, const int ranks[], char *sel)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return faro_err(MPI_COMM_NULL, MPI_ERR_RANK,
                            "%s: ranks[%d] = %d is not a rank of the group (0..%d)", fn, i, r,
                            g->size - 1);
        if (sel[r])
            return faro_err(MPI_COMM_NULL, MPI_ERR_RANK,
                            "%s: rank %d is listed twice (ranks must be distinct)", fn, r);
        sel[r] = 1;
    }
    return MPI_SUCCESS;
}

static int check_n(const char *fn, MPI_Group g, int n, const void *array, const char *what)
{
    if (n < 0 || n > g->size)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: n %d is out of range (0..group size %d)",
                        fn, n, g->size);
    if (n > 0 && !array)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s is NULL with n %d", fn, what, n);
    return MPI_SUCCESS;
}

/* incl keeps the listed ranks in list order; excl keeps the others in group
 * order. */
static int subset(const char *fn, MPI_Group group, int n, const int ranks[], int incl,
                  MPI_Group *out)
{
    CHECK_GROUP(fn, "group", group);
    int rc = check_n(fn, group, n, ranks, "ranks");
    if (rc)
        return rc;
    if (!out)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: newgroup pointer is NULL", fn);
    char *sel = calloc((size_t)group->size + 1, 1);
    if (!sel)
        return no_mem(fn);
    rc = select_ranks(fn, group, n, ranks, sel);
    if (rc) {
        free(sel);
        return rc;
    }
    struct faro_group *g = faro_group_alloc(incl ? n : group->size - n);
    if (g) {
        int k = 0;
        if (incl)
            for (int i = 0; i < n; i++)
                g->world[k++] = group->world[ranks[i]];
        else
            for (int i = 0; i < group->size; i++)
                if (!sel[i])
                    g->world[k++] = group->world[i];
    }
    free(sel);
    return result(fn, g, out);
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return subset("MPI_Group_incl", group, n, ranks, 1, newgroup);
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return subset("MPI_Group_excl", group, n, ranks, 0, newgroup);
}

/* Expand (first, last, stride) triplets into a rank list: first, first +
 * stride, ... not beyond last (a triplet may be empty when first is past
 * last in the direction of stride). Every rank must be in the group and
 * listed once. */
static int expand_ranges(const char *fn, MPI_Group g, int n, int ranges[][3], int **out,
                         int *count)
{
    if (n > 0 && !ranges)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: ranges is NULL with n %d", fn, n);
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                            "%s: ranges[%d] = (%d, %d, %d) has stride 0", fn, i, first, last,
                            stride);
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return faro_err(MPI_COMM_NULL, MPI_ERR_RANK,
                            "%s: ranges[%d] = (%d, %d, %d) names a rank outside the group "
                            "(0..%d)", fn, i, first, last, stride, g->size - 1);
        long k = ((long)last - first) / stride;
        if (k >= 0)
            total += k + 1;
        if (total > g->size)
            return faro_err(MPI_COMM_NULL, MPI_ERR_RANK,
                            "%s: the ranges name more ranks than the group has (%d), so some "
                            "rank is listed twice", fn, g->size);
    }
    int *list = malloc(((size_t)total + 1) * sizeof(int));
    if (!list)
        return no_mem(fn);
    int m = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long r = first; stride > 0 ? r <= last : r >= last; r += stride)
            list[m++] = (int)r;
    }
    *out = list;
    *count = m;
    return MPI_SUCCESS;
}

static int range_subset(const char *fn, MPI_Group group, int n, int ranges[][3], int incl,
                        MPI_Group *out)
{
    CHECK_GROUP(fn, "group", group);
    if (n < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: n %d is negative", fn, n);
    int *list = NULL, m = 0;
    int rc = expand_ranges(fn, group, n, ranges, &list, &m);
    if (rc)
        return rc;
    rc = subset(fn, group, m, list, incl, out);
    free(list);
    return rc;
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_subset("MPI_Group_range_incl", group, n, ranges, 1, newgroup);
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_subset("MPI_Group_range_excl", group, n, ranges, 0, newgroup);
}
