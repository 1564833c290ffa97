/*
 * The shared file pointer (MPI 3.1 section 13.4.4): MPI_File_read/write_shared,
 * the ordered calls, seek_shared and get_position_shared.
 *
 * Design: the pointer is an 8-byte counter (a view position in etypes, from
 * the handle's shbase) in a hidden sidecar file next to the data file
 * ("<path>.faro-shfp-<tag>", the tag chosen by rank 0 at open). A call takes
 * an fcntl write lock on the sidecar, reads the counter, writes it advanced,
 * and unlocks; the data access then happens outside the lock. This works
 * wherever the data file is shared and fcntl locks work (one node, NFS with
 * lockd, Lustre, GPFS), needs no process to serve the counter and no
 * progress from the other members, which MPI's independent shared-pointer
 * calls require (a member may never call MPI again). The sidecar is made on
 * first use (an empty one reads as 0) and removed by rank 0 at close. The
 * ordered calls do not touch the counter per member: a scan gives each its
 * place and rank 0 advances the counter once by the total.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "io/file.h"

static int sidecar(MPI_File fh)
{
    if (fh->shfd >= 0)
        return 0;
    return fh->ops->open(fh->shpath, O_RDWR | O_CREAT, 0600, &fh->shfd);
}

void faro_io_shared_close(MPI_File fh)
{
    if (fh->shfd >= 0)
        fh->ops->close(fh->shfd);
    fh->shfd = -1;
}

/* Under the sidecar's lock: read the counter, and write it plus add when set. */
static int counter(MPI_File fh, int64_t *value, int write, int64_t set_to)
{
    int err = sidecar(fh);
    if (err || (err = fh->ops->lock(fh->shfd, 1, 0, 0)))
        return err;
    int64_t v = 0;
    size_t got = 0;
    err = fh->ops->pread(fh->shfd, &v, sizeof v, 0, &got);
    if (got < sizeof v)
        v = 0;
    if (!err && write) {
        int64_t nv = set_to >= 0 ? set_to : v - set_to - 1;
        err = fh->ops->pwrite(fh->shfd, &nv, sizeof nv, 0);
    }
    fh->ops->unlock(fh->shfd, 0, 0);
    *value = v;
    return err;
}

int faro_io_shared_fetch_add(const char *fn, MPI_File fh, MPI_Offset n, MPI_Offset *old)
{
    int64_t v;
    int err = counter(fh, &v, n != 0, -1 - n);
    if (err)
        return faro_file_err(fh, faro_io_errclass(err), "%s: the shared file pointer's file "
                             "%s could not be updated: %s (it lives next to the data file; "
                             "its directory must be writable)", fn, fh->shpath, strerror(err));
    *old = fh->shbase + v;
    return MPI_SUCCESS;
}

static int shared_access(const char *fn, MPI_File fh, void *buf, int count, MPI_Datatype type,
                         MPI_Status *status, int writing)
{
    int rc = faro_io_check(fn, fh, buf, count, type, writing);
    if (rc)
        return rc;
    MPI_Offset at;
    MPI_Offset n = faro_io_stream_bytes(fh, count, type) / (int64_t)fh->etype->size;
    if ((rc = faro_io_shared_fetch_add(fn, fh, n, &at)))
        return rc;
    return faro_io_at(fn, fh, at, buf, count, type, status, writing);
}

#pragma weak MPI_File_read_shared = PMPI_File_read_shared
int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype type,
                          MPI_Status *status)
{
    FARO_LOCKED;
    return shared_access("MPI_File_read_shared", fh, buf, count, type, status, 0);
}

#pragma weak MPI_File_write_shared = PMPI_File_write_shared
int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                           MPI_Status *status)
{
    FARO_LOCKED;
    return shared_access("MPI_File_write_shared", fh, (void *)buf, count, type, status, 1);
}

int faro_io_ordered(const char *fn, MPI_File fh, void *buf, int count, MPI_Datatype type,
                    MPI_Status *status, int writing)
{
    int rc = faro_io_check(fn, fh, buf, count, type, writing);
    long long n = rc ? 0 : faro_io_stream_bytes(fh, count, type) / (int64_t)fh->etype->size;
    long long before = 0, total = 0, at = 0;
    /* Every member takes part even after a local error, so the others do not hang. */
    if (faro_file_check(fh))
        return rc;
    PMPI_Exscan(&n, &before, 1, MPI_LONG_LONG, MPI_SUM, fh->comm);
    PMPI_Allreduce(&n, &total, 1, MPI_LONG_LONG, MPI_SUM, fh->comm);
    if (fh->rank == 0) {
        before = 0;
        MPI_Offset old = 0;
        int rc0 = faro_io_shared_fetch_add(fn, fh, total, &old);
        at = rc0 ? -1 : old;
    }
    PMPI_Bcast(&at, 1, MPI_LONG_LONG, 0, fh->comm);
    if (rc)
        return rc;
    if (at < 0)
        return faro_file_err(fh, MPI_ERR_IO, "%s: rank 0 could not update the shared file "
                             "pointer", fn);
    return faro_io_at(fn, fh, at + before, buf, count, type, status, writing);
}

#pragma weak MPI_File_read_ordered = PMPI_File_read_ordered
int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype type,
                           MPI_Status *status)
{
    FARO_LOCKED;
    return faro_io_ordered("MPI_File_read_ordered", fh, buf, count, type, status, 0);
}

#pragma weak MPI_File_write_ordered = PMPI_File_write_ordered
int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                            MPI_Status *status)
{
    FARO_LOCKED;
    return faro_io_ordered("MPI_File_write_ordered", fh, (void *)buf, count, type, status, 1);
}

#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char fn[] = "MPI_File_seek_shared";
    FARO_LOCKED;
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    long long mine[2] = {offset, whence};
    if (!faro_io_same(fh->comm, mine, 2))
        return faro_file_err(fh, MPI_ERR_NOT_SAME, "%s: the members passed different offsets "
                             "or whence values (they must be the same at every member)", fn);
    long long target = 0;
    int rc = MPI_SUCCESS;
    if (fh->rank == 0) {
        MPI_Offset cur = 0, to = 0;
        if (whence == MPI_SEEK_CUR)
            rc = faro_io_shared_fetch_add(fn, fh, 0, &cur);
        if (!rc)
            rc = faro_io_seek_target(fn, fh, cur, offset, whence, &to);
        if (!rc) { /* the counter becomes absolute (shbase 0 from here on) */
            int64_t v;
            int err = 0;
            if (fh->shfd < 0 && to == 0) { /* no sidecar yet: it reads as 0 already */
                int fd;
                err = fh->ops->open(fh->shpath, O_RDWR, 0600, &fd);
                if (err == 0)
                    fh->shfd = fd;
            }
            err = fh->shfd < 0 && to == 0 && err == ENOENT ? 0 : counter(fh, &v, 1, to);
            if (err)
                rc = faro_file_err(fh, faro_io_errclass(err), "%s: the shared file pointer's "
                                   "file %s could not be updated: %s", fn, fh->shpath,
                                   strerror(err));
        }
        target = rc ? -1 : to;
    }
    PMPI_Bcast(&target, 1, MPI_LONG_LONG, 0, fh->comm);
    if (target >= 0)
        fh->shbase = 0;
    if (fh->rank != 0 && target < 0)
        rc = faro_file_err(fh, MPI_ERR_IO, "%s: rank 0 could not move the shared file pointer",
                           fn);
    return rc;
}

#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    static const char fn[] = "MPI_File_get_position_shared";
    FARO_LOCKED;
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (!offset)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: offset is NULL", fn);
    return faro_io_shared_fetch_add(fn, fh, 0, offset);
}
