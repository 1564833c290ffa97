/*
 * MPI_Isendrecv and MPI_Isendrecv_replace: a ring shift (contiguous and
 * strided data, several sizes up to rendezvous), the status of the receive,
 * with self and MPI_PROC_NULL, completion only when both halves are done,
 * MPI_Request_free of an active request, MPI_Cancel of an unmatched receive,
 * and argument errors under MPI_ERRORS_RETURN.
 */
#include "util.h"

static void check_ints(const int *buf, int n, int from, int round, const char *what)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != from * 100000 + round * 1000 + i % 1000)
            tu_fail("%s: element %d is %d, expected %d (from rank %d)", what, i, buf[i],
                    from * 100000 + round * 1000 + i % 1000, from);
}

static void fill_ints(int *buf, int n, int me, int round)
{
    for (int i = 0; i < n; i++)
        buf[i] = me * 100000 + round * 1000 + i % 1000;
}

static void check_status(const MPI_Status *st, int src, int tag, int count, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag || n != count)
        tu_fail("%s: status source %d tag %d count %d, expected %d %d %d", what,
                st->MPI_SOURCE, st->MPI_TAG, n, src, tag, count);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "isendrecv");
    int right = (tu_rank + 1) % tu_size, left = (tu_rank - 1 + tu_size) % tu_size;
    const int sizes[] = {0, 1, 100, 70000};
    int *sbuf = malloc(70000 * 2 * sizeof(int)), *rbuf = malloc(70000 * 2 * sizeof(int));
    MPI_Status st;
    MPI_Request req;

    /* ring shift, contiguous */
    for (int k = 0; k < 4; k++) {
        int n = sizes[k];
        fill_ints(sbuf, n, tu_rank, k);
        memset(rbuf, 0xff, (size_t)n * sizeof(int));
        TU_CHECK(MPI_Isendrecv(sbuf, n, MPI_INT, right, 10 + k, rbuf, n, MPI_INT, left,
                               10 + k, MPI_COMM_WORLD, &req));
        TU_CHECK(MPI_Wait(&req, &st));
        TU_ASSERT(req == MPI_REQUEST_NULL, "Isendrecv: request not MPI_REQUEST_NULL after wait");
        check_ints(rbuf, n, left, k, "Isendrecv ring");
        check_status(&st, left, 10 + k, n, "Isendrecv ring");
    }

    /* replace, contiguous then strided (every other int) */
    for (int k = 0; k < 4; k++) {
        int n = sizes[k];
        fill_ints(sbuf, n, tu_rank, k);
        TU_CHECK(MPI_Isendrecv_replace(sbuf, n, MPI_INT, right, 20, left, MPI_ANY_TAG,
                                       MPI_COMM_WORLD, &req));
        TU_CHECK(MPI_Wait(&req, &st));
        check_ints(sbuf, n, left, k, "Isendrecv_replace ring");
        check_status(&st, left, 20, n, "Isendrecv_replace ring");
    }
    MPI_Datatype every_other;
    TU_CHECK(MPI_Type_vector(1000, 1, 2, MPI_INT, &every_other));
    TU_CHECK(MPI_Type_commit(&every_other));
    for (int i = 0; i < 2000; i++)
        sbuf[i] = i % 2 ? -1 : tu_rank * 100000 + i / 2;
    TU_CHECK(MPI_Isendrecv_replace(sbuf, 1, every_other, right, 21, left, 21, MPI_COMM_WORLD,
                                   &req));
    TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2000; i++) {
        int want = i % 2 ? -1 : left * 100000 + i / 2;
        if (sbuf[i] != want)
            tu_fail("Isendrecv_replace strided: int %d is %d, expected %d", i, sbuf[i], want);
    }
    TU_CHECK(MPI_Type_free(&every_other));

    /* with self, and with MPI_PROC_NULL on both sides */
    fill_ints(sbuf, 50, tu_rank, 7);
    TU_CHECK(MPI_Isendrecv(sbuf, 50, MPI_INT, tu_rank, 30, rbuf, 50, MPI_INT, tu_rank, 30,
                           MPI_COMM_WORLD, &req));
    TU_CHECK(MPI_Wait(&req, &st));
    check_ints(rbuf, 50, tu_rank, 7, "Isendrecv with self");
    check_status(&st, tu_rank, 30, 50, "Isendrecv with self");
    fill_ints(sbuf, 50, tu_rank, 8);
    TU_CHECK(MPI_Isendrecv_replace(sbuf, 50, MPI_INT, tu_rank, 31, tu_rank, 31, MPI_COMM_WORLD,
                                   &req));
    TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_ints(sbuf, 50, tu_rank, 8, "Isendrecv_replace with self");
    TU_CHECK(MPI_Isendrecv(sbuf, 5, MPI_INT, MPI_PROC_NULL, 0, rbuf, 5, MPI_INT, MPI_PROC_NULL,
                           0, MPI_COMM_WORLD, &req));
    TU_CHECK(MPI_Wait(&req, &st));
    TU_ASSERT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
              "Isendrecv with MPI_PROC_NULL: status source %d tag %d", st.MPI_SOURCE,
              st.MPI_TAG);

    /* not complete until the receive is: rank 0 holds back its send to rank 1 */
    if (tu_size > 1) {
        if (tu_rank == 1) {
            int flag = 1;
            TU_CHECK(MPI_Isendrecv(sbuf, 1, MPI_INT, 0, 40, rbuf, 1, MPI_INT, 0, 41,
                                   MPI_COMM_WORLD, &req));
            for (int i = 0; i < 100; i++)
                TU_CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            TU_ASSERT(!flag, "Isendrecv completed before its receive was matched");
            tu_token_send(0, TU_TAG_TOKEN);
            TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            TU_ASSERT(rbuf[0] == 4141, "Isendrecv held back: got %d, expected 4141", rbuf[0]);
        } else if (tu_rank == 0) {
            int x = 4141, y;
            tu_token_recv(1, TU_TAG_TOKEN);
            TU_CHECK(MPI_Recv(&y, 1, MPI_INT, 1, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            TU_CHECK(MPI_Send(&x, 1, MPI_INT, 1, 41, MPI_COMM_WORLD));
        }
    }

    /* MPI_Request_free of an active request: the data still arrives. Its
     * buffers are never touched again (nothing says when the send is done). */
    int *fsend = malloc(100 * sizeof(int)), *frecv = malloc(100 * sizeof(int));
    fill_ints(fsend, 100, tu_rank, 9);
    for (int i = 0; i < 100; i++)
        frecv[i] = -1;
    TU_CHECK(MPI_Isendrecv(fsend, 100, MPI_INT, right, 50, frecv, 100, MPI_INT, left, 50,
                           MPI_COMM_WORLD, &req));
    TU_CHECK(MPI_Request_free(&req));
    TU_ASSERT(req == MPI_REQUEST_NULL, "Request_free left the request set");
    for (int done = 0; !done;) { /* until it has all landed (the watchdog ends a hang) */
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        done = 1;
        for (int i = 0; i < 100 && done; i++)
            done = frecv[i] == left * 100000 + 9 * 1000 + i % 1000;
    }
    tu_barrier(); /* every rank's receive is done: the freed sends were received */

    /* MPI_Cancel of an unmatched receive */
    TU_CHECK(MPI_Isendrecv(sbuf, 1, MPI_INT, MPI_PROC_NULL, 0, rbuf, 1, MPI_INT, tu_rank, 60,
                           MPI_COMM_WORLD, &req));
    TU_CHECK(MPI_Cancel(&req));
    TU_CHECK(MPI_Wait(&req, &st));
    int cancelled = 0;
    TU_CHECK(MPI_Test_cancelled(&st, &cancelled));
    TU_ASSERT(cancelled, "Isendrecv: cancelled receive not reported by MPI_Test_cancelled");

    /* errors */
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    tu_expect(MPI_Isendrecv(sbuf, 1, MPI_INT, right, 0, rbuf, 1, MPI_INT, left, 0,
                            MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Isendrecv", "NULL request");
    tu_expect(MPI_Isendrecv(sbuf, 1, MPI_INT, tu_size, 0, rbuf, 1, MPI_INT, left, 0,
                            MPI_COMM_WORLD, &req), MPI_ERR_RANK, "MPI_Isendrecv", "dest = size");
    tu_expect(MPI_Isendrecv(sbuf, 1, MPI_INT, right, 0, rbuf, -1, MPI_INT, left, 0,
                            MPI_COMM_WORLD, &req), MPI_ERR_COUNT, "MPI_Isendrecv",
              "recvcount -1");
    tu_expect(MPI_Isendrecv(sbuf, 1, MPI_INT, right, -3, rbuf, 1, MPI_INT, left, 0,
                            MPI_COMM_WORLD, &req), MPI_ERR_TAG, "MPI_Isendrecv", "sendtag -3");
    tu_expect(MPI_Isendrecv_replace(sbuf, 1, MPI_DATATYPE_NULL, right, 0, left, 0,
                                    MPI_COMM_WORLD, &req), MPI_ERR_TYPE,
              "MPI_Isendrecv_replace", "MPI_DATATYPE_NULL");
    tu_expect(MPI_Isendrecv_replace(sbuf, 1, MPI_INT, right, 0, left, 0, MPI_COMM_NULL, &req),
              MPI_ERR_COMM, "MPI_Isendrecv_replace", "MPI_COMM_NULL");
    /* truncation is reported at completion, the library still usable after */
    TU_CHECK(MPI_Isendrecv(sbuf, 10, MPI_INT, right, 70, rbuf, 5, MPI_INT, left, 70,
                           MPI_COMM_WORLD, &req));
    tu_expect(MPI_Wait(&req, &st), MPI_ERR_TRUNCATE, "MPI_Wait", "receive of 10 into 5");
    fill_ints(sbuf, 10, tu_rank, 3);
    TU_CHECK(MPI_Isendrecv(sbuf, 10, MPI_INT, right, 71, rbuf, 10, MPI_INT, left, 71,
                           MPI_COMM_WORLD, &req));
    TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_ints(rbuf, 10, left, 3, "Isendrecv after an error");

    free(sbuf);
    free(rbuf);
    tu_finish();
    free(fsend);
    free(frecv);
    return 0;
}
