#!/bin/sh
# Every reference a Faro man page makes to a page of Faro's own kind (faro*,
# mpi*, MPI_*: NAME(SECTION) in .BR/.RB/.IR/.B lines) names a page Faro ships:
# man/manSECTION/NAME.SECTION in the source tree, or one made in the build
# tree (faro-tunables.7, and man/man3/MPI_*.3 generated from api/*.api), so
# no page sends readers to MPI_Foo(3) when Faro has no MPI_Foo. References
# to the system's pages (free(3), lstopo(1), fi_info(1)) are not checked.
# Run from the top build directory (make check does).
#   exit 0 pass, 1 fail, 99 hard error
srcdir=${srcdir:-.}
out=$(mktemp "${TMPDIR:-/tmp}/faro-man-refs.XXXXXX") || exit 99
trap 'rm -f "$out"' EXIT
failures=0
for page in "$srcdir"/man/man*/*.[0-9] man/faro-tunables.7 man/man3/MPI_*.3; do
    [ -f "$page" ] || continue
    # ".BR name (7)," and friends; roff's \- is a plain - in the name.
    refs=$(sed -n 's/^\.[BIR][BIR]* \([A-Za-z_.0-9\\-]*\) (\([0-9]\)).*/\1 \2/p' "$page" | sed 's/\\-/-/g')
    echo "$refs" | while read -r name sec; do
        case $name in faro*|mpi*|MPI_*) ;; *) continue ;; esac
        [ -f "$srcdir/man/man$sec/$name.$sec" ] && continue
        [ -f "man/man$sec/$name.$sec" ] && continue
        # a build without python3 has no section 3 pages (configure says so)
        [ "$sec" = 3 ] && [ ! -f man/man3.stamp ] && continue
        [ "$name.$sec" = faro-tunables.7 ] && [ -f man/faro-tunables.7 ] && continue
        echo "FAIL: $page refers to $name($sec), which Faro does not ship"
    done
done > "$out"
if [ -s "$out" ]; then
    sort -u "$out" >&2
    failures=$(sort -u "$out" | wc -l)
fi
[ "$failures" -eq 0 ] || { echo "$failures reference(s) to missing pages" >&2; exit 1; }
echo "man pages: every reference to a Faro page resolves"
exit 0
