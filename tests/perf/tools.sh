#!/bin/sh
# tools.sh: the benchmark programs perf/p2p.c and perf/coll.c build and run
# unchanged with Faro's mpicc (this build tree's), Open MPI's mpicc.openmpi
# and MPICH's mpicc.mpich (issue 6). Each one found builds both programs,
# runs every benchmark and every collective (blocking and nonblocking) once
# with 2 ranks on a tiny sweep in csv, a few of them in json, and the output is
# checked for form: the exact csv header, field counts, numbers that parse,
# t_min <= t_avg <= t_max, every benchmark present, json that loads with the
# same keys. No timing is judged. A missing implementation is named and
# skipped; none at all (or no python3) skips the test (77).
#
# usage (from the top build directory, as `make check` runs it):
#   tests/perf/tools.sh          env: FARO_MPICC, FARO_MPIEXEC override ./mpicc, ./mpiexec
set -u

src=${srcdir:-$(dirname "$0")/../..}/perf
build=$(pwd)
command -v python3 >/dev/null 2>&1 || { echo "tools.sh: skipped: no python3" >&2; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/faro-perftools.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

status=0 found=0
fail() { echo "tools.sh: FAIL: $*" >&2; status=1; }

# check KIND(p2p|coll) FORMAT(csv|json) OUT ERR all|some: form of one run's
# output; "all": every benchmark must be there
check() {
    python3 - "$@" <<'EOF'
import json, sys
kind, fmt, out, err, every = sys.argv[1:6]
text, errtext = open(out).read(), open(err).read()
if kind == "p2p":
    keys = "bench,np,pairs,bytes,reps,t_min_us,t_max_us,t_avg_us,mbytes_per_s,msgs_per_s".split(",")
    want = ["pingpong", "pingping", "sendrecv", "exchange", "bisect-blocking",
            "bisect-nonblocking", "bisect-h2h", "msgrate"]
else:
    keys = "coll,np,bytes,reps,t_min_us,t_max_us,t_avg_us".split(",")
    base = ["barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "scatterv",
            "allgather", "allgatherv", "alltoall", "alltoallv", "reduce_scatter",
            "reduce_scatter_block", "scan", "exscan"]
    want = base + ["i" + c for c in base if "coll: i%s: not provided" % c not in errtext]

def bad(msg):
    sys.exit("%s %s: %s" % (kind, fmt, msg))

rows = []
if fmt == "csv":
    lines = [l for l in text.splitlines() if l and not l.startswith("# ")]
    if not lines or lines[0] != ",".join(keys):
        bad("header is %r, want %r" % (lines[0] if lines else None, ",".join(keys)))
    for l in lines[1:]:
        f = l.split(",")
        if len(f) != len(keys):
            bad("%d fields in %r" % (len(f), l))
        rows.append({k: (v if v != "" else None) for k, v in zip(keys, f)})
else:
    try:
        doc = json.loads(text)
    except ValueError as e:
        bad("not json: %s" % e)
    if doc.get("tool") != kind or not isinstance(doc.get("mpi"), str) or doc.get("np") != 2:
        bad("bad top level: tool %r mpi %r np %r" % (doc.get("tool"), doc.get("mpi"), doc.get("np")))
    for r in doc["results"]:
        if sorted(r) != sorted(keys):
            bad("keys %s" % sorted(r))
        rows.append({k: (None if r[k] is None else str(r[k])) for k in keys})
seen = set()
for r in rows:
    name = r[keys[0]]
    seen.add(name)
    for k in keys[1:]:
        v = r[k]
        optional = (k == "pairs" and not (name.startswith("bisect") or name == "msgrate")) or \
                   (k == "msgs_per_s" and name != "msgrate")
        if v is None:
            if not optional:
                bad("%s: %s is empty" % (name, k))
            continue
        if optional:
            bad("%s: %s should be empty, is %s" % (name, k, v))
        try:
            float(v)
        except ValueError:
            bad("%s: %s=%r is not a number" % (name, k, v))
    tmin, tavg, tmax = (float(r[k]) for k in ("t_min_us", "t_avg_us", "t_max_us"))
    if not (tmin <= tavg + 0.002 and tavg <= tmax + 0.002 and tmin >= 0):
        bad("%s %s bytes: t_min %s t_avg %s t_max %s out of order" % (name, r["bytes"], tmin, tavg, tmax))
missing = [w for w in want if w not in seen] if every == "all" else []
if missing:
    bad("no rows for " + " ".join(missing))
print("  %s %s: %d rows, %d benchmarks" % (kind, fmt, len(rows), len(seen)))
EOF
}

# one MPI: NAME MPICC MPIEXEC [MPIEXEC ARGS]
try() {
    name=$1 cc=$2 run=$3
    shift 3
    if ! command -v "$cc" >/dev/null 2>&1 || ! command -v "$run" >/dev/null 2>&1; then
        echo "tools.sh: $name: skipped ($cc or $run not found)"
        return
    fi
    found=$((found + 1))
    echo "tools.sh: $name: $cc"
    for prog in p2p coll; do
        if ! "$cc" -o "$work/$prog.$name" "$src/$prog.c" >"$work/build.log" 2>&1; then
            cat "$work/build.log" >&2
            fail "$name: $cc $src/$prog.c does not build"
            return
        fi
    done
    # few sizes and repetitions: the machine may be loaded and oversubscribed
    tiny="--iters-scale 0.001 --rounds 2"
    sizes="--min-size 512 --max-size 2k"
    for fmt in csv json; do
        for prog in p2p coll; do
            # every benchmark in csv; json (same code path) on a few
            case $prog.$fmt in
            p2p.csv) args="--bench all $sizes $tiny" every=all ;;
            coll.csv) args="--coll all,iall $sizes $tiny" every=all ;;
            p2p.json) args="--bench pingpong,bisect,msgrate $sizes $tiny" every=some ;;
            coll.json) args="--coll barrier,allreduce,ialltoallv $sizes $tiny" every=some ;;
            esac
            o=$work/$prog.$name.$fmt
            # shellcheck disable=SC2086 # word splitting of the argument lists is meant
            if ! timeout 60 "$run" "$@" -n 2 "$work/$prog.$name" $args --format $fmt \
                    >"$o.out" 2>"$o.err" </dev/null; then
                tail -5 "$o.err" >&2
                fail "$name: $prog --format $fmt: exit status not 0"
                continue
            fi
            check "$prog" "$fmt" "$o.out" "$o.err" $every || fail "$name: $prog --format $fmt: bad output"
        done
    done
    # the other options once: table, datatype, fine sweep, off-cache, sub-communicators
    # shellcheck disable=SC2086
    timeout 60 "$run" "$@" -n 2 "$work/p2p.$name" --bench pingpong,msgrate --datatype vector \
        --block 64 --around 256 --min-size 200 --max-size 300 --off-cache=1m $tiny --csv >"$work/t.out" 2>&1 &&
        grep -q '^pingpong,2,,288,' "$work/t.out" ||
        { tail -5 "$work/t.out" >&2; fail "$name: p2p with --datatype vector --fine-sweep --off-cache"; }
    # shellcheck disable=SC2086
    timeout 60 "$run" "$@" -n 2 "$work/coll.$name" --coll allreduce,alltoall --ranks 1,2 \
        --max-size 8 --off-cache=1m $tiny >"$work/t.out" 2>&1 &&
        [ "$(grep -c '^# #processes = [12],' "$work/t.out")" = 4 ] ||
        { tail -5 "$work/t.out" >&2; fail "$name: coll --ranks 1,2 --off-cache"; }
}

try faro "${FARO_MPICC:-$build/mpicc}" "${FARO_MPIEXEC:-$build/mpiexec}"
try openmpi mpicc.openmpi mpiexec.openmpi
try mpich mpicc.mpich mpiexec.mpich
if [ "$found" = 0 ]; then
    echo "tools.sh: skipped: no MPI found" >&2
    exit 77
fi
[ $status = 0 ] && echo "tools.sh: PASS ($found MPI implementations)"
exit $status
