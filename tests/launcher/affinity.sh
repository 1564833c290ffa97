#!/bin/sh
# Real binding on this machine: under --bind-to core each rank's
# sched_getaffinity (printed by tests/mpi/affinity_print) is what
# --report-bindings says, one core each; more ranks than cores give a warning
# and no binding; --dry-run on the rx7640 model prints the planned cpus.
# Skipped (77) when Faro was built without hwloc.
. "$(dirname "$0")/common.sh"
srcdir=${srcdir:-.}
PRINT=${PRINT:-tests/mpi/affinity_print}
MODELS=${MODELS:-$srcdir/affinity/models}
[ -x "$PRINT" ] || { echo "ERROR: $PRINT is not built" >&2; exit 99; }
if ./faro_info --all 2>/dev/null | grep -q 'hwloc=no'; then
    echo "SKIP: built without hwloc"; exit 77
fi
unset FARO_MAP_BY FARO_BIND_TO FARO_CPUS_PER_RANK FARO_REPORT_BINDINGS FARO_TOPOLOGY FARO_NIC

# cpus LIST as the program saw them / as the report says, for rank R
seen() { sed -n "s/^affinity_print rank $1 cpus \([0-9,-]*\)\$/\1/p" "$OUT.all"; }
reported() {
    grep -v '^affinity_print' "$OUT.all" | grep -E "rank $1([^0-9]|\$)" |
        sed -n 's/.*cpus \([0-9][0-9,-]*\).*/\1/p' | head -n 1
}

all=$(FARO_BIND_TO=none "$PRINT" | sed -n 's/^affinity_print rank 0 cpus //p')
[ -n "$all" ] || fail "affinity_print alone printed no cpus"

# Two ranks, one core each, as reported.
run 0 -n 2 --bind-to core --report-bindings "$PRINT"
cat "$OUT.out" "$OUT.err" >"$OUT.all"
for r in 0 1; do
    s=$(seen $r); p=$(reported $r)
    [ -n "$s" ] || fail "rank $r printed no cpus"
    [ -n "$p" ] || fail "no --report-bindings line with cpus for rank $r"
    [ "$s" = "$p" ] || fail "rank $r: sched_getaffinity says $s, the report says $p"
    case $s in *[,-]*) fail "rank $r is bound to $s, not to one core (1 PU per core here)" ;; esac
done
[ "$(seen 0)" != "$(seen 1)" ] || fail "both ranks are bound to cpu $(seen 0)"

# More ranks than cores: a warning, and every rank keeps all the cpus.
nproc_here=$(nproc)
over=$((nproc_here * 2))
run 0 -n $over --bind-to core "$PRINT"
cat "$OUT.out" "$OUT.err" >"$OUT.all"
grep -qi 'oversubscri' "$OUT.all" || fail "no oversubscription warning for $over ranks on $nproc_here cpus"
r=0
while [ $r -lt $over ]; do
    [ "$(seen $r)" = "$all" ] || fail "oversubscribed rank $r is bound to $(seen $r), not left on $all"
    r=$((r + 1))
done

# The plan for 16 ranks near the HCA of an rx7640 node, without running.
run 0 --dry-run -n 16 --map-by nic --bind-to core --topology "$MODELS/rx7640.xml"
n=$(grep -c 'cpus [0-9]' "$OUT.out")
[ "$n" -eq 16 ] || fail "--dry-run -n 16 printed $n placement lines, expected 16"
got=$(sed -n 's/.*cpus \([0-9][0-9,-]*\).*/\1/p' "$OUT.out" | tr '\n' ' ')
[ "$got" = "8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 " ] ||
    fail "--dry-run --map-by nic on rx7640: cpus $got, expected 8..15 then 0..7"
run 0 --dry-run -n 2 --map-by numa:span --bind-to numa --topology "$MODELS/rx7640.xml"
got=$(sed -n 's/.*cpus \([0-9][0-9,-]*\).*/\1/p' "$OUT.out" | tr '\n' ' ')
[ "$got" = "0-7 8-15 " ] || fail "--dry-run numa:span bind numa: cpus $got, expected 0-7 8-15"
# A launcher confined to one cpu (taskset): ranks map inside it, never outside,
# and the report shows the cpu they really run on.
if [ "$nproc_here" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
    last=$(echo "$all" | sed 's/.*[,-]//')
    run 0 -n 2 --report-bindings taskset -c "$last" "$PRINT" # each rank confined
    cat "$OUT.out" "$OUT.err" >"$OUT.all"
    for r in 0 1; do
        [ "$(seen $r)" = "$last" ] || fail "confined rank $r runs on $(seen $r), not $last"
        [ "$(reported $r)" = "$last" ] ||
            fail "confined rank $r: the report says cpus $(reported $r), it runs on $last"
    done
    timeout 60 taskset -c "$last" "$MPIEXEC" -n 1 --bind-to core --report-bindings "$PRINT" \
        >"$OUT.out" 2>"$OUT.err" </dev/null || fail "taskset -c $last mpiexec --bind-to core failed"
    cat "$OUT.out" "$OUT.err" >"$OUT.all"
    [ "$(seen 0)" = "$last" ] || fail "--bind-to core under taskset -c $last bound to $(seen 0)"
    [ "$(reported 0)" = "$last" ] || fail "--bind-to core under taskset -c $last reported $(reported 0)"
    timeout 60 taskset -c "$last" "$MPIEXEC" -n 2 --report-bindings "$PRINT" \
        >"$OUT.out" 2>"$OUT.err" </dev/null || fail "taskset -c $last mpiexec -n 2 failed"
    cat "$OUT.out" "$OUT.err" >"$OUT.all"
    for r in 0 1; do
        [ "$(reported $r)" = "$last" ] ||
            fail "under taskset -c $last rank $r is reported on $(reported $r)"
    done
fi

# Two ranks given the same cpu in a cpu-list: a warning, as the docs promise.
run 0 -n 2 --map-by cpu-list:0,0 "$PRINT"
grep -q "cpu 0 is given to rank 0 and to rank 1" "$OUT.err" || fail "no warning for cpu-list:0,0"

# A bad value is the library's to refuse: MPI_Init fails naming the option.
timeout 30 "$MPIEXEC" -n 1 --map-by sockets "$PRINT" >"$OUT.out" 2>"$OUT.err" </dev/null &&
    fail "--map-by sockets was accepted"
expect_err "FARO_MAP_BY sockets: unknown policy"
run 1 --dry-run -n 2 --bind-to cores
expect_err "FARO_BIND_TO"
echo PASS
