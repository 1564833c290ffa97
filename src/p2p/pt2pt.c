/*
 * MPI point-to-point entry points: argument checks, then requests handed to
 * the protocols (send.c, recv.c). Blocking calls are the nonblocking ones
 * plus a wait, except a small standard send that leaves in the call.
 */
#include <stdlib.h>
#include <string.h>

#include "p2p/pt2pt.h"
#include "p2p/request.h"
#include "bigcount/wide.h"

/* A collective's own post may name a type the program freed meanwhile
 * (MPI_Type_free during a nonblocking collective is legal): the schedule
 * holds a reference, so the type is alive though its handle is dead. */
static int internal_type_alive(MPI_Datatype t)
{
    return t && t->magic == FARO_TYPE_MAGIC && t->committed && (!t->freed || t->refs > 0);
}

/* The common case of check_args, inline: a user's call whose arguments are
 * all fine (a buffer of NULL or MPI_IN_PLACE is left to check_args, which
 * knows when that is allowed). */
static inline int args_fine(MPI_Comm comm, const void *buf, MPI_Count count, MPI_Datatype type,
                            int rank, int tag, int is_recv)
{
    return faro.initialized && !faro.finalized && faro_comm_check(comm) == 0 && count >= 0 &&
           faro_type_check(type) == 0 && (uintptr_t)buf > (uintptr_t)MPI_IN_PLACE &&
           ((unsigned)rank < (unsigned)faro_comm_peer_size(comm) || rank == MPI_PROC_NULL ||
            (is_recv && rank == MPI_ANY_SOURCE)) &&
           (tag >= 0 || (is_recv && tag == MPI_ANY_TAG)); /* FARO_TAG_UB is INT_MAX */
}

/* *type may change: MPI_DATATYPE_NULL with count 0 is an empty message of MPI_BYTE. */
__attribute__((noinline)) static int check_args_slow(const char *fn, MPI_Comm comm, const void *buf, MPI_Count count,
                           MPI_Datatype *typep, int rank, int tag, int is_recv, int internal)
{
    MPI_Datatype type = *typep;
    if (!faro.initialized || faro.finalized)
        faro_fatal(MPI_ERR_OTHER, "%s called %s", fn,
                   faro.finalized ? "after MPI_Finalize" : "before MPI_Init");
    if (internal ? !faro_comm_alive(comm) : faro_comm_check(comm) != 0)
        return faro_comm_bad(fn, comm);
    if (count < 0)
        return faro_err(comm, MPI_ERR_COUNT, "%s: count %lld is negative", fn, (long long)count);
    if (internal ? !internal_type_alive(type) : faro_type_check(type) != 0) {
        if (type != MPI_DATATYPE_NULL)
            return faro_type_bad(fn, comm, type);
        if (count > 0)
            return faro_err(comm, MPI_ERR_TYPE, "%s: datatype is MPI_DATATYPE_NULL with count "
                            "%lld (a null datatype is accepted only with count 0)", fn,
                            (long long)count);
        *typep = type = MPI_BYTE; /* count 0: an empty message, as MPICH accepts */
    }
    if (__builtin_expect((uintptr_t)buf <= (uintptr_t)MPI_IN_PLACE, 0)) { /* NULL or IN_PLACE */
        if (buf == MPI_IN_PLACE)
            return faro_err(comm, MPI_ERR_BUFFER, "%s: the buffer is MPI_IN_PLACE, which only "
                            "collectives take", fn);
        if (count > 0 && type->size > 0 && type->predefined)
            return faro_err(comm, MPI_ERR_BUFFER, "%s: buffer is NULL but count is %lld", fn,
                            (long long)count);
    }
    int n = faro_comm_peer_size(comm); /* an intercommunicator's ranks name its remote group */
    int ok_rank = (rank >= 0 && rank < n) || rank == MPI_PROC_NULL ||
                  (is_recv && rank == MPI_ANY_SOURCE);
    if (!ok_rank)
        return faro_err(comm, MPI_ERR_RANK,
                        "%s: %s %d is invalid (%s size %d: 0..%d, MPI_PROC_NULL%s)", fn,
                        is_recv ? "source" : "destination", rank,
                        comm->inter ? "remote group" : "communicator", n, n - 1,
                        is_recv ? ", MPI_ANY_SOURCE" : "");
    if (!((tag >= 0 && tag <= FARO_TAG_UB) || (is_recv && tag == MPI_ANY_TAG)))
        return faro_err(comm, MPI_ERR_TAG, "%s: tag %d is invalid (0..MPI_TAG_UB=%d%s)", fn, tag,
                        FARO_TAG_UB, is_recv ? ", MPI_ANY_TAG" : "");
    return MPI_SUCCESS;
}

/* Forced inline: left to itself, the compiler calls it, and saving and
 * restoring registers for nine arguments cost more than the checks. */
__attribute__((always_inline)) static inline int
check_args(const char *fn, MPI_Comm comm, const void *buf, MPI_Count count, MPI_Datatype *typep,
           int rank, int tag, int is_recv, int internal)
{
    if (__builtin_expect(!internal && args_fine(comm, buf, count, *typep, rank, tag, is_recv), 1))
        return MPI_SUCCESS;
    return check_args_slow(fn, comm, buf, count, typep, rank, tag, is_recv, internal);
}

int faro_check_p2p(const char *fn, MPI_Comm comm, const void *buf, MPI_Count count,
                   MPI_Datatype *type, int rank, int tag, int is_recv)
{
    return check_args(fn, comm, buf, count, type, rank, tag, is_recv, 0);
}

int faro_send_prepare(struct faro_request *r)
{
    MPI_Datatype t = r->type;
    r->peer = faro_comm_world_rank(r->comm, r->rank);
    r->len = (size_t)r->count * t->size;
    if (t->dense || r->len == 0) { /* straight from the buffer, at the type's offset */
        r->data = faro_type_dense_at(r->ubuf, t);
        return MPI_SUCCESS;
    }
    r->data = NULL; /* packed by faro_send_start, the way its protocol wants */
    return MPI_SUCCESS;
}

/* A receive into a non-contiguous type lands in a staging copy. */
static int recv_stage(struct faro_request *r)
{
    MPI_Datatype t = r->type;
    r->tmp = malloc(r->len);
    if (!r->tmp)
        return faro_err(r->comm, MPI_ERR_NO_MEM, "out of memory staging %zu bytes", r->len);
    r->data = r->tmp;
    r->landed = 0;
    faro_type_retain(t); /* unpacked at the end; released with the request (request.c) */
    return MPI_SUCCESS;
}

/* The common case first; staging apart (recv_stage). */
int faro_recv_prepare(struct faro_request *r)
{
    MPI_Datatype t = r->type;
    r->len = (size_t)r->count * t->size;
    if (t->dense || r->len == 0) {
        r->data = faro_type_dense_at(r->ubuf, t);
        return MPI_SUCCESS;
    }
    return recv_stage(r);
}

/* Start (or restart, for persistent requests) an operation already described
 * by r's user fields. A new request is as faro_req_alloc left it; a
 * persistent one is reset from its last start here. */
int faro_req_start(struct faro_request *r)
{
    if (r->persistent) {
        r->complete = 0;
        r->pending = 0;
        r->off = r->total = r->received = 0;
        r->inflight = 0;
        r->reg = NULL;
        r->rkey = NULL;
        if (r->tmp) /* the last start staged its data */
            faro_req_unstage(r);
        faro_status_empty(&r->status);
    }
    if (r->rank == MPI_PROC_NULL) {
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->complete = 1;
        return MPI_SUCCESS;
    }
    if (r->kind == FARO_REQ_SEND) {
        if (r->mode == FARO_MODE_BUFFERED)
            return faro_bsend_start(r);
        int rc = faro_send_prepare(r);
        return rc ? rc : faro_send_start(r);
    }
    int rc = faro_recv_prepare(r);
    return rc ? rc : faro_recv_start(r);
}

/* The arguments of a post (faro_post's flags); *type as check_args leaves it. */
static inline int post_check(const char *fn, int kind, const void *buf, MPI_Count count,
                             MPI_Datatype *type, int rank, int tag, MPI_Comm comm, int flags)
{
    int check_tag = tag;
    if (flags & FARO_POST_INTERNAL) {
        if (tag > FARO_TAG_COLL_MAX)
            faro_fatal(MPI_ERR_INTERN, "%s: internal tag %d is not below %d", fn, tag,
                       FARO_TAG_COLL_MAX + 1);
        check_tag = 0; /* collective tags are negative by design */
    }
    return check_args(fn, comm, buf, count, type, rank, check_tag, kind == FARO_REQ_RECV,
                      flags & FARO_POST_INTERNAL);
}

/* faro_post once the arguments are checked. */
static int post_checked(const char *fn, int kind, int mode, const void *buf, MPI_Count count,
                        MPI_Datatype type, int rank, int tag, MPI_Comm comm, int flags,
                        struct faro_request **out)
{
    int persistent = flags & FARO_POST_PERSISTENT;
    int rc;
    struct faro_request *r = faro_req_alloc(kind, comm);
    if (!r)
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    r->mode = (uint8_t)mode;
    r->ubuf = (void *)buf;
    r->count = count;
    r->type = type;
    r->rank = rank;
    r->tag = tag;
    r->persistent = (uint8_t)persistent;
    *out = r;
    if (persistent) {
        /* Each MPI_Start uses the type: it lives until MPI_Request_free, whatever
         * the program frees meanwhile (the communicator: faro_req_alloc). */
        faro_type_retain(type);
        r->complete = 1; /* inactive */
        return MPI_SUCCESS;
    }
    rc = faro_req_start(r);
    if (rc) {
        faro_req_release(r);
        *out = NULL;
    }
    return rc;
}

int faro_post(const char *fn, int kind, int mode, const void *buf, MPI_Count count,
              MPI_Datatype type, int rank, int tag, MPI_Comm comm, int flags,
              struct faro_request **out)
{
    int rc = post_check(fn, kind, buf, count, &type, rank, tag, comm, flags);
    return rc ? rc : post_checked(fn, kind, mode, buf, count, type, rank, tag, comm, flags, out);
}

/* ---- blocking ---- */

/* Inline in each entry point, where kind and mode are constants. */
__attribute__((always_inline)) static inline int
blocking(const char *fn, int kind, int mode, const void *buf, MPI_Count count, MPI_Datatype type,
         int rank, int tag, MPI_Comm comm, MPI_Status *st, int flags)
{
    struct faro_request *r = NULL;
    int rc = post_check(fn, kind, buf, count, &type, rank, tag, comm, flags);
    if (rc)
        return rc;
    /* A small standard or ready send usually leaves in the call: no request. */
    if (kind == FARO_REQ_SEND && (mode == FARO_MODE_STANDARD || mode == FARO_MODE_READY) &&
        faro_send_inline_now(comm, buf, count, type, rank, tag))
        return MPI_SUCCESS;
    rc = post_checked(fn, kind, mode, buf, count, type, rank, tag, comm, flags, &r);
    if (rc)
        return rc;
    return faro_wait_release(fn, r, st);
}

/* Each call twice: MPI_<Name> on int counts, and faro_wide_<Name> on
 * MPI_Count, which the generated MPI_<Name>_c calls (bigcount/wide.h). Both
 * are the same inline code on one wide path; the int one keeps its call's
 * name as a constant. */
#define FARO_STR(x) #x
#define WEAK(NAME) _Pragma(FARO_STR(weak MPI_##NAME = PMPI_##NAME))

#define BLOCKING_SEND(NAME, MODE)                                                             \
    __attribute__((always_inline)) static inline int NAME##_body(                              \
        const char *fn, const void *buf, MPI_Count count,                                     \
                                  MPI_Datatype type, int dest, int tag, MPI_Comm comm)        \
    {                                                                                         \
        FARO_LOCKED;                                                                          \
        return blocking(fn, FARO_REQ_SEND, MODE, buf, count, type, dest, tag, comm,           \
                        MPI_STATUS_IGNORE, 0);                                                \
    }                                                                                         \
    WEAK(NAME)                                                                                \
    int PMPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,         \
                    MPI_Comm comm)                                                            \
    {                                                                                         \
        return NAME##_body("MPI_" #NAME, buf, count, type, dest, tag, comm);                  \
    }                                                                                         \
    int faro_wide_##NAME(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type, \
                         int dest, int tag, MPI_Comm comm)                                    \
    {                                                                                         \
        return NAME##_body(fn, buf, count, type, dest, tag, comm);                            \
    }

BLOCKING_SEND(Send, FARO_MODE_STANDARD)
BLOCKING_SEND(Ssend, FARO_MODE_SYNC)
/* A ready send may assume the receive is posted; the standard protocol is
 * always correct for it. */
BLOCKING_SEND(Rsend, FARO_MODE_READY)
BLOCKING_SEND(Bsend, FARO_MODE_BUFFERED)

__attribute__((always_inline)) static inline int recv_body(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,
                            int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    FARO_LOCKED;
    return blocking(fn, FARO_REQ_RECV, 0, buf, count, type, source, tag, comm, status, 0);
}

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    return recv_body("MPI_Recv", buf, count, type, source, tag, comm, status);
}

int faro_wide_Recv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int source,
                   int tag, MPI_Comm comm, MPI_Status *status)
{
    return recv_body(fn, buf, count, type, source, tag, comm, status);
}

/* ---- nonblocking and persistent ---- */

/* The request argument of a nonblocking or persistent call is NULL. */
static int no_request(const char *fn, MPI_Comm comm)
{
    return faro_err(faro_comm_check(comm) ? MPI_COMM_NULL : comm, MPI_ERR_ARG,
                    "%s: request pointer is NULL", fn);
}

static int post_request(const char *fn, int kind, int mode, const void *buf, MPI_Count count,
                        MPI_Datatype type, int rank, int tag, MPI_Comm comm, int flags,
                        MPI_Request *request)
{
    if (!request)
        return no_request(fn, comm);
    FARO_LOCKED;
    return faro_post(fn, kind, mode, buf, count, type, rank, tag, comm, flags, request);
}

/* FLAGS: 0 (nonblocking) or FARO_POST_PERSISTENT */
#define POSTED_SEND(NAME, MODE, FLAGS)                                                        \
    WEAK(NAME)                                                                                \
    int PMPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,         \
                    MPI_Comm comm, MPI_Request *request)                                      \
    {                                                                                         \
        return post_request("MPI_" #NAME, FARO_REQ_SEND, MODE, buf, count, type, dest, tag,   \
                            comm, FLAGS, request);                                            \
    }                                                                                         \
    int faro_wide_##NAME(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type, \
                         int dest, int tag, MPI_Comm comm, MPI_Request *request)              \
    {                                                                                         \
        return post_request(fn, FARO_REQ_SEND, MODE, buf, count, type, dest, tag, comm,       \
                            FLAGS, request);                                                  \
    }
#define POSTED_RECV(NAME, FLAGS)                                                              \
    WEAK(NAME)                                                                                \
    int PMPI_##NAME(void *buf, int count, MPI_Datatype type, int source, int tag,             \
                    MPI_Comm comm, MPI_Request *request)                                      \
    {                                                                                         \
        return post_request("MPI_" #NAME, FARO_REQ_RECV, 0, buf, count, type, source, tag,    \
                            comm, FLAGS, request);                                            \
    }                                                                                         \
    int faro_wide_##NAME(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,       \
                         int source, int tag, MPI_Comm comm, MPI_Request *request)            \
    {                                                                                         \
        return post_request(fn, FARO_REQ_RECV, 0, buf, count, type, source, tag, comm,        \
                            FLAGS, request);                                                  \
    }

POSTED_SEND(Isend, FARO_MODE_STANDARD, 0)
POSTED_SEND(Issend, FARO_MODE_SYNC, 0)
POSTED_SEND(Irsend, FARO_MODE_READY, 0)
POSTED_SEND(Ibsend, FARO_MODE_BUFFERED, 0)
POSTED_RECV(Irecv, 0)
POSTED_SEND(Send_init, FARO_MODE_STANDARD, FARO_POST_PERSISTENT)
POSTED_SEND(Ssend_init, FARO_MODE_SYNC, FARO_POST_PERSISTENT)
POSTED_SEND(Rsend_init, FARO_MODE_READY, FARO_POST_PERSISTENT)
POSTED_SEND(Bsend_init, FARO_MODE_BUFFERED, FARO_POST_PERSISTENT)
POSTED_RECV(Recv_init, FARO_POST_PERSISTENT)

/* ---- combined ---- */

int faro_wide_Sendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                       MPI_Comm comm, MPI_Status *status)
{
    FARO_LOCKED;
    struct faro_request *rr = NULL, *sr = NULL;
    int rc = faro_post(fn, FARO_REQ_RECV, 0, recvbuf, recvcount, recvtype, source, recvtag, comm,
                       0, &rr);
    if (rc)
        return rc;
    rc = faro_post(fn, FARO_REQ_SEND, FARO_MODE_STANDARD, sendbuf, sendcount, sendtype, dest,
                   sendtag, comm, 0, &sr);
    if (rc) {
        PMPI_Cancel(&rr);
        FARO_WAIT_UNTIL(rr->complete);
        faro_req_release(rr);
        return rc;
    }
    struct faro_request *both[2] = {rr, sr};
    faro_wait_reqs(fn, both, 2, 0);
    faro_req_release(sr);
    return faro_wait_release(fn, rr, status);
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return faro_wide_Sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag,
                              recvbuf, recvcount, recvtype, source, recvtag, comm, status);
}

int faro_wide_Sendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,
                               int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                               MPI_Status *status)
{
    FARO_LOCKED;
    int rc = faro_check_p2p(fn, comm, buf, count, &type, dest, sendtag, 0);
    if (rc)
        return rc;
    size_t bytes = (size_t)count * type->size;
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", fn, bytes);
    faro_type_pack(buf, (size_t)count, type, copy);
    rc = faro_wide_Sendrecv(fn, copy, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count,
                            type, source, recvtag, comm, status);
    free(copy);
    return rc;
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return faro_wide_Sendrecv_replace("MPI_Sendrecv_replace", buf, count, type, dest, sendtag,
                                      source, recvtag, comm, status);
}

/* ---- collectives' point-to-point (internal tags) ---- */

int faro_coll_isend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type, int dest,
                    int tag, MPI_Comm comm, MPI_Request *req)
{
    FARO_LOCKED;
    return faro_post(fn, FARO_REQ_SEND, FARO_MODE_STANDARD, buf, count, type, dest, tag, comm,
                     FARO_POST_INTERNAL, req);
}

int faro_coll_irecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int source,
                    int tag, MPI_Comm comm, MPI_Request *req)
{
    FARO_LOCKED;
    return faro_post(fn, FARO_REQ_RECV, 0, buf, count, type, source, tag, comm,
                     FARO_POST_INTERNAL, req);
}

int faro_coll_send(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type, int dest,
                   int tag, MPI_Comm comm)
{
    FARO_LOCKED;
    return blocking(fn, FARO_REQ_SEND, FARO_MODE_STANDARD, buf, count, type, dest, tag, comm,
                    MPI_STATUS_IGNORE, FARO_POST_INTERNAL);
}

int faro_coll_recv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int source,
                   int tag, MPI_Comm comm, MPI_Status *status)
{
    FARO_LOCKED;
    return blocking(fn, FARO_REQ_RECV, 0, buf, count, type, source, tag, comm, status,
                    FARO_POST_INTERNAL);
}

int faro_coll_sendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       int dest, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                       int tag, MPI_Comm comm, MPI_Status *status)
{
    FARO_LOCKED;
    struct faro_request *rr = NULL, *sr = NULL;
    int rc = faro_coll_irecv(fn, recvbuf, recvcount, recvtype, source, tag, comm, &rr);
    if (rc)
        return rc;
    rc = faro_coll_isend(fn, sendbuf, sendcount, sendtype, dest, tag, comm, &sr);
    if (rc) {
        PMPI_Cancel(&rr);
        FARO_WAIT_UNTIL(rr->complete);
        faro_req_release(rr);
        return rc;
    }
    int rs = faro_wait_release(fn, sr, MPI_STATUS_IGNORE);
    int rv = faro_wait_release(fn, rr, status);
    return rv ? rv : rs;
}
