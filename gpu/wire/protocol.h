/*
 * The GPU offload wire protocol, version 1: what a GPU client (gpu/client/,
 * tests) and faro-gpud (gpu/server/) say to each other. This header is the
 * contract; gpu/wire/codec.{h,c} encodes and decodes it and
 * gpu/wire/channel.{h,c} carries it over Faro's transports (libfaro_tp).
 *
 * Transport and authentication
 * ----------------------------
 * faro-gpud listens on a port of the tcp transport (transport.h: listen(key))
 * with the server's key; a client connects to it with the same key
 * (FARO_GPU_KEY_FILE or FARO_GPU_KEY). The key is checked by the transport's
 * port authentication, before any byte of this protocol reaches the server:
 * a client without the key never gets a session and never reaches a backend.
 * What the key proves on each transport is written in its man page (tcp: the
 * key travels in clear on the connection; use a private network or a tunnel).
 *
 * Framing
 * -------
 * Every message is one transport message of kind FARO_GPU_TP_KIND:
 *
 *   transport header (FARO_GPU_HDR_SIZE = 24 bytes)   the message header
 *   transport payload: args (hdr.args_len bytes)       the op's fixed fields
 *                      then data (the rest)            bulk bytes: copies, images,
 *                                                      names, packed parameters
 *
 * Byte order: every integer on the wire is little-endian, at the offsets
 * given below, whatever the hosts are. The codec reads and writes them byte by
 * byte (faro_le_put32, ... of base/le.h); a struct is never memcpy'd to or from the
 * wire. Signed values are two's complement; a float is its IEEE-754 binary32
 * bit pattern as a u32. A string in data is its bytes without a NUL;
 * its length is the data length. A handle (device pointer, module, kernel,
 * stream, event) is an opaque u64 the server gave; the client never
 * dereferences it (device pointers are compared and offset by the client: a
 * pointer inside an allocation is base + offset, and the server accepts it).
 * Stream handle 0 is the device's default (legacy) stream. The values 1 and
 * 2 are CUDA's cudaStreamLegacy and cudaStreamPerThread: the client maps
 * them to 0 before they reach the wire, and a server never hands them out
 * as a created stream's handle (both backends make handles kind << 56 | n,
 * n >= 1), so a client can never confuse a created stream with them.
 *
 * Header (24 bytes):
 *   off  0  u16 op        FARO_GPU_OP_*
 *   off  2  u16 flags     FARO_GPU_F_*
 *   off  4  u32 seq       chosen by the requester; a reply echoes it
 *   off  8  i32 status    replies: the op's result as a cudaError_t number
 *                         (CUDA 13 runtime numbering; 0 = cudaSuccess); 0 in requests
 *   off 12  i32 deferred  replies: the first error of a one-way message of
 *                         this session not yet reported (0 if none); the
 *                         server clears it once sent (see Errors)
 *   off 16  u32 args_len  bytes of args at the start of the payload
 *   off 20  u32 reserved  0; a receiver ignores it
 *
 * A decoder checks: the header is exactly 24 bytes, op is known, args_len <=
 * payload length, args_len >= the op's fixed args size (below; longer args
 * are accepted and the extra bytes ignored, so a later minor version can add
 * fields at the end), and every count or length inside args against the bytes
 * present. A reply whose status is not 0 may carry no args (its fields read
 * as 0). A malformed message is refused with FARO_GPU_EPROTO: the server
 * drops that session (never crashes, never calls a backend with it); the
 * client treats the server as lost.
 *
 * Requests, replies and one-way messages
 * --------------------------------------
 * A request with FARO_GPU_F_REPLY wants exactly one reply (same op, flag
 * FARO_GPU_F_RESPONSE, same seq) except MEMCPY_D2H, whose reply is a series
 * (below). Messages without FARO_GPU_F_REPLY are one-way: LAUNCH, MEMSET,
 * EVENT_RECORD, STREAM_WAIT_EVENT, the non-final chunks of MEMCPY_H2D and
 * MODULE_LOAD, FREE and the destroys may be sent so (the client decides); the
 * server answers nothing and keeps a failure as the session's deferred
 * error. Per session the server executes messages in arrival order, and the
 * transport keeps their order (transport.h), so a one-way launch followed by
 * a synchronous D2H copy reads the launch's results.
 *
 * Errors
 * ------
 * status: the result of this request. deferred: the first failure of an
 * earlier one-way message (cudaGetLastError's and the next synchronizing
 * call's business on the client, as CUDA reports asynchronous errors). An
 * error that leaves the device context unusable (a kernel fault: CUDA's
 * "sticky" errors) is kept by the server: every later request of the session
 * fails with it, as CUDA does, until DEVICE_RESET. GET_LAST_ERROR asks for the
 * deferred error without doing anything else.
 *
 * Version and HELLO
 * -----------------
 * The first message of a session is HELLO (request, F_REPLY); anything else
 * first drops the session. HELLO carries FARO_GPU_PROTO_VERSION; the server
 * answers with its own and status cudaErrorInsufficientDriver (35) when the
 * major versions differ (the client says so: "faro-gpud speaks GPU protocol
 * N, this client M") and then drops the session. Version = major * 100 + minor;
 * minors add only optional trailing fields.
 *
 * Copies and chunks
 * -----------------
 * Copies move in chunks of at most the session's chunk size: the client asks
 * for FARO_GPU_CHUNK (a size; default FARO_GPU_CHUNK_DEFAULT) in HELLO, the
 * server answers the size it takes (<= its own limit and the transport's
 * max_send). MEMCPY_H2D: the client sends chunks back to back, each with its
 * destination address and bytes; the last has F_LAST, and F_REPLY when the
 * copy is synchronous. MEMCPY_D2H: one request; the server answers with
 * data messages (op MEMCPY_D2H, F_RESPONSE, same seq), each chunk's offset in
 * args, the last with F_LAST and the status. A failing D2H sends one F_LAST
 * reply with the error and no data (possibly after chunks already sent).
 * The server pipelines a series: it reads the next chunk from the device
 * while up to HELLO's depth earlier ones travel, and never waits for one
 * client's sends (a client that stops reading is dropped after the server's
 * send timeout, the others go on meanwhile). A client sends nothing else on
 * the session until the F_LAST reply came (if it does, the server finishes
 * the series first). MODULE_LOAD chunks an image likewise.
 *
 * Ops, args (offsets in bytes) and data
 * -------------------------------------
 *  HELLO            req  0 u32 proto_version, 4 u32 client_runtime_version
 *                        (CUDA numbering: 13000), 8 u32 chunk (wanted),
 *                        12 u32 depth (MEMCPY_D2H chunks the server may have
 *                        in flight at once, 1..16; 0, what clients before it
 *                        send, takes the server's default, 4); data: client
 *                        name (for logs)
 *                   rep  0 u32 proto_version, 4 u32 driver_version (the GPU
 *                        driver's, cuDriverGetVersion; the host backend says
 *                        13000), 8 u32 server_runtime_version, 12 u32 chunk
 *                        (granted), 16 i32 device_count, 20 u32 session id;
 *                        data: backend name ("cuda", "host")
 *  GET_DEVICE_COUNT req  -;  rep 0 i32 count
 *  GET_DEVICE_PROPS req  0 i32 device;
 *                   rep  0 u64 total_mem, 8 u32 nattr,
 *                        12 nattr x {u32 attribute, i32 value}
 *                        (attributes numbered as CU_DEVICE_ATTRIBUTE_*,
 *                        which cudaDevAttr* equal; the client fills
 *                        cudaDeviceProp from them); data: u8 uuid[16],
 *                        then the device's name (at most 255 bytes)
 *  GET_DEVICE_ATTR  req  0 i32 attribute, 4 i32 device;  rep 0 i32 value
 *  SET_DEVICE       req  0 i32 device (the session's current device for
 *                        the ops below)
 *  DEVICE_SYNC      req  -  (waits for all the session's work on the device)
 *  DEVICE_RESET     req  -  (frees the session's memory, modules, streams and
 *                        events on the device; clears a sticky error)
 *  MALLOC           req  0 u64 size;  rep 0 u64 dptr
 *  FREE             req  0 u64 dptr
 *  MEM_GET_INFO     req  -;  rep 0 u64 free, 8 u64 total
 *  MEMCPY_H2D       req  0 u64 dst (this chunk's), 8 u64 stream;
 *                        data: the chunk's bytes
 *  MEMCPY_D2H       req  0 u64 src, 8 u64 size, 16 u64 stream
 *                   rep  (series) 0 u64 offset; data: bytes [offset, +len)
 *  MEMCPY_D2D       req  0 u64 dst, 8 u64 src, 16 u64 size, 24 u64 stream
 *  MEMSET           req  0 u64 dst, 8 u64 size, 16 u64 stream, 24 u32 value
 *                        (the byte value in the low 8 bits)
 *  MODULE_LOAD      req  0 u64 total (image bytes), 8 u64 offset (of this
 *                        chunk), 16 u64 client_id (the client's name for the
 *                        image; chunks of one load share it); data: bytes
 *                   rep  (to the F_LAST chunk) 0 u64 module
 *  MODULE_UNLOAD    req  0 u64 module
 *  KERNEL_GET       req  0 u64 module; data: the kernel's mangled name
 *                   rep  0 u64 kernel, 8 u32 nparams, 12 u32 param_bytes
 *                        (the packed buffer's size), 16 nparams x
 *                        {u32 offset, u32 size} in parameter order
 *  KERNEL_ATTR      req  0 u64 kernel, 8 i32 attribute (CU_FUNC_ATTRIBUTE_*)
 *                   rep  0 i32 value
 *  LAUNCH           req  0 u64 kernel, 8 u32 grid[3], 20 u32 block[3],
 *                        32 u32 shared_bytes, 36 u32 reserved, 40 u64 stream;
 *                        data: the packed parameter buffer (param_bytes,
 *                        each parameter at its offset, as the kernel's own
 *                        byte order lays it: the server does not convert it)
 *  STREAM_CREATE    req  0 u32 flags, 4 i32 priority;  rep 0 u64 stream
 *  STREAM_DESTROY   req  0 u64 stream
 *  STREAM_SYNC      req  0 u64 stream
 *  STREAM_QUERY     req  0 u64 stream  (status 0 or cudaErrorNotReady, 600)
 *  STREAM_WAIT_EVENT req 0 u64 stream, 8 u64 event, 16 u32 flags
 *  EVENT_CREATE     req  0 u32 flags;  rep 0 u64 event
 *  EVENT_DESTROY    req  0 u64 event
 *  EVENT_RECORD     req  0 u64 event, 8 u64 stream
 *  EVENT_SYNC       req  0 u64 event
 *  EVENT_QUERY      req  0 u64 event  (status 0 or cudaErrorNotReady)
 *  EVENT_ELAPSED    req  0 u64 start, 8 u64 end;  rep 0 u32 ms (binary32 bits)
 *  GET_LAST_ERROR   req  -  (reply's deferred: the error; status 0)
 *  VAR_GET          req  0 u64 module; data: the variable's (mangled) name
 *                   rep  0 u64 dptr, 8 u64 size
 *                        (__device__/__constant__ symbols: memcpy to and from
 *                        symbol are copies at dptr)
 *  BYE              one-way, no args: an orderly end; the server frees the
 *                   session (as it does when the connection is lost)
 *
 * Parameter layout of a kernel is the server's answer (the cuda backend asks
 * cuKernelGetParamInfo; the host backend reads the cubin's .nv.info through
 * gpu/common/fatbin.h); the client may cross-check it with its own parse.
 */
#ifndef FARO_GPU_PROTOCOL_H
#define FARO_GPU_PROTOCOL_H

#define FARO_GPU_PROTO_VERSION 100           /* 1.00: major 1 */
#define FARO_GPU_PROTO_MAJOR(v) ((v) / 100)
#define FARO_GPU_TP_KIND 1                   /* the transport message kind carrying it */
#define FARO_GPU_HDR_SIZE 24
#define FARO_GPU_DEFAULT_PORT 7370           /* faro-gpud's port when none is given */
#define FARO_GPU_CHUNK_DEFAULT (1u << 20)    /* FARO_GPU_CHUNK's default: 1 MiB */
#define FARO_GPU_CHUNK_MIN 4096u
#define FARO_GPU_CHUNK_MAX (32u << 20)       /* below tcp's max_send (64 MiB) */
#define FARO_GPU_NAME_MAX 4096               /* longest kernel / variable name */
#define FARO_GPU_PARAMS_MAX 1024             /* most parameters a kernel reply lists */
#define FARO_GPU_PARAM_BYTES_MAX 32764       /* CUDA's largest parameter buffer */
#define FARO_GPU_ATTRS_MAX 512               /* most attributes a props reply lists */
#define FARO_GPU_DEVNAME_MAX 255             /* longest device name in a props reply */

enum faro_gpu_op {
    FARO_GPU_OP_HELLO = 1,
    FARO_GPU_OP_BYE,
    FARO_GPU_OP_GET_DEVICE_COUNT,
    FARO_GPU_OP_GET_DEVICE_PROPS,
    FARO_GPU_OP_GET_DEVICE_ATTR,
    FARO_GPU_OP_SET_DEVICE,
    FARO_GPU_OP_DEVICE_SYNC,
    FARO_GPU_OP_DEVICE_RESET,
    FARO_GPU_OP_MALLOC,
    FARO_GPU_OP_FREE,
    FARO_GPU_OP_MEM_GET_INFO,
    FARO_GPU_OP_MEMCPY_H2D,
    FARO_GPU_OP_MEMCPY_D2H,
    FARO_GPU_OP_MEMCPY_D2D,
    FARO_GPU_OP_MEMSET,
    FARO_GPU_OP_MODULE_LOAD,
    FARO_GPU_OP_MODULE_UNLOAD,
    FARO_GPU_OP_KERNEL_GET,
    FARO_GPU_OP_KERNEL_ATTR,
    FARO_GPU_OP_LAUNCH,
    FARO_GPU_OP_STREAM_CREATE,
    FARO_GPU_OP_STREAM_DESTROY,
    FARO_GPU_OP_STREAM_SYNC,
    FARO_GPU_OP_STREAM_QUERY,
    FARO_GPU_OP_STREAM_WAIT_EVENT,
    FARO_GPU_OP_EVENT_CREATE,
    FARO_GPU_OP_EVENT_DESTROY,
    FARO_GPU_OP_EVENT_RECORD,
    FARO_GPU_OP_EVENT_SYNC,
    FARO_GPU_OP_EVENT_QUERY,
    FARO_GPU_OP_EVENT_ELAPSED,
    FARO_GPU_OP_GET_LAST_ERROR,
    FARO_GPU_OP_VAR_GET,
    FARO_GPU_OP_COUNT_ /* one past the last op */
};

enum faro_gpu_flag {
    FARO_GPU_F_REPLY = 1u << 0,    /* request: the sender wants a reply */
    FARO_GPU_F_RESPONSE = 1u << 1, /* this is a reply */
    FARO_GPU_F_LAST = 1u << 2,     /* last chunk of a chunked copy, load or reply series */
};

/* Status values the protocol itself uses (CUDA 13 runtime numbering). */
enum faro_gpu_status {
    FARO_GPU_SUCCESS = 0,
    FARO_GPU_ERR_INVALID_VALUE = 1,         /* cudaErrorInvalidValue */
    FARO_GPU_ERR_MEMORY_ALLOCATION = 2,     /* cudaErrorMemoryAllocation */
    FARO_GPU_ERR_INSUFFICIENT_DRIVER = 35,  /* cudaErrorInsufficientDriver: version mismatch */
    FARO_GPU_ERR_NO_DEVICE = 100,           /* cudaErrorNoDevice */
    FARO_GPU_ERR_INVALID_DEVICE = 101,      /* cudaErrorInvalidDevice */
    FARO_GPU_ERR_INVALID_IMAGE = 200,       /* cudaErrorInvalidKernelImage */
    FARO_GPU_ERR_INVALID_HANDLE = 400,      /* cudaErrorInvalidResourceHandle */
    FARO_GPU_ERR_NOT_FOUND = 500,           /* cudaErrorSymbolNotFound */
    FARO_GPU_ERR_NOT_READY = 600,           /* cudaErrorNotReady */
    FARO_GPU_ERR_ILLEGAL_ADDRESS = 700,     /* cudaErrorIllegalAddress (sticky) */
    FARO_GPU_ERR_LAUNCH_FAILURE = 719,      /* cudaErrorLaunchFailure (sticky) */
    FARO_GPU_ERR_NOT_SUPPORTED = 801,       /* cudaErrorNotSupported */
    FARO_GPU_ERR_UNKNOWN = 999,             /* cudaErrorUnknown */
};

#endif
