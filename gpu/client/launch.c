/*
 * Launches. nvcc turns k<<<g, b, s, st>>>(args) into
 *   __cudaPushCallConfiguration(g, b, s, st)   at the call site
 *   __cudaGetKernel(&h, stub)                   once per kernel (cached)
 *   __cudaPopCallConfiguration(&g, &b, &s, &st) in the kernel's host stub
 *   __cudaLaunchKernel(h, g, b, args, s, st)    args[i] points at parameter i
 * The configuration is per thread and pushed before the arguments are
 * evaluated, which may themselves launch: a small per-thread stack.
 *
 * args carries no sizes: the kernel's parameter layout (offsets and sizes,
 * from the server's KERNEL_GET, cross-checked with the cubin's .nv.info)
 * says how to pack them into the one buffer a launch ships
 * (faro_cudart_pack_args). The remote half is runtime.c's
 * faro_cudart_launch_remote.
 */
#include <string.h>

#include "gpu/client/cudart.h"
#include "gpu/client/remote.h"

#define CALL_CONFIG_DEPTH 16

typedef struct call_config {
    dim3 grid, block;
    size_t shared;
    void *stream;
} call_config_t;

static _Thread_local call_config_t config_stack[CALL_CONFIG_DEPTH];
static _Thread_local unsigned config_depth;

FARO_CUDART_API unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared,
                                                     struct CUstream_st *stream)
{
    if (config_depth == CALL_CONFIG_DEPTH) {
        faro_cudart_msg("more than %d kernel launch configurations nested in one thread",
                        CALL_CONFIG_DEPTH);
        return 1;
    }
    config_stack[config_depth++] = (call_config_t){grid, block, shared, stream};
    return 0;
}

FARO_CUDART_API cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared,
                                                       void *stream)
{
    if (config_depth == 0)
        return faro_cudart_fail(cudaErrorMissingConfiguration);
    call_config_t *c = &config_stack[--config_depth];
    *grid = c->grid;
    *block = c->block;
    *shared = c->shared;
    *(void **)stream = c->stream;
    return cudaSuccess;
}

cudaError_t faro_cudart_pack_args(const faro_kparam_t *params, unsigned nparams,
                                  size_t param_bytes, void **args, uint8_t *buf)
{
    if (nparams > 0 && !args)
        return cudaErrorInvalidValue;
    for (unsigned i = 0; i < nparams; i++)
        if ((size_t)params[i].offset + params[i].size > param_bytes || !args[i])
            return cudaErrorInvalidValue;
    memset(buf, 0, param_bytes);
    for (unsigned i = 0; i < nparams; i++)
        memcpy(buf + params[i].offset, args[i], params[i].size);
    return cudaSuccess;
}

FARO_CUDART_API cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *host_fun)
{
    faro_cudart_kernel_t *k = faro_cudart_find_kernel(host_fun);
    if (!kernel)
        return faro_cudart_fail(cudaErrorInvalidValue);
    if (!k)
        return faro_cudart_fail(cudaErrorInvalidDeviceFunction);
    *kernel = (cudaKernel_t)k;
    return cudaSuccess;
}

static cudaError_t launch(faro_cudart_kernel_t *k, dim3 grid, dim3 block, void **args,
                          size_t shared, cudaStream_t stream)
{
    cudaError_t err = faro_cudart_check_sticky();
    if (err != cudaSuccess)
        return err;
    if (!k)
        return faro_cudart_fail(cudaErrorInvalidDeviceFunction);
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
        return faro_cudart_fail(cudaErrorInvalidConfiguration);
    return faro_cudart_fail(faro_cudart_launch_remote(k, grid, block, args, shared, stream));
}

/* The handle is what __cudaGetKernel gave: our record. */
FARO_CUDART_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                               void **args, size_t shared, cudaStream_t stream)
{
    return launch((faro_cudart_kernel_t *)kernel, grid, block, args, shared, stream);
}

/* Per-thread default stream: served as the legacy default stream, which
 * orders more strictly and gives the same results (docs/gpu.md). */
FARO_CUDART_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                    void **args, size_t shared,
                                                    cudaStream_t stream)
{
    return launch((faro_cudart_kernel_t *)kernel, grid, block, args, shared,
                  faro_cudart_stream(stream));
}

/* func is the kernel's host stub (the address a program names). */
FARO_CUDART_API cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                                             size_t shared, cudaStream_t stream)
{
    return launch(faro_cudart_find_kernel(func), grid, block, args, shared, stream);
}

FARO_CUDART_API cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block,
                                                  void **args, size_t shared, cudaStream_t stream)
{
    return launch(faro_cudart_find_kernel(func), grid, block, args, shared,
                  faro_cudart_stream(stream));
}
