/*
 * Communicators: the predefined MPI_COMM_WORLD (context 0) and MPI_COMM_SELF
 * (context 1), the object's life (creation helper, duplication, free with
 * pending requests), comparison, names, info hints and the group of a
 * communicator. Split and create are in comm_create.c, context ids in
 * context.c, topologies in topo.c, intercommunicator construction in
 * intercomm.c (dup, free and compare here serve both kinds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "coll.h"
#include "objects/arena.h"
#include "p2p/match.h"
#include "p2p/request.h"
#include "runtime/dyn.h"
#include "base/log.h"


struct faro_comm_predefined faro_mpi_comm_world = {.obj = {
    .magic = FARO_COMM_MAGIC, .context_id = 0, .errhandler = MPI_ERRORS_ARE_FATAL,
    .name = "MPI_COMM_WORLD", .predefined = 1, .refcount = 1}};
struct faro_comm_predefined faro_mpi_comm_self = {.obj = {
    .magic = FARO_COMM_MAGIC, .context_id = 1, .rank = 0, .size = 1,
    .errhandler = MPI_ERRORS_ARE_FATAL, .name = "MPI_COMM_SELF", .predefined = 1,
    .refcount = 1}};

static int self_world;

/* Communicator objects come from a FIFO pool over their arena
 * (objects/arena.h, linked through all_next while free): never returned to
 * the system, a freed one waits at the end of the queue before it is reused,
 * so a stale handle reads as freed rather than as the next communicator, and
 * a made-up handle is refused before it is read. */
struct faro_pool faro_comm_pool = FARO_POOL_INIT("communicator", (size_t)64 << 20,
                                                struct faro_comm, all_next, 16);

__attribute__((constructor)) static void comm_arena_init(void)
{
    faro_arena_reserve(&faro_comm_pool.arena);
    faro_arena_add_fixed(&faro_comm_pool.arena, MPI_COMM_WORLD, sizeof faro_mpi_comm_world);
    faro_arena_add_fixed(&faro_comm_pool.arena, MPI_COMM_SELF, sizeof faro_mpi_comm_self);
}

/* 1 when c may be read: a predefined or pooled communicator's address. */
static int readable(MPI_Comm c)
{
    return faro_arena_has_recent(&faro_comm_pool.arena, c);
}

int faro_comm_init(void)
{
    MPI_COMM_WORLD->rank = faro.rank;
    MPI_COMM_WORLD->size = faro.size;
    self_world = faro.rank;
    MPI_COMM_SELF->world = &self_world;
    return MPI_SUCCESS;
}

int faro_comm_check_local(MPI_Comm c)
{
    return readable(c) && (c->magic == FARO_COMM_MAGIC || c->magic == FARO_COMM_PENDING) ? 0 : -1;
}

int faro_comm_broken(MPI_Comm c)
{
    return readable(c) && c->magic == FARO_COMM_BROKEN;
}

int faro_comm_bad(const char *fn, MPI_Comm c)
{
    if (c != MPI_COMM_NULL && !readable(c))
        return faro_err(MPI_COMM_NULL, MPI_ERR_COMM, "%s: argument is not a communicator "
                        "(uninitialised, or made up?)", fn);
    if (faro_comm_broken(c)) {
        char name[160];
        const struct faro_peer_info *p = &faro.pinfo[c->lost_peer];
        return faro_err(c, MPI_ERR_PROC_ABORTED, "%s: the communicator lost %s (%s): only "
                        "MPI_Comm_free and MPI_Comm_disconnect take it now", fn,
                        faro_peer_name(c->lost_peer, name, sizeof name),
                        p->desc && p->desc->why[0] ? p->desc->why : "its connection broke");
    }
    return faro_err(MPI_COMM_NULL, MPI_ERR_COMM, "%s: %s", fn,
                    c == MPI_COMM_NULL ? "communicator is MPI_COMM_NULL"
                    : c->magic == FARO_COMM_FREED ? "communicator was freed"
                    : c->magic == FARO_COMM_PENDING
                        ? "communicator is not usable before its MPI_Comm_idup request completes"
                        : "argument is not a valid communicator (freed, or never created?)");
}

#define CHECK_COMM(fn, c)                                                                     \
    do {                                                                                      \
        if (faro_comm_check(c))                                                               \
            return faro_comm_bad(fn, c);                                                      \
    } while (0)
#define CHECK_COMM_LOCAL(fn, c)                                                               \
    do {                                                                                      \
        if (faro_comm_check_local(c))                                                         \
            return faro_comm_bad(fn, c);                                                      \
    } while (0)

static struct faro_comm *all_comms;

static int has_member(const int *w, int n, int peer)
{
    for (int i = 0; i < n; i++)
        if ((w ? w[i] : i) == peer)
            return 1;
    return 0;
}

void faro_comm_break(int peer)
{
    for (struct faro_comm *c = all_comms; c; c = c->all_next)
        if ((c->magic == FARO_COMM_MAGIC || c->magic == FARO_COMM_PENDING) &&
            (has_member(c->world, c->size, peer) ||
             (c->inter && has_member(c->remote_world, c->remote_size, peer)))) {
            c->magic = FARO_COMM_BROKEN;
            c->lost_peer = peer;
        }
}

int faro_comm_has_dynamic(MPI_Comm c)
{
    for (int i = 0; c->world && i < c->size; i++)
        if (c->world[i] >= faro.size)
            return 1;
    for (int i = 0; c->inter && i < c->remote_size; i++)
        if (c->remote_world[i] >= faro.size)
            return 1;
    return 0;
}

MPI_Comm faro_comm_new(MPI_Comm parent, uint32_t ctx, int size, int *world, int rank)
{
    struct faro_comm *c = faro_pool_get(&faro_comm_pool);
    if (!c)
        return NULL;
    c->all_next = all_comms;
    if (all_comms)
        all_comms->all_prev = c;
    all_comms = c;
    c->magic = FARO_COMM_MAGIC;
    c->context_id = ctx;
    c->rank = rank;
    c->size = size;
    c->world = world;
    c->errhandler = parent->errhandler;
    faro_errhandler_retain(c->errhandler);
    c->refcount = 1;
    return c;
}

void faro_comm_destroy(MPI_Comm c)
{
    if (c->all_prev)
        c->all_prev->all_next = c->all_next;
    else if (all_comms == c)
        all_comms = c->all_next;
    if (c->all_next)
        c->all_next->all_prev = c->all_prev;
    faro_errhandler_release(c->errhandler);
    if (c->info)
        PMPI_Info_free(&c->info);
    faro_topo_free(c->topo);
    faro_coll_nodes_free(c);
    int stale = faro_mq_drop(c->context_id);
    if (stale)
        faro_warn("a freed communicator (context %u) still had %d unreceived message%s: "
                  "dropped", c->context_id, stale, stale == 1 ? "" : "s");
    faro_ctx_release(c->context_id);
    free(c->world);
    free(c->remote_world);
    if (c->local)
        faro_comm_release(c->local);
    faro_pool_put(&faro_comm_pool, c);
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    CHECK_COMM_LOCAL("MPI_Comm_size", comm);
    if (!size)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Comm_size: size pointer is NULL");
    *size = comm->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    CHECK_COMM_LOCAL("MPI_Comm_rank", comm);
    if (!rank)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Comm_rank: rank pointer is NULL");
    *rank = comm->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    CHECK_COMM_LOCAL("MPI_Comm_test_inter", comm);
    if (!flag)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Comm_test_inter: flag pointer is NULL");
    *flag = comm->inter;
    return MPI_SUCCESS;
}

/* ---- duplication and free ---- */

/* An error code a program's attribute callback returned: raised unchanged, as
 * the standard asks (the call fails with the callback's own code). */
static int callback_failed(const char *fn, MPI_Comm comm, int code)
{
    return faro_err_pass(comm, code, "%s: an attribute callback failed with code %d", fn, code);
}

static int check_info(const char *fn, MPI_Comm comm, MPI_Info info)
{
    int n;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS)
        return faro_err(comm, MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    return MPI_SUCCESS;
}

/* A communicator like comm that is not on a context yet (FARO_CTX_NONE, also
 * an intercommunicator's local one; the program's calls reject it until
 * attach): the same ranks, topology, hints (info instead when with_info) and
 * the attributes their copy callbacks give. An error is raised and returned. */
static int dup_object(const char *fn, MPI_Comm comm, int with_info, MPI_Info info,
                      MPI_Comm *out)
{
    int *world = NULL;
    if (comm->world) {
        world = malloc((size_t)comm->size * sizeof(int));
        if (!world)
            return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        memcpy(world, comm->world, (size_t)comm->size * sizeof(int));
    }
    MPI_Comm c = faro_comm_new(comm, FARO_CTX_NONE, comm->size, world, comm->rank);
    if (!c) {
        free(world);
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    if (comm->inter) { /* the remote group and a private local communicator of its own */
        c->inter = 1;
        c->remote_size = comm->remote_size;
        c->remote_world = malloc(((size_t)comm->remote_size + 1) * sizeof(int));
        if (c->remote_world)
            memcpy(c->remote_world, comm->remote_world,
                   (size_t)comm->remote_size * sizeof(int));
        if (!c->remote_world || faro_inter_make_local(c, FARO_CTX_NONE)) {
            faro_comm_destroy(c);
            return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        }
    }
    MPI_Info hints = with_info ? info : comm->info;
    if ((comm->topo && !(c->topo = faro_topo_dup(comm->topo))) ||
        (hints != MPI_INFO_NULL && PMPI_Info_dup(hints, &c->info) != MPI_SUCCESS)) {
        faro_comm_destroy(c);
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    int rc = faro_attr_copy_all(FARO_ATTR_COMM, comm, comm->attrs, c, &c->attrs);
    if (rc) {
        faro_attr_delete_all(FARO_ATTR_COMM, c, &c->attrs);
        faro_comm_destroy(c);
        return callback_failed(fn, comm, rc);
    }
    c->magic = FARO_COMM_PENDING;
    *out = c;
    return MPI_SUCCESS;
}

/* The agreed ids: the communicator is usable from now on. */
static void attach(MPI_Comm c, const uint32_t ids[2])
{
    c->context_id = ids[0];
    if (c->inter)
        c->local->context_id = ids[1];
    c->magic = FARO_COMM_MAGIC;
}

/* A duplicate whose agreement failed: its attributes go (delete callbacks),
 * and the handle is dead, as after MPI_Comm_free. */
static void discard(MPI_Comm c)
{
    c->magic = FARO_COMM_MAGIC; /* the delete callbacks may look at it */
    faro_attr_delete_all(FARO_ATTR_COMM, c, &c->attrs);
    faro_handle_forget(FARO_H_COMM, c);
    c->magic = FARO_COMM_FREED;
    faro_comm_release(c);
}

static int check_dup_args(const char *fn, MPI_Comm comm, int with_info, MPI_Info info,
                          MPI_Comm *newcomm)
{
    if (!newcomm)
        return faro_err(comm, MPI_ERR_ARG, "%s: newcomm pointer is NULL", fn);
    return with_info ? check_info(fn, comm, info) : MPI_SUCCESS;
}

/* Duplicate comm; info replaces the hints when given (Comm_dup_with_info).
 * A process whose copy fails (memory, an attribute callback) still takes
 * part in the agreement, so the others do not wait for it. */
static int dup(const char *fn, MPI_Comm comm, int with_info, MPI_Info info, MPI_Comm *newcomm)
{
    FARO_LOCKED; /* objects and context ids are shared with other threads' creations */
    CHECK_COMM(fn, comm);
    int rc = check_dup_args(fn, comm, with_info, info, newcomm);
    if (rc)
        return rc;
    MPI_Comm c = MPI_COMM_NULL;
    rc = dup_object(fn, comm, with_info, info, &c);
    struct faro_ctx_spec s;
    uint32_t ids[2];
    faro_ctx_spec_whole(&s, fn, comm, rc == MPI_SUCCESS, comm->inter ? 2 : 1);
    int arc = faro_ctx_agree_spec(&s, ids);
    if (!rc && arc)
        discard(c);
    if (rc || arc)
        return rc ? rc : arc;
    attach(c, ids);
    *newcomm = c;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return dup("MPI_Comm_dup", comm, 0, MPI_INFO_NULL, newcomm);
}

#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return dup("MPI_Comm_dup_with_info", comm, 1, info, newcomm);
}

/* The agreement of an idup is over (inside the progress engine): the
 * request (FARO_REQ_COMM, ctx = the new communicator) completes. */
static void idup_done(void *arg, int errclass, const uint32_t ids[2])
{
    struct faro_request *r = arg;
    MPI_Comm c = r->ctx;
    r->ctx = NULL;
    if (errclass)
        discard(c);
    else
        attach(c, ids);
    faro_comm_release(c); /* the agreement's reference */
    r->status.MPI_ERROR = errclass;
    faro_req_complete(r);
}

static void voted(void *arg, int errclass, const uint32_t ids[2])
{
    (void)arg;
    (void)errclass;
    (void)ids;
}

/* The nonblocking duplication: the new communicator, its attributes
 * (copied now, as MPI_Comm_dup does) and its handle exist when the call
 * returns (as in MPICH); the context id agreement runs in the progress
 * engine, and the communicator is usable when the request completes. */
static int idup(const char *fn, MPI_Comm comm, int with_info, MPI_Info info, MPI_Comm *newcomm,
                MPI_Request *request)
{
    FARO_LOCKED;
    CHECK_COMM(fn, comm);
    int rc = check_dup_args(fn, comm, with_info, info, newcomm);
    if (!rc && !request)
        rc = faro_err(comm, MPI_ERR_ARG, "%s: request pointer is NULL", fn);
    if (rc)
        return rc;
    MPI_Comm c = MPI_COMM_NULL;
    struct faro_request *r = NULL;
    rc = dup_object(fn, comm, with_info, info, &c);
    if (!rc && !(r = faro_req_alloc(FARO_REQ_COMM, comm))) {
        discard(c);
        rc = faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    }
    struct faro_ctx_spec s;
    faro_ctx_spec_whole(&s, fn, comm, rc == MPI_SUCCESS, comm->inter ? 2 : 1);
    if (rc) { /* take part all the same, so the others do not wait for this process */
        faro_ctx_agree_start(&s, voted, NULL);
        return rc;
    }
    r->ctx = c;
    faro_comm_retain(c); /* until the agreement is over, whatever the program does */
    int arc = faro_ctx_agree_start(&s, idup_done, r);
    if (arc) {
        faro_comm_release(c);
        discard(c);
        faro_req_release(r);
        return arc;
    }
    *newcomm = c;
    *request = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup("MPI_Comm_idup", comm, 0, MPI_INFO_NULL, newcomm, request);
}

#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    return idup("MPI_Comm_idup_with_info", comm, 1, info, newcomm, request);
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_free";
    FARO_LOCKED; /* requests of other threads release references too */
    if (!comm)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: comm pointer is NULL", fn);
    MPI_Comm c = *comm;
    if (faro_comm_check(c) && !faro_comm_broken(c))
        return faro_comm_bad(fn, c);
    if (c->predefined)
        return faro_err(c, MPI_ERR_COMM, "%s: %s is predefined and cannot be freed", fn, c->name);
    int rc = faro_attr_delete_all(FARO_ATTR_COMM, c, &c->attrs);
    if (rc)
        return callback_failed(fn, c, rc);
    faro_handle_forget(FARO_H_COMM, c);
    faro_spawn_forget(c); /* MPI_Comm_get_parent says MPI_COMM_NULL from now on */
    c->magic = FARO_COMM_FREED;
    *comm = MPI_COMM_NULL;
    faro_comm_release(c); /* the program's reference; requests may hold more */
    return MPI_SUCCESS;
}

/* ---- comparison and groups ---- */

/* c's job ranks; *tmp is set when they had to be made (identity). */
static const int *world_of(MPI_Comm c, int **tmp)
{
    *tmp = NULL;
    if (c->world)
        return c->world;
    int *w = malloc(((size_t)c->size + 1) * sizeof(int));
    if (w)
        for (int i = 0; i < c->size; i++)
            w[i] = i;
    return *tmp = w;
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char fn[] = "MPI_Comm_compare";
    CHECK_COMM_LOCAL(fn, comm1);
    CHECK_COMM_LOCAL(fn, comm2);
    if (!result)
        return faro_err(comm1, MPI_ERR_ARG, "%s: result pointer is NULL", fn);
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (comm1->inter != comm2->inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int *t1, *t2, same;
    const int *w1 = world_of(comm1, &t1), *w2 = world_of(comm2, &t2);
    int rc = (w1 && w2) ? faro_group_compare(w1, comm1->size, w2, comm2->size, &same) : -1;
    free(t1);
    free(t2);
    if (rc)
        return faro_err(comm1, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (comm1->inter) { /* both groups: the weaker of the two answers */
        int remote;
        if (faro_group_compare(comm1->remote_world, comm1->remote_size, comm2->remote_world,
                               comm2->remote_size, &remote))
            return faro_err(comm1, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        if (remote > same)
            same = remote;
    }
    *result = same == MPI_IDENT ? MPI_CONGRUENT : same;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    CHECK_COMM_LOCAL("MPI_Comm_group", comm);
    if (!group)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Comm_group: group pointer is NULL");
    int *tmp;
    const int *w = world_of(comm, &tmp);
    struct faro_group *g = w ? faro_group_from_world(comm->size, w) : NULL;
    free(tmp);
    if (!g)
        return faro_err(comm, MPI_ERR_NO_MEM, "MPI_Comm_group: out of memory");
    *group = g;
    return MPI_SUCCESS;
}

/* ---- names and hints ---- */

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    CHECK_COMM_LOCAL("MPI_Comm_set_name", comm);
    if (!name)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Comm_set_name: name is NULL");
    /* longer names are cut at MPI_MAX_OBJECT_NAME - 1 characters */
    snprintf(comm->name, sizeof comm->name, "%s", name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    CHECK_COMM_LOCAL("MPI_Comm_get_name", comm);
    if (!name || !resultlen)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Comm_get_name: %s is NULL",
                        name ? "resultlen" : "comm_name");
    strcpy(name, comm->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

/* Faro acts on no communicator hint; it keeps what the program set so that
 * MPI_Comm_get_info returns it. */
#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    CHECK_COMM_LOCAL("MPI_Comm_set_info", comm);
    int rc = check_info("MPI_Comm_set_info", comm, info);
    if (rc)
        return rc;
    MPI_Info copy = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL && PMPI_Info_dup(info, &copy) != MPI_SUCCESS)
        return faro_err(comm, MPI_ERR_NO_MEM, "MPI_Comm_set_info: out of memory");
    if (comm->info)
        PMPI_Info_free(&comm->info);
    comm->info = copy;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    CHECK_COMM_LOCAL("MPI_Comm_get_info", comm);
    if (!info_used)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Comm_get_info: info_used pointer is NULL");
    int rc = comm->info ? PMPI_Info_dup(comm->info, info_used) : PMPI_Info_create(info_used);
    if (rc)
        return faro_err(comm, MPI_ERR_NO_MEM, "MPI_Comm_get_info: out of memory");
    return MPI_SUCCESS;
}
