/*
 * Partitioned point-to-point (MPI-4.0 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready(_range, _list), MPI_Parrived.
 *
 * Both requests are persistent, of kind FARO_REQ_OPS (request.h), and this
 * file runs them. The protocol is one message pair per partition, built on
 * the internal point-to-point posts:
 *  - MPI_Pready(i) posts, to the peer, a header {partition i, the sender's
 *    partition count and bytes per partition, the program's tag} and then
 *    partition i's data (count elements of the type, straight from the
 *    program's buffer: eager or rendezvous as any message of its size). The
 *    send request completes when every partition was readied and all its
 *    messages have completed.
 *  - The receiver keeps one header receive posted; when a header arrives it
 *    posts the data receive into partition i's place and then the next
 *    header receive. Messages of one pair on one tag match in the order they
 *    were sent, so each header is followed by its own data whatever the
 *    order of MPI_Pready calls. The receive request completes when all the
 *    sender's partitions have arrived; MPI_Parrived(j) is true when every
 *    sender partition that overlaps receive partition j has.
 * Partition counts may differ between the sides when the receive type is
 * contiguous (the data is then received as bytes at the sender partition's
 * byte offset); with a non-contiguous receive type they must be equal
 * (otherwise the request fails with MPI_ERR_UNSUPPORTED_OPERATION). The
 * total sizes must be equal (otherwise MPI_ERR_TRUNCATE).
 *
 * Matching, as the standard says, by init order: the k-th MPI_Psend_init to
 * (communicator, dest, tag) matches the k-th MPI_Precv_init from
 * (communicator, source, tag). Each side counts its inits per key (struct
 * channel, kept for the life of the process) and the pair's messages use an
 * internal tag of the program's communicator mixed from the tag and k,
 * FARO_TAG_PART_BASE - (tag * golden + k) % FARO_TAG_PART_TAGS, so no
 * program receive sees them and operations with one peer and tag do not
 * meet. Two operations active at once whose mixes are equal modulo 2^22
 * would; the header carries the tag and k, and a header that is not the
 * operation's fails it with MPI_ERR_INTERN.
 *
 * Progress: the sub-requests are polled by this file's progress poller
 * (registered while any partitioned request is active), never from inside a
 * transport callback, so posting the next receive is always safe.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/pt2pt.h"

#define FARO_TAG_PART_BASE (-(1 << 21))
#define FARO_TAG_PART_TAGS (1 << 22)

struct part_hdr {
    int32_t partition, partitions;
    int64_t part_bytes;
    int32_t tag;
    uint32_t seq;
};

/* The inits so far per (context, peer, tag, direction). */
struct channel {
    struct channel *next;
    uint32_t ctx;
    int peer, tag, send;
    uint32_t inits;
};
static struct channel *channels;

/* The sequence number of a new init on its key; UINT32_MAX when out of memory. */
static uint32_t next_seq(MPI_Comm comm, int peer, int tag, int send)
{
    struct channel *c = channels;
    while (c && !(c->ctx == comm->context_id && c->peer == peer && c->tag == tag &&
                  c->send == send))
        c = c->next;
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return UINT32_MAX;
        c->ctx = comm->context_id;
        c->peer = peer;
        c->tag = tag;
        c->send = send;
        c->next = channels;
        channels = c;
    }
    return c->inits++;
}

struct part {
    const struct faro_req_ops *ops;
    struct faro_request *req;
    struct part *next;          /* the active list */
    int send;                   /* Psend_init, else Precv_init */
    char *buf;                  /* the program's */
    int partitions, count;
    MPI_Datatype type;
    int peer, tag, itag;        /* the program's rank and tag; the internal tag */
    uint32_t seq;               /* this init's number on its channel */
    MPI_Comm comm;
    int64_t part_bytes;         /* count * type size */
    int err;                    /* error class of this run */

    /* send side */
    unsigned char *ready;       /* per partition, this run */
    int nposted;                /* partitions whose messages are all posted: a post may
                                 * wait and let another thread's Pready run meanwhile */
    struct part_hdr *hdrs;      /* per partition */
    struct faro_request **out;  /* messages in flight */
    int nout;

    /* receive side */
    struct part_hdr hdr;        /* the header being received */
    struct faro_request *hdrq;  /* its receive, NULL when none is posted */
    int sparts;                 /* the sender's partition count (0: not known yet) */
    int64_t spb;                /* the sender's bytes per partition */
    int nhdrs;                  /* headers received this run */
    unsigned char *arrived;     /* per sender partition */
    struct faro_request **dq;   /* per sender partition: its data receive */
    int *pend;                  /* sender partitions whose data receive is posted */
    int npend;
};

static struct part *active;
static int poller = -1, advancing;

static int part_poll(void *arg);

static void activate(struct part *p)
{
    p->next = active;
    active = p;
    if (poller < 0 && (poller = faro_progress_register(part_poll, NULL)) < 0)
        faro_fatal(MPI_ERR_INTERN, "partitioned communication: no progress poller slot is free");
}

static void deactivate(struct part *p)
{
    for (struct part **pp = &active; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    if (!active && poller >= 0) {
        faro_progress_unregister(poller);
        poller = -1;
    }
}

static void record(struct part *p, int cls)
{
    if (!p->err)
        p->err = cls;
}

static void class_of(struct part *p, struct faro_request *q)
{
    if (q->status.MPI_ERROR != MPI_SUCCESS)
        record(p, q->status.MPI_ERROR);
}

/* ---- receive side ---- */

static int post_header(struct part *p)
{
    return faro_post("MPI_Precv_init", FARO_REQ_RECV, 0, &p->hdr, (int)sizeof p->hdr, MPI_BYTE,
                     p->peer, p->itag, p->comm, FARO_POST_INTERNAL, &p->hdrq);
}

/* The sender's layout, from the first header; 0 or an error class. */
static int learn_layout(struct part *p, const struct part_hdr *h)
{
    if (h->tag != p->tag || h->seq != p->seq)
        return MPI_ERR_INTERN;
    if (h->partitions < 1 || h->part_bytes < 0 ||
        h->part_bytes * h->partitions != p->part_bytes * p->partitions)
        return MPI_ERR_TRUNCATE;
    if (p->sparts) /* known from an earlier run */
        return h->partitions == p->sparts && h->part_bytes == p->spb ? 0 : MPI_ERR_TRUNCATE;
    if (h->partitions != p->partitions && !p->type->dense)
        return MPI_ERR_UNSUPPORTED_OPERATION;
    size_t n = (size_t)h->partitions;
    p->arrived = calloc(n, 1);
    p->dq = calloc(n, sizeof *p->dq);
    p->pend = calloc(n, sizeof *p->pend);
    if (!p->arrived || !p->dq || !p->pend)
        return MPI_ERR_NO_MEM;
    p->sparts = h->partitions;
    p->spb = h->part_bytes;
    return 0;
}

/* A header arrived: post its data receive, then the next header's. */
static void got_header(struct part *p)
{
    struct part_hdr h = p->hdr;
    class_of(p, p->hdrq);
    faro_req_release(p->hdrq);
    p->hdrq = NULL;
    if (p->err)
        return;
    int cls = learn_layout(p, &h);
    if (!cls && (h.partition < 0 || h.partition >= p->sparts || p->dq[h.partition] ||
                 p->arrived[h.partition]))
        cls = MPI_ERR_INTERN;
    if (cls) {
        record(p, cls);
        return;
    }
    int i = h.partition, rc;
    struct faro_request *q = NULL;
    if (p->sparts == p->partitions)
        rc = faro_post("MPI_Precv_init", FARO_REQ_RECV, 0,
                       p->buf + (MPI_Aint)i * p->count * p->type->extent, p->count, p->type,
                       p->peer, p->itag, p->comm, FARO_POST_INTERNAL, &q);
    else
        rc = faro_post("MPI_Precv_init", FARO_REQ_RECV, 0,
                       (char *)faro_type_dense_at(p->buf, p->type) + i * p->spb, (int)p->spb,
                       MPI_BYTE, p->peer, p->itag, p->comm, FARO_POST_INTERNAL, &q);
    if (rc) {
        record(p, MPI_ERR_OTHER);
        return;
    }
    p->dq[i] = q;
    p->pend[p->npend++] = i;
    if (++p->nhdrs < p->sparts && post_header(p))
        record(p, MPI_ERR_OTHER);
}

/* 1 when the receive run is over. */
static int recv_advance(struct part *p)
{
    while (p->hdrq && p->hdrq->complete)
        got_header(p);
    for (int k = 0; k < p->npend;) {
        int i = p->pend[k];
        struct faro_request *q = p->dq[i];
        if (!q->complete) {
            k++;
            continue;
        }
        class_of(p, q);
        faro_req_release(q);
        p->dq[i] = NULL;
        p->arrived[i] = 1;
        p->pend[k] = p->pend[--p->npend];
    }
    if (p->err && p->hdrq) { /* nothing more will come for it */
        MPI_Request h = p->hdrq;
        PMPI_Cancel(&h);
        if (p->hdrq->complete) {
            faro_req_release(p->hdrq);
            p->hdrq = NULL;
        }
    }
    if (p->npend || p->hdrq)
        return 0;
    return p->err || (p->sparts && p->nhdrs == p->sparts);
}

/* ---- send side ---- */

static int send_advance(struct part *p)
{
    for (int k = 0; k < p->nout;) {
        struct faro_request *q = p->out[k];
        if (!q->complete) {
            k++;
            continue;
        }
        class_of(p, q);
        faro_req_release(q);
        p->out[k] = p->out[--p->nout];
    }
    return p->nout == 0 && p->nposted == p->partitions;
}

static int advance(struct part *p)
{
    return p->send ? send_advance(p) : recv_advance(p);
}

static void finish(struct part *p)
{
    deactivate(p);
    if (!p->send) { /* a receive's status names its message */
        p->req->status.MPI_SOURCE = p->peer;
        p->req->status.MPI_TAG = p->tag;
        p->req->status.faro_count = (long long)(p->part_bytes * p->partitions);
    }
    p->req->status.MPI_ERROR = p->err;
    faro_req_complete(p->req); /* releases it (destroy) when the program freed it */
}

static int part_poll(void *arg)
{
    (void)arg;
    if (advancing)
        return 0;
    advancing = 1;
    int events = 0;
    for (struct part *p = active, *next; p; p = next) {
        next = p->next;
        if (advance(p)) {
            finish(p);
            events++;
        }
    }
    advancing = 0;
    return events;
}

/* ---- the request's operations ---- */

static int part_start(struct faro_request *r)
{
    struct part *p = r->ctx;
    r->complete = 0;
    faro_status_empty(&r->status);
    p->err = 0;
    p->nposted = p->nhdrs = 0;
    if (p->send) {
        memset(p->ready, 0, (size_t)p->partitions);
    } else {
        if (p->arrived)
            memset(p->arrived, 0, (size_t)p->sparts);
        if (p->peer == MPI_PROC_NULL) {
            r->status.MPI_SOURCE = MPI_PROC_NULL;
            r->complete = 1;
            return MPI_SUCCESS;
        }
        if (post_header(p)) {
            r->complete = 1;
            r->status.MPI_ERROR = MPI_ERR_OTHER;
            return faro_err(p->comm, MPI_ERR_OTHER, "MPI_Start: a partitioned receive could "
                            "not post its first receive");
        }
    }
    activate(p);
    return MPI_SUCCESS;
}

static int part_cancel(struct faro_request *r)
{
    return faro_err(r->comm, MPI_ERR_REQUEST, "MPI_Cancel: partitioned requests cannot be "
                    "cancelled in Faro (complete them, then MPI_Request_free)");
}

static void part_destroy(struct faro_request *r)
{
    struct part *p = r->ctx;
    faro_type_release(p->type);
    free(p->ready);
    free(p->hdrs);
    free(p->out);
    free(p->arrived);
    free(p->dq);
    free(p->pend);
    free(p);
    r->ctx = NULL;
}

static const struct faro_req_ops psend_ops = {"a partitioned send", part_start, part_cancel,
                                              part_destroy};
static const struct faro_req_ops precv_ops = {"a partitioned receive", part_start, part_cancel,
                                              part_destroy};

/* ---- init ---- */

static int init(const char *fn, int send, const void *buf, int partitions, MPI_Count count,
                MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Info info,
                MPI_Request *request)
{
    MPI_Comm ec = faro_comm_check(comm) ? MPI_COMM_NULL : comm;
    if (!request)
        return faro_err(ec, MPI_ERR_ARG, "%s: request pointer is NULL", fn);
    if (count < 0 || count > INT_MAX)
        return faro_err(ec, MPI_ERR_COUNT, "%s: count is %lld; 0 to INT_MAX (%d) elements per "
                        "partition are supported", fn, count, INT_MAX);
    int rc = faro_check_p2p(fn, comm, buf, (int)count, &type, peer, tag, !send);
    if (rc)
        return rc;
    if (peer == MPI_ANY_SOURCE)
        return faro_err(comm, MPI_ERR_RANK, "%s: MPI_ANY_SOURCE is not allowed (a partitioned "
                        "receive names its source)", fn);
    if (tag == MPI_ANY_TAG)
        return faro_err(comm, MPI_ERR_TAG, "%s: MPI_ANY_TAG is not allowed (a partitioned "
                        "receive names its tag)", fn);
    if (partitions < 1)
        return faro_err(comm, MPI_ERR_ARG, "%s: partitions is %d; at least 1 is required", fn,
                        partitions);
    if (info != MPI_INFO_NULL && faro_info_check(info))
        return faro_err(comm, MPI_ERR_INFO, "%s: info is not a valid info object (freed, or "
                        "never created); pass MPI_INFO_NULL for none", fn);
    uint32_t seq = next_seq(comm, peer, tag, send);
    struct part *p = seq != UINT32_MAX ? calloc(1, sizeof *p) : NULL;
    int ok = p != NULL;
    if (ok && send) {
        p->ready = calloc((size_t)partitions, 1);
        p->hdrs = calloc((size_t)partitions, sizeof *p->hdrs);
        p->out = calloc((size_t)partitions * 2, sizeof *p->out);
        ok = p->ready && p->hdrs && p->out;
    }
    struct faro_request *r = ok ? faro_req_alloc(FARO_REQ_OPS, comm) : NULL;
    if (!r) {
        if (p) {
            free(p->ready);
            free(p->hdrs);
            free(p->out);
        }
        free(p);
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for %d partitions", fn,
                        partitions);
    }
    p->ops = send ? &psend_ops : &precv_ops;
    p->req = r;
    p->send = send;
    p->buf = (char *)buf;
    p->partitions = partitions;
    p->count = (int)count;
    p->type = type;
    faro_type_retain(type); /* each start uses it, whatever the program frees */
    p->peer = peer;
    p->tag = tag;
    p->seq = seq;
    p->itag = FARO_TAG_PART_BASE -
              (int)(((uint32_t)tag * 2654435761u + seq) % FARO_TAG_PART_TAGS);
    p->comm = comm;
    p->part_bytes = (int64_t)count * (int64_t)type->size;
    r->ctx = p;
    r->persistent = 1;
    r->complete = 1; /* inactive */
    *request = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Psend_init = PMPI_Psend_init
int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FARO_LOCKED;
    return init("MPI_Psend_init", 1, buf, partitions, count, datatype, dest, tag, comm, info,
                request);
}

#pragma weak MPI_Precv_init = PMPI_Precv_init
int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    FARO_LOCKED;
    return init("MPI_Precv_init", 0, buf, partitions, count, datatype, source, tag, comm, info,
                request);
}

/* ---- Pready, Parrived ---- */

/* request is a partitioned request of the kind ops, started; its part, or NULL
 * with *rc the error raised. */
static struct part *started(const char *fn, MPI_Request request,
                            const struct faro_req_ops *ops, int *rc)
{
    if (faro_req_check(request) || request->kind != FARO_REQ_OPS ||
        faro_req_ops_of(request) != ops) {
        *rc = faro_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "%s: request is not a partitioned %s "
                       "request (made by %s)", fn, ops == &psend_ops ? "send" : "receive",
                       ops == &psend_ops ? "MPI_Psend_init" : "MPI_Precv_init");
        return NULL;
    }
    if (!request->active) {
        *rc = faro_err(request->comm, MPI_ERR_REQUEST, "%s: the request is not active (start "
                       "it with MPI_Start or MPI_Startall first)", fn);
        return NULL;
    }
    return request->ctx;
}

static int bad_partition(const char *fn, struct part *p, int i)
{
    return faro_err(p->comm, MPI_ERR_ARG, "%s: partition %d is out of range (0..%d)", fn, i,
                    p->partitions - 1);
}

/* Send partition i of a started partitioned send. */
static int ready_one(const char *fn, struct part *p, int i)
{
    if (i < 0 || i >= p->partitions)
        return bad_partition(fn, p, i);
    if (p->ready[i])
        return faro_err(p->comm, MPI_ERR_ARG, "%s: partition %d was already marked ready since "
                        "the last MPI_Start", fn, i);
    p->ready[i] = 1;
    struct part_hdr *h = &p->hdrs[i];
    h->partition = i;
    h->partitions = p->partitions;
    h->part_bytes = p->part_bytes;
    h->tag = p->tag;
    h->seq = p->seq;
    struct faro_request *q = NULL;
    int rc = faro_post(fn, FARO_REQ_SEND, FARO_MODE_STANDARD, h, (int)sizeof *h, MPI_BYTE,
                       p->peer, p->itag, p->comm, FARO_POST_INTERNAL, &q);
    if (!rc) {
        p->out[p->nout++] = q;
        rc = faro_post(fn, FARO_REQ_SEND, FARO_MODE_STANDARD,
                       p->buf + (MPI_Aint)i * p->count * p->type->extent, p->count, p->type,
                       p->peer, p->itag, p->comm, FARO_POST_INTERNAL, &q);
        if (!rc)
            p->out[p->nout++] = q;
    }
    if (rc)
        record(p, MPI_ERR_OTHER); /* the run fails; rc was raised already */
    p->nposted++;
    return rc;
}

#pragma weak MPI_Pready = PMPI_Pready
int PMPI_Pready(int partition, MPI_Request request)
{
    FARO_LOCKED;
    int rc;
    struct part *p = started("MPI_Pready", request, &psend_ops, &rc);
    return p ? ready_one("MPI_Pready", p, partition) : rc;
}

#pragma weak MPI_Pready_range = PMPI_Pready_range
int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Pready_range";
    int rc;
    struct part *p = started(fn, request, &psend_ops, &rc);
    if (!p)
        return rc;
    if (partition_low < 0 || partition_high >= p->partitions || partition_low > partition_high)
        return faro_err(p->comm, MPI_ERR_ARG, "%s: range %d..%d is not within 0..%d (low <= "
                        "high)", fn, partition_low, partition_high, p->partitions - 1);
    rc = MPI_SUCCESS;
    for (int i = partition_low; i <= partition_high && !rc; i++)
        rc = ready_one(fn, p, i);
    return rc;
}

#pragma weak MPI_Pready_list = PMPI_Pready_list
int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Pready_list";
    int rc;
    struct part *p = started(fn, request, &psend_ops, &rc);
    if (!p)
        return rc;
    if (length < 0 || (length > 0 && !array_of_partitions))
        return faro_err(p->comm, MPI_ERR_ARG, "%s: length is %d and array_of_partitions %s (a "
                        "length of 0 or more and an array are required)", fn, length,
                        array_of_partitions ? "is set" : "is NULL");
    rc = MPI_SUCCESS;
    for (int k = 0; k < length && !rc; k++)
        rc = ready_one(fn, p, array_of_partitions[k]);
    return rc;
}

#pragma weak MPI_Parrived = PMPI_Parrived
int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Parrived";
    int rc;
    struct part *p = started(fn, request, &precv_ops, &rc);
    if (!p)
        return rc;
    if (!flag)
        return faro_err(p->comm, MPI_ERR_ARG, "%s: flag is NULL", fn);
    if (partition < 0 || partition >= p->partitions)
        return bad_partition(fn, p, partition);
    if (!request->complete)
        faro_progress();
    if (request->complete) { /* the whole run is in (or failed: MPI_Wait says so) */
        *flag = 1;
        return MPI_SUCCESS;
    }
    *flag = 0;
    if (!p->sparts)
        return MPI_SUCCESS;
    if (p->part_bytes == 0) { /* no bytes to map: partition i is the sender's i */
        if (p->sparts == p->partitions)
            *flag = p->arrived[partition];
        return MPI_SUCCESS; /* else only when the whole run is in (above) */
    }
    /* the sender partitions that hold this receive partition's bytes */
    int64_t lo = partition * p->part_bytes, hi = lo + p->part_bytes - 1;
    for (int64_t k = lo / p->spb; k <= hi / p->spb; k++)
        if (!p->arrived[k])
            return MPI_SUCCESS;
    *flag = 1;
    return MPI_SUCCESS;
}
