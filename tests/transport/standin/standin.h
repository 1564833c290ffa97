/*
 * The verbs stand-in: a software replacement for the parts of libibverbs and
 * librdmacm that the verbs transport calls, so that the transport's
 * device-facing code runs, under the conformance suite and unit tests, on a
 * machine without an RDMA device. It is a test driver, not a transport and
 * not a device model: what passes over it says the transport keeps the
 * rules below, not that it works on hardware (docs/transports.md says what
 * ran where).
 *
 * Files: standin_verbs.c (device, completion queues and channels, shared
 * receive queues, queue pairs), standin_mem.c (protection domains, memory
 * regions and their page checks), standin_data.c (posting, and what a queue
 * pair does with the packets of its connection, as responder and
 * requester), standin_cm.c (rdma_cm's calls: event channels, ids,
 * resolution, connect, accept, reject, disconnect), standin_conn.c (the
 * connections' sockets and the pump). verbs_standin.h is what tests read
 * and set.
 *
 * The fabric: every process links its own stand-in; processes reach each
 * other through abstract Unix SOCK_SEQPACKET sockets named after the rdma_cm
 * port ("\0faro-verbs-standin-<port>"), one socket per connection, carrying
 * both the connection messages (REQ, REP, RTU, REJ, DREQ) and the queue
 * pair's packets (SEND, WRITE, READ and their ACK or read response) in order.
 * The device is "standin0", one active RoCE port whose only address is
 * 127.0.0.1 (lo). Nothing runs in the background: a process's stand-in
 * moves packets when the process calls into it (every ibv_/rdma_ call runs
 * the pump first), and its event channel and completion channel descriptors
 * are epoll sets that include the sockets, so a process asleep in poll() on
 * them wakes when a packet comes. A peer that does not call in does not
 * answer: one-sided operations wait for its next call, which is slower than
 * a device but never wrong.
 *
 * Rules it enforces (each breach is recorded, printed to stderr once, and the
 * operation fails as verbs would make it fail; verbs_standin_errors() counts
 * them):
 *   - sends posted to a queue pair not in RTS; more pieces or inline bytes
 *     than the queue pair was created with; more outstanding sends than its
 *     send queue holds; unsignaled work requests (the stand-in's own limit)
 *   - an lkey that is not registered, does not cover the bytes, belongs to
 *     another protection domain or lacks local write where the device writes
 *     (receive buffers, the local side of an RDMA read); an rkey that does
 *     not cover the range or lacks remote read or write
 *   - a registration whose pages changed since ibv_reg_mr (the memory was
 *     freed or unmapped and mapped again: a device would still use the old
 *     pages): found by comparing page frame numbers from /proc/self/pagemap
 *     (root only; off otherwise, and verbs_standin_pfn_checks() says so)
 *   - the bytes of a send or RDMA write changing before its completion
 *   - a message that finds no receive posted (hardware would retry on RNR;
 *     the transport's credits must make that unnecessary), or is longer than
 *     the receive buffer; receives beyond the receive queue or SRQ size
 *   - a completion queue overflowing
 *   - destroying an object still in use: a memory region used by a posted
 *     work request, a CQ or SRQ with queue pairs, a protection domain with
 *     regions or queue pairs, a completion channel with CQs, an rdma_cm id
 *     with its queue pair or with events not acked (librdmacm would block
 *     forever), an event channel with ids
 *   - rdma_cm calls out of order (resolve_route before resolve_addr, connect
 *     without a route or a queue pair, accept or reject of what is not a
 *     request, private data longer than InfiniBand carries)
 *
 * Semantics kept as verbs has them: RC order (completions in posting order,
 * a send posted after an RDMA write lands after it); an error completion
 * moves the queue pair to the error state and flushes the rest
 * (IBV_WC_WR_FLUSH_ERR, receives included, or IBV_EVENT_QP_LAST_WQE_REACHED
 * with an SRQ); rdma_disconnect moves the local queue pair to the error
 * state and gives both sides RDMA_CM_EVENT_DISCONNECTED; a process that
 * ends (or destroys its id) disconnects its connections, and what it never
 * answered fails with IBV_WC_RETRY_EXC_ERR; connect requests carry 56 bytes
 * of private data (zero-padded, as InfiniBand's); a connect to a port where
 * nobody listens is rejected with status 8 (invalid service id), a reject
 * by the peer has status 28 (consumer defined) and the peer's private data.
 */
#ifndef FARO_STANDIN_H
#define FARO_STANDIN_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>
#include <sys/types.h>

#define SD_MAX_INLINE 128     /* inline bytes per send (the transport asks 256 first) */
#define SD_MAX_SGE 8          /* pieces per work request: gathers of RDMA split early */
#define SD_MAX_QP_WR 16384
#define SD_MAX_CQE 65536
#define SD_MAX_SRQ_WR 32768
#define SD_MAX_MSG (1u << 30)
#define SD_FRAG 65536         /* data bytes per packet on the socket */
#define SD_PD_REQ 56          /* private data of a connect request (InfiniBand) */
#define SD_PD_REP 196
#define SD_PD_REJ 148

/* What a socket in the pump's epoll set is: a listening id or a connection. */
enum sd_fd_kind { SD_FD_LISTEN = 1, SD_FD_CONN };
struct sd_fdref {
    int kind;
};

struct sd_mr {
    struct ibv_mr mr;
    int access;
    int busy;                     /* posted work requests that name it */
    uintptr_t pstart;             /* first page */
    size_t npages;
    uint64_t *pfn;                /* page frame numbers at registration; NULL: unchecked */
    struct sd_mr *next;
};

struct sd_cq;

struct sd_cchan {
    struct ibv_comp_channel ch;   /* ch.fd: an epoll set of evfd and the pump */
    int evfd;                     /* counts the notifications in fifo */
    int ncq;
    struct sd_cq *fifo[64];       /* CQs that notified, not yet got */
    int nfifo;
};

struct sd_qp;

struct sd_cq {
    struct ibv_cq cq;
    struct ibv_wc *ring;
    struct sd_qp **owner;         /* send-side entries: the queue pair whose SQ slot it holds */
    int cap, head, n, armed;
    int events_out;               /* completion events handed out, not acked */
    int nqp;
};

struct sd_rwr {                   /* a posted receive */
    uint64_t wr_id;
    struct ibv_sge sge;
};

struct sd_srq {
    struct ibv_srq srq;
    struct sd_rwr *q;
    int cap, head, n, nqp;
};

/* A send-side work request, from posting until its completion is queued. */
struct sd_swr {
    uint64_t wr_id, seq;
    enum ibv_wc_opcode op;
    uint32_t len;                 /* bytes of the request */
    int nsge, inl;
    int held;                     /* its regions are counted busy (sd_mr.busy) */
    struct ibv_sge sge[SD_MAX_SGE];
    uint64_t hash;                /* of the bytes sent (send, write; not inline) */
    int done;                     /* answered; status below */
    enum ibv_wc_status status;
};

struct sd_id;

struct sd_qp {
    struct ibv_qp qp;
    struct ibv_qp_cap cap;
    struct sd_rwr *rq;
    int rq_head, rq_n;
    struct sd_swr *sq;            /* posted, completion not yet queued (ring) */
    int sq_head, sq_n;
    int sq_used;                  /* posted, completion not yet polled: the SQ's occupancy */
    uint64_t next_seq;
    struct sd_id *id;             /* the rdma_cm id it is on; NULL from ibv_create_qp */
    int peer_err;                 /* the other side is in error or gone: requests are lost */
    uint32_t peer_qpn;
    /* responder: the message or write arriving in pieces */
    int rs_on, rs_have_rwr;
    uint64_t rs_seq;
    int rs_status;
    struct sd_rwr rs_rwr;
    struct sd_qp *next;
};

struct sd_out {                   /* a packet the socket did not take yet */
    struct sd_out *next;
    size_t len;
    uint8_t buf[];
};

struct sd_conn {
    struct sd_fdref ref;          /* SD_FD_CONN */
    int fd;
    struct sd_id *id;             /* NULL: accepted, its request not read yet */
    struct sd_id *listener;       /* the listening id that accepted it */
    struct sd_out *oh, **ot;
    int watch_out;                /* EPOLLOUT is asked for */
    int closing;                  /* close once the queue drained */
    int dead;                     /* closed; freed at the end of the pump */
    struct sd_conn *next;
};

enum sd_id_state {
    SD_ID_IDLE, SD_ID_BOUND, SD_ID_LISTEN, SD_ID_ADDR, SD_ID_ROUTE, SD_ID_CONNECTING,
    SD_ID_REQ, SD_ID_ACCEPTED, SD_ID_CONNECTED, SD_ID_REJECTED, SD_ID_DISCONNECTED,
};

struct sd_id {
    struct rdma_cm_id id;
    struct sd_fdref ref;          /* SD_FD_LISTEN */
    int state;
    int port;
    int lfd;                      /* the bound (and listening) socket; -1 */
    struct sd_conn *conn;
    int events_out;               /* events handed out, not acked */
    int torn;                     /* DISCONNECTED was given */
    int lost;                     /* the connection's other end went away */
    uint32_t peer_qpn;            /* a request's: the connector's queue pair */
    int destroyed;                /* kept only for events still out */
    struct sd_id *next;
};

struct sd_ev {
    struct rdma_cm_event e;       /* first: rdma_ack_cm_event gets this pointer */
    struct sd_id *sid;
    uint8_t pd[256];
    struct sd_ev *next;
};

struct sd_chan {
    struct rdma_event_channel ch; /* ch.fd: an epoll set of evfd and the pump */
    int evfd;
    struct sd_ev *head, **tail;
    int nids;
};

/* The process's stand-in. */
struct sd_state {
    pid_t pid;
    int ready;
    int pump;                     /* epoll set of every socket */
    int ndev;
    struct ibv_context ctx;
    int ctx_open;
    struct sd_mr *mrs;
    struct sd_qp *qps;
    struct sd_id *ids;
    struct sd_conn *conns;
    uint32_t next_key, next_qpn;
    /* asynchronous events */
    struct ibv_async_event async[64];
    int nasync;
    /* page frame checks: 1 on, 0 off (not readable), -1 not probed */
    int pfn_ok;
    int pagemap;
    /* the record */
    int errors;
    char first_error[512];
    long sends, inline_sends, writes, reads, mr_regs, lost_wrs;
};

extern struct sd_state sd;


/* Packets on a connection's socket. */
enum sd_pkt_type {
    SD_REQ = 1, SD_REP, SD_RTU, SD_REJ, SD_DREQ,
    SD_SEND, SD_WRITE, SD_READ, SD_ACK, SD_RRESP,
};

/* The answer to a request, as the requester's completion will say it. */
enum sd_answer {
    SD_ANS_OK = 0,
    SD_ANS_DROP,                  /* the responder was not receiving: retries exhausted */
    SD_ANS_RNR,                   /* no receive posted */
    SD_ANS_ACCESS,                /* rkey */
    SD_ANS_INVREQ,                /* longer than the receive buffer */
    SD_ANS_OP,                    /* the responder's own buffer was bad */
};

struct sd_pkt {
    uint8_t type, last, rd, ird;  /* last fragment; initiator depth, responder resources */
    uint16_t pdlen;
    uint16_t answer;              /* ACK, RRESP: enum sd_answer */
    int32_t status;               /* REJ: the rdma_cm status */
    uint32_t qpn;                 /* REQ, REP: the sender's queue pair */
    uint32_t rkey;
    uint64_t seq, total, off, raddr;
};

/* standin_verbs.c: objects */
void sd_init(void);                 /* every entry point: the fork check, lazy setup */
int sd_present(void);               /* the device is there (verbs_standin_devices) */
/* A channel's descriptor: an epoll set of a new eventfd (*evfd, a semaphore)
 * and the pump's sockets, so that a packet wakes a process asleep on it. */
int sd_wake_set(int *evfd);
void sd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sd_push_async(enum ibv_event_type type, struct sd_qp *qp);
/* standin_mem.c */
int sd_pfn_probe(void);             /* page frame numbers are readable (root) */
void sd_mr_busy(uint32_t lkey, int d);
/* The region behind a key that covers [addr, addr + len) in pd with the
 * access asked for; NULL with what was wrong in why. */
struct sd_mr *sd_mr_check(uint32_t key, int remote, struct ibv_pd *pd, uint64_t addr,
                          uint64_t len, int access, const char **why);
void sd_cq_push(struct ibv_cq *c, const struct ibv_wc *wc, struct sd_qp *owner);
const char *sd_state_name(enum ibv_qp_state s);

/* standin_data.c: posting, and the packets of a connection's queue pair */
int sd_post_send(struct ibv_qp *q, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int sd_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
void sd_qp_rts(struct sd_qp *qp);
void sd_qp_to_err(struct sd_qp *qp);
void sd_qp_packet(struct sd_conn *c, struct sd_qp *qp, const struct sd_pkt *h,
                  const uint8_t *data, size_t len);
/* The connection is gone: what it never answered fails. */
void sd_qp_peer_gone(struct sd_qp *qp);

/* standin_cm.c */
#define SD_REJ_NO_LISTENER 8    /* IB_CM_REJ_INVALID_SERVICE_ID */
#define SD_REJ_CONSUMER 28      /* IB_CM_REJ_CONSUMER_DEFINED */
struct sockaddr;
struct sockaddr_un;
struct sockaddr_storage;
socklen_t sd_sockname(int port, struct sockaddr_un *un); /* the port's socket name */
int sd_is_lo(const struct sockaddr *sa);
int sd_sa_port(const struct sockaddr *sa);
void sd_set_lo(struct sockaddr_storage *ss, int port);  /* 127.0.0.1:port */
/* An event for sid on its channel: private data, and the depths of h. */
void sd_push_ev(struct sd_id *sid, enum rdma_cm_event_type type, int status, const void *pd,
                size_t pdlen, const struct sd_pkt *h, struct sd_id *listener);

/* standin_conn.c */
struct sd_conn *sd_conn_new(int fd, struct sd_id *id, struct sd_id *listener);
void sd_conn_close(struct sd_conn *c);   /* once what is queued went out */
void sd_conn_shut(struct sd_conn *c);    /* now */
/* Queue a packet (header and data) on a connection; dropped when it is gone. */
void sd_send_pkt(struct sd_conn *c, const void *hdr, size_t hdrlen, const void *data,
                 size_t len);
/* A connection message: its type, rdma_cm status, private data, queue pair. */
void sd_cm_pkt(struct sd_conn *c, int type, int status, const void *pd, size_t pdlen,
               uint32_t qpn, uint8_t rd, uint8_t ird);
void sd_pump(void);
void sd_cm_reset(void);

#endif
