/*
 * Host implementations of tests/gpu/cuda/gpucore_kernels.cu for faro-gpud's
 * host backend (--host-kernels; gpu/server/host_kernels.h), used by
 * tests/gpu/test-gpud-kernel.sh. Each reads its parameters from the packed
 * buffer at the offsets the cubin's .nv.info gives (the test checks those
 * offsets separately) and writes through the backend's view of the
 * session's memory, failing like a faulting kernel on a bad pointer.
 */
#include <stdint.h>
#include <string.h>

#include "gpu/server/host_kernels.h"
#include "gpu/wire/protocol.h"

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* gpucore_axpy(float *y, const float *x, float a, int n): offsets 0, 8, 16, 20 */
static int axpy(struct faro_gpu_host_ctx *c, const uint8_t *p, size_t len,
                const uint32_t grid[3], const uint32_t block[3])
{
    float a;
    int32_t n;
    if (len != 24)
        return FARO_GPU_ERR_INVALID_VALUE;
    memcpy(&a, p + 16, 4);
    memcpy(&n, p + 20, 4);
    uint64_t threads = (uint64_t)grid[0] * block[0];
    size_t m = n < 0 ? 0 : (size_t)n < threads ? (size_t)n : (size_t)threads;
    float *y = c->mem(c, u64_at(p), m * sizeof *y);
    const float *x = c->mem(c, u64_at(p + 8), m * sizeof *x);
    if (m && (!y || !x))
        return FARO_GPU_ERR_ILLEGAL_ADDRESS;
    for (size_t i = 0; i < m; i++)
        y[i] = a * x[i] + y[i];
    return 0;
}

/* gpucore_mix(double *out, struct mix m, unsigned long long u, short s):
 * offsets 0, 8 (i at +0, f +4, d +8, c +16), 32, 40 */
static int mix(struct faro_gpu_host_ctx *c, const uint8_t *p, size_t len,
               const uint32_t grid[3], const uint32_t block[3])
{
    int32_t i;
    float f;
    double d;
    int16_t s;
    (void)grid;
    (void)block;
    if (len != 42)
        return FARO_GPU_ERR_INVALID_VALUE;
    memcpy(&i, p + 8, 4);
    memcpy(&f, p + 12, 4);
    memcpy(&d, p + 16, 8);
    memcpy(&s, p + 40, 2);
    double *out = c->mem(c, u64_at(p), sizeof *out);
    if (!out)
        return FARO_GPU_ERR_ILLEGAL_ADDRESS;
    *out = i + f + d + (signed char)p[8 + 18] + (double)u64_at(p + 32) + s;
    return 0;
}

const struct faro_gpu_host_kernel faro_gpu_host_kernels[] = {
    { "_Z12gpucore_axpyPfPKffi", axpy },
    { "_Z11gpucore_mixPd3mixys", mix },
    { NULL, NULL },
};

const struct faro_gpu_host_var faro_gpu_host_vars[] = {
    { "gpucore_counter", sizeof(int) },
    { NULL, 0 },
};
