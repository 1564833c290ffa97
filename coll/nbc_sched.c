/*
 * The schedule engine of the nonblocking collectives (contract: nbc_sched.h).
 *
 * A schedule is a flat array of steps plus the index where each round ends.
 * Running a round walks its steps once: local copies and reductions run on
 * the spot, sends and receives are posted and their requests kept. The
 * engine then waits for nothing: while any schedule is active, nbc_sched.c
 * registers its advance function as a poller of the progress engine, so every
 * poll (MPI_Test, MPI_Wait, any blocking call) tests the current round's
 * requests of each active schedule and, when they are all complete, releases
 * them and runs the next round, as many rounds as are ready. When no schedule
 * is active the poller is unregistered and an idle poll pays one branch.
 *
 * This file owns its request kind (FARO_REQ_COLL): it allocates the request
 * at the start, reads the complete flag and status of the point-to-point
 * requests it posted, releases them itself, and completes its own request
 * with faro_req_complete (which releases it at once when the program already
 * called MPI_Request_free). Active schedules form a FIFO list, so older
 * operations are advanced first.
 */
#include <stdlib.h>
#include <string.h>

#include "collcheck.h"
#include "nbc_sched.h"
#include "p2p/request.h"

enum step_kind { STEP_SEND, STEP_RECV, STEP_REDUCE, STEP_COPY, STEP_CALL };

struct step {
    uint8_t kind;
    uint8_t local;       /* a message over comm->local (intercommunicators) */
    int count, count2, peer;
    int tag;             /* 0: the schedule's */
    void (*call)(void *arg); /* STEP_CALL, with buf2 its argument */
    const void *buf;     /* send, copy source, reduce in */
    void *buf2;          /* receive, copy destination, reduce inout */
    MPI_Datatype type, type2;
    MPI_Op op;
};

#define INLINE_STEPS 8
#define INLINE_ROUNDS 8
#define INLINE_TMPS 4

struct faro_sched {
    struct faro_sched *next; /* the active list */
    struct faro_request *req;
    struct faro_coll c;
    int failed;              /* out of memory while building */
    int keep;                /* persistent (persistent.c): rerun, not freed, when done */
    int local;               /* messages added now go over comm->local */
    int err;                 /* error class of a failed step */

    struct step *steps;
    int nsteps, scap;
    int *ends;               /* ends[r]: first step after round r */
    int nrounds, rcap;
    int round;               /* next round to run */
    int round_start;         /* first step of the round being built */

    MPI_Request *reqs;       /* the running round's posted requests */
    int nreqs, qcap;
    int ndone;               /* reqs[0..ndone) seen complete: not tested again */

    void **tmps;
    int ntmps, tcap;

    struct step inline_steps[INLINE_STEPS];
    int inline_ends[INLINE_ROUNDS];
    MPI_Request inline_reqs[INLINE_STEPS];
    void *inline_tmps[INLINE_TMPS];
};

static struct faro_sched *active_head, **active_tail = &active_head;
static struct faro_sched **capture; /* faro_sched_capture: where the next start goes */
static int advancing; /* the hook is not re-entered from a post inside it */
static int poller = -1; /* the progress poller slot while schedules are active */

/* Grow an array kept inline at first; 0 or -1. */
static int grow(void **arr, int *cap, size_t elem, void *inline_arr)
{
    int ncap = *cap * 2;
    void *n = malloc((size_t)ncap * elem);
    if (!n)
        return -1;
    memcpy(n, *arr, (size_t)*cap * elem);
    if (*arr != inline_arr)
        free(*arr);
    *arr = n;
    *cap = ncap;
    return 0;
}

int faro_sched_no_mem(MPI_Comm comm, const char *fn)
{
    return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for the schedule", fn);
}

struct faro_sched *faro_sched_new(MPI_Comm comm, const char *fn, struct faro_cc *cc)
{
    struct faro_sched *s = malloc(sizeof *s);
    if (!s) {
        free(cc);
        return NULL;
    }
    unsigned seq = comm->nbc_seq - 1; /* taken by faro_nbc_check */
    int tag = FARO_NBC_TAG_BASE - (int)(seq % FARO_NBC_TAGS);
    s->next = NULL;
    s->req = NULL;
    s->c = faro_coll_of(comm, fn, tag);
    s->failed = s->err = s->local = s->keep = 0;
    s->steps = s->inline_steps;
    s->nsteps = 0;
    s->scap = INLINE_STEPS;
    s->ends = s->inline_ends;
    s->nrounds = 0;
    s->rcap = INLINE_ROUNDS;
    s->round = s->round_start = 0;
    s->reqs = s->inline_reqs;
    s->nreqs = s->ndone = 0;
    s->qcap = INLINE_STEPS;
    s->tmps = s->inline_tmps;
    s->ntmps = 0;
    s->tcap = INLINE_TMPS;
    if (cc)
        faro_cc_schedule(s, cc);
    return s;
}

const struct faro_coll *faro_sched_coll(const struct faro_sched *s)
{
    return &s->c;
}

static struct step *add(struct faro_sched *s, int kind)
{
    if (s->failed)
        return NULL;
    if (s->nsteps == s->scap &&
        grow((void **)&s->steps, &s->scap, sizeof *s->steps, s->inline_steps)) {
        s->failed = 1;
        return NULL;
    }
    struct step *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = (uint8_t)kind;
    return st;
}

/* Each step holds a reference on what it names (released in destroy). */
static void hold(struct step *st)
{
    faro_type_retain(st->type);
    faro_type_retain(st->type2);
    if (st->op != MPI_OP_NULL)
        faro_op_retain(st->op);
}

static int message(struct faro_sched *s, int kind, const void *buf, int count, MPI_Datatype t,
                   int peer)
{
    struct step *st = add(s, kind);
    if (!st)
        return -1;
    if (kind == STEP_SEND)
        st->buf = buf;
    else
        st->buf2 = (void *)buf;
    st->count = count;
    st->type = t;
    st->peer = peer;
    st->local = (uint8_t)s->local;
    hold(st);
    return 0;
}

void faro_sched_local(struct faro_sched *s, int local)
{
    s->local = local;
}

int faro_sched_signal(struct faro_sched *s, int peer)
{
    return message(s, STEP_SEND, NULL, 0, MPI_BYTE, peer);
}

int faro_sched_await(struct faro_sched *s, int peer)
{
    return message(s, STEP_RECV, NULL, 0, MPI_BYTE, peer);
}

int faro_sched_send_tag(struct faro_sched *s, const void *buf, int count, MPI_Datatype t,
                        int peer, int tag)
{
    int rc = message(s, STEP_SEND, buf, count, t, peer);
    if (!rc)
        s->steps[s->nsteps - 1].tag = tag;
    return rc;
}

int faro_sched_recv_tag(struct faro_sched *s, void *buf, int count, MPI_Datatype t, int peer,
                        int tag)
{
    int rc = message(s, STEP_RECV, buf, count, t, peer);
    if (!rc)
        s->steps[s->nsteps - 1].tag = tag;
    return rc;
}

int faro_sched_call(struct faro_sched *s, void (*fn)(void *arg), void *arg)
{
    struct step *st = add(s, STEP_CALL);
    if (!st)
        return -1;
    st->call = fn;
    st->buf2 = arg;
    return 0;
}

int faro_sched_send(struct faro_sched *s, const void *buf, int count, MPI_Datatype t, int peer)
{
    if ((size_t)count * t->size == 0)
        return 0;
    return message(s, STEP_SEND, buf, count, t, peer);
}

int faro_sched_recv(struct faro_sched *s, void *buf, int count, MPI_Datatype t, int peer)
{
    if ((size_t)count * t->size == 0)
        return 0;
    return message(s, STEP_RECV, buf, count, t, peer);
}

int faro_sched_reduce(struct faro_sched *s, const void *in, void *inout, int count,
                      MPI_Datatype t, MPI_Op op)
{
    if (count == 0)
        return 0;
    struct step *st = add(s, STEP_REDUCE);
    if (!st)
        return -1;
    st->buf = in;
    st->buf2 = inout;
    st->count = count;
    st->type = t;
    st->op = op;
    hold(st);
    return 0;
}

int faro_sched_copy(struct faro_sched *s, const void *src, int scount, MPI_Datatype stype,
                    void *dst, int rcount, MPI_Datatype rtype)
{
    if ((size_t)scount * stype->size == 0)
        return 0;
    struct step *st = add(s, STEP_COPY);
    if (!st)
        return -1;
    st->buf = src;
    st->count = scount;
    st->type = stype;
    st->buf2 = dst;
    st->count2 = rcount;
    st->type2 = rtype;
    hold(st);
    return 0;
}

void faro_sched_round(struct faro_sched *s)
{
    if (s->failed || s->nsteps == s->round_start)
        return;
    if (s->nrounds == s->rcap &&
        grow((void **)&s->ends, &s->rcap, sizeof *s->ends, s->inline_ends)) {
        s->failed = 1;
        return;
    }
    s->ends[s->nrounds++] = s->nsteps;
    s->round_start = s->nsteps;
}

void faro_sched_adopt(struct faro_sched *s, void *mem)
{
    if (s->ntmps == s->tcap &&
        grow((void **)&s->tmps, &s->tcap, sizeof *s->tmps, s->inline_tmps)) {
        free(mem);
        s->failed = 1;
        return;
    }
    s->tmps[s->ntmps++] = mem;
}

void *faro_sched_tmp(struct faro_sched *s, size_t bytes)
{
    if (s->failed)
        return NULL;
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        s->failed = 1;
        return NULL;
    }
    faro_sched_adopt(s, p);
    return s->failed ? NULL : p;
}

void *faro_sched_tmp_typed(struct faro_sched *s, size_t count, MPI_Datatype t)
{
    MPI_Aint lo, hi;
    faro_coll_span(count, t, &lo, &hi);
    char *mem = faro_sched_tmp(s, (size_t)(hi - lo) + 1);
    return mem ? mem - lo : NULL;
}

static void destroy(struct faro_sched *s)
{
    for (int i = 0; i < s->nsteps; i++) {
        struct step *st = &s->steps[i];
        faro_type_release(st->type);
        faro_type_release(st->type2);
        if (st->op != MPI_OP_NULL)
            faro_op_release(st->op);
    }
    for (int i = 0; i < s->ntmps; i++)
        free(s->tmps[i]);
    if (s->steps != s->inline_steps)
        free(s->steps);
    if (s->ends != s->inline_ends)
        free(s->ends);
    if (s->reqs != s->inline_reqs)
        free(s->reqs);
    if (s->tmps != s->inline_tmps)
        free(s->tmps);
    free(s);
}

static void fail(struct faro_sched *s, int code)
{
    if (s->err)
        return;
    int cls = MPI_ERR_OTHER;
    PMPI_Error_class(code, &cls);
    s->err = cls;
}

/* Post a send or receive. MPI_Type_free during the operation is legal: the
 * step holds a reference, and internal posts accept a freed type that is
 * still alive. */
static int post(struct faro_sched *s, struct step *st, MPI_Request *req)
{
    const struct faro_coll *c = &s->c;
    MPI_Comm comm = st->local ? c->comm->local : c->comm;
    int tag = st->tag ? st->tag : c->tag;
    if (st->kind == STEP_SEND)
        return faro_coll_isend(c->fn, st->buf, st->count, st->type, st->peer, tag, comm, req);
    return faro_coll_irecv(c->fn, st->buf2, st->count, st->type, st->peer, tag, comm, req);
}

/* Run round r: local steps now, sends and receives posted. */
static void run_round(struct faro_sched *s, int r)
{
    int first = r ? s->ends[r - 1] : 0, last = s->ends[r];
    const struct faro_coll *c = &s->c;
    for (int i = first; i < last && !s->err; i++) {
        struct step *st = &s->steps[i];
        int rc;
        switch (st->kind) {
        case STEP_SEND:
        case STEP_RECV:
            rc = post(s, st, &s->reqs[s->nreqs]);
            break;
        case STEP_REDUCE:
            rc = faro_coll_reduce_local(c, st->op, st->buf, st->buf2, st->count, st->type);
            break;
        case STEP_CALL:
            st->call(st->buf2);
            rc = MPI_SUCCESS;
            break;
        default:
            rc = faro_coll_copy(c, st->buf, st->count, st->type, st->buf2, st->count2,
                                st->type2);
            break;
        }
        if (rc)
            fail(s, rc);
        else if (st->kind == STEP_SEND || st->kind == STEP_RECV)
            s->nreqs++;
    }
}

/* Advance s as far as it goes; 1 when it has finished. */
static int advance(struct faro_sched *s)
{
    for (;;) {
        for (; s->ndone < s->nreqs; s->ndone++)
            if (!s->reqs[s->ndone]->complete)
                return 0;
        for (int i = 0; i < s->nreqs; i++) {
            struct faro_request *q = s->reqs[i];
            if (q->status.MPI_ERROR != MPI_SUCCESS && !s->err)
                s->err = q->status.MPI_ERROR;
            faro_req_release(q);
        }
        s->nreqs = s->ndone = 0;
        if (s->err || s->round == s->nrounds)
            return 1;
        run_round(s, s->round++);
    }
}

static void finish(struct faro_sched *s)
{
    struct faro_request *r = s->req;
    if (s->keep) { /* the request is persistent.c's; the schedule waits for the next start */
        s->req = NULL;
        r->status.MPI_ERROR = s->err;
        faro_req_complete(r); /* releases r, and s with it, when the program freed it */
        return;
    }
    r->ctx = NULL;
    r->status.MPI_ERROR = s->err;
    destroy(s);
    faro_req_complete(r); /* releases r when the program freed it already */
}

static int progress_hook(void *arg)
{
    if (advancing)
        return 0;
    advancing = 1;
    int events = 0;
    struct faro_sched **pp = &active_head;
    while (*pp) {
        struct faro_sched *s = *pp;
        if (advance(s)) {
            *pp = s->next;
            if (!*pp)
                active_tail = pp;
            finish(s);
            events++;
        } else {
            pp = &s->next;
        }
    }
    if (!active_head) {
        faro_progress_unregister(poller);
        poller = -1;
    }
    advancing = 0;
    return events;
}

int faro_nbc_check(const char *fn, MPI_Comm comm, MPI_Request *request)
{
    int rc = faro_coll_check_comm(fn, comm);
    if (rc)
        return rc;
    /* The operation's sequence number is taken before any other check, so
     * a call that fails at some ranks only (a bad root-only argument) still
     * leaves every rank's next operation on the same tag. */
    comm->nbc_seq++;
    if (!request)
        return faro_err(comm, MPI_ERR_ARG, "%s: request is NULL (a pointer to an MPI_Request "
                        "is required)", fn);
    return MPI_SUCCESS;
}

static int launch(struct faro_sched *s);

int faro_sched_start(struct faro_sched *s, MPI_Request *request)
{
    MPI_Comm comm = s->c.comm;
    const char *fn = s->c.fn;
    faro_sched_round(s);
    int most = 0; /* the most sends and receives of one round */
    for (int r = 0, first = 0; r < s->nrounds; first = s->ends[r++]) {
        int n = 0;
        for (int i = first; i < s->ends[r]; i++)
            n += s->steps[i].kind == STEP_SEND || s->steps[i].kind == STEP_RECV;
        if (n > most)
            most = n;
    }
    if (!s->failed && most > s->qcap) {
        s->reqs = malloc((size_t)most * sizeof *s->reqs);
        if (!s->reqs) {
            s->reqs = s->inline_reqs;
            s->failed = 1;
        }
    }
    if (!s->failed && capture) {
        s->keep = 1;
        *capture = s;
        capture = NULL;
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    struct faro_request *r = s->failed ? NULL : faro_req_alloc(FARO_REQ_COLL, comm);
    if (!r) {
        destroy(s);
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for the schedule", fn);
    }
    r->ctx = s;
    s->req = r;
    *request = r;
    return launch(s);
}

void faro_sched_capture(struct faro_sched **into)
{
    capture = into;
}

void faro_sched_free(struct faro_sched *s)
{
    destroy(s);
}

int faro_sched_rerun(struct faro_sched *s, struct faro_request *r)
{
    s->req = r;
    s->round = 0;
    s->err = 0;
    s->nreqs = s->ndone = 0;
    r->complete = 0;
    faro_status_empty(&r->status);
    return launch(s);
}

/* Run s's first rounds now; the progress engine runs the rest. */
static int launch(struct faro_sched *s)
{
    const char *fn = s->c.fn;
    int was_advancing = advancing;
    advancing = 1; /* posts below may poll: leave the other schedules be */
    int done = advance(s);
    advancing = was_advancing;
    if (done) {
        finish(s);
        return MPI_SUCCESS;
    }
    s->next = NULL; /* a rerun schedule may still point where it left the list */
    *active_tail = s;
    active_tail = &s->next;
    if (poller < 0 && (poller = faro_progress_register(progress_hook, NULL)) < 0)
        faro_fatal(MPI_ERR_INTERN, "%s: no progress poller slot is free", fn);
    return MPI_SUCCESS;
}

int faro_sched_describe(struct faro_request *r, const char **fn, struct faro_request **pending,
                        int max)
{
    struct faro_sched *s = r->ctx;
    if (!s)
        return 0;
    *fn = s->c.fn;
    int n = 0;
    for (int i = s->ndone; i < s->nreqs && n < max; i++)
        if (!s->reqs[i]->complete)
            pending[n++] = s->reqs[i];
    return n;
}
