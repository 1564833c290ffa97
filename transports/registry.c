/* The transports compiled into this library, in default preference order, and
 * the shared "not supported" stubs of transport.h. */
#include "config.h"

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
