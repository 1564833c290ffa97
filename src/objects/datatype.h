/*
 * Datatypes (owner: datatype.c, type_create.c, pack.c).
 *
 * A type is flattened once, at creation, into the byte pieces of one element,
 * kept as runs (n equal pieces at a fixed stride: a vector is one run, a
 * dense type one piece, whatever their counts); point-to-point, collectives,
 * pack/unpack and reductions all move data through faro_type_pack/unpack,
 * which take the contiguous fast path (one memcpy) whenever t->dense is set,
 * and otherwise walk the runs, a tight loop per run.
 *
 * Lifetime: the program's handle holds one reference, every derived type
 * built from a type holds one (MPI_Type_get_contents hands the constituents
 * back), a receive that stages a derived type holds one until it is
 * released (request.c), and a persistent request holds one from its init
 * call to MPI_Request_free. MPI_Type_free only marks the handle freed; the
 * memory goes with the last reference. Type objects come from slabs that are
 * never returned to the system, so a freed handle reads as freed
 * (MPI_ERR_TYPE) instead of as garbage.
 */
#ifndef FARO_OBJECTS_DATATYPE_H
#define FARO_OBJECTS_DATATYPE_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "objects/arena.h"
#include "objects/predefined.h"

#define FARO_TYPE_MAGIC 0x54595045u

struct faro_attr;

/* n pieces of len bytes at off, off + stride, ... from the element's start;
 * pos is where the run's first byte lies in the packed form of one element. */
struct faro_run {
    MPI_Aint off, stride;
    size_t len, n;
    size_t pos;
};

/* What the constructor was given (MPI_Type_get_envelope/get_contents). */
struct faro_type_contents {
    int combiner;
    int ni, na, nt;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types; /* each holds a reference */
};

struct faro_datatype {
    uint32_t magic;        /* FARO_TYPE_MAGIC while the object lives */
    size_t size;           /* bytes of data per element */
    MPI_Aint lb, extent;   /* element spacing */
    int contig;            /* one piece at offset 0 with size == extent */
    int predefined;
    const char *name;
    /* The one predefined type every primitive of the typemap is (MPI_INT for a
     * vector of MPI_INT; MPI_2INT for a contiguous of MPI_2INT), NULL when the
     * typemap mixes types. Reductions use it to accept derived types. */
    MPI_Datatype basic;
    struct faro_attr *attrs; /* attribute list (attr.c) */

    /* engine */
    int dense;             /* one piece and size == extent: count elements are
                            * count*size bytes at buf + run[0].off (contig: off 0) */
    int nrun;
    struct faro_run *run;  /* the element's typemap as runs of byte pieces, in typemap
                            * order; at least one entry ({0} for an empty type) */
    size_t nseg;           /* pieces in all runs */
    MPI_Aint true_lb, true_extent;
    long long nbasic;      /* basic (predefined) elements per element */
    size_t align;          /* largest alignment of its basic types (struct padding) */
    int explicit_lb, explicit_ub; /* bounds set by resized (sticky through constructors) */

    /* object */
    int committed;
    int freed;             /* MPI_Type_free was called: the handle is dead */
    long refs;             /* see the top of this file; unused for predefined */
    struct faro_type_contents *contents; /* NULL for predefined types */
    char namebuf[MPI_MAX_OBJECT_NAME];
};
FARO_PREDEFINED_WRAPPER(faro_datatype, DATATYPE);

/* The pool type objects come from (datatype.c): a handle is read only once
 * it is known to lie in its arena (a made-up one could fault). */
extern struct faro_pool faro_type_pool;
/* 0 for a live handle, committed or not; inline, as every communicating
 * call checks its types. */
static inline int faro_type_valid(MPI_Datatype t)
{
    if (!faro_arena_has_recent(&faro_type_pool.arena, t))
        return -1;
    return t->magic == FARO_TYPE_MAGIC && !t->freed ? 0 : -1;
}
/* 0 when usable in communication (committed). */
static inline int faro_type_check(MPI_Datatype t)
{
    return faro_type_valid(t) == 0 && t->committed ? 0 : -1;
}
/* The error of a bad datatype argument under fn (NULL, freed, uncommitted). */
int faro_type_bad(const char *fn, MPI_Comm comm, MPI_Datatype t);

/* Copy count elements between a typed buffer and a contiguous byte stream.
 * The packed form of an element is its pieces' bytes, concatenated. */
void faro_type_pack(const void *buf, size_t count, MPI_Datatype t, void *out);
void faro_type_unpack(const void *in, size_t bytes, void *buf, MPI_Datatype t);
/* The same for bytes [pos, pos + n) of the packed stream of buf (pipelining). */
void faro_type_pack_range(const void *buf, MPI_Datatype t, size_t pos, size_t n, void *out);
void faro_type_unpack_range(const void *in, MPI_Datatype t, size_t pos, size_t n, void *buf);
/* The typed-side addresses of packed bytes [pos, pos + n) of buf: at most max
 * iovecs (adjacent pieces merged); *covered says how many bytes they hold
 * (less than n only when max was reached). Returns the number of iovecs. */
struct iovec;
int faro_type_iov(const void *buf, MPI_Datatype t, size_t pos, size_t n, struct iovec *iov,
                  int max, size_t *covered);

/* Where count elements of a dense type start in buf. */
static inline void *faro_type_dense_at(const void *buf, MPI_Datatype t)
{
    return (void *)((uintptr_t)buf + (uintptr_t)t->run[0].off);
}

/* The type signature of count elements of t (type_sig.c): a hash of its
 * sequence of basic types, for collective checking. Equal when MPI's type
 * matching rules make two (count, type) pairs match; loose when MPI_BYTE or
 * MPI_PACKED is in it (then only the bytes are compared). */
struct faro_type_sig {
    uint64_t h, n, bn;     /* hash, basic elements, (hash base)^n */
    uint64_t bytes;
    int loose;
};
void faro_type_sig(MPI_Datatype t, size_t count, struct faro_type_sig *out);
int faro_type_sig_equal(const struct faro_type_sig *a, const struct faro_type_sig *b);

/* References held by requests and by derived types. */
void faro_type_destroy(MPI_Datatype t);
static inline void faro_type_retain(MPI_Datatype t)
{
    if (t && !t->predefined)
        t->refs++;
}
static inline void faro_type_release(MPI_Datatype t)
{
    if (t && !t->predefined && --t->refs == 0)
        faro_type_destroy(t);
}

#endif
