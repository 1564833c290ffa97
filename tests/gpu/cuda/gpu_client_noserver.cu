// Built with `nvcc -cudart shared` and run against Faro's libcudart.so.13
// without a reachable server (tests/gpu/gpu_client_cuda.sh): device calls and
// launches fail at once with a CUDA error (argv[1]: the expected number,
// cudaErrorNoDevice when FARO_GPU_SERVERS is unset, cudaErrorInitialization-
// Error when it names no server that answers), never hang, and the program
// goes on; the script checks the one message naming FARO_GPU_SERVERS.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "gpu_client_expect.h"

__global__ void add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

#define expect(what, got, want) expect_at("gpu_client_noserver", what, got, want)

int main(int argc, char **argv)
{
    cudaError_t want = (cudaError_t)(argc > 1 ? std::atoi(argv[1]) : (int)cudaErrorNoDevice);
    int count = -1;
    expect("cudaGetDeviceCount", cudaGetDeviceCount(&count), want);
    if (count != 0) {
        std::printf("gpu_client_noserver: FAIL: device count %d without a server, expected 0\n", count);
        failures++;
    }
    expect("last error", cudaGetLastError(), want);
    add<<<1, 32>>>(nullptr, nullptr, nullptr, 32);
    expect("launch", cudaGetLastError(), want);
    expect("cudaGetDeviceCount again", cudaGetDeviceCount(&count), want);
    std::printf("gpu_client_noserver: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
