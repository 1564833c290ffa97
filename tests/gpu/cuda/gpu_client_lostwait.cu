// The server dies while the program waits in cudaDeviceSynchronize and sends
// nothing (tests/gpu/gpu_client_e2e.sh): only the loss reported by the
// transport can end the wait. The kernel's host implementation
// (gpu_client_host_kernels.c) sleeps for ms milliseconds; the script kills
// faro-gpud after "syncing". The wait must end with the sticky
// cudaErrorDevicesUnavailable, not hang.
#include <cstdio>
#include <cuda_runtime.h>

#include "gpu_client_expect.h"

#define expect(what, got, want) expect_at("gpu_client_lostwait", what, got, want)

__global__ void slowKernel(int ms)
{
    (void)ms;
}

int main()
{
    slowKernel<<<1, 1>>>(5000);
    expect("the launch", cudaGetLastError(), cudaSuccess);
    std::printf("syncing\n");
    std::fflush(stdout);
    expect("cudaDeviceSynchronize while the server dies", cudaDeviceSynchronize(),
           cudaErrorDevicesUnavailable);
    std::printf("gpu_client_lostwait: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
