#!/bin/sh
# faro_info --coll: lists every algorithm of coll/algorithms.def, its output
# read back as FARO_COLL_TUNING_FILE gives the same rules, and a bad tuning
# file makes it exit 1 with a message naming the file and the line. Run from
# the top of the build tree.
#   exit 0 pass, 1 fail, 99 hard error

srcdir=${srcdir:-.}
info=./faro_info
[ -x "$info" ] || { echo "ERROR: $info is missing; run make first" >&2; exit 99; }
def=$srcdir/coll/algorithms.def
tmp=${TMPDIR:-/tmp}/faro-info-coll.$$
trap 'rm -f "$tmp".*' EXIT

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

for v in $(env | sed -n 's/^\(FARO_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

"$info" --coll > "$tmp.1" || fail "faro_info --coll exited $?"
for name in $(sed -n 's/^FARO_COLL_ALG([A-Z_]*, *\([a-z0-9_]*\),.*/\1/p' "$def"); do
    grep -q "^#   $name " "$tmp.1" || fail "algorithm $name is not listed"
done
grep -q '^allreduce ' "$tmp.1" || fail "no allreduce rule in the listing"

FARO_COLL_TUNING_FILE=$tmp.1 "$info" --coll > "$tmp.2" || fail "reading the listing back exited $?"
grep -v '^#' "$tmp.1" > "$tmp.r1"
grep -v '^#' "$tmp.2" > "$tmp.r2"
cmp -s "$tmp.r1" "$tmp.r2" || fail "the listing read back differs: $(diff "$tmp.r1" "$tmp.r2")"

printf 'bcast 1-* 0-* binomial\n\nbcast 2-* 0-* scatter_gather\n' > "$tmp.bad"
err=$(FARO_COLL_TUNING_FILE=$tmp.bad "$info" --coll 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] || fail "a bad tuning file exited $rc, not 1"
case $err in
    *"FARO_COLL_TUNING_FILE $tmp.bad line 3: unknown algorithm 'scatter_gather' for bcast (allowed: binomial, scatter_allgather, pipeline, node_aware)"*) ;;
    *) fail "unexpected message for a bad tuning file: $err" ;;
esac

out=$(FARO_COLL_ALLREDUCE_ALGORITHM=ring "$info" --coll) || fail "--coll with a forced algorithm exited $?"
echo "$out" | grep -q "^# FARO_COLL_ALLREDUCE_ALGORITHM=ring forces ring" || fail "the forced algorithm is not shown"

"$info" | grep -q "faro_info --coll" || fail "plain faro_info does not mention --coll"

[ $failures -eq 0 ] && echo "PASS: faro_info --coll" && exit 0
exit 1
