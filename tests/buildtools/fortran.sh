#!/bin/sh
# Issue 18's case: with an installed Faro first on PATH, `mpif90` (and
# `mpifort`) is Faro's, builds a `use mpi` program against libfaro, and
# Faro's mpiexec runs it as one job (rank 0 printed once, every rank 0..N-1
# once), with Open MPI and MPICH installed beside it; mpif.h and `use mpi_f08`
# programs build through the installed wrapper too. Built without Fortran,
# the installed mpif90 must say so and fail. Run from the top build directory.
. "${srcdir:-.}/tests/buildtools/common.sh"
need flock "util-linux"
P=$TMP/faro
faro_install "$P"
unset FARO_FC OMPI_FC MPICH_FC
HELLO_F90=$(cd "$srcdir/tests/buildtools" && pwd)/hello.f90
cd "$TMP" || exit 99
[ -x "$P/bin/mpif90" ] && [ -x "$P/bin/mpifort" ] || fail "no mpif90 or mpifort in $P/bin"
if ! grep -q '^#define FARO_HAVE_FORTRAN 1' "$top_builddir/config.h"; then
    out=$(PATH=$P/bin:$PATH mpif90 "$HELLO_F90" -o hello 2>&1) &&
        fail "mpif90 of a Faro built without Fortran succeeded: $out"
    echo "$out" | grep -q 'built without Fortran bindings' ||
        fail "mpif90 without Fortran bindings does not say why: $out"
    finish
fi
for w in mpif90 mpifort; do
    [ "$(PATH=$P/bin:$PATH command -v $w)" = "$P/bin/$w" ] || fail "$w on PATH is not Faro's"
    PATH=$P/bin:$PATH $w "$HELLO_F90" -o "hello-$w" >"$TMP/$w.log" 2>&1 ||
        { fail "$w hello.f90 failed: $(cat "$TMP/$w.log")"; continue; }
    check_links "hello-$w" "$P"
    out=$(PATH=$P/bin:$PATH env -u LD_LIBRARY_PATH timeout 60 mpiexec -n 3 "./hello-$w" 2>&1) ||
        { fail "mpiexec -n 3 hello-$w exited $?: $out"; continue; }
    for r in 0 1 2; do
        n=$(echo "$out" | grep -c "^rank $r of 3: Faro ")
        [ "$n" = 1 ] || fail "hello-$w: 'rank $r of 3: Faro' printed $n times (not once) in: $out"
    done
done
# the three binding styles through the installed wrapper
cat >f77.f <<'F'
      PROGRAM F77
      INCLUDE 'mpif.h'
      INTEGER IERR, N
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, N, IERR)
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, N, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      PRINT *, 'sum', N
      CALL MPI_FINALIZE(IERR)
      END
F
cat >f08.f90 <<'F'
program f08
  use mpi_f08
  type(MPI_Comm) :: c
  integer :: n
  call MPI_Init()
  call MPI_Comm_dup(MPI_COMM_WORLD, c)
  call MPI_Comm_size(c, n)
  call MPI_Allreduce(MPI_IN_PLACE, n, 1, MPI_INTEGER, MPI_SUM, c)
  print *, 'sum', n
  call MPI_Comm_free(c)
  call MPI_Finalize()
end program
F
for src in f77.f f08.f90; do
    PATH=$P/bin:$PATH mpifort "$src" -o "${src%.*}" >"$TMP/$src.log" 2>&1 ||
        { fail "mpifort $src failed: $(cat "$TMP/$src.log")"; continue; }
    out=$(PATH=$P/bin:$PATH env -u LD_LIBRARY_PATH timeout 60 mpiexec -n 2 "./${src%.*}" 2>&1)
    [ "$(echo "$out" | grep -c 'sum *4$')" = 2 ] || fail "${src%.*} under mpiexec -n 2: $out"
done
finish
