/*
 * The "external32" data representation (MPI-3.1 13.5.2): MPI_Pack_external,
 * MPI_Unpack_external, MPI_Pack_external_size.
 *
 * external32 is big-endian, byte aligned, with the sizes of the standard's
 * table 13.2, whatever the host: integers in two's complement (MPI_LONG and
 * MPI_UNSIGNED_LONG are 4 bytes, MPI_WCHAR 2, MPI_AINT/OFFSET/COUNT 8),
 * floating point in IEEE single, double and quad (binary128, 16 bytes, for
 * long double), complex types as two floating values, the pair types as
 * their value and their index. No other representation is accepted.
 *
 * Packing runs in two steps per chunk of elements: the engine packs them in
 * the native form (pack.c: the bytes of each basic element, in typemap
 * order), then the native stream is converted element by element walking
 * the type's signature: a type whose basic elements are all one type (t->basic)
 * is a run of those; a struct goes block by block; any other constructor is
 * copies of its one old type. Unpacking is the reverse. A value that the
 * external size cannot hold (an MPI_LONG beyond 32 bits, a wide character
 * beyond U+FFFF) is MPI_ERR_CONVERSION: nothing is cut silently.
 */
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core.h"

/* How one basic value converts. */
enum xkind {
    X_COPY,   /* bytes as they are (one-byte types) */
    X_SINT,   /* two's complement integer, sign-extended when it grows */
    X_UINT,   /* unsigned integer */
    X_FLOAT,  /* IEEE single or double: byte order only */
    X_LDBL,   /* long double <-> IEEE quad */
    X_WCHAR,  /* wchar_t <-> 2-byte Unicode */
    X_SWAP,   /* same size, byte order only (MPI_INTEGER16) */
};

/* A basic value: parts[0] reps times, then parts[1] (a pair's index). */
struct xpart {
    unsigned char kind, native, ext, reps;
};
struct xtype {
    MPI_Datatype t;
    struct xpart parts[2];
};

#define ONE(t, k, n, e) {t, {{k, n, e, 1}, {0, 0, 0, 0}}}
#define TWO(t, k, n, e) {t, {{k, n, e, 2}, {0, 0, 0, 0}}}
#define PAIR(t, k, n, e) {t, {{k, n, e, 1}, {X_SINT, sizeof(int), 4, 1}}}
#define S(T) sizeof(T)

static const struct xtype xtypes[] = {
    ONE(MPI_CHAR, X_COPY, 1, 1), ONE(MPI_SIGNED_CHAR, X_COPY, 1, 1),
    ONE(MPI_UNSIGNED_CHAR, X_COPY, 1, 1), ONE(MPI_BYTE, X_COPY, 1, 1),
    ONE(MPI_PACKED, X_COPY, 1, 1), ONE(MPI_C_BOOL, X_COPY, 1, 1),
    ONE(MPI_CXX_BOOL, X_COPY, 1, 1), ONE(MPI_CHARACTER, X_COPY, 1, 1),
    ONE(MPI_INT8_T, X_COPY, 1, 1), ONE(MPI_UINT8_T, X_COPY, 1, 1),
    ONE(MPI_INTEGER1, X_COPY, 1, 1),
    ONE(MPI_WCHAR, X_WCHAR, S(wchar_t), 2),
    ONE(MPI_SHORT, X_SINT, S(short), 2), ONE(MPI_UNSIGNED_SHORT, X_UINT, S(short), 2),
    ONE(MPI_INT, X_SINT, S(int), 4), ONE(MPI_UNSIGNED, X_UINT, S(int), 4),
    ONE(MPI_LONG, X_SINT, S(long), 4), ONE(MPI_UNSIGNED_LONG, X_UINT, S(long), 4),
    ONE(MPI_LONG_LONG, X_SINT, S(long long), 8),
    ONE(MPI_UNSIGNED_LONG_LONG, X_UINT, S(long long), 8),
    ONE(MPI_INT16_T, X_SINT, 2, 2), ONE(MPI_INT32_T, X_SINT, 4, 4),
    ONE(MPI_INT64_T, X_SINT, 8, 8), ONE(MPI_UINT16_T, X_UINT, 2, 2),
    ONE(MPI_UINT32_T, X_UINT, 4, 4), ONE(MPI_UINT64_T, X_UINT, 8, 8),
    ONE(MPI_AINT, X_SINT, S(MPI_Aint), 8), ONE(MPI_OFFSET, X_SINT, S(MPI_Offset), 8),
    ONE(MPI_COUNT, X_SINT, S(MPI_Count), 8),
    ONE(MPI_INTEGER, X_SINT, 4, 4), ONE(MPI_LOGICAL, X_SINT, 4, 4),
    ONE(MPI_INTEGER2, X_SINT, 2, 2), ONE(MPI_INTEGER4, X_SINT, 4, 4),
    ONE(MPI_INTEGER8, X_SINT, 8, 8), ONE(MPI_INTEGER16, X_SWAP, 16, 16),
    ONE(MPI_FLOAT, X_FLOAT, 4, 4), ONE(MPI_REAL, X_FLOAT, 4, 4), ONE(MPI_REAL4, X_FLOAT, 4, 4),
    ONE(MPI_DOUBLE, X_FLOAT, 8, 8), ONE(MPI_DOUBLE_PRECISION, X_FLOAT, 8, 8),
    ONE(MPI_REAL8, X_FLOAT, 8, 8), ONE(MPI_LONG_DOUBLE, X_LDBL, S(long double), 16),
    TWO(MPI_C_FLOAT_COMPLEX, X_FLOAT, 4, 4), TWO(MPI_COMPLEX, X_FLOAT, 4, 4),
    TWO(MPI_COMPLEX8, X_FLOAT, 4, 4), TWO(MPI_CXX_FLOAT_COMPLEX, X_FLOAT, 4, 4),
    TWO(MPI_C_DOUBLE_COMPLEX, X_FLOAT, 8, 8), TWO(MPI_DOUBLE_COMPLEX, X_FLOAT, 8, 8),
    TWO(MPI_COMPLEX16, X_FLOAT, 8, 8), TWO(MPI_CXX_DOUBLE_COMPLEX, X_FLOAT, 8, 8),
    TWO(MPI_C_LONG_DOUBLE_COMPLEX, X_LDBL, S(long double), 16),
    TWO(MPI_CXX_LONG_DOUBLE_COMPLEX, X_LDBL, S(long double), 16),
    PAIR(MPI_FLOAT_INT, X_FLOAT, 4, 4), PAIR(MPI_DOUBLE_INT, X_FLOAT, 8, 8),
    PAIR(MPI_LONG_INT, X_SINT, S(long), 4), PAIR(MPI_2INT, X_SINT, S(int), 4),
    PAIR(MPI_SHORT_INT, X_SINT, S(short), 2),
    PAIR(MPI_LONG_DOUBLE_INT, X_LDBL, S(long double), 16),
    TWO(MPI_2INTEGER, X_SINT, 4, 4), TWO(MPI_2REAL, X_FLOAT, 4, 4),
    TWO(MPI_2DOUBLE_PRECISION, X_FLOAT, 8, 8),
};

static const struct xtype *xtype_of(MPI_Datatype b)
{
    for (size_t i = 0; i < sizeof xtypes / sizeof xtypes[0]; i++)
        if (xtypes[i].t == b)
            return &xtypes[i];
    return NULL;
}

/* The predefined type that the elements of a predefined t are (an f90 type: its kind). */
static MPI_Datatype named_of(MPI_Datatype t)
{
    return t->contents ? t->basic : t;
}

static size_t xtype_ext(const struct xtype *x)
{
    return (size_t)x->parts[0].ext * x->parts[0].reps + x->parts[1].ext * x->parts[1].reps;
}

/* Bytes of one element of t in external32 (every type here is made of the
 * types in xtypes[]: faro_type_check'ed types only). */
static size_t ext_size(MPI_Datatype t)
{
    if (t->size == 0)
        return 0;
    if (t->predefined)
        return xtype_ext(xtype_of(named_of(t)));
    if (t->basic)
        return t->size / t->basic->size * xtype_ext(xtype_of(named_of(t->basic)));
    const struct faro_type_contents *c = t->contents;
    if (c->combiner == MPI_COMBINER_STRUCT) {
        size_t n = 0;
        for (int i = 0; i < c->ints[0]; i++)
            n += (size_t)c->ints[1 + i] * ext_size(c->types[i]);
        return n;
    }
    return t->size / c->types[0]->size * ext_size(c->types[0]);
}

/* ---- values ---- */

static void put_be(unsigned char *out, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        out[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static uint64_t get_be(const unsigned char *in, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | in[i];
    return v;
}

/* A native integer of n bytes (host order), sign-extended when sgn. */
static uint64_t get_native(const unsigned char *in, unsigned n, int sgn)
{
    switch (n) {
    case 1: { int8_t s; uint8_t u; memcpy(&s, in, 1), memcpy(&u, in, 1);
              return sgn ? (uint64_t)(int64_t)s : u; }
    case 2: { int16_t s; uint16_t u; memcpy(&s, in, 2), memcpy(&u, in, 2);
              return sgn ? (uint64_t)(int64_t)s : u; }
    case 4: { int32_t s; uint32_t u; memcpy(&s, in, 4), memcpy(&u, in, 4);
              return sgn ? (uint64_t)(int64_t)s : u; }
    default: { uint64_t u; memcpy(&u, in, 8); return u; }
    }
}

static void put_native(unsigned char *out, uint64_t v, unsigned n)
{
    uint8_t b = (uint8_t)v;
    uint16_t h = (uint16_t)v;
    uint32_t w = (uint32_t)v;
    switch (n) {
    case 1: memcpy(out, &b, 1); break;
    case 2: memcpy(out, &h, 2); break;
    case 4: memcpy(out, &w, 4); break;
    default: memcpy(out, &v, 8); break;
    }
}

/* The n-byte two's complement value v as 64 bits. */
static uint64_t sign_extend(uint64_t v, unsigned n)
{
    uint64_t sign = (uint64_t)1 << (8 * n - 1);
    return n >= 8 ? v : (v ^ sign) - sign;
}

/* Does v (as read by get_native) fit ext bytes? */
static int fits(uint64_t v, unsigned ext, int sgn)
{
    if (ext >= 8)
        return 1;
    if (sgn) {
        int64_t s = (int64_t)v, lim = (int64_t)1 << (8 * ext - 1);
        return s >= -lim && s < lim;
    }
    return v < (uint64_t)1 << (8 * ext);
}

/* long double <-> IEEE quad (16 bytes, big-endian). The x87 format (64-bit
 * mantissa with an explicit integer bit) has the quad's sign and exponent;
 * its 63 fraction bits are the quad's first 63. Back, the quad's other 49
 * fraction bits are dropped (rounded toward zero). */
#if LDBL_MANT_DIG == 64
#define LDBL_CONVERTS 1
static void ldbl_to_quad(const unsigned char *in, unsigned char *out)
{
    uint64_t mant;
    uint16_t se;
    memcpy(&mant, in, 8);
    memcpy(&se, in + 8, 2);
    uint64_t frac = mant & 0x7fffffffffffffffull; /* 63 bits */
    put_be(out, se, 2);
    put_be(out + 2, frac >> 15, 6);               /* fraction bits 111..64 */
    put_be(out + 8, (frac & 0x7fff) << 49, 8);    /* 63..49, then zeros */
}
static void quad_to_ldbl(const unsigned char *in, unsigned char *out)
{
    uint16_t se = (uint16_t)get_be(in, 2);
    uint64_t hi = get_be(in + 2, 6), lo = get_be(in + 8, 8);
    uint64_t frac = hi << 15 | lo >> 49;
    if ((se & 0x7fff) == 0x7fff && !frac && (hi | lo))
        frac = 1; /* a NaN whose payload was only in the dropped bits stays a NaN */
    uint64_t mant = frac | ((se & 0x7fff) ? 1ull << 63 : 0);
    memset(out, 0, sizeof(long double));
    memcpy(out, &mant, 8);
    memcpy(out + 8, &se, 2);
}
#elif LDBL_MANT_DIG == 113
#define LDBL_CONVERTS 1
static void ldbl_to_quad(const unsigned char *in, unsigned char *out)
{
    for (int i = 0; i < 16; i++)
        out[i] = in[15 - i];
}
static void quad_to_ldbl(const unsigned char *in, unsigned char *out)
{
    ldbl_to_quad(in, out);
}
#else
#define LDBL_CONVERTS 0
#endif

/* ---- streams ---- */

struct xconv {
    const char *fn;
    int to_ext;              /* pack: native -> external32; unpack: the reverse */
    const unsigned char *in;
    unsigned char *out;
    long long element;       /* basic elements converted so far (for messages) */
    MPI_Datatype elem_type;
};

/* n values of part p. */
static int conv_part(struct xconv *x, const struct xpart *p, size_t n)
{
    unsigned from = x->to_ext ? p->native : p->ext, to = x->to_ext ? p->ext : p->native;
    for (size_t i = 0; i < n; i++, x->in += from, x->out += to) {
        switch (p->kind) {
        case X_COPY:
            *x->out = *x->in;
            break;
        case X_SWAP:
            for (unsigned b = 0; b < to; b++)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                x->out[b] = x->in[to - 1 - b];
#else
                x->out[b] = x->in[b];
#endif
            break;
        case X_SINT:
        case X_UINT:
        case X_WCHAR: {
            int sgn = p->kind == X_SINT;
            if (!x->to_ext) {
                uint64_t v = get_be(x->in, from);
                put_native(x->out, sgn ? sign_extend(v, from) : v, to);
                break;
            }
            uint64_t v = get_native(x->in, from, sgn);
            if (!fits(v, to, sgn))
                return faro_err(MPI_COMM_NULL, MPI_ERR_CONVERSION,
                                "%s: basic element %lld (%s) is %s%llu, which does not fit the "
                                "%u bytes external32 gives it", x->fn, x->element + (long long)i,
                                x->elem_type->name, sgn && (int64_t)v < 0 ? "-" : "",
                                sgn && (int64_t)v < 0 ? (unsigned long long)-v
                                                      : (unsigned long long)v, to);
            put_be(x->out, v, to);
            break;
        }
        case X_FLOAT:
            if (x->to_ext)
                put_be(x->out, get_native(x->in, from, 0), to);
            else
                put_native(x->out, get_be(x->in, from), to);
            break;
        case X_LDBL:
#if LDBL_CONVERTS
            if (x->to_ext)
                ldbl_to_quad(x->in, x->out);
            else
                quad_to_ldbl(x->in, x->out);
            break;
#else
            return faro_err(MPI_COMM_NULL, MPI_ERR_UNSUPPORTED_OPERATION,
                            "%s: this machine's long double (%d mantissa bits) has no "
                            "conversion to external32's IEEE quad", x->fn, LDBL_MANT_DIG);
#endif
        }
    }
    return MPI_SUCCESS;
}

/* n values of the predefined type b. */
static int conv_basic(struct xconv *x, MPI_Datatype b, size_t n)
{
    const struct xtype *xt = xtype_of(b);
    x->elem_type = b;
    if (!xt->parts[1].reps) {
        int rc = conv_part(x, &xt->parts[0], n * xt->parts[0].reps);
        x->element += (long long)n;
        return rc;
    }
    for (size_t i = 0; i < n; i++, x->element++) { /* a pair: value, index */
        int rc = conv_part(x, &xt->parts[0], 1);
        if (rc == MPI_SUCCESS)
            rc = conv_part(x, &xt->parts[1], 1);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

/* count elements of t, in typemap order. */
static int conv(struct xconv *x, MPI_Datatype t, size_t count)
{
    if (t->size == 0 || count == 0)
        return MPI_SUCCESS;
    if (t->predefined)
        return conv_basic(x, named_of(t), count);
    if (t->basic)
        return conv_basic(x, named_of(t->basic), count * (t->size / t->basic->size));
    const struct faro_type_contents *c = t->contents;
    if (c->combiner != MPI_COMBINER_STRUCT)
        return conv(x, c->types[0], count * (t->size / c->types[0]->size));
    for (size_t e = 0; e < count; e++)
        for (int i = 0; i < c->ints[0]; i++) {
            int rc = conv(x, c->types[i], (size_t)c->ints[1 + i]);
            if (rc)
                return rc;
        }
    return MPI_SUCCESS;
}

/* ---- the MPI calls ---- */

static int check_datarep(const char *fn, const char *datarep)
{
    if (!datarep)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: datarep is NULL", fn);
    if (strcmp(datarep, "external32") != 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_UNSUPPORTED_DATAREP,
                        "%s: data representation \"%.64s\" is not supported (only "
                        "\"external32\")", fn, datarep);
    return MPI_SUCCESS;
}

static int check_args(const char *fn, const char *datarep, int count, MPI_Datatype t,
                      MPI_Aint size, const MPI_Aint *position)
{
    int rc = check_datarep(fn, datarep);
    if (rc)
        return rc;
    if (count < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: count %d is negative", fn, count);
    if (faro_type_check(t))
        return faro_type_bad(fn, MPI_COMM_NULL, t);
    if (!position)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: position is NULL", fn);
    if (size < 0 || *position < 0 || *position > size)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "%s: position %ld is outside the buffer of %ld bytes", fn,
                        (long)*position, (long)size);
    return MPI_SUCCESS;
}

#define CHUNK_BYTES (64 * 1024)

/* Pack (to_ext) or unpack count elements of t at typed, chunk by chunk
 * through a native copy. */
static int run(const char *fn, int to_ext, void *typed, size_t count, MPI_Datatype t,
               unsigned char *ext)
{
    size_t chunk = t->size >= CHUNK_BYTES ? 1 : CHUNK_BYTES / t->size;
    if (chunk > count)
        chunk = count;
    unsigned char *native = malloc(chunk * t->size);
    if (!native)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", fn,
                        chunk * t->size);
    struct xconv x = {.fn = fn, .to_ext = to_ext};
    int rc = MPI_SUCCESS;
    for (size_t done = 0; done < count && rc == MPI_SUCCESS; done += chunk) {
        size_t n = count - done < chunk ? count - done : chunk;
        char *at = (char *)typed + (MPI_Aint)done * t->extent;
        if (to_ext) {
            faro_type_pack(at, n, t, native);
            x.in = native, x.out = ext;
            rc = conv(&x, t, n);
            ext = x.out;
        } else {
            x.in = ext, x.out = native;
            rc = conv(&x, t, n);
            ext = (unsigned char *)x.in;
            if (rc == MPI_SUCCESS)
                faro_type_unpack(native, n * t->size, at, t);
        }
    }
    free(native);
    return rc;
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                       MPI_Aint *position)
{
    const char *fn = "MPI_Pack_external";
    int rc = check_args(fn, datarep, incount, datatype, outsize, position);
    if (rc)
        return rc;
    size_t bytes = (size_t)incount * ext_size(datatype);
    if (bytes > (size_t)(outsize - *position))
        return faro_err(MPI_COMM_NULL, MPI_ERR_TRUNCATE,
                        "%s: %zu bytes (count %d) do not fit: %ld of %ld bytes left at position "
                        "%ld (MPI_Pack_external_size says how much room to allow)", fn, bytes,
                        incount, (long)(outsize - *position), (long)outsize, (long)*position);
    if (bytes == 0)
        return MPI_SUCCESS;
    rc = run(fn, 1, (void *)inbuf, (size_t)incount, datatype, (unsigned char *)outbuf + *position);
    if (rc)
        return rc;
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    const char *fn = "MPI_Unpack_external";
    int rc = check_args(fn, datarep, outcount, datatype, insize, position);
    if (rc)
        return rc;
    size_t bytes = (size_t)outcount * ext_size(datatype);
    if (bytes > (size_t)(insize - *position))
        return faro_err(MPI_COMM_NULL, MPI_ERR_TRUNCATE,
                        "%s: count %d needs %zu bytes but only %ld of %ld are left at position "
                        "%ld", fn, outcount, bytes, (long)(insize - *position), (long)insize,
                        (long)*position);
    if (bytes == 0)
        return MPI_SUCCESS;
    rc = run(fn, 0, outbuf, (size_t)outcount, datatype,
             (unsigned char *)(uintptr_t)inbuf + *position);
    if (rc)
        return rc;
    *position += (MPI_Aint)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    const char *fn = "MPI_Pack_external_size";
    MPI_Aint zero = 0;
    int rc = check_args(fn, datarep, incount, datatype, 0, &zero);
    if (rc)
        return rc;
    if (!size)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: size is NULL", fn);
    *size = (MPI_Aint)((size_t)incount * ext_size(datatype));
    return MPI_SUCCESS;
}
