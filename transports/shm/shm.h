/*
 * Shared-memory transport: private state shared by the files of transports/shm/.
 *
 *   shm_ep.c        init, finalize, attributes, set_handler, the ops table
 *   shm_segment.c   the receive segment: layout, create, attach, unlink
 *   shm_ring.h      the lock-free single-producer/single-consumer slot ring
 *   shm_send.c      send_inline, isend and the per-peer queues
 *   shm_progress.c  polling the incoming rings, draining queues, peer liveness
 *   shm_cma.c       single copy with process_vm_readv: probe, mem_reg, get
 *   shm_wait.c      the wait fd: a doorbell per receiver, rung by senders
 *
 * Each process owns one segment, "/<jobid>-shm-<rank>", with one ring per
 * local sender. A sender maps the receiver's segment and writes only into its
 * own ring there; the receiver polls all its rings. Beside it lies its
 * doorbell, the socket "/dev/shm/<jobid>-shm-<rank>.bell" (shm_wait.c). See
 * faro-shm(7).
 */
#ifndef FARO_SHM_H
#define FARO_SHM_H

#include "transport.h"
#include "shm_ring.h"

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#pragma GCC visibility push(hidden)

#define SHM_MAGIC 0x314d48534f524146ull /* "FAROSHM1" */
#define SHM_VERSION 4
#define SHM_DIR "/dev/shm"
#define SHM_KIND_BYE 0xffu /* internal slot kind: the sender finalized (never a handler's) */

/* At the start of every segment; written once by the owner before anyone maps it. */
struct shm_seg_hdr {
    uint64_t magic;
    uint32_t version;
    int32_t owner_rank;
    int32_t owner_pid;
    uint32_t nrings;
    uint32_t nslots;
    uint32_t slot_size;
    uint64_t seg_size;
    _Atomic uint32_t mapped; /* senders attached so far; the last one unlinks the name */
    /* 1 while the owner may sleep on its doorbell (shm_wait.c). On a line of
     * its own: senders read it after every message and it stays in their
     * caches until the owner writes it, which it does only before a sleep. */
    _Alignas(SHM_RING_LINE) _Atomic uint32_t sleeping;
};

/* At the start of every slot; header bytes then payload follow it directly. */
struct shm_slot {
    uint32_t len;    /* payload bytes */
    uint8_t hdrlen;  /* <= FARO_TP_MAX_HDR */
    uint8_t kind;    /* < FARO_TP_MAX_KINDS */
    uint16_t unused;
};
#define SHM_SLOT_HDR sizeof(struct shm_slot)

/* What addr_get publishes; the segment name follows from the jobid and rank. */
struct shm_blob {
    uint32_t magic;   /* low half of SHM_MAGIC: a blob from another transport is refused */
    uint32_t version;
    int32_t rank;
    int32_t pid;
    uint64_t probe_addr; /* where the CMA probe word lives in that process */
    uint64_t probe_val;  /* and what a real read must find there */
    uint32_t nslots;
    uint32_t slot_size;
    uint64_t pidns;      /* PID namespace of pid: pids mean nothing across namespaces */
};

/* An isend that found no free slot; kept in per-peer FIFO order. */
struct shm_pend {
    struct shm_pend *next;
    faro_tp_done_fn done;
    void *arg;
    struct iovec *iov; /* iov_inline, or malloc'd when iovcnt is larger */
    int iovcnt;
    uint32_t len;
    uint8_t kind, hdrlen;
    unsigned char hdr[FARO_TP_MAX_HDR];
    struct iovec iov_inline[4];
};

/* A local peer: the endpoint the owner sees. As a destination it is our ring
 * in its segment; as a source, its ring in ours (struct shm_in). */
struct faro_tp_ep {
    int rank;
    void *ctx;               /* the owner's, from connect or accepted; NULL before */
    pid_t pid;
    int pidfd;               /* polls readable once the peer exits (-1: use kill) */
    int watch;               /* pid names the peer here, so liveness checks apply */
    int connected;
    int failed;              /* its loss already reported (ep_lost) */
    int bye;                 /* it said goodbye: its exit is orderly */
    struct shm_tx tx;
    _Atomic uint32_t *sleeping; /* the peer's "may sleep" flag, in its segment */
    int bell;                /* connected to the peer's doorbell (-1: none) */
    void *map;               /* the peer's whole segment */
    size_t map_len;
    struct shm_pend *qhead;  /* queued isends, oldest first */
    struct shm_pend **qtail;
};

/* A local peer as a source: its ring in our segment. */
struct shm_in {
    struct shm_rx rx;
    void *ctx;               /* the sender's endpoint context, once known */
    int peer;                /* job rank of the sender */
    int lidx;                /* its local index */
    uint64_t tail_at_check;  /* ring tail at the last liveness check */
};

struct faro_tp {
    const faro_tp_env_t *env;
    faro_tp_attr_t *attr;    /* the core's; narrowed by connect until wireup_done */
    faro_tp_handler_fn handlers[FARO_TP_MAX_KINDS];

    int32_t *lidx;           /* job rank -> local index, -1 when not on this node */
    struct faro_tp_ep *peers;  /* by local index; our own entry stays unused */
    struct shm_in *in;       /* incoming rings, nrings of them */
    int nrings;

    uint32_t nslots;
    size_t slot_size, max_inline, max_send;

    void *seg;               /* our receive segment */
    size_t seg_len;
    char seg_name[256];
    int seg_linked;          /* name still in /dev/shm */
    int bell;                /* our doorbell: the wait fd (-1: none) */
    int bell_self;           /* connected to it, to ring ourselves */
    int bell_linked;         /* its name still in /dev/shm */

    int cma;                 /* 1 while single copy is on */
    int cma_forced;          /* FARO_SHM_CMA=on: a failed probe is an error */
    int cma_reported;        /* the auto fallback was logged */
    volatile uint64_t probe_word;
    pid_t pid;               /* ours, the remote key of every exposed buffer
                              * (getpid() is a system call in glibc >= 2.25) */

    size_t nqueued;          /* pending isends over all peers */
    struct shm_pend *pend_free;

    uint64_t pidns;          /* our PID namespace (inode of /proc/self/ns/pid) */
    uint32_t polls;          /* progress calls, for the rate-limited liveness check */
    uint64_t last_check_ns;
    struct pollfd *pfd;      /* scratch for the liveness check, nrings entries */
};

/* The endpoint of a job rank, or NULL when it is not another rank of this node. */
static inline struct faro_tp_ep *shm_peer_of(faro_tp_t *tp, int rank)
{
    if ((unsigned)rank >= (unsigned)tp->env->size)
        return NULL;
    int l = tp->lidx[rank];
    if (l < 0 || l == tp->env->local_rank)
        return NULL;
    return &tp->peers[l];
}

/* Ring index in a receiver's segment for a sender with local index l. */
static inline int shm_ring_index(int l, int owner_local)
{
    return l < owner_local ? l : l - 1;
}

/* shm_segment.c */
size_t faro_shm_seg_size(uint32_t nrings, uint32_t nslots, size_t slot_size);
struct shm_ring *faro_shm_seg_ring(void *seg, uint32_t i);
void *faro_shm_seg_slots(void *seg, uint32_t i);
int faro_shm_seg_name(const faro_tp_t *tp, int rank, char *name, size_t len);
int faro_shm_seg_create(faro_tp_t *tp, char *why, size_t whylen);
int faro_shm_seg_attach(faro_tp_t *tp, struct faro_tp_ep *p, const struct shm_blob *b);
void faro_shm_seg_detach(struct faro_tp_ep *p);
void faro_shm_seg_unlink(faro_tp_t *tp);

/* shm_send.c */
int faro_shm_send_inline(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
                         size_t hdrlen, const void *data, size_t len);
int faro_shm_isend(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
                   size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
                   void *arg);
int faro_shm_drain(faro_tp_t *tp);
void faro_shm_queue_free(faro_tp_t *tp);

/* shm_progress.c */
int faro_shm_progress(faro_tp_t *tp);
uint64_t faro_shm_pidns(void);
void faro_shm_watch(faro_tp_t *tp, struct faro_tp_ep *p, uint64_t pidns);
void faro_shm_unwatch(struct faro_tp_ep *p);
void *faro_shm_ctx(faro_tp_t *tp, struct faro_tp_ep *p);
void faro_shm_say_bye(faro_tp_t *tp);

/* shm_wait.c */
void faro_shm_ring_bell(struct faro_tp_ep *p);
struct sockaddr_un;
int faro_shm_bell_addr(const faro_tp_t *tp, int rank, struct sockaddr_un *a);
int faro_shm_bell_create(faro_tp_t *tp, char *why, size_t whylen);
int faro_shm_bell_open(faro_tp_t *tp, struct faro_tp_ep *p);
void faro_shm_bell_close(struct faro_tp_ep *p);
void faro_shm_bell_unlink(faro_tp_t *tp);
int faro_shm_wait_fd(faro_tp_t *tp, int *fd);

/* shm_cma.c */
int faro_shm_cma_init(faro_tp_t *tp, char *why, size_t whylen);
int faro_shm_cma_probe(faro_tp_t *tp, const struct shm_blob *b);
int faro_shm_mem_reg(faro_tp_t *tp, void *buf, size_t len, unsigned flags, faro_tp_mem_t **mem);
int faro_shm_mem_dereg(faro_tp_t *tp, faro_tp_mem_t *mem);
int faro_shm_rkey_pack(faro_tp_t *tp, const faro_tp_mem_t *mem, void *buf, size_t *len);
int faro_shm_rkey_unpack(faro_tp_t *tp, struct faro_tp_ep *p, const void *buf, size_t len,
                         faro_tp_rkey_t **rkey);
int faro_shm_rkey_release(faro_tp_t *tp, faro_tp_rkey_t *rkey);
int faro_shm_get(faro_tp_t *tp, struct faro_tp_ep *p, const struct iovec *local, int iovcnt,
                 faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
                 faro_tp_done_fn done, void *arg);
int faro_shm_flush(faro_tp_t *tp, struct faro_tp_ep *p);

/* After a message to p is published: ring p's doorbell if it may be asleep.
 * The fence orders the publishing store before the load of the flag; the
 * other half of the handshake, and why no message is missed, is in
 * shm_wait.c. The flag's line stays in this cache while p is busy. */
static inline void shm_tx_wake(struct faro_tp_ep *p)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (__builtin_expect(atomic_load_explicit(p->sleeping, memory_order_relaxed) != 0, 0))
        faro_shm_ring_bell(p);
}

#pragma GCC visibility pop

#endif
