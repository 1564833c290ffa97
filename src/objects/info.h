/*
 * Info objects (owner: info.c): ordered (key, value) string pairs.
 */
#ifndef FARO_OBJECTS_INFO_H
#define FARO_OBJECTS_INFO_H

#include "mpi.h"
#include "objects/predefined.h"

#define FARO_INFO_MAGIC 0x1f0c0de5u

struct faro_info_entry {
    char *key, *val;
};

struct faro_info {
    unsigned magic;
    int predefined;
    int n, cap;                   /* entries in insertion order */
    struct faro_info_entry *ent;
};
FARO_PREDEFINED_WRAPPER(faro_info, INFO);

/* 0 when info is a live info object (MPI_INFO_NULL is not). */
int faro_info_check(MPI_Info info);
/* The value of key, or NULL; the string lives until the key is set or
 * deleted or the object freed. For hints read by other objects. */
const char *faro_info_value(MPI_Info info, const char *key);
/* A copy of info (MPI_INFO_NULL gives an empty one); NULL when out of memory.
 * For objects that keep the hints they were given (MPI_Comm_set_info). */
MPI_Info faro_info_copy(MPI_Info info);
void faro_info_destroy(MPI_Info info);
/* A copy of given with the keys of old that given lacks added (the set_info
 * calls of windows and files: hints set before and not given now stay); old
 * is destroyed when the copy is made. NULL when out of memory (old kept). */
MPI_Info faro_info_merged(MPI_Info old, MPI_Info given);

#endif
