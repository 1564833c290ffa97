/*
 * io_shared: the shared file pointer. Every rank appends records with
 * MPI_File_write_shared at once: each record must be in the file exactly
 * once, whole, and the pointer must end after all of them. Then
 * write_ordered (records in rank order after those), read_ordered,
 * read_shared, seek_shared / get_position_shared, and the split ordered
 * calls.
 */
#include "util.h"
#include "io_util.h"

#define REC 48
#define NREC 20

struct rec {
    int rank, k;
    char fill[REC - 2 * sizeof(int)];
};

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "io_shared");
    int P = tu_size, r = tu_rank;
    const char *path = io_path("shared");
    MPI_File fh;
    MPI_Status st;
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                           MPI_INFO_NULL, &fh));
    TU_CHECK(MPI_File_set_size(fh, 0));
    struct rec rc;
    for (int k = 0; k < NREC; k++) {
        rc.rank = r, rc.k = k;
        memset(rc.fill, 'a' + r % 26, sizeof rc.fill);
        TU_CHECK(MPI_File_write_shared(fh, &rc, REC, MPI_BYTE, &st));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset pos;
    TU_CHECK(MPI_File_get_position_shared(fh, &pos));
    TU_ASSERT(pos == (MPI_Offset)REC * NREC * P, "shared pointer at %lld after %d records, "
              "expected %d", pos, NREC * P, REC * NREC * P);
    /* every record once */
    struct rec *all = tu_malloc((size_t)REC * NREC * P);
    TU_CHECK(MPI_File_read_at(fh, 0, all, REC * NREC * P, MPI_BYTE, &st));
    int *seen = calloc((size_t)NREC * P, sizeof(int));
    for (int i = 0; i < NREC * P; i++) {
        TU_ASSERT(all[i].rank >= 0 && all[i].rank < P && all[i].k >= 0 && all[i].k < NREC,
                  "record %d is damaged (rank %d, k %d)", i, all[i].rank, all[i].k);
        TU_ASSERT(all[i].fill[0] == 'a' + all[i].rank % 26 &&
                  all[i].fill[sizeof rc.fill - 1] == 'a' + all[i].rank % 26,
                  "record %d is torn", i);
        seen[all[i].rank * NREC + all[i].k]++;
    }
    for (int i = 0; i < NREC * P; i++)
        TU_ASSERT(seen[i] == 1, "rank %d's record %d is in the file %d times", i / NREC,
                  i % NREC, seen[i]);
    /* ordered: rank r's block follows rank r-1's, after the shared records */
    int ord[4] = {r, r, r, r};
    TU_CHECK(MPI_File_write_ordered(fh, ord, r + 1, MPI_INT, &st));
    int want_end = REC * NREC * P + (int)sizeof(int) * P * (P + 1) / 2;
    TU_CHECK(MPI_File_get_position_shared(fh, &pos));
    TU_ASSERT(pos == want_end, "shared pointer %lld after write_ordered, expected %d", pos,
              want_end);
    MPI_Barrier(MPI_COMM_WORLD); /* the others' ordered blocks are written */
    int *tail = tu_malloc(sizeof(int) * (size_t)P * (P + 1) / 2);
    TU_CHECK(MPI_File_read_at(fh, REC * NREC * P, tail, P * (P + 1) / 2, MPI_INT, &st));
    for (int q = 0, i = 0; q < P; q++)
        for (int j = 0; j <= q; j++, i++)
            TU_ASSERT(tail[i] == q, "ordered int %d is %d, expected %d", i, tail[i], q);
    /* seek_shared back to the ordered block and read it in order */
    TU_CHECK(MPI_File_seek_shared(fh, REC * NREC * P, MPI_SEEK_SET));
    int got[4] = {-1, -1, -1, -1};
    TU_CHECK(MPI_File_read_ordered(fh, got, r + 1, MPI_INT, &st));
    for (int j = 0; j <= r; j++)
        TU_ASSERT(got[j] == r, "read_ordered int %d is %d, expected %d", j, got[j], r);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    TU_ASSERT(n == r + 1, "read_ordered count %d", n);
    /* split ordered: same again */
    TU_CHECK(MPI_File_seek_shared(fh, REC * NREC * P, MPI_SEEK_SET));
    memset(got, 0xff, sizeof got);
    TU_CHECK(MPI_File_read_ordered_begin(fh, got, r + 1, MPI_INT));
    TU_CHECK(MPI_File_read_ordered_end(fh, got, &st));
    TU_ASSERT(got[r] == r, "split read_ordered int is %d", got[r]);
    /* read_shared: each rank gets one whole record, all different */
    TU_CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    TU_CHECK(MPI_File_read_shared(fh, &rc, REC, MPI_BYTE, &st));
    int key = rc.rank * NREC + rc.k, *keys = tu_malloc(sizeof(int) * (size_t)P);
    MPI_Allgather(&key, 1, MPI_INT, keys, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < P; i++)
        for (int j = 0; j < i; j++)
            TU_ASSERT(keys[i] != keys[j], "ranks %d and %d read the same record", i, j);
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_File_get_position_shared(fh, &pos));
    TU_ASSERT(pos == (MPI_Offset)REC * P, "shared pointer %lld after %d read_shared", pos, P);
    TU_CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    TU_CHECK(MPI_File_get_position_shared(fh, &pos));
    TU_ASSERT(pos == want_end, "seek_shared END: %lld, expected %d", pos, want_end);
    TU_CHECK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    free(all);
    free(seen);
    free(tail);
    free(keys);
    tu_finish();
    return 0;
}
