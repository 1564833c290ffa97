#!/bin/sh
# Every cudaError_t value of the installed CUDA headers has its name and a
# description of Faro's own in the client library (gpu/client/errors.def).
# Run from the top build directory.
hdr=${CUDA_HOME:-/usr/local/cuda}/include/driver_types.h
[ -r "$hdr" ] || { echo "SKIP: no CUDA headers ($hdr)"; exit 77; }
awk '/^enum __device_builtin__ cudaError$/ { on = 1; next }
     on && /^};/ { exit }
     on { sub(/^[ \t]*,[ \t]*/, "") }
     on && $1 ~ /^cuda[A-Za-z0-9]*$/ && $2 == "=" { v = $3; sub(/,.*/, "", v); print $1, v }' "$hdr" |
    ./tests/gpu/gpu_client_errname
