/*
 * Communicators (owner: comm.c, context.c, topo.c).
 */
#ifndef FARO_OBJECTS_COMM_H
#define FARO_OBJECTS_COMM_H

#include <stdint.h>
#include "mpi.h"

struct faro_attr;

struct faro_comm {
    uint32_t context_id;   /* point-to-point matching context */
    int rank, size;
    int *world;            /* world[r]: job rank of comm rank r (NULL: identity) */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    int predefined;
    struct faro_attr *attrs; /* attribute list (attr.c) */
};

static inline int faro_comm_world_rank(MPI_Comm c, int r) { return c->world ? c->world[r] : r; }
int faro_comm_check(MPI_Comm c); /* 0 when usable */

#endif
