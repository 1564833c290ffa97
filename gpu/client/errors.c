/*
 * CUDA's error names and strings, and the error state of the runtime
 * (cudart.h says the semantics): the thread's last error, the process's
 * sticky error and one deferred asynchronous error.
 *
 * The state is three words. last is per thread (CUDA's last error is);
 * sticky and deferred are the process's, read and written atomically: a
 * sticky error once set stays until cudaDeviceReset, a deferred one is taken
 * by the first synchronizing call that sees it.
 */
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>

#include "gpu/client/cudart.h"

static _Thread_local cudaError_t last_error = cudaSuccess;
static atomic_int sticky_error = cudaSuccess;
static atomic_int deferred_error = cudaSuccess;

void faro_cudart_msg(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "faro-gpu: %s\n", line);
}

int faro_cudart_is_sticky(cudaError_t err)
{
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
    case cudaErrorContained:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorDevicesUnavailable: /* Faro: the server connection is lost */
        return 1;
    default:
        return 0;
    }
}

cudaError_t faro_cudart_check_sticky(void)
{
    cudaError_t err = (cudaError_t)atomic_load(&sticky_error);
    if (err != cudaSuccess)
        last_error = err;
    return err;
}

cudaError_t faro_cudart_fail(cudaError_t err)
{
    if (err == cudaSuccess)
        return err;
    last_error = err;
    if (faro_cudart_is_sticky(err)) {
        int none = cudaSuccess;
        atomic_compare_exchange_strong(&sticky_error, &none, (int)err);
    }
    return err;
}

void faro_cudart_defer(cudaError_t err)
{
    if (err == cudaSuccess)
        return;
    if (faro_cudart_is_sticky(err)) {
        faro_cudart_fail(err);
        return;
    }
    int none = cudaSuccess;
    atomic_compare_exchange_strong(&deferred_error, &none, (int)err);
}

cudaError_t faro_cudart_sync_error(void)
{
    cudaError_t err = faro_cudart_check_sticky();
    if (err != cudaSuccess)
        return err;
    err = (cudaError_t)atomic_exchange(&deferred_error, cudaSuccess);
    return faro_cudart_fail(err);
}

void faro_cudart_errors_reset(void)
{
    atomic_store(&sticky_error, cudaSuccess);
    atomic_store(&deferred_error, cudaSuccess);
    last_error = cudaSuccess;
}

FARO_CUDART_API cudaError_t cudaGetLastError(void)
{
    cudaError_t sticky = (cudaError_t)atomic_load(&sticky_error);
    if (sticky != cudaSuccess)
        return sticky;
    cudaError_t err = last_error;
    last_error = cudaSuccess;
    return err;
}

FARO_CUDART_API cudaError_t cudaPeekAtLastError(void)
{
    cudaError_t sticky = (cudaError_t)atomic_load(&sticky_error);
    return sticky != cudaSuccess ? sticky : last_error;
}

FARO_CUDART_API const char *cudaGetErrorName(cudaError_t err)
{
    switch (err) {
#define X(name, text) case name: return #name;
#include "gpu/client/errors.def"
#undef X
    }
    return "cudaErrorUnrecognized (not a cudaError_t value)";
}

FARO_CUDART_API const char *cudaGetErrorString(cudaError_t err)
{
    switch (err) {
#define X(name, text) case name: return text;
#include "gpu/client/errors.def"
#undef X
    }
    return "unrecognized error code (not a cudaError_t value)";
}

FARO_CUDART_API cudaError_t cudaRuntimeGetVersion(int *version)
{
    if (!version)
        return faro_cudart_fail(cudaErrorInvalidValue);
    *version = FARO_CUDART_VERSION;
    return cudaSuccess;
}
