/*
 * Faro's libcudart.so.13: the CUDA runtime API of a program built with
 * `nvcc -cudart shared`, served by a faro-gpud on another node.
 *
 * The library exports exactly the names NVIDIA's libcudart.so.13 exports,
 * all in version node libcudart.so.13 (gpu/client/cudart-exports.txt; the
 * version script and the stubs are made from it by gpu/client/stubgen.py).
 * What the client implements carries FARO_CUDART_API on its definition;
 * every other export is a generated stub that returns cudaErrorNotSupported
 * and says so once per process.
 *
 * The pieces, one file each:
 *   errors.c     cudaGetErrorName/String and the error state: the calling
 *                thread's last error, the process's sticky error, a deferred
 *                asynchronous error (CUDA's semantics, below)
 *   register.c   what nvcc's static constructors register before main
 *                (fatbins, kernels, variables), kept locally; nothing
 *                connects until the first real call
 *   launch.c     the per-thread call configuration of <<<...>>>, kernel
 *                lookup, argument packing, launches
 *   session.c    the connection to the server (FARO_GPU_SERVERS) made at the
 *                first call that needs it, and the request/reply primitives
 *   module.c     fatbins, kernels and variables on the server: shipped and
 *                looked up once, layouts cross-checked, launches sent
 *   runtime.c    device and memory calls; which device holds a pointer
 *   copy.c       copies, memsets, copies to and from symbols
 *   stream.c     streams and events
 *   props.c      cudaDeviceProp from the server's attribute list
 *   unsupported.c  the one-time "not supported" message, and the exports
 *                whose return type is not cudaError_t that Faro does not serve
 *
 * Error semantics (errors.c): every call that fails records its error as the
 * calling thread's last error; cudaGetLastError returns and clears it,
 * cudaPeekAtLastError returns it. An error of an asynchronous operation (a
 * one-way launch the server reports later) is deferred: the next
 * synchronizing call of any thread returns it. A sticky error (the device
 * context is lost: a kernel fault, or the server connection is gone) makes
 * every later call fail with it and is never cleared by cudaGetLastError;
 * only cudaDeviceReset clears it.
 */
#ifndef FARO_GPU_CLIENT_CUDART_H
#define FARO_GPU_CLIENT_CUDART_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "gpu/common/fatbin.h"

/* Marks a definition the client implements: exported (the library is built
 * with hidden visibility), and seen by stubgen.py, which makes no stub for it. */
#define FARO_CUDART_API __attribute__((visibility("default")))

/* The runtime version this library claims (cudaRuntimeGetVersion). */
#define FARO_CUDART_VERSION 13000

/* "faro-gpu: <message>" on stderr. */
void faro_cudart_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --- errors.c ------------------------------------------------------------ */

/* Whether err leaves the device context unusable (CUDA's sticky errors). */
int faro_cudart_is_sticky(cudaError_t err);
/* At the start of a call: the sticky error, if any (the call then fails
 * with it), else cudaSuccess. */
cudaError_t faro_cudart_check_sticky(void);
/* Records err (when not cudaSuccess) as the thread's last error, and as the
 * process's sticky error when it is one; returns err. Every failing API
 * call returns through this. */
cudaError_t faro_cudart_fail(cudaError_t err);
/* An asynchronous operation failed with err: a sticky err takes effect at
 * once, any other is kept (the first one) for the next synchronizing call. */
void faro_cudart_defer(cudaError_t err);
/* At a synchronizing call: the sticky error, else the deferred one (taken,
 * and recorded as the last error), else cudaSuccess. */
cudaError_t faro_cudart_sync_error(void);
/* cudaDeviceReset's part: forget the sticky, deferred and last errors. */
void faro_cudart_errors_reset(void);

/* --- unsupported.c ------------------------------------------------------- */

/* Prints "faro-gpu: NAME is not supported by Faro's GPU offload (see
 * faro-gpu(7))" the first time it is called for *once, and returns
 * cudaErrorNotSupported (recorded as the last error). */
cudaError_t faro_cudart_unsupported(const char *name, int *once);

/* --- register.c ---------------------------------------------------------- */

/* Servers (FARO_GPU_SERVERS entries) a client talks to, at most. */
#define FARO_CUDART_MAX_SESSIONS 8

typedef struct faro_cudart_fatbin faro_cudart_fatbin_t;

/* One kernel nvcc registered: the host stub's address, its mangled name,
 * the image that holds it; the server's handle and the parameter layout
 * once learnt (launch.c fills them under the registry lock). */
typedef struct faro_cudart_kernel {
    const void *host_fun;
    const char *name;
    faro_cudart_fatbin_t *fatbin;
    uint64_t server_kernel[FARO_CUDART_MAX_SESSIONS];      /* per session (remote.h); 0 until KERNEL_GET answered */
    uint64_t generation[FARO_CUDART_MAX_SESSIONS];         /* module.c's, when server_kernel was given */
    unsigned nparams;
    size_t param_bytes;
    faro_kparam_t *params;          /* nparams entries, malloc'ed */
    struct faro_cudart_kernel *next;
} faro_cudart_kernel_t;

/* One __device__/__constant__/__managed__ variable. */
typedef struct faro_cudart_var {
    const void *host_var;           /* the host shadow's address (the symbol) */
    const char *name;
    size_t size;
    int constant, managed;
    faro_cudart_fatbin_t *fatbin;
    uint64_t server_ptr[FARO_CUDART_MAX_SESSIONS];         /* per session; 0 until VAR_GET answered */
    uint64_t generation[FARO_CUDART_MAX_SESSIONS];
    struct faro_cudart_var *next;
} faro_cudart_var_t;

struct faro_cudart_fatbin {
    const void *wrapper;            /* what nvcc registered */
    const uint8_t *image;           /* the fatbin (header + payload) */
    size_t image_size;
    int nmanaged;                   /* __managed__ variables in it */
    int ended;                      /* __cudaRegisterFatBinaryEnd seen */
    uint64_t server_module[FARO_CUDART_MAX_SESSIONS];      /* per session; 0 until shipped (MODULE_LOAD) */
    uint64_t generation[FARO_CUDART_MAX_SESSIONS];
    struct faro_cudart_fatbin *next;
};

/* The kernel whose host stub is host_fun, or NULL. */
faro_cudart_kernel_t *faro_cudart_find_kernel(const void *host_fun);
/* The variable whose host shadow is host_var, or NULL. */
faro_cudart_var_t *faro_cudart_find_var(const void *host_var);
/* Counts (for tests and faro-gpu's diagnostics). */
void faro_cudart_registry_counts(unsigned *nfatbins, unsigned *nkernels, unsigned *nvars);

/* --- launch.c ------------------------------------------------------------ */

/* Packs a kernel's arguments (args[i] points at parameter i, as nvcc's stubs
 * and cudaLaunchKernel pass them) into buf, param_bytes long: each parameter's
 * size bytes at its offset, gaps zeroed. cudaErrorInvalidValue (buf
 * untouched) when a parameter lies outside param_bytes or args is NULL with
 * parameters. */
cudaError_t faro_cudart_pack_args(const faro_kparam_t *params, unsigned nparams,
                                  size_t param_bytes, void **args, uint8_t *buf);

#endif
