/*
 * faro-gpud's backends: what executes the calls of a session.
 *
 * The server (gpud.c, session.c) decodes a client's messages, checks what
 * the protocol can check (sizes, handles it knows the session owns, chunk
 * limits) and calls one backend through this ops table; it never touches a
 * device itself. Two backends exist:
 *
 *   cuda   the real GPUs through the CUDA driver API, resolved at run time
 *          (dlopen("libcuda.so.1"), cuGetProcAddress): builds everywhere,
 *          and at start says clearly when there is no driver (backend_cuda.c)
 *   host   a stand-in for tests: "device" memory is host memory behind
 *          opaque handles, fatbins are accepted and their kernels' parameter
 *          layouts read from the cubins' .nv.info (gpu/common/fatbin.h), and
 *          kernels run from a registry of host implementations keyed by
 *          mangled name, loaded from --host-kernels FILE.so (host_kernels.h);
 *          for tests only: nothing else runs (backend_host.c)
 *
 * Ownership: a backend instance (open..close) owns the devices; a session
 * object (session_open..session_close) owns everything a client allocated or
 * loaded through it, and session_close frees all of it, whatever state the
 * client left (a client that vanished mid-copy included). Handles (device
 * pointers, modules, kernels, streams, events) are the backend's u64 values,
 * opaque to the client; a backend refuses a handle that is not its session's
 * with FARO_GPU_ERR_INVALID_HANDLE (or INVALID_VALUE for a pointer) rather
 * than trusting it.
 *
 * Results: every op returns a cudaError_t number (protocol.h's
 * FARO_GPU_ERR_*; 0 success), the value the client's runtime call returns.
 * A backend maps its own errors (the driver's CUresult) to these.
 *
 * Threads: the server calls a backend from one thread.
 */
#ifndef FARO_GPU_BACKEND_H
#define FARO_GPU_BACKEND_H

#include <stddef.h>
#include <stdint.h>

typedef struct faro_gpu_be faro_gpu_be_t;       /* a backend instance */
typedef struct faro_gpu_be_sess faro_gpu_be_sess_t; /* one client session's objects */

#define FARO_GPU_BE_TAGS 16 /* copies in flight per session, at most */

struct faro_gpu_be_opts {
    const int *gpus;          /* --gpus: the devices to show, in order; NULL: all */
    int ngpus;
    const char *host_kernels; /* --host-kernels FILE.so (host backend) */
    int wrong_layout;         /* --host-test wrong-layout (host backend, tests only) */
};

struct faro_gpu_be_ops {
    const char *name;
    /* Start: 0, or -1 with err saying why this backend cannot work here. */
    int (*open)(faro_gpu_be_t **be, const struct faro_gpu_be_opts *o, char *err, size_t errlen);
    void (*close)(faro_gpu_be_t *be);
    int (*driver_version)(faro_gpu_be_t *be);
    int (*device_count)(faro_gpu_be_t *be);
    /* name gets at most FARO_GPU_DEVNAME_MAX bytes and a NUL; attrs gets
     * (attribute, value) pairs, at most FARO_GPU_ATTRS_MAX. */
    int (*device_props)(faro_gpu_be_t *be, int dev, uint64_t *total_mem, uint8_t uuid[16],
                        char *name, uint32_t *attrs, uint32_t *nattr);
    int (*device_attr)(faro_gpu_be_t *be, int attr, int dev, int *value);

    int (*session_open)(faro_gpu_be_t *be, faro_gpu_be_sess_t **s);
    void (*session_close)(faro_gpu_be_t *be, faro_gpu_be_sess_t *s);
    int (*set_device)(faro_gpu_be_sess_t *s, int dev);
    int (*device_sync)(faro_gpu_be_sess_t *s);
    int (*device_reset)(faro_gpu_be_sess_t *s);

    int (*mem_alloc)(faro_gpu_be_sess_t *s, uint64_t size, uint64_t *dptr);
    int (*mem_free)(faro_gpu_be_sess_t *s, uint64_t dptr);
    int (*mem_info)(faro_gpu_be_sess_t *s, uint64_t *free_bytes, uint64_t *total);
    int (*copy_h2d)(faro_gpu_be_sess_t *s, uint64_t dst, const void *src, size_t len,
                    uint64_t stream);
    int (*copy_d2h)(faro_gpu_be_sess_t *s, void *dst, uint64_t src, size_t len, uint64_t stream);
    int (*copy_d2d)(faro_gpu_be_sess_t *s, uint64_t dst, uint64_t src, size_t len,
                    uint64_t stream);
    int (*mem_set)(faro_gpu_be_sess_t *s, uint64_t dst, int value, size_t len, uint64_t stream);
    /* The pipelined D2H copy (session.c's staging ring): stage_alloc gives
     * host memory a device can copy into asynchronously (cuda: pinned, by
     * cuMemHostAlloc; host: malloc), NULL when there is none; it may outlive
     * the session that asked for it. copy_d2h_start starts copying len bytes
     * at src into such a buffer on stream, the copy named by tag (below
     * FARO_GPU_BE_TAGS); copy_d2h_done says 0 once that copy is complete,
     * FARO_GPU_ERR_NOT_READY before, or its error. cuda copies on the stream
     * and records an event (the network sends earlier chunks meanwhile);
     * host copies at once. */
    void *(*stage_alloc)(faro_gpu_be_t *be, size_t len);
    void (*stage_free)(faro_gpu_be_t *be, void *p);
    int (*copy_d2h_start)(faro_gpu_be_sess_t *s, void *dst, uint64_t src, size_t len,
                          uint64_t stream, unsigned tag);
    int (*copy_d2h_done)(faro_gpu_be_sess_t *s, unsigned tag);

    int (*module_load)(faro_gpu_be_sess_t *s, const uint8_t *image, size_t len,
                       uint64_t *module);
    int (*module_unload)(faro_gpu_be_sess_t *s, uint64_t module);
    /* params gets (offset, size) pairs in parameter order, at most
     * FARO_GPU_PARAMS_MAX; *param_bytes the packed buffer's size. */
    int (*kernel_get)(faro_gpu_be_sess_t *s, uint64_t module, const char *name,
                      uint64_t *kernel, uint32_t *params, uint32_t *nparams,
                      uint32_t *param_bytes);
    int (*kernel_attr)(faro_gpu_be_sess_t *s, uint64_t kernel, int attr, int *value);
    int (*var_get)(faro_gpu_be_sess_t *s, uint64_t module, const char *name, uint64_t *dptr,
                   uint64_t *size);
    int (*launch)(faro_gpu_be_sess_t *s, uint64_t kernel, const uint32_t grid[3],
                  const uint32_t block[3], uint32_t shared_bytes, uint64_t stream,
                  const void *params, size_t len);

    int (*stream_create)(faro_gpu_be_sess_t *s, unsigned flags, int priority, uint64_t *stream);
    int (*stream_destroy)(faro_gpu_be_sess_t *s, uint64_t stream);
    int (*stream_sync)(faro_gpu_be_sess_t *s, uint64_t stream);
    int (*stream_query)(faro_gpu_be_sess_t *s, uint64_t stream);
    int (*stream_wait_event)(faro_gpu_be_sess_t *s, uint64_t stream, uint64_t event,
                             unsigned flags);
    int (*event_create)(faro_gpu_be_sess_t *s, unsigned flags, uint64_t *event);
    int (*event_destroy)(faro_gpu_be_sess_t *s, uint64_t event);
    int (*event_record)(faro_gpu_be_sess_t *s, uint64_t event, uint64_t stream);
    int (*event_sync)(faro_gpu_be_sess_t *s, uint64_t event);
    int (*event_query)(faro_gpu_be_sess_t *s, uint64_t event);
    int (*event_elapsed)(faro_gpu_be_sess_t *s, uint64_t start, uint64_t end, float *ms);
};

extern const struct faro_gpu_be_ops faro_gpu_be_host;
extern const struct faro_gpu_be_ops faro_gpu_be_cuda;

#endif
