/*
 * libFuzzer harness: the PMI-1 wire codec (base/pmi_wire.c), which parses
 * what the process manager, or anything that reaches PMI_FD, writes. The
 * input is used three ways:
 *  - as one line for faro_pmi_parse, then every lookup a client makes;
 *  - every decoded value, formatted again and parsed back, must come back
 *    byte for byte (the escaping round trip);
 *  - as a byte stream through the line reader (a pipe), line by line.
 * Anything but a clean answer or a clean error (a crash, a sanitizer report,
 * an abort from a failed round trip) is a finding.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "base/pmi_wire.h"
#include "fuzz_pipe.h"

static void round_trip(const char *key, const char *val)
{
    char line[FARO_PMI_LINE_MAX], err[256];
    struct faro_pmi_msg m;
    int n = faro_pmi_format(line, sizeof line, "x", key, val, (char *)NULL);
    if (n < 0)
        return; /* a refused key or an over-long value: a clean error */
    if (faro_pmi_parse(line, (size_t)n, &m, err, sizeof err))
        abort(); /* we formatted it: it must parse */
    if (m.npairs != 2 || strcmp(m.pair[1].key, key) || strcmp(m.pair[1].val, val))
        abort(); /* the pair changed on the way */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    struct faro_pmi_msg m;
    if (faro_pmi_parse((const char *)data, size, &m, err, sizeof err) == 0) {
        int v;
        (void)faro_pmi_msg_cmd(&m);
        (void)faro_pmi_msg_int(&m, "rc", &v);
        (void)faro_pmi_msg_get(&m, "value");
        for (int i = 0; i < m.npairs; i++)
            round_trip(m.pair[i].key, m.pair[i].val);
    }

    /* the reader, over a pipe that holds the whole input */
    int fd = fuzz_pipe(data, size);
    if (fd < 0)
        return 0;
    struct faro_pmi_reader r;
    faro_pmi_reader_init(&r, fd);
    char *line;
    size_t len;
    while (faro_pmi_reader_next(&r, &line, &len, err, sizeof err) == FARO_PMI_READ_LINE)
        if (faro_pmi_parse(line, len, &m, err, sizeof err) == 0)
            (void)faro_pmi_msg_get(&m, "kvsname");
    close(fd);
    return 0;
}
