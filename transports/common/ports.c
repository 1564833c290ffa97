/*
 * Port keys shared by the transports with ports (ports.h).
 */
#include "config.h"

#include "common/ports.h"

#include <string.h>

#include "base/log.h"

int faro_tp_key_equal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    unsigned diff = alen != blen;
    for (size_t i = 0; i < alen && i < blen; i++)
        diff |= a[i] ^ b[i];
    return diff == 0;
}

int faro_tp_ports_open(struct faro_tp_ports *ps, const char *tpname, const uint8_t *key,
                       size_t keylen, unsigned *port)
{
    if (!key || keylen == 0 || keylen > FARO_TP_MAX_KEY) {
        faro_error("%s: listen: a key of %zu bytes (allowed: 1..%d)", tpname, keylen,
                   FARO_TP_MAX_KEY);
        return FARO_TP_ERR;
    }
    for (unsigned i = 1; i <= FARO_TP_PORTS_MAX; i++) {
        if (ps->slot[i].open)
            continue;
        ps->slot[i].open = 1;
        memcpy(ps->slot[i].key, key, keylen);
        ps->slot[i].keylen = keylen;
        *port = i;
        return FARO_TP_OK;
    }
    faro_error("%s: listen: %d ports are open already (close one first)", tpname,
               FARO_TP_PORTS_MAX);
    return FARO_TP_ERR;
}

int faro_tp_ports_close(struct faro_tp_ports *ps, unsigned port)
{
    if (port == 0 || port > FARO_TP_PORTS_MAX || !ps->slot[port].open)
        return FARO_TP_ERR;
    memset(&ps->slot[port], 0, sizeof ps->slot[port]);
    return FARO_TP_OK;
}

unsigned faro_tp_ports_match(const struct faro_tp_ports *ps, const uint8_t *key, size_t keylen)
{
    unsigned port = 0;
    for (unsigned i = 1; i <= FARO_TP_PORTS_MAX; i++) /* every slot: constant time */
        if (faro_tp_key_equal(key, keylen, ps->slot[i].key, ps->slot[i].keylen) &&
            ps->slot[i].open && !port)
            port = i;
    return port;
}
