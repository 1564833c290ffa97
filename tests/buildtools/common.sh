# Sourced by the build-tool tests (tests/buildtools/*.sh). They run from the
# top build directory, as make check runs them, install Faro into a temporary
# prefix and build tests/buildtools/hello.c against it with a real tool.
# Other MPIs may be installed on the machine (faro-dev installs Open MPI and
# MPICH): every test checks that the program it built links Faro's libfaro
# and runs under Faro's mpiexec, never theirs.
#   exit 0 pass, 1 fail, 77 skip (tool absent), 99 hard error
srcdir=${srcdir:-.}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
HELLO_C=$(cd "$srcdir/tests/buildtools" && pwd)/hello.c
[ -x "$top_builddir/faro_info" ] || { echo "ERROR: build Faro first (make)" >&2; exit 99; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/faro-buildtools.XXXXXX") || exit 99
TMP=$(cd "$TMP" && pwd -P)
trap 'rm -rf "$TMP"' EXIT

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
skip() { echo "SKIP: $*"; exit 77; }
finish() {
    [ $failures -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
    echo "$(basename "$0"): all checks passed"
    exit 0
}
# need COMMAND [PACKAGE]: skip unless COMMAND is installed (Debian PACKAGE brings it)
need() { command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed (apt-get install ${2:-$1})"; }

# faro_install PREFIX: `make install prefix=PREFIX` of this build tree. The
# installs of tests running side by side take turns (one lock): each one
# rewrites the installed wrappers and faro.pc for its prefix.
faro_install() {
    mkdir -p "$top_builddir/tests/buildtools"
    if ! (unset MAKEFLAGS MFLAGS MAKELEVEL DESTDIR
          flock "$top_builddir/tests/buildtools/.install-lock" \
              make -C "$top_builddir" install prefix="$1") >"$TMP/install.log" 2>&1; then
        cat "$TMP/install.log" >&2
        echo "ERROR: make install prefix=$1 failed" >&2
        exit 99
    fi
}

# check_links PROGRAM PREFIX: PROGRAM loads PREFIX's libfaro at run time
# (without LD_LIBRARY_PATH) and no other MPI library.
check_links() {
    deps=$(env -u LD_LIBRARY_PATH ldd "$1" 2>&1)
    lib=$(echo "$deps" | sed -n 's/^[[:space:]]*libfaro\.so[^ ]* => \([^ ]*\) .*/\1/p')
    [ -n "$lib" ] && [ "$(dirname "$(readlink -f "$lib")")" = "$(readlink -f "$2/lib")" ] ||
        fail "$1 does not load $2/lib/libfaro.so: $(echo "$deps" | grep -i 'faro\|not found')"
    echo "$deps" | grep -Eq 'lib(mpi|mpich|open-rte|open-pal)\.so' &&
        fail "$1 loads another MPI: $(echo "$deps" | grep -E 'lib(mpi|mpich)')"
}

# check_runs MPIEXEC PROGRAM: two ranks under MPIEXEC, each saying it runs on Faro.
check_runs() {
    out=$(env -u LD_LIBRARY_PATH timeout 60 "$1" -n 2 "$2" 2>&1)
    rc=$?
    [ $rc -eq 0 ] || { fail "$1 -n 2 $2 exited $rc: $out"; return; }
    for r in 0 1; do
        echo "$out" | grep -q "^rank $r of 2: Faro " || fail "$2 under $1: no 'rank $r of 2: Faro' line in: $out"
    done
}
