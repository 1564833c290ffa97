/*
 * verbs transport: how many buffers, queue entries and bytes a process sets
 * aside, and the attributes the core reads, from the tunables, the job size
 * and the device's limits. Hardware-independent: tests/unit/test_verbs_plan.c
 * checks the numbers faro-verbs(7) quotes, without a device.
 *
 * Receive side, per connected peer: without a shared receive queue (SRQ),
 * FARO_VERBS_RECV_BUFS buffers of FARO_VERBS_BUF_SIZE of its own (one of them
 * for credit messages, the others one data credit each: verbs_credit.h). With
 * more other ranks than FARO_VERBS_SRQ_PEERS (never on iWARP, and only when
 * the device has SRQs), one SRQ of FARO_VERBS_SRQ_BUFS buffers serves every
 * peer and each peer gets FARO_VERBS_SRQ_CREDITS credits (one of them for
 * credit messages) instead. Send side, per process: FARO_VERBS_SEND_BUFS
 * registered buffers and VERBS_MAX_TX send entries, whatever the number of
 * peers. The one completion queue must hold every send entry and every
 * posted receive; without an SRQ it has room for the buffers of every other
 * rank and of FARO_VERBS_PORT_PEERS connections beyond the job (ports) at
 * once (one count: connections of either kind may use the room); a device
 * with a smaller CQ limits the receives (and so the number of peers without
 * an SRQ).
 *
 * Attributes: a message is one buffer, so max_send is the buffer less the
 * transport's 8-byte header and the largest owner header, and max_inline the
 * buffer less the 8-byte header (send_inline copies out at once: into the
 * work request when the queue pair's inline limit allows, else into a send
 * buffer). Eager up to FARO_VERBS_EAGER_LIMIT (the core sends larger eager
 * messages as several max_send fragments); beyond it the core's rendezvous
 * by RDMA read (get) or write (put), one work request moving at most the
 * port's max_msg_sz, capped at 1 GiB.
 */
#ifndef FARO_VERBS_PLAN_H
#define FARO_VERBS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define VERBS_SQ_DEPTH 256     /* send work requests one queue pair holds at most */
#define VERBS_MAX_TX 2048      /* send work requests of this process at once (all peers) */
#define VERBS_MAX_RMA (1ul << 30) /* bytes of one RDMA read or write, at most */

/* What the plan is made from. */
struct verbs_plan_in {
    int peers;                    /* other ranks of the job */
    int port_peers;               /* connections beyond the job (ports) at once */
    int iwarp;                    /* the device speaks iWARP */
    /* the device (ibv_query_device, ibv_query_port) */
    int max_qp_wr, max_srq, max_srq_wr, max_cqe;
    uint32_t max_msg;             /* the port's max_msg_sz; 0: unknown */
    /* the tunables (FARO_VERBS_*) */
    size_t buf_size, eager_limit;
    int recv_bufs, srq_peers, srq_credits, srq_bufs, send_bufs;
};

struct verbs_plan {
    size_t buf_size;
    int srq;                      /* one shared receive queue serves every peer */
    int nrx;                      /* credits + 1: buffers per peer, or its share of the SRQ */
    int srq_bufs;                 /* buffers of the SRQ (0 without) */
    int nsbuf;                    /* send buffers of the process */
    int ntx;                      /* send entries of the process */
    int sq_depth;                 /* send work requests per queue pair */
    int cq_size;                  /* entries of the one completion queue */
    int rx_capacity;              /* receive work requests the CQ has room for */
    /* attributes for the core */
    size_t max_inline, max_send, eager_limit, max_rma;
    /* memory, in bytes */
    size_t rx_per_peer;           /* receive buffers a connected peer costs (0 with an SRQ) */
    size_t rx_process;            /* receive buffers set aside at start (the SRQ's) */
    size_t tx_process;            /* send buffers */
};

void verbs_plan_make(const struct verbs_plan_in *in, struct verbs_plan *p);

#pragma GCC visibility pop

#endif
