/*
 * util.h - small helpers shared by the MPI test programs in tests/mpi.
 *
 * The programs are plain standard MPI C: they build with Faro's mpicc and
 * with any other MPI's mpicc, and use only point-to-point calls (no
 * collectives, no communicator creation, no derived datatypes).
 *
 * Include this header FIRST in every test program (it sets the POSIX
 * feature level before any system header is seen).
 *
 * What it gives:
 *   tu_init()          MPI_Init (or MPI_Init_thread), rank/size, and a
 *                      watchdog alarm: a test that has not finished after
 *                      TEST_ALARM seconds (default 60, 0 = off) prints a
 *                      message and exits 124, so nothing hangs forever.
 *   tu_init_multiple() the same at MPI_THREAD_MULTIPLE (fails unless provided).
 *   tu_env_int()       an integer from the environment, or a default.
 *   tu_finish()        MPI_Finalize and a one-line "OK" from rank 0.
 *   tu_fail()          print "<test>: rank R: FAIL: ..." and abort the job.
 *   TU_CHECK(call)     fail with the MPI error string if call != MPI_SUCCESS.
 *   TU_EXPECT_CLASS(call, cls)  fail unless call returns an error of class cls.
 *   tu_expect()        fail unless a call returned an error of a given class
 *                      whose message names the function.
 *   tu_fill()/tu_check_pattern()
 *                      deterministic byte patterns, checked byte for byte;
 *                      a mismatch reports the first differing offset, the
 *                      expected and actual byte and the number of bad bytes.
 *   tu_barrier()       a barrier made of Send/Recv (no collectives yet).
 *                      Do not call it while an MPI_ANY_TAG receive from
 *                      MPI_ANY_SOURCE is pending: it uses tag TU_TAG_SYNC.
 *   tu_token_send/recv a zero-byte "go" message on a given tag.
 *   tu_vm_size()       the process's virtual size in bytes (0: unknown), to
 *                      set an address-space limit just above it.
 */
#ifndef FARO_TESTS_MPI_UTIL_H
#define FARO_TESTS_MPI_UTIL_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Tags used by the helpers; tests use tags below TU_TAG_SYNC. All tags stay
 * below 32768, the smallest MPI_TAG_UB the standard allows. */
#define TU_TAG_SYNC 32000
#define TU_TAG_TOKEN 32001

static int tu_rank = -1;
static int tu_size = 0;
static const char *tu_name = "test";
static char tu_alarm_msg[256];
static size_t tu_alarm_len;

static inline void tu_alarm_handler(int sig)
{
    (void)sig;
    /* only async-signal-safe calls here */
    ssize_t w = write(2, tu_alarm_msg, tu_alarm_len);
    (void)w;
    _exit(124);
}

/* Arm the watchdog: TEST_ALARM seconds (default def_s; 0 disables). */
static inline void tu_arm_alarm(unsigned def_s)
{
    unsigned secs = def_s;
    const char *e = getenv("TEST_ALARM");
    if (e && *e)
        secs = (unsigned)strtoul(e, NULL, 10);
    if (secs == 0) {
        alarm(0);
        return;
    }
    int n = snprintf(tu_alarm_msg, sizeof tu_alarm_msg,
                     "%s: rank %d: FAIL: did not finish within %u s (hang?); "
                     "set TEST_ALARM to change the limit\n",
                     tu_name, tu_rank, secs);
    tu_alarm_len = n > 0 ? (size_t)n : 0;
    if (tu_alarm_len >= sizeof tu_alarm_msg)
        tu_alarm_len = sizeof tu_alarm_msg - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tu_alarm_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm(secs);
}

static inline void tu_vfail(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: rank %d: FAIL: ", tu_name, tu_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    fflush(stdout);
}

#if defined(__GNUC__)
#define TU_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define TU_NORETURN __attribute__((noreturn))
#else
#define TU_PRINTF(a, b)
#define TU_NORETURN
#endif

static inline TU_NORETURN TU_PRINTF(1, 2) void tu_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tu_vfail(fmt, ap);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Human-readable MPI error: "MPI_ERR_xxx class N: string". */
static inline const char *tu_errstr(int code)
{
    static char buf[MPI_MAX_ERROR_STRING + 64];
    char s[MPI_MAX_ERROR_STRING];
    int len = 0, cls = -1;
    s[0] = '\0';
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "(MPI_Error_string failed)");
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS)
        cls = -1;
    snprintf(buf, sizeof buf, "code %d (class %d): %s", code, cls, s);
    return buf;
}

static inline int tu_class(int code);

/* rc must be an error of class cls whose message names fn (the MPI
 * function that raised it); what says which case this was. */
static inline void tu_expect(int rc, int cls, const char *fn, const char *what)
{
    if (rc == MPI_SUCCESS)
        tu_fail("%s: %s succeeded, expected error class %d", fn, what, cls);
    int got = tu_class(rc);
    if (got != cls)
        tu_fail("%s: %s gave class %d (%s), expected %d", fn, what, got, tu_errstr(rc), cls);
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    if (!strstr(msg, fn))
        tu_fail("%s: %s: message \"%s\" does not name the function", fn, what, msg);
}

static inline TU_NORETURN void tu_fail_rc(const char *call, int rc, const char *file,
                                          int line)
{
    tu_fail("%s:%d: %s returned %s", file, line, call, tu_errstr(rc));
}

#define TU_CHECK(call)                                                         \
    do {                                                                       \
        int tu_rc_ = (call);                                                   \
        if (tu_rc_ != MPI_SUCCESS)                                             \
            tu_fail_rc(#call, tu_rc_, __FILE__, __LINE__);                     \
    } while (0)

/* The class of an error code (-1 when MPI_Error_class fails), and a check
 * that a call failed with the given class. */
static inline int tu_class(int code)
{
    int cls = -1;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS)
        return -1;
    return cls;
}

#define TU_EXPECT_CLASS(call, cls)                                             \
    do {                                                                       \
        int tu_rc_ = (call);                                                   \
        if (tu_class(tu_rc_) != (cls))                                         \
            tu_fail("%s:%d: %s gave %s, expected class %d", __FILE__,          \
                    __LINE__, #call, tu_errstr(tu_rc_), (cls));                \
    } while (0)

#define TU_ASSERT(cond, ...)                                                   \
    do {                                                                       \
        if (!(cond))                                                           \
            tu_fail(__VA_ARGS__);                                              \
    } while (0)

/* MPI_Init plus bookkeeping. Set TEST_INIT_THREAD=1 to go through
 * MPI_Init_thread(MPI_THREAD_SERIALIZED) instead. */
static inline void tu_init(int *argc, char ***argv, const char *name)
{
    tu_name = name;
    const char *it = getenv("TEST_INIT_THREAD");
    if (it && *it && strcmp(it, "0") != 0) {
        int provided = -1;
        int rc = MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "%s: FAIL: MPI_Init_thread returned %d\n", name, rc);
            exit(1);
        }
        if (provided != MPI_THREAD_SINGLE && provided != MPI_THREAD_FUNNELED &&
            provided != MPI_THREAD_SERIALIZED && provided != MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "%s: FAIL: MPI_Init_thread provided=%d is no thread level\n",
                    name, provided);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        int rc = MPI_Init(argc, argv);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "%s: FAIL: MPI_Init returned %d\n", name, rc);
            exit(1);
        }
    }
    TU_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &tu_rank));
    TU_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &tu_size));
    tu_arm_alarm(60);
}

/* MPI_Init_thread(MPI_THREAD_MULTIPLE), which must be provided, plus what
 * tu_init does; the watchdog's default is alarm_s seconds. */
static inline void tu_init_multiple(int *argc, char ***argv, const char *name, unsigned alarm_s)
{
    int provided = -1;
    tu_name = name;
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "%s: FAIL: MPI_Init_thread returned %d\n", name, rc);
        exit(1);
    }
    TU_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &tu_rank));
    TU_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &tu_size));
    tu_arm_alarm(alarm_s);
    TU_ASSERT(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d, not "
              "MPI_THREAD_MULTIPLE", provided);
}

static inline int tu_env_int(const char *name, int def)
{
    const char *e = getenv(name);
    return e && *e ? atoi(e) : def;
}

/* Require at least n ranks; with fewer, rank 0 says why and the test fails. */
static inline void tu_need_ranks(int n)
{
    if (tu_size < n)
        tu_fail("needs at least %d ranks, got %d", n, tu_size);
}

static inline void tu_finish(void);

/* Pair ranks (0,1), (2,3), ...: returns the partner and sets *sender for the
 * even one; a rank left without a partner finishes and exits 0. */
static inline int tu_pair(int *sender)
{
    int peer = tu_rank ^ 1;
    if (peer >= tu_size) {
        tu_finish();
        exit(0);
    }
    *sender = tu_rank % 2 == 0;
    return peer;
}

static inline void tu_finish(void)
{
    alarm(0);
    TU_CHECK(MPI_Finalize());
    if (tu_rank == 0)
        printf("%s: OK (%d ranks)\n", tu_name, tu_size);
}

/* ---- data patterns --------------------------------------------------- */

/* Byte i of the pattern for seed s: a multiplicative hash, so shifted,
 * truncated, duplicated or zeroed data never looks right. */
static inline unsigned char tu_pat(size_t i, unsigned seed)
{
    uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + (uint32_t)((uint64_t)i >> 32) + 0x9e37u;
    x ^= x >> 15;
    return (unsigned char)(x >> 7);
}

static inline void tu_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = tu_pat(i, seed);
}

/* Returns 0 if buf[0..n) holds the pattern for seed; otherwise fails the
 * test with a description built from what (printf-style). */
static inline TU_PRINTF(4, 5) void tu_check_pattern(const void *buf, size_t n, unsigned seed,
                                                    const char *what, ...)
{
    const unsigned char *p = buf;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != tu_pat(i, seed)) {
            if (bad == 0)
                first = i;
            bad++;
        }
    }
    if (bad == 0)
        return;
    char desc[256];
    va_list ap;
    va_start(ap, what);
    vsnprintf(desc, sizeof desc, what, ap);
    va_end(ap);
    tu_fail("%s: data differs: %zu of %zu bytes wrong, first at offset %zu "
            "(expected 0x%02x, got 0x%02x)",
            desc, bad, n, first, tu_pat(first, seed), p[first]);
}

/* Check that n bytes at buf all equal c (guard areas, untouched buffers). */
static inline TU_PRINTF(4, 5) void tu_check_fill(const void *buf, size_t n, unsigned char c,
                                                 const char *what, ...)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != c) {
            char desc[256];
            va_list ap;
            va_start(ap, what);
            vsnprintf(desc, sizeof desc, what, ap);
            va_end(ap);
            tu_fail("%s: byte %zu was overwritten (expected 0x%02x, got 0x%02x)", desc, i, c,
                    p[i]);
        }
    }
}

static inline unsigned long long tu_vm_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

static inline void *tu_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        tu_fail("out of memory allocating %zu bytes", n);
    return p;
}

/* ---- synchronization without collectives ------------------------------ */

static inline void tu_barrier(void)
{
    if (tu_rank == 0) {
        for (int r = 1; r < tu_size; r++)
            TU_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, r, TU_TAG_SYNC, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
        for (int r = 1; r < tu_size; r++)
            TU_CHECK(MPI_Send(NULL, 0, MPI_BYTE, r, TU_TAG_SYNC, MPI_COMM_WORLD));
    } else {
        TU_CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, TU_TAG_SYNC, MPI_COMM_WORLD));
        TU_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 0, TU_TAG_SYNC, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    }
}

static inline void tu_token_send(int dest, int tag)
{
    TU_CHECK(MPI_Send(NULL, 0, MPI_BYTE, dest, tag, MPI_COMM_WORLD));
}

static inline void tu_token_recv(int src, int tag)
{
    TU_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* Check source, tag and byte count of a status. */
static inline void tu_check_status(const MPI_Status *st, int src, int tag, int bytes,
                                   const char *what)
{
    int count = -1;
    TU_CHECK(MPI_Get_count(st, MPI_BYTE, &count));
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag || count != bytes)
        tu_fail("%s: status has source %d tag %d count %d, expected source %d tag %d "
                "count %d",
                what, st->MPI_SOURCE, st->MPI_TAG, count, src, tag, bytes);
}

#endif /* FARO_TESTS_MPI_UTIL_H */
