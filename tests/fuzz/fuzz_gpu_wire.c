/*
 * libFuzzer harness: the GPU wire codec (gpu/wire/codec.c), which decodes
 * every message a GPU client or faro-gpud receives after the transport
 * authenticated its sender. The input's first 24 bytes are the header, the
 * rest the payload (placed at the end of its own allocation, so a read past
 * it is caught). Whatever decodes must point inside the payload, and its
 * fields, encoded again, must decode to the same message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/wire/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < FARO_GPU_HDR_SIZE)
        return 0;
    size_t len = size - FARO_GPU_HDR_SIZE;
    uint8_t *payload = malloc(len ? len : 1);
    if (!payload)
        return 0;
    memcpy(payload, data + FARO_GPU_HDR_SIZE, len);
    struct faro_gpu_msg m, m2;
    char nb[32];
    (void)faro_gpu_op_name(m.h.op = (uint16_t)(data[0] | data[1] << 8), nb, sizeof nb);
    int rc = faro_gpu_decode(data, FARO_GPU_HDR_SIZE, payload, len, &m);
    (void)faro_gpu_wire_why(rc);
    if (rc == FARO_GPU_WIRE_OK) {
        int reply = (m.h.flags & FARO_GPU_F_RESPONSE) != 0;
        if (m.data < payload || m.data + m.data_len != payload + len ||
            m.data_len > faro_gpu_data_max(m.h.op, reply))
            abort();
        if (m.tail && (m.tail < payload || m.tail + 8 * (size_t)m.ntail > m.data))
            abort();
        /* a failed reply without fields has nothing to encode again */
        if (!(reply && m.h.status && m.h.args_len == 0)) {
            uint32_t pairs[2 * FARO_GPU_TAIL_MAX];
            for (uint32_t i = 0; i < m.ntail; i++)
                faro_gpu_tail_pair(&m, i, &pairs[2 * i], &pairs[2 * i + 1]);
            uint8_t args[FARO_GPU_ARGS_BYTES], hdr[FARO_GPU_HDR_SIZE];
            int alen = faro_gpu_args_encode(m.h.op, reply, m.a, pairs, args);
            if (alen < 0)
                abort();
            struct faro_gpu_hdr h = m.h;
            h.args_len = (uint32_t)alen;
            faro_gpu_hdr_encode(&h, hdr);
            if (faro_gpu_decode(hdr, sizeof hdr, args, (size_t)alen, &m2) != FARO_GPU_WIRE_OK ||
                memcmp(m2.a, m.a, sizeof m.a) != 0 || m2.ntail != m.ntail ||
                m2.h.seq != m.h.seq || m2.h.status != m.h.status)
                abort();
        }
    }
    free(payload);
    return 0;
}
