#!/bin/sh
# Bad command lines and missing programs give one clear line and a known code.
. "$(dirname "$0")/common.sh"

run 127 -n 2 ./faro-no-such-program
expect_err "mpiexec: cannot run './faro-no-such-program': No such file or directory"
run 127 -n 2 faro-no-such-program
expect_err "command not found in PATH"
run 126 -n 1 /etc/passwd
expect_err "not executable"

run 2 --frobnicate -n 2 true
expect_err "unknown option '--frobnicate'"
expect_err "Valid options: -n, -np"
# The list names every option mpiexec takes: each one named there is taken
# (a value, a missing value or a missing program are other errors), and
# every option --help names is there.
valid=$(sed -n 's/^Valid options: //p' "$OUT.err" | tr -d ',')
[ -n "$valid" ] || fail "no 'Valid options:' line"
for o in $valid; do
    timeout 10 "$MPIEXEC" "$o" </dev/null >/dev/null 2>"$OUT.one"
    grep -q "unknown option" "$OUT.one" && fail "'$o' is in the list but refused: $(cat "$OUT.one")"
done
run 0 --help
# the option names in the help's option lines and their "(also ...)" notes
for o in $({ sed -n 's/^  \(-.*\)/\1/p' "$OUT.out" | sed 's/   .*//'
             grep -o '(also [^)]*)' "$OUT.out"; } | grep -oE -- '(^| )-[-a-zA-Z]+'); do
    case " $valid " in *" $o "*) ;; *) fail "--help names $o, the 'Valid options' list does not" ;; esac
done
for o in -H -npernode -wd --wdir -envall -genvall -bootstrap --mca; do
    case " $valid -- --mca " in *" $o "*) ;; *) fail "the 'Valid options' list lacks $o" ;; esac
done
case " $valid " in *" --faro-spawned-job "*) fail "the list names mpiexec's internal option" ;; esac
run 2 -n 0 true
expect_err "must be an integer from 1 to"
run 2 -n
expect_err "option -n needs a value"
run 2 -n 2
expect_err "no program given"

run 0 --help
grep -q "^Usage: mpiexec" "$OUT.out" || fail "--help"
run 0 --version
grep -q "^mpiexec (Faro) [0-9]" "$OUT.out" || fail "--version"

# -n missing means one rank; Open MPI's no-op flags are accepted.
run 0 --oversubscribe --allow-run-as-root sh -c 'echo "$PMI_RANK/$PMI_SIZE"'
expect_out "0/1"
echo PASS
