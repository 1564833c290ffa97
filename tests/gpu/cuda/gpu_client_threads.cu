// Several host threads use the one remote device at once
// (tests/gpu/gpu_client_e2e.sh): each allocates, copies in, launches, copies
// back and checks its own results, many times; another thread's errors are
// not its last error. The client serializes the session's requests.
#include <cstdio>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

#include "gpu_client_expect.h"

__global__ void vectorAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

static const int nthreads = 4, rounds = 20, n = 20000;
static int thread_failures[nthreads];

static void worker(int t)
{
    std::vector<float> a(n), b(n), c(n);
    float *da, *db, *dc;
    size_t bytes = n * sizeof(float);
    if (cudaMalloc((void **)&da, bytes) || cudaMalloc((void **)&db, bytes) || cudaMalloc((void **)&dc, bytes)) {
        thread_failures[t]++;
        return;
    }
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            a[i] = (float)(t * 1000 + r);
            b[i] = (float)i;
        }
        cudaError_t e = cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice);
        if (!e)
            e = cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice);
        if (!e) {
            vectorAdd<<<(n + 255) / 256, 256>>>(da, db, dc, n);
            e = cudaGetLastError();
        }
        if (!e)
            e = cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost);
        if (e) {
            std::printf("gpu_client_threads: FAIL: thread %d round %d: %s\n", t, r, cudaGetErrorName(e));
            thread_failures[t]++;
            return;
        }
        for (int i = 0; i < n; i++)
            if (c[i] != (float)(t * 1000 + r + i)) {
                std::printf("gpu_client_threads: FAIL: thread %d round %d: c[%d] = %g\n", t, r, i, c[i]);
                thread_failures[t]++;
                return;
            }
    }
    if (t == 0 && cudaSetDevice(99) != cudaErrorInvalidDevice)
        thread_failures[t]++;
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
}

int main()
{
    std::vector<std::thread> ts;
    for (int t = 0; t < nthreads; t++)
        ts.emplace_back(worker, t);
    for (auto &th : ts)
        th.join();
    for (int t = 0; t < nthreads; t++)
        failures += thread_failures[t];
    expect_at("gpu_client_threads", "main's last error (thread 0's is its own)", cudaGetLastError(), cudaSuccess);
    std::printf("gpu_client_threads: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
