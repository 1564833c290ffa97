/*
 * Attributes and keyvals. Until keyvals exist no object carries attributes,
 * so copying and deleting an object's attributes has nothing to do.
 */
#include "core.h"

int faro_attr_copy_all(int kind, void *oldobj, struct faro_attr *src, void *newobj,
                       struct faro_attr **dst)
{
    (void)kind, (void)oldobj, (void)src, (void)newobj;
    *dst = NULL;
    return MPI_SUCCESS;
}

int faro_attr_delete_all(int kind, void *obj, struct faro_attr **list)
{
    (void)kind, (void)obj;
    *list = NULL;
    return MPI_SUCCESS;
}
