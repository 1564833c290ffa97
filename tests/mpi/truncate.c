/* truncate: a message longer than the receive buffer is an error of class
 * MPI_ERR_TRUNCATE at the receiver (with MPI_ERRORS_RETURN), nothing is
 * written past the end of the receive buffer, the sender still completes,
 * and the library stays usable. Ranks pair up; even ranks send.
 * Cases (each with an eager-sized and a rendezvous-sized message):
 *   Recv into a too small buffer; Irecv + Wait; Irecv + Waitall (which gives
 *   MPI_ERR_IN_STATUS and the class in status.MPI_ERROR); Mprobe + Mrecv.
 * The error message must give the size of the incoming message.
 * Then a normal exchange in both directions. */
#include "util.h"

#define GUARD 256

static void expect_trunc(int rc, const char *what, int n)
{
    int cls = -1;
    TU_ASSERT(rc != MPI_SUCCESS, "%s: %d bytes into a smaller buffer returned MPI_SUCCESS", what, n);
    TU_CHECK(MPI_Error_class(rc, &cls));
    TU_ASSERT(cls == MPI_ERR_TRUNCATE, "%s: expected MPI_ERR_TRUNCATE (%d), got %s", what,
              MPI_ERR_TRUNCATE, tu_errstr(rc));
    /* the message says how much came in (Faro and MPICH do; Open MPI does not) */
    char msg[MPI_MAX_ERROR_STRING], num[24];
    int len = 0;
    TU_CHECK(MPI_Error_string(rc, msg, &len));
    snprintf(num, sizeof num, " %d ", n);
    TU_ASSERT(strstr(msg, num) != NULL, "%s: the error message does not give the incoming size "
              "(%d bytes): %s", what, n, msg);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "truncate");
    tu_need_ranks(2);
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int sender;
    int peer = tu_pair(&sender);
    const int sizes[2] = {400, 1 << 20};
    const int small = 100;
    unsigned char *buf = tu_malloc((1 << 20) + GUARD);

    for (int s = 0; s < 2; s++) {
        int n = sizes[s];
        for (int c = 0; c < 4; c++) {
            int tag = 10 * s + c;
            if (sender) {
                tu_fill(buf, (size_t)n, (unsigned)tag);
                int rc = MPI_Send(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
                TU_ASSERT(rc == MPI_SUCCESS, "sender of a truncated message (%d bytes, case %d) "
                                             "got %s", n, c, tu_errstr(rc));
                continue;
            }
            MPI_Status st, sts[1];
            MPI_Request req;
            MPI_Message msg;
            int rc;
            memset(buf, 0xA5, (size_t)small + GUARD);
            switch (c) {
            case 0:
                rc = MPI_Recv(buf, small, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
                expect_trunc(rc, "MPI_Recv", n);
                break;
            case 1:
                TU_CHECK(MPI_Irecv(buf, small, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
                rc = MPI_Wait(&req, &st);
                expect_trunc(rc, "MPI_Irecv + MPI_Wait", n);
                break;
            case 2:
                TU_CHECK(MPI_Irecv(buf, small, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
                rc = MPI_Waitall(1, &req, sts);
                TU_ASSERT(rc != MPI_SUCCESS, "MPI_Waitall of a truncated receive returned "
                                             "MPI_SUCCESS");
                {
                    int cls = -1;
                    TU_CHECK(MPI_Error_class(rc, &cls));
                    TU_ASSERT(cls == MPI_ERR_IN_STATUS || cls == MPI_ERR_TRUNCATE,
                              "MPI_Waitall: expected MPI_ERR_IN_STATUS, got %s", tu_errstr(rc));
                    if (cls == MPI_ERR_IN_STATUS)
                        expect_trunc(sts[0].MPI_ERROR, "MPI_Waitall status.MPI_ERROR", n);
                }
                break;
            default:
                TU_CHECK(MPI_Mprobe(peer, tag, MPI_COMM_WORLD, &msg, &st));
                rc = MPI_Mrecv(buf, small, MPI_BYTE, &msg, &st);
                expect_trunc(rc, "MPI_Mprobe + MPI_Mrecv", n);
                break;
            }
            tu_check_fill(buf + small, GUARD, 0xA5,
                          "guard after a %d-byte buffer receiving %d bytes (case %d)", small, n, c);
        }
    }

    /* still usable: full-size exchange both ways */
    for (int dir = 0; dir < 2; dir++) {
        int n = sizes[1];
        MPI_Status st;
        if ((dir == 0) == sender) {
            tu_fill(buf, (size_t)n, 777u + (unsigned)dir);
            TU_CHECK(MPI_Send(buf, n, MPI_BYTE, peer, 99, MPI_COMM_WORLD));
        } else {
            memset(buf, 0, (size_t)n);
            TU_CHECK(MPI_Recv(buf, n, MPI_BYTE, peer, 99, MPI_COMM_WORLD, &st));
            tu_check_status(&st, peer, 99, n, "exchange after truncation");
            tu_check_pattern(buf, (size_t)n, 777u + (unsigned)dir, "exchange after truncation");
        }
    }
    free(buf);
    tu_finish();
    return 0;
}
