#!/bin/sh
# Faro's libcudart.so.13 exports exactly the names NVIDIA's exports, every one
# in version node libcudart.so.13, with soname libcudart.so.13, so that no
# program built with `nvcc -cudart shared` ever meets a missing symbol. Checked
# against the committed list (gpu/client/cudart-exports.txt) always, and
# against NVIDIA's library itself when it is installed. Run from the top build
# directory.
srcdir=${srcdir:-.}
lib=gpu/client/.libs/libcudart.so.13
list=$srcdir/gpu/client/cudart-exports.txt
nvidia=${CUDA_HOME:-/usr/local/cuda}/lib64/libcudart.so.13
[ -f "$lib" ] || { echo "ERROR: $lib is not built" >&2; exit 99; }
command -v readelf >/dev/null || { echo "SKIP: no readelf"; exit 77; }
tmp=${TMPDIR:-/tmp}/faro-cudart-exports-$$
trap 'rm -f "$tmp".*' EXIT
failures=0

# NAME@@NODE for every defined dynamic symbol but the version definition's own.
exports() {
    readelf -W --dyn-syms "$1" |
        awk '$7 != "UND" && $7 != "ABS" && ($5 == "GLOBAL" || $5 == "WEAK") && $8 != "" { print $8 }' |
        LC_ALL=C sort
}
exports "$lib" >"$tmp.ours"
grep -v '^#' "$list" | sed 's/$/@@libcudart.so.13/' | LC_ALL=C sort >"$tmp.list"
if ! cmp -s "$tmp.ours" "$tmp.list"; then
    echo "FAIL: $lib's exports differ from $list (< ours, > list):" >&2
    diff "$tmp.ours" "$tmp.list" | grep '^[<>]' | head -20 >&2
    failures=$((failures + 1))
fi
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != libcudart.so.13 ]; then
    echo "FAIL: $lib's soname is '$soname', expected libcudart.so.13" >&2
    failures=$((failures + 1))
fi
# The version definitions: the BASE entry (the soname) and one node.
nodes=$(readelf -V "$lib" | sed -n '/Version definition/,/Version needs/s/.*Flags: \([A-Za-z]*\).*Name: \([^ ]*\).*/\1:\2/p' | tr '\n' ' ')
if [ "$nodes" != "BASE:libcudart.so.13 none:libcudart.so.13 " ]; then
    echo "FAIL: $lib defines versions '$nodes', expected the base and the one node libcudart.so.13" >&2
    failures=$((failures + 1))
fi
n=$(wc -l <"$tmp.ours")
if [ -f "$nvidia" ]; then
    exports "$nvidia" >"$tmp.nvidia"
    if ! cmp -s "$tmp.ours" "$tmp.nvidia"; then
        echo "FAIL: $lib's exports differ from NVIDIA's $nvidia (< ours, > NVIDIA's;" \
             "refresh $list as its header says):" >&2
        diff "$tmp.ours" "$tmp.nvidia" | grep '^[<>]' | head -20 >&2
        failures=$((failures + 1))
    fi
    echo "$n exports compared with $nvidia"
else
    echo "$n exports compared with $list ($nvidia not installed)"
fi
[ $failures -eq 0 ] && echo "ok" && exit 0
exit 1
