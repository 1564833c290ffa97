/*
 * libFuzzer harness: the PMI-2 wire codec (base/pmi2_wire.c), which reads
 * what srun's step daemon or Hydra (or anything that reaches PMI_FD) writes.
 * The input is used three ways:
 *  - its first 6 bytes as a length field, the rest as one message body;
 *  - every decoded pair formatted again as a message and read back through
 *    the header and body parsers must come back byte for byte (the ';;'
 *    escaping round trip);
 *  - as a byte stream through faro_pmi2_read (a pipe), message by message.
 * Anything but a clean answer or a clean error is a finding.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "base/pmi2_wire.h"
#include "fuzz_pipe.h"

static void round_trip(const char *key, const char *val)
{
    char buf[FARO_PMI_LINE_MAX], err[256];
    struct faro_pmi_msg m;
    size_t len;
    int n = faro_pmi2_format(buf, sizeof buf, "x", key, val, (char *)NULL);
    if (n < 0)
        return; /* a refused key or an over-long value: a clean error */
    if (faro_pmi2_header(buf, &len, err, sizeof err) ||
        len != (size_t)n - FARO_PMI2_HDR_LEN ||
        faro_pmi2_parse(buf + FARO_PMI2_HDR_LEN, len, &m, err, sizeof err))
        abort(); /* we formatted it: it must parse */
    if (m.npairs != 2 || strcmp(m.pair[1].key, key) || strcmp(m.pair[1].val, val))
        abort(); /* the pair changed on the way */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    struct faro_pmi_msg m;
    size_t len;
    if (size >= FARO_PMI2_HDR_LEN)
        (void)faro_pmi2_header((const char *)data, &len, err, sizeof err);
    if (size > FARO_PMI2_HDR_LEN &&
        faro_pmi2_parse((const char *)data + FARO_PMI2_HDR_LEN, size - FARO_PMI2_HDR_LEN, &m,
                        err, sizeof err) == 0) {
        int v;
        (void)faro_pmi_msg_cmd(&m);
        (void)faro_pmi_msg_int(&m, "rc", &v);
        for (int i = 0; i < m.npairs; i++)
            round_trip(m.pair[i].key, m.pair[i].val);
    }

    /* the reader, over a pipe that holds the whole input */
    int fd = fuzz_pipe(data, size);
    if (fd < 0)
        return 0;
    while (faro_pmi2_read(fd, &m, err, sizeof err) == 0)
        (void)faro_pmi_msg_get(&m, "value");
    close(fd);
    return 0;
}
