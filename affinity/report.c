/*
 * The report line of one rank: its cpus as a list and as a picture of the
 * node by package, its NUMA node, and where it sits relative to the NIC.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "affinity_int.h"

struct out {
    char *buf;
    size_t len, off;
};

static void put(struct out *o, const char *fmt, const char *s)
{
    if (o->off >= o->len)
        return;
    int n = snprintf(o->buf + o->off, o->len - o->off, fmt, s);
    if (n > 0)
        o->off += (size_t)n;
    if (o->off >= o->len)
        o->off = o->len - 1;
}

/* One group (a package, or the whole node): "[BB/../..]". */
static void picture(const struct faro_hwtopo *t, hwloc_obj_t group, hwloc_const_cpuset_t set,
                    struct out *o)
{
    hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(t->topo);
    int first = 1;
    put(o, "%s", "[");
    hwloc_obj_t c = NULL;
    while ((c = hwloc_get_next_obj_inside_cpuset_by_type(t->topo, group->cpuset, t->core_type,
                                                         c))) {
        if (!first)
            put(o, "%s", "/");
        first = 0;
        int pu;
        hwloc_bitmap_foreach_begin(pu, c->cpuset)
            if (hwloc_bitmap_isset(all, (unsigned)pu))
                put(o, "%s", hwloc_bitmap_isset(set, (unsigned)pu) ? "B" : ".");
        hwloc_bitmap_foreach_end();
    }
    put(o, "%s", "]");
}

int faro_placement_format(const struct faro_hwtopo *t, const struct faro_placement *pl, int r,
                          char *buf, size_t len)
{
    if (!len)
        return -1;
    buf[0] = '\0';
    if (r < 0 || r >= pl->nranks || !pl->pus)
        return -1;
    struct out o = {buf, len, 0};
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return -1;
    for (const int *p = pl->pus[r]; *p >= 0; p++)
        hwloc_bitmap_set(set, (unsigned)*p);

    char list[1024];
    faro_cpuset_list(set, list, sizeof list);
    put(&o, "cpus %s ", list);
    int npkg = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PACKAGE);
    if (npkg > 0)
        for (int i = 0; i < npkg; i++)
            picture(t, hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, (unsigned)i), set, &o);
    else
        picture(t, hwloc_get_root_obj(t->topo), set, &o);

    char num[32];
    snprintf(num, sizeof num, "%d", pl->numa[r]);
    put(&o, " numa %s", pl->numa[r] >= 0 ? num : "-");

    hwloc_obj_t nic = pl->nic[0] ? faro_hwtopo_nic(t, pl->nic) : NULL;
    if (nic) {
        hwloc_const_cpuset_t near = faro_hwtopo_nic_locality(t, nic);
        put(&o, " nic %s ", pl->nic);
        put(&o, "%s", hwloc_bitmap_isincluded(set, near) ? "near"
                      : !hwloc_bitmap_intersects(set, near) ? "far" : "partly near");
        int nic_numa = faro_hwtopo_numa_of(t, near);
        if (pl->numa[r] >= 0 && nic_numa >= 0) {
            hwloc_obj_t a = hwloc_get_numanode_obj_by_os_index(t->topo, (unsigned)pl->numa[r]);
            hwloc_obj_t b = hwloc_get_numanode_obj_by_os_index(t->topo, (unsigned)nic_numa);
            long d = a && b ? faro_hwtopo_numa_distance(t, a, b) : -1;
            if (d >= 0) {
                snprintf(num, sizeof num, "%ld", d);
                put(&o, " distance %s", num);
            }
        }
    }
    if (!pl->bound)
        put(&o, "%s", " (not bound)");
    hwloc_bitmap_free(set);
    return 0;
}
