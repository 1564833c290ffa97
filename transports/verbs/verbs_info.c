/*
 * verbs transport: which RDMA device, port and address carry the traffic, and
 * what else was found (the lines faro_info prints).
 *
 * Devices and ports come from libibverbs (ibv_get_device_list, ibv_query_port,
 * ibv_query_gid_ex). rdma_cm connects by IP address, so a port is usable when
 * an interface address maps to it: every IPv4 and IPv6 address of the
 * machine (getifaddrs) is bound to a scratch rdma_cm id, and the device and
 * port rdma_cm binds it to are recorded (IPoIB interfaces on InfiniBand, the
 * interface itself on RoCE and iWARP).
 *
 * The choice: the first address, in the order of libibverbs' device list and
 * then of the ports, of an active port of FARO_VERBS_DEVICE (any device when
 * unset) and FARO_VERBS_PORT (any port when 0), IPv4 before IPv6. With
 * FARO_VERBS_GID_INDEX on RoCE, the address of that GID; on InfiniBand only
 * GID 0 (rdma_cm's).
 */
#include "config.h"

#include "verbs/verbs.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/tunables.h"

#define VERBS_MAX_ADDRS 64
#define VERBS_NOTE_GIDS 8         /* GIDs listed per port */

double verbs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* An interface address and the device port rdma_cm binds it to. */
struct verbs_cand {
    char dev[64];
    int port;
    char ifname[IF_NAMESIZE];
    unsigned ifindex;
    struct sockaddr_storage sa;
    char ip[INET6_ADDRSTRLEN];
};

/* Append to the note (NULL: no note wanted). */
static void __attribute__((format(printf, 3, 4))) say(char *buf, size_t len, const char *fmt, ...)
{
    if (!buf)
        return;
    size_t used = strlen(buf);
    if (used >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static const char *sa_ip(const struct sockaddr *sa, char *buf, size_t len)
{
    const void *a = sa->sa_family == AF_INET ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                                             : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
    if (!inet_ntop(sa->sa_family, a, buf, (socklen_t)len))
        snprintf(buf, len, "?");
    return buf;
}

/* Every interface address that rdma_cm binds to a device port. */
static int verbs_addrs(struct rdma_event_channel *ch, struct verbs_cand *out, int max)
{
    struct ifaddrs *ifs, *i;
    int n = 0;
    if (getifaddrs(&ifs) < 0)
        return 0;
    for (int pass = 0; pass < 2; pass++) /* IPv4 first */
        for (i = ifs; i && n < max; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != (pass ? AF_INET6 : AF_INET))
                continue;
            if (pass && IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr))
                continue; /* would need its scope in every peer's blob */
            struct rdma_cm_id *id;
            if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
                continue;
            if (!rdma_bind_addr(id, i->ifa_addr) && id->verbs) {
                struct verbs_cand *c = &out[n++];
                memset(c, 0, sizeof *c);
                snprintf(c->dev, sizeof c->dev, "%s", ibv_get_device_name(id->verbs->device));
                c->port = id->port_num;
                snprintf(c->ifname, sizeof c->ifname, "%s", i->ifa_name);
                c->ifindex = if_nametoindex(i->ifa_name);
                memcpy(&c->sa, i->ifa_addr,
                       pass ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
                sa_ip(i->ifa_addr, c->ip, sizeof c->ip);
            }
            rdma_destroy_id(id);
        }
    freeifaddrs(ifs);
    return n;
}

static const char *gid_type_name(uint32_t t)
{
    switch (t) {
    case IBV_GID_TYPE_IB: return "IB";
    case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
    case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
    }
    return "?";
}

/* A GID as an address: IPv4-mapped GIDs (RoCE) as IPv4. */
static void gid_str(const union ibv_gid *g, char *buf, size_t len)
{
    static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
    if (!memcmp(g->raw, v4mapped, sizeof v4mapped))
        inet_ntop(AF_INET, g->raw + 12, buf, (socklen_t)len);
    else
        inet_ntop(AF_INET6, g->raw, buf, (socklen_t)len);
}

/* Is the candidate's address the one of GID entry e (RoCE)? */
static int gid_is_addr(const struct ibv_gid_entry *e, const struct verbs_cand *c)
{
    char ip[INET6_ADDRSTRLEN];
    gid_str(&e->gid, ip, sizeof ip);
    return !strcmp(ip, c->ip) && (!e->ndev_ifindex || e->ndev_ifindex == c->ifindex);
}

struct verbs_port_info {
    char dev[64];
    int port, active, iwarp, ib;
    uint32_t max_msg;
};

/* Survey one device: its ports (for the choice) and the note's lines. */
static int verbs_survey_dev(struct ibv_device *d, struct verbs_port_info *ports, int max,
                            char *note, size_t notelen)
{
    const char *name = ibv_get_device_name(d);
    struct ibv_context *ctx = ibv_open_device(d);
    struct ibv_device_attr da;
    int n = 0;
    if (!ctx || ibv_query_device(ctx, &da)) {
        say(note, notelen, "%s: cannot be opened: %s\n", name, strerror(errno));
        if (ctx)
            ibv_close_device(ctx);
        return 0;
    }
    int iwarp = d->transport_type == IBV_TRANSPORT_IWARP;
    for (int p = 1; p <= da.phys_port_cnt && n < max; p++) {
        struct ibv_port_attr pa;
        if (ibv_query_port(ctx, (uint8_t)p, &pa))
            continue;
        struct verbs_port_info *pi = &ports[n++];
        snprintf(pi->dev, sizeof pi->dev, "%s", name);
        pi->port = p;
        pi->active = pa.state == IBV_PORT_ACTIVE;
        pi->iwarp = iwarp;
        pi->ib = pa.link_layer == IBV_LINK_LAYER_INFINIBAND;
        pi->max_msg = pa.max_msg_sz;
        say(note, notelen, "%s port %d: %s, %s, max message %u bytes; GIDs:", name, p,
            pi->active ? "active" : "not active", iwarp ? "iWARP" : pi->ib ? "InfiniBand"
                                                                          : "Ethernet (RoCE)",
            pa.max_msg_sz);
        int shown = 0;
        for (int g = 0; g < pa.gid_tbl_len && shown < VERBS_NOTE_GIDS; g++) {
            struct ibv_gid_entry e;
            char s[INET6_ADDRSTRLEN];
            if (ibv_query_gid_ex(ctx, (uint32_t)p, (uint32_t)g, &e, 0))
                continue;
            gid_str(&e.gid, s, sizeof s);
            say(note, notelen, " %d %s (%s)", g, s, gid_type_name(e.gid_type));
            shown++;
        }
        say(note, notelen, "%s\n", shown ? "" : " none");
    }
    ibv_close_device(ctx);
    return n;
}

static const struct verbs_port_info *verbs_port(const struct verbs_port_info *ports, int n,
                                                const char *dev, int port)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(ports[i].dev, dev) && ports[i].port == port)
            return &ports[i];
    return NULL;
}

/* The GID index rule: the candidate must be that GID's address (RoCE), or the
 * index 0 (InfiniBand). 1 when c qualifies; 0 with the reason in why. */
static int verbs_gid_ok(const struct verbs_cand *c, const struct verbs_port_info *pi, int gid,
                        char *why, size_t whylen)
{
    if (gid < 0)
        return 1;
    if (pi->ib) {
        if (gid == 0)
            return 1;
        snprintf(why, whylen, "FARO_VERBS_GID_INDEX=%d: %s port %d is InfiniBand, where "
                 "rdma_cm uses GID 0", gid, pi->dev, pi->port);
        return 0;
    }
    struct ibv_device **list = ibv_get_device_list(NULL);
    int ok = 0;
    for (int i = 0; list && list[i] && !ok; i++) {
        if (strcmp(ibv_get_device_name(list[i]), c->dev))
            continue;
        struct ibv_context *ctx = ibv_open_device(list[i]);
        struct ibv_gid_entry e;
        char ip[INET6_ADDRSTRLEN];
        if (ctx && !ibv_query_gid_ex(ctx, (uint32_t)c->port, (uint32_t)gid, &e, 0)) {
            ok = gid_is_addr(&e, c);
            gid_str(&e.gid, ip, sizeof ip);
            if (!ok)
                snprintf(why, whylen, "FARO_VERBS_GID_INDEX=%d: GID %d of %.63s port %d "
                         "(%s) is the address of no interface found", gid, gid, c->dev,
                         c->port, ip);
        } else {
            snprintf(why, whylen, "FARO_VERBS_GID_INDEX=%d: %.63s port %d has no GID there",
                     gid, c->dev, c->port);
        }
        if (ctx)
            ibv_close_device(ctx);
    }
    if (list)
        ibv_free_device_list(list);
    return ok;
}

/* Why libibverbs found no device, from what the kernel shows in sysfs: no
 * RDMA for user space at all, kernel devices without a user-space provider,
 * or no device. */
static void verbs_no_device(int err, char *why, size_t whylen)
{
    char kdevs[128] = "";
    DIR *d = opendir("/sys/class/infiniband");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            say(kdevs, sizeof kdevs, "%s%s", kdevs[0] ? ", " : "", e->d_name);
    if (d)
        closedir(d);
    if (access("/sys/class/infiniband_verbs", F_OK) < 0) {
        int modules = access("/proc/modules", F_OK) == 0;
        snprintf(why, whylen, "no RDMA device: this kernel offers no RDMA to programs "
                 "(/sys/class/infiniband_verbs does not exist: ib_uverbs is not loaded, or "
                 "the kernel was built without InfiniBand support)%s",
                 modules ? "; load the adapter's driver (e.g. mlx5_ib) and ib_uverbs, or "
                           "rdma_rxe for soft-RoCE (rdma link add rxe0 type rxe netdev eth0)"
                         : "; it cannot load modules either (no /proc/modules): an RDMA "
                           "driver or soft-RoCE (rdma_rxe) needs another kernel");
    } else if (kdevs[0]) {
        snprintf(why, whylen, "no RDMA device usable by libibverbs: the kernel has %s, but "
                 "libibverbs has no user-space provider for %s (install rdma-core's "
                 "providers, Debian: ibverbs-providers)%s%s", kdevs,
                 strchr(kdevs, ',') ? "them" : "it", err && err != ENOSYS ? "; " : "",
                 err && err != ENOSYS ? strerror(err) : "");
    } else {
        snprintf(why, whylen, "no RDMA device: /sys/class/infiniband is empty (load the "
                 "adapter's driver, e.g. mlx5_ib, or add soft-RoCE: rdma link add rxe0 type "
                 "rxe netdev eth0)");
    }
}

int verbs_choose(faro_tp_t *tp, char *why, size_t whylen, char *note, size_t notelen)
{
    const char *want_dev = faro_tun_str(FARO_TUN_VERBS_DEVICE);
    int want_port = (int)faro_tun_int(FARO_TUN_VERBS_PORT);
    int want_gid = (int)faro_tun_int(FARO_TUN_VERBS_GID_INDEX);
    struct verbs_port_info ports[VERBS_MAX_DEV];
    struct verbs_cand cands[VERBS_MAX_ADDRS];
    int ndev = 0, nports = 0;

    if (note)
        note[0] = 0;
    errno = 0;
    struct ibv_device **list = ibv_get_device_list(&ndev);
    if (!list || ndev == 0) {
        int err = errno;
        if (list)
            ibv_free_device_list(list);
        verbs_no_device(err, why, whylen);
        return FARO_TP_UNAVAILABLE;
    }
    for (int i = 0; i < ndev && nports < VERBS_MAX_DEV; i++)
        nports += verbs_survey_dev(list[i], ports + nports, VERBS_MAX_DEV - nports, note,
                                   notelen);
    ibv_free_device_list(list);

    struct rdma_event_channel *ch = rdma_create_event_channel();
    if (!ch) {
        snprintf(why, whylen, "rdma_cm is not available (%s: is the rdma_ucm module loaded, "
                 "and /dev/infiniband/rdma_cm readable?)", strerror(errno));
        return FARO_TP_UNAVAILABLE;
    }
    int ncand = verbs_addrs(ch, cands, VERBS_MAX_ADDRS);
    rdma_destroy_event_channel(ch);

    const struct verbs_cand *pick = NULL;
    const struct verbs_port_info *pick_port = NULL;
    char gid_why[256] = "";
    for (int i = 0; i < ncand; i++) {
        const struct verbs_cand *c = &cands[i];
        const struct verbs_port_info *pi = verbs_port(ports, nports, c->dev, c->port);
        say(note, notelen, "address %s (%s) is on %s port %d\n", c->ip, c->ifname, c->dev,
            c->port);
        if (pick || !pi || !pi->active || (*want_dev && strcmp(c->dev, want_dev)) ||
            (want_port && c->port != want_port) ||
            !verbs_gid_ok(c, pi, want_gid, gid_why, sizeof gid_why))
            continue;
        pick = c;
        pick_port = pi;
    }
    if (!pick) {
        char named[160] = "";
        if (*want_dev || want_port || want_gid >= 0)
            snprintf(named, sizeof named, " matching FARO_VERBS_DEVICE=%s FARO_VERBS_PORT=%d "
                     "FARO_VERBS_GID_INDEX=%d", want_dev, want_port, want_gid);
        snprintf(why, whylen, "no active RDMA port with an IP address%s (rdma_cm connects by "
                 "IP: configure IPoIB on InfiniBand, an address on the RoCE/iWARP interface)"
                 "%s%s; found: %d device port(s), %d address(es) on them",
                 named, *gid_why ? "; " : "", gid_why, nports, ncand);
        return FARO_TP_UNAVAILABLE;
    }
    struct verbs_choice *cho = &tp->ch;
    memset(cho, 0, sizeof *cho);
    snprintf(cho->dev, sizeof cho->dev, "%s", pick->dev);
    cho->port = pick->port;
    cho->gid_index = want_gid;
    cho->iwarp = pick_port->iwarp;
    cho->sa = pick->sa;
    snprintf(cho->ifname, sizeof cho->ifname, "%s", pick->ifname);
    snprintf(cho->ip, sizeof cho->ip, "%s", pick->ip);
    tp->max_msg = pick_port->max_msg;
    say(note, notelen, "chosen: %s port %d, address %s (%s): %s", cho->dev, cho->port, cho->ip,
        cho->ifname, *want_dev || want_port || want_gid >= 0
                         ? "as FARO_VERBS_DEVICE/_PORT/_GID_INDEX ask"
                         : "the first active port with an address (FARO_VERBS_DEVICE unset)");
    return FARO_TP_OK;
}
