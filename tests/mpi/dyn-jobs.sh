#!/bin/sh
# Dynamic connections between two jobs started separately, each under its own
# mpiexec (tests/mpi/dyn_pair.c): job A opens a port and writes its name to a
# file, job B reads it and connects; both check every kind of traffic on the
# intercommunicator and on the merged communicator, three times on one port,
# and both must exit 0. Under the default transports and tcp only, with
# several sizes, and once on the nonblocking collectives (dyn_pair_nbc). Then the failure case: A's rank 0 ends abruptly after the
# connection; A's mpiexec reports it (non-zero), while B must see
# MPI_ERR_PROC_ABORTED naming the lost process, free the communicator, go on
# and exit 0. B dies in the context id agreement of a merge: A fails in
# MPI_Intercomm_merge and goes on. A singleton accepts a job's connection, and finds no name service
# (tests/mpi/dyn_names). The same pairs over ofi and over verbs when they are
# usable (`dyn-jobs.sh verbs`: the verbs pairs only). Every run has a time
# limit, so nothing hangs. Run from the top build directory (automake does).
MPIEXEC=${MPIEXEC:-./mpiexec}
PROG=tests/mpi/dyn_pair
DIR=${TMPDIR:-/tmp}/faro-dyn-jobs-$$
trap 'rm -rf "$DIR"' EXIT
[ -x "$MPIEXEC" ] && [ -x "$PROG" ] && [ -x "${PROG}_nbc" ] ||
    { echo "ERROR: build first" >&2; exit 99; }
mkdir -p "$DIR"
status=0

# pair NAME NA NB MODE_A MODE_B WANT_A WANT_B [VAR=VAL...]: one run of two jobs
pair() {
    name=$1 na=$2 nb=$3 ma=$4 mb=$5 wa=$6 wb=$7
    shift 7
    rm -f "$DIR/port"
    if [ "$na" = 0 ]; then # a singleton, without mpiexec
        env "$@" timeout -k 5 90 "$PROG" "$ma" "$DIR/port" >"$DIR/a.log" 2>&1 &
    else
        env "$@" timeout -k 5 90 "$MPIEXEC" -n "$na" "$PROG" "$ma" "$DIR/port" \
            >"$DIR/a.log" 2>&1 &
    fi
    a=$!
    env "$@" timeout -k 5 90 "$MPIEXEC" -n "$nb" "$PROG" "$mb" "$DIR/port" >"$DIR/b.log" 2>&1 &
    b=$!
    wait $a
    ra=$?
    wait $b
    rb=$?
    ok=1
    case $wa in 0) [ $ra = 0 ] || ok=0 ;; *) { [ $ra != 0 ] && [ $ra != 124 ]; } || ok=0 ;; esac
    [ $rb = "$wb" ] || ok=0
    if [ $ok = 1 ]; then
        echo "PASS $name (A: $na ranks, exit $ra; B: $nb ranks, exit $rb) $*"
    else
        echo "FAIL $name (A: $na ranks, exit $ra, wanted $wa; B: $nb ranks, exit $rb," \
             "wanted $wb) $*"
        echo "--- A:"; tail -20 "$DIR/a.log"
        echo "--- B:"; tail -20 "$DIR/b.log"
        status=1
    fi
}

# lost_warned NAME: B warned about the lost process of A (the lost-job pairs)
lost_warned() {
    if [ $status = 0 ] && ! grep -q "lost contact with rank 0 of job" "$DIR/b.log"; then
        echo "FAIL $1: B did not warn about the lost process"; cat "$DIR/b.log"; status=1
    fi
}

# tp_pairs TP [VAR=VAL...]: the pairs over transport TP (FARO_TRANSPORTS=TP):
# two jobs, the rendezvous, TP for the ports with shm inside each job, a
# singleton, the nonblocking collectives and the other job's loss.
tp_pairs() {
    tp=$1
    shift
    PROG=tests/mpi/dyn_pair
    pair two-jobs-$tp 2 3 accept connect 0 0 FARO_TRANSPORTS=$tp "$@"
    pair two-jobs-$tp-rndv 1 2 accept connect 0 0 FARO_TRANSPORTS=$tp FARO_EAGER_LIMIT=0 "$@"
    pair two-jobs-$tp+shm 2 2 accept connect 0 0 FARO_TRANSPORTS=$tp,shm "$@"
    pair singleton-accepts-$tp 0 2 accept connect 0 0 FARO_TRANSPORTS=$tp "$@"
    PROG=tests/mpi/dyn_pair_nbc
    pair two-jobs-$tp-nbc 2 2 accept connect 0 0 FARO_TRANSPORTS=$tp "$@"
    PROG=tests/mpi/dyn_pair
    pair lost-job-$tp 2 2 accept-die connect-lose fail 0 FARO_TRANSPORTS=$tp "$@"
    lost_warned lost-job-$tp
}

# Over the verbs transport (its ports go over librdmacm), when faro_info shows
# it usable: on an RDMA device, or over the verbs stand-in, where
# tests/transport/verbs-standin-mpi.sh runs `dyn-jobs.sh verbs`: these pairs
# only. And with a shared receive queue.
verbs_pairs() {
    tp_pairs verbs
    pair two-jobs-verbs-srq 2 2 accept connect 0 0 FARO_TRANSPORTS=verbs FARO_VERBS_SRQ_PEERS=0
}
if [ "${1:-}" = verbs ]; then # the caller knows verbs works (faro_info may not, preloaded)
    verbs_pairs
    exit $status
fi

pair two-jobs 2 3 accept connect 0 0
pair two-jobs-tcp 3 2 accept connect 0 0 FARO_TRANSPORTS=tcp
pair two-jobs-rndv 1 2 accept connect 0 0 FARO_EAGER_LIMIT=0
pair singleton-accepts 0 2 accept connect 0 0
PROG=tests/mpi/dyn_pair_nbc
pair two-jobs-nbc 2 2 accept connect 0 0
PROG=tests/mpi/dyn_pair
pair lost-job 2 2 accept-die connect-lose fail 0
lost_warned lost-job
# The connecting job dies while its root waits in the context id agreement of
# an MPI_Intercomm_merge (its last rank sleeps before the merge): every
# accepting rank must fail with MPI_ERR_PROC_ABORTED, none may wait for ever,
# and A exits 0.
rm -f "$DIR/port" "$DIR/port.merging"
timeout -k 5 90 "$MPIEXEC" -n 2 "$PROG" accept-broken "$DIR/port" >"$DIR/a.log" 2>&1 &
a=$!
timeout -k 5 90 "$MPIEXEC" -n 2 "$PROG" connect-stall "$DIR/port" >"$DIR/b.log" 2>&1 &
b=$!
for i in $(seq 1 600); do [ -f "$DIR/port.merging" ] && break; sleep 0.1; done
sleep 1 # B's root is in the merge, waiting for its last rank
kill -TERM $b 2>/dev/null
wait $b
wait $a
ra=$?
if [ $ra = 0 ]; then
    echo "PASS lost-in-agreement (A: 2 ranks, exit 0)"
else
    echo "FAIL lost-in-agreement (A exit $ra)"; tail -20 "$DIR/a.log"; tail -5 "$DIR/b.log"
    status=1
fi
# Over the ofi transport (libfabric), when it is usable here: its ports with
# the tcp;ofi_rxm, shm and sockets providers, ofi for the ports with shm
# inside each job, a singleton, and the other job's loss.
if ./faro_info --transports 2>/dev/null | grep -q '^  ofi  *usable'; then
    tp_pairs ofi "FARO_OFI_PROVIDER=tcp;ofi_rxm"
    pair two-jobs-ofi-shm 2 2 accept connect 0 0 FARO_TRANSPORTS=ofi FARO_OFI_PROVIDER=shm
    pair two-jobs-ofi-sockets 1 2 accept connect 0 0 FARO_TRANSPORTS=ofi FARO_OFI_PROVIDER=sockets
else
    echo "# ofi: not usable here, its pairs skipped"
fi
if ./faro_info --transports 2>/dev/null | grep -q '^  verbs  *usable'; then
    verbs_pairs
else
    echo "# verbs: not usable here (no RDMA device), its pairs skipped (verbs-standin-mpi.sh runs them over the stand-in)"
fi
# Without a process manager there is no name service: a clear error.
if TEST_SINGLETON=1 timeout 60 tests/mpi/dyn_names >"$DIR/s.log" 2>&1; then
    echo "PASS singleton-names"
else
    echo "FAIL singleton-names"; cat "$DIR/s.log"; status=1
fi
exit $status
