/*
 * io_coll: collective I/O. Every rank writes NB blocks of BS bytes
 * interleaved with the others' (block k of rank r at (k*P + r)*BS) with
 * MPI_File_write_all through a vector view, and the file is checked byte by
 * byte through POSIX; then MPI_File_read_all reads it back, and each rank
 * reads its neighbour's blocks with read_at_all through the neighbour's view.
 * The hints come from IO_HINTS (cb_nodes, cb_buffer_size, romio_cb_write /
 * romio_cb_read = enable|disable), so the list runs two-phase with one and
 * two aggregators, with many rounds, and without collective buffering.
 * Then the split collectives and their misuse errors.
 */
#include "util.h"
#include "io_util.h"

#define BS 1000
#define NB 37

static unsigned char want_byte(long i, int P)
{
    long blk = i / BS, r = blk % P, k = blk / P;
    return tu_pat((size_t)(k * BS + i % BS), (unsigned)r + 11);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "io_coll");
    int P = tu_size, r = tu_rank;
    const char *path = io_path("coll");
    MPI_File fh;
    MPI_Status st;
    MPI_Info hints = io_info_hints();
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, hints, &fh));
    TU_CHECK(MPI_File_set_size(fh, 0));
    MPI_Datatype vec, ft;
    MPI_Type_vector(NB, BS, BS * P, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)NB * BS * P, &ft);
    MPI_Type_commit(&ft);
    TU_CHECK(MPI_File_set_view(fh, (MPI_Offset)r * BS, MPI_BYTE, ft, "native", hints));
    long n = (long)NB * BS;
    unsigned char *mine = tu_malloc((size_t)n), *back = tu_malloc((size_t)n);
    tu_fill(mine, (size_t)n, (unsigned)r + 11);
    /* in two calls, so the individual pointer carries the second on */
    TU_CHECK(MPI_File_write_all(fh, mine, (int)(n / 2), MPI_BYTE, &st));
    TU_CHECK(MPI_File_write_all(fh, mine + n / 2, (int)(n - n / 2), MPI_BYTE, &st));
    int cnt;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    TU_ASSERT(cnt == n - n / 2, "write_all count %d", cnt);
    TU_CHECK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_File_sync(fh));
    long total = n * P;
    TU_ASSERT(io_raw_size(path) == total, "file size %ld after the collective write, expected "
              "%ld", io_raw_size(path), total);
    if (r == 0) {
        unsigned char *all = tu_malloc((size_t)total);
        io_raw_read(path, 0, all, total);
        long bad = 0, first = -1;
        for (long i = 0; i < total; i++)
            if (all[i] != want_byte(i, P) && bad++ == 0)
                first = i;
        TU_ASSERT(bad == 0, "%ld bytes of the file differ, the first at %ld (block %ld: %u, "
                  "expected %u)", bad, first, first / BS, all[first], want_byte(first, P));
        free(all);
    }
    TU_CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(back, 0, (size_t)n);
    TU_CHECK(MPI_File_read_all(fh, back, (int)n, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    TU_ASSERT(cnt == n, "read_all count %d, expected %ld", cnt, n);
    tu_check_pattern(back, (size_t)n, (unsigned)r + 11, "own blocks read with read_all");
    /* the neighbour's blocks, through its view */
    int nb = (r + 1) % P;
    TU_CHECK(MPI_File_set_view(fh, (MPI_Offset)nb * BS, MPI_BYTE, ft, "native", hints));
    memset(back, 0, (size_t)n);
    TU_CHECK(MPI_File_read_at_all(fh, 0, back, (int)n, MPI_BYTE, &st));
    tu_check_pattern(back, (size_t)n, (unsigned)nb + 11, "rank %d's blocks read_at_all", nb);
    /* past the end: a short collective read */
    TU_CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", hints));
    TU_CHECK(MPI_File_read_at_all(fh, total - 10 + r, back, 100, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    TU_ASSERT(cnt == 10 - r || (10 - r < 0 && cnt == 0), "read_at_all at the end got %d bytes, "
              "expected %d", cnt, 10 - r);

    /* split collectives: contiguous per-rank blocks after the interleaved part */
    TU_CHECK(MPI_File_write_at_all_begin(fh, total + (MPI_Offset)r * BS, mine, BS, MPI_BYTE));
    tu_expect(MPI_File_write_at_all_begin(fh, 0, mine, 1, MPI_BYTE), MPI_ERR_OTHER,
              "MPI_File_write_at_all_begin", "a second outstanding split collective");
    tu_expect(MPI_File_read_all_end(fh, back, &st), MPI_ERR_OTHER, "MPI_File_read_all_end",
              "the wrong _end");
    tu_expect(MPI_File_close(&fh), MPI_ERR_OTHER, "MPI_File_close",
              "closing with a split collective outstanding");
    TU_CHECK(MPI_File_write_at_all_end(fh, mine, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    TU_ASSERT(cnt == BS, "write_at_all_end count %d", cnt);
    tu_expect(MPI_File_write_at_all_end(fh, mine, &st), MPI_ERR_OTHER,
              "MPI_File_write_at_all_end", "an _end with nothing outstanding");
    TU_CHECK(MPI_File_read_at_all_begin(fh, total + (MPI_Offset)nb * BS, back, BS, MPI_BYTE));
    TU_CHECK(MPI_File_read_at_all_end(fh, back, &st));
    tu_check_pattern(back, BS, (unsigned)nb + 11, "rank %d's split-written block", nb);
    TU_CHECK(MPI_File_seek(fh, total + (MPI_Offset)nb * BS, MPI_SEEK_SET));
    TU_CHECK(MPI_File_read_all_begin(fh, back, BS, MPI_BYTE));
    TU_CHECK(MPI_File_read_all_end(fh, back, &st));
    tu_check_pattern(back, BS, (unsigned)nb + 11, "rank %d's block (read_all_begin)", nb);
    TU_CHECK(MPI_File_seek(fh, total + (MPI_Offset)r * BS, MPI_SEEK_SET));
    TU_CHECK(MPI_File_write_all_begin(fh, mine, BS, MPI_BYTE));
    TU_CHECK(MPI_File_write_all_end(fh, mine, &st));
    /* nothing to move anywhere, and only some members with data */
    TU_CHECK(MPI_File_write_at_all(fh, 0, mine, 0, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    TU_ASSERT(cnt == 0, "an empty write_at_all counted %d bytes", cnt);
    TU_CHECK(MPI_File_read_at_all(fh, total + (MPI_Offset)nb * BS, back, r % 2 ? BS : 0,
                                  MPI_BYTE, &st));
    if (r % 2)
        tu_check_pattern(back, BS, (unsigned)nb + 11, "rank %d's block (odd ranks only)", nb);
    TU_CHECK(MPI_File_close(&fh));
    if (hints != MPI_INFO_NULL)
        MPI_Info_free(&hints);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    free(mine);
    free(back);
    tu_finish();
    return 0;
}
