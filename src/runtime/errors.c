/*
 * Errors. Every error raised in an MPI call carries its own message
 * ("MPI_Send: tag -5 is invalid (0..MPI_TAG_UB=...)"). The message is kept in a
 * small ring and its slot is folded into the returned code above the class
 * bits, so MPI_Error_string(code) gives back the exact message and
 * MPI_Error_class(code) the class.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "runtime/log.h"
#include "runtime/pmi.h"

#define RING 64
#define CLASS_BITS 8

static char ring[RING][MPI_MAX_ERROR_STRING - 96]; /* room for the class name */
static unsigned ring_next;

struct faro_errhandler faro_mpi_errors_are_fatal = {.kind = FARO_EH_FATAL, .predefined = 1};
struct faro_errhandler faro_mpi_errors_return = {.kind = FARO_EH_RETURN, .predefined = 1};
struct faro_errhandler faro_mpi_errors_abort = {.kind = FARO_EH_ABORT, .predefined = 1};

static const char *class_names[MPI_ERR_LASTCODE] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: other error",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid keyval",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: info key too long",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: info value too long",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: no such info key",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: spawn error",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: invalid name",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assert",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting RMA accesses",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong RMA synchronization",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: arguments differ between processes",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid access mode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: no such file",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: no space left",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already defined",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: conversion error",
    [MPI_ERR_IO] = "MPI_ERR_IO: I/O error",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory out of range",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_ERR_PROC_ABORTED] = "MPI_ERR_PROC_ABORTED: peer process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "MPI_ERR_VALUE_TOO_LARGE: value too large",
    [MPI_ERR_ERRHANDLER] = "MPI_ERR_ERRHANDLER: invalid error handler",
};

static int code_class(int code)
{
    return code > 0 ? code & ((1 << CLASS_BITS) - 1) : code;
}

_Noreturn void faro_fatal(int code, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    faro_error("%s", msg);
    int status = code_class(code);
    if (status <= 0 || status > 255)
        status = 1;
    faro_pmi_abort(status, msg); /* returns only without a process manager */
    _exit(status);
}

int faro_err(MPI_Comm comm, int errclass, const char *fmt, ...)
{
    unsigned slot = ring_next++ % RING;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ring[slot], sizeof ring[slot], fmt, ap);
    va_end(ap);
    int code = errclass | (int)((slot + 1) << CLASS_BITS);

    MPI_Errhandler eh = comm ? comm->errhandler : faro_mpi_comm_world.errhandler;
    switch (eh->kind) {
    case FARO_EH_RETURN:
        return code;
    case FARO_EH_USER:
        eh->fn(&comm, &code);
        return code;
    default:
        faro_fatal(errclass, "%s (%s; set MPI_ERRORS_RETURN on the communicator to handle "
                   "errors in the program)", ring[slot],
                   errclass < MPI_ERR_LASTCODE ? class_names[errclass] : "error");
    }
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int code, int *errclass)
{
    int c = code_class(code);
    if (c < 0 || c >= MPI_ERR_LASTCODE)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Error_class: %d is not an error code", code);
    *errclass = c;
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int code, char *string, int *resultlen)
{
    int c = code_class(code);
    if (c < 0 || c >= MPI_ERR_LASTCODE)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Error_string: %d is not an error code", code);
    unsigned slot = code > 0 ? (unsigned)code >> CLASS_BITS : 0;
    if (slot >= 1 && slot <= RING)
        snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", class_names[c], ring[slot - 1]);
    else
        snprintf(string, MPI_MAX_ERROR_STRING, "%s", class_names[c]);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

static int check_eh(const char *fn, MPI_Errhandler eh)
{
    if (eh == MPI_ERRHANDLER_NULL)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: errhandler is MPI_ERRHANDLER_NULL", fn);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
    if (faro_comm_check(comm))
        return faro_err(MPI_COMM_NULL, MPI_ERR_COMM,
                        "MPI_Comm_set_errhandler: invalid communicator");
    int rc = check_eh("MPI_Comm_set_errhandler", eh);
    if (rc)
        return rc;
    if (!eh->predefined)
        eh->refcount++;
    MPI_Errhandler old = comm->errhandler;
    comm->errhandler = eh;
    if (!old->predefined && --old->refcount == 0)
        free(old);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *eh)
{
    if (faro_comm_check(comm))
        return faro_err(MPI_COMM_NULL, MPI_ERR_COMM,
                        "MPI_Comm_get_errhandler: invalid communicator");
    *eh = comm->errhandler;
    if (!(*eh)->predefined)
        (*eh)->refcount++;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh)
{
    if (!fn)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Comm_create_errhandler: function is NULL");
    struct faro_errhandler *e = calloc(1, sizeof *e);
    if (!e)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler: no memory");
    e->kind = FARO_EH_USER;
    e->fn = fn;
    e->refcount = 1;
    *eh = e;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int code)
{
    if (faro_comm_check(comm))
        return faro_err(MPI_COMM_NULL, MPI_ERR_COMM,
                        "MPI_Comm_call_errhandler: invalid communicator");
    MPI_Errhandler eh = comm->errhandler;
    if (eh->kind == FARO_EH_USER)
        eh->fn(&comm, &code);
    else if (eh->kind != FARO_EH_RETURN)
        faro_fatal(code, "MPI_Comm_call_errhandler: error code %d raised by the program", code);
    return MPI_SUCCESS;
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *eh)
{
    if (!eh)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Errhandler_free: errhandler is NULL");
    int rc = check_eh("MPI_Errhandler_free", *eh);
    if (rc)
        return rc;
    if (!(*eh)->predefined && --(*eh)->refcount == 0)
        free(*eh);
    *eh = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
