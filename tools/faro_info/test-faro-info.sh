#!/bin/sh
# Checks faro_info against the tunables table: every tunable is listed, a set
# value shows up, a bad value exits 1 with the library's message, the
# transports section names every compiled-in transport, --parsable and
# --prefix answer for scripts, and --man matches the generated
# man/faro-tunables.7. Run from the top of the build tree.
#   exit 0 pass, 1 fail, 99 hard error

srcdir=${srcdir:-.}
info=./faro_info
[ -x "$info" ] || { echo "ERROR: $info is missing; run make first" >&2; exit 99; }
defs="$srcdir/src/runtime/tunables.def $srcdir/base/pmi_tunables.def $srcdir/transports/*/*_tunables.def $srcdir/affinity/affinity_tunables.def $srcdir/coll/coll_tunables.def $srcdir/tools/tools_tunables.def"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# Start clean: a stray FARO_* of the caller would change the output.
for v in $(env | sed -n 's/^\(FARO_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

out=$("$info" --all) || fail "faro_info --all exited $?"
# shellcheck disable=SC2086
for id in $(cat $defs | sed -n 's/^FARO_TUNABLE(\([A-Z0-9_]*\),.*/\1/p'); do
    echo "$out" | grep -q "^  FARO_$id = " || fail "FARO_$id is not listed"
done
echo "$out" | grep -q "^Faro " || fail "no version line"
# The process manager protocol MPI_Init would speak, and why.
echo "$out" | grep -q "^  here: singleton, because no process manager" ||
    fail "the process manager protocol is not shown (singleton here)"
out2=$(FARO_PMI=pmi2 "$info" --pmi)
echo "$out2" | grep -q "^  here: pmi2, because FARO_PMI=pmi2" || fail "FARO_PMI=pmi2 not shown: $out2"
echo "$out" | grep -q "^  self  *usable" || fail "the self transport is not shown usable"
for tp in shm tcp; do
    echo "$out" | grep -Eq "^  $tp  *(usable|unusable: .)" || fail "transport $tp is not reported"
done

# ofi, when built: its line, the providers it found and which one it chose.
if echo "$out" | grep -q "ofi transport built"; then
    echo "$out" | grep -Eq "^  ofi  *(usable|unusable: .)" || fail "transport ofi is not reported"
    if echo "$out" | grep -q "^  ofi  *usable"; then
        echo "$out" | grep -Eq "^      found: +provider .*, domain .*: " ||
            fail "ofi is usable but faro_info does not say which provider it chose"
        echo "$out" | grep -Eq "^ {19}[^ ]+: qualifies" ||
            fail "ofi is usable but no provider is listed as qualifying"
    fi
    err=$(FARO_OFI_PROVIDER=no-such-provider "$info" --transports)
    echo "$err" | grep -q "^  ofi  *unusable: FARO_OFI_PROVIDER=no-such-provider: no such provider here" ||
        fail "an unknown FARO_OFI_PROVIDER is not reported: $(echo "$err" | grep "  ofi ")"
fi

# verbs, when built: usable with the device it chose, or one line saying why not
# (on a machine whose kernel has no RDMA: that, naming the sysfs class).
if echo "$out" | grep -q "verbs transport built"; then
    echo "$out" | grep -Eq "^  verbs  *(usable|unusable: .)" || fail "transport verbs is not reported"
    if echo "$out" | grep -q "^  verbs  *usable"; then
        echo "$out" | grep -Eq "^ +chosen: .* port [0-9]+, address " ||
            fail "verbs is usable but faro_info does not say which device port it chose"
    elif [ ! -e /sys/class/infiniband_verbs ]; then
        echo "$out" | grep -q "^  verbs  *unusable: no RDMA device: this kernel offers no RDMA to programs (/sys/class/infiniband_verbs does not exist" ||
            fail "verbs: the reason does not say that the kernel has no RDMA: $(echo "$out" | grep "^  verbs ")"
    fi
fi

out=$(FARO_EAGER_LIMIT=16k "$info" --tunables) || fail "a good value was refused"
echo "$out" | grep -q "^  FARO_EAGER_LIMIT = 16k (16384 bytes)   \[set" || fail "FARO_EAGER_LIMIT=16k not shown as set"

err=$(FARO_WAIT_POLICY=fast "$info" --tunables 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] || fail "a bad value exited $rc, not 1"
case $err in
    *"FARO_WAIT_POLICY=fast is invalid: expected one of spin, yield, auto"*) ;;
    *) fail "unexpected message for a bad value: $err" ;;
esac

# --mpit: the MPI_T variables by category, as the interface gives them.
out=$("$info" --mpit) || fail "faro_info --mpit exited $?"
echo "$out" | grep -q "^MPI_T: [0-9]* control variables, [0-9]* performance variables" ||
    fail "faro_info --mpit has no summary line"
echo "$out" | grep -q "^    cvar FARO_CC (constant)$" || fail "faro_info --mpit: FARO_CC not constant under tools"
echo "$out" | grep -q "^      pvar p2p_eager_sent (counter)$" || fail "faro_info --mpit: no p2p_eager_sent under core > p2p"

# A transport list MPI_Init would refuse is refused here too, with its message.
err=$(FARO_TRANSPORTS=shm,nosuch "$info" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] || fail "FARO_TRANSPORTS=shm,nosuch exited $rc, not 1"
case $err in
    *"FARO_TRANSPORTS=shm,nosuch: unknown transport 'nosuch' (built in: self, shm, tcp"*) ;;
    *) fail "unexpected message for an unknown transport: $err" ;;
esac

# ... and so is a list that leaves two processes of this node no transport
# (MPI_Init of 2 ranks fails: "no transport reaches rank 0"): self alone, or
# verbs where it is unusable. --transports still shows why, then fails.
err=$(FARO_TRANSPORTS=self "$info" --tunables 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] || fail "FARO_TRANSPORTS=self exited $rc, not 1"
case $err in
    *"FARO_TRANSPORTS=self leaves no transport between two processes here (it lists none but self): MPI_Init of a job of two or more processes would fail"*) ;;
    *) fail "unexpected message for FARO_TRANSPORTS=self: $err" ;;
esac
if "$info" --transports 2>/dev/null | grep -q '^  verbs  *unusable'; then
    out=$(FARO_TRANSPORTS=verbs "$info" --transports 2>&1)
    rc=$?
    [ $rc -eq 1 ] || fail "FARO_TRANSPORTS=verbs with verbs unusable here exited $rc, not 1"
    echo "$out" | grep -q '^  verbs  *unusable: ' || fail "FARO_TRANSPORTS=verbs --transports hid the reason"
    echo "$out" | grep -q "FARO_TRANSPORTS=verbs leaves no transport between two processes here (verbs: " ||
        fail "FARO_TRANSPORTS=verbs: unexpected message: $(echo "$out" | tail -n 1)"
fi
FARO_TRANSPORTS=tcp "$info" --tunables >/dev/null || fail "FARO_TRANSPORTS=tcp refused"
FARO_TRANSPORTS=verbs,shm "$info" --tunables >/dev/null || fail "FARO_TRANSPORTS=verbs,shm refused"

err=$(FARO_EAGR_LIMIT=1 "$info" --tunables 2>&1 >/dev/null)
case $err in
    *"FARO_EAGR_LIMIT is not a Faro tunable (did you mean FARO_EAGER_LIMIT?)"*) ;;
    *) fail "no warning for a misspelt name: $err" ;;
esac

"$info" --no-such-option >/dev/null 2>&1 && fail "an unknown option was accepted"

# --map: the placement table, options over FARO_* variables; errors exit 1 (2 for usage).
if "$info" --all | grep -q 'hwloc=yes'; then
    out=$(FARO_MAP_BY=core "$info" --map -n 3 --map-by socket:span --bind-to core \
          --topology "package:2 core:2 pu:1") || fail "faro_info --map exited $?"
    got=$(echo "$out" | sed -n 's/^  rank \([0-9]*\): cpus \([0-9,-]*\) .*/\1:\2/p' | tr '\n' ' ')
    [ "$got" = "0:0 1:2 2:1 " ] || fail "--map socket:span on 2x2 cores: '$got', expected '0:0 1:2 2:1 '"
    out=$(FARO_TOPOLOGY="package:1 core:2 pu:1" FARO_BIND_TO=core "$info" --map -n 3) ||
        fail "faro_info --map from the environment exited $?"
    echo "$out" | grep -q "^warning: 3 ranks x 1 cores per rank > 2 cores on this node: not binding (oversubscribed)" ||
        fail "no oversubscription warning from --map: $out"
    err=$("$info" --map -n 2 --map-by sockets 2>&1 >/dev/null)
    [ $? -eq 1 ] || fail "--map --map-by sockets did not exit 1"
    case $err in *"--map-by/FARO_MAP_BY sockets: unknown policy"*) ;; *) fail "bad --map-by: $err" ;; esac
    "$info" --map >/dev/null 2>&1; [ $? -eq 2 ] || fail "--map without -n did not exit 2"
    "$info" --map-by core >/dev/null 2>&1; [ $? -eq 2 ] || fail "--map-by without --map accepted"
else
    "$info" --map -n 1 >/dev/null 2>&1 && fail "--map succeeded without hwloc"
fi

# --parsable: KEY:VALUE lines for scripts; every tunable with its value,
# default and whether it is set; the version; the configure arguments (those
# config.status reports); each transport built or why not, usable or why not.
out=$(FARO_EAGER_LIMIT=16k "$info" --parsable) || fail "faro_info --parsable exited $?"
echo "$out" | grep -vq '^[a-z][a-z_]*\(:[A-Za-z0-9_]*\)*:' &&
    fail "--parsable printed a line that is not KEY:VALUE: $(echo "$out" | grep -v '^[a-z][a-z_]*\(:[A-Za-z0-9_]*\)*:' | head -n 3)"
echo "$out" | grep -qx "version:$("$info" --version | sed 's/.* //')" || fail "--parsable: no version line"
# shellcheck disable=SC2086
for id in $(cat $defs | sed -n 's/^FARO_TUNABLE(\([A-Z0-9_]*\),.*/\1/p'); do
    for k in value default set; do
        echo "$out" | grep -q "^tunable:FARO_$id:$k:" || fail "--parsable lacks tunable:FARO_$id:$k"
    done
done
echo "$out" | grep -qx "tunable:FARO_EAGER_LIMIT:value:16k" || fail "--parsable: FARO_EAGER_LIMIT=16k not shown"
echo "$out" | grep -qx "tunable:FARO_EAGER_LIMIT:set:yes" || fail "--parsable: FARO_EAGER_LIMIT not shown set"
echo "$out" | grep -qx "tunable:FARO_WAIT_POLICY:set:no" || fail "--parsable: FARO_WAIT_POLICY shown set"
if [ -x ./config.status ]; then
    want=$(./config.status --config | tr -d "'")
    got=$(echo "$out" | sed -n 's/^build:configure://p' | tr -d "'")
    [ "$got" = "$want" ] || fail "--parsable build:configure is '$got'; config.status says '$want'"
fi
for tp in self shm tcp; do
    echo "$out" | grep -qx "transport:$tp:built:yes" || fail "--parsable: transport $tp not built"
    echo "$out" | grep -Eqx "transport:$tp:usable:(yes|no)" || fail "--parsable: transport $tp usable?"
done
echo "$out" | grep -qx "transport:self:usable:yes" || fail "--parsable: self not usable"
for tp in ofi verbs; do
    if echo "$out" | grep -qx "transport:$tp:built:no"; then
        echo "$out" | grep -q "^transport:$tp:not_built:." || fail "--parsable: $tp not built, no reason"
    else
        echo "$out" | grep -qx "transport:$tp:built:yes" || fail "--parsable: transport $tp neither built nor not"
    fi
done
echo "$out" | grep -q "^path:prefix:/" || fail "--parsable: no path:prefix"
echo "$out" | grep -Eqx "path:prefix_source:(FARO_PREFIX|location|configure)" || fail "--parsable: no path:prefix_source"
p=$("$info" --prefix) || fail "faro_info --prefix exited $?"
echo "$out" | grep -qxF "path:prefix:$p" || fail "--prefix ($p) differs from --parsable's path:prefix"
"$info" | grep -qF "  prefix:        $p (from " || fail "the version section does not show the prefix"
"$info" | grep -q "^  configured:    " || fail "the version section does not show the configure arguments"

# --gpu says where the GPU client library is (issue 16), or that the layer is
# not built (exit 1).
g=$("$info" --gpu); rc=$?
if echo "$out" | grep -qx "gpu:yes"; then
    d=$(echo "$out" | sed -n 's/^path:gpulibdir://p')
    [ $rc -eq 0 ] || fail "--gpu exited $rc with the GPU layer built"
    echo "$g" | grep -qF "client library: $d/libcudart.so.13" ||
        fail "--gpu does not name $d/libcudart.so.13: $g"
    echo "$g" | grep -qF "LD_LIBRARY_PATH=$d " || fail "--gpu does not say how to run a program: $g"
else
    [ $rc -eq 1 ] && echo "$g" | grep -q "^GPU offload: " ||
        fail "--gpu without the GPU layer: exit $rc, output: $g"
fi

if [ -f man/faro-tunables.7 ]; then
    "$info" --man | cmp -s - man/faro-tunables.7 || fail "--man differs from man/faro-tunables.7"
fi

[ $failures -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
echo "faro_info: all checks passed"
