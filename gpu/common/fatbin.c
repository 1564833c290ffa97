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

#include "base/le.h"

#include <stdlib.h>
#include <string.h>

#ifdef FARO_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef FARO_HAVE_LZ4
#include <lz4.h>
#endif

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
    if (!image || avail < FATBIN_HEADER_MIN || faro_le_get32(image) != FARO_FATBIN_MAGIC ||
        faro_le_get16(image + 4) != 1)
        return FARO_FATBIN_EMALFORMED;
    size_t header = faro_le_get16(image + 6);
    uint64_t payload = faro_le_get64(image + 8);
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
    size_t header = faro_le_get32(e + EH_HEADER_SIZE);
    uint64_t payload = faro_le_get64(e + EH_PAYLOAD_SIZE);
    if (header < ENTRY_HEADER_MIN || header > left || payload > left - header)
        return FARO_FATBIN_EMALFORMED;
    uint64_t flags = faro_le_get64(e + EH_FLAGS);
    faro_fatbin_entry_t en = {0};
    en.kind = (enum faro_fatbin_kind)faro_le_get16(e + EH_KIND);
    en.arch = faro_le_get32(e + EH_ARCH);
    en.payload = e + header;
    if ((flags & ENTRY_FLAG_ZSTD) && (flags & ENTRY_FLAG_LZ4))
        return FARO_FATBIN_EMALFORMED;
    if (flags & (ENTRY_FLAG_ZSTD | ENTRY_FLAG_LZ4)) {
        /* payload_size is the compressed stream rounded up to 8 bytes */
        en.compression = (flags & ENTRY_FLAG_ZSTD) ? FARO_FATBIN_ZSTD : FARO_FATBIN_LZ4;
        en.payload_size = faro_le_get32(e + EH_COMPRESSED_SIZE);
        en.uncompressed_size = faro_le_get64(e + EH_UNCOMPRESSED_SIZE);
        if (en.payload_size == 0 || en.payload_size > payload || en.uncompressed_size == 0 ||
            en.uncompressed_size > SIZE_MAX / 2)
            return FARO_FATBIN_EMALFORMED;
    } else {
        en.compression = FARO_FATBIN_RAW;
        en.payload_size = (size_t)payload;
        en.uncompressed_size = (size_t)payload;
    }
    size_t name_off = faro_le_get32(e + EH_NAME_OFF), name_len = faro_le_get32(e + EH_NAME_LEN);
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
    size_t pos = faro_le_get16(image + 6);
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

/* Above this an entry's uncompressed size is taken as a lie, not as a cubin
 * (real ones are kilobytes to tens of megabytes). */
#define INFLATE_MAX ((size_t)1 << 30)

int faro_fatbin_entry_inflate(const faro_fatbin_entry_t *entry, uint8_t **out, size_t *out_size)
{
    size_t n = entry->uncompressed_size;
    if (entry->compression != FARO_FATBIN_RAW &&
        (n == 0 || n > INFLATE_MAX || entry->payload_size == 0))
        return FARO_FATBIN_EMALFORMED;
    switch (entry->compression) {
    case FARO_FATBIN_RAW:
        break;
#ifdef FARO_HAVE_ZSTD
    case FARO_FATBIN_ZSTD: {
        /* a frame that states its size must state the entry's */
        unsigned long long said = ZSTD_getFrameContentSize(entry->payload, entry->payload_size);
        if (said == ZSTD_CONTENTSIZE_ERROR ||
            (said != ZSTD_CONTENTSIZE_UNKNOWN && said != (unsigned long long)n))
            return FARO_FATBIN_EMALFORMED;
        break;
    }
#endif
#ifdef FARO_HAVE_LZ4
    case FARO_FATBIN_LZ4:
        /* an LZ4 block expands at most about 255 times */
        if (n / 255 > entry->payload_size + 16 || entry->payload_size > INT32_MAX ||
            n > INT32_MAX)
            return FARO_FATBIN_EMALFORMED;
        break;
#endif
    default:
        return FARO_FATBIN_EUNSUPPORTED;
    }
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return FARO_FATBIN_ENOMEM;
    size_t got = n;
    if (entry->compression == FARO_FATBIN_RAW)
        memcpy(buf, entry->payload, n);
#ifdef FARO_HAVE_ZSTD
    else if (entry->compression == FARO_FATBIN_ZSTD)
        got = ZSTD_decompress(buf, n, entry->payload, entry->payload_size);
#endif
#ifdef FARO_HAVE_LZ4
    else {
        int r = LZ4_decompress_safe((const char *)entry->payload, (char *)buf,
                                    (int)entry->payload_size, (int)n);
        got = r < 0 ? n + 1 : (size_t)r;
    }
#endif
    if (got != n) { /* a codec error, or fewer or more bytes than the entry says */
        free(buf);
        return FARO_FATBIN_EMALFORMED;
    }
    *out = buf;
    *out_size = n;
    return FARO_FATBIN_OK;
}

/* ---- the cubin's ELF sections ---- */

/* Section `prefix``name` of an ELF64 little-endian image: its bytes (the
 * name comes in two parts so that no mangled name, however long, needs a
 * buffer). ENOTFOUND when absent; EMALFORMED when the ELF header, the
 * section table, the section name table or the section itself does not fit
 * in the image. */
static int elf_section(const uint8_t *elf, size_t size, const char *prefix, const char *name,
                       const uint8_t **data, size_t *data_size)
{
    enum { EHDR = 64, SH_NAME = 0, SH_TYPE = 4, SH_OFFSET = 24, SH_SIZE = 32, SHT_NOBITS = 8 };
    if (size < EHDR || memcmp(elf, "\177ELF", 4) != 0 || elf[4] != 2 /* 64-bit */ ||
        elf[5] != 1 /* little-endian */)
        return FARO_FATBIN_EMALFORMED;
    uint64_t shoff = faro_le_get64(elf + 0x28);
    size_t shentsize = faro_le_get16(elf + 0x3a), shnum = faro_le_get16(elf + 0x3c), shstrndx = faro_le_get16(elf + 0x3e);
    if (shoff == 0)
        return FARO_FATBIN_ENOTFOUND; /* no section table */
    if (shentsize < 64 || shoff > size || size - shoff < shentsize)
        return FARO_FATBIN_EMALFORMED;
    const uint8_t *sh0 = elf + shoff;
    if (shnum == 0) /* extended numbering: the count is section 0's size */
        shnum = faro_le_get64(sh0 + SH_SIZE) > SIZE_MAX ? SIZE_MAX : (size_t)faro_le_get64(sh0 + SH_SIZE);
    if (shstrndx == 0xffff)
        shstrndx = faro_le_get32(sh0 + 40); /* section 0's sh_link */
    if (shnum > (size - shoff) / shentsize || shstrndx >= shnum)
        return FARO_FATBIN_EMALFORMED;
    const uint8_t *strsh = sh0 + shstrndx * shentsize;
    uint64_t stroff = faro_le_get64(strsh + SH_OFFSET), strsize = faro_le_get64(strsh + SH_SIZE);
    if (stroff > size || strsize > size - stroff)
        return FARO_FATBIN_EMALFORMED;
    const char *strtab = (const char *)elf + stroff;
    size_t plen = strlen(prefix), want = plen + strlen(name);
    for (size_t i = 1; i < shnum; i++) {
        const uint8_t *sh = sh0 + i * shentsize;
        size_t at = faro_le_get32(sh + SH_NAME);
        /* the name and its NUL lie in the string table */
        if (at > strsize || strsize - at < want + 1 || memcmp(strtab + at, prefix, plen) != 0 ||
            memcmp(strtab + at + plen, name, want - plen) != 0 || strtab[at + want] != '\0')
            continue;
        uint64_t off = faro_le_get64(sh + SH_OFFSET), len = faro_le_get64(sh + SH_SIZE);
        if (faro_le_get32(sh + SH_TYPE) == SHT_NOBITS || off > size || len > size - off)
            return FARO_FATBIN_EMALFORMED;
        *data = elf + off;
        *data_size = (size_t)len;
        return FARO_FATBIN_OK;
    }
    return FARO_FATBIN_ENOTFOUND;
}

/* ---- .nv.info ---- */

/* Record formats (the first byte of each record) and the attributes read. */
enum {
    EIFMT_NVAL = 1,   /* no value: 4 bytes in all */
    EIFMT_BVAL = 2,   /* one byte: 4 bytes in all */
    EIFMT_HVAL = 3,   /* u16 value at +2: 4 bytes in all */
    EIFMT_SVAL = 4,   /* u16 length at +2, then that many bytes */
    EIATTR_KPARAM_INFO = 0x17,
    EIATTR_CBANK_PARAM_SIZE = 0x19,
    KPARAM_INFO_LEN = 12,   /* u32 index, u16 ordinal, u16 offset, u32 size and flags */
};

/* An offset that no parameter has (buffers are at most 32 KiB): marks an
 * ordinal not yet seen. */
#define KPARAM_UNSEEN 0xffffu

int faro_cubin_params(const uint8_t *cubin, size_t cubin_size, const char *mangled,
                      faro_kparam_t *params, unsigned max, unsigned *nparams,
                      size_t *total_size)
{
    const uint8_t *info;
    size_t info_size;
    int rc = elf_section(cubin, cubin_size, ".nv.info.", mangled, &info, &info_size);
    if (rc != FARO_FATBIN_OK)
        return rc;

    for (unsigned i = 0; i < max; i++)
        params[i].offset = params[i].size = KPARAM_UNSEEN;
    unsigned records = 0, count = 0; /* count: highest ordinal + 1 */
    size_t total = 0;
    int have_total = 0;
    for (size_t pos = 0; pos < info_size;) {
        if (info_size - pos < 4)
            return FARO_FATBIN_EMALFORMED;
        const uint8_t *r = info + pos;
        uint8_t format = r[0], attr = r[1];
        size_t vlen = 0;
        if (format == EIFMT_SVAL) {
            vlen = faro_le_get16(r + 2);
            if (vlen > info_size - pos - 4)
                return FARO_FATBIN_EMALFORMED;
        } else if (format < EIFMT_NVAL || format > EIFMT_HVAL) {
            return FARO_FATBIN_EMALFORMED;
        }
        if (attr == EIATTR_CBANK_PARAM_SIZE) {
            if (format != EIFMT_HVAL)
                return FARO_FATBIN_EMALFORMED;
            total = faro_le_get16(r + 2);
            have_total = 1;
        } else if (attr == EIATTR_KPARAM_INFO) {
            if (format != EIFMT_SVAL || vlen < KPARAM_INFO_LEN)
                return FARO_FATBIN_EMALFORMED;
            unsigned ordinal = faro_le_get16(r + 8);
            uint16_t offset = faro_le_get16(r + 10);
            uint16_t size = (uint16_t)(faro_le_get32(r + 12) >> 18);
            if (offset == KPARAM_UNSEEN)
                return FARO_FATBIN_EMALFORMED;
            if (ordinal < max) {
                if (params[ordinal].offset != KPARAM_UNSEEN)
                    return FARO_FATBIN_EMALFORMED; /* the same ordinal twice */
                params[ordinal].offset = offset;
                params[ordinal].size = size;
            }
            if (ordinal + 1 > count)
                count = ordinal + 1;
            records++;
        }
        pos += 4 + vlen;
    }
    /* ordinals 0..count-1, each once; every parameter inside the buffer */
    if (records != count || (count > 0 && !have_total))
        return FARO_FATBIN_EMALFORMED;
    for (unsigned i = 0; i < count && i < max; i++)
        if (params[i].offset == KPARAM_UNSEEN ||
            (size_t)params[i].offset + params[i].size > total)
            return FARO_FATBIN_EMALFORMED;
    *nparams = count;
    if (count > max)
        return FARO_FATBIN_ETOOMANY;
    *total_size = total;
    return FARO_FATBIN_OK;
}

int faro_fatbin_params(const uint8_t *image, size_t image_size, const char *mangled,
                       faro_kparam_t *params, unsigned max, unsigned *nparams,
                       size_t *total_size)
{
    int missing = FARO_FATBIN_ENOTFOUND; /* or EUNSUPPORTED: a cubin we could not inflate */
    faro_fatbin_entry_t en;
    int rc;
    for (unsigned i = 0; (rc = faro_fatbin_entry(image, image_size, i, &en)) == FARO_FATBIN_OK;
         i++) {
        if (en.kind != FARO_FATBIN_CUBIN)
            continue;
        uint8_t *inflated = NULL;
        const uint8_t *cubin = en.payload;
        size_t cubin_size = en.payload_size;
        if (en.compression != FARO_FATBIN_RAW) {
            rc = faro_fatbin_entry_inflate(&en, &inflated, &cubin_size);
            if (rc == FARO_FATBIN_EUNSUPPORTED) {
                missing = rc;
                continue;
            }
            if (rc != FARO_FATBIN_OK)
                return rc;
            cubin = inflated;
        }
        rc = faro_cubin_params(cubin, cubin_size, mangled, params, max, nparams, total_size);
        free(inflated);
        if (rc != FARO_FATBIN_ENOTFOUND)
            return rc;
    }
    return rc == FARO_FATBIN_ENOTFOUND ? missing : rc;
}

const char *faro_fatbin_strerror(int rc)
{
    switch (rc) {
    case FARO_FATBIN_OK:
        return "success";
    case FARO_FATBIN_EMALFORMED:
        return "malformed fatbinary or cubin (a magic, size or offset does not hold)";
    case FARO_FATBIN_ENOTFOUND:
        return "not found (no such entry, kernel or .nv.info section)";
    case FARO_FATBIN_EUNSUPPORTED:
#if defined(FARO_HAVE_ZSTD) && defined(FARO_HAVE_LZ4)
        return "unsupported (an entry compressed in a way this reader does not know)";
#else
        return "unsupported (a compressed entry this build cannot inflate: rebuild Faro with "
               "libzstd-dev and liblz4-dev installed)";
#endif
    case FARO_FATBIN_ETOOMANY:
        return "more kernel parameters than the caller's array holds";
    case FARO_FATBIN_ENOMEM:
        return "out of memory";
    }
    return "unknown fatbin reader error";
}
