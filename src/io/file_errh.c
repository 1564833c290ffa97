/*
 * Errors on files: the errhandler calls of MPI_File (create, set, get, call)
 * and the helpers every src/io/ file raises its errors through.
 *
 * The standard's default handler for files is MPI_ERRORS_RETURN: I/O errors
 * are ordinary outcomes a program checks. MPI_FILE_NULL carries the handler
 * that new files start with, and errors with no open file to name (a failed
 * MPI_File_open, a bad handle argument) go to it.
 */
#include <errno.h>
#include <string.h>

#include "io/file.h"
#include "objects/arena.h"

static MPI_Errhandler null_handler; /* MPI_FILE_NULL's; NULL: MPI_ERRORS_RETURN */

MPI_Errhandler faro_file_default_errhandler(void)
{
    return null_handler ? null_handler : MPI_ERRORS_RETURN;
}

/* File objects come from a FIFO pool over their arena (objects/arena.h,
 * linked through aggs while free), so that a made-up handle is refused before
 * it is read. */
static struct faro_pool file_pool = FARO_POOL_INIT("file", FARO_ARENA_SMALL, struct faro_file,
                                                   aggs, 8);

__attribute__((constructor)) static void file_arena_init(void)
{
    faro_pool_start(&file_pool, NULL, 0, 0);
}

MPI_File faro_file_alloc(void)
{
    return faro_pool_get(&file_pool);
}

void faro_file_dealloc(MPI_File fh)
{
    faro_pool_put(&file_pool, fh);
}

int faro_file_check(MPI_File fh)
{
    return fh && faro_pool_has(&file_pool, fh) && fh->magic == FARO_FILE_MAGIC ? 0 : -1;
}

int faro_file_bad(const char *fn, MPI_File fh)
{
    return faro_file_err(MPI_FILE_NULL, MPI_ERR_FILE, "%s: %s", fn,
                         fh == MPI_FILE_NULL ? "file handle is MPI_FILE_NULL"
                                             : "argument is not an open file handle "
                                               "(uninitialised, closed, or never opened?)");
}

int faro_file_err(MPI_File fh, int errclass, const char *fmt, ...)
{
    MPI_Errhandler eh = fh ? fh->errhandler : faro_file_default_errhandler();
    va_list ap;
    va_start(ap, fmt);
    int code = faro_obj_verr(eh, fh, "file", errclass, fmt, ap);
    va_end(ap);
    return code;
}

int faro_file_err_pass(MPI_File fh, int code)
{
    MPI_Errhandler eh = fh ? fh->errhandler : faro_file_default_errhandler();
    return faro_obj_err_pass(eh, fh, "file", code);
}

int faro_io_errclass(int err)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR:
    case ENAMETOOLONG:
        return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case ENOSPC:
        return MPI_ERR_NO_SPACE;
#ifdef EDQUOT
    case EDQUOT:
        return MPI_ERR_QUOTA;
#endif
    case ETXTBSY:
    case EBUSY:
        return MPI_ERR_FILE_IN_USE;
    case EISDIR:
        return MPI_ERR_BAD_FILE;
    case ENOMEM:
        return MPI_ERR_NO_MEM;
    default:
        return MPI_ERR_IO;
    }
}

int faro_file_errno(MPI_File fh, int err, const char *fn, const char *what)
{
    return faro_file_err(fh, faro_io_errclass(err), "%s: %s %s: %s", fn, what,
                         fh ? fh->path : "", strerror(err));
}

#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler
int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *eh)
{
    /* The same object as a communicator's: the kind of its function is the caller's word. */
    return faro_errhandler_create("MPI_File_create_errhandler",
                                  (MPI_Comm_errhandler_function *)(void (*)(void))fn, eh);
}

#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler
int PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler eh)
{
    static const char fn[] = "MPI_File_set_errhandler";
    FARO_LOCKED;
    if (fh != MPI_FILE_NULL && faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (faro_errhandler_check(eh))
        return faro_file_err(fh, MPI_ERR_ARG, "%s: errhandler is not a valid errhandler", fn);
    faro_errhandler_retain(eh);
    MPI_Errhandler *slot = fh ? &fh->errhandler : &null_handler;
    MPI_Errhandler old = *slot;
    *slot = eh;
    if (old)
        faro_errhandler_release(old);
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler
int PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler *eh)
{
    static const char fn[] = "MPI_File_get_errhandler";
    FARO_LOCKED;
    if (fh != MPI_FILE_NULL && faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (!eh)
        return faro_file_err(fh, MPI_ERR_ARG, "%s: errhandler is NULL", fn);
    *eh = fh ? fh->errhandler : faro_file_default_errhandler();
    faro_errhandler_retain(*eh); /* the program frees what it gets */
    return MPI_SUCCESS;
}

#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler
int PMPI_File_call_errhandler(MPI_File fh, int code)
{
    FARO_LOCKED;
    if (fh != MPI_FILE_NULL && faro_file_check(fh))
        return faro_file_bad("MPI_File_call_errhandler", fh);
    faro_file_err_pass(fh, code);
    return MPI_SUCCESS;
}
