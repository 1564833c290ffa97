/*
 * The node map of a communicator: which of its ranks share a node, for the
 * node-aware collectives (node_aware.c).
 *
 * Each rank computes the map on its own from what every rank already knows
 * alike, so no communication is needed and every rank gets the same map. A
 * member's node is its peer's node id (faro.peers[].node: equal for processes
 * on one host, by host name), or with FARO_NODE_SIZE=N > 0 its job rank / N,
 * a fake map that lets one machine test several "nodes" (only the collectives
 * see it; transports keep the real one). Job ranks mean nothing across jobs,
 * so a communicator with members beyond the job always gets the real map. Nodes are numbered in the order of
 * their lowest comm rank, the node's leader, so node 0 is rank 0's node and
 * the numbering is the same on every rank. The map is computed on first use
 * and cached on the communicator until it is destroyed.
 */
#include <stdlib.h>

#include "coll.h"
#include "base/tunables.h"

/* The job rank of member r of comm's own group (the local group of an
 * intercommunicator, though node-aware algorithms never run on one). */
static int member_job_rank(MPI_Comm comm, int r)
{
    return comm->world ? comm->world[r] : r;
}

static struct faro_coll_nodes *build(MPI_Comm comm)
{
    int size = comm->size, fake = (int)faro_tun_int(FARO_TUN_NODE_SIZE);
    if (fake > 0 && faro_comm_has_dynamic(comm))
        fake = 0;
    /* node keys: the real node id, or the fake node's number */
    int nkeys = fake > 0 ? (faro.size + fake - 1) / fake : faro.nhosts;
    struct faro_coll_nodes *m = calloc(1, sizeof *m);
    int *key_node = malloc((size_t)(nkeys > 0 ? nkeys : 1) * sizeof(int));
    int *count = NULL;
    if (!m || !key_node)
        goto fail;
    m->node_of = malloc((size_t)size * sizeof(int));
    if (!m->node_of)
        goto fail;
    for (int k = 0; k < nkeys; k++)
        key_node[k] = -1;

    /* Ranks in ascending order: a key seen for the first time is a new node
     * and this rank is its leader. */
    for (int r = 0; r < size; r++) {
        int job = member_job_rank(comm, r);
        int key = fake > 0 ? job / fake : (int)faro.peers[job].node;
        if (key_node[key] < 0)
            key_node[key] = m->nnodes++;
        m->node_of[r] = key_node[key];
    }
    m->my_node = m->node_of[comm->rank];

    count = calloc((size_t)m->nnodes, sizeof(int));
    m->leaders = malloc((size_t)m->nnodes * sizeof(int));
    if (!count || !m->leaders)
        goto fail;
    for (int r = 0; r < size; r++) {
        int n = m->node_of[r];
        if (count[n]++ == 0)
            m->leaders[n] = r;
        if (n == m->my_node && r == comm->rank)
            m->local_rank = count[n] - 1;
    }
    m->local_size = count[m->my_node];
    for (int n = 0; n < m->nnodes; n++)
        if (count[n] > m->max_local)
            m->max_local = count[n];
    m->local = malloc((size_t)m->local_size * sizeof(int));
    if (!m->local)
        goto fail;
    for (int r = 0, i = 0; r < size; r++)
        if (m->node_of[r] == m->my_node)
            m->local[i++] = r;
    free(key_node);
    free(count);
    return m;

fail:
    free(key_node);
    free(count);
    if (m) {
        free(m->node_of);
        free(m->leaders);
        free(m);
    }
    return NULL;
}

const struct faro_coll_nodes *faro_coll_nodes(MPI_Comm comm)
{
    if (!comm->coll_nodes)
        comm->coll_nodes = build(comm);
    return comm->coll_nodes;
}

void faro_coll_nodes_free(MPI_Comm comm)
{
    struct faro_coll_nodes *m = comm->coll_nodes;
    if (!m)
        return;
    free(m->node_of);
    free(m->leaders);
    free(m->local);
    free(m);
    comm->coll_nodes = NULL;
}
