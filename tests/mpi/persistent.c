/* persistent: MPI_Send_init / MPI_Recv_init / MPI_Start / MPI_Startall.
 * Ranks pair up and exchange in both directions with persistent requests
 * reused for ITER iterations; the send buffer is refilled each iteration, so
 * a request that captured the data at init time is caught. Sizes: small and
 * rendezvous-sized. Also: a request stays allocated (not MPI_REQUEST_NULL)
 * after completion, waiting on an inactive persistent request returns at
 * once, and MPI_Request_free releases it. */
#include "util.h"

#define ITER 30
#define NS 3
static const int sizes[NS] = {0, 200, 300000};

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "persistent");
    tu_need_ranks(2);
    int peer = tu_rank ^ 1;
    if (peer >= tu_size) {
        tu_finish();
        return 0;
    }
    unsigned char *sb[NS], *rb[NS];
    MPI_Request req[2 * NS];
    MPI_Status sts[2 * NS];
    for (int k = 0; k < NS; k++) {
        sb[k] = tu_malloc((size_t)sizes[k]);
        rb[k] = tu_malloc((size_t)sizes[k]);
        TU_CHECK(MPI_Send_init(sb[k], sizes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD, &req[k]));
        TU_CHECK(MPI_Recv_init(rb[k], sizes[k], MPI_BYTE, peer, k, MPI_COMM_WORLD, &req[NS + k]));
    }
    /* an inactive persistent request completes at once */
    MPI_Status st;
    TU_CHECK(MPI_Wait(&req[0], &st));
    TU_ASSERT(req[0] != MPI_REQUEST_NULL, "Wait on an inactive persistent request freed it");

    for (int it = 0; it < ITER; it++) {
        unsigned myseed = (unsigned)(it * 1000 + tu_rank * 10);
        unsigned peerseed = (unsigned)(it * 1000 + peer * 10);
        for (int k = 0; k < NS; k++) {
            tu_fill(sb[k], (size_t)sizes[k], myseed + (unsigned)k);
            memset(rb[k], 0, (size_t)sizes[k]);
        }
        if (it % 3 == 0) {
            TU_CHECK(MPI_Startall(2 * NS, req));
            TU_CHECK(MPI_Waitall(2 * NS, req, sts));
        } else if (it % 3 == 1) {
            /* receives first, one Start each, waits one by one */
            for (int k = 0; k < NS; k++)
                TU_CHECK(MPI_Start(&req[NS + k]));
            for (int k = 0; k < NS; k++)
                TU_CHECK(MPI_Start(&req[k]));
            for (int k = 0; k < 2 * NS; k++)
                TU_CHECK(MPI_Wait(&req[k], &sts[k]));
        } else {
            /* sends first, Startall on each half, Testall loop */
            TU_CHECK(MPI_Startall(NS, req));
            TU_CHECK(MPI_Startall(NS, req + NS));
            int flag = 0;
            while (!flag)
                TU_CHECK(MPI_Testall(2 * NS, req, &flag, sts));
        }
        for (int k = 0; k < 2 * NS; k++)
            TU_ASSERT(req[k] != MPI_REQUEST_NULL,
                      "iteration %d: persistent request %d became MPI_REQUEST_NULL", it, k);
        for (int k = 0; k < NS; k++) {
            tu_check_status(&sts[NS + k], peer, k, sizes[k], "persistent receive");
            tu_check_pattern(rb[k], (size_t)sizes[k], peerseed + (unsigned)k,
                             "iteration %d persistent receive of %d bytes", it, sizes[k]);
        }
    }
    for (int k = 0; k < 2 * NS; k++) {
        TU_CHECK(MPI_Request_free(&req[k]));
        TU_ASSERT(req[k] == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
    }
    for (int k = 0; k < NS; k++) {
        free(sb[k]);
        free(rb[k]);
    }
    tu_finish();
    return 0;
}
