/*
 * Argument checks shared by the collective entry points. Each raises its
 * error on the communicator (its errhandler decides) with a message naming
 * the function, the bad value and what is allowed.
 */
#include <stdio.h>

#include "coll.h"

int faro_coll_check_comm(const char *fn, MPI_Comm comm)
{
    if (!faro.initialized || faro.finalized)
        faro_fatal(MPI_ERR_OTHER, "%s called %s", fn,
                   faro.finalized ? "after MPI_Finalize" : "before MPI_Init");
    if (faro_comm_check(comm))
        return faro_comm_bad(fn, comm);
    return MPI_SUCCESS;
}

int faro_coll_check_count(const char *fn, MPI_Comm comm, int count, const char *what)
{
    if (count < 0)
        return faro_err(comm, MPI_ERR_COUNT, "%s: %s %d is negative (0 or more)", fn, what,
                        count);
    return MPI_SUCCESS;
}

int faro_coll_check_type(const char *fn, MPI_Comm comm, MPI_Datatype t, const char *what)
{
    if (!faro_type_check(t))
        return MPI_SUCCESS;
    if (t == MPI_DATATYPE_NULL)
        return faro_err(comm, MPI_ERR_TYPE, "%s: %s is MPI_DATATYPE_NULL", fn, what);
    if (faro_type_valid(t))
        return faro_err(comm, MPI_ERR_TYPE,
                        "%s: %s is not a datatype (freed with MPI_Type_free?)", fn, what);
    return faro_err(comm, MPI_ERR_TYPE,
                    "%s: %s is not committed (call MPI_Type_commit before using it in "
                    "communication)",
                    fn, what);
}

int faro_coll_check_buf(const char *fn, MPI_Comm comm, int count, MPI_Datatype t,
                        const char *what)
{
    char name[32];
    snprintf(name, sizeof name, "%scount", what);
    int rc = faro_coll_check_count(fn, comm, count, name);
    if (rc)
        return rc;
    snprintf(name, sizeof name, "%stype", what);
    return faro_coll_check_type(fn, comm, t, name);
}

int faro_coll_check_root(const char *fn, MPI_Comm comm, int root)
{
    if (root < 0 || root >= comm->size)
        return faro_err(comm, MPI_ERR_ROOT, "%s: root %d is invalid (communicator size %d: 0..%d)",
                        fn, root, comm->size, comm->size - 1);
    return MPI_SUCCESS;
}

int faro_coll_check_op(const char *fn, MPI_Comm comm, MPI_Op op, MPI_Datatype t)
{
    if (op == MPI_OP_NULL)
        return faro_err(comm, MPI_ERR_OP, "%s: op is MPI_OP_NULL", fn);
    char msg[256];
    msg[0] = '\0';
    int cls = faro_op_valid(op, t, msg, sizeof msg);
    if (cls)
        return faro_err(comm, cls, "%s: %s", fn, msg[0] ? msg : "invalid op for this datatype");
    return MPI_SUCCESS;
}

int faro_coll_check_reduction(const char *fn, MPI_Comm comm, const void *sendbuf,
                              const void *recvbuf, int count, MPI_Datatype type, MPI_Op op)
{
    int rc = faro_coll_check_buf(fn, comm, count, type, "");
    if (!rc)
        rc = faro_coll_check_op(fn, comm, op, type);
    if (rc)
        return rc;
    if (recvbuf == MPI_IN_PLACE)
        return faro_coll_err_in_place(fn, comm, "recvbuf");
    if (sendbuf == recvbuf && (size_t)count * type->size > 0)
        return faro_coll_err_alias(fn, comm);
    return MPI_SUCCESS;
}

int faro_coll_check_counts(const char *fn, MPI_Comm comm, const int *counts, int n,
                           const char *what)
{
    if (!counts && n > 0)
        return faro_err(comm, MPI_ERR_ARG, "%s: %s is NULL (an array of %d counts)", fn, what, n);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return faro_err(comm, MPI_ERR_COUNT, "%s: %s[%d] = %d is negative (0 or more)", fn,
                            what, i, counts[i]);
    return MPI_SUCCESS;
}

int faro_coll_err_in_place(const char *fn, MPI_Comm comm, const char *which)
{
    return faro_err(comm, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed as %s", fn, which);
}

int faro_coll_err_alias(const char *fn, MPI_Comm comm)
{
    return faro_err(comm, MPI_ERR_BUFFER,
                    "%s: sendbuf and recvbuf are the same buffer (pass MPI_IN_PLACE as sendbuf "
                    "for an in-place operation)",
                    fn);
}
