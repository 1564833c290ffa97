#!/bin/sh
# compare.sh: the side-by-side pipeline works end to end. perf/compare builds
# perf/p2p.c and perf/coll.c with Faro's mpicc (this build tree's) and with
# Open MPI's and MPICH's when they are installed, runs a tiny sweep once (shm
# and tcp, 2 ranks, pingpong, allreduce and barrier), and perf/plot draws the
# figures. Checked: report.md, results.csv, results.json and at least one
# PNG and one SVG exist and are not empty, the report states the direction of
# the ratios, and results.csv holds Faro's rows for both configurations. No
# timing is judged. matplotlib (python3-matplotlib, installed by
# scripts/faro-dev) is required: without it the test fails.
#
# usage (from the top build directory, as `make check` runs it):
#   tests/perf/compare.sh
set -u

top=${srcdir:-$(dirname "$0")/../..}
command -v python3 >/dev/null 2>&1 || { echo "compare.sh: FAIL: no python3" >&2; exit 1; }
[ -x ./mpicc ] && [ -x ./mpiexec ] || { echo "compare.sh: ERROR: build first" >&2; exit 99; }
work=$(mktemp -d "${TMPDIR:-/tmp}/faro-compare-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

impls=faro
command -v mpicc.openmpi >/dev/null 2>&1 && command -v mpiexec.openmpi >/dev/null 2>&1 && impls="$impls,openmpi"
command -v mpicc.mpich >/dev/null 2>&1 && command -v mpiexec.mpich >/dev/null 2>&1 && impls="$impls,mpich"
echo "compare.sh: implementations: $impls"

fail() { echo "compare.sh: FAIL: $*" >&2; exit 1; }

timeout 150 python3 "$top/perf/compare" --quick --impls "$impls" --repeats 1 --ranks 2 \
    --configs shm,tcp --p2p pingpong --coll allreduce,barrier --max-size 256 \
    --iters-scale 0.002 --timeout 40 --out-dir "$work/out" >"$work/stdout" 2>"$work/stderr"
rc=$?
[ $rc -eq 0 ] || { cat "$work/stderr" >&2; fail "perf/compare exited $rc"; }

out=$work/out
for f in report.md results.csv results.json machine.txt; do
    [ -s "$out/$f" ] || fail "$f missing or empty"
done
ls "$out"/plots/*.png >/dev/null 2>&1 || { cat "$work/stderr" >&2; fail "no PNG written (is python3-matplotlib installed?)"; }
ls "$out"/plots/*.svg >/dev/null 2>&1 || fail "no SVG written"
for f in "$out"/plots/*.png "$out"/plots/*.svg; do
    [ -s "$f" ] || fail "$f is empty"
done
grep -q "below 1 means faro is faster" "$out/report.md" || fail "report.md does not state the ratio direction"
grep -q "perf/plot failed" "$out/report.md" && fail "report.md records a perf/plot failure"
for cfg in shm tcp; do
    grep -q "^faro,$cfg,p2p,pingpong,2," "$out/results.csv" || fail "results.csv lacks faro $cfg pingpong"
    grep -q "^faro,$cfg,coll,allreduce,2," "$out/results.csv" || fail "results.csv lacks faro $cfg allreduce"
done
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["results"] and d["meta"]["machine"]' \
    "$out/results.json" || fail "results.json malformed"
echo "compare.sh: ok ($(ls "$out"/plots | wc -l) plot files)"
