/*
 * rma_types: the one-sided calls' types, ops and assertions that rma_ops
 * leaves out, each result checked against the value computed here:
 *   - MPI_Accumulate with float, double, long double, float and double
 *     complex, C_BOOL, unsigned, short and unsigned short, and MPI_MINLOC
 *     on every pair type (ties go to the smaller location), from every rank
 *     to every rank, on an MPI_Win_allocate window (loads and stores on one
 *     node) and an MPI_Win_create one (messages);
 *   - MPI_Fetch_and_op with MPI_REPLACE, MPI_NO_OP and MPI_MAX on several
 *     types, each result flushed before the next;
 *   - MPI_Compare_and_swap on several integer types: every rank adds to one
 *     counter by compare-and-swap loops (a lost update shows in the total),
 *     and a compare that differs leaves the target alone; on MPI_C_BOOL and
 *     MPI_BYTE a swap, then a compare that no longer holds;
 *   - MPI_Get_accumulate with derived types on all three buffers (strided
 *     origin, indexed target, resized result), with MPI_SUM, MPI_REPLACE and
 *     MPI_NO_OP; MPI_MINLOC through vectors of MPI_DOUBLE_INT;
 *   - MPI_Win_fence with MPI_MODE_NOPRECEDE, NOSTORE, NOPUT and NOSUCCEED in
 *     combinations, and a lock epoch after a NOSUCCEED fence;
 *   - MPI_MODE_NOCHECK on MPI_Win_lock, lock_all, post and start (then an
 *     epoch without it, which a notice left over would upset);
 *   - MPI_Win_flush_local_all: the origin buffer of a put may be reused and
 *     a get's buffer holds the data once it returns.
 */
#include <complex.h>
#include <stdbool.h>

#include "util.h"

#define N 5

static int rank, size;

/* Small whole numbers, so that every sum and product of them is exact in
 * every type and the order the origins' updates land in does not matter. */
static int small(int origin, int target, int i)
{
    return (origin + 2 * target + i) % 3 + 1;
}

/* ---- accumulate: one function per family of C types ---- */

#define APPLY_ARITH(op, a, b)                                                          \
    ((op) == MPI_SUM ? (a) + (b) : (op) == MPI_PROD ? (a) * (b)                        \
     : (op) == MPI_MAX ? ((a) > (b) ? (a) : (b)) : ((a) < (b) ? (a) : (b)))
#define APPLY_INT(op, a, b)                                                            \
    ((op) == MPI_BAND ? (a) & (b) : (op) == MPI_BOR ? (a) | (b)                        \
     : (op) == MPI_BXOR ? (a) ^ (b) : (op) == MPI_LAND ? (a) && (b)                    \
     : (op) == MPI_LOR ? (a) || (b) : (op) == MPI_LXOR ? !(a) != !(b)                  \
     : APPLY_ARITH(op, a, b))
#define APPLY_CPLX(op, a, b) ((op) == MPI_SUM ? (a) + (b) : (a) * (b))
#define APPLY_BOOL(op, a, b)                                                           \
    ((op) == MPI_LAND ? (a) && (b) : (op) == MPI_LOR ? (a) || (b) : (a) != (b))

/* Every rank adds its N values into every rank's window (fence epoch); each
 * rank then checks its window against the fold of the initial values and
 * every origin's, done here. VALUE(x) makes a CT of the int x. */
#define DEFINE_ACC(fname, CT, APPLY, VALUE, EQUAL)                                     \
    static void fname(MPI_Win win, CT *base, MPI_Datatype dt, MPI_Op op, const char *what) \
    {                                                                                  \
        CT want[N], src[N];                                                            \
        for (int i = 0; i < N; i++)                                                    \
            base[i] = want[i] = VALUE(small(size, rank, i));                           \
        TU_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));                              \
        for (int k = 0; k < size; k++) {                                               \
            int t = (rank + k) % size;                                                 \
            for (int i = 0; i < N; i++)                                                \
                src[i] = VALUE(small(rank, t, i));                                     \
            TU_CHECK(MPI_Accumulate(src, N, dt, t, 0, N, dt, op, win));                \
        }                                                                              \
        TU_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));                              \
        for (int o = 0; o < size; o++)                                                 \
            for (int i = 0; i < N; i++)                                                \
                want[i] = APPLY(op, want[i], VALUE(small(o, rank, i)));                \
        for (int i = 0; i < N; i++)                                                    \
            TU_ASSERT(EQUAL(base[i], want[i]), "accumulate %s: element %d differs from " \
                      "the value computed locally", what, i);                          \
    }

#define SAME(a, b) ((a) == (b))
#define CVALUE(x) ((double)(x) + (double)((x) % 2) * I)
#define BVALUE(x) ((x) % 2 == 0)

#define AS_FLOAT(x) ((float)(x))
#define AS_DOUBLE(x) ((double)(x))
#define AS_LDOUBLE(x) ((long double)(x))
#define AS_UNSIGNED(x) ((unsigned)(x))
#define AS_SHORT(x) ((short)(x))
#define AS_USHORT(x) ((unsigned short)(x))
#define AS_FCPLX(x) ((float _Complex)CVALUE(x))
DEFINE_ACC(acc_float, float, APPLY_ARITH, AS_FLOAT, SAME)
DEFINE_ACC(acc_double, double, APPLY_ARITH, AS_DOUBLE, SAME)
DEFINE_ACC(acc_ldouble, long double, APPLY_ARITH, AS_LDOUBLE, SAME)
DEFINE_ACC(acc_unsigned, unsigned, APPLY_INT, AS_UNSIGNED, SAME)
DEFINE_ACC(acc_short, short, APPLY_INT, AS_SHORT, SAME)
DEFINE_ACC(acc_ushort, unsigned short, APPLY_INT, AS_USHORT, SAME)
DEFINE_ACC(acc_fcplx, float _Complex, APPLY_CPLX, AS_FCPLX, SAME)
DEFINE_ACC(acc_dcplx, double _Complex, APPLY_CPLX, CVALUE, SAME)
DEFINE_ACC(acc_bool, bool, APPLY_BOOL, BVALUE, SAME)

/* MPI_MINLOC (and MAXLOC) on a pair type: the value is small, the location
 * the origin (the initial one: size), so that ties are many. */
#define DEFINE_LOC(fname, VT, LT)                                                      \
    static void fname(MPI_Win win, void *mem, MPI_Datatype dt, MPI_Op op, const char *what) \
    {                                                                                  \
        struct pair {                                                                  \
            VT v;                                                                      \
            LT loc;                                                                    \
        } *base = mem, want[N], src[N];                                                \
        for (int i = 0; i < N; i++) {                                                  \
            want[i].v = (VT)small(size, rank, i);                                      \
            want[i].loc = (LT)size;                                                    \
            base[i] = want[i];                                                         \
        }                                                                              \
        TU_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));                              \
        for (int k = 0; k < size; k++) {                                               \
            int t = (rank + k) % size;                                                 \
            for (int i = 0; i < N; i++) {                                              \
                src[i].v = (VT)small(rank, t, i);                                      \
                src[i].loc = (LT)rank;                                                 \
            }                                                                          \
            TU_CHECK(MPI_Accumulate(src, N, dt, t, 0, N, dt, op, win));                \
        }                                                                              \
        TU_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));                              \
        for (int o = 0; o < size; o++)                                                 \
            for (int i = 0; i < N; i++) {                                              \
                VT v = (VT)small(o, rank, i);                                          \
                int better = op == MPI_MINLOC ? v < want[i].v : v > want[i].v;         \
                if (better || (v == want[i].v && (LT)o < want[i].loc)) {               \
                    want[i].v = v;                                                     \
                    want[i].loc = (LT)o;                                               \
                }                                                                      \
            }                                                                          \
        for (int i = 0; i < N; i++)                                                    \
            TU_ASSERT(base[i].v == want[i].v && base[i].loc == want[i].loc,            \
                      "accumulate %s: element %d is (%g, %ld), expected (%g, %ld)", what, i, \
                      (double)base[i].v, (long)base[i].loc, (double)want[i].v,         \
                      (long)want[i].loc);                                              \
    }

DEFINE_LOC(loc_2int, int, int)
DEFINE_LOC(loc_float_int, float, int)
DEFINE_LOC(loc_double_int, double, int)
DEFINE_LOC(loc_long_int, long, int)
DEFINE_LOC(loc_short_int, short, int)
DEFINE_LOC(loc_ldouble_int, long double, int)

static void accumulates(MPI_Win win, void *mem, const char *flavour)
{
    char what[128];
#define RUN(fn, dt, op)                                                                \
    do {                                                                               \
        snprintf(what, sizeof what, "%s, %s on %s", #dt, #op, flavour);               \
        fn(win, mem, dt, op, what);                                                    \
    } while (0)
    static const MPI_Op arith[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
    static const char *arith_names[] = {"MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN"};
    for (int k = 0; k < 4; k++) {
#define ARITH(fn, dt)                                                                  \
    do {                                                                               \
        snprintf(what, sizeof what, "%s, %s on %s", #dt, arith_names[k], flavour);    \
        fn(win, mem, dt, arith[k], what);                                              \
    } while (0)
        ARITH(acc_float, MPI_FLOAT);
        ARITH(acc_double, MPI_DOUBLE);
        ARITH(acc_ldouble, MPI_LONG_DOUBLE);
        ARITH(acc_unsigned, MPI_UNSIGNED);
        ARITH(acc_short, MPI_SHORT);
        ARITH(acc_ushort, MPI_UNSIGNED_SHORT);
#undef ARITH
    }
    RUN(acc_unsigned, MPI_UNSIGNED, MPI_BXOR);
    RUN(acc_unsigned, MPI_UNSIGNED, MPI_BOR);
    RUN(acc_short, MPI_SHORT, MPI_BAND);
    RUN(acc_ushort, MPI_UNSIGNED_SHORT, MPI_LXOR);
    RUN(acc_fcplx, MPI_C_FLOAT_COMPLEX, MPI_SUM);
    RUN(acc_fcplx, MPI_C_FLOAT_COMPLEX, MPI_PROD);
    RUN(acc_dcplx, MPI_C_DOUBLE_COMPLEX, MPI_SUM);
    RUN(acc_dcplx, MPI_C_DOUBLE_COMPLEX, MPI_PROD);
    RUN(acc_bool, MPI_C_BOOL, MPI_LAND);
    RUN(acc_bool, MPI_C_BOOL, MPI_LOR);
    RUN(acc_bool, MPI_C_BOOL, MPI_LXOR);
    RUN(loc_2int, MPI_2INT, MPI_MINLOC);
    RUN(loc_float_int, MPI_FLOAT_INT, MPI_MINLOC);
    RUN(loc_double_int, MPI_DOUBLE_INT, MPI_MINLOC);
    RUN(loc_long_int, MPI_LONG_INT, MPI_MINLOC);
    RUN(loc_short_int, MPI_SHORT_INT, MPI_MINLOC);
    RUN(loc_ldouble_int, MPI_LONG_DOUBLE_INT, MPI_MINLOC);
    RUN(loc_double_int, MPI_DOUBLE_INT, MPI_MAXLOC);
#undef RUN
}

/* ---- fetch-and-op, compare-and-swap ---- */

/* On the right neighbour (the only origin there), under a lock, each
 * result flushed: REPLACE gives the old value, NO_OP reads, MAX keeps the
 * larger. */
#define DEFINE_FOP(fname, CT)                                                          \
    static void fname(MPI_Win win, void *mem, MPI_Datatype dt, const char *what)       \
    {                                                                                  \
        int right = (rank + 1) % size;                                                 \
        CT *cell = mem, v, got;                                                        \
        *cell = (CT)(rank + 10);                                                       \
        MPI_Barrier(MPI_COMM_WORLD);                                                   \
        TU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));                     \
        v = (CT)(50 + rank);                                                           \
        TU_CHECK(MPI_Fetch_and_op(&v, &got, dt, right, 0, MPI_REPLACE, win));          \
        TU_CHECK(MPI_Win_flush(right, win));                                           \
        TU_ASSERT(got == (CT)(right + 10), "fetch_and_op %s MPI_REPLACE: fetched %g, " \
                  "expected %g", what, (double)got, (double)(right + 10));             \
        TU_CHECK(MPI_Fetch_and_op(NULL, &got, dt, right, 0, MPI_NO_OP, win));          \
        TU_CHECK(MPI_Win_flush(right, win));                                           \
        TU_ASSERT(got == (CT)(50 + rank), "fetch_and_op %s MPI_NO_OP: fetched %g, "    \
                  "expected %g", what, (double)got, (double)(50 + rank));              \
        v = (CT)(20 + rank);                                                           \
        TU_CHECK(MPI_Fetch_and_op(&v, &got, dt, right, 0, MPI_MAX, win));              \
        TU_CHECK(MPI_Win_flush(right, win));                                           \
        TU_ASSERT(got == (CT)(50 + rank), "fetch_and_op %s MPI_MAX (smaller): fetched " \
                  "%g", what, (double)got);                                            \
        v = (CT)(90 + rank);                                                           \
        TU_CHECK(MPI_Fetch_and_op(&v, &got, dt, right, 0, MPI_MAX, win));              \
        TU_CHECK(MPI_Fetch_and_op(NULL, &v, dt, right, 0, MPI_NO_OP, win));            \
        TU_CHECK(MPI_Win_unlock(right, win));                                          \
        TU_ASSERT(got == (CT)(50 + rank) && v == (CT)(90 + rank), "fetch_and_op %s "   \
                  "MPI_MAX (larger): fetched %g then %g", what, (double)got, (double)v); \
        MPI_Barrier(MPI_COMM_WORLD);                                                   \
        int left = (rank + size - 1) % size;                                           \
        TU_ASSERT(*cell == (CT)(90 + left), "fetch_and_op %s: the target holds %g, "   \
                  "expected %g", what, (double)*cell, (double)(90 + left));            \
    }

DEFINE_FOP(fop_int, int)
DEFINE_FOP(fop_long_long, long long)
DEFINE_FOP(fop_double, double)
DEFINE_FOP(fop_float, float)
DEFINE_FOP(fop_unsigned, unsigned)

#define CAS_ROUNDS 10

/* Every rank adds 1 to rank 0's counter CAS_ROUNDS times by
 * read / compare-and-swap loops: the total shows a lost update. Then a
 * compare that differs returns the value and changes nothing. */
#define DEFINE_CAS(fname, CT)                                                          \
    static void fname(MPI_Win win, void *mem, MPI_Datatype dt, const char *what)       \
    {                                                                                  \
        CT *cell = mem;                                                                \
        *cell = 0;                                                                     \
        MPI_Barrier(MPI_COMM_WORLD);                                                   \
        TU_CHECK(MPI_Win_lock_all(0, win));                                            \
        for (int k = 0; k < CAS_ROUNDS; k++) {                                         \
            CT seen, next, old;                                                        \
            TU_CHECK(MPI_Fetch_and_op(NULL, &seen, dt, 0, 0, MPI_NO_OP, win));         \
            TU_CHECK(MPI_Win_flush(0, win));                                           \
            for (;;) {                                                                 \
                next = (CT)(seen + 1);                                                 \
                TU_CHECK(MPI_Compare_and_swap(&next, &seen, &old, dt, 0, 0, win));     \
                TU_CHECK(MPI_Win_flush(0, win));                                       \
                if (old == seen)                                                       \
                    break;                                                             \
                seen = old;                                                            \
            }                                                                          \
        }                                                                              \
        TU_CHECK(MPI_Win_unlock_all(win));                                             \
        MPI_Barrier(MPI_COMM_WORLD);                                                   \
        CT total = (CT)(size * CAS_ROUNDS), wrong = (CT)(total + 1), other = 7, old = 0; \
        TU_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));                            \
        TU_CHECK(MPI_Compare_and_swap(&other, &wrong, &old, dt, 0, 0, win));           \
        TU_CHECK(MPI_Win_unlock(0, win));                                              \
        TU_ASSERT(old == total, "compare_and_swap %s: rank 0's counter is %ld after "  \
                  "%d increments by each of %d ranks, expected %ld", what, (long)old,  \
                  CAS_ROUNDS, size, (long)total);                                      \
        MPI_Barrier(MPI_COMM_WORLD);                                                   \
        if (rank == 0)                                                                 \
            TU_ASSERT(*cell == total, "compare_and_swap %s: a compare that differs "   \
                      "changed the counter to %ld", what, (long)*cell);                \
        MPI_Barrier(MPI_COMM_WORLD);                                                   \
    }

DEFINE_CAS(cas_int, int)
DEFINE_CAS(cas_short, short)
DEFINE_CAS(cas_int8, int8_t)
DEFINE_CAS(cas_uint64, uint64_t)
DEFINE_CAS(cas_long, long)
DEFINE_CAS(cas_uchar, unsigned char)

/* Under a lock of the given type: swap the target's n bytes at disp from cmp to
 * newv (the fetch is cmp), then compare with cmp again: fails, fetches newv. */
static void swap_then_fail(MPI_Win win, const void *newv, const void *cmp, size_t n,
                           MPI_Datatype dt, int target, MPI_Aint disp, int lock,
                           const char *what)
{
    unsigned char old[8];
    TU_CHECK(MPI_Win_lock(lock, target, 0, win));
    TU_CHECK(MPI_Compare_and_swap(newv, cmp, old, dt, target, disp, win));
    TU_CHECK(MPI_Win_flush(target, win));
    TU_ASSERT(memcmp(old, cmp, n) == 0, "compare_and_swap %s: the fetch is not the value "
              "compared with (first byte %#x)", what, old[0]);
    TU_CHECK(MPI_Compare_and_swap(cmp, cmp, old, dt, target, disp, win));
    TU_CHECK(MPI_Win_unlock(target, win));
    TU_ASSERT(memcmp(old, newv, n) == 0, "compare_and_swap %s: after the swap the fetch is "
              "not the new value (first byte %#x)", what, old[0]);
}

/* Logical and byte types: each rank swaps its right neighbour's cells. */
static void cas_bool_byte(MPI_Win win, void *mem, const char *flavour)
{
    char what[128];
    int right = (rank + 1) % size;
    bool *flag = mem;
    unsigned char *byte = (unsigned char *)mem + sizeof(int); /* displacement 1 */
    *flag = rank % 2;
    *byte = (unsigned char)(0xa0 + rank);
    MPI_Barrier(MPI_COMM_WORLD);
    bool bnew = !(right % 2), bcmp = right % 2;
    unsigned char cnew = 0x5a, ccmp = (unsigned char)(0xa0 + right);
    snprintf(what, sizeof what, "MPI_C_BOOL on %s", flavour);
    swap_then_fail(win, &bnew, &bcmp, sizeof bnew, MPI_C_BOOL, right, 0, MPI_LOCK_EXCLUSIVE,
                   what);
    snprintf(what, sizeof what, "MPI_BYTE on %s", flavour);
    swap_then_fail(win, &cnew, &ccmp, 1, MPI_BYTE, right, 1, MPI_LOCK_SHARED, what);
    MPI_Barrier(MPI_COMM_WORLD);
    TU_ASSERT(*flag == !(rank % 2) && *byte == 0x5a, "compare_and_swap MPI_C_BOOL / MPI_BYTE "
              "on %s: the target holds %d / %#x", flavour, *flag, *byte);
}

static void atomics(MPI_Win win, void *mem, const char *flavour)
{
    char what[128];
#define RUN(fn, dt)                                                                    \
    do {                                                                               \
        snprintf(what, sizeof what, "%s on %s", #dt, flavour);                        \
        fn(win, mem, dt, what);                                                        \
    } while (0)
    RUN(fop_int, MPI_INT);
    RUN(fop_long_long, MPI_LONG_LONG);
    RUN(fop_double, MPI_DOUBLE);
    RUN(fop_float, MPI_FLOAT);
    RUN(fop_unsigned, MPI_UNSIGNED);
    RUN(cas_int, MPI_INT);
    RUN(cas_short, MPI_SHORT);
    RUN(cas_int8, MPI_INT8_T);
    RUN(cas_uint64, MPI_UINT64_T);
    RUN(cas_long, MPI_LONG);
    RUN(cas_uchar, MPI_UNSIGNED_CHAR);
#undef RUN
    cas_bool_byte(win, mem, flavour);
}

/* ---- get-accumulate with derived types ---- */

#define GA 4 /* elements per operation */

/* Origin: GA doubles every 3rd; target: an indexed type (displacements 1, 2,
 * 5, 7); result: GA doubles every 2nd by a resized type. The right
 * neighbour's window is read and updated; the origin checks the result,
 * the target its window. */
static void get_acc_derived(MPI_Win win, double *base, const char *flavour)
{
    static const int tdisp[GA] = {1, 2, 5, 7};
    int blens[GA] = {1, 1, 1, 1};
    MPI_Datatype otype, ttype, rtype, pair;
    TU_CHECK(MPI_Type_vector(GA, 1, 3, MPI_DOUBLE, &otype));
    TU_CHECK(MPI_Type_indexed(GA, blens, tdisp, MPI_DOUBLE, &ttype));
    TU_CHECK(MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &pair));
    TU_CHECK(MPI_Type_contiguous(GA, pair, &rtype));
    MPI_Type_commit(&otype);
    MPI_Type_commit(&ttype);
    MPI_Type_commit(&rtype);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static const MPI_Op ops[] = {MPI_SUM, MPI_REPLACE, MPI_NO_OP};
    static const char *names[] = {"MPI_SUM", "MPI_REPLACE", "MPI_NO_OP"};
    for (int k = 0; k < 3; k++) {
        double src[3 * GA], res[2 * GA];
        for (int i = 0; i < 8; i++)
            base[i] = 100 * rank + i;
        for (int i = 0; i < 3 * GA; i++)
            src[i] = i % 3 == 0 ? 1000 + 10 * rank + i / 3 : -1;
        for (int i = 0; i < 2 * GA; i++)
            res[i] = -2;
        TU_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
        TU_CHECK(MPI_Get_accumulate(src, 1, otype, res, 1, rtype, right, 0, 1, ttype, ops[k],
                                    win));
        TU_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        for (int i = 0; i < GA; i++) {
            double old = 100 * right + tdisp[i];
            TU_ASSERT(res[2 * i] == old && res[2 * i + 1] == -2, "get_accumulate %s on %s: "
                      "result %d is %g (gap %g), expected %g", names[k], flavour, i,
                      res[2 * i], res[2 * i + 1], old);
        }
        double want[8];
        for (int i = 0; i < 8; i++)
            want[i] = 100 * rank + i;
        for (int i = 0; i < GA; i++) {
            double o = 1000 + 10 * left + i;
            double *t = &want[tdisp[i]];
            *t = ops[k] == MPI_SUM ? *t + o : ops[k] == MPI_REPLACE ? o : *t;
        }
        for (int i = 0; i < 8; i++)
            TU_ASSERT(base[i] == want[i], "get_accumulate %s on %s: target element %d is "
                      "%g, expected %g", names[k], flavour, i, base[i], want[i]);
    }
    MPI_Type_free(&otype);
    MPI_Type_free(&ttype);
    MPI_Type_free(&rtype);
    MPI_Type_free(&pair);
}

/* MPI_MINLOC through derived types of pairs (MPI_DOUBLE_INT, which has a gap):
 * origin contiguous, target every other pair, result every third. */
static void get_acc_pairs(MPI_Win win, void *mem, const char *flavour)
{
    struct di {
        double v;
        int loc;
    } *base = mem, src[GA], res[3 * GA];
    MPI_Datatype ttype, rtype;
    TU_CHECK(MPI_Type_vector(GA, 1, 2, MPI_DOUBLE_INT, &ttype));
    TU_CHECK(MPI_Type_vector(GA, 1, 3, MPI_DOUBLE_INT, &rtype));
    MPI_Type_commit(&ttype);
    MPI_Type_commit(&rtype);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 2 * GA; i++)
        base[i] = (struct di){i % 3, 100 + rank};
    for (int i = 0; i < GA; i++)
        src[i] = (struct di){i % 2 ? 1 : -1 - i, rank};
    for (int i = 0; i < 3 * GA; i++)
        res[i] = (struct di){-9, -9};
    TU_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    TU_CHECK(MPI_Get_accumulate(src, GA, MPI_DOUBLE_INT, res, 1, rtype, right, 0, 1, ttype,
                                MPI_MINLOC, win));
    TU_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (int i = 0; i < GA; i++) {
        struct di old = {2 * i % 3, 100 + right}, r = res[3 * i];
        TU_ASSERT(r.v == old.v && r.loc == old.loc && res[3 * i + 1].loc == -9,
                  "get_accumulate MPI_MINLOC of MPI_DOUBLE_INT vectors on %s: result %d is "
                  "(%g, %d), expected (%g, %d)", flavour, i, r.v, r.loc, old.v, old.loc);
    }
    for (int i = 0; i < 2 * GA; i++) {
        struct di want = {i % 3, 100 + rank};
        if (i % 2 == 0) {
            struct di o = {i / 2 % 2 ? 1 : -1 - i / 2, left};
            if (o.v < want.v || (o.v == want.v && o.loc < want.loc))
                want = o;
        }
        TU_ASSERT(base[i].v == want.v && base[i].loc == want.loc, "get_accumulate MPI_MINLOC "
                  "of MPI_DOUBLE_INT vectors on %s: target pair %d is (%g, %d), expected "
                  "(%g, %d)", flavour, i, base[i].v, base[i].loc, want.v, want.loc);
    }
    MPI_Type_free(&ttype);
    MPI_Type_free(&rtype);
}

/* ---- synchronization assertions ---- */

static void fence_asserts(MPI_Win win, int *base, const char *flavour)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, me = rank + 1, got = -1;
    base[0] = -1;
    base[1] = 10 * rank;
    TU_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT, win));
    TU_CHECK(MPI_Get(&got, 1, MPI_INT, right, 1, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win));
    TU_ASSERT(got == 10 * right, "fence NOPRECEDE|NOPUT, get: %d, expected %d (%s)", got,
              10 * right, flavour);
    TU_CHECK(MPI_Put(&me, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    TU_ASSERT(base[0] == left + 1, "fence NOSTORE, put: %d, expected %d (%s)", base[0],
              left + 1, flavour);
    TU_CHECK(MPI_Get(&got, 1, MPI_INT, left, 0, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    TU_ASSERT(got == (left + size - 1) % size + 1, "fence NOSTORE|NOPUT, get: %d (%s)", got,
              flavour);
    /* NOSUCCEED closed the fence epochs: a lock epoch may follow */
    TU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    me = -rank;
    TU_CHECK(MPI_Put(&me, 1, MPI_INT, right, 1, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_ASSERT(base[1] == -left, "lock after a NOSUCCEED fence, put: %d, expected %d (%s)",
              base[1], -left, flavour);
    /* and a fence series again, all assertions at once in the middle */
    TU_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE, win));
    me = 7 * rank;
    TU_CHECK(MPI_Accumulate(&me, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_SUM, win));
    TU_CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    TU_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    TU_ASSERT(base[1] == 6 * left, "fence NOPRECEDE|NOSTORE, accumulate: %d, expected %d "
              "(%s)", base[1], 6 * left, flavour);
}

static void nocheck(MPI_Win win, int *base, const char *flavour)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, v;
    MPI_Group world, g_right, g_left;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &right, &g_right);
    MPI_Group_incl(world, 1, &left, &g_left);
    base[0] = base[1] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    /* the program's own order: each rank is the only one to lock its right */
    TU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, MPI_MODE_NOCHECK, win));
    v = 100 + rank;
    TU_CHECK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_ASSERT(base[0] == 100 + left, "lock NOCHECK, put: %d, expected %d (%s)", base[0],
              100 + left, flavour);
    TU_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    v = 200 + rank;
    TU_CHECK(MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_ASSERT(base[1] == 200 + left, "lock_all NOCHECK, put: %d, expected %d (%s)", base[1],
              200 + left, flavour);
    /* PSCW: every post has completed (the barrier) before the starts */
    TU_CHECK(MPI_Win_post(g_left, MPI_MODE_NOCHECK, win));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_Win_start(g_right, MPI_MODE_NOCHECK, win));
    v = 300 + rank;
    TU_CHECK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_complete(win));
    TU_CHECK(MPI_Win_wait(win));
    TU_ASSERT(base[0] == 300 + left, "post/start NOCHECK, put: %d, expected %d (%s)", base[0],
              300 + left, flavour);
    /* an epoch without NOCHECK after it: start must wait for this post */
    TU_CHECK(MPI_Win_post(g_left, 0, win));
    TU_CHECK(MPI_Win_start(g_right, 0, win));
    v = 400 + rank;
    TU_CHECK(MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_complete(win));
    TU_CHECK(MPI_Win_wait(win));
    TU_ASSERT(base[1] == 400 + left, "post/start after a NOCHECK epoch, put: %d, expected %d "
              "(%s)", base[1], 400 + left, flavour);
    MPI_Group_free(&g_right);
    MPI_Group_free(&g_left);
    MPI_Group_free(&world);
}

#define FL 1024 /* ints */

/* flush_local_all: the put's origin buffer is free to change at once, and a
 * get's data is in its buffer; the target sees what was put. */
static void flush_local_all(MPI_Win win, int *base, const char *flavour)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *src = malloc(FL * sizeof *src), *back = malloc(FL * sizeof *back);
    for (int i = 0; i < FL; i++) {
        base[i] = -1;
        src[i] = rank * 100000 + i;
        back[i] = -3;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_Win_lock_all(0, win));
    TU_CHECK(MPI_Put(src, FL, MPI_INT, right, 0, FL, MPI_INT, win));
    TU_CHECK(MPI_Win_flush_local_all(win));
    for (int i = 0; i < FL; i++)
        src[i] = -2; /* after the local completion: must not reach the target */
    TU_CHECK(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    TU_CHECK(MPI_Get(back, FL, MPI_INT, left, 0, FL, MPI_INT, win));
    TU_CHECK(MPI_Win_flush_local_all(win));
    for (int i = 0; i < FL; i++)
        TU_ASSERT(back[i] == (rank + size - 2) % size * 100000 + i, "flush_local_all, get: "
                  "element %d is %d (%s)", i, back[i], flavour);
    TU_CHECK(MPI_Win_unlock_all(win));
    for (int i = 0; i < FL; i++)
        TU_ASSERT(base[i] == left * 100000 + i, "flush_local_all, put: element %d is %d, "
                  "expected %d (%s)", i, base[i], left * 100000 + i, flavour);
    MPI_Barrier(MPI_COMM_WORLD);
    free(src);
    free(back);
}

/* Everything above on one window. */
static void all_on(MPI_Win win, void *mem, const char *flavour)
{
    accumulates(win, mem, flavour);
    atomics(win, mem, flavour);
    get_acc_derived(win, mem, flavour);
    get_acc_pairs(win, mem, flavour);
    fence_asserts(win, mem, flavour);
    nocheck(win, mem, flavour);
    flush_local_all(win, mem, flavour);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "rma_types");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Aint bytes = FL * sizeof(int);
    void *mem = tu_malloc((size_t)bytes);
    MPI_Win win;
    TU_CHECK(MPI_Win_create(mem, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    all_on(win, mem, "MPI_Win_create");
    TU_CHECK(MPI_Win_free(&win));
    free(mem);
    TU_CHECK(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    all_on(win, mem, "MPI_Win_allocate");
    TU_CHECK(MPI_Win_free(&win));
    tu_finish();
    return 0;
}
