#!/bin/sh
# Kernels through faro-gpud's host backend: tests/gpu/cuda/gpucore_kernels.cu
# built by nvcc into a fatbin, loaded in chunks (MODULE_LOAD), the kernels'
# parameter layouts read from the cubin (KERNEL_GET: offsets and sizes of a
# struct, u64 and short parameter), launched with packed parameter buffers
# run by the host implementations (tests/gpu/gpucore_host_kernels.c), a
# __device__ variable, a faulting launch's sticky error until DEVICE_RESET.
# Needs nvcc (exit 77 without). Run from the top of the build tree.
#   exit 0 pass, 1 fail, 77 skip, 99 hard error

srcdir=${srcdir:-..}
gpud=./faro-gpud
client=./tests/gpu/gpu_wire_client
hostk=./tests/gpu/.libs/libgpucore_hostk.so
for f in "$gpud" "$client" "$hostk"; do
    [ -e "$f" ] || { echo "ERROR: $f is missing; run make check first" >&2; exit 99; }
done
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then
    echo "test-gpud-kernel: SKIP: nvcc not found (set NVCC or put it on PATH)"
    exit 77
fi
dir=$(mktemp -d /tmp/test-gpud-kernel.XXXXXX) || exit 99
. "${srcdir:-..}/tests/gpu/gpud-lib.sh"
srv=
cleanup() {
    gpud_stop
    rm -rf "$dir"
}
trap cleanup EXIT

if ! "$nvcc" -fatbin -arch=sm_75 -o "$dir/k.fatbin" "$srcdir/tests/gpu/cuda/gpucore_kernels.cu" \
        >"$dir/nvcc.log" 2>&1; then
    echo "ERROR: nvcc failed:" >&2
    cat "$dir/nvcc.log" >&2
    exit 99
fi
unset FARO_GPU_KEY FARO_TCP_IF FARO_TCP_PORT
printf 'kernel-test-key' >"$dir/key"
chmod 600 "$dir/key"
gpud_start "$dir" --backend host --host-kernels "$hostk" --key-file "$dir/key"
if FARO_GPU_KEY_FILE="$dir/key" timeout 60 "$client" kernel "$dir/k.fatbin" "$addr"; then
    echo "test-gpud-kernel: all checks passed"
    exit 0
fi
echo "test-gpud-kernel: server log:"
sed 's/^/    /' "$dir/err"
exit 1
