/*
 * TCP transport: private state shared by its files.
 *
 * One connection per pair of endpoints, carrying both directions: with one
 * socket, a reply carries the TCP acknowledgement of the request; a connection
 * per direction made the kernel send a bare ACK per message and cost about
 * 2.5 us per one-way trip on loopback (measured with a plain-socket
 * ping-pong). The socket's descriptor is duplicated so that reading (struct
 * tcp_in) and writing (the endpoint) keep separate epoll registrations.
 *
 * Connections are made lazily, by whichever side sends first:
 *
 *   connector                              acceptor
 *   connect(); hello {magic, version,  ->  checks key (job key or a port's),
 *     id, job size, port flag, key}        then answers on the same socket:
 *                                      <-  VERDICT accept | collision | refused
 *   accept: the pair's connection; queued data goes now
 *   collision: close it, wait for the other side's connection
 *
 * The connector writes no data before the verdict, so nothing it sends can be
 * read by a process that did not authenticate it, and nothing is lost when
 * its attempt is dropped. Two ranks of one job that connect to each other at
 * once keep the connection the lower rank made: the lower rank answers the
 * higher one's hello with "collision" while its own attempt is pending, and
 * the higher rank, on the lower one's hello, accepts it and drops its own
 * attempt (still unanswered, so nothing was written on it).
 *
 * After the verdict the stream is a sequence of frames:
 *
 *     struct tcp_frame (8 bytes) | header (hdrlen bytes) | payload (len bytes)
 *
 * A frame of kind TCP_KIND_BYE says the sender is closing (disconnect or
 * finalize): an end of file after it is an orderly close, one before it is a
 * lost peer.
 *
 * Copies of small messages that the socket does not take at once wait in the
 * endpoint's queue up to FARO_TCP_SEND_QUEUE bytes; beyond it send_inline says
 * "again", and the core's send waits for the socket (back-pressure, as over
 * shm) instead of the queue growing without bound.
 *
 * Before a connection authenticated, it may send only a hello of bounded size
 * (TCP_MAX_KEY): a silent or slow connection is closed after
 * FARO_TCP_AUTH_TIMEOUT, at most TCP_MAX_PREAUTH of them are kept (the oldest
 * goes first), and their warnings are rate-limited. Running out of file
 * descriptors stops accepting for a while instead of ending the job.
 *
 * Files: tcp_init.c (interface choice, attributes, finalize, the ops table),
 * tcp_conn.c (connect, hello and verdict, collisions, ports, failure),
 * tcp_send.c (send_inline, isend, send queues), tcp_progress.c (progress,
 * receive state machine, pre-authentication limits).
 */
#ifndef FARO_TCP_H
#define FARO_TCP_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/uio.h>

#include "transport.h"
#include "common/ports.h"

#define TCP_MAGIC 0x4661524fu   /* "FaRO" */
#define TCP_VERSION 3
#define TCP_KIND_BYE 0xffu      /* internal frame kinds, never given to a handler */
#define TCP_KIND_VERDICT 0xfeu
#define TCP_MAX_KEY FARO_TP_MAX_KEY /* longest key a hello may carry */
#define TCP_MAX_PREAUTH 64      /* connections waiting for their hello, at most */
#define TCP_RBUF_MIN (256 * 1024)
#define TCP_PREAUTH_BUF 512     /* a connection's buffer until it authenticated */
#define TCP_MAX_SEND (64u << 20)
#define TCP_READ_CHUNK (32 * 1024) /* most bytes one buffered read takes */
#define TCP_DIRECT_MIN (16 * 1024) /* smaller payloads: one copy out of the buffer is cheaper */
#define TCP_MAX_INLINE (64 * 1024 + FARO_TP_MAX_HDR)
#define TCP_IOV_BATCH 64        /* iovecs gathered into one sendmsg */
#define TCP_DRAIN_S 2.0         /* finalize waits this long at most for unfinished sends */

#pragma GCC visibility push(hidden)

struct tcp_frame {
    uint32_t len;               /* payload bytes, network order */
    uint8_t kind;
    uint8_t hdrlen;
    uint16_t pad;
};

enum { TCP_HELLO_PORT = 1 };    /* hello flags: the key is a port's, not the job's */

struct tcp_hello {
    uint32_t magic, size;       /* network order; size: the connector's job size */
    uint64_t id;                /* network order: the connector's id (its job rank) */
    uint16_t version, keylen;   /* the key follows */
    uint16_t flags, pad;
};

enum tcp_verdict { TCP_ACCEPT = 1, TCP_COLLISION = 2, TCP_REFUSED = 3 };

struct tcp_addr {               /* the address blob */
    uint32_t ip;                /* network order */
    uint16_t port;              /* network order */
    uint16_t version;
    int32_t rank;               /* network order: the owner's job rank */
};

/* What an epoll event points at: each of these objects starts with its type. */
enum tcp_sock_type { TCP_SOCK_LISTEN = 1, TCP_SOCK_OUT, TCP_SOCK_IN };

/* One queued send: bytes still to write are iov[cur..iovcnt). Control
 * entries (hello, verdict) may be written before the connection is up. */
struct tcp_sq {
    struct tcp_sq *next;
    faro_tp_done_fn done;       /* NULL for send_inline copies and control bytes */
    void *arg;
    int cur, iovcnt;
    int ctl;
    size_t copied;              /* bytes of the caller's data copied in (send_inline) */
    struct iovec *iov;          /* points into the same allocation */
    size_t framelen;
    uint8_t frame[sizeof(struct tcp_frame) + FARO_TP_MAX_HDR];
};

/* The reading side of a connection. */
struct tcp_in {
    int type;                   /* TCP_SOCK_IN */
    int fd;
    struct faro_tp_ep *ep;      /* NULL until the hello authenticated it */
    int verdict;                /* our own attempt's socket: the verdict is still to come */
    int dead;                   /* closed; freed after the current poll */
    double deadline;            /* before authentication: closed at this time */
    struct sockaddr_in from;
    uint8_t *buf;
    size_t cap, head, tail;     /* unparsed bytes are buf[head, tail) */
    size_t want;                /* bytes the partial frame at head needs */
    /* A payload read straight into the place the owner named (env->place). */
    uint8_t *dest;              /* NULL when not reading a payload directly */
    size_t dgot, dlen;
    uint8_t dkind, dhdrlen;
    uint8_t dhdr[FARO_TP_MAX_HDR];
    struct tcp_in *next;
};

enum tcp_out_state {
    TCP_OUT_NONE,               /* no connection: sends queue (a collision: theirs comes) */
    TCP_OUT_CONNECTING,         /* our connect() is under way */
    TCP_OUT_HELLO,              /* connected, hello written or queued: awaiting the verdict */
    TCP_OUT_UP,                 /* the pair's connection: data flows */
    TCP_OUT_CLOSED,
};
enum tcp_fail_state { TCP_FAIL_NONE, TCP_FAIL_PENDING, TCP_FAIL_REPORTED };

/* An endpoint: one remote process, and the writing side of the pair's connection. */
struct faro_tp_ep {
    int type;                   /* TCP_SOCK_OUT */
    int rank;                   /* its job rank; -1 for an endpoint reached through a port */
    unsigned port;              /* port it came in on (0: the job's own) */
    uint64_t id;                /* the id it presented (port endpoints) */
    void *ctx;                  /* the owner's, from connect or accepted */
    int fd;                     /* the pair's socket (a duplicate), for writing */
    enum tcp_out_state out;
    uint32_t events;            /* epoll interest now registered; 0 = none */
    struct sockaddr_in addr;    /* its listening address, when we know it */
    uint8_t key[TCP_MAX_KEY];   /* the key our attempt presents (port endpoints) */
    size_t keylen;
    struct tcp_sq *qhead, **qtail;
    size_t qcopied;             /* copies held in the queue, at most tp->qmax */
    struct tcp_in *in;          /* the reading side of the pair's connection */
    int bye;                    /* it said goodbye: its EOF is orderly */
    int closed;                 /* we disconnected it */
    enum tcp_fail_state fail;
    unsigned closed_in_poll;    /* tp->polls when its socket was last closed: events of
                                 * that poll still pointing here are the old socket's */
    char why[256];
    struct faro_tp_ep *next;    /* every endpoint, for failure reports and finalize */
};

struct faro_tp {
    const faro_tp_env_t *env;
    struct { int type, fd; } listen;
    int epfd;
    struct sockaddr_in self;
    char ifname[64];
    struct faro_tp_ep **job;    /* endpoint of each job rank, created at first use */
    struct faro_tp_ep *eps;     /* every endpoint */
    struct tcp_in *ins;         /* every reading side */
    struct faro_tp_ports ports; /* listen() keys */
    int nfail;                  /* endpoints with a failure not yet reported */
    int ndead;                  /* dead reading sides not yet freed */
    int npreauth;               /* connections that have not authenticated */
    double accept_paused_until; /* out of descriptors: stop accepting until then */
    double auth_timeout;        /* FARO_TCP_AUTH_TIMEOUT, seconds */
    size_t qmax;                /* FARO_TCP_SEND_QUEUE: copies queued per endpoint */
    long refused;               /* connections refused, for rate-limited warnings */
    double warned_at;
    int finalizing;
    unsigned polls;             /* progress calls, numbering epoll batches */
    faro_tp_handler_fn handlers[FARO_TP_MAX_KINDS];
};

/* tcp_conn.c */
int tcp_connect(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **ep);
int tcp_listen(faro_tp_t *tp, const uint8_t *key, size_t keylen, unsigned *port);
int tcp_unlisten(faro_tp_t *tp, unsigned port);
int tcp_disconnect(faro_tp_t *tp, struct faro_tp_ep *p);
int tcp_in_open(faro_tp_t *tp, int fd, struct faro_tp_ep *p, const struct sockaddr_in *from);
void tcp_accept_all(faro_tp_t *tp);
int tcp_connected(faro_tp_t *tp, struct faro_tp_ep *p);
int tcp_hello_check(faro_tp_t *tp, struct tcp_in *in);
int tcp_verdict_check(faro_tp_t *tp, struct tcp_in *in);
void tcp_out_event(faro_tp_t *tp, struct faro_tp_ep *p, uint32_t ev);
void tcp_peer_fail(faro_tp_t *tp, struct faro_tp_ep *p, const char *what, int err);
int tcp_report_failures(faro_tp_t *tp);
void tcp_refused(faro_tp_t *tp, const struct sockaddr_in *from, const char *why);
const char *tcp_addr_str(const struct sockaddr_in *a, char *buf, size_t len);
const char *tcp_ep_name(const struct faro_tp_ep *p, char *buf, size_t len);
double tcp_now(void);

/* tcp_send.c */
int tcp_send_inline(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
                    size_t hdrlen, const void *data, size_t len);
int tcp_isend(faro_tp_t *tp, struct faro_tp_ep *p, unsigned kind, const void *hdr,
              size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
              void *arg);
int tcp_queue_ctl(struct faro_tp_ep *p, const void *bytes, size_t len);
int tcp_flush(faro_tp_t *tp, struct faro_tp_ep *p);
void tcp_want_write(faro_tp_t *tp, struct faro_tp_ep *p);
void tcp_queue_fail(struct faro_tp_ep *p, int status);

/* tcp_progress.c */
int tcp_progress(faro_tp_t *tp);
int tcp_read(faro_tp_t *tp, struct tcp_in *in);
void tcp_in_close(faro_tp_t *tp, struct tcp_in *in);
void tcp_preauth_expire(faro_tp_t *tp);

#pragma GCC visibility pop

#endif
