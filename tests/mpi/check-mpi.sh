#!/bin/sh
# check-mpi.sh: the `make check` driver for the MPI test programs. Runs
# run-testlist with the mpiexec of this build tree on tests/mpi/testlist and
# the per-area lists tests/mpi/testlist-*, under every configuration of
# run-testlist's matrix.
#   TESTLIST_CONFIGS=shm,tcp   restrict the configurations
#   TESTLIST_MPIEXEC=CMD       use another launcher command
# automake's test harness runs this from the top build directory and
# exports srcdir (the top source directory).
here=$(dirname "$0")
srcdir=${srcdir:-$here/../..}
top_builddir=$(pwd)
if [ -n "${TESTLIST_MPIEXEC:-}" ]; then
    launcher=$TESTLIST_MPIEXEC
elif [ -x "$top_builddir/mpiexec" ]; then
    launcher=$top_builddir/mpiexec
elif [ -x "$top_builddir/tools/mpiexec/mpiexec" ]; then
    launcher=$top_builddir/tools/mpiexec/mpiexec
else
    echo "check-mpi.sh: no mpiexec in $top_builddir or $top_builddir/tools/mpiexec: skipped" >&2
    exit 77
fi
exec "$srcdir/tests/mpi/run-testlist" --mpiexec "$launcher" \
    --bindir "$top_builddir/tests/mpi" "$srcdir/tests/mpi/testlist" "$srcdir"/tests/mpi/testlist-*
