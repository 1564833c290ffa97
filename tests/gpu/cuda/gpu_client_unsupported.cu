// Built with `nvcc -cudart shared` and run against Faro's libcudart.so.13
// (tests/gpu/gpu_client_cuda.sh): exports the client does not implement
// answer cudaErrorNotSupported, record it as the last error, and say so once
// per function on stderr (the script counts the lines); a launch from an
// image with a __managed__ variable fails so too; the local calls answer
// without a server; registration before main says nothing.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "gpu_client_expect.h"

// A __managed__ variable is registered quietly; its image's first use fails.
__managed__ int managed_counter;

__global__ void bump()
{
    managed_counter++;
}

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

#define expect(what, got, want) expect_at("gpu_client_unsupported", what, got, want)

int main()
{
    int v = 0;
    expect("cudaRuntimeGetVersion", cudaRuntimeGetVersion(&v), cudaSuccess);
    if (v != 13000) {
        std::printf("gpu_client_unsupported: FAIL: runtime version %d, expected 13000\n", v);
        failures++;
    }
    expect("cudaGraphLaunch", cudaGraphLaunch(nullptr, 0), cudaErrorNotSupported);
    expect("cudaGraphLaunch again", cudaGraphLaunch(nullptr, 0), cudaErrorNotSupported);
    expect("last error after an unsupported call", cudaGetLastError(), cudaErrorNotSupported);
    expect("last error cleared", cudaGetLastError(), cudaSuccess);
    void *p = nullptr;
    expect("cudaMallocManaged", cudaMallocManaged(&p, 64, cudaMemAttachGlobal), cudaErrorNotSupported);
    bump<<<1, 1>>>();
    expect("launch from an image with a __managed__ variable", cudaGetLastError(), cudaErrorNotSupported);
    bump<<<1, 1>>>();
    expect("and again", cudaGetLastError(), cudaErrorNotSupported);
    if (std::strcmp(cudaGetErrorName(cudaErrorNotSupported), "cudaErrorNotSupported") != 0) {
        std::printf("gpu_client_unsupported: FAIL: cudaGetErrorName(801) is %s\n",
                    cudaGetErrorName(cudaErrorNotSupported));
        failures++;
    }
    std::printf("gpu_client_unsupported: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
