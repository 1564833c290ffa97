/*
 * A small GPU protocol client for tests/gpu/test-gpud.sh: it speaks
 * gpu/wire/protocol.h through the channel (not the CUDA client library) to
 * a faro-gpud and checks what comes back.
 *
 *   gpu_wire_client MODE HOST:PORT      key from FARO_GPU_KEY_FILE or FARO_GPU_KEY
 *
 * MODE:
 *   basic     HELLO, MALLOC, copies both ways at sizes around the chunk size
 *             (FARO_GPU_CHUNK, 64k here), MEMSET, D2D, FREE; then checks that
 *             the server's memory is all free again (no session left any)
 *   busy      the same without that last check (other sessions at work)
 *   refused   expects the connection to be refused (a wrong key): exit 0 when
 *             it is lost without any reply
 *   garbageK  HELLO, then a malformed message (K: 0 random bytes, 1 a short
 *             header, 2 LAUNCH with its fields cut; 3: MALLOC with no HELLO
 *             first); expects the server to drop the session (exit 0 when
 *             the connection is lost)
 *   version   HELLO with protocol major 2: expects status 35
 *             (cudaErrorInsufficientDriver) naming the server's version, then
 *             the connection dropped
 *   hold      HELLO, MALLOC 64 MiB, then sends one-way H2D chunks forever
 *             (prints "copying" once started): the test kills it mid-copy
 *   stall     HELLO, MALLOC 64 MiB, asks for all of it back and never reads
 *             (prints "stalling"): the server must drop it, not wait forever
 *   bw SIZE   copies SIZE bytes (k, m suffixes) both ways through the server,
 *             chunks of FARO_GPU_CHUNK (default 1m), FARO_GPU_DEPTH (default
 *             4) in flight, and prints the medians of 5 rounds: a measure
 *             of the wire path, not a test
 *   raw SIZE  (no server: the last argument is ignored) the transport alone
 *             between this process and a child, SIZE bytes in the same
 *             chunks and depth, for comparison with bw
 *   kernel F  loads fatbin F (tests/gpu/cuda/gpucore_kernels.cu) in chunks,
 *             checks the kernels' parameter layouts, launches them (host
 *             kernels from tests/gpu/gpucore_host_kernels.c) and checks the
 *             results, a variable, and a sticky error after a faulting
 *             launch until DEVICE_RESET
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu/wire/channel.h"

#define CHUNK chunk
static uint32_t chunk = 64u * 1024; /* bw: FARO_GPU_CHUNK */
#define WAIT_S 20

static faro_gpu_chan_t *ch;
static faro_gpu_peer_t *peer;
static int lost;
static char lost_why[256];
static uint32_t seq;

/* the reply being waited for (D2H: the series), filled by on_message */
static struct {
    uint32_t seq;
    int done, status, deferred;
    uint64_t a[FARO_GPU_ARGS_MAX];
    uint8_t *dst;               /* D2H: where the data goes */
    uint64_t size, got;
    int bad;
} want;

static void fail(const char *fmt, const char *what)
{
    printf("gpu_wire_client: FAIL: ");
    printf(fmt, what);
    printf("\n");
    exit(1);
}

static uint32_t kparams[2 * FARO_GPU_PARAMS_MAX], kparams_n; /* a KERNEL_GET reply's list */

static void on_message(void *owner, void *ctx, faro_gpu_peer_t *p, const struct faro_gpu_msg *m)
{
    (void)owner;
    (void)ctx;
    (void)p;
    if (!(m->h.flags & FARO_GPU_F_RESPONSE) || m->h.seq != want.seq) {
        want.bad = 1;
        return;
    }
    if (m->h.op == FARO_GPU_OP_MEMCPY_D2H && m->h.status == 0) {
        uint64_t off = m->a[0];
        if (off > want.size || m->data_len > want.size - off || off != want.got) {
            want.bad = 1;
            return;
        }
        memcpy(want.dst + off, m->data, m->data_len);
        want.got += m->data_len;
        if (!(m->h.flags & FARO_GPU_F_LAST))
            return;
    }
    if (m->h.op == FARO_GPU_OP_KERNEL_GET)
        for (kparams_n = 0; kparams_n < m->ntail; kparams_n++)
            faro_gpu_tail_pair(m, kparams_n, &kparams[2 * kparams_n],
                               &kparams[2 * kparams_n + 1]);
    want.status = m->h.status;
    want.deferred = m->h.deferred;
    memcpy(want.a, m->a, sizeof want.a);
    want.done = 1;
}

static void on_lost(void *owner, void *ctx, int orderly, const char *why)
{
    (void)owner;
    (void)ctx;
    lost = 1;
    snprintf(lost_why, sizeof lost_why, "%s", orderly ? "closed by the server" : why);
}

static const struct faro_gpu_chan_cb cb = { .message = on_message, .lost = on_lost };

static void wait_reply(const char *what)
{
    time_t end = time(NULL) + WAIT_S;
    while (!want.done && !lost && !want.bad && time(NULL) < end)
        faro_gpu_chan_poll(ch, 100);
    if (want.bad)
        fail("%s: a reply that does not match the request", what);
    if (want.done)
        return; /* even when the loss came in the same poll (version) */
    if (lost)
        fail("%s: connection lost", what);
    fail("%s: no reply within 20 s", what);
}

/* One request; flags F_REPLY unless one-way. Returns the reply's status. */
static int call(unsigned op, unsigned flags, const uint64_t *a, const void *data, size_t len)
{
    uint8_t args[FARO_GPU_ARGS_BYTES];
    char nb[32];
    int alen = faro_gpu_args_encode(op, 0, a, NULL, args);
    struct faro_gpu_hdr h = { .op = (uint16_t)op, .flags = (uint16_t)flags, .seq = ++seq };
    want.seq = h.seq;
    want.done = 0;
    if (alen < 0 || faro_gpu_chan_send(ch, peer, &h, args, (size_t)alen, data, len) < 0)
        fail("cannot send %s", faro_gpu_op_name(op, nb, sizeof nb));
    if (!(flags & FARO_GPU_F_REPLY))
        return 0;
    wait_reply(faro_gpu_op_name(op, nb, sizeof nb));
    return want.status;
}

static void hello(void)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = { FARO_GPU_PROTO_VERSION, 13000, CHUNK, 0 };
    if (call(FARO_GPU_OP_HELLO, FARO_GPU_F_REPLY, a, "gpu_wire_client", 15))
        fail("HELLO refused with status %s", "!= 0");
    if (want.a[3] != CHUNK)
        fail("HELLO: the server granted another chunk size than %s", "asked");
}

static void h2d(uint64_t dst, const uint8_t *src, uint64_t size)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = { 0 };
    for (uint64_t off = 0;;) {
        uint64_t n = size - off < CHUNK ? size - off : CHUNK;
        int last = off + n == size;
        a[0] = dst + off;
        if (call(FARO_GPU_OP_MEMCPY_H2D, last ? FARO_GPU_F_LAST | FARO_GPU_F_REPLY : 0, a,
                 src + off, n))
            fail("MEMCPY_H2D failed (%s)", "status != 0");
        if ((off += n) == size)
            return;
    }
}

static void d2h(uint8_t *dst, uint64_t src, uint64_t size)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = { src, size, 0 };
    want.dst = dst;
    want.size = size;
    want.got = 0;
    if (call(FARO_GPU_OP_MEMCPY_D2H, FARO_GPU_F_REPLY, a, NULL, 0))
        fail("MEMCPY_D2H failed (%s)", "status != 0");
    if (want.got != size)
        fail("MEMCPY_D2H: fewer bytes came back than %s", "asked");
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 9));
}

static int basic(int alone)
{
    const uint64_t sizes[] = { 1, 4095, CHUNK - 1, CHUNK, CHUNK + 1, 5 * CHUNK + 17,
                                      1u << 20 };
    uint64_t a[FARO_GPU_ARGS_MAX] = { 0 };
    char what[64];
    hello();
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t n = sizes[i];
        uint8_t *src = malloc(n), *back = malloc(n);
        snprintf(what, sizeof what, "%llu bytes", (unsigned long long)n);
        fill(src, n, (unsigned)i);
        a[0] = n;
        if (call(FARO_GPU_OP_MALLOC, FARO_GPU_F_REPLY, a, NULL, 0))
            fail("MALLOC of %s failed", what);
        uint64_t d = want.a[0];
        h2d(d, src, n);
        memset(back, 0, n);
        d2h(back, d, n);
        if (memcmp(src, back, n))
            fail("copy of %s: the bytes read back differ from those written", what);
        /* memset the middle, D2D to a second buffer, read that back */
        uint64_t m[FARO_GPU_ARGS_MAX] = { d + n / 4, n / 2, 0, 0x1a5 };
        call(FARO_GPU_OP_MEMSET, 0, m, NULL, 0);
        memset(src + n / 4, 0xa5, n / 2);
        a[0] = n;
        if (call(FARO_GPU_OP_MALLOC, FARO_GPU_F_REPLY, a, NULL, 0))
            fail("second MALLOC of %s failed", what);
        uint64_t d2 = want.a[0];
        uint64_t c[FARO_GPU_ARGS_MAX] = { d2, d, n, 0 };
        if (call(FARO_GPU_OP_MEMCPY_D2D, FARO_GPU_F_REPLY, c, NULL, 0) || want.deferred)
            fail("MEMSET or MEMCPY_D2D of %s failed", what);
        d2h(back, d2, n);
        if (memcmp(src, back, n))
            fail("memset + D2D of %s: the bytes read back differ", what);
        a[0] = d;
        if (call(FARO_GPU_OP_FREE, FARO_GPU_F_REPLY, a, NULL, 0))
            fail("FREE after %s failed", what);
        a[0] = d2;
        call(FARO_GPU_OP_FREE, 0, a, NULL, 0);
        free(src);
        free(back);
    }
    /* errors: a copy past an allocation, a freed pointer */
    a[0] = 100;
    call(FARO_GPU_OP_MALLOC, FARO_GPU_F_REPLY, a, NULL, 0);
    uint64_t d = want.a[0];
    uint8_t buf[200] = { 0 };
    uint64_t bad[FARO_GPU_ARGS_MAX] = { d + 50, 0 };
    if (call(FARO_GPU_OP_MEMCPY_H2D, FARO_GPU_F_LAST | FARO_GPU_F_REPLY, bad, buf, 100) !=
        FARO_GPU_ERR_INVALID_VALUE)
        fail("a copy past the end of an allocation was not refused with %s",
             "cudaErrorInvalidValue");
    a[0] = d;
    call(FARO_GPU_OP_FREE, FARO_GPU_F_REPLY, a, NULL, 0);
    if (call(FARO_GPU_OP_FREE, FARO_GPU_F_REPLY, a, NULL, 0) != FARO_GPU_ERR_INVALID_VALUE)
        fail("a second FREE was not refused with %s", "cudaErrorInvalidValue");
    /* a one-way failure comes back as the deferred error */
    uint64_t ms[FARO_GPU_ARGS_MAX] = { d, 10, 0, 0 };
    call(FARO_GPU_OP_MEMSET, 0, ms, NULL, 0);
    call(FARO_GPU_OP_GET_LAST_ERROR, FARO_GPU_F_REPLY, a, NULL, 0);
    if (want.deferred != FARO_GPU_ERR_INVALID_VALUE)
        fail("a failed one-way MEMSET was not reported as the deferred error (%s)",
             "GET_LAST_ERROR");
    /* nothing of this or any earlier session is left allocated */
    call(FARO_GPU_OP_MEM_GET_INFO, FARO_GPU_F_REPLY, a, NULL, 0);
    if (alone && want.a[0] != want.a[1]) {
        printf("gpu_wire_client: FAIL: %llu of %llu bytes of device memory still allocated "
               "after every buffer was freed\n",
               (unsigned long long)(want.a[1] - want.a[0]), (unsigned long long)want.a[1]);
        return 1;
    }
    call(FARO_GPU_OP_BYE, 0, a, NULL, 0);
    printf("gpu_wire_client: %s: all checks passed\n", alone ? "basic" : "busy");
    return 0;
}

static uint64_t kernel_get(uint64_t module, const char *name, const uint32_t *offs,
                           const uint32_t *sizes, uint32_t n, uint32_t bytes)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = { module };
    uint8_t args[FARO_GPU_ARGS_BYTES];
    struct faro_gpu_hdr h = { .op = FARO_GPU_OP_KERNEL_GET, .flags = FARO_GPU_F_REPLY,
                              .seq = ++seq };
    int alen = faro_gpu_args_encode(FARO_GPU_OP_KERNEL_GET, 0, a, NULL, args);
    want.seq = h.seq;
    want.done = 0;
    kparams_n = 0;
    faro_gpu_chan_send(ch, peer, &h, args, (size_t)alen, name, strlen(name));
    wait_reply("KERNEL_GET");
    if (want.status)
        fail("KERNEL_GET %s failed", name);
    if (want.a[1] != n || want.a[2] != bytes || kparams_n != n)
        fail("KERNEL_GET %s: wrong parameter count or buffer size", name);
    for (uint32_t i = 0; i < n; i++)
        if (kparams[2 * i] != offs[i] || kparams[2 * i + 1] != sizes[i])
            fail("KERNEL_GET %s: a parameter's offset or size differs from the cubin's", name);
    return want.a[0];
}

static void launch(uint64_t kernel, uint32_t grid, uint32_t block, const void *p, size_t len)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = { kernel, grid, 1, 1, block, 1, 1, 0, 0, 0 };
    call(FARO_GPU_OP_LAUNCH, 0, a, p, len);
}

static int kernel(const char *path)
{
    FILE *f = fopen(path, "rb");
    static uint8_t image[1 << 20];
    size_t size = f ? fread(image, 1, sizeof image, f) : 0;
    uint64_t a[FARO_GPU_ARGS_MAX] = { 0 };
    if (f)
        fclose(f);
    if (!size)
        fail("cannot read %s", path);
    hello();
    /* the image in 1 KiB chunks, so it is assembled from several */
    for (size_t off = 0; off < size; off += 1024) {
        size_t n = size - off < 1024 ? size - off : 1024;
        uint64_t m[FARO_GPU_ARGS_MAX] = { size, off, 7 };
        int last = off + n == size;
        if (call(FARO_GPU_OP_MODULE_LOAD, last ? FARO_GPU_F_LAST | FARO_GPU_F_REPLY : 0, m,
                 image + off, n))
            fail("MODULE_LOAD of %s failed", path);
    }
    uint64_t module = want.a[0];
    static const uint32_t axpy_off[] = { 0, 8, 16, 20 }, axpy_size[] = { 8, 8, 4, 4 };
    static const uint32_t mix_off[] = { 0, 8, 32, 40 }, mix_size[] = { 8, 24, 8, 2 };
    uint64_t axpy = kernel_get(module, "_Z12gpucore_axpyPfPKffi", axpy_off, axpy_size, 4, 24);
    uint64_t mix = kernel_get(module, "_Z11gpucore_mixPd3mixys", mix_off, mix_size, 4, 42);

    enum { N = 1000 };
    float x[N], y[N], back[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    a[0] = sizeof x;
    call(FARO_GPU_OP_MALLOC, FARO_GPU_F_REPLY, a, NULL, 0);
    uint64_t dx = want.a[0];
    call(FARO_GPU_OP_MALLOC, FARO_GPU_F_REPLY, a, NULL, 0);
    uint64_t dy = want.a[0];
    h2d(dx, (uint8_t *)x, sizeof x);
    h2d(dy, (uint8_t *)y, sizeof y);
    uint8_t p[42] = { 0 };
    float alpha = 2.0f;
    int32_t n = N;
    memcpy(p, &dy, 8); /* little-endian hosts: the GPU's own layout */
    memcpy(p + 8, &dx, 8);
    memcpy(p + 16, &alpha, 4);
    memcpy(p + 20, &n, 4);
    launch(axpy, (N + 255) / 256, 256, p, 24);
    d2h((uint8_t *)back, dy, sizeof back);
    if (want.deferred)
        fail("the axpy launch failed (%s)", "deferred error");
    for (int i = 0; i < N; i++)
        if (back[i] != 2.0f * (float)i + 1.0f)
            fail("axpy: a result differs from %s", "2 * x + y");

    /* the struct parameter at its offset, and the short at 40 */
    int32_t mi = 3;
    float mf = 0.5f;
    double md = 100.0, out = 0;
    uint64_t mu = 1000;
    int16_t ms = -7;
    memset(p, 0, sizeof p);
    memcpy(p, &dx, 8);
    memcpy(p + 8, &mi, 4);
    memcpy(p + 12, &mf, 4);
    memcpy(p + 16, &md, 8);
    p[8 + 18] = 9;
    memcpy(p + 32, &mu, 8);
    memcpy(p + 40, &ms, 2);
    launch(mix, 1, 1, p, 42);
    d2h((uint8_t *)&out, dx, sizeof out);
    if (out != 3 + 0.5 + 100.0 + 9 + 1000 - 7)
        fail("mix: the result does not add up the %s", "struct, u64 and short parameters");

    /* a __device__ variable: look it up, write, read back */
    uint64_t v[FARO_GPU_ARGS_MAX] = { module };
    struct faro_gpu_hdr h = { .op = FARO_GPU_OP_VAR_GET, .flags = FARO_GPU_F_REPLY,
                              .seq = ++seq };
    uint8_t args[FARO_GPU_ARGS_BYTES];
    int alen = faro_gpu_args_encode(FARO_GPU_OP_VAR_GET, 0, v, NULL, args);
    want.seq = h.seq;
    want.done = 0;
    faro_gpu_chan_send(ch, peer, &h, args, (size_t)alen, "gpucore_counter", 15);
    wait_reply("VAR_GET");
    if (want.status || want.a[1] != 4)
        fail("VAR_GET gpucore_counter: failed or not %s", "4 bytes");
    uint64_t dv = want.a[0];
    int32_t c = 4242, cb = 0;
    h2d(dv, (uint8_t *)&c, 4);
    d2h((uint8_t *)&cb, dv, 4);
    if (cb != 4242)
        fail("gpucore_counter: read back %s", "another value");

    /* a wrong parameter buffer size is refused */
    launch(axpy, 1, 1, p, 20);
    call(FARO_GPU_OP_GET_LAST_ERROR, FARO_GPU_F_REPLY, a, NULL, 0);
    if (want.deferred != FARO_GPU_ERR_INVALID_VALUE)
        fail("a launch with 20 parameter bytes for 24 was not refused (%s)",
             "cudaErrorInvalidValue");
    /* a faulting launch (y points nowhere) poisons the session until reset */
    uint64_t nowhere = 0x10;
    memcpy(p, &nowhere, 8);
    memcpy(p + 8, &dx, 8);
    memcpy(p + 16, &alpha, 4);
    memcpy(p + 20, &n, 4);
    launch(axpy, 4, 256, p, 24);
    a[0] = 64;
    if (call(FARO_GPU_OP_MALLOC, FARO_GPU_F_REPLY, a, NULL, 0) != FARO_GPU_ERR_ILLEGAL_ADDRESS)
        fail("after a faulting launch, MALLOC did not fail with %s", "cudaErrorIllegalAddress");
    call(FARO_GPU_OP_DEVICE_RESET, FARO_GPU_F_REPLY, a, NULL, 0);
    if (call(FARO_GPU_OP_MALLOC, FARO_GPU_F_REPLY, a, NULL, 0))
        fail("after DEVICE_RESET, MALLOC still %s", "failed");
    call(FARO_GPU_OP_BYE, 0, a, NULL, 0);
    printf("gpu_wire_client: kernel: all checks passed\n");
    return 0;
}

static int wait_lost(const char *mode)
{
    time_t end = time(NULL) + WAIT_S;
    while (!lost && time(NULL) < end)
        faro_gpu_chan_poll(ch, 100);
    if (!lost) {
        printf("gpu_wire_client: FAIL: %s: the connection was not dropped within 20 s\n", mode);
        return 1;
    }
    printf("gpu_wire_client: %s: dropped as expected (%s)\n", mode, lost_why);
    return 0;
}

static int refused(void)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = { FARO_GPU_PROTO_VERSION, 13000, CHUNK, 0 };
    uint8_t args[FARO_GPU_ARGS_BYTES];
    int alen = faro_gpu_args_encode(FARO_GPU_OP_HELLO, 0, a, NULL, args);
    struct faro_gpu_hdr h = { .op = FARO_GPU_OP_HELLO, .flags = FARO_GPU_F_REPLY, .seq = 1 };
    want.seq = 1;
    faro_gpu_chan_send(ch, peer, &h, args, (size_t)alen, NULL, 0);
    if (wait_lost("refused"))
        return 1;
    if (want.done) {
        printf("gpu_wire_client: FAIL: refused: the server answered a client with a wrong "
               "key\n");
        return 1;
    }
    return 0;
}

static int garbage(int kind)
{
    uint8_t junk[256];
    unsigned s = 12345;
    if (kind != 3)
        hello();
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)((s = s * 1103515245u + 12345u) >> 16);
    if (kind == 0) { /* random bytes as header and payload */
        faro_gpu_chan_send_raw(ch, peer, junk, 24, junk + 24, 200);
    } else if (kind == 1) { /* a header of the wrong length */
        faro_gpu_chan_send_raw(ch, peer, junk, 13, NULL, 0);
    } else if (kind == 2) { /* LAUNCH with its fields cut short */
        struct faro_gpu_hdr h = { .op = FARO_GPU_OP_LAUNCH, .seq = 2 };
        faro_gpu_chan_send(ch, peer, &h, junk, 20, NULL, 0);
    } else { /* a well-formed MALLOC, but before HELLO */
        struct faro_gpu_hdr h = { .op = FARO_GPU_OP_MALLOC, .flags = FARO_GPU_F_REPLY,
                                  .seq = 2 };
        faro_gpu_chan_send(ch, peer, &h, junk, 8, NULL, 0);
    }
    return wait_lost("garbage");
}

static int version(void)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = { 200, 13000, CHUNK, 0 };
    int st = call(FARO_GPU_OP_HELLO, FARO_GPU_F_REPLY, a, "gpu_wire_client", 15);
    if (st != FARO_GPU_ERR_INSUFFICIENT_DRIVER || want.a[0] != FARO_GPU_PROTO_VERSION) {
        printf("gpu_wire_client: FAIL: version: HELLO with protocol 200 got status %d and "
               "server version %llu (expected 35 and %d)\n", st,
               (unsigned long long)want.a[0], FARO_GPU_PROTO_VERSION);
        return 1;
    }
    return wait_lost("version");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned depth = 4; /* bw, raw: FARO_GPU_DEPTH */
#define BW_ROUNDS 5

/* H2D as Faro's client does it: chunks posted, at most depth in flight. */
static void h2d_pipelined(uint64_t dst, const uint8_t *src, uint64_t size)
{
    uint64_t off = 0, a[FARO_GPU_ARGS_MAX] = { 0 };
    uint8_t args[FARO_GPU_ARGS_BYTES];
    for (; size - off > CHUNK; off += CHUNK) {
        while (faro_gpu_chan_posted(peer) >= depth && !lost)
            faro_gpu_chan_poll(ch, 0);
        a[0] = dst + off;
        int alen = faro_gpu_args_encode(FARO_GPU_OP_MEMCPY_H2D, 0, a, NULL, args);
        struct faro_gpu_hdr h = { .op = FARO_GPU_OP_MEMCPY_H2D, .seq = ++seq };
        if (faro_gpu_chan_post(ch, peer, &h, args, (size_t)alen, src + off, CHUNK, NULL,
                               NULL) < 0)
            fail("cannot post %s", "MEMCPY_H2D");
    }
    a[0] = dst + off;
    if (call(FARO_GPU_OP_MEMCPY_H2D, FARO_GPU_F_LAST | FARO_GPU_F_REPLY, a, src + off,
             size - off))
        fail("MEMCPY_H2D failed (%s)", "status != 0");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

/* "64k", "256m", "1048576" */
static uint64_t parse_size(const char *s)
{
    char *end;
    uint64_t v = strtoull(s, &end, 10);
    return *end == 'k' ? v << 10 : *end == 'm' ? v << 20 : v;
}

static int bw(uint64_t size)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = { size };
    uint8_t *buf = malloc(size);
    double th[BW_ROUNDS], td[BW_ROUNDS];
    uint64_t hl[FARO_GPU_ARGS_MAX] = { FARO_GPU_PROTO_VERSION, 13000, CHUNK, depth };
    if (call(FARO_GPU_OP_HELLO, FARO_GPU_F_REPLY, hl, "gpu_wire_client", 15))
        fail("HELLO refused with status %s", "!= 0");
    if (!buf || call(FARO_GPU_OP_MALLOC, FARO_GPU_F_REPLY, a, NULL, 0))
        fail("MALLOC of %s failed", "the buffer");
    uint64_t d = want.a[0];
    fill(buf, size, 1);
    h2d_pipelined(d, buf, size); /* warm-up: first touch of the server's pages */
    d2h(buf, d, size);
    for (int r = 0; r < BW_ROUNDS; r++) {
        double t0 = now_s();
        h2d_pipelined(d, buf, size);
        double t1 = now_s();
        d2h(buf, d, size);
        th[r] = t1 - t0;
        td[r] = now_s() - t1;
    }
    printf("gpu_wire_client: bw: %llu bytes, chunk %u, depth %u: H2D %.0f MB/s, D2H %.0f MB/s "
           "(medians of %d)\n", (unsigned long long)size, chunk, depth,
           size / median(th, BW_ROUNDS) / 1e6, size / median(td, BW_ROUNDS) / 1e6, BW_ROUNDS);
    call(FARO_GPU_OP_BYE, 0, a, NULL, 0);
    return 0;
}

/* raw: the transport alone between two processes, for comparison with bw:
 * this process listens on a channel (no faro-gpud, no backend), a child
 * connects and sends size bytes in chunk-sized one-way messages, depth in
 * flight, the last asking for an empty answer; medians of BW_ROUNDS. */
static faro_gpu_peer_t *raw_peer;
static int raw_acked;

static void raw_sink(void *owner, void *ctx, faro_gpu_peer_t *p, const struct faro_gpu_msg *m)
{
    (void)owner, (void)ctx;
    if (m->h.flags & FARO_GPU_F_RESPONSE) { /* the sender: an answer came */
        raw_acked = 1;
        return;
    }
    if (!(m->h.flags & FARO_GPU_F_LAST))
        return;
    struct faro_gpu_hdr h = { .op = m->h.op, .flags = FARO_GPU_F_RESPONSE, .seq = m->h.seq };
    faro_gpu_chan_send(ch, p, &h, NULL, 0, NULL, 0);
}

static void *raw_accepted(void *owner, faro_gpu_peer_t *p)
{
    (void)owner;
    raw_peer = p;
    return p;
}

static int raw(uint64_t size)
{
    static const uint8_t key[] = "gpu_wire_client raw";
    struct faro_gpu_chan_cb rcb = { .accepted = raw_accepted, .message = raw_sink,
                                    .lost = on_lost };
    char where[256], err[512];
    if (faro_gpu_chan_listen("127.0.0.1:0", key, sizeof key, &rcb, NULL, &ch, where,
                             sizeof where, err, sizeof err) < 0)
        fail("raw: listen: %s", err);
    const char *colon = strrchr(strtok(where + strlen("listening on "), " "), ':');
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%s", colon + 1);
    pid_t child = fork();
    if (child == 0) {
        faro_gpu_chan_close(ch); /* the listener stays the parent's */
        uint8_t *buf = calloc(1, size);
        double t[BW_ROUNDS];
        uint64_t a[FARO_GPU_ARGS_MAX] = { 0 };
        uint8_t args[FARO_GPU_ARGS_BYTES];
        int alen = faro_gpu_args_encode(FARO_GPU_OP_MEMCPY_H2D, 0, a, NULL, args);
        if (!buf || faro_gpu_chan_connect(addr, key, sizeof key, &rcb, NULL, NULL, &ch, &peer,
                                          err, sizeof err) < 0)
            fail("raw: connect: %s", err);
        for (int r = -1; r < BW_ROUNDS; r++) { /* round -1: warm-up */
            double t0 = now_s();
            for (uint64_t off = 0; off < size; off += CHUNK) {
                uint64_t n = size - off < CHUNK ? size - off : CHUNK;
                int last = off + n == size;
                while (faro_gpu_chan_posted(peer) >= depth && !lost)
                    faro_gpu_chan_poll(ch, 0);
                struct faro_gpu_hdr h = { .op = FARO_GPU_OP_MEMCPY_H2D, .seq = ++seq,
                                          .flags = last ? FARO_GPU_F_LAST : 0 };
                if (faro_gpu_chan_post(ch, peer, &h, args, (size_t)alen, buf + off, n, NULL,
                                       NULL) < 0)
                    fail("raw: %s", "a send failed");
            }
            raw_acked = 0;
            while (!raw_acked && !lost)
                faro_gpu_chan_poll(ch, 0);
            if (lost)
                fail("raw: %s", lost_why);
            if (r >= 0)
                t[r] = now_s() - t0;
        }
        printf("gpu_wire_client: raw: %llu bytes, chunk %u, depth %u: %.0f MB/s "
               "(median of %d)\n", (unsigned long long)size, chunk, depth,
               size / median(t, BW_ROUNDS) / 1e6, BW_ROUNDS);
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    while (waitpid(child, &status, WNOHANG) == 0)
        faro_gpu_chan_poll(ch, 10);
    faro_gpu_chan_close(ch);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

_Noreturn static void stall(void)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = { 64u << 20 };
    hello();
    if (call(FARO_GPU_OP_MALLOC, FARO_GPU_F_REPLY, a, NULL, 0))
        fail("MALLOC of %s failed", "64 MiB");
    uint64_t r[FARO_GPU_ARGS_MAX] = { want.a[0], 64u << 20, 0 };
    call(FARO_GPU_OP_MEMCPY_D2H, 0, r, NULL, 0); /* the reply is never read */
    printf("gpu_wire_client: stalling\n");
    fflush(stdout);
    for (;;)
        pause();
}

_Noreturn static void hold(void)
{
    uint64_t a[FARO_GPU_ARGS_MAX] = { 64u << 20 };
    uint8_t *buf = calloc(1, CHUNK);
    hello();
    if (call(FARO_GPU_OP_MALLOC, FARO_GPU_F_REPLY, a, NULL, 0))
        fail("MALLOC of %s failed", "64 MiB");
    uint64_t d = want.a[0];
    printf("gpu_wire_client: copying\n");
    fflush(stdout);
    for (uint64_t off = 0;; off = (off + CHUNK) % (64u << 20)) {
        uint64_t c[FARO_GPU_ARGS_MAX] = { d + off, 0 };
        call(FARO_GPU_OP_MEMCPY_H2D, 0, c, buf, CHUNK);
        faro_gpu_chan_poll(ch, 0);
    }
}

int main(int argc, char **argv)
{
    const char *c = getenv("FARO_GPU_CHUNK"), *dp = getenv("FARO_GPU_DEPTH");
    if (argc == 4 && (!strcmp(argv[1], "bw") || !strcmp(argv[1], "raw"))) {
        chunk = c ? (uint32_t)parse_size(c) : 1u << 20;
        depth = dp ? (unsigned)atoi(dp) : 4;
    }
    if (argc == 4 && !strcmp(argv[1], "raw"))
        return raw(parse_size(argv[2]));
    uint8_t key[FARO_GPU_KEY_MAX];
    size_t keylen;
    char err[512];

    if (argc != 3 && !(argc == 4 && (!strcmp(argv[1], "kernel") || !strcmp(argv[1], "bw") ||
                                      !strcmp(argv[1], "raw")))) {
        fprintf(stderr, "usage: gpu_wire_client basic|busy|refused|garbage[0-2]|hold|"
                "kernel FATBIN|bw MIB HOST:PORT\n");
        return 2;
    }
    if (faro_gpu_key_load(getenv("FARO_GPU_KEY_FILE"), "FARO_GPU_KEY", key, &keylen, err,
                          sizeof err) < 0 ||
        faro_gpu_chan_connect(argv[argc - 1], key, keylen, &cb, NULL, NULL, &ch, &peer, err,
                              sizeof err) < 0) {
        printf("gpu_wire_client: FAIL: %s\n", err);
        return 1;
    }
    if (!strcmp(argv[1], "basic") || !strcmp(argv[1], "busy"))
        return basic(!strcmp(argv[1], "basic"));
    if (!strcmp(argv[1], "refused"))
        return refused();
    if (!strncmp(argv[1], "garbage", 7))
        return garbage(atoi(argv[1] + 7));
    if (!strcmp(argv[1], "bw"))
        return bw(parse_size(argv[2]));
    if (!strcmp(argv[1], "version"))
        return version();
    if (!strcmp(argv[1], "kernel"))
        return kernel(argv[2]);
    if (!strcmp(argv[1], "stall"))
        stall();
    if (!strcmp(argv[1], "hold"))
        hold();
    fprintf(stderr, "gpu_wire_client: unknown mode %s\n", argv[1]);
    return 2;
}
