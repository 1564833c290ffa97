/*
 * Policy and mapping: from map-by / bind-to / cpus-per-rank words to a
 * placement, one cpuset per local rank. A pure function of the topology, the
 * policy and the number of ranks (see affinity.h for the rules), so a dry run
 * shows exactly what MPI_Init will do.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity_int.h"

static const char map_words[] =
    "core, socket, numa, l3cache, nic, cpu-list:<list> (e.g. cpu-list:0,2,4-7), the first five "
    "optionally followed by :span or :pack, or ppr:N:socket|numa|l3cache|core (N ranks per "
    "socket, ...)";

/* "ppr:N:RES": N ranks per RES. 0, or -1 with a message. */
static int parse_ppr(const char *spec, struct faro_policy *p, char *err, size_t errlen)
{
    static const struct { const char *word; enum faro_map_by map; } res[] = {
        {"socket", FARO_MAP_SOCKET}, {"package", FARO_MAP_SOCKET}, {"numa", FARO_MAP_NUMA},
        {"l3cache", FARO_MAP_L3CACHE}, {"l3", FARO_MAP_L3CACHE}, {"core", FARO_MAP_CORE},
    };
    char *end;
    long n = strtol(spec + 4, &end, 10);
    if (isdigit((unsigned char)spec[4]) && *end == ':' && n >= 1 && n <= 1 << 20)
        for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
            if (!strcmp(end + 1, res[i].word)) {
                p->map_by = res[i].map;
                p->ppr = (int)n;
                return 0;
            }
    snprintf(err, errlen, "--map-by/FARO_MAP_BY %s: expected ppr:N:RESOURCE, N ranks (1 or "
             "more) per socket (or package), numa, l3cache (or l3) or core%s", spec,
             strstr(spec, ":node") ? "; ppr:N:node is mpiexec's (ranks per host, as -ppn)"
                                   : "");
    return -1;
}
static const char bind_words[] = "none, hwthread, core, l3cache, socket, numa";

#define MAX_LIST 4096

/* "0,2,4-7" into out[]; returns the count, or -1 with a message. */
static int parse_cpu_list(const char *s, int *out, int max, char *err, size_t errlen)
{
    int n = 0;
    const char *p = s;
    if (!*p)
        goto bad;
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p))
            goto bad;
        long a = strtol(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            if (!isdigit((unsigned char)p[1]))
                goto bad;
            b = strtol(p + 1, &end, 10);
            p = end;
        }
        if (b < a || b > 1000000)
            goto bad;
        for (long v = a; v <= b; v++) {
            if (n == max) {
                snprintf(err, errlen, "--map-by/FARO_MAP_BY cpu-list:%s: more than %d entries",
                         s, max);
                return -1;
            }
            out[n++] = (int)v;
        }
        if (*p == ',')
            p++;
        else if (*p)
            goto bad;
    }
    return n;
bad:
    snprintf(err, errlen, "--map-by/FARO_MAP_BY cpu-list:%s: not a cpu list; write OS PU "
             "numbers and ranges separated by commas, e.g. cpu-list:0,2,4-7", s);
    return -1;
}

int faro_policy_parse(const char *map_by, const char *bind_to, int cpus_per_rank,
                      struct faro_policy *p, char *err, size_t errlen)
{
    static const struct { const char *word; enum faro_map_by map; int span; } maps[] = {
        {"core", FARO_MAP_CORE, 0},       {"socket", FARO_MAP_SOCKET, 1},
        {"numa", FARO_MAP_NUMA, 1},       {"l3cache", FARO_MAP_L3CACHE, 1},
        {"nic", FARO_MAP_NIC, 0},
    };
    static const struct { const char *word; enum faro_bind_to bind; } binds[] = {
        {"none", FARO_BIND_NONE},       {"hwthread", FARO_BIND_HWTHREAD},
        {"core", FARO_BIND_CORE},       {"l3cache", FARO_BIND_L3CACHE},
        {"socket", FARO_BIND_SOCKET},   {"numa", FARO_BIND_NUMA},
        {"auto", FARO_BIND_DEFAULT},
    };
    memset(p, 0, sizeof *p);
    if (!map_by || !map_by[0])
        map_by = "core";
    if (strncmp(map_by, "ppr:", 4) == 0) {
        if (parse_ppr(map_by, p, err, errlen))
            return -1;
    } else if (strncmp(map_by, "cpu-list:", 9) == 0) {
        int tmp[MAX_LIST];
        if (strlen(map_by + 9) >= sizeof p->cpu_list) {
            snprintf(err, errlen, "--map-by/FARO_MAP_BY %s: the cpu list is longer than %zu "
                     "characters", map_by, sizeof p->cpu_list - 1);
            return -1;
        }
        if (parse_cpu_list(map_by + 9, tmp, MAX_LIST, err, errlen) < 0)
            return -1;
        p->map_by = FARO_MAP_CPULIST;
        strcpy(p->cpu_list, map_by + 9);
    } else {
        size_t w = strcspn(map_by, ":");
        size_t i;
        for (i = 0; i < sizeof maps / sizeof maps[0]; i++)
            if (strlen(maps[i].word) == w && strncmp(map_by, maps[i].word, w) == 0)
                break;
        if (i == sizeof maps / sizeof maps[0]) {
            snprintf(err, errlen, "--map-by/FARO_MAP_BY %s: unknown policy; allowed: %s", map_by,
                     map_words);
            return -1;
        }
        p->map_by = maps[i].map;
        p->span = maps[i].span;
        if (map_by[w]) {
            const char *order = map_by + w + 1;
            if (strcmp(order, "span") == 0)
                p->span = 1;
            else if (strcmp(order, "pack") == 0)
                p->span = 0;
            else {
                snprintf(err, errlen, "--map-by/FARO_MAP_BY %s: unknown ordering '%s'; allowed: "
                         "span (round-robin over the domains) or pack (fill one first)", map_by,
                         order);
                return -1;
            }
        }
    }
    p->bind_to = FARO_BIND_DEFAULT;
    if (bind_to && bind_to[0]) {
        size_t i;
        for (i = 0; i < sizeof binds / sizeof binds[0]; i++)
            if (strcmp(bind_to, binds[i].word) == 0)
                break;
        if (i == sizeof binds / sizeof binds[0]) {
            snprintf(err, errlen, "--bind-to/FARO_BIND_TO %s: unknown binding; allowed: %s "
                     "(unset: core when 2 or more ranks fit the node's cores, else none)", bind_to,
                     bind_words);
            return -1;
        }
        p->bind_to = binds[i].bind;
    }
    if (cpus_per_rank < 1) {
        snprintf(err, errlen, "--cpus-per-rank/FARO_CPUS_PER_RANK %d: must be at least 1",
                 cpus_per_rank);
        return -1;
    }
    p->cpus_per_rank = cpus_per_rank;
    return 0;
}

/* ---- mapping ---- */

struct domains {
    int n;          /* domains */
    int *start;     /* units of domain d: unit[start[d]] .. unit[start[d+1]-1] */
    int *unit;      /* unit indexes (logical), grouped by domain */
};

static hwloc_obj_type_t domain_type(const struct faro_hwtopo *t, enum faro_map_by m)
{
    switch (m) {
    case FARO_MAP_SOCKET: return HWLOC_OBJ_PACKAGE;
    case FARO_MAP_NUMA: return HWLOC_OBJ_NUMANODE;
    case FARO_MAP_L3CACHE: return HWLOC_OBJ_L3CACHE;
    case FARO_MAP_NIC:
        return hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_NUMANODE) > 1 ? HWLOC_OBJ_NUMANODE
                                                                         : HWLOC_OBJ_PACKAGE;
    default: return HWLOC_OBJ_MACHINE;
    }
}

/* The domain objects in mapping order (nic: nearest first). */
static int domain_objs(const struct faro_hwtopo *t, const struct faro_policy *p, hwloc_obj_t nic,
                       hwloc_obj_t **out)
{
    hwloc_obj_type_t type = domain_type(t, p->map_by);
    int n = type == HWLOC_OBJ_MACHINE ? 0 : hwloc_get_nbobjs_by_type(t->topo, type);
    if (n <= 0) {
        n = 1;
        type = HWLOC_OBJ_MACHINE;
    }
    hwloc_obj_t *o = calloc((size_t)n, sizeof *o);
    long *key = calloc((size_t)n, sizeof *key);
    if (!o || !key) {
        free(o);
        free(key);
        return -1;
    }
    int kept = 0; /* memory-only NUMA nodes (no cpus) are no place for a rank */
    for (int i = 0; i < n; i++) {
        hwloc_obj_t x = hwloc_get_obj_by_type(t->topo, type, (unsigned)i);
        if (x && x->cpuset && !hwloc_bitmap_iszero(x->cpuset))
            o[kept++] = x;
    }
    if (kept == 0)
        o[kept++] = hwloc_get_root_obj(t->topo);
    n = kept;
    if (p->map_by == FARO_MAP_NIC && nic && n > 1) {
        hwloc_const_cpuset_t near = faro_hwtopo_nic_locality(t, nic);
        hwloc_obj_t first = NULL;
        for (int i = 0; i < n && !first; i++)
            if (hwloc_bitmap_intersects(o[i]->cpuset, near))
                first = o[i];
        for (int i = 0; i < n; i++) {
            long d = first ? faro_hwtopo_numa_distance(t, first, o[i]) : -1;
            key[i] = hwloc_bitmap_intersects(o[i]->cpuset, near) ? 0 : 1 + (d < 0 ? 0 : d);
        }
        for (int i = 1; i < n; i++) /* stable: equal keys keep logical order */
            for (int j = i; j > 0 && key[j - 1] > key[j]; j--) {
                long k = key[j];
                key[j] = key[j - 1];
                key[j - 1] = k;
                hwloc_obj_t x = o[j];
                o[j] = o[j - 1];
                o[j - 1] = x;
            }
    }
    free(key);
    *out = o;
    return n;
}

/* Group the units (cores or PUs, logical order) by domain. */
static int build_domains(const struct faro_hwtopo *t, const struct faro_policy *p, hwloc_obj_t nic,
                         hwloc_obj_type_t unit_type, int nunits, struct domains *d)
{
    hwloc_obj_t *objs;
    int nobj = domain_objs(t, p, nic, &objs);
    if (nobj < 0)
        return -1;
    d->n = nobj + 1; /* a last catch-all for units outside every domain */
    d->start = calloc((size_t)d->n + 1, sizeof *d->start);
    d->unit = calloc((size_t)nunits, sizeof *d->unit);
    char *taken = calloc((size_t)nunits, 1);
    if (!d->start || !d->unit || !taken) {
        free(objs);
        free(taken);
        return -1;
    }
    int k = 0;
    for (int i = 0; i <= nobj; i++) {
        d->start[i] = k;
        for (int u = 0; u < nunits; u++) {
            hwloc_obj_t uo = hwloc_get_obj_by_type(t->topo, unit_type, (unsigned)u);
            if (taken[u] || (i < nobj && !hwloc_bitmap_isincluded(uo->cpuset, objs[i]->cpuset)))
                continue;
            taken[u] = 1;
            d->unit[k++] = u;
        }
    }
    if (d->start[nobj] == k)
        d->n = nobj; /* no stray units: keep span's r % ndomains exact */
    d->start[d->n] = k;
    free(objs);
    free(taken);
    return 0;
}

/* The objects of `type` that set touches, joined (the whole node when none). */
static void widen(const struct faro_hwtopo *t, hwloc_obj_type_t type, hwloc_bitmap_t set)
{
    hwloc_bitmap_t out = hwloc_bitmap_alloc();
    hwloc_obj_t o = NULL;
    while ((o = hwloc_get_next_obj_by_type(t->topo, type, o)))
        if (o->cpuset && hwloc_bitmap_intersects(o->cpuset, set))
            hwloc_bitmap_or(out, out, o->cpuset);
    hwloc_bitmap_copy(set, hwloc_bitmap_iszero(out)
                               ? hwloc_topology_get_topology_cpuset(t->topo) : out);
    hwloc_bitmap_free(out);
}

static int store_set(const struct faro_hwtopo *t, struct faro_placement *pl, int r,
                     hwloc_const_cpuset_t set)
{
    int n = hwloc_bitmap_weight(set);
    pl->pus[r] = malloc(((size_t)(n < 0 ? 0 : n) + 1) * sizeof(int));
    if (!pl->pus[r])
        return -1;
    int k = 0, i;
    hwloc_bitmap_foreach_begin(i, set)
        pl->pus[r][k++] = i;
    hwloc_bitmap_foreach_end();
    pl->pus[r][k] = -1;
    pl->numa[r] = faro_hwtopo_numa_of(t, set);
    return 0;
}

int faro_placement_set(const struct faro_hwtopo *t, struct faro_placement *pl, int r,
                       hwloc_const_cpuset_t set)
{
    free(pl->pus[r]);
    pl->pus[r] = NULL;
    return store_set(t, pl, r, set);
}

void faro_placement_free(struct faro_placement *pl)
{
    if (pl->pus)
        for (int r = 0; r < pl->nranks; r++)
            free(pl->pus[r]);
    free(pl->pus);
    free(pl->numa);
    pl->pus = NULL;
    pl->numa = NULL;
    pl->nranks = 0;
}

static const char *unit_word(const struct faro_policy *p)
{
    return p->map_by == FARO_MAP_CPULIST ? "cpus in cpu-list"
         : p->bind_to == FARO_BIND_HWTHREAD ? "hardware threads" : "cores";
}

static const char *ppr_word(enum faro_map_by m)
{
    return m == FARO_MAP_SOCKET ? "socket" : m == FARO_MAP_NUMA ? "numa"
         : m == FARO_MAP_L3CACHE ? "l3cache" : "core";
}

static const char *ppr_noun(enum faro_map_by m, int n)
{
    return m == FARO_MAP_SOCKET ? (n == 1 ? "socket" : "sockets")
         : m == FARO_MAP_NUMA ? (n == 1 ? "NUMA node" : "NUMA nodes")
         : m == FARO_MAP_L3CACHE ? (n == 1 ? "L3 cache" : "L3 caches")
                                 : (n == 1 ? "core" : "cores");
}

/* ppr:N:RES: rank r in domain r / N, as slot r % N of it (affinity.h). */
static int map_ppr(const struct faro_hwtopo *t, const struct faro_policy *p, int nranks,
                   hwloc_obj_type_t unit_type, struct faro_placement *out, char *err,
                   size_t errlen)
{
    hwloc_obj_t *objs = NULL;
    int n;
    if (p->map_by == FARO_MAP_CORE) {
        n = t->ncores;
        if ((objs = calloc((size_t)n, sizeof *objs)))
            for (int i = 0; i < n; i++)
                objs[i] = hwloc_get_obj_by_type(t->topo, t->core_type, (unsigned)i);
    } else {
        n = domain_objs(t, p, NULL, &objs);
    }
    if (n < 0 || !objs)
        return snprintf(err, errlen, "faro_map: out of memory"), -1;
    if ((long long)nranks > (long long)p->ppr * n) {
        snprintf(err, errlen, "--map-by/FARO_MAP_BY ppr:%d:%s: %d ranks on this node, but its "
                 "%d %s hold%s %lld at %d each; start at most that many here (-n, -ppn or the "
                 "host's slots)", p->ppr, ppr_word(p->map_by), nranks, n,
                 ppr_noun(p->map_by, n), n == 1 ? "s" : "", (long long)p->ppr * n, p->ppr);
        free(objs);
        return -1;
    }
    out->nranks = nranks;
    out->pus = calloc((size_t)nranks, sizeof *out->pus);
    out->numa = calloc((size_t)nranks, sizeof *out->numa);
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int nunits = unit_type == HWLOC_OBJ_PU ? t->npus : t->ncores, shared = 0;
    out->bound = p->bind_to != FARO_BIND_NONE;
    for (int r = 0; out->pus && out->numa && set && r < nranks; r++) {
        hwloc_obj_t dom = objs[r / p->ppr];
        int first = (r % p->ppr) * p->cpus_per_rank, k = 0, room = 0;
        hwloc_bitmap_zero(set);
        for (int u = 0; u < nunits; u++) { /* the domain's units, logical order */
            hwloc_obj_t uo = hwloc_get_obj_by_type(t->topo, unit_type, (unsigned)u);
            if (!hwloc_bitmap_isincluded(uo->cpuset, dom->cpuset))
                continue;
            room++;
            if (k >= first && k < first + p->cpus_per_rank)
                hwloc_bitmap_or(set, set, uo->cpuset);
            k++;
        }
        if (room < p->ppr * p->cpus_per_rank) { /* more ranks than units: they share it */
            hwloc_bitmap_copy(set, dom->cpuset);
            shared = 1;
        }
        hwloc_bitmap_and(set, set, hwloc_topology_get_topology_cpuset(t->topo));
        if (!out->bound)
            hwloc_bitmap_copy(set, hwloc_topology_get_topology_cpuset(t->topo));
        else if (p->bind_to == FARO_BIND_SOCKET)
            widen(t, HWLOC_OBJ_PACKAGE, set);
        else if (p->bind_to == FARO_BIND_L3CACHE)
            widen(t, HWLOC_OBJ_L3CACHE, set);
        else if (p->bind_to == FARO_BIND_NUMA)
            widen(t, HWLOC_OBJ_NUMANODE, set);
        if (store_set(t, out, r, set)) {
            free(out->pus[r]);
            out->pus[r] = NULL;
            break;
        }
    }
    int ok = out->pus && out->numa && set && out->pus[nranks - 1];
    if (set)
        hwloc_bitmap_free(set);
    free(objs);
    if (!ok) {
        faro_placement_free(out);
        return snprintf(err, errlen, "faro_map: out of memory for %d ranks", nranks), -1;
    }
    if (shared && out->bound)
        snprintf(out->warning, sizeof out->warning, "--map-by/FARO_MAP_BY ppr:%d:%s: %d ranks "
                 "x %d %s per rank do not fit in a %s, so the ranks of each share its cpus",
                 p->ppr, ppr_word(p->map_by), p->ppr, p->cpus_per_rank, unit_word(p),
                 ppr_noun(p->map_by, 1));
    return 0;
}

int faro_map(const struct faro_hwtopo *t, const struct faro_policy *p, int nranks,
             struct faro_placement *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (nranks < 1) {
        snprintf(err, errlen, "faro_map: %d ranks; need at least 1", nranks);
        return -1;
    }
    int cpr = p->cpus_per_rank;
    hwloc_obj_t nic = faro_hwtopo_nic(t, p->nic);
    if (p->map_by == FARO_MAP_NIC && !nic) {
        if (p->nic[0])
            snprintf(err, errlen, "--map-by/FARO_MAP_BY nic: FARO_NIC=%s is not a device of "
                     "this node (see lstopo-no-graphics for its network and OpenFabrics "
                     "devices)", p->nic);
        else
            snprintf(err, errlen, "--map-by/FARO_MAP_BY nic: this node has no network or "
                     "OpenFabrics device; use another --map-by (%s)", map_words);
        return -1;
    }
    if (nic && nic->name)
        snprintf(out->nic, sizeof out->nic, "%s", nic->name);

    /* Units: what a rank's cpus_per_rank counts. */
    hwloc_obj_type_t unit_type = p->bind_to == FARO_BIND_HWTHREAD ? HWLOC_OBJ_PU : t->core_type;
    int nunits = unit_type == HWLOC_OBJ_PU ? t->npus : t->ncores;
    int *list = NULL, nlist = 0;
    if (p->map_by == FARO_MAP_CPULIST) {
        list = malloc(MAX_LIST * sizeof *list);
        if (!list)
            return snprintf(err, errlen, "faro_map: out of memory"), -1;
        nlist = parse_cpu_list(p->cpu_list, list, MAX_LIST, err, errlen);
        if (nlist < 0)
            return free(list), -1;
        for (int i = 0; i < nlist; i++)
            if (!hwloc_get_pu_obj_by_os_index(t->topo, (unsigned)list[i])) {
                char all[256];
                faro_cpuset_list(hwloc_topology_get_topology_cpuset(t->topo), all, sizeof all);
                if (t->restricted && hwloc_bitmap_isset(t->machine, (unsigned)list[i]))
                    snprintf(err, errlen, "--map-by/FARO_MAP_BY cpu-list:%s: cpu %d is not one "
                             "of the cpus this job was given (%s; taskset, cgroup or the "
                             "batch system confined it)", p->cpu_list, list[i], all);
                else
                    snprintf(err, errlen, "--map-by/FARO_MAP_BY cpu-list:%s: cpu %d is not on "
                             "this node; its cpus (OS numbers) are %s", p->cpu_list, list[i],
                             all);
                free(list);
                return -1;
            }
        /* The list is the user's placement, but two ranks on one cpu is a
         * pile-up the docs promise to point out. */
        for (int i = 0; i < nlist && i < nranks * cpr && !out->warning[0]; i++)
            for (int j = 0; j < i; j++)
                if (list[i] == list[j]) {
                    snprintf(out->warning, sizeof out->warning, "--map-by/FARO_MAP_BY "
                             "cpu-list:%.64s: cpu %d is given to rank %d and to rank %d, which "
                             "will share it", p->cpu_list, list[i], j / cpr, i / cpr);
                    break;
                }
        nunits = nlist;
    }
    if (cpr > nunits) {
        snprintf(err, errlen, "--cpus-per-rank/FARO_CPUS_PER_RANK %d: more than the %d %s of "
                 "this node", cpr, nunits, unit_word(p));
        free(list);
        return -1;
    }
    if (p->ppr)
        return map_ppr(t, p, nranks, unit_type, out, err, errlen);

    out->nranks = nranks;
    out->pus = calloc((size_t)nranks, sizeof *out->pus);
    out->numa = calloc((size_t)nranks, sizeof *out->numa);
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    struct domains d = {0};
    int *next = NULL;
    char *used = NULL;
    if (!out->pus || !out->numa || !set)
        goto oom;

    int fits = (long long)nranks * cpr <= nunits;
    enum faro_bind_to bind = p->bind_to;
    /* A lone rank has none of its own job to keep apart, and binding it would
     * pile singletons (and every process they fork) onto the first core. */
    if (bind == FARO_BIND_DEFAULT)
        bind = fits && (nranks > 1 || p->map_by == FARO_MAP_CPULIST) ? FARO_BIND_CORE
                                                                      : FARO_BIND_NONE;
    else if (bind != FARO_BIND_NONE && !fits) {
        snprintf(out->warning, sizeof out->warning, "%d ranks x %d %s per rank > %d %s on this "
                 "node: not binding (oversubscribed)", nranks, cpr, unit_word(p), nunits,
                 unit_word(p));
        bind = FARO_BIND_NONE;
    }
    out->bound = bind != FARO_BIND_NONE;
    if (!out->bound) {
        for (int r = 0; r < nranks; r++)
            if (store_set(t, out, r, hwloc_topology_get_topology_cpuset(t->topo)))
                goto oom;
        goto done;
    }

    if (p->map_by != FARO_MAP_CPULIST) {
        if (build_domains(t, p, nic, unit_type, nunits, &d))
            goto oom;
        next = calloc((size_t)d.n, sizeof *next);
        used = calloc((size_t)nunits, 1);
        if (!next || !used)
            goto oom;
    }
    int cur = 0;
    for (int r = 0; r < nranks; r++) {
        hwloc_bitmap_zero(set);
        if (p->map_by == FARO_MAP_CPULIST) {
            for (int k = 0; k < cpr; k++)
                hwloc_bitmap_set(set, (unsigned)list[r * cpr + k]);
        } else {
            int dom = -1;
            for (int k = 0; k < d.n && dom < 0; k++) {
                int c = ((p->span ? r : cur) + k) % d.n;
                if (d.start[c + 1] - d.start[c] - next[c] >= cpr)
                    dom = c;
            }
            int took = 0;
            if (dom >= 0) {
                cur = dom;
                for (; took < cpr; took++) {
                    int u = d.unit[d.start[dom] + next[dom]++];
                    used[u] = 1;
                    hwloc_bitmap_or(set, set, hwloc_get_obj_by_type(t->topo, unit_type,
                                                                     (unsigned)u)->cpuset);
                }
            } else { /* no domain has room for a whole rank: the node's first free units */
                for (int u = 0; u < nunits && took < cpr; u++)
                    if (!used[u]) {
                        used[u] = 1;
                        took++;
                        hwloc_bitmap_or(set, set, hwloc_get_obj_by_type(t->topo, unit_type,
                                                                         (unsigned)u)->cpuset);
                    }
            }
            /* PUs only, as the report and the binder count them. */
            hwloc_bitmap_and(set, set, hwloc_topology_get_topology_cpuset(t->topo));
        }
        if (bind == FARO_BIND_SOCKET)
            widen(t, HWLOC_OBJ_PACKAGE, set);
        else if (bind == FARO_BIND_L3CACHE)
            widen(t, HWLOC_OBJ_L3CACHE, set);
        else if (bind == FARO_BIND_NUMA)
            widen(t, HWLOC_OBJ_NUMANODE, set);
        if (store_set(t, out, r, set))
            goto oom;
    }
done:
    hwloc_bitmap_free(set);
    free(d.start);
    free(d.unit);
    free(next);
    free(used);
    free(list);
    return 0;
oom:
    if (set)
        hwloc_bitmap_free(set);
    free(d.start);
    free(d.unit);
    free(next);
    free(used);
    free(list);
    faro_placement_free(out);
    snprintf(err, errlen, "faro_map: out of memory for %d ranks", nranks);
    return -1;
}
