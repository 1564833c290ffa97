/*
 * nbc_on_coll_basic: tests/mpi/coll_basic.c run on the nonblocking collectives
 * (each collective call becomes its MPI_I* form and a completion call; see
 * nbc_wrap.h). Its references and checks are coll_basic's own.
 */
#include "util.h"
#include "nbc_wrap.h"
#include "coll_basic.c"
