/*
 * faro-gpud's sessions: protocol.h's ops run against the backend.
 *
 * The checks that belong to the protocol are made here, before a backend
 * sees anything: HELLO first and with a matching major version, copy chunks
 * no larger than granted, module images assembled in order up to a bound,
 * names without NUL bytes. A violation drops the session (the caller
 * disconnects); a failing call is a status in the reply, or, for a one-way
 * message, the session's deferred error (protocol.h "Errors").
 */
#include "config.h"

#include "gpu/server/gpud.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPUD_IMAGE_MAX (256u << 20) /* largest module image a session may load */

struct gpud_session *gpud_session_new(struct gpud *srv, faro_gpu_peer_t *peer)
{
    struct gpud_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->srv = srv;
    s->peer = peer;
    faro_gpu_peer_name(peer, s->name, sizeof s->name);
    if (srv->be_ops->session_open(srv->be, &s->bs) != 0) {
        free(s);
        return NULL;
    }
    srv->nsessions++;
    s->next = srv->sessions;
    srv->sessions = s;
    return s;
}

_Static_assert(GPUD_DEPTH_MAX <= FARO_GPU_BE_TAGS, "a slot's copy is named by its index");

static void ring_unref(struct gpud_ring *r)
{
    if (--r->refs)
        return;
    for (unsigned i = 0; i < r->depth; i++)
        r->be_ops->stage_free(r->be, r->slot[i].buf);
    free(r);
}

void gpud_session_free(struct gpud_session *s)
{
    for (struct gpud_session **pp = &s->srv->sessions; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    s->srv->be_ops->session_close(s->srv->be, s->bs);
    s->srv->nsessions--;
    free(s->load.buf);
    if (s->ring)
        ring_unref(s->ring);
    free(s);
}

static int reply(struct gpud_session *s, const struct faro_gpu_msg *m, int status,
                 const uint64_t *a, const uint32_t *pairs, const void *data, size_t len,
                 uint16_t more_flags)
{
    uint8_t args[FARO_GPU_ARGS_BYTES];
    int alen = 0;
    if (a)
        alen = faro_gpu_args_encode(m->h.op, 1, a, pairs, args);
    if (alen < 0)
        return -1;
    struct faro_gpu_hdr h = { .op = m->h.op, .flags = FARO_GPU_F_RESPONSE | more_flags,
                              .seq = m->h.seq, .status = status, .deferred = s->deferred };
    s->deferred = 0;
    return faro_gpu_chan_send(s->srv->ch, s->peer, &h, alen ? args : NULL, (size_t)alen, data,
                              len);
}

static int proto_error(struct gpud_session *s, const char *fmt, const char *what)
{
    fprintf(stderr, "faro-gpud: %s: ", s->name);
    fprintf(stderr, fmt, what);
    fprintf(stderr, ": session dropped\n");
    return -1;
}

/* A name in data: non-empty, no NUL inside; copied with its NUL. */
static int take_name(const struct faro_gpu_msg *m, char *name)
{
    if (m->data_len == 0 || m->data_len > FARO_GPU_NAME_MAX || memchr(m->data, 0, m->data_len))
        return -1;
    memcpy(name, m->data, m->data_len);
    name[m->data_len] = '\0';
    return 0;
}

static int do_hello(struct gpud_session *s, const struct faro_gpu_msg *m)
{
    struct gpud *srv = s->srv;
    uint32_t ver = (uint32_t)m->a[0], want = (uint32_t)m->a[2];
    if (FARO_GPU_PROTO_MAJOR(ver) != FARO_GPU_PROTO_MAJOR(FARO_GPU_PROTO_VERSION)) {
        fprintf(stderr, "faro-gpud: %s speaks GPU protocol %u, this server %u: refused\n",
                s->name, ver, FARO_GPU_PROTO_VERSION);
        uint64_t a[FARO_GPU_ARGS_MAX] = { FARO_GPU_PROTO_VERSION };
        (void)reply(s, m, FARO_GPU_ERR_INSUFFICIENT_DRIVER, a, NULL, NULL, 0, 0);
        return -1;
    }
    s->chunk = want == 0 ? FARO_GPU_CHUNK_DEFAULT
               : want < FARO_GPU_CHUNK_MIN ? FARO_GPU_CHUNK_MIN
               : want > FARO_GPU_CHUNK_MAX ? FARO_GPU_CHUNK_MAX : want;
    uint32_t depth = (uint32_t)m->a[3];
    depth = depth == 0 ? GPUD_DEPTH_DEFAULT : depth > GPUD_DEPTH_MAX ? GPUD_DEPTH_MAX : depth;
    struct gpud_ring *r = calloc(1, sizeof *r);
    if (r) {
        r->refs = 1;
        r->be_ops = srv->be_ops;
        r->be = srv->be;
        for (; r->depth < depth; r->depth++) {
            struct gpud_slot *sl = &r->slot[r->depth];
            if (!(sl->buf = srv->be_ops->stage_alloc(srv->be, s->chunk)))
                break;
            sl->ring = r;
        }
    }
    if (!r || r->depth == 0) {
        free(r);
        return reply(s, m, FARO_GPU_ERR_MEMORY_ALLOCATION, NULL, NULL, NULL, 0, 0);
    }
    s->ring = r;
    s->hello = 1;
    uint64_t a[FARO_GPU_ARGS_MAX] = { FARO_GPU_PROTO_VERSION,
                                      (uint64_t)srv->be_ops->driver_version(srv->be), 13000,
                                      s->chunk,
                                      (uint64_t)(int64_t)srv->be_ops->device_count(srv->be),
                                      (uint64_t)srv->nsessions };
    const char *bn = srv->be_ops->name;
    return reply(s, m, 0, a, NULL, bn, strlen(bn), 0);
}

static int do_props(struct gpud_session *s, const struct faro_gpu_msg *m)
{
    struct gpud *srv = s->srv;
    uint32_t attrs[2 * FARO_GPU_ATTRS_MAX], nattr = 0;
    uint8_t data[16 + FARO_GPU_DEVNAME_MAX + 1];
    uint64_t a[FARO_GPU_ARGS_MAX] = { 0 };
    int st = srv->be_ops->device_props(srv->be, (int32_t)m->a[0], &a[0], data,
                                       (char *)data + 16, attrs, &nattr);
    a[1] = nattr;
    return reply(s, m, st, a, attrs, data, st ? 0 : 16 + strlen((char *)data + 16), 0);
}

/* A D2H series: each chunk is copied from the device into a free buffer of
 * the ring (asynchronously on cuda) and posted once there, without waiting
 * for the send, so the device, the PCIe bus and the network work on
 * different chunks at once; at most depth chunks are in flight, which bounds
 * what a session queues. The loop (gpud_pump) continues the series as
 * copies finish and sends complete, so a client that stops reading holds up
 * only itself until the send timeout drops it. */
static void slot_done(void *arg, int ok)
{
    struct gpud_slot *sl = arg;
    (void)ok; /* a failed connection is reported by its loss */
    sl->state = SLOT_FREE;
    ring_unref(sl->ring);
}

static int d2h_end(struct gpud_session *s, int st)
{
    struct faro_gpu_hdr h = { .op = FARO_GPU_OP_MEMCPY_D2H,
                              .flags = FARO_GPU_F_RESPONSE | FARO_GPU_F_LAST,
                              .seq = s->d2h.seq, .status = st, .deferred = s->deferred };
    s->deferred = 0;
    s->d2h.active = 0;
    return faro_gpu_chan_post(s->srv->ch, s->peer, &h, NULL, 0, NULL, 0, NULL, NULL);
}

/* A failed series: its copies still under way finish before their buffers
 * may be used again. */
static void d2h_fail(struct gpud_session *s, int st)
{
    struct gpud_ring *r = s->ring;
    for (; r->posted < r->started; r->posted++) {
        struct gpud_slot *sl = &r->slot[r->posted % r->depth];
        while (s->srv->be_ops->copy_d2h_done(s->bs, (unsigned)(r->posted % r->depth)) ==
               FARO_GPU_ERR_NOT_READY)
            ;
        sl->state = SLOT_FREE;
    }
    (void)d2h_end(s, st); /* after the chunks in flight: the transport keeps order */
}

/* Start copies into free slots, post the finished ones; 1 while the series
 * goes on. */
static int d2h_pump(struct gpud_session *s)
{
    struct gpud_d2h *d = &s->d2h;
    struct gpud_ring *r = s->ring;
    const struct faro_gpu_be_ops *be = s->srv->be_ops;
    while (d->active && d->off < d->size) {
        unsigned i = (unsigned)(r->started % r->depth);
        struct gpud_slot *sl = &r->slot[i];
        if (sl->state != SLOT_FREE)
            break;
        sl->off = d->off;
        sl->len = d->size - d->off < s->chunk ? (size_t)(d->size - d->off) : s->chunk;
        int st = be->copy_d2h_start(s->bs, sl->buf, d->src + sl->off, sl->len, d->stream, i);
        if (st) {
            d2h_fail(s, st);
            return 0;
        }
        sl->state = SLOT_COPYING;
        r->started++;
        d->off += sl->len;
    }
    while (d->active && r->posted < r->started) {
        unsigned i = (unsigned)(r->posted % r->depth);
        struct gpud_slot *sl = &r->slot[i];
        int st = be->copy_d2h_done(s->bs, i);
        if (st == FARO_GPU_ERR_NOT_READY)
            break;
        if (st) {
            d2h_fail(s, st);
            return 0;
        }
        uint8_t args[FARO_GPU_ARGS_BYTES];
        uint64_t a[FARO_GPU_ARGS_MAX] = { sl->off };
        int alen = faro_gpu_args_encode(FARO_GPU_OP_MEMCPY_D2H, 1, a, NULL, args);
        int last = sl->off + sl->len == d->size;
        struct faro_gpu_hdr h = { .op = FARO_GPU_OP_MEMCPY_D2H,
                                  .flags = FARO_GPU_F_RESPONSE | (last ? FARO_GPU_F_LAST : 0),
                                  .seq = d->seq, .deferred = last ? s->deferred : 0 };
        sl->state = SLOT_SENDING;
        r->refs++;
        r->posted++;
        if (last) {
            s->deferred = 0;
            d->active = 0;
        }
        if (alen < 0 || faro_gpu_chan_post(s->srv->ch, s->peer, &h, args, (size_t)alen, sl->buf,
                                           sl->len, slot_done, sl) < 0) {
            sl->state = SLOT_FREE;
            r->refs--;
            d->active = 0; /* the client is gone: its loss ends the session */
            return 0;
        }
    }
    return d->active;
}

static int do_d2h(struct gpud_session *s, const struct faro_gpu_msg *m)
{
    if (s->sticky)
        return reply(s, m, s->sticky, NULL, NULL, NULL, 0, FARO_GPU_F_LAST);
    s->d2h = (struct gpud_d2h){ .active = 1, .seq = m->h.seq, .src = m->a[0],
                                .size = m->a[1], .stream = m->a[2] };
    if (s->d2h.size == 0) {
        (void)d2h_end(s, 0);
        return 0;
    }
    (void)d2h_pump(s);
    return 0;
}

int gpud_pump(struct gpud *srv)
{
    int n = 0;
    for (struct gpud_session *s = srv->sessions; s; s = s->next)
        if (s->d2h.active)
            n += d2h_pump(s);
    return n;
}

static int do_module_load(struct gpud_session *s, const struct faro_gpu_msg *m, int *st,
                          uint64_t *a)
{
    struct gpud_load *l = &s->load;
    uint64_t total = m->a[0], off = m->a[1], id = m->a[2];
    if (off == 0) { /* a new image (an unfinished one is dropped) */
        free(l->buf);
        memset(l, 0, sizeof *l);
        if (total == 0 || total > GPUD_IMAGE_MAX)
            return proto_error(s, "a module image of %s bytes (allowed: 1..256 MiB)",
                               total == 0 ? "0" : "too many");
        if (!(l->buf = malloc(total))) {
            *st = FARO_GPU_ERR_MEMORY_ALLOCATION;
            return 0;
        }
        l->client_id = id;
        l->total = total;
    }
    if (!l->buf || id != l->client_id || total != l->total || off != l->got ||
        m->data_len > total - off)
        return proto_error(s, "%s", "MODULE_LOAD chunk out of order or past its image");
    memcpy(l->buf + off, m->data, m->data_len);
    l->got += m->data_len;
    if (!(m->h.flags & FARO_GPU_F_LAST))
        return 0;
    if (l->got != l->total)
        return proto_error(s, "%s", "MODULE_LOAD ended before its image was complete");
    *st = s->srv->be_ops->module_load(s->bs, l->buf, l->total, &a[0]);
    fprintf(stderr, "faro-gpud: %s: module image %llu loaded (%llu bytes)%s\n", s->name,
            (unsigned long long)l->client_id, (unsigned long long)l->total,
            *st ? ": refused by the backend" : "");
    free(l->buf);
    memset(l, 0, sizeof *l);
    return 0;
}

/* Errors after which CUDA's context is unusable. */
static int is_sticky(int st)
{
    return st == FARO_GPU_ERR_ILLEGAL_ADDRESS || st == FARO_GPU_ERR_LAUNCH_FAILURE;
}

int gpud_session_message(struct gpud_session *s, const struct faro_gpu_msg *m)
{
    const struct faro_gpu_be_ops *be = s->srv->be_ops;
    faro_gpu_be_sess_t *bs = s->bs;
    uint64_t a[FARO_GPU_ARGS_MAX] = { 0 };
    uint32_t pairs[2 * FARO_GPU_PARAMS_MAX];
    char name[FARO_GPU_NAME_MAX + 1];
    float ms;
    int st = 0, v = 0;

    if (m->h.flags & FARO_GPU_F_RESPONSE)
        return proto_error(s, "%s", "sent a reply to the server");
    /* A client waits for its D2H series before it sends again (the session
     * lock of gpu/client); one that does not is served in order, its series
     * finished first (bounded by the send timeout). */
    while (s->d2h.active && faro_gpu_chan_peer_ok(s->peer))
        if (!d2h_pump(s) || faro_gpu_chan_poll(s->srv->ch, 1) < 0)
            break;
    if (!s->hello) {
        if (m->h.op != FARO_GPU_OP_HELLO)
            return proto_error(s, "%s", "first message is not HELLO");
        return do_hello(s, m) < 0 ? -1 : 0;
    }
    if (s->sticky && m->h.op != FARO_GPU_OP_DEVICE_RESET && m->h.op != FARO_GPU_OP_BYE &&
        m->h.op != FARO_GPU_OP_GET_LAST_ERROR && m->h.op != FARO_GPU_OP_MEMCPY_D2H) {
        st = s->sticky;
        goto done;
    }
    switch (m->h.op) {
    case FARO_GPU_OP_HELLO:
        return proto_error(s, "%s", "a second HELLO");
    case FARO_GPU_OP_BYE:
        return -1;
    case FARO_GPU_OP_GET_DEVICE_COUNT:
        a[0] = (uint64_t)(int64_t)be->device_count(s->srv->be);
        break;
    case FARO_GPU_OP_GET_DEVICE_PROPS:
        (void)do_props(s, m); /* a failed send: the client's loss ends the session */
        return 0;
    case FARO_GPU_OP_GET_DEVICE_ATTR:
        st = be->device_attr(s->srv->be, (int32_t)m->a[0], (int32_t)m->a[1], &v);
        a[0] = (uint64_t)(int64_t)v;
        break;
    case FARO_GPU_OP_SET_DEVICE:
        st = be->set_device(bs, (int32_t)m->a[0]);
        break;
    case FARO_GPU_OP_DEVICE_SYNC:
        st = be->device_sync(bs);
        break;
    case FARO_GPU_OP_DEVICE_RESET:
        st = be->device_reset(bs);
        s->sticky = 0;
        break;
    case FARO_GPU_OP_MALLOC:
        st = be->mem_alloc(bs, m->a[0], &a[0]);
        break;
    case FARO_GPU_OP_FREE:
        st = be->mem_free(bs, m->a[0]);
        break;
    case FARO_GPU_OP_MEM_GET_INFO:
        st = be->mem_info(bs, &a[0], &a[1]);
        break;
    case FARO_GPU_OP_MEMCPY_H2D:
        if (m->data_len > s->chunk)
            return proto_error(s, "%s", "a copy chunk larger than granted");
        if (!s->h2d_err)
            s->h2d_err = be->copy_h2d(bs, m->a[0], m->data, m->data_len, m->a[1]);
        if (!(m->h.flags & FARO_GPU_F_LAST))
            return 0; /* a failure is told at the last chunk */
        st = s->h2d_err;
        s->h2d_err = 0;
        break;
    case FARO_GPU_OP_MEMCPY_D2H:
        return do_d2h(s, m);
    case FARO_GPU_OP_MEMCPY_D2D:
        st = be->copy_d2d(bs, m->a[0], m->a[1], m->a[2], m->a[3]);
        break;
    case FARO_GPU_OP_MEMSET:
        st = be->mem_set(bs, m->a[0], (int)(m->a[3] & 0xff), m->a[1], m->a[2]);
        break;
    case FARO_GPU_OP_MODULE_LOAD:
        if (do_module_load(s, m, &st, a) < 0)
            return -1;
        if (!(m->h.flags & FARO_GPU_F_LAST) && !st)
            return 0;
        break;
    case FARO_GPU_OP_MODULE_UNLOAD:
        st = be->module_unload(bs, m->a[0]);
        break;
    case FARO_GPU_OP_KERNEL_GET:
    case FARO_GPU_OP_VAR_GET:
        if (take_name(m, name) < 0)
            return proto_error(s, "%s", "a kernel or variable name that is empty or holds NUL");
        if (m->h.op == FARO_GPU_OP_VAR_GET) {
            st = be->var_get(bs, m->a[0], name, &a[0], &a[1]);
            break;
        }
        uint32_t np = 0, pb = 0;
        st = be->kernel_get(bs, m->a[0], name, &a[0], pairs, &np, &pb);
        a[1] = np;
        a[2] = pb;
        if (m->h.flags & FARO_GPU_F_REPLY) {
            (void)reply(s, m, st, a, pairs, NULL, 0, 0);
            return 0;
        }
        break;
    case FARO_GPU_OP_KERNEL_ATTR:
        st = be->kernel_attr(bs, m->a[0], (int32_t)m->a[1], &v);
        a[0] = (uint64_t)(int64_t)v;
        break;
    case FARO_GPU_OP_LAUNCH: {
        const uint32_t grid[3] = { (uint32_t)m->a[1], (uint32_t)m->a[2], (uint32_t)m->a[3] };
        const uint32_t block[3] = { (uint32_t)m->a[4], (uint32_t)m->a[5], (uint32_t)m->a[6] };
        st = be->launch(bs, m->a[0], grid, block, (uint32_t)m->a[7], m->a[9], m->data,
                        m->data_len);
        break;
    }
    case FARO_GPU_OP_STREAM_CREATE:
        st = be->stream_create(bs, (unsigned)m->a[0], (int32_t)m->a[1], &a[0]);
        break;
    case FARO_GPU_OP_STREAM_DESTROY:
        st = be->stream_destroy(bs, m->a[0]);
        break;
    case FARO_GPU_OP_STREAM_SYNC:
        st = be->stream_sync(bs, m->a[0]);
        break;
    case FARO_GPU_OP_STREAM_QUERY:
        st = be->stream_query(bs, m->a[0]);
        break;
    case FARO_GPU_OP_STREAM_WAIT_EVENT:
        st = be->stream_wait_event(bs, m->a[0], m->a[1], (unsigned)m->a[2]);
        break;
    case FARO_GPU_OP_EVENT_CREATE:
        st = be->event_create(bs, (unsigned)m->a[0], &a[0]);
        break;
    case FARO_GPU_OP_EVENT_DESTROY:
        st = be->event_destroy(bs, m->a[0]);
        break;
    case FARO_GPU_OP_EVENT_RECORD:
        st = be->event_record(bs, m->a[0], m->a[1]);
        break;
    case FARO_GPU_OP_EVENT_SYNC:
        st = be->event_sync(bs, m->a[0]);
        break;
    case FARO_GPU_OP_EVENT_QUERY:
        st = be->event_query(bs, m->a[0]);
        break;
    case FARO_GPU_OP_EVENT_ELAPSED:
        st = be->event_elapsed(bs, m->a[0], m->a[1], &ms);
        memcpy(&v, &ms, sizeof v); /* the binary32 bits travel as a u32 */
        a[0] = (uint32_t)v;
        break;
    case FARO_GPU_OP_GET_LAST_ERROR:
        break; /* the reply's deferred field is the answer */
    default:
        return proto_error(s, "%s", "an op this server does not run");
    }
    if (is_sticky(st))
        s->sticky = st;
done:
    if (m->h.flags & FARO_GPU_F_REPLY)
        (void)reply(s, m, st, a, NULL, NULL, 0, 0);
    else if (st && !s->deferred)
        s->deferred = st;
    return 0;
}
