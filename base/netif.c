/* Choosing the network interfaces of a job (see netif.h). */
#include "config.h"

#include "base/netif.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct netif_entry {
    int exclude;
    const char *name;        /* NULL when matching by network */
    size_t namelen;
    int prefix_match;        /* name ended in '*' */
    uint32_t net, mask;      /* host order */
};

#define NETIF_ENTRIES_MAX 32

static int netif_parse_entry(const char *s, size_t len, struct netif_entry *e)
{
    char buf[64], ip[INET_ADDRSTRLEN];
    struct in_addr a;
    memset(e, 0, sizeof *e);
    if (*s == '^') {
        e->exclude = 1;
        s++;
        len--;
    }
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    const char *slash = strchr(buf, '/');
    size_t alen = slash ? (size_t)(slash - buf) : len;
    if (alen < sizeof ip) {
        memcpy(ip, buf, alen);
        ip[alen] = 0;
    }
    if (alen >= sizeof ip || inet_pton(AF_INET, ip, &a) != 1) {
        if (slash)
            return -1; /* "eth0/24" is nothing */
        e->name = s;
        e->namelen = len;
        if (s[len - 1] == '*') {
            e->prefix_match = 1;
            e->namelen--;
        }
        return 0;
    }
    long bits = 32;
    if (slash) {
        char *end;
        errno = 0;
        bits = strtol(slash + 1, &end, 10);
        if (errno || end == slash + 1 || *end || bits < 0 || bits > 32)
            return -1;
    }
    e->mask = bits ? ~0u << (32 - bits) : 0;
    e->net = ntohl(a.s_addr) & e->mask;
    return 0;
}

static int netif_matches(const struct netif_entry *e, const struct faro_netif *f)
{
    if (e->name) {
        size_t n = strlen(f->name);
        return e->prefix_match ? n >= e->namelen && !strncmp(f->name, e->name, e->namelen)
                               : n == e->namelen && !strncmp(f->name, e->name, n);
    }
    return (ntohl(f->addr.s_addr) & e->mask) == e->net;
}

/* Interfaces that do not reach other hosts, skipped by default for a job on
 * several hosts. */
static int netif_host_only(const struct faro_netif *f)
{
    return f->loopback || !strncmp(f->name, "docker", 6) || !strncmp(f->name, "virbr", 5);
}

static int netif_excluded(const struct netif_entry *ent, int nent, const struct faro_netif *f)
{
    for (int e = 0; e < nent; e++)
        if (ent[e].exclude && netif_matches(&ent[e], f))
            return 1;
    return 0;
}

const char *faro_netif_str(struct in_addr addr, int prefix, char *buf, size_t len)
{
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &addr, ip, sizeof ip);
    if (prefix >= 0)
        snprintf(buf, len, "%s/%d", ip, prefix);
    else
        snprintf(buf, len, "%s", ip);
    return buf;
}

/* Every IPv4 interface that is up, in the system's order; `list` says what
 * exists (down ones too) for messages. */
static int netif_all(struct faro_netif *all, int max, char *list, size_t listlen)
{
    struct ifaddrs *ifs;
    size_t used = 0;
    int n = 0;
    list[0] = 0;
    if (getifaddrs(&ifs) < 0)
        return -1;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        struct faro_netif f = { .loopback = (i->ifa_flags & IFF_LOOPBACK) != 0 };
        snprintf(f.name, sizeof f.name, "%s", i->ifa_name);
        f.addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
        uint32_t m = i->ifa_netmask ? ntohl(((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr)
                                    : 0xffffffffu;
        while (m & 0x80000000u) {
            f.prefix++;
            m <<= 1;
        }
        int up = (i->ifa_flags & IFF_UP) != 0;
        char a[32];
        if (used < listlen)
            used += (size_t)snprintf(list + used, listlen - used, "%s%s %s%s", used ? ", " : "",
                                     f.name, faro_netif_str(f.addr, f.prefix, a, sizeof a),
                                     up ? "" : " (down)");
        if (up && n < max)
            all[n++] = f;
    }
    freeifaddrs(ifs);
    return n;
}

int faro_netif_choose(const char *spec, int multi_host, const char *hint,
                      struct faro_netif *out, int max, char *reason, size_t reasonlen,
                      char *why, size_t whylen)
{
    struct netif_entry ent[NETIF_ENTRIES_MAX];
    struct faro_netif all[64];
    char list[1024];
    int nent = 0, nincl = 0;

    spec = spec ? spec : "";
    for (const char *p = spec; *p;) {
        size_t len = strcspn(p, ", \t");
        if (len) {
            if (nent == NETIF_ENTRIES_MAX) {
                snprintf(why, whylen, "FARO_TCP_IF=%s has more than %d entries", spec,
                         NETIF_ENTRIES_MAX);
                return -1;
            }
            if (netif_parse_entry(p, len, &ent[nent]) < 0) {
                snprintf(why, whylen, "FARO_TCP_IF=%s: '%.*s' is not an interface name, an "
                         "IPv4 address or an IPv4 network a.b.c.d/n (n in 0..32), optionally "
                         "after '^' to exclude it", spec, (int)len, p);
                return -1;
            }
            nincl += !ent[nent].exclude;
            nent++;
        }
        p += len;
        if (*p)
            p++;
    }
    int nall = netif_all(all, 64, list, sizeof list);
    if (nall < 0) {
        snprintf(why, whylen, "cannot list network interfaces: %s", strerror(errno));
        return -1;
    }

    /* Included interfaces, in the order of the entries that name them. */
    int n = 0;
    for (int pass = 0; pass < (nincl ? nincl : 1); pass++) {
        const struct netif_entry *inc = NULL;
        for (int e = 0, k = 0; e < nent && !inc; e++)
            if (!ent[e].exclude && k++ == pass)
                inc = &ent[e];
        for (int i = 0; i < nall && n < max; i++) {
            if (inc ? !netif_matches(inc, &all[i]) : (multi_host && netif_host_only(&all[i])))
                continue;
            int dup = 0;
            for (int k = 0; k < n; k++)
                dup |= !strcmp(out[k].name, all[i].name) &&
                       out[k].addr.s_addr == all[i].addr.s_addr;
            if (!dup && !netif_excluded(ent, nent, &all[i]))
                out[n++] = all[i];
        }
    }
    if (nincl) {
        if (n == 0) {
            snprintf(why, whylen, "FARO_TCP_IF=%s matches no IPv4 interface that is up; "
                     "interfaces here: %s", spec, list[0] ? list : "none");
            return -1;
        }
        snprintf(reason, reasonlen, "FARO_TCP_IF=%s", spec);
        return n;
    }

    /* Not decided by FARO_TCP_IF: the launcher's interface first (its
     * connection from this host worked), else loopback for one node. */
    const struct faro_netif *first = NULL;
    for (int i = 0; i < nall && !first && hint && *hint; i++)
        if (!strcmp(all[i].name, hint) && !netif_excluded(ent, nent, &all[i]))
            first = &all[i];
    for (int i = 0; i < nall && !first && (!multi_host || n == 0); i++)
        if (all[i].loopback && !netif_excluded(ent, nent, &all[i]))
            first = &all[i];
    if (first) {
        int k = 0;
        while (k < n && (strcmp(out[k].name, first->name) || out[k].addr.s_addr != first->addr.s_addr))
            k++;
        if (k == n)
            n = n < max ? n + 1 : n; /* room for it at the front; the last may go */
        memmove(&out[1], &out[0], (size_t)(k < n ? k : n - 1) * sizeof *out);
        out[0] = *first;
        if (hint && *hint && !strcmp(first->name, hint))
            snprintf(reason, reasonlen, "the interface this host's connection to the launcher "
                     "went out of (verified: that connection was made)");
        else if (!multi_host)
            snprintf(reason, reasonlen, "loopback: every rank of the job is on this node");
        else
            snprintf(reason, reasonlen, "loopback: no other interface is up%s",
                     nent ? " and not excluded" : "");
        return n;
    }
    if (n == 0) {
        snprintf(why, whylen, "no IPv4 interface is up%s; interfaces here: %s",
                 nent ? " and not excluded by FARO_TCP_IF" : "", list[0] ? list : "none");
        return -1;
    }
    snprintf(reason, reasonlen, "the first interface that is up%s%s%s",
             multi_host ? " (lo, docker*, virbr* skipped: the job is on several hosts)" : "",
             nent ? " and not excluded by FARO_TCP_IF=" : "", nent ? spec : "");
    return n;
}

int faro_netif_of_addr(struct in_addr addr, char *name, size_t len)
{
    struct faro_netif all[64];
    char list[16];
    int n = netif_all(all, 64, list, sizeof list);
    for (int i = 0; i < n; i++)
        if (all[i].addr.s_addr == addr.s_addr) {
            snprintf(name, len, "%s", all[i].name);
            return 0;
        }
    return -1;
}
