/* type_null_empty: MPI_DATATYPE_NULL with count 0 is an empty message in
 * point-to-point (as MPICH accepts it; Open MPI refuses it): MPI_Send,
 * MPI_Isend, MPI_Ssend, MPI_Send_init on one side, MPI_Recv, MPI_Irecv,
 * MPI_Recv_init, MPI_Mprobe + MPI_Mrecv, MPI_Sendrecv on the other; each
 * completes with a status of 0 bytes from the right source and tag. With
 * count 1 the null datatype is MPI_ERR_TYPE (under MPI_ERRORS_RETURN) and the
 * library stays usable. */
#include "util.h"

#define NCASE 5

static void empty_status(const MPI_Status *st, int src, int tag, const char *what)
{
    tu_check_status(st, src, tag, 0, what);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "type_null_empty");
    tu_need_ranks(2);
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int sender;
    int peer = tu_pair(&sender);
    const MPI_Datatype null = MPI_DATATYPE_NULL;
    MPI_Status st;
    MPI_Request rq;

    for (int c = 0; c < NCASE; c++) {
        if (sender) {
            switch (c) {
            case 0: TU_CHECK(MPI_Send(NULL, 0, null, peer, c, MPI_COMM_WORLD)); break;
            case 1:
                TU_CHECK(MPI_Isend(NULL, 0, null, peer, c, MPI_COMM_WORLD, &rq));
                TU_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
                break;
            case 2: TU_CHECK(MPI_Ssend(NULL, 0, null, peer, c, MPI_COMM_WORLD)); break;
            case 3:
                TU_CHECK(MPI_Send_init(NULL, 0, null, peer, c, MPI_COMM_WORLD, &rq));
                for (int i = 0; i < 2; i++) {
                    TU_CHECK(MPI_Start(&rq));
                    TU_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
                }
                TU_CHECK(MPI_Request_free(&rq));
                break;
            default:
                TU_CHECK(MPI_Sendrecv(NULL, 0, null, peer, c, NULL, 0, null, peer, c,
                                      MPI_COMM_WORLD, &st));
                empty_status(&st, peer, c, "MPI_Sendrecv with null types (sender side)");
                break;
            }
            continue;
        }
        switch (c) {
        case 0:
            TU_CHECK(MPI_Recv(NULL, 0, null, peer, c, MPI_COMM_WORLD, &st));
            empty_status(&st, peer, c, "MPI_Recv of count 0, MPI_DATATYPE_NULL");
            break;
        case 1:
            TU_CHECK(MPI_Irecv(NULL, 0, null, peer, c, MPI_COMM_WORLD, &rq));
            TU_CHECK(MPI_Wait(&rq, &st));
            empty_status(&st, peer, c, "MPI_Irecv of count 0, MPI_DATATYPE_NULL");
            break;
        case 2: {
            MPI_Message msg;
            TU_CHECK(MPI_Mprobe(peer, c, MPI_COMM_WORLD, &msg, &st));
            TU_CHECK(MPI_Mrecv(NULL, 0, null, &msg, &st));
            empty_status(&st, peer, c, "MPI_Mrecv of count 0, MPI_DATATYPE_NULL");
            break;
        }
        case 3:
            TU_CHECK(MPI_Recv_init(NULL, 0, null, peer, c, MPI_COMM_WORLD, &rq));
            for (int i = 0; i < 2; i++) {
                TU_CHECK(MPI_Start(&rq));
                TU_CHECK(MPI_Wait(&rq, &st));
                empty_status(&st, peer, c, "MPI_Recv_init of count 0, MPI_DATATYPE_NULL");
            }
            TU_CHECK(MPI_Request_free(&rq));
            break;
        default:
            TU_CHECK(MPI_Sendrecv(NULL, 0, null, peer, c, NULL, 0, null, peer, c,
                                  MPI_COMM_WORLD, &st));
            empty_status(&st, peer, c, "MPI_Sendrecv with null types");
            break;
        }
    }

    /* a null datatype with a nonzero count is an error, and nothing is sent */
    int v[2] = {0, 0}, rc, cls = -1;
    if (sender)
        rc = MPI_Send(v, 1, null, peer, 50, MPI_COMM_WORLD);
    else
        rc = MPI_Irecv(v, 1, null, peer, 50, MPI_COMM_WORLD, &rq);
    TU_ASSERT(rc != MPI_SUCCESS, "count 1 of MPI_DATATYPE_NULL was accepted");
    TU_CHECK(MPI_Error_class(rc, &cls));
    TU_ASSERT(cls == MPI_ERR_TYPE, "count 1 of MPI_DATATYPE_NULL: expected MPI_ERR_TYPE, got %s",
              tu_errstr(rc));

    /* still usable */
    if (sender) {
        v[0] = 41;
        TU_CHECK(MPI_Send(v, 1, MPI_INT, peer, 51, MPI_COMM_WORLD));
    } else {
        TU_CHECK(MPI_Recv(v, 1, MPI_INT, peer, 51, MPI_COMM_WORLD, &st));
        TU_ASSERT(v[0] == 41, "after the errors: received %d, expected 41", v[0]);
    }
    tu_finish();
    return 0;
}
