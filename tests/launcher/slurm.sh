#!/bin/sh
# Faro programs under Slurm. The test starts a single-node Slurm of its own
# (Debian's slurm-wlm with munge): munged, slurmctld and slurmd with their
# configuration, state, logs and munge key in a temporary directory, nothing
# of the system's touched, and on exit it ends the daemons it started (by
# their pids, nothing else) and removes the directory. Then, with each of
# srun --mpi=pmi2 and srun --mpi=pmix that `srun --mpi=list` offers:
#   - the ranks speak that protocol (FARO_VERBOSE=1 says which, and why),
#   - the PMI calls: put/fence/get across ranks, a fence that waits for a
#     late rank, the node map from Slurm,
#   - the core MPI programs of tests/launcher/testlist-managers over shm and
#     tcp, the crashes among them ending the job naming the rank,
#   - the name service: served under pmi2; under pmix Slurm does not serve
#     names, and MPI_Publish_name must say so,
#   - spawn: under pmi2 Slurm starts the children as a step of their own
#     (spawn_basic, spawn_nested, spawn_errors: bad input, a missing program
#     or directory, soft, path and wdir), and spawn_multiple's per-command
#     info, which Slurm would drop, is refused clearly; under pmix Slurm does
#     not spawn, and MPI_Comm_spawn must say so and what to use instead.
# And Faro's own mpiexec inside an allocation (salloc -N1 -n2, no host
# options): hosts and slots from the allocation, its proxy started by
# srun --overlap (the node is named faro-n1, not this machine's name, so
# mpiexec cannot tell it is here and goes through srun as on a cluster), a
# program and a spawn.
# It installs nothing. Without slurm-wlm and munge (apt-get install slurm-wlm
# munge, as scripts/faro-dev does), or where the daemons cannot run here, it
# prints SKIP with the reason and exits 77.
. "$(dirname "$0")/common.sh"
srcdir=${srcdir:-.}

skip() { echo "SKIP: $*"; exit 77; }

for c in slurmctld slurmd srun sinfo squeue scancel munged munge unmunge; do
    command -v "$c" >/dev/null 2>&1 ||
        skip "$c is not installed (apt-get install slurm-wlm munge)"
done

# Nothing of an outer Slurm job or launcher may leak into ours.
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\|PMIX\?_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done
unset FARO_PMI

dir=$(mktemp -d "${TMPDIR:-/tmp}/faro-slurm.XXXXXX") || fail "mktemp failed"
chmod 755 "$dir"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir/munge"
PIDS=
ctld=
cleanup() {
    if [ -n "$ctld" ]; then # end our cluster's jobs before its daemons
        timeout 10 scancel --quiet --full --signal=KILL --user "$(id -un)" 2>/dev/null
        i=0
        while [ $i -lt 50 ] && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do
            sleep 0.1
            i=$((i + 1))
        done
    fi
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -KILL "$p" 2>/dev/null
    done
    rm -rf "$dir"
    rm -f "$OUT".*
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The last lines of a daemon's log, for a SKIP or FAIL message.
log_tail() { tail -n 3 "$1" 2>/dev/null | tr '\n' ' ' | cut -c1-400; }

# munge, with a key of its own and its socket in the directory.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$dir/munge/munge.key"
sock=$dir/munge/socket
munged -F --force --socket="$sock" --key-file="$dir/munge/munge.key" \
    --log-file="$dir/log/munged.log" --pid-file="$dir/munge/pid" \
    --seed-file="$dir/munge/seed" >"$dir/log/munged.out" 2>&1 &
PIDS="$PIDS $!"
i=0
until munge -n -S "$sock" 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 50 ] || skip "munged cannot run here: $(log_tail "$dir/log/munged.out")"
    sleep 0.1
done

# Two TCP ports nobody listens on.
free_port() {
    while :; do
        p=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000))
        if command -v ss >/dev/null 2>&1; then
            ss -Htln "sport = :$p" 2>/dev/null | grep -q . && continue
        fi
        echo $p
        return
    done
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
[ "$slurmd_port" != "$ctld_port" ] || slurmd_port=$((ctld_port + 1))

host=$(hostname -s)
user=$(id -un)
cpus=$(nproc)
cat >"$dir/slurm.conf" <<EOF
# A one-node cluster for tests/launcher/slurm.sh; removed when the test ends.
ClusterName=farotest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=2
SlurmdParameters=config_overrides
NodeName=faro-n1 NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=faro Nodes=faro-n1 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF=$dir/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
ctld=$!
PIDS="$PIDS $ctld"
slurmd -D -f "$SLURM_CONF" -N faro-n1 >"$dir/log/slurmd.out" 2>&1 &
slurmd=$!
PIDS="$PIDS $slurmd"
i=0
until [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; do
    kill -0 $ctld 2>/dev/null ||
        skip "slurmctld cannot run here: $(log_tail "$dir/log/slurmctld.log") $(log_tail "$dir/log/slurmctld.out")"
    kill -0 $slurmd 2>/dev/null ||
        skip "slurmd cannot run here: $(log_tail "$dir/log/slurmd.log") $(log_tail "$dir/log/slurmd.out")"
    i=$((i + 1))
    [ $i -lt 300 ] || skip "the Slurm node did not become idle in 30 s (sinfo: $(sinfo -h -o '%T %E' 2>&1))"
    sleep 0.1
done
# Slurm itself must start a plain program before Faro's part means anything.
out=$(timeout 60 srun -n 1 true 2>&1) ||
    skip "srun cannot start a program here: $out $(log_tail "$dir/log/slurmd.log")"

# Faro's mpiexec in an allocation: -n, hosts and slots from Slurm; the
# proxy of node faro-n1 started by srun --overlap beside the allocation's
# own step; the ranks on PMI-1 from that proxy.
timeout 60 salloc -N1 -n2 "$MPIEXEC" -v tests/mpi/hello >"$OUT.out" 2>"$OUT.err" </dev/null ||
    fail "salloc -N1 -n2 mpiexec -v tests/mpi/hello: exit code $?"
expect_out "hello: OK (2 ranks)"
expect_err "mpiexec: host faro-n1: ranks 0-1"
expect_err "mpiexec: host faro-n1: starting srun --nodes=1 --ntasks=1 --nodelist=faro-n1 --overlap"
SPAWN_CHILDREN=2 timeout 60 salloc -N1 -n2 "$MPIEXEC" -n 2 tests/mpi/spawn_basic \
    >"$OUT.out" 2>"$OUT.err" </dev/null ||
    fail "salloc -N1 -n2 mpiexec -n 2 tests/mpi/spawn_basic: exit code $?"
expect_out "spawn_basic: OK (2 ranks)"
# Under MpiDefault=pmi2 (SLURM_MPI_TYPE here) srun must not serve the proxy
# PMI: its ranks inherited PMI_JOBID and tried PMI-2 before PMI-1.
SLURM_MPI_TYPE=pmi2 timeout 60 salloc -N1 -n2 "$MPIEXEC" -v tests/mpi/hello \
    >"$OUT.out" 2>"$OUT.err" </dev/null ||
    fail "SLURM_MPI_TYPE=pmi2 salloc -N1 -n2 mpiexec -v tests/mpi/hello: exit code $?"
expect_out "hello: OK (2 ranks)"
expect_err "faro: rank 0: info: process manager: pmi1, because PMI_FD is set (mpiexec, Hydra)"
echo "mpiexec in salloc -N1 -n2: hello and spawn_basic passed"

mpis=$(srun --mpi=list 2>&1 | sed -n 's/^[[:space:]]\{1,\}\(pmi2\|pmix\)$/\1/p' | sort -u)
[ -n "$mpis" ] || skip "this Slurm offers neither pmi2 nor pmix (srun --mpi=list: $(srun --mpi=list 2>&1 | tr '\n' ' '))"
have_pmix=no
grep -q '^#define FARO_HAVE_PMIX 1' config.h 2>/dev/null && have_pmix=yes

# srun_run MPI ok|fail ARGS...: srun with that plugin; exit code 0 (ok) or
# not 0 (fail); stdout and stderr in $OUT.out/.err.
srun_run() {
    mpi=$1 want=$2
    shift 2
    timeout 60 srun --mpi="$mpi" -O "$@" >"$OUT.out" 2>"$OUT.err" </dev/null
    rc=$?
    if [ "$want" = ok ] && [ $rc -ne 0 ]; then fail "srun --mpi=$mpi $*: exit code $rc"; fi
    if [ "$want" = fail ] && [ $rc -eq 0 ]; then fail "srun --mpi=$mpi $*: exit code 0, expected a failure"; fi
}

for mpi in $mpis; do
    if [ $mpi = pmix ] && [ $have_pmix = no ]; then
        # A build without PMIx must say so, not start N singletons.
        srun_run pmix fail -n 2 tests/mpi/hello
        expect_err "but this Faro was built without PMIx"
        echo "srun --mpi=pmix: refused clearly (this Faro has no PMIx client)"
        continue
    fi
    FARO_VERBOSE=1 srun_run $mpi ok -n 2 tests/mpi/hello
    expect_err "faro: rank 1: info: process manager: $mpi, because"
    expect_out "hello: OK (2 ranks)"

    srun_run $mpi ok -n 3 "$PROBE" kvs
    [ "$(grep -c 'kvs ok' "$OUT.out")" -eq 3 ] || fail "srun --mpi=$mpi: not every rank passed the kvs probe"
    expect_out "rank 2: protocol $mpi"
    srun_run $mpi ok -n 3 "$PROBE" barrier 1 2
    [ "$(grep -c 'barrier ok' "$OUT.out")" -eq 3 ] || fail "srun --mpi=$mpi: a barrier did not wait"
    srun_run $mpi ok -n 3 "$PROBE" nodemap
    expect_out "rank 0: nodemap 0 0 0"

    # -K (--kill-on-bad-exit): a rank that dies ends the step, as clusters
    # configure it (KillOnBadExit=1); Slurm's default lets the others run on.
    "$srcdir/tests/mpi/run-testlist" --mpiexec "srun --mpi=$mpi -O -K" --bindir tests/mpi \
        --config shm,tcp "$srcdir/tests/launcher/testlist-managers" >"$OUT.list" 2>&1 ||
        fail "srun --mpi=$mpi: MPI test list: $(tail -n 1 "$OUT.list")"
    echo "srun --mpi=$mpi: $(tail -n 1 "$OUT.list")"

    if [ $mpi = pmi2 ]; then
        srun_run pmi2 ok -n 3 tests/mpi/dyn_names
        expect_out "dyn_names: OK (3 ranks)"
    else
        srun_run pmix fail -n 2 tests/mpi/dyn_names
        expect_err "does not serve names"
    fi

    # Spawned steps need CPUs of the job while their parents hold theirs:
    # SLURM_OVERLAP=1 (srun --overlap, inherited by the sruns Slurm starts
    # for the spawns) lets the steps share them.
    if [ $mpi = pmi2 ]; then
        start=$(date +%s)
        SLURM_OVERLAP=1 SPAWN_CHILDREN=2 srun_run pmi2 ok -n 2 tests/mpi/spawn_basic
        expect_out "spawn_basic: OK (2 ranks)"
        SLURM_OVERLAP=1 srun_run pmi2 ok -n 2 tests/mpi/spawn_nested
        expect_out "spawn_nested: OK (2 ranks)"
        SLURM_OVERLAP=1 srun_run pmi2 ok -n 2 tests/mpi/spawn_errors
        expect_out "spawn_errors: OK (2 ranks)"
        SLURM_OVERLAP=1 srun_run pmi2 fail -n 1 tests/mpi/spawn_multiple
        expect_err "Slurm's srun --mpi=pmi2 ignores the info of MPI_Comm_spawn_multiple"
        echo "srun --mpi=pmi2: spawn passed ($(( $(date +%s) - start )) s)"
    else
        SPAWN_NO_MANAGER="Slurm's srun --mpi=pmix does not start processes over pmix: spawn under Faro's mpiexec" \
            srun_run pmix ok -n 1 tests/mpi/spawn_errors
        expect_out "spawn_errors: OK (1 ranks)"
    fi
done
echo PASS
