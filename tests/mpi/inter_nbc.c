/*
 * inter_nbc: tests/mpi/inter_coll.c run on the nonblocking collectives of
 * intercommunicators (each collective call becomes its MPI_I* form and a
 * completion call; see nbc_wrap.h), plus its overlap() section: eight
 * nonblocking collectives in flight on one intercommunicator and one on a
 * second, completed together. The references and checks are inter_coll's.
 */
#include "util.h"
#include "nbc_wrap.h"
#include "inter_coll.c"
