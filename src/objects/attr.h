/*
 * Attributes and keyvals (owner: attr.c).
 *
 * Object code calls these at duplication and free:
 *   faro_attr_copy_all(kind, old, old->attrs, new, &new->attrs)  runs copy callbacks
 *   faro_attr_delete_all(kind, obj, &obj->attrs)               runs delete callbacks
 * Both return MPI_SUCCESS or the error code a callback returned.
 */
#ifndef FARO_OBJECTS_ATTR_H
#define FARO_OBJECTS_ATTR_H

#include "mpi.h"

struct faro_attr;
enum faro_attr_kind { FARO_ATTR_COMM, FARO_ATTR_TYPE, FARO_ATTR_WIN };

int faro_attr_copy_all(int kind, void *oldobj, struct faro_attr *src, void *newobj,
                       struct faro_attr **dst);
int faro_attr_delete_all(int kind, void *obj, struct faro_attr **list);

#endif
