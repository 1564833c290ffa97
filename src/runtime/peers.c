/*
 * The table of peers (struct faro_peer, core.h): who this process talks to.
 *
 * Entries 0..size-1 are the job's ranks, made in MPI_Init. Processes of other
 * jobs (reached through MPI_Comm_accept, MPI_Comm_connect, MPI_Comm_join) get
 * entries from size on, as they become known, and so do port connections
 * while their handshake runs (links, port.c). Transports keep pointers to
 * entries (an endpoint's context is its peer), so entries never move: the
 * table is one virtual range of FARO_MAX_DYN_PEERS entries beyond the job,
 * reserved once without memory behind it (PROT_NONE) and opened page by page
 * as entries are added. faro_peer_get stays one index and one predictable
 * branch on the send path, whatever kind the peer is. The cold part of each
 * entry (struct faro_peer_info: kind, gpid, descriptor) is a second table
 * kept the same way, so the hot one stays a cache line per peer.
 *
 * Identity: every process has a 64-bit gpid, (job_uid << 24) | job rank. The
 * job_uid is 40 random bits drawn by rank 0 at start-up (wireup.c), so the
 * gpids of two jobs collide only when their 40-bit draws do (about one pair
 * in 10^12); a process of another job whose gpid names this job is refused
 * by the handshake (dynconn.c), so a collision is an error, never a mix-up.
 * A gpid of this job maps to the rank's own entry: two halves of one job
 * that connect through a port talk as the job ranks they are (shared memory
 * included). Other gpids map to dynamic entries through a small hash table.
 *
 * Nodes: a peer's node id is equal for processes on one host (by host name):
 * the job's nodes keep the ids the node map gave them (faro.node_of) and new
 * hosts get the next ids (faro.hosts). Node ids are this process's own
 * numbering; only the equalities they express are the same everywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"

#define FARO_MAX_DYN_PEERS 65536 /* entries beyond the job, links included */

/* One table's virtual range: bytes reserved, and readable and writable from
 * its start. */
struct range {
    void *base;
    size_t size, reserved, opened;
};
static struct range hot, cold;
static int capacity;       /* entries the range holds */
static int free_slot = -1; /* reusable slots, chained through rank */

/* gpid -> entry of the processes beyond the job: open addressing, grown at
 * half full. */
static struct gpid_slot {
    uint64_t gpid;
    int index; /* -1: empty */
} *map;
static size_t map_cap, map_used;

/* Reserve a range for n entries of size bytes. */
static void *reserve(struct range *r, size_t size, int n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    r->size = size;
    r->reserved = ((size_t)n * size + page - 1) / page * page;
    r->opened = 0;
    r->base = mmap(NULL, r->reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return r->base == MAP_FAILED ? (r->base = NULL) : r->base;
}

/* Make entries [0, n) of r usable. */
static int open_range(struct range *r, int n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t want = ((size_t)n * r->size + page - 1) / page * page;
    if (want <= r->opened)
        return 0;
    if (want > r->reserved ||
        mprotect((char *)r->base + r->opened, want - r->opened, PROT_READ | PROT_WRITE))
        return -1;
    r->opened = want;
    return 0;
}

static int open_to(int n)
{
    return open_range(&hot, n) || open_range(&cold, n) ? -1 : 0;
}

int faro_peers_init(int size, char *err, size_t errlen)
{
    capacity = size + FARO_MAX_DYN_PEERS;
    faro.peers = reserve(&hot, sizeof *faro.peers, capacity);
    faro.pinfo = reserve(&cold, sizeof *faro.pinfo, capacity);
    if (!faro.peers || !faro.pinfo)
        return snprintf(err, errlen, "cannot reserve address space for %d peers", capacity), -1;
    if (open_to(size))
        return snprintf(err, errlen, "out of memory for %d peers", size), -1;
    for (int r = 0; r < size; r++) {
        faro.peers[r].rank = r;
        faro.peers[r].node = (uint32_t)(faro.node_of ? faro.node_of[r] : 0);
        faro.pinfo[r].kind = FARO_PEER_JOB;
        faro.pinfo[r].gpid = faro_job_gpid(r);
    }
    faro.npeers = size;
    return 0;
}

void faro_peers_finalize(void)
{
    for (int i = faro.size; faro.pinfo && i < faro.npeers; i++)
        free(faro.pinfo[i].desc);
    if (hot.base)
        munmap(hot.base, hot.reserved);
    if (cold.base)
        munmap(cold.base, cold.reserved);
    hot.base = cold.base = NULL;
    faro.peers = NULL;
    faro.pinfo = NULL;
    faro.npeers = 0;
    free(map);
    map = NULL;
    map_cap = map_used = 0;
    free_slot = -1;
    for (int i = 0; i < faro.nhosts; i++)
        free(faro.hosts[i]);
    free(faro.hosts);
    faro.hosts = NULL;
    faro.nhosts = 0;
}

int faro_peer_new(int kind)
{
    int i;
    if (free_slot >= 0) {
        i = free_slot;
        free_slot = faro.peers[i].rank;
    } else {
        if (faro.npeers >= capacity || open_to(faro.npeers + 1))
            return -1;
        i = faro.npeers++;
    }
    memset(&faro.peers[i], 0, sizeof faro.peers[i]);
    memset(&faro.pinfo[i], 0, sizeof faro.pinfo[i]);
    faro.peers[i].rank = i;
    faro.pinfo[i].kind = (uint8_t)kind;
    return i;
}

void faro_peer_free_slot(int index)
{
    free(faro.pinfo[index].desc);
    memset(&faro.peers[index], 0, sizeof faro.peers[index]);
    memset(&faro.pinfo[index], 0, sizeof faro.pinfo[index]);
    faro.pinfo[index].kind = FARO_PEER_FREE;
    faro.peers[index].rank = free_slot;
    free_slot = index;
}

static size_t map_pos(uint64_t gpid)
{
    uint64_t h = gpid * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (map_cap - 1);
}

static int map_insert(uint64_t gpid, int index)
{
    if (2 * (map_used + 1) > map_cap) {
        size_t old = map_cap, cap = old ? 2 * old : 64;
        struct gpid_slot *m = malloc(cap * sizeof *m), *prev = map;
        if (!m)
            return -1;
        for (size_t i = 0; i < cap; i++)
            m[i].index = -1;
        map = m;
        map_cap = cap;
        for (size_t i = 0; i < old; i++)
            if (prev[i].index >= 0) {
                size_t j = map_pos(prev[i].gpid);
                while (map[j].index >= 0)
                    j = (j + 1) & (map_cap - 1);
                map[j] = prev[i];
            }
        free(prev);
    }
    size_t j = map_pos(gpid);
    while (map[j].index >= 0)
        j = (j + 1) & (map_cap - 1);
    map[j] = (struct gpid_slot){gpid, index};
    map_used++;
    return 0;
}

int faro_peer_by_gpid(uint64_t gpid, int create)
{
    if (gpid >> FARO_GPID_RANK_BITS == faro.job_uid) {
        uint64_t r = gpid & ((1ull << FARO_GPID_RANK_BITS) - 1);
        return r < (uint64_t)faro.size ? (int)r : -1;
    }
    if (map_cap)
        for (size_t j = map_pos(gpid); map[j].index >= 0; j = (j + 1) & (map_cap - 1))
            if (map[j].gpid == gpid)
                return map[j].index;
    if (!create)
        return -1;
    int i = faro_peer_new(FARO_PEER_DYN);
    if (i < 0)
        return -1;
    if (map_insert(gpid, i)) {
        faro_peer_free_slot(i);
        return -1;
    }
    faro.pinfo[i].gpid = gpid;
    faro.peers[i].node = UINT32_MAX; /* until its descriptor names its host */
    return i;
}

int faro_node_of_host(const char *host)
{
    for (int n = 0; n < faro.nhosts; n++)
        if (!strcmp(faro.hosts[n], host))
            return n;
    char **h = realloc(faro.hosts, ((size_t)faro.nhosts + 1) * sizeof *h);
    if (!h)
        return -1;
    faro.hosts = h;
    if (!(h[faro.nhosts] = strdup(host)))
        return -1;
    return faro.nhosts++;
}

const char *faro_peer_name(int index, char *buf, size_t len)
{
    const struct faro_peer *p = &faro.peers[index];
    uint64_t gpid = faro.pinfo[index].gpid;
    if (index < faro.size)
        snprintf(buf, len, "rank %d", index);
    else
        snprintf(buf, len, "rank %llu of job %010llx%s%s%s",
                 (unsigned long long)(gpid & ((1ull << FARO_GPID_RANK_BITS) - 1)),
                 (unsigned long long)(gpid >> FARO_GPID_RANK_BITS),
                 p->node < (uint32_t)faro.nhosts ? " (host " : "",
                 p->node < (uint32_t)faro.nhosts ? faro.hosts[p->node] : "",
                 p->node < (uint32_t)faro.nhosts ? ")" : "");
    return buf;
}
