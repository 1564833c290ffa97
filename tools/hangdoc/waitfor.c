/*
 * The wait-for graph of a hung job (contract and model: waitfor.h). This
 * file parses the report lines of faro-debug(7) into operations per rank,
 * finds the deadlocked ranks as a fixed point and prints the summary.
 */
#include "waitfor.h"

#include <stdlib.h>
#include <string.h>

enum op_kind { OP_RECV, OP_SEND, OP_PROBE, OP_OTHER };
enum { PEER_ANY = -1, PEER_NONE = -2 };

struct op {
    int thread;
    int group;               /* ops of one group: any one of them is enough */
    enum op_kind kind;
    int peer;                /* job rank, PEER_ANY or PEER_NONE */
    int tag, any_tag;
    int polling;             /* the rank polls for it (MPI_Test, MPI_Iprobe...) */
    char call[48];           /* the blocked MPI call (the collective for internal tags) */
    char owner[48];          /* an internal tag's owner, "" for user tags */
    char comm[64];
};

struct rank {
    enum faro_waitfor_state state;
    int in_report, reported; /* a report is being read / one ended since the reset */
    int blocked;             /* its last report listed waits (and no resume since) */
    int polling;             /* ... and each of them polls (MPI_Test, MPI_Iprobe...) */
    struct op *ops;
    int nops, cap, ngroups;
    char any_key[128];       /* the Waitany/Waitsome whose lines share a group */
    int any_group;
};

struct faro_waitfor {
    int n;
    struct rank *r;
    char *dead;              /* the fixed point: ranks that cannot go on */
};

struct faro_waitfor *faro_waitfor_new(int nranks)
{
    struct faro_waitfor *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->n = nranks;
    g->r = calloc((size_t)nranks, sizeof *g->r);
    g->dead = calloc((size_t)nranks, 1);
    if (!g->r || !g->dead) {
        faro_waitfor_free(g);
        return NULL;
    }
    return g;
}

void faro_waitfor_free(struct faro_waitfor *g)
{
    if (!g)
        return;
    for (int i = 0; g->r && i < g->n; i++)
        free(g->r[i].ops);
    free(g->r);
    free(g->dead);
    free(g);
}

void faro_waitfor_state(struct faro_waitfor *g, int rank, enum faro_waitfor_state st)
{
    if (rank >= 0 && rank < g->n)
        g->r[rank].state = st;
}

static void clear(struct rank *r)
{
    r->nops = r->ngroups = 0;
    r->blocked = r->polling = 0;
    r->any_key[0] = 0;
}

void faro_waitfor_reset(struct faro_waitfor *g)
{
    for (int i = 0; i < g->n; i++) {
        clear(&g->r[i]);
        g->r[i].in_report = g->r[i].reported = 0;
    }
}

int faro_waitfor_complete(const struct faro_waitfor *g)
{
    for (int i = 0; i < g->n; i++)
        if (g->r[i].state == FARO_WF_RUNNING && !g->r[i].reported)
            return 0;
    return 1;
}

/* ---- parsing ---- */

/* s starts with word: skip it */
static int eat(const char **s, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(*s, word, n))
        return 0;
    *s += n;
    return 1;
}

static int eat_int(const char **s, int *v)
{
    char *end;
    long x = strtol(*s, &end, 10);
    if (end == *s)
        return 0;
    *v = (int)x;
    *s = end;
    return 1;
}

/* Copy up to (not including) stop into buf; the pointer moves past stop. */
static int upto(const char **s, const char *stop, char *buf, size_t len)
{
    const char *e = strstr(*s, stop);
    if (!e)
        return 0;
    size_t n = (size_t)(e - *s) < len - 1 ? (size_t)(e - *s) : len - 1;
    memcpy(buf, *s, n);
    buf[n] = 0;
    *s = e + strlen(stop);
    return 1;
}

/* "rank J", "rank J (communicator rank K)", "any rank", "MPI_PROC_NULL" */
static int parse_peer(const char **s, int *peer)
{
    if (eat(s, "any rank")) {
        *peer = PEER_ANY;
        return 1;
    }
    if (eat(s, "MPI_PROC_NULL")) {
        *peer = PEER_NONE;
        return 1;
    }
    if (!eat(s, "rank ") || !eat_int(s, peer))
        return 0;
    if (**s == ' ' && (*s)[1] == '(') { /* the rank in its communicator: not needed */
        const char *e = strchr(*s, ')');
        if (!e)
            return 0;
        *s = e + 1;
    }
    return 1;
}

/* "tag T", "any tag", "internal tag T (OWNER)" */
static int parse_tag(const char **s, struct op *o)
{
    o->any_tag = 0;
    o->owner[0] = 0;
    if (eat(s, "any tag")) {
        o->any_tag = 1;
        return 1;
    }
    if (eat(s, "internal tag ")) {
        if (!eat_int(s, &o->tag) || !eat(s, " ("))
            return 0;
        return upto(s, ")", o->owner, sizeof o->owner);
    }
    return eat(s, "tag ") && eat_int(s, &o->tag);
}

/* The operation after the call's head. */
static int parse_op(const char *s, struct op *o)
{
    o->peer = PEER_NONE;
    if (eat(&s, "receive from "))
        o->kind = OP_RECV;
    else if (eat(&s, "synchronous send to ") || eat(&s, "send to "))
        o->kind = OP_SEND;
    else if (eat(&s, "probe from "))
        o->kind = OP_PROBE;
    else {
        o->kind = OP_OTHER; /* generalized request, buffered sends, between rounds */
        return 1;
    }
    if (!parse_peer(&s, &o->peer) || !eat(&s, " ") || !parse_tag(&s, o) || !eat(&s, " on "))
        return 0;
    const char *e = strstr(s, " (");
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n >= sizeof o->comm)
        n = sizeof o->comm - 1;
    memcpy(o->comm, s, n);
    o->comm[n] = 0;
    return 1;
}

static struct op *add_op(struct rank *r)
{
    if (r->nops == r->cap) {
        int cap = r->cap ? 2 * r->cap : 8;
        struct op *ops = realloc(r->ops, (size_t)cap * sizeof *ops);
        if (!ops)
            return NULL;
        r->ops = ops;
        r->cap = cap;
    }
    struct op *o = &r->ops[r->nops++];
    memset(o, 0, sizeof *o);
    return o;
}

int faro_waitfor_line(struct faro_waitfor *g, const char *text)
{
    char line[1024];
    snprintf(line, sizeof line, "%s", text);
    line[strcspn(line, "\r\n")] = 0;
    const char *s = strstr(line, "faro: rank ");
    int rank;
    if (!s)
        return 0;
    s += strlen("faro: rank ");
    if (!eat_int(&s, &rank) || !eat(&s, ": waiting: "))
        return 0;
    if (rank < 0 || rank >= g->n)
        return -1;
    struct rank *r = &g->r[rank];
    if (eat(&s, "end of report")) {
        if (!r->in_report)
            clear(r); /* an empty report: nothing blocked */
        r->in_report = 0;
        r->reported = 1;
        return 1;
    }
    if (eat(&s, "resumed")) {
        clear(r);
        return 1;
    }
    if (!r->in_report) { /* a new report replaces the last one */
        clear(r);
        r->in_report = 1;
    }
    struct op o;
    memset(&o, 0, sizeof o);
    if (eat(&s, "thread ") && (!eat_int(&s, &o.thread) || !eat(&s, ": ")))
        return -1;
    char secs[32];
    if (!upto(&s, " for ", o.call, sizeof o.call) || !upto(&s, " s: ", secs, sizeof secs))
        return -1;
    /* "MPI_Test (polling)": a rank that long polled in vain is as stuck as a
     * blocked one */
    char *pol = strstr(o.call, " (polling)");
    if (pol) {
        *pol = 0;
        o.polling = 1;
    }
    /* "request I of N (P pending): " or "any of request ...": which group */
    int any = eat(&s, "any of request ");
    char key[128];
    snprintf(key, sizeof key, "%d %s", o.thread, o.call);
    if (any || eat(&s, "request ")) {
        char skip[64];
        if (!upto(&s, "): ", skip, sizeof skip))
            return -1;
    }
    /* a nonblocking collective's step: "MPI_Ibcast: receive from ...", which
     * the summary names by the collective */
    char nbc[48] = "";
    if (!strncmp(s, "MPI_I", 5) && !upto(&s, ": ", nbc, sizeof nbc))
        return -1;
    if (!parse_op(s, &o))
        return -1;
    if (nbc[0]) {
        snprintf(o.call, sizeof o.call, "%s", nbc);
        snprintf(o.owner, sizeof o.owner, "%s", nbc);
    }
    if (any && !strcmp(r->any_key, key)) {
        o.group = r->any_group;
    } else {
        o.group = r->ngroups++;
        if (any) {
            snprintf(r->any_key, sizeof r->any_key, "%s", key);
            r->any_group = o.group;
        }
    }
    struct op *slot = add_op(r);
    if (!slot)
        return -1;
    *slot = o;
    r->polling = (r->blocked ? r->polling : 1) && o.polling;
    r->blocked = 1;
    return 1;
}

/* ---- the fixed point ---- */

static int tags_meet(const struct op *recv, const struct op *send)
{
    return recv->any_tag || recv->tag == send->tag;
}

/* Does rank p wait for the operation that meets o of rank me (the message
 * o waits for is under way, or o's partner is posted)? */
static int met_by(const struct faro_waitfor *g, int me, const struct op *o, int p)
{
    const struct rank *q = &g->r[p];
    for (int i = 0; i < q->nops; i++) {
        const struct op *x = &q->ops[i];
        if (strcmp(x->comm, o->comm))
            continue;
        if ((o->kind == OP_RECV || o->kind == OP_PROBE) && x->kind == OP_SEND &&
            x->peer == me && tags_meet(o, x))
            return 1;
        if (o->kind == OP_SEND && x->kind == OP_RECV && (x->peer == me || x->peer == PEER_ANY) &&
            tags_meet(x, o))
            return 1;
    }
    return 0;
}

/* Rank p will not do anything for us: exited, finalizing, or deadlocked. */
static int gone(const struct faro_waitfor *g, int p)
{
    return g->r[p].state != FARO_WF_RUNNING || g->dead[p];
}

static int op_dead(const struct faro_waitfor *g, int me, const struct op *o)
{
    if (o->kind == OP_OTHER || o->peer == PEER_NONE || o->peer == me || o->peer >= g->n)
        return 0; /* nothing we can tell: assume it may complete */
    if (o->peer >= 0)
        return gone(g, o->peer) && !met_by(g, me, o, o->peer);
    for (int p = 0; p < g->n; p++) /* any rank */
        if (p != me && (!gone(g, p) || met_by(g, me, o, p)))
            return 0;
    return 1;
}

/* A thread is stuck when one of its groups is dead (every op in it is);
 * the rank when each of its blocked threads is. */
static int thread_stuck(const struct faro_waitfor *g, int me, int t)
{
    const struct rank *r = &g->r[me];
    for (int grp = 0; grp < r->ngroups; grp++) {
        int in = 0, all = 1;
        for (int m = 0; m < r->nops && all; m++)
            if (r->ops[m].thread == t && r->ops[m].group == grp) {
                in = 1;
                all = op_dead(g, me, &r->ops[m]);
            }
        if (in && all)
            return 1;
    }
    return 0;
}

static int stuck(const struct faro_waitfor *g, int me)
{
    const struct rank *r = &g->r[me];
    for (int i = 0; i < r->nops; i++) {
        int earlier = 0;
        for (int j = 0; j < i && !earlier; j++)
            earlier = r->ops[j].thread == r->ops[i].thread;
        if (!earlier && !thread_stuck(g, me, r->ops[i].thread))
            return 0;
    }
    return r->nops > 0;
}

static int fixed_point(struct faro_waitfor *g)
{
    for (int i = 0; i < g->n; i++)
        g->dead[i] = g->r[i].state == FARO_WF_RUNNING && g->r[i].blocked;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < g->n; i++)
            if (g->dead[i] && !stuck(g, i)) {
                g->dead[i] = 0;
                changed = 1;
            }
    }
    int n = 0;
    for (int i = 0; i < g->n; i++)
        n += g->dead[i];
    return n;
}

/* ---- the summary ---- */

static void describe(FILE *out, int me, const struct op *o)
{
    static const char *const kinds[] = {"receive", "send", "probe", "other"};
    char peer[32];
    if (o->peer == PEER_ANY)
        snprintf(peer, sizeof peer, "any rank");
    else if (o->peer == PEER_NONE)
        snprintf(peer, sizeof peer, "nothing it can name");
    else
        snprintf(peer, sizeof peer, "rank %d", o->peer);
    if (o->kind == OP_OTHER) {
        fprintf(out, "  rank %d waits in %s (not on a peer)\n", me, o->call);
        return;
    }
    fprintf(out, "  rank %d %s for %s in %s (%s, ", me, o->polling ? "polls" : "waits", peer,
            o->call, kinds[o->kind]);
    if (o->any_tag)
        fprintf(out, "any tag");
    else if (o->owner[0])
        fprintf(out, "internal tag %d", o->tag);
    else
        fprintf(out, "tag %d", o->tag);
    fprintf(out, " on %s)\n", o->comm);
}

/* The op of me that keeps it stuck, with a peer: the first dead one. */
static const struct op *blocking_op(const struct faro_waitfor *g, int me)
{
    const struct rank *r = &g->r[me];
    for (int i = 0; i < r->nops; i++)
        if (r->ops[i].peer != PEER_NONE && op_dead(g, me, &r->ops[i]))
            return &r->ops[i];
    return NULL;
}

static int next_rank(const struct faro_waitfor *g, int me, const struct op *o)
{
    if (o->peer >= 0)
        return o->peer;
    for (int p = 0; p < g->n; p++) /* any rank: a deadlocked one */
        if (p != me && g->dead[p])
            return p;
    return -1;
}

/* Same collective on the same communicator? */
static int in_same_call(const struct faro_waitfor *g, int p, const struct op *o)
{
    const struct rank *q = &g->r[p];
    for (int i = 0; i < q->nops; i++)
        if (!strcmp(q->ops[i].call, o->call) && !strcmp(q->ops[i].comm, o->comm))
            return 1;
    return 0;
}

static void print_chain(struct faro_waitfor *g, FILE *out, int start)
{
    int *path = malloc((size_t)g->n * sizeof *path), len = 0;
    char *seen = calloc((size_t)g->n, 1);
    if (!path || !seen) {
        free(path);
        free(seen);
        return;
    }
    int cur = start;
    const char *end = "";
    while (cur >= 0 && !seen[cur]) {
        seen[cur] = 1;
        path[len++] = cur;
        if (g->r[cur].state == FARO_WF_EXITED) {
            end = " (exited)";
            break;
        }
        if (g->r[cur].state == FARO_WF_FINALIZING) {
            end = " (in MPI_Finalize)";
            break;
        }
        const struct op *o = blocking_op(g, cur);
        cur = o ? next_rank(g, cur, o) : -1;
    }
    int from = 0;
    if (cur >= 0 && seen[cur] && !*end) /* a cycle: print it from where it closes */
        while (path[from] != cur)
            from++;
    fprintf(out, "deadlock: ");
    for (int i = from; i < len; i++)
        fprintf(out, "%srank %d", i > from ? " -> " : "", path[i]);
    if (cur >= 0 && seen[cur] && !*end)
        fprintf(out, " -> rank %d", cur);
    fprintf(out, "%s\n", end);
    /* a collective some rank of the chain is not in */
    for (int i = from; i < len; i++) {
        const struct op *o = blocking_op(g, path[i]);
        int p = o ? next_rank(g, path[i], o) : -1;
        if (o && o->owner[0] && p >= 0 && g->r[p].state == FARO_WF_RUNNING &&
            !in_same_call(g, p, o) && g->r[p].nops)
            fprintf(out, "hint: rank %d waits in %s on %s, which rank %d has not called "
                    "(rank %d is in %s)\n", path[i], o->call, o->comm, p, p,
                    g->r[p].ops[0].call);
    }
    free(path);
    free(seen);
}

int faro_waitfor_summary(struct faro_waitfor *g, FILE *out)
{
    int nblocked = 0, npolling = 0, nexited = 0, nfin = 0, nsilent = 0;
    for (int i = 0; i < g->n; i++) {
        const struct rank *r = &g->r[i];
        nexited += r->state == FARO_WF_EXITED;
        nfin += r->state == FARO_WF_FINALIZING;
        nblocked += r->state == FARO_WF_RUNNING && r->blocked;
        npolling += r->state == FARO_WF_RUNNING && r->blocked && r->polling;
        nsilent += r->state == FARO_WF_RUNNING && !r->reported && !r->blocked;
    }
    fprintf(out, "hang report: %d of %d rank%s blocked in MPI", nblocked, g->n,
            g->n == 1 ? "" : "s");
    if (npolling)
        fprintf(out, " (%d of them polling in vain)", npolling);
    if (nfin)
        fprintf(out, ", %d in MPI_Finalize", nfin);
    if (nexited)
        fprintf(out, ", %d exited", nexited);
    if (nsilent)
        fprintf(out, ", %d not answering", nsilent);
    fprintf(out, "\n");
    for (int i = 0; i < g->n; i++) {
        const struct rank *r = &g->r[i];
        if (r->state == FARO_WF_EXITED)
            fprintf(out, "  rank %d has exited\n", i);
        else if (r->state == FARO_WF_FINALIZING)
            fprintf(out, "  rank %d is in MPI_Finalize\n", i);
        else if (!r->blocked && r->reported)
            fprintf(out, "  rank %d is not blocked in MPI\n", i);
        else if (!r->blocked)
            fprintf(out, "  rank %d did not answer (running outside MPI, or blocked outside "
                    "the library)\n", i);
        for (int k = 0; k < r->nops; k++)
            describe(out, i, &r->ops[k]);
    }
    int ndead = fixed_point(g);
    if (!ndead) {
        fprintf(out, "no deadlock found: every blocked rank waits for a rank that may still "
                "go on\n");
        return 0;
    }
    for (int i = 0; i < g->n; i++)
        if (g->dead[i]) {
            print_chain(g, out, i);
            break;
        }
    return ndead;
}
