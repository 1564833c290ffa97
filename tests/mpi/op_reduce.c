/*
 * op_reduce: every predefined op on every predefined datatype through
 * MPI_Reduce_local, checked against a reference computed here. Pairs the
 * standard allows (MPI-3.1 5.9.2, written out again below, plus the logical
 * ops on MPI_AINT/OFFSET/COUNT and Fortran integers) must give the reference
 * exactly; every other pair must fail with MPI_ERR_OP. The Fortran and C++
 * types are in the table too.
 * MAXLOC/MINLOC data has many equal values, so the tie rule (smallest index)
 * is exercised. Lengths are odd so vector loops' remainders run too.
 */
#include "util.h"

#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

enum { MAX, MIN, SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR, MAXLOC, MINLOC, NOPS };
static const char *op_names[NOPS] = {"MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD",
                                     "MPI_LAND", "MPI_LOR", "MPI_LXOR", "MPI_BAND",
                                     "MPI_BOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC"};
static MPI_Op op_handle(int o)
{
    MPI_Op h[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR,
                      MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
    return h[o];
}

/* The type groups of the standard's table. */
enum { C_INT, C_MULTI, C_FLOAT, C_COMPLEX, C_LOGICAL, C_BYTE, C_PAIR, C_NONE };

static int allowed(int o, int cat)
{
    switch (o) {
    case MAX: case MIN: return cat == C_INT || cat == C_MULTI || cat == C_FLOAT;
    case SUM: case PROD:
        return cat == C_INT || cat == C_MULTI || cat == C_FLOAT || cat == C_COMPLEX;
    /* MPI-3.1 leaves MPI_AINT/OFFSET/COUNT out of the logical ops; MPICH, Open MPI and Faro
     * take them, as the integers they are */
    case LAND: case LOR: case LXOR: return cat == C_INT || cat == C_MULTI || cat == C_LOGICAL;
    case BAND: case BOR: case BXOR: return cat == C_INT || cat == C_MULTI || cat == C_BYTE;
    default: return cat == C_PAIR;
    }
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

#define N 1003
static int checked, rejected;

/* Run op o; returns 1 when it ran (and must be checked), 0 when rejected. */
static int run(int o, const void *in, void *io, int n, MPI_Datatype dt, const char *tname,
               int cat)
{
    int rc = MPI_Reduce_local(in, io, n, dt, op_handle(o));
    if (allowed(o, cat)) {
        if (rc != MPI_SUCCESS)
            tu_fail("%s on %s: %s", op_names[o], tname, tu_errstr(rc));
        checked++;
        return 1;
    }
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_OP)
        tu_fail("%s on %s is not defined by the standard, but gave %s (expected MPI_ERR_OP)",
                op_names[o], tname, rc == MPI_SUCCESS ? "MPI_SUCCESS" : tu_errstr(rc));
    rejected++;
    return 0;
}

#define INT_REF(o, T, x, y)                                                      \
    ((o) == MAX ? ((x) > (y) ? (x) : (y))                                        \
     : (o) == MIN ? ((x) < (y) ? (x) : (y))                                      \
     : (o) == SUM ? (T)((unsigned long long)(x) + (unsigned long long)(y))       \
     : (o) == PROD ? (T)((unsigned long long)(x) * (unsigned long long)(y))      \
     : (o) == LAND ? (T)((x) && (y))                                             \
     : (o) == LOR ? (T)((x) || (y))                                              \
     : (o) == LXOR ? (T)(!(x) != !(y))                                           \
     : (o) == BAND ? (T)((x) & (y))                                              \
     : (o) == BOR ? (T)((x) | (y)) : (T)((x) ^ (y)))

/* Integers: wide random bits (wrapping sums and products, sign matters for
 * MAX/MIN), small values with zeros for the logical ops. */
#define INT_TEST(fn, T)                                                          \
    static void fn(MPI_Datatype dt, const char *tname, int cat)                  \
    {                                                                            \
        T *in = tu_malloc(N * sizeof(T)), *io = tu_malloc(N * sizeof(T));        \
        T *ref = tu_malloc(N * sizeof(T));                                       \
        for (int o = 0; o < NOPS; o++) {                                         \
            int logical = o == LAND || o == LOR || o == LXOR;                    \
            for (int i = 0; i < N; i++) {                                        \
                uint64_t a = rnd(), b = rnd();                                   \
                if (logical) {                                                   \
                    a %= 3;                                                      \
                    b %= 3;                                                      \
                }                                                                \
                memcpy(&in[i], &a, sizeof(T));                                   \
                memcpy(&io[i], &b, sizeof(T));                                   \
                ref[i] = INT_REF(o, T, in[i], io[i]);                            \
            }                                                                    \
            if (!run(o, in, io, N, dt, tname, cat))                              \
                continue;                                                        \
            for (int i = 0; i < N; i++)                                          \
                if (io[i] != ref[i])                                             \
                    tu_fail("%s on %s: element %d is %lld, expected %lld",       \
                            op_names[o], tname, i, (long long)io[i],             \
                            (long long)ref[i]);                                  \
        }                                                                        \
        free(in);                                                                \
        free(io);                                                                \
        free(ref);                                                               \
    }

INT_TEST(t_schar, signed char)
INT_TEST(t_uchar, unsigned char)
INT_TEST(t_short, short)
INT_TEST(t_ushort, unsigned short)
INT_TEST(t_int, int)
INT_TEST(t_uint, unsigned)
INT_TEST(t_long, long)
INT_TEST(t_ulong, unsigned long)
INT_TEST(t_llong, long long)
INT_TEST(t_ullong, unsigned long long)
INT_TEST(t_i8, int8_t)
INT_TEST(t_i16, int16_t)
INT_TEST(t_i32, int32_t)
INT_TEST(t_i64, int64_t)
INT_TEST(t_u8, uint8_t)
INT_TEST(t_u16, uint16_t)
INT_TEST(t_u32, uint32_t)
INT_TEST(t_u64, uint64_t)
INT_TEST(t_aint, MPI_Aint)
INT_TEST(t_offset, MPI_Offset)
INT_TEST(t_count, MPI_Count)

#ifdef __SIZEOF_INT128__
/* MPI_INTEGER16 (gfortran's INTEGER(16)): 128-bit values from two random words. */
static void t_i128(MPI_Datatype dt, const char *tname, int cat)
{
    typedef unsigned __int128 u128;
    __int128 *in = tu_malloc(N * 16), *io = tu_malloc(N * 16), *ref = tu_malloc(N * 16);
    for (int o = 0; o < NOPS; o++) {
        int logical = o == LAND || o == LOR || o == LXOR;
        for (int i = 0; i < N; i++) {
            u128 a = (u128)rnd() << 64 | rnd(), b = (u128)rnd() << 64 | rnd();
            if (logical)
                a %= 3, b %= 3;
            __int128 x = (__int128)a, y = (__int128)b;
            in[i] = x, io[i] = y;
            ref[i] = o == MAX ? (x > y ? x : y) : o == MIN ? (x < y ? x : y)
                   : o == SUM ? (__int128)(a + b) : o == PROD ? (__int128)(a * b)
                   : o == LAND ? (x && y) : o == LOR ? (x || y) : o == LXOR ? (!x != !y)
                   : o == BAND ? (__int128)(a & b) : o == BOR ? (__int128)(a | b)
                   : (__int128)(a ^ b);
        }
        if (!run(o, in, io, N, dt, tname, cat))
            continue;
        for (int i = 0; i < N; i++)
            if (io[i] != ref[i])
                tu_fail("%s on %s: element %d differs from the reference", op_names[o], tname,
                        i);
    }
    free(in);
    free(io);
    free(ref);
}
#endif

/* Floating and complex: multiples of 1/4 in a small range, so every sum and
 * product is exact and the comparison can be exact. */
#define FLOAT_TEST(fn, T, complex_)                                              \
    static void fn(MPI_Datatype dt, const char *tname, int cat)                  \
    {                                                                            \
        T *in = tu_malloc(N * sizeof(T)), *io = tu_malloc(N * sizeof(T));        \
        T *ref = tu_malloc(N * sizeof(T));                                       \
        for (int o = 0; o < NOPS; o++) {                                         \
            for (int i = 0; i < N; i++) {                                        \
                in[i] = (T)((int)(rnd() % 33) - 16) / 4;                         \
                io[i] = (T)((int)(rnd() % 33) - 16) / 4;                         \
                if (complex_) {                                                  \
                    in[i] += (T)((int)(rnd() % 9) - 4) / 2 * (T)I;               \
                    io[i] += (T)((int)(rnd() % 9) - 4) / 2 * (T)I;               \
                }                                                                \
                ref[i] = o == SUM ? in[i] + io[i] : o == PROD ? in[i] * io[i]    \
                                                              : (T)0;            \
                if (!complex_ && (o == MAX || o == MIN))                         \
                    ref[i] = FLOAT_ORDERED(o, in[i], io[i]);                     \
            }                                                                    \
            if (!run(o, in, io, N, dt, tname, cat))                              \
                continue;                                                        \
            for (int i = 0; i < N; i++)                                          \
                if (io[i] != ref[i])                                             \
                    tu_fail("%s on %s: element %d is %g%+gi, expected %g%+gi",   \
                            op_names[o], tname, i, (double)creall(io[i]),        \
                            (double)cimagl(io[i]), (double)creall(ref[i]),       \
                            (double)cimagl(ref[i]));                             \
        }                                                                        \
        free(in);                                                                \
        free(io);                                                                \
        free(ref);                                                               \
    }
#define FLOAT_ORDERED(o, x, y)                                                   \
    ((o) == MAX ? (creall(x) > creall(y) ? (x) : (y)) : (creall(x) < creall(y) ? (x) : (y)))

FLOAT_TEST(t_float, float, 0)
FLOAT_TEST(t_double, double, 0)
FLOAT_TEST(t_ldouble, long double, 0)
FLOAT_TEST(t_cfloat, float _Complex, 1)
FLOAT_TEST(t_cdouble, double _Complex, 1)
FLOAT_TEST(t_cldouble, long double _Complex, 1)

static void t_bool(MPI_Datatype dt, const char *tname, int cat)
{
    bool in[N], io[N], ref[N];
    for (int o = 0; o < NOPS; o++) {
        for (int i = 0; i < N; i++) {
            in[i] = rnd() & 1;
            io[i] = rnd() & 1;
            ref[i] = o == LAND ? in[i] && io[i] : o == LOR ? in[i] || io[i] : in[i] != io[i];
        }
        if (!run(o, in, io, N, dt, tname, cat))
            continue;
        for (int i = 0; i < N; i++)
            if (io[i] != ref[i])
                tu_fail("%s on %s: element %d is %d, expected %d", op_names[o], tname, i,
                        io[i], ref[i]);
    }
}

/* Pairs: values from a range of 4, so ties are common; the index is an int
 * or (Fortran pairs) of the value's type. */
#define PAIR_TEST(fn, V, I)                                                      \
    static void fn(MPI_Datatype dt, const char *tname, int cat)                  \
    {                                                                            \
        struct { V v; I i; } in[N], io[N], ref[N];                               \
        for (int o = 0; o < NOPS; o++) {                                         \
            for (int k = 0; k < N; k++) {                                        \
                in[k].v = (V)(rnd() % 4);                                        \
                in[k].i = (I)(rnd() % 100);                                      \
                io[k].v = (V)(rnd() % 4);                                        \
                io[k].i = (I)(rnd() % 100);                                      \
                int first = o == MAXLOC ? in[k].v > io[k].v : in[k].v < io[k].v; \
                int second = o == MAXLOC ? io[k].v > in[k].v : io[k].v < in[k].v;\
                ref[k] = first ? in[k] : io[k];                                  \
                if (!first && !second)                                           \
                    ref[k].i = in[k].i < io[k].i ? in[k].i : io[k].i;            \
            }                                                                    \
            if (!run(o, in, io, N, dt, tname, cat))                              \
                continue;                                                        \
            for (int k = 0; k < N; k++)                                          \
                if (io[k].v != ref[k].v || io[k].i != ref[k].i)                  \
                    tu_fail("%s on %s: element %d is (%g, %g), expected (%g, %g)", \
                            op_names[o], tname, k, (double)io[k].v,              \
                            (double)io[k].i, (double)ref[k].v, (double)ref[k].i);\
        }                                                                        \
    }

PAIR_TEST(t_float_int, float, int)
PAIR_TEST(t_double_int, double, int)
PAIR_TEST(t_long_int, long, int)
PAIR_TEST(t_2int, int, int)
PAIR_TEST(t_short_int, short, int)
PAIR_TEST(t_ldouble_int, long double, int)
PAIR_TEST(t_2real, float, float)
PAIR_TEST(t_2dp, double, double)

/* Fortran LOGICAL: a 4-byte integer, 0 false and anything else true (also
 * negative values); the results are 0 and 1. */
static void t_logical(MPI_Datatype dt, const char *tname, int cat)
{
    static const int32_t vals[4] = {0, 1, -1, 7};
    int32_t in[N], io[N], ref[N];
    for (int o = 0; o < NOPS; o++) {
        for (int i = 0; i < N; i++) {
            in[i] = vals[rnd() % 4];
            io[i] = vals[rnd() % 4];
            ref[i] = o == LAND ? in[i] && io[i] : o == LOR ? in[i] || io[i] : !in[i] != !io[i];
        }
        if (!run(o, in, io, N, dt, tname, cat))
            continue;
        for (int i = 0; i < N; i++)
            if (io[i] != ref[i])
                tu_fail("%s on %s: element %d is %d, expected %d", op_names[o], tname, i,
                        (int)io[i], (int)ref[i]);
    }
}

/* Types no predefined op takes. */
static void t_none(MPI_Datatype dt, const char *tname, int cat)
{
    char in[64] = {0}, io[64] = {0};
    int n = dt == MPI_WCHAR ? (int)(sizeof in / sizeof(wchar_t)) : (int)sizeof in;
    for (int o = 0; o < NOPS; o++)
        run(o, in, io, n, dt, tname, cat);
}

#define T(dt, fn, cat) {dt, #dt, fn, cat}
static const struct {
    MPI_Datatype dt;
    const char *name;
    void (*fn)(MPI_Datatype, const char *, int);
    int cat;
} types[] = {
    T(MPI_SIGNED_CHAR, t_schar, C_INT),   T(MPI_UNSIGNED_CHAR, t_uchar, C_INT),
    T(MPI_SHORT, t_short, C_INT),         T(MPI_UNSIGNED_SHORT, t_ushort, C_INT),
    T(MPI_INT, t_int, C_INT),             T(MPI_UNSIGNED, t_uint, C_INT),
    T(MPI_LONG, t_long, C_INT),           T(MPI_UNSIGNED_LONG, t_ulong, C_INT),
    T(MPI_LONG_LONG, t_llong, C_INT),     T(MPI_LONG_LONG_INT, t_llong, C_INT),
    T(MPI_UNSIGNED_LONG_LONG, t_ullong, C_INT),
    T(MPI_INT8_T, t_i8, C_INT),           T(MPI_INT16_T, t_i16, C_INT),
    T(MPI_INT32_T, t_i32, C_INT),         T(MPI_INT64_T, t_i64, C_INT),
    T(MPI_UINT8_T, t_u8, C_INT),          T(MPI_UINT16_T, t_u16, C_INT),
    T(MPI_UINT32_T, t_u32, C_INT),        T(MPI_UINT64_T, t_u64, C_INT),
    T(MPI_AINT, t_aint, C_MULTI),         T(MPI_OFFSET, t_offset, C_MULTI),
    T(MPI_COUNT, t_count, C_MULTI),
    T(MPI_FLOAT, t_float, C_FLOAT),       T(MPI_DOUBLE, t_double, C_FLOAT),
    T(MPI_LONG_DOUBLE, t_ldouble, C_FLOAT),
    T(MPI_C_FLOAT_COMPLEX, t_cfloat, C_COMPLEX), T(MPI_C_COMPLEX, t_cfloat, C_COMPLEX),
    T(MPI_C_DOUBLE_COMPLEX, t_cdouble, C_COMPLEX),
    T(MPI_C_LONG_DOUBLE_COMPLEX, t_cldouble, C_COMPLEX),
    T(MPI_C_BOOL, t_bool, C_LOGICAL),
    T(MPI_BYTE, t_uchar, C_BYTE),
    T(MPI_FLOAT_INT, t_float_int, C_PAIR), T(MPI_DOUBLE_INT, t_double_int, C_PAIR),
    T(MPI_LONG_INT, t_long_int, C_PAIR),   T(MPI_2INT, t_2int, C_PAIR),
    T(MPI_SHORT_INT, t_short_int, C_PAIR), T(MPI_LONG_DOUBLE_INT, t_ldouble_int, C_PAIR),
    T(MPI_CHAR, t_schar, C_INT),          T(MPI_WCHAR, t_none, C_NONE),
    T(MPI_PACKED, t_none, C_NONE),
    /* Fortran and C++ types; Fortran integers (and MPI_CHARACTER, like MPI_CHAR) as C
     * integers, logical ops included (as MPICH does) */
    T(MPI_INTEGER, t_i32, C_INT),         T(MPI_INTEGER1, t_i8, C_INT),
    T(MPI_INTEGER2, t_i16, C_INT),        T(MPI_INTEGER4, t_i32, C_INT),
    T(MPI_INTEGER8, t_i64, C_INT),        T(MPI_CHARACTER, t_schar, C_INT),
#ifdef __SIZEOF_INT128__
    T(MPI_INTEGER16, t_i128, C_INT),
#endif
    T(MPI_REAL, t_float, C_FLOAT),        T(MPI_REAL4, t_float, C_FLOAT),
    T(MPI_DOUBLE_PRECISION, t_double, C_FLOAT), T(MPI_REAL8, t_double, C_FLOAT),
    T(MPI_COMPLEX, t_cfloat, C_COMPLEX),  T(MPI_COMPLEX8, t_cfloat, C_COMPLEX),
    T(MPI_DOUBLE_COMPLEX, t_cdouble, C_COMPLEX), T(MPI_COMPLEX16, t_cdouble, C_COMPLEX),
    T(MPI_CXX_FLOAT_COMPLEX, t_cfloat, C_COMPLEX),
    T(MPI_CXX_DOUBLE_COMPLEX, t_cdouble, C_COMPLEX),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, t_cldouble, C_COMPLEX),
    T(MPI_LOGICAL, t_logical, C_LOGICAL), T(MPI_CXX_BOOL, t_bool, C_LOGICAL),
    T(MPI_2INTEGER, t_2int, C_PAIR),      T(MPI_2REAL, t_2real, C_PAIR),
    T(MPI_2DOUBLE_PRECISION, t_2dp, C_PAIR),
};

/* MPI_REPLACE copies in over inout, MPI_NO_OP leaves inout alone, on any type
 * (these are for accumulate operations; Faro takes them everywhere). */
static void replace_noop(void)
{
    struct { double v; int i; } a[5], b[5], c[5];
    memset(a, 0, sizeof a); /* the padding too: b is compared with memcmp */
    memset(b, 0, sizeof b);
    for (int k = 0; k < 5; k++) {
        a[k].v = k;
        a[k].i = k;
        b[k].v = -k;
        b[k].i = -k;
    }
    memcpy(c, b, sizeof c);
    TU_CHECK(MPI_Reduce_local(a, b, 5, MPI_DOUBLE_INT, MPI_NO_OP));
    TU_ASSERT(memcmp(b, c, sizeof b) == 0, "MPI_NO_OP changed inout");
    TU_CHECK(MPI_Reduce_local(a, b, 5, MPI_DOUBLE_INT, MPI_REPLACE));
    for (int k = 0; k < 5; k++)
        TU_ASSERT(b[k].v == k && b[k].i == k, "MPI_REPLACE: element %d is (%g, %d)", k, b[k].v,
                  b[k].i);
    char s[3] = "ab", d[3] = "xy";
    TU_CHECK(MPI_Reduce_local(s, d, 2, MPI_CHAR, MPI_REPLACE));
    TU_ASSERT(strcmp(d, "ab") == 0, "MPI_REPLACE on MPI_CHAR gave \"%s\"", d);
}

static void check_class(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != want)
        tu_fail("%s: expected error class %d, got %s", what, want,
                rc == MPI_SUCCESS ? "MPI_SUCCESS" : tu_errstr(rc));
}

static void errors(void)
{
    int a[4] = {1, 2, 3, 4}, b[4] = {0};
    check_class(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT, "count -1");
    check_class(MPI_Reduce_local(a, b, 4, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE,
                "MPI_DATATYPE_NULL");
    check_class(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_OP_NULL), MPI_ERR_OP, "MPI_OP_NULL");
    check_class(MPI_Reduce_local(MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER,
                "MPI_IN_PLACE");
    check_class(MPI_Reduce_local(NULL, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "NULL inbuf");
    TU_CHECK(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM)); /* nothing to do */
    MPI_Op sum = MPI_SUM;
    check_class(MPI_Op_free(&sum), MPI_ERR_OP, "MPI_Op_free(MPI_SUM)");
    TU_ASSERT(sum == MPI_SUM, "MPI_Op_free(MPI_SUM) changed the handle");
#ifdef FARO
    /* Faro's messages name the op, the type and what is allowed. */
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_Reduce_local(a, b, 2, MPI_2INT, MPI_SUM), s, &len);
    TU_ASSERT(strstr(s, "MPI_SUM is not defined for MPI_2INT") && strstr(s, "MPI_MAXLOC"),
              "message for MPI_SUM on MPI_2INT: \"%s\"", s);
#endif
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "op_reduce");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        types[t].fn(types[t].dt, types[t].name, types[t].cat);
    replace_noop();
    errors();
    int c;
    TU_CHECK(MPI_Op_commutative(MPI_SUM, &c));
    TU_ASSERT(c == 1, "MPI_SUM is not commutative");
    if (tu_rank == 0)
        printf("op_reduce: %d op/type pairs checked against the reference, %d rejected\n",
               checked, rejected);
    tu_finish();
    return 0;
}
