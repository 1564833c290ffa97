/*
 * Type signatures, for collective checking (FARO_COLL_CHECK, coll/collcheck.c).
 *
 * MPI matches a send and a receive by type signature: the sequence of basic
 * types their typemaps list, whatever the displacements (4 x MPI_INT matches
 * 1 x contiguous(4, MPI_INT) and a vector of 4 ints with holes). A
 * signature is summarised here by a polynomial hash over that sequence,
 *
 *     h = sum over elements k of H(basic type of k) * B^k  (mod 2^61 - 1),
 *
 * with its length n and B^n kept beside it, so that two signatures
 * concatenate in O(1) (h1 + h2 * B^n1) and count repetitions of one take
 * O(log count) concatenations: no type is ever expanded element by element.
 * Two different sequences collide only with the odds of a random 61-bit
 * hash; equal sequences always give equal sums.
 *
 * Pair types (MPI_2INT, MPI_DOUBLE_INT ...) are their two basic types, as
 * their typemaps say, so MPI_2INT matches 2 x MPI_INT. MPI_BYTE and MPI_PACKED
 * are marked "loose": a signature that contains either is compared by bytes
 * only, since MPI_PACKED matches anything and programs send raw bytes as
 * MPI_BYTE against typed receives.
 */
#include <string.h>

#include "core.h"

#define P ((1ull << 61) - 1)
#define B 0x1f3a5c7e9b2d4f61ull /* below P; any base whose powers do not cycle soon */

static uint64_t mulmod(uint64_t a, uint64_t b)
{
    unsigned __int128 x = (unsigned __int128)a * b;
    uint64_t lo = (uint64_t)(x & P), hi = (uint64_t)(x >> 61);
    uint64_t r = lo + hi;
    return r >= P ? r - P : r;
}

static uint64_t addmod(uint64_t a, uint64_t b)
{
    uint64_t r = a + b;
    return r >= P ? r - P : r;
}

static const struct faro_type_sig empty = {0, 0, 1, 0, 0};

/* a then b */
static void concat(struct faro_type_sig *a, const struct faro_type_sig *b)
{
    a->h = addmod(a->h, mulmod(b->h, a->bn));
    a->n += b->n;
    a->bn = mulmod(a->bn, b->bn);
    a->bytes += b->bytes;
    a->loose |= b->loose;
}

/* s repeated count times, by doubling */
static void repeat(struct faro_type_sig *s, uint64_t count)
{
    struct faro_type_sig out = empty, sq = *s;
    for (; count; count >>= 1) {
        if (count & 1)
            concat(&out, &sq);
        struct faro_type_sig d = sq;
        concat(&sq, &d);
    }
    *s = out;
}

/* One basic element: H is a hash of the type's name (stable across
 * processes and builds, unlike its address). */
static struct faro_type_sig basic(MPI_Datatype t)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = t->name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h %= P;
    struct faro_type_sig s = {h ? h : 1, 1, B, t->size, t == MPI_BYTE || t == MPI_PACKED};
    return s;
}

/* The value part of a pair type; NULL for other types. */
static MPI_Datatype pair_value(MPI_Datatype t)
{
    if (t == MPI_FLOAT_INT)
        return MPI_FLOAT;
    if (t == MPI_DOUBLE_INT)
        return MPI_DOUBLE;
    if (t == MPI_LONG_INT)
        return MPI_LONG;
    if (t == MPI_2INT)
        return MPI_INT;
    if (t == MPI_SHORT_INT)
        return MPI_SHORT;
    if (t == MPI_LONG_DOUBLE_INT)
        return MPI_LONG_DOUBLE;
    return NULL;
}

/* The signature of one element of t. */
static void element(MPI_Datatype t, struct faro_type_sig *out)
{
    if (t->predefined) {
        MPI_Datatype v = pair_value(t);
        *out = basic(v ? v : t);
        if (v) {
            struct faro_type_sig i = basic(MPI_INT);
            concat(out, &i);
        }
        return;
    }
    const struct faro_type_contents *c = t->contents;
    *out = empty;
    if (!c)
        return;
    if (c->combiner == MPI_COMBINER_STRUCT) {
        /* blocklengths are ints[1..count], the types one each */
        for (int i = 0; i < c->nt; i++) {
            struct faro_type_sig b;
            element(c->types[i], &b);
            repeat(&b, (uint64_t)(c->ints[1 + i] > 0 ? c->ints[1 + i] : 0));
            concat(out, &b);
        }
        return;
    }
    /* Every other constructor repeats its one old type: its elements are
     * size / old size copies of the old signature, in typemap order. */
    if (c->nt < 1 || c->types[0]->size == 0)
        return;
    element(c->types[0], out);
    repeat(out, t->size / c->types[0]->size);
}

void faro_type_sig(MPI_Datatype t, size_t count, struct faro_type_sig *out)
{
    element(t, out);
    repeat(out, count);
}

int faro_type_sig_equal(const struct faro_type_sig *a, const struct faro_type_sig *b)
{
    if (a->loose || b->loose)
        return a->bytes == b->bytes;
    return a->h == b->h && a->n == b->n && a->bytes == b->bytes;
}
