/*
 * Independent reads and writes (MPI 3.1 sections 13.4.2 and 13.4.3): the
 * explicit-offset calls and the individual file pointer ones, and the access
 * engine every other data call (shared, collective, nonblocking) ends in.
 *
 * An access is a packed stream (the user's data in the datatype engine's
 * packed form; the user's buffer itself when its type is dense) and the file
 * extents of its view range. One extent: one pread/pwrite. Several (a
 * non-contiguous view): data sieving, as ROMIO does it. Reads take one read
 * of a span of at most ind_rd_buffer_size bytes and pick the pieces out;
 * writes read the span, put the pieces in and write it back, under an fcntl
 * write lock on the span so that other processes' writes into the holes are
 * not undone. romio_ds_read/romio_ds_write = disable turn sieving off (one
 * call per extent). In atomic mode (MPI_File_set_atomicity) the whole
 * access's span is locked (read lock for reads, write lock for writes) for
 * its duration, so concurrent overlapping accesses see each other whole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/file.h"

void faro_io_status(MPI_Status *status, int64_t bytes)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->faro_cancelled = 0;
    status->faro_count = bytes;
}

int64_t faro_io_stream_bytes(MPI_File fh, int count, MPI_Datatype type)
{
    (void)fh;
    return (int64_t)count * (int64_t)type->size;
}

int faro_io_check(const char *fn, MPI_File fh, const void *buf, int count, MPI_Datatype type,
                  int writing)
{
    (void)buf;
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (count < 0)
        return faro_file_err(fh, MPI_ERR_COUNT, "%s: count %d is negative", fn, count);
    if (faro_type_check(type))
        return faro_file_err(fh, MPI_ERR_TYPE, "%s: datatype is not a valid committed "
                             "datatype", fn);
    int access = fh->amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
    if (writing && access == MPI_MODE_RDONLY)
        return faro_file_err(fh, MPI_ERR_READ_ONLY, "%s: the file was opened with "
                             "MPI_MODE_RDONLY", fn);
    if (!writing && access == MPI_MODE_WRONLY)
        return faro_file_err(fh, MPI_ERR_ACCESS, "%s: the file was opened with "
                             "MPI_MODE_WRONLY (reading needs MPI_MODE_RDONLY or MPI_MODE_RDWR)",
                             fn);
    if (type->size % fh->etype->size)
        return faro_file_err(fh, MPI_ERR_TYPE, "%s: the datatype (%zu bytes) is not made of "
                             "whole etypes of the view (%zu bytes each)", fn, type->size,
                             fh->etype->size);
    return MPI_SUCCESS;
}

int faro_io_prepare(struct faro_io_access *a, const char *fn, MPI_File fh, void *buf, int count,
                    MPI_Datatype type, MPI_Offset off, int writing)
{
    *a = (struct faro_io_access){.fn = fn, .fh = fh, .buf = buf, .count = count, .type = type};
    if (off < 0)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: offset %lld is negative", fn,
                             (long long)off);
    a->pos = off * (int64_t)fh->etype->size;
    a->bytes = faro_io_stream_bytes(fh, count, type);
    if (a->bytes == 0)
        return MPI_SUCCESS;
    if (type->dense && !fh->external32) {
        a->stream = faro_type_dense_at(buf, type);
        return MPI_SUCCESS;
    }
    a->stream = malloc((size_t)a->bytes);
    if (!a->stream)
        return faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory (%lld bytes to stage)", fn,
                             (long long)a->bytes);
    a->own_stream = 1;
    if (!writing)
        return MPI_SUCCESS;
    if (!fh->external32) {
        faro_type_pack(buf, (size_t)count, type, a->stream);
        return MPI_SUCCESS;
    }
    MPI_Aint position = 0;
    int rc = PMPI_Pack_external("external32", buf, count, type, a->stream, (MPI_Aint)a->bytes,
                                &position);
    if (rc || position != (MPI_Aint)a->bytes) {
        free(a->stream);
        a->stream = NULL;
        return faro_file_err(fh, rc ? rc : MPI_ERR_UNSUPPORTED_DATAREP, "%s: the datatype's "
                             "external32 form (%ld bytes) differs in size from its native "
                             "form (%lld bytes): not supported in an external32 view", fn,
                             (long)position, (long long)a->bytes);
    }
    return MPI_SUCCESS;
}

int faro_io_finish(struct faro_io_access *a, int writing, int64_t got, MPI_Status *status)
{
    int rc = MPI_SUCCESS;
    if (!writing && a->own_stream && got > 0) {
        if (!a->fh->external32) {
            faro_type_unpack(a->stream, (size_t)got, a->buf, a->type);
        } else {
            MPI_Aint position = 0;
            int whole = (int)(got / (int64_t)a->type->size);
            rc = PMPI_Unpack_external("external32", a->stream, (MPI_Aint)got, &position, a->buf,
                                      whole, a->type);
            if (rc)
                rc = faro_file_err(a->fh, MPI_ERR_CONVERSION, "%s: the data read could not be "
                                   "converted from external32", a->fn);
        }
    }
    if (a->own_stream)
        free(a->stream);
    a->stream = NULL;
    faro_io_status(status, got);
    return rc;
}

/* Read span [off, off + len) into sieve, zero-filling past the end of the file. */
static int span_read(MPI_File fh, char *sieve, int64_t off, int64_t len, size_t *got)
{
    int err = fh->ops->pread(fh->fd, sieve, (size_t)len, off, got);
    if (!err && (int64_t)*got < len)
        memset(sieve + *got, 0, (size_t)(len - (int64_t)*got));
    return err;
}

/* Extents [i, j) of e that one sieve of at most limit bytes covers (j > i). */
static int window_end(const struct faro_io_ext *e, int n, int i, int64_t limit)
{
    int j = i + 1;
    while (j < n && e[j].off >= e[j - 1].off && e[j].off + e[j].len - e[i].off <= limit)
        j++;
    return j;
}

/* Move the stream to or from the extents; *got: stream bytes moved (a read
 * stops at the end of the file). Returns 0 or an errno. */
static int move(MPI_File fh, char *stream, const struct faro_io_ext *e, int n, int writing,
                int64_t *got)
{
    int sieve_on = writing ? fh->hints.ds_write != FARO_CB_DISABLE && fh->can_read
                           : fh->hints.ds_read != FARO_CB_DISABLE;
    int64_t limit = writing ? fh->hints.ind_wr_buffer_size : fh->hints.ind_rd_buffer_size;
    char *sieve = NULL;
    int err = 0;
    *got = 0;
    for (int i = 0; i < n && !err;) {
        int j = sieve_on ? window_end(e, n, i, limit) : i + 1;
        if (j == i + 1) { /* one extent: straight to the file */
            if (writing) {
                err = fh->ops->pwrite(fh->fd, stream + e[i].pos - e[0].pos, (size_t)e[i].len,
                                      e[i].off);
                *got += err ? 0 : e[i].len;
            } else {
                size_t g = 0;
                err = fh->ops->pread(fh->fd, stream + e[i].pos - e[0].pos, (size_t)e[i].len,
                                     e[i].off, &g);
                *got += (int64_t)g;
                if (!err && (int64_t)g < e[i].len)
                    break; /* end of file */
            }
            i = j;
            continue;
        }
        int64_t start = e[i].off, len = e[j - 1].off + e[j - 1].len - start;
        if (!sieve && !(sieve = malloc((size_t)limit)))
            return ENOMEM;
        if (writing && !fh->atomic && (err = fh->ops->lock(fh->fd, 1, start, len)))
            break;
        size_t have = 0;
        err = span_read(fh, sieve, start, len, &have);
        for (int k = i; k < j && !err; k++) {
            char *s = stream + e[k].pos - e[0].pos, *f = sieve + (e[k].off - start);
            if (writing) {
                memcpy(f, s, (size_t)e[k].len);
                continue;
            }
            int64_t avail = (int64_t)have - (e[k].off - start);
            int64_t take = avail < 0 ? 0 : avail < e[k].len ? avail : e[k].len;
            memcpy(s, f, (size_t)take);
            *got += take;
            if (take < e[k].len) {
                j = n; /* end of file: nothing further is read */
                break;
            }
        }
        if (writing && !err) {
            err = fh->ops->pwrite(fh->fd, sieve, (size_t)len, start);
            for (int k = i; k < j && !err; k++)
                *got += e[k].len;
        }
        if (writing && !fh->atomic)
            fh->ops->unlock(fh->fd, start, len);
        i = j;
    }
    free(sieve);
    return err;
}

int faro_io_independent(struct faro_io_access *a, int writing, int64_t *got)
{
    MPI_File fh = a->fh;
    *got = 0;
    if (a->bytes == 0)
        return MPI_SUCCESS;
    struct faro_io_ext *e;
    int n = faro_io_extents(fh, a->pos, a->bytes, &e);
    if (n < 0)
        return faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory", a->fn);
    int64_t lo = e[0].off, hi = e[n - 1].off + e[n - 1].len;
    int err = fh->atomic ? fh->ops->lock(fh->fd, writing, lo, hi - lo) : 0;
    if (!err) {
        err = move(fh, a->stream, e, n, writing, got);
        if (fh->atomic)
            fh->ops->unlock(fh->fd, lo, hi - lo);
    }
    free(e);
    if (err)
        return faro_file_errno(fh, err, a->fn, writing ? "writing" : "reading");
    return MPI_SUCCESS;
}

int faro_io_at(const char *fn, MPI_File fh, MPI_Offset off, void *buf, int count,
               MPI_Datatype type, MPI_Status *status, int writing)
{
    struct faro_io_access a;
    int rc = faro_io_check(fn, fh, buf, count, type, writing);
    if (rc || (rc = faro_io_prepare(&a, fn, fh, buf, count, type, off, writing)))
        return rc;
    int64_t got = 0;
    rc = faro_io_independent(&a, writing, &got);
    int rc2 = faro_io_finish(&a, writing, got, status);
    return rc ? rc : rc2;
}

/* The explicit-offset calls are refused on a sequential file. */
static int not_sequential(const char *fn, MPI_File fh)
{
    if (faro_file_check(fh) == 0 && (fh->amode & MPI_MODE_SEQUENTIAL))
        return faro_file_err(fh, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the file was opened with "
                             "MPI_MODE_SEQUENTIAL (only the shared file pointer may be used)",
                             fn);
    return MPI_SUCCESS;
}

#pragma weak MPI_File_read_at = PMPI_File_read_at
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype type,
                      MPI_Status *status)
{
    static const char fn[] = "MPI_File_read_at";
    FARO_LOCKED;
    int rc = not_sequential(fn, fh);
    return rc ? rc : faro_io_at(fn, fh, offset, buf, count, type, status, 0);
}

#pragma weak MPI_File_write_at = PMPI_File_write_at
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype type, MPI_Status *status)
{
    static const char fn[] = "MPI_File_write_at";
    FARO_LOCKED;
    int rc = not_sequential(fn, fh);
    return rc ? rc : faro_io_at(fn, fh, offset, (void *)buf, count, type, status, 1);
}

/* The individual pointer moves by the etypes actually moved. */
int faro_io_individual(const char *fn, MPI_File fh, void *buf, int count, MPI_Datatype type,
                       MPI_Status *status, int writing, int collective)
{
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    int rc = not_sequential(fn, fh);
    if (rc)
        return rc;
    MPI_Status st = {0};
    rc = collective ? faro_io_collective(fn, fh, fh->fp, buf, count, type, &st, writing)
                    : faro_io_at(fn, fh, fh->fp, buf, count, type, &st, writing);
    fh->fp += st.faro_count / (long long)fh->etype->size;
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    return rc;
}

#pragma weak MPI_File_read = PMPI_File_read
int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    FARO_LOCKED;
    return faro_io_individual("MPI_File_read", fh, buf, count, type, status, 0, 0);
}

#pragma weak MPI_File_write = PMPI_File_write
int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                    MPI_Status *status)
{
    FARO_LOCKED;
    return faro_io_individual("MPI_File_write", fh, (void *)buf, count, type, status, 1, 0);
}
