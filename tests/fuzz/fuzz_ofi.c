/*
 * libFuzzer harness: what the ofi transport decodes from the messages its
 * completion queue delivers (ofi_deliver: the wire header, job hellos and
 * their key check, port hellos and verdicts, goodbyes, messages to the
 * owner's handlers). A hostile peer reaches exactly these bytes: the provider
 * only frames them. One transport (rank 0 of a job of 4, libfabric's tcp
 * provider on loopback) serves every input: opening and closing one takes
 * about half a second (the goodbyes' drain), so a finding may depend on the
 * inputs before it (run the crash input after the corpus to reproduce).
 *
 * The input's first byte is the setup: bit 0, a valid hello of rank 1 comes
 * first (its later messages reach the handlers); bit 1, a port is open; bit
 * 2, each message's tag field is overwritten with the job's (so the fuzzer
 * need not guess it). The rest is messages, each a 2-byte length (little
 * endian, at most OFI_MAX_MSG) and its bytes.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofi/ofi.h"
#include "fuzz_tp.h"

extern const faro_tp_ops_t faro_tp_ofi_ops;

static void ep_lost(void *core, void *ctx, int orderly, const char *why)
{
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    setenv("FARO_OFI_PROVIDER", "tcp;ofi_rxm", 0);
    setenv("FI_TCP_IFACE", "lo", 0);
    return 0;
}

/* A hello of `rank` as ofi_conn.c sends one, carrying this transport's own
 * address blob with the rank changed (the address vector takes it). */
static size_t hello(faro_tp_t *tp, int rank, uint8_t *msg, size_t cap)
{
    struct ofi_addr a;
    size_t alen = sizeof a;
    if (faro_tp_ofi_ops.addr_get(tp, &a, &alen) != FARO_TP_OK)
        return 0;
    a.rank = rank;
    struct ofi_wire w = {.kind = OFI_KIND_HELLO, .src = rank, .tag = tp->tag};
    struct ofi_hello h = {.magic = OFI_MAGIC, .keylen = sizeof job_key,
                          .addrlen = (uint16_t)alen};
    size_t len = sizeof w + sizeof h + sizeof job_key + alen;
    if (len > cap)
        return 0;
    memcpy(msg, &w, sizeof w);
    memcpy(msg + sizeof w, &h, sizeof h);
    memcpy(msg + sizeof w + sizeof h, job_key, sizeof job_key);
    memcpy(msg + sizeof w + sizeof h + sizeof job_key, &a, alen);
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int setup = data[0];
    data++;
    size--;

    static faro_tp_env_t env = FUZZ_TP_ENV(env, ep_lost);
    const faro_tp_ops_t *ops = &faro_tp_ofi_ops;
    static faro_tp_t *tp;
    if (!tp) {
        faro_tp_attr_t attr;
        char why[256];
        if (ops->init(&tp, &env, &attr, why, sizeof why) != FARO_TP_OK)
            abort(); /* no usable provider: the harness cannot run */
        for (unsigned k = 0; k < FARO_TP_MAX_KINDS; k++)
            ops->set_handler(tp, k, handler);
    }
    static uint8_t msg[OFI_MAX_MSG];
    if (setup & 1) {
        size_t n = hello(tp, 1, msg, sizeof msg);
        if (n)
            ofi_deliver(tp, msg, n);
    }
    static unsigned port;
    if ((setup & 2) && !port)
        ops->listen(tp, port_key, sizeof port_key, &port);

    while (size >= 2) {
        size_t n = (size_t)(data[0] | data[1] << 8);
        data += 2;
        size -= 2;
        if (n > size)
            n = size;
        if (n > OFI_MAX_MSG)
            n = OFI_MAX_MSG;
        memcpy(msg, data, n);
        if ((setup & 4) && n >= offsetof(struct ofi_wire, tag) + sizeof tp->tag)
            memcpy(msg + offsetof(struct ofi_wire, tag), &tp->tag, sizeof tp->tag);
        ofi_deliver(tp, msg, n);
        data += n;
        size -= n;
    }
    for (int i = 0; i < 4; i++)
        ops->progress(tp);
    return 0;
}
