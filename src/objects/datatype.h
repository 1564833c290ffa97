/*
 * Datatypes (owner: datatype.c and the type constructor files).
 *
 * A type is flattened once, at creation/commit, into the byte segments of one
 * element; point-to-point, collectives, pack/unpack and reductions all move
 * data through faro_type_pack/unpack, which take the contiguous fast path
 * (one memcpy) whenever t->contig is set.
 */
#ifndef FARO_OBJECTS_DATATYPE_H
#define FARO_OBJECTS_DATATYPE_H

#include <stddef.h>
#include "mpi.h"

struct faro_attr;

struct faro_seg {
    MPI_Aint off; /* from the element's start */
    size_t len;
};

struct faro_datatype {
    size_t size;           /* bytes of data per element */
    MPI_Aint lb, extent;   /* element spacing */
    int contig;            /* one segment at offset 0 with size == extent */
    int nseg;
    struct faro_seg *seg;  /* the element's typemap as byte segments */
    int predefined;
    const char *name;
    /* The one predefined type every primitive of the typemap is (MPI_INT for a
     * vector of MPI_INT; MPI_2INT for a contiguous of MPI_2INT), NULL when the
     * typemap mixes types. Reductions use it to accept derived types. */
    MPI_Datatype basic;
    struct faro_attr *attrs; /* attribute list (attr.c) */
};

int faro_type_check(MPI_Datatype t); /* 0 when usable in communication */
/* Copy count elements between a typed buffer and a contiguous byte stream.
 * The packed form of an element is its segments' bytes, concatenated. */
void faro_type_pack(const void *buf, size_t count, MPI_Datatype t, void *out);
void faro_type_unpack(const void *in, size_t bytes, void *buf, MPI_Datatype t);

#endif
