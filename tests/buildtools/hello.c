/* The program the build-tool tests build (with an installed mpicc, pkg-config,
 * CMake, Meson and autoconf): every rank prints the library it runs on, so a
 * test sees that Faro was linked and not another MPI installed on the machine.
 *   "rank R of N: Faro 0.1.0 (MPI 3.1; ...)" */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int rank, size, len;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(version, &len);
    printf("rank %d of %d: %s\n", rank, size, version);
    MPI_Finalize();
    return 0;
}
