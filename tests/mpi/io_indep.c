/*
 * io_indep: independent non-contiguous access. Every rank writes, at the same
 * time, 5-byte pieces interleaved with the other ranks' pieces (an hvector
 * filetype) over a file whose gaps hold a prefilled pattern; with data
 * sieving (romio_ds_write enabled, the default) each write is a
 * read-modify-write of a span that holds the others' pieces, so this checks
 * the span lock as well as the offsets. The hints come from IO_HINTS
 * (romio_ds_read/write=disable runs the same without sieving). Then a
 * non-contiguous memory type against a contiguous file, reads through the
 * filetype, and a short read at the end of the file (MPI_Get_count gives
 * what was read, not an error).
 */
#include "util.h"
#include "io_util.h"

#define PIECE 5
#define NPIECE 20000

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "io_indep");
    int P = tu_size, r = tu_rank;
    const char *path = io_path("indep");
    MPI_File fh;
    MPI_Status st;
    long span = (long)PIECE * P * NPIECE + 64; /* the last 64 bytes are never written */
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                           io_info_hints(), &fh));
    unsigned char *pre = tu_malloc((size_t)span);
    tu_fill(pre, (size_t)span, 77);
    if (r == 0)
        TU_CHECK(MPI_File_write_at(fh, 0, pre, (int)span, MPI_BYTE, &st));
    TU_CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_File_sync(fh));

    /* rank r's pieces: bytes [r*PIECE + k*PIECE*P, +PIECE) for k < NPIECE; each rank
     * writes only every other piece of its own, so the gaps keep the pattern */
    MPI_Datatype ft;
    MPI_Type_create_hvector(NPIECE / 2, PIECE, (MPI_Aint)2 * PIECE * P, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    TU_CHECK(MPI_File_set_view(fh, (MPI_Offset)r * PIECE, MPI_BYTE, ft, "native",
                               MPI_INFO_NULL));
    int nbytes = NPIECE / 2 * PIECE;
    unsigned char *mine = tu_malloc((size_t)nbytes), *back = tu_malloc((size_t)nbytes);
    tu_fill(mine, (size_t)nbytes, (unsigned)r + 1);
    for (int rep = 0; rep < 30; rep++) /* concurrent read-modify-writes over one span */
        TU_CHECK(MPI_File_write_at(fh, 0, mine, nbytes, MPI_BYTE, &st));
    int n;
    MPI_Get_count(&st, MPI_BYTE, &n);
    TU_ASSERT(n == nbytes, "write count %d, expected %d", n, nbytes);
    TU_CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_File_sync(fh));
    if (r == 0) {
        unsigned char *all = tu_malloc((size_t)span);
        TU_ASSERT(io_raw_read(path, 0, all, span) == span, "the file is short");
        for (long i = 0; i < span; i++) {
            long piece = i / PIECE, owner = piece % P, k = piece / P;
            unsigned char want = pre[i];
            if (i < (long)PIECE * P * NPIECE && k % 2 == 0) {
                size_t at = (size_t)(k / 2) * PIECE + (size_t)(i % PIECE);
                want = tu_pat(at, (unsigned)owner + 1);
            }
            TU_ASSERT(all[i] == want, "file byte %ld is %u, expected %u (%s of rank %ld)", i,
                      all[i], want, k % 2 == 0 ? "a piece" : "a gap next to a piece", owner);
        }
        free(all);
    }
    memset(back, 0, (size_t)nbytes);
    TU_CHECK(MPI_File_read_at(fh, 0, back, nbytes, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &n);
    TU_ASSERT(n == nbytes, "read count %d, expected %d", n, nbytes);
    tu_check_pattern(back, (size_t)nbytes, (unsigned)r + 1, "pieces read through the view");
    MPI_Type_free(&ft);

    /* non-contiguous memory, contiguous file: every other int of a buffer */
    TU_CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_Datatype mt;
    MPI_Type_vector(100, 1, 2, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    int src[200], dst[200], flat[100];
    for (int i = 0; i < 200; i++)
        src[i] = i % 2 ? -1 : r * 1000 + i / 2;
    MPI_Offset at = span + (MPI_Offset)r * 400;
    TU_CHECK(MPI_File_write_at(fh, at, src, 1, mt, &st));
    TU_CHECK(MPI_File_read_at(fh, at, flat, 100, MPI_INT, &st));
    for (int i = 0; i < 100; i++)
        TU_ASSERT(flat[i] == r * 1000 + i, "int %d written from a strided buffer is %d", i,
                  flat[i]);
    for (int i = 0; i < 200; i++)
        dst[i] = -7;
    TU_CHECK(MPI_File_read_at(fh, at, dst, 1, mt, &st));
    for (int i = 0; i < 200; i++)
        TU_ASSERT(dst[i] == (i % 2 ? -7 : r * 1000 + i / 2), "strided read: int %d is %d", i,
                  dst[i]);
    MPI_Type_free(&mt);
    MPI_Barrier(MPI_COMM_WORLD);

    /* short read at the end of the file, through a non-contiguous view */
    MPI_Offset size;
    TU_CHECK(MPI_File_get_size(fh, &size));
    MPI_Type_vector(10, 4, 8, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    TU_CHECK(MPI_File_set_view(fh, size - 30, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    unsigned char tail[40];
    TU_CHECK(MPI_File_read_at(fh, 0, tail, 40, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &n);
    /* pieces at 0,8,16,24 (4 bytes each, the one at 24 cut to 30) and none after */
    TU_ASSERT(n == 4 + 4 + 4 + 4, "short read got %d bytes, expected 16", n);
    MPI_Type_free(&ft);
    TU_CHECK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    free(pre);
    free(mine);
    free(back);
    tu_finish();
    return 0;
}
