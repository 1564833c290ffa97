#!/bin/sh
# A rank killed by a signal, or leaving without finalize, ends the job at once.
. "$(dirname "$0")/common.sh"

run 137 -n 3 "$PROBE" signal 2 9
expect_err ") was killed by signal 9 (Killed); ending the job"
expect_err "mpiexec: rank 2 (pid "

run 134 -n 2 "$PROBE" signal 0 6
expect_err "was killed by signal 6"

run 1 -n 3 "$PROBE" nofinalize 1
expect_err ") exited with code 0 without calling MPI_Finalize; ending the job"

# A rank that lost contact with another (faro_pmi_abort_error, as a lost
# connection makes the library do): the other's own end, reported within a
# heartbeat, is the verdict; without one, the report, a heartbeat later.
run 137 -n 3 "$PROBE" lost 0 58 2 300
expect_err "mpiexec: rank 2 (pid "
expect_err ") was killed by signal 9 (Killed); ending the job"
run 58 -n 3 "$PROBE" lost 0 58 2
expect_err "mpiexec: rank 0 ended the job (code 58): probe lost its peer on purpose (no end of rank 2 was reported within 1500 ms)"

# A program that never speaks PMI may simply exit 0.
run 0 -n 2 sh -c 'exit 0'
[ ! -s "$OUT.err" ] || fail "unexpected message for a non-PMI program"

# A rank that ignores SIGTERM is killed after the grace period.
run 1 -n 2 sh -c 'trap "" TERM; [ "$PMI_RANK" = 1 ] && exit 1; sleep 20'
echo PASS
