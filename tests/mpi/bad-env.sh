#!/bin/sh
# Bad settings end MPI_Init with a message that names the variable, what was
# wrong and what is allowed; typos get a warning. Run from the top build
# directory (automake does), against tests/mpi/hello.
MPIEXEC=${MPIEXEC:-./mpiexec}
HELLO=tests/mpi/hello
OUT=${TMPDIR:-/tmp}/faro-badenv-$$
trap 'rm -f "$OUT".*' EXIT
[ -x "$MPIEXEC" ] && [ -x "$HELLO" ] || { echo "ERROR: build first" >&2; exit 99; }

fail() { echo "FAIL: $*" >&2; cat "$OUT.err" >&2; exit 1; }

# expect RC-KIND TEXT ENV...: run hello on 2 ranks with ENV; RC-KIND is ok or fail
expect() {
    kind=$1 text=$2; shift 2
    env "$@" timeout 30 "$MPIEXEC" -n 2 "$HELLO" >"$OUT.out" 2>"$OUT.err" </dev/null
    rc=$?
    [ $rc -ne 124 ] || fail "$*: timed out"
    if [ "$kind" = ok ]; then [ $rc -eq 0 ] || fail "$*: exit $rc, expected success"
    else [ $rc -ne 0 ] || fail "$*: succeeded, expected a failure"; fi
    grep -qF -- "$text" "$OUT.err" || fail "$*: stderr lacks: $text"
    echo "ok: $*"
}

expect fail "FARO_EAGER_LIMIT=12x is invalid: expected a size in bytes" FARO_EAGER_LIMIT=12x
expect fail "FARO_WAIT_POLICY=fast is invalid: expected one of spin, yield, auto" \
    FARO_WAIT_POLICY=fast
expect fail "FARO_TRANSPORTS=tcp,bogus: unknown transport 'bogus' (built in: self, shm, tcp)" \
    FARO_TRANSPORTS=tcp,bogus
expect fail "FARO_TCP_IF=nosuch0 matches no" FARO_TRANSPORTS=tcp FARO_TCP_IF=nosuch0
expect ok "FARO_EAGR_LIMIT is not a Faro tunable (did you mean FARO_EAGER_LIMIT?)" \
    FARO_EAGR_LIMIT=4k
exit 0
