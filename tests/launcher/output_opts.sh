#!/bin/sh
# Output options people bring from Hydra and Open MPI: -outfile-pattern and
# -errfile-pattern, --output-filename DIR[:nocopy], --timestamp-output,
# --display-map; and --mca, which Faro refuses naming its own equivalent.
. "$(dirname "$0")/common.sh"
trap 'rm -rf "$OUT".*' EXIT
SAY='echo out $PMI_RANK; echo err $PMI_RANK >&2'

# Hydra: files only, one per rank, named by pattern.
run 0 -n 2 -outfile-pattern "$OUT.o.%r" -errfile-pattern "$OUT.e.%r" sh -c "$SAY"
[ ! -s "$OUT.out" ] || fail "output went to mpiexec too: $(cat "$OUT.out")"
for r in 0 1; do
    [ "$(cat "$OUT.o.$r")" = "out $r" ] || fail "rank $r's stdout file: $(cat "$OUT.o.$r")"
    [ "$(cat "$OUT.e.$r")" = "err $r" ] || fail "rank $r's stderr file: $(cat "$OUT.e.$r")"
done
# Over fork hosts the rank's own host writes it (%h: its host).
run 0 -launcher fork -hosts a,b -n 2 -outfile-pattern "$OUT.h.%h.%r" sh -c "$SAY"
[ "$(cat "$OUT.h.b.1")" = "out 1" ] || fail "host b's file for rank 1 is missing or wrong"
expect_err "err 1"

# Open MPI: DIR/1/rank.N/stdout and stderr, copied to mpiexec unless :nocopy.
run 0 -n 2 --output-filename "$OUT.dir" sh -c "$SAY"
expect_out "out 1"
[ "$(cat "$OUT.dir/1/rank.1/stdout")" = "out 1" ] || fail "no $OUT.dir/1/rank.1/stdout"
[ "$(cat "$OUT.dir/1/rank.0/stderr")" = "err 0" ] || fail "no $OUT.dir/1/rank.0/stderr"
run 0 -n 1 --output-filename "$OUT.dir2:nocopy" sh -c "$SAY"
[ ! -s "$OUT.out" ] || fail ":nocopy still copied: $(cat "$OUT.out")"
[ "$(cat "$OUT.dir2/1/rank.0/stdout")" = "out 0" ] || fail ":nocopy wrote no file"
# A file that cannot be made ends the job before the ranks run, naming it.
run 1 -n 1 -outfile-pattern "$OUT.nodir/x" echo lost
expect_err "cannot write rank 0's stdout to $OUT.nodir/x"

# Timestamps in front of the tag.
run 0 -n 2 -l --timestamp-output echo hi
grep -Eqx '\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}\] \[1\] hi' \
    "$OUT.out" || fail "no timestamped line for rank 1: $(cat "$OUT.out")"

# The map, before the ranks start.
run 0 --display-map -n 2 echo x : -n 1 echo y
expect_out "mpiexec: 3 rank(s) on 1 host(s)"
expect_out "  program 1 (echo): ranks 2-2"
run 0 --display-map -launcher fork -hosts a:1,b:2 -n 3 true
expect_out "  host b: ranks 1-2"

# --mca: no such thing here; the message names what to set instead.
run 2 --mca btl tcp,self -n 1 true
expect_err "the Faro equivalent is FARO_TRANSPORTS"
run 2 -mca btl_tcp_if_include eth0 -n 1 true
expect_err "FARO_TCP_IF"
run 2 --mca no_such_param 1 -n 1 true
expect_err "Faro has no direct equivalent of this one"
exit 0
