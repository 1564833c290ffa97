#!/bin/sh
# Checks the build-tree mpicc/mpicxx (and mpifort/mpif90): the flags they add, that -c/-E drop the
# link flags, the queries other MPIs' users and build tools make (-showme:help,
# --showme:*, -show-compile-info, -compile-info), that -cc=/-cxx=, FARO_CC/
# FARO_CXX and their aliases OMPI_CC/MPICH_CC choose the compiler in that
# order, that arguments pass through with their quoting, and (once
# include/mpi.h exists) that a program compiles. The installed, relocatable
# wrappers are checked by tests/buildtools/relocate.sh. Run from the top of the
# build tree (as `make check` does).
#   exit 0 pass, 1 fail, 77 skip, 99 hard error (wrappers not built)

top_builddir=${top_builddir:-.}
MPICC=$top_builddir/mpicc
MPICXX=$top_builddir/mpicxx
for w in "$MPICC" "$MPICXX"; do
    [ -x "$w" ] || { echo "ERROR: $w is missing; run make first" >&2; exit 99; }
done

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
has() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/faro-wrappers.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

incdir=$("$MPICC" -showme:incdirs | cut -d' ' -f1)
libdir=$("$MPICC" -showme:libdirs)

# Full command: compiler, include dir, the user's args, library dir, rpath, -lfaro.
out=$("$MPICC" -show prog.c -o prog)
has "$out" "-I$incdir" || fail "-show lacks -I$incdir: $out"
has "$out" "-lfaro" || fail "-show lacks -lfaro: $out"
has "$out" "-L$libdir" || fail "-show lacks -L$libdir: $out"
has "$out" "-Wl,-rpath,$libdir" || fail "-show lacks the rpath: $out"
has "$out" "prog.c" || fail "-show lacks the source file: $out"
has "$out" "-show" && fail "-show was passed on to the compiler: $out"
[ "$("$MPICC" -showme prog.c)" = "$("$MPICC" -show prog.c)" ] || fail "-showme differs from -show"
case $incdir in */include) ;; *) fail "include dir $incdir does not end in /include" ;; esac

# No link flags when the compiler will not link.
for mode in -c -E -S; do
    out=$("$MPICC" -show $mode prog.c)
    has "$out" "-lfaro" && fail "$mode still links: $out"
    has "$out" "-I$incdir" || fail "$mode lacks -I: $out"
done

# Partial flag queries.
out=$("$MPICC" -showme:compile)
has "$out" "-I$incdir" || fail "-showme:compile lacks -I: $out"
has "$out" "-lfaro" && fail "-showme:compile has link flags: $out"
out=$("$MPICC" -showme:link)
has "$out" "-lfaro" || fail "-showme:link lacks -lfaro: $out"
has "$out" "-I$incdir" && fail "-showme:link has compile flags: $out"
out=$("$MPICC" -link-info)
has "$out" "-lfaro" || fail "-link-info lacks -lfaro: $out"
out=$("$MPICC" -compile-info)
has "$out" "-lfaro" && fail "-compile-info has link flags: $out"
"$MPICC" -showme:nonsense >/dev/null 2>&1 && fail "an unknown -showme: option was accepted"
"$MPICC" --showme:nonsense >/dev/null 2>&1 && fail "an unknown --showme: option was accepted"

# Open MPI's double-dash spellings (Meson calls --showme:version, then
# --showme:compile and --showme:link) and MPICH's -show-compile-info /
# -show-link-info (newer Meson) answer as the single-dash ones do.
for q in compile link incdirs libdirs libs version command; do
    a=$(FARO_CC="$tmp/never-run" "$MPICC" -showme:$q 2>&1)
    b=$(FARO_CC="$tmp/never-run" "$MPICC" --showme:$q 2>&1)
    [ "$a" = "$b" ] || fail "--showme:$q differs from -showme:$q: '$b' vs '$a'"
done
[ "$("$MPICC" --showme x.c)" = "$("$MPICC" -show x.c)" ] || fail "--showme differs from -show"
out=$("$MPICC" --showme:version 2>&1) || fail "--showme:version exited $?"
echo "$out" | grep -Eq '^mpicc: Faro [0-9]+\.[0-9]+\.[0-9]+$' || fail "--showme:version: '$out'"
[ "$("$MPICC" -show-compile-info)" = "$("$MPICC" -showme:compile)" ] ||
    fail "-show-compile-info differs from -showme:compile"
[ "$("$MPICC" -show-link-info)" = "$("$MPICC" -showme:link)" ] ||
    fail "-show-link-info differs from -showme:link"

# -showme:help lists every option of the wrapper's own, and exits 0.
for w in "$MPICC" "$MPICXX"; do
    out=$("$w" -showme:help) || fail "$w -showme:help exited $?"
    for opt in -show -showme:compile -showme:link -showme:incdirs -showme:libdirs \
               -showme:libs -showme:command -showme:version -showme:help -compile-info \
               -link-info -show-compile-info -show-link-info; do
        echo "$out" | grep -q -- "$opt\b" || fail "$w -showme:help does not list $opt"
    done
    [ "$("$w" --showme:help)" = "$out" ] || fail "$w --showme:help differs from -showme:help"
done
"$MPICC" -showme:help | grep -q -- '-cc=COMMAND' || fail "mpicc -showme:help lacks -cc="
"$MPICXX" -showme:help | grep -q -- '-cxx=COMMAND' || fail "mpicxx -showme:help lacks -cxx="

# FARO_CC is used: the same valid file fails only with a compiler that always fails.
echo 'int faro_wrapper_test;' > "$tmp/none.c"
"$MPICC" -c "$tmp/none.c" -o "$tmp/none.o" || fail "mpicc cannot compile an empty C file"
FARO_CC=false "$MPICC" -c "$tmp/none.c" -o "$tmp/none.o" 2>/dev/null && fail "FARO_CC=false did not make mpicc fail"
FARO_CC=true "$MPICC" -c "$tmp/none.c" -o "$tmp/none.o" || fail "FARO_CC=true made mpicc fail"

# Arguments reach the compiler one for one, spaces included, ours removed.
cat > "$tmp/fakecc" <<'EOF'
#!/bin/sh
for a do printf '[%s]\n' "$a"; done
EOF
chmod +x "$tmp/fakecc"
out=$(FARO_CC="$tmp/fakecc" "$MPICC" -DMSG="a b" -c x.c)
echo "$out" | grep -qx '\[-DMSG=a b\]' || fail "an argument with a space was split: $out"
echo "$out" | grep -qx '\[-c\]' || fail "-c did not reach the compiler: $out"
echo "$out" | grep -q 'lfaro' && fail "-c run still links: $out"
out=$(FARO_CC="$tmp/fakecc" "$MPICC" x.c -o x)
[ "$(echo "$out" | tail -n 1)" = "[-lfaro]" ] || fail "-lfaro is not last on a link line: $out"

# mpicxx: c++ by default, FARO_CXX when set, FARO_CC ignored.
out=$(env -u FARO_CXX "$MPICXX" -show x.cc)
case $out in "c++ "*) ;; *) fail "mpicxx does not default to c++: $out" ;; esac
out=$(FARO_CXX=my-c++ FARO_CC=my-cc "$MPICXX" -show x.cc)
case $out in "my-c++ "*) ;; *) fail "FARO_CXX is not used: $out" ;; esac
out=$(FARO_CC=my-cc "$MPICC" -show x.c)
case $out in "my-cc "*) ;; *) fail "FARO_CC is not used by -show: $out" ;; esac

# Choosing the compiler: -cc=/-cxx= (MPICH), then FARO_CC/FARO_CXX, then the
# other MPIs' variables as aliases, OMPI_* before MPICH_*, then the default.
# An alias naming an MPI wrapper is ignored (CMake's FindMPI sets MPICH_CC to
# its compiler, which may be mpicc itself).
unset FARO_CC FARO_CXX OMPI_CC OMPI_CXX MPICH_CC MPICH_CXX
default_cc=$("$MPICC" -showme:command)
# pick EXPECTED WRAPPER ENV...: the compiler WRAPPER picks under ENV
pick() {
    want=$1 w=$2; shift 2
    got=$(env "$@" "$w" -showme:command)
    [ "$got" = "$want" ] || fail "$(basename "$w") with $*: compiler '$got', expected '$want'"
}
pick ompi-cc "$MPICC" OMPI_CC=ompi-cc
pick mpich-cc "$MPICC" MPICH_CC=mpich-cc
pick ompi-cc "$MPICC" OMPI_CC=ompi-cc MPICH_CC=mpich-cc
pick faro-cc "$MPICC" FARO_CC=faro-cc OMPI_CC=ompi-cc MPICH_CC=mpich-cc
pick "$default_cc" "$MPICC" MPICH_CC=/some/where/mpicc
pick mpich-cc "$MPICC" OMPI_CC=mpicc MPICH_CC=mpich-cc
pick "clang -m64" "$MPICC" "OMPI_CC=clang -m64"
pick ompi-cxx "$MPICXX" OMPI_CXX=ompi-cxx MPICH_CXX=mpich-cxx OMPI_CC=ompi-cc
pick mpich-cxx "$MPICXX" MPICH_CXX=mpich-cxx
pick c++ "$MPICXX" MPICH_CXX=/opt/mpich/bin/mpicxx
pick faro-cxx "$MPICXX" FARO_CXX=faro-cxx OMPI_CXX=ompi-cxx
out=$(FARO_CC=faro-cc OMPI_CC=ompi-cc "$MPICC" -cc=cmdline-cc -show x.c)
case $out in "cmdline-cc "*) ;; *) fail "-cc= does not win over FARO_CC: $out" ;; esac
case $out in *-cc=*) fail "-cc= was passed on to the compiler: $out" ;; esac
out=$(FARO_CXX=faro-cxx "$MPICXX" -cxx="g++ -m64" -show x.cc)
case $out in "g++ -m64 "*) ;; *) fail "-cxx= does not choose mpicxx's compiler: $out" ;; esac
out=$("$MPICC" -cc=true -c "$tmp/none.c" -o "$tmp/none.o" 2>&1) || fail "mpicc -cc=true failed: $out"
err=$("$MPICC" -cxx=g++ x.c 2>&1) && fail "mpicc accepted -cxx=, mpicxx's option"
case $err in *"mpicc takes -cc=COMMAND"*) ;; *) fail "mpicc -cxx=: unclear message: $err" ;; esac
err=$("$MPICXX" -cc=gcc x.cc 2>&1) && fail "mpicxx accepted -cc=, mpicc's option"
err=$("$MPICC" -cc= x.c 2>&1) && fail "mpicc accepted an empty -cc="
case $err in *"-cc= needs a compiler command"*) ;; *) fail "mpicc -cc=: unclear message: $err" ;; esac

# A real program, once the public header exists.
if [ -f "$incdir/mpi.h" ]; then
    cat > "$tmp/hello.c" <<'EOF'
#include <mpi.h>
int main(int argc, char **argv)
{
    int rank = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    return rank == 0 ? 0 : 1;
}
EOF
    "$MPICC" -c "$tmp/hello.c" -o "$tmp/hello.o" || fail "mpicc cannot compile a program with mpi.h"
    if [ -f "$libdir/libfaro.so" ]; then
        "$MPICC" "$tmp/hello.o" -o "$tmp/hello" || fail "mpicc cannot link against $libdir/libfaro.so"
    else
        echo "note: $libdir/libfaro.so not built; link step not checked"
    fi
else
    echo "note: $incdir/mpi.h does not exist yet; compile step not checked"
fi

# mpifort/mpif90: the Fortran directory and library, -fc=, FARO_FC and its
# aliases; built without Fortran, they refuse with the reason.
for w in mpifort mpif90; do
    F=$top_builddir/$w
    [ -x "$F" ] || { fail "$F is missing"; continue; }
    if ! grep -q '^#define FARO_HAVE_FORTRAN 1' "$top_builddir/config.h" 2>/dev/null; then
        out=$("$F" -show x.f90 2>&1) && fail "$w without Fortran bindings ran: $out"
        echo "$out" | grep -q "built without Fortran bindings" || fail "$w does not say why it fails: $out"
        continue
    fi
    out=$("$F" -show x.f90)
    has "$out" "-I$top_builddir/fortran" || has "$out" "-I$(cd "$top_builddir" && pwd)/fortran" ||
        fail "$w -show lacks the fortran/ directory: $out"
    has "$out" "-lfaro_mpifort" || fail "$w -show lacks -lfaro_mpifort: $out"
    [ "$("$F" -showme:libs)" = "faro_mpifort faro" ] || fail "$w -showme:libs: $("$F" -showme:libs)"
    [ "$("$F" -fc=myfc -showme:command)" = myfc ] || fail "$w -fc= did not choose the compiler"
    [ "$(FARO_FC=f1 OMPI_FC=f2 "$F" -showme:command)" = f1 ] || fail "$w: FARO_FC does not win over OMPI_FC"
    [ "$(OMPI_FC=mpif90 MPICH_FC=f3 "$F" -showme:command)" = f3 ] ||
        fail "$w: an alias naming mpif90 was not skipped"
    "$F" -cc=gcc x.f90 >/dev/null 2>&1 && fail "$w accepted -cc="
    [ "$("$F" -showme:version)" = "$w: Faro $("$MPICC" -showme:version | sed 's/^mpicc: Faro //')" ] ||
        fail "$w -showme:version: $("$F" -showme:version)"
done

if [ $failures -ne 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "wrappers: all checks passed"
exit 0
