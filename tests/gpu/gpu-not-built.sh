#!/bin/sh
# Stands in for the GPU tests when configure left the GPU layer out: a skip
# with the reason configure gave (faro_info --parsable, gpu:note).
note=$(./faro_info --parsable 2>/dev/null | sed -n 's/^gpu:note://p')
echo "GPU tests: SKIP: the GPU offload layer is ${note:-not built}"
exit 77
