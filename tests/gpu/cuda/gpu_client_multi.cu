// Two servers in FARO_GPU_SERVERS make one device list
// (tests/gpu/gpu_client_e2e.sh runs this against two faro-gpud): the same
// kernel runs on each device with its own data (the image is shipped to each
// server), each device's memory used and freed while the device is current
// (the two servers hand out the same addresses).
#include <cstdio>
#include <cuda_runtime.h>

#include "gpu_client_expect.h"

#define expect(what, got, want) expect_at("gpu_client_multi", what, got, want)

__global__ void vectorAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main()
{
    int count = 0;
    expect("cudaGetDeviceCount", cudaGetDeviceCount(&count), cudaSuccess);
    if (count != 2) {
        std::printf("gpu_client_multi: FAIL: %d devices, expected 2 (one per server)\n", count);
        return 1;
    }
    const int n = 1000;
    float h[n], out[n];
    float *d[2][2];
    for (int dev = 0; dev < 2; dev++) {
        expect("cudaSetDevice", cudaSetDevice(dev), cudaSuccess);
        for (int i = 0; i < n; i++)
            h[i] = (float)(i + 1000 * dev);
        expect("cudaMalloc in", cudaMalloc((void **)&d[dev][0], sizeof h), cudaSuccess);
        expect("cudaMalloc out", cudaMalloc((void **)&d[dev][1], sizeof h), cudaSuccess);
        expect("H2D", cudaMemcpy(d[dev][0], h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
        vectorAdd<<<(n + 127) / 128, 128>>>(d[dev][0], d[dev][0], d[dev][1], n);
        expect("launch", cudaGetLastError(), cudaSuccess);
    }
    for (int dev = 0; dev < 2; dev++) {
        expect("cudaSetDevice", cudaSetDevice(dev), cudaSuccess);
        expect("D2H", cudaMemcpy(out, d[dev][1], sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int i = 0; i < n; i++)
            if (out[i] != 2.0f * (i + 1000 * dev)) {
                std::printf("gpu_client_multi: FAIL: device %d: out[%d] = %g\n", dev, i, out[i]);
                failures++;
                break;
            }
    }
    for (int dev = 0; dev < 2; dev++) {
        expect("cudaSetDevice", cudaSetDevice(dev), cudaSuccess);
        for (int k = 0; k < 2; k++)
            expect("cudaFree", cudaFree(d[dev][k]), cudaSuccess);
    }
    size_t fr = 0, tot = 0;
    for (int dev = 0; dev < 2; dev++) {
        expect("cudaSetDevice", cudaSetDevice(dev), cudaSuccess);
        expect("cudaMemGetInfo", cudaMemGetInfo(&fr, &tot), cudaSuccess);
        if (fr != tot) {
            std::printf("gpu_client_multi: FAIL: device %d: %zu of %zu bytes free after the frees\n", dev, fr, tot);
            failures++;
        }
    }
    std::printf("gpu_client_multi: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
