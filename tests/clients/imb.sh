#!/bin/sh
# imb.sh: the Intel MPI Benchmarks' one-sided programs, a real client no one
# here wrote. Builds IMB-RMA and IMB-EXT with IMB's own makefile and Faro's
# mpicc, with IMB's -DCHECK (each row then carries a "defects" column: the
# data a transfer left, compared with what it should be), and runs both to
# completion under Faro's mpiexec with 2 processes, over shm and over
# FARO_TRANSPORTS=tcp,self. A run passes when it exits 0, reaches
# MPI_Finalize and every defects column reads 0.
#
# usage: IMB_SRC=DIR tests/clients/imb.sh [BUILD_DIR]   (default ./_build)
#   IMB_SRC     an unpacked Intel MPI Benchmarks tree (github.com/intel/
#               mpi-benchmarks; it is not redistributed here). Without it the
#               script skips (77).
#   IMB_NPROCS  process counts (default "2")
#   IMB_ARGS    arguments for every program (default: sizes up to 64 KiB, few
#               repetitions, so a run takes seconds; the point is running
#               unchanged and checked, not timing)
# The src_c tree is copied; its build goes to BUILD_DIR/clients/imb.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../_build}" && pwd)
nprocs=${IMB_NPROCS:-2}
args=${IMB_ARGS:--msglog 0:16 -iter 50 -time 5}
if [ -z "${IMB_SRC:-}" ] || [ ! -f "$IMB_SRC/src_c/Makefile" ]; then
    echo "imb.sh: skipped: set IMB_SRC to an unpacked Intel MPI Benchmarks tree" >&2
    exit 77
fi
work=$build/clients/imb
rm -rf "$work" && mkdir -p "$work"
cp -a "$IMB_SRC/src_c" "$work/src"
progs="RMA EXT"
for t in $progs; do
    echo "imb.sh: make TARGET=$t CC=$build/mpicc CFLAGS=-DCHECK"
    make -C "$work/src" -f Makefile TARGET="$t" CC="$build/mpicc" CFLAGS=-DCHECK \
        >"$work/make-$t.log" 2>&1 ||
        { tail -30 "$work/make-$t.log"; echo "imb.sh: FAIL: make TARGET=$t" >&2; exit 1; }
done

status=0 npass=0 nfail=0
for t in $progs; do
    for np in $nprocs; do
        for tr in shm tcp; do
            log=$work/IMB-$t.np$np.$tr.log
            case $tr in
            shm) set -- env ;;
            tcp) set -- env FARO_TRANSPORTS=tcp,self ;;
            esac
            # Rows whose last column (defects) is not 0 count as bad.
            # shellcheck disable=SC2086
            if timeout -k 5 300 "$@" "$build/mpiexec" -n "$np" "$work/src/IMB-$t" \
                   $args -npmin "$np" >"$log" 2>&1 &&
               grep -q 'All processes entering MPI_Finalize' "$log" &&
               awk '/defects/ { d = 1; next } /^#/ { d = 0 }
                    d && /^ +[0-9]/ { n++; if ($NF + 0 != 0) bad++ }
                    END { exit !(n > 0 && bad == 0) }' "$log"; then
                npass=$((npass + 1))
                echo "PASS IMB-$t -n $np $tr ($(grep -c '^# Benchmarking' "$log") benchmarks)"
            else
                nfail=$((nfail + 1)) status=1
                echo "FAIL IMB-$t -n $np $tr (log: $log)"
                tail -5 "$log" | sed 's/^/    | /'
            fi
        done
    done
done
echo "imb.sh: $npass passed, $nfail failed"
exit $status
