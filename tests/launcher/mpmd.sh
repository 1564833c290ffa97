#!/bin/sh
# MPMD: several programs in one job (`A : B`, Hydra's -configfile, Open MPI's
# --app), their ranks in order, MPI_APPNUM, per-program -n, -x, -env and
# -wdir, -genv for all; on this host and over fork hosts; and the usage errors.
. "$(dirname "$0")/common.sh"
APPNUM=${APPNUM:-tests/mpi/appnum}

# The case users try first: two commands, each printed once.
run 0 -n 1 echo A : -n 1 echo B
expect_out "A"
expect_out "B"
[ "$(wc -l <"$OUT.out")" -eq 2 ] || fail "expected two lines, got: $(cat "$OUT.out")"

# Ranks in order, appnum per program, per-program environment and -genv.
run 0 -l -genv FARO_T_G all -n 2 -x FARO_T_X=one "$PROBE" appnum : \
    -n 1 -env FARO_T_X two "$PROBE" env FARO_T_X FARO_T_G : -n 1 "$PROBE" env FARO_T_X FARO_T_G
for l in "[0] rank 0 of 4: appnum 0" "[1] rank 1 of 4: appnum 0" "[2] FARO_T_X=two" \
         "[2] FARO_T_G=all" "[3] FARO_T_X unset" "[3] FARO_T_G=all"; do
    expect_out "$l"
done
# The one-word -env VAR=VALUE and -genv VAR=VALUE, in the middle of the programs.
run 0 -l -n 1 -env FARO_T_X=one "$PROBE" env FARO_T_X FARO_T_G : \
    -n 1 -genv FARO_T_G=all -env FARO_T_X=two=2 "$PROBE" env FARO_T_X FARO_T_G
for l in "[0] FARO_T_X=one" "[0] FARO_T_G=all" "[1] FARO_T_X=two=2" "[1] FARO_T_G=all"; do
    expect_out "$l"
done
run 0 -l -n 1 "$PROBE" appnum : -n 2 "$PROBE" appnum : -n 1 "$PROBE" appnum
for l in "[0] rank 0 of 4: appnum 0" "[2] rank 2 of 4: appnum 1" "[3] rank 3 of 4: appnum 2"; do
    expect_out "$l"
done

# Per-program working directory.
run 0 -l -n 1 -wdir / pwd : -n 1 -wdir /tmp pwd
expect_out "[0] /"
expect_out "[1] /tmp"

# MPI programs: MPI_APPNUM, the world holds both, they communicate.
if [ -x "$APPNUM" ]; then
    run 0 -n 2 "$APPNUM" 0 : -n 1 "$APPNUM" 1
    expect_out "appnum: OK (3 ranks)"
    run 0 -n 1 "$APPNUM" 0 : -n 2 "$APPNUM" 1 : -n 1 "$APPNUM" 2
    # Across hosts (fork agents): programs land where the placement says.
    run 0 -launcher fork -hosts a,b -n 1 "$APPNUM" 0 : -n 2 "$APPNUM" 1
    expect_out "appnum: OK (3 ranks)"
fi
run 0 -launcher fork -hosts a,b -l -n 1 "$PROBE" appnum : -n 1 -x FARO_T_X=b "$PROBE" env FARO_T_X
expect_out "[0] rank 0 of 2: appnum 0"
expect_out "[1] FARO_T_X=b"

# Config files: one program a line, comments, quoting.
printf '# MPMD\n-n 1 echo "a b"\n\n  -n 2 %s appnum   # two of them\n' "$PROBE" >"$OUT.cfg"
run 0 -l -configfile "$OUT.cfg"
for l in "[0] a b" "[1] rank 1 of 3: appnum 1" "[2] rank 2 of 3: appnum 1"; do
    expect_out "$l"
done
run 0 --app "$OUT.cfg"
expect_out "a b"

# Usage errors name what is wrong.
run 2 -n 1 echo A :
expect_err "no program given after the options of program 2"
run 2 echo A : echo B
expect_err "program 1 (echo) has no -n: with several programs each needs its own -n"
run 2 -configfile "$OUT.nofile"
expect_err "cannot read the config file $OUT.nofile"
run 2 -configfile "$OUT.cfg" echo extra
expect_err "must be the last thing on the command line"
printf '# nothing\n\n' >"$OUT.empty"
run 2 -configfile "$OUT.empty"
expect_err "names no program"
printf -- "-n 1 echo 'open\n" >"$OUT.bad"
run 2 -configfile "$OUT.bad"
expect_err "$OUT.bad:1: an unclosed '"
run 127 -n 1 echo A : -n 1 faro-no-such-program
expect_err "cannot run 'faro-no-such-program'"
exit 0
