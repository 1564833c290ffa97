/*
 * Communicators. Only the predefined ones exist yet: MPI_COMM_WORLD (context 0)
 * and MPI_COMM_SELF (context 1). Creation, groups and topologies come with
 * the MPI-breadth work.
 */
#include <string.h>

#include "core.h"

struct faro_comm faro_mpi_comm_world = {
    .context_id = 0, .errhandler = &faro_mpi_errors_are_fatal, .name = "MPI_COMM_WORLD",
    .predefined = 1};
struct faro_comm faro_mpi_comm_self = {
    .context_id = 1, .rank = 0, .size = 1, .errhandler = &faro_mpi_errors_are_fatal,
    .name = "MPI_COMM_SELF", .predefined = 1};

static int self_world;

int faro_comm_init(void)
{
    faro_mpi_comm_world.rank = faro.rank;
    faro_mpi_comm_world.size = faro.size;
    self_world = faro.rank;
    faro_mpi_comm_self.world = &self_world;
    return MPI_SUCCESS;
}

int faro_comm_check(MPI_Comm c)
{
    return (c == MPI_COMM_WORLD || c == MPI_COMM_SELF) ? 0 : -1;
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    if (faro_comm_check(comm))
        return faro_err(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_Comm_size: invalid communicator");
    *size = comm->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    if (faro_comm_check(comm))
        return faro_err(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_Comm_rank: invalid communicator");
    *rank = comm->rank;
    return MPI_SUCCESS;
}
