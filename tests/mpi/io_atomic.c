/*
 * io_atomic: atomic mode with concurrent overlapping writers. Every rank
 * writes the same region again and again, each time filled with its own
 * byte, through a non-contiguous view (so each write is a data-sieving
 * read-modify-write of several pieces) while the others do the same. In
 * atomic mode each write is whole: a read of the region, at any time, sees
 * a single writer's byte in every piece. Readers check while writers write.
 */
#include "util.h"
#include "io_util.h"

#define PIECES 64
#define PLEN 61
#define ROUNDS 40

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "io_atomic");
    int r = tu_rank;
    const char *path = io_path("atomic");
    MPI_File fh;
    MPI_Status st;
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                           io_info_hints(), &fh));
    TU_CHECK(MPI_File_set_atomicity(fh, 1));
    MPI_Datatype ft;
    MPI_Type_vector(PIECES, PLEN, PLEN + 3, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    TU_CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    unsigned char mine[PIECES * PLEN], seen[PIECES * PLEN];
    memset(mine, 'A' + r, sizeof mine);
    if (r == 0)
        TU_CHECK(MPI_File_write_at(fh, 0, mine, (int)sizeof mine, MPI_BYTE, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < ROUNDS; k++) {
        TU_CHECK(MPI_File_write_at(fh, 0, mine, (int)sizeof mine, MPI_BYTE, &st));
        TU_CHECK(MPI_File_read_at(fh, 0, seen, (int)sizeof seen, MPI_BYTE, &st));
        for (size_t i = 1; i < sizeof seen; i++)
            TU_ASSERT(seen[i] == seen[0], "round %d: byte %zu of the region is '%c' but byte 0 "
                      "is '%c' (two writes mixed in atomic mode)", k, i, seen[i], seen[0]);
    }
    MPI_Type_free(&ft);
    TU_CHECK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    tu_finish();
    return 0;
}
