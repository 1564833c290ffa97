#!/bin/sh
# ofi-mix.sh: one job over two network transports. Every rank lists
# FARO_TRANSPORTS=ofi,tcp except the odd ranks, which list only tcp: a pair of
# even ranks talks over ofi, every other pair over tcp (each side picks the
# first transport both published). Point-to-point, wildcards across both, and
# collectives (large ones: rendezvous over both) must work, and both
# transports must have carried traffic.
# Skipped (77) when the ofi transport is not built or not usable here.
# Run from the top build directory (automake does).
MPIEXEC=${MPIEXEC:-./mpiexec}
[ -x "$MPIEXEC" ] && [ -x tests/mpi/ordering ] || { echo "ERROR: build first" >&2; exit 99; }
./faro_info --transports 2>/dev/null | grep -q '^  ofi  *usable' ||
    { echo "ofi-mix.sh: the ofi transport is not usable here: skipped"; exit 77; }
log=$(mktemp "${TMPDIR:-/tmp}/ofi-mix.XXXXXX")
trap 'rm -f "$log"' EXIT
failures=0

# The odd ranks see only tcp.
wrap='if [ $((PMI_RANK % 2)) -eq 1 ]; then FARO_TRANSPORTS=tcp; export FARO_TRANSPORTS; fi; exec "$@"'
for job in "ordering 4" "anysrc_anytag 4" "coll_basic 4 TEST_LARGE=1" \
           "coll_matrix 4 TEST_COLL=all TEST_NBC=1"; do
    set -- $job
    prog=$1 np=$2
    shift 2
    # shellcheck disable=SC2086
    env "$@" FARO_TRANSPORTS=ofi,tcp FARO_OFI_PROVIDER="tcp;ofi_rxm" FARO_VERBOSE=1 \
        timeout -k 5 120 "$MPIEXEC" -n "$np" sh -c "$wrap" sh "tests/mpi/$prog" >"$log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: $job (exit $rc)"; tail -15 "$log"; failures=$((failures + 1)); continue
    fi
    used=ok
    for tp in ofi tcp; do
        grep -q "info: transport $tp: eager limit" "$log" || used="no rank used $tp"
    done
    if [ "$used" != ok ]; then
        echo "FAIL: $job: $used"; failures=$((failures + 1)); continue
    fi
    echo "ok: $job over ofi and tcp"
done
[ $failures -eq 0 ]
