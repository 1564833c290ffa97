/*
 * Unit tests of the registration cache (transports/common/rcache.c).
 *
 * The "transport" here is a mock whose registration copies the registered
 * bytes, the way an RDMA device pinning the pages keeps the old pages after
 * the program unmapped them: sending through a stale registration sends the
 * old data. Each reuse test registers a buffer, sends from it, gives the
 * buffer back to the system (free, munmap, madvise, mremap), gets memory at
 * the same address, fills it with new data, registers and sends again, and
 * checks that the new data went out. It also checks that the cache defers
 * deregistration (a second send of the same buffer registers nothing) and
 * stays within its bounds.
 *
 * With the monitor off (FARO_RCACHE_MONITOR=off, or no userfaultfd here),
 * the cache must not cache at all, and the reuse tests must still pass.
 */
#include "config.h"

#include <check.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/tunables.h"
#include "common/rcache.h"

struct snap {
    uintptr_t start;
    size_t len;
    unsigned char *copy;
};

static long nreg, ndereg;

/* The registered range is whole pages around the caller's buffer, so the
 * copy reads bytes outside it, which a sanitizer build must not object to. */
#if defined(__GNUC__)
__attribute__((no_sanitize_address))
#endif
static void snap_copy(unsigned char *dst, const volatile unsigned char *src, size_t len)
{
    for (size_t i = 0; i < len; i++)
        dst[i] = src[i];
}

static int mock_reg(void *ctx, void *addr, size_t len, unsigned access, void **handle)
{
    struct snap *s = malloc(sizeof *s);
    s->start = (uintptr_t)addr;
    s->len = len;
    s->copy = malloc(len);
    snap_copy(s->copy, addr, len);
    *handle = s;
    nreg++;
    return 0;
}

static void mock_dereg(void *ctx, void *handle)
{
    struct snap *s = handle;
    free(s->copy);
    free(s);
    ndereg++;
}

static const struct faro_rcache_ops mock_ops = { mock_reg, mock_dereg };

/* "Send" len bytes at addr: what the registration holds for them. */
static void mock_send(struct faro_rcache *rc, void *addr, size_t len, unsigned char *out)
{
    struct faro_rcache_entry *e;
    ck_assert_int_eq(faro_rcache_get(rc, addr, len, 1, &e), 0);
    struct snap *s = e->handle;
    ck_assert_uint_le(s->start, (uintptr_t)addr);
    ck_assert_uint_ge(s->start + s->len, (uintptr_t)addr + len);
    memcpy(out, s->copy + ((uintptr_t)addr - s->start), len);
    faro_rcache_put(rc, e);
}

/* Anonymous memory, at addr exactly when addr is not NULL. */
static char *map_at(void *addr, size_t len)
{
    char *p = mmap(addr, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (addr ? MAP_FIXED_NOREPLACE : 0), -1, 0);
    ck_assert_ptr_ne(p, MAP_FAILED);
    if (addr)
        ck_assert_ptr_eq(p, addr);
    return p;
}

static int monitor_on(void)
{
    return strcmp(faro_rcache_monitor(), "userfaultfd") == 0;
}

/* A cache over the mock; var=value (when var is not NULL) is set while it opens. */
static struct faro_rcache *open_cache_with(const char *var, const char *value)
{
    char err[256];
    struct faro_rcache *rc;
    if (var)
        setenv(var, value, 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    nreg = ndereg = 0;
    ck_assert_int_eq(faro_rcache_open(&mock_ops, NULL, &rc), 0);
    if (var)
        unsetenv(var);
    return rc;
}

static struct faro_rcache *open_cache(void)
{
    return open_cache_with(NULL, NULL);
}

/* Send `len` bytes of value v from p and check what went out. */
static void send_and_check(struct faro_rcache *rc, void *p, size_t len, int v, const char *what)
{
    unsigned char *out = malloc(len);
    memset(p, v, len);
    mock_send(rc, p, len, out);
    for (size_t i = 0; i < len; i += 4093)
        ck_assert_msg(out[i] == (unsigned char)v, "%s: byte %zu went out as 0x%02x, the buffer "
                      "holds 0x%02x (a stale registration)", what, i, out[i], v);
    free(out);
}

START_TEST(deferred_dereg)
{
    struct faro_rcache *rc = open_cache();
    size_t len = 1 << 20;
    char *p = malloc(len);
    send_and_check(rc, p, len, 1, "first send");
    send_and_check(rc, p, len, 1, "second send"); /* same data: a cached entry is fine */
    if (monitor_on()) {
        ck_assert_int_eq(nreg, 1);
        ck_assert_int_eq(ndereg, 0); /* kept after the put */
        send_and_check(rc, p + 4096, 1000, 1, "a piece inside"); /* covered: no new one */
        ck_assert_int_eq(nreg, 1);
    } else {
        ck_assert_int_eq(nreg, 2);
        ck_assert_int_eq(ndereg, 2);
    }
    faro_rcache_close(rc);
    ck_assert_int_eq(nreg, ndereg);
    free(p);
}
END_TEST

/* free() then malloc() of a large block: glibc unmaps the first and maps the
 * second, usually at the same address. */
START_TEST(reuse_free_malloc)
{
    struct faro_rcache *rc = open_cache();
    size_t len = 4 << 20;
    mallopt(M_MMAP_THRESHOLD, 256 * 1024); /* fixed: free must not raise it */
    char *p = malloc(len);
    send_and_check(rc, p, len, 0xa1, "before free");
    uintptr_t was = (uintptr_t)p;
    free(p);
    char *q = malloc(len);
    if ((uintptr_t)q != was)
        fprintf(stderr, "test_rcache: note: malloc after free returned %p, not %#lx\n",
                (void *)q, (unsigned long)was);
    send_and_check(rc, q, len, 0xb2, "after free and malloc at the same address");
    faro_rcache_close(rc);
    free(q);
}
END_TEST

START_TEST(reuse_munmap_mmap)
{
    struct faro_rcache *rc = open_cache();
    size_t len = 2 << 20;
    char *p = map_at(NULL, len);
    send_and_check(rc, p, len, 0x11, "before munmap");
    ck_assert_int_eq(munmap(p, len), 0);
    char *q = map_at(p, len);
    send_and_check(rc, q, len, 0x22, "after munmap and mmap at the same address");
    /* Part of the range only: the registration covering it is stale too. */
    ck_assert_int_eq(munmap(q + len / 2, 4096), 0);
    map_at(q + len / 2, 4096);
    send_and_check(rc, q, len, 0x33, "after one page in the middle was remapped");
    faro_rcache_close(rc);
    munmap(q, len);
}
END_TEST

START_TEST(reuse_madvise)
{
    struct faro_rcache *rc = open_cache();
    size_t len = 1 << 20;
    char *p = map_at(NULL, len);
    send_and_check(rc, p, len, 0x44, "before madvise");
    ck_assert_int_eq(madvise(p, len, MADV_DONTNEED), 0); /* pages gone, zero on next touch */
    send_and_check(rc, p, len, 0x55, "after MADV_DONTNEED");
    faro_rcache_close(rc);
    munmap(p, len);
}
END_TEST

START_TEST(reuse_mremap)
{
    struct faro_rcache *rc = open_cache();
    size_t len = 1 << 20;
    char *p = map_at(NULL, 2 * len);
    send_and_check(rc, p, len, 0x66, "before mremap");
    /* Move the pages onto the second half (which mremap replaces: a hole there
     * could meanwhile hold the mock's own copies), then map fresh memory where
     * they were. */
    char *moved = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, p + len);
    ck_assert_ptr_eq(moved, p + len);
    map_at(p, len);
    send_and_check(rc, p, len, 0x77, "after mremap and mmap at the old address");
    faro_rcache_close(rc);
    munmap(p, 2 * len);
}
END_TEST

/* The bounds: at most FARO_RCACHE_MAX_ENTRIES kept; entries in use are never
 * evicted; what is evicted is deregistered. */
START_TEST(bounded)
{
    struct faro_rcache *rc = open_cache_with("FARO_RCACHE_MAX_ENTRIES", "8");
    enum { N = 40 };
    char *b[N];
    struct faro_rcache_entry *held[4];
    struct faro_rcache_stats st;
    for (int i = 0; i < N; i++)
        b[i] = aligned_alloc(4096, 8192);
    for (int i = 0; i < 4; i++) /* kept in use throughout */
        ck_assert_int_eq(faro_rcache_get(rc, b[i], 8192, 1, &held[i]), 0);
    for (int round = 0; round < 3; round++)
        for (int i = 4; i < N; i++)
            send_and_check(rc, b[i], 8192, round + i, "a bounded cache");
    faro_rcache_stats(rc, &st);
    ck_assert_int_le(st.live, 8 + 1);
    if (monitor_on()) {
        ck_assert_int_gt(st.evicted, 0);
        ck_assert_int_eq(nreg - ndereg, st.live);
    }
    for (int i = 0; i < 4; i++) { /* still valid after all that eviction */
        struct snap *s = held[i]->handle;
        ck_assert_uint_le(s->start, (uintptr_t)b[i]);
        faro_rcache_put(rc, held[i]);
    }
    faro_rcache_close(rc);
    ck_assert_int_eq(nreg, ndereg);
    for (int i = 0; i < N; i++)
        free(b[i]);
}
END_TEST

START_TEST(bytes_bounded)
{
    struct faro_rcache *rc = open_cache_with("FARO_RCACHE_MAX_BYTES", "64k");
    struct faro_rcache_stats st;
    char *b = aligned_alloc(4096, 1 << 20);
    for (int i = 0; i < 16; i++)
        send_and_check(rc, b + i * 65536, 32768, i + 1, "a cache bounded in bytes");
    faro_rcache_stats(rc, &st);
    ck_assert_uint_le(st.cached_bytes, 65536);
    faro_rcache_close(rc);
    free(b);
}
END_TEST

/* An entry in use when its memory goes away stays valid for its user and is
 * deregistered when put back, not reused. */
START_TEST(invalidated_while_held)
{
    struct faro_rcache *rc = open_cache();
    size_t len = 1 << 20;
    struct faro_rcache_entry *e;
    char *p = map_at(NULL, len);
    memset(p, 1, len);
    ck_assert_int_eq(faro_rcache_get(rc, p, len, 1, &e), 0);
    munmap(p, len);
    char *q = map_at(p, len);
    send_and_check(rc, q, len, 2, "while the stale entry is still held");
    long before = ndereg;
    faro_rcache_put(rc, e);
    if (monitor_on())
        ck_assert_int_eq(ndereg, before + 1); /* the stale one went at its put */
    faro_rcache_close(rc);
    munmap(q, len);
}
END_TEST

START_TEST(monitor_off)
{
    struct faro_rcache *rc = open_cache_with("FARO_RCACHE_MONITOR", "off");
    char *p = malloc(65536);
    send_and_check(rc, p, 65536, 9, "cache off");
    send_and_check(rc, p, 65536, 9, "cache off");
    if (!monitor_on()) { /* the monitor is per process: only a fresh one says off */
        ck_assert_int_eq(nreg, 2);
        ck_assert_int_eq(ndereg, 2);
    }
    faro_rcache_close(rc);
    free(p);
}
END_TEST

int main(void)
{
    char err[256];
    if (faro_tunables_load(err, sizeof err) < 0) {
        fprintf(stderr, "test_rcache: %s\n", err);
        return 1;
    }
    Suite *s = suite_create("rcache");
    TCase *tc = tcase_create("rcache");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, deferred_dereg);
    tcase_add_test(tc, reuse_free_malloc);
    tcase_add_test(tc, reuse_munmap_mmap);
    tcase_add_test(tc, reuse_madvise);
    tcase_add_test(tc, reuse_mremap);
    tcase_add_test(tc, bounded);
    tcase_add_test(tc, bytes_bounded);
    tcase_add_test(tc, invalidated_while_held);
    tcase_add_test(tc, monitor_off);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    fprintf(stderr, "test_rcache: invalidation by %s\n", faro_rcache_monitor());
    return failed ? 1 : 0;
}
