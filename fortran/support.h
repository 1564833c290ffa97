/*
 * What the generated Fortran bindings (faro_fortran.c, made by
 * api/apigen.py fortran) call: the sentinels' tests, strings between
 * Fortran's blank-padded CHARACTER and C's NUL-terminated char, statuses
 * between Fortran's integer arrays and MPI_Status, and the temporary arrays
 * of converted handles. Only mpi.h's interface is used: libfaro_mpifort is
 * a client of libfaro like any program.
 */
#ifndef FARO_FORTRAN_SUPPORT_H
#define FARO_FORTRAN_SUPPORT_H

#include <stddef.h>
#include <ISO_Fortran_binding.h>

#include "mpi.h"

/* the sentinels' common blocks (defined in faro_fortran.c) */
extern MPI_Fint faro_status_ignore_[], faro_statuses_ignore_[], faro_in_place_[],
    faro_bottom_[], faro_errcodes_ignore_[], faro_unweighted_[], faro_weights_empty_[];

/* A choice buffer: MPI_IN_PLACE and MPI_BOTTOM's common blocks are C's constants. */
static inline void *faro_f_buf(void *p)
{
    if (p == (void *)faro_in_place_)
        return MPI_IN_PLACE;
    if (p == (void *)faro_bottom_)
        return MPI_BOTTOM;
    return p;
}

/* An integer array that may be MPI_ERRCODES_IGNORE, MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY. */
static inline int *faro_f_intarray(MPI_Fint *p)
{
    if (p == faro_errcodes_ignore_)
        return MPI_ERRCODES_IGNORE;
    if (p == faro_unweighted_)
        return MPI_UNWEIGHTED;
    if (p == faro_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return p;
}

/* mpi_f08's buffer: the address an assumed-rank argument's descriptor holds;
 * *noncontig is set for a non-contiguous section (MPI_SUBARRAYS_SUPPORTED
 * is .FALSE.). */
void *faro_f08_buf(CFI_cdesc_t *d, int *noncontig);
int faro_f_noncontig(const char *fn);
/* An error of class cls raised on MPI_COMM_WORLD (its handler runs) with
 * the message fmt, whose one %s is the function's name; returns the code. */
int faro_f_error(int cls, const char *fmt, const char *fn);

/* Statuses: 1 when f is MPI_STATUS_IGNORE, else c is f's copy (so an INOUT
 * status comes in too). */
int faro_f_status_in(const MPI_Fint *f, MPI_Status *c);
void faro_f_status_out(const MPI_Status *c, MPI_Fint *f);
/* An array of n statuses: MPI_STATUSES_IGNORE, or a copy (NULL and
 * *nomem set when out of memory). */
MPI_Status *faro_f_statuses_in(const MPI_Fint *f, MPI_Fint n, int *nomem);
void faro_f_statuses_out(MPI_Status *c, MPI_Fint *f, MPI_Fint n);

/* Strings: a NUL-terminated copy without the trailing blanks; a buffer for
 * a string the call writes (any MPI_MAX_* length fits, and the CHARACTER's
 * own length, which a call given a length such as MPI_Info_get_string's may
 * fill), copied back blank-padded (truncated to the CHARACTER's length) and
 * freed. */
char *faro_f_cstr(const char *f, size_t len);
size_t faro_f_cstr_len(const char *f, size_t len);      /* without trailing blanks */
char *faro_f_strbuf(size_t len);
void faro_f_fstr(char *f, size_t len, char *c);

/* A temporary array of n handles (NULL and *nomem set when out of memory;
 * n <= 0 gives a valid empty array). */
void *faro_f_alloc(MPI_Fint n, size_t size, int *nomem);
int faro_f_nomem(const char *fn);
/* The number of processes a comm_size-long array covers (the remote group
 * of an intercommunicator). */
int faro_f_comm_size(MPI_Comm comm);

/* The number of neighbours a neighbourhood collective's arrays cover
 * (out: the destinations, else the sources) in comm's topology; 0 without one. */
int faro_f_degree(MPI_Comm comm, int out);

/* Checks that a predefined handle got the integer mpif.h gives it. */
void faro_f_predefined(MPI_Fint got, MPI_Fint want, const char *name);
/* The INTEGER(KIND=MPI_ADDRESS_KIND) Fortran gets for an attribute value C
 * gave as v from function fn (MPI_Comm_get_attr ...): the value stored,
 * or for a predefined key what v points to (an int; MPI_WIN_SIZE's MPI_Aint;
 * MPI_WIN_BASE's address itself). */
MPI_Aint faro_f_attr_value(const char *fn, int keyval, void *v);

#endif
