/*
 * Reduction operations (owner: op.c and the reduction kernels, op_kernels.c).
 *
 * faro_op_reduce() is what collectives and MPI_Reduce_local call:
 *   inout[i] = in[i] op inout[i]   for count elements of type t,
 * both buffers laid out as t describes (derived types allowed when t->basic
 * is a type the op accepts). Returns MPI_SUCCESS or an error class; it raises
 * nothing itself, so the caller reports with its own function name.
 * in and inout must not overlap. For a non-commutative user op the order
 * matters: in is the left operand (the lower ranks' data), inout the right.
 */
#ifndef FARO_OBJECTS_OP_H
#define FARO_OBJECTS_OP_H

#include <stddef.h>
#include "mpi.h"
#include "objects/predefined.h"

int faro_op_reduce(MPI_Op op, const void *in, void *inout, size_t count, MPI_Datatype t);
/* 0 when op may be applied to t; else MPI_ERR_OP (or MPI_ERR_TYPE) and why in msg
 * (without a function name: the caller prefixes its own, "MPI_Reduce: %s"). */
int faro_op_valid(MPI_Op op, MPI_Datatype t, char *msg, size_t msglen);
/* 1 when predefined type t is a C or Fortran integer, logical, multi-language
 * (MPI_AINT, MPI_OFFSET, MPI_COUNT) or byte type: what MPI_Compare_and_swap
 * takes (MPI 3.1 11.3.4). */
int faro_type_compares(MPI_Datatype t);
int faro_op_is_commutative(MPI_Op op);

/* A nonblocking operation that keeps op past the call retains it and releases
 * it at completion, so MPI_Op_free during the operation is safe. */
void faro_op_retain(MPI_Op op);
/* 0 when op is a live op (predefined or user); made-up handles are not read. */
int faro_op_check(MPI_Op op);
void faro_op_release(MPI_Op op);

#define FARO_OP_MAGIC 0x0f0fa12du

/* The predefined ops in the order of the kernel table (op_kernels.c). */
enum faro_op_kind {
    FARO_OP_MAX, FARO_OP_MIN, FARO_OP_SUM, FARO_OP_PROD, FARO_OP_LAND, FARO_OP_BAND,
    FARO_OP_LOR, FARO_OP_BOR, FARO_OP_LXOR, FARO_OP_BXOR, FARO_OP_MAXLOC, FARO_OP_MINLOC,
    FARO_OP_REPLACE, FARO_OP_NO_OP, FARO_OP_NPREDEF, FARO_OP_USER = FARO_OP_NPREDEF
};

struct faro_op {
    unsigned magic;
    int kind;                /* enum faro_op_kind */
    int commute;
    int predefined;
    int refcount;            /* user ops: the handle plus nonblocking users */
    MPI_User_function *fn;   /* user ops: MPI_Op_create's */
    MPI_User_function_c *fn_c; /* ... or MPI_Op_create_c's */
    const char *name;
};
FARO_PREDEFINED_WRAPPER(faro_op, OP);

/* ---- kernels (op_kernels.c) ----
 * Element kinds: the C type a predefined datatype's elements are reduced as. */
enum faro_elem {
    FARO_E_I8, FARO_E_U8, FARO_E_I16, FARO_E_U16, FARO_E_I32, FARO_E_U32, FARO_E_I64,
    FARO_E_U64, FARO_E_I128, FARO_E_BOOL, FARO_E_FLT, FARO_E_DBL, FARO_E_LDBL, FARO_E_CFLT, FARO_E_CDBL,
    FARO_E_CLDBL, FARO_E_FLOAT_INT, FARO_E_DOUBLE_INT, FARO_E_LONG_INT, FARO_E_2INT,
    FARO_E_SHORT_INT, FARO_E_LDOUBLE_INT, FARO_E_2FLT, FARO_E_2DBL, FARO_E_N
};
typedef void faro_op_kernel(const void *in, void *inout, size_t n);
/* Kernels on arrays of C elements (pairs as their C struct); NULL when the
 * element kind has no such op. */
extern faro_op_kernel *const faro_op_kernels[FARO_OP_MINLOC + 1][FARO_E_N];
/* MAXLOC/MINLOC on packed pairs (value bytes then int bytes, no padding). */
extern faro_op_kernel *const faro_op_packed_pair_kernels[2][FARO_E_N];

#endif
