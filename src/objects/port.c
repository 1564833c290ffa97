/*
 * Ports: MPI_Open_port, MPI_Close_port, port names, and the links that
 * connect to them (port.h). The handshake over a link is dynconn.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "objects/port.h"
#include "p2p/match.h"
#include "p2p/request.h"
#include "base/hex.h"
#include "base/log.h"

static struct faro_port *ports;
static uint32_t next_link = 1;

/* ---- names ---- */

struct port_addr {
    uint64_t gpid;
    uint8_t key[FARO_DYN_KEYLEN];
    int ntp;
    char names[FARO_DYN_MAX_TPS][FARO_DYN_TPNAME];
    uint8_t addr[FARO_DYN_MAX_TPS][FARO_TP_MAX_ADDR];
    size_t addrlen[FARO_DYN_MAX_TPS];
};

/* The next ':'-separated field of a name: [*s, end); moves *s past it. */
static size_t field(const char **s, const char **start)
{
    *start = *s;
    const char *e = strchr(*s, ':');
    size_t n = e ? (size_t)(e - *s) : strlen(*s);
    *s += n + (e != NULL);
    return n;
}

static int parse(const char *name, struct port_addr *pa, char *err, size_t errlen)
{
    size_t len = strnlen(name, MPI_MAX_PORT_NAME);
    if (len == MPI_MAX_PORT_NAME)
        return snprintf(err, errlen, "the port name is longer than MPI_MAX_PORT_NAME - 1 "
                        "(%d) characters: is it a port name, and is it terminated?",
                        MPI_MAX_PORT_NAME - 1), -1;
    if (strncmp(name, FARO_PORT_PREFIX, strlen(FARO_PORT_PREFIX)))
        return snprintf(err, errlen, "'%.40s%s' is not a port name of this Faro (they start "
                        "with '%s'; MPI_Open_port gives them)", name, len > 40 ? "..." : "",
                        FARO_PORT_PREFIX), -1;
    const char *s = name + strlen(FARO_PORT_PREFIX), *f;
    uint8_t g[8];
    memset(pa, 0, sizeof *pa);
    if (field(&s, &f) != 16 || faro_hex_decode(f, 16, g, sizeof g) < 0)
        return snprintf(err, errlen, "port name '%.60s': its process id (16 hex digits after "
                        "'%s') is malformed", name, FARO_PORT_PREFIX), -1;
    for (int i = 0; i < 8; i++)
        pa->gpid = pa->gpid << 8 | g[i];
    if (field(&s, &f) != 2 * FARO_DYN_KEYLEN ||
        faro_hex_decode(f, 2 * FARO_DYN_KEYLEN, pa->key, sizeof pa->key) < 0)
        return snprintf(err, errlen, "port name '%.60s': its key (%d hex digits) is malformed",
                        name, 2 * FARO_DYN_KEYLEN), -1;
    while (*s && pa->ntp < FARO_DYN_MAX_TPS) {
        size_t n = field(&s, &f);
        if (n == 0 || n >= FARO_DYN_TPNAME)
            break;
        memcpy(pa->names[pa->ntp], f, n);
        pa->names[pa->ntp][n] = 0;
        n = field(&s, &f);
        if (n == 0 || faro_hex_decode(f, n, pa->addr[pa->ntp], FARO_TP_MAX_ADDR) < 0)
            return snprintf(err, errlen, "port name '%.60s': the address for transport %s is "
                            "malformed", name, pa->names[pa->ntp]), -1;
        pa->addrlen[pa->ntp++] = n / 2;
    }
    if (*s || pa->ntp == 0)
        return snprintf(err, errlen, "port name '%.60s': %s", name,
                        pa->ntp ? "it has more transports than this Faro reads, or junk at "
                                  "the end"
                                : "it names no transport address"), -1;
    return 0;
}

int faro_port_name_check(const char *name, char *err, size_t errlen)
{
    struct port_addr pa;
    return parse(name, &pa, err, errlen);
}

struct faro_port *faro_port_find(const char *name)
{
    for (struct faro_port *p = ports; p; p = p->next)
        if (!strcmp(p->name, name))
            return p;
    return NULL;
}

/* ---- links ---- */

static struct faro_link *link_new(void)
{
    struct faro_link *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->peer = faro_peer_new(FARO_PEER_LINK);
    if (l->peer < 0) {
        free(l);
        return NULL;
    }
    faro.pinfo[l->peer].link = l;
    l->mine = next_link++;
    struct faro_comm *c = &l->comm;
    c->magic = FARO_COMM_MAGIC;
    c->context_id = FARO_CTX_LINK;
    c->size = 1;
    l->world[0] = faro.rank;
    c->world = l->world;
    c->inter = 1;
    c->remote_size = 1;
    l->remote[0] = l->peer;
    c->remote_world = l->remote;
    c->errhandler = MPI_ERRORS_RETURN;
    c->predefined = 1; /* the link owns it: no reference counting */
    c->refcount = 1;
    snprintf(c->name, sizeof c->name, "link %u", l->mine);
    return l;
}

void *faro_port_accepted(struct faro_transport *t, faro_tp_ep_t *ep, uint64_t id,
                         unsigned port)
{
    int ti = (int)(t - faro.tps);
    struct faro_port *p = ports;
    while (p && p->tp_port[ti] != port)
        p = p->next;
    struct faro_link *l = p ? link_new() : NULL;
    if (!l)
        return NULL;
    faro_bind_peer(&faro.peers[l->peer], t, ep);
    l->theirs = (uint32_t)id;
    l->port = p;
    struct faro_link **pp = &p->queue;
    while (*pp)
        pp = &(*pp)->next;
    *pp = l;
    faro_info(2, "port %.40s...: a connection arrived (link %u)", p->name, l->mine);
    return &faro.peers[l->peer];
}

struct faro_link *faro_port_take(struct faro_port *port)
{
    struct faro_link *l = port->queue;
    if (l) {
        port->queue = l->next;
        l->next = NULL;
        l->port = NULL;
    }
    return l;
}

struct faro_link *faro_link_connect(const char *name, char *err, size_t errlen)
{
    struct port_addr pa;
    if (parse(name, &pa, err, errlen))
        return NULL;
    int k = 0;
    struct faro_transport *t = faro_dyn_pick(pa.names, pa.ntp, &k);
    if (!t) {
        char have[128] = "";
        for (int i = 0; i < pa.ntp; i++) {
            size_t u = strlen(have);
            snprintf(have + u, sizeof have - u, "%s%s", i ? ", " : "", pa.names[i]);
        }
        snprintf(err, errlen, "no transport in use here reaches the port (it listens on %s; "
                 "this process may use those in FARO_TRANSPORTS that have ports)", have);
        return NULL;
    }
    struct faro_link *l = link_new();
    if (!l) {
        snprintf(err, errlen, "out of memory, or no room for another peer");
        return NULL;
    }
    faro_tp_conn_t c = {.addr = pa.addr[k], .addrlen = pa.addrlen[k], .id = l->mine,
                        .key = pa.key, .keylen = sizeof pa.key, .ctx = &faro.peers[l->peer]};
    faro_tp_ep_t *ep = NULL;
    int rc = t->ops->connect(t->tp, &c, &ep);
    if ((rc != FARO_TP_OK && rc != FARO_TP_DONE) || !ep) {
        snprintf(err, errlen, "%s cannot connect to the port's address", t->ops->name);
        faro_peer_free_slot(l->peer);
        free(l);
        return NULL;
    }
    faro_bind_peer(&faro.peers[l->peer], t, ep);
    return l;
}

void faro_link_lost(struct faro_link *l, int orderly, const char *why)
{
    if (!l) /* a link abandoned while its connection would not close */
        return;
    l->lost = 1;
    snprintf(l->why, sizeof l->why, "%s", orderly ? "the other side closed the connection"
                                                  : why ? why : "the connection broke");
    struct faro_port *p = l->port;
    if (!p) { /* a handshake is under way: what it waits for on the link fails */
        faro_req_fail_peer(l->peer, 1);
        return;
    }
    for (struct faro_link **pp = &p->queue; *pp; pp = &(*pp)->next)
        if (*pp == l) {
            *pp = l->next;
            break;
        }
    l->port = NULL;
    faro_link_close(l);
}

#define LINK_CLOSE_S 2.0 /* a link's queued sends get this long to leave at its close */

void faro_link_close(struct faro_link *l)
{
    struct faro_peer *p = &faro.peers[l->peer];
    if (p->t) {
        double until = PMPI_Wtime() + LINK_CLOSE_S;
        int rc;
        while ((rc = p->t->ops->disconnect(p->t->tp, p->ep)) == FARO_TP_AGAIN &&
               PMPI_Wtime() < until)
            faro_progress();
        if (rc == FARO_TP_AGAIN) { /* the transport keeps it: so does its entry */
            faro.pinfo[l->peer].link = NULL;
            free(l);
            return;
        }
    }
    faro_mq_drop_peer(FARO_CTX_LINK, l->peer);
    faro_peer_free_slot(l->peer);
    free(l);
}

/* ---- MPI_Open_port, MPI_Close_port ---- */

int faro_port_open(const char *fn, char *port_name, char *err, size_t errlen)
{
    uint8_t self[FARO_DYN_DESC_MAX];
    if (faro_dyn_self_desc(self, sizeof self, err, errlen) < 0) /* listens: ready to go */
        return MPI_ERR_UNSUPPORTED_OPERATION;
    struct faro_port *p = calloc(1, sizeof *p);
    if (p)
        p->tp_port = calloc((size_t)faro.ntps, sizeof *p->tp_port);
    if (!p || !p->tp_port) {
        if (p)
            free(p->tp_port);
        free(p);
        snprintf(err, errlen, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    err[0] = 0;
    if (getrandom(p->key, sizeof p->key, 0) != (ssize_t)sizeof p->key ||
        faro_dyn_listen(p->key, sizeof p->key, p->tp_port, err, errlen) < 0) {
        free(p->tp_port);
        free(p);
        if (!err[0])
            snprintf(err, errlen, "getrandom failed for the port's key");
        return MPI_ERR_OTHER;
    }
    /* the name: gpid, key, and each listening transport's address */
    char *s = p->name, k[2 * FARO_DYN_KEYLEN + 1];
    size_t cap = sizeof p->name, at;
    faro_hex_encode(p->key, sizeof p->key, k);
    at = (size_t)snprintf(s, cap, "%s%016llx:%s", FARO_PORT_PREFIX,
                          (unsigned long long)faro_job_gpid(faro.rank), k);
    int ntp = 0;
    for (int i = 0; i < faro.ntps && ntp < FARO_DYN_MAX_TPS; i++) {
        struct faro_transport *t = &faro.tps[i];
        uint8_t blob[FARO_TP_MAX_ADDR];
        char a[2 * FARO_TP_MAX_ADDR + 1];
        size_t len = sizeof blob;
        if (!p->tp_port[i] || t->ops->addr_get(t->tp, blob, &len) != FARO_TP_OK)
            continue;
        faro_hex_encode(blob, len, a);
        size_t need = 2 + strlen(t->ops->name) + strlen(a);
        if (at + need >= cap) { /* the others are reached through the first ones */
            faro_warn("%s: transport %s is left out of the port name (it would not fit in "
                      "MPI_MAX_PORT_NAME, %d)", fn, t->ops->name, MPI_MAX_PORT_NAME);
            continue;
        }
        at += (size_t)snprintf(s + at, cap - at, ":%s:%s", t->ops->name, a);
        ntp++;
    }
    p->next = ports;
    ports = p;
    snprintf(port_name, MPI_MAX_PORT_NAME, "%s", p->name);
    faro_info(2, "%s: %s", fn, p->name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Open_port = PMPI_Open_port
int PMPI_Open_port(MPI_Info info, char *port_name)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Open_port";
    int nkeys;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    if (!port_name)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: port_name is NULL", fn);
    char err[512] = "";
    int cls = faro_port_open(fn, port_name, err, sizeof err);
    return cls ? faro_err(MPI_COMM_NULL, cls, "%s: %s", fn, err) : MPI_SUCCESS;
}

static void port_free(struct faro_port *p)
{
    faro_dyn_unlisten(p->tp_port);
    while (p->queue) { /* connected but never accepted: they see the port close */
        struct faro_link *l = faro_port_take(p);
        faro_link_close(l);
    }
    free(p->tp_port);
    free(p);
}

#pragma weak MPI_Close_port = PMPI_Close_port
int PMPI_Close_port(const char *port_name)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Close_port";
    char err[512];
    if (!port_name)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: port_name is NULL", fn);
    if (faro_port_name_check(port_name, err, sizeof err))
        return faro_err(MPI_COMM_NULL, MPI_ERR_PORT, "%s: %s", fn, err);
    if (faro_port_close(port_name) == 0)
        return MPI_SUCCESS;
    return faro_err(MPI_COMM_NULL, MPI_ERR_PORT, "%s: this process has no open port of that "
                    "name (closed already, or opened by another process)", fn);
}

int faro_port_close(const char *port_name)
{
    for (struct faro_port **pp = &ports; *pp; pp = &(*pp)->next)
        if (!strcmp((*pp)->name, port_name)) {
            struct faro_port *p = *pp;
            *pp = p->next;
            port_free(p);
            return 0;
        }
    return -1;
}

void faro_ports_finalize(void)
{
    while (ports) {
        struct faro_port *p = ports;
        ports = p->next;
        port_free(p);
    }
}
