/*
 * c2f: integer handles. For every handle kind, c2f then f2c gives back the
 * same handle (predefined, created and null ones), null handles are 0, two
 * live objects get different integers, and after an object is freed its
 * integer converts to the null handle. Also MPI_Status_c2f/f2c and
 * MPI_Status_set_cancelled.
 */
#include "util.h"

#define ROUND(Kind, h)                                                            \
    do {                                                                          \
        MPI_Fint f_ = MPI_##Kind##_c2f(h);                                        \
        if (MPI_##Kind##_f2c(f_) != (h))                                          \
            tu_fail("MPI_" #Kind "_f2c(MPI_" #Kind "_c2f(%s)) is not %s", #h, #h); \
    } while (0)

static void noop_fn(void *in, void *io, int *len, MPI_Datatype *dt) {}
static void eh_fn(MPI_Comm *comm, int *code, ...) {}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "c2f");

    /* null handles are 0 both ways */
    TU_ASSERT(MPI_Comm_c2f(MPI_COMM_NULL) == 0 && MPI_Comm_f2c(0) == MPI_COMM_NULL, "comm null");
    TU_ASSERT(MPI_Type_c2f(MPI_DATATYPE_NULL) == 0 && MPI_Type_f2c(0) == MPI_DATATYPE_NULL,
              "type null");
    TU_ASSERT(MPI_Group_c2f(MPI_GROUP_NULL) == 0 && MPI_Group_f2c(0) == MPI_GROUP_NULL,
              "group null");
    TU_ASSERT(MPI_Request_c2f(MPI_REQUEST_NULL) == 0 && MPI_Request_f2c(0) == MPI_REQUEST_NULL,
              "request null");
    TU_ASSERT(MPI_Op_c2f(MPI_OP_NULL) == 0 && MPI_Op_f2c(0) == MPI_OP_NULL, "op null");
    TU_ASSERT(MPI_Info_c2f(MPI_INFO_NULL) == 0 && MPI_Info_f2c(0) == MPI_INFO_NULL, "info null");
    TU_ASSERT(MPI_Errhandler_c2f(MPI_ERRHANDLER_NULL) == 0 &&
                  MPI_Errhandler_f2c(0) == MPI_ERRHANDLER_NULL,
              "errhandler null");
    TU_ASSERT(MPI_Message_c2f(MPI_MESSAGE_NULL) == 0 && MPI_Message_f2c(0) == MPI_MESSAGE_NULL,
              "message null");
    /* integers that name nothing give the null handle */
    TU_ASSERT(MPI_Comm_f2c(123456) == MPI_COMM_NULL && MPI_Op_f2c(-5) == MPI_OP_NULL,
              "f2c of an unknown integer is not the null handle");

    /* predefined handles */
    ROUND(Comm, MPI_COMM_WORLD);
    ROUND(Comm, MPI_COMM_SELF);
    TU_ASSERT(MPI_Comm_c2f(MPI_COMM_WORLD) != MPI_Comm_c2f(MPI_COMM_SELF),
              "WORLD and SELF share an integer");
    ROUND(Type, MPI_INT);
    ROUND(Type, MPI_DOUBLE_INT);
    TU_ASSERT(MPI_Type_c2f(MPI_INT) == MPI_Type_c2f(MPI_INT), "c2f not stable");
    ROUND(Op, MPI_SUM);
    ROUND(Op, MPI_MAXLOC);
    ROUND(Info, MPI_INFO_ENV);
    ROUND(Errhandler, MPI_ERRORS_RETURN);
    ROUND(Errhandler, MPI_ERRORS_ARE_FATAL);
    ROUND(Message, MPI_MESSAGE_NO_PROC);

    /* created objects, and their integers after they are freed */
    MPI_Comm dup;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ROUND(Comm, dup);
    MPI_Fint fdup = MPI_Comm_c2f(dup);
    TU_CHECK(MPI_Comm_free(&dup));
    TU_ASSERT(MPI_Comm_f2c(fdup) == MPI_COMM_NULL, "freed comm still converts");

    MPI_Group g;
    TU_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    ROUND(Group, g);
    TU_CHECK(MPI_Group_free(&g));

    MPI_Datatype vec;
    TU_CHECK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    TU_CHECK(MPI_Type_commit(&vec));
    ROUND(Type, vec);
    MPI_Fint fvec = MPI_Type_c2f(vec);
    TU_CHECK(MPI_Type_free(&vec));
    TU_ASSERT(MPI_Type_f2c(fvec) == MPI_DATATYPE_NULL, "freed datatype still converts");

    MPI_Op op, op2;
    TU_CHECK(MPI_Op_create(noop_fn, 1, &op));
    TU_CHECK(MPI_Op_create(noop_fn, 0, &op2));
    ROUND(Op, op);
    ROUND(Op, op2);
    MPI_Fint fop = MPI_Op_c2f(op);
    TU_ASSERT(fop != MPI_Op_c2f(op2) && fop != MPI_Op_c2f(MPI_SUM), "two ops share an integer");
    TU_CHECK(MPI_Op_free(&op));
    TU_ASSERT(MPI_Op_f2c(fop) == MPI_OP_NULL, "freed op still converts");
    TU_CHECK(MPI_Op_free(&op2));

    MPI_Info info;
    TU_CHECK(MPI_Info_create(&info));
    ROUND(Info, info);
    MPI_Fint finfo = MPI_Info_c2f(info);
    TU_CHECK(MPI_Info_free(&info));
    TU_ASSERT(MPI_Info_f2c(finfo) == MPI_INFO_NULL, "freed info still converts");

    MPI_Errhandler eh;
    TU_CHECK(MPI_Comm_create_errhandler(eh_fn, &eh));
    ROUND(Errhandler, eh);
    TU_CHECK(MPI_Errhandler_free(&eh));

    /* a request, converted while it is pending */
    int x = 7, y = 0;
    MPI_Request rq[2];
    TU_CHECK(MPI_Irecv(&y, 1, MPI_INT, tu_rank, 5, MPI_COMM_WORLD, &rq[0]));
    MPI_Fint frq = MPI_Request_c2f(rq[0]);
    TU_ASSERT(MPI_Request_f2c(frq) == rq[0], "request round trip");
    TU_CHECK(MPI_Isend(&x, 1, MPI_INT, tu_rank, 5, MPI_COMM_WORLD, &rq[1]));
    ROUND(Request, rq[1]);
    rq[0] = MPI_Request_f2c(frq);
    TU_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    TU_ASSERT(y == 7, "message through a converted request: %d", y);

    /* a message from MPI_Mprobe */
    MPI_Message msg;
    TU_CHECK(MPI_Isend(&x, 1, MPI_INT, tu_rank, 6, MPI_COMM_WORLD, &rq[0]));
    TU_CHECK(MPI_Mprobe(tu_rank, 6, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE));
    ROUND(Message, msg);
    msg = MPI_Message_f2c(MPI_Message_c2f(msg));
    y = 0;
    TU_CHECK(MPI_Mrecv(&y, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    TU_ASSERT(y == 7, "Mrecv through a converted message: %d", y);

    /* statuses */
    MPI_Status st, back;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = 3;
    st.MPI_TAG = 44;
    st.MPI_ERROR = MPI_ERR_TAG;
    TU_CHECK(MPI_Status_set_cancelled(&st, 1));
    MPI_Fint fst[MPI_F_STATUS_SIZE];
    TU_CHECK(MPI_Status_c2f(&st, fst));
    TU_ASSERT(fst[MPI_F_SOURCE] == 3 && fst[MPI_F_TAG] == 44 && fst[MPI_F_ERROR] == MPI_ERR_TAG,
              "MPI_Status_c2f: source %d tag %d error %d", fst[MPI_F_SOURCE], fst[MPI_F_TAG],
              fst[MPI_F_ERROR]);
    TU_CHECK(MPI_Status_f2c(fst, &back));
    int flag = 0;
    TU_CHECK(MPI_Test_cancelled(&back, &flag));
    TU_ASSERT(back.MPI_SOURCE == 3 && back.MPI_TAG == 44 && flag == 1,
              "status round trip: source %d tag %d cancelled %d", back.MPI_SOURCE, back.MPI_TAG,
              flag);
    TU_CHECK(MPI_Status_set_cancelled(&back, 0));
    TU_CHECK(MPI_Test_cancelled(&back, &flag));
    TU_ASSERT(flag == 0, "MPI_Status_set_cancelled(0) left the flag set");

    tu_finish();
    return 0;
}
