/*
 * Inside the affinity part: the loaded topology and the helpers that the
 * mapper, the report and the binder share. Not for use outside affinity/.
 */
#ifndef FARO_AFFINITY_INT_H
#define FARO_AFFINITY_INT_H

#include <hwloc.h>

#include "affinity.h"

struct faro_hwtopo {
    hwloc_topology_t topo;
    int this_machine;         /* 1: the running system, so binding means something */
    int ncores, npus;
    hwloc_obj_type_t core_type; /* HWLOC_OBJ_CORE, or PU when the topology has no cores */
    /* This machine, seen from a process its launcher confined (taskset, a
     * cgroup, srun): the topology is cut down to the cpus the process may
     * use, so every mapping stays inside them; machine is the whole node's. */
    int restricted;
    hwloc_bitmap_t machine;
};

/* Replace rank r's cpus in a placement (the report of a rank left as its
 * launcher bound it shows where it really runs). 0 or -1 (out of memory). */
int faro_placement_set(const struct faro_hwtopo *t, struct faro_placement *pl, int r,
                       hwloc_const_cpuset_t set);

/* faro_hwtopo_load with I/O devices (io = 1) or without them (io = 0: no NIC
 * is known, but loading the real machine is several times faster). */
int faro_hwtopo_load_io(const char *spec, int io, struct faro_hwtopo **out, char *err,
                        size_t errlen);

/* The network device named nic (NULL/"" = the first OpenFabrics device, else
 * the first network interface other than loopback), or NULL. */
hwloc_obj_t faro_hwtopo_nic(const struct faro_hwtopo *t, const char *nic);

/* The cpuset a NIC is close to: its first non-I/O ancestor's. */
hwloc_const_cpuset_t faro_hwtopo_nic_locality(const struct faro_hwtopo *t, hwloc_obj_t nic);

/* OS index of the NUMA node whose cpuset contains set, or -1. */
int faro_hwtopo_numa_of(const struct faro_hwtopo *t, hwloc_const_cpuset_t set);

/* Distance between two NUMA nodes when hwloc knows distances, else -1. */
long faro_hwtopo_numa_distance(const struct faro_hwtopo *t, hwloc_obj_t a, hwloc_obj_t b);

/* "0-3,8" for a cpuset. */
void faro_cpuset_list(hwloc_const_cpuset_t set, char *buf, size_t len);

#endif
