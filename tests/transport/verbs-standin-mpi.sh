#!/bin/sh
# verbs-standin-mpi.sh: MPI test programs over the verbs transport with the
# verbs stand-in preloaded in place of libibverbs and librdmacm
# (tests/transport/standin/standin.h): a test driver, not a device. The
# representative list tests/mpi/ofi-testlist runs under run-testlist's verbs
# configurations: the default (eager up to 16 KiB, rendezvous by RDMA read),
# the rendezvous forced to RDMA read and to RDMA write with every message,
# and the shared receive queue for every peer; then the dynamic connections
# (ports over librdmacm): the verbs lines of tests/mpi/testlist-dynamic and
# the pairs of separately started jobs of tests/mpi/dyn-jobs.sh. A rank that
# broke a verbs rule exits with status 97, naming it. On a machine with an
# RDMA device, check-mpi.sh runs the whole lists under these configurations
# over the device instead (docs/transports.md). Run from the top build
# directory (automake does); srcdir is the top source directory.
srcdir=${srcdir:-$(dirname "$0")/../..}
so=$(pwd)/tests/transport/standin/.libs/libverbs_standin.so
[ -f "$so" ] && [ -x ./mpiexec ] || { echo "ERROR: build first ($so)" >&2; exit 99; }
if ./faro_info 2>/dev/null | grep -q "sanitizers=yes"; then
    echo "verbs-standin-mpi.sh: skipped under sanitizers (their runtime must come first, before a preloaded library)"
    exit 77
fi
echo "# MPI tests over verbs with the stand-in preloaded (a test driver, not a device)"
LD_PRELOAD=$so
export LD_PRELOAD
status=0
"$srcdir/tests/mpi/run-testlist" --mpiexec ./mpiexec --bindir tests/mpi \
    --config verbs,verbs-get,verbs-put,verbs-srq "$srcdir/tests/mpi/ofi-testlist" || status=1
echo "# dynamic connections over verbs with the stand-in preloaded"
"$srcdir/tests/mpi/run-testlist" --mpiexec ./mpiexec --bindir tests/mpi \
    --config verbs,verbs-get,verbs-put,verbs-srq,verbs+shm "$srcdir/tests/mpi/testlist-dynamic" ||
    status=1
sh "$srcdir/tests/mpi/dyn-jobs.sh" verbs || status=1
exit $status
