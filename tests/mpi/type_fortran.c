/* type_fortran: the Fortran and C++ datatype handles a C program can use.
 *   - every predefined handle has its size, extent, MPI_COMBINER_NAMED and its
 *     name (MPI_Type_get_name), cannot be freed, and converts with c2f/f2c;
 *   - MPI_Type_match_size gives a type of the class and size asked for, and
 *     MPI_ERR_ARG for a size no type has;
 *   - MPI_Type_create_f90_real/complex/integer give a type of the right size
 *     whose envelope is MPI_COMBINER_F90_* with the arguments given, the same
 *     handle for the same arguments, MPI_ERR_ARG for kinds that do not exist,
 *     and work in communication and reductions;
 *   - Fortran types move through point-to-point (also in a derived type) and
 *     reduce through MPI_Allreduce (SUM on integers, reals, complexes, LOR on
 *     LOGICAL, MAXLOC on MPI_2DOUBLE_PRECISION) over all ranks.
 * Sizes are gfortran's default kinds: INTEGER and LOGICAL 4 bytes, REAL 4,
 * DOUBLE PRECISION 8; MPI_INTEGER16 is INTEGER(16). */
#include "util.h"

#include <complex.h>

struct named {
    MPI_Datatype t;
    const char *name;
    int size;
};

#define N(t, size) {t, #t, size}
static const struct named named[] = {
    /* Fortran */
    N(MPI_INTEGER, 4), N(MPI_REAL, 4), N(MPI_DOUBLE_PRECISION, 8), N(MPI_COMPLEX, 8),
    N(MPI_DOUBLE_COMPLEX, 16), N(MPI_LOGICAL, 4), N(MPI_CHARACTER, 1), N(MPI_INTEGER1, 1),
    N(MPI_INTEGER2, 2), N(MPI_INTEGER4, 4), N(MPI_INTEGER8, 8), N(MPI_INTEGER16, 16),
    N(MPI_REAL4, 4),
    N(MPI_REAL8, 8), N(MPI_COMPLEX8, 8), N(MPI_COMPLEX16, 16), N(MPI_2INTEGER, 8),
    N(MPI_2REAL, 8), N(MPI_2DOUBLE_PRECISION, 16),
    /* C++ */
    N(MPI_CXX_BOOL, 1), N(MPI_CXX_FLOAT_COMPLEX, 8), N(MPI_CXX_DOUBLE_COMPLEX, 16),
    N(MPI_CXX_LONG_DOUBLE_COMPLEX, (int)sizeof(long double _Complex)),
    /* C */
    N(MPI_CHAR, 1), N(MPI_SIGNED_CHAR, 1), N(MPI_UNSIGNED_CHAR, 1), N(MPI_BYTE, 1),
    N(MPI_WCHAR, (int)sizeof(wchar_t)), N(MPI_SHORT, (int)sizeof(short)),
    N(MPI_UNSIGNED_SHORT, (int)sizeof(short)), N(MPI_INT, (int)sizeof(int)),
    N(MPI_UNSIGNED, (int)sizeof(int)), N(MPI_LONG, (int)sizeof(long)),
    N(MPI_UNSIGNED_LONG, (int)sizeof(long)), N(MPI_LONG_LONG_INT, (int)sizeof(long long)),
    N(MPI_UNSIGNED_LONG_LONG, (int)sizeof(long long)), N(MPI_FLOAT, 4), N(MPI_DOUBLE, 8),
    N(MPI_LONG_DOUBLE, (int)sizeof(long double)), N(MPI_INT8_T, 1), N(MPI_INT16_T, 2),
    N(MPI_INT32_T, 4), N(MPI_INT64_T, 8), N(MPI_UINT8_T, 1), N(MPI_UINT16_T, 2),
    N(MPI_UINT32_T, 4), N(MPI_UINT64_T, 8), N(MPI_C_BOOL, 1), N(MPI_C_COMPLEX, 8),
    N(MPI_C_DOUBLE_COMPLEX, 16), N(MPI_C_LONG_DOUBLE_COMPLEX, (int)sizeof(long double _Complex)),
    N(MPI_AINT, (int)sizeof(MPI_Aint)), N(MPI_OFFSET, (int)sizeof(MPI_Offset)),
    N(MPI_COUNT, (int)sizeof(MPI_Count)), N(MPI_PACKED, 1),
    N(MPI_FLOAT_INT, 8), N(MPI_DOUBLE_INT, 12), N(MPI_LONG_INT, (int)sizeof(long) + 4),
    N(MPI_2INT, 8), N(MPI_SHORT_INT, (int)sizeof(short) + 4),
    N(MPI_LONG_DOUBLE_INT, (int)sizeof(long double) + 4),
};

static int class_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void check_named(void)
{
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        const struct named *n = &named[i];
        int size = -1, len = -1, ni, na, nt, comb;
        char name[MPI_MAX_OBJECT_NAME];
        TU_CHECK(MPI_Type_size(n->t, &size));
        TU_ASSERT(size == n->size, "%s: size %d, expected %d", n->name, size, n->size);
        TU_CHECK(MPI_Type_get_name(n->t, name, &len));
        TU_ASSERT(strcmp(name, n->name) == 0 && len == (int)strlen(n->name),
                  "MPI_Type_get_name(%s) gave \"%s\" (length %d)", n->name, name, len);
        TU_CHECK(MPI_Type_get_envelope(n->t, &ni, &na, &nt, &comb));
        TU_ASSERT(comb == MPI_COMBINER_NAMED, "%s: combiner %d, expected MPI_COMBINER_NAMED",
                  n->name, comb);
        MPI_Fint f = MPI_Type_c2f(n->t);
        TU_ASSERT(MPI_Type_f2c(f) == n->t, "%s: c2f/f2c does not give the handle back", n->name);
        MPI_Datatype t = n->t;
        TU_ASSERT(class_of(MPI_Type_free(&t)) == MPI_ERR_TYPE && t == n->t,
                  "MPI_Type_free(%s) did not fail with MPI_ERR_TYPE", n->name);
    }
    /* the synonyms */
    TU_ASSERT(MPI_LONG_LONG == MPI_LONG_LONG_INT, "MPI_LONG_LONG is not MPI_LONG_LONG_INT");
    TU_ASSERT(MPI_C_FLOAT_COMPLEX == MPI_C_COMPLEX, "MPI_C_FLOAT_COMPLEX is not MPI_C_COMPLEX");
    MPI_Aint lb, extent;
    TU_CHECK(MPI_Type_get_extent(MPI_2DOUBLE_PRECISION, &lb, &extent));
    TU_ASSERT(lb == 0 && extent == 16, "MPI_2DOUBLE_PRECISION: lb %ld extent %ld", (long)lb,
              (long)extent);
}

static void check_match_size(void)
{
    static const struct { int cls, size; } ok[] = {
        {MPI_TYPECLASS_INTEGER, 1}, {MPI_TYPECLASS_INTEGER, 2}, {MPI_TYPECLASS_INTEGER, 4},
        {MPI_TYPECLASS_INTEGER, 8}, {MPI_TYPECLASS_INTEGER, 16}, {MPI_TYPECLASS_REAL, 4},
        {MPI_TYPECLASS_REAL, 8},
        {MPI_TYPECLASS_REAL, (int)sizeof(long double)}, {MPI_TYPECLASS_COMPLEX, 8},
        {MPI_TYPECLASS_COMPLEX, 16}, {MPI_TYPECLASS_COMPLEX, (int)sizeof(long double _Complex)}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        int size = -1;
        TU_CHECK(MPI_Type_match_size(ok[i].cls, ok[i].size, &t));
        TU_CHECK(MPI_Type_size(t, &size));
        TU_ASSERT(size == ok[i].size, "MPI_Type_match_size(class %d, %d) gave a type of %d bytes",
                  ok[i].cls, ok[i].size, size);
    }
    MPI_Datatype t;
    TU_ASSERT(class_of(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t)) == MPI_ERR_ARG,
              "MPI_Type_match_size(REAL, 3 bytes) did not fail with MPI_ERR_ARG");
    TU_ASSERT(class_of(MPI_Type_match_size(99, 4, &t)) == MPI_ERR_ARG,
              "MPI_Type_match_size(class 99) did not fail with MPI_ERR_ARG");
}

/* An f90 type: its size, its envelope and contents, and that it moves and reduces. */
static void check_f90(const char *what, MPI_Datatype t, int combiner, int p, int r, int size)
{
    int s = -1, ni, na, nt, comb;
    TU_CHECK(MPI_Type_size(t, &s));
    TU_ASSERT(s == size, "%s: size %d, expected %d", what, s, size);
    TU_CHECK(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb));
    int want_ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    TU_ASSERT(comb == combiner && ni == want_ni && na == 0 && nt == 0,
              "%s: envelope (ni %d, na %d, nt %d, combiner %d), expected (%d, 0, 0, %d)", what,
              ni, na, nt, comb, want_ni, combiner);
    int ints[2] = {-7, -7};
    MPI_Datatype none;
    TU_CHECK(MPI_Type_get_contents(t, 2, 0, 1, ints, NULL, &none));
    if (combiner == MPI_COMBINER_F90_INTEGER)
        TU_ASSERT(ints[0] == r, "%s: contents give r = %d, expected %d", what, ints[0], r);
    else
        TU_ASSERT(ints[0] == p && ints[1] == r, "%s: contents give (%d, %d), expected (%d, %d)",
                  what, ints[0], ints[1], p, r);
    MPI_Datatype t2 = t;
    TU_ASSERT(class_of(MPI_Type_free(&t2)) == MPI_ERR_TYPE, "%s: MPI_Type_free did not fail",
              what);
    unsigned char a[64], b[64];
    tu_fill(a, sizeof a, 9);
    memset(b, 0, sizeof b);
    MPI_Request rq[2];
    TU_CHECK(MPI_Irecv(b, 2, t, 0, 5, MPI_COMM_SELF, &rq[0]));
    TU_CHECK(MPI_Isend(a, 2, t, 0, 5, MPI_COMM_SELF, &rq[1]));
    TU_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    TU_ASSERT(memcmp(a, b, 2 * (size_t)size) == 0, "%s: sent and received data differ", what);
    TU_CHECK(MPI_Reduce_local(a, b, 2, t, MPI_SUM)); /* it reduces as its kind */
}

static void check_f90_all(void)
{
    static const struct { int p, r, size; } reals[] = {
        {3, 10, 4}, {3, MPI_UNDEFINED, 4}, {MPI_UNDEFINED, 10, 4}, {6, 37, 4},
        {7, 30, 8}, {7, MPI_UNDEFINED, 8}, {MPI_UNDEFINED, 38, 8}, {15, 307, 8}};
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        MPI_Datatype t, again, c;
        char what[64];
        int p = reals[i].p, r = reals[i].r;
        TU_CHECK(MPI_Type_create_f90_real(p, r, &t));
        snprintf(what, sizeof what, "MPI_Type_create_f90_real(%d, %d)", p, r);
        check_f90(what, t, MPI_COMBINER_F90_REAL, p, r, reals[i].size);
        TU_CHECK(MPI_Type_create_f90_real(p, r, &again));
        TU_ASSERT(again == t, "%s twice gave two handles", what);
        TU_CHECK(MPI_Type_create_f90_complex(p, r, &c));
        snprintf(what, sizeof what, "MPI_Type_create_f90_complex(%d, %d)", p, r);
        check_f90(what, c, MPI_COMBINER_F90_COMPLEX, p, r, 2 * reals[i].size);
    }
    static const struct { int r, size; } ints[] = {{1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 4},
                                                   {9, 4}, {10, 8}, {18, 8}, {19, 16},
                                                   {38, 16}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        MPI_Datatype t;
        char what[64];
        TU_CHECK(MPI_Type_create_f90_integer(ints[i].r, &t));
        snprintf(what, sizeof what, "MPI_Type_create_f90_integer(%d)", ints[i].r);
        check_f90(what, t, MPI_COMBINER_F90_INTEGER, 0, ints[i].r, ints[i].size);
    }
    /* a dup of one is a derived type of it */
    MPI_Datatype t, d, got[1];
    int ni, na, nt, comb;
    TU_CHECK(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &t));
    TU_CHECK(MPI_Type_dup(t, &d));
    TU_CHECK(MPI_Type_get_envelope(d, &ni, &na, &nt, &comb));
    TU_ASSERT(comb == MPI_COMBINER_DUP && nt == 1, "dup of an f90 type: combiner %d", comb);
    TU_CHECK(MPI_Type_get_contents(d, 0, 0, 1, NULL, NULL, got));
    TU_ASSERT(got[0] == t, "the dup's contents are not the f90 type itself");
    TU_CHECK(MPI_Type_free(&d));
    /* kinds that do not exist */
    TU_ASSERT(class_of(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &t)) == MPI_ERR_ARG,
              "f90_real(40, undefined) did not fail with MPI_ERR_ARG");
    TU_ASSERT(class_of(MPI_Type_create_f90_real(MPI_UNDEFINED, 5000, &t)) == MPI_ERR_ARG,
              "f90_real(undefined, 5000) did not fail with MPI_ERR_ARG");
    TU_ASSERT(class_of(MPI_Type_create_f90_complex(MPI_UNDEFINED, MPI_UNDEFINED, &t)) ==
                  MPI_ERR_ARG, "f90_complex(undefined, undefined) did not fail");
    TU_ASSERT(class_of(MPI_Type_create_f90_integer(39, &t)) == MPI_ERR_ARG,
              "f90_integer(39) did not fail with MPI_ERR_ARG");
}

#define M 37

/* Point-to-point of Fortran types between pairs, also inside a vector. */
static void check_p2p(int peer, int sender)
{
    double _Complex z[M];
    int32_t lg[M];
    struct { float v, i; } pr[M];
    double d[2 * M];
    MPI_Datatype vec;
    TU_CHECK(MPI_Type_vector(M, 1, 2, MPI_REAL8, &vec));
    TU_CHECK(MPI_Type_commit(&vec));
    if (sender) {
        for (int i = 0; i < M; i++) {
            z[i] = i + 0.5 * I * i;
            lg[i] = i % 3 == 0;
            pr[i].v = (float)i / 4;
            pr[i].i = (float)(M - i);
            d[2 * i] = 1.0 / (i + 1);
            d[2 * i + 1] = -1;
        }
        TU_CHECK(MPI_Send(z, M, MPI_DOUBLE_COMPLEX, peer, 1, MPI_COMM_WORLD));
        TU_CHECK(MPI_Send(lg, M, MPI_LOGICAL, peer, 2, MPI_COMM_WORLD));
        TU_CHECK(MPI_Send(pr, M, MPI_2REAL, peer, 3, MPI_COMM_WORLD));
        TU_CHECK(MPI_Send(d, 1, vec, peer, 4, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        int n;
        TU_CHECK(MPI_Recv(z, M, MPI_DOUBLE_COMPLEX, peer, 1, MPI_COMM_WORLD, &st));
        TU_CHECK(MPI_Get_count(&st, MPI_DOUBLE_COMPLEX, &n));
        TU_ASSERT(n == M, "MPI_DOUBLE_COMPLEX: count %d", n);
        TU_CHECK(MPI_Recv(lg, M, MPI_LOGICAL, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Recv(pr, M, MPI_2REAL, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 2 * M; i++)
            d[i] = 5;
        TU_CHECK(MPI_Recv(d, 1, vec, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < M; i++) {
            TU_ASSERT(z[i] == i + 0.5 * I * i, "MPI_DOUBLE_COMPLEX element %d differs", i);
            TU_ASSERT(lg[i] == (i % 3 == 0), "MPI_LOGICAL element %d is %d", i, (int)lg[i]);
            TU_ASSERT(pr[i].v == (float)i / 4 && pr[i].i == (float)(M - i),
                      "MPI_2REAL element %d is (%g, %g)", i, pr[i].v, pr[i].i);
            TU_ASSERT(d[2 * i] == 1.0 / (i + 1) && d[2 * i + 1] == 5,
                      "vector of MPI_REAL8: elements %d, %d are %g, %g", 2 * i, 2 * i + 1,
                      d[2 * i], d[2 * i + 1]);
        }
    }
    TU_CHECK(MPI_Type_free(&vec));
}

static void check_allreduce(void)
{
    int n = tu_size, me = tu_rank;
    int32_t iv[3] = {me, 2 * me, -me}, isum[3];
    TU_CHECK(MPI_Allreduce(iv, isum, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    int tri = n * (n - 1) / 2;
    TU_ASSERT(isum[0] == tri && isum[1] == 2 * tri && isum[2] == -tri,
              "MPI_SUM on MPI_INTEGER: (%d, %d, %d)", isum[0], isum[1], isum[2]);
    float rv = (float)me + 0.25f, rmax;
    TU_CHECK(MPI_Allreduce(&rv, &rmax, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD));
    TU_ASSERT(rmax == (float)(n - 1) + 0.25f, "MPI_MAX on MPI_REAL: %g", rmax);
    double _Complex zv = me + 1.0 * I, zsum;
    TU_CHECK(MPI_Allreduce(&zv, &zsum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    TU_ASSERT(zsum == tri + n * 1.0 * I, "MPI_SUM on MPI_DOUBLE_COMPLEX: %g%+gi", creal(zsum),
              cimag(zsum));
    int32_t lv = me == n - 1 ? -1 : 0, lor;
    TU_CHECK(MPI_Allreduce(&lv, &lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    TU_ASSERT(lor != 0, "MPI_LOR on MPI_LOGICAL: %d (false)", (int)lor);
    struct { double v, i; } pv = {(double)(me % 2), (double)me}, pmax;
    TU_CHECK(MPI_Allreduce(&pv, &pmax, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD));
    double want = n > 1 ? 1 : 0;
    TU_ASSERT(pmax.v == want && pmax.i == want, "MPI_MAXLOC on MPI_2DOUBLE_PRECISION: (%g, %g)",
              pmax.v, pmax.i);
    int rc = MPI_Reduce_local(&rv, &rmax, 1, MPI_REAL, MPI_BAND);
    TU_ASSERT(class_of(rc) == MPI_ERR_OP, "MPI_BAND on MPI_REAL did not fail with MPI_ERR_OP");
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "type_fortran");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    check_named();
    check_match_size();
    check_f90_all();
    check_allreduce();
    if (tu_size >= 2) {
        int sender;
        int peer = tu_pair(&sender);
        check_p2p(peer, sender);
    }
    tu_finish();
    return 0;
}
