/*
 * Single-copy puts and gets for windows whose memory the program gave
 * (MPI_Win_create, and MPI_Win_allocate when it is not a one-node segment):
 * where the transport that reaches a target copies in the call (caps
 * SINGLE_COPY with PUT or GET: shm's CMA reads, self), a contiguous put or
 * get is that copy, done by the origin alone; nothing waits for the target.
 *
 * At creation every member registers its window with each such transport
 * it has and publishes the packed keys (one slot per transport, by name);
 * an origin unpacks a target's key at its first operation there. Everything
 * else (other transports, non-contiguous targets, accumulates) travels as
 * messages (am.c). MPI leaves puts and gets unordered with other operations
 * until a synchronization, so the two paths may be mixed freely.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"

#define RMA_SC_SLOTS 4
/* Below this many bytes the message round trip is faster than the system
 * call (osu_get_latency -w create, 2 ranks on this loaded 2-core machine:
 * 4 KiB 3.4-3.6 us as messages against 5.2-5.4 by CMA; 16 KiB 32-34 against
 * 9.0; 64 KiB 108-127 against 22-25). */
#define RMA_SC_MIN 8192

struct sc_slot {
    char name[16];           /* the transport's name; "" for an empty slot */
    uint32_t len;
    uint8_t key[FARO_TP_MAX_RKEY];
};

struct faro_rma_single {
    struct sc_slot *keys;    /* [size][RMA_SC_SLOTS] as published */
    faro_tp_mem_t *reg[RMA_SC_SLOTS]; /* this member's registrations */
    struct faro_transport *regt[RMA_SC_SLOTS];
    faro_tp_rkey_t **rkey;   /* [size]: the target's key for its transport, once unpacked */
    unsigned char *tried;    /* [size]: 1 unpacked (or not possible) */
};

static int single_copy(const struct faro_transport *t)
{
    uint32_t c = t->attr.caps;
    return t->tp && (c & FARO_TP_CAP_SINGLE_COPY) && (c & (FARO_TP_CAP_PUT | FARO_TP_CAP_GET)) &&
           !(c & FARO_TP_CAP_LOCAL_REG);
}

int faro_rma_single_init(MPI_Win win)
{
    int n = win->comm->size;
    struct faro_rma_single *s = calloc(1, sizeof *s);
    struct sc_slot *mine = calloc(RMA_SC_SLOTS, sizeof *mine);
    if (!s || !mine || !(s->keys = calloc((size_t)n * RMA_SC_SLOTS, sizeof *s->keys)) ||
        !(s->rkey = calloc((size_t)n, sizeof *s->rkey)) || !(s->tried = calloc((size_t)n, 1))) {
        free(mine);
        if (s) {
            free(s->keys);
            free(s->rkey);
            free(s);
        }
        return MPI_ERR_NO_MEM;
    }
    win->sc = s;
    for (int i = 0, k = 0; i < faro.ntps && k < RMA_SC_SLOTS && win->size > 0; i++) {
        struct faro_transport *t = &faro.tps[i];
        size_t len = sizeof mine[k].key;
        /* peers read what the transport gets, and write what it puts */
        unsigned flags = (t->attr.caps & FARO_TP_CAP_GET ? FARO_TP_MEM_REMOTE_READ : 0) |
                         (t->attr.caps & FARO_TP_CAP_PUT ? FARO_TP_MEM_REMOTE_WRITE : 0);
        if (!single_copy(t) ||
            t->ops->mem_reg(t->tp, win->base, (size_t)win->size, flags, &s->reg[k]) !=
                FARO_TP_OK)
            continue;
        if (t->ops->rkey_pack(t->tp, s->reg[k], mine[k].key, &len) != FARO_TP_OK) {
            t->ops->mem_dereg(t->tp, s->reg[k]);
            s->reg[k] = NULL;
            continue;
        }
        snprintf(mine[k].name, sizeof mine[k].name, "%s", t->ops->name);
        mine[k].len = (uint32_t)len;
        s->regt[k++] = t;
    }
    int rc = PMPI_Allgather(mine, (int)(RMA_SC_SLOTS * sizeof *mine), MPI_BYTE, s->keys,
                            (int)(RMA_SC_SLOTS * sizeof *mine), MPI_BYTE, win->comm);
    free(mine);
    return rc;
}

void faro_rma_single_free(MPI_Win win)
{
    struct faro_rma_single *s = win->sc;
    if (!s)
        return;
    for (int r = 0; r < win->comm->size; r++)
        if (s->rkey[r]) {
            struct faro_peer *p = &faro.peers[faro_comm_world_rank(win->comm, r)];
            p->t->ops->rkey_release(p->t->tp, s->rkey[r]);
        }
    for (int k = 0; k < RMA_SC_SLOTS; k++)
        if (s->reg[k])
            s->regt[k]->ops->mem_dereg(s->regt[k]->tp, s->reg[k]);
    free(s->keys);
    free(s->rkey);
    free(s->tried);
    free(s);
    win->sc = NULL;
}

/* The key of target for the transport that reaches it, or NULL. */
static faro_tp_rkey_t *key_of(MPI_Win win, int target, struct faro_peer **pp)
{
    struct faro_rma_single *s = win->sc;
    struct faro_peer *p = faro_peer_get(faro_comm_world_rank(win->comm, target));
    *pp = p;
    if (s->tried[target])
        return s->rkey[target];
    s->tried[target] = 1;
    if (!p->t || !single_copy(p->t))
        return NULL;
    const struct sc_slot *slot = &s->keys[(size_t)target * RMA_SC_SLOTS];
    for (int k = 0; k < RMA_SC_SLOTS; k++)
        if (slot[k].len && strcmp(slot[k].name, p->t->ops->name) == 0 &&
            p->t->ops->rkey_unpack(p->t->tp, p->ep, slot[k].key, slot[k].len,
                                   &s->rkey[target]) != FARO_TP_OK)
            s->rkey[target] = NULL;
    return s->rkey[target];
}

int faro_rma_single_op(MPI_Win win, const struct rma_args *a)
{
    if (!win->sc || (a->kind != RMA_PUT && a->kind != RMA_GET) || !a->ttype->dense)
        return 0;
    size_t bytes = (size_t)a->tcount * a->ttype->size;
    if (bytes < RMA_SC_MIN)
        return 0;
    struct faro_peer *p;
    faro_tp_rkey_t *rkey = key_of(win, a->target, &p);
    uint32_t need = a->kind == RMA_PUT ? FARO_TP_CAP_PUT : FARO_TP_CAP_GET;
    if ( !rkey || !(p->t->attr.caps & need) ||
        bytes > (a->kind == RMA_PUT ? p->t->attr.max_put : p->t->attr.max_get))
        return 0;
    const struct faro_win_rank *r = &win->ranks[a->target];
    uint64_t raddr = r->base + (uint64_t)((int64_t)a->disp * r->disp_unit) +
                     (uint64_t)a->ttype->run[0].off;
    MPI_Datatype lt = a->kind == RMA_PUT ? a->otype : a->rtype;
    void *lbuf = a->kind == RMA_PUT ? (void *)a->oaddr : a->raddr;
    int lcount = a->kind == RMA_PUT ? a->ocount : a->rcount;
    void *tmp = NULL;
    struct iovec iov = {faro_type_dense_at(lbuf, lt), bytes};
    if (!lt->dense) { /* through a packed copy */
        if (!(tmp = malloc(bytes)))
            return 0;
        if (a->kind == RMA_PUT)
            faro_type_pack(lbuf, (size_t)lcount, lt, tmp);
        iov.iov_base = tmp;
    }
    int rc = a->kind == RMA_PUT
                 ? p->t->ops->put(p->t->tp, p->ep, &iov, 1, NULL, rkey, raddr, NULL, NULL)
                 : p->t->ops->get(p->t->tp, p->ep, &iov, 1, NULL, rkey, raddr, NULL, NULL);
    if (rc == FARO_TP_DONE && tmp && a->kind == RMA_GET)
        faro_type_unpack(tmp, bytes, lbuf, lt);
    free(tmp);
    return rc == FARO_TP_DONE;
}
