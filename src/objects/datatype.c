/*
 * Datatypes: the predefined types, the life of type objects (pool,
 * references, commit, free, dup), and the queries (size, extents, names,
 * envelope and contents, counts of a status). Constructors are in
 * type_create.c, the pack/unpack engine in pack.c.
 */
#include <complex.h>
#include <limits.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core.h"
#include "bigcount/wide.h"
#include "runtime/thread.h"
#include "objects/arena.h"
#include "objects/type_build.h"

/* Every predefined type's address as the program sees it (a relocated
 * pointer: a copy in the program when it uses the type by name), listed in
 * one section for the type arena's brackets (type_arena_init). */
#define LISTED(object)                                                               \
    static MPI_Datatype const listed_##object                                        \
        __attribute__((used, section("faro_predefined_types"))) = &object.obj;

#define BASIC(var, ctype, label)                                                     \
    struct faro_datatype_predefined faro_mpi_##var = {.obj = {                       \
        .magic = FARO_TYPE_MAGIC, .size = sizeof(ctype), .lb = 0,                    \
        .extent = sizeof(ctype), .contig = 1, .dense = 1, .nseg = 1, .nrun = 1,      \
        .run = (struct faro_run[]){{0, sizeof(ctype), sizeof(ctype), 1, 0}},         \
        .true_extent = sizeof(ctype), .nbasic = 1, .align = alignof(ctype),          \
        .committed = 1, .predefined = 1, .name = label,                              \
        .basic = &faro_mpi_##var.obj}};                                              \
    LISTED(faro_mpi_##var)

BASIC(char, char, "MPI_CHAR")
BASIC(signed_char, signed char, "MPI_SIGNED_CHAR")
BASIC(unsigned_char, unsigned char, "MPI_UNSIGNED_CHAR")
BASIC(byte, unsigned char, "MPI_BYTE")
BASIC(packed, unsigned char, "MPI_PACKED")
BASIC(wchar, wchar_t, "MPI_WCHAR")
BASIC(short, short, "MPI_SHORT")
BASIC(unsigned_short, unsigned short, "MPI_UNSIGNED_SHORT")
BASIC(int, int, "MPI_INT")
BASIC(unsigned, unsigned, "MPI_UNSIGNED")
BASIC(long, long, "MPI_LONG")
BASIC(unsigned_long, unsigned long, "MPI_UNSIGNED_LONG")
BASIC(long_long, long long, "MPI_LONG_LONG_INT") /* MPI_LONG_LONG is its synonym */
BASIC(unsigned_long_long, unsigned long long, "MPI_UNSIGNED_LONG_LONG")
BASIC(float, float, "MPI_FLOAT")
BASIC(double, double, "MPI_DOUBLE")
BASIC(long_double, long double, "MPI_LONG_DOUBLE")
BASIC(int8_t, int8_t, "MPI_INT8_T")
BASIC(int16_t, int16_t, "MPI_INT16_T")
BASIC(int32_t, int32_t, "MPI_INT32_T")
BASIC(int64_t, int64_t, "MPI_INT64_T")
BASIC(uint8_t, uint8_t, "MPI_UINT8_T")
BASIC(uint16_t, uint16_t, "MPI_UINT16_T")
BASIC(uint32_t, uint32_t, "MPI_UINT32_T")
BASIC(uint64_t, uint64_t, "MPI_UINT64_T")
BASIC(c_bool, _Bool, "MPI_C_BOOL")
BASIC(c_float_complex, float _Complex, "MPI_C_COMPLEX") /* MPI_C_FLOAT_COMPLEX: its synonym */
BASIC(c_double_complex, double _Complex, "MPI_C_DOUBLE_COMPLEX")
BASIC(c_long_double_complex, long double _Complex, "MPI_C_LONG_DOUBLE_COMPLEX")
BASIC(aint, MPI_Aint, "MPI_AINT")
BASIC(offset, MPI_Offset, "MPI_OFFSET")
BASIC(count, MPI_Count, "MPI_COUNT")
/* Fortran (gfortran's default kinds) and C++ (g++) types */
BASIC(integer, int32_t, "MPI_INTEGER")
BASIC(real, float, "MPI_REAL")
BASIC(double_precision, double, "MPI_DOUBLE_PRECISION")
BASIC(complex, float _Complex, "MPI_COMPLEX")
BASIC(double_complex, double _Complex, "MPI_DOUBLE_COMPLEX")
BASIC(logical, int32_t, "MPI_LOGICAL")
BASIC(character, char, "MPI_CHARACTER")
BASIC(integer1, int8_t, "MPI_INTEGER1")
BASIC(integer2, int16_t, "MPI_INTEGER2")
BASIC(integer4, int32_t, "MPI_INTEGER4")
BASIC(integer8, int64_t, "MPI_INTEGER8")
#ifdef __SIZEOF_INT128__
BASIC(integer16, __int128, "MPI_INTEGER16")
#else
typedef struct { _Alignas(16) unsigned char b[16]; } faro_integer16; /* moves, no ops */
BASIC(integer16, faro_integer16, "MPI_INTEGER16")
#endif
BASIC(real4, float, "MPI_REAL4")
BASIC(real8, double, "MPI_REAL8")
BASIC(complex8, float _Complex, "MPI_COMPLEX8")
BASIC(complex16, double _Complex, "MPI_COMPLEX16")
BASIC(cxx_bool, _Bool, "MPI_CXX_BOOL") /* bool of the C++ ABI: one byte, like _Bool */
BASIC(cxx_float_complex, float _Complex, "MPI_CXX_FLOAT_COMPLEX")
BASIC(cxx_double_complex, double _Complex, "MPI_CXX_DOUBLE_COMPLEX")
BASIC(cxx_long_double_complex, long double _Complex, "MPI_CXX_LONG_DOUBLE_COMPLEX")

/* Pair types for MINLOC/MAXLOC: value then index, laid out as the C struct
 * (the index is an int, or the value's type for the Fortran pairs). Their two
 * runs (one piece each) are their two basic elements. */
#define PAIR(var, vtype, itype, label)                                                  \
    struct pair_##var { vtype v; itype i; };                                            \
    struct faro_datatype_predefined faro_mpi_##var = {.obj = {                          \
        .magic = FARO_TYPE_MAGIC, .size = sizeof(vtype) + sizeof(itype), .lb = 0,       \
        .extent = sizeof(struct pair_##var),                                            \
        .contig = sizeof(vtype) + sizeof(itype) == sizeof(struct pair_##var) &&         \
                  offsetof(struct pair_##var, i) == sizeof(vtype),                      \
        .dense = sizeof(vtype) + sizeof(itype) == sizeof(struct pair_##var) &&          \
                 offsetof(struct pair_##var, i) == sizeof(vtype),                       \
        .nseg = 2, .nrun = 2,                                                           \
        .run = (struct faro_run[]){{0, sizeof(vtype), sizeof(vtype), 1, 0},             \
                                   {offsetof(struct pair_##var, i), sizeof(itype),      \
                                    sizeof(itype), 1, sizeof(vtype)}},                  \
        .true_extent = offsetof(struct pair_##var, i) + sizeof(itype), .nbasic = 2,     \
        .align = alignof(struct pair_##var), .committed = 1, .predefined = 1,           \
        .name = label, .basic = &faro_mpi_##var.obj}};                                  \
    LISTED(faro_mpi_##var)

PAIR(float_int, float, int, "MPI_FLOAT_INT")
PAIR(double_int, double, int, "MPI_DOUBLE_INT")
PAIR(long_int, long, int, "MPI_LONG_INT")
PAIR(2int, int, int, "MPI_2INT")
PAIR(short_int, short, int, "MPI_SHORT_INT")
PAIR(long_double_int, long double, int, "MPI_LONG_DOUBLE_INT")
PAIR(2integer, int32_t, int32_t, "MPI_2INTEGER")
PAIR(2real, float, float, "MPI_2REAL")
PAIR(2double_precision, double, double, "MPI_2DOUBLE_PRECISION")

/* ---- objects ---- */

/* Type objects come from a FIFO pool over the type arena (objects/arena.h,
 * linked through their run field): never returned to the system, a freed one
 * waits at the end of the queue before it is reused, so a program's stale
 * handle reads as freed (MPI_ERR_TYPE), not as garbage, and a made-up one is
 * refused before it is read. */
struct faro_pool faro_type_pool = FARO_POOL_INIT("datatype", (size_t)256 << 20,
                                                struct faro_datatype, run, 64);

extern MPI_Datatype const __start_faro_predefined_types[], __stop_faro_predefined_types[];

__attribute__((constructor)) static void type_arena_init(void)
{
    faro_arena_reserve(&faro_type_pool.arena);
    for (MPI_Datatype const *t = __start_faro_predefined_types; t < __stop_faro_predefined_types;
         t++)
        faro_arena_add_fixed(&faro_type_pool.arena, *t, sizeof(struct faro_datatype_predefined));
}

/* Predefined types by their place in the library's table: the same in every
 * process of a job (one-sided requests name element types this way). */
int faro_type_predef_index(MPI_Datatype t)
{
    for (MPI_Datatype const *p = __start_faro_predefined_types; p < __stop_faro_predefined_types;
         p++)
        if (*p == t)
            return (int)(p - __start_faro_predefined_types);
    return -1;
}

MPI_Datatype faro_type_predef_at(int i)
{
    return __start_faro_predefined_types[i];
}

MPI_Datatype faro_type_alloc(void)
{
    struct faro_datatype *t = faro_pool_get(&faro_type_pool);
    if (!t)
        return NULL;
    t->magic = FARO_TYPE_MAGIC;
    t->refs = 1;
    t->name = t->namebuf;
    return t;
}

struct faro_type_contents *faro_tc_new(int combiner, int ni, int na, int nt)
{
    size_t bytes = sizeof(struct faro_type_contents) + (size_t)na * sizeof(MPI_Aint) +
                   (size_t)nt * sizeof(MPI_Datatype) + (size_t)ni * sizeof(int);
    struct faro_type_contents *c = calloc(1, bytes);
    if (!c)
        return NULL;
    c->combiner = combiner;
    c->ni = ni, c->na = na, c->nt = nt;
    c->aints = (MPI_Aint *)(c + 1);
    c->types = (MPI_Datatype *)(c->aints + na);
    c->ints = (int *)(c->types + nt);
    return c;
}

void faro_type_destroy(MPI_Datatype t)
{
    struct faro_type_contents *c = t->contents;
    if (c)
        for (int i = 0; i < c->nt; i++)
            faro_type_release(c->types[i]);
    free(c);
    free(t->run);
    faro_pool_put(&faro_type_pool, t);
}

int faro_type_bad(const char *fn, MPI_Comm comm, MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL)
        return faro_err(comm, MPI_ERR_TYPE, "%s: datatype is MPI_DATATYPE_NULL", fn);
    if (faro_type_valid(t))
        return faro_err(comm, MPI_ERR_TYPE,
                        "%s: argument is not a datatype (uninitialised, or freed with "
                        "MPI_Type_free?)", fn);
    return faro_err(comm, MPI_ERR_TYPE,
                    "%s: datatype%s%s is not committed (call MPI_Type_commit before using it "
                    "in communication)", fn, t->name[0] ? " " : "", t->name);
}

#define CHECK_VALID(fn, t)                                                                 \
    do {                                                                                   \
        if (faro_type_valid(t))                                                            \
            return faro_type_bad(fn, MPI_COMM_NULL, t);                                    \
    } while (0)

#define CHECK_PTR(fn, p, what)                                                             \
    do {                                                                                   \
        if (!(p))                                                                          \
            return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s is NULL", fn, what);       \
    } while (0)

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype *t)
{
    FARO_LOCKED;
    CHECK_PTR("MPI_Type_commit", t, "the datatype pointer");
    CHECK_VALID("MPI_Type_commit", *t);
    (*t)->committed = 1; /* the layout was made at creation */
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype *tp)
{
    FARO_LOCKED;
    CHECK_PTR("MPI_Type_free", tp, "the datatype pointer");
    MPI_Datatype t = *tp;
    CHECK_VALID("MPI_Type_free", t);
    if (t->predefined)
        return faro_err(MPI_COMM_NULL, MPI_ERR_TYPE,
                        "MPI_Type_free: %s is predefined and cannot be freed",
                        t->contents ? "a type from MPI_Type_create_f90_*" : t->name);
    int rc = faro_attr_delete_all(FARO_ATTR_TYPE, t, &t->attrs);
    if (rc != MPI_SUCCESS)
        return faro_err_pass(MPI_COMM_NULL, rc, "MPI_Type_free: an attribute delete callback "
                             "failed with code %d", rc);
    t->freed = 1;
    faro_handle_forget(FARO_H_TYPE, t);
    *tp = MPI_DATATYPE_NULL;
    faro_type_release(t);
    return MPI_SUCCESS;
}

int faro_type_copy_layout(MPI_Datatype n, MPI_Datatype t)
{
    n->run = calloc(t->nrun ? (size_t)t->nrun : 1, sizeof *n->run);
    if (!n->run)
        return -1;
    memcpy(n->run, t->run, (size_t)t->nrun * sizeof *t->run);
    n->nrun = t->nrun;
    n->size = t->size;
    n->lb = t->lb, n->extent = t->extent;
    n->true_lb = t->true_lb, n->true_extent = t->true_extent;
    n->nbasic = t->nbasic;
    n->align = t->align;
    n->explicit_lb = t->explicit_lb, n->explicit_ub = t->explicit_ub;
    n->basic = t->basic;
    faro_type_layout(n);
    return 0;
}

/* A copy of t's layout and constructor: for MPI_Type_dup (as DUP of t) and for
 * the constituents MPI_Type_get_contents hands out (as t's own constructor). */
static MPI_Datatype clone(MPI_Datatype t, int as_dup)
{
    MPI_Datatype n = faro_type_alloc();
    if (!n)
        return NULL;
    struct faro_type_contents *c = NULL;
    if (as_dup) {
        c = faro_tc_new(MPI_COMBINER_DUP, 0, 0, 1);
        if (c)
            c->types[0] = t;
    } else {
        const struct faro_type_contents *o = t->contents;
        c = faro_tc_new(o->combiner, o->ni, o->na, o->nt);
        if (c) {
            memcpy(c->ints, o->ints, (size_t)o->ni * sizeof *o->ints);
            memcpy(c->aints, o->aints, (size_t)o->na * sizeof *o->aints);
            memcpy(c->types, o->types, (size_t)o->nt * sizeof *o->types);
        }
    }
    if (!c || faro_type_copy_layout(n, t) != 0) {
        free(c);
        faro_pool_put(&faro_type_pool, n);
        return NULL;
    }
    n->committed = t->committed || t->predefined;
    for (int i = 0; i < c->nt; i++)
        faro_type_retain(c->types[i]);
    n->contents = c;
    return n;
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype old, MPI_Datatype *newtype)
{
    FARO_LOCKED;
    CHECK_VALID("MPI_Type_dup", old);
    CHECK_PTR("MPI_Type_dup", newtype, "newtype");
    MPI_Datatype n = clone(old, 1);
    if (!n)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Type_dup: out of memory");
    int rc = faro_attr_copy_all(FARO_ATTR_TYPE, old, old->attrs, n, &n->attrs);
    if (rc != MPI_SUCCESS) {
        n->freed = 1;
        faro_type_release(n);
        return faro_err_pass(MPI_COMM_NULL, rc, "MPI_Type_dup: an attribute copy callback "
                             "failed with code %d", rc);
    }
    *newtype = n;
    return MPI_SUCCESS;
}

/* ---- queries ---- */

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype t, int *size)
{
    CHECK_VALID("MPI_Type_size", t);
    CHECK_PTR("MPI_Type_size", size, "size");
    *size = t->size > INT_MAX ? MPI_UNDEFINED : (int)t->size;
    return MPI_SUCCESS;
}

int faro_wide_Type_size(const char *fn, MPI_Datatype t, MPI_Count *size)
{
    CHECK_VALID(fn, t);
    CHECK_PTR(fn, size, "size");
    *size = (MPI_Count)t->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype t, MPI_Count *size)
{
    CHECK_VALID("MPI_Type_size_x", t);
    CHECK_PTR("MPI_Type_size_x", size, "size");
    *size = (MPI_Count)t->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype t, MPI_Aint *lb, MPI_Aint *extent)
{
    CHECK_VALID("MPI_Type_get_extent", t);
    CHECK_PTR("MPI_Type_get_extent", lb && extent, "lb or extent");
    *lb = t->lb;
    *extent = t->extent;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype t, MPI_Count *lb, MPI_Count *extent)
{
    CHECK_VALID("MPI_Type_get_extent_x", t);
    CHECK_PTR("MPI_Type_get_extent_x", lb && extent, "lb or extent");
    *lb = t->lb;
    *extent = t->extent;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype t, MPI_Aint *lb, MPI_Aint *extent)
{
    CHECK_VALID("MPI_Type_get_true_extent", t);
    CHECK_PTR("MPI_Type_get_true_extent", lb && extent, "true_lb or true_extent");
    *lb = t->true_lb;
    *extent = t->true_extent;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype t, MPI_Count *lb, MPI_Count *extent)
{
    CHECK_VALID("MPI_Type_get_true_extent_x", t);
    CHECK_PTR("MPI_Type_get_true_extent_x", lb && extent, "true_lb or true_extent");
    *lb = t->true_lb;
    *extent = t->true_extent;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype t, const char *name)
{
    FARO_LOCKED;
    CHECK_VALID("MPI_Type_set_name", t);
    CHECK_PTR("MPI_Type_set_name", name, "name");
    /* longer names are cut to MPI_MAX_OBJECT_NAME - 1, as the standard allows */
    size_t n = strnlen(name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(t->namebuf, name, n);
    t->namebuf[n] = '\0';
    t->name = t->namebuf;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype t, char *name, int *resultlen)
{
    CHECK_VALID("MPI_Type_get_name", t);
    CHECK_PTR("MPI_Type_get_name", name, "type_name");
    CHECK_PTR("MPI_Type_get_name", resultlen, "resultlen");
    size_t n = strlen(t->name);
    memmove(name, t->name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype t, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    CHECK_VALID("MPI_Type_get_envelope", t);
    CHECK_PTR("MPI_Type_get_envelope", num_integers, "num_integers");
    CHECK_PTR("MPI_Type_get_envelope", num_addresses, "num_addresses");
    CHECK_PTR("MPI_Type_get_envelope", num_datatypes, "num_datatypes");
    CHECK_PTR("MPI_Type_get_envelope", combiner, "combiner");
    const struct faro_type_contents *c = t->contents;
    *num_integers = c ? c->ni : 0;
    *num_addresses = c ? c->na : 0;
    *num_datatypes = c ? c->nt : 0;
    *combiner = c ? c->combiner : MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype t, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[])
{
    FARO_LOCKED;
    const char *fn = "MPI_Type_get_contents";
    CHECK_VALID(fn, t);
    const struct faro_type_contents *c = t->contents;
    if (!c)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "%s: %s is a named (predefined) type and has no contents "
                        "(MPI_Type_get_envelope says MPI_COMBINER_NAMED)", fn, t->name);
    if (max_integers < c->ni || max_addresses < c->na || max_datatypes < c->nt)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "%s: arrays too small (%d integers, %d addresses, %d datatypes given; "
                        "MPI_Type_get_envelope says %d, %d, %d are needed)", fn, max_integers,
                        max_addresses, max_datatypes, c->ni, c->na, c->nt);
    if ((c->ni && !array_of_integers) || (c->na && !array_of_addresses) ||
        (c->nt && !array_of_datatypes))
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s is NULL", fn,
                        c->ni && !array_of_integers    ? "array_of_integers"
                        : c->na && !array_of_addresses ? "array_of_addresses"
                                                       : "array_of_datatypes");
    /* Derived constituents go out as new objects the program frees, equal to
     * the ones the type was built from. */
    MPI_Datatype out[c->nt ? c->nt : 1];
    for (int i = 0; i < c->nt; i++) {
        out[i] = c->types[i]->predefined ? c->types[i] : clone(c->types[i], 0);
        if (!out[i]) {
            for (int j = 0; j < i; j++)
                if (!out[j]->predefined) {
                    out[j]->freed = 1;
                    faro_type_release(out[j]);
                }
            return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        }
    }
    if (c->ni)
        memcpy(array_of_integers, c->ints, (size_t)c->ni * sizeof *c->ints);
    if (c->na)
        memcpy(array_of_addresses, c->aints, (size_t)c->na * sizeof *c->aints);
    if (c->nt)
        memcpy(array_of_datatypes, out, (size_t)c->nt * sizeof *out);
    return MPI_SUCCESS;
}

/* ---- counts of a received message ---- */

static long long elems_in(MPI_Datatype t, size_t bytes);

/* Basic elements in the first bytes of n copies of t back to back; -1 when
 * the bytes end inside a basic element. */
static long long elems_rep(MPI_Datatype t, size_t bytes)
{
    if (t->size == 0)
        return 0;
    long long whole = (long long)(bytes / t->size);
    long long part = elems_in(t, bytes % t->size);
    return part < 0 ? -1 : whole * t->nbasic + part;
}

/* Basic elements in the first bytes (< one element) of the packed form of t. */
static long long elems_in(MPI_Datatype t, size_t bytes)
{
    if (bytes == 0)
        return 0;
    if (bytes >= t->size)
        return t->nbasic;
    const struct faro_type_contents *c = t->contents;
    if (t->predefined) { /* its pieces are its basic elements (also MPI_Type_create_f90_*) */
        long long n = 0;
        for (int k = 0; k < t->nrun && bytes > 0; k++, n++) {
            if (bytes < t->run[k].len)
                return -1;
            bytes -= t->run[k].len;
        }
        return n;
    }
    long long acc = 0;
    const int *in = c->ints;
    switch (c->combiner) {
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT:
        /* blocks in typemap order: count, then blocklength(s) */
        for (int i = 0; i < in[0]; i++) {
            int block = c->combiner == MPI_COMBINER_INDEXED_BLOCK ||
                                c->combiner == MPI_COMBINER_HINDEXED_BLOCK
                            ? in[1] : in[1 + i];
            MPI_Datatype bt = c->combiner == MPI_COMBINER_STRUCT ? c->types[i] : c->types[0];
            size_t blen = (size_t)block * bt->size;
            if (bytes < blen) {
                long long part = elems_rep(bt, bytes);
                return part < 0 ? -1 : acc + part;
            }
            acc += block * bt->nbasic;
            bytes -= blen;
        }
        return acc;
    default: /* contiguous, vector, hvector, subarray, darray, resized, dup: copies of one type */
        return elems_rep(c->types[0], bytes);
    }
}

static long long bytes_of(MPI_Datatype t, long long k);

/* Bytes taken by the first k basic elements of copies of t back to back. */
static long long bytes_rep(MPI_Datatype t, long long k)
{
    if (t->nbasic == 0)
        return 0;
    return k / t->nbasic * (long long)t->size + bytes_of(t, k % t->nbasic);
}

/* Bytes taken by the first k (< nbasic) basic elements of one element of t. */
static long long bytes_of(MPI_Datatype t, long long k)
{
    if (k == 0)
        return 0;
    const struct faro_type_contents *c = t->contents;
    if (t->predefined) {
        long long b = 0;
        for (int r = 0; r < t->nrun && k > 0; r++, k--)
            b += (long long)t->run[r].len;
        return b;
    }
    const int *in = c->ints;
    long long acc = 0;
    switch (c->combiner) {
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < in[0]; i++) {
            int block = c->combiner == MPI_COMBINER_INDEXED_BLOCK ||
                                c->combiner == MPI_COMBINER_HINDEXED_BLOCK
                            ? in[1] : in[1 + i];
            MPI_Datatype bt = c->combiner == MPI_COMBINER_STRUCT ? c->types[i] : c->types[0];
            long long n = block * bt->nbasic;
            if (k < n)
                return acc + bytes_rep(bt, k);
            acc += block * (long long)bt->size;
            k -= n;
        }
        return acc;
    default:
        return bytes_rep(c->types[0], k);
    }
}

/* The int calls return MPI_UNDEFINED for a number beyond INT_MAX (MPI-4.0
 * 19.2); their _c forms (bigcount/wide.h) the number itself. */
int faro_wide_Get_count(const char *fn, const MPI_Status *st, MPI_Datatype t, MPI_Count *count)
{
    CHECK_VALID(fn, t);
    CHECK_PTR(fn, st && count, "status or count");
    long long bytes = st->faro_count;
    if (t->size == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else
        *count = bytes % (long long)t->size ? MPI_UNDEFINED : bytes / (long long)t->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status *st, MPI_Datatype t, int *count)
{
    MPI_Count n;
    int rc = faro_wide_Get_count("MPI_Get_count", st, t, count ? &n : NULL);
    if (!rc)
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

static long long elements(const MPI_Status *st, MPI_Datatype t)
{
    long long n = elems_rep(t, (size_t)st->faro_count);
    return n < 0 ? MPI_UNDEFINED : n;
}

int faro_wide_Get_elements(const char *fn, const MPI_Status *st, MPI_Datatype t,
                           MPI_Count *count)
{
    CHECK_VALID(fn, t);
    CHECK_PTR(fn, st && count, "status or count");
    *count = elements(st, t);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status *st, MPI_Datatype t, int *count)
{
    MPI_Count n;
    int rc = faro_wide_Get_elements("MPI_Get_elements", st, t, count ? &n : NULL);
    if (!rc)
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status *st, MPI_Datatype t, MPI_Count *count)
{
    return faro_wide_Get_elements("MPI_Get_elements_x", st, t, count);
}

static int set_elements(const char *fn, MPI_Status *st, MPI_Datatype t, MPI_Count count)
{
    CHECK_VALID(fn, t);
    CHECK_PTR(fn, st, "status");
    if (count < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: count %lld is negative", fn,
                        (long long)count);
    if (count > 0 && t->nbasic == 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_COUNT,
                        "%s: count %lld of a datatype without basic elements (only 0 fits)",
                        fn, (long long)count);
    st->faro_count = bytes_rep(t, count);
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
int PMPI_Status_set_elements(MPI_Status *st, MPI_Datatype t, int count)
{
    return set_elements("MPI_Status_set_elements", st, t, count);
}

#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
int PMPI_Status_set_elements_x(MPI_Status *st, MPI_Datatype t, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_x", st, t, count);
}
