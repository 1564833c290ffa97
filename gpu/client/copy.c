/*
 * Copies, memsets and copies to and from symbols (remote.h's sessions;
 * runtime.c knows which device holds a pointer). Copies go in chunks of the
 * session's size (HELLO): host to device as a series of one-way chunks whose
 * last asks for a reply when the copy is synchronous; device to host as one
 * request answered by a series; device to device and memset as one message.
 * An asynchronous copy to the host is served synchronously (the bytes must
 * arrive before the caller may read them; the results are the same). A 2D
 * copy is one copy when both sides are contiguous, else one per row.
 */
#include <stdint.h>
#include <string.h>

#include "gpu/client/remote.h"

/* ---- copies and memset ---------------------------------------------------- */

static cudaError_t copy_h2d(int dev, uint64_t dst, const void *src, size_t n, cudaStream_t stream,
                            int sync)
{
    size_t chunk = faro_cudart_chunk();
    faro_cudart_sess_t *sess;
    cudaError_t err = faro_cudart_begin_on(dev, &sess);
    if (err != cudaSuccess)
        return err;
    /* every chunk but the last is posted: up to FARO_GPU_DEPTH travel at once */
    size_t off = 0;
    for (; n - off > chunk && err == cudaSuccess; off += chunk) {
        uint64_t a[FARO_GPU_ARGS_MAX] = {dst + off, faro_cudart_handle(stream)};
        err = faro_cudart_post_locked(sess, FARO_GPU_OP_MEMCPY_H2D, a, (const uint8_t *)src + off,
                                      chunk);
    }
    if (err == cudaSuccess) {
        uint64_t a[FARO_GPU_ARGS_MAX] = {dst + off, faro_cudart_handle(stream)};
        faro_cudart_reply_t r = {0};
        err = faro_cudart_send_locked(sess, FARO_GPU_OP_MEMCPY_H2D, a, NULL,
                                      (const uint8_t *)src + off, n - off, FARO_GPU_F_LAST,
                                      sync ? &r : NULL);
    }
    if (err == cudaSuccess) /* src may be reused when the call returns */
        err = faro_cudart_drain_locked(sess);
    faro_cudart_end(sess);
    return err;
}

static cudaError_t copy_d2h(int dev, void *dst, uint64_t src, size_t n, cudaStream_t stream)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = {src, n, faro_cudart_handle(stream)};
    faro_cudart_reply_t r = {.dst = dst, .dst_len = n};
    return faro_cudart_call_on(dev, FARO_GPU_OP_MEMCPY_D2H, a, NULL, NULL, 0, 0, &r);
}

static cudaError_t copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                        cudaStream_t stream, int sync)
{
    FARO_CUDART_CHECK_STICKY();
    if (n == 0)
        return sync ? faro_cudart_sync_error() : cudaSuccess;
    if (!dst || !src)
        return faro_cudart_fail(cudaErrorInvalidValue);
    if (kind == cudaMemcpyDefault) {
        int d = faro_cudart_device_of(dst) >= 0, s = faro_cudart_device_of(src) >= 0;
        kind = d ? (s ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                 : (s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    }
    stream = faro_cudart_stream(stream);
    if (kind == cudaMemcpyHostToHost) {
        memmove(dst, src, n);
        return sync ? faro_cudart_sync_error() : cudaSuccess;
    }
    cudaError_t err = faro_cudart_connect(); /* the device list, for routing */
    if (err != cudaSuccess)
        return faro_cudart_fail(err);
    switch (kind) {
    case cudaMemcpyHostToDevice:
        err = copy_h2d(faro_cudart_route(dst), faro_cudart_handle(dst), src, n, stream, sync);
        break;
    case cudaMemcpyDeviceToHost:
        err = copy_d2h(faro_cudart_route(src), dst, faro_cudart_handle(src), n, stream);
        break;
    case cudaMemcpyDeviceToDevice: {
        int d = faro_cudart_route(dst), s = faro_cudart_route(src);
        if (faro_cudart_session_index(d) != faro_cudart_session_index(s)) {
            static int once;
            return faro_cudart_unsupported("cudaMemcpy between devices of different servers",
                                           &once);
        }
        uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(dst), faro_cudart_handle(src), n, faro_cudart_handle(stream)};
        faro_cudart_reply_t r = {0};
        err = faro_cudart_call_on(d, FARO_GPU_OP_MEMCPY_D2D, a, NULL, NULL, 0, 0, sync ? &r : NULL);
        break;
    }
    default:
        return faro_cudart_fail(cudaErrorInvalidMemcpyDirection);
    }
    return sync ? faro_cudart_sync_result(err) : faro_cudart_fail(err);
}

FARO_CUDART_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    return copy(dst, src, n, kind, NULL, 1);
}

FARO_CUDART_API cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t n,
                                            enum cudaMemcpyKind kind)
{
    return copy(dst, src, n, kind, NULL, 1);
}

FARO_CUDART_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n,
                                            enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy(dst, src, n, kind, stream, 0);
}

FARO_CUDART_API cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy(dst, src, n, kind, stream, 0);
}

static cudaError_t memset_device(void *dst, int value, size_t n, cudaStream_t stream)
{
    FARO_CUDART_CHECK_STICKY();
    if (n == 0)
        return cudaSuccess;
    if (!dst)
        return faro_cudart_fail(cudaErrorInvalidValue);
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(dst), n, faro_cudart_handle(faro_cudart_stream(stream)),
                                     (uint32_t)(value & 0xff)};
    return faro_cudart_fail(faro_cudart_call_on(faro_cudart_route(dst), FARO_GPU_OP_MEMSET, a, NULL, NULL, 0, 0,
                                                NULL));
}

FARO_CUDART_API cudaError_t cudaMemset(void *dst, int value, size_t n)
{
    return memset_device(dst, value, n, NULL);
}

FARO_CUDART_API cudaError_t cudaMemset_ptds(void *dst, int value, size_t n)
{
    return memset_device(dst, value, n, NULL);
}

FARO_CUDART_API cudaError_t cudaMemsetAsync(void *dst, int value, size_t n, cudaStream_t stream)
{
    return memset_device(dst, value, n, stream);
}

FARO_CUDART_API cudaError_t cudaMemsetAsync_ptsz(void *dst, int value, size_t n,
                                                 cudaStream_t stream)
{
    return memset_device(dst, value, n, stream);
}

/* ---- pitched (2D) copies and memset ---------------------------------------- */

/* A 2D copy: one copy when both sides are contiguous, else a copy per row
 * (each a 1D copy of its kind; the rows of an asynchronous one stay in
 * order on their stream). */
static cudaError_t copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                           size_t height, enum cudaMemcpyKind kind, cudaStream_t stream, int sync)
{
    if (width > dpitch || width > spitch)
        return faro_cudart_fail(cudaErrorInvalidPitchValue);
    if (width == 0 || height == 0)
        return sync ? faro_cudart_sync_error() : cudaSuccess;
    if (width == dpitch && width == spitch)
        return copy(dst, src, width * height, kind, stream, sync);
    cudaError_t err = cudaSuccess;
    for (size_t row = 0; row < height && err == cudaSuccess; row++)
        err = copy((uint8_t *)dst + row * dpitch, (const uint8_t *)src + row * spitch, width, kind,
                   stream, sync);
    return err;
}

FARO_CUDART_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                         size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, NULL, 1);
}

FARO_CUDART_API cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src,
                                              size_t spitch, size_t width, size_t height,
                                              enum cudaMemcpyKind kind)
{
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, NULL, 1);
}

FARO_CUDART_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                              size_t spitch, size_t width, size_t height,
                                              enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, 0);
}

FARO_CUDART_API cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
                                                   size_t spitch, size_t width, size_t height,
                                                   enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, 0);
}

static cudaError_t memset_2d(void *dst, size_t pitch, int value, size_t width, size_t height,
                             cudaStream_t stream)
{
    if (width > pitch)
        return faro_cudart_fail(cudaErrorInvalidPitchValue);
    if (width == pitch)
        return memset_device(dst, value, width * height, stream);
    cudaError_t err = cudaSuccess;
    for (size_t row = 0; row < height && err == cudaSuccess; row++)
        err = memset_device((uint8_t *)dst + row * pitch, value, width, stream);
    return err;
}

FARO_CUDART_API cudaError_t cudaMemset2D(void *dst, size_t pitch, int value, size_t width,
                                         size_t height)
{
    return memset_2d(dst, pitch, value, width, height, NULL);
}

FARO_CUDART_API cudaError_t cudaMemset2D_ptds(void *dst, size_t pitch, int value, size_t width,
                                              size_t height)
{
    return memset_2d(dst, pitch, value, width, height, NULL);
}

FARO_CUDART_API cudaError_t cudaMemset2DAsync(void *dst, size_t pitch, int value, size_t width,
                                              size_t height, cudaStream_t stream)
{
    return memset_2d(dst, pitch, value, width, height, stream);
}

FARO_CUDART_API cudaError_t cudaMemset2DAsync_ptsz(void *dst, size_t pitch, int value,
                                                   size_t width, size_t height,
                                                   cudaStream_t stream)
{
    return memset_2d(dst, pitch, value, width, height, stream);
}

/* ---- symbols (__device__ / __constant__ variables) ------------------------ */

static cudaError_t symbol_address(const void *symbol, uint64_t *dptr, size_t *size)
{
    faro_cudart_var_t *v = faro_cudart_find_var(symbol);
    if (!v)
        return cudaErrorInvalidSymbol;
    return faro_cudart_var_address(v, dptr, size);
}

static cudaError_t symbol_copy(void *host, const void *symbol, size_t n, size_t offset,
                               enum cudaMemcpyKind kind, cudaStream_t stream, int sync, int to)
{
    FARO_CUDART_CHECK_STICKY();
    uint64_t dptr;
    size_t size;
    cudaError_t err = symbol_address(symbol, &dptr, &size);
    if (err != cudaSuccess)
        return faro_cudart_fail(err);
    if (offset > size || n > size - offset)
        return faro_cudart_fail(cudaErrorInvalidValue);
    void *dev = (void *)(uintptr_t)(dptr + offset);
    if (kind == cudaMemcpyDefault)
        kind = faro_cudart_device_of(host) >= 0 ? cudaMemcpyDeviceToDevice
                               : (to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    if (to && kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice)
        return faro_cudart_fail(cudaErrorInvalidMemcpyDirection);
    if (!to && kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice)
        return faro_cudart_fail(cudaErrorInvalidMemcpyDirection);
    return to ? copy(dev, host, n, kind, stream, sync) : copy(host, dev, n, kind, stream, sync);
}

FARO_CUDART_API cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t n,
                                               size_t offset, enum cudaMemcpyKind kind)
{
    return symbol_copy((void *)src, symbol, n, offset, kind, NULL, 1, 1);
}

FARO_CUDART_API cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t n,
                                                 size_t offset, enum cudaMemcpyKind kind)
{
    return symbol_copy(dst, symbol, n, offset, kind, NULL, 1, 0);
}

FARO_CUDART_API cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t n,
                                                    size_t offset, enum cudaMemcpyKind kind,
                                                    cudaStream_t stream)
{
    return symbol_copy((void *)src, symbol, n, offset, kind, stream, 0, 1);
}

FARO_CUDART_API cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t n,
                                                      size_t offset, enum cudaMemcpyKind kind,
                                                      cudaStream_t stream)
{
    return symbol_copy(dst, symbol, n, offset, kind, stream, 0, 0);
}

/* --default-stream per-thread's names for the same calls. */
FARO_CUDART_API cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t n,
                                                    size_t offset, enum cudaMemcpyKind kind)
{
    return symbol_copy((void *)src, symbol, n, offset, kind, NULL, 1, 1);
}

FARO_CUDART_API cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t n,
                                                      size_t offset, enum cudaMemcpyKind kind)
{
    return symbol_copy(dst, symbol, n, offset, kind, NULL, 1, 0);
}

FARO_CUDART_API cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src,
                                                         size_t n, size_t offset,
                                                         enum cudaMemcpyKind kind,
                                                         cudaStream_t stream)
{
    return symbol_copy((void *)src, symbol, n, offset, kind, stream, 0, 1);
}

FARO_CUDART_API cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t n,
                                                           size_t offset, enum cudaMemcpyKind kind,
                                                           cudaStream_t stream)
{
    return symbol_copy(dst, symbol, n, offset, kind, stream, 0, 0);
}

FARO_CUDART_API cudaError_t cudaGetSymbolAddress(void **dev_ptr, const void *symbol)
{
    if (!dev_ptr)
        return faro_cudart_fail(cudaErrorInvalidValue);
    FARO_CUDART_CHECK_STICKY();
    uint64_t dptr;
    size_t size;
    cudaError_t err = symbol_address(symbol, &dptr, &size);
    if (err == cudaSuccess)
        *dev_ptr = (void *)(uintptr_t)dptr;
    return faro_cudart_fail(err);
}

FARO_CUDART_API cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    if (!size)
        return faro_cudart_fail(cudaErrorInvalidValue);
    faro_cudart_var_t *v = faro_cudart_find_var(symbol);
    if (!v)
        return faro_cudart_fail(cudaErrorInvalidSymbol);
    *size = v->size;
    return cudaSuccess;
}
