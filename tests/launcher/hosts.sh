#!/bin/sh
# Jobs on several hosts, all of them this machine (-launcher fork, or agents
# that run the command here): host lists and files, placement, the agents'
# command lines, a Slurm allocation (with a stand-in srun), exit codes,
# aborts, signals, a lost proxy, stdin, tagged output, the environment
# forwarded, the working directory, the launch tree. Needs no root: the
# namespace hosts are multihost.sh's.
. "$(dirname "$0")/common.sh"
F="-launcher fork"
# On the way out (a failed check included): no stopped proxy, no job left.
trap '[ -n "${proxy:-}" ] && kill -CONT $proxy 2>/dev/null; [ -n "${pid:-}" ] && kill $pid 2>/dev/null
      rm -rf "$OUT".*' EXIT
# bg_job ARGS...: mpiexec ARGS over fork hosts in the background; sets pid, and
# proxy to host b's proxy (--id 1) a second later.
bg_job() {
    "$MPIEXEC" $F "$@" >"$OUT.out" 2>"$OUT.err" &
    pid=$!
    sleep 1
    proxy=$(ps -o pid=,args= --ppid $pid | awk '/faro_proxy .*--id 1( |$)/ { print $1 }')
    [ -n "$proxy" ] || fail "no proxy of host b"
}

# Placement: slots fill in turn; -n defaults to the slots.
run 0 $F -hosts a,b:2 -l "$PROBE" env FARO_HOSTNAME MPI_LOCALRANKID MPI_LOCALNRANKS PMI_SIZE
for l in "[0] FARO_HOSTNAME=a" "[1] FARO_HOSTNAME=b" "[2] FARO_HOSTNAME=b" "[2] MPI_LOCALRANKID=1" \
         "[1] MPI_LOCALNRANKS=2" "[0] MPI_LOCALNRANKS=1" "[2] PMI_SIZE=3"; do
    expect_out "$l"
done
run 0 $F -host a,b --map-by node -n 4 -l "$PROBE" env FARO_HOSTNAME
for l in "[0] FARO_HOSTNAME=a" "[1] FARO_HOSTNAME=b" "[2] FARO_HOSTNAME=a" "[3] FARO_HOSTNAME=b"; do
    expect_out "$l"
done
run 0 $F -hosts a,b -ppn 2 -n 5 -l "$PROBE" env FARO_HOSTNAME
for l in "[1] FARO_HOSTNAME=a" "[2] FARO_HOSTNAME=b" "[4] FARO_HOSTNAME=a"; do
    expect_out "$l"
done
# Open MPI's spellings: -H for the hosts, -npernode for -ppn; --map-by slot
# alone is the default placement (not an affinity policy).
run 0 $F -H a,b:2 -l "$PROBE" env FARO_HOSTNAME PMI_SIZE
for l in "[0] FARO_HOSTNAME=a" "[1] FARO_HOSTNAME=b" "[2] FARO_HOSTNAME=b" "[0] PMI_SIZE=3"; do
    expect_out "$l"
done
run 0 $F -H a,b -npernode 2 -l "$PROBE" env FARO_HOSTNAME PMI_SIZE
for l in "[1] FARO_HOSTNAME=a" "[2] FARO_HOSTNAME=b" "[3] FARO_HOSTNAME=b" "[3] PMI_SIZE=4"; do
    expect_out "$l"
done
run 0 $F -hosts a:2,b:2 --map-by slot -n 3 -l "$PROBE" env FARO_HOSTNAME FARO_MAP_BY
for l in "[1] FARO_HOSTNAME=a" "[2] FARO_HOSTNAME=b" "[2] FARO_MAP_BY unset"; do
    expect_out "$l"
done
run 0 --map-by slot -n 2 -l "$PROBE" env PMI_SIZE FARO_MAP_BY
expect_out "[1] PMI_SIZE=2"
expect_out "[1] FARO_MAP_BY unset"
run 2 -npernode 0 -H a true
expect_err "-npernode '0': expected a whole number of ranks per host, 1 or more"

# Host files: Hydra's and Open MPI's lines, comments; -n from the slots.
printf '# test hosts\na:2   # Hydra\n\nb slots=1 max_slots=4\n' >"$OUT.hosts"
run 0 $F -f "$OUT.hosts" -l "$PROBE" env FARO_HOSTNAME PMI_SIZE
expect_out "[1] FARO_HOSTNAME=a"
expect_out "[2] FARO_HOSTNAME=b"
expect_out "[2] PMI_SIZE=3"
run 0 $F -machinefile "$OUT.hosts" --map-by ppr:1:node -l "$PROBE" env FARO_HOSTNAME
expect_out "[1] FARO_HOSTNAME=b"

run 2 -hosts 'a:0' true
expect_err "mpiexec: -hosts: 'a:0': the count after ':' must be a whole number from 1"
run 2 -hostfile "$OUT.none" true
expect_err "cannot read host file $OUT.none"
printf 'a cpus=2\n' >"$OUT.hosts"
run 2 --hostfile "$OUT.hosts" true
expect_err "$OUT.hosts:1: unknown 'cpus=2' after the host name"
run 2 -hosts a -launcher telnet true
expect_err "expected ssh, rsh, slurm or fork"
run 2 -hosts a --map-by ppr:x:node true
expect_err "expected ppr:N:RESOURCE"

# What would start the proxies (nothing runs).
run 0 --dry-run -hosts a,b:3 -n 5 ./prog
expect_out "host a: ranks 0,4; proxy started by: ssh -x -o BatchMode=yes a $(pwd)/faro_proxy --parent ADDRESS:PORT --id 0"
expect_out "host b: ranks 1-3; proxy started by: ssh -x -o BatchMode=yes b $(pwd)/faro_proxy --parent ADDRESS:PORT --id 1"
expect_out "PMI_process_mapping: (vector,(0,1,1),(1,1,3))"
run 0 --dry-run -hosts a -launcher rsh ./prog
expect_out "host a: ranks 0; proxy started by: rsh a $(pwd)/faro_proxy --parent ADDRESS:PORT --id 0"
run 0 --dry-run -hosts a -launcher slurm --proxy-path '/opt/my faro/faro_proxy' ./prog
expect_out "host a: ranks 0; proxy started by: srun --nodes=1 --ntasks=1 --nodelist=a --overlap --cpu-bind=none --mpi=none --quiet /opt/my faro/faro_proxy --parent ADDRESS:PORT --id 0"
run 0 --dry-run -hosts a -launcher-exec 'my-agent -q' --proxy-path '/opt/my faro/faro_proxy' ./prog
expect_out "host a: ranks 0; proxy started by: my-agent -q a '/opt/my faro/faro_proxy' --parent ADDRESS:PORT --id 0"

# Inside a Slurm allocation: its nodes and task counts, started by srun (a
# stand-in here, which runs the command on this machine).
mkdir -p "$OUT.bin"
cat >"$OUT.bin/srun" <<EOF
#!/bin/sh
echo "srun \$*" >>"$OUT.srun"
while [ \$# -gt 0 ]; do case \$1 in --*) shift ;; *) break ;; esac; done
exec "\$@"
EOF
chmod +x "$OUT.bin/srun"
# (FARO_TCP_IF=lo: the nodes n1 and n2 are not this machine's name, so the
# links would otherwise take this machine's own network address.)
PATH=$OUT.bin:$PATH SLURM_JOB_ID=42 SLURM_JOB_NODELIST='n[1-2]' SLURM_TASKS_PER_NODE='2(x2)' \
    FARO_TCP_IF=lo run 0 -l "$PROBE" env FARO_HOSTNAME PMI_SIZE
expect_out "[1] FARO_HOSTNAME=n1"
expect_out "[2] FARO_HOSTNAME=n2"
expect_out "[3] PMI_SIZE=4"
grep -q -- "--nodelist=n2 " "$OUT.srun" || fail "srun was not asked for node n2: $(cat "$OUT.srun")"

# Exit codes, aborts and signals name the host.
run 7 $F -hosts a,b -n 4 "$PROBE" exit 3 7
expect_err " on b) exited with code 7; ending the job"
expect_err "mpiexec: rank 3 (pid "
run 5 $F -hosts a,b -n 4 "$PROBE" abort 2 5
expect_err "mpiexec: rank 2 on a called MPI_Abort (code 5): probe gave up on purpose"
run 137 $F -hosts a,b -n 4 "$PROBE" signal 1 9
expect_err " on b) was killed by signal 9 (Killed); ending the job"
run 1 $F -hosts a,b -n 2 "$PROBE" nofinalize 1
expect_err "without calling MPI_Finalize"
# A rank that lost contact with a rank of another host: that rank's own end,
# reported through its proxy within a heartbeat, is the verdict; without
# one, after the heartbeat, the report (hosts a: ranks 0, 2; b: ranks 1, 3).
run 137 $F -hosts a,b -n 4 "$PROBE" lost 0 58 3 300
expect_err "mpiexec: rank 3 (pid "
expect_err " on b) was killed by signal 9 (Killed); ending the job"
run 58 $F -hosts a,b -n 4 "$PROBE" lost 2 58 1
expect_err "mpiexec: rank 2 on a ended the job (code 58): probe lost its peer on purpose (no end of rank 1 on b was reported within 1500 ms)"
run 124 $F -hosts a,b --timeout 1 "$PROBE" sleep 20
expect_err "job timed out after 1 seconds"
run 127 $F -hosts a,b ./faro-no-such-program
expect_err "cannot execute './faro-no-such-program'"

"$MPIEXEC" $F -hosts a,b -n 4 "$PROBE" sleep 22 >"$OUT.out" 2>"$OUT.err" &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
[ $? -eq 143 ] || fail "SIGTERM to mpiexec with hosts: exit code, expected 143"
sleep 0.5
ps -eo args | grep -q '^[^ ]*pmi_probe sleep 22' && fail "ranks survived a SIGTERM to mpiexec"

# A lost proxy ends the job at once, naming its host and ranks.
bg_job -hosts a,b,c -ppn 2 "$PROBE" sleep 23
kill -9 $proxy
wait $pid
[ $? -eq 255 ] || fail "a killed proxy: exit code, expected 255"
expect_err "mpiexec: lost host b (ranks 2-3): its proxy's connection closed (the proxy died or was killed); ending the job"
sleep 0.5
ps -eo args | grep -q '^[^ ]*pmi_probe sleep 23' && fail "ranks survived a lost host"

# A job of sleeping ranks costs mpiexec and its proxies next to no CPU: they
# wait in poll() (an expired output-drain deadline once made mpiexec spin).
bg_job -hosts a,b,c -n 3 "$PROBE" sleep 4
sleep 2.5
ticks=0
for p in $pid $(ps -o pid= --ppid $pid); do
    [ -r /proc/$p/stat ] && ticks=$((ticks + $(awk '{ print $14 + $15 }' /proc/$p/stat)))
done
wait $pid
[ $ticks -le 30 ] || fail "mpiexec and its proxies used $ticks clock ticks in 3.5 s of a sleeping job"

# A proxy not scheduled for three times the heartbeat (a host loaded far past
# its cores) is not lost: its kernel still acknowledges the heartbeats. One
# that stays stopped is, after 20 heartbeat times.
bg_job -hosts a,b --heartbeat 0.5 -n 4 "$PROBE" sleep 4
kill -STOP $proxy
sleep 1.5
kill -CONT $proxy
wait $pid
[ $? -eq 0 ] || fail "a proxy stopped for 1.5 s (heartbeat 0.5 s) ended the job"
bg_job -hosts a,b --heartbeat 0.3 -n 4 "$PROBE" sleep 24
kill -STOP $proxy
wait $pid
rc=$?
kill -CONT $proxy
[ $rc -eq 255 ] || fail "a stopped proxy: exit code $rc, expected 255"
expect_err "mpiexec: lost host b (ranks 1,3): no message from its proxy for 6.0 s, though its host answers (the proxy is stopped or hangs)"
sleep 1
ps -eo args | grep -q '^[^ ]*pmi_probe sleep 24' && fail "ranks survived their stopped proxy"

# stdin reaches rank 0 through its proxy; output is whole lines, tagged.
printf 'twelve bytes' | timeout 30 "$MPIEXEC" $F -hosts a,b -n 3 -l "$PROBE" stdin >"$OUT.out" 2>"$OUT.err" ||
    fail "stdin job failed"
expect_out "[0] stdin 12 bytes"
expect_out "[1] stdin 0 bytes"
head -c 300000 /dev/zero | timeout 30 "$MPIEXEC" $F -hosts a,b -n 2 -l "$PROBE" stdin >"$OUT.out" 2>"$OUT.err" ||
    fail "stdin job of 300000 bytes failed"
expect_out "[0] stdin 300000 bytes"
run 0 $F -hosts a,b -n 4 -l "$PROBE" lines 100
[ "$(wc -l <"$OUT.out")" -eq 400 ] || fail "expected 400 lines"
bad=$(awk '{ r = substr($1, 2, 1); c = substr("abcd", r + 1, 1);
             if (length($2) != 2999 || $2 !~ ("^" c "+$")) n++ } END { print n + 0 }' "$OUT.out")
[ "$bad" -eq 0 ] || fail "$bad lines were mixed or cut"
run 0 $F -hosts a,b --tag-host sh -c 'echo "out $PMI_RANK"; echo "err $PMI_RANK" >&2'
expect_out "[1@b] out 1"
grep -qxF "[0@a] err 0" "$OUT.err" || fail "stderr lacks [0@a] err 0"
run 0 $F -hosts a,b -prepend-pattern '%h:%r%%> ' sh -c 'echo hi'
expect_out "b:1%> hi"

# The environment: all of it by default, as much as asked otherwise (an agent
# that starts the command with a login's environment only, as ssh does).
cat >"$OUT.agent" <<'EOF'
#!/bin/sh
shift
exec env -i PATH="$PATH" HOME="${HOME:-/}" sh -c "$*"
EOF
chmod +x "$OUT.agent"
A="-launcher-exec $OUT.agent -hosts a,b"
export FARO_T_A=one FARO_T_B=two
run 0 $A -l "$PROBE" env FARO_T_A FARO_T_B
expect_out "[1] FARO_T_A=one"
expect_out "[1] FARO_T_B=two"
run 0 $A -envnone -x FARO_T_B -l "$PROBE" env FARO_T_A FARO_T_B
expect_out "[1] FARO_T_A unset"
expect_out "[1] FARO_T_B=two"
run 0 $A -envlist FARO_T_A -l "$PROBE" env FARO_T_A FARO_T_B
expect_out "[0] FARO_T_A=one"
expect_out "[0] FARO_T_B unset"
run 0 $A -envnone -envall -l "$PROBE" env FARO_T_A FARO_T_B
expect_out "[1] FARO_T_A=one"
expect_out "[1] FARO_T_B=two"

# A proxy that cannot start its ranks (here: too few file descriptors) fails
# the job naming its host and why.
printf '#!/bin/sh\nshift\nexec sh -c "ulimit -n 16; $*"\n' >"$OUT.lowfd"
chmod +x "$OUT.lowfd"
FARO_TCP_IF=lo run 255 -launcher-exec "$OUT.lowfd" -hosts a -n 4 "$PROBE" kvs
expect_err "mpiexec: lost host a (ranks 0-3): faro_proxy on a: cannot create the descriptors of rank 2: Too many open files"

# The working directory: this one by default, -wdir when given.
here=$(pwd)
run 0 $F -hosts a,b -l pwd
expect_out "[1] $here"
run 0 $F -hosts a,b -wdir / -l pwd
expect_out "[1] /"
run 0 $F -hosts a,b --wdir /tmp -l pwd
expect_out "[1] /tmp"
run 126 $F -hosts a,b -wdir "$OUT.nodir" pwd
expect_err "cannot change to the working directory $OUT.nodir"
# ... and without hosts (-wdir was ignored there)
run 0 -wdir / -n 2 -l pwd
expect_out "[1] /"
run 0 --wdir /tmp -n 1 pwd
expect_out "/tmp"
run 126 -wdir "$OUT.nodir" pwd
expect_err "cannot change to the working directory $OUT.nodir"

# The launch tree: proxies start proxies; -v reports the key-value exchange.
run 0 $F -hosts a,b,c,d,e --tree-width 2 -v -l "$PROBE" kvs
expect_out "[4] rank 4 of 5: kvs ok (kvsname $(sed -n 's/^\[0\] rank 0 of 5: kvs ok (kvsname \([^,]*\),.*/\1/p' "$OUT.out"), keylen 256, vallen 1024)"
expect_err "faro_proxy on a: host b: starting"
expect_err "key-value exchange: 2 fence(s) moved"
# -v: rank 0 (only) of an MPI program says which protocol the ranks speak
# and which interface tcp uses (with hosts and without).
if [ -x tests/mpi/hello ]; then
    FARO_TCP_IF=lo run 0 $F -hosts a,b -v tests/mpi/hello
    expect_err "faro: rank 0: info: process manager: pmi1, because PMI_FD is set"
    expect_err "faro: rank 0: info: tcp: interface lo "
    ! grep -q "faro: rank [1-9]" "$OUT.err" || fail "-v: a rank other than 0 reported"
    run 0 -v -n 2 tests/mpi/hello
    expect_err "faro: rank 0: info: process manager: pmi1, because PMI_FD is set"
fi

# The name service is the job's, not a host's: a name published by a rank on
# one host is found by ranks on the others (it was per host: lookup failed).
if [ -x tests/mpi/dyn_names ]; then
    run 0 $F -hosts a,b,c -n 3 tests/mpi/dyn_names
    expect_out "dyn_names: OK (3 ranks)"
fi
echo PASS
