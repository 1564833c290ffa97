/*
 * Completion: Wait/Test families, Request_free, Cancel, Start. Every loop
 * that waits runs the one progress engine and its wait policy.
 */
#include <string.h>

#include "p2p/pt2pt.h"
#include "runtime/dyn.h"

/* The error a completed request reports, raised through its communicator's
 * errhandler; the status gets the code that MPI_Error_string explains. */
static int req_error(const char *fn, struct faro_request *r)
{
    int cls = r->status.MPI_ERROR;
    if (cls == MPI_SUCCESS)
        return MPI_SUCCESS;
    int code;
    if (r->kind == FARO_REQ_COMM)
        code = faro_ctx_failed(fn, r->comm, cls);
    else if (r->kind == FARO_REQ_COLL)
        code = faro_err(r->comm, cls, "%s: a nonblocking collective failed: one of its "
                        "messages or local steps failed with this error class (counts or types "
                        "that do not match across ranks give MPI_ERR_TRUNCATE)", fn);
    else if (r->kind == FARO_REQ_OPS)
        code = faro_err(r->comm, cls, "%s: %s failed: one of its messages failed with this "
                        "error class (MPI_ERR_TRUNCATE: a message was longer than its receive "
                        "buffer)", fn, faro_req_ops_of(r)->what);
    else if (cls == MPI_ERR_TRUNCATE)
        code = faro_err(r->comm, cls,
                        "%s: message from rank %d (tag %d) has %zu bytes but the receive buffer "
                        "holds %zu (count %lld): truncated",
                        fn, r->status.MPI_SOURCE, r->status.MPI_TAG, r->total, r->len,
                        (long long)r->count);
    else if (cls == MPI_ERR_PROC_ABORTED && r->peer >= faro.size && r->peer < faro.npeers) {
        char name[160];
        const struct faro_peer_info *p = &faro.pinfo[r->peer];
        code = faro_err(r->comm, cls, "%s: %s was lost (%s); the communicator is broken: free "
                        "it with MPI_Comm_free or MPI_Comm_disconnect", fn,
                        faro_peer_name(r->peer, name, sizeof name),
                        p->desc && p->desc->why[0] ? p->desc->why : "its connection broke");
    } else
        code = faro_err(r->comm, cls, "%s: request failed", fn);
    r->status.MPI_ERROR = code;
    return code;
}

/* The status of a completed request for the program. MPI_ERROR is written
 * only by the calls that return several statuses (MPI 3.1 3.2.5): a single
 * completion (Wait, Test, Recv, Mrecv, ...) leaves it as the program set it. */
static inline void give_status(MPI_Status *st, const MPI_Status *from, int multi)
{
    int keep = st->MPI_ERROR;
    *st = *from;
    if (!multi)
        st->MPI_ERROR = keep;
}

/* Hand a complete request back to the user: status, then release or deactivate. */
static inline int finish(const char *fn, MPI_Request *slot, MPI_Status *st, int multi)
{
    struct faro_request *r = *slot;
    int rc;
    if (r->kind == FARO_REQ_GREQ) {
        /* The program's codes are raised unchanged: query first, then free. */
        rc = faro_greq_query(r);
        int frc = faro_greq_free(r);
        if (rc == MPI_SUCCESS)
            rc = frc;
        if (rc != MPI_SUCCESS)
            rc = faro_err_pass(MPI_COMM_SELF, rc, "%s: a generalized request's callback "
                               "failed with code %d", fn, rc);
    } else {
        rc = req_error(fn, r);
    }
    if (st != MPI_STATUS_IGNORE)
        give_status(st, &r->status, multi);
    if (r->persistent) {
        r->active = 0;
    } else {
        faro_req_release(r);
        *slot = MPI_REQUEST_NULL;
    }
    return rc;
}

/* A blocking call that finds nothing complete records what it waits for,
 * so that a hang report can say (runtime/hang.h); a call whose requests are
 * already done records nothing.
 *
 * Done yet? Waiting for all, *from is the first request not known to be
 * complete: a request stays complete while a call waits for it, so each
 * poll goes on from there instead of walking the whole array again.
 * Waiting for any, every active request is looked at. */
static int some_done(struct faro_request *const *reqs, int n, int any, int *from)
{
    int i = *from;
    for (; i < n; i++) {
        if (!reqs[i] || (reqs[i]->persistent && !reqs[i]->active))
            continue;
        if (reqs[i]->complete == any)
            break;
    }
    if (!any)
        *from = i;
    return any ? i < n : i == n;
}

/* Most waits for a small message end at their first poll: it runs before
 * the wait is recorded for the hang report (runtime/hang.h), so that such a
 * wait records nothing. 1 when r completed in it. */
static inline int first_poll_completes(struct faro_request *r)
{
    int events = faro_progress();
    if (r->complete)
        return 1;
    faro_progress_idle(events);
    return 0;
}

void faro_wait_reqs(const char *fn, struct faro_request *const *reqs, int n, int any)
{
    int from = 0;
    if (some_done(reqs, n, any, &from))
        return;
    int events = faro_progress(); /* first_poll_completes, for several */
    if (some_done(reqs, n, any, &from))
        return;
    faro_progress_idle(events);
    struct faro_wait w = {.fn = fn, .reqs = reqs, .nreqs = n, .any = any};
    faro_wait_begin(&w);
    FARO_WAIT_UNTIL(some_done(reqs, n, any, &from));
    faro_wait_end(&w);
}

int faro_wait_release(const char *fn, struct faro_request *r, MPI_Status *st)
{
    if (!r->complete && !first_poll_completes(r)) {
        struct faro_wait w = FARO_WAIT_ONE(fn, r);
        faro_wait_begin(&w);
        FARO_WAIT_UNTIL(r->complete);
        faro_wait_end(&w);
    }
    return finish(fn, &r, st, 0);
}

/* Null and inactive persistent requests take part in no completion. */
static inline int inactive(MPI_Request r)
{
    return r == MPI_REQUEST_NULL || (r->persistent && !r->active);
}

static int check_reqs(const char *fn, int count, MPI_Request reqs[])
{
    if (count < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: count %d is negative", fn, count);
    if (count > 0 && !reqs)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: array_of_requests is NULL", fn);
    for (int i = 0; i < count; i++)
        if (reqs[i] != MPI_REQUEST_NULL && faro_req_check(reqs[i]))
            return faro_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
                            "%s: request %d is not a valid request (freed or never created)",
                            fn, i);
    return MPI_SUCCESS;
}

/* The progress poll of Testall, Testany, Testsome that found nothing done
 * yet, and its tick for the hang report (runtime/hang.h). */
__attribute__((noinline, cold)) static void poll_tick(const char *fn, MPI_Request reqs[],
                                                      int count, int any)
{
    struct faro_wait w = {.fn = fn, .reqs = reqs, .nreqs = count, .any = any};
    faro_hang_poll_tick(&w);
}

static void test_poll(const char *fn, int count, MPI_Request reqs[], int any)
{
    if (faro_poll_idle(count ? reqs[0] : NULL, faro_progress()))
        poll_tick(fn, reqs, count, any);
}

/* Wait and Test on one request. */
static int one(const char *fn, MPI_Request *request, int *flag, MPI_Status *status, int block)
{
    if (!request || !flag)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s pointer is NULL", fn,
                        request ? "flag" : "request");
    int rc = check_reqs(fn, 1, request);
    if (rc)
        return rc;
    *flag = 1;
    if (inactive(*request)) {
        if (status != MPI_STATUS_IGNORE)
            faro_status_empty(status);
        return MPI_SUCCESS;
    }
    struct faro_request *r = *request;
    if (block && !r->complete && !first_poll_completes(r)) {
        struct faro_wait w = FARO_WAIT_ONE(fn, r);
        faro_wait_begin(&w);
        FARO_WAIT_UNTIL(r->complete);
        faro_wait_end(&w);
    } else if (!r->complete && faro_poll_idle(r, faro_progress()) && !r->complete) {
        poll_tick(fn, request, 1, 0);
    }
    *flag = r->complete;
    return *flag ? finish(fn, request, status, 0) : MPI_SUCCESS;
}

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    FARO_LOCKED;
    int flag;
    return one("MPI_Wait", request, &flag, status, 1);
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    FARO_LOCKED;
    return one("MPI_Test", request, flag, status, 0);
}

static int complete_all(const char *fn, int count, MPI_Request reqs[], MPI_Status sts[])
{
    int err = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
        if (inactive(reqs[i])) {
            if (st)
                faro_status_empty(st);
            continue;
        }
        if (finish(fn, &reqs[i], st, 1))
            err = 1;
    }
    return err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

static int all_done(int count, MPI_Request reqs[])
{
    for (int i = 0; i < count; i++)
        if (!inactive(reqs[i]) && !reqs[i]->complete)
            return 0;
    return 1;
}

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status sts[])
{
    FARO_LOCKED;
    int rc = check_reqs("MPI_Waitall", count, reqs);
    if (rc)
        return rc;
    faro_wait_reqs("MPI_Waitall", reqs, count, 0);
    return complete_all("MPI_Waitall", count, reqs, sts);
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    FARO_LOCKED;
    if (!flag)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Testall: flag pointer is NULL");
    int rc = check_reqs("MPI_Testall", count, reqs);
    if (rc)
        return rc;
    if (!all_done(count, reqs))
        test_poll("MPI_Testall", count, reqs, 0);
    *flag = all_done(count, reqs);
    return *flag ? complete_all("MPI_Testall", count, reqs, sts) : MPI_SUCCESS;
}

/* Index of a complete active request, MPI_UNDEFINED when none is active, -1 when
 * active ones exist but none is complete. */
static int find_any(int count, MPI_Request reqs[])
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        if (inactive(reqs[i]))
            continue;
        active = 1;
        if (reqs[i]->complete)
            return i;
    }
    return active ? -1 : MPI_UNDEFINED;
}

static int any(const char *fn, int count, MPI_Request reqs[], int *index, int *flag,
               MPI_Status *status, int block)
{
    if (!index || !flag)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s pointer is NULL", fn,
                        index ? "flag" : "index");
    int rc = check_reqs(fn, count, reqs);
    if (rc)
        return rc;
    int i = find_any(count, reqs);
    if (i == -1) {
        if (block) {
            faro_wait_reqs(fn, reqs, count, 1);
            i = find_any(count, reqs);
        } else {
            test_poll(fn, count, reqs, 1);
            i = find_any(count, reqs);
        }
    }
    if (i == -1) {
        *flag = 0;
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *flag = 1;
    *index = i;
    if (i == MPI_UNDEFINED) {
        if (status != MPI_STATUS_IGNORE)
            faro_status_empty(status);
        return MPI_SUCCESS;
    }
    return finish(fn, &reqs[i], status, 0);
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    FARO_LOCKED;
    int flag;
    return any("MPI_Waitany", count, reqs, index, &flag, status, 1);
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    FARO_LOCKED;
    return any("MPI_Testany", count, reqs, index, flag, status, 0);
}

static int some(const char *fn, int count, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status sts[], int block)
{
    if (!outcount || (count > 0 && !indices))
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s is NULL", fn,
                        outcount ? "array_of_indices" : "outcount");
    int rc = check_reqs(fn, count, reqs);
    if (rc)
        return rc;
    int i = find_any(count, reqs);
    if (i == MPI_UNDEFINED) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    if (i == -1) {
        if (block)
            faro_wait_reqs(fn, reqs, count, 1);
        else
            test_poll(fn, count, reqs, 1);
    }
    int n = 0, err = 0;
    for (int k = 0; k < count; k++) {
        if (inactive(reqs[k]) || !reqs[k]->complete)
            continue;
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[n];
        indices[n++] = k;
        if (finish(fn, &reqs[k], st, 1))
            err = 1;
    }
    *outcount = n;
    return err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int count, MPI_Request reqs[], int *outcount, int indices[], MPI_Status sts[])
{
    FARO_LOCKED;
    return some("MPI_Waitsome", count, reqs, outcount, indices, sts, 1);
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int count, MPI_Request reqs[], int *outcount, int indices[], MPI_Status sts[])
{
    FARO_LOCKED;
    return some("MPI_Testsome", count, reqs, outcount, indices, sts, 0);
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    FARO_LOCKED;
    if (!flag)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Request_get_status: flag pointer is "
                        "NULL");
    if (request != MPI_REQUEST_NULL && faro_req_check(request))
        return faro_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
                        "MPI_Request_get_status: not a valid request");
    if (inactive(request)) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            faro_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!request->complete)
        faro_progress();
    *flag = request->complete;
    int rc = MPI_SUCCESS;
    if (*flag && request->kind == FARO_REQ_GREQ && (rc = faro_greq_query(request)))
        rc = faro_err_pass(MPI_COMM_SELF, rc, "MPI_Request_get_status: the query callback "
                           "failed with code %d", rc);
    if (*flag && status != MPI_STATUS_IGNORE)
        give_status(status, &request->status, 0);
    return rc;
}

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request *request)
{
    FARO_LOCKED;
    if (!request)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Request_free: request pointer is NULL");
    if (faro_req_check(*request))
        return faro_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
                        "MPI_Request_free: not a valid request (MPI_REQUEST_NULL or freed)");
    struct faro_request *r = *request;
    *request = MPI_REQUEST_NULL;
    if (r->complete && !(r->persistent && r->active))
        faro_req_release(r);
    else
        r->user_freed = 1; /* released when the operation completes */
    return MPI_SUCCESS;
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request *request)
{
    FARO_LOCKED;
    if (!request)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Cancel: request pointer is NULL");
    if (faro_req_check(*request))
        return faro_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "MPI_Cancel: not a valid request");
    struct faro_request *r = *request;
    if (r->kind == FARO_REQ_COLL || r->kind == FARO_REQ_COMM)
        return faro_err(r->comm, MPI_ERR_REQUEST,
                        "MPI_Cancel: cannot cancel a nonblocking collective (complete it with "
                        "MPI_Wait/MPI_Test, or MPI_Request_free it)");
    if (r->kind == FARO_REQ_OPS)
        return faro_req_ops_of(r)->cancel(r);
    if (r->kind == FARO_REQ_GREQ) {
        int rc = faro_greq_cancel(r);
        return rc ? faro_err_pass(MPI_COMM_SELF, rc, "MPI_Cancel: the cancel callback of a "
                                  "generalized request failed with code %d", rc)
                  : MPI_SUCCESS;
    }
    /* A send is never cancelled: it completes normally and Test_cancelled says
     * false, which the standard allows. A receive is cancelled while unmatched. */
    if (r->kind == FARO_REQ_RECV && !r->complete && r->rank != MPI_PROC_NULL &&
        faro_mq_unpost(faro_mq_get(r->comm->context_id), r)) {
        r->status.faro_cancelled = 1;
        faro_req_complete(r);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || !flag)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Test_cancelled: %s is NULL",
                        status ? "flag" : "status");
    *flag = status->faro_cancelled;
    return MPI_SUCCESS;
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request *request)
{
    FARO_LOCKED;
    if (!request)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Start: request pointer is NULL");
    if (faro_req_check(*request) || !(*request)->persistent)
        return faro_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
                        "MPI_Start: not a persistent request (made by MPI_Send_init, "
                        "MPI_Recv_init, a collective's _init or MPI_Psend_init/MPI_Precv_init)");
    struct faro_request *r = *request;
    if (r->active)
        return faro_err(r->comm, MPI_ERR_REQUEST,
                        "MPI_Start: request is already active; complete it first");
    r->active = 1;
    if (r->kind == FARO_REQ_OPS)
        return faro_req_ops_of(r)->start(r);
    return faro_req_start(r);
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request reqs[])
{
    FARO_LOCKED;
    int rc = check_reqs("MPI_Startall", count, reqs);
    for (int i = 0; i < count && !rc; i++)
        rc = PMPI_Start(&reqs[i]);
    return rc;
}
