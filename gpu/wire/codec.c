/*
 * The GPU wire codec: one table says, per op, the fixed fields of its
 * request and reply (a letter per field: I u32, i i32, Q u64), which field
 * counts a reply's pair list, and how much data each direction may carry.
 * Encoding and decoding both walk that table, so they cannot disagree.
 */
#include "config.h"

#include "gpu/wire/codec.h"

#include <stdio.h>
#include <string.h>

struct op_desc {
    const char *name;
    const char *req, *rep; /* field letters */
    int rep_count;         /* index in rep of the pair list's count; -1: none */
    size_t req_data, rep_data;
};

#define CHUNK FARO_GPU_CHUNK_MAX
static const struct op_desc ops[FARO_GPU_OP_COUNT_] = {
    [FARO_GPU_OP_HELLO] = { "HELLO", "IIII", "IIIIiI", -1, 256, 64 },
    [FARO_GPU_OP_BYE] = { "BYE", "", "", -1, 0, 0 },
    [FARO_GPU_OP_GET_DEVICE_COUNT] = { "GET_DEVICE_COUNT", "", "i", -1, 0, 0 },
    [FARO_GPU_OP_GET_DEVICE_PROPS] = { "GET_DEVICE_PROPS", "i", "QI", 1, 0,
                                       16 + FARO_GPU_DEVNAME_MAX },
    [FARO_GPU_OP_GET_DEVICE_ATTR] = { "GET_DEVICE_ATTR", "ii", "i", -1, 0, 0 },
    [FARO_GPU_OP_SET_DEVICE] = { "SET_DEVICE", "i", "", -1, 0, 0 },
    [FARO_GPU_OP_DEVICE_SYNC] = { "DEVICE_SYNC", "", "", -1, 0, 0 },
    [FARO_GPU_OP_DEVICE_RESET] = { "DEVICE_RESET", "", "", -1, 0, 0 },
    [FARO_GPU_OP_MALLOC] = { "MALLOC", "Q", "Q", -1, 0, 0 },
    [FARO_GPU_OP_FREE] = { "FREE", "Q", "", -1, 0, 0 },
    [FARO_GPU_OP_MEM_GET_INFO] = { "MEM_GET_INFO", "", "QQ", -1, 0, 0 },
    [FARO_GPU_OP_MEMCPY_H2D] = { "MEMCPY_H2D", "QQ", "", -1, CHUNK, 0 },
    [FARO_GPU_OP_MEMCPY_D2H] = { "MEMCPY_D2H", "QQQ", "Q", -1, 0, CHUNK },
    [FARO_GPU_OP_MEMCPY_D2D] = { "MEMCPY_D2D", "QQQQ", "", -1, 0, 0 },
    [FARO_GPU_OP_MEMSET] = { "MEMSET", "QQQI", "", -1, 0, 0 },
    [FARO_GPU_OP_MODULE_LOAD] = { "MODULE_LOAD", "QQQ", "Q", -1, CHUNK, 0 },
    [FARO_GPU_OP_MODULE_UNLOAD] = { "MODULE_UNLOAD", "Q", "", -1, 0, 0 },
    [FARO_GPU_OP_KERNEL_GET] = { "KERNEL_GET", "Q", "QII", 1, FARO_GPU_NAME_MAX, 0 },
    [FARO_GPU_OP_KERNEL_ATTR] = { "KERNEL_ATTR", "Qi", "i", -1, 0, 0 },
    [FARO_GPU_OP_LAUNCH] = { "LAUNCH", "QIIIIIIIIQ", "", -1, FARO_GPU_PARAM_BYTES_MAX, 0 },
    [FARO_GPU_OP_STREAM_CREATE] = { "STREAM_CREATE", "Ii", "Q", -1, 0, 0 },
    [FARO_GPU_OP_STREAM_DESTROY] = { "STREAM_DESTROY", "Q", "", -1, 0, 0 },
    [FARO_GPU_OP_STREAM_SYNC] = { "STREAM_SYNC", "Q", "", -1, 0, 0 },
    [FARO_GPU_OP_STREAM_QUERY] = { "STREAM_QUERY", "Q", "", -1, 0, 0 },
    [FARO_GPU_OP_STREAM_WAIT_EVENT] = { "STREAM_WAIT_EVENT", "QQI", "", -1, 0, 0 },
    [FARO_GPU_OP_EVENT_CREATE] = { "EVENT_CREATE", "I", "Q", -1, 0, 0 },
    [FARO_GPU_OP_EVENT_DESTROY] = { "EVENT_DESTROY", "Q", "", -1, 0, 0 },
    [FARO_GPU_OP_EVENT_RECORD] = { "EVENT_RECORD", "QQ", "", -1, 0, 0 },
    [FARO_GPU_OP_EVENT_SYNC] = { "EVENT_SYNC", "Q", "", -1, 0, 0 },
    [FARO_GPU_OP_EVENT_QUERY] = { "EVENT_QUERY", "Q", "", -1, 0, 0 },
    [FARO_GPU_OP_EVENT_ELAPSED] = { "EVENT_ELAPSED", "QQ", "I", -1, 0, 0 },
    [FARO_GPU_OP_GET_LAST_ERROR] = { "GET_LAST_ERROR", "", "", -1, 0, 0 },
    [FARO_GPU_OP_VAR_GET] = { "VAR_GET", "Q", "QQ", -1, FARO_GPU_NAME_MAX, 0 },
};

static const struct op_desc *op_desc(unsigned op)
{
    return op > 0 && op < FARO_GPU_OP_COUNT_ && ops[op].name ? &ops[op] : NULL;
}

static size_t fields_size(const char *f)
{
    size_t n = 0;
    for (; *f; f++)
        n += *f == 'Q' ? 8 : 4;
    return n;
}

void faro_gpu_hdr_encode(const struct faro_gpu_hdr *h, uint8_t out[FARO_GPU_HDR_SIZE])
{
    faro_le_put16(out, h->op);
    faro_le_put16(out + 2, h->flags);
    faro_le_put32(out + 4, h->seq);
    faro_le_put32(out + 8, (uint32_t)h->status);
    faro_le_put32(out + 12, (uint32_t)h->deferred);
    faro_le_put32(out + 16, h->args_len);
    faro_le_put32(out + 20, 0);
}

int faro_gpu_args_encode(unsigned op, int reply, const uint64_t *a, const uint32_t *pairs,
                         uint8_t *out)
{
    const struct op_desc *d = op_desc(op);
    if (!d)
        return FARO_GPU_WIRE_EOP;
    const char *f = reply ? d->rep : d->req;
    size_t off = 0;
    for (int i = 0; f[i]; i++) {
        if (f[i] == 'Q') {
            faro_le_put64(out + off, a[i]);
            off += 8;
        } else {
            faro_le_put32(out + off, (uint32_t)a[i]);
            off += 4;
        }
    }
    if (reply && d->rep_count >= 0) {
        uint64_t n = a[d->rep_count];
        if (n > FARO_GPU_TAIL_MAX || (n && !pairs))
            return FARO_GPU_WIRE_ECOUNT;
        for (uint64_t i = 0; i < 2 * n; i++, off += 4)
            faro_le_put32(out + off, pairs[i]);
    }
    return (int)off;
}

int faro_gpu_decode(const void *hdr, size_t hdrlen, const void *payload, size_t len,
                    struct faro_gpu_msg *m)
{
    const uint8_t *h = hdr, *p = payload;

    memset(m, 0, sizeof *m);
    if (hdrlen != FARO_GPU_HDR_SIZE)
        return FARO_GPU_WIRE_EHDR;
    m->h.op = faro_le_get16(h);
    m->h.flags = faro_le_get16(h + 2);
    m->h.seq = faro_le_get32(h + 4);
    m->h.status = (int32_t)faro_le_get32(h + 8);
    m->h.deferred = (int32_t)faro_le_get32(h + 12);
    m->h.args_len = faro_le_get32(h + 16);
    const struct op_desc *d = op_desc(m->h.op);
    if (!d)
        return FARO_GPU_WIRE_EOP;
    if (m->h.args_len > len)
        return FARO_GPU_WIRE_EARGS;
    int reply = (m->h.flags & FARO_GPU_F_RESPONSE) != 0;
    const char *f = reply ? d->rep : d->req;
    size_t need = fields_size(f);
    m->data = p + m->h.args_len;
    m->data_len = len - m->h.args_len;
    if (m->data_len > (reply ? d->rep_data : d->req_data))
        return FARO_GPU_WIRE_EDATA;
    if (reply && m->h.status != 0 && m->h.args_len == 0)
        return FARO_GPU_WIRE_OK; /* a failed reply may carry no fields */
    if (m->h.args_len < need)
        return FARO_GPU_WIRE_EARGS;
    size_t off = 0;
    for (int i = 0; f[i]; i++) {
        if (f[i] == 'Q') {
            m->a[i] = faro_le_get64(p + off);
            off += 8;
        } else {
            uint32_t v = faro_le_get32(p + off);
            m->a[i] = f[i] == 'i' ? (uint64_t)(int64_t)(int32_t)v : v;
            off += 4;
        }
    }
    if (reply && d->rep_count >= 0) {
        uint64_t n = m->a[d->rep_count];
        if (n > FARO_GPU_TAIL_MAX || n * 8 > m->h.args_len - off)
            return FARO_GPU_WIRE_ECOUNT;
        m->tail = p + off;
        m->ntail = (uint32_t)n;
    }
    return FARO_GPU_WIRE_OK;
}

const char *faro_gpu_op_name(unsigned op, char *buf, size_t len)
{
    const struct op_desc *d = op_desc(op);
    if (d)
        return d->name;
    snprintf(buf, len, "op %u", op);
    return buf;
}

size_t faro_gpu_data_max(unsigned op, int reply)
{
    const struct op_desc *d = op_desc(op);
    return !d ? 0 : reply ? d->rep_data : d->req_data;
}

const char *faro_gpu_wire_why(int rc)
{
    switch (rc) {
    case FARO_GPU_WIRE_OK:
        return "well formed";
    case FARO_GPU_WIRE_EHDR:
        return "the header is not 24 bytes";
    case FARO_GPU_WIRE_EOP:
        return "unknown op";
    case FARO_GPU_WIRE_EARGS:
        return "args longer than the payload or shorter than the op's fields";
    case FARO_GPU_WIRE_ECOUNT:
        return "a list's count is beyond its limit or its args";
    case FARO_GPU_WIRE_EDATA:
        return "more data than the op allows";
    }
    return "unknown codec error";
}
