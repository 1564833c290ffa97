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
expect fail "FARO_TRANSPORTS=tcp,bogus: unknown transport 'bogus' (built in: self, shm, tcp" \
    FARO_TRANSPORTS=tcp,bogus
expect fail "FARO_TCP_IF=nosuch0 matches no" FARO_TRANSPORTS=tcp FARO_TCP_IF=nosuch0
expect ok "FARO_EAGR_LIMIT is not a Faro tunable (did you mean FARO_EAGER_LIMIT?)" \
    FARO_EAGR_LIMIT=4k
# A listed transport that cannot work here: the job goes on without it, and
# says so (it used to be silent, and to warn "accept: Bad file descriptor").
expect ok "transport tcp is in FARO_TRANSPORTS but unusable here: FARO_TCP_IF=nosuch0" \
    FARO_TCP_IF=nosuch0
grep -q "Bad file descriptor" "$OUT.err" && fail "FARO_TCP_IF=nosuch0: a warning about a closed descriptor"
# verbs where it cannot work (no RDMA device): listed alone, MPI_Init fails
# with faro_info's reason and no claim that other transports carry the
# traffic; listed with others, the job runs and says once that they do.
line=$(./faro_info --transports 2>/dev/null | grep "^  verbs ")
case $line in
*" unusable: "*)
    why=${line#*unusable: }
    expect fail "verbs: $why" FARO_TRANSPORTS=verbs
    grep -q "other listed transports carry" "$OUT.err" &&
        fail "FARO_TRANSPORTS=verbs: a warning that other transports carry its traffic"
    expect ok "transport verbs is in FARO_TRANSPORTS but unusable here: $why" \
        FARO_TRANSPORTS=verbs,shm,tcp
    ;;
*) echo "skip: verbs unusable checks (verbs ${line:+is usable here}${line:-is not built})" ;;
esac
# A /dev/shm too small for the queues: shm says so and names the fix; with only
# shm allowed the job cannot start, with the default list it goes over tcp.
# Needs a private mount namespace (root): skipped where unshare cannot make one.
if unshare -m true 2>/dev/null; then
    # small [VAR=VAL...] CMD...: run CMD with a 1 MiB /dev/shm of its own
    small() { unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec env "$@"' sh "$@"; }
    small FARO_TRANSPORTS=shm FARO_SHM_SLOTS=64 timeout 30 "$MPIEXEC" -n 2 "$HELLO" \
        >"$OUT.out" 2>"$OUT.err" </dev/null && fail "a 1 MiB /dev/shm: the job started"
    grep -qF "/dev/shm has 1.0 MiB free, needs" "$OUT.err" || fail "no /dev/shm size message"
    grep -qF "lower FARO_SHM_SLOTS (now 64)" "$OUT.err" || fail "the message names no fix"
    echo "ok: /dev/shm too small, shm only"
    small FARO_SHM_SLOTS=64 timeout 30 "$MPIEXEC" -n 2 "$HELLO" >"$OUT.out" 2>"$OUT.err" \
        </dev/null || fail "a 1 MiB /dev/shm: no fallback to tcp"
    # The fallback is said once per node, without FARO_VERBOSE.
    n=$(grep -c "transport shm is in FARO_TRANSPORTS but unusable here: /dev/shm has 1.0 MiB" \
        "$OUT.err")
    [ "$n" -eq 1 ] || fail "the fallback to tcp was reported $n times, not once"
    echo "ok: /dev/shm too small, fallback to tcp, said once"
else
    echo "skip: /dev/shm size checks (no private mount namespace here)"
fi
exit 0
