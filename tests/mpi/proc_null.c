/* proc_null: every operation with MPI_PROC_NULL as partner completes at
 * once; receives report source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0 and
 * leave the buffer alone. Works with any number of ranks (even 1). */
#include "util.h"

/* statuses are pre-filled with junk so that a call that leaves them alone
 * is caught whatever happened to be on the stack */
static void poison(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++) {
        memset(&st[i], 0x5a, sizeof st[i]);
        st[i].MPI_SOURCE = 4242;
        st[i].MPI_TAG = 4243;
    }
}

static void check_null_status(const MPI_Status *st, const char *what)
{
    int count = -1;
    TU_CHECK(MPI_Get_count(st, MPI_INT, &count));
    TU_ASSERT(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && count == 0,
              "%s: status source %d tag %d count %d, expected MPI_PROC_NULL (%d), MPI_ANY_TAG "
              "(%d), 0",
              what, st->MPI_SOURCE, st->MPI_TAG, count, MPI_PROC_NULL, MPI_ANY_TAG);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "proc_null");
    int v[8], w[8];
    for (int i = 0; i < 8; i++)
        v[i] = i, w[i] = -1;
    MPI_Status st;
    MPI_Request req, reqs[4];
    int flag = 0;

    TU_CHECK(MPI_Send(v, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    TU_CHECK(MPI_Ssend(v, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    TU_CHECK(MPI_Rsend(v, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    poison(&st, 1);
    TU_CHECK(MPI_Recv(w, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv");
    poison(&st, 1);
    TU_CHECK(MPI_Recv(w, 8, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv with MPI_ANY_TAG");
    for (int i = 0; i < 8; i++)
        TU_ASSERT(w[i] == -1, "Recv from MPI_PROC_NULL wrote into the buffer");

    TU_CHECK(MPI_Irecv(w, 8, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &req));
    poison(&st, 1);
    TU_CHECK(MPI_Test(&req, &flag, &st));
    TU_ASSERT(flag, "Irecv from MPI_PROC_NULL not complete at the first Test");
    check_null_status(&st, "Irecv + Test");

    TU_CHECK(MPI_Isend(v, 8, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &reqs[0]));
    TU_CHECK(MPI_Issend(v, 8, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &reqs[1]));
    TU_CHECK(MPI_Irsend(v, 8, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &reqs[2]));
    TU_CHECK(MPI_Irecv(w, 8, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &reqs[3]));
    MPI_Status sts[4];
    poison(sts, 4);
    TU_CHECK(MPI_Testall(4, reqs, &flag, sts));
    TU_ASSERT(flag, "Isend/Issend/Irsend/Irecv with MPI_PROC_NULL not complete at the first Testall");
    check_null_status(&sts[3], "Irecv + Testall");

    poison(&st, 1);
    TU_CHECK(MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Probe");
    flag = 0;
    poison(&st, 1);
    TU_CHECK(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
    TU_ASSERT(flag, "Iprobe of MPI_PROC_NULL gave flag 0");
    check_null_status(&st, "Iprobe");

    poison(&st, 1);
    TU_CHECK(MPI_Sendrecv(v, 8, MPI_INT, MPI_PROC_NULL, 4, w, 8, MPI_INT, MPI_PROC_NULL, 4,
                          MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv");

    TU_CHECK(MPI_Send_init(v, 8, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &reqs[0]));
    TU_CHECK(MPI_Recv_init(w, 8, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &reqs[1]));
    for (int it = 0; it < 3; it++) {
        TU_CHECK(MPI_Startall(2, reqs));
        poison(sts, 2);
        TU_CHECK(MPI_Testall(2, reqs, &flag, sts));
        TU_ASSERT(flag, "persistent requests with MPI_PROC_NULL not complete at once");
        check_null_status(&sts[1], "persistent receive");
    }
    TU_CHECK(MPI_Request_free(&reqs[0]));
    TU_CHECK(MPI_Request_free(&reqs[1]));
    for (int i = 0; i < 8; i++)
        TU_ASSERT(w[i] == -1, "a receive from MPI_PROC_NULL wrote into the buffer");

    /* Bsend to MPI_PROC_NULL needs no attached buffer */
    TU_CHECK(MPI_Bsend(v, 8, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD));
    tu_finish();
    return 0;
}
