/*
 * File views (MPI 3.1 section 13.3): which bytes of the file a process sees,
 * as a stream. The view is a displacement, an etype (the unit of offsets) and
 * a filetype tiled from the displacement on; the stream is the filetype's
 * data bytes in typemap order, tile after tile.
 *
 * MPI_File_set_view copies the filetype's runs (the datatype engine's
 * flattened form, datatype.h: n pieces of len bytes at a stride) into the
 * handle once; every access then maps its stream range to file extents by a
 * search over those runs (faro_io_extents), without looking at the datatype
 * again. Also here: MPI_File_get_view, get_byte_offset, seek, get_position
 * and MPI_Register_datarep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/file.h"

void faro_view_free(MPI_File fh)
{
    faro_type_release(fh->etype);
    faro_type_release(fh->filetype);
    fh->etype = fh->filetype = NULL;
    free(fh->runs);
    fh->runs = NULL;
    fh->nrun = 0;
}

/* Copy the filetype's runs; with them the view no longer reads the type. */
static int view_install(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype ft,
                        int external32)
{
    struct faro_run *runs = malloc((size_t)(ft->nrun ? ft->nrun : 1) * sizeof *runs);
    if (!runs)
        return -1;
    memcpy(runs, ft->run, (size_t)ft->nrun * sizeof *runs);
    faro_type_retain(etype);
    faro_type_retain(ft);
    faro_view_free(fh);
    fh->disp = disp;
    fh->etype = etype;
    fh->filetype = ft;
    fh->runs = runs;
    fh->nrun = ft->nrun;
    fh->ft_size = ft->size;
    fh->ft_extent = ft->extent;
    fh->ft_contig = ft->dense;
    fh->external32 = external32;
    fh->fp = 0;
    return 0;
}

void faro_view_default(MPI_File fh)
{
    if (view_install(fh, 0, MPI_BYTE, MPI_BYTE, 0) == 0)
        strcpy(fh->datarep, "native");
}

/* The run holding packed byte q of one tile (runs are in stream order). */
static int run_of(MPI_File fh, size_t q)
{
    int lo = 0, hi = fh->nrun - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (fh->runs[mid].pos <= q)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int faro_io_extents(MPI_File fh, int64_t pos, int64_t n, struct faro_io_ext **out)
{
    *out = NULL;
    if (n <= 0)
        return 0;
    if (fh->ft_contig) { /* the stream is the file from disp + the piece's offset */
        struct faro_io_ext *e = malloc(sizeof *e);
        if (!e)
            return -1;
        *e = (struct faro_io_ext){fh->disp + fh->runs[0].off + pos, n, pos};
        *out = e;
        return 1;
    }
    int64_t size = (int64_t)fh->ft_size;
    int64_t tile = pos / size;
    size_t q = (size_t)(pos % size);
    int cap = 16, k = 0;
    struct faro_io_ext *e = malloc((size_t)cap * sizeof *e);
    if (!e)
        return -1;
    int r = run_of(fh, q);
    size_t i = (q - fh->runs[r].pos) / fh->runs[r].len;
    size_t within = (q - fh->runs[r].pos) % fh->runs[r].len;
    int64_t done = 0;
    while (done < n) {
        const struct faro_run *run = &fh->runs[r];
        int64_t off = fh->disp + tile * fh->ft_extent + run->off + (int64_t)i * run->stride +
                      (int64_t)within;
        int64_t len = (int64_t)(run->len - within);
        if (len > n - done)
            len = n - done;
        if (len > 0) {
            if (k > 0 && e[k - 1].off + e[k - 1].len == off) {
                e[k - 1].len += len;
            } else {
                if (k == cap) {
                    cap *= 2;
                    struct faro_io_ext *m = realloc(e, (size_t)cap * sizeof *e);
                    if (!m) {
                        free(e);
                        return -1;
                    }
                    e = m;
                }
                e[k++] = (struct faro_io_ext){off, len, pos + done};
            }
            done += len;
        }
        within = 0;
        if (++i == run->n) { /* next run, or the next tile */
            i = 0;
            if (++r == fh->nrun) {
                r = 0;
                tile++;
            }
        }
    }
    *out = e;
    return k;
}

/* The file offset of stream byte pos (the start of its piece's byte). */
static MPI_Offset locate(MPI_File fh, int64_t pos)
{
    if (fh->ft_size == 0)
        return fh->disp;
    if (fh->ft_contig)
        return fh->disp + fh->runs[0].off + pos;
    int64_t tile = pos / (int64_t)fh->ft_size;
    size_t q = (size_t)(pos % (int64_t)fh->ft_size);
    int r = run_of(fh, q);
    const struct faro_run *run = &fh->runs[r];
    size_t i = (q - run->pos) / run->len, within = (q - run->pos) % run->len;
    return fh->disp + tile * fh->ft_extent + run->off + (MPI_Offset)i * run->stride +
           (MPI_Offset)within;
}

MPI_Offset faro_view_byte_offset(MPI_File fh, MPI_Offset off)
{
    return locate(fh, off * (int64_t)fh->etype->size);
}

/* How many stream bytes lie below file offset end (for MPI_SEEK_END). */
static int64_t stream_below(MPI_File fh, int64_t end)
{
    if (end <= fh->disp || fh->ft_size == 0)
        return 0;
    if (fh->ft_contig) {
        int64_t b = end - fh->disp - fh->runs[0].off;
        return b > 0 ? b : 0;
    }
    int64_t rel = end - fh->disp;
    int64_t tiles = fh->ft_extent > 0 ? rel / fh->ft_extent : 0;
    int64_t rest = rel - tiles * fh->ft_extent, bytes = tiles * (int64_t)fh->ft_size;
    for (int r = 0; r < fh->nrun; r++) {
        const struct faro_run *run = &fh->runs[r];
        for (size_t i = 0; i < run->n; i++) {
            int64_t start = run->off + (int64_t)i * run->stride;
            if (start >= rest)
                continue;
            int64_t have = rest - start;
            bytes += have < (int64_t)run->len ? have : (int64_t)run->len;
        }
    }
    return bytes;
}

/* Registered data representations: the names, kept for the process's life (the
 * standard gives no way to remove one). A view may use one whose conversion
 * functions are both MPI_CONVERSION_FN_NULL (the data stays native) and whose
 * extent function gives the etype's native extent; conversion functions are
 * not called yet (set_view says so). */
#define DATAREP_MAX 64
static struct datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read_fn, *write_fn;
    MPI_Datarep_extent_function *extent_fn;
    void *extra_state;
} datareps[DATAREP_MAX];
static int ndatarep;

static const struct datarep *datarep_find(const char *name)
{
    for (int i = 0; i < ndatarep; i++)
        if (!strcmp(datareps[i].name, name))
            return &datareps[i];
    return NULL;
}

#pragma weak MPI_Register_datarep = PMPI_Register_datarep
int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_fn,
                          MPI_Datarep_conversion_function *write_fn,
                          MPI_Datarep_extent_function *extent_fn, void *extra_state)
{
    static const char fn[] = "MPI_Register_datarep";
    FARO_LOCKED;
    if (!datarep || !*datarep || strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return faro_file_err(MPI_FILE_NULL, MPI_ERR_ARG, "%s: the name is %s (1 to %d "
                             "characters)", fn, datarep ? "empty or too long" : "NULL",
                             MPI_MAX_DATAREP_STRING - 1);
    if (!extent_fn)
        return faro_file_err(MPI_FILE_NULL, MPI_ERR_ARG, "%s: extent_fn is NULL (every data "
                             "representation needs one)", fn);
    if (!strcmp(datarep, "native") || !strcmp(datarep, "internal") ||
        !strcmp(datarep, "external32") || datarep_find(datarep))
        return faro_file_err(MPI_FILE_NULL, MPI_ERR_DUP_DATAREP, "%s: '%s' is %s", fn, datarep,
                             datarep_find(datarep) ? "registered already"
                                                   : "a predefined data representation");
    if (ndatarep == DATAREP_MAX)
        return faro_file_err(MPI_FILE_NULL, MPI_ERR_NO_MEM, "%s: %d data representations are "
                             "registered already (the most Faro keeps)", fn, DATAREP_MAX);
    struct datarep *d = &datareps[ndatarep++];
    snprintf(d->name, sizeof d->name, "%s", datarep);
    d->read_fn = read_fn;
    d->write_fn = write_fn;
    d->extent_fn = extent_fn;
    d->extra_state = extra_state;
    return MPI_SUCCESS;
}

/* A registered representation a view can use: no conversion, native extents. */
static int datarep_usable(const char *fn, MPI_File fh, const char *name, MPI_Datatype etype)
{
    const struct datarep *d = datarep_find(name);
    if (!d)
        return faro_file_err(fh, MPI_ERR_UNSUPPORTED_DATAREP, "%s: data representation '%s' is "
                             "not known (native, internal, external32, or one registered "
                             "with MPI_Register_datarep)", fn, name);
    if (d->read_fn != MPI_CONVERSION_FN_NULL || d->write_fn != MPI_CONVERSION_FN_NULL)
        return faro_file_err(fh, MPI_ERR_UNSUPPORTED_DATAREP, "%s: data representation '%s' "
                             "has conversion functions, which Faro does not call yet (only "
                             "MPI_CONVERSION_FN_NULL for both)", fn, name);
    MPI_Aint ext = 0;
    int rc = d->extent_fn(etype, &ext, d->extra_state);
    if (rc != MPI_SUCCESS || ext != etype->extent)
        return faro_file_err(fh, MPI_ERR_UNSUPPORTED_DATAREP, "%s: data representation '%s' "
                             "gives the etype an extent of %ld bytes (native: %ld)%s: Faro keeps "
                             "files in the native layout", fn, name, (long)ext,
                             (long)etype->extent, rc ? ", or its extent function failed" : "");
    return MPI_SUCCESS;
}

#pragma weak MPI_File_set_view = PMPI_File_set_view
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    static const char fn[] = "MPI_File_set_view";
    FARO_LOCKED;
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    int rc = MPI_SUCCESS;
    if (faro_type_check(etype) || faro_type_check(filetype))
        rc = faro_file_err(fh, MPI_ERR_TYPE, "%s: the %s is not a valid committed datatype",
                           fn, faro_type_check(etype) ? "etype" : "filetype");
    if (!rc && !datarep)
        rc = faro_file_err(fh, MPI_ERR_ARG, "%s: datarep is NULL", fn);
    if (!rc && info != MPI_INFO_NULL && faro_info_check(info))
        rc = faro_file_err(fh, MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    if (!rc && fh->split_active)
        rc = faro_file_err(fh, MPI_ERR_OTHER, "%s: the split collective %s is outstanding "
                           "on this file (call its _end first)", fn, fh->split_fn);
    int ext32 = datarep && !strcmp(datarep, "external32");
    if (!rc && !ext32 && strcmp(datarep, "native") && strcmp(datarep, "internal"))
        rc = datarep_usable(fn, fh, datarep, etype);
    if (!rc && disp == MPI_DISPLACEMENT_CURRENT && !(fh->amode & MPI_MODE_SEQUENTIAL))
        rc = faro_file_err(fh, MPI_ERR_ARG, "%s: MPI_DISPLACEMENT_CURRENT is allowed only on "
                           "a file opened with MPI_MODE_SEQUENTIAL", fn);
    if (!rc && disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
        rc = faro_file_err(fh, MPI_ERR_ARG, "%s: displacement %lld is negative", fn,
                           (long long)disp);
    if (!rc && (etype->size == 0 || filetype->size == 0 || filetype->size % etype->size != 0))
        rc = faro_file_err(fh, MPI_ERR_TYPE, "%s: the filetype (%zu data bytes) is not made "
                           "of whole etypes (%zu bytes each); both must hold data", fn,
                           filetype->size, etype->size);
    if (!rc && filetype->size > 0 && filetype->extent <= 0)
        rc = faro_file_err(fh, MPI_ERR_TYPE, "%s: the filetype's extent %ld is not positive "
                           "(tiles could not advance)", fn, (long)filetype->extent);
    if (!rc && ext32) { /* the file layout is the native one: sizes must agree */
        MPI_Aint n = 0;
        if (PMPI_Pack_external_size("external32", 1, etype, &n) || (size_t)n != etype->size)
            rc = faro_file_err(fh, MPI_ERR_UNSUPPORTED_DATAREP, "%s: external32 with an etype "
                               "whose external32 size (%ld) differs from its native size "
                               "(%zu) is not supported (use native, or etypes such as "
                               "MPI_INT, MPI_DOUBLE, MPI_BYTE)", fn, (long)n, etype->size);
    }
    /* A member with a bad argument still takes part, so the others do not wait for it. */
    if (faro_io_any(fh->comm, rc != MPI_SUCCESS))
        return rc ? rc : faro_file_err(fh, MPI_ERR_OTHER, "%s: another member passed a bad "
                                       "argument (see its error); the view is unchanged", fn);
    /* The members must agree on the etype's size and the datarep (MPI 3.1 13.3). */
    long long mine[2] = {(long long)etype->size, ext32};
    if (!faro_io_same(fh->comm, mine, 2))
        return faro_file_err(fh, MPI_ERR_NOT_SAME, "%s: the members passed etypes of different "
                             "sizes or different data representations (the etype's size and "
                             "the datarep must be the same at every member)", fn);
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        MPI_Offset cur = 0;
        int rc = PMPI_File_get_position_shared(fh, &cur);
        if (rc)
            return rc;
        disp = faro_view_byte_offset(fh, cur);
    }
    if (view_install(fh, disp, etype, filetype, ext32))
        return faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    snprintf(fh->datarep, sizeof fh->datarep, "%s", datarep);
    if (info != MPI_INFO_NULL && faro_io_merge_info(fh, info))
        return faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return PMPI_File_seek_shared(fh, 0, MPI_SEEK_SET); /* collective: resets the shared pointer */
}

#pragma weak MPI_File_get_view = PMPI_File_get_view
int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                       MPI_Datatype *filetype, char *datarep)
{
    static const char fn[] = "MPI_File_get_view";
    FARO_LOCKED;
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (!disp || !etype || !filetype || !datarep)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: an output argument is NULL", fn);
    *disp = fh->disp;
    /* Derived types come back as new handles the program frees (MPI 3.1 13.3). */
    if (fh->etype->predefined)
        *etype = fh->etype;
    else if (PMPI_Type_dup(fh->etype, etype))
        return faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (fh->filetype->predefined)
        *filetype = fh->filetype;
    else if (PMPI_Type_dup(fh->filetype, filetype))
        return faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    strcpy(datarep, fh->datarep);
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    static const char fn[] = "MPI_File_get_byte_offset";
    FARO_LOCKED;
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (!disp)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: disp is NULL", fn);
    if (offset < 0)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: offset %lld is negative", fn,
                             (long long)offset);
    *disp = faro_view_byte_offset(fh, offset);
    return MPI_SUCCESS;
}

/* The view position (in etypes) where whence and offset lead; -1 with an
 * error raised when it is negative. Shared by MPI_File_seek and seek_shared. */
int faro_io_seek_target(const char *fn, MPI_File fh, MPI_Offset cur, MPI_Offset offset,
                        int whence, MPI_Offset *out)
{
    MPI_Offset base;
    switch (whence) {
    case MPI_SEEK_SET:
        base = 0;
        break;
    case MPI_SEEK_CUR:
        base = cur;
        break;
    case MPI_SEEK_END: {
        int64_t size = 0;
        int err = fh->ops->size(fh->fd, &size);
        if (err)
            return faro_file_errno(fh, err, fn, "sizing");
        int64_t es = (int64_t)fh->etype->size;
        base = (stream_below(fh, size) + es - 1) / es;
        break;
    }
    default:
        return faro_file_err(fh, MPI_ERR_ARG, "%s: whence %d is not MPI_SEEK_SET, MPI_SEEK_CUR "
                             "or MPI_SEEK_END", fn, whence);
    }
    if (base + offset < 0)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: the new position %lld is before the start "
                             "of the view", fn, (long long)(base + offset));
    *out = base + offset;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_seek = PMPI_File_seek
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char fn[] = "MPI_File_seek";
    FARO_LOCKED;
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return faro_file_err(fh, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the file was opened with "
                             "MPI_MODE_SEQUENTIAL (only the shared file pointer may be used)",
                             fn);
    return faro_io_seek_target(fn, fh, fh->fp, offset, whence, &fh->fp);
}

#pragma weak MPI_File_get_position = PMPI_File_get_position
int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    FARO_LOCKED;
    if (faro_file_check(fh))
        return faro_file_bad("MPI_File_get_position", fh);
    if (!offset)
        return faro_file_err(fh, MPI_ERR_ARG, "MPI_File_get_position: offset is NULL");
    *offset = fh->fp;
    return MPI_SUCCESS;
}
