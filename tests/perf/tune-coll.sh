#!/bin/sh
# tune-coll.sh: perf/tune-coll runs every barrier algorithm at 2 ranks once and
# writes a rules file that Faro accepts as FARO_COLL_TUNING_FILE (faro_info
# --coll parses it and lists its rule first). No timing is judged.
#
# usage (from the top build directory, as `make check` runs it):
#   tests/perf/tune-coll.sh
set -u
top=${srcdir:-$(dirname "$0")/../..}
[ -x ./mpiexec ] && [ -x perf/coll ] && [ -x ./faro_info ] || { echo "tune-coll.sh: ERROR: build first" >&2; exit 99; }
work=$(mktemp -d "${TMPDIR:-/tmp}/faro-tune-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail() { echo "tune-coll.sh: FAIL: $*" >&2; exit 1; }

timeout 120 python3 "$top/perf/tune-coll" --builddir . --coll barrier,allgather --ranks 2 \
    --max-size 64 --iters-scale 0.01 --repeats 1 --out "$work/report.md" \
    --rules "$work/rules" || fail "perf/tune-coll exited with $?"
grep -q '^| 0 | ' "$work/report.md" || fail "no table row in the report"
grep -q '^barrier 2-2 0-inf any \(dissemination\|tree\)$' "$work/rules" || fail "no barrier rule: $(cat "$work/rules")"
grep -q '^allgather 2-2 0-' "$work/rules" || fail "no allgather rule: $(cat "$work/rules")"
FARO_COLL_TUNING_FILE="$work/rules" ./faro_info --coll > "$work/table" 2>&1 || fail "faro_info rejects the rules: $(cat "$work/table")"
grep -q '^barrier .*2-2 ' "$work/table" || fail "the rules are not in the table in effect"
echo "tune-coll.sh: PASS"
