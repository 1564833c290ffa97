/*
 * MPMD: run as the programs of one job, e.g.
 *     mpiexec -n 2 appnum 0 : -n 3 appnum 1
 * Each rank checks that MPI_APPNUM is the number given (its program's index),
 * that MPI_COMM_WORLD holds the ranks of every program, those of program k
 * before those of k+1, and that the programs split and talk to each other.
 */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "appnum");
    if (argc < 2)
        tu_fail("usage: appnum EXPECTED_APPNUM (as one program of mpiexec A : B)");
    int want = atoi(argv[1]), flag, *appnum;
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    if (!flag)
        tu_fail("MPI_APPNUM is not set under mpiexec");
    if (*appnum != want)
        tu_fail("MPI_APPNUM is %d, expected %d", *appnum, want);

    int *all = malloc((size_t)tu_size * sizeof *all);
    TU_CHECK(MPI_Allgather(appnum, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int r = 1; r < tu_size; r++)
        if (all[r] < all[r - 1])
            tu_fail("rank %d runs program %d after rank %d's program %d", r, all[r], r - 1,
                    all[r - 1]);

    /* The programs split by appnum, as MPMD codes do, and talk across. */
    MPI_Comm mine;
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, *appnum, tu_rank, &mine));
    int nmine, count = 0;
    MPI_Comm_size(mine, &nmine);
    for (int r = 0; r < tu_size; r++)
        count += all[r] == *appnum;
    if (nmine != count)
        tu_fail("program %d's communicator has %d ranks, expected %d", *appnum, nmine, count);
    int last = all[tu_size - 1] * 1000 + tu_size - 1;
    int token = tu_rank == tu_size - 1 ? last : -1;
    TU_CHECK(MPI_Bcast(&token, 1, MPI_INT, tu_size - 1, MPI_COMM_WORLD));
    if (token != last)
        tu_fail("a broadcast from the last program gave %d, expected %d", token, last);
    TU_CHECK(MPI_Comm_free(&mine));
    free(all);
    tu_finish();
    return 0;
}
