/*
 * verbs transport: opening the chosen device through rdma_cm, the attributes,
 * the wait fd, finalize and the ops table.
 *
 * Per process: one rdma_cm event channel and listening id (bound to the
 * chosen address; its device context is the one every queue pair uses), one
 * protection domain, one completion queue (sends, receives and RDMA of every
 * queue pair) with a completion channel, and a shared receive queue when the
 * job has more than FARO_VERBS_SRQ_PEERS other ranks. A scratch queue pair
 * made at init tells how much the device sends inline and how many pieces a
 * work request may gather.
 *
 * The wait fd is an epoll set of the rdma_cm channel, the completion channel,
 * the device's asynchronous event fd and an eventfd: wait_fd consumes the
 * completion events already there, arms the completion queue
 * (ibv_req_notify_cq) and then looks at it once more; a completion that came
 * in between is kept for progress and the eventfd makes the set readable at
 * once, so the owner does not sleep on work already waiting.
 */
#include "config.h"

#include "verbs/verbs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include "base/log.h"
#include "base/tunables.h"

static int verbs_finalize(faro_tp_t *tp);

static int verbs_fail(char *why, size_t whylen, const char *what)
{
    snprintf(why, whylen, "%s: %s", what, strerror(errno ? errno : EIO));
    return -1;
}

static int nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -1 : 0;
}

/* How much the device sends inline and gathers per work request, from a
 * scratch queue pair: devices state these only by accepting or refusing. */
static void verbs_probe_qp(faro_tp_t *tp)
{
    static const uint32_t inl[] = { VERBS_INLINE_WANT, 128, 64, 32, 0 };
    int sge = tp->dev_attr.max_sge < VERBS_MAX_SGE ? tp->dev_attr.max_sge : VERBS_MAX_SGE;
    tp->max_sge = 1;
    tp->inline_max = 0;
    for (size_t i = 0; i < sizeof inl / sizeof inl[0]; i++) {
        struct ibv_qp_init_attr a = {
            .send_cq = tp->cq, .recv_cq = tp->cq, .srq = tp->srq, .qp_type = IBV_QPT_RC,
            .cap = { .max_send_wr = (uint32_t)tp->sq_depth,
                     .max_recv_wr = tp->srq ? 0 : (uint32_t)tp->nrx,
                     .max_send_sge = (uint32_t)(sge > 0 ? sge : 1), .max_recv_sge = 1,
                     .max_inline_data = inl[i] },
        };
        struct ibv_qp *qp = ibv_create_qp(tp->pd, &a);
        if (!qp)
            continue;
        tp->inline_max = a.cap.max_inline_data;
        tp->max_sge = (int)a.cap.max_send_sge;
        ibv_destroy_qp(qp);
        return;
    }
}

/* Buffers per connection, whether a shared receive queue replaces them, the
 * queue sizes and the attributes (verbs_plan.h). */
static void verbs_sizes(faro_tp_t *tp)
{
    const struct ibv_device_attr *d = &tp->dev_attr;
    struct verbs_plan_in in = {
        .peers = tp->env->size - 1,
        .port_peers = (int)faro_tun_int(FARO_TUN_VERBS_PORT_PEERS), .iwarp = tp->ch.iwarp, .max_qp_wr = d->max_qp_wr,
        .max_srq = d->max_srq, .max_srq_wr = d->max_srq_wr, .max_cqe = d->max_cqe,
        .max_msg = tp->max_msg,
        .buf_size = (size_t)faro_tun_int(FARO_TUN_VERBS_BUF_SIZE),
        .eager_limit = (size_t)faro_tun_int(FARO_TUN_VERBS_EAGER_LIMIT),
        .recv_bufs = (int)faro_tun_int(FARO_TUN_VERBS_RECV_BUFS),
        .srq_peers = (int)faro_tun_int(FARO_TUN_VERBS_SRQ_PEERS),
        .srq_credits = (int)faro_tun_int(FARO_TUN_VERBS_SRQ_CREDITS),
        .srq_bufs = (int)faro_tun_int(FARO_TUN_VERBS_SRQ_BUFS),
        .send_bufs = (int)faro_tun_int(FARO_TUN_VERBS_SEND_BUFS),
    };
    struct verbs_plan *p = &tp->plan;
    verbs_plan_make(&in, p);
    tp->buf_size = p->buf_size;
    tp->nrx = p->nrx;
    tp->ntx = p->ntx;
    tp->nsbuf = p->nsbuf;
    tp->sq_depth = p->sq_depth;
    tp->cq_size = p->cq_size;
    tp->rx_capacity = p->rx_capacity;
    tp->srq = NULL;
    tp->srq_max = tp->nsrx = p->srq_bufs;
}

static int verbs_wait_init(faro_tp_t *tp)
{
    int fds[3] = { tp->cm->fd, tp->chan->fd, tp->ctx->async_fd };
    tp->epfd = epoll_create1(EPOLL_CLOEXEC);
    tp->kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (tp->epfd < 0 || tp->kickfd < 0)
        return -1;
    for (int i = 0; i < 3; i++) {
        struct epoll_event ev = { .events = EPOLLIN, .data.fd = fds[i] };
        if (nonblock(fds[i]) < 0 || epoll_ctl(tp->epfd, EPOLL_CTL_ADD, fds[i], &ev) < 0)
            return -1;
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = tp->kickfd };
    return epoll_ctl(tp->epfd, EPOLL_CTL_ADD, tp->kickfd, &ev);
}

static int verbs_open(faro_tp_t *tp, char *why, size_t whylen)
{
    const faro_tp_env_t *env = tp->env;
    struct sockaddr *sa = (struct sockaddr *)&tp->ch.sa;

    if (!(tp->cm = rdma_create_event_channel()))
        return verbs_fail(why, whylen, "rdma_create_event_channel");
    if (rdma_create_id(tp->cm, &tp->listen, NULL, RDMA_PS_TCP))
        return verbs_fail(why, whylen, "rdma_create_id");
    if (sa->sa_family == AF_INET)
        ((struct sockaddr_in *)sa)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)sa)->sin6_port = 0;
    if (rdma_bind_addr(tp->listen, sa))
        return verbs_fail(why, whylen, "rdma_bind_addr to the chosen address");
    if (!(tp->ctx = tp->listen->verbs)) {
        snprintf(why, whylen, "rdma_cm bound %s to no RDMA device", tp->ch.ip);
        return -1;
    }
    int backlog = env->size < 1024 ? env->size + 16 : 1024;
    if (rdma_listen(tp->listen, backlog))
        return verbs_fail(why, whylen, "rdma_listen");
    if (ibv_query_device(tp->ctx, &tp->dev_attr))
        return verbs_fail(why, whylen, "ibv_query_device");
    verbs_sizes(tp);
    if (!(tp->pd = ibv_alloc_pd(tp->ctx)))
        return verbs_fail(why, whylen, "ibv_alloc_pd");
    if (!(tp->chan = ibv_create_comp_channel(tp->ctx)))
        return verbs_fail(why, whylen, "ibv_create_comp_channel");
    if (!(tp->cq = ibv_create_cq(tp->ctx, tp->cq_size, NULL, tp->chan, 0)))
        return verbs_fail(why, whylen, "ibv_create_cq");
    if (verbs_tx_init(tp, why, whylen) < 0 || verbs_rx_init(tp, why, whylen) < 0)
        return -1;
    verbs_probe_qp(tp);
    if (verbs_rma_init(tp) < 0) {
        snprintf(why, whylen, "out of memory for the registration cache");
        return -1;
    }
    if (verbs_wait_init(tp) < 0)
        return verbs_fail(why, whylen, "the wait fd");

    struct verbs_addr a = { .family = (uint8_t)(sa->sa_family == AF_INET ? 4 : 6),
                            .port = ntohs(rdma_get_src_port(tp->listen)),
                            .rank = (uint32_t)env->rank, .buf_size = (uint32_t)tp->buf_size,
                            .instance = tp->instance };
    if (sa->sa_family == AF_INET)
        memcpy(a.ip, &((struct sockaddr_in *)sa)->sin_addr, 4);
    else
        memcpy(a.ip, &((struct sockaddr_in6 *)sa)->sin6_addr, 16);
    verbs_addr_encode(tp->blob, &a);
    return 0;
}

/* The lines faro_info prints under the attributes, after the survey. */
static void verbs_note(faro_tp_t *tp, char *note, size_t len)
{
    size_t used = strlen(note);
    size_t kib = tp->buf_size / 1024;
    if (used >= len)
        return;
    if (tp->srq)
        snprintf(note + used, len - used,
                 "\nreceive: shared receive queue of up to %d x %zu KiB (%zu KiB), %d credits "
                 "per peer (more than %lld other ranks)", tp->srq_max, kib,
                 (size_t)tp->srq_max * kib, tp->nrx - 1,
                 faro_tun_int(FARO_TUN_VERBS_SRQ_PEERS));
    else
        snprintf(note + used, len - used,
                 "\nreceive: %d x %zu KiB = %zu KiB per connected peer (%d credits + 1 for "
                 "credit messages)", tp->nrx, kib, (size_t)tp->nrx * kib, tp->nrx - 1);
    used = strlen(note);
    if (used < len)
        snprintf(note + used, len - used,
                 "\nsend: %d buffers x %zu KiB; inline up to %u bytes; %d pieces per RDMA "
                 "request; registration cache: %s", tp->nsbuf, kib, tp->inline_max,
                 tp->max_sge, faro_rcache_monitor());
}

static int verbs_init(faro_tp_t **out, const faro_tp_env_t *env, faro_tp_attr_t *attr,
                      char *why, size_t whylen)
{
    faro_tp_t *tp = calloc(1, sizeof *tp);
    char *note = NULL;
    int rc = FARO_TP_UNAVAILABLE;

    *out = NULL;
    if (!tp || !(tp->job = calloc((size_t)env->size, sizeof *tp->job))) {
        free(tp);
        snprintf(why, whylen, "out of memory for %d ranks", env->size);
        return FARO_TP_ERR;
    }
    tp->env = env;
    tp->epfd = tp->kickfd = -1;
    tp->rma_tail = &tp->rma_head;
    if (env->job_key_len > FARO_TP_MAX_KEY) {
        snprintf(why, whylen, "job key of %zu bytes is longer than %d", env->job_key_len,
                 FARO_TP_MAX_KEY);
        goto out;
    }
    verbs_key16(env->job_key, env->job_key_len, tp->key16);
    if (getrandom(&tp->instance, sizeof tp->instance, 0) != (ssize_t)sizeof tp->instance)
        tp->instance = (uint64_t)getpid() << 32 ^ (uint64_t)(verbs_now() * 1e9);
    /* The survey is for faro_info and probes (a single process), and when asked. */
    if (env->size == 1 || faro_log_level >= 1)
        note = calloc(1, VERBS_NOTE);
    rc = verbs_choose(tp, why, whylen, note, VERBS_NOTE);
    if (rc != FARO_TP_OK)
        goto out;
    if (verbs_open(tp, why, whylen) < 0) {
        rc = FARO_TP_UNAVAILABLE;
        goto out;
    }

    memset(attr, 0, sizeof *attr);
    attr->caps = FARO_TP_CAP_GET | FARO_TP_CAP_PUT | FARO_TP_CAP_LOCAL_REG | FARO_TP_CAP_PORTS;
    /* send_inline copies out now: into the work request (the device's
     * inline data) when it fits, else into a send buffer. */
    attr->max_inline = tp->plan.max_inline;
    attr->max_send = tp->plan.max_send;
    attr->eager_limit = tp->plan.eager_limit;
    attr->eager_limit_user = faro_tun_isset(FARO_TUN_VERBS_EAGER_LIMIT);
    attr->frag_size = attr->max_send;
    attr->max_get = attr->max_put = tp->plan.max_rma;
    attr->rkey_size = VERBS_RKEY_LEN;
    attr->latency_us = 2.0;
    attr->bandwidth_mbs = 10000.0;
    faro_info(1, "verbs: %s port %d, address %s (%s)%s, buffers %zu bytes, %s", tp->ch.dev,
              tp->ch.port, tp->ch.ip, tp->ch.ifname, tp->ch.iwarp ? ", iWARP" : "",
              tp->buf_size, tp->srq ? "shared receive queue" : "receive buffers per peer");
    if (note) {
        verbs_note(tp, note, VERBS_NOTE);
        snprintf(why, whylen, "%s", note);
    }
    free(note);
    *out = tp;
    return FARO_TP_OK;

out:
    free(note);
    verbs_finalize(tp);
    return rc;
}

static int verbs_wireup_done(faro_tp_t *tp)
{
    return FARO_TP_OK; /* nothing published outside the process */
}

static int verbs_set_handler(faro_tp_t *tp, unsigned kind, faro_tp_handler_fn fn)
{
    if (kind >= FARO_TP_MAX_KINDS)
        return FARO_TP_ERR;
    tp->handlers[kind] = fn;
    return FARO_TP_OK;
}

static int verbs_wait_fd(faro_tp_t *tp, int *fd)
{
    struct ibv_cq *cq;
    void *cq_ctx;
    if (tp->epfd < 0)
        return FARO_TP_UNSUPPORTED;
    while (ibv_get_cq_event(tp->chan, &cq, &cq_ctx) == 0) /* the fd is non-blocking */
        ibv_ack_cq_events(cq, 1);
    tp->slow_due = 1; /* whatever wakes the owner, look at rdma_cm and async events next */
    int armed = ibv_req_notify_cq(tp->cq, 0) == 0;
    if (!tp->nstash) {
        int n = ibv_poll_cq(tp->cq, VERBS_CQ_BATCH, tp->stash);
        tp->nstash = n > 0 ? n : 0;
    }
    if ((tp->nstash || !armed || tp->nreport) && !tp->kicked) {
        (void)eventfd_write(tp->kickfd, 1);
        tp->kicked = 1;
    }
    *fd = tp->epfd;
    return FARO_TP_OK;
}

static int verbs_finalize(faro_tp_t *tp)
{
    if (!tp)
        return FARO_TP_OK;
    tp->finalizing = 1;
    if (tp->cq)
        verbs_say_bye(tp);
    verbs_free_eps(tp);
    verbs_rma_fini(tp);
    verbs_rx_fini(tp);
    verbs_tx_fini(tp);
    if (tp->cq)
        ibv_destroy_cq(tp->cq);
    if (tp->chan)
        ibv_destroy_comp_channel(tp->chan);
    if (tp->pd)
        ibv_dealloc_pd(tp->pd);
    if (tp->listen)
        rdma_destroy_id(tp->listen);
    if (tp->cm)
        rdma_destroy_event_channel(tp->cm);
    if (tp->epfd >= 0)
        close(tp->epfd);
    if (tp->kickfd >= 0)
        close(tp->kickfd);
    free(tp->job);
    free(tp);
    return FARO_TP_OK;
}

const faro_tp_ops_t faro_tp_verbs_ops = {
    .name = "verbs",
    .init = verbs_init,
    .finalize = verbs_finalize,
    .addr_get = verbs_addr_get,
    .connect = verbs_connect,
    .wireup_done = verbs_wireup_done,
    .listen = verbs_listen,
    .unlisten = verbs_unlisten,
    .disconnect = verbs_disconnect,
    .set_handler = verbs_set_handler,
    .send_inline = verbs_send_inline,
    .isend = verbs_isend,
    .mem_reg = verbs_mem_reg,
    .mem_dereg = verbs_mem_dereg,
    .rkey_pack = verbs_rkey_pack,
    .rkey_unpack = verbs_rkey_unpack,
    .rkey_release = verbs_rkey_release,
    .get = verbs_get,
    .put = verbs_put,
    .flush = verbs_flush,
    .progress = verbs_progress,
    .wait_fd = verbs_wait_fd,
};
