/*
 * loopsock.h - a TCP socket between two ranks over loopback, for the tests
 * of MPI_Comm_join (dyn_join, dyn_join_progress). Include after util.h.
 *   loop_listen(&port)  a listening socket on 127.0.0.1, its port in *port
 *   loop_connect(port)  a socket connected to that port
 * Either fails the test (tu_fail) rather than return an error.
 */
#ifndef FARO_TESTS_MPI_LOOPSOCK_H
#define FARO_TESTS_MPI_LOOPSOCK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

static inline int loop_listen(int *port)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    TU_ASSERT(ls >= 0 && bind(ls, (struct sockaddr *)&a, sizeof a) == 0 && listen(ls, 1) == 0 &&
                  getsockname(ls, (struct sockaddr *)&a, &len) == 0,
              "cannot listen on loopback");
    *port = ntohs(a.sin_port);
    return ls;
}

static inline int loop_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    TU_ASSERT(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0,
              "cannot connect to the partner's socket");
    return fd;
}

#endif
