/*
 * dyn_pair_nbc: tests/mpi/dyn_pair.c (two jobs started separately, see
 * dyn-jobs.sh) on the nonblocking collectives (see nbc_wrap.h).
 */
#include "util.h"
#include "nbc_wrap.h"
#include "dyn_pair.c"
