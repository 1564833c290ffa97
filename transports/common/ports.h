/*
 * Port keys, shared by the transports with ports (tcp, ofi): the keys that
 * listen() opened, and the checks of a key a connector presents.
 *
 * A transport keeps one faro_tp_ports in its instance. listen takes a slot
 * (port numbers 1..FARO_TP_PORTS_MAX; 0 is the job key's), unlisten frees it,
 * and a hello's key is matched against the open ones in constant time, so
 * that how long a refusal takes does not tell how much of a key was right.
 * Endpoints a port accepted stay when it closes (transport.h).
 */
#ifndef FARO_TP_PORTS_H
#define FARO_TP_PORTS_H

#include <stddef.h>
#include <stdint.h>

#include "transport.h"

#define FARO_TP_PORTS_MAX 16 /* listen() keys open at once, per transport instance */

#pragma GCC visibility push(hidden)

struct faro_tp_ports {
    struct {
        int open;
        size_t keylen;
        uint8_t key[FARO_TP_MAX_KEY];
    } slot[FARO_TP_PORTS_MAX + 1]; /* [0] unused: port 0 is the job key */
};

/* listen: FARO_TP_OK with *port, or FARO_TP_ERR with a message naming tpname. */
int faro_tp_ports_open(struct faro_tp_ports *ps, const char *tpname, const uint8_t *key,
                       size_t keylen, unsigned *port);
/* unlisten: FARO_TP_OK, or FARO_TP_ERR for a port that is not open. */
int faro_tp_ports_close(struct faro_tp_ports *ps, unsigned port);
/* The open port whose key is key, or 0. */
unsigned faro_tp_ports_match(const struct faro_tp_ports *ps, const uint8_t *key, size_t keylen);
/* 1 when the two keys are equal; the time taken depends on the lengths only. */
int faro_tp_key_equal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

#pragma GCC visibility pop

#endif
