/*
 * Wire-up: who is on which node, which transports work here, and which one
 * carries the traffic to each peer. Runs once in MPI_Init over the PMI
 * key-value store:
 *
 *   put host (unless the process manager has a node map: faro_pmi_node_map),
 *   (rank 0) put job key      barrier
 *   node map; init transports; put their addresses      barrier
 *   connect the peers of this node that a node-local transport reaches
 *   barrier; wireup_done
 *
 * Every other peer is connected at the first message either way: by this
 * rank's first send to it (faro_peer_connect), or when its connection
 * arrives (the accepted upcall). At 10,000 ranks a rank then holds
 * connections only to the ranks it talks to.
 *
 * A node is a host name as the launcher used it (FARO_HOSTNAME, which
 * mpiexec sets), else gethostname(); with the process manager's node map
 * (PMI_process_mapping, PMIx's node ids) the nodes are the launcher's and no
 * name is exchanged.
 *
 * Choice per peer: the own rank goes to the self-only transport; a peer on
 * this node to the first listed local-only transport both sides can use; any
 * other peer to the first listed transport both sides can use that reaches
 * it. Both sides compute the same choice from the same published addresses,
 * so a peer that connects to us arrives through the transport we would have
 * chosen for it.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "affinity.h"
#include "core.h"
#include "runtime/dyn.h"
#include "p2p/request.h"
#include "base/hex.h"
#include "base/log.h"
#include "base/pmi.h"
#include "base/tunables.h"

#define KEYLEN 16

static faro_tp_env_t env;
static uint8_t job_key[KEYLEN];
static char *tp_why[16];

/* ---- upcalls of every transport (env.core is the struct faro_transport) ---- */

/* A job rank connected to us first; a connection on a port (a process
 * beyond the job, or a port's client) goes to dynpeer.c. */
static void *on_accepted(void *core, faro_tp_ep_t *ep, uint64_t id, unsigned port)
{
    struct faro_transport *t = core;
    if (port != 0)
        return faro_dyn_accepted(t, ep, id, port);
    if (id >= (uint64_t)faro.size)
        return NULL;
    struct faro_peer *p = &faro.peers[id];
    if (!p->ep) {
        faro_bind_peer(p, t, ep);
    } else if (p->t != t || p->ep != ep) {
        faro_fatal(MPI_ERR_INTERN, "rank %d connected through %s, but this rank reaches it "
                   "through %s: is FARO_TRANSPORTS the same for every rank?", (int)id,
                   t->ops->name, p->t->ops->name);
    }
    return p;
}

/* A job peer's loss ends the job; its orderly close (finalize) does not. The
 * loss of a process beyond the job is dynpeer.c's to judge. */
static void on_ep_lost(void *core, void *ctx, int orderly, const char *why)
{
    struct faro_peer *p = ctx;
    if (p != &faro.peers[p->rank] || faro.pinfo[p->rank].kind != FARO_PEER_JOB) {
        faro_dyn_lost(p, orderly, why); /* an alias, or not a job rank */
        return;
    }
    if (orderly)
        return;
    faro_fatal_lost(MPI_ERR_PROC_ABORTED, p->rank, "lost contact with rank %d: %s; ending the job",
                    p->rank, why);
}

/* Node ids by host name, one get per rank: for process managers without a
 * node map of their own. first[] gets the name of each node (of its first
 * rank), in id order. */
static int node_ids_from_names(int *node, char **first, char *err, size_t errlen)
{
    char key[64], val[1024];
    int n = 0, rc = 0;
    for (int r = 0; r < faro.size && rc == 0; r++) {
        snprintf(key, sizeof key, "faro-host-%d", r);
        if (faro_pmi_get_from(r, key, val, sizeof val)) {
            snprintf(err, errlen, "rank %d did not publish its host name", r);
            rc = -1;
            break;
        }
        int id = 0;
        while (id < n && strcmp(first[id], val))
            id++;
        if (id == n && !(first[n++] = strdup(val))) {
            snprintf(err, errlen, "out of memory building the node map");
            rc = -1;
        }
        node[r] = id;
    }
    return rc;
}

/* faro.node_of (nodes numbered in order of their first rank) and this node's
 * ranks, from the process manager's map (id, when have_mapping) or else the
 * published host names. Frees id. */
static int node_map(int *id, int have_mapping, char *err, size_t errlen)
{
    faro.node_of = calloc((size_t)faro.size, sizeof(int));
    faro.local_ranks = calloc((size_t)faro.size, sizeof(int));
    char **names = calloc((size_t)faro.size, sizeof *names);
    int rc = 0;
    if (!faro.node_of || !faro.local_ranks || !names)
        rc = (snprintf(err, errlen, "out of memory building the node map"), -1);
    if (!rc && !have_mapping)
        rc = node_ids_from_names(id, names, err, errlen);
    if (rc) {
        for (int i = 0; names && i < faro.size; i++)
            free(names[i]);
        free(names);
        free(id);
        return -1;
    }
    faro.nnodes = 0;
    for (int r = 0; r < faro.size; r++) {
        int n = 0;
        while (n < faro.nnodes && id[faro.local_ranks[n]] != id[r])
            n++;
        faro.node_of[r] = n;
        if (n == faro.nnodes) {
            faro.local_ranks[faro.nnodes++] = r; /* first rank of each node, for now */
        }
    }
    faro.node = faro.node_of[faro.rank];
    /* Node ids of the job's nodes are also host ids (dynpeer.c places processes
     * beyond the job by host name). With the manager's map the other nodes'
     * names are not known here: each node's first rank publishes its own
     * (fenced by the next barrier), and faro_name_nodes reads them when a
     * process of another job first needs placing. */
    for (int n = 0; n < faro.nnodes && !rc; n++) {
        char other[48];
        snprintf(other, sizeof other, FARO_UNNAMED "node %d of the job", n);
        const char *name = n == faro.node ? faro.hostname : names[id[faro.local_ranks[n]]];
        if (faro_node_of_host(name ? name : other) != n)
            rc = (snprintf(err, errlen, "out of memory building the node map"), -1);
    }
    for (int i = 0; i < faro.size; i++)
        free(names[i]);
    free(names);
    free(id);
    if (rc)
        return -1;
    char key[64];
    snprintf(key, sizeof key, "faro-host-%d", faro.rank);
    if (have_mapping && faro.local_ranks[faro.node] == faro.rank &&
        faro_pmi_put(key, faro.hostname))
        return snprintf(err, errlen, "could not publish the host name"), -1;
    faro.local_size = 0;
    for (int r = 0; r < faro.size; r++) {
        if (faro.node_of[r] != faro.node)
            continue;
        if (r == faro.rank)
            faro.local_rank = faro.local_size;
        faro.local_ranks[faro.local_size++] = r;
    }
    return 0;
}

/* The wait policy's count: cores, and the processes known to run here. */
static int wait_cores, wait_here;

static int ncores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Position of a transport in FARO_TRANSPORTS, -1 when not listed. */
static int listed(const char *name)
{
    return faro_tp_list_pos(faro_tun_str(FARO_TUN_TRANSPORTS), name);
}

/* Does FARO_TRANSPORTS list a transport other than self and name? */
static int others_listed(const char *name)
{
    for (int i = 0; faro_transports[i]; i++)
        if (strcmp(faro_transports[i]->name, name) && strcmp(faro_transports[i]->name, "self") &&
            listed(faro_transports[i]->name) >= 0)
            return 1;
    return 0;
}

static int init_transports(char *err, size_t errlen)
{
    int n = 0;
    while (faro_transports[n])
        n++;
    faro.tps = calloc((size_t)n, sizeof *faro.tps);
    faro.ntps = n;
    for (int i = 0; i < n; i++) {
        struct faro_transport *t = &faro.tps[i];
        t->ops = faro_transports[i];
        char why[512] = "";
        int is_self = !strcmp(t->ops->name, "self");
        if (!is_self && listed(t->ops->name) < 0) {
            tp_why[i] = strdup("not listed in FARO_TRANSPORTS");
            continue;
        }
        t->env = env;
        t->env.core = t; /* upcalls know which transport they come from */
        int rc = t->ops->init(&t->tp, &t->env, &t->attr, why, sizeof why);
        if (rc == FARO_TP_ERR) /* broken, not merely absent: say so, do not fall back */
            return snprintf(err, errlen, "transport %s: %s", t->ops->name,
                            why[0] ? why : "init failed"), -1;
        if (rc != FARO_TP_OK) {
            t->tp = NULL;
            tp_why[i] = strdup(why[0] ? why : "init failed");
            /* Asked for, and the job has peers it would carry: say once per
             * node, without FARO_VERBOSE, that the others carry them instead.
             * Listed alone, it is not said here: a peer that nothing else
             * reaches fails MPI_Init with this reason (choose). */
            if (listed(t->ops->name) >= 0 && others_listed(t->ops->name) && faro.size > 1 &&
                faro.local_rank == 0)
                faro_warn("transport %s is in FARO_TRANSPORTS but unusable here: %s; the "
                          "other listed transports carry its traffic (leave it out of "
                          "FARO_TRANSPORTS to silence this)", t->ops->name, tp_why[i]);
            continue;
        }
        faro_p2p_handlers(t);
        uint8_t blob[FARO_TP_MAX_ADDR];
        size_t len = sizeof blob;
        if (t->ops->addr_get(t->tp, blob, &len) != FARO_TP_OK)
            return snprintf(err, errlen, "transport %s has no address", t->ops->name), -1;
        char key[64], val[2 * FARO_TP_MAX_ADDR + 1];
        faro_hex_encode(blob, len, val);
        snprintf(key, sizeof key, "faro-tp-%s-%d", t->ops->name, faro.rank);
        if (faro_pmi_put(key, val))
            return snprintf(err, errlen, "could not publish the %s address", t->ops->name), -1;
    }
    return 0;
}

/* Can peer p be reached through t? Fetches and returns its address blob. */
static int peer_blob(struct faro_transport *t, int p, uint8_t *blob)
{
    if (!t->tp)
        return -1;
    if ((t->attr.caps & FARO_TP_CAP_SELF_ONLY) != (p == faro.rank ? FARO_TP_CAP_SELF_ONLY : 0))
        return -1;
    if ((t->attr.caps & FARO_TP_CAP_LOCAL_ONLY) && faro.node_of[p] != faro.node)
        return -1;
    char key[64], val[2 * FARO_TP_MAX_ADDR + 1];
    snprintf(key, sizeof key, "faro-tp-%s-%d", t->ops->name, p);
    if (faro_pmi_get_from(p, key, val, sizeof val))
        return -1;
    return faro_hex_decode(val, strlen(val), blob, FARO_TP_MAX_ADDR);
}

/* The transport for peer p and its address blob there; -1 with err set when
 * none reaches it. */
static int choose(int p, uint8_t *blob, int *len, char *err, size_t errlen)
{
    int best = -1, best_pos = 1 << 30;
    for (int pass = 0; pass < 2 && best < 0; pass++) {
        for (int i = 0; i < faro.ntps; i++) {
            struct faro_transport *t = &faro.tps[i];
            if (!t->tp)
                continue;
            int self = (t->attr.caps & FARO_TP_CAP_SELF_ONLY) != 0;
            int local = (t->attr.caps & FARO_TP_CAP_LOCAL_ONLY) != 0;
            if (pass == 0 && !(self || local)) /* first: the node-local specialists */
                continue;
            int pos = self ? -1 : listed(t->ops->name);
            if (pos >= best_pos)
                continue;
            uint8_t cand[FARO_TP_MAX_ADDR];
            int n = peer_blob(t, p, cand);
            if (n < 0)
                continue;
            memcpy(blob, cand, (size_t)n);
            best = i;
            best_pos = pos;
            *len = n;
        }
    }
    if (best >= 0)
        return best;
    char why[1024] = "";
    for (int i = 0; i < faro.ntps; i++) {
        if (faro.tps[i].tp && (faro.tps[i].attr.caps & FARO_TP_CAP_SELF_ONLY))
            continue; /* never a candidate for another rank */
        size_t u = strlen(why);
        snprintf(why + u, sizeof why - u, "%s%s: %s", u ? "; " : "", faro.tps[i].ops->name,
                 tp_why[i] ? tp_why[i] : "usable here but not by that rank or not to it");
    }
    snprintf(err, errlen, "no transport reaches rank %d (FARO_TRANSPORTS=%s): %s", p,
             faro_tun_str(FARO_TUN_TRANSPORTS), why);
    return -1;
}

/* A transport's own knob, set by the user, wins; then FARO_EAGER_LIMIT; then
 * the transport's default. */
static size_t eager_limit(const faro_tp_attr_t *a)
{
    if (!a->eager_limit_user && faro_tun_isset(FARO_TUN_EAGER_LIMIT))
        return (size_t)faro_tun_int(FARO_TUN_EAGER_LIMIT);
    return a->eager_limit;
}

/* p's messages go through t's endpoint ep from now on; the protocol limits
 * follow from t's attributes (final since wireup_done). */
void faro_bind_peer(struct faro_peer *p, struct faro_transport *t, faro_tp_ep_t *ep)
{
    const faro_tp_attr_t *a = &t->attr;
    p->t = t;
    p->ep = ep;
    p->eager_limit = eager_limit(a);
    p->max_inline = a->max_inline;
    p->frag = faro_tun_isset(FARO_TUN_RNDV_FRAG_SIZE)
                  ? (size_t)faro_tun_int(FARO_TUN_RNDV_FRAG_SIZE) : a->frag_size;
    if (p->frag == 0 || p->frag > a->max_send)
        p->frag = a->max_send;
    if (!t->used) {
        t->used = 1;
        faro_progress_transports();
        if (faro.nstandby > 0)
            faro.nstandby--;
        faro_info(1, "transport %s: eager limit %zu, max inline %zu, fragment %zu, "
                  "single copy %s", t->ops->name, eager_limit(a), a->max_inline, a->frag_size,
                  (a->caps & FARO_TP_CAP_GET) ? "yes" : "no");
    }
}

static int connect_peer(struct faro_peer *p, char *err, size_t errlen)
{
    uint8_t blob[FARO_TP_MAX_ADDR];
    int len = -1;
    int best = choose(p->rank, blob, &len, err, errlen);
    if (best < 0)
        return -1;
    struct faro_transport *t = &faro.tps[best];
    faro_tp_conn_t c = {.addr = blob, .addrlen = (size_t)len, .id = (uint64_t)faro.rank,
                        .ctx = p};
    faro_tp_ep_t *ep = NULL;
    int rc = t->ops->connect(t->tp, &c, &ep);
    if ((rc != FARO_TP_OK && rc != FARO_TP_DONE) || !ep)
        return snprintf(err, errlen, "%s: cannot connect to rank %d", t->ops->name, p->rank),
               -1;
    if (!p->ep) /* connect may have shown an earlier accepted endpoint: same one */
        faro_bind_peer(p, t, ep);
    faro_info(2, "rank %d: connected through %s", p->rank, t->ops->name);
    return 0;
}

void faro_peer_connect(struct faro_peer *p)
{
    if (faro.pinfo[p->rank].kind != FARO_PEER_JOB) { /* beyond the job: by its descriptor */
        faro_dyn_connect(p);
        return;
    }
    char err[1200];
    if (connect_peer(p, err, sizeof err))
        faro_fatal(MPI_ERR_OTHER, "%s", err);
}

void faro_name_nodes(void)
{
    static int named;
    if (named)
        return;
    named = 1;
    char key[64], val[MPI_MAX_PROCESSOR_NAME];
    for (int n = 0; n < faro.nnodes; n++) {
        if (faro.hosts[n][0] != FARO_UNNAMED[0])
            continue;
        int first = 0;
        while (first < faro.size && faro.node_of[first] != n)
            first++;
        snprintf(key, sizeof key, "faro-host-%d", first);
        char *name;
        if (first < faro.size && faro_pmi_get_from(first, key, val, sizeof val) == 0 &&
            (name = strdup(val))) {
            free(faro.hosts[n]);
            faro.hosts[n] = name;
        }
    }
}

void faro_node_name(void)
{
    const char *n = faro_tun_str(FARO_TUN_HOSTNAME);
    if (*n)
        snprintf(faro.hostname, sizeof faro.hostname, "%s", n);
    else if (gethostname(faro.hostname, sizeof faro.hostname))
        strcpy(faro.hostname, "localhost");
    faro.hostname[sizeof faro.hostname - 1] = 0;
}

int faro_wireup(char *err, size_t errlen)
{
    char key[64], val[64];
    faro_node_name();
    /* With the process manager's map nobody needs the names: no put. */
    int *node_id = calloc((size_t)faro.size, sizeof(int));
    if (!node_id)
        return snprintf(err, errlen, "out of memory building the node map"), -1;
    int have_mapping = faro_pmi_node_map(node_id) == 0;
    snprintf(key, sizeof key, "faro-host-%d", faro.rank);
    if (!have_mapping && faro_pmi_put(key, faro.hostname))
        return free(node_id), snprintf(err, errlen, "could not publish the host name"), -1;
    /* Rank 0 draws the job key and, after it, the job's uid (peers.c: the
     * job part of every gpid; 40 bits, never 0). */
    uint8_t drawn[KEYLEN + 8];
    if (faro.rank == 0) {
        if (getrandom(drawn, sizeof drawn, 0) != (ssize_t)sizeof drawn)
            return snprintf(err, errlen, "getrandom failed for the job key"), -1;
        faro_hex_encode(drawn, sizeof drawn, val);
        faro_pmi_put("faro-key", val);
    }
    if (faro_pmi_barrier())
        return free(node_id), snprintf(err, errlen, "PMI barrier failed (process manager "
                                       "gone?)"), -1;
    if (node_map(node_id, have_mapping, err, errlen))
        return -1;
    faro_info(2, "node map: %d node(s), from %s", faro.nnodes,
              have_mapping ? "the process manager" : "the host names the ranks published");
    if (faro_pmi_get_from(0, "faro-key", val, sizeof val) ||
        faro_hex_decode(val, strlen(val), drawn, sizeof drawn) != (int)sizeof drawn)
        return snprintf(err, errlen, "no job key from rank 0"), -1;
    memcpy(job_key, drawn, KEYLEN);
    uint64_t uid = 0;
    memcpy(&uid, drawn + KEYLEN, sizeof uid);
    faro.job_uid = uid & ((1ull << 40) - 1);
    if (!faro.job_uid)
        faro.job_uid = 1;
    faro.job_check = (uint32_t)(uid >> 40);
    if (faro_tp_list_check(faro_tun_str(FARO_TUN_TRANSPORTS), err, errlen))
        return -1;

    /* The CPUs this node's ranks may share, read before binding narrows this
     * process to its own core(s): the wait policy compares ranks with them. */
    int cores = ncores();
    /* Bind before any transport allocates: the shared-memory queues this rank
     * reads are first touched after this, so they land on its NUMA node
     * (affinity/affinity.h). */
    if (faro_affinity_init(faro.local_rank, faro.local_size, faro.hostname, faro.rank, err,
                           errlen))
        return -1;
    long policy = faro_tun_int(FARO_TUN_WAIT_POLICY); /* spin|yield|auto */
    faro.yield = policy == 1 || (policy == 2 && faro.local_size > cores);
    wait_cores = cores;
    wait_here = faro.local_size;
    faro.depth = (int)faro_tun_int(FARO_TUN_RNDV_PIPELINE_DEPTH);
    faro.rndv = (int)faro_tun_int(FARO_TUN_RNDV_PROTOCOL);

    env = (faro_tp_env_t){
        .rank = faro.rank, .size = faro.size, .node_of = faro.node_of,
        .local_rank = faro.local_rank, .local_size = faro.local_size,
        .local_ranks = faro.local_ranks, .jobid = faro.jobid, .job_key = job_key,
        .job_key_len = sizeof job_key, .ncores = cores,
        .accepted = on_accepted, .ep_lost = on_ep_lost, .place = faro_place,
    };
    if (init_transports(err, errlen))
        return -1;
    if (faro_pmi_barrier())
        return snprintf(err, errlen, "PMI barrier failed (process manager gone?)"), -1;

    if (faro_peers_init(faro.size, err, errlen))
        return -1;
    /* This node's ranks (and the own rank) now, the rest at first use. */
    for (int l = 0; l < faro.local_size; l++) {
        struct faro_peer *p = &faro.peers[faro.local_ranks[l]];
        uint8_t blob[FARO_TP_MAX_ADDR];
        int len, best = choose(p->rank, blob, &len, err, errlen);
        if (best < 0)
            return -1;
        const faro_tp_attr_t *a = &faro.tps[best].attr;
        if ((a->caps & (FARO_TP_CAP_LOCAL_ONLY | FARO_TP_CAP_SELF_ONLY)) &&
            connect_peer(p, err, errlen))
            return -1;
    }
    if (faro_pmi_barrier())
        return snprintf(err, errlen, "PMI barrier failed (process manager gone?)"), -1;
    for (int i = 0; i < faro.ntps; i++) {
        struct faro_transport *t = &faro.tps[i];
        if (t->tp && t->ops->wireup_done(t->tp) < 0)
            return snprintf(err, errlen, "%s: wire-up failed", t->ops->name), -1;
        /* The limits bound at wire-up may have narrowed (shm without CMA). */
        for (int l = 0; t->tp && l < faro.local_size; l++) {
            struct faro_peer *p = &faro.peers[faro.local_ranks[l]];
            if (p->t == t)
                faro_bind_peer(p, t, p->ep);
        }
    }
    /* A transport that no peer uses yet stays alive in standby: a peer may
     * still connect through it first, so progress polls it now and then
     * (faro_progress) until it carries traffic. */
    faro.nstandby = 0;
    for (int i = 0; i < faro.ntps; i++)
        faro.nstandby += faro.tps[i].tp && !faro.tps[i].used;
    faro_info(1, "%d ranks on %d node(s), %d here on %d cores; waiting by %s", faro.size,
              faro.nnodes, faro.local_size, cores, faro.yield ? "yielding" : "spinning");
    return 0;
}

void faro_wait_more_here(void)
{
    /* auto: a spawned job, or a job connected to, shares this node's cores */
    if (faro_tun_int(FARO_TUN_WAIT_POLICY) == 2 && ++wait_here > wait_cores && !faro.yield) {
        faro.yield = 1;
        faro_info(1, "%d processes here on %d cores (with those of other jobs): waiting by "
                  "yielding from now on", wait_here, wait_cores);
    }
}

/* Every message this process posted has left it: core-tracked completions
 * and whatever transports still hold in their own queues. */
void faro_quiesce(void)
{
    for (;;) {
        int busy = faro.outstanding != 0;
        for (int i = 0; i < faro.ntps; i++) {
            struct faro_transport *t = &faro.tps[i];
            if (t->tp && t->used && t->ops->flush(t->tp, NULL) == FARO_TP_AGAIN)
                busy = 1;
        }
        if (!busy)
            return;
        faro_progress_idle(faro_progress());
    }
}

void faro_wireup_finalize(void)
{
    faro_dyn_finalize();
    for (int i = 0; i < faro.ntps; i++) {
        struct faro_transport *t = &faro.tps[i];
        if (t->tp)
            t->ops->finalize(t->tp);
        t->tp = NULL;
        faro_mpit_retire(t);
        free(tp_why[i]);
        tp_why[i] = NULL;
    }
    free(faro.tps);
    faro.tps = NULL;
    faro_progress_transports(); /* none left to poll */
    faro_peers_finalize();
    free(faro.node_of);
    free(faro.local_ranks);
}
