#!/bin/sh
# End to end: an unmodified CUDA program (tests/gpu/cuda/gpu_client_vectoradd.cu,
# built with `nvcc -cudart shared`) runs with LD_LIBRARY_PATH pointing at
# Faro's libcudart.so.13 against faro-gpud --backend host on loopback, whose
# kernels come from tests/gpu/gpu_client_host_kernels.c; the program checks
# its results. Then the same program against a server that is killed: CUDA
# errors, not a hang. Run from the top build directory; exits 77 without nvcc.
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
prog=$out/gpu_client_vectoradd
"$nvcc" -cudart shared -o "$prog" "$srcdir/tests/gpu/cuda/gpu_client_vectoradd.cu" ||
    { echo "ERROR: nvcc could not build $prog" >&2; exit 99; }
unset FARO_GPU_KEY FARO_TCP_IF FARO_TCP_PORT
printf 'gpu-client-e2e-key' >"$dir/key"
chmod 600 "$dir/key"
failures=0

gpud_start "$dir" --backend host --host-kernels "$hostk" --key-file "$dir/key"
if ! FARO_GPU_SERVERS=$addr FARO_GPU_KEY_FILE=$dir/key LD_BIND_NOW=1 \
        LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 120 "$prog"; then
    echo "FAIL: gpu_client_vectoradd against faro-gpud (host backend) failed; server log:" >&2
    sed 's/^/    /' "$dir/err" >&2
    failures=$((failures + 1))
fi
gpud_stop
[ $failures -eq 0 ] && echo "ok" && exit 0
exit 1
