#!/bin/sh
# End to end: an unmodified CUDA program (tests/gpu/cuda/gpu_client_vectoradd.cu,
# built with `nvcc -cudart shared`) runs with LD_LIBRARY_PATH pointing at
# Faro's libcudart.so.13 against faro-gpud --backend host on loopback, whose
# kernels come from tests/gpu/gpu_client_host_kernels.c; the program checks
# its results. Built plain, with --default-stream per-thread and with -rdc=true;
# a program whose threads share the device (gpu_client_threads.cu); and one
# that uses two servers as two devices (gpu_client_multi.cu). Then a program whose server is killed while it runs
# (gpu_client_lost.cu): CUDA errors at once, one message, no hang. Run from the top build directory; exits 77 without nvcc.
srcdir=${srcdir:-.}
nvcc=${NVCC:-nvcc}
[ "$nvcc" != no ] && command -v "$nvcc" >/dev/null ||
    { echo "SKIP: nvcc not found (configure --with-cuda=DIR; the CUDA test programs need it)"; exit 77; }
lib=gpu/client/.libs
hostk=tests/gpu/.libs/libgpuclient_hostk.so
for f in ./faro-gpud "$lib/libcudart.so.13" "$hostk"; do
    [ -e "$f" ] || { echo "ERROR: $f is not built" >&2; exit 99; }
done
out=tests/gpu/cuda
mkdir -p "$out"
dir=$(mktemp -d /tmp/gpu_client_e2e.XXXXXX) || exit 99
. "$srcdir/tests/gpu/gpud-lib.sh"
srv=
trap 'gpud_stop; rm -rf "$dir"' EXIT
# The program three ways: plain, --default-stream per-thread (the _ptsz and
# _ptds entry points) and -rdc=true (one device-linked fatbin).
build() {
    "$nvcc" -cudart shared -o "$out/$1" "$srcdir/tests/gpu/cuda/$2.cu" $3 ||
        { echo "ERROR: nvcc could not build $1" >&2; exit 99; }
}
build gpu_client_vectoradd gpu_client_vectoradd
build gpu_client_vectoradd_ptsz gpu_client_vectoradd "--default-stream per-thread"
build gpu_client_vectoradd_rdc gpu_client_vectoradd -rdc=true
build gpu_client_lost gpu_client_lost
build gpu_client_threads gpu_client_threads
build gpu_client_multi gpu_client_multi
build gpu_client_lostwait gpu_client_lostwait
build gpu_client_layout gpu_client_layout
unset FARO_GPU_KEY FARO_TCP_IF FARO_TCP_PORT
printf 'gpu-client-e2e-key' >"$dir/key"
chmod 600 "$dir/key"
failures=0

# Each server gets a directory of its own: gpud_start reads DIR/out for the
# port, which must not hold an earlier server's.
mkdir "$dir/s1" "$dir/s2" "$dir/s3" "$dir/s4" "$dir/s5" "$dir/s6"
gpud_start "$dir/s1" --backend host --host-kernels "$hostk" --key-file "$dir/key"
for prog in gpu_client_vectoradd gpu_client_vectoradd_ptsz gpu_client_vectoradd_rdc \
        gpu_client_threads; do
    if ! FARO_GPU_SERVERS=$addr FARO_GPU_KEY_FILE=$dir/key LD_BIND_NOW=1 \
            LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 120 "$out/$prog"; then
        echo "FAIL: $prog against faro-gpud (host backend) failed; server log:" >&2
        sed 's/^/    /' "$dir/s1/err" >&2
        failures=$((failures + 1))
    fi
done
gpud_stop
# Each program said BYE at exit (four programs, four orderly closes), and
# shipped each of its images once per session: no session's log names the
# same image twice.
n=$(grep -c "session closed (BYE)" "$dir/s1/err")
if [ "$n" != 4 ]; then
    echo "FAIL: $n of 4 programs said BYE at exit; server log:" >&2
    sed 's/^/    /' "$dir/s1/err" >&2
    failures=$((failures + 1))
fi
loads=$(sed -n 's/^faro-gpud: \(client [0-9]*\) (pid [0-9]*): module image \([0-9]*\) loaded.*/\1 \2/p' "$dir/s1/err")
twice=$(echo "$loads" | sort | uniq -d)
if [ -z "$loads" ] || [ -n "$twice" ]; then
    echo "FAIL: images shipped more than once per session (or none at all): ${twice:-no loads}" >&2
    sed 's/^/    /' "$dir/s1/err" >&2
    failures=$((failures + 1))
fi

# Two servers, one device list.
gpud_start "$dir/s2" --backend host --host-kernels "$hostk" --key-file "$dir/key"
srv1=$srv addr1=$addr
gpud_start "$dir/s3" --backend host --host-kernels "$hostk" --key-file "$dir/key"
if ! FARO_GPU_SERVERS=$addr1,$addr FARO_GPU_KEY_FILE=$dir/key LD_BIND_NOW=1 \
        LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 120 "$out/gpu_client_multi"; then
    echo "FAIL: gpu_client_multi against two faro-gpud failed; their logs:" >&2
    sed 's/^/    /' "$dir/s2/err" "$dir/s3/err" >&2
    failures=$((failures + 1))
fi
gpud_stop
srv=$srv1
gpud_stop

# The server killed under a running program: errors at once, one message.
gpud_start "$dir/s4" --backend host --key-file "$dir/key"
mkfifo "$dir/in"
FARO_GPU_SERVERS=$addr FARO_GPU_KEY_FILE=$dir/key LD_BIND_NOW=1 \
    LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout 60 "$out/gpu_client_lost" <"$dir/in" >"$dir/lost.out" 2>"$dir/lost.err" &
client=$!
exec 3>"$dir/in"
for i in $(seq 100); do
    grep -q '^ready$' "$dir/lost.out" && break
    kill -0 $client 2>/dev/null || break
    sleep 0.1
done
gpud_stop
echo go >&3
exec 3>&-
# the background program $client ended with 0, else FAIL naming it and its output
client_ok() { # name, what a hang means, files...
    _name=$1 _hang=$2
    shift 2
    wait $client
    _rc=$?
    [ $_rc -eq 0 ] && return 0
    echo "FAIL: $_name exited with $_rc (124: $_hang):" >&2
    cat "$@" >&2
    failures=$((failures + 1))
    return 1
}
if ! client_ok gpu_client_lost "it hung" "$dir/lost.out" "$dir/lost.err"; then
    :
elif [ "$(grep -c '^faro-gpu: lost the GPU server' "$dir/lost.err")" != 1 ]; then
    echo "FAIL: gpu_client_lost: expected one 'lost the GPU server' message:" >&2
    cat "$dir/lost.err" >&2
    failures=$((failures + 1))
fi
cat "$dir/lost.out" 2>/dev/null | tail -1

# The server killed while the program waits in a synchronize and sends
# nothing: the transport's loss report alone must end the wait.
gpud_start "$dir/s5" --backend host --host-kernels "$hostk" --key-file "$dir/key"
FARO_GPU_SERVERS=$addr FARO_GPU_KEY_FILE=$dir/key LD_BIND_NOW=1 \
    LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout 20 "$out/gpu_client_lostwait" >"$dir/lostwait.out" 2>"$dir/lostwait.err" &
client=$!
for i in $(seq 100); do
    grep -q '^syncing$' "$dir/lostwait.out" && break
    kill -0 $client 2>/dev/null || break
    sleep 0.1
done
sleep 0.5 # the synchronize is on its way and the server sleeps in the kernel
kill -9 "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
srv=
client_ok gpu_client_lostwait "it hung in the synchronize" "$dir/lostwait.out" "$dir/lostwait.err"
# A server that reports a kernel layout other than the cubin's (a test option
# of the host backend): the launch is refused, with one message saying why.
gpud_start "$dir/s6" --backend host --host-kernels "$hostk" --key-file "$dir/key" \
    --host-test wrong-layout
FARO_GPU_SERVERS=$addr FARO_GPU_KEY_FILE=$dir/key LD_BIND_NOW=1 \
    LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout 20 "$out/gpu_client_layout" >"$dir/layout.out" 2>"$dir/layout.err" &
client=$!
if client_ok gpu_client_layout "it hung" "$dir/layout.out" "$dir/layout.err" &&
        ! grep -q "differs from the program's cubin" "$dir/layout.err"; then
    echo "FAIL: gpu_client_layout: no message about the differing layout:" >&2
    cat "$dir/layout.err" >&2
    failures=$((failures + 1))
fi
gpud_stop

[ $failures -eq 0 ] && echo "ok" && exit 0
exit 1
