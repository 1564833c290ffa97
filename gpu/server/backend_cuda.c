/*
 * faro-gpud's cuda backend (backend.h): the real GPUs through the CUDA
 * driver API, resolved at run time so that faro-gpud builds and starts on
 * machines without a driver (and there says so and exits).
 *
 * Entry points: dlopen("libcuda.so.1"), then cuGetProcAddress for each base
 * name at CUDA version 13000, so the driver hands out the variant (_v2, _v3)
 * whose prototype cuda.h gives that name; the table below takes each
 * pointer's type from cuda.h's declaration of the name (__typeof__).
 *
 * Contexts: each device's primary context, retained at open; a session
 * makes its device's context current before every call. What a session
 * allocates or loads is recorded in the session, checked on every use (a
 * client names only its own memory, modules, kernels, streams and events;
 * module, kernel, stream and event handles are the session's numbers, never
 * driver pointers) and freed when the session closes.
 *
 * Copies: on the default stream with the synchronous calls; on a stream with
 * the asynchronous ones followed by a synchronize of that stream (the
 * message's bytes are freed when it returns). Pinned double buffering is the
 * next step (docs/gpu.md).
 *
 * Errors: CUresult values equal the runtime's cudaError_t numbers for every
 * error a call here returns (checked against CUDA 13's headers for the
 * codes in protocol.h); they are passed through.
 */
#include "config.h"

#include "gpu/server/backend.h"

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/wire/protocol.h"

#define CU_FNS(X)                                                                          \
    X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet)                     \
    X(cuDeviceGetAttribute) X(cuDeviceGetName) X(cuDeviceTotalMem) X(cuDeviceGetUuid)      \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)            \
    X(cuCtxSynchronize) X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo) X(cuMemcpyHtoD)         \
    X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync)              \
    X(cuMemcpyDtoDAsync) X(cuMemsetD8) X(cuMemsetD8Async) X(cuLibraryLoadData)             \
    X(cuLibraryUnload) X(cuLibraryGetKernel) X(cuLibraryGetGlobal) X(cuKernelGetParamInfo) \
    X(cuKernelGetAttribute) X(cuLaunchKernel) X(cuStreamCreateWithPriority)                \
    X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamQuery) X(cuStreamWaitEvent)        \
    X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)              \
    X(cuEventQuery) X(cuEventElapsedTime) X(cuMemHostAlloc) X(cuMemFreeHost)

#define CU_DECL(name) __typeof__(name) *name;
struct cu_fns {
    CU_FNS(CU_DECL)
};

#define MAX_DEV 64

enum { C_MODULE = 1, C_KERNEL, C_STREAM, C_EVENT, C_MEM, C_VAR };

struct cobj {
    int kind;
    uint64_t handle;            /* the session's number; C_MEM, C_VAR: the device pointer */
    uint64_t size;              /* C_MEM, C_VAR */
    CUlibrary lib;
    CUkernel kernel;
    CUstream stream;
    CUevent event;
    uint64_t module;            /* C_KERNEL, C_VAR: its module's handle */
    struct cobj *next;
};

struct faro_gpu_be {
    void *dl;
    struct cu_fns cu;
    int version, ndev;
    CUdevice dev[MAX_DEV];
    CUcontext ctx[MAX_DEV];
    uint64_t next_handle;
};

struct faro_gpu_be_sess {
    faro_gpu_be_t *be;
    int dev;
    struct cobj *objs;
    CUevent stage_ev[FARO_GPU_BE_TAGS]; /* a staged D2H copy's end, per tag */
    int stage_ev_dev[FARO_GPU_BE_TAGS]; /* the device it was made on, + 1 (0: none) */
};

static int cuda_open(faro_gpu_be_t **out, const struct faro_gpu_be_opts *o, char *err,
                     size_t errlen)
{
    faro_gpu_be_t *be = calloc(1, sizeof *be);
    *out = NULL;
    if (!be) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (!(be->dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))) {
        snprintf(err, errlen, "cannot load the CUDA driver library libcuda.so.1 (%s): is the "
                 "NVIDIA driver installed on this machine? (--backend host runs without a GPU, "
                 "for tests)", dlerror());
        free(be);
        return -1;
    }
    __typeof__(cuGetProcAddress) *gpa = (__typeof__(cuGetProcAddress) *)dlsym(
        be->dl, "cuGetProcAddress_v2");
    if (!gpa) {
        snprintf(err, errlen, "libcuda.so.1 has no cuGetProcAddress_v2: the driver is older "
                 "than CUDA 12; faro-gpud needs a CUDA 13 driver");
        goto fail;
    }
    CUdriverProcAddressQueryResult q;
    void *fn;
#define CU_RESOLVE(name)                                                                   \
    if (gpa(#name, &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS || !fn) {  \
        snprintf(err, errlen, "the CUDA driver has no %s for CUDA 13.0 (query result %d): " \
                 "faro-gpud needs a CUDA 13 driver", #name, (int)q);                       \
        goto fail;                                                                         \
    }                                                                                      \
    memcpy(&be->cu.name, &fn, sizeof fn);
    CU_FNS(CU_RESOLVE)
#undef CU_RESOLVE
    CUresult rc = be->cu.cuInit(0);
    if (rc != CUDA_SUCCESS) {
        snprintf(err, errlen, "cuInit failed with CUresult %d%s", (int)rc,
                 rc == CUDA_ERROR_NO_DEVICE ? " (no CUDA-capable device)"
                 : rc == CUDA_ERROR_STUB_LIBRARY ? " (the stub libcuda, not a driver)" : "");
        goto fail;
    }
    be->cu.cuDriverGetVersion(&be->version);
    int count = 0;
    be->cu.cuDeviceGetCount(&count);
    be->ndev = o->ngpus > 0 ? o->ngpus : count;
    if (be->ndev > MAX_DEV)
        be->ndev = MAX_DEV;
    for (int i = 0; i < be->ndev; i++) {
        int ord = o->ngpus > 0 ? o->gpus[i] : i;
        if (ord >= count || be->cu.cuDeviceGet(&be->dev[i], ord) != CUDA_SUCCESS) {
            snprintf(err, errlen, "--gpus: device %d does not exist (this machine has %d)", ord,
                     count);
            goto fail;
        }
        if ((rc = be->cu.cuDevicePrimaryCtxRetain(&be->ctx[i], be->dev[i])) != CUDA_SUCCESS) {
            snprintf(err, errlen, "device %d: cannot retain its primary context (CUresult %d)",
                     ord, (int)rc);
            be->ndev = i;
            goto fail;
        }
    }
    if (be->ndev == 0) {
        snprintf(err, errlen, "the driver shows no CUDA device");
        goto fail;
    }
    be->next_handle = 1;
    *out = be;
    return 0;
fail:
    for (int i = 0; i < be->ndev && be->ctx[i]; i++)
        be->cu.cuDevicePrimaryCtxRelease(be->dev[i]);
    dlclose(be->dl);
    free(be);
    return -1;
}

static void cuda_close(faro_gpu_be_t *be)
{
    if (!be)
        return;
    for (int i = 0; i < be->ndev; i++)
        be->cu.cuDevicePrimaryCtxRelease(be->dev[i]);
    dlclose(be->dl);
    free(be);
}

static int cuda_driver_version(faro_gpu_be_t *be)
{
    return be->version;
}

static int cuda_device_count(faro_gpu_be_t *be)
{
    return be->ndev;
}

static int cuda_device_attr(faro_gpu_be_t *be, int attr, int dev, int *value)
{
    if (dev < 0 || dev >= be->ndev)
        return FARO_GPU_ERR_INVALID_DEVICE;
    return (int)be->cu.cuDeviceGetAttribute(value, (CUdevice_attribute)attr, be->dev[dev]);
}

static int cuda_device_props(faro_gpu_be_t *be, int dev, uint64_t *total_mem, uint8_t uuid[16],
                             char *name, uint32_t *attrs, uint32_t *nattr)
{
    size_t total = 0;
    CUuuid u;
    if (dev < 0 || dev >= be->ndev)
        return FARO_GPU_ERR_INVALID_DEVICE;
    CUresult rc = be->cu.cuDeviceTotalMem(&total, be->dev[dev]);
    if (rc == CUDA_SUCCESS)
        rc = be->cu.cuDeviceGetName(name, FARO_GPU_DEVNAME_MAX + 1, be->dev[dev]);
    if (rc == CUDA_SUCCESS && (rc = be->cu.cuDeviceGetUuid(&u, be->dev[dev])) == CUDA_SUCCESS)
        memcpy(uuid, u.bytes, 16);
    if (rc != CUDA_SUCCESS)
        return (int)rc;
    name[FARO_GPU_DEVNAME_MAX] = '\0';
    *total_mem = total;
    /* every attribute the driver answers, so the client can fill cudaDeviceProp */
    uint32_t n = 0;
    for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX && n < FARO_GPU_ATTRS_MAX; a++) {
        int v;
        if (be->cu.cuDeviceGetAttribute(&v, (CUdevice_attribute)a, be->dev[dev]) ==
            CUDA_SUCCESS) {
            attrs[2 * n] = (uint32_t)a;
            attrs[2 * n + 1] = (uint32_t)v;
            n++;
        }
    }
    *nattr = n;
    return 0;
}

static int cuda_session_open(faro_gpu_be_t *be, faro_gpu_be_sess_t **out)
{
    faro_gpu_be_sess_t *s = calloc(1, sizeof *s);
    if (!s)
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    s->be = be;
    *out = s;
    return 0;
}

/* The session's device context, current on this thread. */
static int cur(faro_gpu_be_sess_t *s)
{
    return (int)s->be->cu.cuCtxSetCurrent(s->be->ctx[s->dev]);
}

static void cobj_release(faro_gpu_be_sess_t *s, struct cobj *o)
{
    struct cu_fns *cu = &s->be->cu;
    switch (o->kind) {
    case C_MEM:
        cu->cuMemFree((CUdeviceptr)o->handle);
        break;
    case C_MODULE:
        cu->cuLibraryUnload(o->lib);
        break;
    case C_STREAM:
        cu->cuStreamDestroy(o->stream);
        break;
    case C_EVENT:
        cu->cuEventDestroy(o->event);
        break;
    }
    free(o);
}

static int cuda_device_reset(faro_gpu_be_sess_t *s)
{
    cur(s);
    s->be->cu.cuCtxSynchronize();
    /* kernels before their modules: the list is newest first, so they are */
    while (s->objs) {
        struct cobj *o = s->objs;
        s->objs = o->next;
        cobj_release(s, o);
    }
    return 0;
}

static void cuda_session_close(faro_gpu_be_t *be, faro_gpu_be_sess_t *s)
{
    cuda_device_reset(s);
    for (unsigned t = 0; t < FARO_GPU_BE_TAGS; t++)
        if (s->stage_ev_dev[t]) {
            be->cu.cuCtxSetCurrent(be->ctx[s->stage_ev_dev[t] - 1]);
            be->cu.cuEventDestroy(s->stage_ev[t]);
        }
    free(s);
}

static int cuda_set_device(faro_gpu_be_sess_t *s, int dev)
{
    if (dev < 0 || dev >= s->be->ndev)
        return FARO_GPU_ERR_INVALID_DEVICE;
    s->dev = dev;
    return 0;
}

static int cuda_device_sync(faro_gpu_be_sess_t *s)
{
    int rc = cur(s);
    return rc ? rc : (int)s->be->cu.cuCtxSynchronize();
}

static struct cobj *cobj_new(faro_gpu_be_sess_t *s, int kind)
{
    struct cobj *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->kind = kind;
    o->handle = (uint64_t)kind << 56 | s->be->next_handle++;
    o->next = s->objs;
    s->objs = o;
    return o;
}

static struct cobj *cobj_find(faro_gpu_be_sess_t *s, uint64_t h, int kind)
{
    for (struct cobj *o = s->objs; o; o = o->next)
        if (o->kind == kind && o->handle == h)
            return o;
    return NULL;
}

static void cobj_unlink(faro_gpu_be_sess_t *s, struct cobj *o)
{
    for (struct cobj **op = &s->objs; *op; op = &(*op)->next)
        if (*op == o) {
            *op = o->next;
            return;
        }
}

/* [p, p + len) inside one of the session's allocations (or variables). */
static int mem_ok(faro_gpu_be_sess_t *s, uint64_t p, uint64_t len)
{
    for (struct cobj *o = s->objs; o; o = o->next)
        if ((o->kind == C_MEM || o->kind == C_VAR) && p >= o->handle && p - o->handle < o->size)
            return len <= o->size - (p - o->handle);
    return 0;
}

/* A stream handle to the driver's stream; 0 is the default stream. */
static int stream_of(faro_gpu_be_sess_t *s, uint64_t h, CUstream *st)
{
    struct cobj *o = h ? cobj_find(s, h, C_STREAM) : NULL;
    if (h && !o)
        return -1;
    *st = o ? o->stream : NULL;
    return 0;
}

static int cuda_mem_alloc(faro_gpu_be_sess_t *s, uint64_t size, uint64_t *dptr)
{
    CUdeviceptr p;
    int rc = cur(s);
    if (rc || (rc = (int)s->be->cu.cuMemAlloc(&p, size)))
        return rc;
    struct cobj *o = cobj_new(s, C_MEM);
    if (!o) {
        s->be->cu.cuMemFree(p);
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    }
    o->handle = (uint64_t)p;
    o->size = size;
    *dptr = (uint64_t)p;
    return 0;
}

static int cuda_mem_free(faro_gpu_be_sess_t *s, uint64_t dptr)
{
    if (dptr == 0)
        return 0;
    struct cobj *o = cobj_find(s, dptr, C_MEM);
    if (!o)
        return FARO_GPU_ERR_INVALID_VALUE;
    cur(s);
    cobj_unlink(s, o);
    cobj_release(s, o);
    return 0;
}

static int cuda_mem_info(faro_gpu_be_sess_t *s, uint64_t *free_bytes, uint64_t *total)
{
    size_t f, t;
    int rc = cur(s);
    if (rc || (rc = (int)s->be->cu.cuMemGetInfo(&f, &t)))
        return rc;
    *free_bytes = f;
    *total = t;
    return 0;
}

/* The checks every copy and memset makes: a stream of the session's, each
 * range (src may be 0: none) inside the session's memory, its context
 * current. 0, or the status to return. */
static int mem_prep(faro_gpu_be_sess_t *s, uint64_t stream, CUstream *st, uint64_t dst,
                    uint64_t src, size_t len)
{
    if (stream_of(s, stream, st))
        return FARO_GPU_ERR_INVALID_HANDLE;
    if ((dst && !mem_ok(s, dst, len)) || (src && !mem_ok(s, src, len)))
        return FARO_GPU_ERR_INVALID_VALUE;
    return cur(s);
}

static int cuda_copy_h2d(faro_gpu_be_sess_t *s, uint64_t dst, const void *src, size_t len,
                         uint64_t stream)
{
    CUstream st;
    int rc = mem_prep(s, stream, &st, dst, 0, len);
    if (rc || !st)
        return rc ? rc : (int)s->be->cu.cuMemcpyHtoD(dst, src, len);
    rc = (int)s->be->cu.cuMemcpyHtoDAsync(dst, src, len, st);
    return rc ? rc : (int)s->be->cu.cuStreamSynchronize(st);
}

static int cuda_copy_d2h(faro_gpu_be_sess_t *s, void *dst, uint64_t src, size_t len,
                         uint64_t stream)
{
    CUstream st;
    int rc = mem_prep(s, stream, &st, 0, src, len);
    if (rc || !st)
        return rc ? rc : (int)s->be->cu.cuMemcpyDtoH(dst, src, len);
    rc = (int)s->be->cu.cuMemcpyDtoHAsync(dst, src, len, st);
    return rc ? rc : (int)s->be->cu.cuStreamSynchronize(st);
}

/* Staging for pipelined D2H copies: pinned, so that cuMemcpyDtoHAsync is
 * truly asynchronous and PCIe overlaps the network; portable, so that any
 * device's context may copy into it. */
static void *cuda_stage_alloc(faro_gpu_be_t *be, size_t len)
{
    void *p = NULL;
    if (be->cu.cuCtxSetCurrent(be->ctx[0]) ||
        be->cu.cuMemHostAlloc(&p, len, CU_MEMHOSTALLOC_PORTABLE))
        return NULL;
    return p;
}

static void cuda_stage_free(faro_gpu_be_t *be, void *p)
{
    be->cu.cuCtxSetCurrent(be->ctx[0]);
    be->cu.cuMemFreeHost(p);
}

static int cuda_copy_d2h_start(faro_gpu_be_sess_t *s, void *dst, uint64_t src, size_t len,
                               uint64_t stream, unsigned tag)
{
    CUstream st;
    int rc = mem_prep(s, stream, &st, 0, src, len);
    if (rc || tag >= FARO_GPU_BE_TAGS)
        return rc ? rc : FARO_GPU_ERR_INVALID_VALUE;
    if (s->stage_ev_dev[tag] != s->dev + 1) { /* an event of the session's device */
        if (s->stage_ev_dev[tag]) { /* destroyed in the context it was made in */
            s->be->cu.cuCtxSetCurrent(s->be->ctx[s->stage_ev_dev[tag] - 1]);
            s->be->cu.cuEventDestroy(s->stage_ev[tag]);
            if ((rc = cur(s)))
                return rc;
        }
        s->stage_ev_dev[tag] = 0;
        if ((rc = (int)s->be->cu.cuEventCreate(&s->stage_ev[tag], CU_EVENT_DISABLE_TIMING)))
            return rc;
        s->stage_ev_dev[tag] = s->dev + 1;
    }
    rc = (int)s->be->cu.cuMemcpyDtoHAsync(dst, src, len, st);
    return rc ? rc : (int)s->be->cu.cuEventRecord(s->stage_ev[tag], st);
}

static int cuda_copy_d2h_done(faro_gpu_be_sess_t *s, unsigned tag)
{
    if (tag >= FARO_GPU_BE_TAGS || !s->stage_ev_dev[tag])
        return FARO_GPU_ERR_INVALID_VALUE;
    int rc = (int)s->be->cu.cuCtxSetCurrent(s->be->ctx[s->stage_ev_dev[tag] - 1]);
    return rc ? rc : (int)s->be->cu.cuEventQuery(s->stage_ev[tag]);
}

static int cuda_copy_d2d(faro_gpu_be_sess_t *s, uint64_t dst, uint64_t src, size_t len,
                         uint64_t stream)
{
    CUstream st;
    int rc = mem_prep(s, stream, &st, dst, src, len);
    if (rc)
        return rc;
    return st ? (int)s->be->cu.cuMemcpyDtoDAsync(dst, src, len, st)
              : (int)s->be->cu.cuMemcpyDtoD(dst, src, len);
}

static int cuda_mem_set(faro_gpu_be_sess_t *s, uint64_t dst, int value, size_t len,
                        uint64_t stream)
{
    CUstream st;
    int rc = mem_prep(s, stream, &st, dst, 0, len);
    if (rc)
        return rc;
    return st ? (int)s->be->cu.cuMemsetD8Async(dst, (unsigned char)value, len, st)
              : (int)s->be->cu.cuMemsetD8(dst, (unsigned char)value, len);
}

static int cuda_module_load(faro_gpu_be_sess_t *s, const uint8_t *image, size_t len,
                            uint64_t *module)
{
    CUlibrary lib;
    int rc = cur(s);
    (void)len; /* the image's header bounds it; session.c assembled exactly len bytes */
    if (rc || (rc = (int)s->be->cu.cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0)))
        return rc;
    struct cobj *o = cobj_new(s, C_MODULE);
    if (!o) {
        s->be->cu.cuLibraryUnload(lib);
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    }
    o->lib = lib;
    *module = o->handle;
    return 0;
}

static int cuda_module_unload(faro_gpu_be_sess_t *s, uint64_t module)
{
    struct cobj *m = cobj_find(s, module, C_MODULE);
    if (!m)
        return FARO_GPU_ERR_INVALID_HANDLE;
    for (struct cobj *o = s->objs, *n; o; o = n) { /* its kernels and variables go too */
        n = o->next;
        if (o->module == module) {
            cobj_unlink(s, o);
            free(o); /* kernels and globals are owned by the library */
        }
    }
    cur(s);
    cobj_unlink(s, m);
    cobj_release(s, m);
    return 0;
}

static int cuda_kernel_get(faro_gpu_be_sess_t *s, uint64_t module, const char *name,
                           uint64_t *kernel, uint32_t *params, uint32_t *nparams,
                           uint32_t *param_bytes)
{
    struct cobj *m = cobj_find(s, module, C_MODULE);
    CUkernel k;
    uint32_t end = 0, n = 0;
    if (!m)
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = cur(s);
    if (rc || (rc = (int)s->be->cu.cuLibraryGetKernel(&k, m->lib, name)))
        return rc;
    /* no count query: ask 0, 1, ... until the driver says there is no such index */
    for (;; n++) {
        size_t off, size;
        CUresult r = s->be->cu.cuKernelGetParamInfo(k, n, &off, &size);
        if (r == CUDA_ERROR_INVALID_VALUE)
            break;
        if (r != CUDA_SUCCESS)
            return (int)r;
        if (n == FARO_GPU_PARAMS_MAX)
            return FARO_GPU_ERR_NOT_SUPPORTED;
        params[2 * n] = (uint32_t)off;
        params[2 * n + 1] = (uint32_t)size;
        if (off + size > end)
            end = (uint32_t)(off + size);
    }
    struct cobj *o = cobj_new(s, C_KERNEL);
    if (!o)
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    o->kernel = k;
    o->module = module;
    *nparams = n;
    *param_bytes = end;
    *kernel = o->handle;
    return 0;
}

static int cuda_kernel_attr(faro_gpu_be_sess_t *s, uint64_t kernel, int attr, int *value)
{
    struct cobj *k = cobj_find(s, kernel, C_KERNEL);
    if (!k)
        return FARO_GPU_ERR_INVALID_HANDLE;
    return (int)s->be->cu.cuKernelGetAttribute(value, (CUfunction_attribute)attr, k->kernel,
                                                s->be->dev[s->dev]);
}

static int cuda_var_get(faro_gpu_be_sess_t *s, uint64_t module, const char *name,
                        uint64_t *dptr, uint64_t *size)
{
    struct cobj *m = cobj_find(s, module, C_MODULE);
    CUdeviceptr p;
    size_t bytes;
    if (!m)
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = cur(s);
    if (rc || (rc = (int)s->be->cu.cuLibraryGetGlobal(&p, &bytes, m->lib, name)))
        return rc;
    /* recorded so that copies to it pass the range check; the library owns
     * the memory (never cuMemFree'd) */
    struct cobj *o = cobj_find(s, (uint64_t)p, C_VAR);
    if (!o && (o = cobj_new(s, C_VAR)))
        o->handle = (uint64_t)p;
    if (!o)
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    o->module = module;
    o->size = bytes;
    *dptr = (uint64_t)p;
    *size = bytes;
    return 0;
}

static int cuda_launch(faro_gpu_be_sess_t *s, uint64_t kernel, const uint32_t grid[3],
                       const uint32_t block[3], uint32_t shared_bytes, uint64_t stream,
                       const void *params, size_t len)
{
    struct cobj *k = cobj_find(s, kernel, C_KERNEL);
    CUstream st;
    if (!k || stream_of(s, stream, &st))
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = cur(s);
    if (rc)
        return rc;
    size_t size = len;
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, (void *)params,
                      CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END };
    return (int)s->be->cu.cuLaunchKernel((CUfunction)k->kernel, grid[0], grid[1], grid[2],
                                         block[0], block[1], block[2], shared_bytes, st, NULL,
                                         len ? extra : NULL);
}

static int cuda_stream_create(faro_gpu_be_sess_t *s, unsigned flags, int priority,
                              uint64_t *stream)
{
    CUstream st;
    int rc = cur(s);
    if (rc || (rc = (int)s->be->cu.cuStreamCreateWithPriority(&st, flags, priority)))
        return rc;
    struct cobj *o = cobj_new(s, C_STREAM);
    if (!o) {
        s->be->cu.cuStreamDestroy(st);
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    }
    o->stream = st;
    *stream = o->handle;
    return 0;
}

static int cuda_destroy(faro_gpu_be_sess_t *s, uint64_t h, int kind)
{
    struct cobj *o = cobj_find(s, h, kind);
    if (!o)
        return FARO_GPU_ERR_INVALID_HANDLE;
    cur(s);
    cobj_unlink(s, o);
    cobj_release(s, o);
    return 0;
}

static int cuda_stream_destroy(faro_gpu_be_sess_t *s, uint64_t stream)
{
    return cuda_destroy(s, stream, C_STREAM);
}

static int cuda_stream_sync(faro_gpu_be_sess_t *s, uint64_t stream)
{
    CUstream st;
    if (stream_of(s, stream, &st))
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = cur(s);
    return rc ? rc : (int)s->be->cu.cuStreamSynchronize(st);
}

static int cuda_stream_query(faro_gpu_be_sess_t *s, uint64_t stream)
{
    CUstream st;
    if (stream_of(s, stream, &st))
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = cur(s);
    return rc ? rc : (int)s->be->cu.cuStreamQuery(st);
}

static int cuda_stream_wait_event(faro_gpu_be_sess_t *s, uint64_t stream, uint64_t event,
                                  unsigned flags)
{
    CUstream st;
    struct cobj *e = cobj_find(s, event, C_EVENT);
    if (!e || stream_of(s, stream, &st))
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = cur(s);
    return rc ? rc : (int)s->be->cu.cuStreamWaitEvent(st, e->event, flags);
}

static int cuda_event_create(faro_gpu_be_sess_t *s, unsigned flags, uint64_t *event)
{
    CUevent ev;
    int rc = cur(s);
    if (rc || (rc = (int)s->be->cu.cuEventCreate(&ev, flags)))
        return rc;
    struct cobj *o = cobj_new(s, C_EVENT);
    if (!o) {
        s->be->cu.cuEventDestroy(ev);
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    }
    o->event = ev;
    *event = o->handle;
    return 0;
}

static int cuda_event_destroy(faro_gpu_be_sess_t *s, uint64_t event)
{
    return cuda_destroy(s, event, C_EVENT);
}

static int cuda_event_record(faro_gpu_be_sess_t *s, uint64_t event, uint64_t stream)
{
    CUstream st;
    struct cobj *e = cobj_find(s, event, C_EVENT);
    if (!e || stream_of(s, stream, &st))
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = cur(s);
    return rc ? rc : (int)s->be->cu.cuEventRecord(e->event, st);
}

static int cuda_event_sync(faro_gpu_be_sess_t *s, uint64_t event)
{
    struct cobj *e = cobj_find(s, event, C_EVENT);
    if (!e)
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = cur(s);
    return rc ? rc : (int)s->be->cu.cuEventSynchronize(e->event);
}

static int cuda_event_query(faro_gpu_be_sess_t *s, uint64_t event)
{
    struct cobj *e = cobj_find(s, event, C_EVENT);
    if (!e)
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = cur(s);
    return rc ? rc : (int)s->be->cu.cuEventQuery(e->event);
}

static int cuda_event_elapsed(faro_gpu_be_sess_t *s, uint64_t start, uint64_t end, float *ms)
{
    struct cobj *a = cobj_find(s, start, C_EVENT), *b = cobj_find(s, end, C_EVENT);
    if (!a || !b)
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = cur(s);
    return rc ? rc : (int)s->be->cu.cuEventElapsedTime(ms, a->event, b->event);
}

const struct faro_gpu_be_ops faro_gpu_be_cuda = {
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .driver_version = cuda_driver_version,
    .device_count = cuda_device_count,
    .device_props = cuda_device_props,
    .device_attr = cuda_device_attr,
    .session_open = cuda_session_open,
    .session_close = cuda_session_close,
    .set_device = cuda_set_device,
    .device_sync = cuda_device_sync,
    .device_reset = cuda_device_reset,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .mem_info = cuda_mem_info,
    .copy_h2d = cuda_copy_h2d,
    .copy_d2h = cuda_copy_d2h,
    .stage_alloc = cuda_stage_alloc,
    .stage_free = cuda_stage_free,
    .copy_d2h_start = cuda_copy_d2h_start,
    .copy_d2h_done = cuda_copy_d2h_done,
    .copy_d2d = cuda_copy_d2d,
    .mem_set = cuda_mem_set,
    .module_load = cuda_module_load,
    .module_unload = cuda_module_unload,
    .kernel_get = cuda_kernel_get,
    .kernel_attr = cuda_kernel_attr,
    .var_get = cuda_var_get,
    .launch = cuda_launch,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_sync = cuda_stream_sync,
    .stream_query = cuda_stream_query,
    .stream_wait_event = cuda_stream_wait_event,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_sync = cuda_event_sync,
    .event_query = cuda_event_query,
    .event_elapsed = cuda_event_elapsed,
};
