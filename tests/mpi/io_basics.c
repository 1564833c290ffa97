/*
 * io_basics: the life of an MPI-IO file handle and its errors. Open, close
 * and delete with every amode rule; the file error classes (no such file,
 * exists, access, amode, read-only); sizes, preallocation, sync; amode,
 * group, hints in effect (unknown keys ignored); atomicity; errhandlers
 * (default MPI_ERRORS_RETURN, the one set on MPI_FILE_NULL, user handlers);
 * c2f/f2c; DELETE_ON_CLOSE and APPEND; a write and read at explicit offsets
 * checked through POSIX.
 */
#include "util.h"
#include "io_util.h"

static int handler_calls, handler_code;
static void file_handler(MPI_File *fh, int *code, ...)
{
    (void)fh;
    handler_calls++;
    handler_code = *code;
}

static int native_extent(MPI_Datatype type, MPI_Aint *extent, void *state)
{
    MPI_Aint lb;
    (void)state;
    return MPI_Type_get_extent(type, &lb, extent);
}

static int double_extent(MPI_Datatype type, MPI_Aint *extent, void *state)
{
    int rc = native_extent(type, extent, state);
    *extent *= 2;
    return rc;
}

static int swap_fn(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                   MPI_Offset position, void *state)
{
    (void)userbuf, (void)type, (void)count, (void)filebuf, (void)position, (void)state;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "io_basics");
    const char *path = io_path("basics");
    MPI_File fh;

    /* amode rules: each bad combination is MPI_ERR_AMODE and names the call */
    int bad[] = {MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_MODE_RDONLY | MPI_MODE_WRONLY,
                 MPI_MODE_CREATE, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL,
                 MPI_MODE_RDONLY | MPI_MODE_EXCL, MPI_MODE_RDWR | 0x40000};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        tu_expect(MPI_File_open(MPI_COMM_WORLD, path, bad[i], MPI_INFO_NULL, &fh),
                  MPI_ERR_AMODE, "MPI_File_open", "a bad amode");
    /* a bad amode at one member only: every member returns an error, none waits */
    if (tu_size > 1) {
        int rc1 = MPI_File_open(MPI_COMM_WORLD, path, tu_rank == 0 ? MPI_MODE_RDONLY |
                                MPI_MODE_CREATE : MPI_MODE_CREATE | MPI_MODE_RDWR,
                                MPI_INFO_NULL, &fh);
        if (tu_rank == 0)
            tu_expect(rc1, MPI_ERR_AMODE, "MPI_File_open", "a bad amode at rank 0 only");
        else
            tu_expect(rc1, MPI_ERR_OTHER, "MPI_File_open", "rank 0's bad amode");
    }
    /* no such file */
    if (tu_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    tu_expect(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
              MPI_ERR_NO_SUCH_FILE, "MPI_File_open", "opening a missing file");
    tu_expect(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE, "MPI_File_delete",
              "deleting a missing file");

    /* create, write at explicit offsets, check through POSIX */
    MPI_Info hints;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "cb_buffer_size", "65536");
    MPI_Info_set(hints, "romio_cb_write", "disable");
    MPI_Info_set(hints, "no_such_hint_anywhere", "1");
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, hints, &fh));
    MPI_Info_free(&hints);
    char rec[64];
    tu_fill(rec, sizeof rec, (unsigned)tu_rank + 1);
    MPI_Status st;
    TU_CHECK(MPI_File_write_at(fh, (MPI_Offset)tu_rank * 64, rec, 64, MPI_BYTE, &st));
    int n = -1;
    MPI_Get_count(&st, MPI_BYTE, &n);
    TU_ASSERT(n == 64, "write_at status count %d, expected 64", n);
    TU_CHECK(MPI_File_sync(fh));
    MPI_Offset size = -1;
    TU_CHECK(MPI_File_get_size(fh, &size));
    TU_ASSERT(size == 64 * tu_size, "size %lld after the writes, expected %d", size,
              64 * tu_size);
    char raw[64];
    int peer = (tu_rank + 1) % tu_size;
    TU_ASSERT(io_raw_read(path, peer * 64L, raw, 64) == 64, "short POSIX read");
    tu_check_pattern(raw, 64, (unsigned)peer + 1, "rank %d's record read through POSIX", peer);
    memset(raw, 0, sizeof raw);
    TU_CHECK(MPI_File_read_at(fh, (MPI_Offset)peer * 64, raw, 16, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    TU_ASSERT(n == 16, "read_at count %d ints, expected 16", n);
    tu_check_pattern(raw, 64, (unsigned)peer + 1, "rank %d's record read back", peer);
    /* a read past the end is short, not an error */
    TU_CHECK(MPI_File_read_at(fh, size - 8, raw, 64, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &n);
    TU_ASSERT(n == 8, "read at end-8 of 64 bytes got %d, expected 8", n);

    /* amode, group, hints */
    int amode;
    TU_CHECK(MPI_File_get_amode(fh, &amode));
    TU_ASSERT(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode 0x%x", amode);
    MPI_Group g, wg;
    int cmp;
    TU_CHECK(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    TU_ASSERT(cmp == MPI_IDENT, "file group is not the communicator's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    TU_CHECK(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, v, &flag);
    TU_ASSERT(flag && !strcmp(v, "65536"), "cb_buffer_size in effect '%s'", flag ? v : "");
    MPI_Info_get(used, "romio_cb_write", MPI_MAX_INFO_VAL, v, &flag);
    TU_ASSERT(flag && !strcmp(v, "disable"), "romio_cb_write in effect '%s'", flag ? v : "");
    MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, v, &flag);
    TU_ASSERT(flag && atoi(v) >= 1, "cb_nodes missing from the hints in effect");
    MPI_Info_free(&used);
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "romio_cb_read", "enable");
    TU_CHECK(MPI_File_set_info(fh, hints));
    MPI_Info_free(&hints);
    TU_CHECK(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "romio_cb_read", MPI_MAX_INFO_VAL, v, &flag);
    TU_ASSERT(flag && !strcmp(v, "enable"), "romio_cb_read after set_info '%s'", v);
    MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, v, &flag);
    TU_ASSERT(flag && !strcmp(v, "65536"), "set_info dropped cb_buffer_size");
    MPI_Info_free(&used);

    /* atomicity, type extent, handles */
    TU_CHECK(MPI_File_set_atomicity(fh, 1));
    TU_CHECK(MPI_File_get_atomicity(fh, &flag));
    TU_ASSERT(flag == 1, "atomicity %d after setting it", flag);
    TU_CHECK(MPI_File_set_atomicity(fh, 0));
    MPI_Aint ext;
    TU_CHECK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    TU_ASSERT(ext == sizeof(double), "type extent %ld", (long)ext);
    MPI_Fint f = MPI_File_c2f(fh);
    TU_ASSERT(MPI_File_f2c(f) == fh, "f2c(c2f(fh)) is not fh");
    TU_ASSERT(MPI_File_c2f(MPI_FILE_NULL) == 0 && MPI_File_f2c(0) == MPI_FILE_NULL,
              "the null handle does not convert to 0");

    /* sizes */
    TU_CHECK(MPI_File_set_size(fh, 1000));
    TU_CHECK(MPI_File_get_size(fh, &size));
    TU_ASSERT(size == 1000, "size %lld after set_size(1000)", size);
    TU_CHECK(MPI_File_preallocate(fh, 4096));
    TU_CHECK(MPI_File_get_size(fh, &size));
    TU_ASSERT(size == 4096, "size %lld after preallocate(4096)", size);
    TU_CHECK(MPI_File_preallocate(fh, 100)); /* never shrinks */
    TU_CHECK(MPI_File_get_size(fh, &size));
    TU_ASSERT(size == 4096, "preallocate(100) changed the size to %lld", size);
    tu_expect(MPI_File_set_size(fh, -1), MPI_ERR_ARG, "MPI_File_set_size", "a negative size");

    /* errhandlers: files return errors by default; a user handler is called */
    MPI_Errhandler eh;
    TU_CHECK(MPI_File_get_errhandler(fh, &eh));
    TU_ASSERT(eh == MPI_ERRORS_RETURN, "a new file's handler is not MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&eh);
    tu_expect(MPI_File_read_at(fh, 0, raw, -1, MPI_BYTE, &st), MPI_ERR_COUNT,
              "MPI_File_read_at", "a negative count");
    tu_expect(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG, "MPI_File_seek", "a bad whence");
    TU_CHECK(MPI_File_create_errhandler(file_handler, &eh));
    TU_CHECK(MPI_File_set_errhandler(fh, eh));
    int rc = MPI_File_read_at(fh, -5, raw, 1, MPI_BYTE, &st);
    TU_ASSERT(handler_calls == 1 && handler_code == rc && tu_class(rc) == MPI_ERR_ARG,
              "user handler calls %d (code %d, call returned %d)", handler_calls, handler_code,
              rc);
    TU_CHECK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    TU_ASSERT(handler_calls == 2 && handler_code == MPI_ERR_IO, "call_errhandler did not call it");
    TU_CHECK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_File_close(&fh));
    TU_ASSERT(fh == MPI_FILE_NULL, "close did not reset the handle");
    tu_expect(MPI_File_get_size(fh, &size), MPI_ERR_FILE, "MPI_File_get_size",
              "MPI_FILE_NULL");
    /* the handler of MPI_FILE_NULL gets errors of open */
    TU_CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    handler_calls = 0;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                  MPI_INFO_NULL, &fh);
    TU_ASSERT(handler_calls == 1 && tu_class(handler_code) == MPI_ERR_FILE_EXISTS,
              "MPI_FILE_NULL's handler: %d calls, class %d (EXCL on an existing file)",
              handler_calls, tu_class(handler_code));
    TU_CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&eh);

    /* read-only handles refuse writes; write-only ones refuse reads */
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    tu_expect(MPI_File_write_at(fh, 0, rec, 1, MPI_BYTE, &st), MPI_ERR_READ_ONLY,
              "MPI_File_write_at", "writing a read-only file");
    TU_CHECK(MPI_File_close(&fh));
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    tu_expect(MPI_File_read_at(fh, 0, raw, 1, MPI_BYTE, &st), MPI_ERR_ACCESS,
              "MPI_File_read_at", "reading a write-only file");
    TU_CHECK(MPI_File_close(&fh));

    /* APPEND: both pointers start at the end */
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_APPEND,
                           MPI_INFO_NULL, &fh));
    MPI_Offset pos;
    TU_CHECK(MPI_File_get_position(fh, &pos));
    TU_ASSERT(pos == 4096, "APPEND: individual pointer at %lld, expected 4096", pos);
    TU_CHECK(MPI_File_get_position_shared(fh, &pos));
    TU_ASSERT(pos == 4096, "APPEND: shared pointer at %lld, expected 4096", pos);
    TU_CHECK(MPI_File_close(&fh));

    /* no access: MPI_ERR_ACCESS (root reads everything: skipped) */
    if (geteuid() != 0) {
        if (tu_rank == 0)
            chmod(path, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        tu_expect(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                  MPI_ERR_ACCESS, "MPI_File_open", "opening a file without permission");
        MPI_Barrier(MPI_COMM_WORLD);
        if (tu_rank == 0)
            chmod(path, 0644);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (tu_rank == 0)
        TU_CHECK(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_ASSERT(io_raw_size(path) < 0, "MPI_File_delete left the file");

    /* DELETE_ON_CLOSE */
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path,
                           MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE |
                               MPI_MODE_UNIQUE_OPEN, MPI_INFO_NULL, &fh));
    TU_CHECK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_ASSERT(io_raw_size(path) < 0, "DELETE_ON_CLOSE left the file");

    /* user data representations: registered once; usable in a view without
     * conversion functions and with native extents; the others are refused */
    tu_expect(MPI_Register_datarep("mine", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                   NULL, NULL),
              MPI_ERR_ARG, "MPI_Register_datarep", "a datarep without an extent function");
    tu_expect(MPI_Register_datarep("native", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                   native_extent, NULL),
              MPI_ERR_DUP_DATAREP, "MPI_Register_datarep", "a predefined name");
    TU_CHECK(MPI_Register_datarep("mine", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                  native_extent, NULL));
    tu_expect(MPI_Register_datarep("mine", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                   native_extent, NULL),
              MPI_ERR_DUP_DATAREP, "MPI_Register_datarep", "a name registered twice");
    TU_CHECK(MPI_Register_datarep("converting", swap_fn, swap_fn, native_extent, NULL));
    TU_CHECK(MPI_Register_datarep("wide", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                  double_extent, NULL));
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                           MPI_INFO_NULL, &fh));
    TU_CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "mine", MPI_INFO_NULL));
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset vdisp;
    MPI_Datatype vet, vft;
    TU_CHECK(MPI_File_get_view(fh, &vdisp, &vet, &vft, rep));
    TU_ASSERT(!strcmp(rep, "mine"), "get_view gave datarep '%s', set 'mine'", rep);
    int wv = 1000 + tu_rank, rv = -1;
    TU_CHECK(MPI_File_write_at(fh, tu_rank, &wv, 1, MPI_INT, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_File_read_at(fh, tu_rank, &rv, 1, MPI_INT, MPI_STATUS_IGNORE));
    TU_ASSERT(rv == wv, "read %d through datarep 'mine', wrote %d", rv, wv);
    tu_expect(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "converting", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP, "MPI_File_set_view", "a datarep with conversions");
    tu_expect(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "wide", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP, "MPI_File_set_view", "a datarep of other extents");
    tu_expect(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "nosuch", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP, "MPI_File_set_view", "an unknown datarep");
    TU_CHECK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (tu_rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    tu_finish();
    return 0;
}
