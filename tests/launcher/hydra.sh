#!/bin/sh
# The PMI client (src/runtime/pmi.c) also works under MPICH's Hydra mpiexec.
PROBE=${PROBE:-tests/launcher/pmi_probe}
HYDRA=${HYDRA_MPIEXEC:-mpiexec.mpich}
command -v "$HYDRA" >/dev/null 2>&1 || { echo "SKIP: $HYDRA not installed"; exit 77; }
[ -x "$PROBE" ] || { echo "ERROR: $PROBE is not built" >&2; exit 99; }

out=$(timeout 30 "$HYDRA" -n 3 "$PROBE" kvs 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: $HYDRA -n 3 pmi_probe kvs: exit code $rc"; echo "$out"; exit 1; }
[ "$(echo "$out" | grep -c 'kvs ok')" -eq 3 ] || { echo "FAIL: not every rank passed"; echo "$out"; exit 1; }

timeout 30 "$HYDRA" -n 2 "$PROBE" abort 1 6 >/dev/null 2>&1
rc=$?
[ $rc -eq 6 ] || { echo "FAIL: abort under $HYDRA: exit code $rc, expected 6"; exit 1; }
echo PASS
