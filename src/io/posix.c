/*
 * The POSIX backend of MPI-IO: every file system that honours pread/pwrite
 * and fcntl byte-range locks (local disks, NFS with lockd, Lustre and GPFS
 * through their POSIX face). A backend for a file system's own interface
 * (Lustre striping ioctls, GPFS hints) fills another struct faro_io_ops;
 * file_open.c picks the table.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/file.h"

static int px_open(const char *path, int flags, int mode, int *fd)
{
    int f = open(path, flags | O_CLOEXEC, mode);
    if (f < 0)
        return errno;
    *fd = f;
    return 0;
}

static int px_close(int fd)
{
    return close(fd) ? errno : 0;
}

static int px_pread(int fd, void *buf, size_t n, int64_t off, size_t *got)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + (int64_t)done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (r == 0)
            break; /* end of file */
        done += (size_t)r;
    }
    *got = done;
    return 0;
}

static int px_pwrite(int fd, const void *buf, size_t n, int64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pwrite(fd, (const char *)buf + done, n - done, (off_t)(off + (int64_t)done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        done += (size_t)r;
    }
    return 0;
}

static int px_size(int fd, int64_t *size)
{
    struct stat st;
    if (fstat(fd, &st))
        return errno;
    *size = (int64_t)st.st_size;
    return 0;
}

static int px_resize(int fd, int64_t size)
{
    return ftruncate(fd, (off_t)size) ? errno : 0;
}

static int px_preallocate(int fd, int64_t size)
{
    int64_t cur;
    int rc = px_size(fd, &cur);
    if (rc || cur >= size)
        return rc;
    rc = posix_fallocate(fd, 0, (off_t)size);
    if (rc == EOPNOTSUPP || rc == EINVAL) /* no fallocate here: grow (the space is not reserved) */
        rc = px_resize(fd, size);
    return rc;
}

static int px_sync(int fd)
{
    return fsync(fd) ? errno : 0;
}

static int px_setlk(int fd, short type, int64_t off, int64_t len)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)off,
                       .l_len = (off_t)len};
    while (fcntl(fd, F_SETLKW, &fl)) {
        if (errno != EINTR)
            return errno;
    }
    return 0;
}

static int px_lock(int fd, int write, int64_t off, int64_t len)
{
    return px_setlk(fd, write ? F_WRLCK : F_RDLCK, off, len);
}

static int px_unlock(int fd, int64_t off, int64_t len)
{
    return px_setlk(fd, F_UNLCK, off, len);
}

static int px_remove(const char *path)
{
    return unlink(path) ? errno : 0;
}

const struct faro_io_ops faro_io_posix = {
    .name = "posix", .open = px_open, .close = px_close, .pread = px_pread,
    .pwrite = px_pwrite, .size = px_size, .resize = px_resize,
    .preallocate = px_preallocate, .sync = px_sync, .lock = px_lock, .unlock = px_unlock,
    .remove = px_remove,
};
