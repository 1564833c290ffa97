/*
 * Affinity: where each rank of a node runs. Topology from hwloc (the real
 * machine, an hwloc XML file, or an hwloc synthetic string), a policy (map-by,
 * bind-to, cpus-per-rank), and from them a placement: one cpuset per local
 * rank. The placement is a pure function of (topology, policy, number of
 * local ranks), so the launcher's dry run, faro_info --map, the unit tests and
 * MPI_Init all compute the same thing; only MPI_Init applies it.
 *
 * Who calls what:
 *   MPI_Init            faro_affinity_init(local_rank, local_size): reads the
 *                       tunables, maps, binds this process, reports if asked.
 *   faro_info --map     faro_hwtopo_load + faro_policy_parse + faro_map +
 *                       faro_placement_format, without binding anything.
 *   unit tests          the same on the shipped models and synthetic strings.
 * Memory: every object returned here is owned by the caller and released
 * with its _free function. Nothing here blocks or talks to other processes.
 * Errors: functions return 0, or -1 with a message in err that names the
 * option, the bad value and what is possible.
 */
#ifndef FARO_AFFINITY_H
#define FARO_AFFINITY_H

#include <stddef.h>

/* A loaded hwloc topology and what Faro derives from it. Named hwtopo, not
 * topo: struct faro_topo and faro_topo_free belong to MPI process topologies
 * (src/objects/topo.h), and the names clashed at link time. */
struct faro_hwtopo;

/* spec: NULL or "" = this machine; a path to an hwloc XML file; otherwise an
 * hwloc synthetic description such as "package:2 numa:1 core:4 pu:1". */
int faro_hwtopo_load(const char *spec, struct faro_hwtopo **out, char *err, size_t errlen);
void faro_hwtopo_free(struct faro_hwtopo *t);
int faro_hwtopo_ncores(const struct faro_hwtopo *t);
int faro_hwtopo_npus(const struct faro_hwtopo *t);

enum faro_map_by {
    FARO_MAP_CORE, FARO_MAP_SOCKET, FARO_MAP_NUMA, FARO_MAP_L3CACHE, FARO_MAP_NIC,
    FARO_MAP_CPULIST
};
enum faro_bind_to {
    FARO_BIND_DEFAULT, /* core when 2+ ranks fit the node's cores, else none */
    FARO_BIND_NONE, FARO_BIND_HWTHREAD, FARO_BIND_CORE, FARO_BIND_L3CACHE,
    FARO_BIND_SOCKET, FARO_BIND_NUMA
};

struct faro_policy {
    enum faro_map_by map_by;
    int span;                 /* 1: round-robin over the domains; 0: pack (fill one first) */
    int ppr;                  /* ppr:N:RES: N ranks per socket/numa/l3cache/core (map_by
                               * names RES, a core each for core); 0: not ppr */
    char cpu_list[256];       /* FARO_MAP_CPULIST: "0,2,4-7" (OS PU indexes) */
    enum faro_bind_to bind_to;
    int cpus_per_rank;        /* cores per rank (>= 1) */
    char nic[64];             /* NIC for map-by nic and the report (e.g. "mlx4_0", "eth0");
                               * "" = first found. parse leaves it "": the caller copies
                               * FARO_NIC / --nic in */
};

/* map_by: "core|socket|numa|l3cache|nic|cpu-list:<list>" optionally followed by
 * ":span" or ":pack" (NULL or "" = "core"); bind_to:
 * "none|hwthread|core|l3cache|socket|numa" (NULL, "" or "auto" = the default);
 * cpus_per_rank >= 1. Ordering when none is given: pack for core and nic, span
 * for socket, numa and l3cache. Errors name --map-by/FARO_MAP_BY,
 * --bind-to/FARO_BIND_TO or --cpus-per-rank/FARO_CPUS_PER_RANK.
 *
 * Mapping (faro_map): each rank takes cpus_per_rank consecutive free cores of
 * one domain. Domains: core = the whole node; socket/numa/l3cache = those
 * objects in hwloc's logical order; nic = the NUMA nodes (packages when there
 * is at most one NUMA node), the one nearest the NIC first, the others by
 * hwloc distance when known, else in logical order. pack fills a domain before
 * the next; span deals rank r to domain r % ndomains, skipping full ones. When
 * no domain has room left for a rank (domains smaller than cpus_per_rank), it
 * takes the first free cores of the node. cpu-list: rank r gets entries
 * r*cpus_per_rank .. r*cpus_per_rank+cpus_per_rank-1 of the list, exactly.
 * bind-to hwthread maps onto hardware threads instead of cores (cpus_per_rank
 * then counts hardware threads). ppr:N:RES (Open MPI's processes per
 * resource; RES socket|package, numa, l3cache|l3, core): ranks N*d ..
 * N*d+N-1 go to domain d (each core a domain for core), each on its own
 * cpus_per_rank units of it when N ranks fit, else sharing the domain's cpus
 * (with a warning); more ranks than N per domain on the node is an error
 * naming both counts. Binding: core/hwthread = the PUs of the
 * rank's cores/threads; socket/numa/l3cache = the union of the objects of that
 * type that its cores touch (the whole node when the topology has none).
 * Default: core when nranks >= 2 and nranks*cpus_per_rank <= cores (threads,
 * list entries), else none without a warning (a single rank on a node, e.g. a
 * singleton, is not bound unless map-by is a cpu-list: binding it would pile
 * independent jobs and every process it forks onto the first core). An explicit binding that does not fit: bound = 0
 * and a warning "8 ranks x 1 cores per rank > 2 cores on this node: not
 * binding (oversubscribed)". Unbound ranks' pus = the whole node. Errors: a
 * cpu-list entry not on the machine, cpus_per_rank > cores, map-by nic without
 * a network device (or with FARO_NIC naming none). */
int faro_policy_parse(const char *map_by, const char *bind_to, int cpus_per_rank,
                      struct faro_policy *p, char *err, size_t errlen);

struct faro_placement {
    int nranks;
    int bound;                /* 0: no binding (policy none, or oversubscribed) */
    char warning[256];        /* non-empty: say it once (e.g. oversubscribed: not bound) */
    /* per local rank, OS PU indexes of its cpuset, -1 terminated, and its NUMA node
     * (OS index, -1 if it spans several) */
    int **pus;
    int *numa;
    char nic[64];             /* the NIC the report measures against ("" = none found) */
};

int faro_map(const struct faro_hwtopo *t, const struct faro_policy *p, int nranks,
             struct faro_placement *out, char *err, size_t errlen);
void faro_placement_free(struct faro_placement *pl);

/* One line for local rank r: "cpus 8-9 [../../../..][BB/../../..] numa 1 nic mlx4_0 near"
 * (the picture is by package, '/' between cores, one character per PU: 'B' in
 * the rank's set, '.' not). numa is "-" when the set spans several NUMA nodes.
 * The NIC part is "nic NAME near|far|partly near", followed by "distance D" when
 * hwloc knows NUMA distances, and is left out when there is no NIC. An unbound
 * rank's line ends with "(not bound)". Returns 0, or -1 when r is out of range. */
int faro_placement_format(const struct faro_hwtopo *t, const struct faro_placement *pl, int r,
                          char *buf, size_t len);

/* MPI_Init: map with the tunables (FARO_MAP_BY, FARO_BIND_TO, FARO_CPUS_PER_RANK,
 * FARO_TOPOLOGY, FARO_NIC), bind this process, print the report line on stderr
 * ("faro: host H rank R (local L): <format>") when FARO_REPORT_BINDINGS is set.
 * A model topology (FARO_TOPOLOGY not this machine) is mapped and reported but
 * nothing is bound. Under the default policy a process that its launcher already
 * bound to fewer PUs than the node has is left as it is. When cpus_per_rank > 1
 * and the rank is bound, OMP_NUM_THREADS and OMP_PLACES=cores are set unless the
 * user set them (OpenMP runtimes that read them at load time, like libgomp, need
 * the launcher to set them). Returns 0, or -1 with the message in err. */
int faro_affinity_init(int local_rank, int local_size, const char *host, int rank,
                       char *err, size_t errlen);

#endif
