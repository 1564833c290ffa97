/*
 * Topology: the machine as hwloc sees it, or a model of another machine (an
 * hwloc XML file or a synthetic string), with I/O devices kept so that the
 * network card's locality is known.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "affinity_int.h"

static const char topology_forms[] =
    "allowed: empty (this machine), the path of an hwloc XML file (lstopo --of xml), or an hwloc "
    "synthetic description such as \"package:2 numa:1 core:4 pu:1\"";

/* A spec names a file when it looks like a path; everything else is synthetic. */
static int looks_like_file(const char *spec)
{
    size_t n = strlen(spec);
    return strchr(spec, '/') || (n > 4 && strcmp(spec + n - 4, ".xml") == 0) ||
           access(spec, F_OK) == 0;
}

/* Cut the machine's topology down to the cpus this process may run on: a
 * launcher that confined it (taskset -c 1 mpiexec ...) gave the job those cpus
 * and no others, so mapping and binding must stay inside them, and a report
 * must not show cpus the process cannot use. */
static int restrict_to_allowed(struct faro_hwtopo *t, char *err, size_t errlen)
{
    hwloc_bitmap_t cur = hwloc_bitmap_alloc();
    t->machine = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(t->topo));
    if (!cur || !t->machine) {
        hwloc_bitmap_free(cur);
        snprintf(err, errlen, "out of memory loading the topology");
        return -1;
    }
    if (hwloc_get_cpubind(t->topo, cur, HWLOC_CPUBIND_PROCESS) == 0 &&
        hwloc_bitmap_intersects(cur, t->machine) && !hwloc_bitmap_isincluded(t->machine, cur)) {
        hwloc_bitmap_and(cur, cur, t->machine);
        if (hwloc_topology_restrict(t->topo, cur, 0) == 0)
            t->restricted = 1;
    }
    hwloc_bitmap_free(cur);
    return 0;
}

int faro_hwtopo_load(const char *spec, struct faro_hwtopo **out, char *err, size_t errlen)
{
    return faro_hwtopo_load_io(spec, 1, out, err, errlen);
}

int faro_hwtopo_load_io(const char *spec, int io, struct faro_hwtopo **out, char *err,
                        size_t errlen)
{
    *out = NULL;
    struct faro_hwtopo *t = calloc(1, sizeof *t);
    if (!t || hwloc_topology_init(&t->topo) < 0) {
        free(t);
        snprintf(err, errlen, "FARO_TOPOLOGY: out of memory loading the topology");
        return -1;
    }
    /* The NIC is an OS device under a PCI device: keep both (and bridges).
     * PCI discovery is most of the load time on a real machine. */
    if (io)
        hwloc_topology_set_io_types_filter(t->topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    int rc = 0;
    const char *what = "this machine";
    if (spec && spec[0]) {
        if (looks_like_file(spec)) {
            what = "the XML file";
            if (access(spec, R_OK) != 0) {
                snprintf(err, errlen, "FARO_TOPOLOGY=%s: cannot read the file (%s); %s", spec,
                         strerror(errno), topology_forms);
                goto fail;
            }
            rc = hwloc_topology_set_xml(t->topo, spec);
        } else {
            what = "the synthetic description";
            rc = hwloc_topology_set_synthetic(t->topo, spec);
        }
    }
    if (rc == 0)
        rc = hwloc_topology_load(t->topo);
    if (rc != 0) {
        if (spec && spec[0])
            snprintf(err, errlen, "FARO_TOPOLOGY=%s: hwloc could not load %s; %s", spec, what,
                     topology_forms);
        else
            snprintf(err, errlen, "hwloc could not discover this machine's topology (%s); set "
                     "FARO_BIND_TO=none, or FARO_TOPOLOGY to a model", strerror(errno));
        goto fail;
    }
    t->this_machine = hwloc_topology_is_thissystem(t->topo);
    if (t->this_machine && restrict_to_allowed(t, err, errlen))
        goto fail;
    t->core_type = HWLOC_OBJ_CORE;
    t->ncores = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE);
    t->npus = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PU);
    if (t->ncores <= 0) { /* e.g. "package:2 pu:4": every PU is its own core */
        t->core_type = HWLOC_OBJ_PU;
        t->ncores = t->npus;
    }
    if (t->npus <= 0) {
        snprintf(err, errlen, "FARO_TOPOLOGY=%s: the topology has no processing units; %s",
                 spec ? spec : "", topology_forms);
        goto fail;
    }
    *out = t;
    return 0;
fail:
    hwloc_bitmap_free(t->machine);
    hwloc_topology_destroy(t->topo);
    free(t);
    return -1;
}

void faro_hwtopo_free(struct faro_hwtopo *t)
{
    if (!t)
        return;
    hwloc_bitmap_free(t->machine);
    hwloc_topology_destroy(t->topo);
    free(t);
}

int faro_hwtopo_ncores(const struct faro_hwtopo *t)
{
    return t->ncores;
}

int faro_hwtopo_npus(const struct faro_hwtopo *t)
{
    return t->npus;
}

static hwloc_obj_t first_osdev(const struct faro_hwtopo *t, hwloc_obj_osdev_type_t type)
{
    for (hwloc_obj_t o = hwloc_get_next_osdev(t->topo, NULL); o;
         o = hwloc_get_next_osdev(t->topo, o))
        if (o->attr->osdev.type == type && o->name && strcmp(o->name, "lo") != 0)
            return o;
    return NULL;
}

hwloc_obj_t faro_hwtopo_nic(const struct faro_hwtopo *t, const char *nic)
{
    if (nic && nic[0]) {
        for (hwloc_obj_t o = hwloc_get_next_osdev(t->topo, NULL); o;
             o = hwloc_get_next_osdev(t->topo, o))
            if (o->name && strcmp(o->name, nic) == 0)
                return o;
        return NULL;
    }
    hwloc_obj_t o = first_osdev(t, HWLOC_OBJ_OSDEV_OPENFABRICS);
    return o ? o : first_osdev(t, HWLOC_OBJ_OSDEV_NETWORK);
}

hwloc_const_cpuset_t faro_hwtopo_nic_locality(const struct faro_hwtopo *t, hwloc_obj_t nic)
{
    hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(t->topo, nic);
    return a && a->cpuset ? a->cpuset : hwloc_topology_get_topology_cpuset(t->topo);
}

int faro_hwtopo_numa_of(const struct faro_hwtopo *t, hwloc_const_cpuset_t set)
{
    if (hwloc_bitmap_iszero(set))
        return -1;
    hwloc_obj_t n = NULL;
    while ((n = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, n)))
        if (n->cpuset && hwloc_bitmap_isincluded(set, n->cpuset))
            return (int)n->os_index;
    return -1;
}

void faro_cpuset_list(hwloc_const_cpuset_t set, char *buf, size_t len)
{
    /* hwloc's list format is "0-3,8", which is what people write. */
    if (hwloc_bitmap_list_snprintf(buf, len, set) < 0 && len)
        buf[0] = '\0';
}

/* Distance from a to b when hwloc has NUMA distances, else -1. */
long faro_hwtopo_numa_distance(const struct faro_hwtopo *t, hwloc_obj_t a, hwloc_obj_t b)
{
    unsigned nr = 1;
    struct hwloc_distances_s *d = NULL;
    long v = -1;
    if (a->type != HWLOC_OBJ_NUMANODE ||
        hwloc_distances_get_by_type(t->topo, HWLOC_OBJ_NUMANODE, &nr, &d, 0, 0) < 0 || nr == 0)
        return -1;
    hwloc_uint64_t ab, ba;
    if (hwloc_distances_obj_pair_values(d, a, b, &ab, &ba) == 0)
        v = (long)ab;
    hwloc_distances_release(t->topo, d);
    return v;
}

