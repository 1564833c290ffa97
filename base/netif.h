/*
 * Which network interface carries a job's TCP traffic: the data path (the tcp
 * transport) and mpiexec's control connections choose with the same rules, so
 * that FARO_TCP_IF means one thing everywhere.
 *
 * FARO_TCP_IF is a list separated by commas or blanks. Each entry is an
 * interface name ("eth1"; "ib*" matches by prefix), an IPv4 address, or an
 * IPv4 network in CIDR form ("10.1.0.0/16"); an entry starting with '^'
 * excludes what it matches. The candidates are the IPv4 interfaces that are
 * up and match an included entry, in the order of the entries (the first
 * entry is the most preferred), minus the excluded ones; with only
 * exclusions, every interface minus those.
 *
 * Without FARO_TCP_IF (or with only exclusions), a job on one node uses
 * loopback; a job on several hosts skips loopback, docker* and virbr* (they
 * do not reach other hosts) and takes the interfaces that are up in the
 * system's order. The launcher narrows that default by experience: a proxy
 * tells its ranks (FARO_INTERNAL_CONTROL_IF) the interface its own
 * connection to its parent went out of, which is verified: that connection
 * was made. A job whose every host is this machine (mpiexec's fork launcher)
 * gets loopback that way.
 *
 * IPv4 only, as the tcp transport.
 */
#ifndef FARO_NETIF_H
#define FARO_NETIF_H

#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>

#define FARO_NETIF_MAX 16

struct faro_netif {
    char name[IF_NAMESIZE];
    struct in_addr addr;     /* network order */
    int prefix;              /* netmask length */
    int loopback;
};

/* The candidates for a job on one node (multi_host 0) or on several (1), in
 * order of preference; `hint` (may be NULL or empty) is the interface the
 * launcher's connection used, moved to the front when FARO_TCP_IF does not
 * decide. On success returns the count (>= 1) and says in `reason` why the
 * first was chosen; on failure -1 with `why` listing the interfaces here. */
int faro_netif_choose(const char *spec, int multi_host, const char *hint,
                      struct faro_netif *out, int max, char *reason, size_t reasonlen,
                      char *why, size_t whylen);

/* The interface that holds local address `addr` (network order): its name in
 * name, 0; -1 when no interface has it. */
int faro_netif_of_addr(struct in_addr addr, char *name, size_t len);

/* A host-order-free "a.b.c.d" (or "a.b.c.d/n" when prefix >= 0). */
const char *faro_netif_str(struct in_addr addr, int prefix, char *buf, size_t len);

#endif
