/*
 * Host lists and rank placement for mpiexec: pure functions, no I/O except
 * reading a host file, so the unit test (tests/unit/test_hostlist.c) covers
 * every spelling.
 *
 * A host list is an ordered set of host names with a slot count each. It comes
 * from the command line (-hosts a,b:2 / -host a:2,b / a host file with Hydra's
 * "host:N" or Open MPI's "host slots=N" lines) or from a Slurm allocation
 * (SLURM_JOB_NODELIST in its compressed form, SLURM_TASKS_PER_NODE). A host
 * named twice is one host with the slots added up: the name is the node's
 * identity, so two entries of one name must be one node.
 *
 * Placement turns the list and a policy into the host of every rank:
 *   slot (default)  fill each host's slots in list order, then wrap around
 *                   and fill them again (oversubscription, as Hydra does);
 *   node            one rank per host, round robin;
 *   ppr:N:node      N ranks per host in list order (also -ppn N), wrapping.
 *
 * The launch tree: hosts 0..H-1 are started by mpiexec and by the proxies
 * themselves, each node starting at most `width` others (mpx_tree_*), so a
 * launch takes O(log H) rounds of the agent (ssh) instead of H.
 */
#ifndef FARO_MPX_HOSTLIST_H
#define FARO_MPX_HOSTLIST_H

#include <stddef.h>

#define MPX_HOST_NAME_MAX 255

struct mpx_host {
    char *name;
    int slots;          /* >= 1 */
    int explicit_slots; /* the user wrote a count (host:N, slots=N) */
};

struct mpx_hostlist {
    struct mpx_host *host;
    int n, cap;
    int *index;     /* open addressing by name: host number + 1, 0 empty */
    int index_cap;  /* a power of two, at least twice n */
};

/* A list names at most this many hosts (Slurm ranges expand to one entry
 * per node: "n[1-100000]x[1-100000]" must not run for hours). */
#define MPX_HOSTS_MAX (1 << 18)

enum mpx_map_policy { MPX_MAP_SLOT, MPX_MAP_NODE, MPX_MAP_PPR };

void mpx_hosts_free(struct mpx_hostlist *hl);

/* Add one host with `slots` slots (0: one, not given). A name already listed
 * gains the slots. Returns 0, or -1 with err naming what is wrong. */
int mpx_hosts_add(struct mpx_hostlist *hl, const char *name, size_t len, int slots, char *err,
                  size_t errlen);

/* "a,b:2,c" as -hosts and -host take it (Hydra and Open MPI spellings); `opt`
 * names the option in messages. */
int mpx_hosts_parse_list(struct mpx_hostlist *hl, const char *spec, const char *opt, char *err,
                         size_t errlen);

/* One line of a host file: "host", "host:N", "host slots=N [max_slots=M]",
 * blank, or a comment from '#'. `where` ("file:line") prefixes messages. */
int mpx_hosts_parse_line(struct mpx_hostlist *hl, const char *line, const char *where,
                         char *err, size_t errlen);
/* A whole host file; an empty one is an error. */
int mpx_hosts_read_file(struct mpx_hostlist *hl, const char *path, char *err, size_t errlen);

/* A Slurm allocation: nodelist "n[01-03,7],gpu1" and per-node counts
 * "2(x3),1" (SLURM_TASKS_PER_NODE or SLURM_JOB_CPUS_PER_NODE; NULL: one each). */
int mpx_hosts_from_slurm(struct mpx_hostlist *hl, const char *nodelist, const char *counts,
                         char *err, size_t errlen);

/* The slots the list offers: sum of slots, or ppn per host when ppn > 0. */
int mpx_hosts_total_slots(const struct mpx_hostlist *hl, int ppn);

/* Parse --map-by's host policies: "slot", "node", "ppr:N:node" (N into *ppn).
 * Returns 1 when spec is one of them; 2 for ppr:N:socket|package|numa|
 * l3cache|l3|core (checked here, placed by the library on each host, where
 * the topology is known); 0 when it is not a host policy (an affinity policy
 * such as core); -1 with err for a malformed ppr. */
int mpx_map_parse(const char *spec, enum mpx_map_policy *pol, int *ppn, char *err,
                  size_t errlen);

/* host_of[r] for np ranks. ppn > 0 (from -ppn or ppr) overrides the slots. */
int mpx_hosts_map(const struct mpx_hostlist *hl, int np, enum mpx_map_policy pol, int ppn,
                  int *host_of, char *err, size_t errlen);

/* The PMI_process_mapping value (MPICH's format) for host_of: a list of
 * (first node, node count, ranks per node) blocks, repeated until every rank
 * is placed. Returns its length, or -1 when it does not fit in len. */
int mpx_process_mapping(const int *host_of, int np, char *buf, size_t len);

/* The launch tree over hosts [lo, hi): up to `width` children, each starting
 * the hosts of its own slice. child[i] starts (child[i], end[i]). Returns the
 * number of children. */
int mpx_tree_children(int lo, int hi, int width, int *child, int *end);
/* The end of host `me`'s slice in the tree of nhosts hosts (its subtree is
 * (me, end)), and its parent (-1: mpiexec). */
int mpx_tree_slice(int nhosts, int width, int me, int *parent);

#endif
