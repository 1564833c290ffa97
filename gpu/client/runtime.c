/*
 * The runtime calls served by faro-gpud (remote.h). Each checks the sticky
 * error, makes sure of the session, and sends its request (gpu/wire/
 * protocol.h). Until the wire channel is in the build every call here fails
 * with the session's error (session.c).
 */
#include "gpu/client/remote.h"

/* The managed variables of an image make its first use fail: managed memory
 * is not supported (docs/gpu.md). */
static cudaError_t check_managed(faro_cudart_fatbin_t *fb)
{
    static int once;
    if (fb && fb->nmanaged > 0)
        return faro_cudart_unsupported("__managed__ memory (__cudaRegisterManagedVar)", &once);
    return cudaSuccess;
}

cudaError_t faro_cudart_launch_remote(faro_cudart_kernel_t *k, dim3 grid, dim3 block,
                                      void **args, size_t shared, cudaStream_t stream)
{
    (void)grid, (void)block, (void)args, (void)shared, (void)stream;
    cudaError_t err = check_managed(k->fatbin);
    if (err != cudaSuccess)
        return err;
    if (!k->fatbin || !k->fatbin->image)
        return cudaErrorInvalidKernelImage;
    return faro_cudart_connect();
}

#define DEVICE_CALL_BODY                              \
    cudaError_t err = faro_cudart_check_sticky();     \
    if (err != cudaSuccess)                           \
        return err;                                   \
    return faro_cudart_fail(faro_cudart_connect())

FARO_CUDART_API cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return faro_cudart_fail(cudaErrorInvalidValue);
    *count = 0;
    DEVICE_CALL_BODY;
}
