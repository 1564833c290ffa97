// A server whose reported parameter layout differs from the program's cubin
// (faro-gpud --host-test wrong-layout, tests/gpu/gpu_client_e2e.sh): the
// client refuses the launch with cudaErrorInvalidKernelImage rather than
// packing the arguments by a layout it cannot trust.
#include <cstdio>
#include <cuda_runtime.h>

#include "gpu_client_expect.h"

#define expect(what, got, want) expect_at("gpu_client_layout", what, got, want)

__global__ void slowKernel(int ms)
{
    (void)ms;
}

int main()
{
    slowKernel<<<1, 1>>>(0);
    expect("a launch by a layout that differs from the cubin", cudaGetLastError(),
           cudaErrorInvalidKernelImage);
    std::printf("gpu_client_layout: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
