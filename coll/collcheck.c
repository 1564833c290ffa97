/*
 * Collective checking (contract and protocol: collcheck.h). This file owns
 * the description of a call (struct faro_cc), its two phases, blocking and
 * scheduled, and the messages; collcheck_calls.c builds the descriptions
 * from each collective's arguments.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collcheck_impl.h"
#include "nbc_sched.h"

int faro_coll_checking;

#define CC_MAGIC 0x46434331u /* "FCC1" */

/* ---- building a description ---- */

struct faro_cc *faro_cc_new(const char *fn, MPI_Comm comm, int nsend, int nrecv)
{
    size_t bytes = sizeof(struct faro_cc) + (size_t)(nsend + nrecv) * sizeof(struct cc_flow) +
                   (size_t)nrecv * sizeof(struct cc_sig);
    struct faro_cc *cc = calloc(1, bytes);
    if (!cc)
        return NULL;
    fn = faro_err_alias_name(fn); /* a persistent collective's init: its own name */
    cc->fn = fn;
    cc->comm = comm;
    cc->send = (struct cc_flow *)(cc + 1);
    cc->recv = cc->send + nsend;
    cc->got = (struct cc_sig *)(cc->recv + nrecv);
    cc->mine.magic = CC_MAGIC;
    snprintf(cc->mine.fn, sizeof cc->mine.fn, "%s", fn);
    cc->mine.root = CC_NONE;
    cc->mine.op = CC_NONE;
    return cc;
}

void faro_cc_sig(struct cc_sig *s, MPI_Count count, MPI_Datatype t, int block)
{
    struct faro_type_sig ts;
    faro_type_sig(t, (size_t)count, &ts);
    s->h = ts.h;
    s->n = ts.n;
    s->bytes = ts.bytes;
    s->loose = ts.loose;
    s->count = count;
    s->block = block;
    s->root = CC_NONE;
    s->op = CC_NONE;
    snprintf(s->type, sizeof s->type, "%s", t->name && t->name[0] ? t->name : "derived datatype");
}

void faro_cc_op(int32_t *code, MPI_Op op)
{
    *code = op == MPI_OP_NULL ? CC_NONE
            : op->predefined  ? op->kind
                              : (op->commute ? CC_USER_COMMUTE : CC_USER);
}

void faro_cc_add(struct faro_cc *cc, int recv, int peer, int count, MPI_Datatype t, int block)
{
    struct cc_flow *f = recv ? &cc->recv[cc->nrecv++] : &cc->send[cc->nsend++];
    f->peer = peer;
    faro_cc_sig(&f->sig, count, t, block);
}

/* ---- describing things in messages ---- */

static const char *comm_name(MPI_Comm comm, char *buf, size_t len)
{
    if (comm->name[0])
        snprintf(buf, len, "%s", comm->name);
    else
        snprintf(buf, len, "%s with context id %u", comm->inter ? "an intercommunicator"
                                                                : "a communicator",
                 (unsigned)comm->context_id);
    return buf;
}

static const char *op_name(int32_t code, char *buf, size_t len)
{
    static const char *const names[] = {"MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND",
                                        "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR",
                                        "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"};
    if (code >= 0 && code < FARO_OP_NPREDEF)
        snprintf(buf, len, "op %s", names[code]);
    else if (code == CC_USER_COMMUTE)
        snprintf(buf, len, "a commutative user op");
    else if (code == CC_USER)
        snprintf(buf, len, "a non-commutative user op");
    else
        snprintf(buf, len, "no op");
    return buf;
}

/* "4 x MPI_INT (recvcounts[2]; 4 elements, 16 bytes)" */
static const char *sig_text(const struct cc_sig *s, const char *what, char *buf, size_t len)
{
    char where[48] = "";
    if (what && s->block >= 0)
        snprintf(where, sizeof where, "%ss[%d]; ", what, (int)s->block);
    else if (what)
        snprintf(where, sizeof where, "%s; ", what);
    snprintf(buf, len, "%lld x %s (%s%llu basic elements, %llu bytes)", (long long)s->count,
             s->type, where, (unsigned long long)s->n, (unsigned long long)s->bytes);
    return buf;
}

static int sig_equal(const struct cc_sig *a, const struct cc_sig *b)
{
    struct faro_type_sig x = {a->h, a->n, 0, a->bytes, a->loose};
    struct faro_type_sig y = {b->h, b->n, 0, b->bytes, b->loose};
    return faro_type_sig_equal(&x, &y);
}

/* Why two signatures that differ differ, in a few words. */
static const char *sig_why(const struct cc_sig *a, const struct cc_sig *b)
{
    if (a->bytes != b->bytes)
        return "the sizes differ";
    if (a->n != b->n)
        return "the numbers of basic elements differ";
    return "the type signatures differ";
}

static const char *root_text(int32_t root, char *buf, size_t len)
{
    if (root == CC_ROOT_HERE)
        snprintf(buf, len, "root MPI_ROOT or MPI_PROC_NULL");
    else
        snprintf(buf, len, "root %d", (int)root);
    return buf;
}

/* "rank 3" on an intracommunicator; intercommunicators say which group;
 * the job rank follows where it differs. */
static const char *who(const struct faro_cc *cc, int rank, int remote, char *buf, size_t len)
{
    MPI_Comm c = cc->comm;
    int job = remote ? c->remote_world[rank] : c->world ? c->world[rank] : rank;
    int n = c->inter ? snprintf(buf, len, "rank %d of the %s group", rank,
                                remote ? "remote" : "local")
                     : snprintf(buf, len, "rank %d", rank);
    if (job != rank && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " (job rank %d)", job);
    return buf;
}

_Noreturn void faro_cc_fail(const struct faro_cc *cc, const char *fmt, ...)
{
    char what[1024], cn[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    faro_fatal(MPI_ERR_OTHER, "%s on %s: %s (found by FARO_COLL_CHECK; see faro-debug(7))",
               cc->fn, comm_name(cc->comm, cn, sizeof cn), what);
}

/* ---- phase A: compare the records of two ranks ---- */

/* a is the record of rank ra, b of rank rb (remote: rb is in the other group,
 * whose roots read differently: see collcheck_calls.c) */
static void compare_wire(const struct faro_cc *cc, const struct cc_wire *a, int ra,
                         const struct cc_wire *b, int rb, int remote)
{
    char wa[64], wb[64], ta[160], tb[160], cn[96];
    who(cc, ra, 0, wa, sizeof wa);
    who(cc, rb, remote, wb, sizeof wb);
    if (b->magic != CC_MAGIC)
        faro_cc_fail(cc, "%s received a garbled check record from %s", wa, wb);
    if (strcmp(a->fn, b->fn))
        faro_fatal(MPI_ERR_OTHER, "collective mismatch on %s: %s called %s, %s called %s (found "
                   "by FARO_COLL_CHECK; every rank must call the same collectives in the same "
                   "order; see faro-debug(7))",
                   comm_name(cc->comm, cn, sizeof cn), wb, b->fn, wa, a->fn);
    if (!remote && a->root != b->root)
        faro_cc_fail(cc, "%s passed %s, %s passed %s", wb, root_text(b->root, tb, sizeof tb),
                     wa, root_text(a->root, ta, sizeof ta));
    if (remote && a->root != CC_NONE && (a->root == CC_ROOT_HERE) == (b->root == CC_ROOT_HERE))
        faro_cc_fail(cc, "%s and %s both place the root in %s group", wb, wa,
                     a->root == CC_ROOT_HERE ? "their own" : "the other");
    if (a->op != b->op)
        faro_cc_fail(cc, "%s passed %s, %s passed %s", wb, op_name(b->op, tb, sizeof tb), wa,
                     op_name(a->op, ta, sizeof ta));
    if (a->has_sig && b->has_sig && !sig_equal(&a->sig, &b->sig))
        faro_cc_fail(cc, "%s passed %s, %s passed %s: %s", wb,
                     sig_text(&b->sig, NULL, tb, sizeof tb), wa,
                     sig_text(&a->sig, NULL, ta, sizeof ta), sig_why(&a->sig, &b->sig));
    if (!remote && a->has_digest && b->has_digest && a->digest != b->digest)
        faro_cc_fail(cc, "%s and %s passed different recvcounts arrays (they must be the same "
                     "at every rank)", wb, wa);
}

static int left_of(int rank, int size)
{
    return (rank - 1 + size) % size;
}

static void verify_a(struct faro_cc *cc)
{
    MPI_Comm ring = cc->comm->inter ? cc->comm->local : cc->comm;
    if (ring->size > 1)
        compare_wire(cc, &cc->mine, ring->rank, &cc->left, left_of(ring->rank, ring->size), 0);
    if (cc->comm->inter && cc->comm->rank == 0)
        compare_wire(cc, &cc->mine, 0, &cc->remote, 0, 1);
}

/* ---- phase B: each received block against the one expected ---- */

static void verify_b(struct faro_cc *cc)
{
    char ws[64], wr[64], ts[160], tr[160];
    int me = cc->comm->rank;
    for (int i = 0; i < cc->nrecv; i++) {
        const struct cc_flow *f = &cc->recv[i];
        const struct cc_sig *got = &cc->got[i];
        who(cc, f->peer, cc->comm->inter, ws, sizeof ws);
        who(cc, me, 0, wr, sizeof wr);
        if (f->sig.root == CC_ROOT_IDLE) { /* nothing of theirs lands here */
            if (got->root == me)
                faro_cc_fail(cc, "%s passed root %d, but %s passed MPI_PROC_NULL (MPI_ROOT is "
                             "for the root)", ws, me, wr);
            continue;
        }
        if (got->root != f->sig.root)
            faro_cc_fail(cc, "%s passed root %d, but the root is %s (it passed MPI_ROOT)", ws,
                         (int)got->root, wr);
        if (got->op != f->sig.op)
            faro_cc_fail(cc, "%s passed %s, %s passed %s", ws, op_name(got->op, ts, sizeof ts),
                         wr, op_name(f->sig.op, tr, sizeof tr));
        if (!sig_equal(got, &f->sig))
            faro_cc_fail(cc, "%s %s %s, %s %s %s: %s", ws, cc->verb_send,
                         sig_text(got, cc->what_send, ts, sizeof ts), wr, cc->verb_recv,
                         sig_text(&f->sig, cc->what_recv, tr, sizeof tr),
                         sig_why(got, &f->sig));
    }
}

void faro_cc_local(const struct faro_cc *cc, int send_count, MPI_Datatype send_type,
                   int send_block, int recv_count, MPI_Datatype recv_type, int recv_block)
{
    struct cc_sig s, r;
    char ts[160], tr[160];
    faro_cc_sig(&s, send_count, send_type, send_block);
    faro_cc_sig(&r, recv_count, recv_type, recv_block);
    if (!sig_equal(&s, &r))
        faro_cc_fail(cc, "rank %d's own block: it %s %s but %s %s: %s", cc->comm->rank,
                     cc->verb_send, sig_text(&s, cc->what_send, ts, sizeof ts), cc->verb_recv,
                     sig_text(&r, cc->what_recv, tr, sizeof tr), sig_why(&s, &r));
}

/* ---- running the check in a blocking call ---- */

static int no_mem(const char *fn, MPI_Comm comm)
{
    return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for the collective check", fn);
}

static int exchange_wire(const struct faro_cc *cc, MPI_Comm comm, int right, int left,
                         struct cc_wire *got)
{
    return faro_coll_sendrecv(cc->fn, &cc->mine, sizeof cc->mine, MPI_BYTE, right, got,
                              sizeof *got, MPI_BYTE, left, FARO_COLL_TAG_CHECK, comm,
                              MPI_STATUS_IGNORE);
}

static int run(struct faro_cc *cc)
{
    MPI_Comm comm = cc->comm, ring = comm->inter ? comm->local : comm;
    int rc = MPI_SUCCESS;
    if (ring->size > 1)
        rc = exchange_wire(cc, ring, (ring->rank + 1) % ring->size,
                           left_of(ring->rank, ring->size), &cc->left);
    if (!rc && comm->inter && comm->rank == 0)
        rc = exchange_wire(cc, comm, 0, 0, &cc->remote);
    if (rc)
        return rc;
    verify_a(cc);
    int n = cc->nsend + cc->nrecv, k = 0;
    if (n == 0)
        return MPI_SUCCESS;
    MPI_Request stack[16], *reqs = n <= 16 ? stack : malloc((size_t)n * sizeof *reqs);
    if (!reqs)
        return no_mem(cc->fn, comm);
    for (int i = 0; i < cc->nrecv && !rc; i++)
        if (!(rc = faro_coll_irecv(cc->fn, &cc->got[i], sizeof cc->got[i], MPI_BYTE,
                                   cc->recv[i].peer, FARO_COLL_TAG_CHECK_FLOW, comm, &reqs[k])))
            k++;
    for (int i = 0; i < cc->nsend && !rc; i++)
        if (!(rc = faro_coll_isend(cc->fn, &cc->send[i].sig, sizeof cc->send[i].sig, MPI_BYTE,
                                   cc->send[i].peer, FARO_COLL_TAG_CHECK_FLOW, comm, &reqs[k])))
            k++;
    int wrc = faro_coll_waitall(k, reqs);
    if (reqs != stack)
        free(reqs);
    if (!rc)
        rc = wrc;
    if (!rc)
        verify_b(cc);
    return rc;
}

int faro_cc_finish(struct faro_cc *cc, struct faro_cc **out)
{
    if (out) {
        *out = cc;
        return MPI_SUCCESS;
    }
    int rc = run(cc);
    free(cc);
    return rc;
}

int faro_cc_no_mem(const char *fn, MPI_Comm comm)
{
    return no_mem(fn, comm);
}

/* ---- running the check as the first rounds of a schedule ---- */

static void step_verify_a(void *arg)
{
    verify_a(arg);
}

static void step_verify_b(void *arg)
{
    verify_b(arg);
}

void faro_cc_schedule(struct faro_sched *s, struct faro_cc *cc)
{
    MPI_Comm comm = cc->comm, ring = comm->inter ? comm->local : comm;
    faro_sched_adopt(s, cc);
    faro_sched_local(s, comm->inter); /* the ring of an intercommunicator's local group */
    if (ring->size > 1) {
        faro_sched_send_tag(s, &cc->mine, sizeof cc->mine, MPI_BYTE, (ring->rank + 1) % ring->size,
                            FARO_COLL_TAG_CHECK);
        faro_sched_recv_tag(s, &cc->left, sizeof cc->left, MPI_BYTE,
                            left_of(ring->rank, ring->size), FARO_COLL_TAG_CHECK);
    }
    faro_sched_local(s, 0);
    if (comm->inter && comm->rank == 0) { /* the leaders, in the same round */
        faro_sched_send_tag(s, &cc->mine, sizeof cc->mine, MPI_BYTE, 0, FARO_COLL_TAG_CHECK);
        faro_sched_recv_tag(s, &cc->remote, sizeof cc->remote, MPI_BYTE, 0, FARO_COLL_TAG_CHECK);
    }
    faro_sched_round(s);
    faro_sched_call(s, step_verify_a, cc);
    if (cc->nsend + cc->nrecv == 0)
        return;
    for (int i = 0; i < cc->nrecv; i++)
        faro_sched_recv_tag(s, &cc->got[i], sizeof cc->got[i], MPI_BYTE, cc->recv[i].peer, 0);
    for (int i = 0; i < cc->nsend; i++)
        faro_sched_send_tag(s, &cc->send[i].sig, sizeof cc->send[i].sig, MPI_BYTE,
                            cc->send[i].peer, 0);
    faro_sched_round(s);
    /* runs first in the collective's own first round */
    faro_sched_call(s, step_verify_b, cc);
}
