/*
 * Process topologies (owner: topo.c for Cartesian grids, topo_graph.c for
 * graphs and distributed graphs). One object per communicator; every array
 * lives in data[] so that a copy is one allocation and a memcpy.
 */
#ifndef FARO_OBJECTS_TOPO_H
#define FARO_OBJECTS_TOPO_H

#include <stddef.h>
#include "mpi.h"

struct faro_topo {
    int kind;                      /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART */
    int ndims;
    int *dims, *periods;
    int *nbrs;                     /* this process's neighbours: per dimension the -1,
                                    * then the +1 one (MPI_PROC_NULL off an edge) */
    /* MPI_GRAPH: the whole graph, as MPI_Graph_create took it */
    int nnodes, nedges;
    int *index, *edges;
    /* a pair of nodes (i, j) where i lists j more or fewer times than j lists
     * i, or {-1, -1}: neighbourhood collectives need a symmetric graph */
    int asym[2];
    /* MPI_DIST_GRAPH: this process's edges */
    int indegree, outdegree, weighted;
    int *sources, *sweights, *dests, *dweights;
    size_t n;                      /* ints in data[] */
    int data[];
};

/* A zeroed topology of the given kind with room for n ints. */
struct faro_topo *faro_topo_alloc(int kind, size_t n);
/* Collective over comm_old: its first `cells` ranks get a new communicator
 * carrying t (taken over; NULL at the others), the rest MPI_COMM_NULL. */
int faro_topo_comm(const char *fn, MPI_Comm comm_old, int cells, struct faro_topo *t,
                   MPI_Comm *out);

#endif
