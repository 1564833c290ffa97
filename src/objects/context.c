/*
 * Context ids: the matching space of each communicator.
 *
 * Every process keeps a bit mask of the ids it has free (0 and 1 belong to
 * MPI_COMM_WORLD and MPI_COMM_SELF). A creation ANDs the masks of its
 * participants and every member takes the lowest id free everywhere, so an id
 * is never in use twice at one process, and a message carrying id c to
 * process p can only belong to p's one communicator with id c. An id comes
 * back when its communicator is destroyed, which is after its last pending
 * request (comm.h), so a reused id never meets an old message.
 *
 * Collective creations (dup, split, create, Cartesian) agree with an
 * Allreduce over the parent; MPI_Comm_create_group, collective only over
 * its group, agrees with a binomial reduce and broadcast among the members
 * by point-to-point on the parent's context with internal tags.
 * Intercommunicators agree over both groups: each group ANDs its masks, the
 * two leaders exchange and AND theirs, and each group broadcasts the result.
 */
#include <string.h>

#include "core.h"

#define CTX_MAX 4096 /* ids alive at one process */
#define CTX_WORDS (CTX_MAX / 32)

static uint32_t free_ids[CTX_WORDS];
static int ready;

static void init_ids(void)
{
    memset(free_ids, 0xff, sizeof free_ids);
    free_ids[0] &= ~3u; /* MPI_COMM_WORLD, MPI_COMM_SELF */
    ready = 1;
}

static uint32_t lowest(const uint32_t *mask)
{
    for (int w = 0; w < CTX_WORDS; w++)
        if (mask[w])
            return (uint32_t)w * 32 + (uint32_t)__builtin_ctz(mask[w]);
    return UINT32_MAX;
}

static int none_free(const char *fn, MPI_Comm parent)
{
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
    if (ctx >= 2 && ctx < CTX_MAX)
        free_ids[ctx / 32] |= 1u << (ctx % 32);
}

/* Binomial reduce (AND) to member 0 and broadcast of its choice. */
static int agree_tree(const char *fn, MPI_Comm parent, const int *members, int n, int me,
                      int itag, uint32_t *ctx)
{
#define MEMBER(i) members[i]
    uint32_t mask[CTX_WORDS], in[CTX_WORDS];
    memcpy(mask, free_ids, sizeof mask);
    int rc;

    /* reduce to member 0 */
    for (int m = 1; m < n; m <<= 1) {
        if (me & m) {
            rc = faro_coll_send(fn, mask, CTX_WORDS, MPI_UINT32_T, MEMBER(me - m), itag, parent);
            if (rc)
                return rc;
            break;
        }
        if (me + m < n) {
            rc = faro_coll_recv(fn, in, CTX_WORDS, MPI_UINT32_T, MEMBER(me + m), itag, parent,
                                MPI_STATUS_IGNORE);
            if (rc)
                return rc;
            for (int w = 0; w < CTX_WORDS; w++)
                mask[w] &= in[w];
        }
    }

    /* broadcast the choice from member 0 */
    uint32_t id = me == 0 ? lowest(mask) : UINT32_MAX;
    int m = 1;
    for (; m < n; m <<= 1)
        if (me & m) {
            rc = faro_coll_recv(fn, &id, 1, MPI_UINT32_T, MEMBER(me - m), itag, parent,
                                MPI_STATUS_IGNORE);
            if (rc)
                return rc;
            break;
        }
    for (m >>= 1; m > 0; m >>= 1)
        if (me + m < n) {
            rc = faro_coll_send(fn, &id, 1, MPI_UINT32_T, MEMBER(me + m), itag, parent);
            if (rc)
                return rc;
        }
    if (id == UINT32_MAX)
        return none_free(fn, parent);
    take_id(id);
    *ctx = id;
    return MPI_SUCCESS;
#undef MEMBER
}

int faro_ctx_agree_inter(const char *fn, MPI_Comm local, int leader, MPI_Comm peer,
                         int peer_rank, int itag, uint32_t *ctx)
{
    if (!ready)
        init_ids();
    uint32_t mask[CTX_WORDS], in[CTX_WORDS];
    memcpy(mask, free_ids, sizeof mask);
    int rc = PMPI_Allreduce(MPI_IN_PLACE, mask, CTX_WORDS, MPI_UINT32_T, MPI_BAND, local);
    if (rc)
        return rc;
    if (local->rank == leader) {
        rc = faro_coll_sendrecv(fn, mask, CTX_WORDS, MPI_UINT32_T, peer_rank, in, CTX_WORDS,
                                MPI_UINT32_T, peer_rank, itag, peer, MPI_STATUS_IGNORE);
        if (rc)
            return rc;
        for (int w = 0; w < CTX_WORDS; w++)
            mask[w] &= in[w];
    }
    rc = PMPI_Bcast(mask, CTX_WORDS, MPI_UINT32_T, leader, local);
    if (rc)
        return rc;
    *ctx = lowest(mask);
    if (*ctx == UINT32_MAX)
        return none_free(fn, local);
    take_id(*ctx);
    return MPI_SUCCESS;
}

int faro_ctx_agree(const char *fn, MPI_Comm parent, int take, uint32_t *ctx)
{
    if (!ready)
        init_ids();
    if (parent->inter) /* a new intercommunicator over both groups (dup) */
        return faro_ctx_agree_inter(fn, parent->local, 0, parent, 0, FARO_TAG_INTER_BASE, ctx);
    uint32_t mask[CTX_WORDS];
    memcpy(mask, free_ids, sizeof mask);
    int rc = PMPI_Allreduce(MPI_IN_PLACE, mask, CTX_WORDS, MPI_UINT32_T, MPI_BAND, parent);
    if (rc)
        return rc;
    *ctx = lowest(mask);
    if (*ctx == UINT32_MAX)
        return none_free(fn, parent);
    if (take)
        take_id(*ctx);
    return MPI_SUCCESS;
}

int faro_ctx_agree_group(const char *fn, MPI_Comm parent, const int *members, int n, int me,
                         int tag, uint32_t *ctx)
{
    if (!ready)
        init_ids();
    /* internal tags -1001 .. -1098 */
    return agree_tree(fn, parent, members, n, me, FARO_TAG_COMM_BASE - 1 - tag % 98, ctx);
}
