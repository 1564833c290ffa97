#!/bin/sh
# gpu/client/stubgen.py refuses what would break the export surface: a stub
# for an export that returns something other than cudaError_t (by its known
# list, the __cuda* entry points, and the CUDA headers' declarations), and a
# FARO_CUDART_API definition that is not one of NVIDIA's exports; and it
# makes one stub and one version-script line per export otherwise. Run from
# the top build directory.
srcdir=${srcdir:-.}
gen=$srcdir/gpu/client/stubgen.py
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpu_client_stubgen.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
printf '# test list\ncudaGraphLaunch\ncudaMalloc\n' >"$dir/exports"
printf 'FARO_CUDART_API cudaError_t cudaMalloc(void **p, size_t n)\n{\n}\n' >"$dir/impl.c"
# gen EXTRA_EXPORT DECLS: runs stubgen with one more export and a declarations file.
gen() {
    { cat "$dir/exports"; [ -n "$1" ] && echo "$1"; } >"$dir/list"
    python3 "$gen" --exports "$dir/list" --decls "$2" --stubs "$dir/stubs.c" --map "$dir/map" \
        "$dir/impl.c" 2>"$dir/err"
}
printf 'extern cudaError_t cudaGraphLaunch(int g, int s);\nextern const char *cudaFooName(int e);\n' >"$dir/decls.i"

gen "" "$dir/decls.i" || fail "a valid list was refused: $(cat "$dir/err")"
grep -q '^FARO_CUDART_STUB(cudaGraphLaunch, 0)$' "$dir/stubs.c" || fail "no stub for cudaGraphLaunch"
grep -q 'cudaMalloc' "$dir/stubs.c" && fail "a stub for the implemented cudaMalloc"
[ "$(grep -c '^    cuda.*;$' "$dir/map")" = 2 ] || fail "the version script does not list the 2 exports"
grep -q '^libcudart.so.13 {$' "$dir/map" || fail "the version script has no node libcudart.so.13"

gen cudaFooName "$dir/decls.i" && fail "stubgen stubbed cudaFooName, declared returning const char *"
grep -q 'cudaFooName returns const char \*, not cudaError_t' "$dir/err" || fail "no message for cudaFooName: $(cat "$dir/err")"
gen cudaGetErrorString "$dir/decls.i" && fail "stubgen stubbed cudaGetErrorString"
gen __cudaRegisterVar "$dir/decls.i" && fail "stubgen stubbed __cudaRegisterVar"
gen cudaMallocPitch_ptds "$dir/decls.i" || fail "a _ptds name of an undeclared function was refused: $(cat "$dir/err")"

printf 'FARO_CUDART_API int faroExtra(void)\n{\n}\n' >>"$dir/impl.c"
gen "" "$dir/decls.i" && fail "stubgen accepted FARO_CUDART_API faroExtra, not an export"
grep -q 'faroExtra is not an export' "$dir/err" || fail "no message for faroExtra: $(cat "$dir/err")"

[ $failures -eq 0 ] && echo "ok" && exit 0
exit 1
