#!/bin/sh
# mpiexec's affinity options become the FARO_* variables the library reads at
# MPI_Init (an option beats the same variable already set), --cpus-per-rank
# sets OMP_NUM_THREADS/OMP_PLACES unless the user set them, and bad or
# unknown options are refused. Needs no affinity support in the library.
. "$(dirname "$0")/common.sh"

VARS="FARO_MAP_BY FARO_BIND_TO FARO_CPUS_PER_RANK FARO_REPORT_BINDINGS FARO_TOPOLOGY OMP_NUM_THREADS OMP_PLACES"
unset $VARS

run 0 -n 2 --map-by socket:span --bind-to numa --cpus-per-rank 3 --report-bindings \
    --topology 'package:2 core:2 pu:1' "$PROBE" env $VARS
for l in FARO_MAP_BY=socket:span FARO_BIND_TO=numa FARO_CPUS_PER_RANK=3 FARO_REPORT_BINDINGS=1 \
         "FARO_TOPOLOGY=package:2 core:2 pu:1" OMP_NUM_THREADS=3 OMP_PLACES=cores; do
    [ "$(grep -cxF -- "$l" "$OUT.out")" -eq 2 ] || fail "both ranks should print: $l"
done

# Without options nothing is set; the user's variables pass through untouched.
FARO_BIND_TO=none run 0 -n 1 "$PROBE" env $VARS
for v in FARO_MAP_BY FARO_CPUS_PER_RANK FARO_REPORT_BINDINGS FARO_TOPOLOGY OMP_NUM_THREADS OMP_PLACES; do
    expect_out "$v unset"
done
expect_out FARO_BIND_TO=none

# The option wins over the environment and -x; the user's OMP_* win over
# --cpus-per-rank's.
FARO_BIND_TO=none OMP_NUM_THREADS=7 run 0 -n 1 --bind-to core -x FARO_MAP_BY=numa \
    --map-by core:pack -x OMP_PLACES=threads --cpus-per-rank 2 "$PROBE" env $VARS
for l in FARO_BIND_TO=core FARO_MAP_BY=core:pack FARO_CPUS_PER_RANK=2 OMP_NUM_THREADS=7 \
         OMP_PLACES=threads "FARO_REPORT_BINDINGS unset"; do
    expect_out "$l"
done

# Open MPI / Hydra single-dash spellings.
run 0 -n 1 -map-by numa -bind-to socket -report-bindings "$PROBE" env $VARS
expect_out FARO_MAP_BY=numa
expect_out FARO_BIND_TO=socket
expect_out FARO_REPORT_BINDINGS=1

# ppr per socket, NUMA node, L3 cache or core is the library's (each host's
# topology); per node it is mpiexec's (-ppn), and the variable stays unset.
run 0 -n 1 --map-by ppr:2:socket "$PROBE" env FARO_MAP_BY
expect_out FARO_MAP_BY=ppr:2:socket
run 0 -n 1 --map-by ppr:1:l3 "$PROBE" env FARO_MAP_BY
expect_out FARO_MAP_BY=ppr:1:l3
run 0 -n 1 --map-by ppr:1:node "$PROBE" env FARO_MAP_BY
expect_out "FARO_MAP_BY unset"
run 0 -n 1 --map-by ppr:1:core --map-by core "$PROBE" env FARO_MAP_BY
expect_out FARO_MAP_BY=core
run 2 --map-by ppr:2:numa "$PROBE" env FARO_MAP_BY
expect_err "--map-by ppr:2:numa needs -n: mpiexec does not know the sockets, NUMA nodes, caches or cores of the hosts"
run 2 --dry-run --map-by ppr:2:numa
expect_err "--map-by ppr:2:numa needs -n"
run 2 -n 1 --map-by ppr:2:board true
expect_err "--map-by 'ppr:2:board': expected ppr:N:RESOURCE, N a whole number of ranks (1 or more) per node (host), socket (or package), numa, l3cache (or l3) or core"
run 2 -n 1 --map-by ppr:0:core true
expect_err "--map-by 'ppr:0:core': expected ppr:N:RESOURCE"

run 2 -n 1 --cpus-per-rank 0 true
expect_err "--cpus-per-rank '0': expected a whole number of cores"
run 2 -n 1 --cpus-per-rank two true
expect_err "--cpus-per-rank 'two'"
run 2 -n 1 --bind-to
expect_err "option --bind-to needs a value"
run 2 -n 1 --map-by
expect_err "option --map-by needs a value"
run 2 -n 1 --bind-too core true
expect_err "unknown option '--bind-too'"
expect_err "--bind-to"
run 2 -n 1 --report-binding true
expect_err "unknown option '--report-binding'"
echo PASS
