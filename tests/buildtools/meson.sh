#!/bin/sh
# Meson's dependency('mpi') finds an installed Faro through its mpicc (Meson
# asks it --showme:version, --showme:compile and --showme:link), builds
# hello.c, and the program runs on Faro under Faro's mpiexec, with Open MPI
# and MPICH installed beside it. What Meson needs for that (its
# mesonbuild/dependencies/mpi.py and configtool.py):
#  - Faro's bin first on PATH: Meson weighs MPICC and the mpicc on PATH and
#    takes the one reporting the highest version, so MPICC alone loses to
#    another MPI's mpicc on PATH (checked and reported below);
#  - before Meson 1.6 pkg-config's ompi-c (Open MPI) is asked before mpicc:
#    where Open MPI's ompi-c.pc is installed a plain dependency('mpi') takes
#    Open MPI, so the test hides ompi-c.pc for that case (and says so);
#    method: 'config-tool' asks mpicc on every version.
# Run from the top build directory.
. "${srcdir:-.}/tests/buildtools/common.sh"
need meson
need ninja ninja-build
need flock "util-linux"
P=$TMP/faro
faro_install "$P"
unset MPICC MPICH_CC OMPI_CC FARO_CC
mkdir "$TMP/src" && cp "$HELLO_C" "$TMP/src/" || exit 99
faro_version=$("$P/bin/faro_info" --parsable | sed -n 's/^version://p')
meson_version=$(meson --version)
echo "meson $meson_version"

# build NAME DEPENDENCY-ARGS ENV...: set up and build with dependency('mpi', ARGS).
build() {
    name=$1 args=$2 B=$TMP/$1; shift 2
    cat > "$TMP/src/meson.build" <<MESON
project('faro_hello', 'c')
mpi = dependency('mpi', $args)
executable('hello', 'hello.c', dependencies: mpi)
MESON
    if ! env "$@" meson setup "$B" "$TMP/src" >"$B.log" 2>&1 ||
       ! ninja -C "$B" >>"$B.log" 2>&1; then
        fail "meson ($name, $*) failed: $(tail -n 20 "$B.log")"
        return 1
    fi
    grep -Eiq "dependency mpi( for c)? found: YES $faro_version" "$B.log" ||
        fail "meson ($name): not Faro $faro_version: $(grep -i 'dependency mpi' "$B.log")"
    check_links "$B/hello" "$P"
    check_runs "$P/bin/mpiexec" "$B/hello"
}

build config-tool "language: 'c', method: 'config-tool'" "PATH=$P/bin:$PATH"

# The plain call, Faro's bin first on PATH.
if [ "$meson_version" != 1.6.0 ] && printf '%s\n' "$meson_version" 1.6.0 | sort -V -C; then
    # older than 1.6: pkg-config's ompi-c first
    if pkg-config --exists ompi-c 2>/dev/null; then
        echo "note: Meson $meson_version asks pkg-config for ompi-c before mpicc, and Open MPI's" \
             "ompi-c.pc is installed: dependency('mpi') would take Open MPI; hiding it for this case"
    fi
    build plain "language: 'c'" "PATH=$P/bin:$PATH" "PKG_CONFIG_LIBDIR=$P/lib/pkgconfig"
else
    build plain "language: 'c'" "PATH=$P/bin:$PATH"
fi

# MPICC alone, another MPI's mpicc on PATH: reported, not checked (Meson's choice).
other=$(command -v mpicc)
if [ -n "$other" ]; then
    name=mpicc-env B=$TMP/mpicc-env
    if env MPICC="$P/bin/mpicc" PKG_CONFIG_LIBDIR="$P/lib/pkgconfig" meson setup "$B" "$TMP/src" \
            >"$B.log" 2>&1; then
        echo "note: with MPICC=Faro's mpicc and $other on PATH, Meson $meson_version took:" \
             "$(grep -i 'dependency mpi' "$B.log")"
    fi
fi
finish
