/* self_send: messages from a rank to itself, eager and large sizes:
 * Irecv then Send, Isend then Recv, Sendrecv with self, Issend then Recv,
 * ordering of several Isends to self on one tag, Probe of a message from
 * self, and MPI_COMM_SELF. Each rank does this on its own (1 rank is fine). */
#include "util.h"

#define NS 6
static const int sizes[NS] = {0, 8, 4096, 65537, 1 << 20, (4 << 20) + 1};

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "self_send");
    int me = tu_rank;
    size_t max = (4u << 20) + 1;
    unsigned char *sb = tu_malloc(max), *rb = tu_malloc(max);
    MPI_Status st;
    MPI_Request req;

    for (int k = 0; k < NS; k++) {
        int n = sizes[k];
        tu_fill(sb, (size_t)n, (unsigned)k);

        memset(rb, 0, (size_t)n);
        TU_CHECK(MPI_Irecv(rb, n, MPI_BYTE, me, 1, MPI_COMM_WORLD, &req));
        TU_CHECK(MPI_Send(sb, n, MPI_BYTE, me, 1, MPI_COMM_WORLD));
        TU_CHECK(MPI_Wait(&req, &st));
        tu_check_status(&st, me, 1, n, "Irecv + Send to self");
        tu_check_pattern(rb, (size_t)n, (unsigned)k, "Irecv + Send to self, %d bytes", n);

        memset(rb, 0, (size_t)n);
        TU_CHECK(MPI_Isend(sb, n, MPI_BYTE, me, 2, MPI_COMM_WORLD, &req));
        TU_CHECK(MPI_Recv(rb, n, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st));
        TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        tu_check_status(&st, me, 2, n, "Isend + Recv from self");
        tu_check_pattern(rb, (size_t)n, (unsigned)k, "Isend + Recv from self, %d bytes", n);

        memset(rb, 0, (size_t)n);
        TU_CHECK(MPI_Sendrecv(sb, n, MPI_BYTE, me, 3, rb, n, MPI_BYTE, me, 3, MPI_COMM_WORLD, &st));
        tu_check_status(&st, me, 3, n, "Sendrecv with self");
        tu_check_pattern(rb, (size_t)n, (unsigned)k, "Sendrecv with self, %d bytes", n);

        memset(rb, 0, (size_t)n);
        TU_CHECK(MPI_Issend(sb, n, MPI_BYTE, me, 4, MPI_COMM_WORLD, &req));
        TU_CHECK(MPI_Probe(me, 4, MPI_COMM_WORLD, &st));
        tu_check_status(&st, me, 4, n, "Probe of a message from self");
        int flag = -1;
        TU_CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        TU_ASSERT(!flag, "Issend to self of %d bytes complete before its receive was posted", n);
        TU_CHECK(MPI_Recv(rb, n, MPI_BYTE, me, 4, MPI_COMM_WORLD, &st));
        TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        tu_check_pattern(rb, (size_t)n, (unsigned)k, "Issend + Recv from self, %d bytes", n);

        memset(rb, 0, (size_t)n);
        TU_CHECK(MPI_Isend(sb, n, MPI_BYTE, 0, 5, MPI_COMM_SELF, &req));
        TU_CHECK(MPI_Recv(rb, n, MPI_BYTE, 0, 5, MPI_COMM_SELF, &st));
        TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        tu_check_status(&st, 0, 5, n, "MPI_COMM_SELF");
        tu_check_pattern(rb, (size_t)n, (unsigned)k, "MPI_COMM_SELF, %d bytes", n);
    }

    /* ordering: NS Isends of different sizes on one tag, received in order */
    unsigned char *bufs[NS];
    MPI_Request reqs[NS];
    for (int k = 0; k < NS; k++) {
        bufs[k] = tu_malloc((size_t)sizes[k]);
        tu_fill(bufs[k], (size_t)sizes[k], (unsigned)(50 + k));
        TU_CHECK(MPI_Isend(bufs[k], sizes[k], MPI_BYTE, me, 9, MPI_COMM_WORLD, &reqs[k]));
    }
    for (int k = 0; k < NS; k++) {
        TU_CHECK(MPI_Recv(rb, (int)max, MPI_BYTE, me, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        tu_check_status(&st, me, 9, sizes[k], "ordered message to self");
        tu_check_pattern(rb, (size_t)sizes[k], (unsigned)(50 + k), "ordered message %d to self", k);
    }
    TU_CHECK(MPI_Waitall(NS, reqs, MPI_STATUSES_IGNORE));
    for (int k = 0; k < NS; k++)
        free(bufs[k]);
    free(sb);
    free(rb);
    tu_finish();
    return 0;
}
