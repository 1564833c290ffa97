/* The transports compiled into this library, in default preference order. */
#include "transport.h"

extern const faro_tp_ops_t faro_tp_self_ops;
extern const faro_tp_ops_t faro_tp_shm_ops;
extern const faro_tp_ops_t faro_tp_tcp_ops;

const faro_tp_ops_t *const faro_transports[] = {
    &faro_tp_self_ops,
    &faro_tp_shm_ops,
    &faro_tp_tcp_ops,
    NULL,
};

int faro_tp_unsupported_listen(faro_tp_t *tp) { return FARO_TP_UNSUPPORTED; }
int faro_tp_unsupported_accept(faro_tp_t *tp, int *peer) { return FARO_TP_UNSUPPORTED; }
int faro_tp_unsupported_mem_reg(faro_tp_t *tp, void *buf, size_t len, void *rkey, void **handle)
{
    return FARO_TP_UNSUPPORTED;
}
int faro_tp_unsupported_mem_dereg(faro_tp_t *tp, void *handle) { return FARO_TP_UNSUPPORTED; }
int faro_tp_unsupported_put(faro_tp_t *tp, int peer, const void *local, size_t len,
                            const void *rkey, uint64_t raddr, faro_tp_done_fn done, void *arg)
{
    return FARO_TP_UNSUPPORTED;
}
int faro_tp_unsupported_get(faro_tp_t *tp, int peer, const struct iovec *local, int iovcnt,
                            const void *rkey, uint64_t raddr, faro_tp_done_fn done, void *arg)
{
    return FARO_TP_UNSUPPORTED;
}
