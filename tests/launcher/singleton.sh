#!/bin/sh
# Without a process manager a program is rank 0 of 1; a bad PMI_FD is reported.
PROBE=${PROBE:-tests/launcher/pmi_probe}
[ -x "$PROBE" ] || { echo "ERROR: $PROBE is not built" >&2; exit 99; }
out=$(env -u PMI_FD timeout 30 "$PROBE" kvs) || { echo "FAIL: singleton run: $out"; exit 1; }
echo "$out" | grep -q '^rank 0 of 1: kvs ok' || { echo "FAIL: $out"; exit 1; }

out=$(PMI_FD=57 PMI_RANK=0 PMI_SIZE=2 timeout 30 "$PROBE" kvs 2>&1)
[ $? -eq 98 ] || { echo "FAIL: a closed PMI_FD should fail init: $out"; exit 1; }
echo "$out" | grep -q 'PMI_FD=57 is not an open file descriptor' || { echo "FAIL: $out"; exit 1; }
out=$(PMI_FD=1 timeout 30 "$PROBE" kvs 2>&1)
echo "$out" | grep -q 'PMI_RANK or PMI_SIZE is not' || { echo "FAIL: $out"; exit 1; }
echo PASS
