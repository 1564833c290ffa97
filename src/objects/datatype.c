/*
 * Datatypes. A type is described once as the byte segments of one element;
 * contiguous types (every predefined type but the pair types) move without
 * any per-element work. Derived types will build on the same description.
 */
#include <complex.h>
#include <stddef.h>
#include <string.h>
#include <wchar.h>

#include "core.h"


#define BASIC(var, ctype, label)                                                     \
    struct faro_datatype faro_mpi_##var = {                                          \
        .size = sizeof(ctype), .lb = 0, .extent = sizeof(ctype), .contig = 1,        \
        .nseg = 1, .seg = (struct faro_seg[]){{0, sizeof(ctype)}}, .predefined = 1,  \
        .name = label};

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
BASIC(long_long, long long, "MPI_LONG_LONG")
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
BASIC(c_float_complex, float _Complex, "MPI_C_FLOAT_COMPLEX")
BASIC(c_double_complex, double _Complex, "MPI_C_DOUBLE_COMPLEX")
BASIC(c_long_double_complex, long double _Complex, "MPI_C_LONG_DOUBLE_COMPLEX")
BASIC(aint, MPI_Aint, "MPI_AINT")
BASIC(offset, MPI_Offset, "MPI_OFFSET")
BASIC(count, MPI_Count, "MPI_COUNT")

/* Pair types for MINLOC/MAXLOC: value then int, laid out as the C struct. */
#define PAIR(var, vtype, label)                                                         \
    struct pair_##var { vtype v; int i; };                                              \
    struct faro_datatype faro_mpi_##var = {                                             \
        .size = sizeof(vtype) + sizeof(int), .lb = 0, .extent = sizeof(struct pair_##var), \
        .contig = sizeof(vtype) + sizeof(int) == sizeof(struct pair_##var) &&           \
                  offsetof(struct pair_##var, i) == sizeof(vtype),                      \
        .nseg = 2,                                                                      \
        .seg = (struct faro_seg[]){{0, sizeof(vtype)},                                  \
                                   {offsetof(struct pair_##var, i), sizeof(int)}},      \
        .predefined = 1, .name = label};

PAIR(float_int, float, "MPI_FLOAT_INT")
PAIR(double_int, double, "MPI_DOUBLE_INT")
PAIR(long_int, long, "MPI_LONG_INT")
PAIR(2int, int, "MPI_2INT")
PAIR(short_int, short, "MPI_SHORT_INT")
PAIR(long_double_int, long double, "MPI_LONG_DOUBLE_INT")

int faro_type_check(MPI_Datatype t)
{
    return t == MPI_DATATYPE_NULL ? -1 : 0;
}

void faro_type_pack(const void *buf, size_t count, MPI_Datatype t, void *out)
{
    if (t->contig) {
        memcpy(out, buf, count * t->size);
        return;
    }
    const char *in = buf;
    char *o = out;
    for (size_t e = 0; e < count; e++, in += t->extent)
        for (int s = 0; s < t->nseg; s++) {
            memcpy(o, in + t->seg[s].off, t->seg[s].len);
            o += t->seg[s].len;
        }
}

void faro_type_unpack(const void *in, size_t bytes, void *buf, MPI_Datatype t)
{
    if (t->contig) {
        memcpy(buf, in, bytes);
        return;
    }
    const char *i = in;
    char *out = buf;
    for (size_t left = bytes; left > 0; out += t->extent)
        for (int s = 0; s < t->nseg && left > 0; s++) {
            size_t n = t->seg[s].len < left ? t->seg[s].len : left;
            memcpy(out + t->seg[s].off, i, n);
            i += n;
            left -= n;
        }
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype t, int *size)
{
    if (faro_type_check(t))
        return faro_err(MPI_COMM_NULL, MPI_ERR_TYPE, "MPI_Type_size: invalid datatype");
    *size = (int)t->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype t, MPI_Aint *lb, MPI_Aint *extent)
{
    if (faro_type_check(t))
        return faro_err(MPI_COMM_NULL, MPI_ERR_TYPE, "MPI_Type_get_extent: invalid datatype");
    *lb = t->lb;
    *extent = t->extent;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status *st, MPI_Datatype t, int *count)
{
    if (faro_type_check(t))
        return faro_err(MPI_COMM_NULL, MPI_ERR_TYPE, "MPI_Get_count: invalid datatype");
    if (t->size == 0)
        *count = st->faro_count == 0 ? 0 : MPI_UNDEFINED;
    else
        *count = st->faro_count % (long long)t->size ? MPI_UNDEFINED
                                                     : (int)(st->faro_count / (long long)t->size);
    return MPI_SUCCESS;
}

/* Basic elements: for a predefined type the segments are its basic parts. */
#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status *st, MPI_Datatype t, int *count)
{
    if (faro_type_check(t))
        return faro_err(MPI_COMM_NULL, MPI_ERR_TYPE, "MPI_Get_elements: invalid datatype");
    if (t->size == 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    long long bytes = st->faro_count, whole = bytes / (long long)t->size;
    long long n = whole * t->nseg, rest = bytes - whole * (long long)t->size;
    for (int s = 0; s < t->nseg && rest > 0; s++) {
        if (rest < (long long)t->seg[s].len) {
            *count = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        rest -= (long long)t->seg[s].len;
        n++;
    }
    *count = (int)n;
    return MPI_SUCCESS;
}
