/*
 * Host implementations of tests/gpu/cuda/gpu_client_vectoradd.cu's kernels
 * (and gpu_client_lostwait.cu's slowKernel)
 * for faro-gpud's host backend (--host-kernels; gpu/server/host_kernels.h),
 * used by tests/gpu/gpu_client_e2e.sh. Parameters are read at the offsets
 * the cubin gives (pointers at 0, 8, 16, int at 24); a pointer outside the
 * session's memory fails like a faulting kernel. The program's __constant__
 * variable is listed so that the backend gives it memory.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "gpu/server/host_kernels.h"
#include "gpu/wire/protocol.h"

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The elements a launch covers: min(n, grid * block). */
static size_t covered(int32_t n, const uint32_t grid[3], const uint32_t block[3])
{
    uint64_t threads = (uint64_t)grid[0] * block[0];
    return n < 0 ? 0 : (size_t)n < threads ? (size_t)n : (size_t)threads;
}

/* vectorAdd(const float *a, const float *b, float *c, int n) */
static int vector_add(struct faro_gpu_host_ctx *c, const uint8_t *p, size_t len,
                      const uint32_t grid[3], const uint32_t block[3])
{
    int32_t n;
    if (len != 28)
        return FARO_GPU_ERR_INVALID_VALUE;
    memcpy(&n, p + 24, 4);
    size_t m = covered(n, grid, block);
    const float *a = c->mem(c, u64_at(p), m * sizeof *a);
    const float *b = c->mem(c, u64_at(p + 8), m * sizeof *b);
    float *out = c->mem(c, u64_at(p + 16), m * sizeof *out);
    if (m && (!a || !b || !out))
        return FARO_GPU_ERR_ILLEGAL_ADDRESS;
    for (size_t i = 0; i < m; i++)
        out[i] = a[i] + b[i];
    return 0;
}

/* slowKernel(int ms) of gpu_client_lostwait.cu: takes ms milliseconds, so
 * that the test can kill the server while the client waits */
static int slow_kernel(struct faro_gpu_host_ctx *c, const uint8_t *p, size_t len,
                       const uint32_t grid[3], const uint32_t block[3])
{
    int32_t ms;
    (void)c, (void)grid, (void)block;
    if (len != 4)
        return FARO_GPU_ERR_INVALID_VALUE;
    memcpy(&ms, p, 4);
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
    return 0;
}

const struct faro_gpu_host_kernel faro_gpu_host_kernels[] = {
    { "_Z9vectorAddPKfS0_Pfi", vector_add },
    { "_Z10slowKerneli", slow_kernel },
    { NULL, NULL },
};

const struct faro_gpu_host_var faro_gpu_host_vars[] = {
    { "scale_factor", sizeof(float) },
    { NULL, 0 },
};
