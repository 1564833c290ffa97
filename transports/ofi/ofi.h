/*
 * libfabric (ofi) transport: private state shared by its files.
 *
 *   ofi_info.c      the provider survey and choice: fi_getinfo with the
 *                   transport's requirements, why each provider found is or is
 *                   not usable, which one is taken
 *   ofi_init.c      fabric, domain, address vector, completion queue and
 *                   endpoint; attributes; the wait fd; finalize; the ops table
 *   ofi_av.c        the address vector: one insert per distinct address
 *   ofi_conn.c      address blobs, connect, the hello that authenticates a new
 *                   source, accepted, goodbyes, disconnect, lost peers
 *   ofi_port.c      ports: listen, connect with a key, the port hello and its
 *                   verdict, messages of port connections
 *   ofi_send.c      send_inline, isend, send buffers and per-peer queues, flush
 *   ofi_progress.c  pre-posted receive buffers, reading the completion
 *                   queue, delivering messages to the handlers
 *   ofi_rma.c       mem_reg/mem_dereg through the registration cache, remote
 *                   keys, get and put
 *
 * One reliable-datagram endpoint (FI_EP_RDM) per process reaches every peer;
 * peers are entries of its address vector, inserted at connect or when a
 * peer's hello arrives. Every message starts with a struct ofi_wire (16
 * bytes: kind, header length, the sender's rank and an 8-byte tag derived
 * from the job key; on a port connection, the receiver's slot for it and the
 * connection's random tag) followed by the owner's header and the payload.
 * The provider orders sends per peer (FI_ORDER_SAS, required) and protects
 * receive buffers from overrun (FI_RM_ENABLED, required): see faro-ofi(7).
 */
#ifndef FARO_OFI_H
#define FARO_OFI_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdint.h>
#include <sys/uio.h>

#include "transport.h"
#include "common/ports.h"
#include "common/rcache.h"

#pragma GCC visibility push(hidden)

#define OFI_API FI_VERSION(1, 10)
#define OFI_MAGIC 0x4f46494fu     /* "OFIO" */
#define OFI_PORT_MAGIC 0x4f464950u /* "OFIP": a port hello or verdict */
#define OFI_VERSION 2
#define OFI_KIND_GATE 0xfcu       /* internal kinds, never given to a handler; the gate is */
#define OFI_KIND_VERDICT 0xfdu    /* never sent: it holds a port connector's queue */
#define OFI_KIND_HELLO 0xfeu
#define OFI_KIND_BYE 0xffu
#define OFI_MAX_REFUSED 64        /* new addresses a refusal is sent to, at most (ofi_port.c) */
#define OFI_AV_BUCKETS 256        /* hash of the addresses inserted (ofi_av.c) */
#define OFI_MAX_NAME 160          /* bytes of an fi_getname address we carry */
#define OFI_PROV_LEN 32
#define OFI_MAX_MSG 16384         /* largest message, wire + header + payload: a receive
                                   * buffer (ofi_init.c, ofi_progress.c) */
#define OFI_BOUNCE OFI_MAX_MSG    /* a send buffer: any message fits one (gathering) */
#define OFI_MAX_INLINE (8192 - sizeof(struct ofi_wire)) /* send_inline copies up to this */
#define OFI_TX_IOV 4              /* wire+header and up to 3 payload pieces in place */
#define OFI_TX_HEAD 256           /* a whole message this small is copied into its send entry */
#define OFI_CQ_BATCH 16
#define OFI_POLL_MAX 64           /* completions one progress call handles at most */
#define OFI_DRAIN_S 2.0           /* finalize waits this long at most for its goodbyes */

/* What every message starts with. */
struct ofi_wire {
    uint8_t kind;                 /* the owner's kind, or OFI_KIND_* */
    uint8_t hdrlen;
    uint16_t flags;
    int32_t src;                  /* the sender's job rank; on a port connection the
                                   * receiver's slot for it (-1 in a port hello) */
    uint64_t tag;                 /* ofi_tag(job key), or a port connection's tag: a
                                   * message with neither is dropped */
};

/* The address blob (addr_get), and the tail of a hello. */
struct ofi_addr {
    uint32_t magic;
    uint16_t version, namelen;
    int32_t rank;
    int32_t pid;                  /* for liveness checks by peers on the same host */
    uint64_t pidns;
    uint64_t boot;                /* the host's boot id, hashed: same host, same kernel */
    char prov[OFI_PROV_LEN];      /* provider name: peers must use the same one */
    uint8_t name[OFI_MAX_NAME];   /* fi_getname; namelen bytes are sent */
};
#define OFI_ADDR_HDR offsetof(struct ofi_addr, name)

/* Payload of a hello: the job key, then the sender's address blob. */
struct ofi_hello {
    uint32_t magic;
    uint16_t keylen, addrlen;
};

/* Payload of a port hello: this, the port's key, then the connector's address
 * blob. Its wire carries the connection's tag. */
struct ofi_port_hello {
    uint32_t magic;               /* OFI_PORT_MAGIC */
    uint16_t keylen, addrlen;
    int32_t slot;                 /* the connector's slot: the src of messages to it */
    uint32_t pad;
    uint64_t id;                  /* the connector's id for the port's owner */
};

/* Payload of the answer to a port hello. */
enum ofi_verdict_code { OFI_ACCEPT = 1, OFI_REFUSED = 2 };
struct ofi_verdict {
    uint32_t magic;               /* OFI_PORT_MAGIC */
    uint32_t verdict;
    int32_t slot;                 /* accepted: the acceptor's slot for the connection */
    uint32_t pad;
};

/* A packed remote key. */
struct ofi_rkey_wire {
    uint32_t magic;
    uint16_t version, virt;       /* virt: raddr is a virtual address (FI_MR_VIRT_ADDR) */
    uint64_t key, base, len;
};

struct faro_tp_rkey {
    uint64_t key, base, len;
    int virt;
};

/* The registration behind a cache entry (the cache hands entries out as
 * faro_tp_mem_t). */
struct ofi_mr {
    struct fid_mr *mr;
    void *desc;
    uint64_t key;
};

/* Every operation the provider holds starts with its context. */
enum ofi_op_type { OFI_OP_SEND = 1, OFI_OP_RECV, OFI_OP_RMA };

struct ofi_op {
    struct fi_context2 fictx;     /* first: FI_CONTEXT/FI_CONTEXT2 providers write here */
    int type;
};

/* A send the provider holds. Comes from the tx pool, which lives in
 * registered memory (tp->tx_mr) so that `head` needs no registration of its
 * own under FI_MR_LOCAL. */
struct ofi_tx {
    struct ofi_op op;
    struct faro_tp_ep *ep;
    faro_tp_done_fn done;         /* NULL: nothing to tell the owner */
    void *arg;
    int bounce;                   /* index of its send buffer, -1 when none */
    int nreg;                     /* payload registrations held (FI_MR_LOCAL) */
    struct faro_rcache_entry *reg[OFI_TX_IOV];
    struct ofi_tx *next;          /* free list */
    uint8_t head[OFI_TX_HEAD];    /* wire + header (+ a small payload) */
};

/* A send waiting for the provider (or for an earlier one to the same peer). */
struct ofi_sq {
    struct ofi_sq *next;
    faro_tp_done_fn done;
    void *arg;
    unsigned kind;
    uint8_t hdrlen;
    int iovcnt;
    struct iovec *iov;            /* points into this allocation */
    uint8_t hdr[FARO_TP_MAX_HDR];
};

/* A receive buffer (one message). */
struct ofi_rx {
    struct ofi_op op;
    uint8_t *buf;
    size_t size;
    void *desc;
    int posted;                   /* the provider holds it */
};

/* One get or put of the owner, split into provider operations. */
struct ofi_rma_req {
    faro_tp_done_fn done;
    void *arg;
    struct faro_tp_ep *ep;
    int left;                     /* provider operations not yet completed */
    int status;
};

struct ofi_rma {
    struct ofi_op op;
    struct ofi_rma_req *req;
    struct ofi_rma *next;         /* pending list, while the provider is full */
    int put;
    int posted;                   /* the provider took it (counted in tp->inflight) */
    size_t iovcnt;
    struct fi_rma_iov rma;
    struct iovec iov[];           /* then iovcnt descriptors */
};

/* An address inserted into the AV (ofi_av.c). */
struct ofi_av_addr {
    struct ofi_av_addr *next;
    fi_addr_t fiaddr;
    struct faro_tp_ep *refusal;   /* the endpoint refusals to it go from, if any */
    size_t namelen;
    uint8_t name[];
};

enum ofi_fail { OFI_FAIL_NONE, OFI_FAIL_PENDING, OFI_FAIL_REPORTED };

struct faro_tp_ep {
    int rank;                     /* its job rank; -1 on a port connection */
    void *ctx;                    /* the owner's, from connect or accepted */
    fi_addr_t fiaddr;
    int32_t wsrc;                 /* what our messages to it carry: our rank, or its */
    uint64_t wtag;                /* slot for the connection; the job's tag, or the
                                   * connection's */
    int slot;                     /* port connections: index in tp->slots; -1 otherwise */
    unsigned port;                /* accepted on this port (0: a job rank, or we connected) */
    uint64_t id;                  /* the id the connector presented */
    int gated;                    /* we connected to a port: its verdict has not come */
    int refusal;                  /* only carries refusals of port hellos (ofi_port.c) */
    int heard;                    /* its hello arrived: its messages are delivered */
    int closed;                   /* we disconnected it */
    int bye;                      /* it said goodbye */
    enum ofi_fail fail;
    int pidfd;                    /* same-node peer: readable once its process ends */
    int32_t pid;
    long inflight;                /* sends and gets/puts the provider holds for it */
    struct ofi_sq *qhead, **qtail;
    struct faro_tp_ep *next;      /* every endpoint */
    struct faro_tp_ep *qnext;     /* endpoints with queued sends */
    int queued;                   /* on that list */
    char name[64];                /* "rank 3", for messages */
    char why[200];
};

struct faro_tp {
    const faro_tp_env_t *env;
    struct fi_info *info;         /* the provider chosen */
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    int cq_fd;                    /* the CQ's wait object, -1 when none */
    int epfd, kickfd;             /* the wait fd: CQ fd + a kick for pending work */
    int kicked;
    uint64_t tag;                 /* ofi_tag(job key) */
    int mr_local;                 /* local buffers need registration (FI_MR_LOCAL or forced) */
    int mr_virt, mr_prov_key, mr_endpoint;
    uint64_t next_key;            /* our own keys, when the provider does not pick them */
    int local_only;               /* the provider reaches only this node (shm) */
    size_t inject, iov_limit, rma_iov_limit, max_msg;
    size_t max_send;              /* largest isend payload (fits a receive buffer) */
    struct faro_rcache *rcache;

    struct ofi_addr self;         /* our address blob */
    size_t selflen;

    struct faro_tp_ep **job;      /* endpoint of each job rank, created at first use */
    struct faro_tp_ep **slots;    /* endpoints of port connections, by slot */
    int nslots, capslots;
    struct faro_tp_ports ports;   /* listen() keys */
    struct ofi_av_addr *avhash[OFI_AV_BUCKETS]; /* every address inserted */
    int nrefused;                 /* addresses inserted only to refuse them */
    struct faro_tp_ep *eps;
    struct faro_tp_ep *qeps;      /* endpoints with queued sends */
    int nfail;

    /* sends */
    struct ofi_tx *txs, *txfree;
    size_t ntx;
    struct fid_mr *tx_mr;         /* the tx pool and the send buffers, under FI_MR_LOCAL */
    void *tx_desc;
    uint8_t *bounce;              /* nbounce send buffers of OFI_BOUNCE bytes */
    int *bfree, nbfree, nbounce;
    void *bounce_desc;
    struct fid_mr *bounce_mr;
    long inflight;                /* sends and RMA the provider holds */

    /* receives */
    struct ofi_rx *rx;
    uint8_t *rxmem;
    int nrx, nunposted;
    size_t rx_size;
    struct fid_mr *rx_mr;

    /* RMA the provider could not take yet */
    struct ofi_rma *rma_head, **rma_tail;

    unsigned polls;
    double last_check;
    long dropped;                 /* messages dropped (no key, unknown source) */
    double warned_at;
    int finalizing;
    faro_tp_handler_fn handlers[FARO_TP_MAX_KINDS];
};

/* ofi_info.c */
/* Choose the provider: tp->info on success; otherwise FARO_TP_UNAVAILABLE with
 * the reason in why. note (may be NULL) gets the survey for faro_info. */
int ofi_choose(faro_tp_t *tp, char *why, size_t whylen, char *note, size_t notelen);

/* ofi_av.c */
/* The AV entry of an address: found, or inserted when create (NULL on error). */
struct ofi_av_addr *ofi_av_get(faro_tp_t *tp, const uint8_t *name, size_t namelen, int create);
void ofi_av_fini(faro_tp_t *tp);

/* ofi_conn.c */
int ofi_addr_get(faro_tp_t *tp, void *blob, size_t *len);
/* Read and check an address blob; NULL, or what is wrong with it (in why).
 * job: it must be of a rank of this job. */
const char *ofi_blob(faro_tp_t *tp, const void *blob, size_t len, struct ofi_addr *a, int job,
                     char *why, size_t whylen);
/* A new endpoint to a's address (in the AV, on tp->eps, watched when on this
 * host), addressed as a job peer until the caller says otherwise. */
struct faro_tp_ep *ofi_ep_alloc(faro_tp_t *tp, const struct ofi_addr *a, void *ctx);
int ofi_connect(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **ep);
int ofi_disconnect(faro_tp_t *tp, struct faro_tp_ep *p);
void ofi_dropped(faro_tp_t *tp, const char *what, int src);
/* One message as the completion queue gave it (ofi_progress.c): every byte a
 * peer or a stranger sends goes through here first (and tests/fuzz/fuzz_ofi). */
void ofi_deliver(faro_tp_t *tp, const uint8_t *buf, size_t len);
void ofi_hello_in(faro_tp_t *tp, const struct ofi_wire *w, const uint8_t *data, size_t len);
void ofi_bye_in(faro_tp_t *tp, struct faro_tp_ep *p);
void ofi_peer_fail(faro_tp_t *tp, struct faro_tp_ep *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int ofi_report_failures(faro_tp_t *tp);
void ofi_check_peers(faro_tp_t *tp);
void ofi_unwatch(struct faro_tp_ep *p);
void ofi_say_bye(faro_tp_t *tp);
void ofi_free_eps(faro_tp_t *tp);
uint64_t ofi_tag(const uint8_t *key, size_t len);
uint64_t ofi_pidns(void);
uint64_t ofi_boot_id(void);
double ofi_now(void);

/* ofi_port.c */
int ofi_listen(faro_tp_t *tp, const uint8_t *key, size_t keylen, unsigned *port);
int ofi_unlisten(faro_tp_t *tp, unsigned port);
int ofi_port_connect(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **ep);
/* A message whose tag is not the job's: a port hello, or a port connection's. */
void ofi_port_deliver(faro_tp_t *tp, const struct ofi_wire *w, const uint8_t *buf, size_t len);
int ofi_port_disconnect(faro_tp_t *tp, struct faro_tp_ep *p);
void ofi_ports_fini(faro_tp_t *tp);

/* ofi_send.c */
int ofi_tx_init(faro_tp_t *tp, char *why, size_t whylen);
void ofi_tx_fini(faro_tp_t *tp);
int ofi_send_inline(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
                    size_t hdrlen, const void *data, size_t len);
int ofi_isend(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
              size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
              void *arg);
int ofi_send_ctl(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *data,
                 size_t len);
/* The gate: sends queued behind it wait until ofi_ungate (a port's verdict). */
int ofi_gate(faro_tp_t *tp, struct faro_tp_ep *p);
void ofi_ungate(faro_tp_t *tp, struct faro_tp_ep *p);
void ofi_tx_done(faro_tp_t *tp, struct ofi_tx *tx, int status);
int ofi_drain(faro_tp_t *tp);
void ofi_queue_fail(faro_tp_t *tp, struct faro_tp_ep *p);
int ofi_flush(faro_tp_t *tp, struct faro_tp_ep *p);
int ofi_reg_local(faro_tp_t *tp, void *buf, size_t len, struct fid_mr **mr, void **desc,
                  char *why, size_t whylen);

/* ofi_progress.c */
int ofi_rx_init(faro_tp_t *tp, char *why, size_t whylen);
void ofi_rx_fini(faro_tp_t *tp);
int ofi_progress(faro_tp_t *tp);

/* ofi_rma.c */
int ofi_rma_init(faro_tp_t *tp);
void ofi_rma_fini(faro_tp_t *tp);
int ofi_mem_reg(faro_tp_t *tp, void *buf, size_t len, unsigned flags, faro_tp_mem_t **mem);
int ofi_mem_dereg(faro_tp_t *tp, faro_tp_mem_t *mem);
int ofi_rkey_pack(faro_tp_t *tp, const faro_tp_mem_t *mem, void *buf, size_t *len);
int ofi_rkey_unpack(faro_tp_t *tp, struct faro_tp_ep *ep, const void *buf, size_t len,
                    faro_tp_rkey_t **rkey);
int ofi_rkey_release(faro_tp_t *tp, faro_tp_rkey_t *rkey);
int ofi_get(faro_tp_t *tp, struct faro_tp_ep *ep, const struct iovec *local, int iovcnt,
            faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
            faro_tp_done_fn done, void *arg);
int ofi_put(faro_tp_t *tp, struct faro_tp_ep *ep, const struct iovec *local, int iovcnt,
            faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
            faro_tp_done_fn done, void *arg);
void ofi_rma_done(faro_tp_t *tp, struct ofi_rma *op, int status);
int ofi_rma_drain(faro_tp_t *tp);

#pragma GCC visibility pop

#endif
