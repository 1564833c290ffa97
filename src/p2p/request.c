#include "p2p/request.h"
#include "p2p/match.h"
#include "objects/arena.h"

#include <stdlib.h>
#include <string.h>

/* Requests are carved from slabs that are never returned to the system: a
 * request's address stays valid while a peer may still echo it back. The
 * slabs are listed (first request of each: next slab) so that the loss of a
 * peer beyond the job can find the requests that wait for it. They come from
 * the requests' arena, so that a handle is known to be one of them before it
 * is read (faro_req_check). */
#define SLAB 256

static struct faro_arena req_arena = FARO_ARENA_INIT("request", (size_t)1 << 30);

__attribute__((constructor)) static void req_arena_init(void)
{
    faro_arena_reserve(&req_arena);
}

static struct faro_request *free_list;
static struct slab {
    struct slab *next;
    struct faro_request r[SLAB];
} *slabs;

static int grow(void)
{
    struct slab *s = faro_arena_alloc(&req_arena, sizeof *s);
    if (!s)
        return -1;
    s->next = slabs;
    slabs = s;
    struct faro_request *slab = s->r;
    for (int i = 0; i < SLAB; i++) {
        slab[i].next = free_list;
        free_list = &slab[i];
    }
    return 0;
}

struct faro_request *faro_req_alloc(int kind, MPI_Comm comm)
{
    if (!free_list && grow() != 0)
        return NULL;
    struct faro_request *r = free_list;
    free_list = r->next;
    memset(r, 0, sizeof *r);
    r->magic = FARO_REQ_MAGIC;
    r->kind = (uint8_t)kind;
    r->comm = comm;
    faro_comm_retain(comm); /* a freed communicator lives while requests use it */
    faro_status_empty(&r->status);
    return r;
}

void faro_req_unstage(struct faro_request *r)
{
    /* a staged receive, and a send that packs as it goes, hold their type */
    if (r->tmp && (r->kind == FARO_REQ_RECV || r->pack_lazy))
        faro_type_release(r->type);
    r->pack_lazy = 0;
    free(r->tmp);
    r->tmp = NULL;
}

void faro_req_release(struct faro_request *r)
{
    if (r->kind > FARO_REQ_DONE) { /* one branch for sends and receives, as before */
        if (r->kind == FARO_REQ_GREQ)
            faro_greq_destroy(r);
        else if (r->kind == FARO_REQ_OPS)
            faro_req_ops_of(r)->destroy(r);
    }
    if (r->tmp) /* only staged requests have anything to drop */
        faro_req_unstage(r);
    if (r->persistent) /* its init took a reference (faro_post) */
        faro_type_release(r->type);
    r->magic = 0;
    if (faro_handle_used[FARO_H_REQUEST])
        faro_handle_forget(FARO_H_REQUEST, r);
    faro_comm_release(r->comm);
    r->comm = NULL;
    r->next = free_list;
    free_list = r;
}

void faro_req_complete(struct faro_request *r)
{
    r->complete = 1;
    if (r->on_complete)
        r->on_complete(r);
    else if (r->user_freed)
        faro_req_release(r);
}

int faro_req_check(MPI_Request r)
{
    return faro_arena_has(&req_arena, r) && r->magic == FARO_REQ_MAGIC ? 0 : -1;
}

/* A posted receive that the lost peer could satisfy: from it, or from any
 * source of a communicator it belongs to. */
static int waits_for(const struct faro_request *r, int peer)
{
    MPI_Comm c = r->comm;
    if (r->rank == MPI_ANY_SOURCE)
        return c->magic == FARO_COMM_BROKEN;
    return r->rank >= 0 && r->rank < faro_comm_peer_size(c) &&
           faro_comm_world_rank(c, r->rank) == peer;
}

void faro_req_fail_peer(int peer, int sends_too)
{
    for (struct slab *s = slabs; s; s = s->next)
        for (int i = 0; i < SLAB; i++) {
            struct faro_request *r = &s->r[i];
            if (r->magic != FARO_REQ_MAGIC || r->complete || !r->comm ||
                (r->kind != FARO_REQ_SEND && r->kind != FARO_REQ_RECV))
                continue;
            int fail;
            if (r->kind == FARO_REQ_RECV && waits_for(r, peer))
                fail = faro_mq_unpost(faro_mq_get(r->comm->context_id), r) || r->peer == peer;
            else /* a send to it, or a receive it was delivering */
                fail = r->peer == peer && (sends_too || r->kind == FARO_REQ_RECV);
            if (!fail)
                continue;
            r->peer = peer;
            r->status.MPI_ERROR = MPI_ERR_PROC_ABORTED;
            faro_req_complete(r);
        }
}

int faro_req_pending_on(MPI_Comm comm)
{
    int n = 0;
    for (struct slab *s = slabs; s; s = s->next)
        for (int i = 0; i < SLAB; i++) {
            const struct faro_request *r = &s->r[i];
            n += r->magic == FARO_REQ_MAGIC && !r->complete && r->comm &&
                 (r->comm == comm || r->comm == comm->local) && r->kind != FARO_REQ_GREQ;
        }
    return n;
}
