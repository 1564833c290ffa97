/*
 * coll_errors: argument errors of the collectives under MPI_ERRORS_RETURN.
 * Each call must return the right error class with a message naming the
 * function, and the library must stay usable (a real collective follows).
 * Errors only some ranks see are provoked on those ranks only (the others
 * do not call), so no rank is left waiting.
 */
#include "util.h"

static void expect(int rc, int cls, const char *fn, const char *what)
{
    tu_expect(rc, cls, fn, what);
}

static void still_works(void)
{
    int x = tu_rank + 1, y = 0;
    TU_CHECK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (y != tu_size * (tu_size + 1) / 2)
        tu_fail("Allreduce after errors gave %d", y);
}

static void noop(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in, (void)inout, (void)len, (void)t;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_errors");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int a[8] = {0}, b[8] = {0};
    int *counts = tu_malloc(tu_size * sizeof(int)), *displs = tu_malloc(tu_size * sizeof(int));
    for (int i = 0; i < tu_size; i++)
        counts[i] = displs[i] = 0;

    /* every rank sees these */
    expect(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier", "MPI_COMM_NULL");
    expect(MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Bcast",
           "MPI_COMM_NULL");
    expect(MPI_Bcast(a, 1, MPI_INT, tu_size, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Bcast",
           "root = size");
    expect(MPI_Bcast(a, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Bcast", "root -1");
    expect(MPI_Bcast(a, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Bcast",
           "count -1");
    expect(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Bcast",
           "MPI_DATATYPE_NULL");
    MPI_Datatype unc;
    TU_CHECK(MPI_Type_contiguous(2, MPI_INT, &unc));
    expect(MPI_Bcast(a, 1, unc, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Bcast",
           "an uncommitted type");
    expect(MPI_Allgather(a, 1, unc, b, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "MPI_Allgather", "an uncommitted sendtype");
    TU_CHECK(MPI_Type_free(&unc));
    expect(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bcast",
           "MPI_IN_PLACE");
    expect(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
           "MPI_Allreduce", "MPI_OP_NULL");
    expect(MPI_Allreduce(a, b, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP,
           "MPI_Allreduce", "MPI_BAND on MPI_DOUBLE");
    expect(MPI_Reduce(a, b, 1, MPI_FLOAT, MPI_LXOR, 0, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Reduce",
           "MPI_LXOR on MPI_FLOAT");
    expect(MPI_Allreduce(a, a, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Allreduce", "sendbuf == recvbuf");
    expect(MPI_Allreduce(a, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Allreduce", "recvbuf MPI_IN_PLACE");
    expect(MPI_Scan(a, a, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Scan",
           "sendbuf == recvbuf");
    expect(MPI_Exscan(a, b, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Exscan",
           "count -2");
    expect(MPI_Alltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "MPI_Alltoall", "recvbuf MPI_IN_PLACE");
    expect(MPI_Alltoall(a, 1, MPI_INT, a, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "MPI_Alltoall", "sendbuf == recvbuf");
    expect(MPI_Allgather(a, 1, MPI_INT, b, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "MPI_Allgather", "recvcount -1");
    counts[tu_size - 1] = -3;
    expect(MPI_Allgatherv(a, 0, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_COUNT, "MPI_Allgatherv", "a negative recvcounts entry");
    expect(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "MPI_Reduce_scatter", "a negative recvcounts entry");
    expect(MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT,
                         MPI_COMM_WORLD),
           MPI_ERR_COUNT, "MPI_Alltoallv", "negative counts");
    counts[tu_size - 1] = 0;
    expect(MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
           "MPI_Reduce_scatter_block", "MPI_OP_NULL");
    /* MPI_Op_free nulls the program's handle; a copy of a freed handle is
     * undefined (its memory is gone), so only the nulled handle is tried. */
    MPI_Op op;
    TU_CHECK(MPI_Op_create(noop, 1, &op));
    TU_CHECK(MPI_Op_free(&op));
    expect(MPI_Allreduce(a, b, 1, MPI_INT, op, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
           "a freed (nulled) op");
    /* the same on MPI_COMM_SELF */
    expect(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, 1, MPI_COMM_SELF), MPI_ERR_ROOT,
           "MPI_Gather", "root 1 on MPI_COMM_SELF");
    expect(MPI_Scatter(a, 1, MPI_INT, a, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_BUFFER,
           "MPI_Scatter", "sendbuf == recvbuf at the root");
    still_works();

    /* errors of non-roots only: the root does not call */
    if (tu_rank != 0) {
        expect(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD),
               MPI_ERR_BUFFER, "MPI_Gather", "MPI_IN_PLACE at a non-root");
        expect(MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
               MPI_ERR_BUFFER, "MPI_Reduce", "MPI_IN_PLACE at a non-root");
        expect(MPI_Scatter(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD),
               MPI_ERR_BUFFER, "MPI_Scatter", "recvbuf MPI_IN_PLACE at a non-root");
    } else {
        /* errors of the root only */
        expect(MPI_Gather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD),
               MPI_ERR_BUFFER, "MPI_Gather", "recvbuf MPI_IN_PLACE at the root");
        expect(MPI_Gather(a, 1, MPI_INT, a, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
               "MPI_Gather", "sendbuf == recvbuf at the root");
        expect(MPI_Gatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, 0, MPI_COMM_WORLD),
               MPI_ERR_ARG, "MPI_Gatherv", "recvcounts NULL at the root");
        expect(MPI_Scatterv(a, counts, NULL, MPI_INT, b, 0, MPI_INT, 0, MPI_COMM_WORLD),
               MPI_ERR_ARG, "MPI_Scatterv", "displs NULL at the root");
    }
    still_works();
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    free(counts);
    free(displs);
    tu_finish();
    return 0;
}
