#!/bin/sh
# The PMI client's choice of protocol (base/pmi.c) under Faro's mpiexec, which
# speaks PMI-1 only: an open PMI_FD wins over PMIX_* inherited from further
# out; PMI-2 that is only inferred (PMI_VERSION=2, PMI_JOBID) falls back to
# PMI-1 when mpiexec turns it down; FARO_PMI=pmi2 does not fall back and says
# why; FARO_PMI=singleton ignores the manager; a bad FARO_PMI is named.
. "$(dirname "$0")/common.sh"
unset FARO_PMI PMI_VERSION PMI_JOBID PMIX_RANK PMIX_NAMESPACE

# proto_is P: every one of the 2 ranks of the last run spoke P and passed.
proto_is() {
    [ "$(grep -c 'kvs ok' "$OUT.out")" -eq 2 ] || fail "not every rank passed the kvs probe"
    [ "$(grep -c "^rank [01]: protocol $1\$" "$OUT.out")" -eq 2 ] || fail "the ranks did not speak $1"
}

run 0 -n 2 "$PROBE" kvs
proto_is pmi1
PMI_VERSION=2 run 0 -n 2 "$PROBE" kvs
proto_is pmi1
PMI_JOBID=7.0 run 0 -n 2 "$PROBE" kvs
proto_is pmi1
PMIX_RANK=0 PMIX_NAMESPACE=outer.job run 0 -n 2 "$PROBE" kvs
proto_is pmi1

FARO_PMI=pmi2 run 98 -n 1 "$PROBE" kvs
expect_err "the process manager does not speak PMI-2"
expect_err "FARO_PMI=pmi2 forces it: unset it to let Faro pick"

FARO_PMI=singleton run 0 -n 2 "$PROBE" kvs
[ "$(grep -c '^rank 0 of 1: kvs ok' "$OUT.out")" -eq 2 ] || fail "FARO_PMI=singleton: not two singletons"

FARO_PMI=pmi3 run 98 -n 1 "$PROBE" kvs
expect_err "FARO_PMI=pmi3 is invalid: expected one of auto, pmi1, pmi2, pmix, singleton"

# Without a launcher, PMIX_* alone means PMIx, whose server is not there.
out=$(env -u PMI_FD PMIX_RANK=0 PMIX_NAMESPACE=gone timeout 30 "$PROBE" kvs 2>&1)
[ $? -eq 98 ] || fail "PMIx without its server should fail init: $out"
case $out in
*"PMIx_Init failed"*"PMIX_NAMESPACE=gone"* | *"but this Faro was built without PMIx"*) ;;
*) fail "PMIx without its server: $out" ;;
esac
echo PASS
