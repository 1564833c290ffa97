/*
 * Reduction operations (owner: op.c and the reduction kernels).
 *
 * faro_op_reduce() is what collectives and MPI_Reduce_local call:
 *   inout[i] = in[i] op inout[i]   for count elements of type t,
 * both buffers laid out as t describes (derived types allowed when t->basic
 * is a type the op accepts). Returns MPI_SUCCESS or an error class; it raises
 * nothing itself, so the caller reports with its own function name.
 */
#ifndef FARO_OBJECTS_OP_H
#define FARO_OBJECTS_OP_H

#include <stddef.h>
#include "mpi.h"

int faro_op_reduce(MPI_Op op, const void *in, void *inout, size_t count, MPI_Datatype t);
/* 0 when op may be applied to t; else MPI_ERR_OP (or MPI_ERR_TYPE) and why in msg. */
int faro_op_valid(MPI_Op op, MPI_Datatype t, char *msg, size_t msglen);
int faro_op_is_commutative(MPI_Op op);

#endif
