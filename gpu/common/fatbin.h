/*
 * Reading what nvcc embeds in a program: fatbinaries, their entries, and the
 * kernel parameter layouts recorded in each cubin's .nv.info sections.
 *
 * Who calls this: the GPU client library (gpu/client/) at registration time,
 * to find a fatbinary's size (the bytes to ship to the server) and, as a
 * cross-check of what the server reports and for tests, each kernel's
 * parameter offsets and sizes; the tests and the fuzz harness on real
 * nvcc-built images. Nothing here needs a GPU, CUDA's libraries or a
 * server: it is pure parsing of bytes, and it never trusts them (every
 * length is checked against the buffer it lies in; malformed input gives
 * FARO_FATBIN_EMALFORMED, never a read out of bounds).
 *
 * Ownership: every function reads caller-owned memory and keeps no pointer
 * to it past the call, except where a result says it points into the image
 * (faro_fatbin_entry_t.payload, .name). Results that need memory
 * (faro_fatbin_params) are written into caller-provided arrays.
 * Nothing allocates except faro_fatbin_entry_inflate, whose result the
 * caller frees with free().
 *
 * Layouts (CUDA 13, measured; docs/gpu.md has the details):
 *   wrapper  (the registered object, 24 bytes): u32 magic 0x466243B1,
 *            u32 version (1; 2 for -rdc=true device-linked), u64 pointer to
 *            the fatbin header, u64 pointer (file name or, v2, fatbin list)
 *   header   u32 magic 0xBA55ED50, u16 version 1, u16 header_size,
 *            u64 payload_size; the image is header_size + payload_size bytes
 *   entries  back to back in the payload, each an entry header then payload
 */
#ifndef FARO_GPU_FATBIN_H
#define FARO_GPU_FATBIN_H

#include <stddef.h>
#include <stdint.h>

enum {
    FARO_FATBIN_OK = 0,
    FARO_FATBIN_EMALFORMED = -1,   /* a magic, size or offset does not hold */
    FARO_FATBIN_ENOTFOUND = -2,    /* no such entry / kernel / section */
    FARO_FATBIN_EUNSUPPORTED = -3, /* e.g. a compression this build cannot inflate */
    FARO_FATBIN_ETOOMANY = -4,     /* more parameters than the caller's arrays hold */
    FARO_FATBIN_ENOMEM = -5,       /* inflating: the uncompressed buffer could not be allocated */
};

/* A sentence for an error code above (for messages; static storage). */
const char *faro_fatbin_strerror(int rc);

#define FARO_FATBIN_WRAPPER_MAGIC 0x466243B1u
#define FARO_FATBIN_MAGIC 0xBA55ED50u

/* An entry's kind is its header's u16 as written; other values (kinds this
 * reader does not know, e.g. LTO IR) are reported as they are, and skipped by
 * faro_fatbin_params. */
enum faro_fatbin_kind { FARO_FATBIN_PTX = 1, FARO_FATBIN_CUBIN = 2 };

enum faro_fatbin_compression {
    FARO_FATBIN_RAW = 0,
    FARO_FATBIN_ZSTD = 1,   /* entry flag 0x8000 */
    FARO_FATBIN_LZ4 = 2,    /* entry flag 0x2000 (raw LZ4 block) */
};

typedef struct faro_fatbin_entry {
    enum faro_fatbin_kind kind;
    unsigned arch;                  /* e.g. 75 for sm_75 / compute_75 */
    enum faro_fatbin_compression compression;
    const uint8_t *payload;         /* points into the image */
    size_t payload_size;            /* bytes at payload (compressed size if compressed) */
    size_t uncompressed_size;       /* size after inflating */
    const char *name;               /* points into the image, not NUL-terminated; NULL when the
                                       entry has none (every entry nvcc 13 wrote in our tests) */
    size_t name_len;
} faro_fatbin_entry_t;

/* From the wrapper nvcc registers (__cudaRegisterFatBinary's argument): the
 * fatbin image and its total size (header + payload). `avail` bounds the
 * bytes that may be read from the wrapper's data pointer (SIZE_MAX when the
 * image is in the running program and trusted to be mapped). */
int faro_fatbin_from_wrapper(const void *wrapper, size_t avail,
                             const uint8_t **image, size_t *image_size);

/* The image's size from its header, checking the magic and version. */
int faro_fatbin_image_size(const uint8_t *image, size_t avail, size_t *image_size);

/* Entry `index` (0, 1, ...) of the image; FARO_FATBIN_ENOTFOUND past the last.
 * The header and every entry up to `index` are checked; image_size may exceed
 * the image's own size (the rest is ignored) but not fall short of it. */
int faro_fatbin_entry(const uint8_t *image, size_t image_size, unsigned index,
                      faro_fatbin_entry_t *entry);

/* The entry's payload uncompressed, malloc'ed (the caller frees it); for a
 * raw entry a copy. FARO_FATBIN_EUNSUPPORTED when built without the codec
 * (configure found no libzstd / liblz4); EMALFORMED when the stream does not
 * inflate to exactly uncompressed_size bytes, or that size is implausible
 * (over 1 GiB, past LZ4's 255:1, or not what a zstd frame states);
 * ENOMEM when the buffer cannot be allocated. */
int faro_fatbin_entry_inflate(const faro_fatbin_entry_t *entry, uint8_t **out, size_t *out_size);

/* One kernel parameter as the cubin's EIATTR_KPARAM_INFO records it. */
typedef struct faro_kparam {
    uint16_t offset;   /* bytes from the start of the parameter buffer */
    uint16_t size;     /* bytes */
} faro_kparam_t;

/* The parameter layout of kernel `mangled` in an uncompressed cubin (an ELF
 * image): its parameters in ordinal order into params[0..*nparams) (at most
 * `max`), and the total parameter buffer size (EIATTR_CBANK_PARAM_SIZE).
 * A kernel with no parameters gives *nparams = 0, *total_size = 0.
 * ENOTFOUND: no section .nv.info.<mangled>. ETOOMANY: more than `max`
 * parameters; *nparams is then the count needed (nothing else is set).
 * EMALFORMED: the ELF structure, a record, a duplicate or missing ordinal, or
 * a parameter reaching past the total size. */
int faro_cubin_params(const uint8_t *cubin, size_t cubin_size, const char *mangled,
                      faro_kparam_t *params, unsigned max, unsigned *nparams,
                      size_t *total_size);

/* The same through a whole image: the first cubin entry (inflated when
 * needed) that holds the kernel. ENOTFOUND when no cubin has it (e.g. a
 * PTX-only image: the server's cuKernelGetParamInfo is then the only source);
 * EUNSUPPORTED when none has it but some compressed cubin could not be
 * inflated by this build. */
int faro_fatbin_params(const uint8_t *image, size_t image_size, const char *mangled,
                       faro_kparam_t *params, unsigned max, unsigned *nparams,
                       size_t *total_size);

#endif
