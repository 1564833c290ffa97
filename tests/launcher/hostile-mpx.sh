#!/bin/sh
# mpiexec's listening socket (the one its proxies connect to, mpiexec(1)
# SECURITY) faces whatever can reach it. A job on two hosts (both this
# machine, through an agent that holds each proxy back until told) gets 120
# connections at mpiexec's port before its proxies connect: silent ones,
# half a frame header, garbage, a header with a huge length, and hellos
# with a wrong key. The job must start and finish normally:
#  - with descriptors to spare, the strangers fill the 64 slots for
#    connections not yet authenticated, and each new one closes the oldest
#    (before: the newest was dropped, the proxies first, and the job failed);
#  - with ulimit -n 40, accept runs out of descriptors: mpiexec closes the
#    unauthenticated ones and pauses accepting for a second (before: the
#    connections stayed queued, poll() reported the listener ready at once,
#    round after round, and the proxies got in only once strangers left).
# Warnings about the strangers come at most once per 10 s.
# Run from the top build directory (automake does).
. "$(dirname "$0")/common.sh"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
trap 'rm -f "$OUT".*; [ -n "${job:-}" ] && kill "$job" 2>/dev/null' EXIT

# The agent: writes its command (which names mpiexec's port) and waits for
# the attack to be in place before it starts the proxy.
cat >"$OUT.agent" <<EOF
#!/bin/sh
host=\$1
shift
echo "\$*" >"$OUT.args.\$host"
n=0
while [ ! -f "$OUT.go" ] && [ \$n -lt 200 ]; do sleep 0.05; n=\$((n + 1)); done
exec sh -c "\$*"
EOF
chmod +x "$OUT.agent"

# attack NOFILE: one job under ulimit -n NOFILE; the connections come first.
attack() {
    rm -f "$OUT".args.* "$OUT.go"
    (ulimit -n "$1" && FARO_TCP_IF=lo exec timeout 60 "$MPIEXEC" -launcher-exec "$OUT.agent" \
        -hosts a,b -n 2 "$PROBE" sleep 1) >"$OUT.out" 2>"$OUT.err" </dev/null &
    job=$!
    start=$(date +%s)
    python3 - "$OUT" "$job" <<'PY' || fail "ulimit -n $1: the attacker could not run"
import os, re, socket, struct, sys, time
out = sys.argv[1]
port = None
for _ in range(200):
    try:
        args = open(out + ".args.a").read()
        port = int(re.search(r"--parent [0-9.]+:([0-9]+)", args).group(1))
        break
    except (OSError, AttributeError):
        time.sleep(0.05)
if port is None:
    sys.exit("no agent command with --parent ADDR:PORT")
held = []
for i in range(120):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
    except OSError:
        continue
    kind = i % 5
    try:
        if kind == 1:    # half a frame header
            s.send(b"\x00\x00")
        elif kind == 2:  # garbage
            s.send(bytes(range(7, 71)))
        elif kind == 3:  # a header with a huge length
            s.send(struct.pack("!IB3x", 0xFFFFFFF0, 2))
        elif kind == 4:  # a hello (host 0) with a wrong key
            s.send(struct.pack("!IB3xI", 28, 2, 0) + b"\x01" * 24)
    except OSError:
        pass
    held.append(s)
time.sleep(0.3)
open(out + ".go", "w").close()  # now the proxies connect
# The strangers stay open while the job runs (8 s at most).
for _ in range(80):
    try:
        os.kill(int(sys.argv[2]), 0)
    except OSError:
        break
    time.sleep(0.1)
for s in held:
    s.close()
PY
    wait "$job"
    rc=$?
    job=
    took=$(( $(date +%s) - start ))
    [ $rc -eq 0 ] || fail "ulimit -n $1: the job failed (exit code $rc) while its port was attacked"
    [ $took -le 7 ] || fail "ulimit -n $1: the job took $took s (the strangers kept the proxies out)"
    n=$(grep -c "a connection:" "$OUT.err")
    [ "$n" -le 3 ] || fail "ulimit -n $1: $n warnings about strangers (one per 10 s)"
}

attack 1024
expect_err "mpiexec: refused a connection: it did not prove it knows the job key"
attack 40
expect_err "accept: Too many open files; closing those not yet authenticated"
echo "hostile-mpx: ok"
