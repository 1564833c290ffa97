#!/bin/sh
# pkg-config: the installed faro.pc, and mpi.pc and mpi-c.pc (the generic
# names build files ask for; other MPIs ship mpich.pc and ompi-c.pc, Debian's
# alternatives mpi.pc), give the flags that build a program which then runs
# without LD_LIBRARY_PATH (an rpath in Libs) under Faro's mpiexec, with Faro's
# libfaro: not the mpi.pc of another MPI installed on the machine. Run from
# the top build directory.
. "${srcdir:-.}/tests/buildtools/common.sh"
need pkg-config
need flock "util-linux"
P=$TMP/faro
faro_install "$P"
cd "$TMP" || exit 99
export PKG_CONFIG_PATH="$P/lib/pkgconfig"

for pc in faro mpi mpi-c; do
    [ -f "$P/lib/pkgconfig/$pc.pc" ] || { fail "$pc.pc is not installed"; continue; }
    ver=$(pkg-config --modversion "$pc") || { fail "pkg-config --modversion $pc failed"; continue; }
    [ "$ver" = "$("$P/bin/faro_info" --parsable | sed -n 's/^version://p')" ] ||
        fail "$pc.pc has version '$ver', not Faro's"
    flags=$(pkg-config --cflags --libs "$pc") || { fail "pkg-config --cflags --libs $pc failed"; continue; }
    case " $flags " in *" -lfaro "*) ;; *) fail "$pc: no -lfaro in: $flags" ;; esac
    case " $flags " in *" -Wl,-rpath,"*) ;; *) fail "$pc: no rpath in: $flags" ;; esac
    # shellcheck disable=SC2086 # the flags are words
    cc -o "hello-$pc" "$HELLO_C" $flags || { fail "cc hello.c \$(pkg-config --cflags --libs $pc) failed"; continue; }
    check_links "./hello-$pc" "$P"
    check_runs "$P/bin/mpiexec" "./hello-$pc"
done
finish
