/* type_errors: datatype errors under MPI_ERRORS_RETURN come back with the
 * right class and leave the library usable:
 *   send of an uncommitted type, of MPI_DATATYPE_NULL, of a freed handle
 *   -> MPI_ERR_TYPE; negative count -> MPI_ERR_COUNT; constructors with a
 *   negative count (MPI_ERR_COUNT) or blocklength (MPI_ERR_ARG), a bad old
 *   type (MPI_ERR_TYPE), a bad subarray (MPI_ERR_ARG); MPI_Type_free of a
 *   predefined type (MPI_ERR_TYPE); get_contents of a named type (MPI_ERR_ARG).
 * Afterwards the pair exchanges a vector to show nothing was left broken. */
#include "util.h"

static void expect(int rc, int cls, const char *what)
{
    int got = -1;
    if (rc == MPI_SUCCESS)
        tu_fail("%s succeeded, expected error class %d", what, cls);
    MPI_Error_class(rc, &got);
    if (got != cls)
        tu_fail("%s: error class %d, expected %d (%s)", what, got, cls, tu_errstr(rc));
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, s, &len);
    if (len == 0)
        tu_fail("%s: empty error string", what);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "type_errors");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int dest = tu_size > 1 ? tu_rank ^ 1 : 0;
    if (dest >= tu_size)
        dest = tu_rank;
    double buf[64] = {0};
    MPI_Datatype v, freed, t;

    TU_CHECK(MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &v));
    expect(MPI_Send(buf, 1, v, dest, 1, MPI_COMM_WORLD), MPI_ERR_TYPE, "Send of an uncommitted type");
    MPI_Request rq;
    expect(MPI_Irecv(buf, 1, v, dest, 1, MPI_COMM_WORLD, &rq), MPI_ERR_TYPE,
           "Irecv of an uncommitted type");
    expect(MPI_Send(buf, 1, MPI_DATATYPE_NULL, dest, 1, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "Send of MPI_DATATYPE_NULL");
    TU_CHECK(MPI_Type_commit(&v));
    expect(MPI_Send(buf, -1, v, dest, 1, MPI_COMM_WORLD), MPI_ERR_COUNT, "Send of count -1");

    TU_CHECK(MPI_Type_contiguous(2, MPI_INT, &freed));
    TU_CHECK(MPI_Type_commit(&freed));
    MPI_Datatype stale = freed;
    TU_CHECK(MPI_Type_free(&freed));
    TU_ASSERT(freed == MPI_DATATYPE_NULL, "MPI_Type_free did not null the handle");
    expect(MPI_Send(buf, 1, stale, dest, 1, MPI_COMM_WORLD), MPI_ERR_TYPE, "Send of a freed type");
    int size;
    expect(MPI_Type_size(stale, &size), MPI_ERR_TYPE, "Type_size of a freed type");
    expect(MPI_Type_free(&stale), MPI_ERR_TYPE, "second MPI_Type_free");

    expect(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT, "Type_contiguous(-1)");
    expect(MPI_Type_vector(2, -1, 2, MPI_INT, &t), MPI_ERR_ARG, "Type_vector blocklength -1");
    expect(MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE,
           "Type_vector of MPI_DATATYPE_NULL");
    int bl[2] = {1, -2}, d[2] = {0, 4};
    expect(MPI_Type_indexed(2, bl, d, MPI_INT, &t), MPI_ERR_ARG, "Type_indexed blocklength -2");
    int sizes[2] = {4, 4}, sub[2] = {2, 5}, st[2] = {0, 0};
    expect(MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG,
           "subarray larger than the array");
    sub[1] = 2;
    expect(MPI_Type_create_subarray(2, sizes, sub, st, 12345, MPI_INT, &t), MPI_ERR_ARG,
           "subarray with a bad order");
    MPI_Datatype pre = MPI_INT;
    expect(MPI_Type_free(&pre), MPI_ERR_TYPE, "Type_free(MPI_INT)");
    int ints[1];
    MPI_Aint aints[1];
    MPI_Datatype types[1];
    expect(MPI_Type_get_contents(MPI_INT, 1, 1, 1, ints, aints, types), MPI_ERR_ARG,
           "get_contents of a named type");
    expect(MPI_Pack(buf, 1, v, buf + 32, 8, &size, MPI_COMM_NULL), MPI_ERR_COMM,
           "Pack with MPI_COMM_NULL");

    /* still usable: exchange the vector with the partner (or self) */
    double out[8], in[8];
    for (int i = 0; i < 8; i++)
        out[i] = tu_rank * 100 + i, in[i] = -1;
    int src = dest;
    TU_CHECK(MPI_Sendrecv(out, 1, v, dest, 2, in, 1, v, src, 2, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++) {
        double want = i % 2 ? -1 : src * 100 + i;
        TU_ASSERT(in[i] == want, "after errors: in[%d] = %g, expected %g", i, in[i], want);
    }
    TU_CHECK(MPI_Type_free(&v));
    tu_finish();
    return 0;
}
