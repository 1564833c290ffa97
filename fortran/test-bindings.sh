#!/bin/sh
# Every MPI function mpi.h declares has a Fortran binding (generated from
# api/*.api, or written by hand: api/apigen_fortran_hand.py) or a line in api/fortran-excluded.txt that
# says why not; a listed function that is bound now fails too; every _c
# function has its mpi_f08 large-count form or a reason in bindings.txt. Runs
# api/apigen.py fortran into a scratch directory, so it needs no Fortran
# compiler. Run from the top build directory (make check does).
#   exit 0 pass, 1 fail, 77 skip (python3 absent), 99 hard error
srcdir=${srcdir:-.}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/faro-fortran.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
files=$(sed -n '/^API_DESCRIPTIONS/,/[^\\]$/p' "$srcdir/man/Makefile.inc" |
        sed -e 's/^API_DESCRIPTIONS *=//' -e 's/\\//g')
[ -n "$files" ] || { echo "ERROR: no API_DESCRIPTIONS in man/Makefile.inc" >&2; exit 99; }
# shellcheck disable=SC2086
(cd "$srcdir" && python3 api/apigen.py fortran --mpi-h include/mpi.h --out "$tmp" \
     --excluded api/fortran-excluded.txt $files) || exit 1
# Every large-count function of mpi.h's generated block has its mpi_f08 form,
# or bindings.txt says why not.
missing=$(sed -n '/---- large counts (issue 18) ----/,/---- end of large counts ----/p' \
              "$srcdir/include/mpi.h" | sed -n 's/^FARO_API([^,]*, *\([A-Za-z0-9_]*_c\),.*/MPI_\1/p' |
          while read -r name; do
              grep -q "^$name mpi_f08 (large count\|^$name no large-count form" "$tmp/bindings.txt" ||
                  echo "$name"
          done)
[ -z "$missing" ] ||
    { echo "FAIL: mpi_f08 has no large-count form of, and bindings.txt no reason for:" $missing >&2
      exit 1; }
grep -q '^MPI_Send_c mpi_f08 (large count' "$tmp/bindings.txt" ||
    { echo "FAIL: MPI_Send_c is not a large-count form in mpi_f08" >&2; exit 1; }
# The check catches a function that is neither bound nor listed: drop a line.
grep -v '^MPI_Attr_put ' "$srcdir/api/fortran-excluded.txt" >"$tmp/excluded"
# shellcheck disable=SC2086
if (cd "$srcdir" && python3 api/apigen.py fortran --mpi-h include/mpi.h --out "$tmp" \
       --excluded "$tmp/excluded" $files) 2>"$tmp/err"; then
    echo "FAIL: MPI_Attr_put, neither bound nor listed, was not caught" >&2
    exit 1
fi
grep -q 'MPI_Attr_put has no Fortran binding' "$tmp/err" ||
    { echo "FAIL: the check failed, but not naming MPI_Attr_put: $(head -3 "$tmp/err")" >&2; exit 1; }
exit 0
