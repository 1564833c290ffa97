/*
 * startup_job: the smallest job there is, for timing a launch (perf/startup runs
 * it under each MPI's launcher): MPI_Init, one MPI_Barrier, MPI_Finalize.
 * Rank 0 prints how long MPI_Init took in the slowest rank and how long the
 * barrier took, so the wall time of the whole launch can be split into the
 * launcher's part and the library's:
 *
 *     startup_job: np 16 init_max_ms 12.3 barrier_ms 0.4
 *
 * Standard MPI C; builds with any MPI's mpicc.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <stdio.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    double t0 = now_ms();
    MPI_Init(&argc, &argv);
    double init = now_ms() - t0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t1 = now_ms();
    MPI_Barrier(MPI_COMM_WORLD);
    double barrier = now_ms() - t1, init_max = 0;
    MPI_Reduce(&init, &init_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("startup_job: np %d init_max_ms %.1f barrier_ms %.2f\n", size, init_max, barrier);
    MPI_Finalize();
    return 0;
}
