/*
 * ofi_tagged: would libfabric's tagged interface (FI_TAGGED) be a faster path
 * for Faro's ofi transport? A ping-pong between two processes over one
 * FI_EP_RDM endpoint each, links libfabric only (no Faro), in one of two ways:
 *
 *   msg     what transports/ofi does with Faro's core on top: every message
 *           is a 16-byte wire header + the core's 32-byte match header + the
 *           payload, sent with fi_sendmsg (copied into the send's own pool
 *           entry up to 256 bytes in all, into one of 64 registered 16 KiB
 *           send buffers up to a 2 KiB payload, else from the user's buffer
 *           behind the header), received into 64 pre-posted 16 KiB buffers;
 *           the receiver checks the wire header, matches (context, source,
 *           tag) in software against its posted receive, copies the payload
 *           into the user's buffer and posts the buffer again. Up to 16 KiB
 *           a message is eager (two fragments when it does not fit one
 *           buffer); above, a rendezvous: RTS with the remote key, fi_read
 *           by the receiver into the user's buffer, FIN back.
 *   tagged  what an MPI that offloads matching does: fi_tsend from the user's
 *           buffer and fi_trecv into it, the 64-bit tag carrying (context 16
 *           bits, source 24, tag 24), no header of its own; the provider
 *           matches and chooses its own eager or rendezvous protocol.
 *
 * In both, each side posts its receive before it sends (the expected path),
 * every send asks for a completion and user buffers are registered once.
 * Prints the half round trip in microseconds per size: the median, min and
 * max over --runs runs of --iters round trips.
 *
 *   perf/ofi_tagged --prov "tcp;ofi_rxm" --variant msg [--sizes 8,64,1k]
 *                   [--iters N] [--runs R] [--domain lo]
 *   perf/ofi_tagged ... --one    both endpoints in one process, driven in
 *                   turn: with valgrind --tool=callgrind, each size's
 *                   round trips and a phase of empty polls are dumped
 *                   separately (perf/ofi-tagged-compare reads them)
 *
 * Results and the decision they led to: docs/perf.md, "ofi: tagged offload".
 */
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

#define MAX_MSG 16384         /* a receive buffer: Faro's OFI_MAX_MSG */
#define EAGER_LIMIT 16384     /* FARO_OFI_EAGER_LIMIT */
#define NRX 64                /* FARO_OFI_RECV_BUFS */
#define NBOUNCE 64            /* FARO_OFI_SEND_BUFS */
#define NTX 256
#define TX_HEAD 256           /* OFI_TX_HEAD */
#define COPY_MAX 2048         /* payloads up to this are copied into a send buffer */
#define MAX_SIZE (1 << 20)

/* Faro's headers, as the core and the transport send them. */
struct wire { uint8_t kind, hdrlen; uint16_t flags; int32_t src; uint64_t tag; };
struct hmatch { uint32_t ctx; int32_t src, tag; uint32_t flags; uint64_t len, sreq; };
struct hrts { struct hmatch m; uint64_t raddr; uint16_t rkey_len; };
struct hdata { uint64_t rreq, offset; };
struct hack { uint64_t sreq; };
struct rkeyw { uint32_t magic; uint16_t version, virt; uint64_t key, base, len; };
enum { K_EAGER, K_CONT, K_RTS, K_FIN };
enum { OP_SEND = 1, OP_RECV, OP_RMA, OP_TSEND, OP_TRECV };

struct op { struct fi_context2 ctx; int type; };
struct tx { struct op op; int bounce, inplace; struct tx *next; uint8_t head[TX_HEAD]; };
struct rx { struct op op; uint8_t *buf; };

struct side {
    int rank, tagged;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    fi_addr_t peer;
    int mr_local, mr_virt, mr_prov_key;
    uint64_t next_key;
    uint64_t jobtag;
    struct tx *txs, *txfree;
    struct fid_mr *txmr, *bmr, *rxmr, *smr, *rmr;
    void *txdesc, *bdesc, *rxdesc, *sdesc, *rdesc;
    uint8_t *bounce, *rxmem, *sbuf, *rbuf;
    int bfree[NBOUNCE], nbfree;
    struct rx rx[NRX];
    /* the one posted receive (software matching) and the send in flight */
    struct { uint32_t ctx; int32_t src, tag; size_t len, got; int posted, done; } recv;
    int sends_left;           /* local completions or FIN the current send waits for */
    int inflight;             /* sends the provider holds */
    struct op rma_op, tsend_op, trecv_op;
    long empty_polls;
};

static const char *prog = "ofi_tagged";
static struct side *g_sides[2]; /* every side in this process */
static int g_nsides;

/* Progress every side without taking completions: the provider said "again"
 * and may need the other side (in this process) to move. */
static void kick_all(void)
{
    for (int i = 0; i < g_nsides; i++)
        (void)fi_cq_read(g_sides[i]->cq, NULL, 0);
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, rc ? fi_strerror(-rc) : "failed");
    exit(1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The tag an offloading MPI would use: context, source rank, tag. */
static uint64_t mpi_tag(uint32_t ctx, int src, int tag)
{
    return (uint64_t)(ctx & 0xffff) << 48 | (uint64_t)(src & 0xffffff) << 24 |
           (uint64_t)(tag & 0xffffff);
}

static void reg(struct side *s, void *buf, size_t len, struct fid_mr **mr, void **desc,
                uint64_t access)
{
    int rc = fi_mr_reg(s->domain, buf, len, access, 0, s->mr_prov_key ? 0 : s->next_key++, 0,
                       mr, NULL);
    if (rc)
        die("fi_mr_reg", rc);
    if (s->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(*mr, &s->ep->fid, 0)) || (rc = fi_mr_enable(*mr)))
            die("fi_mr_bind", rc);
    }
    *desc = fi_mr_desc(*mr);
}

/* Faro's requirements (transports/ofi/ofi_info.c); FI_TAGGED instead of FI_MSG
 * for the tagged variant. Manual progress where the provider offers it. */
static struct fi_info *choose(const char *prov, const char *dom, int tagged)
{
    struct fi_info *h = fi_allocinfo(), *out = NULL;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = (tagged ? FI_TAGGED : FI_MSG) | FI_RMA | FI_SEND | FI_RECV | FI_READ |
              FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    h->tx_attr->msg_order = h->rx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->resource_mgmt = FI_RM_ENABLED;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                              FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->fabric_attr->prov_name = strdup(prov);
    if (dom)
        h->domain_attr->name = strdup(dom);
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    if (fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, h, &out)) {
        h->domain_attr->data_progress = FI_PROGRESS_UNSPEC;
        int rc = fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, h, &out);
        if (rc)
            die("fi_getinfo (no such provider with these requirements)", rc);
    }
    fi_freeinfo(h);
    /* not every provider filters by the domain's name: take the entry named */
    struct fi_info *pick = out;
    for (struct fi_info *i = out; dom && i; i = i->next)
        if (i->domain_attr->name && !strcmp(i->domain_attr->name, dom)) {
            pick = i;
            break;
        }
    pick = fi_dupinfo(pick);
    fi_freeinfo(out);
    return pick;
}

static void post_rx(struct side *s, struct rx *r)
{
    struct iovec v = { r->buf, MAX_MSG };
    struct fi_msg m = { .msg_iov = &v, .desc = &s->rxdesc, .iov_count = 1,
                        .addr = FI_ADDR_UNSPEC, .context = r };
    ssize_t rc;
    while ((rc = fi_recvmsg(s->ep, &m, FI_COMPLETION)) == -FI_EAGAIN)
        kick_all();
    if (rc)
        die("fi_recvmsg", (int)rc);
}

static void open_side(struct side *s, int rank, const char *prov, const char *dom, int tagged)
{
    int rc;
    memset(s, 0, sizeof *s);
    s->rank = rank;
    s->tagged = tagged;
    s->jobtag = 0x5a17f00dcafe1234ull;
    s->next_key = 1;
    s->info = choose(prov, dom, tagged);
    uint64_t mr = (uint64_t)s->info->domain_attr->mr_mode;
    s->mr_local = (mr & FI_MR_LOCAL) != 0;
    s->mr_virt = (mr & FI_MR_VIRT_ADDR) != 0;
    s->mr_prov_key = (mr & FI_MR_PROV_KEY) != 0;
    if (!strcmp(s->info->fabric_attr->prov_name, "shm")) { /* a name per process */
        char name[64];
        snprintf(name, sizeof name, "ofi-tagged-%d-%d", (int)getpid(), rank);
        free(s->info->src_addr);
        s->info->src_addr = strdup(name);
        s->info->src_addrlen = strlen(name) + 1;
    }
    if ((rc = fi_fabric(s->info->fabric_attr, &s->fabric, NULL)) ||
        (rc = fi_domain(s->fabric, s->info, &s->domain, NULL)))
        die("fi_fabric/fi_domain", rc);
    struct fi_av_attr av = { .type = s->info->domain_attr->av_type, .count = 4 };
    struct fi_cq_attr cq = { .format = FI_CQ_FORMAT_DATA,
                             .size = s->info->tx_attr->size + s->info->rx_attr->size };
    if ((rc = fi_av_open(s->domain, &av, &s->av, NULL)) ||
        (rc = fi_cq_open(s->domain, &cq, &s->cq, NULL)) ||
        (rc = fi_endpoint(s->domain, s->info, &s->ep, NULL)) ||
        (rc = fi_ep_bind(s->ep, &s->av->fid, 0)) ||
        (rc = fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV)) || (rc = fi_enable(s->ep)))
        die("opening the endpoint", rc);
    uint64_t all = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    s->sbuf = aligned_alloc(4096, MAX_SIZE);
    s->rbuf = aligned_alloc(4096, MAX_SIZE);
    memset(s->sbuf, 'a' + rank, MAX_SIZE);
    memset(s->rbuf, 0, MAX_SIZE);
    reg(s, s->sbuf, MAX_SIZE, &s->smr, &s->sdesc, all);
    reg(s, s->rbuf, MAX_SIZE, &s->rmr, &s->rdesc, all);
    s->rma_op.type = OP_RMA;
    s->tsend_op.type = OP_TSEND;
    s->trecv_op.type = OP_TRECV;
    if (tagged)
        return;
    s->txs = aligned_alloc(64, NTX * sizeof *s->txs);
    s->bounce = aligned_alloc(4096, (size_t)NBOUNCE * MAX_MSG);
    s->rxmem = aligned_alloc(4096, (size_t)NRX * MAX_MSG);
    for (int i = NTX; i-- > 0;) {
        s->txs[i].op.type = OP_SEND;
        s->txs[i].bounce = -1;
        s->txs[i].next = s->txfree;
        s->txfree = &s->txs[i];
    }
    for (int i = 0; i < NBOUNCE; i++)
        s->bfree[s->nbfree++] = i;
    if (s->mr_local) {
        reg(s, s->txs, NTX * sizeof *s->txs, &s->txmr, &s->txdesc, all);
        reg(s, s->bounce, (size_t)NBOUNCE * MAX_MSG, &s->bmr, &s->bdesc, all);
        reg(s, s->rxmem, (size_t)NRX * MAX_MSG, &s->rxmr, &s->rxdesc, all);
    }
    for (int i = 0; i < NRX; i++) {
        s->rx[i].op.type = OP_RECV;
        s->rx[i].buf = s->rxmem + (size_t)i * MAX_MSG;
        post_rx(s, &s->rx[i]);
    }
}

static void close_side(struct side *s)
{
    struct fid_mr *mrs[] = { s->smr, s->rmr, s->txmr, s->bmr, s->rxmr };
    fi_close(&s->ep->fid);
    for (size_t i = 0; i < sizeof mrs / sizeof mrs[0]; i++)
        if (mrs[i])
            fi_close(&mrs[i]->fid);
    fi_close(&s->cq->fid);
    fi_close(&s->av->fid);
    fi_close(&s->domain->fid);
    fi_close(&s->fabric->fid);
    fi_freeinfo(s->info);
}

/* ---- the msg variant: Faro's path ---- */

/* One message of Faro's transport: wire + header + payload (ofi_post). */
static void msg_post(struct side *s, unsigned kind, const void *hdr, size_t hdrlen,
                     const void *data, size_t len)
{
    struct tx *t = s->txfree;
    struct wire w = { .kind = (uint8_t)kind, .hdrlen = (uint8_t)hdrlen, .src = s->rank,
                      .tag = s->jobtag };
    struct iovec v[2];
    void *desc[2] = { NULL, NULL };
    size_t nv = 1, total = sizeof w + hdrlen + len;
    if (!t || !s->nbfree)
        die("out of send entries", 0);
    s->txfree = t->next;
    uint8_t *dst = t->head;
    if (total > TX_HEAD && len <= COPY_MAX) {
        t->bounce = s->bfree[--s->nbfree];
        dst = s->bounce + (size_t)t->bounce * MAX_MSG;
    }
    memcpy(dst, &w, sizeof w);
    memcpy(dst + sizeof w, hdr, hdrlen);
    t->inplace = !(total <= TX_HEAD || len <= COPY_MAX);
    if (!t->inplace) {
        if (len)
            memcpy(dst + sizeof w + hdrlen, data, len);
        v[0] = (struct iovec){ dst, total };
        desc[0] = t->bounce >= 0 ? s->bdesc : s->txdesc;
    } else { /* in place, behind the header */
        v[0] = (struct iovec){ dst, sizeof w + hdrlen };
        v[1] = (struct iovec){ (void *)data, len };
        desc[0] = s->txdesc;
        desc[1] = s->sdesc;
        nv = 2;
        s->sends_left++; /* the core's request completes with the provider's completion */
    }
    struct fi_msg m = { .msg_iov = v, .desc = desc, .iov_count = nv, .addr = s->peer,
                        .context = t };
    ssize_t rc;
    while ((rc = fi_sendmsg(s->ep, &m, FI_COMPLETION)) == -FI_EAGAIN)
        kick_all();
    if (rc)
        die("fi_sendmsg", (int)rc);
    s->inflight++;
}

static void msg_send(struct side *s, size_t len)
{
    struct hmatch m = { .ctx = 4, .src = s->rank, .tag = 7, .len = len, .sreq = 0x1000 };
    const size_t first = MAX_MSG - sizeof(struct wire) - sizeof m;
    s->sends_left = 0; /* a copied message: the core does not wait (send_inline) */
    if (len <= EAGER_LIMIT) {
        size_t n = len < first ? len : first;
        msg_post(s, K_EAGER, &m, sizeof m, s->sbuf, n);
        if (n < len) {
            struct hdata d = { 0, n };
            msg_post(s, K_CONT, &d, sizeof d, s->sbuf + n, len - n);
        }
        return;
    }
    struct { struct hrts h; struct rkeyw k; } rts = { 0 };
    rts.h.m = m;
    rts.h.raddr = s->mr_virt ? (uint64_t)(uintptr_t)s->sbuf : 0;
    rts.h.rkey_len = sizeof rts.k;
    rts.k = (struct rkeyw){ 0x4f46494f, 2, (uint16_t)s->mr_virt, fi_mr_key(s->smr),
                            (uint64_t)(uintptr_t)s->sbuf, MAX_SIZE };
    s->sends_left++; /* the FIN */
    msg_post(s, K_RTS, &rts.h, sizeof rts.h, &rts.k, sizeof rts.k);
}

static void msg_post_recv(struct side *s, size_t len)
{
    s->recv.ctx = 4;
    s->recv.src = 1 - s->rank;
    s->recv.tag = 7;
    s->recv.len = len;
    s->recv.got = 0;
    s->recv.posted = 1;
    s->recv.done = 0;
}

/* A message in a receive buffer (ofi_deliver, then the core's handlers). */
static void msg_deliver(struct side *s, const uint8_t *buf, size_t len)
{
    struct wire w;
    memcpy(&w, buf, sizeof w);
    if (len < sizeof w || w.tag != s->jobtag || w.src != 1 - s->rank ||
        sizeof w + w.hdrlen > len)
        die("a malformed message", 0);
    const uint8_t *hdr = buf + sizeof w, *data = hdr + w.hdrlen;
    size_t dlen = len - sizeof w - w.hdrlen;
    if (w.kind == K_EAGER || w.kind == K_RTS) {
        struct hmatch m;
        memcpy(&m, hdr, sizeof m);
        if (!s->recv.posted || m.ctx != s->recv.ctx || m.src != s->recv.src ||
            m.tag != s->recv.tag)
            die("a message that matches no posted receive", 0);
        s->recv.posted = 0;
        if (w.kind == K_RTS) {
            struct hrts h;
            struct rkeyw k;
            memcpy(&h, hdr, sizeof h);
            memcpy(&k, data, sizeof k);
            ssize_t rc;
            while ((rc = fi_read(s->ep, s->rbuf, m.len, s->rdesc, s->peer, h.raddr, k.key,
                                 &s->rma_op)) == -FI_EAGAIN)
                kick_all();
            if (rc)
                die("fi_read", (int)rc);
            return;
        }
    } else if (w.kind == K_FIN) {
        s->sends_left--;
        return;
    }
    memcpy(s->rbuf + s->recv.got, data, dlen);
    s->recv.got += dlen;
    s->recv.done = s->recv.got == s->recv.len;
}

/* ---- the tagged variant ---- */

static void tag_send(struct side *s, size_t len)
{
    ssize_t rc;
    while ((rc = fi_tsend(s->ep, s->sbuf, len, s->sdesc, s->peer, mpi_tag(4, s->rank, 7),
                          &s->tsend_op)) == -FI_EAGAIN)
        kick_all();
    if (rc)
        die("fi_tsend", (int)rc);
    s->sends_left = 1;
}

static void tag_post_recv(struct side *s, size_t len)
{
    ssize_t rc;
    s->recv.done = 0;
    s->recv.len = len;
    while ((rc = fi_trecv(s->ep, s->rbuf, len, s->rdesc, FI_ADDR_UNSPEC,
                          mpi_tag(4, 1 - s->rank, 7), 0, &s->trecv_op)) == -FI_EAGAIN)
        kick_all();
    if (rc)
        die("fi_trecv", (int)rc);
}

/* ---- both ---- */

static void post_recv(struct side *s, size_t len)
{
    if (s->tagged)
        tag_post_recv(s, len);
    else
        msg_post_recv(s, len);
}

static void send_msg(struct side *s, size_t len)
{
    if (s->tagged)
        tag_send(s, len);
    else
        msg_send(s, len);
}

/* One poll of the completion queue (ofi_progress); 0 when it was empty. */
static int poll_cq(struct side *s)
{
    struct fi_cq_data_entry e[16];
    ssize_t n = fi_cq_read(s->cq, e, 16);
    if (n == -FI_EAGAIN) {
        s->empty_polls++;
        return 0;
    }
    if (n < 0) {
        struct fi_cq_err_entry err = { 0 };
        fi_cq_readerr(s->cq, &err, 0);
        fprintf(stderr, "%s: rank %d: a completion with error: %s\n", prog, s->rank,
                fi_strerror(err.err));
        exit(1);
    }
    for (ssize_t i = 0; i < n; i++) {
        struct op *o = e[i].op_context;
        switch (o->type) {
        case OP_SEND: {
            struct tx *t = (struct tx *)o;
            if (t->bounce >= 0)
                s->bfree[s->nbfree++] = t->bounce;
            if (t->inplace)
                s->sends_left--;
            s->inflight--;
            t->bounce = -1;
            t->next = s->txfree;
            s->txfree = t;
            break;
        }
        case OP_RECV:
            msg_deliver(s, ((struct rx *)o)->buf, e[i].len);
            post_rx(s, (struct rx *)o);
            break;
        case OP_RMA: {
            struct hack a = { 0x1000 };
            msg_post(s, K_FIN, &a, sizeof a, NULL, 0);
            s->recv.done = 1;
            break;
        }
        case OP_TSEND:
            s->sends_left = 0;
            break;
        case OP_TRECV:
            if (e[i].len != s->recv.len)
                die("a tagged receive of the wrong length", 0);
            s->recv.done = 1;
            break;
        }
    }
    return (int)n;
}

/* Poll every side of this process until s has received (and, with both,
 * its send is complete). */
static void wait_for(struct side **all, int nall, struct side *s, int both)
{
    while (!s->recv.done || (both && s->sends_left))
        for (int i = 0; i < nall; i++)
            poll_cq(all[i]);
}

/* ---- set-up between two processes: addresses and barriers over a socketpair ---- */

static void xfer(int fd, const void *out, void *in, size_t len)
{
    if (write(fd, out, len) != (ssize_t)len || read(fd, in, len) != (ssize_t)len)
        die("the socketpair to the other process", 0);
}

static void connect_sides(struct side *a, const uint8_t *name)
{
    if (fi_av_insert(a->av, name, 1, &a->peer, 0, NULL) != 1)
        die("fi_av_insert", 0);
}

static size_t parse_size(const char *s)
{
    char *end;
    size_t v = strtoull(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10;
    else if (*end == 'm' || *end == 'M')
        v <<= 20;
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const char *prov = "tcp;ofi_rxm", *dom = NULL, *sizearg = "8,64,512,4k,16k,32k,64k";
    int tagged = 0, runs = 5, one = 0;
    long iters = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--prov") && i + 1 < argc)
            prov = argv[++i];
        else if (!strcmp(argv[i], "--domain") && i + 1 < argc)
            dom = argv[++i];
        else if (!strcmp(argv[i], "--variant") && i + 1 < argc)
            tagged = !strcmp(argv[++i], "tagged");
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizearg = argv[++i];
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atol(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--one"))
            one = 1;
        else {
            fprintf(stderr, "usage: %s [--prov NAME] [--domain NAME] [--variant msg|tagged] "
                    "[--sizes 8,64,4k,..] [--iters N] [--runs R] [--one]\n", prog);
            return 2;
        }
    }
    size_t sizes[32];
    int nsizes = 0;
    for (char *dup = strdup(sizearg), *t = strtok(dup, ","); t && nsizes < 32;
         t = strtok(NULL, ","))
        if ((sizes[nsizes] = parse_size(t)) >= 1 && sizes[nsizes] <= MAX_SIZE)
            nsizes++;
    if (runs < 1 || runs > 99)
        runs = 5;

    struct side sides[2], *all[2];
    int nall = one ? 2 : 1, rank = 0, fd = -1;
    pid_t child = -1;
    if (!one) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
            die("socketpair", 0);
        child = fork();
        rank = child == 0;
        fd = sv[rank];
        close(sv[1 - rank]);
    }
    for (int i = 0; i < nall; i++) {
        open_side(&sides[i], one ? i : rank, prov, dom, tagged);
        all[i] = g_sides[g_nsides++] = &sides[i];
    }
    uint8_t name[2][256];
    size_t namelen = sizeof name[0];
    for (int i = 0; i < nall; i++) {
        namelen = sizeof name[i];
        if (fi_getname(&sides[i].ep->fid, name[i], &namelen))
            die("fi_getname", 0);
    }
    if (one) {
        connect_sides(&sides[0], name[1]);
        connect_sides(&sides[1], name[0]);
    } else {
        xfer(fd, name[0], name[1], sizeof name[0]);
        connect_sides(&sides[0], name[1]);
    }
    struct side *me = &sides[0], *peer = one ? &sides[1] : NULL;
    if (rank == 0)
        printf("# %s %s variant, provider %s (domain %s), %s, median of %d runs; half round "
               "trip in us\n# bytes iters t_median t_min t_max empty_polls_per_rt\n", prog,
               tagged ? "tagged" : "msg", me->info->fabric_attr->prov_name,
               me->info->domain_attr->name, one ? "one process" : "two processes", runs);

    for (int z = 0; z < nsizes; z++) {
        size_t len = sizes[z];
        long n = iters > 0 ? iters : len <= 4096 ? 2000 : len <= 16384 ? 1000 : 500;
        double t[100];
        char c = 0, c2;
        if (one) {
            /* empty polls alone, for callgrind: what a poll costs with nothing to do */
            CALLGRIND_ZERO_STATS;
            for (int i = 0; i < 1000; i++) {
                poll_cq(me);
                poll_cq(peer);
            }
            CALLGRIND_DUMP_STATS_AT("idle 2000");
        }
        for (int r = -1; r < runs; r++) { /* run -1: warm-up and check */
            if (!one)
                xfer(fd, &c, &c2, 1);
            me->empty_polls = 0;
            if (peer)
                peer->empty_polls = 0;
            if (one)
                CALLGRIND_ZERO_STATS;
            double t0 = now();
            if (rank == 1)
                post_recv(me, len);
            for (long i = 0; i < (r < 0 ? 20 : n); i++) {
                if (one) {
                    post_recv(peer, len);
                    post_recv(me, len);
                    send_msg(me, len);
                    wait_for(all, 2, peer, 0);
                    send_msg(peer, len);
                    wait_for(all, 2, me, 1);
                    wait_for(all, 2, peer, 1);
                } else if (rank == 0) {
                    post_recv(me, len);
                    send_msg(me, len);
                    wait_for(all, 1, me, 1);
                } else {
                    wait_for(all, 1, me, 0);
                    if (i + 1 < (r < 0 ? 20 : n))
                        post_recv(me, len);
                    send_msg(me, len);
                    while (me->sends_left)
                        poll_cq(me);
                }
            }
            double dt = now() - t0;
            for (int i = 0; i < nall; i++) /* a provider may need polls to send at all */
                while (all[i]->inflight)
                    poll_cq(all[i]);
            if (one && r >= 0) {
                char what[64];
                snprintf(what, sizeof what, "rt %zu %ld %ld", len, n,
                         me->empty_polls + peer->empty_polls);
                CALLGRIND_DUMP_STATS_AT(what);
            }
            if (r >= 0)
                t[r] = dt * 1e6 / (2.0 * (double)n);
            if (r < 0 && (me->rbuf[0] != 'a' + (one ? 1 : 1 - rank) ||
                          me->rbuf[len - 1] != 'a' + (one ? 1 : 1 - rank)))
                die("the data received is not what was sent", 0);
        }
        if (rank == 0) {
            long polls = me->empty_polls + (peer ? peer->empty_polls : 0);
            qsort(t, (size_t)runs, sizeof t[0], cmp_double);
            printf("%zu %ld %.2f %.2f %.2f %.1f\n", len, n, t[runs / 2], t[0], t[runs - 1],
                   (double)polls / (double)n);
            fflush(stdout);
        }
    }
    if (!one) {
        char c = 0, c2;
        xfer(fd, &c, &c2, 1); /* both done before either closes */
    }
    for (int i = 0; i < nall; i++)
        close_side(&sides[i]);
    if (child > 0) {
        int st;
        waitpid(child, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    }
    return 0;
}
