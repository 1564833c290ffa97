#!/bin/sh
# Programs built with `nvcc -cudart shared` (tests/gpu/cuda/gpu_client_*.cu),
# run unchanged against Faro's libcudart.so.13 through LD_LIBRARY_PATH, with
# LD_BIND_NOW=1 so that a missing export fails at start. Without a server:
# unsupported exports answer cudaErrorNotSupported with one message each;
# device calls fail with cudaErrorNoDevice (FARO_GPU_SERVERS unset) or
# cudaErrorInitializationError (no server answers, no key), at once, with one
# message naming FARO_GPU_SERVERS. Run from the top build directory; exits 77 when
# nvcc is missing.
srcdir=${srcdir:-.}
nvcc=${NVCC:-nvcc}
[ "$nvcc" != no ] && command -v "$nvcc" >/dev/null ||
    { echo "SKIP: nvcc not found (configure --with-cuda=DIR; the CUDA test programs need it)"; exit 77; }
lib=gpu/client/.libs
[ -f "$lib/libcudart.so.13" ] || { echo "ERROR: $lib/libcudart.so.13 is not built" >&2; exit 99; }
out=tests/gpu/cuda
mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

for prog in gpu_client_unsupported gpu_client_noserver; do
    "$nvcc" -cudart shared -o "$out/$prog" "$srcdir/tests/gpu/cuda/$prog.cu" ||
        { echo "ERROR: nvcc could not build $prog" >&2; exit 99; }
done

# Runs a program against the client library; stderr goes to $out/PROG.err.
run() {
    prog=$1; shift
    env LD_BIND_NOW=1 LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        timeout 60 "$out/$prog" "$@" 2>"$out/$prog.err"
}
# count FILE TEXT: the number of lines of FILE equal to TEXT.
count() { grep -cxF "$2" "$1"; }

run gpu_client_unsupported || fail "gpu_client_unsupported exited with $?"
for f in cudaGraphLaunch cudaMallocManaged "__managed__ memory (__cudaRegisterManagedVar)"; do
    msg="faro-gpu: $f is not supported by Faro's GPU offload (see faro-gpu(7))"
    n=$(count "$out/gpu_client_unsupported.err" "$msg")
    [ "$n" = 1 ] || fail "gpu_client_unsupported: '$msg' printed $n times, expected once"
done
n=$(wc -l <"$out/gpu_client_unsupported.err")
[ "$n" = 3 ] || { fail "gpu_client_unsupported: $n lines on stderr, expected 3:"; cat "$out/gpu_client_unsupported.err" >&2; }

(unset FARO_GPU_SERVERS; run gpu_client_noserver 100) || fail "gpu_client_noserver (FARO_GPU_SERVERS unset) exited with $?"
grep -q '^faro-gpu: no GPU server: FARO_GPU_SERVERS is not set' "$out/gpu_client_noserver.err" ||
    fail "gpu_client_noserver: no message naming FARO_GPU_SERVERS: $(cat "$out/gpu_client_noserver.err")"
n=$(wc -l <"$out/gpu_client_noserver.err")
[ "$n" = 1 ] || fail "gpu_client_noserver: $n lines on stderr, expected 1"

# A port nothing listens on: the error comes at once (timeout 60 above).
(unset FARO_GPU_KEY_FILE; FARO_GPU_KEY=gpu-client-test FARO_GPU_SERVERS=127.0.0.1:1 run gpu_client_noserver 3) ||
    fail "gpu_client_noserver (FARO_GPU_SERVERS=127.0.0.1:1) exited with $?"
grep -q '^faro-gpu: cannot reach the GPU server 127.0.0.1:1 (FARO_GPU_SERVERS)' "$out/gpu_client_noserver.err" ||
    fail "gpu_client_noserver: no message naming the unreachable server: $(cat "$out/gpu_client_noserver.err")"
# No key: refused before connecting.
(unset FARO_GPU_KEY_FILE FARO_GPU_KEY; FARO_GPU_SERVERS=127.0.0.1:1 run gpu_client_noserver 3) ||
    fail "gpu_client_noserver (no key) exited with $?"
grep -q '^faro-gpu: no key for the GPU server 127.0.0.1:1 (FARO_GPU_SERVERS)' "$out/gpu_client_noserver.err" ||
    fail "gpu_client_noserver: no message saying the key is missing: $(cat "$out/gpu_client_noserver.err")"

[ $failures -eq 0 ] && echo "ok" && exit 0
exit 1
