#!/bin/sh
# Dynamic processes where the test lists cannot go: across hosts (fork hosts
# a, b, c: this machine under three node names, so parents and children
# meet on tcp and the node-aware collectives group processes of two jobs by
# host), MPI_UNIVERSE_SIZE as mpiexec works it out, a spawn on a host that
# cannot be reached (it fails alone), a spawned rank killed on another host
# (named with its job and host), MPICH's Hydra as the process manager, and a
# singleton (nothing to spawn with). Every run has a time limit, so nothing
# hangs. Run from the top build directory (automake does).
MPIEXEC=${MPIEXEC:-./mpiexec}
T=tests/mpi
DIR=${TMPDIR:-/tmp}/faro-spawn-jobs-$$
trap 'rm -rf "$DIR"' EXIT
for p in "$MPIEXEC" $T/spawn_basic $T/spawn_multiple $T/spawn_nested $T/spawn_errors \
         $T/spawn_fail $T/spawn_names; do
    [ -x "$p" ] || { echo "ERROR: $p is not built (make check builds it)" >&2; exit 99; }
done
mkdir -p "$DIR"
status=0

# run NAME WANT_RC [GREP] -- COMMAND...: the command's exit code must be
# WANT_RC (!0: any but 0 and the time limit's), and its stderr must hold GREP
# when given.
run() {
    name=$1 want=$2 pat=$3
    shift 4
    timeout -k 5 120 "$@" >"$DIR/out" 2>"$DIR/err" </dev/null
    rc=$?
    if { [ $rc = "$want" ] || { [ "$want" = '!0' ] && [ $rc != 0 ] && [ $rc != 124 ]; }; } &&
       { [ -z "$pat" ] || grep -qF -- "$pat" "$DIR/err"; }; then
        echo "PASS $name"
    else
        echo "FAIL $name: exit $rc (wanted $want)${pat:+, stderr should say: $pat}"
        echo "    command: $*"
        tail -n 15 "$DIR/out" "$DIR/err" | sed 's/^/    | /'
        status=1
    fi
}

F="-launcher fork"
# Across hosts: the children take the free slots (b and c here), then
# spread; parents and children merge and reduce over the node map.
# A spawned job's mpiexec takes the first one's options: -genv VAR=VALUE is
# one word there too (counted as three, it took -n and lost the rest).
run genv-one-word 0 "" -- "$MPIEXEC" -genv GENV_T=x -n 2 $T/spawn_basic
run hosts-basic 0 "" -- "$MPIEXEC" $F -hosts a:2,b:2,c:2 -n 2 $T/spawn_basic
run hosts-basic-3 0 "" -- "$MPIEXEC" $F -hosts a,b,c -n 3 $T/spawn_basic
run hosts-tcp 0 "" -- env FARO_TRANSPORTS=tcp "$MPIEXEC" $F -hosts a,b -n 2 $T/spawn_basic
# requests of ranks behind a proxy's proxy go up two levels, answers come down
run hosts-tree 0 "" -- "$MPIEXEC" $F -hosts a,b,c,d,e --tree-width 2 -n 5 $T/spawn_basic
run hosts-multiple 0 "" -- "$MPIEXEC" $F -hosts a,b,c -n 2 $T/spawn_multiple
run hosts-nested 0 "" -- "$MPIEXEC" $F -hosts a:2,b:2 -n 2 $T/spawn_nested
run hosts-names 0 "" -- "$MPIEXEC" $F -hosts a,b,c -n 2 $T/spawn_names
# (137 and "rank 1 of spawned job 1 (pid N on c) was killed", or, when the
# child's rank 0 notices the lost connection first, its abort: "rank 0 of
# spawned job 1 on b called MPI_Abort (code 58): lost contact with rank 1")
run hosts-killed '!0' "of spawned job 1" -- env SPAWN_FAIL=kill "$MPIEXEC" $F \
    -hosts a,b,c -n 1 $T/spawn_fail
# Inside a Slurm allocation (a stand-in srun that runs the command here):
# spawned jobs start their proxies with srun too.
mkdir -p "$DIR/bin"
cat >"$DIR/bin/srun" <<EOF
#!/bin/sh
echo "srun \$*" >>"$DIR/srun.log"
while [ \$# -gt 0 ]; do case \$1 in --*) shift ;; *) break ;; esac; done
exec "\$@"
EOF
chmod +x "$DIR/bin/srun"
run slurm 0 "" -- env PATH="$DIR/bin:$PATH" SLURM_JOB_ID=42 SLURM_JOB_NODELIST='n[1-2]' \
    SLURM_TASKS_PER_NODE='2(x2)' FARO_TCP_IF=lo "$MPIEXEC" -n 1 $T/spawn_basic
n=$(grep -c "faro_proxy" "$DIR/srun.log" 2>/dev/null)
[ "${n:-0}" -ge 4 ] || { echo "FAIL slurm: srun started ${n:-0} proxies; the spawned jobs' need it too"; status=1; }
# an agent that reaches every host but "unreachable"
cat >"$DIR/agent" <<'EOF'
#!/bin/sh
host=$1; shift
[ "$host" = unreachable ] && { echo "agent: no route to host $host" >&2; exit 255; }
exec "$@"
EOF
chmod +x "$DIR/agent"
run unreachable-host 0 "agent: no route to host unreachable" -- env SPAWN_BAD_HOST=unreachable \
    "$MPIEXEC" -launcher-exec "$DIR/agent" -hosts a,b -n 2 $T/spawn_errors

# MPI_UNIVERSE_SIZE: -usize, MPIEXEC_UNIVERSE_SIZE, the slots of the hosts
# (at least -n); without hosts not set (as under Hydra)
run usize-option 0 "" -- env SPAWN_UNIVERSE=7 "$MPIEXEC" -usize 7 -n 1 $T/spawn_basic
run usize-env 0 "" -- env SPAWN_UNIVERSE=5 MPIEXEC_UNIVERSE_SIZE=5 "$MPIEXEC" -n 1 \
    $T/spawn_basic
run usize-slots 0 "" -- env SPAWN_UNIVERSE=5 "$MPIEXEC" $F -hosts a:2,b:3 -n 1 $T/spawn_basic
run usize-slots-n 0 "" -- env SPAWN_UNIVERSE=3 "$MPIEXEC" $F -hosts a,b -n 3 $T/spawn_basic
run usize-unset 0 "" -- env SPAWN_UNIVERSE=-1 "$MPIEXEC" -n 2 $T/spawn_basic
run usize-bad 2 "MPIEXEC_UNIVERSE_SIZE='x'" -- env MPIEXEC_UNIVERSE_SIZE=x "$MPIEXEC" -n 1 true

# Hydra serves PMI-1's spawn command too (MPI_UNIVERSE_SIZE only with -usize)
if command -v mpiexec.mpich >/dev/null 2>&1; then
    run hydra 0 "" -- mpiexec.mpich -n 2 $T/spawn_basic
    run hydra-usize 0 "" -- env SPAWN_UNIVERSE=6 mpiexec.mpich -usize 6 -n 1 $T/spawn_basic
    # Hydra's PMI-2 server can hang a spawn's jobs: refused, naming PMI-1
    # (spawn_basic with 2 parents hung before)
    run hydra-pmi2 0 "" -- env FARO_PMI=pmi2 SPAWN_NO_MANAGER="spawn over PMI-1, Hydra's default" \
        mpiexec.mpich -n 2 $T/spawn_errors
else
    echo "SKIP hydra: no mpiexec.mpich"
fi

# A singleton has no process manager to start processes with (SPAWN_NO_MANAGER=
# says so in the message; a value: that text). Spawn under srun and Open
# MPI's mpirun: tests/launcher/slurm.sh and openmpi.sh.
run singleton 0 "" -- env SPAWN_NO_MANAGER= $T/spawn_errors
[ $status = 0 ] && echo PASS
exit $status
