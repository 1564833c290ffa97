#!/bin/sh
# Collective checking (FARO_COLL_CHECK=1, faro-debug(7)):
#  1. every deliberate mismatch of tests/mpi/coll_mismatch ends the job with
#     the message that names the collective, the ranks and what differs
#     (without the check these calls hang or finish with wrong data);
#     persistent collectives are named by their init (MPI_Bcast_init);
#  2. the collective test lists run under the check without a false alarm
#     (nbc_errors left out: it breaks the matching rules on purpose, a
#     root-only argument error and a truncating Igather).
# Run from the top build directory (automake does); srcdir is the top
# source directory.
MPIEXEC=${MPIEXEC:-./mpiexec}
srcdir=${srcdir:-$(dirname "$0")/../..}
[ -x "$MPIEXEC" ] && [ -x tests/mpi/coll_mismatch ] || { echo "ERROR: build first" >&2; exit 99; }
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

out=
# mismatch CASE NP: run it; it must fail
mismatch() {
    case=$1
    out=$(FARO_COLL_CHECK=1 TEST_CASE=$1 TEST_ALARM=0 timeout 60 "$MPIEXEC" -n "$2" \
          tests/mpi/coll_mismatch 2>&1 </dev/null)
    rc=$?
    [ $rc -eq 124 ] && fail "$1: hung"
    [ $rc -eq 0 ] && fail "$1: the job exited 0"
}
# need EXTENDED-REGEX: the last case's output has it
need() {
    echo "$out" | grep -Eq -e "$1" || { fail "$case: no message matching: $1"; echo "$out" | sed 's/^/    | /' >&2; }
}

W='on MPI_COMM_WORLD'
F='\(found by FARO_COLL_CHECK; see faro-debug\(7\)\)'
mismatch bcast_root 4
need "MPI_Bcast $W: (rank 2 passed root 0, rank 3 passed root 1|rank 3 passed root 1, rank 0 passed root 0) $F"
mismatch allreduce_op 3
need "MPI_Allreduce $W: (rank 0 passed op MPI_SUM, rank 1 passed op MPI_MAX|rank 1 passed op MPI_MAX, rank 2 passed op MPI_SUM)"
mismatch bcast_count 2
need "MPI_Bcast $W: rank [01] passed (5|10) x MPI_INT \(\1 basic elements, (20|40) bytes\), rank [01] passed (5|10) x MPI_INT .*: the sizes differ"
mismatch reduce_type 2
need "MPI_Reduce $W: rank [01] passed 4 x MPI_(INT|FLOAT) \(4 basic elements, 16 bytes\), rank [01] passed 4 x MPI_(INT|FLOAT) \(4 basic elements, 16 bytes\): the type signatures differ"
mismatch kind 2
need "collective mismatch $W: (rank 0 called MPI_Bcast, rank 1 called MPI_Reduce|rank 1 called MPI_Reduce, rank 0 called MPI_Bcast)"
mismatch gatherv_counts 3
need "MPI_Gatherv $W: rank 1 sends 4 x MPI_INT \(sendcount; 4 basic elements, 16 bytes\), rank 0 expects 5 x MPI_INT \(recvcounts\[1\]; 5 basic elements, 20 bytes\): the sizes differ $F"
mismatch scatterv_counts 3
need "MPI_Scatterv $W: rank 0 sends 3 x MPI_INT \(sendcounts\[2\]; 3 basic elements, 12 bytes\), rank 2 expects 4 x MPI_INT \(recvcount; 4 basic elements, 16 bytes\)"
mismatch allgatherv_counts 3
need "MPI_Allgatherv $W: rank 1 sends 4 x MPI_INT \(sendcount; 4 basic elements, 16 bytes\), rank 0 expects 6 x MPI_INT \(recvcounts\[1\]"
mismatch allgather_own 3
need "MPI_Allgather $W: (rank 1's own block: it sends 3 x MPI_INT \(sendcount; 3 basic elements, 12 bytes\) but expects 4 x MPI_INT \(recvcount|rank 1 sends 3 x MPI_INT \(sendcount; 3 basic elements, 12 bytes\), rank [02] expects 4 x MPI_INT)"
mismatch alltoallv_counts 3
need "MPI_Alltoallv $W: rank 0 sends 4 x MPI_INT \(sendcounts\[1\]; 4 basic elements, 16 bytes\), rank 1 expects 5 x MPI_INT \(recvcounts\[0\]"
mismatch reduce_scatter_counts 3
need "MPI_Reduce_scatter $W: rank [012] and rank [012] passed different recvcounts arrays"
mismatch ibcast_root 4
need "MPI_Ibcast $W: (rank 2 passed root 0, rank 3 passed root 1|rank 3 passed root 1, rank 0 passed root 0)"
mismatch ialltoallv_counts 3
need "MPI_Ialltoallv $W: rank 0 sends 4 x MPI_INT \(sendcounts\[1\]; 4 basic elements, 16 bytes\), rank 1 expects 5 x MPI_INT"
mismatch bcast_init_root 3
need "MPI_Bcast_init $W: (rank 1 passed root 0, rank 2 passed root 1|rank 2 passed root 1, rank 0 passed root 0) $F"
mismatch allreduce_init_op 3
need "MPI_Allreduce_init $W: (rank 0 passed op MPI_SUM, rank 1 passed op MPI_MAX|rank 1 passed op MPI_MAX, rank 2 passed op MPI_SUM)"
mismatch gatherv_init_counts 3
need "MPI_Gatherv_init $W: rank 1 sends 5 x MPI_INT \(sendcount; 5 basic elements, 20 bytes\), rank 0 expects 4 x MPI_INT \(recvcounts\[1\]"
mismatch bcast_vs_ibcast 2
need "collective mismatch $W: (rank 0 called MPI_Bcast, rank 1 called MPI_Ibcast|rank 1 called MPI_Ibcast, rank 0 called MPI_Bcast)"
mismatch neighbor_counts 3
need "MPI_Neighbor_allgather on .*: rank 1 sends 3 x MPI_INT \(sendcount; 3 basic elements, 12 bytes\), rank [02] expects 4 x MPI_INT \(recvcount"
mismatch inter_gather_counts 4
need "MPI_Gather on an intercommunicator .*: rank 1 of the remote group \(job rank 3\) sends 3 x MPI_INT \(sendcount; 3 basic elements, 12 bytes\), rank 0 of the local group expects 4 x MPI_INT \(recvcount"
mismatch inter_bcast_root 4
need "MPI_Bcast on an intercommunicator .*: rank [01] of the remote group \(job rank [23]\) passed root 1, but (the root is rank 0 of the local group \(it passed MPI_ROOT\)|rank 1 of the local group passed MPI_PROC_NULL)"
mismatch inter_ibcast_root 4
need "MPI_Ibcast on an intercommunicator .*: rank [01] of the remote group \(job rank [23]\) passed root 1, but (the root is rank 0 of the local group \(it passed MPI_ROOT\)|rank 1 of the local group passed MPI_PROC_NULL)"
mismatch inter_igather_counts 4
need "MPI_Igather on an intercommunicator .*: rank 1 of the remote group \(job rank 3\) sends 3 x MPI_INT \(sendcount; 3 basic elements, 12 bytes\), rank 0 of the local group expects 4 x MPI_INT \(recvcount"
mismatch inter_iallreduce_op 4
need "MPI_Iallreduce on an intercommunicator .*: rank [01] of the local group \(job rank [23]\) passed op MPI_(SUM|MAX), rank [01] of the local group \(job rank [23]\) passed op MPI_(SUM|MAX)"

# No false alarm: the collective lists under the check (shm).
lists=$(mktemp "${TMPDIR:-/tmp}/collcheck.XXXXXX")
trap 'rm -f "$lists"' EXIT
cat "$srcdir"/tests/mpi/testlist-coll "$srcdir"/tests/mpi/testlist-nbc \
    "$srcdir"/tests/mpi/testlist-inter "$srcdir"/tests/mpi/testlist-node |
    grep -v '^nbc_errors ' >"$lists"
grep '^pcoll ' "$srcdir"/tests/mpi/testlist-mpi4 >>"$lists" # persistent collectives
# The check adds a message round to every call: the oversubscribed lines
# (7-9 ranks on two cores) need more than the usual minute under load.
FARO_COLL_CHECK=1 "$srcdir/tests/mpi/run-testlist" --mpiexec "$MPIEXEC" --bindir tests/mpi \
    --config shm --timeout 180 "$lists" >"$lists.log"
rc=$?
grep -v '^PASS' "$lists.log"
rm -f "$lists.log"
[ $rc -eq 0 ] || fail "a collective test failed under FARO_COLL_CHECK=1"

[ $failures -eq 0 ] || exit 1
echo "collcheck: all checks passed"
