/*
 * coll_bottom: collectives on MPI_BOTTOM with absolute-address datatypes.
 * Every block then has the same (NULL) base pointer, so a local copy may not
 * be skipped just because source and destination pointers are equal.
 */
#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_bottom");
    enum { N = 3 };
    int *sbuf = malloc(sizeof(int) * N * tu_size), *rbuf = malloc(sizeof(int) * N * tu_size);
    MPI_Datatype *st = malloc(sizeof *st * tu_size), *rt = malloc(sizeof *rt * tu_size);
    int *cnt = malloc(sizeof(int) * tu_size), *dis = malloc(sizeof(int) * tu_size);
    for (int i = 0; i < N * tu_size; i++) {
        sbuf[i] = tu_rank * 1000 + i; /* block d goes to rank d */
        rbuf[i] = -1;
    }
    for (int d = 0; d < tu_size; d++) {
        int bl = N;
        MPI_Aint a;
        MPI_Datatype base = MPI_INT;
        TU_CHECK(MPI_Get_address(sbuf + d * N, &a));
        TU_CHECK(MPI_Type_create_struct(1, &bl, &a, &base, &st[d]));
        TU_CHECK(MPI_Type_commit(&st[d]));
        TU_CHECK(MPI_Get_address(rbuf + d * N, &a));
        TU_CHECK(MPI_Type_create_struct(1, &bl, &a, &base, &rt[d]));
        TU_CHECK(MPI_Type_commit(&rt[d]));
        cnt[d] = 1;
        dis[d] = 0;
    }
    TU_CHECK(MPI_Alltoallw(MPI_BOTTOM, cnt, dis, st, MPI_BOTTOM, cnt, dis, rt, MPI_COMM_WORLD));
    for (int s = 0; s < tu_size; s++)
        for (int k = 0; k < N; k++) {
            int want = s * 1000 + tu_rank * N + k;
            if (rbuf[s * N + k] != want)
                tu_fail("Alltoallw(MPI_BOTTOM): block from rank %d element %d is %d, expected %d",
                        s, k, rbuf[s * N + k], want);
        }
    for (int d = 0; d < tu_size; d++) {
        MPI_Type_free(&st[d]);
        MPI_Type_free(&rt[d]);
    }
    free(sbuf), free(rbuf), free(st), free(rt), free(cnt), free(dis);
    tu_finish();
    return 0;
}
