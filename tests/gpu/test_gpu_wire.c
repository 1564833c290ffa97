/*
 * The GPU wire codec (gpu/wire/codec.c) and key loading (gpu/wire/key.c):
 * every op's request and reply survive a round trip with extreme field
 * values; the header's bytes are little-endian at the offsets protocol.h
 * gives; truncated, oversized and random input is refused with the right
 * code and never read out of bounds (run it under the sanitizer build to see
 * reads too); a key file others can read is refused.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/wire/channel.h"
#include "gpu/wire/codec.h"

static int failures;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            printf("test_gpu_wire: FAIL: " __VA_ARGS__);                                   \
            printf("\n");                                                                  \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Bytes of op's fixed fields in one direction. */
static int fixed_size(unsigned op, int reply)
{
    uint8_t out[FARO_GPU_ARGS_BYTES];
    uint64_t zero[FARO_GPU_ARGS_MAX] = { 0 };
    return faro_gpu_args_encode(op, reply, zero, NULL, out);
}

static void round_trip(unsigned op, int reply)
{
    char nb[32];
    const char *name = faro_gpu_op_name(op, nb, sizeof nb);
    uint64_t a[FARO_GPU_ARGS_MAX];
    uint32_t pairs[2 * 3] = { 1, 0xffffffffu, 42, 7, 0x80000000u, 3 };
    uint8_t args[FARO_GPU_ARGS_BYTES], hdr[FARO_GPU_HDR_SIZE], payload[FARO_GPU_ARGS_BYTES + 64];
    int fixed = fixed_size(op, reply);

    CHECK(fixed >= 0 && fixed <= FARO_GPU_FIXED_BYTES, "%s: fixed args of %d bytes", name,
          fixed);
    /* values: all ones, then the sign bit, field by field, so a swapped
     * or narrowed field shows */
    for (int i = 0; i < FARO_GPU_ARGS_MAX; i++)
        a[i] = i % 2 ? 0xfedcba9876543210ull + (uint64_t)i : 0x80000001ull * (uint64_t)(i + 1);
    int is_list = reply && (op == FARO_GPU_OP_GET_DEVICE_PROPS || op == FARO_GPU_OP_KERNEL_GET);
    if (is_list)
        a[1] = 3;
    int len = faro_gpu_args_encode(op, reply, a, pairs, args);
    CHECK(len == fixed + (is_list ? 24 : 0), "%s%s: encoded %d bytes, expected %d", name,
          reply ? " reply" : "", len, fixed + (is_list ? 24 : 0));
    if (len < 0)
        return;
    size_t dlen = faro_gpu_data_max(op, reply) < 5 ? faro_gpu_data_max(op, reply) : 5;
    memcpy(payload, args, (size_t)len);
    memcpy(payload + len, "hello", dlen);
    struct faro_gpu_hdr h = { .op = (uint16_t)op, .flags = reply ? FARO_GPU_F_RESPONSE : 0,
                              .seq = 0xdeadbeef, .status = 0, .deferred = -7,
                              .args_len = (uint32_t)len };
    faro_gpu_hdr_encode(&h, hdr);
    struct faro_gpu_msg m;
    int rc = faro_gpu_decode(hdr, sizeof hdr, payload, (size_t)len + dlen, &m);
    CHECK(rc == 0, "%s%s: round trip refused: %s", name, reply ? " reply" : "",
          faro_gpu_wire_why(rc));
    if (rc)
        return;
    CHECK(m.h.op == op && m.h.seq == 0xdeadbeef && m.h.deferred == -7 && m.data_len == dlen &&
              !memcmp(m.data, "hello", dlen),
          "%s: header or data changed in the round trip", name);
    /* each field back as encoded (u32/i32 fields keep their low 32 bits) */
    uint8_t again[FARO_GPU_ARGS_BYTES];
    int len2 = faro_gpu_args_encode(op, reply, m.a, is_list ? pairs : NULL, again);
    CHECK(len2 == len && !memcmp(again, args, (size_t)len), "%s%s: fields changed in the "
          "round trip", name, reply ? " reply" : "");
    if (is_list) {
        uint32_t x, y;
        CHECK(m.ntail == 3, "%s: list of %u items, sent 3", name, m.ntail);
        faro_gpu_tail_pair(&m, 2, &x, &y);
        CHECK(x == 0x80000000u && y == 3, "%s: list item 2 is (%u, %u)", name, x, y);
    }
    /* every shorter payload that cuts into the fields is refused */
    for (int cut = 0; cut < fixed; cut++) {
        h.args_len = (uint32_t)cut;
        faro_gpu_hdr_encode(&h, hdr);
        rc = faro_gpu_decode(hdr, sizeof hdr, payload, (size_t)cut, &m);
        CHECK(rc == FARO_GPU_WIRE_EARGS, "%s%s: args cut to %d of %d bytes: got %d (%s)",
              name, reply ? " reply" : "", cut, fixed, rc, faro_gpu_wire_why(rc));
    }
    /* args_len beyond the payload */
    h.args_len = (uint32_t)len + 1;
    faro_gpu_hdr_encode(&h, hdr);
    rc = faro_gpu_decode(hdr, sizeof hdr, payload, (size_t)len, &m);
    CHECK(rc == FARO_GPU_WIRE_EARGS, "%s: args_len past the payload accepted (%d)", name, rc);
}

static void header_bytes(void)
{
    struct faro_gpu_hdr h = { .op = 0x0102, .flags = 0x0304, .seq = 0x05060708,
                              .status = -2, .deferred = 0x11223344, .args_len = 0x0a0b0c0d };
    uint8_t b[FARO_GPU_HDR_SIZE];
    static const uint8_t want[FARO_GPU_HDR_SIZE] = {
        0x02, 0x01, 0x04, 0x03, 0x08, 0x07, 0x06, 0x05, 0xfe, 0xff, 0xff, 0xff,
        0x44, 0x33, 0x22, 0x11, 0x0d, 0x0c, 0x0b, 0x0a, 0, 0, 0, 0 };
    faro_gpu_hdr_encode(&h, b);
    CHECK(!memcmp(b, want, sizeof b), "the header is not little-endian at protocol.h's offsets");
    uint8_t a[FARO_GPU_ARGS_BYTES];
    uint64_t v[FARO_GPU_ARGS_MAX] = { 0x0102030405060708ull };
    faro_gpu_args_encode(FARO_GPU_OP_MALLOC, 0, v, NULL, a);
    CHECK(a[0] == 0x08 && a[7] == 0x01, "MALLOC's u64 size is not little-endian");
}

static void refusals(void)
{
    uint8_t hdr[FARO_GPU_HDR_SIZE], p[64] = { 0 };
    struct faro_gpu_hdr h = { .op = FARO_GPU_OP_MALLOC, .args_len = 8 };
    struct faro_gpu_msg m;
    int rc;

    faro_gpu_hdr_encode(&h, hdr);
    CHECK(faro_gpu_decode(hdr, 23, p, 8, &m) == FARO_GPU_WIRE_EHDR, "a 23-byte header accepted");
    CHECK(faro_gpu_decode(hdr, 25, p, 8, &m) == FARO_GPU_WIRE_EHDR, "a 25-byte header accepted");
    CHECK(faro_gpu_decode(hdr, 24, p, 8, &m) == 0, "a good MALLOC refused");
    CHECK(faro_gpu_decode(hdr, 24, p, 9, &m) == FARO_GPU_WIRE_EDATA,
          "MALLOC with a data byte accepted");
    h.op = 0;
    faro_gpu_hdr_encode(&h, hdr);
    CHECK(faro_gpu_decode(hdr, 24, p, 8, &m) == FARO_GPU_WIRE_EOP, "op 0 accepted");
    h.op = FARO_GPU_OP_COUNT_;
    faro_gpu_hdr_encode(&h, hdr);
    CHECK(faro_gpu_decode(hdr, 24, p, 8, &m) == FARO_GPU_WIRE_EOP, "op past the last accepted");
    /* a list count past its limit, and past the args */
    uint64_t v[FARO_GPU_ARGS_MAX] = { 1, FARO_GPU_TAIL_MAX + 1 };
    CHECK(faro_gpu_args_encode(FARO_GPU_OP_KERNEL_GET, 1, v, NULL, p) == FARO_GPU_WIRE_ECOUNT,
          "encoding a list past its limit accepted");
    v[1] = 0;
    int len = faro_gpu_args_encode(FARO_GPU_OP_KERNEL_GET, 1, v, NULL, p);
    faro_le_put32(p + 8, 2); /* claims two pairs, has none */
    h = (struct faro_gpu_hdr){ .op = FARO_GPU_OP_KERNEL_GET, .flags = FARO_GPU_F_RESPONSE,
                               .args_len = (uint32_t)len };
    faro_gpu_hdr_encode(&h, hdr);
    rc = faro_gpu_decode(hdr, 24, p, (size_t)len, &m);
    CHECK(rc == FARO_GPU_WIRE_ECOUNT, "a list count past the args accepted (%d)", rc);
    faro_le_put32(p + 8, 0xffffffffu);
    rc = faro_gpu_decode(hdr, 24, p, (size_t)len, &m);
    CHECK(rc == FARO_GPU_WIRE_ECOUNT, "a list count of 2^32-1 accepted (%d)", rc);
    /* a failed reply may come without fields */
    h = (struct faro_gpu_hdr){ .op = FARO_GPU_OP_MALLOC, .flags = FARO_GPU_F_RESPONSE,
                               .status = 2 };
    faro_gpu_hdr_encode(&h, hdr);
    rc = faro_gpu_decode(hdr, 24, p, 0, &m);
    CHECK(rc == 0 && m.a[0] == 0 && m.h.status == 2, "a failed reply without args: %d", rc);
}

/* Random headers and payloads: never a crash, and what decodes points inside. */
static void garbage(void)
{
    uint8_t hdr[FARO_GPU_HDR_SIZE], *p = malloc(4096);
    for (int it = 0; it < 200000; it++) {
        for (size_t i = 0; i < sizeof hdr; i++)
            hdr[i] = (uint8_t)next();
        if (it % 2) { /* a real op and a plausible length, to get past the first checks */
            faro_le_put16(hdr, (uint16_t)(1 + next() % (FARO_GPU_OP_COUNT_ - 1)));
            faro_le_put16(hdr + 2, (uint16_t)(next() % 8));
            faro_le_put32(hdr + 16, (uint32_t)(next() % 80));
        }
        size_t len = next() % 128;
        uint8_t *pl = p + 4096 - len; /* the payload ends where the allocation does */
        for (size_t i = 0; i < len; i++)
            pl[i] = (uint8_t)next();
        struct faro_gpu_msg m;
        if (faro_gpu_decode(hdr, sizeof hdr, pl, len, &m) == 0) {
            CHECK(m.data >= pl && m.data + m.data_len == pl + len, "data outside the payload");
            CHECK(!m.tail || (m.tail >= pl && m.tail + 8 * (size_t)m.ntail <= m.data),
                  "list outside the args");
        }
    }
    free(p);
}

static void keys(void)
{
    char dir[] = "/tmp/test_gpu_wire.XXXXXX", f[64], err[512];
    uint8_t key[FARO_GPU_KEY_MAX];
    size_t kl = 0;
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp failed");
        return;
    }
    snprintf(f, sizeof f, "%s/key", dir);
    FILE *fp = fopen(f, "w");
    fputs("s3cret\n", fp);
    fclose(fp);
    chmod(f, 0644);
    int rc = faro_gpu_key_load(f, NULL, key, &kl, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "0644") && strstr(err, "chmod 600"),
          "a key file of mode 0644 was not refused with its mode and the fix: %s", err);
    chmod(f, 0600);
    rc = faro_gpu_key_load(f, NULL, key, &kl, err, sizeof err);
    CHECK(rc == 0 && kl == 6 && !memcmp(key, "s3cret", 6), "a 0600 key file: rc %d len %zu %s",
          rc, kl, rc ? err : "");
    setenv("TEST_GPU_KEY", "k2", 1);
    rc = faro_gpu_key_load(NULL, "TEST_GPU_KEY", key, &kl, err, sizeof err);
    CHECK(rc == 0 && kl == 2 && !memcmp(key, "k2", 2), "key from the environment: rc %d", rc);
    unsetenv("TEST_GPU_KEY");
    rc = faro_gpu_key_load(NULL, "TEST_GPU_KEY", key, &kl, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "TEST_GPU_KEY"), "no key: %s", err);
    unlink(f);
    rmdir(dir);
}

int main(void)
{
    header_bytes();
    for (unsigned op = 1; op < FARO_GPU_OP_COUNT_; op++) {
        round_trip(op, 0);
        round_trip(op, 1);
    }
    refusals();
    garbage();
    keys();
    if (failures)
        return 1;
    printf("test_gpu_wire: all checks passed\n");
    return 0;
}
