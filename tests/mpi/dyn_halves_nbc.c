/*
 * dyn_halves_nbc: tests/mpi/dyn_halves.c on the nonblocking collectives: every
 * collective call (inter_coll.c's checks over the intercommunicator made by
 * MPI_Comm_accept / MPI_Comm_connect, and those on the merged communicator)
 * becomes its MPI_I* form and a completion call (see nbc_wrap.h).
 */
#include "util.h"
#include "nbc_wrap.h"
#include "dyn_halves.c"
