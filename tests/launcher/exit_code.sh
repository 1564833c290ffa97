#!/bin/sh
# The job's exit code is the first failing rank's; success is 0.
. "$(dirname "$0")/common.sh"

run 0 -n 3 "$PROBE" kvs
expect_out "rank 2 of 3: kvs ok (kvsname $(sed -n 's/^rank 0 of 3: kvs ok (kvsname \([^,]*\),.*/\1/p' "$OUT.out"), keylen 256, vallen 1024)"
grep -q '^rank 0 of 3: kvs ok (kvsname faro-[0-9]*-[0-9a-f]\{8\},' "$OUT.out" || fail "kvsname is not faro-<pid>-<8 hex>"

run 0 -n 2 true
run 1 -n 2 false
run 7 -n 3 "$PROBE" exit 1 7
expect_err "mpiexec: rank 1 (pid "
expect_err ") exited with code 7; ending the job"
[ "$(grep -c 'ending the job' "$OUT.err")" -eq 1 ] || fail "more than one failure reported"

run 5 -np 3 "$PROBE" abort 2 5
expect_err "mpiexec: rank 2 called MPI_Abort (code 5): probe gave up on purpose"
echo PASS
