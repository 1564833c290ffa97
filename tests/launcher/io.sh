#!/bin/sh
# Output forwarding: tags, whole lines, stdin to rank 0 only.
. "$(dirname "$0")/common.sh"

run 0 -n 3 --tag-output sh -c 'echo "hello from $PMI_RANK"; echo "err $PMI_RANK" >&2'
for r in 0 1 2; do
    expect_out "[$r] hello from $r"
    grep -qxF "[$r] err $r" "$OUT.err" || fail "stderr lacks [$r] err $r"
done

run 0 -n 2 -l sh -c 'printf "no newline $PMI_RANK"'
expect_out "[0] no newline 0"
expect_out "[1] no newline 1"

# Long lines written in pieces by 4 ranks at once must come out whole.
run 0 -n 4 -l "$PROBE" lines 100
[ "$(wc -l <"$OUT.out")" -eq 400 ] || fail "expected 400 lines"
bad=$(awk '{ r = substr($1, 2, 1); c = substr("abcd", r + 1, 1);
             if (length($2) != 2999 || $2 !~ ("^" c "+$")) n++ } END { print n + 0 }' "$OUT.out")
[ "$bad" -eq 0 ] || fail "$bad lines were mixed or cut"

# stdin reaches rank 0; the others read /dev/null.
printf 'twelve bytes' | timeout 30 "$MPIEXEC" -n 3 -l "$PROBE" stdin >"$OUT.out" 2>"$OUT.err" ||
    fail "stdin job failed"
expect_out "[0] stdin 12 bytes"
expect_out "[1] stdin 0 bytes"
expect_out "[2] stdin 0 bytes"
echo PASS
