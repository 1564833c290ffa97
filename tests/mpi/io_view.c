/*
 * io_view: file views. A vector filetype that interleaves every rank's
 * blocks after a header (individual-pointer writes, the file checked through
 * POSIX, read back through the view), MPI_File_get_byte_offset, seek and
 * get_position (SEEK_SET/CUR/END), a subarray filetype written and read
 * collectively, the external32 data representation (big-endian in the file,
 * native again when read through the view), get_view, and the errors of bad
 * views.
 */
#include "util.h"
#include "io_util.h"

#define B 16  /* ints per block */
#define NB 8  /* blocks per rank */
#define HDR 100

static int be32(const unsigned char *p)
{
    return (int)((unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3]);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "io_view");
    int P = tu_size, r = tu_rank;
    const char *path = io_path("view");
    MPI_File fh;
    MPI_Status st;
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                           io_info_hints(), &fh));

    /* 1. vector view: block k of rank r at HDR + (k*P + r)*B ints */
    MPI_Datatype vec, ft;
    MPI_Type_vector(NB, B, B * P, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)NB * B * P * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    TU_CHECK(MPI_File_set_view(fh, HDR + (MPI_Offset)r * B * sizeof(int), MPI_INT, ft,
                               "native", MPI_INFO_NULL));
    int *mine = tu_malloc(NB * B * sizeof(int)), *back = tu_malloc(NB * B * sizeof(int));
    for (int i = 0; i < NB * B; i++)
        mine[i] = r * 1000000 + i;
    /* two writes through the individual pointer, the second continues the first */
    TU_CHECK(MPI_File_write(fh, mine, NB * B / 2, MPI_INT, &st));
    TU_CHECK(MPI_File_write(fh, mine + NB * B / 2, NB * B / 2, MPI_INT, &st));
    MPI_Offset pos;
    TU_CHECK(MPI_File_get_position(fh, &pos));
    TU_ASSERT(pos == NB * B, "position %lld after writing %d ints", pos, NB * B);
    MPI_Offset byte;
    TU_CHECK(MPI_File_get_byte_offset(fh, B + 3, &byte));
    TU_ASSERT(byte == HDR + ((MPI_Offset)P * B + r * B + 3) * (MPI_Offset)sizeof(int),
              "byte offset of etype %d is %lld", B + 3, byte);
    TU_CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_File_sync(fh));
    if (r == 0) {
        long n = (long)NB * B * P;
        int *all = tu_malloc((size_t)n * sizeof(int));
        TU_ASSERT(io_raw_read(path, HDR, all, n * (long)sizeof(int)) == n * (long)sizeof(int),
                  "the file is short");
        for (long i = 0; i < n; i++) {
            long blk = i / B, k = blk / P, owner = blk % P, within = i % B;
            int want = (int)(owner * 1000000 + k * B + within);
            TU_ASSERT(all[i] == want, "file int %ld (after the header) is %d, expected %d "
                      "(rank %ld's block %ld)", i, all[i], want, owner, k);
        }
        free(all);
    }
    TU_CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(back, 0, NB * B * sizeof(int));
    TU_CHECK(MPI_File_read(fh, back, NB * B, MPI_INT, &st));
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    TU_ASSERT(n == NB * B, "read %d ints through the view, expected %d", n, NB * B);
    for (int i = 0; i < NB * B; i++)
        TU_ASSERT(back[i] == mine[i], "int %d read through the view is %d, expected %d", i,
                  back[i], mine[i]);
    TU_CHECK(MPI_File_seek(fh, 3, MPI_SEEK_SET));
    TU_CHECK(MPI_File_seek(fh, 2, MPI_SEEK_CUR));
    TU_CHECK(MPI_File_get_position(fh, &pos));
    TU_ASSERT(pos == 5, "position %lld after seek 3 SET, 2 CUR", pos);
    TU_CHECK(MPI_File_seek(fh, -1, MPI_SEEK_END));
    TU_CHECK(MPI_File_get_position(fh, &pos));
    TU_ASSERT(pos == NB * B - 1, "position %lld after seek -1 END, expected %d", pos,
              NB * B - 1);
    tu_expect(MPI_File_seek(fh, -100000, MPI_SEEK_CUR), MPI_ERR_ARG, "MPI_File_seek",
              "seeking before the view");
    MPI_Offset disp;
    MPI_Datatype et, gft;
    char rep[MPI_MAX_DATAREP_STRING];
    TU_CHECK(MPI_File_get_view(fh, &disp, &et, &gft, rep));
    TU_ASSERT(disp == HDR + (MPI_Offset)r * B * (MPI_Offset)sizeof(int) && et == MPI_INT &&
              !strcmp(rep, "native"), "get_view: disp %lld, datarep %s", disp, rep);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(gft, &lb, &ext);
    TU_ASSERT(ext == (MPI_Aint)NB * B * P * (MPI_Aint)sizeof(int), "get_view's filetype extent "
              "%ld", (long)ext);
    MPI_Type_free(&gft);

    /* bad views */
    tu_expect(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "bogus", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP, "MPI_File_set_view", "an unknown datarep");
    tu_expect(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                                MPI_INFO_NULL),
              MPI_ERR_ARG, "MPI_File_set_view", "MPI_DISPLACEMENT_CURRENT on a random file");
    tu_expect(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_INT, "native", MPI_INFO_NULL),
              MPI_ERR_TYPE, "MPI_File_set_view", "a filetype not made of etypes");
    if (P > 1) /* a bad datarep at one member only: all return an error, none waits */
        tu_expect(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, r == 0 ? "bogus" : "native",
                                    MPI_INFO_NULL),
                  r == 0 ? MPI_ERR_UNSUPPORTED_DATAREP : MPI_ERR_OTHER, "MPI_File_set_view",
                  "a bad datarep at rank 0 only");
    TU_CHECK(MPI_File_close(&fh));
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        MPI_File_delete(path, MPI_INFO_NULL);

    /* 2. subarray: an 8 x 4P array of ints, rank r owns columns 4r..4r+3 */
    int sizes[2] = {8, 4 * P}, sub[2] = {8, 4}, starts[2] = {0, 4 * r};
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                           io_info_hints(), &fh));
    TU_CHECK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    int blk[32], got[32];
    for (int i = 0; i < 32; i++)
        blk[i] = (i / 4) * 1000 + 4 * r + i % 4; /* row*1000 + column */
    TU_CHECK(MPI_File_write_all(fh, blk, 32, MPI_INT, &st));
    TU_CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_File_sync(fh));
    if (r == 0) {
        int *all = tu_malloc((size_t)32 * P * sizeof(int));
        io_raw_read(path, 0, all, 32L * P * (long)sizeof(int));
        for (int i = 0; i < 32 * P; i++)
            TU_ASSERT(all[i] == (i / (4 * P)) * 1000 + i % (4 * P), "subarray file int %d is %d, "
                      "expected %d", i, all[i], (i / (4 * P)) * 1000 + i % (4 * P));
        free(all);
    }
    memset(got, 0, sizeof got);
    TU_CHECK(MPI_File_read_at_all(fh, 0, got, 32, MPI_INT, &st));
    TU_ASSERT(!memcmp(got, blk, sizeof got), "the subarray read back differs");
    TU_CHECK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        MPI_File_delete(path, MPI_INFO_NULL);

    /* 3. external32: big-endian in the file, native through the view */
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                           MPI_INFO_NULL, &fh));
    TU_CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    TU_CHECK(MPI_File_get_view(fh, &disp, &et, &gft, rep));
    TU_ASSERT(!strcmp(rep, "external32"), "datarep in effect '%s'", rep);
    int vals[16];
    for (int i = 0; i < 16; i++)
        vals[i] = r * 100000 + i * 257 - 3;
    TU_CHECK(MPI_File_write_at(fh, (MPI_Offset)r * 16, vals, 16, MPI_INT, &st));
    TU_CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_File_sync(fh));
    unsigned char raw[64];
    int peer = (r + 1) % P;
    io_raw_read(path, peer * 64L, raw, 64);
    for (int i = 0; i < 16; i++)
        TU_ASSERT(be32(raw + 4 * i) == peer * 100000 + i * 257 - 3, "external32 int %d of rank "
                  "%d in the file is %d big-endian, expected %d", i, peer, be32(raw + 4 * i),
                  peer * 100000 + i * 257 - 3);
    memset(got, 0, sizeof got);
    TU_CHECK(MPI_File_read_at(fh, (MPI_Offset)peer * 16, got, 16, MPI_INT, &st));
    for (int i = 0; i < 16; i++)
        TU_ASSERT(got[i] == peer * 100000 + i * 257 - 3, "external32 int %d read back is %d", i,
                  got[i]);
    TU_CHECK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    free(mine);
    free(back);
    tu_finish();
    return 0;
}
