#!/bin/sh
# faro-gpud with the host backend on loopback, driven by gpu_wire_client
# (tests/gpu/gpu_wire_client.c, the wire protocol without the CUDA client
# library): one session's HELLO, allocations, copies both ways at sizes
# around the chunk size, memset, D2D and free; three sessions at once; a
# client with the wrong key is refused and the server still serves; garbage
# after authentication or a request before HELLO drops that session only,
# another protocol version is refused clearly; a client killed mid-copy
# has its session (64 MiB) freed; one that never reads its reply is dropped
# after the send timeout while the others are served. Also: a key file others can read is
# refused, and --backend cuda without libcuda.so.1 exits with a clear
# message. Run from the top of the build tree.
#   exit 0 pass, 1 fail, 99 hard error

gpud=./faro-gpud
client=./tests/gpu/gpu_wire_client
for f in "$gpud" "$client"; do
    [ -x "$f" ] || { echo "ERROR: $f is missing; run make check first" >&2; exit 99; }
done
dir=$(mktemp -d /tmp/test-gpud.XXXXXX) || exit 99
. "${srcdir:-..}/tests/gpu/gpud-lib.sh"
srv=
cleanup() {
    gpud_stop
    rm -rf "$dir"
}
trap cleanup EXIT
failures=0
fail() { echo "test-gpud: FAIL: $*"; failures=$((failures + 1)); }

unset FARO_GPU_KEY FARO_TCP_IF FARO_TCP_PORT
printf 'test-gpud-key\n' >"$dir/key"
chmod 600 "$dir/key"

# A key file others can read is refused, naming the fix.
cp "$dir/key" "$dir/openkey"
chmod 644 "$dir/openkey"
out=$("$gpud" --backend host --key-file "$dir/openkey" --listen 127.0.0.1:0 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "mode 0644.*chmod 600" ||
    fail "a key file of mode 0644: exit $rc, output: $out"

# --backend cuda without a driver says so at start.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    out=$("$gpud" --backend cuda --key-file "$dir/key" --listen 127.0.0.1:0 2>&1)
    rc=$?
    [ $rc -eq 1 ] && echo "$out" | grep -q "cannot load the CUDA driver library libcuda.so.1" ||
        fail "--backend cuda without libcuda.so.1: exit $rc, output: $out"
fi

gpud_start "$dir" --backend host --key-file "$dir/key" --send-timeout 4
export FARO_GPU_KEY_FILE="$dir/key"

alive() { kill -0 "$srv" 2>/dev/null || fail "faro-gpud died ($1)"; }
run() { # mode, what
    out=$(timeout 60 "$client" "$1" "$addr" 2>&1) || fail "$2: $out"
}
# sessions closed so far, to wait for the next one
closed() { grep -c "session closed" "$dir/err"; }
wait_closed() { # count, what
    for i in $(seq 100); do
        [ "$(closed)" -ge "$1" ] && return 0
        sleep 0.1
    done
    fail "$2: the server did not close the session"
}

# a background client printed WORD in FILE (within 10 s)
started() {
    for i in $(seq 100); do
        grep -q "$1" "$2" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

run basic "one session"
alive "after one session"

# Three sessions at once.
pids=
for i in 1 2 3; do
    timeout 60 "$client" busy "$addr" >"$dir/busy$i" 2>&1 &
    pids="$pids $!"
done
i=0
for p in $pids; do
    i=$((i + 1))
    wait "$p" || fail "concurrent session $i: $(cat "$dir/busy$i")"
done
alive "after three sessions at once"

# The wrong key: refused by the transport, no session; the server goes on.
n=$(grep -c "session opened" "$dir/err")
out=$(FARO_GPU_KEY_FILE= FARO_GPU_KEY=not-the-key timeout 60 "$client" refused "$addr" 2>&1) ||
    fail "wrong key: $out"
[ "$(grep -c "session opened" "$dir/err")" -eq "$n" ] ||
    fail "a client with the wrong key got a session"
alive "after a wrong key"
run basic "a session after a wrong key"

# A typed host name (resolved by the transport's connect).
out=$(timeout 60 "$client" basic "localhost:${addr#*:}" 2>&1) || fail "basic through localhost: $out"

# A typed address that is not HOST:PORT: the transport says what it expects.
out=$(timeout 60 "$client" basic "127.0.0.1:notaport" 2>&1)
[ $? -eq 1 ] && echo "$out" | grep -q 'cannot use address "127.0.0.1:notaport" (expected HOST:PORT' ||
    fail "a server address without a port number: $out"

# Another protocol major version: a clear refusal, then the session ends.
c=$(closed)
run version "protocol version mismatch"
wait_closed $((c + 1)) "protocol version mismatch"
grep -q "speaks GPU protocol 200, this server 100" "$dir/err" ||
    fail "the server did not log the version mismatch"

# Garbage after authentication (3: a request before HELLO): that session is
# dropped, the server goes on.
for g in 0 1 2 3; do
    c=$(closed)
    run garbage$g "garbage $g"
    wait_closed $((c + 1)) "garbage $g"
    alive "after garbage $g"
done
grep -q "malformed message" "$dir/err" || fail "no 'malformed message' in the server's log"

# A client killed in the middle of a copy: its session and 64 MiB are freed
# (basic checks that all of the server's memory is free again).
c=$(closed)
"$client" hold "$addr" >"$dir/hold" 2>&1 &
hp=$!
started copying "$dir/hold" || fail "the holding client did not start copying: $(cat "$dir/hold")"
sleep 0.3
kill -9 "$hp"
wait "$hp" 2>/dev/null
wait_closed $((c + 1)) "client killed mid-copy"
alive "after a client was killed mid-copy"
run basic "a session after a client was killed mid-copy"

# A client that asks for data and never reads it is dropped after the send
# timeout (4 s here) instead of holding every other session up; until then
# the others are served at full speed (the server posts a bounded number of
# chunks per session and never waits for one client's sends): three busy
# sessions must be done well within the timeout.
c=$(closed)
"$client" stall "$addr" >"$dir/stall" 2>&1 &
sp=$!
started stalling "$dir/stall" || fail "the stalling client did not start: $(cat "$dir/stall")"
t0=$(date +%s%N)
for i in 1 2 3; do
    run busy "a session while another client stalls"
done
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -lt 2500 ] ||
    fail "three sessions while another client stalls took $ms ms (the server waited for the stalled client; expected < 2500 ms, the send timeout is 4 s)"
for i in $(seq 100); do
    grep -q "took none of the data sent to it for 4 s" "$dir/err" && break
    sleep 0.1
done
grep -q "took none of the data sent to it for 4 s" "$dir/err" ||
    fail "the stalled client's session was not closed for stalling"
kill -9 "$sp" 2>/dev/null
wait "$sp" 2>/dev/null
alive "after a stalled client"
run basic "all memory free after the stalled client's session"

if [ $failures -ne 0 ]; then
    echo "test-gpud: server log:"
    sed 's/^/    /' "$dir/err"
    exit 1
fi
echo "test-gpud: all checks passed"
exit 0
