/*
 * libFuzzer harness: the GPU layer's fatbinary and .nv.info reader
 * (gpu/common/fatbin.c), which the client library runs on whatever a
 * program registers. The input is read both as a fatbin image (through a
 * wrapper, entry by entry, each entry inflated, kernel layouts looked up)
 * and as a bare cubin (layouts from its .nv.info sections). Whatever the
 * reader accepts must lie inside the input: entries' payloads and names,
 * and parameters inside the total size it reports.
 *
 * Seeds (tests/fuzz/corpus/fuzz_fatbin/): nvcc 13 output for two kernels,
 * `__global__ void scale(float *, struct S {int; float; double; char[3]},
 * unsigned long, short)` and `__global__ void none(void)`: `nvcc -fatbin`
 * plain, with -Xfatbin=-compress-all (zstd) and with --compress-mode=speed
 * -Xfatbin=-compress-all (LZ4), and `nvcc -cubin -arch=sm_75`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/common/fatbin.h"

static const char *const names[] = {"_Z5scalePf1Sms", "_Z4nonev", "_Z1xv"};
#define NNAMES (sizeof names / sizeof names[0])

static void check_layout(int rc, const faro_kparam_t *p, unsigned max, unsigned n, size_t total)
{
    if (rc != FARO_FATBIN_OK)
        return;
    if (n > max)
        abort();
    for (unsigned i = 0; i < n; i++)
        if ((size_t)p[i].offset + p[i].size > total)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    faro_kparam_t p[8];
    unsigned n;
    size_t total;

    /* as a fatbin, registered through a wrapper */
    struct {
        uint32_t magic, version;
        const void *data, *more;
    } w = {FARO_FATBIN_WRAPPER_MAGIC, 1, data, NULL};
    const uint8_t *image;
    size_t image_size;
    if (faro_fatbin_from_wrapper(&w, size, &image, &image_size) == FARO_FATBIN_OK) {
        if (image != data || image_size > size)
            abort();
        faro_fatbin_entry_t e;
        for (unsigned k = 0; faro_fatbin_entry(image, image_size, k, &e) == FARO_FATBIN_OK; k++) {
            if (e.payload < image || e.payload_size > image_size ||
                (size_t)(e.payload - image) > image_size - e.payload_size)
                abort();
            if (e.name && ((const uint8_t *)e.name < image ||
                           (size_t)((const uint8_t *)e.name - image) + e.name_len > image_size))
                abort();
            uint8_t *out;
            size_t out_size;
            if (e.uncompressed_size <= 1 << 22 &&
                faro_fatbin_entry_inflate(&e, &out, &out_size) == FARO_FATBIN_OK) {
                if (out_size != e.uncompressed_size)
                    abort();
                free(out);
            }
        }
        for (size_t i = 0; i < NNAMES; i++) {
            unsigned max = i == 0 ? 2 : 8; /* 2: scale's 4 parameters overflow */
            int rc = faro_fatbin_params(image, image_size, names[i], p, max, &n, &total);
            check_layout(rc, p, max, n, total);
        }
    }

    /* as a cubin */
    for (size_t i = 0; i < NNAMES; i++) {
        int rc = faro_cubin_params(data, size, names[i], p, 8, &n, &total);
        check_layout(rc, p, 8, n, total);
    }
    return 0;
}
