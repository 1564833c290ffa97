/*
 * ofi transport: ports, endpoints outside the job (transport.h, "Identities,
 * keys and endpoints outside the job"; faro-ofi(7) has the design for users).
 *
 * A reliable-datagram endpoint has no connections, and the one endpoint of a
 * process carries its job's messages and its ports' alike. A port is a key
 * that listen() opened; a connection to it is a pair of endpoint records, one
 * at each side, that address each other by slot (an index into tp->slots)
 * and a random 64-bit tag the connector draws:
 *
 *   connector                                acceptor
 *   connect(addr, key): a slot and a tag;
 *   the hello {its slot, id, key, its    ->  a tag that is not the job's: a
 *   address} under that tag; its sends       port hello. A key that opens no
 *   wait behind the gate                     port: REFUSED. Otherwise a slot,
 *                                            accepted(id, port), and
 *                                        <-  ACCEPT {its slot} or REFUSED
 *   ACCEPT: the gate opens, sends go
 *   REFUSED: ep_lost (queued sends fail)
 *
 * From then on every message of the connection carries the tag and the
 * receiver's slot (struct ofi_wire's tag and src): the receiver finds the
 * endpoint by index and checks the tag. Job messages keep their own path;
 * only a message whose tag is not the job's comes here, so the job's send
 * and receive paths did not change (the sender reads the wire's source and
 * tag from the endpoint instead of the instance).
 *
 * What it proves: the hello's sender knew the port's key; a later message's
 * sender knew the connection's tag, which only the two processes were told
 * (and whoever reads the fabric's traffic: nothing is encrypted, as with the
 * job key). Nothing the connector sends but the hello reaches the acceptor
 * before the verdict, so a refused connector has nothing delivered, and its
 * queued sends fail.
 *
 * A refusal must be sent to an address that only the hello names, so it
 * may cost an address-vector entry (and for tcp;ofi_rxm a TCP connection),
 * which is never removed (ofi_av.c): refusals go to at most OFI_MAX_REFUSED
 * addresses that were not known before; a wrong key from yet another address
 * is dropped unanswered (its connector waits for its own time-out), so a
 * stranger cannot make the process connect to addresses without end.
 * Endpoint records of port connections stay until finalize, as tcp's do.
 */
#include "config.h"

#include "ofi/ofi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/log.h"

int ofi_listen(faro_tp_t *tp, const uint8_t *key, size_t keylen, unsigned *port)
{
    return faro_tp_ports_open(&tp->ports, "ofi", key, keylen, port);
}

int ofi_unlisten(faro_tp_t *tp, unsigned port)
{
    return faro_tp_ports_close(&tp->ports, port);
}

/* Room in tp->slots for one more. 0, or -1 (out of memory). */
static int ofi_slot_room(faro_tp_t *tp)
{
    if (tp->nslots < tp->capslots)
        return 0;
    int cap = tp->capslots ? 2 * tp->capslots : 16;
    struct faro_tp_ep **s = realloc(tp->slots, (size_t)cap * sizeof *s);
    if (!s) {
        faro_error("ofi: out of memory for %d port connections", cap);
        return -1;
    }
    tp->slots = s;
    tp->capslots = cap;
    return 0;
}

/* A new endpoint of a port connection, in a slot (room made by the caller). */
static struct faro_tp_ep *ofi_port_ep(faro_tp_t *tp, const struct ofi_addr *a, void *ctx,
                                      uint64_t id)
{
    struct faro_tp_ep *p = ofi_ep_alloc(tp, a, ctx);
    if (!p)
        return NULL;
    p->rank = -1;
    p->id = id;
    p->slot = tp->nslots;
    tp->slots[tp->nslots++] = p;
    return p;
}

int ofi_port_connect(faro_tp_t *tp, const faro_tp_conn_t *conn, faro_tp_ep_t **out)
{
    struct ofi_addr a;
    char why[200];

    if (conn->keylen == 0 || conn->keylen > FARO_TP_MAX_KEY) {
        faro_error("ofi: connect: a port key of %zu bytes (allowed: 1..%d)", conn->keylen,
                   FARO_TP_MAX_KEY);
        return FARO_TP_ERR;
    }
    const char *bad = ofi_blob(tp, conn->addr, conn->addrlen, &a, 0, why, sizeof why);
    if (bad) {
        faro_error("ofi: connect to a port: %s", bad);
        return FARO_TP_ERR;
    }
    uint64_t tag;
    do {
        if (getrandom(&tag, sizeof tag, 0) != (ssize_t)sizeof tag) {
            faro_error("ofi: connect to a port: getrandom failed for the connection's tag");
            return FARO_TP_ERR;
        }
    } while (tag == tp->tag || tag == 0);
    struct faro_tp_ep *p = ofi_slot_room(tp) < 0 ? NULL : ofi_port_ep(tp, &a, conn->ctx, conn->id);
    if (!p)
        return FARO_TP_ERR;
    p->wsrc = -1; /* its slot comes with the verdict */
    p->wtag = tag;
    p->heard = 1; /* what comes under the tag is from the process we told it */
    snprintf(p->name, sizeof p->name, "a port of process %d", (int)a.pid);

    uint8_t hello[sizeof(struct ofi_port_hello) + FARO_TP_MAX_KEY + sizeof(struct ofi_addr)];
    struct ofi_port_hello h = { .magic = OFI_PORT_MAGIC, .keylen = (uint16_t)conn->keylen,
                                .addrlen = (uint16_t)tp->selflen, .slot = p->slot,
                                .id = conn->id };
    memcpy(hello, &h, sizeof h);
    memcpy(hello + sizeof h, conn->key, h.keylen);
    memcpy(hello + sizeof h + h.keylen, &tp->self, tp->selflen);
    if (ofi_send_ctl(tp, p, OFI_KIND_HELLO, hello, sizeof h + h.keylen + h.addrlen) < 0 ||
        ofi_gate(tp, p) < 0)
        ofi_peer_fail(tp, p, "cannot send the hello to %s", p->name);
    *out = p;
    return FARO_TP_OK;
}

/* Answer a hello whose key opens no port: REFUSED, from an endpoint that
 * only carries refusals to that address. */
static void ofi_refuse(faro_tp_t *tp, const struct ofi_addr *a, int32_t slot, uint64_t tag)
{
    struct ofi_av_addr *e = ofi_av_get(tp, a->name, a->namelen, 0);
    if (!e && tp->nrefused < OFI_MAX_REFUSED && (e = ofi_av_get(tp, a->name, a->namelen, 1)))
        tp->nrefused++;
    struct faro_tp_ep *p = e ? e->refusal : NULL;
    if (e && !p && (p = ofi_ep_alloc(tp, a, NULL))) {
        p->rank = -1;
        p->refusal = 1;
        snprintf(p->name, sizeof p->name, "process %d (refused)", (int)a->pid);
        e->refusal = p;
    }
    ofi_dropped(tp, p ? "a port hello with a key that opens no port here (refused)"
                      : "a port hello with a key that opens no port here (unanswered: too "
                        "many refused addresses)", -1);
    if (!p || p->qhead || p->fail != OFI_FAIL_NONE)
        return; /* unanswered: its connector waits for its own time-out */
    struct ofi_verdict v = { .magic = OFI_PORT_MAGIC, .verdict = OFI_REFUSED, .slot = -1 };
    p->wsrc = slot;
    p->wtag = tag;
    (void)ofi_send_ctl(tp, p, OFI_KIND_VERDICT, &v, sizeof v);
}

static void ofi_port_hello_in(faro_tp_t *tp, const struct ofi_wire *w, const uint8_t *data,
                              size_t len)
{
    struct ofi_port_hello h;
    struct ofi_addr a;
    char why[200];

    if (len < sizeof h) {
        ofi_dropped(tp, "a hello without this job's key", w->src);
        return;
    }
    memcpy(&h, data, sizeof h);
    if (h.magic != OFI_PORT_MAGIC || h.keylen > FARO_TP_MAX_KEY || h.slot < 0 ||
        sizeof h + h.keylen + (size_t)h.addrlen > len) {
        ofi_dropped(tp, "a hello without this job's key", w->src); /* a stranger's job hello */
        return;
    }
    const uint8_t *key = data + sizeof h;
    if (ofi_blob(tp, key + h.keylen, h.addrlen, &a, 0, why, sizeof why)) {
        ofi_dropped(tp, "a port hello with an address this process cannot use", -1);
        return;
    }
    if (tp->finalizing) /* no new client now; it sees this process gone */
        return;
    unsigned port = faro_tp_ports_match(&tp->ports, key, h.keylen);
    if (!port) {
        ofi_refuse(tp, &a, h.slot, w->tag);
        return;
    }
    struct faro_tp_ep *p = ofi_slot_room(tp) < 0 ? NULL : ofi_port_ep(tp, &a, NULL, h.id);
    if (!p)
        return;
    p->port = port;
    p->wsrc = h.slot;
    p->wtag = w->tag;
    p->heard = 1;
    snprintf(p->name, sizeof p->name, "client %llu of port %u", (unsigned long long)h.id, port);
    if (tp->env->accepted)
        p->ctx = tp->env->accepted(tp->env->core, p, h.id, port);
    struct ofi_verdict v = { .magic = OFI_PORT_MAGIC, .verdict = p->ctx ? OFI_ACCEPT : OFI_REFUSED,
                             .slot = p->slot };
    if (!p->ctx) { /* refused by the owner: nothing of it is delivered, no goodbye */
        p->heard = 0;
        p->refusal = 1;
    }
    if (ofi_send_ctl(tp, p, OFI_KIND_VERDICT, &v, sizeof v) < 0)
        ofi_peer_fail(tp, p, "cannot answer %s", p->name);
    faro_info(2, "ofi: %s (process %d) %s", p->name, (int)a.pid,
              p->ctx ? "connected" : "refused by the owner");
}

static void ofi_verdict_in(faro_tp_t *tp, struct faro_tp_ep *p, const uint8_t *data, size_t len)
{
    struct ofi_verdict v;
    if (!p->gated || len < sizeof v) {
        ofi_dropped(tp, "a verdict nobody waited for", -1);
        return;
    }
    memcpy(&v, data, sizeof v);
    if (v.magic == OFI_PORT_MAGIC && v.verdict == OFI_ACCEPT && v.slot >= 0) {
        p->wsrc = v.slot;
        ofi_ungate(tp, p);
        if (p->closed) /* disconnected while it waited: the goodbye can go now */
            (void)ofi_send_ctl(tp, p, OFI_KIND_BYE, NULL, 0);
        faro_info(2, "ofi: connected to %s", p->name);
        return;
    }
    ofi_peer_fail(tp, p, "%s refused this process (its key opens no port there, or the port's "
                  "owner refused the connection)", p->name);
    p->gated = 0;
}

void ofi_port_deliver(faro_tp_t *tp, const struct ofi_wire *w, const uint8_t *buf, size_t len)
{
    if (w->hdrlen > FARO_TP_MAX_HDR || sizeof *w + w->hdrlen > len) {
        ofi_dropped(tp, "a malformed message", w->src);
        return;
    }
    const uint8_t *data = buf + sizeof *w + w->hdrlen;
    size_t dlen = len - sizeof *w - w->hdrlen;
    if (w->kind == OFI_KIND_HELLO) {
        ofi_port_hello_in(tp, w, data, dlen);
        return;
    }
    struct faro_tp_ep *p = w->src >= 0 && w->src < tp->nslots ? tp->slots[w->src] : NULL;
    if (!p || p->wtag != w->tag) {
        ofi_dropped(tp, "a message without this job's key", w->src);
        return;
    }
    if (w->kind == OFI_KIND_VERDICT) {
        ofi_verdict_in(tp, p, data, dlen);
        return;
    }
    if (!p->heard) { /* after our disconnect it may still have been on its way */
        if (!p->closed)
            ofi_dropped(tp, "a message of a refused port connection", -1);
        return;
    }
    if (w->kind == OFI_KIND_BYE) {
        ofi_bye_in(tp, p);
        return;
    }
    if (w->kind < FARO_TP_MAX_KINDS && tp->handlers[w->kind])
        tp->handlers[w->kind](tp->env->core, p->ctx, buf + sizeof *w, w->hdrlen, data, dlen);
}

/* Disconnect while the port's verdict has not come: only the gate (nothing
 * of the owner's) may be queued; the goodbye goes when an ACCEPT comes. */
int ofi_port_disconnect(faro_tp_t *tp, struct faro_tp_ep *p)
{
    struct ofi_sq *q = p->qhead;
    if (q && (q->kind != OFI_KIND_GATE || q->next))
        return FARO_TP_AGAIN;
    if (q) {
        free(q);
        p->qhead = NULL;
        p->qtail = &p->qhead;
    }
    p->closed = 1;
    p->heard = 0;
    ofi_unwatch(p);
    return FARO_TP_OK;
}

void ofi_ports_fini(faro_tp_t *tp)
{
    free(tp->slots);
    tp->slots = NULL;
    tp->nslots = tp->capslots = 0;
}
