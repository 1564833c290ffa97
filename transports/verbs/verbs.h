/*
 * InfiniBand verbs transport: private state shared by the files that call
 * libibverbs and librdmacm. The same code runs on InfiniBand, RoCE and iWARP:
 * connections go through rdma_cm, by IP address.
 *
 *   verbs_wire.c     wire formats (no device; unit-tested)
 *   verbs_credit.c   credit-based flow control (no device; unit-tested)
 *   verbs_conn.c     the connection state machine (no device; unit-tested)
 *   verbs_plan.c     buffers, queue sizes, memory and attributes from the
 *                    tunables and the device's limits (no device; unit-tested)
 *   verbs_info.c     the device survey and choice (FARO_VERBS_DEVICE/_PORT/
 *                    _GID_INDEX), the lines faro_info prints
 *   verbs_init.c     protection domain, completion queue and channel, shared
 *                    receive queue, listening id; attributes; the wait fd;
 *                    finalize; the ops table
 *   verbs_ep.c       endpoints: address blobs, connect (to job ranks and to
 *                    ports), listen, the port a request proves, disconnect
 *   verbs_cm.c       rdma_cm events fed to the state machine and its actions
 *                    carried out (queue pairs, connect, accept, reject,
 *                    disconnect), lost endpoints
 *   verbs_send.c     send_inline, isend, send buffers, per-peer queues,
 *                    credit messages, flush
 *   verbs_progress.c receive buffers (per connection or shared), the
 *                    completion queue, asynchronous events, progress
 *   verbs_rma.c      mem_reg/mem_dereg through the registration cache,
 *                    remote keys, get (RDMA read) and put (RDMA write)
 *
 * One reliable-connected (RC) queue pair per peer, made at the first message
 * by whichever side sends first (verbs_conn.h); one completion queue for
 * every queue pair; every message is one send into one pre-posted receive
 * buffer of FARO_VERBS_BUF_SIZE bytes, and credits (verbs_credit.h) make sure
 * one is always posted for it. RC delivers in order per queue pair and
 * retransmits lost packets: the transport's ordering contract is the
 * hardware's. faro-verbs(7) has the numbers.
 */
#ifndef FARO_VERBS_H
#define FARO_VERBS_H

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>
#include <sys/uio.h>

#include "transport.h"
#include "common/ports.h"
#include "common/rcache.h"
#include "verbs/verbs_conn.h"
#include "verbs/verbs_credit.h"
#include "verbs/verbs_plan.h"
#include "verbs/verbs_wire.h"

#pragma GCC visibility push(hidden)

#define VERBS_INLINE_WANT 256  /* inline data asked of a queue pair (the device may give less) */
#define VERBS_MAX_SGE 16       /* local pieces of one RDMA work request, at most */
#define VERBS_RD_ATOMIC 16     /* outstanding RDMA reads asked per connection, at most */
#define VERBS_CQ_BATCH 16
#define VERBS_POLL_MAX 64      /* completions one progress call handles at most */
#define VERBS_SLOW_POLLS 64    /* progress calls between looks at rdma_cm and async events */
#define VERBS_DRAIN_S 2.0      /* finalize waits this long at most for its goodbyes */
#define VERBS_TIMEOUT_MS 5000  /* address and route resolution */
#define VERBS_NOTE 4096
#define VERBS_MAX_DEV 32
#define VERBS_QPN_BUCKETS 1024 /* queue pair number -> endpoint (shared receive queue) */

/* What a work request's wr_id points at: each of these starts with its type. */
enum verbs_op_type { VERBS_OP_SEND = 1, VERBS_OP_RECV, VERBS_OP_RMA };

/* A receive buffer (one message). */
struct verbs_rx {
    int type;                     /* VERBS_OP_RECV */
    int posted;
    struct faro_tp_ep *ep;        /* its connection's; NULL for the shared receive queue */
    uint8_t *buf;
    uint32_t lkey;
};

/* One send work request: a message, or a piece of a get or put. */
struct verbs_tx {
    int type;                     /* VERBS_OP_SEND or VERBS_OP_RMA */
    int inuse;
    uint8_t kind;                 /* a message's kind (the goodbye's completion matters) */
    int buf;                      /* its send buffer, -1 when none (inline) */
    struct faro_tp_ep *ep;
    struct verbs_rma_req *req;    /* RMA: the owner's get or put this piece belongs to */
    struct verbs_tx *next;        /* free list */
};

/* A send waiting in its endpoint's queue: for the connection, a credit, a
 * send buffer or room in the queue pair. Its payload stays in place (the
 * owner's isend) or is copied here (hello, goodbye). */
struct verbs_sq {
    struct verbs_sq *next;
    faro_tp_done_fn done;
    void *arg;
    uint8_t kind, hdrlen;
    int iovcnt;
    struct iovec *iov;            /* points into this allocation */
    uint8_t hdr[FARO_TP_MAX_HDR];
};

/* One get or put of the owner, split into work requests. */
struct verbs_rma_req {
    faro_tp_done_fn done;
    void *arg;
    struct faro_tp_ep *ep;
    int left;                     /* work requests not yet completed (+1 while posting) */
    int status;
};

/* A work request of a get or put waiting for a send entry or queue room. */
struct verbs_rma {
    struct verbs_rma *next;
    struct verbs_rma_req *req;
    int put;
    int nsge;
    uint64_t raddr;
    uint32_t rkey;
    struct ibv_sge sge[];
};

struct faro_tp_rkey {
    uint32_t rkey;
    uint64_t base, len;
};

enum verbs_report { VERBS_REPORT_NONE, VERBS_REPORT_LOST, VERBS_REPORT_ORDERLY };

struct faro_tp_ep {
    int rank;                     /* the job rank; -1 for a connection of a port */
    void *ctx;                    /* the owner's, from connect or accepted */
    /* a connection of a port (rank -1): either side of it */
    int keyed;
    unsigned port;                /* acceptor: the port it came through; connector: 0 */
    uint64_t conn_id;             /* the id the connector presented */
    uint8_t key16[16];            /* the port's key (SipHash): proves its connection messages */
    char name[64];                /* "rank 3", "client 42 of port 1", for messages */
    struct verbs_conn conn;
    struct verbs_credit cr;
    struct verbs_addr addr;       /* the peer's address blob (connector side) */
    int have_addr;
    uint64_t nonce;               /* our request's, echoed in the answer */
    struct rdma_cm_id *id;        /* the attempt's or the connection's; NULL when none */
    struct ibv_qp *qp;
    uint32_t qpn;
    uint32_t inline_max;          /* what its queue pair sends inline */
    int sq_used;                  /* send work requests on its queue pair, not completed */
    long inflight;                /* messages and RMA posted, not completed (flush) */
    int rma_pending;              /* RMA work requests waiting in tp->rma_head */
    int disconnected;             /* rdma_disconnect was called */
    int zombie;                   /* to destroy once its work requests are flushed */
    int last_wqe;                 /* shared receive queue: the last WQE event came */
    double zombie_since;
    /* its own receive buffers (no shared receive queue) */
    struct verbs_rx *rx;
    uint8_t *rxmem;
    struct ibv_mr *rx_mr;
    int nrx, rx_posted;
    /* sends waiting */
    struct verbs_sq *qhead, **qtail;
    int want_credit;              /* an explicit credit message waits for resources */
    int listed;                   /* on tp->qeps */
    struct faro_tp_ep *qnext;
    struct faro_tp_ep *hnext;     /* its bucket of tp->qpn_tab */
    struct faro_tp_ep *next;      /* every endpoint */
    enum verbs_report report;     /* ep_lost to call from progress */
    int fail_queue;               /* queued sends to fail from progress */
    char why[256];
};

/* The device and address chosen (verbs_info.c). */
struct verbs_choice {
    char dev[64];
    int port;
    int gid_index;                /* -1: rdma_cm's choice */
    int iwarp;                    /* the device speaks iWARP */
    struct sockaddr_storage sa;   /* the address to bind (port 0) */
    char ifname[32];
    char ip[64];
};

struct faro_tp {
    const faro_tp_env_t *env;
    struct verbs_choice ch;
    uint8_t key16[16];            /* SipHash key from the job key */
    uint64_t instance;            /* random, per process: binds requests to us */
    uint8_t blob[VERBS_ADDR_LEN];

    struct rdma_event_channel *cm;
    struct rdma_cm_id *listen;
    struct ibv_context *ctx;      /* the device context rdma_cm bound us to */
    struct ibv_device_attr dev_attr;
    uint32_t max_msg;             /* the port's max_msg_sz */
    struct ibv_pd *pd;
    struct ibv_comp_channel *chan;
    struct ibv_cq *cq;
    int cq_size;
    struct ibv_srq *srq;          /* NULL: every connection posts its own buffers */
    int max_sge;                  /* local pieces per work request (scratch queue pair) */
    int sq_depth;                 /* send work requests per queue pair */
    uint32_t inline_max;          /* inline bytes per send (scratch queue pair) */

    struct verbs_plan plan;       /* the sizes below come from it (verbs_plan.h) */
    size_t buf_size;
    int nrx;                      /* buffers (credits + 1) per connection */
    int rx_capacity, rx_total;    /* receive work requests the CQ has room for / posted */

    /* shared receive queue */
    struct verbs_rx *srx;
    uint8_t *srxmem;
    struct ibv_mr *srx_mr;
    int nsrx, nsrx_posted, srq_max;

    /* sends */
    struct verbs_tx *txs, *txfree;
    int ntx;
    uint8_t *sbuf;                /* send buffers of buf_size */
    struct ibv_mr *sbuf_mr;
    int *sfree, nsfree, nsbuf;
    long inflight;                /* send work requests posted, not completed */
    long nqueued;                 /* messages in endpoint queues */

    struct faro_rcache *rcache;
    struct verbs_rma *rma_head, **rma_tail;

    struct faro_tp_ep **job;      /* endpoint of each job rank, created at first use */
    struct faro_tp_ports ports;   /* listen() keys */
    struct faro_tp_ep *eps;
    struct faro_tp_ep *qeps;      /* endpoints with queued sends or a credit to send */
    struct faro_tp_ep *qpn_tab[VERBS_QPN_BUCKETS];
    int nreport, nzombie;

    /* waiting */
    int epfd, kickfd, kicked, armed;
    struct ibv_wc stash[VERBS_CQ_BATCH]; /* completions wait_fd took while checking */
    int nstash;

    unsigned polls;
    int slow_due;
    int nopening;                 /* endpoints not yet up or not yet closed */
    long refused;
    double warned_at;
    int finalizing;
    faro_tp_handler_fn handlers[FARO_TP_MAX_KINDS];
};

/* verbs_info.c */
/* Choose the device, port and address: 0, or FARO_TP_UNAVAILABLE with the
 * reason in why. note (may be NULL) gets the devices found, for faro_info. */
int verbs_choose(faro_tp_t *tp, char *why, size_t whylen, char *note, size_t notelen);
double verbs_now(void);

/* verbs_ep.c */
int verbs_addr_get(faro_tp_t *tp, void *blob, size_t *len);
int verbs_connect(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **ep);
int verbs_listen(faro_tp_t *tp, const uint8_t *key, size_t keylen, unsigned *port);
int verbs_unlisten(faro_tp_t *tp, unsigned port);
int verbs_disconnect(faro_tp_t *tp, struct faro_tp_ep *ep);
/* A new endpoint of job rank rank (tp->job[rank]). */
struct faro_tp_ep *verbs_job_ep(faro_tp_t *tp, int rank);
/* A new endpoint of a port's client that presented id (the acceptor's side). */
struct faro_tp_ep *verbs_port_ep(faro_tp_t *tp, uint64_t id, unsigned port,
                                 const uint8_t key16[16]);
/* The open port whose key proves the connect request in pd (the decoded
 * request in m, the port's SipHash key in key16), or 0. */
unsigned verbs_port_match(faro_tp_t *tp, const uint8_t *pd, size_t pdlen, struct verbs_cm *m,
                          uint8_t key16[16]);
void verbs_qpn_add(faro_tp_t *tp, struct faro_tp_ep *ep);
void verbs_qpn_del(faro_tp_t *tp, struct faro_tp_ep *ep);
struct faro_tp_ep *verbs_ep_by_qpn(faro_tp_t *tp, uint32_t qpn);

/* verbs_cm.c */
void verbs_ep_event(faro_tp_t *tp, struct faro_tp_ep *ep, enum verbs_cev ev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void verbs_cm_poll(faro_tp_t *tp);
int verbs_report(faro_tp_t *tp);
void verbs_reap(faro_tp_t *tp);
void verbs_say_bye(faro_tp_t *tp);
void verbs_free_eps(faro_tp_t *tp);

/* verbs_send.c */
int verbs_tx_init(faro_tp_t *tp, char *why, size_t whylen);
void verbs_tx_fini(faro_tp_t *tp);
struct verbs_tx *verbs_tx_get(faro_tp_t *tp, struct faro_tp_ep *ep);
void verbs_tx_put(faro_tp_t *tp, struct verbs_tx *tx);
void verbs_tx_abandon(faro_tp_t *tp, struct faro_tp_ep *ep);
int verbs_send_inline(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned kind, const void *hdr,
                      size_t hdrlen, const void *data, size_t len);
int verbs_isend(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned kind, const void *hdr,
                size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
                void *arg);
int verbs_send_ctl(faro_tp_t *tp, struct faro_tp_ep *ep, unsigned kind, int first);
void verbs_credit_check(faro_tp_t *tp, struct faro_tp_ep *ep);
void verbs_tx_done(faro_tp_t *tp, struct verbs_tx *tx, int ok);
int verbs_drain(faro_tp_t *tp);
void verbs_list(faro_tp_t *tp, struct faro_tp_ep *ep);
void verbs_queue_fail(faro_tp_t *tp, struct faro_tp_ep *ep);
int verbs_flush(faro_tp_t *tp, struct faro_tp_ep *ep);

/* verbs_progress.c */
int verbs_rx_init(faro_tp_t *tp, char *why, size_t whylen);
void verbs_rx_fini(faro_tp_t *tp);
int verbs_ep_rx_post(faro_tp_t *tp, struct faro_tp_ep *ep, char *why, size_t whylen);
void verbs_ep_rx_free(struct faro_tp_ep *ep);
int verbs_poll_cq(faro_tp_t *tp, int max);
void verbs_async_poll(faro_tp_t *tp);
int verbs_progress(faro_tp_t *tp);

/* verbs_rma.c */
int verbs_rma_init(faro_tp_t *tp);
void verbs_rma_fini(faro_tp_t *tp);
int verbs_mem_reg(faro_tp_t *tp, void *buf, size_t len, unsigned flags, faro_tp_mem_t **mem);
int verbs_mem_dereg(faro_tp_t *tp, faro_tp_mem_t *mem);
int verbs_rkey_pack(faro_tp_t *tp, const faro_tp_mem_t *mem, void *buf, size_t *len);
int verbs_rkey_unpack(faro_tp_t *tp, struct faro_tp_ep *ep, const void *buf, size_t len,
                      faro_tp_rkey_t **rkey);
int verbs_rkey_release(faro_tp_t *tp, faro_tp_rkey_t *rkey);
int verbs_get(faro_tp_t *tp, struct faro_tp_ep *ep, const struct iovec *local, int iovcnt,
              faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
              faro_tp_done_fn done, void *arg);
int verbs_put(faro_tp_t *tp, struct faro_tp_ep *ep, const struct iovec *local, int iovcnt,
              faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
              faro_tp_done_fn done, void *arg);
void verbs_rma_tx_done(faro_tp_t *tp, struct verbs_tx *tx, int ok);
int verbs_rma_drain(faro_tp_t *tp);

#pragma GCC visibility pop

#endif
