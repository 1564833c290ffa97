/*
 * The host backend's kernels (tests only): a shared object given to
 * faro-gpud --host-kernels FILE.so exports `faro_gpu_host_kernels`, an array
 * of these ended by an entry whose name is NULL (and optionally
 * `faro_gpu_host_vars`, below). When a client launches a
 * kernel, the host backend finds it by mangled name and calls run once per
 * launch with the packed parameter buffer the client sent (laid out as the
 * cubin's .nv.info says), the grid and block, and a way to turn the device
 * pointers found in that buffer into host memory (NULL when the range is not
 * inside one of the session's allocations: the kernel then returns
 * FARO_GPU_ERR_ILLEGAL_ADDRESS, as a faulting GPU kernel would).
 *
 * This is not a GPU emulator: it exists so that nvcc-built test programs can
 * run end to end on machines without a GPU, with results a test can check.
 */
#ifndef FARO_GPU_HOST_KERNELS_H
#define FARO_GPU_HOST_KERNELS_H

#include <stddef.h>
#include <stdint.h>

struct faro_gpu_host_ctx {
    void *(*mem)(struct faro_gpu_host_ctx *c, uint64_t dptr, size_t len);
    void *priv;
};

struct faro_gpu_host_kernel {
    const char *name; /* mangled, e.g. "_Z9vectorAddPKfS0_Pfi" */
    /* 0, or a cudaError_t number (protocol.h's FARO_GPU_ERR_*) */
    int (*run)(struct faro_gpu_host_ctx *c, const uint8_t *params, size_t len,
               const uint32_t grid[3], const uint32_t block[3]);
};

/* Optional: `faro_gpu_host_vars`, the __device__ / __constant__ variables
 * the test's kernels use, by (mangled) name and size, ended by a NULL name.
 * The backend gives each its zeroed memory at the first lookup in a module. */
struct faro_gpu_host_var {
    const char *name;
    size_t size;
};

#define FARO_GPU_HOST_KERNELS_SYM "faro_gpu_host_kernels"
#define FARO_GPU_HOST_VARS_SYM "faro_gpu_host_vars"

#endif
