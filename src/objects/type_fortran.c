/*
 * Types of Fortran's kinds, for C programs (and tools such as mpi4py) that
 * handle Fortran data: MPI_Type_match_size and MPI_Type_create_f90_integer /
 * real / complex (MPI-3.1 17.1.9). There are no Fortran bindings.
 *
 * The kinds are gfortran's on this ABI: INTEGER(1, 2, 4, 8, 16), REAL(4)
 * (precision 6 digits, range 10^37) and REAL(8) (15 digits, 10^307).
 * REAL(10) and REAL(16) have no MPI handle here, so precisions or ranges
 * beyond REAL(8) are refused with a message saying what is available.
 *
 * A create_f90 type is predefined (it cannot be freed) but not named: its
 * envelope says MPI_COMBINER_F90_* with the p and r it was asked for, and
 * it moves and reduces as the named type of its kind (its basic type). One
 * object is made per (combiner, p, r) and handed out again for equal
 * arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objects/type_build.h"
#include "runtime/thread.h"

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_match_size";
    if (!datatype)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: datatype is NULL", fn);
    static const MPI_Datatype ints[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8,
                                        MPI_INTEGER16};
    static const MPI_Datatype reals[] = {MPI_REAL4, MPI_REAL8, MPI_LONG_DOUBLE};
    static const MPI_Datatype cplx[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_C_LONG_DOUBLE_COMPLEX};
    const MPI_Datatype *set;
    const char *cls;
    int n;
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER: set = ints, n = 5, cls = "MPI_TYPECLASS_INTEGER"; break;
    case MPI_TYPECLASS_REAL: set = reals, n = 3, cls = "MPI_TYPECLASS_REAL"; break;
    case MPI_TYPECLASS_COMPLEX: set = cplx, n = 3, cls = "MPI_TYPECLASS_COMPLEX"; break;
    default:
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "%s: typeclass %d is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX", fn,
                        typeclass);
    }
    char sizes[32] = "", *p = sizes;
    for (int i = 0; i < n; i++) {
        if (set[i]->size == (size_t)size) {
            *datatype = set[i];
            return MPI_SUCCESS;
        }
        p += snprintf(p, (size_t)(sizes + sizeof sizes - p), "%s%zu", i ? ", " : "",
                      set[i]->size);
    }
    return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: no type of %s has %d bytes (its sizes: %s)",
                    fn, cls, size, sizes);
}

/* ---- MPI_Type_create_f90_* ---- */

struct f90_type {
    int combiner, p, r;
    MPI_Datatype t;
    struct f90_type *next;
};
static struct f90_type *f90_types;

/* The type for (combiner, p, r) of kind `kind`: the one made before, or a new
 * predefined, unnamed copy of kind whose envelope says how it was asked for. */
static int f90_type(const char *fn, int combiner, int p, int r, MPI_Datatype kind,
                    MPI_Datatype *newtype)
{
    for (struct f90_type *f = f90_types; f; f = f->next)
        if (f->combiner == combiner && f->p == p && f->r == r) {
            *newtype = f->t;
            return MPI_SUCCESS;
        }
    struct f90_type *f = calloc(1, sizeof *f);
    int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    struct faro_type_contents *c = faro_tc_new(combiner, ni, 0, 0);
    MPI_Datatype t = f && c ? faro_type_alloc() : NULL;
    if (!t || faro_type_copy_layout(t, kind) != 0) {
        free(f);
        free(c);
        if (t) {
            t->freed = 1;
            faro_type_release(t);
        }
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    c->ints[0] = combiner == MPI_COMBINER_F90_INTEGER ? r : p;
    if (ni == 2)
        c->ints[1] = r;
    t->basic = kind;
    t->predefined = 1;
    t->committed = 1;
    t->contents = c;
    *f = (struct f90_type){combiner, p, r, t, f90_types};
    f90_types = f;
    *newtype = t;
    return MPI_SUCCESS;
}

/* Decimal precision p and range r of the REAL kinds (MPI_UNDEFINED: any). */
static MPI_Datatype real_kind(int p, int r, int complex)
{
    static const struct { int p, r; } kinds[2] = {{6, 37}, {15, 307}};
    for (int k = 0; k < 2; k++)
        if ((p == MPI_UNDEFINED || p <= kinds[k].p) && (r == MPI_UNDEFINED || r <= kinds[k].r))
            return k == 0 ? (complex ? MPI_COMPLEX : MPI_REAL)
                          : (complex ? MPI_DOUBLE_COMPLEX : MPI_DOUBLE_PRECISION);
    return MPI_DATATYPE_NULL;
}

static int f90_floating(const char *fn, int combiner, int p, int r, MPI_Datatype *newtype)
{
    if (!newtype)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: newtype is NULL", fn);
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: p and r are both MPI_UNDEFINED (give "
                        "at least one)", fn);
    if ((p < 0 && p != MPI_UNDEFINED) || (r < 0 && r != MPI_UNDEFINED))
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: p = %d, r = %d: each must be >= 0 or "
                        "MPI_UNDEFINED", fn, p, r);
    int complex = combiner == MPI_COMBINER_F90_COMPLEX;
    MPI_Datatype kind = real_kind(p, r, complex);
    if (!kind)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "%s: no %s kind has precision %d and range %d (Faro has kind 4: "
                        "p <= 6, r <= 37, and kind 8: p <= 15, r <= 307)", fn,
                        complex ? "COMPLEX" : "REAL", p, r);
    FARO_LOCKED;
    return f90_type(fn, combiner, p, r, kind, newtype);
}

#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_floating("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}

#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_floating("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}

#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_f90_integer";
    if (!newtype)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: newtype is NULL", fn);
    /* the smallest INTEGER kind holding every number of r decimal digits */
    static const struct { int r; MPI_Datatype t; } kinds[5] = {
        {2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8},
        {38, MPI_INTEGER16}};
    if (r < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: range r = %d is negative", fn, r);
    for (int k = 0; k < 5; k++)
        if (r <= kinds[k].r) {
            FARO_LOCKED;
            return f90_type(fn, MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, kinds[k].t, newtype);
        }
    return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: no INTEGER kind has range %d (Faro has "
                    "INTEGER(1, 2, 4, 8, 16): r <= 2, 4, 9, 18, 38)", fn, r);
}
