/* cancel_recv: cancelling receives, and freeing active send requests.
 *   1. An Irecv (specific source, and MPI_ANY_SOURCE) that nothing will ever
 *      match is cancelled: Wait returns, Test_cancelled says true.
 *   2. A cancelled receive does not steal a later message: after the
 *      cancel, the peer sends on the same tag and a new Recv gets it.
 *   3. Cancelling a receive that may already have matched (its message was
 *      sent before a token we waited for): either the cancel fails and the
 *      data is there, or it succeeds and the message is still receivable.
 *   4. MPI_Request_free on an active Isend: the message is still delivered.
 * Ranks pair up. */
#include "util.h"

static void cancel_unmatched(int src, int tag, const char *what)
{
    int v[4];
    MPI_Request req;
    MPI_Status st;
    int flag = -1;
    TU_CHECK(MPI_Irecv(v, 4, MPI_INT, src, tag, MPI_COMM_WORLD, &req));
    TU_CHECK(MPI_Cancel(&req));
    TU_CHECK(MPI_Wait(&req, &st));
    TU_ASSERT(req == MPI_REQUEST_NULL, "%s: Wait on a cancelled receive left the request", what);
    TU_CHECK(MPI_Test_cancelled(&st, &flag));
    TU_ASSERT(flag, "%s: Test_cancelled is false for a receive nothing could match", what);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "cancel_recv");
    tu_need_ranks(1);
    /* phase 1 works on any number of ranks, even alone */
    cancel_unmatched(MPI_ANY_SOURCE, 500, "any-source receive");
    cancel_unmatched(tu_rank, 501, "receive from self");
    {   /* cancelled then Test instead of Wait */
        int v, flag = 0;
        MPI_Request req;
        MPI_Status st;
        TU_CHECK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
        TU_CHECK(MPI_Cancel(&req));
        while (!flag)
            TU_CHECK(MPI_Test(&req, &flag, &st));
        TU_CHECK(MPI_Test_cancelled(&st, &flag));
        TU_ASSERT(flag, "Test_cancelled false for a cancelled any-tag receive (completed by Test)");
    }
    int peer = tu_rank ^ 1;
    if (peer >= tu_size) {
        tu_finish();
        return 0;
    }
    int first = (tu_rank % 2 == 0);
    MPI_Status st;
    int flag;
    unsigned char *buf = tu_malloc(300000);

    /* phase 2 */
    if (first) {
        cancel_unmatched(peer, 7, "receive from the peer");
        tu_token_send(peer, TU_TAG_TOKEN);
        TU_CHECK(MPI_Recv(buf, 300000, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &st));
        tu_check_status(&st, peer, 7, 1000, "message after a cancelled receive");
        tu_check_pattern(buf, 1000, 7, "message after a cancelled receive");
    } else {
        tu_token_recv(peer, TU_TAG_TOKEN);
        tu_fill(buf, 1000, 7);
        TU_CHECK(MPI_Send(buf, 1000, MPI_BYTE, peer, 7, MPI_COMM_WORLD));
    }

    /* phase 3: eager and rendezvous sizes */
    const int sizes[2] = {64, 300000};
    for (int k = 0; k < 2; k++) {
        int n = sizes[k], tag = 20 + k;
        if (first) {
            MPI_Request req;
            memset(buf, 0, (size_t)n);
            TU_CHECK(MPI_Irecv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
            tu_token_send(peer, TU_TAG_TOKEN);  /* receive is posted */
            tu_token_recv(peer, TU_TAG_TOKEN);  /* message has been sent */
            TU_CHECK(MPI_Cancel(&req));
            TU_CHECK(MPI_Wait(&req, &st));
            TU_CHECK(MPI_Test_cancelled(&st, &flag));
            if (flag) {
                /* cancelled: the message must not be lost */
                TU_CHECK(MPI_Recv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
            }
            tu_check_status(&st, peer, tag, n, "receive that raced with cancel");
            tu_check_pattern(buf, (size_t)n, (unsigned)tag, "receive that raced with cancel (%s)",
                             flag ? "cancelled, then received again" : "cancel failed");
            tu_token_send(peer, TU_TAG_TOKEN);
        } else {
            MPI_Request req;
            tu_token_recv(peer, TU_TAG_TOKEN);
            tu_fill(buf, (size_t)n, (unsigned)tag);
            TU_CHECK(MPI_Isend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
            tu_token_send(peer, TU_TAG_TOKEN);
            tu_token_recv(peer, TU_TAG_TOKEN);
            TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
    }

    /* phase 4: Request_free on an active send */
    if (first) {
        MPI_Request req;
        tu_fill(buf, 200000, 44);
        TU_CHECK(MPI_Isend(buf, 200000, MPI_BYTE, peer, 44, MPI_COMM_WORLD, &req));
        TU_CHECK(MPI_Request_free(&req));
        TU_ASSERT(req == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
        /* the buffer may be reused only once we know the data arrived */
        tu_token_recv(peer, TU_TAG_TOKEN);
    } else {
        TU_CHECK(MPI_Recv(buf, 200000, MPI_BYTE, peer, 44, MPI_COMM_WORLD, &st));
        tu_check_status(&st, peer, 44, 200000, "message of a freed send request");
        tu_check_pattern(buf, 200000, 44, "message of a freed send request");
        tu_token_send(peer, TU_TAG_TOKEN);
    }
    free(buf);
    tu_finish();
    return 0;
}
