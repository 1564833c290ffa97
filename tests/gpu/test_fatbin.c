/*
 * test_fatbin: the fatbinary and .nv.info reader (gpu/common/fatbin.c) on
 * what nvcc really embeds, and on broken copies of it.
 *
 * How the fatbinaries are obtained: the test compiles
 * tests/gpu/cuda/fatbin_kernels.cu with nvcc into ordinary executables, five
 * ways (default; -Xfatbin=-compress-all: zstd; --compress-mode=speed with
 * -compress-all: LZ4; -arch=compute_75: PTX only; -rdc=true: a device-linked
 * fatbin, wrapper version 2), and reads each executable file. Its
 * .nvFatBinSegment section holds the 24-byte wrappers that the program's
 * static constructors would register; the wrapper's data pointer is a
 * virtual address, which the section table maps to a file offset. Each
 * wrapper is copied with that pointer replaced by the address of those
 * bytes in the test's buffer and given to faro_fatbin_from_wrapper, as the
 * client library does with the registered one. Nothing is run or
 * registered, so no CUDA runtime, driver or GPU is needed (only nvcc: the
 * test exits 77 without it). The executables' sections are found with a
 * small ELF reader of the test's own, independent of the one under test.
 *
 * Expected layouts are C's (fatbin_kernels.cu says them); the malformed
 * cases cut, overwrite and overflow every length the reader checks, each
 * in a buffer of exactly its size (so ASan sees any read past it), and
 * must give FARO_FATBIN_EMALFORMED.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu/common/fatbin.h"

#ifndef FATBIN_TEST_SRCDIR
#define FATBIN_TEST_SRCDIR "tests/gpu/cuda"
#endif

static int failures;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        printf("test_fatbin: FAIL: " __VA_ARGS__);                                                 \
        printf("\n");                                                                              \
        failures++;                                                                                \
    } while (0)

#define EXPECT_RC(what, got, want)                                                                 \
    do {                                                                                           \
        int got_ = (got);                                                                          \
        if (got_ != (want))                                                                        \
            FAIL("%s: returned %d (%s), expected %d (%s)", what, got_,                            \
                 faro_fatbin_strerror(got_), (want), faro_fatbin_strerror(want));                  \
    } while (0)

/* ---- little-endian access and the test's own ELF64 section reader ---- */

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_le(uint8_t *p, int n, uint64_t v)
{
    for (int i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

struct section {
    size_t header;   /* file offset of its section header */
    size_t offset;   /* file offset of its bytes */
    size_t size;
    uint64_t addr;
};

/* Section `name` of a well-formed ELF64 file (what nvcc wrote). */
static int find_section(const uint8_t *elf, size_t size, const char *name, struct section *s)
{
    if (size < 64 || memcmp(elf, "\177ELF\2\1", 6) != 0)
        return -1;
    size_t shoff = le(elf + 0x28, 8), shentsize = le(elf + 0x3a, 2), shnum = le(elf + 0x3c, 2),
           shstrndx = le(elf + 0x3e, 2);
    if (shoff + shnum * shentsize > size || shstrndx >= shnum)
        return -1;
    size_t strtab = le(elf + shoff + shstrndx * shentsize + 24, 8);
    for (size_t i = 0; i < shnum; i++) {
        const uint8_t *sh = elf + shoff + i * shentsize;
        if (strcmp((const char *)elf + strtab + le(sh, 4), name) == 0) {
            s->header = shoff + i * shentsize;
            s->addr = le(sh + 16, 8);
            s->offset = le(sh + 24, 8);
            s->size = le(sh + 32, 8);
            return 0;
        }
    }
    return -1;
}

/* The file offset of virtual address `addr`, and the bytes from there to
 * the end of its section. */
static int addr_to_offset(const uint8_t *elf, uint64_t addr, size_t *offset, size_t *left)
{
    size_t shoff = le(elf + 0x28, 8), shentsize = le(elf + 0x3a, 2), shnum = le(elf + 0x3c, 2);
    for (size_t i = 1; i < shnum; i++) {
        const uint8_t *sh = elf + shoff + i * shentsize;
        uint64_t a = le(sh + 16, 8), n = le(sh + 32, 8);
        if (le(sh + 4, 4) != 8 /* SHT_NOBITS */ && a && addr >= a && addr < a + n) {
            *offset = le(sh + 24, 8) + (addr - a);
            *left = n - (addr - a);
            return 0;
        }
    }
    return -1;
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* A copy of n bytes in a buffer of exactly n bytes. */
static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    if (!q) {
        perror("test_fatbin: malloc");
        exit(1);
    }
    memcpy(q, p, n);
    return q;
}

/* ---- the builds ---- */

struct build {
    const char *tag, *flags;
    enum faro_fatbin_compression cubin_codec; /* how its cubins are stored */
    int ptx_only, linked;                     /* no cubin; a device-linked fatbin (v2) */
    uint8_t *file;
    size_t file_size;
    unsigned nimages;
    const uint8_t *image[8];
    size_t image_size[8];
    unsigned version[8];
};

static struct build builds[] = {
    {.tag = "default", .flags = "", .cubin_codec = FARO_FATBIN_RAW},
    {.tag = "zstd", .flags = "-Xfatbin=-compress-all", .cubin_codec = FARO_FATBIN_ZSTD},
    {.tag = "lz4", .flags = "--compress-mode=speed -Xfatbin=-compress-all",
     .cubin_codec = FARO_FATBIN_LZ4},
    {.tag = "ptx", .flags = "-arch=compute_75", .ptx_only = 1},
    {.tag = "rdc", .flags = "-rdc=true", .linked = 1},
};
#define NBUILDS (sizeof builds / sizeof builds[0])

static const char *find_nvcc(void)
{
    static char path[4096];
    const char *env = getenv("NVCC");
    if (env && *env)
        return access(env, X_OK) == 0 ? env : NULL;
    const char *dirs = getenv("PATH");
    while (dirs && *dirs) {
        size_t n = strcspn(dirs, ":");
        snprintf(path, sizeof path, "%.*s/nvcc", (int)n, dirs);
        if (n && access(path, X_OK) == 0)
            return path;
        dirs += n + (dirs[n] == ':');
    }
    snprintf(path, sizeof path, "%s/bin/nvcc",
             getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda");
    return access(path, X_OK) == 0 ? path : NULL;
}

/* Compiles every build at once (nvcc is single-threaded; they overlap). */
static int compile_all(const char *nvcc, const char *dir)
{
    pid_t pid[NBUILDS];
    char cmd[NBUILDS][8192];
    for (size_t b = 0; b < NBUILDS; b++) {
        snprintf(cmd[b], sizeof cmd[b],
                 "'%s' -cudart shared %s -o '%s/%s' '%s/fatbin_kernels.cu' >'%s/%s.log' 2>&1",
                 nvcc, builds[b].flags, dir, builds[b].tag, FATBIN_TEST_SRCDIR, dir,
                 builds[b].tag);
        pid[b] = fork();
        if (pid[b] == 0) {
            execl("/bin/sh", "sh", "-c", cmd[b], (char *)NULL);
            _exit(127);
        }
    }
    int bad = 0;
    for (size_t b = 0; b < NBUILDS; b++) {
        int st = 0;
        if (pid[b] < 0 || waitpid(pid[b], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
            char log[4200];
            snprintf(log, sizeof log, "%s/%s.log", dir, builds[b].tag);
            size_t n = 0;
            uint8_t *text = read_file(log, &n);
            FAIL("%s: nvcc failed: %s\n%.*s", builds[b].tag, cmd[b], (int)(n > 2000 ? 2000 : n),
                 text ? (char *)text : "");
            free(text);
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

/* Loads a build's executable and its fatbins through their wrappers. */
static int load(struct build *b, const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, b->tag);
    b->file = read_file(path, &b->file_size);
    struct section seg;
    if (!b->file || find_section(b->file, b->file_size, ".nvFatBinSegment", &seg) != 0) {
        FAIL("%s: no .nvFatBinSegment section in %s", b->tag, path);
        return -1;
    }
    struct wrapper {
        uint32_t magic, version;
        const void *data, *more;
    } w;
    if (sizeof w != 24 || seg.size % 24 != 0 || seg.size / 24 > 8) {
        FAIL("%s: .nvFatBinSegment is %zu bytes: not whole 24-byte wrappers", b->tag, seg.size);
        return -1;
    }
    for (size_t at = 0; at < seg.size; at += 24) {
        const uint8_t *raw = b->file + seg.offset + at;
        size_t off, left;
        if (addr_to_offset(b->file, le(raw + 8, 8), &off, &left) != 0) {
            FAIL("%s: wrapper %zu points to %#llx, in no section", b->tag, at / 24,
                 (unsigned long long)le(raw + 8, 8));
            continue;
        }
        w.magic = (uint32_t)le(raw, 4);
        w.version = (uint32_t)le(raw + 4, 4);
        w.data = b->file + off;
        w.more = NULL;
        unsigned i = b->nimages;
        int rc = faro_fatbin_from_wrapper(&w, left, &b->image[i], &b->image_size[i]);
        EXPECT_RC("faro_fatbin_from_wrapper", rc, FARO_FATBIN_OK);
        if (rc != FARO_FATBIN_OK)
            continue;
        if (b->image[i] != b->file + off)
            FAIL("%s: the image is not where the wrapper points", b->tag);
        b->version[i] = w.version;
        b->nimages++;
        /* the same wrapper with just the image's bytes available, and one fewer */
        const uint8_t *img;
        size_t sz;
        EXPECT_RC("from_wrapper with exactly the image", 
                  faro_fatbin_from_wrapper(&w, b->image_size[i], &img, &sz), FARO_FATBIN_OK);
        EXPECT_RC("from_wrapper with the image less a byte",
                  faro_fatbin_from_wrapper(&w, b->image_size[i] - 1, &img, &sz),
                  FARO_FATBIN_EMALFORMED);
    }
    return b->nimages ? 0 : -1;
}

/* ---- what the kernels must give ---- */

struct kernel {
    const char *mangled;
    unsigned n;
    uint16_t offset[8], size[8];
    size_t total;
};

#define LONG_STRUCT                                                                                \
    "a_struct_whose_name_is_long_enough_that_three_of_them_make_a_mangled_kernel_name_of_more_"    \
    "than_five_hundred_characters_as_the_names_of_heavily_templated_library_kernels_often_are_"

static const struct kernel kernels[] = {
    {"_Z5scalePf5mixedms", 4, {0, 8, 32, 40}, {8, 24, 8, 2}, 42},
    {"_Z5emptyv", 0, {0}, {0}, 0},
    {"_Z5eightcsilfdPc4int4", 8, {0, 2, 4, 8, 16, 24, 32, 48}, {1, 2, 4, 8, 4, 8, 8, 16}, 64},
    {"_Z5storeIdEvPT_S0_", 2, {0, 8}, {8, 8}, 16},
    {"_Z5storeIcEvPT_S0_", 2, {0, 8}, {8, 1}, 9},
    {"_Z9long_nameP181" LONG_STRUCT "oneP181" LONG_STRUCT "twoP181" LONG_STRUCT "six", 3,
     {0, 8, 16}, {8, 8, 8}, 24},
};

static int codec_built(enum faro_fatbin_compression c)
{
#ifndef FARO_HAVE_ZSTD
    if (c == FARO_FATBIN_ZSTD)
        return 0;
#endif
#ifndef FARO_HAVE_LZ4
    if (c == FARO_FATBIN_LZ4)
        return 0;
#endif
    (void)c;
    return 1;
}

/* Whether the image has a cubin this build cannot inflate (its layouts are
 * then EUNSUPPORTED, not ENOTFOUND). */
static int uninflatable_cubin(const uint8_t *image, size_t size)
{
    faro_fatbin_entry_t e;
    for (unsigned k = 0; faro_fatbin_entry(image, size, k, &e) == 0; k++)
        if (e.kind == FARO_FATBIN_CUBIN && !codec_built(e.compression))
            return 1;
    return 0;
}

static int contains(const uint8_t *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(p + i, s, k) == 0)
            return 1;
    return 0;
}

/* Every entry of every image: kind, arch, codec, and its inflated bytes. */
static void check_entries(const struct build *b)
{
    unsigned ncubin = 0, nptx = 0;
    for (unsigned i = 0; i < b->nimages; i++) {
        faro_fatbin_entry_t e;
        int rc;
        unsigned k;
        for (k = 0; (rc = faro_fatbin_entry(b->image[i], b->image_size[i], k, &e)) == 0; k++) {
            if (e.kind != FARO_FATBIN_CUBIN && e.kind != FARO_FATBIN_PTX) {
                FAIL("%s: image %u entry %u: kind %d", b->tag, i, k, (int)e.kind);
                continue;
            }
            if (e.arch != 75)
                FAIL("%s: image %u entry %u: arch %u, expected 75", b->tag, i, k, e.arch);
            if (e.payload < b->image[i] || e.payload + e.payload_size > b->image[i] + b->image_size[i])
                FAIL("%s: image %u entry %u: payload outside the image", b->tag, i, k);
            /* the relocatable cubins of -rdc are zstd'ed by default; PTX always is */
            if (e.kind == FARO_FATBIN_CUBIN && !b->linked && e.compression != b->cubin_codec)
                FAIL("%s: cubin entry compressed %d, expected %d", b->tag, e.compression,
                     b->cubin_codec);
            if (e.kind == FARO_FATBIN_PTX && e.compression == FARO_FATBIN_RAW)
                FAIL("%s: PTX entry not compressed (nvcc 13 compresses PTX)", b->tag);
            ncubin += e.kind == FARO_FATBIN_CUBIN;
            nptx += e.kind == FARO_FATBIN_PTX;

            uint8_t *out = NULL;
            size_t n = 0;
            rc = faro_fatbin_entry_inflate(&e, &out, &n);
            if (!codec_built(e.compression)) {
                EXPECT_RC("inflate without the codec", rc, FARO_FATBIN_EUNSUPPORTED);
                continue;
            }
            EXPECT_RC("faro_fatbin_entry_inflate", rc, FARO_FATBIN_OK);
            if (rc != 0)
                continue;
            if (n != e.uncompressed_size)
                FAIL("%s: inflated %zu bytes, entry says %zu", b->tag, n, e.uncompressed_size);
            if (e.kind == FARO_FATBIN_CUBIN && (n < 4 || memcmp(out, "\177ELF", 4) != 0))
                FAIL("%s: image %u entry %u: inflated cubin is not ELF", b->tag, i, k);
            if (e.kind == FARO_FATBIN_PTX && !contains(out, n, ".entry _Z5scalePf5mixedms"))
                FAIL("%s: image %u entry %u: inflated PTX has no .entry _Z5scalePf5mixedms",
                     b->tag, i, k);
            if (e.compression == FARO_FATBIN_RAW && memcmp(out, e.payload, n) != 0)
                FAIL("%s: a raw entry's copy differs", b->tag);
            free(out);
        }
        EXPECT_RC("faro_fatbin_entry past the last", rc, FARO_FATBIN_ENOTFOUND);
    }
    if (b->ptx_only ? ncubin != 0 : ncubin == 0)
        FAIL("%s: %u cubin entries", b->tag, ncubin);
    if (nptx == 0 && !b->linked)
        FAIL("%s: no PTX entry", b->tag);
}

/* Every kernel's layout, from the image that has it. */
static void check_params(const struct build *b)
{
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        const struct kernel *kn = &kernels[k];
        int found = 0, found_v2 = 0, unsupported = 0;
        for (unsigned i = 0; i < b->nimages; i++) {
            faro_kparam_t p[8];
            unsigned n = 99;
            size_t total = 99;
            int rc = faro_fatbin_params(b->image[i], b->image_size[i], kn->mangled, p, 8, &n,
                                        &total);
            if (rc == FARO_FATBIN_ENOTFOUND)
                continue;
            if (rc == FARO_FATBIN_EUNSUPPORTED && uninflatable_cubin(b->image[i], b->image_size[i])) {
                unsupported = 1;
                continue;
            }
            EXPECT_RC(kn->mangled, rc, FARO_FATBIN_OK);
            if (rc != FARO_FATBIN_OK)
                continue;
            found++;
            found_v2 += b->version[i] == 2;
            if (n != kn->n || total != kn->total)
                FAIL("%s: %s: %u parameters, %zu bytes; expected %u, %zu", b->tag, kn->mangled,
                     n, total, kn->n, kn->total);
            for (unsigned j = 0; j < n && j < kn->n; j++)
                if (p[j].offset != kn->offset[j] || p[j].size != kn->size[j])
                    FAIL("%s: %s: parameter %u at %u size %u; expected %u size %u", b->tag,
                         kn->mangled, j, p[j].offset, p[j].size, kn->offset[j], kn->size[j]);
            if (kn->n > 3) { /* a too-small array: ETOOMANY and the count needed */
                n = 0;
                EXPECT_RC("params into 3 slots",
                          faro_fatbin_params(b->image[i], b->image_size[i], kn->mangled, p, 3,
                                             &n, &total),
                          FARO_FATBIN_ETOOMANY);
                if (n != kn->n)
                    FAIL("%s: ETOOMANY said %u parameters, expected %u", b->tag, n, kn->n);
            }
        }
        if (b->ptx_only) {
            if (found)
                FAIL("%s: %s: a layout from a PTX-only fatbin", b->tag, kn->mangled);
        } else if (!codec_built(b->cubin_codec)) {
            if (!unsupported)
                FAIL("%s: %s: no EUNSUPPORTED without the codec", b->tag, kn->mangled);
        } else if (!found) {
            FAIL("%s: %s: in no fatbin of the program", b->tag, kn->mangled);
        } else if (b->linked && !found_v2) {
            FAIL("%s: %s: not in the device-linked (version 2) fatbin", b->tag, kn->mangled);
        }
    }
    for (unsigned i = 0; i < b->nimages; i++) {
        faro_kparam_t p[1];
        unsigned n;
        size_t total;
        EXPECT_RC("a kernel no cubin has",
                  faro_fatbin_params(b->image[i], b->image_size[i], "_Z7missingv", p, 1, &n, &total),
                  uninflatable_cubin(b->image[i], b->image_size[i]) ? FARO_FATBIN_EUNSUPPORTED
                                                                    : FARO_FATBIN_ENOTFOUND);
    }
}

/* ---- malformed input ---- */

#define EXPECT_MALFORMED(what, call) EXPECT_RC(what, call, FARO_FATBIN_EMALFORMED)

static int params_of(const uint8_t *image, size_t size, const char *mangled)
{
    faro_kparam_t p[8];
    unsigned n;
    size_t total;
    return faro_fatbin_params(image, size, mangled, p, 8, &n, &total);
}

static int cubin_params_of(const uint8_t *cubin, size_t size)
{
    faro_kparam_t p[8];
    unsigned n;
    size_t total;
    return faro_cubin_params(cubin, size, "_Z5scalePf5mixedms", p, 8, &n, &total);
}

/* The image of a build whose cubins hold the kernels. */
static int kernel_image(const struct build *b, const uint8_t **img, size_t *size)
{
    for (unsigned i = 0; i < b->nimages; i++)
        if (params_of(b->image[i], b->image_size[i], "_Z5scalePf5mixedms") == 0) {
            *img = b->image[i];
            *size = b->image_size[i];
            return 0;
        }
    return -1;
}

/* The fatbin header and entry headers: cut, wrong magics, sizes past the end. */
static void malformed_image(const uint8_t *img, size_t size)
{
    for (size_t len = 0; len < size; len++) {
        uint8_t *cut = dup_exact(img, len);
        size_t sz;
        faro_fatbin_entry_t e;
        EXPECT_MALFORMED("image size of a cut image", faro_fatbin_image_size(cut, len, &sz));
        EXPECT_MALFORMED("entry 0 of a cut image", faro_fatbin_entry(cut, len, 0, &e));
        EXPECT_MALFORMED("params of a cut image", params_of(cut, len, "_Z5scalePf5mixedms"));
        free(cut);
        if (failures > 20)
            return;
    }
    struct { size_t at; int width; uint64_t value; const char *what; } edits[] = {
        {0, 4, 0xBA55ED51, "fatbin magic"},
        {4, 2, 2, "fatbin version 2"},
        {6, 2, 8, "header size below 16"},
        {6, 2, 0xffff, "header size past the end"},
        {8, 8, UINT64_MAX, "payload size 2^64-1"},
        {8, 8, size - 16 + 1, "payload size one past the end"},
        {16 + 4, 4, 63, "entry header size below 64"},
        {16 + 4, 4, 0xffffffff, "entry header size past the end"},
        {16 + 8, 8, UINT64_MAX, "entry payload size 2^64-1"},
        {16 + 8, 8, size, "entry payload size past the end"},
        {16 + 40, 8, 0xa011, "both zstd and LZ4 flags"},
        {16 + 36, 4, 0xffffffff, "entry name length past the end"},
        {16 + 32, 4, 0xfffffff0, "entry name offset past the end"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        uint8_t *bad = dup_exact(img, size);
        put_le(bad + edits[i].at, edits[i].width, edits[i].value);
        if (edits[i].at == 16 + 36 || edits[i].at == 16 + 32) { /* a name needs both */
            put_le(bad + 16 + 32, 4, edits[i].at == 16 + 32 ? 0xfffffff0 : 0);
            put_le(bad + 16 + 36, 4, edits[i].at == 16 + 36 ? 0xffffffff : 16);
        }
        faro_fatbin_entry_t e;
        size_t sz;
        int rc = edits[i].at < 16 ? faro_fatbin_image_size(bad, size, &sz)
                                  : faro_fatbin_entry(bad, size, 0, &e);
        if (rc != FARO_FATBIN_EMALFORMED)
            FAIL("%s: returned %d, expected EMALFORMED", edits[i].what, rc);
        if (params_of(bad, size, "_Z5scalePf5mixedms") != FARO_FATBIN_EMALFORMED)
            FAIL("%s: params not EMALFORMED", edits[i].what);
        free(bad);
    }
    /* a compressed entry whose compressed size is past its payload */
    uint8_t *bad = dup_exact(img, size);
    put_le(bad + 16 + 40, 8, 0x8011);
    put_le(bad + 16 + 16, 4, (uint32_t)le(bad + 16 + 8, 8) + 8);
    put_le(bad + 16 + 56, 8, 4096);
    faro_fatbin_entry_t e;
    EXPECT_MALFORMED("compressed size past the payload", faro_fatbin_entry(bad, size, 0, &e));
    free(bad);
    /* bytes after the last entry that are no entry */
    bad = malloc(size + 8);
    memcpy(bad, img, size);
    memset(bad + size, 0, 8);
    put_le(bad + 8, 8, le(img + 8, 8) + 8);
    unsigned k = 0;
    int rc;
    while ((rc = faro_fatbin_entry(bad, size + 8, k, &e)) == 0)
        k++;
    EXPECT_MALFORMED("8 stray bytes after the last entry", rc);
    free(bad);

    /* the wrapper */
    struct {
        uint32_t magic, version;
        const void *data, *more;
    } w = {FARO_FATBIN_WRAPPER_MAGIC, 1, img, NULL};
    const uint8_t *out;
    size_t sz;
    EXPECT_RC("a good wrapper", faro_fatbin_from_wrapper(&w, size, &out, &sz), FARO_FATBIN_OK);
    w.magic ^= 0x100;
    EXPECT_MALFORMED("wrapper magic", faro_fatbin_from_wrapper(&w, size, &out, &sz));
    w.magic = FARO_FATBIN_WRAPPER_MAGIC;
    w.version = 3;
    EXPECT_MALFORMED("wrapper version 3", faro_fatbin_from_wrapper(&w, size, &out, &sz));
    w.version = 1;
    w.data = NULL;
    EXPECT_MALFORMED("wrapper without data", faro_fatbin_from_wrapper(&w, size, &out, &sz));
    EXPECT_MALFORMED("no wrapper", faro_fatbin_from_wrapper(NULL, size, &out, &sz));
}

/* A cubin's ELF structure and its .nv.info records. */
static void malformed_cubin(const uint8_t *cubin, size_t size)
{
    struct section info, strtab;
    if (find_section(cubin, size, ".nv.info._Z5scalePf5mixedms", &info) != 0 ||
        find_section(cubin, size, ".shstrtab", &strtab) != 0) {
        FAIL("the default build's cubin has no .nv.info._Z5scalePf5mixedms or .shstrtab");
        return;
    }
    /* cut: malformed while anything the reader needs is cut off */
    size_t need = le(cubin + 0x28, 8) + le(cubin + 0x3a, 2) * le(cubin + 0x3c, 2);
    if (info.offset + info.size > need)
        need = info.offset + info.size;
    if (strtab.offset + strtab.size > need)
        need = strtab.offset + strtab.size;
    for (size_t len = 0; len < size; len++) {
        uint8_t *cut = dup_exact(cubin, len);
        int rc = cubin_params_of(cut, len);
        free(cut);
        if (len < need ? rc != FARO_FATBIN_EMALFORMED : rc != FARO_FATBIN_OK) {
            FAIL("cubin cut to %zu of %zu bytes (%zu needed): returned %d", len, size, need, rc);
            break;
        }
    }
    /* records: the first is an SVAL; find the parameter records */
    size_t kparam[8], nk = 0, cbank = 0;
    for (size_t pos = 0; pos + 4 <= info.size;) {
        const uint8_t *r = cubin + info.offset + pos;
        if (r[1] == 0x17 && nk < 8)
            kparam[nk++] = info.offset + pos;
        if (r[1] == 0x19)
            cbank = info.offset + pos;
        pos += 4 + (r[0] == 4 ? le(r + 2, 2) : 0);
    }
    if (nk != 4 || !cbank || cubin[info.offset] != 4) {
        FAIL("scale's .nv.info: %zu parameter records, size record at %zu", nk, cbank);
        return;
    }
    struct { size_t at; int width; uint64_t value; const char *what; } edits[] = {
        {info.offset + 2, 2, info.size, "a record's length past the section"},
        {info.offset + 2, 2, 0xffff, "a record's length 0xffff"},
        {info.offset, 1, 9, "record format 9"},
        {info.offset, 1, 0, "record format 0"},
        {info.header + 32, 8, info.size - 2, "section ending inside a record"},
        {info.header + 32, 8, size, "section size past the cubin"},
        {info.header + 24, 8, size - 4, "section offset near the end"},
        {info.header + 4, 4, 8, "section of type NOBITS"},
        {strtab.header + 32, 8, size, "name table past the cubin"},
        {0x28, 8, size, "section table at the end"},
        {0x28, 8, UINT64_MAX - 8, "section table offset 2^64-9"},
        {0x3c, 2, 0xfff0, "0xfff0 sections"},
        {0x3e, 2, 0xfff0, "name table index past the sections"},
        {0x3a, 2, 32, "section headers of 32 bytes"},
        {0, 1, 0x7e, "ELF magic"},
        {4, 1, 1, "a 32-bit ELF"},
        {kparam[0] + 10, 2, 41, "a parameter past the buffer (the last: 2 bytes at 41 of 42)"},
        {kparam[0] + 8, 2, le(cubin + kparam[1] + 8, 2), "the same ordinal twice"},
        {kparam[0] + 8, 2, 7, "an ordinal missing"},
        {kparam[0] + 2, 2, 8, "a parameter record of 8 bytes"},
        {kparam[0], 1, 3, "a parameter record that is no SVAL"},
        {cbank + 2, 2, 41, "the parameter size below the last parameter's end"},
        {cbank, 1, 4, "the parameter size record as an SVAL"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        uint8_t *bad = dup_exact(cubin, size);
        put_le(bad + edits[i].at, edits[i].width, edits[i].value);
        int rc = cubin_params_of(bad, size);
        if (rc != FARO_FATBIN_EMALFORMED)
            FAIL("cubin with %s: returned %d (%s), expected EMALFORMED", edits[i].what, rc,
                 faro_fatbin_strerror(rc));
        free(bad);
    }
    /* the .nv.info section moved to the very end and 4 bytes longer: the
     * records are good up to the end of the buffer, then one more is claimed */
    uint8_t *moved = malloc(size + info.size);
    memcpy(moved, cubin, size);
    memcpy(moved + size, cubin + info.offset, info.size);
    put_le(moved + info.header + 24, 8, size);
    put_le(moved + info.header + 32, 8, info.size + 4);
    EXPECT_MALFORMED("a section 4 bytes past the end", cubin_params_of(moved, size + info.size));
    put_le(moved + info.header + 32, 8, info.size);
    EXPECT_RC("the same section moved, its own size", cubin_params_of(moved, size + info.size),
              FARO_FATBIN_OK);
    free(moved);
}

/* Compressed payloads whose sizes lie. */
static void malformed_compressed(const struct build *b)
{
    const uint8_t *img;
    size_t size;
    if (!codec_built(b->cubin_codec) || kernel_image(b, &img, &size) != 0)
        return;
    faro_fatbin_entry_t e;
    if (faro_fatbin_entry(img, size, 0, &e) != 0 || e.compression != b->cubin_codec) {
        FAIL("%s: entry 0 is not a %d-compressed cubin", b->tag, b->cubin_codec);
        return;
    }
    struct { long dsize, dpayload; size_t setsize; const char *what; } lies[] = {
        {1, 0, 0, "uncompressed size one more"},
        {-1, 0, 0, "uncompressed size one less"},
        {0, -1, 0, "the stream cut by a byte"},
        {0, -(long)e.payload_size / 2, 0, "the stream cut in half"},
        {0, 0, (size_t)1 << 40, "uncompressed size 2^40"},
    };
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        faro_fatbin_entry_t bad = e;
        bad.payload_size += lies[i].dpayload;
        bad.uncompressed_size = lies[i].setsize ? lies[i].setsize
                                                : bad.uncompressed_size + lies[i].dsize;
        uint8_t *payload = dup_exact(e.payload, bad.payload_size), *out = NULL;
        bad.payload = payload;
        size_t n;
        int rc = faro_fatbin_entry_inflate(&bad, &out, &n);
        if (rc != FARO_FATBIN_EMALFORMED)
            FAIL("%s: %s: inflate returned %d, expected EMALFORMED", b->tag, lies[i].what, rc);
        if (rc == 0)
            free(out);
        free(payload);
    }
}

static void check_malformed(const struct build *def, const struct build *zstd,
                            const struct build *lz4)
{
    const uint8_t *img;
    size_t size;
    if (kernel_image(def, &img, &size) != 0)
        return; /* already reported */
    malformed_image(img, size);
    faro_fatbin_entry_t e;
    if (faro_fatbin_entry(img, size, 0, &e) != 0 || e.kind != FARO_FATBIN_CUBIN ||
        e.compression != FARO_FATBIN_RAW) {
        FAIL("default build: entry 0 is not a raw cubin");
        return;
    }
    uint8_t *cubin = dup_exact(e.payload, e.payload_size);
    malformed_cubin(cubin, e.payload_size);
    free(cubin);
    malformed_compressed(zstd);
    malformed_compressed(lz4);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *nvcc = find_nvcc();
    if (!nvcc) {
        printf("test_fatbin: SKIP: nvcc not found ($NVCC, PATH, $CUDA_HOME/bin or "
               "/usr/local/cuda/bin): it builds the fatbinaries this test reads\n");
        return 77;
    }
    char dir[] = "/tmp/faro-test-fatbin-XXXXXX";
    const char *tmp = getenv("TMPDIR");
    char dirbuf[4096];
    snprintf(dirbuf, sizeof dirbuf, "%s/faro-test-fatbin-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char *d = mkdtemp(dirbuf);
    if (!d && !(d = mkdtemp(dir))) {
        printf("test_fatbin: FAIL: mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    if (compile_all(nvcc, d) == 0) {
        for (size_t b = 0; b < NBUILDS; b++) {
            if (load(&builds[b], d) != 0)
                continue;
            check_entries(&builds[b]);
            check_params(&builds[b]);
        }
        check_malformed(&builds[0], &builds[1], &builds[2]);
    }
    char rm[4200];
    snprintf(rm, sizeof rm, "rm -rf '%s'", d);
    if (system(rm) != 0)
        printf("test_fatbin: could not remove %s\n", d);
    for (size_t b = 0; b < NBUILDS; b++)
        free(builds[b].file);
    if (failures) {
        printf("test_fatbin: %d failures\n", failures);
        return 1;
    }
    printf("test_fatbin: ok (%zu builds by %s)\n", NBUILDS, nvcc);
    return 0;
}
