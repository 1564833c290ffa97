/*
 * The sessions with faro-gpud (remote.h), made once per process at the first
 * call that needs the device: FARO_GPU_SERVERS=host[:port][/gpu],... names
 * the servers, one session each, and their GPUs (all of a server's, or the
 * one after the slash) make one device list in the order given; the key
 * comes from FARO_GPU_KEY_FILE or FARO_GPU_KEY (one key for all), the copy
 * chunk asked for in HELLO from FARO_GPU_CHUNK, the chunks in flight from
 * FARO_GPU_DEPTH (both tunables of gpu/client/gpu_tunables.def).
 *
 * A session's channel is used by one thread at a time: the session's lock
 * is held from a request's send to its reply, so requests from several
 * threads are serialized, and one-way messages keep their order with the
 * requests. The channel's message callback copies a reply into the waiting
 * call's faro_cudart_reply_t (a D2H series straight into its destination). A
 * reply's deferred error goes to errors.c's deferred state.
 *
 * A server that cannot be reached, refuses the key or speaks another major
 * protocol version fails the connection (all of it) with one message naming
 * FARO_GPU_SERVERS; the outcome is kept and every later call gets the same
 * error at once. A session lost later fails every call that needs it with
 * the sticky cudaErrorDevicesUnavailable (one message). Nothing waits
 * forever for a server that is gone: the transport reports the loss; HELLO
 * has a time limit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/tunables.h"
#include "gpu/client/remote.h"
#include "gpu/wire/channel.h"

#define HELLO_TIMEOUT_S 20
#define MAX_DEVICES 64

static pthread_once_t connect_once = PTHREAD_ONCE_INIT;
static cudaError_t connect_result = cudaErrorInitializationError;

/* One session per FARO_GPU_SERVERS entry. */
struct faro_cudart_sess {
    pthread_mutex_t lock;   /* held from a request's send to its reply */
    faro_gpu_chan_t *ch;
    faro_gpu_peer_t *peer;
    char server[256];       /* host[:port] */
    int index;
    int up;                 /* HELLO answered */
    int lost;
    char lost_why[256];
    uint32_t seq;
    uint32_t chunk;
    uint32_t driver_version;
    int remote_current;     /* the server's current device for the session */
    faro_cudart_reply_t *waiting;
    uint32_t waiting_seq;
    int waiting_done;
};

static faro_cudart_sess_t sessions[FARO_CUDART_MAX_SESSIONS];
static int nsessions;
/* The device list this client shows: each device's session and its number
 * on that server. */
static struct {
    faro_cudart_sess_t *sess;
    int remote;
} devices[MAX_DEVICES];
static int ndevices;
static uint32_t chunk_all; /* the smallest granted chunk */
static unsigned depth_all = 4; /* FARO_GPU_DEPTH: chunks of one copy in flight */

static _Thread_local int thread_device;

static void on_message(void *owner, void *ctx, faro_gpu_peer_t *peer, const struct faro_gpu_msg *m)
{
    (void)owner, (void)peer;
    faro_cudart_sess_t *S = ctx;
    if (m->h.deferred)
        faro_cudart_defer((cudaError_t)m->h.deferred);
    faro_cudart_reply_t *r = S->waiting;
    if (!r || !(m->h.flags & FARO_GPU_F_RESPONSE) || m->h.seq != S->waiting_seq)
        return; /* nothing waits for it (cannot happen with one request at a time) */
    if (m->h.op == FARO_GPU_OP_MEMCPY_D2H && m->data_len > 0) {
        uint64_t off = m->a[0];
        if (off > r->dst_len || m->data_len > r->dst_len - off) {
            r->status = cudaErrorUnknown; /* the server sent more than asked */
        } else {
            memcpy(r->dst + off, m->data, m->data_len);
        }
    }
    if (m->h.op == FARO_GPU_OP_MEMCPY_D2H && !(m->h.flags & FARO_GPU_F_LAST))
        return;
    if (r->status == cudaSuccess)
        r->status = (cudaError_t)m->h.status;
    memcpy(r->a, m->a, sizeof r->a);
    r->ntail = m->ntail < r->tail_max ? m->ntail : r->tail_max;
    for (uint32_t i = 0; i < r->ntail; i++)
        faro_gpu_tail_pair(m, i, &r->tail[2 * i], &r->tail[2 * i + 1]);
    if (r->data && m->h.op != FARO_GPU_OP_MEMCPY_D2H) {
        size_t n = m->data_len < r->data_max ? m->data_len : r->data_max;
        memcpy(r->data, m->data, n);
        r->data_len = n;
    }
    S->waiting_done = 1;
}

static void on_lost(void *owner, void *ctx, int orderly, const char *why)
{
    (void)owner, (void)orderly;
    faro_cudart_sess_t *S = ctx;
    S->lost = 1;
    snprintf(S->lost_why, sizeof S->lost_why, "%s", why ? why : "connection closed");
}

static const struct faro_gpu_chan_cb client_cb = {
    .accepted = NULL, .message = on_message, .lost = on_lost,
};

static cudaError_t lost_error(faro_cudart_sess_t *S)
{
    static int once;
    if (S->up && !__atomic_exchange_n(&once, 1, __ATOMIC_SEQ_CST))
        faro_cudart_msg("lost the GPU server %s (FARO_GPU_SERVERS): %s", S->server, S->lost_why);
    return cudaErrorDevicesUnavailable;
}

/* A send that failed: the session is lost (the reason comes with its loss). */
static cudaError_t send_failed(faro_cudart_sess_t *S)
{
    if (!S->lost)
        (void)faro_gpu_chan_poll(S->ch, 0); /* delivers the loss and its reason */
    S->lost = 1;
    if (!S->lost_why[0])
        snprintf(S->lost_why, sizeof S->lost_why, "a send failed");
    return lost_error(S);
}

/* Sends one message (caller holds the lock); 0 or the error. */
static cudaError_t send_locked(faro_cudart_sess_t *S, unsigned op, unsigned flags, uint32_t seq,
                               const uint64_t *a, const uint32_t *pairs, const void *data,
                               size_t len)
{
    uint8_t args[FARO_GPU_ARGS_BYTES];
    int n = faro_gpu_args_encode(op, 0, a, pairs, args);
    if (n < 0)
        return cudaErrorInvalidValue;
    struct faro_gpu_hdr h = {.op = (uint16_t)op, .flags = (uint16_t)flags, .seq = seq};
    if (S->lost || faro_gpu_chan_send(S->ch, S->peer, &h, args, (size_t)n, data, len) != 0)
        return send_failed(S);
    return cudaSuccess;
}

cudaError_t faro_cudart_post_locked(faro_cudart_sess_t *S, unsigned op, const uint64_t *a,
                                    const void *data, size_t len)
{
    uint8_t args[FARO_GPU_ARGS_BYTES];
    int n = faro_gpu_args_encode(op, 0, a, NULL, args);
    if (n < 0)
        return cudaErrorInvalidValue;
    while (!S->lost && faro_gpu_chan_posted(S->peer) >= depth_all)
        if (faro_gpu_chan_poll(S->ch, 0) < 0)
            S->lost = 1;
    struct faro_gpu_hdr h = {.op = (uint16_t)op, .seq = ++S->seq};
    if (S->lost || faro_gpu_chan_post(S->ch, S->peer, &h, args, (size_t)n, data, len, NULL,
                                      NULL) != 0)
        return send_failed(S);
    return cudaSuccess;
}

cudaError_t faro_cudart_drain_locked(faro_cudart_sess_t *S)
{
    while (!S->lost && faro_gpu_chan_posted(S->peer) > 0)
        if (faro_gpu_chan_poll(S->ch, 0) < 0)
            S->lost = 1;
    return S->lost ? send_failed(S) : cudaSuccess;
}

/* At exit each live session says BYE, so the server closes it as orderly
 * (and logs it so) rather than as a lost connection. A session another
 * thread is still using is left alone: its connection's close ends it. */
__attribute__((destructor)) static void say_bye(void)
{
    for (int i = 0; i < nsessions; i++) {
        faro_cudart_sess_t *S = &sessions[i];
        if (!S->up || S->lost || pthread_mutex_trylock(&S->lock) != 0)
            continue;
        uint64_t a[FARO_GPU_ARGS_MAX] = {0};
        (void)send_locked(S, FARO_GPU_OP_BYE, 0, ++S->seq, a, NULL, NULL, 0);
        pthread_mutex_unlock(&S->lock);
    }
}

/* Waits for the reply to seq (caller holds the lock); timeout_s 0: no limit. */
static cudaError_t wait_locked(faro_cudart_sess_t *S, faro_cudart_reply_t *r, uint32_t seq,
                               int timeout_s)
{
    S->waiting = r;
    S->waiting_seq = seq;
    S->waiting_done = 0;
    time_t start = time(NULL);
    while (!S->waiting_done && !S->lost) {
        if (faro_gpu_chan_poll(S->ch, 100) < 0) {
            S->lost = 1;
            snprintf(S->lost_why, sizeof S->lost_why, "the transport failed");
        }
        if (timeout_s && time(NULL) - start > timeout_s) {
            S->waiting = NULL;
            return cudaErrorTimeout;
        }
    }
    S->waiting = NULL;
    if (!S->waiting_done)
        return lost_error(S);
    return r->status;
}

/* Makes the server's current device want, when another thread's request
 * left the session on another one (caller holds the lock). */
static cudaError_t select_device_locked(faro_cudart_sess_t *S, int want)
{
    if (want == S->remote_current)
        return cudaSuccess;
    uint64_t a[FARO_GPU_ARGS_MAX] = {(uint64_t)(int64_t)want};
    faro_cudart_reply_t r = {0};
    uint32_t seq = ++S->seq;
    cudaError_t err = send_locked(S, FARO_GPU_OP_SET_DEVICE, FARO_GPU_F_REPLY, seq, a, NULL, NULL, 0);
    if (err == cudaSuccess)
        err = wait_locked(S, &r, seq, 0);
    if (err == cudaSuccess)
        S->remote_current = want;
    return err;
}

cudaError_t faro_cudart_begin_on(int dev, faro_cudart_sess_t **sess)
{
    cudaError_t err = faro_cudart_connect();
    if (err != cudaSuccess)
        return err;
    if (dev < 0 || dev >= ndevices)
        return cudaErrorInvalidDevice;
    faro_cudart_sess_t *S = devices[dev].sess;
    pthread_mutex_lock(&S->lock);
    err = select_device_locked(S, devices[dev].remote);
    if (err != cudaSuccess) {
        pthread_mutex_unlock(&S->lock);
        return err;
    }
    *sess = S;
    return cudaSuccess;
}

cudaError_t faro_cudart_send_locked(faro_cudart_sess_t *S, unsigned op, const uint64_t *a,
                                    const uint32_t *pairs, const void *data, size_t len,
                                    unsigned flags, faro_cudart_reply_t *r)
{
    uint32_t seq = ++S->seq;
    cudaError_t err = send_locked(S, op, flags | (r ? FARO_GPU_F_REPLY : 0), seq, a, pairs, data,
                                  len);
    if (err == cudaSuccess && r)
        err = wait_locked(S, r, seq, 0);
    return err;
}

void faro_cudart_end(faro_cudart_sess_t *S)
{
    pthread_mutex_unlock(&S->lock);
}

cudaError_t faro_cudart_call_on(int dev, unsigned op, const uint64_t *a, const uint32_t *pairs,
                                const void *data, size_t len, unsigned flags,
                                faro_cudart_reply_t *r)
{
    faro_cudart_sess_t *S;
    cudaError_t err = faro_cudart_begin_on(dev, &S);
    if (err != cudaSuccess)
        return err;
    err = faro_cudart_send_locked(S, op, a, pairs, data, len, flags, r);
    faro_cudart_end(S);
    return err;
}

cudaError_t faro_cudart_call(unsigned op, const uint64_t *a, const uint32_t *pairs,
                             const void *data, size_t len, unsigned flags, faro_cudart_reply_t *r)
{
    return faro_cudart_call_on(thread_device, op, a, pairs, data, len, flags, r);
}

int faro_cudart_remote_device(int dev)
{
    return devices[dev].remote;
}

int faro_cudart_session_index(int dev)
{
    return devices[dev].sess->index;
}

uint32_t faro_cudart_chunk(void)
{
    return chunk_all;
}

int faro_cudart_device_count(void)
{
    return ndevices;
}

int faro_cudart_current_device(void)
{
    return thread_device;
}

void faro_cudart_set_current_device(int device)
{
    thread_device = device;
}

uint32_t faro_cudart_driver_version(void)
{
    return nsessions ? sessions[0].driver_version : 0;
}

/* "host[:port][/gpu]" into the channel's "host[:port]" and the gpu (-1: all). */
static int parse_server(const char *spec, char *hostport, size_t len, int *gpu)
{
    const char *slash = strchr(spec, '/');
    size_t n = slash ? (size_t)(slash - spec) : strlen(spec);
    if (n == 0 || n >= len)
        return -1;
    memcpy(hostport, spec, n);
    hostport[n] = 0;
    *gpu = -1;
    if (slash) {
        char *end;
        long g = strtol(slash + 1, &end, 10);
        if (end == slash + 1 || *end || g < 0 || g > 1024)
            return -1;
        *gpu = (int)g;
    }
    return 0;
}

/* The client's tunables (gpu/client/gpu_tunables.def), read once through
 * base/tunables (no MPI needed): a bad value is said once and its default
 * used. */
static void load_tunables(void)
{
    char err[512];
    if (faro_tunables_load(err, sizeof err) != 0)
        faro_cudart_msg("%s; using its default", err);
    depth_all = (unsigned)faro_tun_int(FARO_TUN_GPU_DEPTH);
}

/* HELLO on session S; adds its devices (gpu: only that one, -1: all). */
static cudaError_t hello(faro_cudart_sess_t *S, int gpu, uint32_t want_chunk)
{
    char name[64];
    snprintf(name, sizeof name, "faro libcudart pid %ld", (long)getpid());
    uint64_t a[FARO_GPU_ARGS_MAX] = {FARO_GPU_PROTO_VERSION, FARO_CUDART_VERSION, want_chunk,
                                     depth_all};
    faro_cudart_reply_t r = {0};
    pthread_mutex_lock(&S->lock);
    uint32_t seq = ++S->seq;
    cudaError_t err = send_locked(S, FARO_GPU_OP_HELLO, FARO_GPU_F_REPLY, seq, a, NULL, name,
                                  strlen(name));
    if (err == cudaSuccess)
        err = wait_locked(S, &r, seq, HELLO_TIMEOUT_S);
    pthread_mutex_unlock(&S->lock);
    if (err == cudaErrorDevicesUnavailable || err == cudaErrorTimeout) {
        faro_cudart_msg("cannot reach the GPU server %s (FARO_GPU_SERVERS): %s", S->server,
                        err == cudaErrorTimeout ? "no answer to HELLO" : S->lost_why);
        return cudaErrorInitializationError;
    }
    if (err == cudaErrorInsufficientDriver) {
        faro_cudart_msg("faro-gpud at %s (FARO_GPU_SERVERS) speaks GPU protocol %u, this "
                        "client %u", S->server, (unsigned)r.a[0], FARO_GPU_PROTO_VERSION);
        return cudaErrorInsufficientDriver;
    }
    if (err != cudaSuccess) {
        faro_cudart_msg("the GPU server %s (FARO_GPU_SERVERS) refused the session: %s",
                        S->server, cudaGetErrorName(err));
        return cudaErrorInitializationError;
    }
    S->up = 1;
    S->driver_version = (uint32_t)r.a[1];
    S->chunk = (uint32_t)r.a[3];
    if (S->chunk < FARO_GPU_CHUNK_MIN || S->chunk > FARO_GPU_CHUNK_MAX)
        S->chunk = FARO_GPU_CHUNK_MIN;
    if (!chunk_all || S->chunk < chunk_all)
        chunk_all = S->chunk;
    int count = (int32_t)r.a[4];
    if (gpu >= count) {
        faro_cudart_msg("FARO_GPU_SERVERS: the server %s has %d GPU(s), no GPU %d", S->server,
                        count, gpu);
        return cudaErrorNoDevice;
    }
    for (int g = gpu >= 0 ? gpu : 0; g < (gpu >= 0 ? gpu + 1 : count); g++) {
        if (ndevices == MAX_DEVICES) {
            faro_cudart_msg("FARO_GPU_SERVERS: more than %d GPUs; the rest are not used",
                            MAX_DEVICES);
            break;
        }
        devices[ndevices].sess = S;
        devices[ndevices].remote = g;
        ndevices++;
    }
    return cudaSuccess;
}

/* Connects and greets the server of one FARO_GPU_SERVERS entry. */
static cudaError_t open_session(const char *entry, uint32_t want_chunk)
{
    faro_cudart_sess_t *S = &sessions[nsessions];
    pthread_mutex_init(&S->lock, NULL);
    S->index = nsessions;
    int gpu;
    if (parse_server(entry, S->server, sizeof S->server, &gpu) != 0) {
        faro_cudart_msg("FARO_GPU_SERVERS: '%s' is not host[:port][/gpu]", entry);
        return cudaErrorInitializationError;
    }
    uint8_t key[FARO_GPU_KEY_MAX];
    size_t keylen = 0;
    char err[256];
    const char *key_file = getenv("FARO_GPU_KEY_FILE");
    if (faro_gpu_key_load(key_file && *key_file ? key_file : NULL, "FARO_GPU_KEY", key, &keylen,
                          err, sizeof err) != 0) {
        faro_cudart_msg("no key for the GPU server %s (FARO_GPU_SERVERS): %s", S->server, err);
        return cudaErrorInitializationError;
    }
    int rc = faro_gpu_chan_connect(S->server, key, keylen, &client_cb, NULL, S, &S->ch, &S->peer,
                                   err, sizeof err);
    memset(key, 0, sizeof key);
    if (rc != 0) {
        faro_cudart_msg("cannot reach the GPU server %s (FARO_GPU_SERVERS): %s", S->server, err);
        return cudaErrorInitializationError;
    }
    nsessions++;
    S->remote_current = 0;
    return hello(S, gpu, want_chunk);
}

/* Every entry of FARO_GPU_SERVERS, in order; all must answer. */
static void connect_servers(void)
{
    const char *servers = getenv("FARO_GPU_SERVERS");
    if (!servers || !*servers) {
        faro_cudart_msg("no GPU server: FARO_GPU_SERVERS is not set "
                        "(FARO_GPU_SERVERS=host[:port][/gpu],...; see faro-gpu(7))");
        connect_result = cudaErrorNoDevice;
        return;
    }
    load_tunables();
    uint32_t want_chunk = (uint32_t)faro_tun_int(FARO_TUN_GPU_CHUNK);
    char list[1024];
    if (strlen(servers) >= sizeof list) {
        faro_cudart_msg("FARO_GPU_SERVERS is longer than %zu characters", sizeof list - 1);
        connect_result = cudaErrorInitializationError;
        return;
    }
    strcpy(list, servers);
    char *save = NULL;
    for (char *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        if (nsessions == FARO_CUDART_MAX_SESSIONS) {
            faro_cudart_msg("FARO_GPU_SERVERS names more than %d servers",
                            FARO_CUDART_MAX_SESSIONS);
            connect_result = cudaErrorInitializationError;
            return;
        }
        cudaError_t err = open_session(e, want_chunk);
        if (err != cudaSuccess) {
            connect_result = err;
            return;
        }
    }
    if (ndevices <= 0) {
        faro_cudart_msg("FARO_GPU_SERVERS=%s: no GPU", servers);
        connect_result = cudaErrorNoDevice;
        return;
    }
    connect_result = cudaSuccess;
}

cudaError_t faro_cudart_connect(void)
{
    pthread_once(&connect_once, connect_servers);
    if (connect_result != cudaSuccess)
        return connect_result;
    int dev = thread_device < ndevices ? thread_device : 0;
    faro_cudart_sess_t *S = devices[dev].sess;
    return S->lost ? lost_error(S) : cudaSuccess;
}

cudaStream_t faro_cudart_stream(cudaStream_t stream)
{
    if (stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return NULL;
    return stream;
}
