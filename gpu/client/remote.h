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
#include "gpu/wire/codec.h"

/* The session, made on first use: cudaSuccess, or the error every call
 * that needs the device returns (cudaErrorNoDevice when FARO_GPU_SERVERS
 * is unset or empty, cudaErrorInitializationError when it is malformed, has
 * no key or no server answers), the same error on every later call;
 * cudaErrorDevicesUnavailable (sticky) once the session is lost. */
cudaError_t faro_cudart_connect(void);

/* Where a call's reply goes. The caller sets what it wants back: tail
 * (tail_max pairs) for KERNEL_GET and GET_DEVICE_PROPS, data (data_max
 * bytes) for a reply's bulk bytes, dst/dst_len for a MEMCPY_D2H series. */
typedef struct faro_cudart_reply {
    cudaError_t status;
    uint64_t a[FARO_GPU_ARGS_MAX];      /* the reply's fixed fields */
    uint32_t *tail;                     /* 2 * tail_max values */
    uint32_t tail_max, ntail;
    uint8_t *data;
    size_t data_max, data_len;
    uint8_t *dst;
    size_t dst_len;
} faro_cudart_reply_t;

/* The sessions, one per FARO_GPU_SERVERS entry. */
typedef struct faro_cudart_sess faro_cudart_sess_t;

/* A series of messages that must not be split by another thread's (the
 * chunks of one copy or load): begin_on makes the sessions if need be,
 * takes the lock of device dev's session and selects the device there;
 * send_locked sends (and with r waits, as faro_cudart_call); end releases
 * the lock. begin_on's error leaves the lock free. */
cudaError_t faro_cudart_begin_on(int dev, faro_cudart_sess_t **sess);
cudaError_t faro_cudart_send_locked(faro_cudart_sess_t *sess, unsigned op, const uint64_t *a,
                                    const uint32_t *pairs, const void *data, size_t len,
                                    unsigned flags, faro_cudart_reply_t *r);
void faro_cudart_end(faro_cudart_sess_t *sess);
/* The pipelined part of a copy (lock held): post_locked sends a one-way
 * message without waiting for its bytes to leave data, once fewer than
 * FARO_GPU_DEPTH are in flight; drain_locked waits until all have left (data
 * is the caller's again). */
cudaError_t faro_cudart_post_locked(faro_cudart_sess_t *sess, unsigned op, const uint64_t *a,
                                    const void *data, size_t len);
cudaError_t faro_cudart_drain_locked(faro_cudart_sess_t *sess);
/* faro_cudart_call to device dev rather than the thread's current one. */
cudaError_t faro_cudart_call_on(int dev, unsigned op, const uint64_t *a, const uint32_t *pairs,
                                const void *data, size_t len, unsigned flags,
                                faro_cudart_reply_t *r);

/* Sends op with the fixed fields a (and pairs, data) on the session, made
 * first if need be, on the calling thread's device. With r, waits for the
 * reply (F_REPLY is added) and returns its status; without, the message is
 * one-way (flags: FARO_GPU_F_LAST for a last chunk). Returns the session's
 * error when there is none or it is lost. */
cudaError_t faro_cudart_call(unsigned op, const uint64_t *a, const uint32_t *pairs,
                             const void *data, size_t len, unsigned flags, faro_cudart_reply_t *r);

/* What HELLO settled: the copy chunk (the smallest granted), the devices
 * this client shows, the (first) server's driver version. Valid once
 * faro_cudart_connect succeeded. */
uint32_t faro_cudart_chunk(void);
int faro_cudart_device_count(void);
/* The server's number for this client's device dev, and the index
 * (< FARO_CUDART_MAX_SESSIONS) of the session that serves it. */
int faro_cudart_remote_device(int dev);
int faro_cudart_session_index(int dev);
uint32_t faro_cudart_driver_version(void);
/* The calling thread's current device (cudaSetDevice is per thread). */
int faro_cudart_current_device(void);
void faro_cudart_set_current_device(int device);

/* The stream handle the server knows: the legacy and per-thread default
 * streams (cudaStreamLegacy, cudaStreamPerThread, NULL) are its stream 0. */
cudaStream_t faro_cudart_stream(cudaStream_t stream);

/* Ships the kernel's image if needed, learns its layout, packs args and
 * sends the launch (one-way): runtime.c. */
cudaError_t faro_cudart_launch_remote(faro_cudart_kernel_t *k, dim3 grid, dim3 block,
                                      void **args, size_t shared, cudaStream_t stream);

/* runtime.c: the device whose memory p is in (-1: host memory or unknown;
 * the current device's memory is looked at first), and the device a call on
 * p goes to (p's, else the current one). */
int faro_cudart_device_of(const void *p);
int faro_cudart_route(const void *p);

/* A call's first step: return the sticky error if there is one. */
#define FARO_CUDART_CHECK_STICKY()                          \
    do {                                                    \
        cudaError_t sticky_ = faro_cudart_check_sticky();   \
        if (sticky_ != cudaSuccess)                         \
            return sticky_;                                 \
    } while (0)

/* A synchronizing call's result: its own error, else a deferred one. */
static inline cudaError_t faro_cudart_sync_result(cudaError_t err)
{
    if (err != cudaSuccess)
        return faro_cudart_fail(err);
    return faro_cudart_sync_error();
}

/* A handle (pointer, stream, event) as the wire carries it. */
static inline uint64_t faro_cudart_handle(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* module.c: a variable's device address (its image shipped first), and
 * cudaDeviceReset's part (every server handle is forgotten). */
cudaError_t faro_cudart_var_address(faro_cudart_var_t *v, uint64_t *dptr, size_t *size);
void faro_cudart_forget_modules(void);
/* runtime.c: device memory ranges (allocations, variables) and their
 * device, which cudaMemcpyDefault takes for device memory and which route
 * copies, memsets and frees; cudaDeviceReset forgets the current device's. */
void faro_cudart_note_device_range(uint64_t base, uint64_t size, int dev);
void faro_cudart_forget_allocations(int dev);
/* props.c: sets the cudaDeviceProp field(s) that attribute attr gives. */
void faro_cudart_prop_set(struct cudaDeviceProp *prop, int attr, int value);

#endif
