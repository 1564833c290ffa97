/*
 * dyn_join_progress: a rank waiting in MPI_Comm_join for its partner's half
 * of the socket exchange must keep MPI's progress going, since the partner
 * may be waiting on it in point-to-point first. Ranks pair up (0,1), (2,3)
 * ...: the odd rank connects to the even one's loopback socket, posts an
 * MPI_Irecv from it and calls MPI_Comm_join at once; the even rank accepts
 * the socket and completes an MPI_Ssend (and a second message, 1 MiB: a
 * rendezvous) to the odd rank before it calls MPI_Comm_join itself. The
 * Ssend completes only when the odd rank matches it, which it can do only
 * from inside MPI_Comm_join: a join that waited on the socket alone hung
 * here. Needs an even number of ranks (an odd last rank does nothing).
 */
#include "util.h"

#include "loopsock.h"

#define BIG (1 << 20)

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "dyn_join_progress");
    int rank = tu_rank, partner = rank ^ 1;
    char *big = malloc(BIG);
    TU_ASSERT(big != NULL, "malloc");
    if (partner < tu_size && rank % 2 == 0) {
        int port, ls = loop_listen(&port), v = 1000 + rank;
        /* Ssend: the partner has the port before this rank blocks in accept() */
        TU_CHECK(MPI_Ssend(&port, 1, MPI_INT, partner, 1, MPI_COMM_WORLD));
        int fd = accept(ls, NULL, NULL);
        TU_ASSERT(fd >= 0, "accept");
        close(ls);
        /* the partner is inside MPI_Comm_join now (or about to be) */
        TU_CHECK(MPI_Ssend(&v, 1, MPI_INT, partner, 2, MPI_COMM_WORLD));
        tu_fill(big, BIG, rank);
        TU_CHECK(MPI_Send(big, BIG, MPI_CHAR, partner, 3, MPI_COMM_WORLD));
        MPI_Comm ic;
        TU_CHECK(MPI_Comm_join(fd, &ic));
        TU_CHECK(MPI_Comm_disconnect(&ic));
        close(fd);
    } else if (partner < tu_size) {
        int port, got = -1;
        TU_CHECK(MPI_Recv(&port, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int fd = loop_connect(port);
        MPI_Request r[2];
        TU_CHECK(MPI_Irecv(&got, 1, MPI_INT, partner, 2, MPI_COMM_WORLD, &r[0]));
        TU_CHECK(MPI_Irecv(big, BIG, MPI_CHAR, partner, 3, MPI_COMM_WORLD, &r[1]));
        MPI_Comm ic;
        TU_CHECK(MPI_Comm_join(fd, &ic));
        TU_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        TU_ASSERT(got == 1000 + partner, "the message received during the join: %d, expected %d",
                  got, 1000 + partner);
        tu_check_pattern(big, BIG, partner, "the 1 MiB message received during the join");
        TU_CHECK(MPI_Comm_disconnect(&ic));
        close(fd);
    }
    free(big);
    tu_finish();
    return 0;
}
