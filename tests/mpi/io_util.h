/*
 * io_util.h - helpers of the MPI-IO test programs (tests/mpi/io_*.c), after util.h.
 *
 *   io_path(name)   a file name in a per-run directory: $IO_TEST_DIR, else
 *                   $TMPDIR, else /tmp, plus "faro-io-<name>-<pid of rank 0>"
 *                   (the same at every rank); the caller removes the file.
 *   io_info_hints() an info object with the hints the IO_HINTS environment
 *                   variable lists ("key=value,key=value"), or MPI_INFO_NULL.
 *   io_raw_read()   the bytes of a file through POSIX, for checks that must
 *                   not go through the code under test.
 */
#ifndef FARO_TESTS_MPI_IO_UTIL_H
#define FARO_TESTS_MPI_IO_UTIL_H

#include <fcntl.h>
#include <sys/stat.h>

static char io_path_buf[4][512];

static inline const char *io_path(const char *name)
{
    static int next;
    long pid = (long)getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    const char *dir = getenv("IO_TEST_DIR");
    if (!dir || !*dir)
        dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char *p = io_path_buf[next++ % 4];
    snprintf(p, sizeof io_path_buf[0], "%s/faro-io-%s-%ld", dir, name, pid);
    return p;
}

static inline MPI_Info io_info_hints(void)
{
    const char *h = getenv("IO_HINTS");
    if (!h || !*h)
        return MPI_INFO_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", h);
    for (char *kv = strtok(buf, ","); kv; kv = strtok(NULL, ",")) {
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            MPI_Info_set(info, kv, eq + 1);
        }
    }
    return info;
}

/* Read up to n bytes of path at off; returns the bytes read. */
static inline long io_raw_read(const char *path, long off, void *buf, long n)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        tu_fail("cannot open %s to check it", path);
    long got = (long)pread(fd, buf, (size_t)n, (off_t)off);
    close(fd);
    return got;
}

static inline long io_raw_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? -1 : (long)st.st_size;
}

#endif
