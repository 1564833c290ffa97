/*
 * coll_neighbor_errors: argument errors of the neighbourhood collectives
 * under MPI_ERRORS_RETURN, blocking and nonblocking. Each call must return
 * the right error class with a message naming the function, and the library
 * must stay usable (real neighbourhood collectives follow). Every case is
 * seen by every rank alike, so no rank is left waiting:
 *  - no topology (MPI_COMM_WORLD): MPI_ERR_TOPOLOGY; MPI_COMM_NULL and an
 *    intercommunicator: MPI_ERR_COMM;
 *  - MPI_IN_PLACE as sendbuf or recvbuf (the standard gives these
 *    collectives no in-place form): MPI_ERR_BUFFER;
 *  - negative counts, MPI_DATATYPE_NULL, NULL count arrays where the degree
 *    is not 0, a NULL request: MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_ARG;
 *    NULL arrays where the degree is 0 are accepted.
 * Faro's own choices for erroneous programs (docs/notes.md), not the
 * standard's: an MPI_Graph_create graph that is not symmetric is
 * MPI_ERR_TOPOLOGY at every rank, and Neighbor_alltoall from a buffer into
 * itself is MPI_ERR_BUFFER.
 */
#include "util.h"

static int a[64], b[64], counts[8], displs[8];
static MPI_Aint bdispls[8];
static MPI_Datatype types[8];

/* Each of the ten calls with the same buffers on comm, expecting class cls;
 * sendbuf/recvbuf may be MPI_IN_PLACE. */
static void all_ten(MPI_Comm comm, const void *sbuf, void *rbuf, int cls, const char *what)
{
    MPI_Request req;
    tu_expect(MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, comm), cls,
              "MPI_Neighbor_allgather", what);
    tu_expect(MPI_Neighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, counts, displs, MPI_INT, comm), cls,
              "MPI_Neighbor_allgatherv", what);
    tu_expect(MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, comm), cls,
              "MPI_Neighbor_alltoall", what);
    tu_expect(MPI_Neighbor_alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT,
                                     comm),
              cls, "MPI_Neighbor_alltoallv", what);
    tu_expect(MPI_Neighbor_alltoallw(sbuf, counts, bdispls, types, rbuf, counts, bdispls, types,
                                     comm),
              cls, "MPI_Neighbor_alltoallw", what);
    tu_expect(MPI_Ineighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, comm, &req), cls,
              "MPI_Ineighbor_allgather", what);
    tu_expect(MPI_Ineighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, counts, displs, MPI_INT, comm,
                                       &req),
              cls, "MPI_Ineighbor_allgatherv", what);
    tu_expect(MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, comm, &req), cls,
              "MPI_Ineighbor_alltoall", what);
    tu_expect(MPI_Ineighbor_alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT,
                                      comm, &req),
              cls, "MPI_Ineighbor_alltoallv", what);
    tu_expect(MPI_Ineighbor_alltoallw(sbuf, counts, bdispls, types, rbuf, counts, bdispls, types,
                                      comm, &req),
              cls, "MPI_Ineighbor_alltoallw", what);
}

/* A real exchange on a periodic ring: both neighbours' ranks arrive. */
static void still_works(MPI_Comm ring, int nonblocking)
{
    int me, left, right, got[2] = {-1, -1};
    TU_CHECK(MPI_Comm_rank(ring, &me));
    TU_CHECK(MPI_Cart_shift(ring, 0, 1, &left, &right));
    if (nonblocking) {
        MPI_Request req;
        TU_CHECK(MPI_Ineighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, ring, &req));
        TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        TU_CHECK(MPI_Neighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, ring));
    }
    if (got[0] != left || got[1] != right)
        tu_fail("Neighbor_allgather after errors gave %d %d, expected %d %d", got[0], got[1],
                left, right);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_neighbor_errors");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int i = 0; i < 8; i++) {
        counts[i] = 1, displs[i] = i, bdispls[i] = (MPI_Aint)(i * sizeof(int));
        types[i] = MPI_INT;
    }
    int periods = 1, n = tu_size;
    MPI_Comm ring; /* inherits MPI_ERRORS_RETURN */
    TU_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &periods, 0, &ring));

    all_ten(MPI_COMM_WORLD, a, b, MPI_ERR_TOPOLOGY, "MPI_COMM_WORLD (no topology)");
    all_ten(MPI_COMM_NULL, a, b, MPI_ERR_COMM, "MPI_COMM_NULL");
    all_ten(ring, MPI_IN_PLACE, b, MPI_ERR_BUFFER, "sendbuf MPI_IN_PLACE");
    all_ten(ring, a, MPI_IN_PLACE, MPI_ERR_BUFFER, "recvbuf MPI_IN_PLACE");
    still_works(ring, 0);

    MPI_Request req;
    tu_expect(MPI_Neighbor_allgather(a, -1, MPI_INT, b, 1, MPI_INT, ring), MPI_ERR_COUNT,
              "MPI_Neighbor_allgather", "sendcount -1");
    tu_expect(MPI_Ineighbor_alltoall(a, 1, MPI_INT, b, -2, MPI_INT, ring, &req), MPI_ERR_COUNT,
              "MPI_Ineighbor_alltoall", "recvcount -2");
    tu_expect(MPI_Neighbor_alltoall(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, ring), MPI_ERR_TYPE,
              "MPI_Neighbor_alltoall", "sendtype MPI_DATATYPE_NULL");
    counts[1] = -1;
    tu_expect(MPI_Neighbor_alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, ring),
              MPI_ERR_COUNT, "MPI_Neighbor_alltoallv", "sendcounts[1] -1");
    counts[1] = 1;
    tu_expect(MPI_Neighbor_allgatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, ring), MPI_ERR_ARG,
              "MPI_Neighbor_allgatherv", "recvcounts NULL (indegree 2)");
    types[1] = MPI_DATATYPE_NULL;
    tu_expect(MPI_Ineighbor_alltoallw(a, counts, bdispls, types, b, counts, bdispls, types, ring,
                                      &req),
              MPI_ERR_TYPE, "MPI_Ineighbor_alltoallw", "sendtypes[1] MPI_DATATYPE_NULL");
    types[1] = MPI_INT;
    tu_expect(MPI_Ineighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, ring, NULL), MPI_ERR_ARG,
              "MPI_Ineighbor_allgather", "request NULL");
    /* Faro's choice: a uniform exchange from a buffer into itself */
    tu_expect(MPI_Neighbor_alltoall(a, 1, MPI_INT, a, 1, MPI_INT, ring), MPI_ERR_BUFFER,
              "MPI_Neighbor_alltoall", "sendbuf == recvbuf");
    still_works(ring, 1);

    /* degree 0 everywhere (a distributed graph without edges): NULL arrays
     * are fine and nothing moves */
    MPI_Comm none;
    TU_CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &none));
    TU_CHECK(MPI_Neighbor_alltoallw(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, none));
    TU_CHECK(MPI_Ineighbor_alltoallv(NULL, NULL, NULL, MPI_INT, NULL, NULL, NULL, MPI_INT, none,
                                     &req));
    TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Neighbor_allgatherv(a, 1, MPI_INT, NULL, NULL, NULL, MPI_INT, none));
    TU_CHECK(MPI_Comm_free(&none));

    if (n >= 2) {
        /* an intercommunicator between the even and the odd ranks */
        MPI_Comm half, inter;
        TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, tu_rank % 2, tu_rank, &half));
        TU_CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, tu_rank % 2 ? 0 : 1, 7, &inter));
        TU_CHECK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
        all_ten(inter, a, b, MPI_ERR_COMM, "an intercommunicator");
        TU_CHECK(MPI_Comm_free(&inter));
        TU_CHECK(MPI_Comm_free(&half));

        /* Faro's choice: node 0 lists node 1 twice, node 1 lists node 0 once */
        int index[64], edges[3] = {1, 1, 0};
        for (int i = 0; i < n && i < 64; i++)
            index[i] = i == 0 ? 2 : 3;
        MPI_Comm g;
        TU_CHECK(MPI_Graph_create(MPI_COMM_WORLD, n < 64 ? n : 64, index, edges, 0, &g));
        if (g != MPI_COMM_NULL) {
            all_ten(g, a, b, MPI_ERR_TOPOLOGY, "a graph that is not symmetric");
            TU_CHECK(MPI_Comm_free(&g));
        }
    }
    still_works(ring, 0);
    still_works(ring, 1);
    TU_CHECK(MPI_Comm_free(&ring));
    tu_finish();
    return 0;
}
