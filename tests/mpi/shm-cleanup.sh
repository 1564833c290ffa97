#!/bin/sh
# Shared-memory files never outlive a job: not a normal one, not one whose rank
# was killed, not one run under another process manager (MPICH's Hydra, which
# knows nothing of Faro's files: the transport itself must have unlinked them).
# Files are named after the job's kvsname, which holds the launcher's pid.
# Run from the top build directory (automake does).
MPIEXEC=${MPIEXEC:-./mpiexec}
[ -x "$MPIEXEC" ] && [ -x tests/mpi/die_signal ] || { echo "ERROR: build first" >&2; exit 99; }
fail() { echo "FAIL: $*" >&2; exit 1; }

leftovers() { ls /dev/shm 2>/dev/null | grep -e "$1" || true; }

# launch CMD...: run the launcher in the background (so $pid is its own pid),
# with a 30 s watchdog; sets pid and rc.
launch() {
    "$@" >/dev/null 2>&1 &
    pid=$!
    (sleep 30; kill -9 "$pid" 2>/dev/null) &
    dog=$!
    wait "$pid"
    rc=$?
    kill "$dog" 2>/dev/null
}

launch "$MPIEXEC" -n 3 tests/mpi/hello
[ $rc -eq 0 ] || fail "hello failed ($rc)"
[ -z "$(leftovers "^faro-$pid-")" ] || fail "a normal job left $(leftovers "^faro-$pid-")"
# The check itself must see a file of that job if there were one.
touch "/dev/shm/faro-$pid-shm-0"
found=$(leftovers "^faro-$pid-")
rm -f "/dev/shm/faro-$pid-shm-0"
[ -n "$found" ] || fail "the leftover check cannot see a job's files"
echo "ok: normal job"

launch "$MPIEXEC" -n 3 tests/mpi/die_signal
[ $rc -ne 0 ] || fail "die_signal succeeded"
[ -z "$(leftovers "^faro-$pid-")" ] || fail "a killed job left $(leftovers "^faro-$pid-")"
echo "ok: job with a killed rank"

# libfabric's shm provider, through the ofi transport: its segment carries the
# job's name too, so a killed rank's is removed with the job's other files.
if ./faro_info --transports 2>/dev/null | grep -q '^  ofi  *usable'; then
    bypid() { leftovers '^[0-9][0-9]*:[0-9][0-9]*:[0-9][0-9]*$' | sort; } # libfabric's own names
    before=$(bypid)
    FARO_TRANSPORTS=ofi FARO_OFI_PROVIDER=shm launch "$MPIEXEC" -n 3 tests/mpi/die_signal
    [ $rc -ne 0 ] || fail "die_signal over ofi/shm succeeded"
    [ -z "$(leftovers "^faro-$pid-")" ] || fail "a killed job over ofi/shm left $(leftovers "^faro-$pid-")"
    [ "$(bypid)" = "$before" ] || fail "a killed job over ofi/shm left segments named by pid: $(bypid)"
    echo "ok: job with a killed rank over ofi/shm"
fi

if command -v mpiexec.mpich >/dev/null 2>&1; then
    launch mpiexec.mpich -n 3 tests/mpi/die_signal
    [ $rc -ne 0 ] || fail "die_signal under Hydra succeeded"
    left=$(leftovers "^kvs_${pid}_.*-shm-")
    [ -z "$left" ] || fail "a killed job under Hydra left $left"
    echo "ok: job with a killed rank under Hydra"
fi
exit 0
