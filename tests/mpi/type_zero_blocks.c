/* type_zero_blocks: datatypes with empty blocks. Indexed, hindexed,
 * indexed_block, hindexed_block, vector and struct types whose first, middle
 * or last block has length 0, whose empty blocks have displacements far
 * outside the data (INT_MAX, LLONG_MAX, negative), whose non-empty blocks
 * make one contiguous piece, or whose blocks all have one length, and types
 * with no data at all. Empty blocks add nothing to the typemap (MPI-3.1 4.1):
 * not to the size, not to the bounds.
 *
 * For each type the expected pieces (offset, length in typemap order), lb,
 * extent, true lb and true extent are written out here; the program checks
 * MPI_Type_size, MPI_Type_get_extent, MPI_Type_get_true_extent, MPI_Pack
 * (the packed bytes are the pieces, element after element), MPI_Unpack
 * (only the pieces are written), and then ranks pair up and move COUNTS[]
 * elements typed -> typed and typed -> bytes, through every transport path
 * of the test list's configurations. */
#include "util.h"

#include <limits.h>

#define MAXP 8

struct piece {
    MPI_Aint off;
    int len;
};
struct tcase {
    const char *name;
    MPI_Datatype type;
    MPI_Aint lb, extent, true_lb, true_extent;
    int np;
    struct piece p[MAXP];
};

static int tsize(const struct tcase *c)
{
    int s = 0;
    for (int i = 0; i < c->np; i++)
        s += c->p[i].len;
    return s;
}

#define NCASE 16
static struct tcase cases[NCASE];
static int ncase;

static struct tcase *add(const char *name, MPI_Datatype t, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint true_lb, MPI_Aint true_extent)
{
    struct tcase *c = &cases[ncase++];
    *c = (struct tcase){name, t, lb, extent, true_lb, true_extent, 0, {{0, 0}}};
    TU_CHECK(MPI_Type_commit(&c->type));
    return c;
}

static void piece(struct tcase *c, MPI_Aint off, int len)
{
    c->p[c->np++] = (struct piece){off, len};
}

static void make_cases(void)
{
    MPI_Datatype t;
    const int I = (int)sizeof(int);
    struct tcase *c;
    {
        int bl[3] = {0, 1, 1}, d[3] = {0, 1, 4};
        TU_CHECK(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
        c = add("indexed, first block empty", t, I, 4 * I, I, 4 * I);
        piece(c, I, I);
        piece(c, 4 * I, I);
    }
    {
        int bl[3] = {1, 0, 1}, d[3] = {1, 2, 4};
        TU_CHECK(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
        c = add("indexed, middle block empty", t, I, 4 * I, I, 4 * I);
        piece(c, I, I);
        piece(c, 4 * I, I);
    }
    {
        int bl[3] = {1, 1, 0}, d[3] = {1, 4, 8};
        TU_CHECK(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
        c = add("indexed, last block empty", t, I, 4 * I, I, 4 * I);
        piece(c, I, I);
        piece(c, 4 * I, I);
    }
    MPI_Datatype lead;
    {
        int bl[3] = {0, 4, 0}, d[3] = {INT_MAX, 2, INT_MAX};
        TU_CHECK(MPI_Type_indexed(3, bl, d, MPI_INT, &lead));
        TU_CHECK(MPI_Type_dup(lead, &t));
        c = add("indexed {0, 4, 0} at {INT_MAX, 2, INT_MAX} (one contiguous piece)", t, 2 * I,
                4 * I, 2 * I, 4 * I);
        piece(c, 2 * I, 4 * I);
    }
    {
        int bl[3] = {0, 4, 0};
        MPI_Aint d[3] = {LLONG_MAX, 2 * I, LLONG_MAX};
        TU_CHECK(MPI_Type_create_hindexed(3, bl, d, MPI_INT, &t));
        c = add("hindexed {0, 4, 0} at {LLONG_MAX, 8, LLONG_MAX}", t, 2 * I, 4 * I, 2 * I,
                4 * I);
        piece(c, 2 * I, 4 * I);
    }
    {
        /* that type in a struct with an int after a hole: xx0123xx4x in ints */
        int bl[2] = {1, 1};
        MPI_Aint d[2] = {0, 8 * I};
        MPI_Datatype ty[2] = {lead, MPI_INT};
        TU_CHECK(MPI_Type_create_struct(2, bl, d, ty, &t));
        c = add("struct {indexed {0, 4, 0}, int at 8 ints}", t, 2 * I, 7 * I, 2 * I, 7 * I);
        piece(c, 2 * I, 4 * I);
        piece(c, 8 * I, I);
    }
    TU_CHECK(MPI_Type_free(&lead));
    {
        int bl[4] = {0, 1, 1, 1}, d[4] = {0, 1, 3, 8};
        TU_CHECK(MPI_Type_indexed(4, bl, d, MPI_INT, &t));
        c = add("indexed {0, 1, 1, 1} (same lengths, first empty)", t, I, 8 * I, I, 8 * I);
        piece(c, I, I);
        piece(c, 3 * I, I);
        piece(c, 8 * I, I);
    }
    {
        int bl[4] = {0, 1, 1, 1};
        MPI_Aint d[4] = {0, I, 3 * I, 8 * I};
        TU_CHECK(MPI_Type_create_hindexed(4, bl, d, MPI_INT, &t));
        c = add("hindexed {0, 1, 1, 1} (same lengths, first empty)", t, I, 8 * I, I, 8 * I);
        piece(c, I, I);
        piece(c, 3 * I, I);
        piece(c, 8 * I, I);
    }
    {
        /* empty blocks everywhere, out of order; blocks 0 and 3 touch: one piece */
        int bl[6] = {2, 0, 0, 3, 0, 1}, d[6] = {0, 5, 9, 2, -20, 7};
        TU_CHECK(MPI_Type_indexed(6, bl, d, MPI_INT, &t));
        c = add("indexed {2, 0, 0, 3, 0, 1}", t, 0, 8 * I, 0, 8 * I);
        piece(c, 0, 5 * I);
        piece(c, 7 * I, I);
    }
    {
        int bl[2] = {0, 2};
        MPI_Aint d[2] = {-1000, 3 * I};
        TU_CHECK(MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t));
        c = add("hindexed {0, 2}, the empty block at -1000", t, 3 * I, 2 * I, 3 * I, 2 * I);
        piece(c, 3 * I, 2 * I);
    }
    {
        int bl[3] = {0, 2, 0};
        MPI_Aint d[3] = {0, 8, 100};
        MPI_Datatype ty[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
        TU_CHECK(MPI_Type_create_struct(3, bl, d, ty, &t));
        c = add("struct {0 doubles, 2 ints, 0 chars}", t, 8, 2 * I, 8, 2 * I);
        piece(c, 8, 2 * I);
    }
    {
        MPI_Datatype big;
        TU_CHECK(MPI_Type_create_resized(MPI_INT, -100, 1000, &big));
        int bl[2] = {0, 1};
        MPI_Aint d[2] = {0, 40};
        MPI_Datatype ty[2] = {big, MPI_SHORT};
        TU_CHECK(MPI_Type_create_struct(2, bl, d, ty, &t));
        TU_CHECK(MPI_Type_free(&big));
        c = add("struct {0 of resized(int, -100, 1000), 1 short}", t, 40, 2, 40, 2);
        piece(c, 40, 2);
    }
    /* no data at all */
    int d3[3] = {4, 0, 9};
    TU_CHECK(MPI_Type_create_indexed_block(3, 0, d3, MPI_INT, &t));
    add("indexed_block of blocklength 0", t, 0, 0, 0, 0);
    MPI_Aint a3[3] = {4, 0, 9};
    TU_CHECK(MPI_Type_create_hindexed_block(3, 0, a3, MPI_DOUBLE, &t));
    add("hindexed_block of blocklength 0", t, 0, 0, 0, 0);
    TU_CHECK(MPI_Type_vector(5, 0, 3, MPI_INT, &t));
    add("vector of blocklength 0", t, 0, 0, 0, 0);
    {
        int bl[2] = {0, 0};
        MPI_Aint d[2] = {8, 16};
        MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
        TU_CHECK(MPI_Type_create_struct(2, bl, d, ty, &t));
        add("struct of empty blocks", t, 0, 0, 0, 0);
    }
}

static void check_shape(const struct tcase *c)
{
    int size;
    MPI_Aint lb, extent, tlb, text;
    TU_CHECK(MPI_Type_size(c->type, &size));
    TU_CHECK(MPI_Type_get_extent(c->type, &lb, &extent));
    TU_CHECK(MPI_Type_get_true_extent(c->type, &tlb, &text));
    TU_ASSERT(size == tsize(c), "%s: MPI_Type_size %d, expected %d", c->name, size, tsize(c));
    TU_ASSERT(lb == c->lb && extent == c->extent, "%s: lb %ld extent %ld, expected %ld and %ld",
              c->name, (long)lb, (long)extent, (long)c->lb, (long)c->extent);
    TU_ASSERT(tlb == c->true_lb && text == c->true_extent,
              "%s: true lb %ld true extent %ld, expected %ld and %ld", c->name, (long)tlb,
              (long)text, (long)c->true_lb, (long)c->true_extent);
}

/* The buffer of count elements spans [lb, lb + count * extent) plus room. */
static size_t span_of(const struct tcase *c, int count)
{
    return (size_t)(c->lb + (MPI_Aint)count * c->extent) + 64;
}

/* Check that buf (patterned with seed where the pieces are, fill elsewhere)
 * holds count elements of c. */
static void check_typed(const struct tcase *c, const unsigned char *buf, size_t span, int count,
                        unsigned seed, unsigned char fill, const char *what)
{
    unsigned char *want = tu_malloc(span);
    memset(want, fill, span);
    for (int e = 0; e < count; e++)
        for (int i = 0; i < c->np; i++)
            for (int b = 0; b < c->p[i].len; b++) {
                size_t off = (size_t)((MPI_Aint)e * c->extent + c->p[i].off + b);
                want[off] = tu_pat(off, seed);
            }
    for (size_t i = 0; i < span; i++)
        if (buf[i] != want[i])
            tu_fail("%s: %s, %d elements: byte %zu is 0x%02x, expected 0x%02x", c->name, what,
                    count, i, buf[i], want[i]);
    free(want);
}

/* The packed form: the pieces' bytes, element after element. */
static void check_packed(const struct tcase *c, const unsigned char *packed, int count,
                         unsigned seed, const char *what)
{
    size_t k = 0;
    for (int e = 0; e < count; e++)
        for (int i = 0; i < c->np; i++)
            for (int b = 0; b < c->p[i].len; b++, k++) {
                size_t off = (size_t)((MPI_Aint)e * c->extent + c->p[i].off + b);
                if (packed[k] != tu_pat(off, seed))
                    tu_fail("%s: %s, %d elements: packed byte %zu is 0x%02x, expected 0x%02x "
                            "(element %d, piece %d)", c->name, what, count, k, packed[k],
                            tu_pat(off, seed), e, i);
            }
}

static void pack_unpack(const struct tcase *c, int count)
{
    size_t span = span_of(c, count), bytes = (size_t)tsize(c) * (size_t)count;
    unsigned char *buf = tu_malloc(span), *packed = tu_malloc(bytes + 1);
    tu_fill(buf, span, 3);
    int pos = 0, psize = -1;
    TU_CHECK(MPI_Pack_size(count, c->type, MPI_COMM_WORLD, &psize));
    TU_ASSERT((size_t)psize >= bytes, "%s: MPI_Pack_size %d < %zu", c->name, psize, bytes);
    TU_CHECK(MPI_Pack(buf, count, c->type, packed, (int)bytes + 1, &pos, MPI_COMM_WORLD));
    TU_ASSERT((size_t)pos == bytes, "%s: MPI_Pack advanced %d bytes, expected %zu", c->name, pos,
              bytes);
    check_packed(c, packed, count, 3, "MPI_Pack");
    memset(buf, 0, span);
    pos = 0;
    TU_CHECK(MPI_Unpack(packed, (int)bytes, &pos, buf, count, c->type, MPI_COMM_WORLD));
    check_typed(c, buf, span, count, 3, 0, "MPI_Unpack");
    free(buf);
    free(packed);
}

static const int counts[] = {1, 7, 30000};

static void exchange(const struct tcase *c, int count, int peer, int sender, int tag)
{
    size_t span = span_of(c, count), bytes = (size_t)tsize(c) * (size_t)count;
    unsigned char *buf = tu_malloc(span), *packed = tu_malloc(bytes + 1);
    unsigned seed = (unsigned)tag;
    MPI_Status st;
    if (sender) {
        tu_fill(buf, span, seed);
        TU_CHECK(MPI_Send(buf, count, c->type, peer, tag, MPI_COMM_WORLD));
        TU_CHECK(MPI_Send(buf, count, c->type, peer, tag + 1, MPI_COMM_WORLD));
    } else {
        memset(buf, 0xcc, span);
        TU_CHECK(MPI_Recv(buf, count, c->type, peer, tag, MPI_COMM_WORLD, &st));
        int got = -1;
        TU_CHECK(MPI_Get_count(&st, c->type, &got));
        TU_ASSERT(got == count || (bytes == 0 && got == 0),
                  "%s: MPI_Get_count gave %d elements, expected %d", c->name, got, count);
        check_typed(c, buf, span, count, seed, 0xcc, "received typed -> typed");
        TU_CHECK(MPI_Recv(packed, (int)bytes, MPI_BYTE, peer, tag + 1, MPI_COMM_WORLD, &st));
        tu_check_status(&st, peer, tag + 1, (int)bytes, c->name);
        check_packed(c, packed, count, seed, "received typed -> bytes");
    }
    free(buf);
    free(packed);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "type_zero_blocks");
    make_cases();
    for (int i = 0; i < ncase; i++) {
        check_shape(&cases[i]);
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
            pack_unpack(&cases[i], counts[k]);
    }
    if (tu_size >= 2) {
        int sender;
        int peer = tu_pair(&sender);
        for (int i = 0; i < ncase; i++)
            for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
                exchange(&cases[i], counts[k], peer, sender, (int)(10 * i + 2 * k));
    }
    for (int i = 0; i < ncase; i++)
        TU_CHECK(MPI_Type_free(&cases[i].type));
    tu_finish();
    return 0;
}
