/*
 * Groups (owner: group.c). A group is an ordered set of processes, kept as
 * the job (MPI_COMM_WORLD) rank of each member in group-rank order. Groups
 * are immutable once built, so a group is shared by reference counting.
 */
#ifndef FARO_OBJECTS_GROUP_H
#define FARO_OBJECTS_GROUP_H

#include <stdint.h>
#include "mpi.h"
#include "objects/predefined.h"

#define FARO_GROUP_MAGIC 0x47525550u

struct faro_group {
    uint32_t magic;
    int size;
    int rank;              /* this process's rank in the group, or MPI_UNDEFINED */
    int refcount;
    int predefined;        /* MPI_GROUP_EMPTY: never freed */
    int *world;            /* world[i]: job rank of group rank i (malloc'ed; the
                            * object itself comes from the group pool) */
};
FARO_PREDEFINED_WRAPPER(faro_group, GROUP);

int faro_group_check(MPI_Group g); /* 0 when g is a live group */
/* A new group of n members (world[] left for the caller to fill), refcount 1;
 * faro_group_finish() computes the caller's own rank once world[] is set. */
struct faro_group *faro_group_alloc(int n);
void faro_group_finish(struct faro_group *g);
/* A group of the members of a job-rank array (copied). NULL: no memory. */
struct faro_group *faro_group_from_world(int n, const int *world);
void faro_group_release(struct faro_group *g);
/* *result: MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL for two job-rank lists; -1
 * when out of memory. */
int faro_group_compare(const int *w1, int n1, const int *w2, int n2, int *result);

#endif
