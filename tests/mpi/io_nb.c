/*
 * io_nb: the nonblocking file calls. iwrite_at/iread_at, iwrite/iread at the
 * individual pointer, iwrite_shared/iread_shared, and MPI-3.1's
 * iwrite_all/iread_all/iwrite_at_all/iread_at_all, each checked through
 * MPI_Wait's status and the data. The collective ones must not wait for the
 * other members at the call: rank 0 calls MPI_File_iwrite_all and then waits
 * for a message that rank 1 sends only before its own iwrite_all (a
 * deadlock, caught by the alarm, if the call blocks).
 */
#include "util.h"
#include "io_util.h"

#define N 256

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "io_nb");
    int P = tu_size, r = tu_rank;
    const char *path = io_path("nb");
    MPI_File fh;
    MPI_Status st;
    MPI_Request req;
    TU_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                           io_info_hints(), &fh));
    int buf[N], back[N], cnt;
    for (int i = 0; i < N; i++)
        buf[i] = r * 10000 + i;
    MPI_Offset base = (MPI_Offset)r * N * (MPI_Offset)sizeof(int);
    TU_CHECK(MPI_File_iwrite_at(fh, base, buf, N, MPI_INT, &req));
    TU_CHECK(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    TU_ASSERT(cnt == N, "iwrite_at status count %d", cnt);
    TU_CHECK(MPI_File_iread_at(fh, base, back, N, MPI_INT, &req));
    TU_CHECK(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    TU_ASSERT(cnt == N && !memcmp(back, buf, sizeof buf), "iread_at: count %d, data %s", cnt,
              memcmp(back, buf, sizeof buf) ? "differs" : "same");

    /* individual pointer */
    TU_CHECK(MPI_File_seek(fh, base, MPI_SEEK_SET));
    TU_CHECK(MPI_File_iread(fh, back, N / 2, MPI_INT, &req));
    int flag = 0;
    while (!flag)
        TU_CHECK(MPI_Test(&req, &flag, &st));
    MPI_Offset pos;
    TU_CHECK(MPI_File_get_position(fh, &pos));
    TU_ASSERT(pos == base + N / 2 * (MPI_Offset)sizeof(int), "position %lld after iread", pos);
    TU_CHECK(MPI_File_iwrite(fh, buf, N / 2, MPI_INT, &req));
    TU_CHECK(MPI_Wait(&req, &st));

    /* the collective ones: no waiting for the others at the call */
    MPI_Offset tail = (MPI_Offset)P * N * (MPI_Offset)sizeof(int);
    TU_CHECK(MPI_File_seek(fh, tail + base, MPI_SEEK_SET));
    if (P >= 2 && r == 0) {
        TU_CHECK(MPI_File_iwrite_all(fh, buf, N, MPI_INT, &req));
        int token;
        MPI_Recv(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        TU_CHECK(MPI_Wait(&req, &st));
    } else if (P >= 2 && r == 1) {
        int token = 1;
        MPI_Send(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        TU_CHECK(MPI_File_iwrite_all(fh, buf, N, MPI_INT, &req));
        TU_CHECK(MPI_Wait(&req, &st));
    } else {
        TU_CHECK(MPI_File_iwrite_all(fh, buf, N, MPI_INT, &req));
        TU_CHECK(MPI_Wait(&req, &st));
    }
    MPI_Get_count(&st, MPI_INT, &cnt);
    TU_ASSERT(cnt == N, "iwrite_all count %d", cnt);
    MPI_Barrier(MPI_COMM_WORLD);
    int nb = (r + 1) % P;
    TU_CHECK(MPI_File_iread_at_all(fh, tail + (MPI_Offset)nb * N * (MPI_Offset)sizeof(int),
                                   back, N, MPI_INT, &req));
    TU_CHECK(MPI_Wait(&req, &st));
    for (int i = 0; i < N; i++)
        TU_ASSERT(back[i] == nb * 10000 + i, "iread_at_all int %d is %d", i, back[i]);
    TU_CHECK(MPI_File_iwrite_at_all(fh, 2 * tail + base, buf, N, MPI_INT, &req));
    TU_CHECK(MPI_Wait(&req, &st));
    TU_CHECK(MPI_File_seek(fh, 2 * tail + base, MPI_SEEK_SET));
    TU_CHECK(MPI_File_iread_all(fh, back, N, MPI_INT, &req));
    TU_CHECK(MPI_Wait(&req, &st));
    TU_ASSERT(!memcmp(back, buf, sizeof buf), "iread_all data differs");

    /* shared pointer */
    TU_CHECK(MPI_File_seek_shared(fh, 3 * tail / (MPI_Offset)sizeof(int) * 0 + 3 * tail,
                                  MPI_SEEK_SET));
    TU_CHECK(MPI_File_iwrite_shared(fh, buf, N, MPI_INT, &req));
    TU_CHECK(MPI_Wait(&req, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_File_get_position_shared(fh, &pos));
    TU_ASSERT(pos == 4 * tail, "shared pointer %lld after iwrite_shared, expected %lld", pos,
              4 * tail);
    TU_CHECK(MPI_File_seek_shared(fh, 3 * tail, MPI_SEEK_SET));
    TU_CHECK(MPI_File_iread_shared(fh, back, N, MPI_INT, &req));
    TU_CHECK(MPI_Wait(&req, &st));
    TU_ASSERT(back[1] - back[0] == 1 && back[0] % 10000 == 0, "iread_shared got a torn block");
    TU_CHECK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    tu_finish();
    return 0;
}
