/*
 * verbs transport: the sizes and attributes of one process (verbs_plan.h has
 * the picture and the rules).
 */
#include "config.h"

#include "verbs/verbs_plan.h"

#include <string.h>

#include "transport.h"
#include "verbs/verbs_credit.h"
#include "verbs/verbs_wire.h"

static long lmin(long a, long b)
{
    return a < b ? a : b;
}

void verbs_plan_make(const struct verbs_plan_in *in, struct verbs_plan *p)
{
    memset(p, 0, sizeof *p);
    p->buf_size = in->buf_size;
    p->srq = !in->iwarp && in->peers > in->srq_peers && in->max_srq > 0 && in->max_srq_wr > 0;
    p->nrx = p->srq ? in->srq_credits : in->recv_bufs;
    p->nrx = (int)lmin(p->nrx, (long)VERBS_CREDIT_MAX + 1);
    if (!p->srq)
        p->nrx = (int)lmin(p->nrx, in->max_qp_wr);
    p->sq_depth = (int)lmin(VERBS_SQ_DEPTH, in->max_qp_wr);
    p->nsbuf = in->send_bufs;

    /* The completion queue holds every send entry and every posted receive. */
    long max = in->max_cqe;
    p->ntx = (int)lmin(VERBS_MAX_TX, max / 2);
    long srq_bufs = p->srq ? lmin(in->srq_bufs, in->max_srq_wr) : 0;
    long rx = p->srq ? srq_bufs : ((long)in->peers + in->port_peers) * p->nrx;
    if (p->ntx + rx > max)
        rx = max - p->ntx;
    p->cq_size = (int)(p->ntx + rx);
    p->rx_capacity = (int)(rx > 0 ? rx : 0);
    p->srq_bufs = p->srq ? (int)lmin(srq_bufs, p->rx_capacity) : 0;

    p->max_inline = in->buf_size - VERBS_MSG_HDR;
    p->max_send = in->buf_size - VERBS_MSG_HDR - FARO_TP_MAX_HDR;
    p->eager_limit = in->eager_limit;
    p->max_rma = in->max_msg && in->max_msg < VERBS_MAX_RMA ? in->max_msg : VERBS_MAX_RMA;

    p->rx_per_peer = p->srq ? 0 : (size_t)p->nrx * in->buf_size;
    p->rx_process = (size_t)p->srq_bufs * in->buf_size;
    p->tx_process = (size_t)p->nsbuf * in->buf_size;
}
