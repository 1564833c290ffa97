#!/bin/sh
# Checks the build-tree mpicc/mpicxx: the flags they add, that -c/-E drop the
# link flags, that FARO_CC/FARO_CXX choose the compiler, that arguments pass
# through with their quoting, and (once include/mpi.h exists) that a program
# compiles. Run from the top of the build tree (as `make check` does).
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

if [ $failures -ne 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "wrappers: all checks passed"
exit 0
