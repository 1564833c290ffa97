/*
 * nbc_errors: argument errors of the nonblocking collectives under
 * MPI_ERRORS_RETURN (the error class of each, and the library still works
 * afterwards): bad root, negative count, null datatype, MPI_OP_NULL, aliased
 * buffers, MPI_IN_PLACE where not allowed, NULL request, MPI_COMM_NULL, the
 * intercommunicator rules (Iscan/Iexscan MPI_ERR_COMM, no MPI_IN_PLACE, roots
 * MPI_ROOT / MPI_PROC_NULL / a remote rank), MPI_Cancel
 * of a collective request (MPI_ERR_REQUEST; the operation still completes),
 * a root-only argument error (the other ranks' operation goes on; later
 * operations must still match), and a truncating Igather whose error
 * MPI_Wait reports at the root.
 */
#include "util.h"

static int rank, size;

static void expect(int rc, int cls, const char *what)
{
    int got;
    if (rc == MPI_SUCCESS)
        tu_fail("%s: succeeded, expected error class %d", what, cls);
    MPI_Error_class(rc, &got);
    if (got != cls) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        tu_fail("%s: error class %d (%s), expected %d", what, got, msg, cls);
    }
}

/* An Iallreduce that must work: the library is still usable. */
static void still_works(const char *after)
{
    int x = rank + 1;
    MPI_Request r;
    TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (x != size * (size + 1) / 2)
        tu_fail("after %s: Iallreduce gave %d", after, x);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "nbc_errors");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int a[8] = {0}, b[8] = {0};
    MPI_Request r = MPI_REQUEST_NULL;

    expect(MPI_Ibcast(a, 1, MPI_INT, size, MPI_COMM_WORLD, &r), MPI_ERR_ROOT, "Ibcast root=size");
    expect(MPI_Ireduce(a, b, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD, &r), MPI_ERR_ROOT,
           "Ireduce root=-1");
    expect(MPI_Iallreduce(a, b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r), MPI_ERR_COUNT,
           "Iallreduce count=-1");
    expect(MPI_Iallgather(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, MPI_COMM_WORLD, &r),
           MPI_ERR_TYPE, "Iallgather sendtype NULL");
    expect(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &r), MPI_ERR_OP,
           "Iallreduce MPI_OP_NULL");
    expect(MPI_Iallreduce(a, a, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r), MPI_ERR_BUFFER,
           "Iallreduce sendbuf == recvbuf");
    expect(MPI_Ialltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD, &r),
           MPI_ERR_BUFFER, "Ialltoall recvbuf MPI_IN_PLACE");
    expect(MPI_Ibarrier(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "Ibarrier request NULL");
    expect(MPI_Ibarrier(MPI_COMM_NULL, &r), MPI_ERR_COMM, "Ibarrier MPI_COMM_NULL");
    int counts[16] = {0}, displs[16] = {0};
    counts[size - 1] = -2;
    expect(MPI_Iallgatherv(a, 0, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD, &r),
           MPI_ERR_COUNT, "Iallgatherv negative recvcount");
    if (r != MPI_REQUEST_NULL)
        tu_fail("a failed call set the request");
    still_works("argument errors");

    /* cancel: refused, and the operation still completes */
    int x = 1;
    TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    expect(MPI_Cancel(&r), MPI_ERR_REQUEST, "MPI_Cancel of an Iallreduce");
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (x != size)
        tu_fail("cancelled Iallreduce gave %d", x);

    /* a root-only error: the root's call fails, the others' goes on (with
     * nothing to send, so it completes without the root) and the next
     * operations must still match */
    if (size > 1) {
        int v[2] = {rank, rank}, got[32];
        int rc = MPI_Igather(v, 0, MPI_INT, got, 0, rank == 0 ? MPI_DATATYPE_NULL : MPI_INT, 0,
                             MPI_COMM_WORLD, &r);
        if (rank == 0)
            expect(rc, MPI_ERR_TYPE, "Igather recvtype NULL at the root");
        else {
            TU_CHECK(rc);
            TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        still_works("a root-only error");
    }

    /* truncation inside the schedule: reported by MPI_Wait at the root */
    if (size > 1) {
        int v[4] = {rank, rank, rank, rank}, got[4 * 16];
        TU_CHECK(MPI_Igather(v, 4, MPI_INT, got, 2, MPI_INT, 0, MPI_COMM_WORLD, &r));
        int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rank == 0)
            expect(rc, MPI_ERR_TRUNCATE, "Igather with too small receive blocks");
        else
            TU_CHECK(rc);
        still_works("a truncated Igather");
    }

    /* intercommunicator rules */
    if (size > 1) {
        MPI_Comm half, inter;
        int rsize;
        TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
        TU_CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter));
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        MPI_Comm_remote_size(inter, &rsize);
        expect(MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, inter, &r), MPI_ERR_COMM, "Iscan intercomm");
        expect(MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, inter, &r), MPI_ERR_COMM,
               "Iexscan intercomm");
        expect(MPI_Iallreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, inter, &r), MPI_ERR_BUFFER,
               "Iallreduce intercomm in place");
        expect(MPI_Ibcast(a, 1, MPI_INT, rsize, inter, &r), MPI_ERR_ROOT,
               "Ibcast intercomm root=remote size");
        TU_CHECK(MPI_Ibarrier(inter, &r));
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    still_works("the intercommunicator calls");
    tu_finish();
    return 0;
}
