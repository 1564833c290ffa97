/*
 * Encoding and decoding of the GPU wire protocol (protocol.h has the layouts).
 *
 * Who uses it: the channel (channel.c) decodes every message it delivers, so
 * the server's dispatch and the client see only messages whose shape holds;
 * senders encode a header and an op's fixed fields here. The codec never
 * trusts its input: every length and count is checked against the bytes
 * present, and a message that does not hold gives a negative FARO_GPU_WIRE_E*
 * code (faro_gpu_wire_why says which rule it broke), never a read out of
 * bounds. It keeps no state and allocates nothing: a decoded message points
 * into the caller's buffers (data, the tail list) and is valid while they
 * are.
 *
 * Fields: each op's fixed args are a list of u32, i32 and u64 values in the
 * order protocol.h gives; the codec moves them between that byte layout and
 * an array of uint64_t (an i32 is kept sign-extended: cast it back with
 * (int32_t)). Two replies end their args with a list of pairs of 32-bit
 * values whose count is one of their fields (GET_DEVICE_PROPS: attribute and
 * value; KERNEL_GET: offset and size); the decoded message points at it as
 * `tail` and faro_gpu_tail_pair reads item i.
 */
#ifndef FARO_GPU_CODEC_H
#define FARO_GPU_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/le.h"
#include "gpu/wire/protocol.h"

#define FARO_GPU_ARGS_MAX 12      /* fixed fields of one op, at most */
#define FARO_GPU_FIXED_BYTES 64   /* their bytes, at most */
#define FARO_GPU_TAIL_MAX FARO_GPU_PARAMS_MAX  /* items of a tail list, at most */
#define FARO_GPU_ARGS_BYTES (FARO_GPU_FIXED_BYTES + 8 * FARO_GPU_TAIL_MAX)

enum faro_gpu_wire_rc {
    FARO_GPU_WIRE_OK = 0,
    FARO_GPU_WIRE_EHDR = -1,   /* the header is not FARO_GPU_HDR_SIZE bytes */
    FARO_GPU_WIRE_EOP = -2,    /* unknown op */
    FARO_GPU_WIRE_EARGS = -3,  /* args_len beyond the payload, or shorter than the op's fields */
    FARO_GPU_WIRE_ECOUNT = -4, /* a list's count beyond its limit or the args */
    FARO_GPU_WIRE_EDATA = -5,  /* more data than the op allows */
};

struct faro_gpu_hdr {
    uint16_t op, flags;       /* FARO_GPU_OP_*, FARO_GPU_F_* */
    uint32_t seq;
    int32_t status, deferred; /* replies: cudaError_t numbers */
    uint32_t args_len;
};

/* A decoded message. Pointers are into the buffers given to faro_gpu_decode. */
struct faro_gpu_msg {
    struct faro_gpu_hdr h;
    uint64_t a[FARO_GPU_ARGS_MAX]; /* the op's fixed fields, in order; 0 when absent */
    const uint8_t *tail;           /* the pair list (see above), or NULL */
    uint32_t ntail;
    const uint8_t *data;           /* the bulk bytes after args */
    size_t data_len;
};

/* The header's 24 bytes. */
void faro_gpu_hdr_encode(const struct faro_gpu_hdr *h, uint8_t out[FARO_GPU_HDR_SIZE]);

/* The args of op (a reply's when reply is nonzero) from the field values a[]
 * and, for an op with a pair list, the pairs (count: the count field's value
 * in a[], at most FARO_GPU_TAIL_MAX; pairs may be NULL when it is 0), into
 * out (FARO_GPU_ARGS_BYTES at most). Returns the bytes written, or a negative
 * code (unknown op, count too large). */
int faro_gpu_args_encode(unsigned op, int reply, const uint64_t *a, const uint32_t *pairs,
                         uint8_t *out);

/* Checks and decodes one message: the transport header and payload as they
 * arrived. FARO_GPU_WIRE_OK with *m filled, or a negative code. */
int faro_gpu_decode(const void *hdr, size_t hdrlen, const void *payload, size_t len,
                    struct faro_gpu_msg *m);

/* Item i (< m->ntail) of the pair list. */
static inline void faro_gpu_tail_pair(const struct faro_gpu_msg *m, uint32_t i, uint32_t *x,
                                      uint32_t *y)
{
    *x = faro_le_get32(m->tail + 8 * (size_t)i);
    *y = faro_le_get32(m->tail + 8 * (size_t)i + 4);
}

/* "MEMCPY_H2D", or "op 77" (buf) for an unknown one. */
const char *faro_gpu_op_name(unsigned op, char *buf, size_t len);
/* One line saying which rule a negative code stands for. */
const char *faro_gpu_wire_why(int rc);
/* Most data bytes op allows (a reply's when reply is nonzero); 0: none. */
size_t faro_gpu_data_max(unsigned op, int reply);

#endif
