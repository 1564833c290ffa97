/*
 * Attributes and keyvals (owner: attr.c).
 *
 * Communicators, datatypes and windows (win.h) each carry a list; object
 * code calls these at duplication and free:
 *   faro_attr_copy_all(kind, old, old->attrs, new, &new->attrs)  runs copy callbacks
 *   faro_attr_delete_all(kind, obj, &obj->attrs)               runs delete callbacks
 * Both return MPI_SUCCESS or the error code a callback returned, unchanged
 * (raise it with faro_err_pass to keep the program's code), or a bare class
 * (MPI_ERR_NO_MEM) when the library itself failed; neither raises anything.
 *
 * copy_all: on failure the attributes already copied to the new object are
 * deleted again (their delete callbacks run) and *dst is left NULL, so a
 * following delete_all on the new object has nothing to do. A copy callback
 * may change the old object's other attributes: one deleted before its turn
 * is not copied, one set meanwhile neither.
 * delete_all: deletes newest first (the reverse of the order they were set,
 * as MPI_Finalize must for MPI_COMM_SELF); a delete callback may delete the
 * object's other attributes or set new ones (deleted in their turn). At the
 * first callback that fails it stops and leaves that attribute and the
 * older ones on the object, so the free that called it can fail and leave
 * the object usable.
 *
 * Both take the library lock at MPI_THREAD_MULTIPLE; callbacks run under it
 * (they may call MPI, the lock is recursive).
 */
#ifndef FARO_OBJECTS_ATTR_H
#define FARO_OBJECTS_ATTR_H

#include "mpi.h"

struct faro_attr;
enum faro_attr_kind { FARO_ATTR_COMM, FARO_ATTR_TYPE, FARO_ATTR_WIN };

int faro_attr_copy_all(int kind, void *oldobj, struct faro_attr *src, void *newobj,
                       struct faro_attr **dst);
int faro_attr_delete_all(int kind, void *obj, struct faro_attr **list);

/* MPI_Init: values of the predefined attributes known only then. */
void faro_attr_init(int appnum);

#endif
