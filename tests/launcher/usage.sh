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
