#!/bin/sh
# FARO_VERBOSE=3 prints one line per protocol step of every message, as
# faro-tunables(7) promises: the send and its protocol, the arrival and
# whether it matched, and the rendezvous replies (single copy and pipeline).
# Run from the top build directory (automake does).
MPIEXEC=${MPIEXEC:-./mpiexec}
[ -x "$MPIEXEC" ] && [ -x tests/mpi/pingpong_sizes ] || { echo "ERROR: build first" >&2; exit 99; }
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

expect() { # expect OUTPUT PATTERN WHAT
    echo "$1" | grep -q "$2" || fail "no trace line for $3 (pattern: $2)"
}

out=$(FARO_VERBOSE=3 TEST_MAX_SIZE=65536 "$MPIEXEC" -n 2 tests/mpi/pingpong_sizes 2>&1) ||
    fail "pingpong_sizes failed under FARO_VERBOSE=3"
expect "$out" "rank 0: trace: send to rank 1 (context 0, tag [0-9]*): 1 bytes eagerly over shm" "an eager send"
expect "$out" "rank 1: trace: eager from rank 0 (context 0, tag [0-9]*, 1 bytes)" "an eager arrival"
expect "$out" "trace: send to rank 1 (context 0, tag [0-9]*): 65536 bytes by rendezvous" "a rendezvous send"
expect "$out" "trace: RTS to rank 1: remote key in the header" "the RTS"
expect "$out" "trace: rendezvous from rank 0 .*: single-copy get" "the single-copy get"
expect "$out" "trace: FIN from rank 1: the send of 65536 bytes is complete" "the FIN"

out=$(FARO_VERBOSE=3 FARO_SHM_CMA=off TEST_MAX_SIZE=65536 "$MPIEXEC" -n 2 tests/mpi/pingpong_sizes 2>&1) ||
    fail "pingpong_sizes failed under FARO_VERBOSE=3 FARO_SHM_CMA=off"
expect "$out" "trace: rendezvous from rank 0 .*: asking for the pipeline (CTS)" "the pipeline's CTS"
expect "$out" "trace: CTS from rank 1: pipelining 65536 bytes" "the pipeline"

out=$(FARO_VERBOSE=2 TEST_MAX_SIZE=65536 "$MPIEXEC" -n 2 tests/mpi/pingpong_sizes 2>&1)
echo "$out" | grep -q "trace:" && fail "FARO_VERBOSE=2 printed trace lines"

[ $failures -eq 0 ] || exit 1
echo "trace: all checks passed"
