/*
 * The fatbinary and .nv.info reader (contract and layouts: fatbin.h; the
 * measured details: docs/gpu.md, "Fatbinaries and parameter layouts").
 *
 * Every multi-byte field is read byte by byte in little-endian order (what
 * nvcc writes, whatever the reader's host), and every offset and length is
 * checked against the buffer it lies in before it is used, in an order that
 * cannot overflow (a length is compared with what is left, never added to an
 * offset first). The wrapper is the one exception: it is a C object of the
 * running program, read in the host's own layout.
 */
#include "config.h"

#include "gpu/common/fatbin.h"

#include <stdlib.h>
#include <string.h>

#ifdef FARO_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef FARO_HAVE_LZ4
#include <lz4.h>
#endif

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---- wrapper and fatbin header ---- */

enum { FATBIN_HEADER_MIN = 16, ENTRY_HEADER_MIN = 64 };

/* The wrapper as nvcc lays it out in .nvFatBinSegment (host layout). */
struct fatbin_wrapper {
    uint32_t magic;
    uint32_t version;
    const void *data;
    const void *filename_or_fatbins;
};

int faro_fatbin_from_wrapper(const void *wrapper, size_t avail, const uint8_t **image,
                             size_t *image_size)
{
    struct fatbin_wrapper w;
    if (!wrapper)
        return FARO_FATBIN_EMALFORMED;
    memcpy(&w, wrapper, sizeof w);
    if (w.magic != FARO_FATBIN_WRAPPER_MAGIC || (w.version != 1 && w.version != 2) || !w.data)
        return FARO_FATBIN_EMALFORMED;
    int rc = faro_fatbin_image_size(w.data, avail, image_size);
    if (rc == FARO_FATBIN_OK)
        *image = w.data;
    return rc;
}

int faro_fatbin_image_size(const uint8_t *image, size_t avail, size_t *image_size)
{
    if (!image || avail < FATBIN_HEADER_MIN || rd32(image) != FARO_FATBIN_MAGIC ||
        rd16(image + 4) != 1)
        return FARO_FATBIN_EMALFORMED;
    size_t header = rd16(image + 6);
    uint64_t payload = rd64(image + 8);
    if (header < FATBIN_HEADER_MIN || header > avail || payload > avail - header)
        return FARO_FATBIN_EMALFORMED;
    *image_size = header + (size_t)payload;
    return FARO_FATBIN_OK;
}

/* ---- entries ---- */

/* Entry header fields (byte offsets; fatbin.h and docs/gpu.md). */
enum {
    EH_KIND = 0,
    EH_HEADER_SIZE = 4,
    EH_PAYLOAD_SIZE = 8,
    EH_COMPRESSED_SIZE = 16,
    EH_ARCH = 28,
    EH_NAME_OFF = 32,
    EH_NAME_LEN = 36,
    EH_FLAGS = 40,
    EH_UNCOMPRESSED_SIZE = 56,
};

#define ENTRY_FLAG_ZSTD 0x8000u
#define ENTRY_FLAG_LZ4 0x2000u

/* One entry at e, with `left` bytes from e to the end of the payload area. */
static int parse_entry(const uint8_t *e, size_t left, faro_fatbin_entry_t *out, size_t *span)
{
    if (left < ENTRY_HEADER_MIN)
        return FARO_FATBIN_EMALFORMED;
    size_t header = rd32(e + EH_HEADER_SIZE);
    uint64_t payload = rd64(e + EH_PAYLOAD_SIZE);
    if (header < ENTRY_HEADER_MIN || header > left || payload > left - header)
        return FARO_FATBIN_EMALFORMED;
    uint64_t flags = rd64(e + EH_FLAGS);
    faro_fatbin_entry_t en = {0};
    en.kind = (enum faro_fatbin_kind)rd16(e + EH_KIND);
    en.arch = rd32(e + EH_ARCH);
    en.payload = e + header;
    if ((flags & ENTRY_FLAG_ZSTD) && (flags & ENTRY_FLAG_LZ4))
        return FARO_FATBIN_EMALFORMED;
    if (flags & (ENTRY_FLAG_ZSTD | ENTRY_FLAG_LZ4)) {
        /* payload_size is the compressed stream rounded up to 8 bytes */
        en.compression = (flags & ENTRY_FLAG_ZSTD) ? FARO_FATBIN_ZSTD : FARO_FATBIN_LZ4;
        en.payload_size = rd32(e + EH_COMPRESSED_SIZE);
        en.uncompressed_size = rd64(e + EH_UNCOMPRESSED_SIZE);
        if (en.payload_size == 0 || en.payload_size > payload || en.uncompressed_size == 0 ||
            en.uncompressed_size > SIZE_MAX / 2)
            return FARO_FATBIN_EMALFORMED;
    } else {
        en.compression = FARO_FATBIN_RAW;
        en.payload_size = (size_t)payload;
        en.uncompressed_size = (size_t)payload;
    }
    size_t name_off = rd32(e + EH_NAME_OFF), name_len = rd32(e + EH_NAME_LEN);
    if (name_len) { /* measured lying within the entry (header + payload) */
        size_t span_all = header + (size_t)payload;
        if (name_off > span_all || name_len > span_all - name_off)
            return FARO_FATBIN_EMALFORMED;
        en.name = (const char *)e + name_off;
        en.name_len = name_len;
    }
    *out = en;
    *span = header + (size_t)payload;
    return FARO_FATBIN_OK;
}

int faro_fatbin_entry(const uint8_t *image, size_t image_size, unsigned index,
                      faro_fatbin_entry_t *entry)
{
    size_t size;
    int rc = faro_fatbin_image_size(image, image_size, &size);
    if (rc != FARO_FATBIN_OK)
        return rc;
    size_t pos = rd16(image + 6);
    for (unsigned i = 0;; i++) {
        if (pos == size)
            return FARO_FATBIN_ENOTFOUND;
        faro_fatbin_entry_t en;
        size_t span;
        rc = parse_entry(image + pos, size - pos, &en, &span);
        if (rc != FARO_FATBIN_OK)
            return rc;
        if (i == index) {
            *entry = en;
            return FARO_FATBIN_OK;
        }
        pos += span;
    }
}

/* ---- inflating ---- */

int faro_fatbin_entry_inflate(const faro_fatbin_entry_t *entry, uint8_t **out, size_t *out_size)
{
    (void)entry, (void)out, (void)out_size;
    return FARO_FATBIN_EUNSUPPORTED; /* not written yet: zstd and LZ4 come next */
}

/* ---- .nv.info ---- */

int faro_cubin_params(const uint8_t *cubin, size_t cubin_size, const char *mangled,
                      faro_kparam_t *params, unsigned max, unsigned *nparams,
                      size_t *total_size)
{
    (void)cubin, (void)cubin_size, (void)mangled, (void)params, (void)max, (void)nparams,
        (void)total_size;
    return FARO_FATBIN_EUNSUPPORTED; /* not written yet: the .nv.info walk comes next */
}

int faro_fatbin_params(const uint8_t *image, size_t image_size, const char *mangled,
                       faro_kparam_t *params, unsigned max, unsigned *nparams,
                       size_t *total_size)
{
    (void)image, (void)image_size, (void)mangled, (void)params, (void)max, (void)nparams,
        (void)total_size;
    return FARO_FATBIN_EUNSUPPORTED; /* not written yet */
}
