/*
 * libFuzzer harness: the collective tuning-file parser (coll/select.c,
 * FARO_COLL_TUNING_FILE), whose input is a file a user writes. The input is
 * the file's text, read through a memory stream; a parse ends with a count
 * of rules or a message naming the line.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    char err[1024];
    err[0] = 0;
    if (faro_coll_tuning_parse(f, "fuzz", err, sizeof err) < 0 && !err[0])
        __builtin_trap(); /* an error must say what was wrong */
    fclose(f);
    return 0;
}
