/*
 * Generalized requests: operations the program completes itself (a thread,
 * an I/O library) but waits for with MPI_Wait/Test like any request. The
 * library never advances them; MPI_Grequest_complete marks them done. The
 * program's query function fills the status when the request is completed
 * by a wait/test (or asked with Request_get_status), its free function runs
 * once when the request goes away, its cancel function on MPI_Cancel.
 */
#include <stdlib.h>

#include "p2p/pt2pt.h"

struct faro_greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
    int freed;
};

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    FARO_LOCKED;
    if (!query_fn || !free_fn || !cancel_fn || !request)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Grequest_start: %s is NULL (query, free and cancel functions and "
                        "the request pointer are required)",
                        !query_fn ? "query_fn" : !free_fn ? "free_fn" : !cancel_fn ? "cancel_fn"
                                                                                  : "request");
    struct faro_greq *g = calloc(1, sizeof *g);
    struct faro_request *r = g ? faro_req_alloc(FARO_REQ_GREQ, MPI_COMM_SELF) : NULL;
    if (!r) {
        free(g);
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Grequest_start: out of memory");
    }
    g->query = query_fn;
    g->free_fn = free_fn;
    g->cancel = cancel_fn;
    g->extra = extra_state;
    r->ctx = g;
    *request = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request)
{
    FARO_LOCKED;
    if (faro_req_check(request) || request->kind != FARO_REQ_GREQ)
        return faro_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
                        "MPI_Grequest_complete: not a generalized request (MPI_Grequest_start)");
    if (request->complete)
        return faro_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
                        "MPI_Grequest_complete: the request is already complete");
    faro_req_complete(request); /* releases it when the program already freed it */
    return MPI_SUCCESS;
}

int faro_greq_query(struct faro_request *r)
{
    struct faro_greq *g = r->ctx;
    int cancelled = r->status.faro_cancelled;
    int rc = g->query(g->extra, &r->status);
    r->status.faro_cancelled |= cancelled;
    if (rc != MPI_SUCCESS)
        r->status.MPI_ERROR = rc;
    return rc;
}

int faro_greq_free(struct faro_request *r)
{
    struct faro_greq *g = r->ctx;
    if (!g || g->freed)
        return MPI_SUCCESS;
    g->freed = 1;
    return g->free_fn(g->extra);
}

void faro_greq_destroy(struct faro_request *r)
{
    faro_greq_free(r);
    free(r->ctx);
    r->ctx = NULL;
}

int faro_greq_cancel(struct faro_request *r)
{
    struct faro_greq *g = r->ctx;
    return g->cancel(g->extra, r->complete);
}
