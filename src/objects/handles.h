/*
 * Integer (Fortran) handles for the pointer handles of mpi.h: MPI_X_c2f and
 * MPI_X_f2c for every handle type go through this table (handles.c).
 *
 * Null handles are 0; predefined objects and user objects get an index the
 * first time they are converted. Every free function of an object calls
 * faro_handle_forget() so a freed object's index is released (and f2c of it
 * gives the null handle). Thread safe.
 */
#ifndef FARO_OBJECTS_HANDLES_H
#define FARO_OBJECTS_HANDLES_H

#include "mpi.h"

enum faro_handle_kind {
    FARO_H_COMM, FARO_H_TYPE, FARO_H_GROUP, FARO_H_REQUEST, FARO_H_OP, FARO_H_INFO,
    FARO_H_ERRHANDLER, FARO_H_MESSAGE, FARO_H_WIN, FARO_H_FILE, FARO_H_SESSION, FARO_H_KINDS
};

/* Non-zero once any object of the kind was converted: lets hot paths (request
 * release) skip faro_handle_forget when no program converts handles. */
extern volatile int faro_handle_used[FARO_H_KINDS];

MPI_Fint faro_handle_c2f(int kind, const void *obj);
void *faro_handle_f2c(int kind, MPI_Fint f);
void faro_handle_forget(int kind, const void *obj);

#endif
