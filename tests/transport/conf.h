/*
 * Transport conformance suite: shared pieces.
 *
 * The runner (conformance.c) forks the processes of one case; conf_boot.c is
 * their tiny bootstrap (address exchange and barriers through the parent over
 * a socketpair), the environment a core would build, and the helpers every
 * case uses: patterned sends, checked receives, waits that time out. The cases
 * of remote memory are in conf_rma.c, those of the wait fd in conf_wait.c, the
 * others in conformance.c.
 */
#ifndef FARO_CONF_H
#define FARO_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "transport.h"

#define T_MAXP 4              /* processes per case at most */
/* The limits below are multiplied by CONF_SLOW (default 1): a slow provider
 * (udp;ofi_rxd on a loaded machine) gets more time without hiding a hang. */
int t_slow(void);
#define T_WAIT_S (10.0 * t_slow()) /* longest a single wait may take */
#define T_CASE_S (30 * t_slow())   /* longest a whole case may take before it is killed */

/* Every test message starts with this header; the rest of a longer header,
 * and the payload, carry a pattern derived from (src, seq). */
struct t_hdr {
    uint32_t seq, src, len, hdrlen, kind, flags;
    uint64_t aux;
};
#define T_HDR_MIN sizeof(struct t_hdr)
#define T_RAW 1u              /* payload is data for the case, not a pattern */

enum t_how { T_INLINE, T_ISEND, T_AUTO };

struct t;

/* A job peer as the harness's "owner" sees it: the context of its endpoint. */
struct t_peer {
    struct t *t;
    int rank;
    faro_tp_ep_t *ep;                 /* NULL until connected or accepted */
};

/* The state of one process of a case (the `core` of every upcall). */
struct t {
    const faro_tp_ops_t *ops;
    faro_tp_t *tp;
    faro_tp_attr_t attr;
    faro_tp_env_t env;
    int rank, size;
    int fd;                           /* bootstrap socket to the runner */
    struct t_peer peer[T_MAXP];
    uint8_t blob[T_MAXP][FARO_TP_MAX_ADDR]; /* every rank's address, for lazy connects */
    size_t bloblen[T_MAXP];
    long naccepted;                   /* accepted upcalls for job ranks */
    int nclosed, closed[T_MAXP];      /* orderly ep_lost per rank */
    long nother;                      /* ep_lost of endpoints the case made itself */
    uint32_t sseq[T_MAXP], rseq[T_MAXP];
    long nrecv, nrecv_from[T_MAXP];
    size_t bytes;
    long pending;                     /* isends whose done has not run */
    int sends_may_fail;               /* a case where done may report a failure */
    int nfailed, failed[T_MAXP];      /* ep_lost, not orderly */
    char why[256];                    /* the last ep_lost reason */
    int bad;
    char err[512];                    /* the first failure of this process */
    uint8_t raw[256];                 /* the last T_RAW payload */
    size_t rawlen;
    long nraw;
    /* Called after a message passed the checks (from inside the upcall). */
    void (*hook)(struct t *t, int peer, unsigned kind, const struct t_hdr *h, const void *data,
                 size_t len);
    long count;                       /* free for the case */
};

struct t_case {
    const char *name;
    int nprocs;                       /* for transports that reach other processes */
    int flags;
    int (*run)(struct t *t);          /* 0 passed, -1 failed, T_SKIP skipped */
};
#define T_SKIP 1
#define T_PEERS 1                     /* needs other processes: skipped for self-only */
#define T_NETWORK 2                   /* only for transports that leave the node */
#define T_STRANGER 4                  /* the last rank gets a different job key */
#define T_EAGER 8                     /* connect every peer at wire-up (as for shm) */

/* A test driver linked into the suite in place of a transport's system
 * library (standin/: the verbs stand-in) may define this: NULL while the
 * transport kept the driver's rules, else what it broke first. The harness
 * fails the case with it (checked in every wait and after finalize). */
const char *conf_driver_verdict(void) __attribute__((weak));

/* conf_boot.c */
void t_fail(struct t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void t_note(struct t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void t_skip(struct t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double t_now(void);
int t_barrier(struct t *t);
int t_touch_all(struct t *t);           /* one message each way between every pair */
int t_wait(struct t *t, int (*cond)(struct t *t, long arg), long arg, const char *what);
int t_got(struct t *t, long n);         /* cond: n messages received, my sends complete */
int t_send(struct t *t, int dest, unsigned kind, size_t hdrlen, size_t len, enum t_how how);
int t_send_raw(struct t *t, int dest, unsigned kind, const void *data, size_t len);
int t_send_buf(struct t *t, int dest, unsigned kind, const void *buf, size_t len);
faro_tp_ep_t *t_ep(struct t *t, int rank); /* connected at first use */
void *t_accepted(void *core, faro_tp_ep_t *ep, uint64_t id, unsigned port); /* job ranks */
void t_fill(uint8_t *p, size_t len, uint32_t seed);
long t_check(const uint8_t *p, size_t len, uint32_t seed); /* first bad byte, or -1 */
int t_child(const faro_tp_ops_t *ops, const struct t_case *c, int rank, int size, int fd,
            const char *jobid, const uint8_t *key, size_t keylen);

/* conf_rma.c: the cases of remote memory */
int c_rma(struct t *t);
int c_rma_iov(struct t *t);
int c_rma_reuse(struct t *t);

/* conf_wait.c: the cases of waiting on the wait fd */
int c_wait_fd(struct t *t);
int c_wait_fd_race(struct t *t);

/* conf_run.c */
int t_run_case(const faro_tp_ops_t *ops, const struct t_case *c, int n, int num, char *msg,
               size_t msglen);
int t_probe(const faro_tp_ops_t *ops, faro_tp_attr_t *attr, char *why, size_t whylen);

#endif
