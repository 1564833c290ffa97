/*
 * Building derived datatypes (private to the datatype files; type_build.c).
 *
 * A constructor describes its typemap to a builder as copies of its old
 * type(s) at byte displacements (tb_add, tb_add_blocks); the builder appends
 * their pieces as runs, merging what touches, and keeps the bounds, size,
 * basic type and element count as it goes. tb_finish turns that into a type
 * object. The cost is the shape's, not the count's: see type_build.c.
 */
#ifndef FARO_OBJECTS_TYPE_BUILD_H
#define FARO_OBJECTS_TYPE_BUILD_H

#include "core.h"

struct faro_tbuild {
    struct faro_run *run;
    size_t nrun, cap;
    size_t size;
    long long nbasic;
    MPI_Aint elb, eub; int have_e;   /* bounds from copies without markers */
    MPI_Aint xlb, xub; int xl, xu;   /* bounds from resized markers */
    MPI_Aint tlb, tub; int have_t;   /* true bounds (data only) */
    MPI_Datatype basic; int mixed;
    size_t align;
    int oom;
    int toobig;                      /* the size would not fit MPI_Count */
};

void tb_init(struct faro_tbuild *b);
/* n copies of t at disp, disp + stride, ... (bytes). */
void tb_add(struct faro_tbuild *b, MPI_Datatype t, MPI_Aint disp, size_t n, MPI_Aint stride);
/* nblocks blocks of blocklen copies of t (at t's extent), block i at disp + i * bstride:
 * a vector, in time that does not grow with nblocks when the blocks make one run. */
void tb_add_blocks(struct faro_tbuild *b, MPI_Datatype t, MPI_Aint disp, size_t nblocks,
                   MPI_Aint bstride, size_t blocklen);
/* Make the type: pad_struct rounds the extent up to the alignment (MPI's
 * epsilon of Type_create_struct); resized sets explicit bounds. contents is
 * taken over (its types get a reference here). NULL when out of memory or
 * too big (b->toobig). */
MPI_Datatype tb_finish(struct faro_tbuild *b, int pad_struct, int resized, MPI_Aint rlb,
                       MPI_Aint rextent, struct faro_type_contents *contents);
void tb_discard(struct faro_tbuild *b);

struct faro_type_contents *faro_tc_new(int combiner, int ni, int na, int nt);
/* A fresh object from the pool (zeroed, magic set, one reference). */
MPI_Datatype faro_type_alloc(void);
/* Fill the runs' packed positions, the piece count and dense/contig. */
void faro_type_layout(MPI_Datatype t);
/* Give n (fresh from faro_type_alloc) t's runs, size, bounds and basic type.
 * 0, or -1 when out of memory. */
int faro_type_copy_layout(MPI_Datatype n, MPI_Datatype t);

#endif
