#include "p2p/request.h"

#include <stdlib.h>
#include <string.h>

/* Requests are carved from slabs that are never returned to the system: a
 * request's address stays valid while a peer may still echo it back. */
#define SLAB 256

static struct faro_request *free_list;

static int grow(void)
{
    struct faro_request *slab = calloc(SLAB, sizeof *slab);
    if (!slab)
        return -1;
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
    if (r->kind == FARO_REQ_GREQ)
        faro_greq_destroy(r);
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
    return (r && r->magic == FARO_REQ_MAGIC) ? 0 : -1;
}
