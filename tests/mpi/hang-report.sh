#!/bin/sh
# The hang report (faro-debug(7)) on programs that deadlock on purpose
# (tests/mpi/deadlock): every rank, signalled with SIGUSR1, prints what it is
# blocked in, in the documented format, and faro-hangdoc turns the lines into
# the wait-for summary naming the deadlock; ranks polling MPI_Test in vain
# too. Also FARO_HANG_REPORT's own timer and its "resumed" line. The ranks' PIDs come from the program's own output;
# the job is ended through the mpiexec this script started.
# Run from the top build directory (automake does).
MPIEXEC=${MPIEXEC:-./mpiexec}
[ -x "$MPIEXEC" ] && [ -x tests/mpi/deadlock ] && [ -x ./faro-hangdoc ] ||
    { echo "ERROR: build first (mpiexec, tests/mpi/deadlock, faro-hangdoc)" >&2; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hang-report.XXXXXX")
job=
trap '[ -n "$job" ] && kill "$job" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# wait_for FILE PATTERN COUNT SECONDS: until COUNT lines of FILE match PATTERN
wait_for() {
    n=0
    while [ "$(cat "$1" 2>/dev/null | grep -c -e "$2")" -lt "$3" ]; do
        n=$((n + 1))
        [ $n -gt $(($4 * 10)) ] && return 1
        sleep 0.1
    done
}

# start CASE NP [VAR=VAL...]: the job in the background, its ranks' PIDs in $pids
start() {
    case=$1 np=$2
    shift 2
    # the last job's files go first: the background job truncates them only
    # when it starts, and its predecessor's PIDs must not be read meanwhile
    rm -f "$tmp/out" "$tmp/err"
    env TEST_CASE="$case" TEST_ALARM=0 "$@" "$MPIEXEC" -n "$np" tests/mpi/deadlock \
        >"$tmp/out" 2>"$tmp/err" </dev/null &
    job=$!
    wait_for "$tmp/out" " pid " "$np" 60 || fail "$case: the ranks did not start"
    pids=$(sed -n 's/^deadlock: rank [0-9]* pid //p' "$tmp/out")
}

stop() {
    kill "$job" 2>/dev/null
    wait "$job" 2>/dev/null
    job=
}

# report CASE NP [VAR=VAL...]: signal every rank once it blocked, collect the reports
report() {
    start "$@"
    sleep ${delay:-1} # the ranks print their PID just before they block
    for pid in $pids; do kill -USR1 "$pid"; done
    wait_for "$tmp/err" "waiting: end of report" "$2" 30 || fail "$1: not every rank reported"
    stop
}

expect() { # expect PATTERN WHAT
    grep -q -e "$1" "$tmp/err" || { fail "$2 (no line matching: $1)"; sed 's/^/    | /' "$tmp/err" >&2; }
}

doctor() { # doctor NP PATTERN WHAT: faro-hangdoc's summary of the reports
    ./faro-hangdoc -n "$1" "$tmp/err" >"$tmp/sum"
    grep -q -e "$2" "$tmp/sum" || { fail "$3 (summary lacks: $2)"; sed 's/^/    | /' "$tmp/sum" >&2; }
}

T='for [0-9.]* s'
for cfg in shm tcp; do
    tenv=
    [ $cfg = tcp ] && tenv=FARO_TRANSPORTS=tcp
    report recv_recv 2 $tenv
    expect "faro: rank 0: waiting: MPI_Recv $T: receive from rank 1 tag 5 on MPI_COMM_WORLD (0 of 4 bytes)" "$cfg recv_recv: rank 0's line"
    expect "faro: rank 1: waiting: MPI_Recv $T: receive from rank 0 tag 5 on MPI_COMM_WORLD (0 of 4 bytes)" "$cfg recv_recv: rank 1's line"
    expect "faro: rank 1: waiting: end of report (1 blocked call, 1 line)" "$cfg recv_recv: the end line"
    doctor 2 "deadlock: rank 0 -> rank 1 -> rank 0" "$cfg recv_recv: the deadlock"
    doctor 2 "rank 0 waits for rank 1 in MPI_Recv (receive, tag 5 on MPI_COMM_WORLD)" "$cfg recv_recv: who waits for whom"
    # ranks polling MPI_Test in vain (reported once it lasted a second)
    delay=2 report test_test 2 $tenv
    expect "faro: rank 0: waiting: MPI_Test (polling) $T: receive from rank 1 tag 6 on MPI_COMM_WORLD (0 of 4 bytes)" "$cfg test_test: rank 0's line"
    doctor 2 "rank 1 polls for rank 0 in MPI_Test (receive, tag 6 on MPI_COMM_WORLD)" "$cfg test_test: who polls for whom"
    doctor 2 "deadlock: rank 0 -> rank 1 -> rank 0" "$cfg test_test: the deadlock"
done

report coll 3
expect "faro: rank 0: waiting: MPI_Barrier $T: receive from rank [12] internal tag -2 (MPI_Barrier) on MPI_COMM_WORLD" "coll: rank 0 in the barrier"
expect "faro: rank 2: waiting: MPI_Recv $T: receive from rank 0 tag 7" "coll: rank 2 in MPI_Recv"
doctor 3 "deadlock: rank 0 -> rank [12] -> rank 0" "coll: the deadlock"
doctor 3 "hint: rank 0 waits in MPI_Barrier on MPI_COMM_WORLD, which rank [12] has not called" "coll: the hint"

report waitall 3
expect "faro: rank 0: waiting: MPI_Waitall $T: request 0 of 2 (2 pending): receive from rank 1 tag 3" "waitall: the receive"
expect "faro: rank 0: waiting: MPI_Waitall $T: request 1 of 2 (2 pending): send to rank 1 tag 4 on MPI_COMM_WORLD (1048576 bytes, 0 sent)" "waitall: the rendezvous send"
expect "faro: rank 2: waiting: MPI_Recv $T: receive from any rank tag 99" "waitall: the any-source receive"
doctor 3 "deadlock: rank 0 -> rank 1 -> rank 0" "waitall: the deadlock"

report ibarrier 2
expect "faro: rank 0: waiting: MPI_Wait $T: MPI_Ibarrier: receive from rank 1 internal tag -4096 (a nonblocking collective)" "ibarrier: the schedule's receive"
expect "faro: rank 1: waiting: MPI_Probe $T: probe from rank 0 tag 1 on MPI_COMM_WORLD" "ibarrier: the probe"
doctor 2 "deadlock: rank 0 -> rank 1 -> rank 0" "ibarrier: the deadlock"

report threads 2
expect "faro: rank 0: waiting: thread [0-9]*: MPI_Recv $T: receive from rank 1 tag 10" "threads: the first thread"
expect "faro: rank 0: waiting: thread [0-9]*: MPI_Recv $T: receive from rank 1 tag 11" "threads: the second thread"
expect "faro: rank 0: waiting: end of report (2 blocked calls, 2 lines)" "threads: both calls"
doctor 2 "deadlock: rank 0 -> rank 1 -> rank 0" "threads: the deadlock"

# FARO_HANG_REPORT: each rank reports by itself once it has waited that long
start recv_recv 2 FARO_HANG_REPORT=1
wait_for "$tmp/err" "waiting: end of report" 2 30 || fail "FARO_HANG_REPORT=1: not every rank reported by itself"
stop
expect "faro: rank 1: waiting: MPI_Recv for [1-9][0-9.]* s: receive from rank 0 tag 5" "FARO_HANG_REPORT=1: rank 1's line"

# ... and says when a reported wait ends; a late sender is no deadlock
out=$(TEST_CASE=late TEST_SLEEP=3 FARO_HANG_REPORT=1 "$MPIEXEC" -n 2 tests/mpi/deadlock 2>&1) ||
    fail "late: the job failed: $out"
echo "$out" >"$tmp/err"
expect "faro: rank 0: waiting: MPI_Recv for [1-9][0-9.]* s: receive from rank 1 tag 2" "late: the report"
expect "faro: rank 0: waiting: resumed: MPI_Recv after [2-9][0-9.]* s" "late: the resumed line"

# ... a polling rank too
out=$(TEST_CASE=late_poll TEST_SLEEP=3 FARO_HANG_REPORT=1 "$MPIEXEC" -n 2 tests/mpi/deadlock 2>&1) ||
    fail "late_poll: the job failed: $out"
echo "$out" >"$tmp/err"
expect "faro: rank 0: waiting: MPI_Test (polling) for [1-9][0-9.]* s: receive from rank 1 tag 2" "late_poll: the report"
expect "faro: rank 0: waiting: resumed: polling after [2-9][0-9.]* s" "late_poll: the resumed line"

# ... and not one that polls in vain between messages it sends
out=$(TEST_CASE=poll_busy TEST_SLEEP=3 FARO_HANG_REPORT=1 "$MPIEXEC" -n 2 tests/mpi/deadlock 2>&1) ||
    fail "poll_busy: the job failed: $out"
echo "$out" | grep "(polling)" && fail "poll_busy: a rank whose messages flowed was reported polling"

# FARO_HANG_SIGNAL=none leaves SIGUSR1 alone: its default action ends the rank
start recv_recv 2 FARO_HANG_SIGNAL=none
sleep 1
kill -USR1 $(echo "$pids" | head -1)
wait "$job"
rc=$?
job=
[ $rc -ne 0 ] || fail "FARO_HANG_SIGNAL=none: the signalled job exited 0"
grep -q "waiting:" "$tmp/err" && fail "FARO_HANG_SIGNAL=none: a rank reported anyway"

[ $failures -eq 0 ] || exit 1
echo "hang-report: all checks passed"
