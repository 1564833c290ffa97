#!/bin/sh
# autoconf's AX_MPI (autoconf-archive's ax_mpi.m4) finds an installed Faro
# when Faro's bin is first on PATH: MPICC is Faro's mpicc, which compiles and
# links MPI_Init by itself (MPILIBS stays empty of other libraries), and the
# program built with it runs on Faro under Faro's mpiexec, with Open MPI and
# MPICH installed beside it. Run from the top build directory.
. "${srcdir:-.}/tests/buildtools/common.sh"
need autoreconf autoconf
need make
need flock "util-linux"
aclocal_dir=$(aclocal --print-ac-dir 2>/dev/null)
[ -f "$aclocal_dir/ax_mpi.m4" ] || skip "ax_mpi.m4 is not installed (apt-get install autoconf-archive)"
P=$TMP/faro
faro_install "$P"
unset MPICC MPILIBS MPICH_CC OMPI_CC FARO_CC
mkdir "$TMP/src" && cp "$HELLO_C" "$TMP/src/" || exit 99
cd "$TMP/src" || exit 99
cat > configure.ac <<'AC'
AC_INIT([faro-hello], [1])
AC_PROG_CC
AX_MPI([], [AC_MSG_ERROR([no MPI found])])
AC_CONFIG_FILES([Makefile found.txt])
AC_OUTPUT
AC
printf 'MPICC=@MPICC@\nMPILIBS=@MPILIBS@\n' > found.txt.in
printf 'MPICC = @MPICC@\nMPILIBS = @MPILIBS@\nhello: hello.c\n\t$(MPICC) -o hello hello.c $(MPILIBS)\n' \
    > Makefile.in
export PATH="$P/bin:$PATH"
if ! autoreconf -i >autoreconf.log 2>&1; then
    fail "autoreconf failed: $(tail -n 20 autoreconf.log)"
elif ! ./configure >configure.log 2>&1; then
    fail "configure failed: $(tail -n 20 configure.log)"
else
    mpicc=$(sed -n 's/^MPICC=//p' found.txt)
    [ "$(command -v "$mpicc")" = "$P/bin/mpicc" ] || fail "AX_MPI chose MPICC='$mpicc' ($(command -v "$mpicc"))"
    libs=$(sed -n 's/^MPILIBS=//p' found.txt)
    [ -z "$(echo "$libs" | tr -d ' ')" ] || fail "AX_MPI wants MPILIBS='$libs' on top of Faro's mpicc"
    if make >make.log 2>&1; then
        check_links ./hello "$P"
        check_runs "$P/bin/mpiexec" ./hello
    else
        fail "make with AX_MPI's MPICC failed: $(tail -n 20 make.log)"
    fi
fi
finish
