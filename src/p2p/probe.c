/*
 * Probe and matched receive. A probe looks at the unexpected queue only: a
 * message that has arrived but is not yet matched is exactly what it reports.
 * Mprobe takes the message out of the queue into an MPI_Message, so no other
 * receive can match it.
 */
#include <stdlib.h>

#include "bigcount/wide.h"
#include "objects/arena.h"
#include "p2p/pt2pt.h"

#define FARO_MESSAGE_MAGIC 0x4d534731u /* "MSG1" */

struct faro_message {
    uint32_t magic; /* FARO_MESSAGE_MAGIC until the message is received */
    struct faro_unexp *u;
    MPI_Comm comm;
};
FARO_PREDEFINED_WRAPPER(faro_message, MESSAGE);
struct faro_message_predefined faro_mpi_message_no_proc; /* compared, never read */

/* Message objects come from a FIFO pool over their arena (objects/arena.h,
 * linked through comm while free), so that a made-up handle is refused before
 * it is read. */
static struct faro_pool message_pool = FARO_POOL_INIT("message", FARO_ARENA_SMALL,
                                                      struct faro_message, comm, 64);

__attribute__((constructor)) static void message_arena_init(void)
{
    faro_pool_start(&message_pool, NULL, 0, 0);
}

/* A probe fills source, tag and count; MPI_ERROR stays as the program set it
 * (only the calls that return several statuses write it). */
static void probe_status(MPI_Status *st, int source, int tag, size_t len)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    st->faro_cancelled = 0;
    st->faro_count = (long long)len;
}

__attribute__((noinline, cold)) static void poll_tick(const char *fn, MPI_Comm comm, int source,
                                                      int tag)
{
    struct faro_wait w = {.fn = fn, .comm = comm, .peer = source, .tag = tag};
    faro_hang_poll_tick(&w);
}

/* Look once (after one progress poll) for a matching unexpected message. */
static struct faro_unexp *look(MPI_Comm comm, int source, int tag, int take)
{
    struct faro_mq *q = faro_mq_get(comm->context_id);
    struct faro_unexp *u = faro_mq_find_unexp(q, source, tag, take);
    if (u)
        return u;
    faro_progress();
    return faro_mq_find_unexp(q, source, tag, take);
}

/* look, for a nonblocking probe: a poll that finds nothing counts for the
 * hang report (runtime/hang.h). */
static struct faro_unexp *look_polled(const char *fn, MPI_Comm comm, int source, int tag,
                                      int take)
{
    struct faro_mq *q = faro_mq_get(comm->context_id);
    struct faro_unexp *u = faro_mq_find_unexp(q, source, tag, take);
    if (u)
        return u;
    int events = faro_progress();
    u = faro_mq_find_unexp(q, source, tag, take);
    if (!u && faro_poll_idle(comm, events))
        poll_tick(fn, comm, source, tag);
    return u;
}

static int check(const char *fn, int source, int tag, MPI_Comm comm)
{
    /* No buffer or datatype in a probe: check with a harmless one. */
    MPI_Datatype bytes = MPI_BYTE;
    return faro_check_p2p(fn, comm, "", 0, &bytes, source, tag, 1);
}

static int make_message(struct faro_unexp *u, MPI_Comm comm, MPI_Message *message)
{
    struct faro_message *m = faro_pool_get(&message_pool);
    if (!m)
        return faro_err(comm, MPI_ERR_NO_MEM, "MPI_Mprobe: out of memory");
    m->magic = FARO_MESSAGE_MAGIC;
    m->u = u;
    m->comm = comm;
    *message = m;
    return MPI_SUCCESS;
}

/* The four probes: take the message (Mprobe) or only look; wait or not. */
static int probe(const char *fn, int source, int tag, MPI_Comm comm, int take, int block,
                 int *flag, MPI_Message *message, MPI_Status *status)
{
    int rc = check(fn, source, tag, comm);
    if (rc)
        return rc;
    if (!flag || (take && !message))
        return faro_err(comm, MPI_ERR_ARG, "%s: %s pointer is NULL", fn,
                        flag ? "message" : "flag");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        if (take)
            *message = MPI_MESSAGE_NO_PROC;
        probe_status(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        return MPI_SUCCESS;
    }
    struct faro_unexp *u = block ? look(comm, source, tag, take)
                                 : look_polled(fn, comm, source, tag, take);
    if (!u && block) {
        struct faro_wait w = {.fn = fn, .comm = comm, .peer = source, .tag = tag};
        faro_wait_begin(&w);
        while (!u) {
            faro_progress_idle(0);
            u = look(comm, source, tag, take);
        }
        faro_wait_end(&w);
    }
    *flag = u != NULL;
    if (!u)
        return MPI_SUCCESS;
    probe_status(status, u->h.m.src, u->h.m.tag, u->h.m.len);
    return take ? make_message(u, comm, message) : MPI_SUCCESS;
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    FARO_LOCKED;
    return probe("MPI_Iprobe", source, tag, comm, 0, 0, flag, NULL, status);
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    FARO_LOCKED;
    int flag;
    return probe("MPI_Probe", source, tag, comm, 0, 1, &flag, NULL, status);
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    FARO_LOCKED;
    return probe("MPI_Improbe", source, tag, comm, 1, 0, flag, message, status);
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    FARO_LOCKED;
    int flag;
    return probe("MPI_Mprobe", source, tag, comm, 1, 1, &flag, message, status);
}

/* MPI_Imrecv and MPI_Imrecv_c (bigcount/wide.h) */
int faro_wide_Imrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,
                     MPI_Message *message, MPI_Request *request)
{
    FARO_LOCKED;
    if (!message || !request)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s pointer is NULL", fn,
                        message ? "request" : "message");
    if (*message == MPI_MESSAGE_NULL)
        return faro_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
                        "%s: message is MPI_MESSAGE_NULL (already received?)", fn);
    struct faro_request *r;
    if (*message == MPI_MESSAGE_NO_PROC) {
        int rc = faro_post(fn, FARO_REQ_RECV, 0, buf, count, type, MPI_PROC_NULL, 0,
                           MPI_COMM_SELF, 0, &r);
        if (rc == MPI_SUCCESS) {
            *message = MPI_MESSAGE_NULL;
            *request = r;
        }
        return rc;
    }
    struct faro_message *m = *message;
    if (!faro_pool_has(&message_pool, m) || m->magic != FARO_MESSAGE_MAGIC)
        return faro_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "%s: argument is not a message "
                        "(uninitialised, already received, or not from MPI_Mprobe?)", fn);
    int rc = faro_check_p2p(fn, m->comm, buf, count, &type, MPI_ANY_SOURCE, MPI_ANY_TAG, 1);
    if (rc)
        return rc;
    r = faro_req_alloc(FARO_REQ_RECV, m->comm);
    if (!r)
        return faro_err(m->comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    r->ubuf = buf;
    r->count = count;
    r->type = type;
    r->rank = m->u->h.m.src;
    r->tag = m->u->h.m.tag;
    rc = faro_recv_prepare(r);
    if (rc) {
        faro_req_release(r);
        return rc;
    }
    faro_recv_take_unexp(r, m->u);
    faro_pool_put(&message_pool, m);
    *message = MPI_MESSAGE_NULL;
    *request = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
                MPI_Request *request)
{
    return faro_wide_Imrecv("MPI_Imrecv", buf, count, type, message, request);
}

int faro_wide_Mrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,
                    MPI_Message *message, MPI_Status *status)
{
    if (!message)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: message pointer is NULL", fn);
    FARO_LOCKED;
    MPI_Request r;
    int rc = faro_wide_Imrecv(fn, buf, count, type, message, &r);
    if (rc)
        return rc;
    return faro_wait_release(fn, r, status);
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
               MPI_Status *status)
{
    return faro_wide_Mrecv("MPI_Mrecv", buf, count, type, message, status);
}
