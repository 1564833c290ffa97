# Sourced by the launcher tests. Tests run from the top build directory (where
# automake runs them); MPIEXEC and PROBE override the paths of the programs.
MPIEXEC=${MPIEXEC:-./mpiexec}
PROBE=${PROBE:-tests/launcher/pmi_probe}
OUT=${TMPDIR:-/tmp}/faro-launcher-$$
trap 'rm -f "$OUT".*' EXIT

for p in "$MPIEXEC" "$PROBE"; do
    if [ ! -x "$p" ]; then
        echo "ERROR: $p is not built (run from the top build directory after make)" >&2
        exit 99
    fi
done

fail() { echo "FAIL: $*" >&2; for f in "$OUT".*; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; } >&2; done; exit 1; }

# run EXPECTED_RC ARGS...: run mpiexec with a 30 s guard, stdout/stderr in $OUT.out/.err
run() {
    want=$1; shift
    start=$(date +%s)
    timeout 30 "$MPIEXEC" "$@" >"$OUT.out" 2>"$OUT.err" </dev/null
    rc=$?
    took=$(( $(date +%s) - start ))
    [ $rc -eq "$want" ] || fail "mpiexec $*: exit code $rc, expected $want"
    [ $took -le 10 ] || fail "mpiexec $*: took $took s; the job should end within seconds"
}

expect_err() { grep -qF -- "$1" "$OUT.err" || fail "stderr lacks: $1"; }
expect_out() { grep -qxF -- "$1" "$OUT.out" || fail "stdout lacks the line: $1"; }
