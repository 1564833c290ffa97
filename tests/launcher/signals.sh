#!/bin/sh
# Signals to mpiexec reach the ranks; a killed mpiexec takes its ranks along;
# leftover /dev/shm files of the job are removed.
. "$(dirname "$0")/common.sh"

"$MPIEXEC" --timeout 25 -n 2 "$PROBE" sleep 20 >"$OUT.out" 2>"$OUT.err" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ] || fail "SIGTERM to mpiexec: exit code $rc, expected 143"
expect_err "mpiexec: received signal 15 (Terminated); passing it to the ranks"

# SIGKILL to mpiexec: the ranks die with it (parent-death signal).
"$MPIEXEC" --timeout 25 -n 2 "$PROBE" sleep 21 >"$OUT.out" 2>"$OUT.err" &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
sleep 1
ps -eo args | grep -q '^[^ ]*pmi_probe sleep 21' && fail "ranks survived a killed mpiexec"

run 3 -n 2 "$PROBE" shm
files=$(cat "$OUT.out")
[ -n "$files" ] || fail "the probe created no file"
for f in $files; do
    [ -e "$f" ] && fail "mpiexec left $f behind"
done
echo PASS
