#!/bin/sh
# A rank's TCP port faces whatever can reach it. While a 2-rank job runs over
# tcp, 300 connections come at rank 0's port: silent ones, ones that stop in
# the middle of a hello, and ones that send garbage with huge length fields,
# with the ranks' descriptors limited to 64 so that they run out. The job
# must finish its work as if nothing happened: the unauthenticated ones are
# closed (after FARO_TCP_AUTH_TIMEOUT, or at once when they are garbage, or
# the oldest first when too many wait), the warnings are rate-limited, and
# running out of descriptors pauses accepting instead of ending the job.
# Run from the top build directory (automake does).
MPIEXEC=${MPIEXEC:-./mpiexec}
PROG=tests/mpi/linger
OUT=${TMPDIR:-/tmp}/faro-hostile-$$
trap 'rm -f "$OUT".*; [ -n "$job" ] && kill "$job" 2>/dev/null' EXIT
[ -x "$MPIEXEC" ] && [ -x "$PROG" ] || { echo "ERROR: build first" >&2; exit 99; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
fail() { echo "FAIL: $*" >&2; cat "$OUT.err" >&2; exit 1; }

(ulimit -n 64 && FARO_TRANSPORTS=tcp FARO_VERBOSE=2 FARO_TCP_AUTH_TIMEOUT=2 TEST_SECONDS=8 \
    exec timeout 60 "$MPIEXEC" -n 2 "$PROG") >"$OUT.out" 2>"$OUT.err" </dev/null &
job=$!

port=""
for i in $(seq 1 100); do
    port=$(sed -n 's/.*rank 0: info: tcp: listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$OUT.err")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || fail "rank 0 never said which port it listens on"

python3 - "$port" <<'PY' || fail "the attacker could not run"
import socket, struct, sys, time
port = int(sys.argv[1])
held = []
def conn():
    s = socket.socket()
    s.settimeout(2)
    s.connect(("127.0.0.1", port))
    return s
for i in range(300):
    try:
        s = conn()
    except OSError:
        time.sleep(0.01)   # the rank stopped accepting for a while: fine
        continue
    kind = i % 3
    try:
        if kind == 1:      # half a hello: magic, then nothing
            s.send(struct.pack("!I", 0x4661524f)[:2])
        elif kind == 2:    # a "frame" with every length field at its maximum
            s.send(b"\xff" * 64)
    except OSError:
        pass
    held.append(s)
    time.sleep(0.005)
time.sleep(3)              # past FARO_TCP_AUTH_TIMEOUT with everything still open
for s in held:
    s.close()
PY

wait "$job"
rc=$?
job=""
[ $rc -eq 0 ] || fail "the job failed ($rc) while its port was attacked"
grep -q "^linger: [0-9]* rounds" "$OUT.out" || fail "the job did not finish its rounds"
grep -i "too many open files" "$OUT.err" | grep -qv "pausing new connections" &&
    fail "descriptor exhaustion reached the job"
grep -q "pausing new connections" "$OUT.err" || fail "the descriptors never ran out (is ulimit -n 64 in force?)"
n=$(grep -c "tcp: closed a connection from" "$OUT.err")
[ "$n" -ge 1 ] || fail "no warning about the refused connections"
[ "$n" -le 4 ] || fail "$n warnings about refused connections (rate limit: one per 10 s per rank)"
echo "hostile-tcp: ok (job survived 300 hostile connections, $n warning lines)"
