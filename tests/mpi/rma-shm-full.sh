#!/bin/sh
# One-sided windows when /dev/shm is too small (rma_shm_full.c): the job runs
# in a mount namespace of its own whose /dev/shm is a 256 KiB tmpfs, over tcp
# (shm's rings would not fit either). Skipped (77) where a mount namespace
# cannot be made (not root, no unshare). Run from the top build directory.
MPIEXEC=${MPIEXEC:-./mpiexec}
[ -x "$MPIEXEC" ] && [ -x tests/mpi/rma_shm_full ] || { echo "ERROR: build first" >&2; exit 99; }
command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null ||
    { echo "SKIP: cannot make a mount namespace (unshare -m) here" >&2; exit 77; }
FARO_TRANSPORTS=tcp timeout 60 unshare -m sh -c \
    'mount -t tmpfs -o size=256k tmpfs /dev/shm && exec "$0" -n 2 tests/mpi/rma_shm_full' \
    "$MPIEXEC"
