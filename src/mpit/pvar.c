/*
 * MPI_T performance variables: the counters the core keeps, read through
 * per-session handles.
 *
 * Variables (all MPI_UNSIGNED_LONG_LONG, one element):
 * - p2p_<proto>_<dir>[_bytes], proto eager or rndv, dir sent or recvd
 *   (COUNTER): messages and their bytes by protocol, every transport summed;
 *   a message counts when the protocol layer sends it, and when its first
 *   fragment (or its request-to-send) arrives;
 * - <transport>_<proto>_<dir>[_bytes] (COUNTER): the same per transport
 *   compiled in (self, shm, tcp, ofi, verbs);
 * - p2p_unexpected_queued (LEVEL), p2p_unexpected_queued_max
 *   (HIGHWATERMARK), p2p_unexpected_bytes (LEVEL): messages waiting for their
 *   receive, the most there ever were, and the payload bytes they hold;
 * - p2p_posted_recvs (LEVEL): receives waiting for their message, counted
 *   from the queues when read;
 * - p2p_comm_unexpected_queued, p2p_comm_posted_recvs (LEVEL, bound to a
 *   communicator): the same for one communicator's point-to-point queues.
 *
 * The raw counters only grow, so a counter handle keeps the raw value at its
 * start and what it had gathered before (a session's handles are independent
 * of each other and of other sessions'). Counters start stopped, may be
 * written and reset (the handle's value, not the process's counter); levels
 * and the watermark are continuous and read-only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "mpit/mpit.h"
#include "objects/arena.h"
#include "objects/comm.h"
#include "p2p/match.h"
#include "p2p/request.h"
#include "transport.h"

enum derived {
    D_UNEXP_QUEUED = FARO_CNT_N, D_UNEXP_MAX, D_UNEXP_BYTES, D_POSTED, D_COMM_UNEXP,
    D_COMM_POSTED,
};

struct pvar {
    char name[64];
    char desc[256];
    int cls;
    int bind;
    int tp;   /* index in faro_transports, or -1: every transport */
    int what; /* enum faro_tp_count or enum derived */
};

struct faro_mpit_pvar_handle {
    unsigned magic;
    struct faro_mpit_session *session;
    struct faro_mpit_pvar_handle *next; /* the session's handles */
    int index;
    uint32_t ctx;                        /* bound communicator's context */
    int started;
    unsigned long long value, base;      /* gathered while stopped; raw at start */
};

struct faro_mpit_session {
    unsigned magic;
    struct faro_mpit_pvar_handle *handles;
};

/* Sessions and handles come from FIFO pools over their arenas
 * (objects/arena.h), so that a made-up one is refused before it is read. */
static struct faro_pool session_pool = FARO_POOL_INIT(
    "MPI_T pvar session", FARO_ARENA_SMALL, struct faro_mpit_session, handles, 64);
static struct faro_pool handle_pool = FARO_POOL_INIT(
    "MPI_T pvar handle", FARO_ARENA_SMALL, struct faro_mpit_pvar_handle, session, 64);

__attribute__((constructor)) static void pvar_arenas_init(void)
{
    faro_pool_start(&session_pool, NULL, 0, 0);
    faro_pool_start(&handle_pool, NULL, 0, 0);
}

#define MAX_TPS 8
#define MAX_PVARS (FARO_CNT_N * (MAX_TPS + 1) + 6)
static struct pvar pvars[MAX_PVARS];
static int npvars;
static uint64_t retired[MAX_TPS][FARO_CNT_N]; /* counts of finalized transport instances */

static const char *const count_names[FARO_CNT_N][2] = {
    [FARO_CNT_EAGER_SENT] = {"eager_sent", "messages sent eagerly (header and data together)"},
    [FARO_CNT_EAGER_SENT_BYTES] = {"eager_sent_bytes", "bytes of the messages sent eagerly"},
    [FARO_CNT_RNDV_SENT] = {"rndv_sent", "messages sent by rendezvous"},
    [FARO_CNT_RNDV_SENT_BYTES] = {"rndv_sent_bytes", "bytes of the messages sent by rendezvous"},
    [FARO_CNT_EAGER_RECVD] = {"eager_recvd", "eager messages that arrived"},
    [FARO_CNT_EAGER_RECVD_BYTES] = {"eager_recvd_bytes", "bytes of the eager messages that "
                                    "arrived"},
    [FARO_CNT_RNDV_RECVD] = {"rndv_recvd", "rendezvous requests that arrived"},
    [FARO_CNT_RNDV_RECVD_BYTES] = {"rndv_recvd_bytes", "bytes of the messages whose "
                                   "rendezvous request arrived"},
};

static void add(const char *name, const char *desc, int cls, int bind, int tp, int what)
{
    struct pvar *p = &pvars[npvars++];
    *p = (struct pvar){.cls = cls, .bind = bind, .tp = tp, .what = what};
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->desc, sizeof p->desc, "%s", desc);
}

static void build(void)
{
    if (npvars)
        return;
    char name[64], desc[256];
    for (int tp = -1; tp < MAX_TPS && (tp < 0 || faro_transports[tp]); tp++) {
        const char *tname = tp < 0 ? "p2p" : faro_transports[tp]->name;
        for (int c = 0; c < FARO_CNT_N; c++) {
            snprintf(name, sizeof name, "%s_%s", tname, count_names[c][0]);
            snprintf(desc, sizeof desc, "%s%s%s", count_names[c][1],
                     tp < 0 ? ", every transport" : " over ", tp < 0 ? "" : tname);
            add(name, desc, MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, tp, c);
        }
    }
    add("p2p_unexpected_queued", "messages that arrived before their receive, waiting in the "
        "unexpected queues now", MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_NO_OBJECT, -1, D_UNEXP_QUEUED);
    add("p2p_unexpected_queued_max", "the most messages the unexpected queues ever held at "
        "once", MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_BIND_NO_OBJECT, -1, D_UNEXP_MAX);
    add("p2p_unexpected_bytes", "memory held by unexpected messages now: their records and "
        "eager payloads (bounded by FARO_UNEXPECTED_LIMIT)", MPI_T_PVAR_CLASS_LEVEL,
        MPI_T_BIND_NO_OBJECT, -1, D_UNEXP_BYTES);
    add("p2p_posted_recvs", "receives posted and waiting for their message now",
        MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_NO_OBJECT, -1, D_POSTED);
    add("p2p_comm_unexpected_queued", "messages waiting for their receive in this "
        "communicator's point-to-point queue now", MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_MPI_COMM,
        -1, D_COMM_UNEXP);
    add("p2p_comm_posted_recvs", "receives posted on this communicator and waiting for their "
        "message now", MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_MPI_COMM, -1, D_COMM_POSTED);
}

int faro_mpit_pvar_count(void)
{
    build();
    return npvars;
}

const char *faro_mpit_pvar_component(int index)
{
    build();
    int tp = pvars[index].tp;
    return tp < 0 ? "p2p" : faro_transports[tp]->name;
}

static int tp_index(const faro_tp_ops_t *ops)
{
    for (int i = 0; i < MAX_TPS && faro_transports[i]; i++)
        if (faro_transports[i] == ops)
            return i;
    return -1;
}

void faro_mpit_retire(const struct faro_transport *t)
{
    int i = tp_index(t->ops);
    if (i < 0)
        return;
    for (int c = 0; c < FARO_CNT_N; c++)
        retired[i][c] += t->count[c];
}

static unsigned long long count_of(int tp, int c)
{
    unsigned long long v = 0;
    for (int i = 0; i < MAX_TPS && faro_transports[i]; i++)
        if (tp < 0 || tp == i)
            v += retired[i][c];
    for (int i = 0; i < faro.ntps && faro.tps; i++)
        if (tp < 0 || faro.tps[i].ops == faro_transports[tp])
            v += faro.tps[i].count[c];
    return v;
}

/* Entries of one context's queues (ctx UINT32_MAX: every context). */
static unsigned long long queued(uint32_t ctx, int posted)
{
    unsigned long long n = 0;
    for (uint32_t i = 0; i < faro_mq_cap; i++) {
        struct faro_mq *q = faro_mq_table[i];
        if (!q || (ctx != UINT32_MAX && ctx != i))
            continue;
        if (posted)
            for (struct faro_request *r = q->posted; r; r = r->next)
                n++;
        else
            for (struct faro_unexp *u = q->unexp; u; u = u->next)
                n++;
    }
    return n;
}

/* The library lock: the counts, queues and unexpected-message totals are
 * plain fields that the send and receive paths change under it (no atomics
 * there), so a tool thread reads them under it too. */
static unsigned long long raw(const struct faro_mpit_pvar_handle *h)
{
    FARO_LOCKED;
    const struct pvar *p = &pvars[h->index];
    switch (p->what) {
    case D_UNEXP_QUEUED: return faro_unexp_queued;
    case D_UNEXP_MAX: return faro_unexp_queued_max;
    case D_UNEXP_BYTES: return faro_unexp_bytes;
    case D_POSTED: return queued(UINT32_MAX, 1);
    case D_COMM_UNEXP: return queued(h->ctx, 0);
    case D_COMM_POSTED: return queued(h->ctx, 1);
    default: return count_of(p->tp, p->what);
    }
}

static int continuous(int index)
{
    return pvars[index].cls != MPI_T_PVAR_CLASS_COUNTER;
}

#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num
int PMPI_T_pvar_get_num(int *num_pvar)
{
    FARO_MPIT_ENTER();
    if (!num_pvar)
        return MPI_T_ERR_INVALID;
    *num_pvar = faro_mpit_pvar_count();
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info
int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                         char *desc, int *desc_len, int *bind, int *readonly, int *continuous_,
                         int *atomic)
{
    FARO_MPIT_ENTER();
    if (pvar_index < 0 || pvar_index >= faro_mpit_pvar_count())
        return MPI_T_ERR_INVALID_INDEX;
    const struct pvar *p = &pvars[pvar_index];
    int cont = continuous(pvar_index);
    faro_mpit_copy(p->name, name, name_len);
    faro_mpit_copy(p->desc, desc, desc_len);
    if (verbosity) /* the protocol totals first, the per-transport detail after */
        *verbosity = p->tp < 0 ? MPI_T_VERBOSITY_USER_BASIC : MPI_T_VERBOSITY_TUNER_DETAIL;
    if (var_class)
        *var_class = p->cls;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = p->bind;
    if (readonly)
        *readonly = cont;
    if (continuous_)
        *continuous_ = cont;
    if (atomic)
        *atomic = !cont;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index
int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    FARO_MPIT_ENTER();
    if (!name || !pvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < faro_mpit_pvar_count(); i++)
        if (pvars[i].cls == var_class && strcmp(pvars[i].name, name) == 0) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create
int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    FARO_MPIT_ENTER();
    if (!session)
        return MPI_T_ERR_INVALID;
    struct faro_mpit_session *s = faro_pool_get(&session_pool);
    if (!s)
        return MPI_T_ERR_MEMORY;
    s->magic = FARO_MPIT_MAGIC;
    *session = s;
    return MPI_SUCCESS;
}

static int bad_session(MPI_T_pvar_session s)
{
    return !s || !faro_pool_has(&session_pool, s) || s->magic != FARO_MPIT_MAGIC;
}

#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free
int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    FARO_MPIT_ENTER();
    if (!session || bad_session(*session))
        return MPI_T_ERR_INVALID_SESSION;
    struct faro_mpit_session *s = *session;
    while (s->handles) { /* the standard frees the session's handles with it */
        struct faro_mpit_pvar_handle *h = s->handles;
        s->handles = h->next;
        faro_pool_put(&handle_pool, h);
    }
    faro_pool_put(&session_pool, s);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    FARO_MPIT_ENTER();
    if (bad_session(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (pvar_index < 0 || pvar_index >= faro_mpit_pvar_count())
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    uint32_t ctx = 0;
    if (pvars[pvar_index].bind == MPI_T_BIND_MPI_COMM) {
        MPI_Comm comm = obj_handle ? *(MPI_Comm *)obj_handle : MPI_COMM_NULL;
        if (!faro.initialized || faro.finalized || faro_comm_check(comm) != 0)
            return MPI_T_ERR_INVALID_HANDLE; /* no communicator to bind to */
        ctx = comm->context_id;
    }
    struct faro_mpit_pvar_handle *h = faro_pool_get(&handle_pool);
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->magic = FARO_MPIT_MAGIC;
    h->session = session;
    h->index = pvar_index;
    h->ctx = ctx;
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}

/* A handle of this session; ALL_HANDLES only where all says it may be. */
static int check_handle(MPI_T_pvar_session s, MPI_T_pvar_handle h, int all)
{
    if (bad_session(s))
        return MPI_T_ERR_INVALID_SESSION;
    if (h == MPI_T_PVAR_ALL_HANDLES)
        return all ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
    if (!h || !faro_pool_has(&handle_pool, h) || h->magic != FARO_MPIT_MAGIC ||
        h->session != s)
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free
int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    FARO_MPIT_ENTER();
    int rc = handle ? check_handle(session, *handle, 0) : MPI_T_ERR_INVALID_HANDLE;
    if (rc != MPI_SUCCESS)
        return rc;
    for (struct faro_mpit_pvar_handle **pp = &session->handles; *pp; pp = &(*pp)->next)
        if (*pp == *handle) {
            *pp = (*handle)->next;
            break;
        }
    faro_pool_put(&handle_pool, *handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

/* What a counter handle shows when its raw counter reads now. */
static unsigned long long counted(const struct faro_mpit_pvar_handle *h, unsigned long long now)
{
    return h->started ? h->value + (now - h->base) : h->value;
}

/* The value a handle shows now. */
static unsigned long long value_of(const struct faro_mpit_pvar_handle *h)
{
    unsigned long long now = raw(h);
    return continuous(h->index) ? now : counted(h, now);
}

enum op { OP_START, OP_STOP, OP_RESET };

static int apply(struct faro_mpit_pvar_handle *h, enum op op)
{
    if (continuous(h->index))
        return op == OP_RESET ? MPI_T_ERR_PVAR_NO_WRITE : MPI_T_ERR_PVAR_NO_STARTSTOP;
    switch (op) {
    case OP_START:
        if (!h->started)
            h->base = raw(h);
        h->started = 1;
        break;
    case OP_STOP:
        h->value = value_of(h);
        h->started = 0;
        break;
    case OP_RESET:
        h->value = 0;
        h->base = raw(h);
        break;
    }
    return MPI_SUCCESS;
}

/* One handle, or every handle of the session that takes op (the standard:
 * ALL_HANDLES skips the continuous and read-only ones). */
static int each(MPI_T_pvar_session s, MPI_T_pvar_handle h, enum op op)
{
    int rc = check_handle(s, h, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (h != MPI_T_PVAR_ALL_HANDLES)
        return apply(h, op);
    for (struct faro_mpit_pvar_handle *x = s->handles; x; x = x->next)
        if (!continuous(x->index))
            apply(x, op);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    FARO_MPIT_ENTER();
    return each(session, handle, OP_START);
}

#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop
int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    FARO_MPIT_ENTER();
    return each(session, handle, OP_STOP);
}

#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset
int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    FARO_MPIT_ENTER();
    return each(session, handle, OP_RESET);
}

/* The checks of read, readreset and write: one handle of this session, a
 * buffer, and for a change a variable that takes one. */
static int check_access(MPI_T_pvar_session s, MPI_T_pvar_handle h, const void *buf, int change)
{
    int rc = check_handle(s, h, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    return change && continuous(h->index) ? MPI_T_ERR_PVAR_NO_WRITE : MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    FARO_MPIT_ENTER();
    int rc = check_access(session, handle, buf, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    unsigned long long v = value_of(handle);
    memcpy(buf, &v, sizeof v);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    FARO_MPIT_ENTER();
    int rc = check_access(session, handle, buf, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    /* one raw read for both: no count falls between the read and the reset */
    unsigned long long now = raw(handle);
    unsigned long long v = counted(handle, now);
    memcpy(buf, &v, sizeof v);
    handle->value = 0;
    handle->base = now;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    FARO_MPIT_ENTER();
    int rc = check_access(session, handle, buf, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    memcpy(&handle->value, buf, sizeof handle->value);
    handle->base = raw(handle);
    return MPI_SUCCESS;
}
