/*
 * MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 3.10): a send and a
 * receive started together, completed through one request.
 *
 * The program's request is of kind FARO_REQ_OPS; its ctx (struct pair) owns
 * the two point-to-point requests it posted (the receive first, then the
 * send, as MPI_Sendrecv does). Each half carries an on_complete callback that
 * releases it and counts it off; when both have completed, the program's
 * request completes with the receive's status (source, tag, count, cancelled)
 * and the first error of the two, the receive's first. Nothing here runs on
 * the point-to-point paths of other requests.
 *
 * Replace: the outgoing data is packed into a temporary buffer at the call,
 * so the receive may land in the program's buffer at any time; the copy is
 * freed with the request.
 *
 * Cancel: cancels the receive while it is unmatched (the send completes as
 * every Faro send does); MPI_Test_cancelled then says true. MPI_Request_free
 * of an active request lets both halves finish and releases it then.
 */
#include <limits.h>
#include <stdlib.h>

#include "p2p/pt2pt.h"

struct pair {
    const struct faro_req_ops *ops;
    struct faro_request *req;  /* the program's */
    struct faro_request *recv; /* NULL once complete */
    struct faro_request *send;
    int left;                  /* halves not yet complete */
    void *copy;                /* replace: the packed outgoing data */
};

/* One half completed (possibly inside its own post). */
static void half_done(struct faro_request *h)
{
    struct pair *p = h->ctx;
    struct faro_request *r = p->req;
    if (h == p->recv) {
        int err = r->status.MPI_ERROR; /* a send that failed first */
        r->status = h->status;
        if (r->status.MPI_ERROR == MPI_SUCCESS)
            r->status.MPI_ERROR = err;
        p->recv = NULL;
    } else {
        if (h->status.MPI_ERROR != MPI_SUCCESS && r->status.MPI_ERROR == MPI_SUCCESS)
            r->status.MPI_ERROR = h->status.MPI_ERROR;
        p->send = NULL;
    }
    h->on_complete = NULL;
    faro_req_release(h);
    if (--p->left == 0)
        faro_req_complete(r); /* releases r when the program freed it already */
}

static int pair_cancel(struct faro_request *r)
{
    struct pair *p = r->ctx;
    if (!p->recv)
        return MPI_SUCCESS;
    MPI_Request h = p->recv;
    return PMPI_Cancel(&h); /* completes it (half_done) when it was still unmatched */
}

static void pair_destroy(struct faro_request *r)
{
    struct pair *p = r->ctx;
    free(p->copy);
    free(p);
    r->ctx = NULL;
}

static int pair_start(struct faro_request *r)
{
    (void)r;
    return MPI_ERR_INTERN; /* never persistent */
}

static const struct faro_req_ops pair_ops = {"MPI_Isendrecv", pair_start, pair_cancel,
                                             pair_destroy};
static const struct faro_req_ops replace_ops = {"MPI_Isendrecv_replace", pair_start,
                                                pair_cancel, pair_destroy};

/* A half just posted: complete already (MPI_PROC_NULL, a message that was
 * waiting, a send that left at once) or completed later by its callback. */
static void watch(struct pair *p, struct faro_request *h)
{
    h->ctx = p;
    h->internal = 1;
    if (h->complete)
        half_done(h);
    else
        h->on_complete = half_done;
}

/* Both halves' arguments are checked by the caller. copy: replace's packed
 * data (owned from here on, freed on every path). */
static int post_pair(const char *fn, const struct faro_req_ops *ops, void *copy,
                     const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    struct pair *p = calloc(1, sizeof *p);
    struct faro_request *r = p ? faro_req_alloc(FARO_REQ_OPS, comm) : NULL;
    if (!r) {
        free(p);
        free(copy);
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for the request", fn);
    }
    p->ops = ops;
    p->req = r;
    p->copy = copy;
    p->left = 2;
    r->ctx = p;
    struct faro_request *rr = NULL, *sr = NULL;
    int rc = faro_post(fn, FARO_REQ_RECV, 0, recvbuf, recvcount, recvtype, source, recvtag,
                       comm, 0, &rr);
    if (rc) {
        faro_req_release(r);
        return rc;
    }
    rc = faro_post(fn, FARO_REQ_SEND, FARO_MODE_STANDARD, sendbuf, sendcount, sendtype, dest,
                   sendtag, comm, 0, &sr);
    if (rc) {
        PMPI_Cancel(&rr);
        FARO_WAIT_UNTIL(rr->complete);
        faro_req_release(rr);
        faro_req_release(r);
        return rc;
    }
    p->recv = rr;
    p->send = sr;
    *request = r;
    watch(p, rr);
    watch(p, sr); /* r may be complete from here on */
    return MPI_SUCCESS;
}

/* The request argument is NULL. */
static int no_request(const char *fn, MPI_Comm comm)
{
    return faro_err(faro_comm_check(comm) ? MPI_COMM_NULL : comm, MPI_ERR_ARG,
                    "%s: request pointer is NULL (a pointer to an MPI_Request is required)", fn);
}

#pragma weak MPI_Isendrecv = PMPI_Isendrecv
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Isendrecv";
    FARO_LOCKED;
    if (!request)
        return no_request(fn, comm);
    MPI_Datatype st = sendtype, rt = recvtype;
    int rc = faro_check_p2p(fn, comm, sendbuf, sendcount, &st, dest, sendtag, 0);
    if (!rc)
        rc = faro_check_p2p(fn, comm, recvbuf, recvcount, &rt, source, recvtag, 1);
    if (rc)
        return rc;
    return post_pair(fn, &pair_ops, NULL, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                     recvcount, recvtype, source, recvtag, comm, request);
}

#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Isendrecv_replace";
    FARO_LOCKED;
    if (!request)
        return no_request(fn, comm);
    MPI_Datatype t = type;
    int rc = faro_check_p2p(fn, comm, buf, count, &t, dest, sendtag, 0);
    if (!rc)
        rc = faro_check_p2p(fn, comm, buf, count, &t, source, recvtag, 1);
    if (rc)
        return rc;
    size_t bytes = (size_t)count * t->size;
    if (bytes > (size_t)INT_MAX)
        return faro_err(comm, MPI_ERR_COUNT, "%s: the message has %zu bytes; at most INT_MAX "
                        "(%d) are supported (the data is sent packed)", fn, bytes, INT_MAX);
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes for the outgoing "
                        "copy)", fn, bytes);
    faro_type_pack(buf, (size_t)count, t, copy);
    return post_pair(fn, &replace_ops, copy, copy, (int)bytes, MPI_BYTE, dest, sendtag, buf,
                     count, t, source, recvtag, comm, request);
}
