/*
 * faro-gpud's host backend (backend.h): a stand-in GPU for tests on machines
 * without one. "Device" memory is host memory behind handles in an address
 * range of its own (a client that dereferenced one would fault: it is not a
 * host address), checked on every use against the session's allocations.
 * Fatbins are kept as loaded; a kernel's parameter layout comes from its
 * cubin's .nv.info (gpu/common/fatbin.h), and launching it runs the host
 * implementation registered under its mangled name (host_kernels.h).
 * Everything runs at once, in order: streams and events exist as handles,
 * an event records the time it was reached.
 */
#include "config.h"

#include "gpu/server/backend.h"

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/common/fatbin.h"
#include "gpu/server/host_kernels.h"
#include "gpu/wire/protocol.h"

#define HOST_MEM_TOTAL (4ull << 30)       /* the stand-in device's memory */
#define HOST_ADDR_BASE 0x100000000000ull  /* handles start here (not a host address) */
#define HOST_ADDR_GAP (1ull << 16)        /* between allocations: an overrun hits no one */
#define HOST_IMAGE_MAX (256u << 20)

enum { H_MODULE = 1, H_KERNEL, H_STREAM, H_EVENT, H_VAR };
#define HANDLE(kind, n) ((uint64_t)(kind) << 56 | (n))
#define HANDLE_KIND(h) ((int)((h) >> 56))

struct obj {                    /* a module, kernel, stream, event or variable */
    uint64_t handle;
    struct obj *next;
    uint8_t *image;             /* module: the fatbin */
    size_t len;
    uint64_t module;            /* kernel, variable: its module */
    char *name;
    const struct faro_gpu_host_kernel *hk;
    uint32_t param_bytes;
    double t;                   /* event: when recorded; < 0 never */
    uint64_t dptr;              /* variable: its memory */
};

struct alloc {
    uint64_t base, size;
    uint8_t *mem;
    struct alloc *next;
};

struct faro_gpu_be {
    void *dl;
    const struct faro_gpu_host_kernel *kernels;
    const struct faro_gpu_host_var *vars;
    int ndev;
    int wrong_layout;           /* tests only: report every parameter buffer 8 bytes long */
    uint64_t used;              /* bytes allocated, all sessions */
    uint64_t next_addr, next_handle;
};

struct faro_gpu_be_sess {
    faro_gpu_be_t *be;
    struct alloc *allocs;
    struct obj *objs;
    int dev;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int host_open(faro_gpu_be_t **out, const struct faro_gpu_be_opts *o, char *err,
                     size_t errlen)
{
    faro_gpu_be_t *be = calloc(1, sizeof *be);
    *out = NULL;
    if (!be) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    be->ndev = o->ngpus > 0 ? o->ngpus : 1;
    be->next_addr = HOST_ADDR_BASE;
    be->next_handle = 1;
    be->wrong_layout = o->wrong_layout;
    if (o->host_kernels) {
        if (!(be->dl = dlopen(o->host_kernels, RTLD_NOW | RTLD_LOCAL))) {
            snprintf(err, errlen, "--host-kernels %s: %s", o->host_kernels, dlerror());
            free(be);
            return -1;
        }
        be->kernels = dlsym(be->dl, FARO_GPU_HOST_KERNELS_SYM);
        be->vars = dlsym(be->dl, FARO_GPU_HOST_VARS_SYM);
        if (!be->kernels) {
            snprintf(err, errlen, "--host-kernels %s exports no %s", o->host_kernels,
                     FARO_GPU_HOST_KERNELS_SYM);
            dlclose(be->dl);
            free(be);
            return -1;
        }
    }
    *out = be;
    return 0;
}

static void host_close(faro_gpu_be_t *be)
{
    if (be && be->dl)
        dlclose(be->dl);
    free(be);
}

static int host_driver_version(faro_gpu_be_t *be)
{
    (void)be;
    return 13000;
}

static int host_device_count(faro_gpu_be_t *be)
{
    return be->ndev;
}

/* What the stand-in device says of itself: a modest sm_75-like GPU. */
static const int host_attrs[][2] = {
    { CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024 },
    { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024 },
    { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024 },
    { CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64 },
    { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647 },
    { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535 },
    { CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535 },
    { CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152 },
    { CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 65536 },
    { CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32 },
    { CU_DEVICE_ATTRIBUTE_MAX_PITCH, 2147483647 },
    { CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536 },
    { CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1000000 },
    { CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, 512 },
    { CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1 },
    { CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 1024 },
    { CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0 },
    { CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 1000000 },
    { CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 64 },
    { CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 7 },
    { CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 5 },
    { CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 65536 },
    { CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536 },
    { CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 65536 },
    { CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 16 },
};
#define HOST_NATTRS (sizeof host_attrs / sizeof host_attrs[0])

static int host_device_props(faro_gpu_be_t *be, int dev, uint64_t *total_mem, uint8_t uuid[16],
                             char *name, uint32_t *attrs, uint32_t *nattr)
{
    if (dev < 0 || dev >= be->ndev)
        return FARO_GPU_ERR_INVALID_DEVICE;
    *total_mem = HOST_MEM_TOTAL;
    memset(uuid, 0, 16);
    memcpy(uuid, "faro-host", 9);
    uuid[15] = (uint8_t)dev;
    snprintf(name, FARO_GPU_DEVNAME_MAX + 1, "Faro host backend device %d (no GPU)", dev);
    for (size_t i = 0; i < HOST_NATTRS; i++) {
        attrs[2 * i] = (uint32_t)host_attrs[i][0];
        attrs[2 * i + 1] = (uint32_t)host_attrs[i][1];
    }
    *nattr = HOST_NATTRS;
    return 0;
}

static int host_device_attr(faro_gpu_be_t *be, int attr, int dev, int *value)
{
    if (dev < 0 || dev >= be->ndev)
        return FARO_GPU_ERR_INVALID_DEVICE;
    if (attr <= 0 || attr >= CU_DEVICE_ATTRIBUTE_MAX)
        return FARO_GPU_ERR_INVALID_VALUE;
    *value = 0; /* what the stand-in does not have */
    for (size_t i = 0; i < HOST_NATTRS; i++)
        if (host_attrs[i][0] == attr)
            *value = host_attrs[i][1];
    return 0;
}

static int host_session_open(faro_gpu_be_t *be, faro_gpu_be_sess_t **out)
{
    faro_gpu_be_sess_t *s = calloc(1, sizeof *s);
    if (!s)
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    s->be = be;
    *out = s;
    return 0;
}

static void obj_free(struct obj *o)
{
    free(o->image);
    free(o->name);
    free(o);
}

static int host_device_reset(faro_gpu_be_sess_t *s)
{
    while (s->allocs) {
        struct alloc *a = s->allocs;
        s->allocs = a->next;
        s->be->used -= a->size;
        free(a->mem);
        free(a);
    }
    while (s->objs) {
        struct obj *o = s->objs;
        s->objs = o->next;
        obj_free(o);
    }
    return 0;
}

static void host_session_close(faro_gpu_be_t *be, faro_gpu_be_sess_t *s)
{
    (void)be;
    host_device_reset(s);
    free(s);
}

static int host_set_device(faro_gpu_be_sess_t *s, int dev)
{
    if (dev < 0 || dev >= s->be->ndev)
        return FARO_GPU_ERR_INVALID_DEVICE;
    s->dev = dev;
    return 0;
}

static int host_ok(faro_gpu_be_sess_t *s)
{
    (void)s;
    return 0;
}

/* Host memory behind [p, p + len), when the range is inside one allocation. */
static uint8_t *host_mem(faro_gpu_be_sess_t *s, uint64_t p, size_t len)
{
    for (struct alloc *a = s->allocs; a; a = a->next)
        if (p >= a->base && p - a->base < a->size)
            return len <= a->size - (p - a->base) ? a->mem + (p - a->base) : NULL;
    return NULL;
}

static int host_mem_alloc(faro_gpu_be_sess_t *s, uint64_t size, uint64_t *dptr)
{
    faro_gpu_be_t *be = s->be;
    if (size > HOST_MEM_TOTAL - be->used)
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    struct alloc *a = calloc(1, sizeof *a);
    if (!a || !(a->mem = malloc(size ? size : 1))) {
        free(a);
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    }
    a->base = be->next_addr;
    a->size = size;
    be->next_addr += (size + HOST_ADDR_GAP + 255) & ~255ull;
    be->used += size;
    a->next = s->allocs;
    s->allocs = a;
    *dptr = a->base;
    return 0;
}

static int host_mem_free(faro_gpu_be_sess_t *s, uint64_t dptr)
{
    if (dptr == 0)
        return 0; /* cudaFree(NULL) */
    for (struct alloc **ap = &s->allocs; *ap; ap = &(*ap)->next)
        if ((*ap)->base == dptr) {
            struct alloc *a = *ap;
            *ap = a->next;
            s->be->used -= a->size;
            free(a->mem);
            free(a);
            return 0;
        }
    return FARO_GPU_ERR_INVALID_VALUE;
}

static int host_mem_info(faro_gpu_be_sess_t *s, uint64_t *free_bytes, uint64_t *total)
{
    *total = HOST_MEM_TOTAL;
    *free_bytes = HOST_MEM_TOTAL - s->be->used;
    return 0;
}

static struct obj *obj_find(faro_gpu_be_sess_t *s, uint64_t h, int kind)
{
    if (HANDLE_KIND(h) != kind)
        return NULL;
    for (struct obj *o = s->objs; o; o = o->next)
        if (o->handle == h)
            return o;
    return NULL;
}

static int stream_ok(faro_gpu_be_sess_t *s, uint64_t stream)
{
    return stream == 0 || obj_find(s, stream, H_STREAM) != NULL;
}

/* Host memory behind a range of the session's (on a stream of its own):
 * 0 with *p set, or the status to return. */
static int host_range(faro_gpu_be_sess_t *s, uint64_t stream, uint64_t dptr, size_t len,
                      uint8_t **p)
{
    if (!stream_ok(s, stream))
        return FARO_GPU_ERR_INVALID_HANDLE;
    return (*p = host_mem(s, dptr, len)) ? 0 : FARO_GPU_ERR_INVALID_VALUE;
}

static int host_copy_h2d(faro_gpu_be_sess_t *s, uint64_t dst, const void *src, size_t len,
                         uint64_t stream)
{
    uint8_t *d;
    int rc = host_range(s, stream, dst, len, &d);
    if (!rc)
        memcpy(d, src, len);
    return rc;
}

static int host_copy_d2h(faro_gpu_be_sess_t *s, void *dst, uint64_t src, size_t len,
                         uint64_t stream)
{
    uint8_t *p;
    int rc = host_range(s, stream, src, len, &p);
    if (!rc)
        memcpy(dst, p, len);
    return rc;
}

static void *host_stage_alloc(faro_gpu_be_t *be, size_t len)
{
    (void)be;
    return malloc(len);
}

static void host_stage_free(faro_gpu_be_t *be, void *p)
{
    (void)be;
    free(p);
}

static int host_copy_d2h_start(faro_gpu_be_sess_t *s, void *dst, uint64_t src, size_t len,
                               uint64_t stream, unsigned tag)
{
    (void)tag; /* done at once */
    return host_copy_d2h(s, dst, src, len, stream);
}

static int host_copy_d2h_done(faro_gpu_be_sess_t *s, unsigned tag)
{
    (void)s, (void)tag;
    return 0;
}

static int host_copy_d2d(faro_gpu_be_sess_t *s, uint64_t dst, uint64_t src, size_t len,
                         uint64_t stream)
{
    uint8_t *d, *p;
    int rc = host_range(s, stream, dst, len, &d);
    if (!rc && !(rc = host_range(s, stream, src, len, &p)))
        memmove(d, p, len);
    return rc;
}

static int host_mem_set(faro_gpu_be_sess_t *s, uint64_t dst, int value, size_t len,
                        uint64_t stream)
{
    uint8_t *d;
    int rc = host_range(s, stream, dst, len, &d);
    if (!rc)
        memset(d, value, len);
    return rc;
}

static struct obj *obj_new(faro_gpu_be_sess_t *s, int kind)
{
    struct obj *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->handle = HANDLE(kind, s->be->next_handle++);
    o->next = s->objs;
    s->objs = o;
    return o;
}

static void obj_remove(faro_gpu_be_sess_t *s, struct obj *o)
{
    for (struct obj **op = &s->objs; *op; op = &(*op)->next)
        if (*op == o) {
            *op = o->next;
            obj_free(o);
            return;
        }
}

static int host_module_load(faro_gpu_be_sess_t *s, const uint8_t *image, size_t len,
                            uint64_t *module)
{
    size_t size;
    if (len > HOST_IMAGE_MAX || faro_fatbin_image_size(image, len, &size) != FARO_FATBIN_OK ||
        size > len)
        return FARO_GPU_ERR_INVALID_IMAGE;
    struct obj *o = obj_new(s, H_MODULE);
    if (!o || !(o->image = malloc(size))) {
        if (o)
            obj_remove(s, o);
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    }
    memcpy(o->image, image, size);
    o->len = size;
    *module = o->handle;
    return 0;
}

static int host_module_unload(faro_gpu_be_sess_t *s, uint64_t module)
{
    struct obj *m = obj_find(s, module, H_MODULE);
    if (!m)
        return FARO_GPU_ERR_INVALID_HANDLE;
    for (struct obj *o = s->objs, *n; o; o = n) {
        n = o->next;
        if (o->module == module) {
            if (HANDLE_KIND(o->handle) == H_VAR)
                host_mem_free(s, o->dptr);
            obj_remove(s, o);
        }
    }
    obj_remove(s, m);
    return 0;
}

static int host_kernel_get(faro_gpu_be_sess_t *s, uint64_t module, const char *name,
                           uint64_t *kernel, uint32_t *params, uint32_t *nparams,
                           uint32_t *param_bytes)
{
    struct obj *m = obj_find(s, module, H_MODULE);
    faro_kparam_t kp[FARO_GPU_PARAMS_MAX];
    unsigned n;
    size_t total;
    if (!m)
        return FARO_GPU_ERR_INVALID_HANDLE;
    int rc = faro_fatbin_params(m->image, m->len, name, kp, FARO_GPU_PARAMS_MAX, &n, &total);
    if (rc == FARO_FATBIN_ENOTFOUND)
        return FARO_GPU_ERR_NOT_FOUND;
    if (rc != FARO_FATBIN_OK || total > FARO_GPU_PARAM_BYTES_MAX)
        return FARO_GPU_ERR_INVALID_IMAGE;
    struct obj *k = obj_new(s, H_KERNEL);
    if (!k || !(k->name = strdup(name))) {
        if (k)
            obj_remove(s, k);
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    }
    k->module = module;
    k->param_bytes = (uint32_t)total;
    for (const struct faro_gpu_host_kernel *h = s->be->kernels; h && h->name; h++)
        if (!strcmp(h->name, name))
            k->hk = h;
    for (unsigned i = 0; i < n; i++) {
        params[2 * i] = kp[i].offset;
        params[2 * i + 1] = kp[i].size;
    }
    *nparams = n;
    *param_bytes = (uint32_t)total + (s->be->wrong_layout ? 8 : 0);
    *kernel = k->handle;
    return 0;
}

static int host_kernel_attr(faro_gpu_be_sess_t *s, uint64_t kernel, int attr, int *value)
{
    struct obj *k = obj_find(s, kernel, H_KERNEL);
    if (!k)
        return FARO_GPU_ERR_INVALID_HANDLE;
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *value = 1024;
        return 0;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        *value = 75;
        return 0;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        *value = 32;
        return 0;
    default:
        *value = 0;
        return attr >= 0 && attr < CU_FUNC_ATTRIBUTE_MAX ? 0 : FARO_GPU_ERR_INVALID_VALUE;
    }
}

/* Variables come from the test's shared object too (name and size): the
 * backend gives each its memory at the first lookup in a module. */
static int host_var_get(faro_gpu_be_sess_t *s, uint64_t module, const char *name,
                        uint64_t *dptr, uint64_t *size)
{
    if (!obj_find(s, module, H_MODULE))
        return FARO_GPU_ERR_INVALID_HANDLE;
    for (struct obj *o = s->objs; o; o = o->next)
        if (HANDLE_KIND(o->handle) == H_VAR && o->module == module && !strcmp(o->name, name)) {
            *dptr = o->dptr;
            *size = o->len;
            return 0;
        }
    for (const struct faro_gpu_host_var *v = s->be->vars; v && v->name; v++) {
        if (strcmp(v->name, name))
            continue;
        struct obj *o = obj_new(s, H_VAR);
        if (!o || !(o->name = strdup(name)) || host_mem_alloc(s, v->size, &o->dptr)) {
            if (o)
                obj_remove(s, o);
            return FARO_GPU_ERR_MEMORY_ALLOCATION;
        }
        memset(host_mem(s, o->dptr, v->size), 0, v->size);
        o->module = module;
        o->len = v->size;
        *dptr = o->dptr;
        *size = v->size;
        return 0;
    }
    return FARO_GPU_ERR_NOT_FOUND;
}

static void *host_ctx_mem(struct faro_gpu_host_ctx *c, uint64_t dptr, size_t len)
{
    return host_mem(c->priv, dptr, len);
}

static int host_launch(faro_gpu_be_sess_t *s, uint64_t kernel, const uint32_t grid[3],
                       const uint32_t block[3], uint32_t shared_bytes, uint64_t stream,
                       const void *params, size_t len)
{
    struct obj *k = obj_find(s, kernel, H_KERNEL);
    (void)shared_bytes;
    if (!k || !stream_ok(s, stream))
        return FARO_GPU_ERR_INVALID_HANDLE;
    if (len != k->param_bytes || !grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] ||
        !block[2] || (uint64_t)block[0] * block[1] * block[2] > 1024)
        return FARO_GPU_ERR_INVALID_VALUE;
    if (!k->hk) {
        fprintf(stderr, "faro-gpud: host backend: no host implementation of kernel %s "
                "(--host-kernels): launch refused\n", k->name);
        return FARO_GPU_ERR_NOT_SUPPORTED;
    }
    struct faro_gpu_host_ctx c = { .mem = host_ctx_mem, .priv = s };
    return k->hk->run(&c, params, len, grid, block);
}

static int host_stream_create(faro_gpu_be_sess_t *s, unsigned flags, int priority,
                              uint64_t *stream)
{
    struct obj *o = obj_new(s, H_STREAM);
    (void)flags;
    (void)priority;
    if (!o)
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    *stream = o->handle;
    return 0;
}

static int host_destroy(faro_gpu_be_sess_t *s, uint64_t h, int kind)
{
    struct obj *o = obj_find(s, h, kind);
    if (!o)
        return FARO_GPU_ERR_INVALID_HANDLE;
    obj_remove(s, o);
    return 0;
}

static int host_stream_destroy(faro_gpu_be_sess_t *s, uint64_t stream)
{
    return host_destroy(s, stream, H_STREAM);
}

static int host_stream_sync(faro_gpu_be_sess_t *s, uint64_t stream)
{
    return stream_ok(s, stream) ? 0 : FARO_GPU_ERR_INVALID_HANDLE; /* all work is done */
}

static int host_stream_wait_event(faro_gpu_be_sess_t *s, uint64_t stream, uint64_t event,
                                  unsigned flags)
{
    (void)flags;
    return stream_ok(s, stream) && obj_find(s, event, H_EVENT) ? 0
                                                               : FARO_GPU_ERR_INVALID_HANDLE;
}

static int host_event_create(faro_gpu_be_sess_t *s, unsigned flags, uint64_t *event)
{
    struct obj *o = obj_new(s, H_EVENT);
    (void)flags;
    if (!o)
        return FARO_GPU_ERR_MEMORY_ALLOCATION;
    o->t = -1;
    *event = o->handle;
    return 0;
}

static int host_event_destroy(faro_gpu_be_sess_t *s, uint64_t event)
{
    return host_destroy(s, event, H_EVENT);
}

static int host_event_record(faro_gpu_be_sess_t *s, uint64_t event, uint64_t stream)
{
    struct obj *o = obj_find(s, event, H_EVENT);
    if (!o || !stream_ok(s, stream))
        return FARO_GPU_ERR_INVALID_HANDLE;
    o->t = now_ms();
    return 0;
}

static int host_event_sync(faro_gpu_be_sess_t *s, uint64_t event)
{
    return obj_find(s, event, H_EVENT) ? 0 : FARO_GPU_ERR_INVALID_HANDLE;
}

static int host_event_elapsed(faro_gpu_be_sess_t *s, uint64_t start, uint64_t end, float *ms)
{
    struct obj *a = obj_find(s, start, H_EVENT), *b = obj_find(s, end, H_EVENT);
    if (!a || !b)
        return FARO_GPU_ERR_INVALID_HANDLE;
    if (a->t < 0 || b->t < 0)
        return FARO_GPU_ERR_INVALID_HANDLE; /* cudaErrorInvalidResourceHandle, as CUDA */
    *ms = (float)(b->t - a->t);
    return 0;
}

const struct faro_gpu_be_ops faro_gpu_be_host = {
    .name = "host",
    .open = host_open,
    .close = host_close,
    .driver_version = host_driver_version,
    .device_count = host_device_count,
    .device_props = host_device_props,
    .device_attr = host_device_attr,
    .session_open = host_session_open,
    .session_close = host_session_close,
    .set_device = host_set_device,
    .device_sync = host_ok,
    .device_reset = host_device_reset,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .mem_info = host_mem_info,
    .copy_h2d = host_copy_h2d,
    .copy_d2h = host_copy_d2h,
    .stage_alloc = host_stage_alloc,
    .stage_free = host_stage_free,
    .copy_d2h_start = host_copy_d2h_start,
    .copy_d2h_done = host_copy_d2h_done,
    .copy_d2d = host_copy_d2d,
    .mem_set = host_mem_set,
    .module_load = host_module_load,
    .module_unload = host_module_unload,
    .kernel_get = host_kernel_get,
    .kernel_attr = host_kernel_attr,
    .var_get = host_var_get,
    .launch = host_launch,
    .stream_create = host_stream_create,
    .stream_destroy = host_stream_destroy,
    .stream_sync = host_stream_sync,
    .stream_query = host_stream_sync,
    .stream_wait_event = host_stream_wait_event,
    .event_create = host_event_create,
    .event_destroy = host_event_destroy,
    .event_record = host_event_record,
    .event_sync = host_event_sync,
    .event_query = host_event_sync,
    .event_elapsed = host_event_elapsed,
};
