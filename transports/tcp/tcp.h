/*
 * TCP transport: private state shared by its files.
 *
 * One connection per pair of ranks, carrying both directions: the lower rank
 * connects to the higher rank's listening socket, the higher rank waits for it
 * (queuing what it sends meanwhile). With one socket, a reply carries the TCP
 * acknowledgement of the request; a connection per direction made the kernel
 * send a bare ACK per message and cost about 2.5 us per one-way trip on
 * loopback (measured with a plain-socket ping-pong). The socket's descriptor is
 * duplicated so that reading (struct tcp_in) and writing (struct tcp_peer)
 * keep separate epoll registrations.
 *
 * The connector's first bytes are a hello {magic, version, key length, rank,
 * job size, job key}; the acceptor drops a connection whose key is not the
 * job's. After the hello the stream is a sequence of frames:
 *
 *     struct tcp_frame (8 bytes) | header (hdrlen bytes) | payload (len bytes)
 *
 * A frame of kind TCP_KIND_BYE says the sender is finalizing: an end of file
 * after it is an orderly close, one before it is a lost peer.
 *
 * Files: tcp_init.c (interface choice, attributes, finalize, the ops table),
 * tcp_conn.c (connect, accept, hello, failure), tcp_send.c (send_inline, isend,
 * send queues), tcp_progress.c (progress, receive state machine).
 */
#ifndef FARO_TCP_H
#define FARO_TCP_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/uio.h>

#include "transport.h"

#define TCP_MAGIC 0x4661524fu   /* "FaRO" */
#define TCP_VERSION 2
#define TCP_KIND_BYE 0xffu      /* internal frame kind, never given to a handler */
#define TCP_MAX_KEY 256         /* longest job key a hello may carry */
#define TCP_RBUF_MIN (256 * 1024)
#define TCP_MAX_SEND (64u << 20)
#define TCP_READ_CHUNK (32 * 1024) /* most bytes one buffered read takes */
#define TCP_DIRECT_MIN (16 * 1024) /* smaller payloads: one copy out of the buffer is cheaper */
#define TCP_MAX_INLINE (64 * 1024 + FARO_TP_MAX_HDR)
#define TCP_IOV_BATCH 64        /* iovecs gathered into one sendmsg */
#define TCP_DRAIN_S 2.0         /* finalize waits this long at most for unfinished connects */

#pragma GCC visibility push(hidden)

struct tcp_frame {
    uint32_t len;               /* payload bytes, network order */
    uint8_t kind;
    uint8_t hdrlen;
    uint16_t pad;
};

struct tcp_hello {
    uint32_t magic, rank, size; /* network order */
    uint16_t version, keylen;   /* the key follows */
};

struct tcp_addr {               /* the address blob */
    uint32_t ip;                /* network order */
    uint16_t port;              /* network order */
    uint16_t version;
};

/* What an epoll event points at: each of these objects starts with its type. */
enum tcp_sock_type { TCP_SOCK_LISTEN = 1, TCP_SOCK_OUT, TCP_SOCK_IN };

/* One queued send: bytes still to write are iov[cur..iovcnt). */
struct tcp_sq {
    struct tcp_sq *next;
    faro_tp_done_fn done;       /* NULL for send_inline copies and the hello */
    void *arg;
    int cur, iovcnt;
    struct iovec *iov;          /* points into the same allocation */
    size_t framelen;
    uint8_t frame[sizeof(struct tcp_frame) + FARO_TP_MAX_HDR];
};

/* An accepted connection: read only. */
struct tcp_in {
    int type;                   /* TCP_SOCK_IN */
    int fd;
    int peer;                   /* -1 until its hello arrived */
    int dead;                   /* closed; freed after the current poll */
    struct sockaddr_in from;
    uint8_t *buf;
    size_t cap, head, tail;     /* unparsed bytes are buf[head, tail) */
    size_t want;                /* bytes the partial frame at head needs */
    /* A payload read straight into the place the core named (env->place). */
    uint8_t *dest;              /* NULL when not reading a payload directly */
    size_t dgot, dlen;
    uint8_t dkind, dhdrlen;
    uint8_t dhdr[FARO_TP_MAX_HDR];
    struct tcp_in *next;
};

enum tcp_out_state { TCP_OUT_NONE, TCP_OUT_AWAIT, TCP_OUT_CONNECTING, TCP_OUT_UP, TCP_OUT_CLOSED };
/* TCP_OUT_AWAIT: a lower rank connects to us; sends queue until it has. */
enum tcp_fail_state { TCP_FAIL_NONE, TCP_FAIL_PENDING, TCP_FAIL_REPORTED };

struct tcp_peer {
    int type;                   /* TCP_SOCK_OUT */
    int rank;
    int fd;                     /* the pair's socket (a duplicate), for writing */
    enum tcp_out_state out;
    uint32_t events;            /* epoll interest now registered; 0 = none */
    struct sockaddr_in addr;
    struct tcp_sq *qhead, **qtail;
    struct tcp_in *in;          /* its inbound connection, after the hello */
    int bye;                    /* it said goodbye: its EOF is orderly */
    int closed;                 /* we disconnected it */
    enum tcp_fail_state fail;
    char why[256];
};

struct faro_tp {
    const faro_tp_env_t *env;
    struct { int type, fd; } listen;
    int epfd;
    struct sockaddr_in self;
    char ifname[64];
    struct tcp_peer *peers;     /* env->size entries */
    struct tcp_in *ins;         /* every accepted connection */
    int nfail;                  /* peers with a failure not yet reported */
    int ndead;                  /* dead inbound connections not yet freed */
    int finalizing;
    faro_tp_handler_fn handlers[FARO_TP_MAX_KINDS];
};

/* tcp_conn.c */
int tcp_connect(faro_tp_t *tp, int peer, const void *blob, size_t len);
int tcp_in_open(faro_tp_t *tp, int fd, int peer, const struct sockaddr_in *from);
int tcp_disconnect(faro_tp_t *tp, int peer);
void tcp_accept_all(faro_tp_t *tp);
int tcp_connected(faro_tp_t *tp, struct tcp_peer *p);
int tcp_hello_check(faro_tp_t *tp, struct tcp_in *in);
void tcp_out_event(faro_tp_t *tp, struct tcp_peer *p, uint32_t ev);
void tcp_peer_fail(faro_tp_t *tp, struct tcp_peer *p, const char *what, int err);
int tcp_report_failures(faro_tp_t *tp);
const char *tcp_addr_str(const struct sockaddr_in *a, char *buf, size_t len);

/* tcp_send.c */
int tcp_send_inline(faro_tp_t *tp, int peer, unsigned kind, const void *hdr, size_t hdrlen,
                    const void *data, size_t len);
int tcp_isend(faro_tp_t *tp, int peer, unsigned kind, const void *hdr, size_t hdrlen,
              const struct iovec *iov, int iovcnt, faro_tp_done_fn done, void *arg);
int tcp_queue_hello(faro_tp_t *tp, struct tcp_peer *p);
int tcp_flush(faro_tp_t *tp, struct tcp_peer *p);
void tcp_want_write(faro_tp_t *tp, struct tcp_peer *p);
void tcp_queue_fail(struct tcp_peer *p, int status);

/* tcp_progress.c */
int tcp_progress(faro_tp_t *tp);
int tcp_read(faro_tp_t *tp, struct tcp_in *in);
void tcp_in_close(faro_tp_t *tp, struct tcp_in *in);

#pragma GCC visibility pop

#endif
