/*
 * op_user: MPI_Op_create with commutative and non-commutative functions
 * through MPI_Reduce_local. The non-commutative op is 2x2 integer matrix
 * multiplication, so the order of the operands shows: inout = in * inout.
 * The function must get the datatype handle and the buffers in the
 * datatype's own layout (MPI_DOUBLE_INT with its padding).
 */
#include "util.h"

static MPI_Datatype seen_type;
static int calls;

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    seen_type = *dt;
    calls++;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

/* len counts ints; every 4 are one row-major 2x2 matrix. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout;
    for (int m = 0; m + 4 <= *len; m += 4) {
        int r[4] = {a[m] * b[m] + a[m + 1] * b[m + 2], a[m] * b[m + 1] + a[m + 1] * b[m + 3],
                    a[m + 2] * b[m] + a[m + 3] * b[m + 2],
                    a[m + 2] * b[m + 1] + a[m + 3] * b[m + 3]};
        memcpy(b + m, r, sizeof r);
    }
}

struct di { double v; int i; };

/* A user MAXLOC that keeps the larger index on ties (so it differs from the
 * predefined one), reading the C struct layout. */
static void maxloc_hi(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    seen_type = *dt;
    const struct di *a = in;
    struct di *b = inout;
    for (int k = 0; k < *len; k++)
        if (a[k].v > b[k].v || (a[k].v == b[k].v && a[k].i > b[k].i))
            b[k] = a[k];
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "op_user");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    /* commutative */
    MPI_Op sum;
    TU_CHECK(MPI_Op_create(my_sum, 1, &sum));
    int c = -1;
    TU_CHECK(MPI_Op_commutative(sum, &c));
    TU_ASSERT(c == 1, "commutative user op: MPI_Op_commutative says %d", c);
    int a[100], b[100];
    for (int i = 0; i < 100; i++) {
        a[i] = i;
        b[i] = 1000 * i;
    }
    TU_CHECK(MPI_Reduce_local(a, b, 100, MPI_INT, sum));
    TU_ASSERT(calls == 1 && seen_type == MPI_INT, "user op called %d times, datatype %s", calls,
              seen_type == MPI_INT ? "MPI_INT" : "not MPI_INT");
    for (int i = 0; i < 100; i++)
        TU_ASSERT(b[i] == 1001 * i, "user sum: element %d is %d, expected %d", i, b[i], 1001 * i);
    TU_CHECK(MPI_Reduce_local(a, b, 0, MPI_INT, sum)); /* count 0 is fine */
    TU_CHECK(MPI_Op_free(&sum));
    TU_ASSERT(sum == MPI_OP_NULL, "MPI_Op_free did not set the handle to MPI_OP_NULL");

    /* non-commutative: the result is in * inout, never inout * in */
    MPI_Op mm;
    TU_CHECK(MPI_Op_create(matmul, 0, &mm));
    TU_CHECK(MPI_Op_commutative(mm, &c));
    TU_ASSERT(c == 0, "non-commutative user op: MPI_Op_commutative says %d", c);
    int A[8] = {1, 2, 3, 4, 0, 1, 1, 0}, B[8] = {5, 6, 7, 8, 2, 0, 0, 3};
    int AB[8] = {19, 22, 43, 50, 0, 3, 2, 0}; /* A*B; B*A is {23,34,31,46, 0,2,3,0} */
    TU_CHECK(MPI_Reduce_local(A, B, 8, MPI_INT, mm));
    for (int i = 0; i < 8; i++)
        TU_ASSERT(B[i] == AB[i], "matrix product: entry %d is %d, expected %d (in * inout)", i,
                  B[i], AB[i]);
    TU_CHECK(MPI_Op_free(&mm));

    /* the datatype's own layout, padding included */
    MPI_Op mh;
    TU_CHECK(MPI_Op_create(maxloc_hi, 1, &mh));
    struct di x[3] = {{1.0, 5}, {2.0, 1}, {3.0, 7}}, y[3] = {{1.0, 9}, {2.5, 2}, {3.0, 1}};
    TU_CHECK(MPI_Reduce_local(x, y, 3, MPI_DOUBLE_INT, mh));
    TU_ASSERT(seen_type == MPI_DOUBLE_INT, "user op did not get MPI_DOUBLE_INT");
    TU_ASSERT(y[0].v == 1.0 && y[0].i == 9 && y[1].v == 2.5 && y[1].i == 2 && y[2].v == 3.0 &&
                  y[2].i == 7,
              "user maxloc on MPI_DOUBLE_INT: (%g,%d) (%g,%d) (%g,%d)", y[0].v, y[0].i, y[1].v,
              y[1].i, y[2].v, y[2].i);
    TU_CHECK(MPI_Op_free(&mh));

    /* errors */
    int cls = -1;
    MPI_Error_class(MPI_Op_free(&mh), &cls); /* mh is MPI_OP_NULL now */
    TU_ASSERT(cls == MPI_ERR_OP, "MPI_Op_free(MPI_OP_NULL): class %d, expected MPI_ERR_OP", cls);
    MPI_Error_class(MPI_Op_commutative(MPI_OP_NULL, &c), &cls);
    TU_ASSERT(cls == MPI_ERR_OP, "MPI_Op_commutative(MPI_OP_NULL): class %d", cls);
    tu_finish();
    return 0;
}
