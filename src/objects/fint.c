/*
 * Integer handles (MPI_X_c2f / MPI_X_f2c) for every handle type Faro has,
 * through the table of handles.c, and the status conversions. The integer
 * of a null handle is 0; an integer that names no live object converts back
 * to the null handle. The Fortran bindings (fortran/, libfaro_mpifort) use
 * these integers as Fortran's handles; programs and tools (mpi4py's
 * py2f/f2py) that keep handles as integers use them too.
 */
#include <string.h>

#include "core.h"

#define CONVERT(Name, Type, kind)                                          \
    _Pragma(FARO_STR(weak MPI_##Name##_c2f = PMPI_##Name##_c2f))           \
    MPI_Fint PMPI_##Name##_c2f(Type h)                                     \
    {                                                                      \
        return faro_handle_c2f(kind, h);                                   \
    }                                                                      \
    _Pragma(FARO_STR(weak MPI_##Name##_f2c = PMPI_##Name##_f2c))           \
    Type PMPI_##Name##_f2c(MPI_Fint f)                                     \
    {                                                                      \
        return (Type)faro_handle_f2c(kind, f);                             \
    }
#define FARO_STR(x) #x

CONVERT(Comm, MPI_Comm, FARO_H_COMM)
CONVERT(Type, MPI_Datatype, FARO_H_TYPE)
CONVERT(Group, MPI_Group, FARO_H_GROUP)
CONVERT(Request, MPI_Request, FARO_H_REQUEST)
CONVERT(Op, MPI_Op, FARO_H_OP)
CONVERT(Info, MPI_Info, FARO_H_INFO)
CONVERT(Errhandler, MPI_Errhandler, FARO_H_ERRHANDLER)
CONVERT(Message, MPI_Message, FARO_H_MESSAGE)
CONVERT(Win, MPI_Win, FARO_H_WIN)

/* The integer form of a status is the C struct's words (MPI_F_STATUS_SIZE),
 * so MPI_F_SOURCE/TAG/ERROR index the public fields. */
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
               offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
               offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint) &&
               sizeof(MPI_Status) % sizeof(MPI_Fint) == 0,
               "MPI_Status must be whole MPI_Fint words with the public fields first");

#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (!c_status || !f_status)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Status_c2f: %s is NULL%s",
                        c_status ? "f_status" : "c_status",
                        c_status ? "" : " (MPI_STATUS_IGNORE cannot be converted)");
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_f2c = PMPI_Status_f2c
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (!c_status || !f_status)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Status_f2c: %s is NULL",
                        c_status ? "f_status" : "c_status");
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (!status)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled: status is NULL "
                        "(MPI_STATUS_IGNORE has nothing to set)");
    status->faro_cancelled = flag != 0;
    return MPI_SUCCESS;
}
