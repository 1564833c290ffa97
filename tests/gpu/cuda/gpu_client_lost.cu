// The server goes away under a running program (tests/gpu/gpu_client_e2e.sh):
// after "ready" the script kills faro-gpud and writes a line; every call then
// fails at once with the sticky cudaErrorDevicesUnavailable, none hangs.
#include <cstdio>
#include <cuda_runtime.h>

#include "gpu_client_expect.h"

#define expect(what, got, want) expect_at("gpu_client_lost", what, got, want)

int main()
{
    static char host[1 << 20];
    void *d = nullptr;
    expect("cudaMalloc before", cudaMalloc(&d, sizeof host), cudaSuccess);
    expect("cudaMemcpy before", cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice), cudaSuccess);
    std::printf("ready\n");
    std::fflush(stdout);
    char line[16];
    if (!std::fgets(line, sizeof line, stdin))
        return 2;
    expect("cudaMemcpy after the server died",
           cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice), cudaErrorDevicesUnavailable);
    expect("cudaMalloc after", cudaMalloc(&d, 64), cudaErrorDevicesUnavailable);
    expect("cudaDeviceSynchronize after", cudaDeviceSynchronize(), cudaErrorDevicesUnavailable);
    expect("last error stays", cudaGetLastError(), cudaErrorDevicesUnavailable);
    std::printf("gpu_client_lost: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
