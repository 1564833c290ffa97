/*
 * ofi transport: opening the fabric objects of the chosen provider, the
 * attributes, the wait fd, finalize and the ops table.
 *
 * One fabric, domain, address vector, completion queue (sends, receives and
 * RMA together) and FI_EP_RDM endpoint per process. The completion queue gets
 * an FI_WAIT_FD wait object when the provider has one (FARO_OFI_WAIT_FD); the
 * wait fd the owner sleeps on is an epoll set of it and an eventfd that
 * wait_fd writes when fi_trywait says there is work already (the owner must
 * not sleep then).
 */
#include "config.h"

#include "ofi/ofi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/log.h"
#include "base/tunables.h"

#define OFI_NOTE 3072

static int ofi_finalize(faro_tp_t *tp);

static int ofi_fail(char *why, size_t whylen, const char *what, int rc)
{
    snprintf(why, whylen, "%s: %s", what, fi_strerror(-rc));
    return -1;
}

/* The wait fd: the CQ's descriptor and a kick, in one epoll set. */
static int ofi_wait_init(faro_tp_t *tp)
{
    if (tp->cq_fd < 0)
        return 0;
    tp->epfd = epoll_create1(EPOLL_CLOEXEC);
    tp->kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event a = { .events = EPOLLIN, .data.fd = tp->cq_fd };
    struct epoll_event b = { .events = EPOLLIN, .data.fd = tp->kickfd };
    if (tp->epfd < 0 || tp->kickfd < 0 || epoll_ctl(tp->epfd, EPOLL_CTL_ADD, tp->cq_fd, &a) < 0 ||
        epoll_ctl(tp->epfd, EPOLL_CTL_ADD, tp->kickfd, &b) < 0) {
        tp->cq_fd = -1; /* no wait fd then; the owner polls */
        return 0;
    }
    return 0;
}

/* libfabric's shm provider names its segment after its address (the pid by
 * default) and leaves it in /dev/shm when the process dies. Named
 * "<jobid>-ofi-<rank>", it is one of the job's names, which the launcher
 * removes at the end (transport.h). */
static void ofi_name_shm(faro_tp_t *tp)
{
    struct fi_info *i = tp->info;
    char name[128];
    if (strcmp(i->fabric_attr->prov_name, "shm") || i->addr_format != FI_ADDR_STR)
        return;
    int n = snprintf(name, sizeof name, "%s-ofi-%d", tp->env->jobid, tp->env->rank);
    char *copy = strdup(name);
    if (n <= 0 || (size_t)n >= sizeof name || !copy) {
        free(copy);
        return;
    }
    free(i->src_addr);
    i->src_addr = copy;
    i->src_addrlen = (size_t)n + 1;
}

static int ofi_open(faro_tp_t *tp, char *why, size_t whylen)
{
    struct fi_info *i = tp->info;
    int rc;

    if ((rc = fi_fabric(i->fabric_attr, &tp->fabric, NULL)))
        return ofi_fail(why, whylen, "fi_fabric", rc);
    if ((rc = fi_domain(tp->fabric, i, &tp->domain, NULL)))
        return ofi_fail(why, whylen, "fi_domain", rc);
    struct fi_av_attr av = { .type = i->domain_attr->av_type, .count = (size_t)tp->env->size };
    if ((rc = fi_av_open(tp->domain, &av, &tp->av, NULL)))
        return ofi_fail(why, whylen, "fi_av_open", rc);
    struct fi_cq_attr cq = { .format = FI_CQ_FORMAT_DATA,
                             .size = i->tx_attr->size + i->rx_attr->size,
                             .wait_obj = faro_tun_int(FARO_TUN_OFI_WAIT_FD) ? FI_WAIT_FD
                                                                            : FI_WAIT_NONE };
    rc = fi_cq_open(tp->domain, &cq, &tp->cq, NULL);
    if (rc && cq.wait_obj == FI_WAIT_FD) { /* no fd from this provider: the owner polls */
        cq.wait_obj = FI_WAIT_NONE;
        rc = fi_cq_open(tp->domain, &cq, &tp->cq, NULL);
    }
    if (rc)
        return ofi_fail(why, whylen, "fi_cq_open", rc);
    if (cq.wait_obj != FI_WAIT_FD || fi_control(&tp->cq->fid, FI_GETWAIT, &tp->cq_fd))
        tp->cq_fd = -1;
    ofi_name_shm(tp);
    if ((rc = fi_endpoint(tp->domain, i, &tp->ep, NULL)))
        return ofi_fail(why, whylen, "fi_endpoint", rc);
    if ((rc = fi_ep_bind(tp->ep, &tp->av->fid, 0)) ||
        (rc = fi_ep_bind(tp->ep, &tp->cq->fid, FI_TRANSMIT | FI_RECV)))
        return ofi_fail(why, whylen, "fi_ep_bind", rc);
    if ((rc = fi_enable(tp->ep)))
        return ofi_fail(why, whylen, "fi_enable", rc);
    size_t len = sizeof tp->self.name;
    if ((rc = fi_getname(&tp->ep->fid, tp->self.name, &len)))
        return ofi_fail(why, whylen, "fi_getname", rc);
    tp->self.magic = OFI_MAGIC;
    tp->self.version = OFI_VERSION;
    tp->self.namelen = (uint16_t)len;
    tp->self.rank = tp->env->rank;
    tp->self.pid = (int32_t)getpid();
    tp->self.pidns = ofi_pidns();
    tp->self.boot = ofi_boot_id();
    snprintf(tp->self.prov, sizeof tp->self.prov, "%s", i->fabric_attr->prov_name);
    tp->selflen = OFI_ADDR_HDR + len;
    return ofi_tx_init(tp, why, whylen) < 0 || ofi_rx_init(tp, why, whylen) < 0 ||
                   ofi_rma_init(tp) < 0 || ofi_wait_init(tp) < 0
               ? -1 : 0;
}

static void ofi_limits(faro_tp_t *tp)
{
    const struct fi_info *i = tp->info;
    uint64_t mr = (uint64_t)i->domain_attr->mr_mode;
    tp->mr_local = (mr & FI_MR_LOCAL) || faro_tun_int(FARO_TUN_OFI_LOCAL_REG);
    tp->mr_virt = (mr & FI_MR_VIRT_ADDR) != 0;
    tp->mr_prov_key = (mr & FI_MR_PROV_KEY) != 0;
    tp->mr_endpoint = (mr & FI_MR_ENDPOINT) != 0;
    tp->next_key = 1;
    tp->inject = i->tx_attr->inject_size;
    tp->iov_limit = i->tx_attr->iov_limit < OFI_TX_IOV ? i->tx_attr->iov_limit : OFI_TX_IOV;
    tp->rma_iov_limit = i->tx_attr->iov_limit ? i->tx_attr->iov_limit : 1;
    tp->max_msg = i->ep_attr->max_msg_size;
    /* One message is at most OFI_MAX_MSG bytes (a receive buffer), within the
     * eager protocol of layered providers (ofi_rxm's 16 KiB). Larger payloads
     * go by RMA (rendezvous) or as several messages (eager fragments). */
    tp->max_send = OFI_MAX_MSG - sizeof(struct ofi_wire) - FARO_TP_MAX_HDR;
    if (tp->max_send + sizeof(struct ofi_wire) + FARO_TP_MAX_HDR > tp->max_msg)
        tp->max_send = tp->max_msg - sizeof(struct ofi_wire) - FARO_TP_MAX_HDR;
}

static int ofi_init(faro_tp_t **out, const faro_tp_env_t *env, faro_tp_attr_t *attr, char *why,
                    size_t whylen)
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
    tp->cq_fd = tp->epfd = tp->kickfd = -1;
    tp->rma_tail = &tp->rma_head;
    if (env->job_key_len > FARO_TP_MAX_KEY) {
        snprintf(why, whylen, "job key of %zu bytes is longer than %d", env->job_key_len,
                 FARO_TP_MAX_KEY);
        goto out;
    }
    tp->tag = ofi_tag(env->job_key, env->job_key_len);
    /* The survey costs a few fi_getinfo calls: for faro_info and probes (a
     * single process), when asked, and when nothing qualifies. */
    note = calloc(1, OFI_NOTE);
    int survey = note && (env->size == 1 || faro_log_level >= 1);
    rc = ofi_choose(tp, why, whylen, survey ? note : NULL, OFI_NOTE);
    if (rc == FARO_TP_UNAVAILABLE && !survey && note)
        rc = ofi_choose(tp, why, whylen, note, OFI_NOTE);
    if (rc != FARO_TP_OK)
        goto out;
    ofi_limits(tp);
    if (ofi_open(tp, why, whylen) < 0) {
        rc = FARO_TP_UNAVAILABLE;
        goto out;
    }

    memset(attr, 0, sizeof *attr);
    attr->caps = FARO_TP_CAP_GET | FARO_TP_CAP_PUT | (tp->mr_local ? FARO_TP_CAP_LOCAL_REG : 0) |
                 (tp->local_only ? FARO_TP_CAP_LOCAL_ONLY : 0) | FARO_TP_CAP_PORTS;
    attr->max_inline = OFI_MAX_INLINE;
    attr->max_send = tp->max_send;
    attr->eager_limit = (size_t)faro_tun_int(FARO_TUN_OFI_EAGER_LIMIT);
    attr->eager_limit_user = faro_tun_isset(FARO_TUN_OFI_EAGER_LIMIT);
    attr->frag_size = tp->max_send;
    attr->max_get = attr->max_put = tp->max_msg < (1ul << 30) ? tp->max_msg : (1ul << 30);
    attr->rkey_size = sizeof(struct ofi_rkey_wire);
    attr->latency_us = 15.0;
    attr->bandwidth_mbs = 2000.0;
    faro_info(1, "ofi: provider %s, domain %s, inject %zu, registration cache: %s",
              tp->info->fabric_attr->prov_name, tp->info->domain_attr->name, tp->inject,
              faro_rcache_monitor());
    if (survey)
        snprintf(why, whylen, "%s", note);
    free(note);
    *out = tp;
    return FARO_TP_OK;

out:
    free(note);
    ofi_finalize(tp);
    return rc;
}

static int ofi_wireup_done(faro_tp_t *tp)
{
    return FARO_TP_OK; /* nothing published outside the process */
}

static int ofi_set_handler(faro_tp_t *tp, unsigned kind, faro_tp_handler_fn fn)
{
    if (kind >= FARO_TP_MAX_KINDS)
        return FARO_TP_ERR;
    tp->handlers[kind] = fn;
    return FARO_TP_OK;
}

/* Readable while progress may find work. fi_trywait arms the CQ's wait object
 * and says whether sleeping is safe; when it is not, the kick makes the set
 * readable at once. */
static int ofi_wait_fd(faro_tp_t *tp, int *fd)
{
    if (tp->cq_fd < 0)
        return FARO_TP_UNSUPPORTED;
    struct fid *f = &tp->cq->fid;
    if (!tp->kicked && fi_trywait(tp->fabric, &f, 1) != FI_SUCCESS) {
        (void)eventfd_write(tp->kickfd, 1);
        tp->kicked = 1;
    }
    *fd = tp->epfd;
    return FARO_TP_OK;
}

static void ofi_close(struct fid *f)
{
    if (f)
        fi_close(f);
}

static int ofi_finalize(faro_tp_t *tp)
{
    if (!tp)
        return FARO_TP_OK;
    tp->finalizing = 1;
    memset(tp->handlers, 0, sizeof tp->handlers); /* what still arrives is not delivered */
    if (tp->ep)
        ofi_say_bye(tp);
    ofi_close(tp->ep ? &tp->ep->fid : NULL);
    ofi_rma_fini(tp);
    ofi_rx_fini(tp);
    ofi_tx_fini(tp);
    ofi_close(tp->cq ? &tp->cq->fid : NULL);
    ofi_close(tp->av ? &tp->av->fid : NULL);
    ofi_av_fini(tp);
    ofi_close(tp->domain ? &tp->domain->fid : NULL);
    ofi_close(tp->fabric ? &tp->fabric->fid : NULL);
    if (tp->info)
        fi_freeinfo(tp->info);
    if (tp->epfd >= 0)
        close(tp->epfd);
    if (tp->kickfd >= 0)
        close(tp->kickfd);
    ofi_free_eps(tp);
    ofi_ports_fini(tp);
    free(tp->job);
    free(tp);
    return FARO_TP_OK;
}

const faro_tp_ops_t faro_tp_ofi_ops = {
    .name = "ofi",
    .init = ofi_init,
    .finalize = ofi_finalize,
    .addr_get = ofi_addr_get,
    .connect = ofi_connect,
    .wireup_done = ofi_wireup_done,
    .listen = ofi_listen,
    .unlisten = ofi_unlisten,
    .disconnect = ofi_disconnect,
    .set_handler = ofi_set_handler,
    .send_inline = ofi_send_inline,
    .isend = ofi_isend,
    .mem_reg = ofi_mem_reg,
    .mem_dereg = ofi_mem_dereg,
    .rkey_pack = ofi_rkey_pack,
    .rkey_unpack = ofi_rkey_unpack,
    .rkey_release = ofi_rkey_release,
    .get = ofi_get,
    .put = ofi_put,
    .flush = ofi_flush,
    .progress = ofi_progress,
    .wait_fd = ofi_wait_fd,
};
