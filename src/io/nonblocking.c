/*
 * The nonblocking data calls (MPI 3.1 sections 13.4.2-13.4.5): MPI_File_iread,
 * iwrite, iread_at, iwrite_at, iread_shared, iwrite_shared and MPI-3.1's
 * iread_all, iwrite_all, iread_at_all and iwrite_at_all.
 *
 * Each call does its member's access at the call, the way the blocking
 * independent call does it (rw.c: one pread/pwrite, or data sieving), and
 * returns a generalized request that is already complete and carries the
 * status. For the collective ones this means they never wait for the other
 * members: a member may call MPI_File_iwrite_all and then wait for a message
 * another member sends before its own call, with no deadlock. The price is
 * that they do not use collective buffering (two_phase.c needs every member
 * at once); the blocking and split collectives do.
 */
#include <stdlib.h>

#include "io/file.h"

static int query(void *extra, MPI_Status *status)
{
    *status = *(MPI_Status *)extra;
    return MPI_SUCCESS;
}

static int release(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int no_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* A complete request whose status is st. */
static int done_request(const char *fn, MPI_File fh, const MPI_Status *st, MPI_Request *req)
{
    MPI_Status *keep = malloc(sizeof *keep);
    if (!keep)
        return faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *keep = *st;
    keep->MPI_ERROR = MPI_SUCCESS;
    if (PMPI_Grequest_start(query, release, no_cancel, keep, req)) {
        free(keep);
        return faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    PMPI_Grequest_complete(*req);
    return MPI_SUCCESS;
}

enum { NB_AT, NB_FP, NB_SHARED };

static int nb(const char *fn, MPI_File fh, int kind, MPI_Offset off, void *buf, int count,
              MPI_Datatype type, MPI_Request *req, int writing)
{
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (!req)
        return faro_file_err(fh, MPI_ERR_REQUEST, "%s: request is NULL", fn);
    *req = MPI_REQUEST_NULL;
    if (kind != NB_SHARED && (fh->amode & MPI_MODE_SEQUENTIAL))
        return faro_file_err(fh, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the file was opened with "
                             "MPI_MODE_SEQUENTIAL (only the shared file pointer may be used)",
                             fn);
    MPI_Status st = {0};
    int rc = faro_io_check(fn, fh, buf, count, type, writing);
    if (rc)
        return rc;
    if (kind == NB_SHARED) {
        MPI_Offset n = faro_io_stream_bytes(fh, count, type) / (int64_t)fh->etype->size;
        if ((rc = faro_io_shared_fetch_add(fn, fh, n, &off)))
            return rc;
    }
    if (kind == NB_FP)
        rc = faro_io_individual(fn, fh, buf, count, type, &st, writing, 0);
    else
        rc = faro_io_at(fn, fh, off, buf, count, type, &st, writing);
    return rc ? rc : done_request(fn, fh, &st, req);
}

#pragma weak MPI_File_iread_at = PMPI_File_iread_at
int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype type,
                       MPI_Request *request)
{
    FARO_LOCKED;
    return nb("MPI_File_iread_at", fh, NB_AT, offset, buf, count, type, request, 0);
}

#pragma weak MPI_File_iwrite_at = PMPI_File_iwrite_at
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                        MPI_Datatype type, MPI_Request *request)
{
    FARO_LOCKED;
    return nb("MPI_File_iwrite_at", fh, NB_AT, offset, (void *)buf, count, type, request, 1);
}

#pragma weak MPI_File_iread_at_all = PMPI_File_iread_at_all
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype type, MPI_Request *request)
{
    FARO_LOCKED;
    return nb("MPI_File_iread_at_all", fh, NB_AT, offset, buf, count, type, request, 0);
}

#pragma weak MPI_File_iwrite_at_all = PMPI_File_iwrite_at_all
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                            MPI_Datatype type, MPI_Request *request)
{
    FARO_LOCKED;
    return nb("MPI_File_iwrite_at_all", fh, NB_AT, offset, (void *)buf, count, type, request,
              1);
}

#pragma weak MPI_File_iread = PMPI_File_iread
int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Request *request)
{
    FARO_LOCKED;
    return nb("MPI_File_iread", fh, NB_FP, 0, buf, count, type, request, 0);
}

#pragma weak MPI_File_iwrite = PMPI_File_iwrite
int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                     MPI_Request *request)
{
    FARO_LOCKED;
    return nb("MPI_File_iwrite", fh, NB_FP, 0, (void *)buf, count, type, request, 1);
}

#pragma weak MPI_File_iread_all = PMPI_File_iread_all
int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype type,
                        MPI_Request *request)
{
    FARO_LOCKED;
    return nb("MPI_File_iread_all", fh, NB_FP, 0, buf, count, type, request, 0);
}

#pragma weak MPI_File_iwrite_all = PMPI_File_iwrite_all
int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                         MPI_Request *request)
{
    FARO_LOCKED;
    return nb("MPI_File_iwrite_all", fh, NB_FP, 0, (void *)buf, count, type, request, 1);
}

#pragma weak MPI_File_iread_shared = PMPI_File_iread_shared
int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype type,
                           MPI_Request *request)
{
    FARO_LOCKED;
    return nb("MPI_File_iread_shared", fh, NB_SHARED, 0, buf, count, type, request, 0);
}

#pragma weak MPI_File_iwrite_shared = PMPI_File_iwrite_shared
int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                            MPI_Request *request)
{
    FARO_LOCKED;
    return nb("MPI_File_iwrite_shared", fh, NB_SHARED, 0, (void *)buf, count, type, request,
              1);
}
