/*
 * MPI_Init's part of affinity: read the FARO_* policy, map the node's ranks,
 * bind this process to its cpuset and report it when asked. Without hwloc
 * this file alone is built, and says that binding is unavailable.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity.h"
#include "base/log.h"
#include "base/tunables.h"

#ifdef FARO_HAVE_HWLOC
#include "affinity_int.h"

/* A process its launcher already bound (taskset, srun --cpu-bind) has a
 * narrower affinity than the node: the default policy leaves it alone. The
 * topology was cut down to those cpus (topology.c), so the whole node's set
 * says whether it was. */
static int bound_by_launcher(const struct faro_hwtopo *t)
{
    return t->restricted;
}

static void set_omp_env(int cpus_per_rank)
{
    char n[16];
    snprintf(n, sizeof n, "%d", cpus_per_rank);
    setenv("OMP_NUM_THREADS", n, 0); /* 0: what the user set wins */
    setenv("OMP_PLACES", "cores", 0);
}

int faro_affinity_init(int local_rank, int local_size, const char *host, int rank, char *err,
                       size_t errlen)
{
    const char *spec = faro_tun_str(FARO_TUN_TOPOLOGY);
    const char *bind_to = faro_tun_str(FARO_TUN_BIND_TO);
    int report = (int)faro_tun_int(FARO_TUN_REPORT_BINDINGS);
    struct faro_policy p;
    if (faro_policy_parse(faro_tun_str(FARO_TUN_MAP_BY), bind_to,
                          (int)faro_tun_int(FARO_TUN_CPUS_PER_RANK), &p, err, errlen))
        return -1;
    snprintf(p.nic, sizeof p.nic, "%s", faro_tun_str(FARO_TUN_NIC));
    if (!report && !spec[0] && (p.bind_to == FARO_BIND_NONE ||
                    (p.bind_to == FARO_BIND_DEFAULT && local_size == 1 &&
                     p.map_by != FARO_MAP_CPULIST && !p.ppr)))
        return 0; /* nothing will be bound: skip the topology discovery */

    struct faro_hwtopo *t;
    if (faro_hwtopo_load_io(spec, report || p.map_by == FARO_MAP_NIC, &t, err, errlen))
        return -1;
    struct faro_placement pl;
    if (faro_map(t, &p, local_size, &pl, err, errlen)) {
        if (p.ppr) /* a host got more ranks than its resources hold: which one */
            snprintf(err + strlen(err), errlen - strlen(err), " (host %s)", host);
        faro_hwtopo_free(t);
        return -1;
    }
    const char *note = "";
    if (pl.warning[0] && local_rank == 0)
        faro_warn("%s", pl.warning);
    if (pl.bound && !t->this_machine) {
        note = " (model topology FARO_TOPOLOGY: not bound)";
    } else if (pl.bound && p.bind_to == FARO_BIND_DEFAULT && bound_by_launcher(t)) {
        note = " (left as the launcher bound it)";
        /* Report where it runs: every cpu it was given. */
        if (faro_placement_set(t, &pl, local_rank, hwloc_topology_get_topology_cpuset(t->topo)))
            note = " (left as the launcher bound it; out of memory for the report)";
    } else if (pl.bound) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        for (const int *pu = pl.pus[local_rank]; *pu >= 0; pu++)
            hwloc_bitmap_set(set, (unsigned)*pu);
        if (hwloc_set_cpubind(t->topo, set, HWLOC_CPUBIND_PROCESS) != 0) {
            char list[256];
            faro_cpuset_list(set, list, sizeof list);
            faro_warn("could not bind local rank %d to cpus %s (%s); running unbound "
                      "(FARO_BIND_TO=none silences this)", local_rank, list, strerror(errno));
            note = " (binding failed: not bound)";
        } else if (p.cpus_per_rank > 1) {
            set_omp_env(p.cpus_per_rank);
        }
        hwloc_bitmap_free(set);
    }
    if (report) {
        char line[2048];
        faro_placement_format(t, &pl, local_rank, line, sizeof line);
        fprintf(stderr, "faro: host %s rank %d (local %d): %s%s\n", host, rank, local_rank, line,
                note);
        fflush(stderr);
    }
    faro_placement_free(&pl);
    faro_hwtopo_free(t);
    return 0;
}

#else /* no hwloc: no topology, no binding */

static const char no_hwloc[] = "Faro was built without hwloc (configure --without-hwloc or no "
                               "libhwloc-dev): no topology, mapping or binding";

int faro_hwtopo_load(const char *spec, struct faro_hwtopo **out, char *err, size_t errlen)
{
    (void)spec;
    *out = NULL;
    snprintf(err, errlen, "%s", no_hwloc);
    return -1;
}

void faro_hwtopo_free(struct faro_hwtopo *t)
{
    (void)t;
}

int faro_affinity_init(int local_rank, int local_size, const char *host, int rank, char *err,
                       size_t errlen)
{
    (void)local_size, (void)err, (void)errlen;
    const char *bind_to = faro_tun_str(FARO_TUN_BIND_TO);
    int asked = faro_tun_isset(FARO_TUN_MAP_BY) || faro_tun_isset(FARO_TUN_TOPOLOGY) ||
                faro_tun_isset(FARO_TUN_NIC) || faro_tun_int(FARO_TUN_CPUS_PER_RANK) > 1 ||
                (bind_to[0] && strcmp(bind_to, "none") != 0 && strcmp(bind_to, "auto") != 0);
    if (asked && local_rank == 0)
        faro_warn("%s; the FARO_MAP_BY/FARO_BIND_TO/FARO_CPUS_PER_RANK/FARO_TOPOLOGY/FARO_NIC "
                  "policy is ignored and ranks run unbound", no_hwloc);
    if (faro_tun_int(FARO_TUN_REPORT_BINDINGS))
        fprintf(stderr, "faro: host %s rank %d (local %d): not bound (built without hwloc)\n",
                host, rank, local_rank);
    return 0;
}
#endif
