/*
 * Reduction operations: the predefined ops, user ops (MPI_Op_create), which
 * op goes with which datatype (the table of MPI-3.1 section 5.9.2), and
 * faro_op_reduce(), the one entry point collectives and MPI_Reduce_local use.
 *
 * A predefined op on a predefined (or dense derived) type is one kernel
 * call on the whole buffer (op_kernels.c). A non-contiguous derived type is
 * packed in chunks, reduced, and unpacked into inout. User functions get the
 * buffers as they are, in the datatype's own layout.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "bigcount/wide.h"
#include "objects/arena.h"

#define PREDEF(var, kind_, commute_, label)                                               \
    struct faro_op_predefined faro_mpi_op_##var = {.obj = {                                 \
        .magic = FARO_OP_MAGIC, .kind = kind_, .commute = commute_, .predefined = 1,          \
        .name = label}};
PREDEF(max, FARO_OP_MAX, 1, "MPI_MAX")
PREDEF(min, FARO_OP_MIN, 1, "MPI_MIN")
PREDEF(sum, FARO_OP_SUM, 1, "MPI_SUM")
PREDEF(prod, FARO_OP_PROD, 1, "MPI_PROD")
PREDEF(land, FARO_OP_LAND, 1, "MPI_LAND")
PREDEF(band, FARO_OP_BAND, 1, "MPI_BAND")
PREDEF(lor, FARO_OP_LOR, 1, "MPI_LOR")
PREDEF(bor, FARO_OP_BOR, 1, "MPI_BOR")
PREDEF(lxor, FARO_OP_LXOR, 1, "MPI_LXOR")
PREDEF(bxor, FARO_OP_BXOR, 1, "MPI_BXOR")
PREDEF(maxloc, FARO_OP_MAXLOC, 1, "MPI_MAXLOC")
PREDEF(minloc, FARO_OP_MINLOC, 1, "MPI_MINLOC")
/* The result depends on which operand is which: not commutative. */
PREDEF(replace, FARO_OP_REPLACE, 0, "MPI_REPLACE")
PREDEF(no_op, FARO_OP_NO_OP, 0, "MPI_NO_OP")

/* User ops come from a FIFO pool over their arena (objects/arena.h, linked
 * through name while free), so that a made-up handle is refused before it is
 * read; the predefined ones are bracketed where the program sees them. */
static struct faro_pool op_pool = FARO_POOL_INIT("op", FARO_ARENA_SMALL, struct faro_op, name, 32);

__attribute__((constructor)) static void op_arena_init(void)
{
    static const void *const fixed[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                                        MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR,
                                        MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    faro_pool_start(&op_pool, fixed, (int)(sizeof fixed / sizeof *fixed),
                    sizeof(struct faro_op_predefined));
}

int faro_op_check(MPI_Op op)
{
    return op && faro_pool_has(&op_pool, op) && op->magic == FARO_OP_MAGIC ? 0 : -1;
}

/* The type groups of MPI-3.1 5.9.2. */
enum {
    CAT_INT = 1,      /* C and Fortran integer (signed char and unsigned char included) */
    CAT_MULTI = 2,    /* MPI_AINT, MPI_OFFSET, MPI_COUNT */
    CAT_FLOAT = 4,
    CAT_COMPLEX = 8,
    CAT_LOGICAL = 16, /* MPI_C_BOOL, MPI_LOGICAL, MPI_CXX_BOOL */
    CAT_BYTE = 32,
    CAT_PAIR = 64,
};

static const unsigned op_cats[FARO_OP_NPREDEF] = {
    [FARO_OP_MAX] = CAT_INT | CAT_MULTI | CAT_FLOAT,
    [FARO_OP_MIN] = CAT_INT | CAT_MULTI | CAT_FLOAT,
    [FARO_OP_SUM] = CAT_INT | CAT_MULTI | CAT_FLOAT | CAT_COMPLEX,
    [FARO_OP_PROD] = CAT_INT | CAT_MULTI | CAT_FLOAT | CAT_COMPLEX,
    /* MPI-3.1 leaves the multi-language types out of the logical ops; MPICH
     * and Open MPI take them, and they are integers */
    [FARO_OP_LAND] = CAT_INT | CAT_MULTI | CAT_LOGICAL,
    [FARO_OP_LOR] = CAT_INT | CAT_MULTI | CAT_LOGICAL,
    [FARO_OP_LXOR] = CAT_INT | CAT_MULTI | CAT_LOGICAL,
    [FARO_OP_BAND] = CAT_INT | CAT_MULTI | CAT_BYTE,
    [FARO_OP_BOR] = CAT_INT | CAT_MULTI | CAT_BYTE,
    [FARO_OP_BXOR] = CAT_INT | CAT_MULTI | CAT_BYTE,
    [FARO_OP_MAXLOC] = CAT_PAIR,
    [FARO_OP_MINLOC] = CAT_PAIR,
    [FARO_OP_REPLACE] = ~0u,
    [FARO_OP_NO_OP] = ~0u,
};

static const char *const op_takes[FARO_OP_NPREDEF] = {
    [FARO_OP_MAX] = "integer, MPI_AINT/MPI_OFFSET/MPI_COUNT and floating types",
    [FARO_OP_MIN] = "integer, MPI_AINT/MPI_OFFSET/MPI_COUNT and floating types",
    [FARO_OP_SUM] = "integer, MPI_AINT/MPI_OFFSET/MPI_COUNT, floating and complex types",
    [FARO_OP_PROD] = "integer, MPI_AINT/MPI_OFFSET/MPI_COUNT, floating and complex types",
    [FARO_OP_LAND] = "integer types, MPI_AINT/MPI_OFFSET/MPI_COUNT and the logical types "
                     "MPI_C_BOOL, MPI_LOGICAL, MPI_CXX_BOOL",
    [FARO_OP_LOR] = "integer types, MPI_AINT/MPI_OFFSET/MPI_COUNT and the logical types "
                    "MPI_C_BOOL, MPI_LOGICAL, MPI_CXX_BOOL",
    [FARO_OP_LXOR] = "integer types, MPI_AINT/MPI_OFFSET/MPI_COUNT and the logical types "
                     "MPI_C_BOOL, MPI_LOGICAL, MPI_CXX_BOOL",
    [FARO_OP_BAND] = "integer types, MPI_AINT/MPI_OFFSET/MPI_COUNT and MPI_BYTE",
    [FARO_OP_BOR] = "integer types, MPI_AINT/MPI_OFFSET/MPI_COUNT and MPI_BYTE",
    [FARO_OP_BXOR] = "integer types, MPI_AINT/MPI_OFFSET/MPI_COUNT and MPI_BYTE",
    [FARO_OP_MAXLOC] = "the pair types MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, "
                       "MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2INTEGER, MPI_2REAL, "
                       "MPI_2DOUBLE_PRECISION",
    [FARO_OP_MINLOC] = "the pair types MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, "
                       "MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2INTEGER, MPI_2REAL, "
                       "MPI_2DOUBLE_PRECISION",
};

static const char *cat_takes(unsigned cat)
{
    switch (cat) {
    case CAT_MULTI: return "MPI_AINT/MPI_OFFSET/MPI_COUNT take every op but MPI_MAXLOC/MINLOC";
    case CAT_FLOAT: return "floating types take MPI_MAX, MIN, SUM, PROD";
    case CAT_COMPLEX: return "complex types take MPI_SUM, MPI_PROD";
    case CAT_LOGICAL: return "logical types take MPI_LAND, MPI_LOR, MPI_LXOR";
    case CAT_BYTE: return "MPI_BYTE takes MPI_BAND, MPI_BOR, MPI_BXOR";
    case CAT_PAIR: return "pair types take MPI_MAXLOC/MPI_MINLOC";
    default: return NULL;
    }
}

/* Element kind of a C integer type from its size and signedness. */
#define IKIND(T, s)                                                                      \
    (sizeof(T) == 1 ? FARO_E_I8 + !(s)                                                   \
     : sizeof(T) == 2 ? FARO_E_I16 + !(s)                                                \
     : sizeof(T) == 4 ? FARO_E_I32 + !(s) : FARO_E_I64 + !(s))

static const struct predef_type {
    MPI_Datatype t;
    unsigned char cat, elem;
} types[] = {
    {MPI_INT, CAT_INT, IKIND(int, 1)},
    {MPI_DOUBLE, CAT_FLOAT, FARO_E_DBL},
    {MPI_FLOAT, CAT_FLOAT, FARO_E_FLT},
    {MPI_LONG, CAT_INT, IKIND(long, 1)},
    {MPI_UNSIGNED, CAT_INT, IKIND(unsigned, 0)},
    {MPI_LONG_LONG, CAT_INT, IKIND(long long, 1)},
    {MPI_UNSIGNED_LONG, CAT_INT, IKIND(unsigned long, 0)},
    {MPI_UNSIGNED_LONG_LONG, CAT_INT, IKIND(unsigned long long, 0)},
    {MPI_SHORT, CAT_INT, IKIND(short, 1)},
    {MPI_UNSIGNED_SHORT, CAT_INT, IKIND(unsigned short, 0)},
    /* MPI_CHAR is not in the standard's table, but Open MPI and MPICH reduce
     * it as a C integer and programs rely on it (OSU's default datatype). */
    {MPI_CHAR, CAT_INT, (char)-1 < 0 ? FARO_E_I8 : FARO_E_U8},
    {MPI_SIGNED_CHAR, CAT_INT, FARO_E_I8},
    {MPI_UNSIGNED_CHAR, CAT_INT, FARO_E_U8},
    {MPI_INT8_T, CAT_INT, FARO_E_I8},
    {MPI_INT16_T, CAT_INT, FARO_E_I16},
    {MPI_INT32_T, CAT_INT, FARO_E_I32},
    {MPI_INT64_T, CAT_INT, FARO_E_I64},
    {MPI_UINT8_T, CAT_INT, FARO_E_U8},
    {MPI_UINT16_T, CAT_INT, FARO_E_U16},
    {MPI_UINT32_T, CAT_INT, FARO_E_U32},
    {MPI_UINT64_T, CAT_INT, FARO_E_U64},
    {MPI_AINT, CAT_MULTI, IKIND(MPI_Aint, 1)},
    {MPI_OFFSET, CAT_MULTI, IKIND(MPI_Offset, 1)},
    {MPI_COUNT, CAT_MULTI, IKIND(MPI_Count, 1)},
    {MPI_LONG_DOUBLE, CAT_FLOAT, FARO_E_LDBL},
    {MPI_C_BOOL, CAT_LOGICAL, FARO_E_BOOL},
    {MPI_BYTE, CAT_BYTE, FARO_E_U8},
    {MPI_C_FLOAT_COMPLEX, CAT_COMPLEX, FARO_E_CFLT},
    {MPI_C_DOUBLE_COMPLEX, CAT_COMPLEX, FARO_E_CDBL},
    {MPI_C_LONG_DOUBLE_COMPLEX, CAT_COMPLEX, FARO_E_CLDBL},
    {MPI_DOUBLE_INT, CAT_PAIR, FARO_E_DOUBLE_INT},
    {MPI_2INT, CAT_PAIR, FARO_E_2INT},
    {MPI_FLOAT_INT, CAT_PAIR, FARO_E_FLOAT_INT},
    {MPI_LONG_INT, CAT_PAIR, FARO_E_LONG_INT},
    {MPI_SHORT_INT, CAT_PAIR, FARO_E_SHORT_INT},
    {MPI_LONG_DOUBLE_INT, CAT_PAIR, FARO_E_LDOUBLE_INT},
    /* Fortran and C++ types. MPI_CHARACTER reduces as MPI_CHAR does (Open MPI and
     * MPICH take it); Fortran integers take the logical ops as C ones do (MPICH). */
    {MPI_INTEGER, CAT_INT, FARO_E_I32},
    {MPI_INTEGER1, CAT_INT, FARO_E_I8},
    {MPI_INTEGER2, CAT_INT, FARO_E_I16},
    {MPI_INTEGER4, CAT_INT, FARO_E_I32},
    {MPI_INTEGER8, CAT_INT, FARO_E_I64},
#ifdef __SIZEOF_INT128__
    {MPI_INTEGER16, CAT_INT, FARO_E_I128},
#endif
    {MPI_CHARACTER, CAT_INT, (char)-1 < 0 ? FARO_E_I8 : FARO_E_U8},
    {MPI_REAL, CAT_FLOAT, FARO_E_FLT},
    {MPI_REAL4, CAT_FLOAT, FARO_E_FLT},
    {MPI_DOUBLE_PRECISION, CAT_FLOAT, FARO_E_DBL},
    {MPI_REAL8, CAT_FLOAT, FARO_E_DBL},
    {MPI_COMPLEX, CAT_COMPLEX, FARO_E_CFLT},
    {MPI_COMPLEX8, CAT_COMPLEX, FARO_E_CFLT},
    {MPI_DOUBLE_COMPLEX, CAT_COMPLEX, FARO_E_CDBL},
    {MPI_COMPLEX16, CAT_COMPLEX, FARO_E_CDBL},
    {MPI_CXX_FLOAT_COMPLEX, CAT_COMPLEX, FARO_E_CFLT},
    {MPI_CXX_DOUBLE_COMPLEX, CAT_COMPLEX, FARO_E_CDBL},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, CAT_COMPLEX, FARO_E_CLDBL},
    {MPI_LOGICAL, CAT_LOGICAL, FARO_E_I32}, /* 0 false, else true; results 0 or 1 */
    {MPI_CXX_BOOL, CAT_LOGICAL, FARO_E_BOOL},
    {MPI_2INTEGER, CAT_PAIR, FARO_E_2INT},
    {MPI_2REAL, CAT_PAIR, FARO_E_2FLT},
    {MPI_2DOUBLE_PRECISION, CAT_PAIR, FARO_E_2DBL},
};

/* Pointer -> entry of types[]: open addressing, filled once at load time, so
 * a lookup is a hash and usually one compare. */
#define NSLOT 128
static const struct predef_type *slots[NSLOT];

static size_t slot_of(MPI_Datatype b)
{
    uint64_t x = (uint64_t)(uintptr_t)b;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return (size_t)(x >> 57) & (NSLOT - 1);
}

__attribute__((constructor)) static void fill_slots(void)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t h = slot_of(types[i].t);
        while (slots[h] && slots[h]->t != types[i].t)
            h = (h + 1) & (NSLOT - 1);
        slots[h] = &types[i];
    }
}

static const struct predef_type *lookup(MPI_Datatype b)
{
    for (size_t h = slot_of(b); slots[h]; h = (h + 1) & (NSLOT - 1))
        if (slots[h]->t == b)
            return slots[h];
    return NULL; /* MPI_WCHAR, MPI_PACKED: no reduction */
}

/* The predefined type a predefined op works on for t; NULL for a derived
 * type that mixes basic types. */
static MPI_Datatype basic_of(MPI_Datatype t)
{
    return t->basic ? t->basic : t->predefined ? t : NULL;
}

static void type_desc(MPI_Datatype t, MPI_Datatype b, char *buf, size_t len)
{
    if (t->predefined && t->name)
        snprintf(buf, len, "%s", t->name);
    else if (b && b->name)
        snprintf(buf, len, "%s (a derived datatype of %s)", t->name ? t->name : "a datatype",
                 b->name);
    else
        snprintf(buf, len, "%s", t->name ? t->name : "a derived datatype");
}

int faro_type_compares(MPI_Datatype t)
{
    const struct predef_type *p = lookup(t);
    return p && (p->cat & (CAT_INT | CAT_MULTI | CAT_LOGICAL | CAT_BYTE));
}

int faro_op_valid(MPI_Op op, MPI_Datatype t, char *msg, size_t msglen)
{
    char dummy[1];
    if (!msg || !msglen) {
        msg = dummy;
        msglen = sizeof dummy;
    }
    if (op == MPI_OP_NULL) {
        snprintf(msg, msglen, "op is MPI_OP_NULL (a predefined op such as MPI_SUM or one from "
                 "MPI_Op_create is needed)");
        return MPI_ERR_OP;
    }
    if (faro_op_check(op)) {
        snprintf(msg, msglen, "op %p is not an operation (uninitialised, freed, or another "
                 "kind of handle?)",
                 (void *)op);
        return MPI_ERR_OP;
    }
    if (t == MPI_DATATYPE_NULL) {
        snprintf(msg, msglen, "datatype is MPI_DATATYPE_NULL");
        return MPI_ERR_TYPE;
    }
    if (faro_type_valid(t)) {
        snprintf(msg, msglen,
                 "datatype %p is not a datatype (uninitialised, or freed with MPI_Type_free?)",
                 (void *)t);
        return MPI_ERR_TYPE;
    }
    if (op->kind == FARO_OP_USER || op->kind == FARO_OP_REPLACE || op->kind == FARO_OP_NO_OP)
        return MPI_SUCCESS;
    MPI_Datatype b = basic_of(t);
    const struct predef_type *p = b ? lookup(b) : NULL;
    if (p && (op_cats[op->kind] & p->cat))
        return MPI_SUCCESS;
    char tn[128];
    type_desc(t, b, tn, sizeof tn);
    if (!b) {
        snprintf(msg, msglen, "%s is not defined for %s: its typemap mixes basic types "
                 "(predefined ops need one basic type throughout; use a user op from "
                 "MPI_Op_create)", op->name, tn);
        return MPI_ERR_OP;
    }
    const char *hint = p ? cat_takes(p->cat) : NULL;
    if (hint && p->cat != CAT_PAIR && (op->kind == FARO_OP_MAXLOC || op->kind == FARO_OP_MINLOC))
        hint = NULL;
    if (hint)
        snprintf(msg, msglen, "%s is not defined for %s (%s)", op->name, tn, hint);
    else
        snprintf(msg, msglen, "%s is not defined for %s (it takes %s)", op->name, tn,
                 op_takes[op->kind]);
    return MPI_ERR_OP;
}

int faro_op_is_commutative(MPI_Op op)
{
    return op->commute;
}

void faro_op_retain(MPI_Op op)
{
    if (!op->predefined)
        __atomic_add_fetch(&op->refcount, 1, __ATOMIC_RELAXED);
}

void faro_op_release(MPI_Op op)
{
    if (!op->predefined && __atomic_sub_fetch(&op->refcount, 1, __ATOMIC_ACQ_REL) == 0)
        faro_pool_put(&op_pool, op);
}

/* User functions take an int count: longer buffers go in pieces. */
static int apply_user(MPI_Op op, const void *in, void *inout, size_t count, MPI_Datatype t)
{
    if (op->fn_c) { /* MPI_Op_create_c: the whole count at once */
        MPI_Count len = (MPI_Count)count;
        MPI_Datatype dt = t;
        op->fn_c((void *)in, inout, &len, &dt);
        return MPI_SUCCESS;
    }
    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        MPI_Datatype dt = t;
        op->fn((void *)in, inout, &len, &dt);
        count -= (size_t)len;
        in = (const char *)in + (size_t)len * (size_t)t->extent;
        inout = (char *)inout + (size_t)len * (size_t)t->extent;
    }
    return MPI_SUCCESS;
}

#define CHUNK_BYTES (64 * 1024)

/* A non-contiguous type: pack a chunk of elements of both buffers, reduce
 * the packed forms, unpack into inout. k == NULL: MPI_REPLACE. */
static int apply_packed(faro_op_kernel *k, size_t per_elem, const void *in, void *inout,
                        size_t count, MPI_Datatype t)
{
    size_t chunk = t->size >= CHUNK_BYTES ? 1 : CHUNK_BYTES / t->size;
    if (chunk > count)
        chunk = count;
    char *a = malloc(2 * chunk * t->size);
    if (!a)
        return MPI_ERR_NO_MEM;
    char *b = a + chunk * t->size;
    for (size_t done = 0; done < count; done += chunk) {
        size_t n = count - done < chunk ? count - done : chunk;
        const char *pi = (const char *)in + done * (size_t)t->extent;
        char *pio = (char *)inout + done * (size_t)t->extent;
        faro_type_pack(pi, n, t, a);
        if (k) {
            faro_type_pack(pio, n, t, b);
            k(a, b, n * per_elem);
            faro_type_unpack(b, n * t->size, pio, t);
        } else {
            faro_type_unpack(a, n * t->size, pio, t);
        }
    }
    free(a);
    return MPI_SUCCESS;
}

int faro_op_reduce(MPI_Op op, const void *in, void *inout, size_t count, MPI_Datatype t)
{
    if (count == 0 || t->size == 0)
        return MPI_SUCCESS;
    switch (op->kind) {
    case FARO_OP_USER:
        return apply_user(op, in, inout, count, t);
    case FARO_OP_NO_OP:
        return MPI_SUCCESS;
    case FARO_OP_REPLACE:
        if (t->dense) {
            memcpy(faro_type_dense_at(inout, t), faro_type_dense_at(in, t), count * t->size);
            return MPI_SUCCESS;
        }
        return apply_packed(NULL, 0, in, inout, count, t);
    default:
        break;
    }
    MPI_Datatype b = basic_of(t);
    const struct predef_type *p = b ? lookup(b) : NULL;
    if (!p || !(op_cats[op->kind] & p->cat))
        return MPI_ERR_OP;
    faro_op_kernel *k = faro_op_kernels[op->kind][p->elem];
    if (t == b) {
        k(in, inout, count); /* the C layout, pairs as their struct */
        return MPI_SUCCESS;
    }
    size_t per_elem = t->size / b->size;
    int pair = p->cat == CAT_PAIR;
    /* Packed pairs have no padding: their own kernel unless that is the C layout. */
    if (pair && !b->contig)
        k = faro_op_packed_pair_kernels[op->kind - FARO_OP_MAXLOC][p->elem];
    if (t->dense) { /* count * size bytes in a row at run[0].off */
        k(faro_type_dense_at(in, t), faro_type_dense_at(inout, t), count * per_elem);
        return MPI_SUCCESS;
    }
    return apply_packed(k, per_elem, in, inout, count, t);
}

/* ---- the MPI functions ---- */

/* One of fn (MPI_Op_create) and fn_c (MPI_Op_create_c) is set. */
static int op_create(const char *fn, MPI_User_function *user_fn,
                     MPI_User_function_c *user_fn_c, int commute, MPI_Op *op)
{
    if (!user_fn && !user_fn_c)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: user_fn is NULL", fn);
    if (!op)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: op is NULL (the address of an MPI_Op "
                        "to set is needed)", fn);
    struct faro_op *o = faro_pool_get(&op_pool);
    if (!o)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    o->magic = FARO_OP_MAGIC;
    o->kind = FARO_OP_USER;
    o->commute = commute != 0;
    o->refcount = 1;
    o->fn = user_fn;
    o->fn_c = user_fn_c;
    o->name = "a user op";
    *op = o;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

#pragma weak MPI_Op_create_c = PMPI_Op_create_c
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}

static int check_op(const char *fn, MPI_Op op)
{
    if (op == MPI_OP_NULL)
        return faro_err(MPI_COMM_NULL, MPI_ERR_OP, "%s: op is MPI_OP_NULL", fn);
    if (faro_op_check(op))
        return faro_err(MPI_COMM_NULL, MPI_ERR_OP, "%s: op %p is not an operation "
                        "(uninitialised, freed, or another kind of handle?)", fn, (void *)op);
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op *op)
{
    if (!op)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Op_free: op is NULL");
    int rc = check_op("MPI_Op_free", *op);
    if (rc)
        return rc;
    if ((*op)->predefined)
        return faro_err(MPI_COMM_NULL, MPI_ERR_OP, "MPI_Op_free: %s is predefined and cannot "
                        "be freed (only ops from MPI_Op_create)", (*op)->name);
    faro_handle_forget(FARO_H_OP, *op);
    (*op)->magic = 0;
    faro_op_release(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    int rc = check_op("MPI_Op_commutative", op);
    if (rc)
        return rc;
    if (!commute)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Op_commutative: commute is NULL");
    *commute = op->commute;
    return MPI_SUCCESS;
}

/* MPI_Reduce_local and MPI_Reduce_local_c (bigcount/wide.h). */
int faro_wide_Reduce_local(const char *fn, const void *inbuf, void *inoutbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op)
{
    if (count < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: count %lld is negative", fn,
                        (long long)count);
    if (faro_type_check(datatype))
        return faro_type_bad(fn, MPI_COMM_NULL, datatype);
    char msg[400];
    int rc = faro_op_valid(op, datatype, msg, sizeof msg);
    if (rc)
        return faro_err(MPI_COMM_NULL, rc, "%s: %s", fn, msg);
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return faro_err(MPI_COMM_NULL, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed (both "
                        "buffers are needed)", fn);
    /* NULL is MPI_BOTTOM, valid with absolute addresses in a derived type. */
    if (count > 0 && datatype->size > 0 && datatype->predefined && (!inbuf || !inoutbuf))
        return faro_err(MPI_COMM_NULL, MPI_ERR_BUFFER, "%s: %s is NULL with count %lld", fn,
                        inbuf ? "inoutbuf" : "inbuf", (long long)count);
    rc = faro_op_reduce(op, inbuf, inoutbuf, (size_t)count, datatype);
    if (rc)
        return faro_err(MPI_COMM_NULL, rc, "%s: %s", fn,
                        rc == MPI_ERR_NO_MEM ? "out of memory for the packing buffers"
                                             : "the reduction failed");
    return MPI_SUCCESS;
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    return faro_wide_Reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}
