#!/bin/sh
# The predefined objects behind mpi.h's handles are part of the binary
# interface: a program copies them into itself at start-up with the size the
# library had when it was linked (ELF copy relocations). Each must be
# exported at the fixed size mpi.h promises for its kind
# (FARO_PREDEFINED_<KIND>_SIZE), so that a newer libfaro never hands an older
# program a truncated object. Run from the top build directory.
srcdir=${srcdir:-.}
lib=.libs/libfaro.so
hdr=$srcdir/include/mpi.h
[ -f "$lib" ] || { echo "ERROR: $lib is not built" >&2; exit 99; }
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }

size_of() { sed -n "s/^#define FARO_PREDEFINED_$1_SIZE \([0-9]*\)$/\1/p" "$hdr"; }
{
    sed -n 's/^FARO_PREDEFINED(faro_\([a-z]*\), \(faro_mpi_[a-z0-9_]*\))$/\1 \2/p' "$hdr"
    grep -o 'FARO_TYPE([a-z0-9_]*)' "$hdr" | grep -v '(name)' |
        sed 's/FARO_TYPE(\(.*\))/datatype faro_mpi_\1/'
} >"${TMPDIR:-/tmp}/faro-abi-$$.want"
syms=$(nm -D -S --defined-only "$lib")
failures=0 n=0
while read -r kind sym; do
    want=$(size_of "$(echo "$kind" | tr a-z A-Z)")
    got=$(echo "$syms" | awk -v s="$sym" '$4 == s { print $2 }')
    n=$((n + 1))
    if [ -z "$got" ]; then
        echo "FAIL: $sym is not exported by $lib" >&2; failures=$((failures + 1))
    elif [ $((0x$got)) -ne "$want" ]; then
        echo "FAIL: $sym is exported at $((0x$got)) bytes, mpi.h promises $want" >&2
        failures=$((failures + 1))
    fi
done <"${TMPDIR:-/tmp}/faro-abi-$$.want"
rm -f "${TMPDIR:-/tmp}/faro-abi-$$.want"
[ "$n" -gt 70 ] || { echo "FAIL: only $n predefined objects found in $hdr" >&2; exit 1; }
[ $failures -eq 0 ] || exit 1
echo "abi-sizes: $n predefined objects at their promised sizes"
