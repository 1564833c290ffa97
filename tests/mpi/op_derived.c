/*
 * op_derived: predefined ops on derived datatypes through MPI_Reduce_local.
 * A type built from one basic type takes the ops of that type: the elements
 * it selects are reduced and the gaps between them are left alone, for
 * contiguous and strided types, pair types with padding (MAXLOC on a vector
 * of MPI_DOUBLE_INT), and counts large enough to go through the library in
 * several pieces. A type mixing basic types takes no predefined op but
 * MPI_REPLACE and user ops.
 */
#include "util.h"

static void check_class(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != want)
        tu_fail("%s: expected error class %d, got %s", what, want,
                rc == MPI_SUCCESS ? "MPI_SUCCESS" : tu_errstr(rc));
}

/* vector(blocks of 2 ints, stride 5) with count elements: SUM on the
 * selected ints, gaps untouched. */
static void int_vector(int count)
{
    MPI_Datatype vec;
    TU_CHECK(MPI_Type_vector(3, 2, 5, MPI_INT, &vec));
    TU_CHECK(MPI_Type_commit(&vec));
    MPI_Aint lb, ext;
    TU_CHECK(MPI_Type_get_extent(vec, &lb, &ext));
    int per = (int)(ext / (MPI_Aint)sizeof(int)); /* 12 ints per element */
    size_t n = (size_t)count * (size_t)per;
    int *in = tu_malloc(n * sizeof(int)), *io = tu_malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++) {
        in[i] = (int)i;
        io[i] = -7 * (int)i;
    }
    TU_CHECK(MPI_Reduce_local(in, io, count, vec, MPI_SUM));
    for (size_t i = 0; i < n; i++) {
        size_t j = i % (size_t)per;
        int selected = j % 5 < 2;
        int want = selected ? -6 * (int)i : -7 * (int)i;
        if (io[i] != want)
            tu_fail("SUM on a vector of MPI_INT, count %d: int %zu (%s) is %d, expected %d",
                    count, i, selected ? "selected" : "gap", io[i], want);
    }
    check_class(MPI_Reduce_local(in, io, count, vec, MPI_MAXLOC), MPI_ERR_OP,
                "MPI_MAXLOC on a vector of MPI_INT");
    TU_CHECK(MPI_Type_free(&vec));
    free(in);
    free(io);
}

static void double_contig(void)
{
    MPI_Datatype c4;
    TU_CHECK(MPI_Type_contiguous(4, MPI_DOUBLE, &c4));
    TU_CHECK(MPI_Type_commit(&c4));
    double in[12], io[12];
    for (int i = 0; i < 12; i++) {
        in[i] = i % 3;
        io[i] = 1.5;
    }
    TU_CHECK(MPI_Reduce_local(in, io, 3, c4, MPI_MAX));
    for (int i = 0; i < 12; i++)
        TU_ASSERT(io[i] == (i % 3 > 1.5 ? i % 3 : 1.5), "MAX on contiguous(4, MPI_DOUBLE): %d is %g",
                  i, io[i]);
    check_class(MPI_Reduce_local(in, io, 3, c4, MPI_BAND), MPI_ERR_OP,
                "MPI_BAND on contiguous MPI_DOUBLE");
    TU_CHECK(MPI_Type_free(&c4));
}

struct di { double v; int i; };

/* MAXLOC/MINLOC on a vector of MPI_DOUBLE_INT (padding inside each pair,
 * every other pair selected) and on a contiguous of MPI_2INT. */
static void pairs(void)
{
    MPI_Datatype vdi, c2i;
    TU_CHECK(MPI_Type_vector(4, 1, 2, MPI_DOUBLE_INT, &vdi));
    TU_CHECK(MPI_Type_commit(&vdi));
    enum { E = 3, P = E * 8 }; /* room for 3 elements (7 pairs of extent each) */
    struct di in[P], io[P], ref[P];
    MPI_Aint lb, ext;
    TU_CHECK(MPI_Type_get_extent(vdi, &lb, &ext));
    int per = (int)(ext / (MPI_Aint)sizeof(struct di)); /* 7 */
    for (int k = 0; k < P; k++) {
        in[k].v = k % 3;
        in[k].i = 100 - k;
        io[k].v = (k + 1) % 3 == 0 ? 0 : k % 3; /* ties with in[] on many k */
        io[k].i = k;
        ref[k] = io[k];
    }
    for (int e = 0; e < E; e++)
        for (int b = 0; b < 4; b++) {
            int k = e * per + 2 * b;
            if (in[k].v > io[k].v)
                ref[k] = in[k];
            else if (in[k].v == io[k].v)
                ref[k].i = in[k].i < io[k].i ? in[k].i : io[k].i;
        }
    TU_CHECK(MPI_Reduce_local(in, io, E, vdi, MPI_MAXLOC));
    for (int k = 0; k < P; k++)
        TU_ASSERT(io[k].v == ref[k].v && io[k].i == ref[k].i,
                  "MAXLOC on a vector of MPI_DOUBLE_INT: pair %d is (%g, %d), expected (%g, %d)",
                  k, io[k].v, io[k].i, ref[k].v, ref[k].i);
    check_class(MPI_Reduce_local(in, io, E, vdi, MPI_SUM), MPI_ERR_OP,
                "MPI_SUM on a vector of MPI_DOUBLE_INT");
    TU_CHECK(MPI_Type_free(&vdi));

    TU_CHECK(MPI_Type_contiguous(3, MPI_2INT, &c2i));
    TU_CHECK(MPI_Type_commit(&c2i));
    int a[12], b[12];
    for (int k = 0; k < 6; k++) {
        a[2 * k] = k % 2;
        a[2 * k + 1] = 10 + k;
        b[2 * k] = 0;
        b[2 * k + 1] = 20 - k;
    }
    TU_CHECK(MPI_Reduce_local(a, b, 2, c2i, MPI_MINLOC));
    for (int k = 0; k < 6; k++) {
        int wi = k % 2 ? 20 - k : (10 + k < 20 - k ? 10 + k : 20 - k);
        TU_ASSERT(b[2 * k] == 0 && b[2 * k + 1] == wi,
                  "MINLOC on contiguous(3, MPI_2INT): pair %d is (%d, %d), expected (0, %d)", k,
                  b[2 * k], b[2 * k + 1], wi);
    }
    TU_CHECK(MPI_Type_free(&c2i));
}

struct mixed { int n; double d; };

static void add_mixed(void *in, void *io, int *len, MPI_Datatype *dt)
{
    const struct mixed *a = in;
    struct mixed *b = io;
    for (int k = 0; k < *len; k++) {
        b[k].n += a[k].n;
        b[k].d += a[k].d;
    }
}

/* A struct of MPI_INT and MPI_DOUBLE: no predefined op but MPI_REPLACE. */
static void mixed(void)
{
    MPI_Datatype st;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(struct mixed, n), offsetof(struct mixed, d)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    TU_CHECK(MPI_Type_create_struct(2, bl, disp, ty, &st));
    TU_CHECK(MPI_Type_commit(&st));
    struct mixed in[4], io[4];
    for (int k = 0; k < 4; k++) {
        in[k].n = k;
        in[k].d = k / 2.0;
        io[k].n = 10;
        io[k].d = 0.25;
    }
    check_class(MPI_Reduce_local(in, io, 4, st, MPI_SUM), MPI_ERR_OP,
                "MPI_SUM on a struct of MPI_INT and MPI_DOUBLE");
    MPI_Op op;
    TU_CHECK(MPI_Op_create(add_mixed, 1, &op));
    TU_CHECK(MPI_Reduce_local(in, io, 4, st, op));
    for (int k = 0; k < 4; k++)
        TU_ASSERT(io[k].n == 10 + k && io[k].d == 0.25 + k / 2.0,
                  "user op on a struct type: element %d is (%d, %g)", k, io[k].n, io[k].d);
    TU_CHECK(MPI_Op_free(&op));
    TU_CHECK(MPI_Reduce_local(in, io, 4, st, MPI_REPLACE));
    for (int k = 0; k < 4; k++)
        TU_ASSERT(io[k].n == k && io[k].d == k / 2.0, "MPI_REPLACE on a struct type: "
                  "element %d is (%d, %g)", k, io[k].n, io[k].d);
    TU_CHECK(MPI_Type_free(&st));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "op_derived");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int_vector(1);
    int_vector(7);
    int_vector(20000); /* 6 ints of data per element: several packing pieces */
    double_contig();
    pairs();
    mixed();
    tu_finish();
    return 0;
}
