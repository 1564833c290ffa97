/*
 * Streams and events, served by faro-gpud: a cudaStream_t or cudaEvent_t
 * the program holds is the server's handle. Creation, destruction, queries
 * and synchronization wait for the server's answer; recording an event and
 * making a stream wait for one are one-way (their failures come back as
 * deferred errors). The legacy and per-thread default streams are the
 * server's stream 0 (remote.h).
 */
#include <string.h>

#include "gpu/client/remote.h"

/* A call that waits for its reply; sync: a synchronizing one (returns a
 * deferred error when its own succeeded). */
static cudaError_t request(unsigned op, const uint64_t *a, faro_cudart_reply_t *r, int sync)
{
    cudaError_t err = faro_cudart_check_sticky();
    if (err != cudaSuccess)
        return err;
    faro_cudart_reply_t local = {0};
    err = faro_cudart_call(op, a, NULL, NULL, 0, 0, r ? r : &local);
    if (err == cudaErrorNotReady)
        return err; /* a query's answer, not an error to record */
    if (err != cudaSuccess || !sync)
        return faro_cudart_fail(err);
    return faro_cudart_sync_error();
}

static cudaError_t one_way(unsigned op, const uint64_t *a)
{
    cudaError_t err = faro_cudart_check_sticky();
    if (err != cudaSuccess)
        return err;
    return faro_cudart_fail(faro_cudart_call(op, a, NULL, NULL, 0, 0, NULL));
}

static cudaError_t stream_create(cudaStream_t *stream, unsigned flags, int priority)
{
    if (!stream)
        return faro_cudart_fail(cudaErrorInvalidValue);
    uint64_t a[FARO_GPU_ARGS_MAX] = {flags, (uint64_t)(int64_t)priority};
    faro_cudart_reply_t r = {0};
    cudaError_t err = request(FARO_GPU_OP_STREAM_CREATE, a, &r, 0);
    if (err == cudaSuccess)
        *stream = (cudaStream_t)(uintptr_t)r.a[0];
    return err;
}

FARO_CUDART_API cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    return stream_create(stream, cudaStreamDefault, 0);
}

FARO_CUDART_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    return stream_create(stream, flags, 0);
}

FARO_CUDART_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags,
                                                         int priority)
{
    return stream_create(stream, flags, priority);
}

FARO_CUDART_API cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (!faro_cudart_stream(stream))
        return faro_cudart_fail(cudaErrorInvalidResourceHandle);
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(stream)};
    return request(FARO_GPU_OP_STREAM_DESTROY, a, NULL, 0);
}

static cudaError_t stream_sync(cudaStream_t stream)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(faro_cudart_stream(stream))};
    return request(FARO_GPU_OP_STREAM_SYNC, a, NULL, 1);
}

FARO_CUDART_API cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return stream_sync(stream);
}

FARO_CUDART_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    return stream_sync(stream);
}

static cudaError_t stream_query(cudaStream_t stream)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(faro_cudart_stream(stream))};
    return request(FARO_GPU_OP_STREAM_QUERY, a, NULL, 0);
}

FARO_CUDART_API cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    return stream_query(stream);
}

FARO_CUDART_API cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    return stream_query(stream);
}

static cudaError_t stream_wait_event(cudaStream_t stream, cudaEvent_t event, unsigned flags)
{
    if (!event)
        return faro_cudart_fail(cudaErrorInvalidResourceHandle);
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(faro_cudart_stream(stream)), faro_cudart_handle(event), flags};
    return one_way(FARO_GPU_OP_STREAM_WAIT_EVENT, a);
}

FARO_CUDART_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                                unsigned int flags)
{
    return stream_wait_event(stream, event, flags);
}

FARO_CUDART_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                                     unsigned int flags)
{
    return stream_wait_event(stream, event, flags);
}

static cudaError_t event_create(cudaEvent_t *event, unsigned flags)
{
    if (!event)
        return faro_cudart_fail(cudaErrorInvalidValue);
    uint64_t a[FARO_GPU_ARGS_MAX] = {flags};
    faro_cudart_reply_t r = {0};
    cudaError_t err = request(FARO_GPU_OP_EVENT_CREATE, a, &r, 0);
    if (err == cudaSuccess)
        *event = (cudaEvent_t)(uintptr_t)r.a[0];
    return err;
}

FARO_CUDART_API cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return event_create(event, cudaEventDefault);
}

FARO_CUDART_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    return event_create(event, flags);
}

FARO_CUDART_API cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (!event)
        return faro_cudart_fail(cudaErrorInvalidResourceHandle);
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(event)};
    return request(FARO_GPU_OP_EVENT_DESTROY, a, NULL, 0);
}

static cudaError_t event_record(cudaEvent_t event, cudaStream_t stream)
{
    if (!event)
        return faro_cudart_fail(cudaErrorInvalidResourceHandle);
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(event), faro_cudart_handle(faro_cudart_stream(stream))};
    return one_way(FARO_GPU_OP_EVENT_RECORD, a);
}

FARO_CUDART_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return event_record(event, stream);
}

FARO_CUDART_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    return event_record(event, stream);
}

FARO_CUDART_API cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    if (!event)
        return faro_cudart_fail(cudaErrorInvalidResourceHandle);
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(event)};
    return request(FARO_GPU_OP_EVENT_SYNC, a, NULL, 1);
}

FARO_CUDART_API cudaError_t cudaEventQuery(cudaEvent_t event)
{
    if (!event)
        return faro_cudart_fail(cudaErrorInvalidResourceHandle);
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(event)};
    return request(FARO_GPU_OP_EVENT_QUERY, a, NULL, 0);
}

FARO_CUDART_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms)
        return faro_cudart_fail(cudaErrorInvalidValue);
    if (!start || !end)
        return faro_cudart_fail(cudaErrorInvalidResourceHandle);
    uint64_t a[FARO_GPU_ARGS_MAX] = {faro_cudart_handle(start), faro_cudart_handle(end)};
    faro_cudart_reply_t r = {0};
    cudaError_t err = request(FARO_GPU_OP_EVENT_ELAPSED, a, &r, 0);
    if (err == cudaSuccess) {
        uint32_t bits = (uint32_t)r.a[0];
        memcpy(ms, &bits, sizeof *ms);
    }
    return err;
}
