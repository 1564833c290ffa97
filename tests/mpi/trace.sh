#!/bin/sh
# FARO_VERBOSE=3 prints one line per protocol step of every message, as
# faro-tunables(7) promises: the send and its protocol, the arrival and
# whether it matched, and the rendezvous replies (single copy and pipeline;
# over ofi, when it is usable here, RDMA read and RDMA write), each line with
# its time.
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
T='[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]\{6\}' # each trace line's time
expect "$out" "rank 0: trace: $T send to rank 1 (context 0, tag [0-9]*): 1 bytes eagerly over shm" "an eager send"
echo "$out" | grep "trace:" | grep -v "trace: $T " | head -n 1 | grep . &&
    fail "a trace line without its time (HH:MM:SS.uuuuuu)"
expect "$out" "rank 1: trace: $T eager from rank 0 (context 0, tag [0-9]*, 1 bytes)" "an eager arrival"
expect "$out" "trace: $T send to rank 1 (context 0, tag [0-9]*): 65536 bytes by rendezvous" "a rendezvous send"
expect "$out" "trace: $T RTS to rank 1: remote key in the header" "the RTS"
expect "$out" "trace: $T rendezvous from rank 0 .*: single-copy get" "the single-copy get"
expect "$out" "trace: $T FIN from rank 1: the send of 65536 bytes is complete" "the FIN"

out=$(FARO_VERBOSE=3 FARO_SHM_CMA=off TEST_MAX_SIZE=65536 "$MPIEXEC" -n 2 tests/mpi/pingpong_sizes 2>&1) ||
    fail "pingpong_sizes failed under FARO_VERBOSE=3 FARO_SHM_CMA=off"
expect "$out" "trace: $T rendezvous from rank 0 .*: asking for the pipeline (CTS)" "the pipeline's CTS"
expect "$out" "trace: $T CTS from rank 1: pipelining 65536 bytes" "the pipeline"

# Over ofi (its rendezvous is by RDMA: no single copy), read and write.
if ./faro_info --transports 2>/dev/null | grep -q '^  ofi  *usable'; then
    ofi_trace() { # ofi_trace PROTOCOL: the trace of pingpong_sizes over ofi
        FARO_VERBOSE=3 FARO_TRANSPORTS=self,ofi FARO_RNDV_PROTOCOL=$1 TEST_MAX_SIZE=65536 \
            "$MPIEXEC" -n 2 tests/mpi/pingpong_sizes 2>&1
    }
    out=$(ofi_trace get) || fail "pingpong_sizes failed under FARO_VERBOSE=3 over ofi, by get"
    expect "$out" "trace: $T send to rank 1 (context 0, tag [0-9]*): 65536 bytes by rendezvous over ofi" "a rendezvous send over ofi"
    expect "$out" "trace: $T RTS to rank 1: remote key in the" "the RTS with the key"
    expect "$out" "trace: $T rendezvous from rank 0 .*: asynchronous get" "the asynchronous get"
    expect "$out" "rank 1: trace: $T get from rank 0 done (65536 bytes): FIN" "the get's end"
    expect "$out" "trace: $T FIN from rank 1: the send of 65536 bytes is complete" "the FIN"

    out=$(ofi_trace put) || fail "pingpong_sizes failed under FARO_VERBOSE=3 over ofi, by put"
    expect "$out" "rank 0: trace: $T RTS to rank 1: no remote key (RDMA write: the receiver offers its buffer)" "the RTS of a put"
    expect "$out" "rank 1: trace: $T rendezvous from rank 0 .*: RDMA write: offering the receive buffer (CTS_PUT)" "the receiver's offer"
    expect "$out" "rank 1: trace: $T CTS_PUT to rank 0: 65536 bytes may be written at 0x" "the CTS_PUT"
    expect "$out" "rank 0: trace: $T CTS_PUT from rank 1: writing 65536 bytes into its buffer" "the RDMA write"
    expect "$out" "rank 0: trace: $T RDMA write to rank 1 done (65536 bytes): PUT_DONE" "the write's end"
    expect "$out" "rank 1: trace: $T PUT_DONE from rank 0: the RDMA write of 65536 bytes landed" "the PUT_DONE"
    echo "$out" | grep -q "asking for the pipeline" && fail "the put path was traced as the pipeline"
else
    echo "trace: the ofi transport is not usable here: its RDMA read and write traces are not checked"
fi

out=$(FARO_VERBOSE=2 TEST_MAX_SIZE=65536 "$MPIEXEC" -n 2 tests/mpi/pingpong_sizes 2>&1)
echo "$out" | grep -q "trace:" && fail "FARO_VERBOSE=2 printed trace lines"

[ $failures -eq 0 ] || exit 1
echo "trace: all checks passed"
