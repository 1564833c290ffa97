/*
 * Context ids: the matching space of each communicator, and how the members
 * of a new communicator agree on one while other creations run at the same
 * time (other threads, nonblocking MPI_Comm_idup).
 *
 * The mask. Every process keeps a bit mask of the ids it has free (0 and 1
 * belong to MPI_COMM_WORLD and MPI_COMM_SELF, 2 to ports' links). A creation ANDs what its
 * participants offer and every member takes the lowest id free everywhere, so
 * an id is never in use twice at one process, and a message carrying id c to
 * process p can only belong to p's one communicator with id c. An id comes
 * back when its communicator is destroyed, which is after its last pending
 * request (comm.h), so a reused id never meets an old message.
 *
 * The exchange. An agreement is made of rounds; a round is a binomial reduce
 * (AND) to a root and a binomial broadcast of the root's decision over a tree
 * of participants, by point-to-point with internal tags: over the parent for
 * dup, split, create and the topologies, over the group's members for
 * create_group. An intercommunicator agrees over both groups: each group
 * reduces over its local communicator, the two roots swap and combine their
 * results (both compute the same decision), and each broadcasts it. The ids
 * of an intercommunicator and of its private local communicator are agreed
 * together (two ids free at every member of both groups). An agreement is a
 * state machine (advance() below), run to the end by the caller's loop
 * (blocking creations) or by the progress engine (MPI_Comm_idup, through the
 * progress poller it registers while agreements are pending).
 *
 * Concurrency. Two creations that run at once at one process must not both
 * take the same id, so an id offered to one round is held for it, at that
 * process, until the round's decision arrives there, and offered to no other
 * round meanwhile. Participants that do not join the new communicator (take
 * = 0) offer all ones and hold nothing: they only carry the others' offers.
 *
 *  - The fast round (the first). A process offers a slice, the first
 *    FARO_COMM_FAST_IDS (64) ids it has free and nobody holds from the
 *    agreement's base on, and holds it. The base is a hash of the parent's
 *    context id and the agreement's tag, so it is the same at every
 *    participant and differs between concurrent agreements, which thus
 *    look in different places. When every participant offered a slice and
 *    the slices share ids, the agreement is done in this one round (the
 *    usual case, also with several threads creating at once). A process
 *    offers nothing (an empty slice) while a confirmed agreement (below) is
 *    pending there or holds the mask.
 *  - The fast round also confirms: it proves that every participant has
 *    entered the agreement, and its decision hands out the agreement's key,
 *    unique among the processes of every job and the same at every
 *    participant: (c, g), g the gpid of the root that made it (peers.c), c
 *    one more than the largest counter any participant had seen in a key
 *    when it offered (a Lamport clock), so a key made later is larger than
 *    every key its participants already knew.
 *  - Mask rounds (the rest, when the fast round did not find an id). A
 *    process offers its free ids that no slice holds, for one confirmed
 *    agreement at a time (`owner`), which holds them until its decision:
 *    the one that asks while nobody holds them and no confirmed agreement
 *    with a smaller key is pending there. Every other agreement offers
 *    nothing, and its round fails and is retried. "No context id is free"
 *    (MPI_ERR_OTHER) is the decision only when every participant offered all
 *    of its free ids (as owner or voter, no slices held) and the AND is empty.
 *
 * Why this cannot deadlock. Nothing ever waits for an id: an agreement that
 * gets no offer offers nothing at once, so a round completes as soon as every
 * participant has entered the agreement and polls. The whole mask is held
 * only by a confirmed agreement, during one round, and a confirmed
 * agreement's participants have all entered it and do not leave it (a
 * blocking creation loops on it; an idup is advanced by every poll of its
 * process, and the program must complete its request), so that round ends
 * and the mask comes back. An unconfirmed agreement holds at most a slice,
 * and may hold it for a long time: rank 0 may start an idup of A and then
 * block in a dup of B that rank 1 calls before its idup of A; the idup's
 * fast round waits for rank 1, which waits for the dup, which uses the ids
 * outside the idup's slice. (Holding rank 0's whole mask there would starve
 * the dup for ever.) So the one way to wait for ever is an agreement that
 * needs exactly the ids of such a slice: when fewer than FARO_COMM_FAST_IDS
 * ids per stuck fast round are left free, a process near exhaustion may hang
 * there instead of failing with "no context id is free".
 *
 * Why this cannot livelock. Take a confirmed pending agreement H. An
 * agreement that offers to H's participants after H's key is known there
 * gets a larger key (the clock), so only finitely many agreements (those
 * already pending at H's participants when H was confirmed) can ever outrank
 * H where it matters. Take the confirmed pending agreement with the smallest
 * key. At each of its participants no confirmed agreement outranks it, so
 * once the current owner's round ends (above), nobody but it takes the mask
 * there (lower keys yield, unconfirmed ones never take it), and its next
 * round gets every participant's offer: it succeeds or reports exhaustion.
 * By induction over the finitely many agreements that can outrank H, H
 * completes too: no agreement is retried for ever.
 *
 * Tags: see comm.h (FARO_TAG_CTX_BASE, FARO_TAG_GROUP_BASE). Within one
 * agreement the messages between a pair follow the same order at both ends
 * (one round after the other), so one tag serves all its rounds.
 *
 * Threads: the mask, the slices, the pending list and the owner are under
 * the library lock (FARO_LOCKED at every entry point here; the poller runs
 * inside faro_progress, which runs under it). A blocking agreement's wait
 * releases the lock between polls (faro_progress_idle), so other threads'
 * creations progress.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "p2p/request.h"
#include "base/tunables.h"

#define CTX_MAX 4096 /* ids alive at one process */
#define CTX_WORDS (CTX_MAX / 32)

/* A message: a header, then (upwards) the offer. In the fast round H_KEY
 * carries the largest counter seen upwards, and from a root on the key it
 * made (H_KEY, and the root's gpid in H_KEY_HI, H_KEY_LO: unique among the
 * processes of every job, since agreements may span jobs). */
enum { H_FLAGS, H_KEY, H_KEY_HI, H_KEY_LO, H_ID0, H_ID1, HDR };
#define MSG (HDR + CTX_WORDS)
/* up: every offer was all this process could offer; and nothing was held back */
enum { F_OWNED = 1, F_WHOLE = 2 };
/* down: the decision (D_FAILED: the bridge to the other group failed at the
 * root, with the error class in H_ID0: the members learn it instead of
 * waiting for ever) */
enum { D_RETRY, D_DONE, D_EXHAUSTED, D_FAILED };

enum stage { ST_UP, ST_BRIDGE, ST_BRIDGE_FAILED, ST_DOWN, ST_FORWARD, ST_FINISHED };

#define MAX_CHILDREN 32

struct faro_ctx_agreement {
    struct faro_ctx_agreement *next;   /* pending: every agreement of this process */
    struct faro_ctx_agreement *pnext;  /* polled: the nonblocking ones */
    const char *fn;
    MPI_Comm tree, bridge;             /* references held while running */
    int tag, bridge_tag, bridge_send_tag, bridge_rank;
    int parent;                        /* tree rank of the parent, -1 at the root */
    int child[MAX_CHILDREN], nchild;
    int take, want;
    uint32_t base;                     /* where the fast round's slice starts */
    int confirmed;                     /* the fast round is over: key is set */
    int finished;                      /* the decision is applied (sends may be in flight) */
    int yield;                         /* a mask round failed: let the process poll once */
    int sliced;                        /* holds slice[] (fast round) */
    uint32_t key[3];                   /* counter, gpid of the root that made it */
    int stage;
    int rc;                            /* the code of an error already raised (a post) */
    int bridge_err;                    /* the class of the bridge's failure (root) */
    int err;                           /* the class of an error not raised yet */
    uint32_t ids[2];
    MPI_Request reqs[MAX_CHILDREN + 2];
    int nreqs;
    void (*done)(void *arg, int errclass, const uint32_t ids[2]); /* nonblocking */
    void *arg;
    uint32_t slice[CTX_WORDS];         /* the ids this process holds for the fast round */
    uint32_t acc[MSG];                 /* this process's part, combined with its children's */
    uint32_t bin[MSG];                 /* the other group's, at an intercommunicator root */
    uint32_t down[HDR];
    uint32_t in[][MSG];                /* one per child */
};

static uint32_t free_ids[CTX_WORDS];
static uint32_t held[CTX_WORDS]; /* the union of the slices held */
static int ready;
static struct faro_ctx_agreement *pending, *polled, *owner;
static uint32_t clock_seen;      /* the largest key counter this process has seen or made */
static int fast_ids;             /* the slice a process offers in the fast round */
static int polling;              /* the poller is not re-entered from a post inside it */
static int poller = -1;          /* its progress poller slot while agreements are pending */

static void init_ids(void)
{
    memset(free_ids, 0xff, sizeof free_ids);
    free_ids[0] &= ~7u; /* MPI_COMM_WORLD, MPI_COMM_SELF, FARO_CTX_LINK */
    fast_ids = (int)faro_tun_int(FARO_TUN_COMM_FAST_IDS);
    ready = 1;
}

/* The lowest id at or above from in mask; UINT32_MAX when none. */
static uint32_t lowest(const uint32_t *mask, uint32_t from)
{
    for (uint32_t w = from / 32; w < CTX_WORDS; w++) {
        uint32_t bits = mask[w] & (w == from / 32 ? ~0u << (from % 32) : ~0u);
        if (bits)
            return w * 32 + (uint32_t)__builtin_ctz(bits);
    }
    return UINT32_MAX;
}

static int none_free(const char *fn, MPI_Comm parent)
{
    FARO_LOCKED;
    int alive = 0;
    for (int w = 0; w < CTX_WORDS; w++)
        alive += 32 - __builtin_popcount(free_ids[w]);
    return faro_err(parent, MPI_ERR_OTHER,
                    "%s: no context id is free at every process (this process has %d of %d "
                    "in use): free communicators that are no longer needed", fn, alive, CTX_MAX);
}

static void take_id(uint32_t ctx)
{
    free_ids[ctx / 32] &= ~(1u << (ctx % 32));
}

void faro_ctx_release(uint32_t ctx)
{
    FARO_LOCKED;
    if (ctx > FARO_CTX_LINK && ctx < CTX_MAX)
        free_ids[ctx / 32] |= 1u << (ctx % 32);
}

/* ---- what a process offers ---- */

static int key_less(const uint32_t *a, const uint32_t *b)
{
    return a[0] != b[0] ? a[0] < b[0] : a[1] != b[1] ? a[1] < b[1] : a[2] < b[2];
}

/* A confirmed taker other than a is pending here (with a smaller key than a,
 * when a is given and confirmed). */
static int confirmed_pending(const struct faro_ctx_agreement *a)
{
    for (const struct faro_ctx_agreement *p = pending; p; p = p->next)
        if (p != a && p->take && p->confirmed && !p->finished &&
            (!a || !a->confirmed || key_less(p->key, a->key)))
            return 1;
    return 0;
}

static void offer_all(struct faro_ctx_agreement *a)
{
    a->acc[H_FLAGS] = F_OWNED | F_WHOLE;
    memset(a->acc + HDR, 0xff, CTX_WORDS * sizeof(uint32_t));
}

static void offer_nothing(struct faro_ctx_agreement *a)
{
    a->acc[H_FLAGS] = 0;
    memset(a->acc + HDR, 0, CTX_WORDS * sizeof(uint32_t));
}

/* The fast round: a slice of fast_ids free ids nobody holds, the first ones
 * from the agreement's base on (wrapping around). */
static void offer_slice(struct faro_ctx_agreement *a)
{
    offer_nothing(a);
    if (owner || confirmed_pending(NULL) || fast_ids == 0)
        return;
    memset(a->slice, 0, sizeof a->slice);
    uint32_t *mask = a->acc + HDR;
    int n = 0;
    for (int k = 0; k <= CTX_WORDS && n < fast_ids; k++) {
        int w = (int)((a->base / 32 + (uint32_t)k) % CTX_WORDS);
        uint32_t bits = free_ids[w] & ~held[w];
        if (k == 0)
            bits &= ~0u << (a->base % 32);
        else if (k == CTX_WORDS) /* back at the first word: the ids below base */
            bits &= ~(~0u << (a->base % 32));
        uint32_t mine = 0;
        for (; bits && n < fast_ids; bits &= bits - 1, n++)
            mine |= bits & -bits;
        a->slice[w] |= mine;
        mask[w] |= mine;
        held[w] |= mine;
    }
    a->sliced = 1;
}

static void release_slice(struct faro_ctx_agreement *a)
{
    if (!a->sliced)
        return;
    for (int w = 0; w < CTX_WORDS; w++)
        held[w] &= ~a->slice[w];
    a->sliced = 0;
}

/* A mask round: every free id no slice holds, for the owner only. */
static void offer_mask(struct faro_ctx_agreement *a)
{
    if (owner || confirmed_pending(a)) {
        offer_nothing(a);
        return;
    }
    owner = a;
    uint32_t any_held = 0;
    for (int w = 0; w < CTX_WORDS; w++) {
        a->acc[HDR + w] = free_ids[w] & ~held[w];
        any_held |= held[w];
    }
    a->acc[H_FLAGS] = F_OWNED | (any_held ? 0 : F_WHOLE);
}

/* Combine another part into acc: AND of offers and flags; in the fast round
 * the larger counter (from the other intercommunicator root, the larger
 * key: each root made one, and a key belongs to the root that made it). */
static void combine(struct faro_ctx_agreement *a, const uint32_t *in, int other_root)
{
    a->acc[H_FLAGS] &= in[H_FLAGS];
    for (int w = 0; w < CTX_WORDS; w++)
        a->acc[HDR + w] &= in[HDR + w];
    if (a->confirmed)
        return;
    if (!other_root) {
        if (in[H_KEY] > a->acc[H_KEY])
            a->acc[H_KEY] = in[H_KEY];
    } else if (key_less(a->acc + H_KEY, in + H_KEY)) {
        a->acc[H_KEY] = in[H_KEY];
        a->acc[H_KEY_HI] = in[H_KEY_HI];
        a->acc[H_KEY_LO] = in[H_KEY_LO];
    }
}

/* A root makes the fast round's key once its group's parts are in: one past
 * every counter its participants and it have seen, and its own rank; the
 * counter is this process's from now on, so no key is made twice. */
static void make_key(struct faro_ctx_agreement *a)
{
    if (a->confirmed)
        return;
    uint32_t c = a->acc[H_KEY] > clock_seen ? a->acc[H_KEY] : clock_seen;
    a->acc[H_KEY] = clock_seen = c + 1;
    uint64_t gpid = faro_job_gpid(faro.rank);
    a->acc[H_KEY_HI] = (uint32_t)(gpid >> 32);
    a->acc[H_KEY_LO] = (uint32_t)gpid;
}

/* The root's decision from the combined parts (the same at both roots of an
 * intercommunicator). */
static void decide(struct faro_ctx_agreement *a)
{
    memset(a->down, 0, sizeof a->down);
    uint32_t first = lowest(a->acc + HDR, 0);
    uint32_t second = a->want > 1 && first != UINT32_MAX ? lowest(a->acc + HDR, first + 1)
                                                          : first;
    if (second != UINT32_MAX) {
        a->down[H_FLAGS] = D_DONE;
        a->down[H_ID0] = first;
        a->down[H_ID1] = second;
    } else if (a->confirmed) {
        int all = (a->acc[H_FLAGS] & (F_OWNED | F_WHOLE)) == (F_OWNED | F_WHOLE);
        a->down[H_FLAGS] = all ? D_EXHAUSTED : D_RETRY;
    } else { /* the fast round found nothing: hand out the key */
        a->down[H_FLAGS] = D_RETRY;
        a->down[H_KEY] = a->acc[H_KEY];
        a->down[H_KEY_HI] = a->acc[H_KEY_HI];
        a->down[H_KEY_LO] = a->acc[H_KEY_LO];
    }
}

/* ---- the rounds ---- */

/* Post one message of the round (failures end the agreement with rc). */
static void post(struct faro_ctx_agreement *a, int send, void *buf, int words, int peer,
                 MPI_Comm comm, int tag)
{
    if (a->rc || a->err)
        return;
    MPI_Request *r = &a->reqs[a->nreqs];
    a->rc = send ? faro_coll_isend(a->fn, buf, words, MPI_UINT32_T, peer, tag, comm, r)
                 : faro_coll_irecv(a->fn, buf, words, MPI_UINT32_T, peer, tag, comm, r);
    if (!a->rc)
        a->nreqs++;
}

/* All posted messages complete (then released); 0 while some are not. */
static int all_complete(struct faro_ctx_agreement *a)
{
    for (int i = 0; i < a->nreqs; i++)
        if (!a->reqs[i]->complete)
            return 0;
    for (int i = 0; i < a->nreqs; i++) {
        if (a->reqs[i]->status.MPI_ERROR && !a->err)
            a->err = a->reqs[i]->status.MPI_ERROR;
        faro_req_release(a->reqs[i]);
    }
    a->nreqs = 0;
    return 1;
}

static void start_round(struct faro_ctx_agreement *a)
{
    memset(a->acc, 0, HDR * sizeof(uint32_t));
    if (!a->take)
        offer_all(a);
    else if (a->confirmed)
        offer_mask(a);
    else
        offer_slice(a);
    if (!a->confirmed)
        a->acc[H_KEY] = clock_seen;
    for (int i = 0; i < a->nchild; i++)
        post(a, 0, a->in[i], MSG, a->child[i], a->tree, a->tag);
    a->stage = ST_UP;
}

/* The decision of the round is here: apply it at this process. 1 when the
 * agreement is over. */
static int apply(struct faro_ctx_agreement *a)
{
    release_slice(a);
    if (owner == a)
        owner = NULL;
    int flag = (int)a->down[H_FLAGS];
    if (flag == D_RETRY && !a->confirmed) {
        a->confirmed = 1;
        a->key[0] = a->down[H_KEY];
        a->key[1] = a->down[H_KEY_HI];
        a->key[2] = a->down[H_KEY_LO];
        if (a->key[0] > clock_seen)
            clock_seen = a->key[0];
    }
    a->finished = flag != D_RETRY;
    a->yield = !a->finished;
    if (flag == D_DONE) {
        a->ids[0] = a->down[H_ID0];
        a->ids[1] = a->down[H_ID1];
        if (a->take) {
            take_id(a->ids[0]);
            if (a->want > 1)
                take_id(a->ids[1]);
        }
    } else if (flag == D_EXHAUSTED) {
        a->err = MPI_ERR_OTHER;
    } else if (flag == D_FAILED) {
        a->err = (int)a->down[H_ID0];
    }
    return a->finished;
}

/* Advance a as far as it goes without waiting; 1 when it is over. */
static int advance(struct faro_ctx_agreement *a)
{
    for (;;) {
        if (a->rc || a->err) { /* wait for what was posted, then stop */
            if (!all_complete(a))
                return 0;
            release_slice(a);
            if (owner == a)
                owner = NULL;
            return 1;
        }
        if (!all_complete(a))
            return 0;
        if (a->err && a->stage == ST_BRIDGE) { /* the other group is gone: tell ours */
            a->bridge_err = a->err;
            a->err = 0;
            a->stage = ST_BRIDGE_FAILED;
        }
        switch (a->stage) {
        case ST_UP: /* the children's parts are in */
            for (int i = 0; i < a->nchild; i++)
                combine(a, a->in[i], 0);
            if (a->parent >= 0) {
                post(a, 1, a->acc, MSG, a->parent, a->tree, a->tag);
                post(a, 0, a->down, HDR, a->parent, a->tree, a->tag);
                a->stage = ST_DOWN;
                break;
            }
            make_key(a);
            if (a->bridge) {
                post(a, 0, a->bin, MSG, a->bridge_rank, a->bridge, a->bridge_tag);
                post(a, 1, a->acc, MSG, a->bridge_rank, a->bridge, a->bridge_send_tag);
                a->stage = ST_BRIDGE;
            } else {
                decide(a);
                a->stage = ST_DOWN;
            }
            break;
        case ST_BRIDGE: /* the other group's part is in */
            combine(a, a->bin, 1);
            decide(a);
            a->stage = ST_DOWN;
            break;
        case ST_BRIDGE_FAILED: /* tell the group, then fail */
            memset(a->down, 0, sizeof a->down);
            a->down[H_FLAGS] = D_FAILED;
            a->down[H_ID0] = (uint32_t)a->bridge_err;
            a->stage = ST_DOWN;
            break;
        case ST_DOWN: /* the decision is here: pass it on, apply it */
            for (int i = a->nchild - 1; i >= 0; i--)
                post(a, 1, a->down, HDR, a->child[i], a->tree, a->tag);
            a->stage = apply(a) ? ST_FINISHED : ST_FORWARD;
            break;
        case ST_FORWARD: /* the children have it: next round */
            start_round(a);
            if (a->yield) { /* the holder of the mask may need this process to poll */
                a->yield = 0;
                return 0;
            }
            break;
        default: /* ST_FINISHED: the children have it */
            return 1;
        }
    }
}

/* ---- creation, the poller, the entry points ---- */

static void destroy(struct faro_ctx_agreement *a)
{
    for (struct faro_ctx_agreement **pp = &pending; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    faro_comm_release(a->tree);
    if (a->bridge)
        faro_comm_release(a->bridge);
    free(a);
}

/* A new agreement as spec says (see comm.h); NULL when out of memory. The
 * tree is binomial over members 0..n-1 rooted at member 0; member i is tree
 * rank (root + i) % n, or members[i]. */
static struct faro_ctx_agreement *create(const struct faro_ctx_spec *s)
{
    if (!ready)
        init_ids();
    int nchild = 0, me = s->me, n = s->n;
    for (int m = 1; m < n && !(me & m); m <<= 1)
        nchild += me + m < n;
    struct faro_ctx_agreement *a = calloc(1, sizeof *a + (size_t)nchild * sizeof a->in[0]);
    if (!a)
        return NULL;
#define TREE_RANK(i) (s->members ? s->members[i] : (s->root + (i)) % n)
    a->fn = s->fn;
    a->tree = s->tree;
    a->bridge = s->bridge;
    a->tag = s->tag;
    a->bridge_tag = s->bridge_tag;
    a->bridge_send_tag = s->bridge_peer_tag ? s->bridge_peer_tag : s->bridge_tag;
    a->bridge_rank = s->bridge_rank;
    a->take = s->take;
    a->want = s->want;
    a->base = s->base % CTX_MAX;
    a->parent = me ? TREE_RANK(me - (me & -me)) : -1;
    for (int m = 1; m < n && !(me & m); m <<= 1)
        if (me + m < n)
            a->child[a->nchild++] = TREE_RANK(me + m);
#undef TREE_RANK
    faro_comm_retain(a->tree);
    if (a->bridge)
        faro_comm_retain(a->bridge);
    a->next = pending;
    pending = a;
    start_round(a);
    return a;
}

static int poll_agreements(void *arg)
{
    if (polling)
        return 0;
    polling = 1;
    int events = 0;
    for (struct faro_ctx_agreement **pp = &polled; *pp;) {
        struct faro_ctx_agreement *a = *pp;
        if (!advance(a)) {
            pp = &a->pnext;
            continue;
        }
        *pp = a->pnext;
        events++;
        int cls = a->err;
        if (a->rc && PMPI_Error_class(a->rc, &cls) != MPI_SUCCESS)
            cls = MPI_ERR_OTHER;
        a->done(a->arg, cls, a->ids);
        destroy(a);
    }
    if (!polled) {
        faro_progress_unregister(poller);
        poller = -1;
    }
    polling = 0;
    return events;
}

int faro_ctx_agree_spec(const struct faro_ctx_spec *s, uint32_t ids[2])
{
    FARO_LOCKED;
    struct faro_ctx_agreement *a = create(s);
    if (!a)
        return faro_err(s->errcomm ? s->errcomm : s->tree, MPI_ERR_NO_MEM, "%s: out of memory",
                        s->fn);
    while (!advance(a))
        faro_progress_idle(faro_progress());
    int rc = a->rc ? a->rc
           : a->err ? faro_ctx_failed(s->fn, s->errcomm ? s->errcomm : s->tree, a->err)
                    : MPI_SUCCESS;
    ids[0] = a->ids[0];
    ids[1] = a->ids[1];
    destroy(a);
    return rc;
}

int faro_ctx_failed(const char *fn, MPI_Comm comm, int errclass)
{
    if (errclass == MPI_ERR_OTHER)
        return none_free(fn, comm);
    if (errclass == MPI_ERR_PROC_ABORTED)
        return faro_err(comm, errclass, "%s: the connection to the other group broke while "
                        "the context ids were agreed", fn);
    return faro_err(comm, errclass, "%s: a message of the context id agreement failed", fn);
}

int faro_ctx_agree_start(const struct faro_ctx_spec *s,
                         void (*done)(void *arg, int errclass, const uint32_t ids[2]), void *arg)
{
    FARO_LOCKED;
    struct faro_ctx_agreement *a = create(s);
    if (!a)
        return faro_err(s->tree, MPI_ERR_NO_MEM, "%s: out of memory", s->fn);
    a->done = done;
    a->arg = arg;
    a->pnext = polled;
    polled = a;
    if (poller < 0 && (poller = faro_progress_register(poll_agreements, NULL)) < 0)
        faro_fatal(MPI_ERR_INTERN, "no progress poller slot is free for a context id agreement");
    return MPI_SUCCESS;
}

/* ---- the shapes the creations use ---- */

int faro_ctx_tag(MPI_Comm comm)
{
    return FARO_TAG_CTX_BASE - (int)(comm->ctx_seq++ % FARO_TAG_CTX_SEQS);
}

uint32_t faro_ctx_base(uint32_t ctx, int tag)
{
    uint32_t h = ctx * 0x9e3779b1u ^ (uint32_t)tag * 0x85ebca77u;
    return (h ^ h >> 15) % CTX_MAX;
}

void faro_ctx_spec_whole(struct faro_ctx_spec *s, const char *fn, MPI_Comm parent, int take,
                         int want)
{
    memset(s, 0, sizeof *s);
    s->fn = fn;
    s->take = take;
    s->want = want;
    s->tag = s->bridge_tag = faro_ctx_tag(parent);
    s->base = faro_ctx_base(parent->context_id, s->tag);
    if (parent->inter) { /* both groups: each over its local group, the leaders bridge */
        s->tree = parent->local;
        s->errcomm = parent; /* the program's handle, not the private local one */
        s->bridge = parent;
    } else {
        s->tree = parent;
    }
    s->n = s->tree->size;
    s->me = s->tree->rank;
}

int faro_ctx_agree(const char *fn, MPI_Comm parent, int take, uint32_t *ctx)
{
    struct faro_ctx_spec s;
    uint32_t ids[2];
    faro_ctx_spec_whole(&s, fn, parent, take, 1);
    int rc = faro_ctx_agree_spec(&s, ids);
    *ctx = ids[0];
    return rc;
}

int faro_ctx_agree_group(const char *fn, MPI_Comm parent, const int *members, int n, int me,
                         int tag, uint32_t *ctx)
{
    struct faro_ctx_spec s = {.fn = fn, .tree = parent, .members = members, .n = n, .me = me,
                              .tag = FARO_TAG_GROUP_BASE - tag % FARO_TAG_GROUP_TAGS,
                              .take = 1, .want = 1};
    s.base = faro_ctx_base(parent->context_id, s.tag);
    uint32_t ids[2];
    int rc = faro_ctx_agree_spec(&s, ids);
    *ctx = ids[0];
    return rc;
}
