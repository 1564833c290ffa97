#!/bin/sh
# check-mpi.sh: the `make check` driver for the MPI test programs. Runs
# run-testlist with the mpiexec of this build tree on tests/mpi/testlist and
# the per-area lists tests/mpi/testlist-*, under the default configurations
# of run-testlist's matrix; then, when faro_info shows the ofi transport
# usable, the same lists under the ofi configurations over the tcp;ofi_rxm
# and the shm providers (ofi, ofi-shm), tests/mpi/ofi-testlist under the
# other ofi configurations (forced get and put, the sockets provider; the
# whole lists were run by hand there: docs/transports.md, "What ran
# where"), and the lines of testlist-dynamic that name those and ofi+shm (ofi
# for ports, shm inside the job); and when it shows
# the verbs transport usable (an RDMA device), the lists under the verbs
# configuration, ofi-testlist under verbs-get, verbs-put and verbs-srq, and
# the lines of testlist-dynamic that name those and verbs+shm.
#   TESTLIST_CONFIGS=shm,tcp   run only these configurations, on every list
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
run() {
    "$srcdir/tests/mpi/run-testlist" --mpiexec "$launcher" --bindir "$top_builddir/tests/mpi" "$@"
}
lists="$srcdir/tests/mpi/testlist $(ls "$srcdir"/tests/mpi/testlist-*)"
# testlist-fortran's programs exist only where configure built the Fortran bindings
if [ ! -x "$top_builddir/tests/mpi/fortran_usempi" ]; then
    echo "check-mpi.sh: the Fortran bindings are not built (configure's 'Fortran' line): testlist-fortran skipped"
    lists=$(echo "$lists" | tr ' ' '\n' | grep -v '/testlist-fortran$' | tr '\n' ' ')
fi
if [ -n "${TESTLIST_CONFIGS:-}" ]; then
    # shellcheck disable=SC2086
    exec run $lists
fi
status=0
# shellcheck disable=SC2086
run $lists || status=1
if "$top_builddir/faro_info" --transports 2>/dev/null | grep -q '^  ofi  *usable'; then
    # shellcheck disable=SC2086
    run --config ofi,ofi-shm $lists || status=1
    run --config ofi-get,ofi-put,ofi-sockets "$srcdir/tests/mpi/ofi-testlist" || status=1
    run --config ofi-get,ofi-put,ofi-sockets,ofi+shm "$srcdir/tests/mpi/testlist-dynamic" ||
        status=1
else
    echo "check-mpi.sh: the ofi transport is not built or not usable here: its configurations are skipped"
fi
if "$top_builddir/faro_info" --transports 2>/dev/null | grep -q '^  verbs  *usable'; then
    # shellcheck disable=SC2086
    run --config verbs $lists || status=1
    run --config verbs-get,verbs-put,verbs-srq "$srcdir/tests/mpi/ofi-testlist" || status=1
    run --config verbs-get,verbs-put,verbs-srq,verbs+shm "$srcdir/tests/mpi/testlist-dynamic" ||
        status=1
else
    echo "check-mpi.sh: the verbs transport is not built or has no RDMA device here: its configurations are skipped (verbs-standin-mpi.sh runs ofi-testlist and the dynamic connections over the stand-in)"
fi
exit $status
