/*
 * Registration: what nvcc's static constructors hand the runtime before
 * main (docs/gpu.md "Client library"). Per translation unit with device
 * code: h = __cudaRegisterFatBinary(&wrapper), then __cudaRegisterFunction
 * per kernel and __cudaRegisterVar / __cudaRegisterManagedVar per variable,
 * __cudaRegisterFatBinaryEnd(h); atexit unregisters it.
 *
 * Everything is recorded locally; nothing here connects to a server or
 * prints (a program that never calls CUDA must run, and start, as before).
 * The handle nvcc keeps is our faro_cudart_fatbin_t. The records point into
 * the program's own memory (the image, the names are nvcc's static data), so
 * nothing is copied. Unregistering unlinks the image's kernels and variables
 * but does not free them: a host stub that a static object still holds could
 * look its kernel up during exit. The registry lock protects the lists;
 * lookups are linear (a program has tens of kernels, and __cudaGetKernel's
 * answer is cached by nvcc's stub).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpu/client/cudart.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static faro_cudart_fatbin_t *fatbins;
static faro_cudart_kernel_t *kernels;
static faro_cudart_var_t *vars;

FARO_CUDART_API void **__cudaRegisterFatBinary(void *wrapper)
{
    faro_cudart_fatbin_t *fb = calloc(1, sizeof *fb);
    if (!fb) {
        faro_cudart_msg("out of memory registering a fatbinary");
        abort();
    }
    fb->wrapper = wrapper;
    /* A malformed image is kept with size 0: its kernels fail at launch with
     * cudaErrorInvalidKernelImage, as CUDA fails them, not before main. */
    if (faro_fatbin_from_wrapper(wrapper, SIZE_MAX, &fb->image, &fb->image_size) != FARO_FATBIN_OK) {
        fb->image = NULL;
        fb->image_size = 0;
    }
    pthread_mutex_lock(&registry_lock);
    fb->next = fatbins;
    fatbins = fb;
    pthread_mutex_unlock(&registry_lock);
    return (void **)fb;
}

FARO_CUDART_API void __cudaRegisterFatBinaryEnd(void **handle)
{
    faro_cudart_fatbin_t *fb = (faro_cudart_fatbin_t *)handle;
    if (fb)
        fb->ended = 1;
}

static void unlink_kernels(faro_cudart_fatbin_t *fb)
{
    for (faro_cudart_kernel_t **k = &kernels; *k;) {
        if ((*k)->fatbin == fb)
            *k = (*k)->next;
        else
            k = &(*k)->next;
    }
    for (faro_cudart_var_t **v = &vars; *v;) {
        if ((*v)->fatbin == fb)
            *v = (*v)->next;
        else
            v = &(*v)->next;
    }
}

FARO_CUDART_API void __cudaUnregisterFatBinary(void **handle)
{
    faro_cudart_fatbin_t *fb = (faro_cudart_fatbin_t *)handle;
    pthread_mutex_lock(&registry_lock);
    for (faro_cudart_fatbin_t **p = &fatbins; *p; p = &(*p)->next) {
        if (*p == fb) {
            *p = fb->next;
            unlink_kernels(fb);
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
}

FARO_CUDART_API void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
                                            const char *device_name, int thread_limit, uint3 *tid,
                                            uint3 *bid, dim3 *bdim, dim3 *gdim, int *wsize)
{
    (void)device_fun, (void)thread_limit, (void)tid, (void)bid, (void)bdim, (void)gdim, (void)wsize;
    faro_cudart_kernel_t *k = calloc(1, sizeof *k);
    if (!k) {
        faro_cudart_msg("out of memory registering kernel %s", device_name);
        abort();
    }
    k->host_fun = host_fun;
    k->name = device_name;
    k->fatbin = (faro_cudart_fatbin_t *)handle;
    pthread_mutex_lock(&registry_lock);
    k->next = kernels;
    kernels = k;
    pthread_mutex_unlock(&registry_lock);
}

static void register_var(void **handle, const void *host_var, const char *name, size_t size,
                         int constant, int managed)
{
    faro_cudart_var_t *v = calloc(1, sizeof *v);
    if (!v) {
        faro_cudart_msg("out of memory registering variable %s", name);
        abort();
    }
    v->host_var = host_var;
    v->name = name;
    v->size = size;
    v->constant = constant;
    v->managed = managed;
    v->fatbin = (faro_cudart_fatbin_t *)handle;
    pthread_mutex_lock(&registry_lock);
    if (managed && v->fatbin)
        v->fatbin->nmanaged++;
    v->next = vars;
    vars = v;
    pthread_mutex_unlock(&registry_lock);
}

FARO_CUDART_API void __cudaRegisterVar(void **handle, char *host_var, char *device_address,
                                       const char *device_name, int ext, size_t size, int constant,
                                       int global)
{
    (void)device_address, (void)ext, (void)global;
    register_var(handle, host_var, device_name, size, constant, 0);
}

/* Managed memory is not supported: the variable is recorded so that the
 * first use of its image (a launch, a copy to or from it) fails with
 * cudaErrorNotSupported and the message; its host pointer stays NULL. */
FARO_CUDART_API void __cudaRegisterManagedVar(void **handle, void **host_var_ptr_address,
                                              char *device_address, const char *device_name,
                                              int ext, size_t size, int constant, int global)
{
    (void)device_address, (void)ext, (void)global;
    register_var(handle, host_var_ptr_address, device_name, size, constant, 1);
}

/* nvcc calls this for -rdc device-linked images before use; the image is
 * shipped at first use anyway, so there is nothing to do but say yes. */
FARO_CUDART_API char __cudaInitModule(void **handle)
{
    return handle != NULL;
}

faro_cudart_kernel_t *faro_cudart_find_kernel(const void *host_fun)
{
    faro_cudart_kernel_t *found = NULL;
    pthread_mutex_lock(&registry_lock);
    for (faro_cudart_kernel_t *k = kernels; k && !found; k = k->next)
        if (k->host_fun == host_fun)
            found = k;
    pthread_mutex_unlock(&registry_lock);
    return found;
}

faro_cudart_var_t *faro_cudart_find_var(const void *host_var)
{
    faro_cudart_var_t *found = NULL;
    pthread_mutex_lock(&registry_lock);
    for (faro_cudart_var_t *v = vars; v && !found; v = v->next)
        if (v->host_var == host_var)
            found = v;
    pthread_mutex_unlock(&registry_lock);
    return found;
}

void faro_cudart_registry_counts(unsigned *nfatbins, unsigned *nkernels, unsigned *nvars)
{
    unsigned nf = 0, nk = 0, nv = 0;
    pthread_mutex_lock(&registry_lock);
    for (faro_cudart_fatbin_t *f = fatbins; f; f = f->next)
        nf++;
    for (faro_cudart_kernel_t *k = kernels; k; k = k->next)
        nk++;
    for (faro_cudart_var_t *v = vars; v; v = v->next)
        nv++;
    pthread_mutex_unlock(&registry_lock);
    *nfatbins = nf;
    *nkernels = nk;
    *nvars = nv;
}
