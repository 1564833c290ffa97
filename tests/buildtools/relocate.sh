#!/bin/sh
# A copied installation works: `make install prefix=X`, copy X to Y, remove X;
# then Y's mpicc builds a program that runs under Y's mpiexec and loads Y's
# libfaro, faro_info reports Y, pkg-config answers with Y's paths, and
# FARO_PREFIX names an installation explicitly (a wrong one is refused with a
# message). A wrapper copied away alone still uses the installation it came
# from; `man -M Y/share/man MPI_Send` opens the installed page. Run from the
# top build directory.
. "${srcdir:-.}/tests/buildtools/common.sh"
need flock "util-linux"

faro_install "$TMP/x"
cp -a "$TMP/x" "$TMP/y" && rm -rf "$TMP/x" || exit 99
Y=$TMP/y

# The wrappers find their prefix from where they are.
for w in mpicc mpicxx; do
    out=$("$Y/bin/$w" -showme:incdirs)
    [ "$out" = "$Y/include" ] || fail "$w in the copy uses include dir '$out', not $Y/include"
    out=$("$Y/bin/$w" -showme:link)
    case $out in *"-L$Y/lib -Wl,-rpath,$Y/lib"*) ;; *) fail "$w in the copy links with: $out" ;; esac
done
cd "$TMP" || exit 99
"$Y/bin/mpicc" -o hello "$HELLO_C" || fail "the copy's mpicc cannot build hello.c"
if [ -x hello ]; then
    check_links ./hello "$Y"
    check_runs "$Y/bin/mpiexec" ./hello
    check_runs "$Y/bin/mpirun" ./hello
fi

# Through a symbolic link to the wrapper (a bin directory on PATH that links
# into the installation), the real location counts.
mkdir links && ln -s "$Y/bin/mpicc" links/mpicc
[ "$(links/mpicc -showme:incdirs)" = "$Y/include" ] || fail "mpicc through a symlink: $(links/mpicc -showme:incdirs)"

# A wrapper copied away alone keeps to the installation it was installed to
# (gone here), rather than guessing from where it now is.
mkdir alone && cp "$Y/bin/mpicc" alone/
[ "$(alone/mpicc -showme:incdirs)" = "$TMP/x/include" ] ||
    fail "a lone copy of mpicc uses $(alone/mpicc -showme:incdirs), not the installed $TMP/x/include"
# ... and FARO_PREFIX points it (and faro_info) at an installation.
[ "$(FARO_PREFIX=$Y alone/mpicc -showme:incdirs)" = "$Y/include" ] || fail "FARO_PREFIX is not used by mpicc"
err=$(FARO_PREFIX="$TMP/nowhere" "$Y/bin/mpicc" -show x.c 2>&1) && fail "mpicc accepted FARO_PREFIX=$TMP/nowhere"
case $err in *"FARO_PREFIX=$TMP/nowhere: no $TMP/nowhere/include/mpi.h there"*) ;;
    *) fail "mpicc with a bad FARO_PREFIX: unclear message: $err" ;; esac

# faro_info runs from the copy and names it.
out=$("$Y/bin/faro_info" --prefix) || fail "faro_info --prefix exited $?"
[ "$out" = "$Y" ] || fail "faro_info --prefix in the copy: '$out', expected $Y"
out=$("$Y/bin/faro_info" --parsable) || fail "faro_info --parsable exited $?"
for kv in "path:prefix:$Y" "path:prefix_source:location" "path:bindir:$Y/bin" "path:libdir:$Y/lib" \
          "path:includedir:$Y/include" "path:pkgconfigdir:$Y/lib/pkgconfig"; do
    echo "$out" | grep -qxF "$kv" || fail "faro_info --parsable in the copy lacks '$kv'"
done
"$Y/bin/faro_info" >/dev/null || fail "faro_info in the copy exited $?"
out=$(FARO_PREFIX=$Y "$TMP/y/bin/faro_info" --parsable | grep '^path:prefix_source:')
[ "$out" = "path:prefix_source:FARO_PREFIX" ] || fail "faro_info ignores FARO_PREFIX: $out"
err=$(FARO_PREFIX="$TMP/nowhere" "$Y/bin/faro_info" --prefix 2>&1) && fail "faro_info accepted FARO_PREFIX=$TMP/nowhere"
case $err in *"FARO_PREFIX=$TMP/nowhere holds no Faro installation"*) ;;
    *) fail "faro_info with a bad FARO_PREFIX: unclear message: $err" ;; esac

# The section 3 pages are installed and found in the copy (when they were
# built: configure needs python3 for them), PMPI_ names through .so links.
if [ -f "$top_builddir/man/man3.stamp" ]; then
    for fn in MPI_Send MPI_Allreduce MPI_Comm_spawn MPI_Win_create; do
        [ -f "$Y/share/man/man3/$fn.3" ] || fail "make install did not install $fn.3 in share/man/man3"
    done
    if command -v man >/dev/null 2>&1; then
        for fn in MPI_Send PMPI_Send; do
            out=$(MANPATH= man -M "$Y/share/man" -w "$fn" 2>&1)
            # man-db follows PMPI_Send.3's .so link to MPI_Send.3
            case $out in "$Y/share/man/man3/$fn.3" | "$Y/share/man/man3/MPI_Send.3") ;;
                *) fail "man -M $Y/share/man -w $fn: $out" ;; esac
            text=$(MANPATH= MANWIDTH=80 man -M "$Y/share/man" "$fn" 2>&1 | col -b 2>/dev/null)
            case $text in *"MPI_Send - send a message"*) ;; *) fail "man -M $Y/share/man $fn shows: $(echo "$text" | head -5)" ;; esac
        done
    else
        echo "note: man is not installed; the installed pages are not opened"
    fi
else
    echo "note: the section 3 pages were not built (no python3 at configure time)"
fi

# pkg-config answers with the copy's paths.
if command -v pkg-config >/dev/null 2>&1; then
    out=$(PKG_CONFIG_PATH="$Y/lib/pkgconfig" pkg-config --cflags faro)
    inc=$(echo "$out" | sed -n 's/^-I\([^ ]*\).*/\1/p')
    [ -f "$inc/mpi.h" ] && [ "$(cd "$inc" && pwd -P)" = "$Y/include" ] ||
        fail "pkg-config --cflags faro in the copy: $out"
else
    echo "note: pkg-config is not installed; its paths are not checked here"
fi
finish
