/*
 * nbc_on_coll_reduce: tests/mpi/coll_reduce.c run on the nonblocking collectives
 * (each collective call becomes its MPI_I* form and a completion call; see
 * nbc_wrap.h). Its references and checks are coll_reduce's own.
 */
#include "util.h"
#include "nbc_wrap.h"
#include "coll_reduce.c"
