/*
 * The runtime's device and memory calls, served by faro-gpud (remote.h,
 * gpu/wire/protocol.h). Each call fails first with a sticky error if there
 * is one, then sends its request; a synchronizing call (cudaMemcpy,
 * cudaDeviceSynchronize, ...) then returns a deferred asynchronous error if
 * one came (errors.c).
 *
 * Device pointers are the server's handles, given to the program as they
 * are; the client keeps the ranges it allocated (and its variables') so that
 * cudaMemcpyDefault can tell device from host memory (a pointer inside one
 * is device memory). Pinned host memory (cudaMallocHost, cudaHostAlloc) is
 * ordinary page-aligned memory here: there is no device to pin it for.
 *
 * Copies go in chunks of the session's size (HELLO): host to device as a
 * series of one-way chunks whose last asks for a reply when the copy is
 * synchronous; device to host as one request answered by a series. An
 * asynchronous copy to the host is served synchronously (the bytes must
 * arrive before the caller may read them; the results are the same).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/client/remote.h"

/* ---- allocations (for cudaMemcpyDefault) --------------------------------- */

typedef struct alloc_range {
    uint64_t base, size;
    int dev;
} alloc_range_t;

static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static alloc_range_t *allocs;
static size_t nallocs, allocs_cap;

void faro_cudart_note_device_range(uint64_t base, uint64_t size, int dev)
{
    pthread_mutex_lock(&alloc_lock);
    if (nallocs == allocs_cap) {
        size_t cap = allocs_cap ? 2 * allocs_cap : 64;
        alloc_range_t *n = realloc(allocs, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&alloc_lock);
            return; /* only cudaMemcpyDefault loses sight of it */
        }
        allocs = n;
        allocs_cap = cap;
    }
    allocs[nallocs++] = (alloc_range_t){base, size, dev};
    pthread_mutex_unlock(&alloc_lock);
}

static void alloc_remove(uint64_t base, int dev)
{
    pthread_mutex_lock(&alloc_lock);
    for (size_t i = 0; i < nallocs; i++) {
        if (allocs[i].base == base && allocs[i].dev == dev) {
            allocs[i] = allocs[--nallocs];
            break;
        }
    }
    pthread_mutex_unlock(&alloc_lock);
}

/* The device whose memory p is in, or -1 (host memory, or unknown). Several
 * servers may hand out the same addresses: the current device's memory is
 * looked at first, so a pointer used while its device is current is
 * taken for that device's (docs/gpu.md). */
static int device_of(const void *p)
{
    uint64_t a = (uint64_t)(uintptr_t)p;
    int cur = faro_cudart_current_device(), dev = -1;
    pthread_mutex_lock(&alloc_lock);
    for (size_t i = 0; i < nallocs && dev != cur; i++)
        if (a >= allocs[i].base && a - allocs[i].base < allocs[i].size)
            dev = allocs[i].dev;
    pthread_mutex_unlock(&alloc_lock);
    return dev;
}

static int is_device(const void *p)
{
    return device_of(p) >= 0;
}

/* The device a call on device memory p goes to: p's, else the current one. */
static int route(const void *p)
{
    int dev = device_of(p);
    return dev >= 0 ? dev : faro_cudart_current_device();
}

void faro_cudart_forget_allocations(int dev)
{
    pthread_mutex_lock(&alloc_lock);
    for (size_t i = 0; i < nallocs;) {
        if (allocs[i].dev == dev)
            allocs[i] = allocs[--nallocs];
        else
            i++;
    }
    pthread_mutex_unlock(&alloc_lock);
}

/* ---- helpers -------------------------------------------------------------- */

#define CHECK_STICKY()                                \
    do {                                              \
        cudaError_t sticky_ = faro_cudart_check_sticky(); \
        if (sticky_ != cudaSuccess)                   \
            return sticky_;                           \
    } while (0)

/* A synchronizing call's result: its own error, else a deferred one. */
static cudaError_t sync_result(cudaError_t err)
{
    if (err != cudaSuccess)
        return faro_cudart_fail(err);
    return faro_cudart_sync_error();
}

static uint64_t handle(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* ---- devices -------------------------------------------------------------- */

/* The checks a call naming a device makes: no sticky error, a session, a
 * device number this client shows. */
static cudaError_t check_device(int device)
{
    CHECK_STICKY();
    cudaError_t err = faro_cudart_connect();
    if (err != cudaSuccess)
        return faro_cudart_fail(err);
    if (device < 0 || device >= faro_cudart_device_count())
        return faro_cudart_fail(cudaErrorInvalidDevice);
    return cudaSuccess;
}

FARO_CUDART_API cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return faro_cudart_fail(cudaErrorInvalidValue);
    *count = 0;
    CHECK_STICKY();
    cudaError_t err = faro_cudart_connect();
    if (err != cudaSuccess)
        return faro_cudart_fail(err);
    *count = faro_cudart_device_count();
    return cudaSuccess;
}

FARO_CUDART_API cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return faro_cudart_fail(cudaErrorInvalidValue);
    *device = faro_cudart_current_device();
    return cudaSuccess;
}

FARO_CUDART_API cudaError_t cudaSetDevice(int device)
{
    cudaError_t err = check_device(device);
    if (err != cudaSuccess)
        return err;
    faro_cudart_set_current_device(device);
    return cudaSuccess;
}

/* Scheduling flags say how the host thread waits for the device; here it
 * always waits on the network, so they are accepted and kept for
 * cudaGetDeviceFlags. cudaDeviceMapHost needs mapped host memory, which a
 * remote GPU cannot have. */
static _Thread_local unsigned device_flags;

FARO_CUDART_API cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    if (flags & ~(unsigned)(cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax))
        return faro_cudart_fail(cudaErrorInvalidValue);
    if (flags & cudaDeviceMapHost) {
        static int once;
        return faro_cudart_unsupported("cudaSetDeviceFlags(cudaDeviceMapHost)", &once);
    }
    device_flags = flags;
    return cudaSuccess;
}

FARO_CUDART_API cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        return faro_cudart_fail(cudaErrorInvalidValue);
    *flags = device_flags;
    return cudaSuccess;
}

FARO_CUDART_API cudaError_t cudaDriverGetVersion(int *version)
{
    if (!version)
        return faro_cudart_fail(cudaErrorInvalidValue);
    /* CUDA answers 0 when there is no driver; here: no server. */
    *version = faro_cudart_connect() == cudaSuccess ? (int)faro_cudart_driver_version() : 0;
    return cudaSuccess;
}

FARO_CUDART_API cudaError_t cudaDeviceSynchronize(void)
{
    CHECK_STICKY();
    faro_cudart_reply_t r = {0};
    return sync_result(faro_cudart_call(FARO_GPU_OP_DEVICE_SYNC, NULL, NULL, NULL, 0, 0, &r));
}

FARO_CUDART_API cudaError_t cudaDeviceReset(void)
{
    faro_cudart_reply_t r = {0};
    cudaError_t err = faro_cudart_call(FARO_GPU_OP_DEVICE_RESET, NULL, NULL, NULL, 0, 0, &r);
    if (err == cudaSuccess) {
        faro_cudart_forget_allocations(faro_cudart_current_device());
        faro_cudart_forget_modules();
        faro_cudart_errors_reset();
    }
    return faro_cudart_fail(err);
}

FARO_CUDART_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value)
        return faro_cudart_fail(cudaErrorInvalidValue);
    cudaError_t err = check_device(device);
    if (err != cudaSuccess)
        return err;
    uint64_t a[FARO_GPU_ARGS_MAX] = {(uint64_t)(int64_t)attr,
                                     (uint64_t)(int64_t)faro_cudart_remote_device(device)};
    faro_cudart_reply_t r = {0};
    err = faro_cudart_call_on(device, FARO_GPU_OP_GET_DEVICE_ATTR, a, NULL, NULL, 0, 0, &r);
    if (err == cudaSuccess)
        *value = (int32_t)r.a[0];
    return faro_cudart_fail(err);
}

FARO_CUDART_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (!prop)
        return faro_cudart_fail(cudaErrorInvalidValue);
    cudaError_t err = check_device(device);
    if (err != cudaSuccess)
        return err;
    uint64_t a[FARO_GPU_ARGS_MAX] = {(uint64_t)(int64_t)faro_cudart_remote_device(device)};
    uint32_t *pairs = malloc(2 * FARO_GPU_ATTRS_MAX * sizeof *pairs);
    uint8_t data[16 + FARO_GPU_DEVNAME_MAX];
    if (!pairs)
        return faro_cudart_fail(cudaErrorMemoryAllocation);
    faro_cudart_reply_t r = {.tail = pairs, .tail_max = FARO_GPU_ATTRS_MAX, .data = data,
                             .data_max = sizeof data};
    err = faro_cudart_call_on(device, FARO_GPU_OP_GET_DEVICE_PROPS, a, NULL, NULL, 0, 0, &r);
    if (err == cudaSuccess) {
        memset(prop, 0, sizeof *prop);
        prop->totalGlobalMem = (size_t)r.a[0];
        if (r.data_len >= 16)
            memcpy(&prop->uuid, data, 16);
        size_t n = r.data_len > 16 ? r.data_len - 16 : 0;
        if (n >= sizeof prop->name)
            n = sizeof prop->name - 1;
        memcpy(prop->name, data + 16, n);
        prop->name[n] = 0;
        for (uint32_t i = 0; i < r.ntail; i++)
            faro_cudart_prop_set(prop, (int)pairs[2 * i], (int32_t)pairs[2 * i + 1]);
    }
    free(pairs);
    return faro_cudart_fail(err);
}

/* ---- memory --------------------------------------------------------------- */

FARO_CUDART_API cudaError_t cudaMalloc(void **ptr, size_t size)
{
    if (!ptr)
        return faro_cudart_fail(cudaErrorInvalidValue);
    *ptr = NULL;
    CHECK_STICKY();
    if (size == 0)
        return cudaSuccess;
    uint64_t a[FARO_GPU_ARGS_MAX] = {size};
    faro_cudart_reply_t r = {0};
    cudaError_t err = faro_cudart_call(FARO_GPU_OP_MALLOC, a, NULL, NULL, 0, 0, &r);
    if (err == cudaSuccess) {
        *ptr = (void *)(uintptr_t)r.a[0];
        faro_cudart_note_device_range(r.a[0], size, faro_cudart_current_device());
    }
    return faro_cudart_fail(err);
}

FARO_CUDART_API cudaError_t cudaFree(void *ptr)
{
    CHECK_STICKY();
    if (!ptr)
        return faro_cudart_fail(faro_cudart_connect()); /* CUDA: initializes, frees nothing */
    uint64_t a[FARO_GPU_ARGS_MAX] = {handle(ptr)};
    faro_cudart_reply_t r = {0};
    int dev = route(ptr);
    cudaError_t err = faro_cudart_call_on(dev, FARO_GPU_OP_FREE, a, NULL, NULL, 0, 0, &r);
    if (err == cudaSuccess)
        alloc_remove(handle(ptr), dev);
    return faro_cudart_fail(err);
}

FARO_CUDART_API cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (!free_bytes || !total)
        return faro_cudart_fail(cudaErrorInvalidValue);
    CHECK_STICKY();
    faro_cudart_reply_t r = {0};
    cudaError_t err = faro_cudart_call(FARO_GPU_OP_MEM_GET_INFO, NULL, NULL, NULL, 0, 0, &r);
    if (err == cudaSuccess) {
        *free_bytes = (size_t)r.a[0];
        *total = (size_t)r.a[1];
    }
    return faro_cudart_fail(err);
}

FARO_CUDART_API cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    if (!ptr)
        return faro_cudart_fail(cudaErrorInvalidValue);
    *ptr = NULL;
    if (size == 0)
        return cudaSuccess;
    if (posix_memalign(ptr, 4096, size) != 0) {
        *ptr = NULL;
        return faro_cudart_fail(cudaErrorMemoryAllocation);
    }
    return cudaSuccess;
}

FARO_CUDART_API cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return faro_cudart_fail(cudaErrorInvalidValue);
    if (flags & cudaHostAllocMapped) {
        static int once;
        return faro_cudart_unsupported("cudaHostAlloc(cudaHostAllocMapped)", &once);
    }
    return cudaMallocHost(ptr, size);
}

FARO_CUDART_API cudaError_t cudaFreeHost(void *ptr)
{
    free(ptr);
    return cudaSuccess;
}

/* ---- copies and memset ---------------------------------------------------- */

static cudaError_t copy_h2d(int dev, uint64_t dst, const void *src, size_t n, cudaStream_t stream,
                            int sync)
{
    size_t chunk = faro_cudart_chunk();
    faro_cudart_sess_t *sess;
    cudaError_t err = faro_cudart_begin_on(dev, &sess);
    if (err != cudaSuccess)
        return err;
    for (size_t off = 0; off < n && err == cudaSuccess; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        int last = off + len == n;
        uint64_t a[FARO_GPU_ARGS_MAX] = {dst + off, handle(stream)};
        faro_cudart_reply_t r = {0};
        err = faro_cudart_send_locked(sess, FARO_GPU_OP_MEMCPY_H2D, a, NULL,
                                      (const uint8_t *)src + off, len, last ? FARO_GPU_F_LAST : 0,
                                      last && sync ? &r : NULL);
    }
    faro_cudart_end(sess);
    return err;
}

static cudaError_t copy_d2h(int dev, void *dst, uint64_t src, size_t n, cudaStream_t stream)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = {src, n, handle(stream)};
    faro_cudart_reply_t r = {.dst = dst, .dst_len = n};
    return faro_cudart_call_on(dev, FARO_GPU_OP_MEMCPY_D2H, a, NULL, NULL, 0, 0, &r);
}

static cudaError_t copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                        cudaStream_t stream, int sync)
{
    CHECK_STICKY();
    if (n == 0)
        return sync ? faro_cudart_sync_error() : cudaSuccess;
    if (!dst || !src)
        return faro_cudart_fail(cudaErrorInvalidValue);
    if (kind == cudaMemcpyDefault) {
        int d = is_device(dst), s = is_device(src);
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
        err = copy_h2d(route(dst), handle(dst), src, n, stream, sync);
        break;
    case cudaMemcpyDeviceToHost:
        err = copy_d2h(route(src), dst, handle(src), n, stream);
        break;
    case cudaMemcpyDeviceToDevice: {
        int d = route(dst), s = route(src);
        if (faro_cudart_session_index(d) != faro_cudart_session_index(s)) {
            static int once;
            return faro_cudart_unsupported("cudaMemcpy between devices of different servers",
                                           &once);
        }
        uint64_t a[FARO_GPU_ARGS_MAX] = {handle(dst), handle(src), n, handle(stream)};
        faro_cudart_reply_t r = {0};
        err = faro_cudart_call_on(d, FARO_GPU_OP_MEMCPY_D2D, a, NULL, NULL, 0, 0, sync ? &r : NULL);
        break;
    }
    default:
        return faro_cudart_fail(cudaErrorInvalidMemcpyDirection);
    }
    return sync ? sync_result(err) : faro_cudart_fail(err);
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
    CHECK_STICKY();
    if (n == 0)
        return cudaSuccess;
    if (!dst)
        return faro_cudart_fail(cudaErrorInvalidValue);
    uint64_t a[FARO_GPU_ARGS_MAX] = {handle(dst), n, handle(faro_cudart_stream(stream)),
                                     (uint32_t)(value & 0xff)};
    return faro_cudart_fail(faro_cudart_call_on(route(dst), FARO_GPU_OP_MEMSET, a, NULL, NULL, 0, 0,
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

/* ---- pitched (2D) memory ---------------------------------------------------- */

/* Rows are padded to this many bytes, a multiple of every CUDA GPU's
 * texture pitch alignment. */
#define PITCH_ALIGN 512

FARO_CUDART_API cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    if (!ptr || !pitch)
        return faro_cudart_fail(cudaErrorInvalidValue);
    size_t p = (width + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
    if (height && p > SIZE_MAX / height)
        return faro_cudart_fail(cudaErrorMemoryAllocation);
    cudaError_t err = cudaMalloc(ptr, p * height);
    if (err == cudaSuccess)
        *pitch = p;
    return err;
}

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
    CHECK_STICKY();
    uint64_t dptr;
    size_t size;
    cudaError_t err = symbol_address(symbol, &dptr, &size);
    if (err != cudaSuccess)
        return faro_cudart_fail(err);
    if (offset > size || n > size - offset)
        return faro_cudart_fail(cudaErrorInvalidValue);
    void *dev = (void *)(uintptr_t)(dptr + offset);
    if (kind == cudaMemcpyDefault)
        kind = is_device(host) ? cudaMemcpyDeviceToDevice
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
    CHECK_STICKY();
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

/* ---- profiler ------------------------------------------------------------- */

/* There is no profiler to drive on the client (profile on the server's node);
 * the calls succeed and do nothing, as with a profiler not attached. */
FARO_CUDART_API cudaError_t cudaProfilerStart(void)
{
    return cudaSuccess;
}

FARO_CUDART_API cudaError_t cudaProfilerStop(void)
{
    return cudaSuccess;
}
