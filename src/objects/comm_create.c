/*
 * Communicators from communicators: MPI_Comm_split and MPI_Comm_split_type
 * (colour and key gathered over the parent), MPI_Comm_create (collective over
 * the parent) and MPI_Comm_create_group (collective over the group only).
 * The new communicator's members are kept as job ranks; its context id is
 * agreed as context.c describes. Split and create of an intercommunicator
 * are in intercomm.c.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define CHECK_COMM(fn, c)                                                                     \
    do {                                                                                      \
        if (faro_comm_check(c))                                                               \
            return faro_comm_bad(fn, c);                                                      \
    } while (0)

static int no_mem(const char *fn, MPI_Comm comm)
{
    return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
}

/* Wrap world[] (taken over) on an agreed ctx as *out; on failure the id and
 * world[] are released. */
static int make(const char *fn, MPI_Comm parent, uint32_t ctx, int n, int *world, int rank,
                MPI_Comm *out)
{
    MPI_Comm c = faro_comm_new(parent, ctx, n, world, rank);
    if (!c) {
        free(world);
        faro_ctx_release(ctx);
        return no_mem(fn, parent);
    }
    *out = c;
    return MPI_SUCCESS;
}

/* ---- split ---- */

struct member {
    int key, rank; /* rank in the parent */
};

static int by_key(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

static int split(const char *fn, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int n = comm->size;
    int mine[2] = {color, key};
    int *all = malloc((size_t)n * 2 * sizeof(int));
    struct member *m = malloc((size_t)n * sizeof *m);
    if (!all || !m) {
        free(all);
        free(m);
        return no_mem(fn, comm);
    }
    int rc = PMPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
    uint32_t ctx = 0;
    if (!rc)
        rc = faro_ctx_agree(fn, comm, color != MPI_UNDEFINED, &ctx);
    if (rc || color == MPI_UNDEFINED) {
        free(all);
        free(m);
        if (!rc)
            *newcomm = MPI_COMM_NULL;
        return rc;
    }
    int k = 0;
    for (int r = 0; r < n; r++)
        if (all[2 * r] == color)
            m[k++] = (struct member){.key = all[2 * r + 1], .rank = r};
    qsort(m, (size_t)k, sizeof *m, by_key);
    int *world = (int *)all; /* reused: k <= n */
    int me = 0;
    for (int i = 0; i < k; i++) {
        world[i] = faro_comm_world_rank(comm, m[i].rank);
        if (m[i].rank == comm->rank)
            me = i;
    }
    free(m);
    int *fit = realloc(world, ((size_t)k + 1) * sizeof(int));
    return make(fn, comm, ctx, k, fit ? fit : world, me, newcomm);
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    FARO_LOCKED; /* objects and context ids are shared with other threads */
    static const char fn[] = "MPI_Comm_split";
    CHECK_COMM(fn, comm);
    if (!newcomm)
        return faro_err(comm, MPI_ERR_ARG, "%s: newcomm pointer is NULL", fn);
    if (color < 0 && color != MPI_UNDEFINED)
        return faro_err(comm, MPI_ERR_ARG,
                        "%s: color %d is invalid (a non-negative integer or MPI_UNDEFINED)", fn,
                        color);
    if (comm->inter)
        return faro_inter_split(fn, comm, color, key, newcomm);
    return split(fn, comm, color, key, newcomm);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The colour of this process's node among comm's members (both groups of an
 * intercommunicator): its host's place among their host names in order.
 * With members beyond the job, the job's node numbers mean nothing to the
 * others, but host names are the same everywhere. -1: out of memory. */
static int host_color(MPI_Comm comm)
{
    int n = comm->size + (comm->inter ? comm->remote_size : 0);
    const char **names = malloc(((size_t)n + 1) * sizeof *names);
    if (!names)
        return -1;
    for (int i = 0; i < n; i++) {
        int peer = i < comm->size ? (comm->world ? comm->world[i] : i)
                                  : comm->remote_world[i - comm->size];
        uint32_t node = faro.peers[peer].node;
        names[i] = node < (uint32_t)faro.nhosts ? faro.hosts[node] : "";
    }
    qsort(names, (size_t)n, sizeof *names, by_name);
    int color = 0;
    for (int i = 0; i < n && strcmp(names[i], faro.hostname); i++)
        color += i == 0 || strcmp(names[i], names[i - 1]);
    free(names);
    return color;
}

/* MPI_COMM_TYPE_SHARED: the processes of one node (one host name), which
 * share memory. The info hints are checked and otherwise ignored. */
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    FARO_LOCKED; /* objects and context ids are shared with other threads */
    static const char fn[] = "MPI_Comm_split_type";
    CHECK_COMM(fn, comm);
    if (!newcomm)
        return faro_err(comm, MPI_ERR_ARG, "%s: newcomm pointer is NULL", fn);
    int nkeys;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        return faro_err(comm, MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    int color;
    if (split_type == MPI_COMM_TYPE_SHARED && faro_comm_has_dynamic(comm))
        color = host_color(comm);
    else if (split_type == MPI_COMM_TYPE_SHARED)
        color = faro.node_of ? faro.node_of[faro.rank] : 0;
    else if (split_type == MPI_UNDEFINED)
        color = MPI_UNDEFINED;
    else
        return faro_err(comm, MPI_ERR_ARG,
                        "%s: split_type %d is not supported (MPI_COMM_TYPE_SHARED or "
                        "MPI_UNDEFINED)", fn, split_type);
    if (color == -1)
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (comm->inter) /* the members of one node on each side */
        return faro_inter_split(fn, comm, color, key, newcomm);
    return split(fn, comm, color, key, newcomm);
}

/* ---- create ---- */

/* members[i]: the parent rank of group rank i; MPI_ERR_GROUP when a member is
 * not in the parent. */
static int parent_ranks(const char *fn, MPI_Comm comm, MPI_Group group, int **out)
{
    int *map = malloc((size_t)faro.npeers * sizeof(int));
    int *members = malloc(((size_t)group->size + 1) * sizeof(int));
    if (!map || !members) {
        free(map);
        free(members);
        return no_mem(fn, comm);
    }
    for (int i = 0; i < faro.npeers; i++)
        map[i] = -1;
    for (int r = 0; r < comm->size; r++)
        map[faro_comm_world_rank(comm, r)] = r;
    for (int i = 0; i < group->size; i++) {
        members[i] = map[group->world[i]];
        if (members[i] < 0) {
            int w = group->world[i];
            free(map);
            free(members);
            return faro_err(comm, MPI_ERR_GROUP,
                            "%s: group rank %d (job rank %d) is not a member of the "
                            "communicator (the group must be a subset of the communicator's)",
                            fn, i, w);
        }
    }
    free(map);
    *out = members;
    return MPI_SUCCESS;
}

static int *copy_world(MPI_Group g)
{
    int *w = malloc(((size_t)g->size + 1) * sizeof(int));
    if (w)
        memcpy(w, g->world, (size_t)g->size * sizeof(int));
    return w;
}

static int check_group(const char *fn, MPI_Comm comm, MPI_Group group)
{
    if (faro_group_check(group))
        return faro_err(comm, MPI_ERR_GROUP, "%s: group is %s", fn,
                        group == MPI_GROUP_NULL ? "MPI_GROUP_NULL" : "not a valid group");
    return MPI_SUCCESS;
}

/* Every process of comm calls it; each may pass a different group as long as
 * the groups are disjoint (MPI 2.2), since members of each group get the same
 * id and share no process. */
#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    FARO_LOCKED; /* objects and context ids are shared with other threads */
    static const char fn[] = "MPI_Comm_create";
    CHECK_COMM(fn, comm);
    int rc = check_group(fn, comm, group);
    if (rc)
        return rc;
    if (!newcomm)
        return faro_err(comm, MPI_ERR_ARG, "%s: newcomm pointer is NULL", fn);
    if (comm->inter)
        return faro_inter_create(fn, comm, group, newcomm);
    int *members;
    rc = parent_ranks(fn, comm, group, &members);
    if (rc)
        return rc;
    free(members);
    int in = group->rank != MPI_UNDEFINED;
    int *world = in ? copy_world(group) : NULL;
    uint32_t ctx;
    rc = faro_ctx_agree(fn, comm, in && world, &ctx);
    if (rc) {
        free(world);
        return rc;
    }
    if (!in) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (!world)
        return no_mem(fn, comm);
    return make(fn, comm, ctx, group->size, world, group->rank, newcomm);
}

#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    FARO_LOCKED; /* objects and context ids are shared with other threads */
    static const char fn[] = "MPI_Comm_create_group";
    CHECK_COMM(fn, comm);
    FARO_CHECK_INTRA(fn, comm, MPI_ERR_COMM);
    int rc = check_group(fn, comm, group);
    if (rc)
        return rc;
    if (!newcomm)
        return faro_err(comm, MPI_ERR_ARG, "%s: newcomm pointer is NULL", fn);
    if (tag < 0 || tag > FARO_TAG_UB)
        return faro_err(comm, MPI_ERR_TAG, "%s: tag %d is invalid (0..MPI_TAG_UB=%d)", fn, tag,
                        FARO_TAG_UB);
    if (group->rank == MPI_UNDEFINED) {
        if (group->size == 0) { /* nobody to agree with */
            *newcomm = MPI_COMM_NULL;
            return MPI_SUCCESS;
        }
        return faro_err(comm, MPI_ERR_GROUP,
                        "%s: the calling process is not in the group (only its members call)",
                        fn);
    }
    int *members;
    rc = parent_ranks(fn, comm, group, &members);
    if (rc)
        return rc;
    int *world = copy_world(group);
    if (!world) {
        free(members);
        return no_mem(fn, comm);
    }
    uint32_t ctx;
    rc = faro_ctx_agree_group(fn, comm, members, group->size, group->rank, tag, &ctx);
    free(members);
    if (rc) {
        free(world);
        return rc;
    }
    return make(fn, comm, ctx, group->size, world, group->rank, newcomm);
}
