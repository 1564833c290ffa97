#!/bin/sh
# CMake's find_package(MPI) (its FindMPI module) finds an installed Faro: the
# compiler wrapper, libfaro and Faro's mpiexec, builds hello.c (and with
# COMPONENTS C Fortran, hello.f90 through mpifort), and the
# program runs on Faro under the mpiexec CMake found, with Open MPI and MPICH
# installed beside it. FindMPI looks for mpiexec first (in MPI_HOME, then on
# PATH) and for the compiler after, so the ways that get Faro's mpiexec are
# -DMPI_HOME=PREFIX, or Faro's bin first on PATH; MPI_C_COMPILER alone leaves
# mpiexec to PATH (checked and reported). Run from the top build directory.
. "${srcdir:-.}/tests/buildtools/common.sh"
need cmake
need flock "util-linux"
P=$TMP/faro
faro_install "$P"
unset MPI_HOME I_MPI_ROOT MPICC MPICH_CC OMPI_CC FARO_CC MPIEXEC_EXECUTABLE
mkdir "$TMP/src" && cp "$HELLO_C" "$TMP/src/" || exit 99
cat > "$TMP/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(faro_hello C)
find_package(MPI REQUIRED COMPONENTS C)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE MPI::MPI_C)
file(WRITE "${CMAKE_BINARY_DIR}/found.txt"
  "compiler=${MPI_C_COMPILER}\nmpiexec=${MPIEXEC_EXECUTABLE}\nlibraries=${MPI_C_LIBRARIES}\nlibrary_version=${MPI_C_LIBRARY_VERSION_STRING}\nnumproc_flag=${MPIEXEC_NUMPROC_FLAG}\n")
CMAKE

found() { sed -n "s/^$1=//p" "$B/found.txt"; }

# configure NAME ENV... -- CMAKE-ARGS...: configure and build in $TMP/NAME.
configure() {
    name=$1 B=$TMP/$1; shift
    envs=
    while [ "$1" != -- ]; do envs="$envs $1"; shift; done
    shift
    # shellcheck disable=SC2086 # envs are words
    if ! env $envs cmake -S "$TMP/src" -B "$B" -DMPI_DETERMINE_LIBRARY_VERSION=ON "$@" \
            >"$B.log" 2>&1 || ! cmake --build "$B" >>"$B.log" 2>&1; then
        fail "cmake ($name) $* failed: $(tail -n 20 "$B.log")"
        return 1
    fi
    [ "$(found compiler)" = "$P/bin/mpicc" ] || fail "cmake ($name): MPI_C_COMPILER is '$(found compiler)'"
    # With CC=mpicc the compiler links MPI by itself: FindMPI lists no library.
    case $name:$(found libraries) in *:"$P/lib/libfaro.so"|cc-path:) ;;
        *) fail "cmake ($name): MPI_C_LIBRARIES is '$(found libraries)', not $P/lib/libfaro.so" ;; esac
    case $(found library_version) in "Faro "*) ;;
        *) fail "cmake ($name): MPI_C_LIBRARY_VERSION_STRING is '$(found library_version)'" ;; esac
    check_links "$B/hello" "$P"
    return 0
}

# MPI_HOME: everything from Faro, whatever PATH holds.
if configure home -- -DMPI_HOME="$P"; then
    [ "$(found mpiexec)" = "$P/bin/mpiexec" ] || fail "-DMPI_HOME: MPIEXEC_EXECUTABLE is '$(found mpiexec)'"
    check_runs "$(found mpiexec)" "$B/hello"
fi
# The compiler given, Faro's bin first on PATH (a module or profile set it).
if configure compiler-path "PATH=$P/bin:$PATH" -- -DMPI_C_COMPILER="$P/bin/mpicc"; then
    [ "$(found mpiexec)" = "$P/bin/mpiexec" ] ||
        fail "-DMPI_C_COMPILER with Faro on PATH: MPIEXEC_EXECUTABLE is '$(found mpiexec)'"
    check_runs "$(found mpiexec)" "$B/hello"
fi
# The compiler wrapper as CMake's C compiler (CC=mpicc), Faro on PATH.
if configure cc-path "PATH=$P/bin:$PATH" "CC=$P/bin/mpicc" -- ; then
    [ "$(found mpiexec)" = "$P/bin/mpiexec" ] || fail "CC=mpicc: MPIEXEC_EXECUTABLE is '$(found mpiexec)'"
    check_runs "$(found mpiexec)" "$B/hello"
fi
# Only MPI_C_COMPILER: the library is Faro's, and mpiexec whatever PATH offers
# (here another MPI's, when one is installed: reported, FindMPI's behaviour).
if configure compiler-only -- -DMPI_C_COMPILER="$P/bin/mpicc"; then
    [ "$(found mpiexec)" = "$P/bin/mpiexec" ] ||
        echo "note: with only -DMPI_C_COMPILER, FindMPI took mpiexec '$(found mpiexec)' from PATH (documented: pass -DMPI_HOME)"
fi

# find_package(MPI COMPONENTS C Fortran) finds Faro for both languages
# (mpifort, libfaro_mpifort, the mpif.h, mpi and mpi_f08 bindings) and the
# Fortran hello runs on Faro; only where Faro was built with Fortran.
if grep -q '^#define FARO_HAVE_FORTRAN 1' "$top_builddir/config.h"; then
    mkdir "$TMP/fsrc" && cp "$srcdir/tests/buildtools/hello.f90" "$HELLO_C" "$TMP/fsrc/" || exit 99
    cat > "$TMP/fsrc/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(faro_hello_fortran C Fortran)
find_package(MPI REQUIRED COMPONENTS C Fortran)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE MPI::MPI_C)
add_executable(hello_f hello.f90)
target_link_libraries(hello_f PRIVATE MPI::MPI_Fortran)
file(WRITE "${CMAKE_BINARY_DIR}/found.txt"
  "compiler=${MPI_Fortran_COMPILER}\nc_compiler=${MPI_C_COMPILER}\nmpiexec=${MPIEXEC_EXECUTABLE}\nlibraries=${MPI_Fortran_LIBRARIES}\nmpifh=${MPI_Fortran_HAVE_F77_HEADER}\nf90=${MPI_Fortran_HAVE_F90_MODULE}\nf08=${MPI_Fortran_HAVE_F08_MODULE}\n")
CMAKE
    B=$TMP/fortran
    unset FARO_FC OMPI_FC MPICH_FC
    if ! cmake -S "$TMP/fsrc" -B "$B" -DMPI_HOME="$P" >"$B.log" 2>&1 ||
            ! cmake --build "$B" >>"$B.log" 2>&1; then
        fail "cmake (Fortran) -DMPI_HOME failed: $(tail -n 20 "$B.log")"
    else
        case $(found compiler) in "$P/bin/mpifort"|"$P/bin/mpif90") ;;
            *) fail "cmake (Fortran): MPI_Fortran_COMPILER is '$(found compiler)'" ;; esac
        [ "$(found c_compiler)" = "$P/bin/mpicc" ] || fail "cmake (Fortran): MPI_C_COMPILER is '$(found c_compiler)'"
        case ";$(found libraries);" in *";$P/lib/libfaro_mpifort.so;"*) ;;
            *) fail "cmake (Fortran): MPI_Fortran_LIBRARIES is '$(found libraries)'" ;; esac
        for b in mpifh f90 f08; do
            [ "$(found $b)" = TRUE ] || fail "cmake (Fortran): FindMPI did not find the $b binding ($(found $b))"
        done
        check_links "$B/hello_f" "$P"
        check_runs "$(found mpiexec)" "$B/hello_f"
    fi
else
    echo "note: Faro was built without Fortran: find_package(MPI COMPONENTS Fortran) not tried"
fi
finish
