/*
 * libFuzzer harness: the tunables' value parser (base/tunables.c:
 * faro_tun_parse), which reads every FARO_* variable a user sets. The
 * first byte picks the tunable (so each type is reached: integers, sizes
 * with suffixes, booleans, choices, strings), the rest is the text. A value
 * accepted must lie in the tunable's range.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/tunables.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    enum faro_tun_id id = (enum faro_tun_id)(data[0] % FARO_TUN_COUNT);
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    char err[512];
    long long v;
    if (faro_tun_parse(id, text, &v, err, sizeof err) == 0) {
        const struct faro_tunable_desc *d = &faro_tunable_table[id];
        if ((d->type == FARO_TUN_TYPE_INT || d->type == FARO_TUN_TYPE_SIZE) &&
            (v < d->min || v > d->max))
            abort(); /* accepted outside its range */
        if (d->type == FARO_TUN_TYPE_BOOL && v != 0 && v != 1)
            abort();
    }
    free(text);
    return 0;
}
