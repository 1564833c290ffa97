/*
 * The client's half of the server conversation (session.c, runtime.c): what
 * launch.c and the runtime calls use. A session is made at the first call
 * that needs the device (never before main, never by registration):
 * FARO_GPU_SERVERS names the servers, FARO_GPU_KEY_FILE or FARO_GPU_KEY the
 * key. When no server can be reached every such call fails with a CUDA error
 * and one message naming FARO_GPU_SERVERS; nothing waits forever.
 */
#ifndef FARO_GPU_CLIENT_REMOTE_H
#define FARO_GPU_CLIENT_REMOTE_H

#include "gpu/client/cudart.h"

/* The session, made on first use: cudaSuccess, or the error every call
 * that needs the device returns (cudaErrorNoDevice when FARO_GPU_SERVERS
 * is unset or empty, cudaErrorInitializationError when it is malformed or
 * no server answers), the same error on every later call. */
cudaError_t faro_cudart_connect(void);

/* The stream handle the server knows: the legacy and per-thread default
 * streams (cudaStreamLegacy, cudaStreamPerThread, NULL) are its stream 0. */
cudaStream_t faro_cudart_stream(cudaStream_t stream);

/* Ships the kernel's image if needed, learns its layout, packs args and
 * sends the launch (one-way): runtime.c. */
cudaError_t faro_cudart_launch_remote(faro_cudart_kernel_t *k, dim3 grid, dim3 block,
                                      void **args, size_t shared, cudaStream_t stream);

#endif
