/*
 * MPI-IO files (owner: src/io/). A file handle is an open file shared by the
 * group of a communicator: each member holds its own descriptor of the same
 * path, its own view and individual file pointer, and every member's handle
 * points at one hidden sidecar file that holds the shared file pointer.
 *
 * Who does what:
 *   file_open.c    open/close/delete, size, sync, amode, group, hints,
 *                  atomicity, MPI_File_get_type_extent, c2f/f2c
 *   file_errh.c    file errhandlers (default MPI_ERRORS_RETURN, settable on
 *                  MPI_FILE_NULL) and the errors raised on a file
 *   view.c         views: the filetype's runs copied once per view, the
 *                  mapping of view positions to file extents, seek/position
 *   posix.c        the backend: pread/pwrite/ftruncate/fsync/fcntl locks
 *                  behind struct faro_io_ops (another file system adds a table)
 *   rw.c           independent reads and writes (explicit offset, individual
 *                  pointer), data sieving, atomic mode
 *   shared.c       the shared file pointer (an fcntl-locked counter in the
 *                  sidecar file) and the ordered calls
 *   two_phase.c    collective reads and writes: aggregators, file domains,
 *                  the exchange, and the split collectives
 *   nonblocking.c  the MPI_File_i* calls
 *
 * Data movement. Every access turns (buf, count, datatype) at a view
 * position into a packed stream (the datatype engine's packed form, or its
 * external32 form for that data representation) and a list of file extents
 * in stream order (faro_io_extents); rw.c and two_phase.c move the stream to
 * or from those extents.
 *
 * Lifetime: MPI_File_open makes the handle (collectively), MPI_File_close
 * frees it. Handles come from a pool over their own address range
 * (objects/arena.h) and keep a magic word: a made-up handle is refused before
 * it is read, and a closed handle's memory keeps magic 0 until reused.
 */
#ifndef FARO_IO_FILE_H
#define FARO_IO_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

#define FARO_FILE_MAGIC 0x46494c45u

/* The backend: what an access does to the file system. Every call returns 0
 * or an errno value. */
struct faro_io_ops {
    const char *name;
    int (*open)(const char *path, int flags, int mode, int *fd);
    int (*close)(int fd);
    int (*pread)(int fd, void *buf, size_t n, int64_t off, size_t *got); /* *got < n: EOF */
    int (*pwrite)(int fd, const void *buf, size_t n, int64_t off);
    int (*size)(int fd, int64_t *size);
    int (*resize)(int fd, int64_t size);
    int (*preallocate)(int fd, int64_t size);
    int (*sync)(int fd);
    /* A byte-range lock (write: exclusive) over [off, off + len); len 0: to the end. */
    int (*lock)(int fd, int write, int64_t off, int64_t len);
    int (*unlock)(int fd, int64_t off, int64_t len);
    int (*remove)(const char *path);
};
extern const struct faro_io_ops faro_io_posix;

/* One extent of the file: len bytes at off, holding stream bytes [pos, pos + len). */
struct faro_io_ext {
    int64_t off;
    int64_t len;
    int64_t pos;
};

/* The hints in effect (MPI_File_get_info gives them back). */
enum { FARO_CB_DISABLE, FARO_CB_ENABLE, FARO_CB_AUTO };
struct faro_io_hints {
    int cb_nodes;           /* aggregators for collective buffering */
    int64_t cb_buffer_size; /* bytes an aggregator moves per round */
    int cb_read, cb_write;  /* FARO_CB_* */
    int ds_read, ds_write;  /* data sieving: FARO_CB_* */
    int64_t ind_rd_buffer_size, ind_wr_buffer_size;
};

struct faro_file {
    uint32_t magic;         /* FARO_FILE_MAGIC while the handle is open */
    MPI_Comm comm;          /* private duplicate of the opening communicator */
    int rank, size;
    char *path;
    char *shpath;           /* the shared pointer's sidecar file */
    int fd, shfd;           /* shfd: -1 until the first shared-pointer call */
    int amode;
    int can_read;           /* fd reads (a write-only file we may not read: no sieving) */
    int atomic;
    MPI_Offset shbase;      /* the shared pointer's start (APPEND: the size at open) */
    const struct faro_io_ops *ops;
    MPI_Errhandler errhandler;
    MPI_Info info;          /* hints as given, merged over set_info calls */
    struct faro_io_hints hints;
    int *aggs;              /* ranks (in comm) of the aggregators */
    int naggs;
    int node_leaders;       /* number of nodes the group spans */
    int *leader;            /* [size]: 1 for the first rank of each node (found at open) */

    /* the view */
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    char datarep[MPI_MAX_DATAREP_STRING];
    int external32;
    size_t ft_size;         /* data bytes per filetype tile */
    MPI_Aint ft_extent;     /* tile spacing */
    int ft_contig;          /* the view is one contiguous byte stream */
    int nrun;
    struct faro_run *runs;  /* the filetype's runs (datatype.h) */

    MPI_Offset fp;          /* individual file pointer, in etypes of the view */

    /* two-phase buffers, kept between collective calls (no page faults per call) */
    char *cb_data, *cb_window;
    int64_t cb_data_cap, cb_window_cap;

    /* split collectives: one outstanding per handle */
    int split_active;
    const char *split_fn;
    void *split_buf;
    MPI_Status split_status;
    int split_rc;
};

/* ---- file_errh.c ---- */
/* 0 when fh is an open handle. */
int faro_file_check(MPI_File fh);
/* A zeroed file object from the pool; NULL when out of memory. Back with
 * faro_file_dealloc. */
MPI_File faro_file_alloc(void);
void faro_file_dealloc(MPI_File fh);
/* The MPI_ERR_FILE of a bad handle argument (raised on MPI_FILE_NULL's handler). */
int faro_file_bad(const char *fn, MPI_File fh);
/* Raise an error on a file (its handler; MPI_FILE_NULL: the default file handler). */
int faro_file_err(MPI_File fh, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A code from elsewhere, unchanged, through the file's handler. */
int faro_file_err_pass(MPI_File fh, int code);
/* The error class of an errno from the backend, for fn's messages. */
int faro_io_errclass(int err);
/* An errno from the backend raised on fh: "<fn>: <what> <path>: <strerror>". */
int faro_file_errno(MPI_File fh, int err, const char *fn, const char *what);
/* The handler of MPI_FILE_NULL (the default of new files). */
MPI_Errhandler faro_file_default_errhandler(void);

/* ---- view.c ---- */
/* The default view: disp 0, MPI_BYTE, MPI_BYTE, native. */
void faro_view_default(MPI_File fh);
void faro_view_free(MPI_File fh);
/* The file extents of view stream bytes [pos, pos + n), merged when adjacent.
 * *out is malloc'd (NULL when n is 0); returns the count, or -1 out of memory. */
int faro_io_extents(MPI_File fh, int64_t pos, int64_t n, struct faro_io_ext **out);
/* The absolute byte offset of view position off (in etypes). */
MPI_Offset faro_view_byte_offset(MPI_File fh, MPI_Offset off);

/* The position (etypes) that MPI_File_seek's arguments lead to from cur. */
int faro_io_seek_target(const char *fn, MPI_File fh, MPI_Offset cur, MPI_Offset offset,
                        int whence, MPI_Offset *out);

/* ---- file_open.c ---- */
/* Whether every member of comm passed the same n (at most 4) values:
 * collective, one allreduce of the values and their negations. */
int faro_io_same(MPI_Comm comm, const long long *v, int n);
/* Whether flag is set at any member of comm (collective). */
int faro_io_any(MPI_Comm comm, int flag);
/* MPI_File_set_info's merge of new hints over the old ones (local). */
int faro_io_merge_info(MPI_File fh, MPI_Info info);

/* ---- rw.c ---- */
/* The access of one call: where in the view (bytes of the stream), the user's
 * buffer and the packed stream. */
struct faro_io_access {
    const char *fn;
    MPI_File fh;
    void *buf;
    int count;
    MPI_Datatype type;
    int64_t pos;            /* stream byte where the access starts */
    int64_t bytes;          /* stream bytes of the access */
    char *stream;           /* packed data (write: filled by faro_io_prepare) */
    int own_stream;         /* stream was allocated (else it is buf itself) */
};
/* Check arguments shared by every data access (handle, count, type, amode). */
int faro_io_check(const char *fn, MPI_File fh, const void *buf, int count, MPI_Datatype type,
                  int writing);
/* Fill a with the access of (buf, count, type) at etype offset off of the
 * view; writes pack (and convert) the stream. Returns 0 or an error raised. */
int faro_io_prepare(struct faro_io_access *a, const char *fn, MPI_File fh, void *buf, int count,
                    MPI_Datatype type, MPI_Offset off, int writing);
/* Finish a read (unpack got bytes of stream into buf), fill status, free. */
int faro_io_finish(struct faro_io_access *a, int writing, int64_t got, MPI_Status *status);
/* Independent access of the prepared a; *got: stream bytes moved. */
int faro_io_independent(struct faro_io_access *a, int writing, int64_t *got);
/* One whole independent call at explicit etype offset off (the _at calls, and
 * the individual pointer ones with off = fp). */
int faro_io_at(const char *fn, MPI_File fh, MPI_Offset off, void *buf, int count,
               MPI_Datatype type, MPI_Status *status, int writing);
/* The same at the individual file pointer, which moves by what was moved;
 * collective: through faro_io_collective (the _all calls). */
int faro_io_individual(const char *fn, MPI_File fh, void *buf, int count, MPI_Datatype type,
                       MPI_Status *status, int writing, int collective);
/* Status of a completed access moving bytes of type (MPI_Get_count works). */
void faro_io_status(MPI_Status *status, int64_t bytes);
/* Bytes of the data representation the stream has for count of type. */
int64_t faro_io_stream_bytes(MPI_File fh, int count, MPI_Datatype type);

/* ---- two_phase.c ---- */
/* A collective access at etype offset off (MPI_File_*_all); all members call. */
int faro_io_collective(const char *fn, MPI_File fh, MPI_Offset off, void *buf, int count,
                       MPI_Datatype type, MPI_Status *status, int writing);

/* ---- shared.c ---- */
/* Fetch the shared pointer and add n etypes to it, atomically. */
int faro_io_shared_fetch_add(const char *fn, MPI_File fh, MPI_Offset n, MPI_Offset *old);
void faro_io_shared_close(MPI_File fh);
/* MPI_File_read/write_ordered (collective). */
int faro_io_ordered(const char *fn, MPI_File fh, void *buf, int count, MPI_Datatype type,
                    MPI_Status *status, int writing);

#endif
