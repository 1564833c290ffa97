/*
 * Images, kernels and variables on the server: each registered fatbin is
 * shipped once (MODULE_LOAD, in chunks) at the first use of one of its
 * kernels or variables; each kernel's handle and parameter layout are asked
 * once (KERNEL_GET) and cross-checked with the client's own parse of the
 * image's cubin (gpu/common/fatbin.h) where it has one: a layout that
 * differs is refused (cudaErrorInvalidKernelImage, with a message), since
 * packing by a wrong layout would hand the kernel garbage. Each variable's
 * device address is asked once (VAR_GET).
 *
 * What the server gave is kept in the registry's records (register.c) under
 * module_lock; cudaDeviceReset forgets it all (the server freed it).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/client/remote.h"

static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t module_generation = 1; /* bumped by cudaDeviceReset */

/* Managed memory is not supported: an image with __managed__ variables
 * fails at its first use, with or without a server. */
static cudaError_t check_managed(const faro_cudart_fatbin_t *fb)
{
    static int once;
    if (fb && fb->nmanaged > 0)
        return faro_cudart_unsupported("__managed__ memory (__cudaRegisterManagedVar)", &once);
    return cudaSuccess;
}

/* The image's module on device dev's server (module_lock held). */
static cudaError_t ensure_module(faro_cudart_fatbin_t *fb, int dev)
{
    int si = faro_cudart_session_index(dev);
    cudaError_t err = check_managed(fb);
    if (err != cudaSuccess)
        return err;
    if (fb->server_module[si] && fb->generation[si] == module_generation)
        return cudaSuccess;
    if (!fb->image || fb->image_size == 0)
        return cudaErrorInvalidKernelImage;
    size_t chunk = faro_cudart_chunk();
    faro_cudart_sess_t *sess;
    err = faro_cudart_begin_on(dev, &sess);
    if (err != cudaSuccess)
        return err;
    faro_cudart_reply_t r = {0};
    for (size_t off = 0; off < fb->image_size && err == cudaSuccess; off += chunk) {
        size_t len = fb->image_size - off < chunk ? fb->image_size - off : chunk;
        int last = off + len == fb->image_size;
        uint64_t a[FARO_GPU_ARGS_MAX] = {fb->image_size, off, (uint64_t)(uintptr_t)fb};
        err = faro_cudart_send_locked(sess, FARO_GPU_OP_MODULE_LOAD, a, NULL, fb->image + off, len,
                                      last ? FARO_GPU_F_LAST : 0, last ? &r : NULL);
    }
    faro_cudart_end(sess);
    if (err == cudaSuccess) {
        fb->server_module[si] = r.a[0];
        fb->generation[si] = module_generation;
    }
    return err;
}

/* Whether the server's layout agrees with the cubin's, where there is one. */
static cudaError_t cross_check(faro_cudart_kernel_t *k)
{
    faro_kparam_t local[FARO_GPU_PARAMS_MAX];
    unsigned n = 0;
    size_t total = 0;
    int rc = faro_fatbin_params(k->fatbin->image, k->fatbin->image_size, k->name, local,
                                FARO_GPU_PARAMS_MAX, &n, &total);
    if (rc != FARO_FATBIN_OK)
        return cudaSuccess; /* no cubin with it here (PTX only, or compressed without codec) */
    int same = n == k->nparams && total == k->param_bytes;
    for (unsigned i = 0; same && i < n; i++)
        same = local[i].offset == k->params[i].offset && local[i].size == k->params[i].size;
    if (!same) {
        faro_cudart_msg("kernel %s: the server's parameter layout (%u parameters, %zu bytes) "
                        "differs from the program's cubin (%u parameters, %zu bytes); not "
                        "launched", k->name, k->nparams, k->param_bytes, n, total);
        return cudaErrorInvalidKernelImage;
    }
    return cudaSuccess;
}

/* The kernel's handle on device dev's server and its layout (module_lock
 * held). */
static cudaError_t ensure_kernel(faro_cudart_kernel_t *k, int dev)
{
    int si = faro_cudart_session_index(dev);
    cudaError_t err = ensure_module(k->fatbin, dev);
    if (err != cudaSuccess)
        return err;
    if (k->server_kernel[si] && k->generation[si] == module_generation)
        return cudaSuccess;
    uint32_t *pairs = malloc(2 * FARO_GPU_PARAMS_MAX * sizeof *pairs);
    if (!pairs)
        return cudaErrorMemoryAllocation;
    uint64_t a[FARO_GPU_ARGS_MAX] = {k->fatbin->server_module[si]};
    faro_cudart_reply_t r = {.tail = pairs, .tail_max = FARO_GPU_PARAMS_MAX};
    err = faro_cudart_call_on(dev, FARO_GPU_OP_KERNEL_GET, a, NULL, k->name, strlen(k->name), 0,
                              &r);
    if (err == cudaSuccess) {
        faro_kparam_t *params = calloc(r.ntail ? r.ntail : 1, sizeof *params);
        if (!params) {
            free(pairs);
            return cudaErrorMemoryAllocation;
        }
        for (uint32_t i = 0; i < r.ntail; i++) {
            params[i].offset = (uint16_t)pairs[2 * i];
            params[i].size = (uint16_t)pairs[2 * i + 1];
        }
        free(k->params);
        k->params = params;
        k->nparams = r.ntail;
        k->param_bytes = (size_t)r.a[2];
        k->server_kernel[si] = r.a[0];
        k->generation[si] = module_generation;
        err = cross_check(k);
        if (err != cudaSuccess)
            k->server_kernel[si] = 0;
    }
    free(pairs);
    return err;
}

cudaError_t faro_cudart_launch_remote(faro_cudart_kernel_t *k, dim3 grid, dim3 block,
                                      void **args, size_t shared, cudaStream_t stream)
{
    cudaError_t err = check_managed(k->fatbin);
    if (err != cudaSuccess)
        return err;
    err = faro_cudart_connect();
    if (err != cudaSuccess)
        return err;
    int dev = faro_cudart_current_device();
    pthread_mutex_lock(&module_lock);
    err = ensure_kernel(k, dev);
    uint64_t kernel = k->server_kernel[faro_cudart_session_index(dev)];
    size_t bytes = k->param_bytes;
    uint8_t buf[FARO_GPU_PARAM_BYTES_MAX];
    if (err == cudaSuccess && bytes > sizeof buf)
        err = cudaErrorInvalidKernelImage;
    if (err == cudaSuccess)
        err = faro_cudart_pack_args(k->params, k->nparams, bytes, args, buf);
    pthread_mutex_unlock(&module_lock);
    if (err != cudaSuccess)
        return err;
    uint64_t a[FARO_GPU_ARGS_MAX] = {kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                     shared, 0, (uint64_t)(uintptr_t)stream};
    return faro_cudart_call(FARO_GPU_OP_LAUNCH, a, NULL, buf, bytes, 0, NULL);
}

cudaError_t faro_cudart_var_address(faro_cudart_var_t *v, uint64_t *dptr, size_t *size)
{
    cudaError_t err = faro_cudart_connect();
    if (err != cudaSuccess)
        return err;
    int dev = faro_cudart_current_device();
    int si = faro_cudart_session_index(dev);
    pthread_mutex_lock(&module_lock);
    err = ensure_module(v->fatbin, dev);
    if (err == cudaSuccess && !(v->server_ptr[si] && v->generation[si] == module_generation)) {
        uint64_t a[FARO_GPU_ARGS_MAX] = {v->fatbin->server_module[si]};
        faro_cudart_reply_t r = {0};
        err = faro_cudart_call_on(dev, FARO_GPU_OP_VAR_GET, a, NULL, v->name, strlen(v->name), 0,
                                  &r);
        if (err == cudaSuccess) {
            v->server_ptr[si] = r.a[0];
            v->generation[si] = module_generation;
            faro_cudart_note_device_range(v->server_ptr[si], v->size, dev);
        }
    }
    *dptr = v->server_ptr[si];
    *size = v->size;
    pthread_mutex_unlock(&module_lock);
    return err;
}

void faro_cudart_forget_modules(void)
{
    pthread_mutex_lock(&module_lock);
    module_generation++;
    pthread_mutex_unlock(&module_lock);
}

/* The kernel's attributes, one KERNEL_ATTR each (CU_FUNC_ATTRIBUTE_* 0..15
 * in the order of cudaFuncAttributes' fields from maxThreadsPerBlock on). */
FARO_CUDART_API cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    if (!attr)
        return faro_cudart_fail(cudaErrorInvalidValue);
    cudaError_t err = faro_cudart_check_sticky();
    if (err != cudaSuccess)
        return err;
    faro_cudart_kernel_t *k = faro_cudart_find_kernel(func);
    if (!k)
        return faro_cudart_fail(cudaErrorInvalidDeviceFunction);
    err = faro_cudart_connect();
    if (err != cudaSuccess)
        return faro_cudart_fail(err);
    int dev = faro_cudart_current_device();
    pthread_mutex_lock(&module_lock);
    err = ensure_kernel(k, dev);
    uint64_t kernel = k->server_kernel[faro_cudart_session_index(dev)];
    pthread_mutex_unlock(&module_lock);
    int v[16] = {0};
    for (int i = 0; i < 16 && err == cudaSuccess; i++) {
        uint64_t a[FARO_GPU_ARGS_MAX] = {kernel, (uint64_t)i};
        faro_cudart_reply_t r = {0};
        err = faro_cudart_call(FARO_GPU_OP_KERNEL_ATTR, a, NULL, NULL, 0, 0, &r);
        if (err == cudaSuccess)
            v[i] = (int32_t)r.a[0];
    }
    if (err != cudaSuccess)
        return faro_cudart_fail(err);
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = v[0];
    attr->sharedSizeBytes = (size_t)(unsigned)v[1];
    attr->constSizeBytes = (size_t)(unsigned)v[2];
    attr->localSizeBytes = (size_t)(unsigned)v[3];
    attr->numRegs = v[4];
    attr->ptxVersion = v[5];
    attr->binaryVersion = v[6];
    attr->cacheModeCA = v[7];
    attr->maxDynamicSharedSizeBytes = v[8];
    attr->preferredShmemCarveout = v[9];
    attr->clusterDimMustBeSet = v[10];
    attr->requiredClusterWidth = v[11];
    attr->requiredClusterHeight = v[12];
    attr->requiredClusterDepth = v[13];
    attr->clusterSchedulingPolicyPreference = v[14];
    attr->nonPortableClusterSizeAllowed = v[15];
    return cudaSuccess;
}
