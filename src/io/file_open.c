/*
 * The life of a file handle: MPI_File_open/close/delete, and what a handle
 * is besides its data: size, preallocation, sync, amode, group, hints
 * (MPI_File_set_info/get_info), atomicity, MPI_File_get_type_extent and the
 * integer handles.
 *
 * Opening is collective. Rank 0 creates the file first (MPI_MODE_CREATE,
 * with O_EXCL for MPI_MODE_EXCL) and broadcasts the outcome with the name of
 * the shared pointer's sidecar file; then the others open the existing file.
 * Every member learns whether any member failed (an allreduce of errno), so
 * all return the same error class.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/file.h"

#define MODE_ACCESS (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR)
#define MODE_ALL                                                                             \
    (MODE_ACCESS | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |       \
     MPI_MODE_EXCL | MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL)

/* The amode rules of MPI 3.1 section 13.2.1; NULL when amode is allowed. */
static const char *amode_problem(int amode)
{
    int access = amode & MODE_ACCESS;
    if (amode & ~MODE_ALL)
        return "it has bits that are no MPI_MODE_* file mode";
    if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR)
        return access ? "it names more than one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and "
                        "MPI_MODE_RDWR (exactly one is required)"
                      : "it names none of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR "
                        "(exactly one is required)";
    if (access == MPI_MODE_RDONLY && (amode & MPI_MODE_CREATE))
        return "MPI_MODE_RDONLY with MPI_MODE_CREATE (a file opened read-only cannot be "
               "created)";
    if (access == MPI_MODE_RDONLY && (amode & MPI_MODE_EXCL))
        return "MPI_MODE_RDONLY with MPI_MODE_EXCL (MPI_MODE_EXCL goes with "
               "MPI_MODE_CREATE and write access)";
    if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
        return "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL (a sequential file is read-only or "
               "write-only)";
    return NULL;
}

int faro_io_same(MPI_Comm comm, const long long *v, int n)
{
    long long mm[8] = {0}, agreed[8];
    for (int i = 0; i < n; i++)
        mm[2 * i] = v[i], mm[2 * i + 1] = -v[i];
    PMPI_Allreduce(mm, agreed, 2 * n, MPI_LONG_LONG, MPI_MAX, comm);
    for (int i = 0; i < n; i++)
        if (agreed[2 * i] != -agreed[2 * i + 1])
            return 0;
    return 1;
}

int faro_io_any(MPI_Comm comm, int flag)
{
    int any = 0;
    PMPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}

/* ---- hints ---- */

static const char *cb_word(int v)
{
    return v == FARO_CB_ENABLE ? "enable" : v == FARO_CB_DISABLE ? "disable" : "automatic";
}

static void cb_parse(MPI_Info info, const char *key, int *out)
{
    const char *v = faro_info_value(info, key);
    if (!v)
        return;
    if (!strcmp(v, "enable"))
        *out = FARO_CB_ENABLE;
    else if (!strcmp(v, "disable"))
        *out = FARO_CB_DISABLE;
    else if (!strcmp(v, "automatic"))
        *out = FARO_CB_AUTO;
}

static void size_parse(MPI_Info info, const char *key, int64_t *out)
{
    const char *v = faro_info_value(info, key);
    char *end;
    long long n = v ? strtoll(v, &end, 10) : 0;
    if (v && *end == '\0' && n > 0)
        *out = n;
}

/* Hints that are not understood or whose value is not allowed are ignored,
 * as the standard lets an implementation do (MPI_File_get_info shows what is
 * in effect). */
static void hints_apply(MPI_File fh, MPI_Info info)
{
    struct faro_io_hints *h = &fh->hints;
    int64_t n = 0;
    size_parse(info, "cb_nodes", &n);
    if (n > 0)
        h->cb_nodes = n > fh->size ? fh->size : (int)n;
    size_parse(info, "cb_buffer_size", &h->cb_buffer_size);
    if (h->cb_buffer_size > (1 << 30)) /* the exchange counts are ints */
        h->cb_buffer_size = 1 << 30;
    cb_parse(info, "romio_cb_read", &h->cb_read);
    cb_parse(info, "romio_cb_write", &h->cb_write);
    cb_parse(info, "romio_ds_read", &h->ds_read);
    cb_parse(info, "romio_ds_write", &h->ds_write);
    size_parse(info, "ind_rd_buffer_size", &h->ind_rd_buffer_size);
    size_parse(info, "ind_wr_buffer_size", &h->ind_wr_buffer_size);
}

/* The aggregators of collective buffering: the first rank of each node, then
 * (cb_nodes above the node count) the others in rank order. */
static int choose_aggregators(MPI_File fh, const int *leader)
{
    free(fh->aggs);
    fh->aggs = malloc((size_t)fh->size * sizeof(int));
    if (!fh->aggs)
        return -1;
    int n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int r = 0; r < fh->size && n < fh->hints.cb_nodes; r++)
            if (leader[r] == !pass)
                fh->aggs[n++] = r;
    fh->naggs = n;
    return 0;
}

static int *leaders_of(MPI_Comm comm, int rank, int size)
{
    MPI_Comm node;
    int *leader = malloc((size_t)size * sizeof(int));
    if (!leader || PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node)) {
        free(leader);
        return NULL;
    }
    int nrank;
    PMPI_Comm_rank(node, &nrank);
    PMPI_Comm_free(&node);
    int me = nrank == 0;
    PMPI_Allgather(&me, 1, MPI_INT, leader, 1, MPI_INT, comm);
    return leader;
}

static int hints_init(MPI_File fh, MPI_Info info)
{
    int *leader = leaders_of(fh->comm, fh->rank, fh->size);
    if (!leader)
        return -1;
    int nodes = 0;
    for (int r = 0; r < fh->size; r++)
        nodes += leader[r];
    fh->node_leaders = nodes;
    fh->hints = (struct faro_io_hints){.cb_nodes = nodes, .cb_buffer_size = 16 << 20,
                                       .cb_read = FARO_CB_AUTO, .cb_write = FARO_CB_AUTO,
                                       .ds_read = FARO_CB_AUTO, .ds_write = FARO_CB_AUTO,
                                       .ind_rd_buffer_size = 4 << 20,
                                       .ind_wr_buffer_size = 512 << 10};
    if (info != MPI_INFO_NULL)
        hints_apply(fh, info);
    fh->leader = leader; /* kept: set_info chooses again without communicating */
    return choose_aggregators(fh, leader);
}

/* ---- open / close ---- */

static void file_free(MPI_File fh)
{
    if (fh->fd >= 0)
        fh->ops->close(fh->fd);
    faro_io_shared_close(fh);
    if (fh->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&fh->comm);
    if (fh->info)
        faro_info_destroy(fh->info);
    faro_view_free(fh);
    if (fh->errhandler)
        faro_errhandler_release(fh->errhandler);
    faro_handle_forget(FARO_H_FILE, fh);
    free(fh->aggs);
    free(fh->leader);
    free(fh->cb_data);
    free(fh->cb_window);
    free(fh->path);
    free(fh->shpath);
    faro_file_dealloc(fh);
}

/* errno of this member; the largest of all members comes back in *any. */
static void agree(MPI_Comm comm, int err, int *any)
{
    PMPI_Allreduce(&err, any, 1, MPI_INT, MPI_MAX, comm);
}

static int open_fail(const char *fn, MPI_File fh, const char *path, int err, int any)
{
    MPI_File keep = fh;
    int cls = faro_io_errclass(err ? err : any);
    char shown[256];
    snprintf(shown, sizeof shown, "%s", path);
    if (keep)
        file_free(keep);
    if (err)
        return faro_file_err(MPI_FILE_NULL, cls, "%s: cannot open '%s': %s", fn, shown,
                             strerror(err));
    return faro_file_err(MPI_FILE_NULL, cls, "%s: another member of the communicator could "
                         "not open '%s': %s", fn, shown, strerror(any));
}

#pragma weak MPI_File_open = PMPI_File_open
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fhp)
{
    static const char fn[] = "MPI_File_open";
    FARO_LOCKED;
    if (faro_comm_check(comm))
        return faro_comm_bad(fn, comm);
    if (comm->inter)
        return faro_file_err(MPI_FILE_NULL, MPI_ERR_COMM, "%s: the communicator is an "
                             "intercommunicator (files are opened on intracommunicators)", fn);
    /* A member with a bad argument still takes part in the agreement below, so
     * that the others return an error too instead of waiting for it. */
    const char *bad = amode_problem(amode);
    int rc = MPI_SUCCESS;
    if (!filename || !fhp)
        rc = faro_file_err(MPI_FILE_NULL, MPI_ERR_ARG, "%s: %s is NULL", fn,
                           filename ? "the file handle pointer" : "filename");
    else if (info != MPI_INFO_NULL && faro_info_check(info))
        rc = faro_file_err(MPI_FILE_NULL, MPI_ERR_INFO, "%s: info is not a valid info object",
                           fn);
    else if (bad)
        rc = faro_file_err(MPI_FILE_NULL, MPI_ERR_AMODE, "%s: amode 0x%x is not allowed: %s",
                           fn, amode, bad);
    if (faro_io_any(comm, rc != MPI_SUCCESS))
        return rc ? rc : faro_file_err(MPI_FILE_NULL, MPI_ERR_OTHER, "%s: another member of "
                                       "the communicator passed a bad argument (see its "
                                       "error); the file was not opened", fn);
    /* The same amode everywhere. */
    long long am = amode;
    if (!faro_io_same(comm, &am, 1))
        return faro_file_err(MPI_FILE_NULL, MPI_ERR_NOT_SAME, "%s: the members of the "
                             "communicator passed different amodes (this one 0x%x; it must be "
                             "the same at every member)", fn, amode);
    /* A name "file:" prefix (ROMIO's file system prefixes) selects the POSIX backend. */
    const char *path = filename;
    if (!strncmp(path, "file:", 5) || !strncmp(path, "ufs:", 4) || !strncmp(path, "nfs:", 4))
        path = strchr(path, ':') + 1;

    MPI_File fh = faro_file_alloc();
    int err = 0, any = 0;
    if (!fh || !(fh->path = strdup(path)) || !(fh->shpath = malloc(strlen(path) + 64)))
        err = ENOMEM;
    if (fh) {
        fh->fd = fh->shfd = -1;
        fh->comm = MPI_COMM_NULL;
        fh->ops = &faro_io_posix;
        fh->amode = amode;
        fh->errhandler = faro_file_default_errhandler();
        faro_errhandler_retain(fh->errhandler);
    }
    agree(comm, err, &any);
    if (any)
        return open_fail(fn, fh, path, err, any);
    if (PMPI_Comm_dup(comm, &fh->comm)) {
        err = ENOMEM;
        fh->comm = MPI_COMM_NULL;
    } else {
        PMPI_Comm_set_errhandler(fh->comm, MPI_ERRORS_RETURN);
        PMPI_Comm_rank(fh->comm, &fh->rank);
        PMPI_Comm_size(fh->comm, &fh->size);
    }
    agree(comm, err, &any);
    if (any)
        return open_fail(fn, fh, path, err, any);

    int access = amode & MODE_ACCESS;
    int flags = access == MPI_MODE_RDONLY ? O_RDONLY : O_RDWR; /* write-only: read for sieving */
    /* Rank 0 creates; the outcome and the sidecar's name travel together. */
    struct {
        int err;
        unsigned tag;
    } first = {0, 0};
    if (fh->rank == 0) {
        int cflags = flags | ((amode & MPI_MODE_CREATE) ? O_CREAT : 0) |
                     ((amode & MPI_MODE_EXCL) ? O_EXCL : 0);
        first.err = fh->ops->open(path, cflags, 0666, &fh->fd);
        if (first.err == EACCES && access == MPI_MODE_WRONLY)
            first.err = fh->ops->open(path, (cflags & ~O_RDWR) | O_WRONLY, 0666, &fh->fd);
        first.tag = (unsigned)getpid() ^ (unsigned)time(NULL) << 16;
    }
    PMPI_Bcast(&first, 2, MPI_INT, 0, fh->comm);
    if (first.err)
        return open_fail(fn, fh, path, fh->rank == 0 ? first.err : 0, first.err);
    if (fh->rank != 0) {
        err = fh->ops->open(path, flags, 0666, &fh->fd);
        if (err == EACCES && access == MPI_MODE_WRONLY)
            err = fh->ops->open(path, O_WRONLY, 0666, &fh->fd);
    }
    fh->can_read = access != MPI_MODE_WRONLY || fcntl(fh->fd, F_GETFL) < 0 ||
                   (fcntl(fh->fd, F_GETFL) & O_ACCMODE) == O_RDWR;
    agree(fh->comm, err, &any);
    if (any)
        return open_fail(fn, fh, path, err, any);
    sprintf(fh->shpath, "%s.faro-shfp-%08x", path, first.tag);
    if (hints_init(fh, info) || (info != MPI_INFO_NULL && !(fh->info = faro_info_copy(info))))
        err = ENOMEM;
    agree(fh->comm, err, &any);
    if (any)
        return open_fail(fn, fh, path, err, any);
    faro_view_default(fh);
    if (amode & MPI_MODE_APPEND) { /* both pointers start at the end */
        int64_t size = 0;
        if (fh->rank == 0)
            fh->ops->size(fh->fd, &size);
        PMPI_Bcast(&size, 1, MPI_INT64_T, 0, fh->comm);
        fh->fp = fh->shbase = size;
    }
    fh->magic = FARO_FILE_MAGIC;
    *fhp = fh;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_close = PMPI_File_close
int PMPI_File_close(MPI_File *fhp)
{
    static const char fn[] = "MPI_File_close";
    FARO_LOCKED;
    if (!fhp)
        return faro_file_err(MPI_FILE_NULL, MPI_ERR_ARG, "%s: the handle pointer is NULL", fn);
    MPI_File fh = *fhp;
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (fh->split_active)
        return faro_file_err(fh, MPI_ERR_OTHER, "%s: the split collective %s is still "
                             "outstanding on this file (call its _end first)", fn, fh->split_fn);
    PMPI_Barrier(fh->comm); /* every member is done with the file (and its sidecar) */
    if (fh->rank == 0) {
        fh->ops->remove(fh->shpath); /* absent when no shared-pointer call was made */
        if (fh->amode & MPI_MODE_DELETE_ON_CLOSE)
            fh->ops->remove(fh->path);
    }
    file_free(fh);
    *fhp = MPI_FILE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_delete = PMPI_File_delete
int PMPI_File_delete(const char *filename, MPI_Info info)
{
    static const char fn[] = "MPI_File_delete";
    FARO_LOCKED;
    if (!filename)
        return faro_file_err(MPI_FILE_NULL, MPI_ERR_ARG, "%s: filename is NULL", fn);
    if (info != MPI_INFO_NULL && faro_info_check(info))
        return faro_file_err(MPI_FILE_NULL, MPI_ERR_INFO, "%s: info is not a valid info object",
                             fn);
    const char *path = filename;
    if (!strncmp(path, "file:", 5) || !strncmp(path, "ufs:", 4) || !strncmp(path, "nfs:", 4))
        path = strchr(path, ':') + 1;
    int err = faro_io_posix.remove(path);
    if (err)
        return faro_file_err(MPI_FILE_NULL, faro_io_errclass(err), "%s: cannot delete '%s': %s",
                             fn, path, strerror(err));
    return MPI_SUCCESS;
}

/* ---- size, preallocation, sync ---- */

#define CHECK_FILE(fn, fh)                                                                   \
    do {                                                                                     \
        if (faro_file_check(fh))                                                             \
            return faro_file_bad(fn, fh);                                                    \
    } while (0)

/* A collective call's size argument: non-negative and the same everywhere. */
static int size_agreed(const char *fn, MPI_File fh, MPI_Offset size)
{
    long long v = size;
    int same = faro_io_same(fh->comm, &v, 1);
    if (size < 0)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: size %lld is negative", fn, (long long)size);
    if (!same)
        return faro_file_err(fh, MPI_ERR_NOT_SAME, "%s: the members passed different sizes "
                             "(this one %lld; it must be the same at every member)", fn,
                             (long long)size);
    return MPI_SUCCESS;
}

static int writable(const char *fn, MPI_File fh)
{
    if ((fh->amode & MODE_ACCESS) == MPI_MODE_RDONLY)
        return faro_file_err(fh, MPI_ERR_READ_ONLY, "%s: the file was opened with "
                             "MPI_MODE_RDONLY", fn);
    return MPI_SUCCESS;
}

/* Rank 0 does op on the file, the others learn its outcome. */
static int on_rank0(const char *fn, MPI_File fh, int (*op)(int, int64_t), MPI_Offset size,
                    const char *what)
{
    int err = fh->rank == 0 ? op(fh->fd, size) : 0;
    PMPI_Bcast(&err, 1, MPI_INT, 0, fh->comm);
    if (err)
        return faro_file_errno(fh, err, fn, what);
    return MPI_SUCCESS;
}

#pragma weak MPI_File_set_size = PMPI_File_set_size
int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    static const char fn[] = "MPI_File_set_size";
    FARO_LOCKED;
    CHECK_FILE(fn, fh);
    int rc = size_agreed(fn, fh, size);
    if (!rc && !(rc = writable(fn, fh)))
        rc = on_rank0(fn, fh, fh->ops->resize, size, "resizing");
    return rc;
}

#pragma weak MPI_File_preallocate = PMPI_File_preallocate
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    static const char fn[] = "MPI_File_preallocate";
    FARO_LOCKED;
    CHECK_FILE(fn, fh);
    int rc = size_agreed(fn, fh, size);
    if (!rc && !(rc = writable(fn, fh)))
        rc = on_rank0(fn, fh, fh->ops->preallocate, size, "preallocating");
    return rc;
}

#pragma weak MPI_File_get_size = PMPI_File_get_size
int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    static const char fn[] = "MPI_File_get_size";
    FARO_LOCKED;
    CHECK_FILE(fn, fh);
    if (!size)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: size is NULL", fn);
    int64_t s;
    int err = fh->ops->size(fh->fd, &s);
    if (err)
        return faro_file_errno(fh, err, fn, "sizing");
    *size = s;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_sync = PMPI_File_sync
int PMPI_File_sync(MPI_File fh)
{
    static const char fn[] = "MPI_File_sync";
    FARO_LOCKED;
    CHECK_FILE(fn, fh);
    int err = fh->ops->sync(fh->fd), any;
    agree(fh->comm, err, &any);
    if (err)
        return faro_file_errno(fh, err, fn, "syncing");
    if (any)
        return faro_file_err(fh, faro_io_errclass(any), "%s: another member could not sync "
                             "%s: %s", fn, fh->path, strerror(any));
    return MPI_SUCCESS;
}

/* ---- amode, group, hints, atomicity ---- */

#pragma weak MPI_File_get_amode = PMPI_File_get_amode
int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    FARO_LOCKED;
    CHECK_FILE("MPI_File_get_amode", fh);
    if (!amode)
        return faro_file_err(fh, MPI_ERR_ARG, "MPI_File_get_amode: amode is NULL");
    *amode = fh->amode;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_group = PMPI_File_get_group
int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    FARO_LOCKED;
    CHECK_FILE("MPI_File_get_group", fh);
    if (!group)
        return faro_file_err(fh, MPI_ERR_ARG, "MPI_File_get_group: group is NULL");
    return PMPI_Comm_group(fh->comm, group);
}

/* Keys given before and not given now stay (MPI_File_set_info). */
int faro_io_merge_info(MPI_File fh, MPI_Info info)
{
    MPI_Info copy = faro_info_merged(fh->info, info);
    if (!copy)
        return -1;
    fh->info = copy;
    hints_apply(fh, info);
    return choose_aggregators(fh, fh->leader);
}

#pragma weak MPI_File_set_info = PMPI_File_set_info
int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    static const char fn[] = "MPI_File_set_info";
    FARO_LOCKED;
    CHECK_FILE(fn, fh);
    if (info != MPI_INFO_NULL && faro_info_check(info))
        return faro_file_err(fh, MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    if (info != MPI_INFO_NULL && faro_io_merge_info(fh, info))
        return faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_info = PMPI_File_get_info
int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    static const char fn[] = "MPI_File_get_info";
    FARO_LOCKED;
    CHECK_FILE(fn, fh);
    if (!info_used)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: info_used is NULL", fn);
    MPI_Info i = faro_info_copy(fh->info ? fh->info : MPI_INFO_NULL);
    if (!i)
        return faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    const struct faro_io_hints *h = &fh->hints;
    char v[32];
    snprintf(v, sizeof v, "%d", h->cb_nodes);
    PMPI_Info_set(i, "cb_nodes", v);
    snprintf(v, sizeof v, "%lld", (long long)h->cb_buffer_size);
    PMPI_Info_set(i, "cb_buffer_size", v);
    PMPI_Info_set(i, "romio_cb_read", cb_word(h->cb_read));
    PMPI_Info_set(i, "romio_cb_write", cb_word(h->cb_write));
    PMPI_Info_set(i, "romio_ds_read", cb_word(h->ds_read));
    PMPI_Info_set(i, "romio_ds_write", cb_word(h->ds_write));
    snprintf(v, sizeof v, "%lld", (long long)h->ind_rd_buffer_size);
    PMPI_Info_set(i, "ind_rd_buffer_size", v);
    snprintf(v, sizeof v, "%lld", (long long)h->ind_wr_buffer_size);
    PMPI_Info_set(i, "ind_wr_buffer_size", v);
    *info_used = i;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity
int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    static const char fn[] = "MPI_File_set_atomicity";
    FARO_LOCKED;
    CHECK_FILE(fn, fh);
    long long mine = flag != 0;
    if (!faro_io_same(fh->comm, &mine, 1))
        return faro_file_err(fh, MPI_ERR_NOT_SAME, "%s: the members passed different flags "
                             "(it must be the same at every member)", fn);
    fh->atomic = (int)mine;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity
int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    FARO_LOCKED;
    CHECK_FILE("MPI_File_get_atomicity", fh);
    if (!flag)
        return faro_file_err(fh, MPI_ERR_ARG, "MPI_File_get_atomicity: flag is NULL");
    *flag = fh->atomic;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype type, MPI_Aint *extent)
{
    static const char fn[] = "MPI_File_get_type_extent";
    FARO_LOCKED;
    CHECK_FILE(fn, fh);
    if (faro_type_valid(type))
        return faro_file_err(fh, MPI_ERR_TYPE, "%s: datatype is not a valid datatype", fn);
    if (!extent)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: extent is NULL", fn);
    if (fh->external32 && type->committed) {
        MPI_Aint n;
        if (PMPI_Pack_external_size("external32", 1, type, &n) == MPI_SUCCESS) {
            *extent = n + (type->extent - (MPI_Aint)type->size);
            return MPI_SUCCESS;
        }
    }
    *extent = type->extent;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_c2f = PMPI_File_c2f
MPI_Fint PMPI_File_c2f(MPI_File fh)
{
    return faro_handle_c2f(FARO_H_FILE, fh);
}

#pragma weak MPI_File_f2c = PMPI_File_f2c
MPI_File PMPI_File_f2c(MPI_Fint f)
{
    return (MPI_File)faro_handle_f2c(FARO_H_FILE, f);
}
