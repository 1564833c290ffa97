/*
 * Processes beyond the job (see dyn.h): this process's dynamic key and
 * descriptor, the descriptors of others, lazy connections to them, the
 * connections they make to us, and what their loss does.
 *
 * A descriptor travels packed, in host byte order (the handshake checks that
 * both sides agree on it):
 *
 *     u64 gpid | u32 job check | u8 hostlen, host | u8 ntp |
 *         ntp x (u8 namelen, name | u16 addrlen, addr | u8 keylen, key)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "runtime/dyn.h"
#include "p2p/request.h"
#include "base/log.h"
#include "base/tunables.h"

static uint8_t dyn_key[FARO_DYN_KEYLEN];
static unsigned *dyn_port;      /* per transport: the port of the dynamic key (0: none) */
/* Second endpoints of peers (dyn.h): the context handlers get for them. */
struct alias {
    struct faro_peer peer; /* rank: the peer's index (outside the table) */
    struct alias *next;
};
static struct alias *aliases;

/* ---- listening ---- */

static int has_ports(const struct faro_transport *t)
{
    return t->tp && (t->attr.caps & FARO_TP_CAP_PORTS);
}

int faro_dyn_listen(const uint8_t *key, size_t keylen, unsigned *tp_port, char *err,
                    size_t errlen)
{
    int n = 0;
    for (int i = 0; i < faro.ntps; i++) {
        struct faro_transport *t = &faro.tps[i];
        tp_port[i] = 0;
        if (has_ports(t) && t->ops->listen(t->tp, key, keylen, &tp_port[i]) == FARO_TP_OK)
            n++;
    }
    if (n == 0) {
        char names[256] = "";
        for (const faro_tp_ops_t *const *o = faro_transports; *o; o++) {
            size_t u = strlen(names);
            snprintf(names + u, sizeof names - u, "%s%s", u ? ", " : "", (*o)->name);
        }
        snprintf(err, errlen, "no transport in use here can listen for processes beyond the "
                 "job (FARO_TRANSPORTS=%s; built: %s; a transport with ports must be "
                 "listed and usable; or every port is open already)",
                 faro_tun_str(FARO_TUN_TRANSPORTS), names);
        return -1;
    }
    return n;
}

void faro_dyn_unlisten(const unsigned *tp_port)
{
    for (int i = 0; i < faro.ntps; i++)
        if (tp_port[i] && faro.tps[i].tp)
            faro.tps[i].ops->unlisten(faro.tps[i].tp, tp_port[i]);
}

/* ---- descriptors ---- */

static int put(uint8_t *buf, size_t cap, size_t *at, const void *p, size_t n)
{
    if (*at + n > cap)
        return -1;
    memcpy(buf + *at, p, n);
    *at += n;
    return 0;
}

int faro_dyn_self_desc(uint8_t *buf, size_t cap, char *err, size_t errlen)
{
    if ((uint64_t)faro.size >> FARO_GPID_RANK_BITS)
        return snprintf(err, errlen, "jobs of more than %d ranks cannot connect to other jobs",
                        1 << FARO_GPID_RANK_BITS), -1;
    if (!dyn_port) {
        unsigned *ports = calloc((size_t)faro.ntps, sizeof *ports);
        if (!ports)
            return snprintf(err, errlen, "out of memory"), -1;
        if (getrandom(dyn_key, sizeof dyn_key, 0) != (ssize_t)sizeof dyn_key ||
            faro_dyn_listen(dyn_key, sizeof dyn_key, ports, err, errlen) < 0) {
            if (!err[0])
                snprintf(err, errlen, "getrandom failed for the dynamic key");
            free(ports);
            return -1;
        }
        dyn_port = ports;
    }
    size_t at = 0;
    uint64_t gpid = faro_job_gpid(faro.rank);
    uint8_t hl = (uint8_t)strnlen(faro.hostname, 255), ntp = 0;
    int bad = put(buf, cap, &at, &gpid, 8) || put(buf, cap, &at, &faro.job_check, 4) ||
              put(buf, cap, &at, &hl, 1) ||
              put(buf, cap, &at, faro.hostname, hl);
    size_t ntp_at = at;
    bad = bad || put(buf, cap, &at, &ntp, 1);
    for (int i = 0; i < faro.ntps && !bad && ntp < FARO_DYN_MAX_TPS; i++) {
        struct faro_transport *t = &faro.tps[i];
        uint8_t blob[FARO_TP_MAX_ADDR];
        size_t len = sizeof blob;
        if (!dyn_port[i] || t->ops->addr_get(t->tp, blob, &len) != FARO_TP_OK)
            continue;
        uint8_t nl = (uint8_t)strnlen(t->ops->name, FARO_DYN_TPNAME - 1), kl = sizeof dyn_key;
        uint16_t al = (uint16_t)len;
        bad = put(buf, cap, &at, &nl, 1) || put(buf, cap, &at, t->ops->name, nl) ||
              put(buf, cap, &at, &al, 2) || put(buf, cap, &at, blob, len) ||
              put(buf, cap, &at, &kl, 1) || put(buf, cap, &at, dyn_key, kl);
        ntp++;
    }
    if (bad)
        return snprintf(err, errlen, "this process's descriptor does not fit in %zu bytes", cap),
               -1;
    buf[ntp_at] = ntp;
    return (int)at;
}

static int get(const uint8_t *buf, size_t len, size_t *at, void *p, size_t n)
{
    if (*at + n > len)
        return -1;
    memcpy(p, buf + *at, n);
    *at += n;
    return 0;
}

/* Unpack one descriptor into d; its length, or -1. */
static int unpack(const uint8_t *buf, size_t len, struct faro_dyn_desc *d)
{
    size_t at = 0;
    uint8_t hl, ntp;
    memset(d, 0, sizeof *d);
    if (get(buf, len, &at, &d->gpid, 8) || get(buf, len, &at, &d->check, 4) ||
        get(buf, len, &at, &hl, 1) ||
        get(buf, len, &at, d->host, hl) || get(buf, len, &at, &ntp, 1) ||
        ntp > FARO_DYN_MAX_TPS)
        return -1;
    d->ntp = ntp;
    for (int i = 0; i < ntp; i++) {
        uint8_t nl;
        if (get(buf, len, &at, &nl, 1) || nl >= FARO_DYN_TPNAME ||
            get(buf, len, &at, d->tp[i].name, nl) || get(buf, len, &at, &d->tp[i].addrlen, 2) ||
            d->tp[i].addrlen > FARO_TP_MAX_ADDR ||
            get(buf, len, &at, d->tp[i].addr, d->tp[i].addrlen) ||
            get(buf, len, &at, &d->tp[i].keylen, 1) || d->tp[i].keylen > FARO_TP_MAX_KEY ||
            get(buf, len, &at, d->tp[i].key, d->tp[i].keylen))
            return -1;
    }
    return (int)at;
}

int faro_dyn_add(const uint8_t *buf, size_t len, size_t *used, char *err, size_t errlen)
{
    struct faro_dyn_desc d;
    int n = unpack(buf, len, &d);
    if (n < 0)
        return snprintf(err, errlen, "a process descriptor from the other side is malformed "
                        "(is it running another version of Faro?)"), -1;
    *used = (size_t)n;
    if (d.gpid >> FARO_GPID_RANK_BITS == faro.job_uid && d.check != faro.job_check)
        return snprintf(err, errlen, "a process of another job has an id of this job: the "
                        "two jobs drew the same random 40-bit id (about one chance in 10^12); "
                        "start one of them again"), -1;
    int i = faro_peer_by_gpid(d.gpid, 1);
    if (i < 0)
        return snprintf(err, errlen, "no room for another process beyond the job (%d peers "
                        "are known)", faro.npeers), -1;
    if (i < faro.size) /* a rank of this job: it is reached as one */
        return i;
    struct faro_peer_info *pi = &faro.pinfo[i];
    int known = pi->desc != NULL;
    if (!pi->desc && !(pi->desc = calloc(1, sizeof d)))
        return snprintf(err, errlen, "out of memory"), -1;
    char why[sizeof d.why];
    memcpy(why, pi->desc->why, sizeof why); /* a loss already recorded stays */
    *pi->desc = d;
    memcpy(pi->desc->why, why, sizeof why);
    faro_name_nodes(); /* its host may be one of this job's, named or not yet */
    int node = faro_node_of_host(d.host);
    if (node < 0)
        return snprintf(err, errlen, "out of memory"), -1;
    faro.peers[i].node = (uint32_t)node;
    if (!known && node == faro.node)
        faro_wait_more_here();
    return i;
}

struct faro_transport *faro_dyn_pick(const char (*names)[FARO_DYN_TPNAME], int n, int *which)
{
    struct faro_transport *best = NULL;
    int best_pos = 1 << 30;
    const char *list = faro_tun_str(FARO_TUN_TRANSPORTS);
    for (int i = 0; i < faro.ntps; i++) {
        struct faro_transport *t = &faro.tps[i];
        int pos = faro_tp_list_pos(list, t->ops->name);
        if (!has_ports(t) || pos < 0 || pos >= best_pos)
            continue;
        for (int k = 0; k < n; k++)
            if (!strcmp(names[k], t->ops->name)) {
                best = t;
                best_pos = pos;
                *which = k;
            }
    }
    return best;
}

/* ---- connections ---- */

/* Sends to a lost process go here and fail (the request reports the loss). */
static int lost_send_inline(faro_tp_t *tp, faro_tp_ep_t *ep, unsigned kind, const void *hdr,
                            size_t hdrlen, const void *data, size_t len)
{
    return FARO_TP_ERR;
}
static int lost_isend(faro_tp_t *tp, faro_tp_ep_t *ep, unsigned kind, const void *hdr,
                      size_t hdrlen, const struct iovec *iov, int iovcnt, faro_tp_done_fn done,
                      void *arg)
{
    return FARO_TP_ERR;
}
static int lost_done(faro_tp_t *tp, faro_tp_ep_t *ep)
{
    return FARO_TP_DONE;
}
static const faro_tp_ops_t lost_ops = {
    .name = "(lost)", .send_inline = lost_send_inline, .isend = lost_isend,
    .mem_reg = faro_tp_unsupported_mem_reg, .mem_dereg = faro_tp_unsupported_mem_dereg,
    .rkey_unpack = faro_tp_unsupported_rkey_unpack,
    .rkey_release = faro_tp_unsupported_rkey_release, .get = faro_tp_unsupported_get,
    .put = faro_tp_unsupported_put, .flush = lost_done, .disconnect = lost_done,
};
static struct faro_transport lost_tp = {
    .ops = &lost_ops,
    .attr = {.max_send = (size_t)1 << 40, .frag_size = (size_t)1 << 40},
    .used = 1,
};
static int lost_ep;

static void bind_lost(struct faro_peer *p)
{
    p->t = &lost_tp;
    p->ep = (faro_tp_ep_t *)&lost_ep;
    p->eager_limit = SIZE_MAX; /* every send takes the path that fails its request */
    p->max_inline = 0;
    p->frag = lost_tp.attr.frag_size;
}

static void set_why(struct faro_peer_info *pi, const char *why)
{
    if (!pi->desc)
        pi->desc = calloc(1, sizeof *pi->desc);
    if (pi->desc && !pi->desc->why[0])
        snprintf(pi->desc->why, sizeof pi->desc->why, "%s", why);
}

static void lose(int i, int sends_too);

void faro_dyn_connect(struct faro_peer *p)
{
    char name[160];
    struct faro_peer_info *pi = &faro.pinfo[p->rank];
    if (pi->kind != FARO_PEER_DYN || pi->lost) {
        bind_lost(p);
        return;
    }
    struct faro_dyn_desc *d = pi->desc;
    char names[FARO_DYN_MAX_TPS][FARO_DYN_TPNAME];
    for (int i = 0; d && i < d->ntp; i++)
        memcpy(names[i], d->tp[i].name, FARO_DYN_TPNAME);
    int k = 0;
    struct faro_transport *t = d && d->ntp ? faro_dyn_pick(names, d->ntp, &k) : NULL;
    faro_tp_ep_t *ep = NULL;
    if (t) {
        uint64_t me = faro_job_gpid(faro.rank);
        faro_tp_conn_t c = {.addr = d->tp[k].addr, .addrlen = d->tp[k].addrlen, .id = me,
                            .key = d->tp[k].key, .keylen = d->tp[k].keylen, .ctx = p};
        int rc = t->ops->connect(t->tp, &c, &ep);
        if (rc != FARO_TP_OK && rc != FARO_TP_DONE)
            ep = NULL;
    }
    if (!ep) { /* the send under way fails through the lost binding */
        set_why(pi, !d ? "this process has no address for it"
                    : !t ? "no transport in use here reaches it"
                         : "the transport could not connect to it");
        lose(p->rank, 0);
        return;
    }
    faro_bind_peer(p, t, ep);
    pi->eps++;
    faro_info(2, "%s: connected through %s", faro_peer_name(p->rank, name, sizeof name),
              t->ops->name);
}

void *faro_dyn_accepted(struct faro_transport *t, faro_tp_ep_t *ep, uint64_t id, unsigned port)
{
    int ti = (int)(t - faro.tps);
    if (!dyn_port || dyn_port[ti] != port)
        return faro_port_accepted(t, ep, id, port);
    int i = faro_peer_by_gpid(id, 1);
    if (i < faro.size) /* full, or one of the job's ranks, which uses the job key */
        return NULL;
    struct faro_peer *p = &faro.peers[i];
    if (faro.pinfo[i].lost)
        return NULL;
    faro.pinfo[i].eps++;
    if (!p->ep) {
        faro_bind_peer(p, t, ep);
        return p;
    }
    /* It connected while our own connection to it stands: it sends on its
     * own, which delivers here under an alias of the peer. */
    struct alias *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->peer.rank = i;
    a->peer.t = t;
    a->peer.ep = ep;
    a->next = aliases;
    aliases = a;
    return &a->peer;
}

/* The process behind peer i broke away: what used it fails, this job goes on.
 * Called when its last connection is gone, so every message it sent before
 * has been delivered; or at a first send that cannot connect (sends_too 0:
 * that send fails on its own path). */
static void lose(int i, int sends_too)
{
    struct faro_peer *p = &faro.peers[i];
    struct faro_peer_info *pi = &faro.pinfo[i];
    char name[160];
    pi->lost = 1;
    set_why(pi, "its connection broke");
    faro_warn("lost contact with %s: %s; the communicators that contain it fail from now on "
              "(MPI_ERR_PROC_ABORTED); this job goes on", faro_peer_name(i, name, sizeof name),
              pi->desc ? pi->desc->why : "its connection broke");
    bind_lost(p);
    p->eager_in = NULL;
    p->placed = NULL;
    faro_comm_break(i);
    faro_req_fail_peer(i, sends_too);
}

/* One of a peer's endpoints (its own, or an alias) went away. In order (it
 * finalized): its own is unbound, so that a later message reconnects. Not in
 * order: the peer is lost once none of its endpoints is left. */
static void ep_gone(struct faro_peer *p, int own, int orderly, const char *why)
{
    struct faro_peer_info *pi = &faro.pinfo[p->rank];
    if (pi->eps)
        pi->eps--;
    if (!orderly)
        set_why(pi, why ? why : "its connection broke");
    if (own && p->t != &lost_tp) {
        p->t = NULL;
        p->ep = NULL;
    }
    if (!pi->lost && !pi->eps && pi->desc && pi->desc->why[0])
        lose(p->rank, 1);
}

void faro_dyn_lost(struct faro_peer *p, int orderly, const char *why)
{
    struct faro_peer_info *pi = &faro.pinfo[p->rank];
    if (p != &faro.peers[p->rank]) { /* an alias: a second endpoint of the peer */
        p->t = NULL;
        ep_gone(&faro.peers[p->rank], 0, orderly, why);
    } else if (pi->kind == FARO_PEER_LINK) {
        faro_link_lost(pi->link, orderly, why);
    } else if (pi->kind == FARO_PEER_DYN) {
        ep_gone(p, 1, orderly, why);
    }
}

void faro_dyn_finalize(void)
{
    faro_ports_finalize();
    if (dyn_port)
        faro_dyn_unlisten(dyn_port);
    free(dyn_port);
    dyn_port = NULL;
    while (aliases) {
        struct alias *a = aliases;
        aliases = a->next;
        free(a);
    }
}
