/*
 * The shared-memory transport's endpoint: init (tunables, attributes, the
 * receive segment, the CMA probe), address exchange, connect, wireup, finalize,
 * and the ops table the core sees.
 */
#include "shm.h"
#include "base/log.h"
#include "base/tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* Slots start on a ring-line boundary so that no two slots share a cache line. */
#define SHM_SLOT_ALIGN SHM_RING_LINE

/* Hints for choosing between transports, from the 2-process harness on a
 * 2-core AMD EPYC VM: 8-byte ping-pong 0.11-0.6 us one way (noisy host);
 * 1 MiB by CMA get 6-12 GB/s, by the fragment pipeline 2-20 GB/s (cache-hot). */
#define SHM_LATENCY_US 0.3
#define SHM_BANDWIDTH_MBS 8000.0

static void shm_free(faro_tp_t *tp)
{
    faro_shm_queue_free(tp);
    for (int l = 0; tp->peers && l < tp->env->local_size; l++) {
        faro_shm_unwatch(&tp->peers[l]);
        faro_shm_seg_detach(&tp->peers[l]);
    }
    if (tp->seg)
        munmap(tp->seg, tp->seg_len);
    faro_shm_seg_unlink(tp);
    if (tp->bell >= 0)
        close(tp->bell);
    if (tp->bell_self >= 0)
        close(tp->bell_self);
    free(tp->pfd);
    free(tp->in);
    free(tp->peers);
    free(tp->lidx);
    free(tp);
}

/* The core's node map must agree with itself; say what is wrong when it does not. */
static int shm_check_env(const faro_tp_env_t *env, char *why, size_t whylen)
{
    if (env->local_size < 1 || env->local_rank < 0 || env->local_rank >= env->local_size ||
        !env->local_ranks || env->local_ranks[env->local_rank] != env->rank || !env->jobid) {
        snprintf(why, whylen, "inconsistent node map: rank %d, local rank %d of %d", env->rank,
                 env->local_rank, env->local_size);
        return FARO_TP_ERR;
    }
    for (int l = 0; l < env->local_size; l++) {
        int r = env->local_ranks[l];
        if (r < 0 || r >= env->size) {
            snprintf(why, whylen, "inconsistent node map: local rank %d is job rank %d (0..%d)",
                     l, r, env->size - 1);
            return FARO_TP_ERR;
        }
    }
    return 0;
}

static void shm_fill_attr(faro_tp_t *tp, faro_tp_attr_t *attr)
{
    *attr = (faro_tp_attr_t){
        .caps = FARO_TP_CAP_LOCAL_ONLY | FARO_TP_CAP_GET | FARO_TP_CAP_SINGLE_COPY,
        .max_inline = tp->max_inline,
        .max_send = tp->max_send,
        .eager_limit = (size_t)faro_tun_int(FARO_TUN_SHM_EAGER_LIMIT),
        .eager_limit_user = faro_tun_isset(FARO_TUN_SHM_EAGER_LIMIT),
        .frag_size = tp->max_send,
        .max_get = (size_t)1 << 40,
        .rkey_size = sizeof(uint64_t),
        .latency_us = SHM_LATENCY_US,
        .bandwidth_mbs = SHM_BANDWIDTH_MBS,
    };
}

static int shm_init(faro_tp_t **out, const faro_tp_env_t *env, faro_tp_attr_t *attr, char *why,
                    size_t whylen)
{
    *out = NULL;
    int rc = shm_check_env(env, why, whylen);
    if (rc != 0)
        return rc;
    faro_tp_t *tp = calloc(1, sizeof *tp);
    if (!tp) {
        snprintf(why, whylen, "out of memory");
        return FARO_TP_ERR;
    }
    tp->env = env;
    tp->attr = attr;
    tp->bell = tp->bell_self = -1;
    tp->nslots = (uint32_t)faro_tun_int(FARO_TUN_SHM_SLOTS);
    tp->slot_size = ((size_t)faro_tun_int(FARO_TUN_SHM_SLOT_SIZE) + SHM_SLOT_ALIGN - 1) &
                    ~(size_t)(SHM_SLOT_ALIGN - 1);
    tp->max_inline = tp->slot_size - SHM_RING_SEQ - SHM_SLOT_HDR;
    tp->max_send = tp->max_inline - FARO_TP_MAX_HDR;
    tp->nrings = env->local_size - 1;
    tp->pidns = faro_shm_pidns();

    tp->lidx = malloc(sizeof *tp->lidx * (size_t)env->size);
    tp->peers = calloc((size_t)env->local_size, sizeof *tp->peers);
    tp->in = calloc(tp->nrings ? (size_t)tp->nrings : 1, sizeof *tp->in);
    tp->pfd = calloc(tp->nrings ? (size_t)tp->nrings : 1, sizeof *tp->pfd);
    if (!tp->lidx || !tp->peers || !tp->in || !tp->pfd) {
        snprintf(why, whylen, "out of memory for %d ranks", env->size);
        shm_free(tp);
        return FARO_TP_ERR;
    }
    for (int r = 0; r < env->size; r++)
        tp->lidx[r] = -1;
    for (int l = 0; l < env->local_size; l++) {
        struct faro_tp_ep *p = &tp->peers[l];
        p->rank = env->local_ranks[l];
        p->qtail = &p->qhead;
        p->pidfd = -1;
        p->bell = -1;
        tp->lidx[p->rank] = l;
        if (l != env->local_rank) {
            struct shm_in *in = &tp->in[shm_ring_index(l, env->local_rank)];
            in->peer = p->rank;
            in->lidx = l;
        }
    }

    shm_fill_attr(tp, attr);
    rc = faro_shm_cma_init(tp, why, whylen);
    if (rc == 0 && tp->nrings > 0)
        rc = faro_shm_seg_create(tp, why, whylen);
    else if (rc == 0) /* alone on the node: nothing arrives, so the wait fd never wakes */
        tp->bell = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (rc != 0) {
        shm_free(tp);
        return rc;
    }
    *out = tp;
    return FARO_TP_OK;
}

static int shm_finalize(faro_tp_t *tp)
{
    if (tp->nqueued)
        faro_warn("shm: finalize with %zu sends still queued; they are dropped", tp->nqueued);
    faro_shm_say_bye(tp);
    shm_free(tp);
    return FARO_TP_OK;
}

static int shm_addr_get(faro_tp_t *tp, void *blob, size_t *len)
{
    struct shm_blob b = {
        .magic = (uint32_t)SHM_MAGIC,
        .version = SHM_VERSION,
        .rank = tp->env->rank,
        .pid = getpid(),
        .probe_addr = (uint64_t)(uintptr_t)&tp->probe_word,
        .probe_val = tp->probe_word,
        .nslots = tp->nslots,
        .slot_size = (uint32_t)tp->slot_size,
        .pidns = tp->pidns,
    };
    memcpy(blob, &b, sizeof b);
    *len = sizeof b;
    return FARO_TP_OK;
}

/* Only the ranks of this job on this node: the blob names the rank, whose
 * segment we map (no keys, no ports: shm reaches nothing outside the job). */
static int shm_connect(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **ep)
{
    struct shm_blob b;
    if (conn->key) {
        faro_error("shm: connect with a port key: shm reaches only the ranks of its own job");
        return FARO_TP_UNSUPPORTED;
    }
    if (conn->addrlen != sizeof b) {
        faro_error("shm: connect: address of %zu bytes, expected %zu "
                   "(is the peer running another Faro build?)", conn->addrlen, sizeof b);
        return FARO_TP_ERR;
    }
    memcpy(&b, conn->addr, sizeof b);
    int peer = b.rank;
    struct faro_tp_ep *p = shm_peer_of(tp, peer);
    if (b.magic != (uint32_t)SHM_MAGIC || b.version != SHM_VERSION || !p) {
        faro_error("shm: connect: the address is not an shm address of another rank of this "
                   "node (rank %d) of this Faro version", peer);
        return FARO_TP_ERR;
    }
    if (!p->ctx)
        p->ctx = conn->ctx;
    *ep = p;
    if (p->connected)
        return FARO_TP_OK;
    p->pid = b.pid;
    int rc = faro_shm_seg_attach(tp, p, &b);
    if (rc == 0)
        rc = faro_shm_cma_probe(tp, &b);
    if (rc != 0) {
        faro_shm_seg_detach(p);
        return FARO_TP_ERR;
    }
    faro_shm_watch(tp, p, b.pidns);
    p->connected = 1;
    faro_info(2, "shm: connected to rank %d (pid %d), %u slots of %zu bytes%s", peer, b.pid,
              tp->nslots, tp->slot_size, tp->cma ? ", CMA on" : "");
    return FARO_TP_OK;
}

/* Every peer has mapped our segment: drop its name so that a crash leaves nothing. */
static int shm_wireup_done(faro_tp_t *tp)
{
    faro_shm_seg_unlink(tp);
    return FARO_TP_OK;
}

static int shm_disconnect(faro_tp_t *tp, struct faro_tp_ep *p)
{
    if (p->qhead)
        return FARO_TP_AGAIN; /* queued sends still need the mapping; progress first */
    faro_shm_unwatch(p);
    faro_shm_seg_detach(p);
    p->connected = 0;
    return FARO_TP_OK;
}

static int shm_set_handler(faro_tp_t *tp, unsigned kind, faro_tp_handler_fn fn)
{
    if (kind >= FARO_TP_MAX_KINDS) {
        faro_error("shm: set_handler: kind %u is invalid (0..%d)", kind, FARO_TP_MAX_KINDS - 1);
        return FARO_TP_ERR;
    }
    tp->handlers[kind] = fn;
    return FARO_TP_OK;
}

const faro_tp_ops_t faro_tp_shm_ops = {
    .name = "shm",
    .init = shm_init,
    .finalize = shm_finalize,
    .addr_get = shm_addr_get,
    .connect = shm_connect,
    .wireup_done = shm_wireup_done,
    .listen = faro_tp_unsupported_listen,
    .unlisten = faro_tp_unsupported_unlisten,
    .disconnect = shm_disconnect,
    .set_handler = shm_set_handler,
    .send_inline = faro_shm_send_inline,
    .isend = faro_shm_isend,
    .mem_reg = faro_shm_mem_reg,
    .mem_dereg = faro_shm_mem_dereg,
    .rkey_pack = faro_shm_rkey_pack,
    .rkey_unpack = faro_shm_rkey_unpack,
    .rkey_release = faro_shm_rkey_release,
    .get = faro_shm_get,
    .put = faro_tp_unsupported_put,
    .flush = faro_shm_flush,
    .progress = faro_shm_progress,
    .wait_fd = faro_shm_wait_fd,
};
