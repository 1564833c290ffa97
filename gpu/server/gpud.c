/*
 * faro-gpud: the GPU offload server (docs/gpu.md).
 *
 *   faro-gpud [--listen ADDR:PORT] [--key-file FILE] [--backend cuda|host]
 *             [--gpus LIST] [--send-timeout S] [--host-kernels FILE.so]
 *
 * It listens on the tcp transport (loopback, port 7370, unless told
 * otherwise), takes only clients that present its key (the transport checks
 * it), gives each client a session of its own, and runs their calls on the
 * backend. A client that goes away, says BYE or sends something malformed
 * loses its session and everything in it; the server goes on. SIGINT and
 * SIGTERM end it.
 */
#include "config.h"

#include "gpu/server/gpud.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tunables.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: faro-gpud [--listen ADDR:PORT] [--key-file FILE] [--backend cuda|host]\n"
            "                 [--gpus LIST] [--send-timeout S] [--host-kernels FILE.so]\n"
            "Serve this machine's GPUs to Faro GPU clients (FARO_GPU_SERVERS).\n\n"
            "  --listen ADDR:PORT  where to listen: ADDR an address or interface name of\n"
            "                      this host, PORT 0 for any free one (default 127.0.0.1:%u)\n"
            "  --key-file FILE     the key clients must present (mode 0600); without it,\n"
            "                      FARO_GPU_KEY\n"
            "  --backend B         cuda (the GPUs, through libcuda.so.1; default) or host\n"
            "                      (a stand-in for tests: memory in this process, kernels\n"
            "                      from --host-kernels)\n"
            "  --gpus LIST         devices to serve, e.g. 0,2 (default: all)\n"
            "  --send-timeout S    drop a client that takes none of a reply for S seconds\n"
            "                      (default 60), so that it cannot hold the others up\n"
            "  --host-kernels SO   host backend only, for tests: a shared object exporting\n"
            "                      faro_gpu_host_kernels (gpu/server/host_kernels.h)\n"
            "  --host-test wrong-layout  host backend only, for tests: report every kernel's\n"
            "                      parameter buffer 8 bytes longer than its cubin says\n",
            FARO_GPU_DEFAULT_PORT);
}

static void *on_accepted(void *owner, faro_gpu_peer_t *peer)
{
    struct gpud_session *s = gpud_session_new(owner, peer);
    if (s)
        fprintf(stderr, "faro-gpud: %s: session opened\n", s->name);
    return s;
}

static void on_message(void *owner, void *ctx, faro_gpu_peer_t *peer,
                       const struct faro_gpu_msg *m)
{
    struct gpud *srv = owner;
    struct gpud_session *s = ctx;
    if (gpud_session_message(s, m) < 0) {
        fprintf(stderr, "faro-gpud: %s: session closed%s\n", s->name,
                m->h.op == FARO_GPU_OP_BYE ? " (BYE)" : "");
        faro_gpu_chan_drop(srv->ch, peer);
        gpud_session_free(s);
    }
}

static void on_lost(void *owner, void *ctx, int orderly, const char *why)
{
    struct gpud_session *s = ctx;
    (void)owner;
    fprintf(stderr, "faro-gpud: %s: session closed: %s%s\n", s->name,
            orderly ? "the client closed the connection" : why,
            orderly ? "" : "; its memory and modules are freed");
    gpud_session_free(s);
}

static const struct faro_gpu_chan_cb gpud_cb = {
    .accepted = on_accepted, .message = on_message, .lost = on_lost };

/* "0,2,3" into gpus[]; -1 on anything else. */
static int parse_gpus(const char *list, int *gpus, int max)
{
    int n = 0;
    for (const char *p = list; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 1023 || n == max || (*end && *end != ','))
            return -1;
        gpus[n++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return n ? n : -1;
}

int main(int argc, char **argv)
{
    const char *listen = NULL, *key_file = NULL, *backend = "cuda";
    double send_timeout = 60;
    struct faro_gpu_be_opts opts = { 0 };
    int gpus[64];
    char err[1024], where[256] = "";
    uint8_t key[FARO_GPU_KEY_MAX];
    size_t keylen;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!v || strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "faro-gpud: %s: %s\n", a, v ? "unknown argument" : "needs a value");
            usage(stderr);
            return 2;
        }
        i++;
        if (!strcmp(a, "--listen")) {
            listen = v;
        } else if (!strcmp(a, "--key-file")) {
            key_file = v;
        } else if (!strcmp(a, "--backend")) {
            backend = v;
        } else if (!strcmp(a, "--gpus")) {
            if ((opts.ngpus = parse_gpus(v, gpus, 64)) < 0) {
                fprintf(stderr, "faro-gpud: --gpus %s: expected device numbers separated by "
                        "commas, e.g. 0,2\n", v);
                return 2;
            }
            opts.gpus = gpus;
        } else if (!strcmp(a, "--send-timeout")) {
            char *end;
            send_timeout = strtod(v, &end);
            if (*end || !(send_timeout >= 0.1 && send_timeout <= 86400)) {
                fprintf(stderr, "faro-gpud: --send-timeout %s: expected seconds, 0.1 to "
                        "86400\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--host-kernels")) {
            opts.host_kernels = v;
        } else if (!strcmp(a, "--host-test")) {
            if (strcmp(v, "wrong-layout") != 0) {
                fprintf(stderr, "faro-gpud: --host-test %s: expected wrong-layout\n", v);
                return 2;
            }
            opts.wrong_layout = 1;
        } else {
            fprintf(stderr, "faro-gpud: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
    }

    struct gpud srv = { 0 };
    if (!strcmp(backend, "host")) {
        srv.be_ops = &faro_gpu_be_host;
    } else if (!strcmp(backend, "cuda")) {
        srv.be_ops = &faro_gpu_be_cuda;
    } else {
        fprintf(stderr, "faro-gpud: --backend %s: expected cuda or host\n", backend);
        return 2;
    }
    if ((opts.host_kernels || opts.wrong_layout) && srv.be_ops != &faro_gpu_be_host) {
        fprintf(stderr, "faro-gpud: --host-kernels and --host-test go with --backend host "
                "only\n");
        return 2;
    }
    if (faro_gpu_key_load(key_file, "FARO_GPU_KEY", key, &keylen, err, sizeof err) < 0) {
        fprintf(stderr, "faro-gpud: %s\n", err);
        return 1;
    }
    if (faro_tunables_load(err, sizeof err) != 0) {
        fprintf(stderr, "faro-gpud: %s\n", err);
        return 1;
    }
    if (srv.be_ops->open(&srv.be, &opts, err, sizeof err) < 0) {
        fprintf(stderr, "faro-gpud: backend %s: %s\n", srv.be_ops->name, err);
        return 1;
    }
    if (faro_gpu_chan_listen(listen, key, keylen, &gpud_cb, &srv, &srv.ch, where, sizeof where,
                             err, sizeof err) < 0) {
        fprintf(stderr, "faro-gpud: %s\n", err);
        srv.be_ops->close(srv.be);
        return 1;
    }
    memset(key, 0, sizeof key);
    faro_gpu_chan_set_send_timeout(srv.ch, send_timeout);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    printf("faro-gpud: %s, backend %s, %d device(s)\n", where, srv.be_ops->name,
           srv.be_ops->device_count(srv.be));
    fflush(stdout);
    while (!stop) /* copies under way: poll without sleeping, their sends move on */
        if (faro_gpu_chan_poll(srv.ch, gpud_pump(&srv) ? 0 : 1000) < 0) {
            fprintf(stderr, "faro-gpud: the transport failed; exiting\n");
            break;
        }
    faro_gpu_chan_close(srv.ch); /* sessions die with their connections */
    srv.be_ops->close(srv.be);
    return 0;
}
