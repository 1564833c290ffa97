/*
 * What the generated large-count entry points (calls_c.c) use to reach an
 * int call that has no wide implementation yet: a (count, datatype) beyond
 * INT_MAX is folded into one element of a contiguous type; other counts are
 * checked to fit an int (a larger one is refused with
 * MPI_ERR_UNSUPPORTED_OPERATION, naming the argument: that call cannot take
 * it yet), and arrays are copied into int or MPI_Aint arrays the caller
 * frees.
 */
#ifndef FARO_BIGCOUNT_NARROW_H
#define FARO_BIGCOUNT_NARROW_H

#include "core.h"

/* 0 when v fits an int, else the error raised on comm (MPI_COMM_NULL:
 * MPI_COMM_WORLD's handler). */
int faro_c_fits(const char *fn, MPI_Comm comm, const char *what, MPI_Count v);
/* A (count, datatype) pair beyond INT_MAX becomes one element of a
 * contiguous type of count elements (*made, committed; *count 1, *type
 * *made): the same type signature and bytes, so the int call moves it. Not
 * with a user op (op: the call's, or MPI_OP_NULL), whose function takes an
 * int length, nor with an invalid datatype: those are refused as
 * faro_c_fits does. faro_c_unfold frees *made after the call (a
 * nonblocking call's schedule holds its own reference). */
int faro_c_fold(const char *fn, MPI_Comm comm, const char *what, MPI_Op op, MPI_Count *count,
                MPI_Datatype *type, MPI_Datatype *made);
void faro_c_unfold(MPI_Datatype *made);
/* *out = a malloc'ed copy of the n values of in (n <= 0: an empty copy). */
int faro_c_ints(const char *fn, MPI_Comm comm, const char *what, const MPI_Count *in,
                MPI_Count n, int **out);
int faro_c_ints_of_aints(const char *fn, MPI_Comm comm, const char *what, const MPI_Aint *in,
                         MPI_Count n, int **out);
int faro_c_aints(const char *fn, MPI_Comm comm, const char *what, const MPI_Count *in,
                 MPI_Count n, MPI_Aint **out);
/* The lengths of a call's per-process arrays: the peers of comm (the
 * remote group of an intercommunicator), its topology's in and out degree;
 * 0 for an invalid communicator (the int call reports it). */
MPI_Count faro_c_len_comm_size(MPI_Comm comm);
MPI_Count faro_c_len_indegree(MPI_Comm comm);
MPI_Count faro_c_len_outdegree(MPI_Comm comm);

#endif
