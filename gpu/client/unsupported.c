/*
 * What Faro's libcudart does not serve. faro_cudart_unsupported is the body
 * of every generated stub (stubs.c, made by stubgen.py from
 * cudart-exports.txt). The exports below return something other than
 * cudaError_t, so a generated stub (which returns cudaErrorNotSupported as
 * an int) would hand their callers a wrong value: they are written here by
 * hand, each answering what its type allows and saying once that it is not
 * supported.
 */
#include <stdatomic.h>
#include <string.h>

#include "gpu/client/cudart.h"

cudaError_t faro_cudart_unsupported(const char *name, int *once)
{
    if (!atomic_exchange((atomic_int *)once, 1))
        faro_cudart_msg("%s is not supported by Faro's GPU offload (see faro-gpu(7))", name);
    return faro_cudart_fail(cudaErrorNotSupported);
}

/* Texture and surface channel descriptors are plain values: build it as
 * CUDA documents (the bit widths and the kind), no device involved. */
FARO_CUDART_API struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                   enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d;
    memset(&d, 0, sizeof d);
    d.x = x;
    d.y = y;
    d.z = z;
    d.w = w;
    d.f = f;
    return d;
}

/* Exported by NVIDIA's library but declared in no header of CUDA 13 and
 * never called by nvcc's generated code (docs/gpu.md): their signatures are
 * not public. They answer cudaErrorNotSupported in the return register and
 * leave their arguments alone, the safe reading whatever the caller expects
 * (a void function ignores it). */
static int once_get_proc_address, once_host_var, once_unified_table;

FARO_CUDART_API int __cudaGetProcAddress(void)
{
    return faro_cudart_unsupported("__cudaGetProcAddress", &once_get_proc_address);
}

FARO_CUDART_API void __cudaRegisterHostVar(void)
{
    faro_cudart_unsupported("__cudaRegisterHostVar", &once_host_var);
}

FARO_CUDART_API int __cudaRegisterUnifiedTable(void)
{
    return faro_cudart_unsupported("__cudaRegisterUnifiedTable", &once_unified_table);
}
