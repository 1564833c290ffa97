#!/bin/sh
# The API description (api/*.api) and the section 3 pages made from it:
#  1. the description agrees with mpi.h: every function mpi.h declares is
#     described, nothing described is missing from mpi.h unless marked
#     planned, every tunable a page names is in the tunables table
#     (apigen.py check);
#     and the generated large-count block of mpi.h and src/bigcount/calls_c.c
#     are current (apigen.py bigcount --check);
#  2. every prototype in the description is the one mpi.h declares, the _c
#     forms included: a C file that redeclares each function as described
#     compiles after mpi.h (the compiler refuses "conflicting types"); and a
#     deliberately broken prototype is caught, so the check itself is known
#     to work;
#  3. every MPI_ and PMPI_ function that libfaro exports has its page;
#  4. every page renders without a warning (groff -man -ww) and has a NAME
#     line that whatis/apropos can read.
# References between pages are test-man-refs.sh's. Run from the top build
# directory (make check does).
#   exit 0 pass, 1 fail, 77 skip (python3 or the pages absent), 99 hard error
srcdir=${srcdir:-.}
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
[ -f man/man3.stamp ] || { echo "SKIP: the section 3 pages were not built (configure found no python3)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/faro-api.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
api="$srcdir/api"
# Every description file (the build's list is API_DESCRIPTIONS in
# man/Makefile.inc; a file left out of it shows as pages missing below).
files=$(ls "$api"/*.api)
[ -n "$files" ] || { echo "ERROR: no api/*.api in $srcdir" >&2; exit 99; }

# 1. description against mpi.h and the tunables table
tunables=$(find "$srcdir" -name '*tunables*.def' -not -path '*/_build*' -exec sed -n 's/^FARO_TUNABLE(\([A-Z0-9_]*\),.*/\1/p' {} +)
[ -n "$tunables" ] || { echo "ERROR: no tunables found in $srcdir" >&2; exit 99; }
# shellcheck disable=SC2086
python3 "$api/apigen.py" check --mpi-h "$srcdir/include/mpi.h" --tunables $tunables -- $files ||
    fail "the API description disagrees with mpi.h (above)"

# 1b. the generated large-count bindings (mpi.h's _c block, src/bigcount/calls_c.c)
# are what the description makes now
# shellcheck disable=SC2086
python3 "$api/apigen.py" bigcount --check --mpi-h "$srcdir/include/mpi.h" \
    --wide "$srcdir/src/bigcount/wide.h" --c "$srcdir/src/bigcount/calls_c.c" $files ||
    fail "the large-count bindings are stale (above)"

# 2. prototypes, compiled with the compiler that built Faro
CC=$(sed -n 's/^CC = //p' Makefile)
CC=${CC:-cc}
protos() { # FILES... -> does the redeclaration file compile?
    # shellcheck disable=SC2086
    python3 "$api/apigen.py" protos --mpi-h "$srcdir/include/mpi.h" "$@" >"$tmp/protos.c" &&
        $CC -std=c11 -I"$srcdir/include" -c "$tmp/protos.c" -o "$tmp/protos.o" 2>"$tmp/cc.err"
}
# shellcheck disable=SC2086
if ! protos $files; then
    grep -E 'error|note' "$tmp/cc.err" | head -20 >&2
    # name the description of each function the compiler refused
    sed -n "s/^.*protos\.c:\([0-9]*\):[0-9]*: error: conflicting types for .\(MPI_[A-Za-z0-9_]*\).*/\1 \2/p" "$tmp/cc.err" |
        while read -r line fn; do
            echo "FAIL: $fn: $(sed -n "$((line - 1))s|^/\* \(.*\) \*/$|\1|p" "$tmp/protos.c") describes it differently from mpi.h" >&2
        done
    fail "a prototype in api/*.api differs from mpi.h's declaration (above)"
fi
# The check catches a broken prototype: MPI_Send with a long count.
sed '/^MPI_Send$/,/^$/s/| int count /| long count/' "$api/p2p.api" >"$tmp/p2p.api"
cmp -s "$api/p2p.api" "$tmp/p2p.api" && { echo "ERROR: could not break MPI_Send's prototype for the self-check" >&2; exit 99; }
# shellcheck disable=SC2086
if protos $(echo $files | tr ' ' '\n' | sed "s|^.*/p2p\.api$|$tmp/p2p.api|"); then
    fail "a wrong prototype (MPI_Send with a long count) was not caught"
elif ! grep -q "conflicting types for .*MPI_Send" "$tmp/cc.err"; then
    fail "a wrong prototype of MPI_Send failed to compile, but not as conflicting types: $(head -3 "$tmp/cc.err")"
fi

# 3. a page for every exported function
lib=.libs/libfaro.so
if [ -f "$lib" ] && command -v nm >/dev/null 2>&1; then
    nm -D --defined-only "$lib" | sed -n 's/.* [TW] \(P\{0,1\}MPI_[A-Za-z0-9_]*\)$/\1/p' | sort -u >"$tmp/exported"
    [ -s "$tmp/exported" ] || fail "no MPI_ functions found in $lib"
    while read -r fn; do
        [ -f "man/man3/$fn.3" ] || fail "$fn is exported by libfaro but has no page man/man3/$fn.3"
    done <"$tmp/exported"
    echo "api: $(wc -l <"$tmp/exported") exported MPI_/PMPI_ functions, each with a page"
else
    echo "note: $lib or nm absent: the exported functions are not checked"
fi

# 4. every page renders cleanly and has a NAME line
pages=0
for page in man/man3/MPI_*.3; do
    [ -f "$page" ] || continue
    grep -q '^\.so ' "$page" && continue # a _c form: a link to its int form's page (below)
    pages=$((pages + 1))
    if command -v groff >/dev/null 2>&1; then
        out=$(groff -man -ww -z "$page" 2>&1)
        [ -z "$out" ] || fail "$page: groff warns: $out"
    fi
    name=$(basename "$page" .3)
    grep -q "^$name \\\\- [a-z]" "$page" || fail "$page has no NAME line '$name \\- summary'"
done
for page in man/man3/PMPI_*.3 man/man3/MPI_*_c.3; do
    [ -f "$page" ] || continue
    case $page in man/man3/MPI_*) grep -q '^\.so ' "$page" || continue ;; esac # a page of its own
    target=$(sed -n 's/^\.so man3\///p' "$page")
    [ -f "man/man3/$target" ] || fail "$page links to man3/$target, which is not there"
done
[ $pages -gt 0 ] || fail "no pages in man/man3"
command -v groff >/dev/null 2>&1 || echo "note: groff is not installed; pages not rendered"
[ $failures -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
echo "api: $pages section 3 pages agree with mpi.h and render without warnings"
exit 0
