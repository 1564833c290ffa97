/*
 * libFuzzer harness: what the tcp transport decodes from the network (the
 * hello and its key check, the verdict, frames and their lengths, direct
 * payload reads), through its public operations only, as a hostile peer
 * would reach it. Each input gets a fresh transport (rank 0 of a job of 4,
 * on loopback) and one connection that carries the input:
 *
 *   mode 0  inbound, the bytes as they are (before authentication)
 *   mode 1  inbound, after a valid hello of job rank 1..3 (frames)
 *   mode 2  inbound, after a valid hello to an open port (frames)
 *   mode 3  outbound: the transport connects to the harness, which answers
 *           its hello with the bytes (verdict, then frames)
 *
 * The first byte is the mode; in modes 1-3 the second picks the peer and
 * whether the core offers a place for large payloads. The harness then
 * polls until the transport gives the connection up or 200 polls passed.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tcp/tcp.h"
#include "fuzz_tp.h"

extern const faro_tp_ops_t faro_tp_tcp_ops;

static int lost, offer_place;
static uint8_t landing[1 << 20];

static void ep_lost(void *core, void *ctx, int orderly, const char *why)
{
    lost = 1;
}

static void *place(void *core, void *ctx, unsigned kind, const void *hdr, size_t hdrlen,
                   size_t len)
{
    return offer_place && len <= sizeof landing ? landing : NULL;
}

/* The harness's sockets close with a reset, so that hundreds of connections
 * a second leave no TIME_WAIT behind to collide with a later input's ports
 * (that stalled connect() for 15 s in a long run, in the harness, not in the
 * transport). */
static void no_linger(int fd)
{
    struct linger l = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
}

/* A connection to a, or -1 when it is not made within 2 s (the input is
 * then skipped: a stalled loopback connect is the machine's, not Faro's). */
static int connect_to(const struct sockaddr_in *a)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    no_linger(fd);
    if (connect(fd, (const struct sockaddr *)a, sizeof *a) < 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    struct pollfd pf = {.fd = fd, .events = POLLOUT};
    int err = 0;
    socklen_t len = sizeof err;
    if (poll(&pf, 1, 2000) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

static void write_all(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0)
            return; /* the transport closed it: fine */
        p += n;
        len -= (size_t)n;
    }
}

static void hello(int fd, uint64_t id, int port)
{
    struct tcp_hello h = {.magic = htonl(TCP_MAGIC), .size = htonl(4), .id = htobe64(id),
                          .version = htons(TCP_VERSION),
                          .keylen = htons(port ? sizeof port_key : sizeof job_key),
                          .flags = htons(port ? TCP_HELLO_PORT : 0)};
    write_all(fd, &h, sizeof h);
    write_all(fd, port ? port_key : job_key, port ? sizeof port_key : sizeof job_key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int mode = data[0] % 4;
    int peer = 1 + data[1] % 3;
    offer_place = data[1] & 0x80;
    data += 2;
    size -= 2;

    faro_tp_env_t env = FUZZ_TP_ENV(env, ep_lost);
    env.place = place;
    const faro_tp_ops_t *ops = &faro_tp_tcp_ops;
    faro_tp_t *tp;
    faro_tp_attr_t attr;
    char why[256];
    if (ops->init(&tp, &env, &attr, why, sizeof why) != FARO_TP_OK)
        return 0;
    for (unsigned k = 0; k < FARO_TP_MAX_KINDS; k++)
        ops->set_handler(tp, k, handler);
    lost = 0;

    int fd = -1, lfd = -1;
    if (mode < 3) {
        struct tcp_addr blob;
        size_t len = sizeof blob;
        unsigned port;
        ops->addr_get(tp, &blob, &len);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = blob.port,
                                .sin_addr.s_addr = blob.ip};
        if (mode == 2)
            ops->listen(tp, port_key, sizeof port_key, &port);
        fd = connect_to(&a);
        if (fd >= 0 && mode == 1)
            hello(fd, (uint64_t)peer, 0);
        if (fd >= 0 && mode == 2)
            hello(fd, 77, 1);
    } else {
        /* the transport connects to us: a listening socket as rank `peer` */
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t alen = sizeof a;
        lfd = socket(AF_INET, SOCK_STREAM, 0);
        if (lfd >= 0 && bind(lfd, (struct sockaddr *)&a, sizeof a) == 0 && listen(lfd, 1) == 0 &&
            getsockname(lfd, (struct sockaddr *)&a, &alen) == 0) {
            struct tcp_addr blob = {.ip = a.sin_addr.s_addr, .port = a.sin_port,
                                    .version = htons(TCP_VERSION),
                                    .rank = (int32_t)htonl((uint32_t)peer)};
            faro_tp_conn_t c = {.addr = &blob, .addrlen = sizeof blob, .id = 0,
                                .ctx = &peers[peer]};
            faro_tp_ep_t *ep = NULL;
            uint8_t msg[8] = {0};
            if (ops->connect(tp, &c, &ep) >= 0 && ep) {
                ops->send_inline(tp, ep, 1, msg, sizeof msg, NULL, 0); /* queued: starts it */
                struct pollfd pf = {.fd = lfd, .events = POLLIN};
                for (int i = 0; i < 100 && poll(&pf, 1, 1) == 0; i++)
                    ops->progress(tp);
                fd = poll(&pf, 1, 0) == 1 ? accept(lfd, NULL, NULL) : -1;
                if (fd >= 0)
                    no_linger(fd);
                uint8_t skip[256];
                for (int i = 0; fd >= 0 && i < 20; i++) { /* its hello */
                    ops->progress(tp);
                    if (recv(fd, skip, sizeof skip, MSG_DONTWAIT) > 0)
                        break;
                    usleep(100);
                }
            }
        }
    }
    if (fd >= 0) {
        write_all(fd, data, size);
        shutdown(fd, SHUT_WR);
        for (int i = 0; i < 200 && !lost; i++)
            if (ops->progress(tp) < 0)
                break;
        close(fd); /* a reset: the transport's side closes without TIME_WAIT too */
        for (int i = 0; i < 20; i++)
            ops->progress(tp);
    }
    ops->finalize(tp);
    if (lfd >= 0)
        close(lfd);
    return 0;
}
