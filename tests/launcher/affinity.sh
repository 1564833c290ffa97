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
# ppr:N:RESOURCE: N ranks per socket, NUMA node, L3 cache or core, in order.
cpus_of() { # the cpus of each rank of --dry-run's placement
    sed -n 's/.*cpus \([0-9][0-9,-]*\).*/\1/p' "$OUT.out" | tr '\n' ' '
}
run 0 --dry-run -n 4 --map-by ppr:2:socket --topology "package:2 core:4 pu:1"
[ "$(cpus_of)" = "0 1 4 5 " ] || fail "ppr:2:socket on 2x4 cores: cpus $(cpus_of), expected 0 1 4 5"
run 0 --dry-run -n 3 --map-by ppr:1:numa --topology "package:2 numa:2 core:2 pu:1"
[ "$(cpus_of)" = "0 2 4 " ] || fail "ppr:1:numa on 4 NUMA nodes of 2 cores: cpus $(cpus_of), expected 0 2 4"
run 0 --dry-run -n 2 --map-by ppr:1:l3 --topology "package:1 l3cache:2 core:2 pu:1"
[ "$(cpus_of)" = "0 2 " ] || fail "ppr:1:l3 on 2 L3 caches of 2 cores: cpus $(cpus_of), expected 0 2"
run 0 --dry-run -n 4 --map-by ppr:2:core --topology "package:1 core:2 pu:2"
[ "$(cpus_of)" = "0-1 0-1 2-3 2-3 " ] || fail "ppr:2:core: cpus $(cpus_of), expected 0-1 0-1 2-3 2-3"
expect_out "warning: --map-by/FARO_MAP_BY ppr:2:core: 2 ranks x 1 cores per rank do not fit in a core, so the ranks of each share its cpus"
run 0 --dry-run -n 2 --map-by ppr:2:socket --bind-to socket --topology "package:2 core:2 pu:1"
[ "$(cpus_of)" = "0-1 0-1 " ] || fail "ppr:2:socket --bind-to socket: cpus $(cpus_of), expected 0-1 0-1"
run 1 --dry-run -n 5 --map-by ppr:2:socket --topology "package:2 core:4 pu:1"
expect_err "ppr:2:socket: 5 ranks on this node, but its 2 sockets hold 4 at 2 each"
# On this machine, one rank per core, bound there; a host given more ranks
# than its cores hold fails MPI_Init naming the host.
if [ "$nproc_here" -ge 2 ]; then
    run 0 -n 2 --map-by ppr:1:core --report-bindings "$PRINT"
    cat "$OUT.out" "$OUT.err" >"$OUT.all"
    [ "$(seen 0)" = "$(reported 0)" ] && [ "$(seen 1)" = "$(reported 1)" ] &&
        [ "$(seen 0)" != "$(seen 1)" ] || fail "ppr:1:core: ranks on cpus $(seen 0) and $(seen 1)"
    case $(seen 0)$(seen 1) in *[,-]*) fail "ppr:1:core bound a rank to more than one cpu" ;; esac
    over=$((2 * nproc_here + 2))
    timeout 30 "$MPIEXEC" -launcher fork -hosts a,b -n $over --map-by ppr:1:core "$PRINT" \
        >"$OUT.out" 2>"$OUT.err" </dev/null && fail "ppr:1:core with $over ranks on 2 hosts ran"
    expect_err "ppr:1:core: $((over / 2)) ranks on this node, but its $nproc_here cores hold $nproc_here at 1 each"
    grep -q "(host [ab])" "$OUT.err" || fail "the ppr error does not name the host"
fi

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
