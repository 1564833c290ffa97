/*
 * The client library's local state, without a server or nvcc: CUDA's error
 * semantics (last error per thread, sticky errors, deferred asynchronous
 * errors at the next synchronizing call), the per-thread launch
 * configuration stack, kernel argument packing from a parameter layout, and
 * the runtime version. Links the client's objects (libfaro_gpuclient.la).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/client/cudart.h"

/* nvcc's internal entry points, as crt/host_runtime.h declares them (C++ only). */
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st *s);
cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, void *stream);

static int failures;

#define CHECK_ERR(what, got, want)                                                       \
    do {                                                                                 \
        cudaError_t g_ = (got), w_ = (want);                                             \
        if (g_ != w_) {                                                                  \
            printf("gpu_client_state: FAIL: %s: got %s, expected %s\n", what,            \
                   cudaGetErrorName(g_), cudaGetErrorName(w_));                          \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

#define CHECK(what, cond)                                                                \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            printf("gpu_client_state: FAIL: %s\n", what);                                \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

static void *other_thread(void *arg)
{
    cudaError_t *seen = arg;
    seen[0] = cudaPeekAtLastError();
    faro_cudart_fail(cudaErrorInvalidDevice);
    seen[1] = cudaGetLastError();
    return NULL;
}

static void last_error(void)
{
    CHECK_ERR("fresh peek", cudaPeekAtLastError(), cudaSuccess);
    CHECK_ERR("failing call returns its error", faro_cudart_fail(cudaErrorInvalidValue),
              cudaErrorInvalidValue);
    CHECK_ERR("peek after a failure", cudaPeekAtLastError(), cudaErrorInvalidValue);
    CHECK_ERR("peek does not clear", cudaPeekAtLastError(), cudaErrorInvalidValue);
    CHECK_ERR("get returns the last error", cudaGetLastError(), cudaErrorInvalidValue);
    CHECK_ERR("get clears a non-sticky error", cudaGetLastError(), cudaSuccess);
    faro_cudart_fail(cudaErrorInvalidValue);
    faro_cudart_fail(cudaErrorMemoryAllocation);
    CHECK_ERR("the latest error wins", cudaGetLastError(), cudaErrorMemoryAllocation);
    CHECK_ERR("success is not recorded", faro_cudart_fail(cudaSuccess), cudaSuccess);
    CHECK_ERR("still clear", cudaPeekAtLastError(), cudaSuccess);

    /* Per thread: another thread's failure is not ours, and ours not its. */
    faro_cudart_fail(cudaErrorInvalidSymbol);
    cudaError_t seen[2];
    pthread_t t;
    pthread_create(&t, NULL, other_thread, seen);
    pthread_join(t, NULL);
    CHECK_ERR("other thread sees no error of ours", seen[0], cudaSuccess);
    CHECK_ERR("other thread's own error", seen[1], cudaErrorInvalidDevice);
    CHECK_ERR("ours is untouched by the other thread", cudaGetLastError(), cudaErrorInvalidSymbol);
}

static void deferred_error(void)
{
    faro_cudart_defer(cudaErrorInvalidConfiguration);
    faro_cudart_defer(cudaErrorLaunchOutOfResources); /* the first one is kept */
    CHECK_ERR("deferred error is not the last error yet", cudaPeekAtLastError(), cudaSuccess);
    CHECK_ERR("no sticky error from a deferred one", faro_cudart_check_sticky(), cudaSuccess);
    CHECK_ERR("synchronizing call returns the deferred error", faro_cudart_sync_error(),
              cudaErrorInvalidConfiguration);
    CHECK_ERR("and records it as the last error", cudaGetLastError(), cudaErrorInvalidConfiguration);
    CHECK_ERR("the next synchronizing call is clean", faro_cudart_sync_error(), cudaSuccess);
    CHECK_ERR("no last error after a clean sync", cudaGetLastError(), cudaSuccess);
}

static void sticky_error(void)
{
    CHECK("cudaErrorIllegalAddress is sticky", faro_cudart_is_sticky(cudaErrorIllegalAddress));
    CHECK("cudaErrorInvalidValue is not sticky", !faro_cudart_is_sticky(cudaErrorInvalidValue));
    faro_cudart_defer(cudaErrorIllegalAddress); /* a kernel fault reported later */
    CHECK_ERR("sticky error takes effect at once", faro_cudart_check_sticky(),
              cudaErrorIllegalAddress);
    CHECK_ERR("get returns the sticky error", cudaGetLastError(), cudaErrorIllegalAddress);
    CHECK_ERR("get does not clear a sticky error", cudaGetLastError(), cudaErrorIllegalAddress);
    CHECK_ERR("peek sees it", cudaPeekAtLastError(), cudaErrorIllegalAddress);
    CHECK_ERR("later calls fail with it", faro_cudart_sync_error(), cudaErrorIllegalAddress);
    faro_cudart_fail(cudaErrorLaunchFailure);
    CHECK_ERR("the first sticky error stays", faro_cudart_check_sticky(), cudaErrorIllegalAddress);
    cudaError_t seen[2];
    pthread_t t;
    pthread_create(&t, NULL, other_thread, seen);
    pthread_join(t, NULL);
    CHECK_ERR("sticky error is the process's: other thread's peek", seen[0],
              cudaErrorIllegalAddress);
    CHECK_ERR("sticky error is the process's: other thread's get", seen[1],
              cudaErrorIllegalAddress);
    faro_cudart_errors_reset();
    CHECK_ERR("device reset clears it", cudaGetLastError(), cudaSuccess);
    CHECK_ERR("no sticky error after reset", faro_cudart_check_sticky(), cudaSuccess);
}

static void call_configuration(void)
{
    dim3 g = {4, 2, 1}, b = {128, 1, 1}, g2 = {1, 1, 1}, b2 = {32, 1, 1};
    dim3 og, ob;
    size_t os;
    void *ost;
    CHECK("push", __cudaPushCallConfiguration(g, b, 64, (struct CUstream_st *)0x10) == 0);
    CHECK("nested push", __cudaPushCallConfiguration(g2, b2, 0, NULL) == 0);
    CHECK_ERR("pop inner", __cudaPopCallConfiguration(&og, &ob, &os, &ost), cudaSuccess);
    CHECK("inner configuration", og.x == 1 && ob.x == 32 && os == 0 && ost == NULL);
    CHECK_ERR("pop outer", __cudaPopCallConfiguration(&og, &ob, &os, &ost), cudaSuccess);
    CHECK("outer configuration", og.x == 4 && og.y == 2 && og.z == 1 && ob.x == 128 && os == 64 &&
                                     ost == (void *)0x10);
    CHECK_ERR("pop with nothing pushed", __cudaPopCallConfiguration(&og, &ob, &os, &ost),
              cudaErrorMissingConfiguration);
    cudaGetLastError();
}

/* The layout nvcc gives scale(float *, struct {int; float; double; char[3];},
 * uint64_t, short): offsets 0/8/32/40, sizes 8/24/8/2, 42 bytes. */
static void packing(void)
{
    const faro_kparam_t params[4] = {{0, 8}, {8, 24}, {32, 8}, {40, 2}};
    float *p = (float *)0x1122334455667788ull;
    uint8_t s[24];
    for (int i = 0; i < 24; i++)
        s[i] = (uint8_t)(0xa0 + i);
    uint64_t n = 0x0102030405060708ull;
    short h = -2;
    void *args[4] = {&p, s, &n, &h};
    uint8_t buf[48];
    memset(buf, 0xee, sizeof buf);
    CHECK_ERR("pack", faro_cudart_pack_args(params, 4, 42, args, buf), cudaSuccess);
    CHECK("pointer at 0", memcmp(buf, &p, 8) == 0);
    CHECK("struct at 8", memcmp(buf + 8, s, 24) == 0);
    CHECK("u64 at 32", memcmp(buf + 32, &n, 8) == 0);
    CHECK("short at 40", memcmp(buf + 40, &h, 2) == 0);
    CHECK("nothing written past the parameter bytes", buf[42] == 0xee && buf[47] == 0xee);

    /* A gap between parameters (char then int: int at 4) is zeroed. */
    const faro_kparam_t gap[2] = {{0, 1}, {4, 4}};
    char c = 'x';
    int v = 7;
    void *gargs[2] = {&c, &v};
    memset(buf, 0xee, sizeof buf);
    CHECK_ERR("pack with a gap", faro_cudart_pack_args(gap, 2, 8, gargs, buf), cudaSuccess);
    CHECK("gap zeroed", buf[1] == 0 && buf[2] == 0 && buf[3] == 0 && buf[0] == 'x');

    const faro_kparam_t bad[1] = {{40, 8}};
    memset(buf, 0xee, sizeof buf);
    CHECK_ERR("parameter beyond the buffer", faro_cudart_pack_args(bad, 1, 42, args, buf),
              cudaErrorInvalidValue);
    CHECK("buffer untouched on error", buf[0] == 0xee);
    CHECK_ERR("no args with parameters", faro_cudart_pack_args(params, 4, 42, NULL, buf),
              cudaErrorInvalidValue);
    CHECK_ERR("no parameters, no args", faro_cudart_pack_args(NULL, 0, 0, NULL, buf), cudaSuccess);
}

int main(void)
{
    last_error();
    deferred_error();
    sticky_error();
    call_configuration();
    packing();
    int v = 0;
    CHECK_ERR("cudaRuntimeGetVersion", cudaRuntimeGetVersion(&v), cudaSuccess);
    CHECK("runtime version 13000", v == 13000);
    CHECK_ERR("cudaRuntimeGetVersion(NULL)", cudaRuntimeGetVersion(NULL), cudaErrorInvalidValue);
    CHECK("error names are the enumerators",
          strcmp(cudaGetErrorName(cudaErrorNotSupported), "cudaErrorNotSupported") == 0);
    if (failures) {
        printf("gpu_client_state: %d failure(s)\n", failures);
        return 1;
    }
    printf("gpu_client_state: ok\n");
    return 0;
}
