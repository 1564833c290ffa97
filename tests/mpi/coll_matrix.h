/*
 * coll_matrix.h - the pieces shared by the collective test matrix
 * (coll_matrix.c: driver and data-moving collectives; coll_matrix_red.c:
 * reductions; coll_matrix_nbc.c: nonblocking collectives in flight;
 * coll_matrix_util.c: failure messages and typed buffers).
 *
 * Every buffer is seen as a row of "logical" values: ints or doubles. A buffer
 * of kind T_VEC holds its ints through cm_vec, a vector of 2 ints with stride
 * 3 resized to lower bound -4 bytes and extent 6 ints, so one cm_vec element
 * carries 2 logical ints and leaves holes (before, between and after) that
 * no collective may touch; its partner on the other side of a message is
 * plain MPI_INT with twice the count. Every rank can compute every other
 * rank's input from (rank, index, salt), so each result is checked against a
 * reference computed locally, value by value, and every byte that is not
 * data (holes, gaps between blocks, guards) must still hold GAP.
 */
#ifndef FARO_TESTS_MPI_COLL_MATRIX_H
#define FARO_TESTS_MPI_COLL_MATRIX_H

#include <stddef.h>

#define GAP (-77) /* never a value the tests produce */
#define LARGE_INTS (1 << 20) /* 4 MiB of ints: the TEST_LARGE messages */

enum tkind { T_INT, T_DOUBLE, T_VEC };

/* The communicator under test; salt changes with every case so that a
 * result left over from the previous case never looks right. */
struct cm_comm {
    MPI_Comm comm;
    const char *name;
    int rank, size;
    unsigned salt;
    int is_world;
    int light; /* the dup: counts up to 37 only (the same paths as WORLD's) */
};
extern struct cm_comm cm;
extern MPI_Datatype cm_vec;
extern MPI_Op cm_noncomm; /* composition of affine maps mod a prime */
extern int cm_large;       /* TEST_LARGE=1 */
extern double cm_slow_ms;  /* TEST_SLOW=ms: rank 0 prints cases slower than that */

/* util.h keeps its rank and name per source file: set this file's copy
 * (coll_matrix.c's is set by tu_init). */
static inline void cm_tu_sync(void)
{
    tu_name = "coll_matrix";
    MPI_Comm_rank(MPI_COMM_WORLD, &tu_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &tu_size);
}

/* The MPI call under test, its algorithm tunable's collective name
 * (REDUCE, ...) and the case, all for failure messages. */
void cm_begin(const char *fn, const char *alg_coll);
void cm_case(const char *fmt, ...) TU_PRINTF(1, 2);
TU_NORETURN void cm_fail(const char *fmt, ...) TU_PRINTF(1, 2);
/* A call that must succeed (the communicators return errors). */
#define CM_CALL(call)                                                                         \
    do {                                                                                      \
        int cm_rc_ = (call);                                                                  \
        if (cm_rc_ != MPI_SUCCESS)                                                            \
            cm_fail("%s returned %s", #call, tu_errstr(cm_rc_));                             \
    } while (0)

/* The value that src sends to dst at logical index j (positive, < 10^7, so
 * sums of 9 fit in an int and are exact in a double). */
static inline int cm_val(int src, int dst, size_t j, unsigned salt)
{
    uint32_t x = (uint32_t)src * 2654435761u ^ (uint32_t)dst * 40503u ^
                 (uint32_t)j * 2246822519u ^ (salt + 1) * 3266489917u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    return (int)(x % 10000000u) + 1;
}

/* Logical values per element of a kind's MPI type. */
static inline int tk_per(enum tkind k) { return k == T_VEC ? 2 : 1; }
static inline MPI_Datatype tk_type(enum tkind k)
{
    return k == T_VEC ? cm_vec : k == T_DOUBLE ? MPI_DOUBLE : MPI_INT;
}
static inline const char *tk_name(enum tkind k)
{
    return k == T_VEC ? "vec" : k == T_DOUBLE ? "double" : "int";
}
/* Int offset of logical int j from a cm_vec buffer's pointer. */
static inline size_t vec_slot(size_t j) { return 6 * (j / 2) + (j % 2) * 3; }

/* In a "vec" case the two sides of a message differ: even ranks use cm_vec,
 * odd ranks MPI_INT. */
static inline enum tkind side_kind(enum tkind k, int who)
{
    return k == T_VEC ? (who % 2 == 0 ? T_VEC : T_INT) : k;
}

/* A typed buffer of n logical values, GAP everywhere at first; guards
 * before and after. */
struct tbuf {
    char *mem;
    void *ptr; /* what the MPI call gets */
    size_t n;  /* logical values */
    enum tkind k;
};
struct tbuf tb_new(enum tkind k, size_t n);
void tb_free(struct tbuf *b);
void tb_set(struct tbuf *b, size_t j, double v);
double tb_get(const struct tbuf *b, size_t j);
static inline int tb_count(const struct tbuf *b) { return (int)(b->n / (size_t)tk_per(b->k)); }
static inline MPI_Datatype tb_type(const struct tbuf *b) { return tk_type(b->k); }
/* Address of the element holding logical value j. */
void *tb_at(const struct tbuf *b, size_t j);
/* Every logical value equals want[] and every hole and guard holds GAP. */
void tb_compare(const struct tbuf *b, const double *want, const char *what);
double *want_new(size_t n); /* n GAPs */

/* The tests, each over cm with every case of its collective. */
void t_reduce(void);
void t_allreduce(void);
void t_reduce_scatter(void);
void t_reduce_scatter_block(void);
void t_scan(int exclusive);
void cm_red_init(void); /* creates cm_noncomm */
/* TEST_NBC=1: the nonblocking variants of the groups named, on the three
 * communicators at once (world, dup, split) */
void cm_nbc(MPI_Comm comms[3], const char *names[3], const char *const *groups, int ngroups);

/* Reductions: the input of rank r at logical index j for an op kind, and
 * the reference fold over comm ranks lo..hi in rank order. */
enum opkind { OP_SUM, OP_MAX, OP_NONCOMM };
double red_input(enum opkind o, int r, size_t j, unsigned salt);
double red_fold(enum opkind o, int lo, int hi, size_t j, unsigned salt);
MPI_Op op_handle(enum opkind o);
const char *op_name(enum opkind o);

#endif
