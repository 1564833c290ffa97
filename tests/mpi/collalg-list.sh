#!/bin/sh
# collalg-list.sh: fail when tests/mpi/testlist-collalg is not what
# gen-testlist-collalg.py makes of coll/algorithms.def (a table changed and
# the list was not regenerated). Skipped (77) without python3.
here=$(dirname "$0")
srcdir=${srcdir:-$here/../..}
command -v python3 >/dev/null 2>&1 || { echo "collalg-list.sh: no python3: skipped" >&2; exit 77; }
exec python3 "$srcdir/tests/mpi/gen-testlist-collalg.py" --def "$srcdir/coll/algorithms.def" \
    --check "$srcdir/tests/mpi/testlist-collalg"
