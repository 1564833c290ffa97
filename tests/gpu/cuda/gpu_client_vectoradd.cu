// An ordinary CUDA program (built with `nvcc -cudart shared`, run unchanged
// with LD_LIBRARY_PATH pointing at Faro's libcudart.so.13) against faro-gpud's
// host backend: tests/gpu/gpu_client_e2e.sh. The server runs the kernels from
// tests/gpu/gpu_client_host_kernels.c under the same mangled names. Checks
// the results of a vector add (copies both ways, in several chunks),
// cudaMemcpyDefault, memset, a __constant__ symbol, streams, events and async
// copies, device queries, and that a faulting kernel's sticky error surfaces
// at the next synchronizing call.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include "gpu_client_expect.h"

#define expect(what, got, want) expect_at("gpu_client_vectoradd", what, got, want)
#define CHECK(what, cond)                                                        \
    do {                                                                         \
        if (!(cond)) {                                                           \
            std::printf("gpu_client_vectoradd: FAIL: %s\n", what);               \
            failures++;                                                          \
        }                                                                        \
    } while (0)

__constant__ float scale_factor;

__global__ void vectorAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void scaleBy(float *x, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        x[i] *= scale_factor;
}
// (The host backend's kernels cannot read __constant__ memory: scaleBy is
// registered, and its symbol copied to and from, but not launched.)

int main()
{
    int count = 0;
    expect("cudaGetDeviceCount", cudaGetDeviceCount(&count), cudaSuccess);
    CHECK("one device or more", count >= 1);
    expect("cudaSetDevice(0)", cudaSetDevice(0), cudaSuccess);
    expect("cudaSetDevice(count)", cudaSetDevice(count), cudaErrorInvalidDevice);
    expect("last error after a bad device", cudaGetLastError(), cudaErrorInvalidDevice);
    cudaDeviceProp prop;
    expect("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    CHECK("device name", prop.name[0] != 0);
    CHECK("maxThreadsPerBlock", prop.maxThreadsPerBlock > 0);
    int warp = 0;
    expect("cudaDeviceGetAttribute", cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0), cudaSuccess);
    CHECK("warp size 32", warp == 32);

    expect("cudaSetDeviceFlags", cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), cudaSuccess);
    unsigned flags = 0;
    expect("cudaGetDeviceFlags", cudaGetDeviceFlags(&flags), cudaSuccess);
    CHECK("device flags kept", flags == cudaDeviceScheduleBlockingSync);
    cudaFuncAttributes fa;
    expect("cudaFuncGetAttributes", cudaFuncGetAttributes(&fa, (const void *)vectorAdd), cudaSuccess);
    CHECK("kernel's maxThreadsPerBlock", fa.maxThreadsPerBlock > 0);

    // Larger than one 1 MiB chunk: the copies go in several.
    const int n = 300000;
    size_t bytes = n * sizeof(float);
    float *ha = (float *)std::malloc(bytes), *hb = (float *)std::malloc(bytes), *hc = (float *)std::malloc(bytes);
    for (int i = 0; i < n; i++) {
        ha[i] = (float)i;
        hb[i] = 2.0f * i + 1;
    }
    float *da, *db, *dc;
    expect("cudaMalloc a", cudaMalloc((void **)&da, bytes), cudaSuccess);
    expect("cudaMalloc b", cudaMalloc((void **)&db, bytes), cudaSuccess);
    expect("cudaMalloc c", cudaMalloc((void **)&dc, bytes), cudaSuccess);
    expect("H2D a", cudaMemcpy(da, ha, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    expect("H2D b (cudaMemcpyDefault)", cudaMemcpy(db, hb, bytes, cudaMemcpyDefault), cudaSuccess);
    int threads = 256, blocks = (n + threads - 1) / threads;
    vectorAdd<<<blocks, threads>>>(da, db, dc, n);
    expect("launch", cudaGetLastError(), cudaSuccess);
    expect("D2H c (cudaMemcpyDefault)", cudaMemcpy(hc, dc, bytes, cudaMemcpyDefault), cudaSuccess);
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (hc[i] != 3.0f * i + 1 && bad++ < 3)
            std::printf("gpu_client_vectoradd: FAIL: c[%d] = %g, expected %g\n", i, hc[i], 3.0 * i + 1);
    failures += bad;

    // D2D and memset.
    expect("D2D", cudaMemcpy(db, dc, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    expect("memset", cudaMemset(da, 0, bytes), cudaSuccess);
    vectorAdd<<<blocks, threads>>>(da, db, dc, n);
    expect("D2H after memset", cudaMemcpy(hc, dc, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    CHECK("memset + D2D result", hc[7] == 22.0f && hc[n - 1] == 3.0f * (n - 1) + 1);

    // Pitched memory: a 3 x 100-byte block through padded rows and back.
    {
        unsigned char h2[300], back2[300];
        for (int i = 0; i < 300; i++)
            h2[i] = (unsigned char)(i * 7);
        void *d2 = nullptr;
        size_t pitch = 0;
        expect("cudaMallocPitch", cudaMallocPitch(&d2, &pitch, 100, 3), cudaSuccess);
        CHECK("pitch covers the width", pitch >= 100);
        expect("cudaMemset2D", cudaMemset2D(d2, pitch, 0xab, pitch, 3), cudaSuccess);
        expect("cudaMemcpy2D H2D", cudaMemcpy2D(d2, pitch, h2, 100, 100, 3, cudaMemcpyHostToDevice), cudaSuccess);
        std::memset(back2, 0, sizeof back2);
        expect("cudaMemcpy2D D2H", cudaMemcpy2D(back2, 100, d2, pitch, 100, 3, cudaMemcpyDeviceToHost), cudaSuccess);
        CHECK("2D round trip", std::memcmp(h2, back2, 300) == 0);
        unsigned char pad = 0;
        expect("padding byte", cudaMemcpy(&pad, (char *)d2 + pitch - 1, 1, cudaMemcpyDeviceToHost), cudaSuccess);
        CHECK("row padding keeps the memset value", pitch == 100 || pad == 0xab);
        expect("cudaMemcpy2D wider than the pitch", cudaMemcpy2D(back2, 50, d2, pitch, 100, 3, cudaMemcpyDeviceToHost),
               cudaErrorInvalidPitchValue);
        cudaGetLastError();
        expect("cudaFree pitched", cudaFree(d2), cudaSuccess);
    }

    // A __constant__ symbol.
    float f = 0.5f, back = 0;
    expect("cudaMemcpyToSymbol", cudaMemcpyToSymbol(scale_factor, &f, sizeof f), cudaSuccess);
    expect("cudaMemcpyFromSymbol", cudaMemcpyFromSymbol(&back, scale_factor, sizeof back), cudaSuccess);
    CHECK("symbol round trip", back == 0.5f);
    void *addr = nullptr;
    size_t ssize = 0;
    expect("cudaGetSymbolAddress", cudaGetSymbolAddress(&addr, scale_factor), cudaSuccess);
    expect("cudaGetSymbolSize", cudaGetSymbolSize(&ssize, scale_factor), cudaSuccess);
    CHECK("symbol address and size", addr != nullptr && ssize == sizeof(float));
    expect("copy from the symbol's address", cudaMemcpy(&back, addr, sizeof back, cudaMemcpyDefault), cudaSuccess);
    CHECK("symbol address holds the value", back == 0.5f);

    // Streams, events, async copies (as matrixMul-style programs make them).
    int drv = 0, rt = 0;
    expect("cudaDriverGetVersion", cudaDriverGetVersion(&drv), cudaSuccess);
    expect("cudaRuntimeGetVersion", cudaRuntimeGetVersion(&rt), cudaSuccess);
    CHECK("driver and runtime versions", drv > 0 && rt == 13000);
    expect("cudaProfilerStart", cudaProfilerStart(), cudaSuccess);
    cudaStream_t s;
    cudaEvent_t e0, e1;
    expect("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    expect("cudaEventCreate 0", cudaEventCreate(&e0), cudaSuccess);
    expect("cudaEventCreateWithFlags 1", cudaEventCreateWithFlags(&e1, cudaEventDefault), cudaSuccess);
    float *pinned;
    expect("cudaHostAlloc", cudaHostAlloc((void **)&pinned, bytes, cudaHostAllocDefault), cudaSuccess);
    for (int i = 0; i < n; i++)
        pinned[i] = 1.0f;
    expect("cudaEventRecord 0", cudaEventRecord(e0, s), cudaSuccess);
    expect("H2D async", cudaMemcpyAsync(da, pinned, bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
    vectorAdd<<<blocks, threads, 0, s>>>(da, da, dc, n);
    expect("D2H async", cudaMemcpyAsync(pinned, dc, bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
    expect("cudaEventRecord 1", cudaEventRecord(e1, s), cudaSuccess);
    expect("cudaStreamSynchronize", cudaStreamSynchronize(s), cudaSuccess);
    expect("cudaEventSynchronize", cudaEventSynchronize(e1), cudaSuccess);
    float ms = -1;
    expect("cudaEventElapsedTime", cudaEventElapsedTime(&ms, e0, e1), cudaSuccess);
    CHECK("elapsed time >= 0", ms >= 0);
    CHECK("async result", pinned[0] == 2.0f && pinned[n - 1] == 2.0f);
    expect("cudaStreamQuery", cudaStreamQuery(s), cudaSuccess);
    expect("cudaEventDestroy", cudaEventDestroy(e0), cudaSuccess);
    expect("cudaEventDestroy", cudaEventDestroy(e1), cudaSuccess);
    expect("cudaStreamDestroy", cudaStreamDestroy(s), cudaSuccess);
    expect("cudaFreeHost", cudaFreeHost(pinned), cudaSuccess);
    expect("cudaProfilerStop", cudaProfilerStop(), cudaSuccess);
    size_t fr = 0, tot = 0;
    expect("cudaMemGetInfo", cudaMemGetInfo(&fr, &tot), cudaSuccess);
    CHECK("mem info", tot > 0 && fr <= tot);

    // A launch the server refuses (2048 threads in a block): launches are
    // one-way, so the error comes at the next synchronizing call, once, and
    // is not sticky.
    vectorAdd<<<1, 2048>>>(da, db, dc, n);
    cudaError_t deferred = cudaDeviceSynchronize();
    CHECK("a refused launch is reported at the next sync", deferred != cudaSuccess);
    expect("and is then the last error", cudaGetLastError(), deferred);
    expect("cleared by cudaGetLastError", cudaGetLastError(), cudaSuccess);
    expect("the sync after is clean", cudaDeviceSynchronize(), cudaSuccess);
    expect("and the device still works", cudaMemcpy(hc, dc, 4, cudaMemcpyDeviceToHost), cudaSuccess);

    // A faulting kernel (out of an allocation): sticky at the next sync.
    vectorAdd<<<blocks, threads>>>(da, db, (float *)0x10, n);
    expect("sync after a faulting kernel", cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    expect("sticky: later call", cudaMemcpy(hc, dc, 4, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
    expect("sticky: last error stays", cudaGetLastError(), cudaErrorIllegalAddress);
    expect("cudaDeviceReset", cudaDeviceReset(), cudaSuccess);
    expect("usable after reset", cudaMalloc((void **)&da, 64), cudaSuccess);
    expect("free after reset", cudaFree(da), cudaSuccess);

    std::free(ha);
    std::free(hb);
    std::free(hc);
    std::printf("gpu_client_vectoradd: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
