/*
 * dyn_join: MPI_Comm_join over a TCP socket made between two ranks. Ranks
 * pair up (0,1), (2,3) ...: the even one listens on 127.0.0.1, tells the odd
 * one the port by MPI_Send, the odd one connects; both call MPI_Comm_join on
 * their end of the socket, at once in every pair. On the one-to-one
 * intercommunicator: sizes, a message both ways, a broadcast from each side,
 * merge and an allreduce over the two, MPI_Comm_disconnect. Twice on the
 * same socket. Also: MPI_Comm_join on a descriptor that is not open is
 * MPI_ERR_ARG, on a socket whose other end is not a Faro process joining
 * fails cleanly. Needs an even number of ranks (an odd last rank only
 * checks the errors).
 */
#include "util.h"

#include "loopsock.h"

static int pair_socket(int rank, int partner)
{
    int fd;
    if (rank % 2 == 0) {
        int port, ls = loop_listen(&port);
        /* Ssend: the partner has the port before this rank blocks in accept() */
        TU_CHECK(MPI_Ssend(&port, 1, MPI_INT, partner, 1, MPI_COMM_WORLD));
        fd = accept(ls, NULL, NULL);
        close(ls);
    } else {
        int port;
        TU_CHECK(MPI_Recv(&port, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        fd = loop_connect(port);
    }
    TU_ASSERT(fd >= 0, "no socket");
    return fd;
}

static void use(MPI_Comm ic, int rank, int partner)
{
    int size, rsize, lr, v = rank, got = -1;
    TU_CHECK(MPI_Comm_size(ic, &size));
    TU_CHECK(MPI_Comm_remote_size(ic, &rsize));
    TU_CHECK(MPI_Comm_rank(ic, &lr));
    TU_ASSERT(size == 1 && rsize == 1 && lr == 0, "join gave size %d remote %d rank %d", size,
              rsize, lr);
    TU_CHECK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE));
    TU_ASSERT(got == partner, "message over the joined communicator: %d, expected %d", got,
              partner);
    for (int side = 0; side < 2; side++) { /* side 0: the even rank broadcasts */
        int me = rank % 2 == side, b = me ? 100 + rank : -1;
        TU_CHECK(MPI_Bcast(&b, 1, MPI_INT, me ? MPI_ROOT : 0, ic));
        TU_ASSERT(me ? b == 100 + rank : b == 100 + partner, "bcast %d: %d", side, b);
    }
    MPI_Comm m;
    int sum = 0;
    TU_CHECK(MPI_Intercomm_merge(ic, rank % 2, &m));
    TU_CHECK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, m));
    TU_ASSERT(sum == rank + partner, "allreduce over the merged pair: %d", sum);
    TU_CHECK(MPI_Comm_free(&m));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "dyn_join");
    int rank = tu_rank, size = tu_size;
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Comm ic;
    tu_expect(MPI_Comm_join(-1, &ic), MPI_ERR_ARG, "MPI_Comm_join", "fd -1");
    tu_expect(MPI_Comm_join(1000, &ic), MPI_ERR_ARG, "MPI_Comm_join", "a closed fd");
    int sv[2];
    TU_ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
    TU_ASSERT(write(sv[1], "hello, this is not faro and it does not go away....\n", 52) == 52,
              "write");
    tu_expect(MPI_Comm_join(sv[0], &ic), MPI_ERR_OTHER, "MPI_Comm_join",
              "a socket whose other end is not a Faro process");
    close(sv[0]);
    close(sv[1]);

    int partner = rank ^ 1;
    if (partner < size) {
        int fd = pair_socket(rank, partner);
        for (int round = 0; round < 2; round++) {
            TU_CHECK(MPI_Comm_join(fd, &ic));
            use(ic, rank, partner);
            TU_CHECK(MPI_Comm_disconnect(&ic));
        }
        close(fd);
    }
    tu_finish();
    return 0;
}
