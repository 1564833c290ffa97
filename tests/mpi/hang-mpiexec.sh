#!/bin/sh
# mpiexec's own hang doctor (faro-debug(7)): --hang-report S finds a deadlock
# once every rank has waited S seconds, prints the wait-for summary and ends
# the job (exit 1), ranks polling in vain in MPI_Test or MPI_Iprobe loops
# included; a job where one rank computes while the other waits is
# left alone; --timeout with --hang-report reports before it ends the job
# (124), and so does --timeout alone; SIGUSR1 to mpiexec prints a report
# and the job goes on. Over fork
# hosts too: the lines reach mpiexec from the proxies.
# Run from the top build directory (automake does).
MPIEXEC=${MPIEXEC:-./mpiexec}
[ -x "$MPIEXEC" ] && [ -x tests/mpi/deadlock ] ||
    { echo "ERROR: build first (mpiexec, tests/mpi/deadlock)" >&2; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hang-mpiexec.XXXXXX")
job=
trap '[ -n "$job" ] && kill "$job" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; sed 's/^/    /' "$tmp/err" >&2; failures=$((failures + 1)); }
has() { grep -qF -- "$1" "$tmp/err" || fail "$2: stderr lacks: $1"; }

# run CASE WANT_RC ARGS...: the deadlock program under mpiexec ARGS
run() {
    case=$1 want=$2
    shift 2
    env TEST_CASE="$case" TEST_ALARM=0 TEST_SLEEP=4 timeout -k 5 60 "$MPIEXEC" "$@" \
        tests/mpi/deadlock >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    [ $rc -eq "$want" ] || fail "$case $*: exit code $rc, expected $want"
}

run recv_recv 1 --hang-report 1 -n 2
has "deadlock: rank 0 -> rank 1 -> rank 0" recv_recv
has "mpiexec: 2 rank(s) deadlocked (the hang report above says where); ending the job" recv_recv
run coll 1 --hang-report 1 -n 3
has "hint: rank 0 waits in MPI_Barrier on MPI_COMM_WORLD, which rank 2 has not called" coll
run recv_recv 1 --hang-report 1 -launcher fork -hosts a,b -n 2
has "deadlock: rank 0 -> rank 1 -> rank 0" "recv_recv over hosts"
# Ranks that poll in vain (MPI_Test..., MPI_Iprobe) count as blocked.
run test_test 1 --hang-report 1 -n 2
has "rank 0 polls for rank 1 in MPI_Test (receive, tag 6 on MPI_COMM_WORLD)" test_test
has "deadlock: rank 0 -> rank 1 -> rank 0" test_test
run poll_mix 1 --hang-report 1 -n 2
has "rank 1 polls for rank 0 in MPI_I" poll_mix
has "deadlock: rank 0 -> rank 1 -> rank 0" poll_mix
# A rank polling in vain between the messages it sends is not stuck.
run poll_busy 0 --hang-report 1 -n 2
! grep -q "hang report" "$tmp/err" || fail "poll_busy: a report while messages flowed"
# One rank computes (not in MPI) while the other waits: no round, no report.
run late 0 --hang-report 1 -n 2
! grep -q "hang report" "$tmp/err" || fail "late: a report while rank 1 computed"
# The timeout asks first, then ends the job as always.
run recv_recv 124 --hang-report 60 --timeout 3 -n 2
has "hang report: 2 of 2 ranks blocked in MPI" "timeout"
has "mpiexec: job timed out after 3 seconds; ending it" "timeout"
# --timeout alone asks too (at most 2 s more), then ends the job.
run test_test 124 --timeout 3 -n 2
has "mpiexec: job timed out after 3 seconds; asking every rank what it waits for" "timeout alone"
has "deadlock: rank 0 -> rank 1 -> rank 0" "timeout alone"
has "mpiexec: job timed out after 3 seconds; ending it" "timeout alone"
# SIGUSR1 to mpiexec: a report now; the job goes on (to its timeout here).
# The ranks' "pid" lines say mpiexec is ready for the signal: the last job's
# output goes first, so that its lines are not taken for this one's.
rm -f "$tmp/out" "$tmp/err"
env TEST_CASE=recv_recv TEST_ALARM=0 "$MPIEXEC" --timeout 6 -n 2 tests/mpi/deadlock \
    >"$tmp/out" 2>"$tmp/err" </dev/null &
job=$!
# (grep -c prints nothing while the background shell has not made the file
# yet, and an empty count ended the wait at once: the signal then came before
# mpiexec's handler.)
n=0
while seen=$(grep -c ' pid ' "$tmp/out" 2>/dev/null); [ "${seen:-0}" -lt 2 ] && [ $n -lt 300 ]; do
    sleep 0.1; n=$((n + 1))
done
kill -USR1 $job
wait $job
rc=$?
job=
[ $rc -eq 124 ] || fail "SIGUSR1: exit code $rc, expected 124 (the job goes on to its timeout)"
has "mpiexec: SIGUSR1: asking every rank what it waits for" SIGUSR1
has "deadlock: rank 0 -> rank 1 -> rank 0" SIGUSR1
run recv_recv 2 --hang-report 0 -n 2
has "--hang-report '0': expected the seconds" usage
[ $failures -eq 0 ] && echo "hang-mpiexec.sh: all passed"
[ $failures -eq 0 ]
