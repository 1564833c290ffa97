#!/bin/sh
# The PMI client (base/pmi.c) also works under MPICH's Hydra mpiexec: PMI-1
# on PMI_FD (the default there), PMI-1 over TCP (-pmi-port: PMI_PORT and
# PMI_ID), and PMI-2 (FARO_PMI=pmi2; Hydra serves both on one socket).
# Checked per protocol: put/fence/get across ranks, a fence that waits for a
# late rank (Hydra answers a PMI-2 kvs-fence at once: the client's fence must
# still be a barrier), the node map, abort ending the job (with its exit code
# over PMI-1).
PROBE=${PROBE:-tests/launcher/pmi_probe}
HYDRA=${HYDRA_MPIEXEC:-mpiexec.mpich}
command -v "$HYDRA" >/dev/null 2>&1 || { echo "SKIP: $HYDRA not installed"; exit 77; }
[ -x "$PROBE" ] || { echo "ERROR: $PROBE is not built" >&2; exit 99; }
unset FARO_PMI

# hy PROTOCOL WORDS...: run Hydra with the protocol's options; output in $out
hy() {
    proto=$1
    shift
    case $proto in
    pmi1) out=$(timeout 30 "$HYDRA" "$@" 2>&1) ;;
    port) out=$(timeout 30 "$HYDRA" -pmi-port "$@" 2>&1) ;;
    pmi2) out=$(FARO_PMI=pmi2 timeout 30 "$HYDRA" "$@" 2>&1) ;;
    esac
}

for proto in pmi1 port pmi2; do
    want=$proto
    [ $proto = port ] && want=pmi1
    hy $proto -n 3 "$PROBE" kvs
    [ $? -eq 0 ] || { echo "FAIL: $HYDRA ($proto) -n 3 pmi_probe kvs"; echo "$out"; exit 1; }
    [ "$(echo "$out" | grep -c 'kvs ok')" -eq 3 ] || { echo "FAIL: not every rank passed ($proto)"; echo "$out"; exit 1; }
    echo "$out" | grep -qx "rank 2: protocol $want" || { echo "FAIL: $proto: not spoken"; echo "$out"; exit 1; }

    hy $proto -n 3 "$PROBE" barrier 1 2
    [ "$(echo "$out" | grep -c 'barrier ok')" -eq 3 ] || { echo "FAIL: $proto: a barrier did not wait"; echo "$out"; exit 1; }
    hy $proto -n 2 "$PROBE" nodemap
    echo "$out" | grep -qx "rank 1: nodemap 0 0" || { echo "FAIL: $proto: no node map"; echo "$out"; exit 1; }

    # Hydra 4.0's PMI-2 server does not know cmd=abort: it ends the job with
    # 255 ("Unrecognized PMI command: abort"), so only PMI-1 keeps the code.
    hy $proto -n 2 "$PROBE" abort 1 6
    rc=$?
    [ $rc -eq 6 ] || { [ $proto = pmi2 ] && [ $rc -ne 0 ] && [ $rc -ne 124 ]; } ||
        { echo "FAIL: abort under $HYDRA ($proto): exit code $rc, expected 6"; echo "$out"; exit 1; }
done
echo PASS
