#!/bin/sh
# --timeout and MPIEXEC_TIMEOUT end a job that runs too long with code 124.
. "$(dirname "$0")/common.sh"

run 124 -n 2 --timeout 1 "$PROBE" sleep 20
expect_err "mpiexec: job timed out after 1 seconds; ending it"

MPIEXEC_TIMEOUT=1 run 124 -n 2 "$PROBE" sleep 20
expect_err "timed out after 1 seconds"

# The option wins over the environment; a finished job is not timed out.
MPIEXEC_TIMEOUT=1 run 0 --timeout 10 -n 2 "$PROBE" sleep 2

MPIEXEC_TIMEOUT=soon run 2 -n 1 true
expect_err "MPIEXEC_TIMEOUT='soon' is not a number of seconds"
echo PASS
