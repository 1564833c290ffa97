/* pack_external: MPI_Pack_external / MPI_Unpack_external /
 * MPI_Pack_external_size with "external32" (MPI-3.1 13.5.2): big-endian,
 * the standard's fixed sizes (MPI_LONG 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE
 * 16 as IEEE quad, MPI_AINT 8 ...), complex types as two floats, pair types
 * as value and index. For every predefined type three values are packed and
 * compared with the big-endian bytes written out here, unpacked back, and
 * measured with MPI_Pack_external_size; then derived types (a padded struct,
 * a vector, a struct of pairs, an indexed type with an empty block),
 * positions that move across calls, and the errors: a value external32
 * cannot hold (MPI_ERR_CONVERSION), too little room (MPI_ERR_TRUNCATE), and
 * another data representation. */
#include "util.h"

#include <complex.h>
#include <limits.h>
#include <wchar.h>

/* Expected external32 bytes of a value of ext bytes: big-endian. */
static void be(unsigned char *out, uint64_t v, int ext)
{
    for (int i = 0; i < ext; i++)
        out[i] = (unsigned char)(v >> (8 * (ext - 1 - i)));
}

static uint64_t bits_f(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t bits_d(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* IEEE quad of the exactly representable values used here: sign, exponent
 * (bias 16383) and the first 64 fraction bits (the rest are zero). */
static void quad(unsigned char *out, long double v)
{
    memset(out, 0, 16);
    if (v == 0)
        return;
    int sign = v < 0, e = 0;
    if (sign)
        v = -v;
    while (v >= 2)
        v /= 2, e++;
    while (v < 1)
        v *= 2, e--;
    v -= 1; /* the fraction */
    uint64_t frac = 0;
    for (int i = 0; i < 64; i++) {
        v *= 2;
        frac <<= 1;
        if (v >= 1)
            frac |= 1, v -= 1;
    }
    be(out, (uint64_t)(sign << 15 | (e + 16383)), 2);
    be(out + 2, frac, 8);
}

static void check_bytes(const unsigned char *got, const unsigned char *want, size_t n,
                        const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            tu_fail("%s: external32 byte %zu is 0x%02x, expected 0x%02x", what, i, got[i],
                    want[i]);
}

static int class_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Long double values compare by value: the bytes after the 80 bits of an
 * x87 long double are not part of its value (a store may leave them alone). */
static int same_ld(const void *a, const void *b, size_t n)
{
    const long double *x = a, *y = b;
    for (size_t i = 0; i < n / sizeof *x; i++)
        if (x[i] != y[i])
            return 0;
    return 1;
}

static int (*compare_by)(const void *, const void *, size_t); /* NULL: byte by byte */

/* Pack count elements of t at buf, compare with want (n bytes), unpack into
 * a zeroed copy of span bytes and compare with buf. */
static void round_trip(const char *what, const void *buf, int count, MPI_Datatype t,
                       const unsigned char *want, size_t n, size_t span)
{
    unsigned char out[512], *back = tu_malloc(span);
    MPI_Aint pos = 0, size = -1;
    TU_CHECK(MPI_Pack_external_size("external32", count, t, &size));
    TU_ASSERT(size == (MPI_Aint)n, "%s: MPI_Pack_external_size gave %ld, expected %zu", what,
              (long)size, n);
    TU_CHECK(MPI_Pack_external("external32", buf, count, t, out, sizeof out, &pos));
    TU_ASSERT(pos == (MPI_Aint)n, "%s: position moved %ld bytes, expected %zu", what, (long)pos,
              n);
    check_bytes(out, want, n, what);
    memset(back, 0, span);
    pos = 0;
    TU_CHECK(MPI_Unpack_external("external32", out, (MPI_Aint)n, &pos, back, count, t));
    TU_ASSERT(pos == (MPI_Aint)n, "%s: unpack moved %ld bytes, expected %zu", what, (long)pos, n);
    if (compare_by ? !compare_by(back, buf, span) : memcmp(back, buf, span) != 0)
        tu_fail("%s: unpacked values differ from the packed ones", what);
    free(back);
}

#define CHECK_INT(T, dt, ext, a, b, c)                                                     \
    do {                                                                                   \
        T v[3] = {a, b, c};                                                                \
        unsigned char w[3 * 8];                                                            \
        for (int i = 0; i < 3; i++)                                                        \
            be(w + i * ext, (uint64_t)(int64_t)v[i], ext);                                 \
        round_trip(#dt, v, 3, dt, w, 3 * ext, sizeof v);                                   \
    } while (0)

static void predefined_ints(void)
{
    CHECK_INT(char, MPI_CHAR, 1, 'a', 'Z', 0);
    CHECK_INT(signed char, MPI_SIGNED_CHAR, 1, -1, 100, -128);
    CHECK_INT(unsigned char, MPI_UNSIGNED_CHAR, 1, 255, 1, 0);
    CHECK_INT(unsigned char, MPI_BYTE, 1, 0xa5, 0, 0x5a);
    CHECK_INT(unsigned char, MPI_PACKED, 1, 7, 8, 9);
    CHECK_INT(short, MPI_SHORT, 2, -2, 30000, 0x1234);
    CHECK_INT(unsigned short, MPI_UNSIGNED_SHORT, 2, 65535, 1, 0x8001);
    CHECK_INT(int, MPI_INT, 4, -5, 0x12345678, INT32_MIN);
    CHECK_INT(unsigned, MPI_UNSIGNED, 4, 0xdeadbeef, 0, 1);
    CHECK_INT(long, MPI_LONG, 4, -5, 0x7fffffff, -0x80000000L); /* 4 bytes in external32 */
    CHECK_INT(unsigned long, MPI_UNSIGNED_LONG, 4, 0xffffffffUL, 0, 0x1234);
    CHECK_INT(long long, MPI_LONG_LONG_INT, 8, -5, 0x0102030405060708LL, LLONG_MIN);
    CHECK_INT(unsigned long long, MPI_UNSIGNED_LONG_LONG, 8, ~0ULL, 1, 0x8000000000000000ULL);
    CHECK_INT(int8_t, MPI_INT8_T, 1, -8, 8, 127);
    CHECK_INT(int16_t, MPI_INT16_T, 2, -16, 16, INT16_MIN);
    CHECK_INT(int32_t, MPI_INT32_T, 4, -32, 32, INT32_MAX);
    CHECK_INT(int64_t, MPI_INT64_T, 8, -64, 64, INT64_MIN);
    CHECK_INT(uint8_t, MPI_UINT8_T, 1, 200, 8, 1);
    CHECK_INT(uint16_t, MPI_UINT16_T, 2, 60000, 16, 1);
    CHECK_INT(uint32_t, MPI_UINT32_T, 4, 4000000000u, 32, 1);
    CHECK_INT(uint64_t, MPI_UINT64_T, 8, ~0ULL, 64, 1);
    CHECK_INT(_Bool, MPI_C_BOOL, 1, 1, 0, 1);
    CHECK_INT(_Bool, MPI_CXX_BOOL, 1, 0, 1, 1);
    CHECK_INT(MPI_Aint, MPI_AINT, 8, -1, (MPI_Aint)1 << 40, 3);
    CHECK_INT(MPI_Offset, MPI_OFFSET, 8, -1, (MPI_Offset)1 << 50, 3);
    CHECK_INT(MPI_Count, MPI_COUNT, 8, -1, (MPI_Count)1 << 60, 3);
    CHECK_INT(int32_t, MPI_INTEGER, 4, -4, 4, 44);
    CHECK_INT(int32_t, MPI_LOGICAL, 4, 1, 0, -1);
    CHECK_INT(char, MPI_CHARACTER, 1, 'x', 'y', 'z');
    CHECK_INT(int8_t, MPI_INTEGER1, 1, -1, 1, 2);
    CHECK_INT(int16_t, MPI_INTEGER2, 2, -2, 2, 3);
    CHECK_INT(int32_t, MPI_INTEGER4, 4, -4, 4, 5);
    CHECK_INT(int64_t, MPI_INTEGER8, 8, -8, 8, 9);
    CHECK_INT(wchar_t, MPI_WCHAR, 2, L'A', 0x263a, 0xffff); /* 2 bytes of Unicode */
#ifdef __SIZEOF_INT128__
    {
        __int128 v[2] = {-3, (__int128)0x0102030405060708LL << 64 | 0x090a0b0c0d0e0f10LL};
        unsigned char w[32];
        be(w, ~0ULL, 8), be(w + 8, (uint64_t)-3, 8);
        be(w + 16, 0x0102030405060708ULL, 8), be(w + 24, 0x090a0b0c0d0e0f10ULL, 8);
        round_trip("MPI_INTEGER16", v, 2, MPI_INTEGER16, w, 32, sizeof v);
    }
#endif
}

static void predefined_floats(void)
{
    float f[3] = {1.5f, -0.25f, 3e38f};
    double d[3] = {-1.5, 1e300, 0.1};
    unsigned char w[64];
    MPI_Datatype f4[] = {MPI_FLOAT, MPI_REAL, MPI_REAL4}, f8[] = {MPI_DOUBLE,
                                                                  MPI_DOUBLE_PRECISION,
                                                                  MPI_REAL8};
    for (int i = 0; i < 3; i++)
        be(w + 4 * i, bits_f(f[i]), 4);
    for (int k = 0; k < 3; k++)
        round_trip("4-byte floating type", f, 3, f4[k], w, 12, sizeof f);
    for (int i = 0; i < 3; i++)
        be(w + 8 * i, bits_d(d[i]), 8);
    for (int k = 0; k < 3; k++)
        round_trip("8-byte floating type", d, 3, f8[k], w, 24, sizeof d);

    float _Complex cf[3] = {1 + 2 * I, -0.5f * I, 3};
    double _Complex cd[3] = {1 - 2 * I, 0.5 * I, -3};
    MPI_Datatype c8[] = {MPI_C_FLOAT_COMPLEX, MPI_COMPLEX, MPI_COMPLEX8, MPI_CXX_FLOAT_COMPLEX};
    MPI_Datatype c16[] = {MPI_C_DOUBLE_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_COMPLEX16,
                          MPI_CXX_DOUBLE_COMPLEX};
    for (int i = 0; i < 3; i++) {
        be(w + 8 * i, bits_f(crealf(cf[i])), 4);
        be(w + 8 * i + 4, bits_f(cimagf(cf[i])), 4);
    }
    for (int k = 0; k < 4; k++)
        round_trip("float complex type", cf, 3, c8[k], w, 24, sizeof cf);
    for (int i = 0; i < 3; i++) {
        be(w + 16 * i, bits_d(creal(cd[i])), 8);
        be(w + 16 * i + 8, bits_d(cimag(cd[i])), 8);
    }
    for (int k = 0; k < 4; k++)
        round_trip("double complex type", cd, 3, c16[k], w, 48, sizeof cd);

    /* long double as IEEE quad: exact values */
    long double ld[3] = {1, -2.5L, 0.375L};
    compare_by = same_ld;
    for (int i = 0; i < 3; i++)
        quad(w + 16 * i, ld[i]);
    round_trip("MPI_LONG_DOUBLE", ld, 3, MPI_LONG_DOUBLE, w, 48, sizeof ld);
    long double _Complex lc[2] = {1 - 2.5L * I, 0.375L};
    quad(w, 1), quad(w + 16, -2.5L), quad(w + 32, 0.375L), quad(w + 48, 0);
    round_trip("MPI_C_LONG_DOUBLE_COMPLEX", lc, 2, MPI_C_LONG_DOUBLE_COMPLEX, w, 64, sizeof lc);
    round_trip("MPI_CXX_LONG_DOUBLE_COMPLEX", lc, 2, MPI_CXX_LONG_DOUBLE_COMPLEX, w, 64,
               sizeof lc);
    compare_by = NULL;
}

static void pairs(void)
{
    unsigned char w[64];
    struct { float v; int i; } fi[2] = {{1.5f, 7}, {-2, -1}};
    be(w, bits_f(1.5f), 4), be(w + 4, 7, 4), be(w + 8, bits_f(-2), 4), be(w + 12, ~0ULL, 4);
    round_trip("MPI_FLOAT_INT", fi, 2, MPI_FLOAT_INT, w, 16, sizeof fi);
    struct { double v; int i; } di[1];
    memset(di, 0, sizeof di);
    di[0].v = 0.5, di[0].i = 3;
    be(w, bits_d(0.5), 8), be(w + 8, 3, 4);
    round_trip("MPI_DOUBLE_INT", di, 1, MPI_DOUBLE_INT, w, 12, sizeof di);
    struct { long v; int i; } li[1];
    memset(li, 0, sizeof li);
    li[0].v = -9, li[0].i = 9;
    be(w, (uint64_t)-9, 4), be(w + 4, 9, 4);
    round_trip("MPI_LONG_INT", li, 1, MPI_LONG_INT, w, 8, sizeof li);
    int ii[2] = {1, -2};
    be(w, 1, 4), be(w + 4, (uint64_t)-2, 4);
    round_trip("MPI_2INT", ii, 1, MPI_2INT, w, 8, sizeof ii);
    round_trip("MPI_2INTEGER", ii, 1, MPI_2INTEGER, w, 8, sizeof ii);
    struct { short v; int i; } si[1];
    memset(si, 0, sizeof si);
    si[0].v = -3, si[0].i = 4;
    be(w, (uint64_t)-3, 2), be(w + 2, 4, 4);
    round_trip("MPI_SHORT_INT", si, 1, MPI_SHORT_INT, w, 6, sizeof si);
    struct { long double v; int i; } ldi[1], ldi_back[1];
    ldi[0].v = -2.5L, ldi[0].i = 5;
    quad(w, -2.5L), be(w + 16, 5, 4);
    unsigned char out[32];
    MPI_Aint pos = 0;
    TU_CHECK(MPI_Pack_external("external32", ldi, 1, MPI_LONG_DOUBLE_INT, out, 32, &pos));
    TU_ASSERT(pos == 20, "MPI_LONG_DOUBLE_INT: %ld bytes, expected 20", (long)pos);
    check_bytes(out, w, 20, "MPI_LONG_DOUBLE_INT");
    pos = 0;
    TU_CHECK(MPI_Unpack_external("external32", out, 20, &pos, ldi_back, 1, MPI_LONG_DOUBLE_INT));
    TU_ASSERT(ldi_back[0].v == -2.5L && ldi_back[0].i == 5, "MPI_LONG_DOUBLE_INT unpacked as "
              "(%Lg, %d)", ldi_back[0].v, ldi_back[0].i);
    float rr[2] = {2.5f, 6};
    be(w, bits_f(2.5f), 4), be(w + 4, bits_f(6), 4);
    round_trip("MPI_2REAL", rr, 1, MPI_2REAL, w, 8, sizeof rr);
    double dd[2] = {2.5, 6};
    be(w, bits_d(2.5), 8), be(w + 8, bits_d(6), 8);
    round_trip("MPI_2DOUBLE_PRECISION", dd, 1, MPI_2DOUBLE_PRECISION, w, 16, sizeof dd);
}

static void derived(void)
{
    unsigned char w[256];
    /* struct { char c; long l; double d; short s[2]; } with its padding */
    struct rec { char c; long l; double d; short s[2]; } r[2];
    memset(r, 0, sizeof r); /* the padding too: the unpacked copy is compared whole */
    r[0].c = 'q', r[0].l = -7, r[0].d = 0.5, r[0].s[0] = 1, r[0].s[1] = -1;
    r[1].c = 'r', r[1].l = 70000, r[1].d = -4, r[1].s[0] = 300, r[1].s[1] = 2;
    int bl[4] = {1, 1, 1, 2};
    MPI_Aint d[4] = {offsetof(struct rec, c), offsetof(struct rec, l), offsetof(struct rec, d),
                     offsetof(struct rec, s)};
    MPI_Datatype ty[4] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE, MPI_SHORT}, st, str;
    TU_CHECK(MPI_Type_create_struct(4, bl, d, ty, &st));
    TU_CHECK(MPI_Type_create_resized(st, 0, sizeof(struct rec), &str));
    TU_CHECK(MPI_Type_commit(&str));
    unsigned char *p = w;
    for (int k = 0; k < 2; k++) {
        *p++ = (unsigned char)r[k].c;
        be(p, (uint64_t)r[k].l, 4), p += 4;
        be(p, bits_d(r[k].d), 8), p += 8;
        be(p, (uint64_t)(int64_t)r[k].s[0], 2), p += 2;
        be(p, (uint64_t)(int64_t)r[k].s[1], 2), p += 2;
    }
    round_trip("struct {char, long, double, short[2]}", r, 2, str, w, (size_t)(p - w), sizeof r);

    /* vector of ints: every other one; the holes stay as they were (zero) */
    int v[8] = {1, 0, -2, 0, 3, 0, -4, 0};
    MPI_Datatype vec;
    TU_CHECK(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
    TU_CHECK(MPI_Type_commit(&vec));
    for (int i = 0; i < 4; i++)
        be(w + 4 * i, (uint64_t)(int64_t)v[2 * i], 4);
    round_trip("vector(4, 1, 2, MPI_INT)", v, 1, vec, w, 16, sizeof v - sizeof(int));

    /* indexed shorts with an empty block, then a contiguous of it inside a struct
     * with an MPI_LONG_INT pair: signatures nested two deep */
    short sh[6] = {10, 0, -20, 30, 0, 0};
    int ibl[3] = {1, 0, 2}, idisp[3] = {0, 5, 2};
    MPI_Datatype idx, cont, mix;
    TU_CHECK(MPI_Type_indexed(3, ibl, idisp, MPI_SHORT, &idx));
    TU_CHECK(MPI_Type_contiguous(1, idx, &cont));
    struct mixed { short s[6]; long pad; struct { long v; int i; } li; } m;
    memset(&m, 0, sizeof m);
    memcpy(m.s, sh, sizeof sh);
    m.li.v = 123456, m.li.i = -6;
    int mbl[2] = {1, 1};
    MPI_Aint md[2] = {0, offsetof(struct mixed, li)};
    MPI_Datatype mty[2] = {cont, MPI_LONG_INT};
    TU_CHECK(MPI_Type_create_struct(2, mbl, md, mty, &mix));
    TU_CHECK(MPI_Type_commit(&mix));
    be(w, 10, 2), be(w + 2, (uint64_t)-20, 2), be(w + 4, 30, 2);
    be(w + 6, 123456, 4), be(w + 10, (uint64_t)-6, 4);
    round_trip("struct {contiguous(indexed shorts with an empty block), MPI_LONG_INT}", &m, 1,
               mix, w, 14, sizeof m);
    TU_CHECK(MPI_Type_free(&st));
    TU_CHECK(MPI_Type_free(&str));
    TU_CHECK(MPI_Type_free(&vec));
    TU_CHECK(MPI_Type_free(&idx));
    TU_CHECK(MPI_Type_free(&cont));
    TU_CHECK(MPI_Type_free(&mix));

    /* an f90 type packs as its kind */
    MPI_Datatype f90;
    TU_CHECK(MPI_Type_create_f90_integer(9, &f90));
    int32_t i9[2] = {-9, 9};
    be(w, (uint64_t)-9, 4), be(w + 4, 9, 4);
    round_trip("MPI_Type_create_f90_integer(9)", i9, 2, f90, w, 8, sizeof i9);
}

static void positions_and_errors(void)
{
    unsigned char out[64];
    MPI_Aint pos = 0;
    int a = 0x01020304;
    short s = -2;
    TU_CHECK(MPI_Pack_external("external32", &a, 1, MPI_INT, out, sizeof out, &pos));
    TU_CHECK(MPI_Pack_external("external32", &s, 1, MPI_SHORT, out, sizeof out, &pos));
    TU_ASSERT(pos == 6, "two packs moved the position to %ld, expected 6", (long)pos);
    static const unsigned char want[6] = {1, 2, 3, 4, 0xff, 0xfe};
    check_bytes(out, want, 6, "MPI_INT then MPI_SHORT");
    int a2 = 0;
    short s2 = 0;
    pos = 0;
    TU_CHECK(MPI_Unpack_external("external32", out, 6, &pos, &a2, 1, MPI_INT));
    TU_CHECK(MPI_Unpack_external("external32", out, 6, &pos, &s2, 1, MPI_SHORT));
    TU_ASSERT(a2 == a && s2 == s && pos == 6, "unpacked %x and %d at %ld", a2, s2, (long)pos);

    /* count 0 moves nothing */
    pos = 3;
    TU_CHECK(MPI_Pack_external("external32", NULL, 0, MPI_DOUBLE, out, sizeof out, &pos));
    TU_ASSERT(pos == 3, "count 0 moved the position to %ld", (long)pos);

    /* a value external32 cannot hold */
    long big = (long)1 << 40;
    wchar_t smiley = 0x1f600;
    pos = 0;
    int rc = MPI_Pack_external("external32", &big, 1, MPI_LONG, out, sizeof out, &pos);
    TU_ASSERT(class_of(rc) == MPI_ERR_CONVERSION && pos == 0,
              "MPI_LONG 2^40 into 4 bytes: expected MPI_ERR_CONVERSION, got %s (position %ld)",
              rc ? tu_errstr(rc) : "MPI_SUCCESS", (long)pos);
    rc = MPI_Pack_external("external32", &smiley, 1, MPI_WCHAR, out, sizeof out, &pos);
    TU_ASSERT(class_of(rc) == MPI_ERR_CONVERSION,
              "MPI_WCHAR U+1F600 into 2 bytes: expected MPI_ERR_CONVERSION, got %s",
              rc ? tu_errstr(rc) : "MPI_SUCCESS");
    /* too little room, too little input */
    double dv[2] = {1, 2};
    pos = 0;
    rc = MPI_Pack_external("external32", dv, 2, MPI_DOUBLE, out, 15, &pos);
    TU_ASSERT(class_of(rc) == MPI_ERR_TRUNCATE, "16 bytes into 15: expected MPI_ERR_TRUNCATE, "
              "got %s", rc ? tu_errstr(rc) : "MPI_SUCCESS");
    pos = 0;
    rc = MPI_Unpack_external("external32", out, 15, &pos, dv, 2, MPI_DOUBLE);
    TU_ASSERT(class_of(rc) == MPI_ERR_TRUNCATE, "16 bytes from 15: expected MPI_ERR_TRUNCATE, "
              "got %s", rc ? tu_errstr(rc) : "MPI_SUCCESS");
    /* other representations */
    MPI_Aint size;
    const char *reps[] = {"native", "internal", "EXTERNAL32", ""};
    for (int i = 0; i < 4; i++) {
        rc = MPI_Pack_external_size(reps[i], 1, MPI_INT, &size);
        TU_ASSERT(rc != MPI_SUCCESS, "data representation \"%s\" was accepted", reps[i]);
        pos = 0;
        rc = MPI_Pack_external(reps[i], &a, 1, MPI_INT, out, sizeof out, &pos);
        TU_ASSERT(rc != MPI_SUCCESS, "MPI_Pack_external with \"%s\" was accepted", reps[i]);
#ifdef FARO
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        TU_ASSERT(class_of(rc) == MPI_ERR_UNSUPPORTED_DATAREP && strstr(msg, "external32"),
                  "data representation \"%s\": %s", reps[i], msg);
#endif
    }
    /* still usable */
    pos = 0;
    TU_CHECK(MPI_Pack_external("external32", &a, 1, MPI_INT, out, sizeof out, &pos));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "pack_external");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    predefined_ints();
    predefined_floats();
    pairs();
    derived();
    positions_and_errors();
    tu_finish();
    return 0;
}
