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
 * Copies, memsets and symbol copies are copy.c's.
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
int faro_cudart_device_of(const void *p)
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

int faro_cudart_route(const void *p)
{
    int dev = faro_cudart_device_of(p);
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

/* ---- devices -------------------------------------------------------------- */

/* The checks a call naming a device makes: no sticky error, a session, a
 * device number this client shows. */
static cudaError_t check_device(int device)
{
    FARO_CUDART_CHECK_STICKY();
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
    FARO_CUDART_CHECK_STICKY();
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
    FARO_CUDART_CHECK_STICKY();
    faro_cudart_reply_t r = {0};
    return faro_cudart_sync_result(faro_cudart_call(FARO_GPU_OP_DEVICE_SYNC, NULL, NULL, NULL, 0, 0, &r));
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
    FARO_CUDART_CHECK_STICKY();
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
    FARO_CUDART_CHECK_STICKY();
    if (!ptr)
        return faro_cudart_fail(faro_cudart_connect()); /* CUDA: initializes, frees nothing */
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(ptr)};
    faro_cudart_reply_t r = {0};
    int dev = faro_cudart_route(ptr);
    cudaError_t err = faro_cudart_call_on(dev, FARO_GPU_OP_FREE, a, NULL, NULL, 0, 0, &r);
    if (err == cudaSuccess)
        alloc_remove(faro_cudart_handle(ptr), dev);
    return faro_cudart_fail(err);
}

FARO_CUDART_API cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (!free_bytes || !total)
        return faro_cudart_fail(cudaErrorInvalidValue);
    FARO_CUDART_CHECK_STICKY();
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
