/*
 * The verbs stand-in, libibverbs' objects (standin.h has the picture and the
 * rules): the device, asynchronous events, completion queues and channels,
 * shared receive queues, queue pairs; what tests read and set. Memory is in
 * standin_mem.c, posting and the packets of a connection in standin_data.c.
 */
#include "config.h"

#include "standin.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "verbs_standin.h"

#undef ibv_query_port

struct sd_state sd;
static int sd_ndev = 1;
static struct ibv_device sd_dev = {
    .node_type = IBV_NODE_CA, .transport_type = IBV_TRANSPORT_IB, .name = "standin0",
    .dev_name = "uverbs0",
};

static int sd_post_srq_recv(struct ibv_srq *s, struct ibv_recv_wr *wr,
                            struct ibv_recv_wr **bad);
static int sd_poll_cq(struct ibv_cq *c, int num, struct ibv_wc *wc);
static int sd_req_notify(struct ibv_cq *c, int solicited);

void sd_init(void)
{
    pid_t pid = getpid();
    if (sd.ready && sd.pid == pid)
        return;
    if (sd.ready) { /* a forked child: nothing of the parent's stand-in is its own */
        sd_cm_reset();
        close(sd.pump);
        close(sd.ctx.async_fd);
        if (sd.pagemap >= 0)
            close(sd.pagemap);
        memset(&sd, 0, sizeof sd);
    }
    sd.pid = pid;
    sd.ready = 1;
    sd.pump = epoll_create1(EPOLL_CLOEXEC);
    sd.pagemap = -1;
    sd.pfn_ok = -1;
    sd.next_key = 0x1000;
    sd.next_qpn = 0x100;
    sd.ctx.device = &sd_dev;
    sd.ctx.cmd_fd = -1;
    sd.ctx.async_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    sd.ctx.num_comp_vectors = 1;
    sd.ctx.ops.poll_cq = sd_poll_cq;
    sd.ctx.ops.req_notify_cq = sd_req_notify;
    sd.ctx.ops.post_send = sd_post_send;
    sd.ctx.ops.post_recv = sd_post_recv;
    sd.ctx.ops.post_srq_recv = sd_post_srq_recv;
    srand((unsigned)pid ^ (unsigned)time(NULL)); /* ports are drawn at random */
}

int sd_present(void)
{
    return sd_ndev;
}

void sd_error(const char *fmt, ...)
{
    va_list ap;
    if (sd.errors++)
        return;
    va_start(ap, fmt);
    vsnprintf(sd.first_error, sizeof sd.first_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "verbs stand-in (pid %d): rule broken: %s\n", (int)getpid(), sd.first_error);
}

int sd_wake_set(int *evfd)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event a = { .events = EPOLLIN }, b = { .events = EPOLLIN };
    *evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC | EFD_SEMAPHORE);
    epoll_ctl(ep, EPOLL_CTL_ADD, *evfd, &a);
    epoll_ctl(ep, EPOLL_CTL_ADD, sd.pump, &b); /* a packet wakes a sleeper */
    return ep;
}

#ifdef SD_PRELOAD
/* Preloaded into MPI programs (tests/transport/verbs-standin-mpi.sh), where
 * nothing asks for the record: a process that broke a rule does not exit 0. */
__attribute__((destructor)) static void sd_verdict(void)
{
    if (!sd.ready || sd.pid != getpid() || !sd.errors)
        return;
    fprintf(stderr, "verbs stand-in (pid %d): %d rule(s) broken, the first: %s\n",
            (int)getpid(), sd.errors, sd.first_error);
    fflush(NULL);
    _exit(97);
}
#endif

/* ---- what tests read and set ---- */

int verbs_standin_errors(void)
{
    return sd.pid == getpid() ? sd.errors : 0;
}

const char *verbs_standin_first_error(void)
{
    return verbs_standin_errors() ? sd.first_error : NULL;
}

void verbs_standin_clear(void)
{
    sd.errors = 0;
    sd.first_error[0] = 0;
}

void verbs_standin_devices(int n)
{
    sd_ndev = n;
}

int verbs_standin_pfn_checks(void)
{
    sd_init();
    return sd_pfn_probe();
}

void verbs_standin_stats(struct verbs_standin_stats *st)
{
    sd_init();
    *st = (struct verbs_standin_stats){ .sends = sd.sends, .inline_sends = sd.inline_sends,
                                        .writes = sd.writes, .reads = sd.reads,
                                        .mr_regs = sd.mr_regs, .lost_wrs = sd.lost_wrs };
    for (struct sd_mr *m = sd.mrs; m; m = m->next)
        st->mrs_live++;
}

/* ---- the device ---- */

struct ibv_device **ibv_get_device_list(int *n)
{
    sd_init();
    if (!sd_ndev) { /* as libibverbs where the kernel has no uverbs */
        errno = ENOSYS;
        if (n)
            *n = 0;
        return NULL;
    }
    struct ibv_device **l = calloc(2, sizeof *l);
    l[0] = &sd_dev;
    if (n)
        *n = 1;
    return l;
}

void ibv_free_device_list(struct ibv_device **l)
{
    free(l);
}

const char *ibv_get_device_name(struct ibv_device *d)
{
    return d->name;
}

struct ibv_context *ibv_open_device(struct ibv_device *d)
{
    sd_init();
    sd.ctx_open++;
    return &sd.ctx;
}

int ibv_close_device(struct ibv_context *c)
{
    sd.ctx_open--;
    return 0;
}

int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
    memset(a, 0, sizeof *a);
    snprintf(a->fw_ver, sizeof a->fw_ver, "stand-in");
    a->max_mr_size = 1ull << 40;
    a->page_size_cap = 4096;
    a->max_qp = 4096;
    a->max_qp_wr = SD_MAX_QP_WR;
    a->max_sge = SD_MAX_SGE;
    a->max_cq = 4096;
    a->max_cqe = SD_MAX_CQE;
    a->max_mr = 65536;
    a->max_pd = 64;
    a->max_qp_rd_atom = 16;
    a->max_qp_init_rd_atom = 16;
    a->max_srq = 1024;
    a->max_srq_wr = SD_MAX_SRQ_WR;
    a->max_srq_sge = 1;
    a->phys_port_cnt = 1;
    return 0;
}

int ibv_query_port(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *compat)
{
    struct ibv_port_attr *a = (struct ibv_port_attr *)compat; /* the caller's full struct */
    if (port != 1)
        return EINVAL;
    a->state = IBV_PORT_ACTIVE;
    a->max_mtu = a->active_mtu = IBV_MTU_4096;
    a->max_msg_sz = SD_MAX_MSG;
    a->gid_tbl_len = 4;
    a->link_layer = IBV_LINK_LAYER_ETHERNET;
    return 0;
}

/* GIDs 0 and 1: 127.0.0.1 (lo) as RoCE v2 and v1; 2 and 3 empty. */
int _ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t idx,
                      struct ibv_gid_entry *e, uint32_t flags, size_t size)
{
    static const uint8_t v4lo[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1 };
    if (port != 1 || idx > 1)
        return ENODATA;
    memset(e, 0, size);
    memcpy(e->gid.raw, v4lo, 16);
    e->gid_index = idx;
    e->port_num = port;
    e->gid_type = idx == 0 ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
    e->ndev_ifindex = if_nametoindex("lo");
    return 0;
}

const char *ibv_event_type_str(enum ibv_event_type t)
{
    switch (t) {
    case IBV_EVENT_QP_FATAL: return "local work queue catastrophic error";
    case IBV_EVENT_QP_LAST_WQE_REACHED: return "last WQE reached";
    case IBV_EVENT_CQ_ERR: return "CQ error";
    default: return "stand-in event";
    }
}

const char *ibv_wc_status_str(enum ibv_wc_status st)
{
    switch (st) {
    case IBV_WC_SUCCESS: return "success";
    case IBV_WC_LOC_LEN_ERR: return "local length error";
    case IBV_WC_LOC_PROT_ERR: return "local protection error";
    case IBV_WC_WR_FLUSH_ERR: return "Work Request Flushed Error";
    case IBV_WC_REM_INV_REQ_ERR: return "remote invalid request error";
    case IBV_WC_REM_ACCESS_ERR: return "remote access error";
    case IBV_WC_REM_OP_ERR: return "remote operation error";
    case IBV_WC_RETRY_EXC_ERR: return "transport retry counter exceeded";
    case IBV_WC_RNR_RETRY_EXC_ERR: return "RNR retry counter exceeded";
    default: return "other error";
    }
}

/* ---- asynchronous events ---- */

void sd_push_async(enum ibv_event_type type, struct sd_qp *qp)
{
    if (sd.nasync == (int)(sizeof sd.async / sizeof sd.async[0])) {
        sd_error("more than %d asynchronous events not read", sd.nasync);
        return;
    }
    struct ibv_async_event *e = &sd.async[sd.nasync++];
    memset(e, 0, sizeof *e);
    e->event_type = type;
    e->element.qp = qp ? &qp->qp : NULL;
    (void)eventfd_write(sd.ctx.async_fd, 1);
}

int ibv_get_async_event(struct ibv_context *c, struct ibv_async_event *ev)
{
    sd_init();
    sd_pump();
    if (!sd.nasync) {
        eventfd_t v;
        (void)eventfd_read(sd.ctx.async_fd, &v);
        errno = EAGAIN;
        return -1;
    }
    *ev = sd.async[0];
    memmove(sd.async, sd.async + 1, (size_t)--sd.nasync * sizeof sd.async[0]);
    return 0;
}

void ibv_ack_async_event(struct ibv_async_event *ev)
{
}

/* ---- completion channels and queues ---- */

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *c)
{
    sd_init();
    struct sd_cchan *ch = calloc(1, sizeof *ch);
    if (!ch)
        return NULL;
    ch->ch.context = c;
    ch->ch.fd = sd_wake_set(&ch->evfd);
    return &ch->ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *c)
{
    struct sd_cchan *ch = (struct sd_cchan *)c;
    if (ch->ncq) {
        sd_error("ibv_destroy_comp_channel with %d completion queues still on it", ch->ncq);
        return EBUSY;
    }
    close(ch->evfd);
    close(ch->ch.fd);
    free(ch);
    return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *c, int cqe, void *cq_context,
                             struct ibv_comp_channel *channel, int vector)
{
    sd_init();
    if (cqe < 1 || cqe > SD_MAX_CQE) {
        errno = EINVAL;
        return NULL;
    }
    struct sd_cq *cq = calloc(1, sizeof *cq);
    cq->cq = (struct ibv_cq){ .context = c, .channel = channel, .cq_context = cq_context,
                              .cqe = cqe };
    cq->cap = cqe;
    cq->ring = calloc((size_t)cqe, sizeof *cq->ring);
    cq->owner = calloc((size_t)cqe, sizeof *cq->owner);
    if (channel)
        ((struct sd_cchan *)channel)->ncq++;
    return &cq->cq;
}

int ibv_destroy_cq(struct ibv_cq *c)
{
    struct sd_cq *cq = (struct sd_cq *)c;
    if (cq->nqp) {
        sd_error("ibv_destroy_cq with %d queue pairs still using it", cq->nqp);
        return EBUSY;
    }
    if (cq->events_out) {
        sd_error("ibv_destroy_cq with %d completion events not acked (libibverbs would "
                 "block forever)", cq->events_out);
        return EBUSY;
    }
    struct sd_cchan *ch = (struct sd_cchan *)c->channel;
    if (ch) {
        ch->ncq--;
        for (int i = 0; i < ch->nfifo; i++) /* events not got yet are dropped */
            if (ch->fifo[i] == cq) {
                eventfd_t v;
                (void)eventfd_read(ch->evfd, &v);
                memmove(ch->fifo + i, ch->fifo + i + 1,
                        (size_t)(--ch->nfifo - i) * sizeof *ch->fifo);
                i--;
            }
    }
    free(cq->ring);
    free(cq->owner);
    free(cq);
    return 0;
}

void sd_cq_push(struct ibv_cq *c, const struct ibv_wc *wc, struct sd_qp *owner)
{
    struct sd_cq *cq = (struct sd_cq *)c;
    if (cq->n == cq->cap) {
        sd_error("completion queue overflow: %d entries not polled (a device would raise "
                 "IBV_EVENT_CQ_ERR)", cq->cap);
        return;
    }
    int i = (cq->head + cq->n++) % cq->cap;
    cq->ring[i] = *wc;
    cq->owner[i] = owner;
    struct sd_cchan *ch = (struct sd_cchan *)c->channel;
    if (cq->armed && ch && ch->nfifo < (int)(sizeof ch->fifo / sizeof ch->fifo[0])) {
        cq->armed = 0;
        ch->fifo[ch->nfifo++] = cq;
        (void)eventfd_write(ch->evfd, 1);
    }
}

static int sd_poll_cq(struct ibv_cq *c, int num, struct ibv_wc *wc)
{
    struct sd_cq *cq = (struct sd_cq *)c;
    sd_init();
    sd_pump();
    int k = 0;
    for (; k < num && cq->n; k++) {
        wc[k] = cq->ring[cq->head];
        if (cq->owner[cq->head])
            cq->owner[cq->head]->sq_used--; /* the send queue slot is free now */
        cq->head = (cq->head + 1) % cq->cap;
        cq->n--;
    }
    return k;
}

/* Only completions that come after the call notify (entries already there do
 * not): the caller must poll once more after arming. */
static int sd_req_notify(struct ibv_cq *c, int solicited)
{
    ((struct sd_cq *)c)->armed = 1;
    return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *c, struct ibv_cq **cq, void **cq_context)
{
    struct sd_cchan *ch = (struct sd_cchan *)c;
    eventfd_t v;
    sd_init();
    sd_pump();
    if (!ch->nfifo) { /* the descriptor is non-blocking (the transport set it) */
        errno = EAGAIN;
        return -1;
    }
    struct sd_cq *q = ch->fifo[0];
    memmove(ch->fifo, ch->fifo + 1, (size_t)--ch->nfifo * sizeof ch->fifo[0]);
    (void)eventfd_read(ch->evfd, &v); /* a semaphore: one notification */
    q->events_out++;
    *cq = &q->cq;
    *cq_context = q->cq.cq_context;
    return 0;
}

void ibv_ack_cq_events(struct ibv_cq *c, unsigned int n)
{
    struct sd_cq *cq = (struct sd_cq *)c;
    if ((unsigned)cq->events_out < n)
        sd_error("ibv_ack_cq_events of %u events, %d were got", n, cq->events_out);
    cq->events_out -= (int)n;
}

/* ---- shared receive queues ---- */

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *a)
{
    if (!a->attr.max_wr || a->attr.max_wr > SD_MAX_SRQ_WR || a->attr.max_sge > 1) {
        errno = EINVAL;
        return NULL;
    }
    struct sd_srq *s = calloc(1, sizeof *s);
    s->srq = (struct ibv_srq){ .context = pd->context, .pd = pd };
    s->cap = (int)a->attr.max_wr;
    s->q = calloc(a->attr.max_wr, sizeof *s->q);
    return &s->srq;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
    struct sd_srq *s = (struct sd_srq *)srq;
    if (s->nqp) {
        sd_error("ibv_destroy_srq with %d queue pairs still using it", s->nqp);
        return EBUSY;
    }
    for (int i = 0; i < s->n; i++)
        sd_mr_busy(s->q[(s->head + i) % s->cap].sge.lkey, -1);
    free(s->q);
    free(s);
    return 0;
}

static int sd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
                            struct ibv_recv_wr **bad)
{
    struct sd_srq *s = (struct sd_srq *)srq;
    sd_init();
    for (; wr; wr = wr->next) {
        if (wr->num_sge != 1) {
            sd_error("a shared receive of %d pieces (the SRQ was made for 1)", wr->num_sge);
            *bad = wr;
            return EINVAL;
        }
        if (s->n >= s->cap) {
            sd_error("the shared receive queue overrun: %d receives posted, it holds %d",
                     s->n + 1, s->cap);
            *bad = wr;
            return ENOMEM;
        }
        s->q[(s->head + s->n++) % s->cap] = (struct sd_rwr){ wr->wr_id, wr->sg_list[0] };
        sd_mr_busy(wr->sg_list[0].lkey, 1);
    }
    return 0;
}

/* ---- queue pairs ---- */

const char *sd_state_name(enum ibv_qp_state s)
{
    switch (s) {
    case IBV_QPS_RESET: return "RESET";
    case IBV_QPS_INIT: return "INIT";
    case IBV_QPS_RTR: return "RTR";
    case IBV_QPS_RTS: return "RTS";
    case IBV_QPS_ERR: return "ERR";
    default: return "other";
    }
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
    sd_init();
    const struct ibv_qp_cap *c = &a->cap;
    if (a->qp_type != IBV_QPT_RC || !a->send_cq || !a->recv_cq || c->max_send_wr == 0 ||
        c->max_send_wr > SD_MAX_QP_WR || c->max_recv_wr > SD_MAX_QP_WR ||
        c->max_send_sge > SD_MAX_SGE || c->max_recv_sge > 1 ||
        c->max_inline_data > SD_MAX_INLINE) {
        errno = EINVAL; /* as a device refuses what it cannot do */
        return NULL;
    }
    struct sd_qp *qp = calloc(1, sizeof *qp);
    qp->qp = (struct ibv_qp){ .context = pd->context, .pd = pd, .send_cq = a->send_cq,
                              .recv_cq = a->recv_cq, .srq = a->srq, .qp_num = sd.next_qpn++,
                              .state = IBV_QPS_INIT, .qp_type = IBV_QPT_RC,
                              .qp_context = a->qp_context };
    qp->cap = *c;
    qp->rq = calloc(c->max_recv_wr ? c->max_recv_wr : 1, sizeof *qp->rq);
    qp->sq = calloc(c->max_send_wr, sizeof *qp->sq);
    ((struct sd_cq *)a->send_cq)->nqp++;
    if (a->recv_cq != a->send_cq)
        ((struct sd_cq *)a->recv_cq)->nqp++;
    if (a->srq)
        ((struct sd_srq *)a->srq)->nqp++;
    qp->next = sd.qps;
    sd.qps = qp;
    return &qp->qp;
}

static void sd_forget_owner(struct ibv_cq *c, const struct sd_qp *qp)
{
    struct sd_cq *cq = (struct sd_cq *)c;
    for (int i = 0; i < cq->n; i++)
        if (cq->owner[(cq->head + i) % cq->cap] == qp)
            cq->owner[(cq->head + i) % cq->cap] = NULL;
}

int ibv_destroy_qp(struct ibv_qp *q)
{
    struct sd_qp *qp = (struct sd_qp *)q;
    /* Legal in verbs: what is still posted is dropped without completions. */
    for (int i = 0; i < qp->sq_n; i++) {
        const struct sd_swr *w = &qp->sq[(qp->sq_head + i) % (int)qp->cap.max_send_wr];
        for (int k = 0; w->held && k < w->nsge; k++)
            sd_mr_busy(w->sge[k].lkey, -1);
    }
    for (int i = 0; i < qp->rq_n; i++)
        sd_mr_busy(qp->rq[(qp->rq_head + i) % (int)qp->cap.max_recv_wr].sge.lkey, -1);
    sd.lost_wrs += qp->sq_n + qp->rq_n;
    sd_forget_owner(q->send_cq, qp);
    if (q->recv_cq != q->send_cq)
        sd_forget_owner(q->recv_cq, qp);
    ((struct sd_cq *)q->send_cq)->nqp--;
    if (q->recv_cq != q->send_cq)
        ((struct sd_cq *)q->recv_cq)->nqp--;
    if (q->srq)
        ((struct sd_srq *)q->srq)->nqp--;
    if (qp->id && qp->id->id.qp == q)
        qp->id->id.qp = NULL;
    for (struct sd_qp **p = &sd.qps; *p; p = &(*p)->next)
        if (*p == qp) {
            *p = qp->next;
            break;
        }
    free(qp->rq);
    free(qp->sq);
    free(qp);
    return 0;
}
