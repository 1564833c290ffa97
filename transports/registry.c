/* The transports compiled into this library, in default preference order,
 * the parsing of a list of their names, and the shared "not supported" stubs
 * of transport.h. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "transport.h"

extern const faro_tp_ops_t faro_tp_self_ops;
extern const faro_tp_ops_t faro_tp_shm_ops;
extern const faro_tp_ops_t faro_tp_tcp_ops;
#ifdef FARO_HAVE_OFI
extern const faro_tp_ops_t faro_tp_ofi_ops;
#endif
#ifdef FARO_HAVE_VERBS
extern const faro_tp_ops_t faro_tp_verbs_ops;
#endif

const faro_tp_ops_t *const faro_transports[] = {
    &faro_tp_self_ops,
    &faro_tp_shm_ops,
    &faro_tp_tcp_ops,
#ifdef FARO_HAVE_OFI
    &faro_tp_ofi_ops,
#endif
#ifdef FARO_HAVE_VERBS
    &faro_tp_verbs_ops,
#endif
    NULL,
};

/* The next name of a list: its start (NULL at the end) and length in *len. */
static const char *next_name(const char *p, size_t *len)
{
    while (*p == ',' || isspace((unsigned char)*p))
        p++;
    const char *e = p;
    while (*e && *e != ',' && !isspace((unsigned char)*e))
        e++;
    *len = (size_t)(e - p);
    return *len ? p : NULL;
}

int faro_tp_list_pos(const char *list, const char *name)
{
    size_t n = strlen(name), len;
    int pos = 0;
    for (const char *p = list; (p = next_name(p, &len)); p += len, pos++)
        if (len == n && !strncmp(p, name, n))
            return pos;
    return -1;
}

int faro_tp_list_check(const char *list, char *err, size_t errlen)
{
    size_t len;
    for (const char *p = list; (p = next_name(p, &len)); p += len) {
        int found = 0;
        for (int i = 0; faro_transports[i]; i++)
            found |= strlen(faro_transports[i]->name) == len &&
                     !strncmp(faro_transports[i]->name, p, len);
        if (found)
            continue;
        char known[256] = "";
        for (int i = 0; faro_transports[i]; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     faro_transports[i]->name);
        snprintf(err, errlen, "FARO_TRANSPORTS=%s: unknown transport '%.*s' (built in: %s)",
                 list, (int)len, p, known);
        return -1;
    }
    return 0;
}

int faro_tp_unsupported_listen(faro_tp_t *tp, const uint8_t *key, size_t keylen, unsigned *port)
{
    return FARO_TP_UNSUPPORTED;
}

int faro_tp_unsupported_unlisten(faro_tp_t *tp, unsigned port) { return FARO_TP_UNSUPPORTED; }

int faro_tp_unsupported_mem_reg(faro_tp_t *tp, void *buf, size_t len, unsigned flags,
                                faro_tp_mem_t **mem)
{
    return FARO_TP_UNSUPPORTED;
}

int faro_tp_unsupported_mem_dereg(faro_tp_t *tp, faro_tp_mem_t *mem)
{
    return FARO_TP_UNSUPPORTED;
}

int faro_tp_unsupported_rkey_pack(faro_tp_t *tp, const faro_tp_mem_t *mem, void *buf,
                                  size_t *len)
{
    return FARO_TP_UNSUPPORTED;
}

int faro_tp_unsupported_rkey_unpack(faro_tp_t *tp, faro_tp_ep_t *ep, const void *buf,
                                    size_t len, faro_tp_rkey_t **rkey)
{
    return FARO_TP_UNSUPPORTED;
}

int faro_tp_unsupported_rkey_release(faro_tp_t *tp, faro_tp_rkey_t *rkey)
{
    return FARO_TP_UNSUPPORTED;
}

int faro_tp_unsupported_get(faro_tp_t *tp, faro_tp_ep_t *ep, const struct iovec *local,
                            int iovcnt, faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey,
                            uint64_t raddr, faro_tp_done_fn done, void *arg)
{
    return FARO_TP_UNSUPPORTED;
}

int faro_tp_unsupported_put(faro_tp_t *tp, faro_tp_ep_t *ep, const struct iovec *local,
                            int iovcnt, faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey,
                            uint64_t raddr, faro_tp_done_fn done, void *arg)
{
    return FARO_TP_UNSUPPORTED;
}

int faro_tp_unsupported_wait_fd(faro_tp_t *tp, int *fd) { return FARO_TP_UNSUPPORTED; }
