#!/bin/sh
# hdf5.sh: parallel HDF5, a real client no one here wrote. Fetches Debian 12's
# hdf5 source package (pinned below, checksums checked), configures it with
# an MPI's mpicc and --enable-parallel (no Fortran, C++, Java, high-level
# library or tools: only what HDF5's parallel tests need), builds the library
# and the testpar programs, and runs them under that MPI's mpiexec with the
# process count HDF5's own `make check` uses (NPROCS=6), each under a
# timeout. The results are compared with tests/clients/hdf5.expected: a
# program recorded as passing that fails, or a subtest failing that is not
# recorded, is a regression (exit 1). An MPI without MPI-IO fails at
# configure, in one line saying so.
#
# When testphdf5 or t_shapesame (HDF5's test framework: named subtests) fail,
# the subtest the failing ranks were in is excluded (-x NAME) and the program
# runs again, up to HDF5_RERUNS times, so one run lists every failing subtest,
# not only the first (a failed check calls MPI_Abort).
#
# usage: tests/clients/hdf5.sh [BUILD_DIR]          (default: ./_build)
#   HDF5_PROGRAMS  programs to run (default below: make check's list without
#                  t_cache_image, which takes 5-10 minutes; testpflush is
#                  t_pflush1 then t_pflush2, as testpflush.sh runs them)
#   HDF5_NPROCS    processes per program (default 6, make check's NPROCS)
#   HDF5_TIMEOUT   seconds per program run (default 300)
#   HDF5_RERUNS    reruns that exclude failing subtests (default 6)
#   HDF5_MPICC, HDF5_MPIEXEC
#                  another MPI, for comparison (default BUILD_DIR's mpicc and
#                  "mpiexec -l"); its build goes to clients/hdf5-<mpicc name>
#   HDF5_WORK      where to build and run (default BUILD_DIR/clients/hdf5)
#   HDF5_MIRROR    Debian archive (default http://deb.debian.org/debian; if
#                  its pool no longer holds this version, a snapshot.debian.org
#                  archive URL that does)
#   HDF5_UPDATE=1  rewrite hdf5.expected from this run
# Needs apt's apt-helper (every Debian has it), dpkg-source (dpkg-dev, part
# of build-essential), zlib1g-dev (HDF5's deflate filter, which
# t_filters_parallel uses; python3-dev and libpmix-dev, on faro-dev's list,
# pull it in) and the network to the Debian archive. The build
# is kept, keyed on the source version, the configure options and mpi.h as
# the mpicc sees it: Faro's library is linked dynamically, so only a changed
# mpi.h rebuilds HDF5.
set -eu

debver=1.10.8+repack1-1
upver=1.10.8+repack1
# Debian 12 (bookworm) hdf5 source package: the .dsc's SHA-256 is pinned here,
# the .dsc lists the others' (dpkg-source checks them on unpacking).
dsc_sha=3c9b7c438f174506fd2764b77437466fd528374aeab9db9c73c59ceee6ac990d
orig_sha=7b38e58ff83b13fd8959a90b13bf896bc318ba096c940ab0847abf3ad41a0b31
deb_sha=d11ad311c20f84199a04f44be87e03f91560c8f020576624edd07dd58eacbacb
configure_opts="--enable-parallel --disable-fortran --disable-cxx --disable-java
  --disable-hl --disable-tools --disable-shared --enable-optimization=-O1"
default_programs="t_mpi t_bigio testphdf5 t_cache t_pread t_pshutdown t_prestart
  t_init_term t_shapesame t_filters_parallel testpflush"

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../_build}" && pwd)
programs=${HDF5_PROGRAMS:-$default_programs}
np=${HDF5_NPROCS:-6}
tmo=${HDF5_TIMEOUT:-300}
reruns=${HDF5_RERUNS:-6}
mirror=${HDF5_MIRROR:-http://deb.debian.org/debian}
expected=$here/hdf5.expected
jobs=$(nproc 2>/dev/null || echo 2)
if [ -n "${HDF5_MPICC:-}" ]; then
    mpicc=$HDF5_MPICC
    mpiexec=${HDF5_MPIEXEC:-mpiexec}
    work=${HDF5_WORK:-$build/clients/hdf5-$(basename "${mpicc%% *}")}
else
    mpicc=$build/mpicc
    mpiexec=${HDF5_MPIEXEC:-$build/mpiexec -l}
    work=${HDF5_WORK:-$build/clients/hdf5}
    [ -x "$build/mpicc" ] && [ -x "$build/mpiexec" ] ||
        { echo "hdf5.sh: no mpicc/mpiexec in $build: build Faro first" >&2; exit 2; }
fi
mkdir -p "$work/dl"
say() { echo "hdf5.sh: $*"; }
fail() { echo "hdf5.sh: FAIL: $*" >&2; exit 1; }

# fetch FILE SHA256: one file of the source package from the archive's pool,
# by apt's own downloader (it checks the hash). Kept once fetched.
fetch() {
    if [ -f "$work/dl/$1" ] && echo "$2  $work/dl/$1" | sha256sum -c --status; then
        return 0
    fi
    /usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file \
        "$mirror/pool/main/h/hdf5/$1" "$work/dl/$1" "SHA256:$2" >"$work/dl/fetch.log" 2>&1 ||
        { tail -5 "$work/dl/fetch.log" >&2; fail "cannot fetch $mirror/pool/main/h/hdf5/$1"; }
}

# The build is reused while the source, the options, the mpicc and mpi.h are
# the same.
# mpi.h is taken as the compiler sees it (preprocessed, line markers
# dropped), which works for any MPI's mpicc.
header=$(printf '#include <mpi.h>\n' | $mpicc -E -x c - 2>/dev/null | grep -v '^#' | sha256sum | cut -c1-16) ||
    true
# The mpicc's path too: the programs find the library by its build's rpath.
key=$(printf '%s\n%s\n%s\n%s\n' "$debver" "$configure_opts" "$header" "$mpicc" | sha256sum | cut -c1-16)
stamp=$work/built-$key
if [ ! -f "$stamp" ]; then
    rm -rf "$work/src" "$work/build" "$work"/built-*
    fetch "hdf5_$debver.dsc" $dsc_sha
    fetch "hdf5_$upver.orig.tar.gz" $orig_sha
    fetch "hdf5_$debver.debian.tar.xz" $deb_sha
    # Debian's patches applied; none of them is needed by the parallel tests.
    dpkg-source -q -x "$work/dl/hdf5_$debver.dsc" "$work/src" >"$work/unpack.log" 2>&1 ||
        { tail -5 "$work/unpack.log" >&2; fail "dpkg-source cannot unpack hdf5 $debver"; }
    mkdir -p "$work/build"
    say "configuring hdf5 $debver with CC=$mpicc (log: $work/build/config.log)"
    start=$(date +%s)
    # shellcheck disable=SC2086
    if ! (cd "$work/build" && "$work/src/configure" CC="$mpicc" $configure_opts \
            --enable-silent-rules >"$work/configure.log" 2>&1); then
        if grep -q 'unable to link a simple MPI-IO C program' "$work/configure.log"; then
            missing=$(grep -o "undefined reference to .MPI_[A-Za-z_]*" "$work/build/config.log" |
                sed 's/.*\(MPI_[A-Za-z_]*\)/\1/' | sort -u | tr '\n' ' ' | sed 's/ $//')
            fail "$mpicc has no MPI-IO: HDF5's configure cannot link a program calling MPI_File_open (undefined: ${missing:-see $work/build/config.log}); parallel HDF5 needs MPI-IO"
        fi
        tail -15 "$work/configure.log" >&2
        fail "HDF5's configure failed with CC=$mpicc (log: $work/build/config.log)"
    fi
    configured=$(date +%s)
    # The library and the test library; the testpar programs below.
    say "building libhdf5 (log: $work/make.log)"
    if ! { make -C "$work/build/src" -j"$jobs" &&
           make -C "$work/build/test" -j"$jobs" libh5test.la; } >"$work/make.log" 2>&1; then
        grep -E 'error|undefined reference' "$work/make.log" | head -20 >&2
        fail "building HDF5 with CC=$mpicc failed (log: $work/make.log)"
    fi
    done_at=$(date +%s)
    echo "configure $((configured - start)) make $((done_at - configured))" >"$work/build-time"
    touch "$stamp"
    say "built in $((done_at - start)) s (configure $((configured - start)) s, make $((done_at - configured)) s)"
else
    say "reusing the library built in $work/build ($(cat "$work/build-time" 2>/dev/null) s)"
fi
# The programs to run, each built once (make does nothing for those built).
start=$(date +%s)
targets=$(echo " $programs " | sed 's/ testpflush / t_pflush1 t_pflush2 /')
# shellcheck disable=SC2086
make -C "$work/build/testpar" -j"$jobs" $targets >"$work/make-testpar.log" 2>&1 || {
    grep -E 'error|undefined reference' "$work/make-testpar.log" | head -20 >&2
    fail "building HDF5's testpar programs with CC=$mpicc failed (log: $work/make-testpar.log)"
}
say "testpar programs ready ($(( $(date +%s) - start )) s)"

# diagnose LOG: from a run's output (rank tags "[R] " as Faro's and MPICH's
# mpiexec -l write them, or Open MPI's "[J,R]<stdout>:"), print
#   ERR <rank> <subtest> <line>   for each line that reports an error, and
#   AT <rank> <subtest>           the subtest each rank was in at the end.
# A subtest is HDF5's test-framework name, "Testing  -- description (name)".
diagnose() {
    awk '
    {
        rank = "?"; line = $0
        if (match(line, /^\[[0-9,]+\](<std(out|err)>:)? ?/)) {
            rank = substr(line, 2, RLENGTH); sub(/\].*/, "", rank); sub(/.*,/, "", rank)
            line = substr(line, RLENGTH + 1)
        }
        if (line ~ /^Testing +-- .*\([A-Za-z0-9_]+\) *$/) {
            name = line; sub(/ *$/, "", name); sub(/.*\(/, "", name); sub(/\)$/, "", name)
            at[rank] = name
            next
        }
        if (line ~ /VRFY \(|\*FAILED\*|ERROR|MPI_[A-Za-z_]+ failed|MPI Error String|mpiexec:|[Aa]bort/)
            print "ERR", rank, (rank in at ? at[rank] : "-"), line
    }
    END { for (r in at) print "AT", r, at[r] }' "$1"
}

# run NAME ARGS...: one run of NAME under the timeout, in the testpar
# directory as make check runs them (t_prestart opens what t_pshutdown wrote,
# t_pflush2 what t_pflush1 did, t_cache_image executes ./t_cache_image); sets
# rc and secs; the output goes to $log.
run() {
    start=$(date +%s)
    rc=0
    # shellcheck disable=SC2086
    (cd "$work/build/testpar" && timeout -k 10 "$tmo" $mpiexec -n "$np" "./$@") \
        >"$log" 2>&1 || rc=$?
    secs=$(( $(date +%s) - start ))
}
# One line per program in the summary: "program np result failed-subtests".
summary=$work/summary.txt
: >"$summary"
npass=0 nfail=0
total_start=$(date +%s)
# The files an earlier run left (testpar's CHECK_CLEANFILES).
rm -f "$work/build/testpar"/*.h5 "$work/build/testpar/go"
for prog in $programs; do
    log=$work/$prog.log
    rm -f "$log".*
    excluded= failed= notes=
    case $prog in
    testpflush)
        # t_pflush1 flushes one file, leaves another unflushed and exits
        # without MPI_Finalize (with a failure code, on purpose); t_pflush2
        # checks the first file is whole. Only t_pflush2's status counts,
        # unless t_pflush1 says it had a real error or hangs.
        log=$work/t_pflush1.log
        run t_pflush1
        if [ "$rc" != 124 ] && [ "$rc" != 137 ] && ! grep -q 'REAL ERROR' "$log"; then
            secs1=$secs
            log=$work/t_pflush2.log
            run t_pflush2
            secs=$((secs + secs1))
        fi
        ;;
    testphdf5|t_shapesame)
        # Test-framework programs: rerun without the subtests that failed.
        tries=0
        while :; do
            run "$prog" $excluded
            [ "$rc" != 0 ] || break
            diagnose "$log" >"$log.diag"
            bad=$(awk '$1 == "ERR" && $3 != "-" { print $3 }' "$log.diag" | sort -u)
            if [ -z "$bad" ] && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then
                bad=$(awk '$1 == "AT" && $2 == "0" { print $3 }' "$log.diag")
            fi
            new=
            for b in $bad; do
                case " $excluded " in *" -x $b "*) ;; *) new="$new $b" ;; esac
            done
            failed="$failed$new"
            tries=$((tries + 1))
            [ -n "$new" ] && [ "$tries" -le "$reruns" ] || break
            cp "$log" "$log.$tries"
            case $rc in 124|137) why="timed out after ${tmo}s" ;; *) why="exit $rc after ${secs}s" ;; esac
            say "$prog failed in:$new ($why): again without it (log: $log.$tries)"
            notes="$notes    [$(echo $new)] $why
"
            for b in $new; do excluded="$excluded -x $b"; done
        done
        ;;
    *)
        run "$prog"
        ;;
    esac
    subtests=$(echo $failed | tr ' ' ,)
    if [ "$rc" = 0 ] && [ -z "$subtests" ]; then
        npass=$((npass + 1))
        say "PASS $prog -n $np (${secs}s)"
        echo "$prog $np pass" >>"$summary"
        continue
    fi
    nfail=$((nfail + 1))
    if [ "$rc" = 0 ]; then
        say "FAIL $prog -n $np: subtests $subtests fail; the rest pass (${secs}s, log: $log.*)"
    else
        case $rc in 124|137) why="timed out after ${tmo}s" ;; *) why="exit $rc after ${secs}s" ;; esac
        say "FAIL $prog -n $np: $why${subtests:+ in subtests $subtests} (log: $log)"
    fi
    echo "$prog $np fail ${subtests:--}" >>"$summary"
    # What failed, from every log of this program: the first distinct error
    # lines, with the rank and subtest they came from.
    for l in "$log".[0-9]* "$log"; do
        [ -f "$l" ] || continue
        diagnose "$l" | awk '$1 == "ERR" { $1 = ""; print }'
    done | awk '!seen[$0]++' | head -15 | sed 's/^ \([^ ]*\) \([^ ]*\) /    [rank \1, \2] /'
    printf '%s' "$notes"
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        diagnose "$log" | awk '$1 == "AT" { printf "    rank %s was in %s\n", $2, $3 }' | sort | head -8
    fi
done
say "$npass passed, $nfail failed of $((npass + nfail)) programs at $np processes ($(( $(date +%s) - total_start ))s of runs)"

status=0
[ "$nfail" = 0 ] || status=1
if [ "${HDF5_UPDATE:-0}" = 1 ]; then
    { echo "# hdf5 $debver testpar results with Faro: program processes pass|fail failed-subtests"
      echo "# Written by HDF5_UPDATE=1 tests/clients/hdf5.sh; a program recorded as passing that"
      echo "# fails, or a subtest failing that is not listed, is a regression."
      echo "version $debver"
      cat "$summary"; } >"$expected"
    say "wrote $expected"
elif [ -f "$expected" ]; then
    # Recorded failures are not regressions: only what fails beyond them.
    status=0
    while read -r prog n result subs; do
        rec=$(awk -v p="$prog" -v n="$n" '$1 == p && $2 == n { print $3, $4 }' "$expected")
        [ -n "$rec" ] || { [ "$result" = pass ] || status=1; continue; }
        set -- $rec
        if [ "$result" = fail ] && [ "$1" = pass ]; then
            echo "hdf5.sh: FAIL: $prog -n $n regressed: recorded as passing" >&2
            status=1
        elif [ "$result" = fail ] && { [ "$subs" = - ] || [ "${2:--}" = - ]; }; then
            [ "$subs" = "${2:--}" ] || { echo "hdf5.sh: FAIL: $prog -n $n: fails otherwise than recorded" >&2; status=1; }
        elif [ "$result" = fail ]; then
            for s in $(echo "$subs" | tr , ' '); do
                case ",$2," in *",$s,"*) ;; *)
                    echo "hdf5.sh: FAIL: $prog -n $n: subtest $s fails (recorded: $2)" >&2
                    status=1 ;;
                esac
            done
        elif [ "$1" = fail ]; then
            say "$prog -n $n passes, recorded as failing: HDF5_UPDATE=1 records it"
        fi
    done <"$summary"
fi
exit $status
