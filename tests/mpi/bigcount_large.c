/*
 * bigcount_large: the large-count (_c) calls with counts and sizes beyond
 * INT_MAX, between two ranks.
 *
 *  - MPI_Send_c / MPI_Recv_c of 2^31 + 8 bytes (MPI_BYTE): the bytes on
 *    both sides of the 2 GiB mark arrive; MPI_Get_count on the status gives
 *    MPI_UNDEFINED, MPI_Get_count_c and MPI_Get_elements_c the real count;
 *  - MPI_Type_contiguous_c(2^31 + 8, MPI_BYTE): MPI_Type_size_c gives 2^31 + 8,
 *    MPI_Type_size MPI_UNDEFINED, MPI_Get_count_c of that message in it 1;
 *    MPI_Type_vector_c with a count, MPI_Type_create_hvector_c with a stride,
 *    MPI_Type_indexed_c and MPI_Type_create_struct_c with a block length and
 *    a displacement beyond INT_MAX (sizes and extents only);
 *  - MPI_Send (int) of 2^21 + 1 elements of a 1 KiB type: count * size
 *    overflows 32 bits though the count fits an int;
 *  - MPI_Bcast_c of 2^31 + 8 bytes;
 *  - MPI_Reduce_local_c of 2^31 + 8 bytes with an MPI_Op_create_c op (called
 *    once with the whole count);
 *  - MPI_Pack_external_c of 2^31 + 8 bytes (the int call runs it as one
 *    element of a contiguous type) and MPI_Pack_external_size_c;
 *  - MPI_Allgatherv_c whose second block lies beyond 2 GiB (MPI_Aint
 *    displacement);
 *  - MPI_Pack_c / MPI_Unpack_c at a position beyond INT_MAX, MPI_Pack_size_c.
 *
 * Memory: the big buffers are calloc'ed, so pages only read (zero) cost
 * nothing; only the receiving side of each transfer writes 2 GiB. The
 * checks look at marked bytes around the 2 GiB mark and at both ends.
 */
#include "util.h"

#include <limits.h>

#define BIG (((MPI_Count)1 << 31) + 8) /* 2^31 + 8 */

static const MPI_Count marks[] = {0, 4095, ((MPI_Count)1 << 31) - 1, (MPI_Count)1 << 31,
                                  ((MPI_Count)1 << 31) + 7};
#define NMARKS (int)(sizeof marks / sizeof marks[0])

static unsigned char mark_value(int i)
{
    return (unsigned char)(0x51 + 17 * i);
}

/* The sender's buffer: zero but the marked bytes. */
static void mark(unsigned char *buf)
{
    for (int i = 0; i < NMARKS; i++)
        buf[marks[i]] = mark_value(i);
}

/* The receiver's buffer before the data: 0xEE at the marks and just
 * beside them, so that a byte not written shows. */
static void poison(unsigned char *buf, MPI_Count n)
{
    for (int i = 0; i < NMARKS; i++) {
        buf[marks[i]] = 0xEE;
        if (marks[i] + 1 < n)
            buf[marks[i] + 1] = 0xEE;
    }
}

static void check_marks(const unsigned char *buf, const char *what)
{
    for (int i = 0; i < NMARKS; i++) {
        if (buf[marks[i]] != mark_value(i))
            tu_fail("%s: byte %lld is 0x%02x, expected 0x%02x", what, (long long)marks[i],
                    buf[marks[i]], mark_value(i));
        MPI_Count next = marks[i] + 1;
        if (next < BIG && (i + 1 == NMARKS || marks[i + 1] != next) && buf[next] != 0)
            tu_fail("%s: byte %lld is 0x%02x, expected 0 (not written?)", what,
                    (long long)next, buf[next]);
    }
}

static void *big_zeroed(size_t n)
{
    void *p = calloc(1, n);
    if (!p)
        tu_fail("cannot allocate %zu bytes", n);
    return p;
}

static void send_recv_bytes(int rank, unsigned char *buf, MPI_Status *st)
{
    if (rank == 0) {
        mark(buf);
        TU_CHECK(MPI_Send_c(buf, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
        return;
    }
    poison(buf, BIG);
    TU_CHECK(MPI_Recv_c(buf, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, st));
    check_marks(buf, "MPI_Recv_c of 2^31 + 8 bytes");
    int n;
    MPI_Count nc = -1, ne = -1;
    TU_CHECK(MPI_Get_count(st, MPI_BYTE, &n));
    TU_CHECK(MPI_Get_count_c(st, MPI_BYTE, &nc));
    TU_CHECK(MPI_Get_elements_c(st, MPI_BYTE, &ne));
    if (n != MPI_UNDEFINED)
        tu_fail("MPI_Get_count of 2^31 + 8 bytes gave %d, expected MPI_UNDEFINED", n);
    if (nc != BIG || ne != BIG)
        tu_fail("MPI_Get_count_c / MPI_Get_elements_c gave %lld / %lld, expected %lld",
                (long long)nc, (long long)ne, (long long)BIG);
}

/* The message of send_recv_bytes is one element of a type of 2^31 + 8 bytes. */
static void big_type(int rank, const MPI_Status *st)
{
    MPI_Datatype t;
    MPI_Count size = 0;
    int isize = 0;
    TU_CHECK(MPI_Type_contiguous_c(BIG, MPI_BYTE, &t));
    TU_CHECK(MPI_Type_commit(&t));
    TU_CHECK(MPI_Type_size_c(t, &size));
    TU_CHECK(MPI_Type_size(t, &isize));
    if (size != BIG || isize != MPI_UNDEFINED)
        tu_fail("MPI_Type_size_c / MPI_Type_size of contiguous(2^31 + 8 bytes): %lld / %d, "
                "expected %lld / MPI_UNDEFINED", (long long)size, isize, (long long)BIG);
    if (rank == 1) {
        MPI_Count n = -1;
        TU_CHECK(MPI_Get_count_c(st, t, &n));
        if (n != 1)
            tu_fail("MPI_Get_count_c of 2^31 + 8 bytes in contiguous(2^31 + 8 bytes) gave %lld, "
                    "expected 1", (long long)n);
    }
    TU_CHECK(MPI_Type_free(&t));

    /* vectors: a count, and a byte stride, beyond INT_MAX (no data moves) */
    MPI_Count lb = -1, extent = -1;
    TU_CHECK(MPI_Type_vector_c(BIG, 1, 2, MPI_BYTE, &t));
    TU_CHECK(MPI_Type_size_c(t, &size));
    TU_CHECK(MPI_Type_get_extent_c(t, &lb, &extent));
    if (size != BIG || lb != 0 || extent != 2 * BIG - 1)
        tu_fail("MPI_Type_vector_c(2^31 + 8, 1, 2, MPI_BYTE): size %lld, lb %lld, extent %lld",
                (long long)size, (long long)lb, (long long)extent);
    TU_CHECK(MPI_Type_free(&t));
    TU_CHECK(MPI_Type_create_hvector_c(2, 1, BIG, MPI_INT, &t));
    TU_CHECK(MPI_Type_size_c(t, &size));
    TU_CHECK(MPI_Type_get_extent_c(t, &lb, &extent));
    if (size != 8 || lb != 0 || extent != BIG + 4)
        tu_fail("MPI_Type_create_hvector_c(2, 1, 2^31 + 8 bytes, MPI_INT): size %lld, lb %lld, "
                "extent %lld", (long long)size, (long long)lb, (long long)extent);
    TU_CHECK(MPI_Type_free(&t));

    /* indexed and struct: a block length and a displacement beyond INT_MAX */
    MPI_Count bl[2] = {1, BIG}, disp[2] = {0, BIG};
    MPI_Datatype types[2] = {MPI_BYTE, MPI_BYTE};
    TU_CHECK(MPI_Type_indexed_c(2, bl, disp, MPI_BYTE, &t));
    TU_CHECK(MPI_Type_size_c(t, &size));
    TU_CHECK(MPI_Type_get_extent_c(t, &lb, &extent));
    if (size != BIG + 1 || lb != 0 || extent != 2 * BIG)
        tu_fail("MPI_Type_indexed_c({1, 2^31 + 8}, {0, 2^31 + 8}, MPI_BYTE): size %lld, lb %lld, "
                "extent %lld", (long long)size, (long long)lb, (long long)extent);
    TU_CHECK(MPI_Type_free(&t));
    TU_CHECK(MPI_Type_create_struct_c(2, bl, disp, types, &t));
    TU_CHECK(MPI_Type_size_c(t, &size));
    TU_CHECK(MPI_Type_get_extent_c(t, &lb, &extent));
    if (size != BIG + 1 || lb != 0 || extent != 2 * BIG)
        tu_fail("MPI_Type_create_struct_c({1, 2^31 + 8}, {0, 2^31 + 8}, bytes): size %lld, "
                "lb %lld, extent %lld", (long long)size, (long long)lb, (long long)extent);
    TU_CHECK(MPI_Type_free(&t));
}

/* count fits an int, count * size does not fit 32 bits */
static void int_count_big_bytes(int rank, unsigned char *buf)
{
    MPI_Datatype kib;
    int count = (1 << 21) + 1;
    TU_CHECK(MPI_Type_contiguous(1024, MPI_BYTE, &kib));
    TU_CHECK(MPI_Type_commit(&kib));
    if (rank == 0) {
        buf[(size_t)count * 1024 - 1] = 0x77;
        TU_CHECK(MPI_Send(buf, count, kib, 1, 3, MPI_COMM_WORLD));
        buf[(size_t)count * 1024 - 1] = 0;
    } else {
        MPI_Status st;
        int n = -1;
        poison(buf, BIG);
        buf[(size_t)count * 1024 - 1] = 0xEE;
        TU_CHECK(MPI_Recv(buf, count, kib, 0, 3, MPI_COMM_WORLD, &st));
        check_marks(buf, "MPI_Recv of 2^21 + 1 KiB elements");
        if (buf[(size_t)count * 1024 - 1] != 0x77)
            tu_fail("MPI_Recv of 2^21 + 1 KiB elements: the last byte is 0x%02x, expected 0x77",
                    buf[(size_t)count * 1024 - 1]);
        TU_CHECK(MPI_Get_count(&st, kib, &n));
        if (n != count)
            tu_fail("MPI_Get_count gave %d, expected %d", n, count);
    }
    TU_CHECK(MPI_Type_free(&kib));
}

static void bcast(int rank, unsigned char *buf)
{
    if (rank == 0)
        mark(buf);
    else
        poison(buf, BIG);
    TU_CHECK(MPI_Bcast_c(buf, BIG, MPI_BYTE, 0, MPI_COMM_WORLD));
    check_marks(buf, "MPI_Bcast_c of 2^31 + 8 bytes");
}

static MPI_Count user_len = -1;
static int user_calls = 0;

/* MPI_BOR on bytes, 8 at a time, for MPI_Op_create_c */
static void bor_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *t)
{
    const unsigned char *a = in;
    unsigned char *b = inout;
    MPI_Count n = *len, i = 0;
    (void)t;
    user_len = n;
    user_calls++;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        y |= x;
        memcpy(b + i, &y, 8);
    }
    for (; i < n; i++)
        b[i] |= a[i];
}

/* MPI_Reduce_local_c with an MPI_Op_create_c op: one call, the whole count. */
static void reduce_local(unsigned char *buf)
{
    unsigned char *in = big_zeroed((size_t)BIG);
    MPI_Op op;
    mark(in);
    poison(buf, BIG);
    for (int i = 0; i < NMARKS; i++) /* poisoned bytes OR the marks: clear them first */
        buf[marks[i]] = 0;
    TU_CHECK(MPI_Op_create_c(bor_c, 1, &op));
    TU_CHECK(MPI_Reduce_local_c(in, buf, BIG, MPI_BYTE, op));
    TU_CHECK(MPI_Op_free(&op));
    if (user_calls != 1 || user_len != BIG)
        tu_fail("MPI_Reduce_local_c: the MPI_Op_create_c function was called %d times, last "
                "with len %lld; expected once with %lld", user_calls, (long long)user_len,
                (long long)BIG);
    for (int i = 0; i < NMARKS; i++)
        if (buf[marks[i]] != mark_value(i))
            tu_fail("MPI_Reduce_local_c of 2^31 + 8 bytes: byte %lld is 0x%02x, expected 0x%02x",
                    (long long)marks[i], buf[marks[i]], mark_value(i));
    free(in);
}

/* MPI_Pack_external_c of 2^31 + 8 bytes: the int call runs it as one element
 * of a contiguous type (external32 bytes are the bytes). */
static void pack_external(const unsigned char *buf)
{
    unsigned char *out = big_zeroed((size_t)BIG);
    MPI_Count size = 0, pos = 0;
    TU_CHECK(MPI_Pack_external_size_c("external32", BIG, MPI_BYTE, &size));
    if (size != BIG)
        tu_fail("MPI_Pack_external_size_c of 2^31 + 8 bytes gave %lld", (long long)size);
    TU_CHECK(MPI_Pack_external_c("external32", buf, BIG, MPI_BYTE, out, BIG, &pos));
    if (pos != BIG)
        tu_fail("MPI_Pack_external_c of 2^31 + 8 bytes: position %lld", (long long)pos);
    check_marks(out, "MPI_Pack_external_c of 2^31 + 8 bytes");
    free(out);
}

/* Two blocks of 8 bytes, the second beyond 2 GiB, in a fresh zeroed buffer. */
static void allgatherv(int rank)
{
    MPI_Aint displs[2] = {0, BIG};
    MPI_Count counts[2] = {8, 8};
    unsigned char *recv = big_zeroed((size_t)BIG + 8), mine[8];
    for (int i = 0; i < 8; i++)
        mine[i] = (unsigned char)(rank * 16 + i + 1);
    TU_CHECK(MPI_Allgatherv_c(mine, 8, MPI_BYTE, recv, counts, displs, MPI_BYTE,
                              MPI_COMM_WORLD));
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 8; i++)
            if (recv[displs[r] + i] != (unsigned char)(r * 16 + i + 1))
                tu_fail("MPI_Allgatherv_c: byte %d of rank %d's block (at %lld) is 0x%02x, "
                        "expected 0x%02x", i, r, (long long)displs[r], recv[displs[r] + i],
                        r * 16 + i + 1);
    free(recv);
}

static void pack(void)
{
    MPI_Count size = 0, pos = BIG - 16;
    int isize = 0;
    TU_CHECK(MPI_Pack_size_c(BIG, MPI_BYTE, MPI_COMM_WORLD, &size));
    if (size != BIG)
        tu_fail("MPI_Pack_size_c of 2^31 + 8 bytes gave %lld", (long long)size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    tu_expect(MPI_Pack_size(INT_MAX, MPI_INT, MPI_COMM_WORLD, &isize), MPI_ERR_COUNT,
              "MPI_Pack_size", "an int size that cannot hold the bytes");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    unsigned char *out = big_zeroed((size_t)BIG);
    int in[4] = {11, 22, 33, 44}, back[4] = {0};
    TU_CHECK(MPI_Pack_c(in, 4, MPI_INT, out, BIG, &pos, MPI_COMM_WORLD));
    if (pos != BIG)
        tu_fail("MPI_Pack_c: position %lld after 16 bytes from 2^31 - 8, expected %lld",
                (long long)pos, (long long)BIG);
    pos = BIG - 16;
    TU_CHECK(MPI_Unpack_c(out, BIG, &pos, back, 4, MPI_INT, MPI_COMM_WORLD));
    if (pos != BIG || memcmp(in, back, sizeof in))
        tu_fail("MPI_Unpack_c beyond INT_MAX: position %lld, values %d %d %d %d", (long long)pos,
                back[0], back[1], back[2], back[3]);
    free(out);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "bigcount_large");
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned char *buf = big_zeroed((size_t)BIG + 1024 * 1024);
    MPI_Status st;
    send_recv_bytes(rank, buf, &st);
    big_type(rank, &st);
    int_count_big_bytes(rank, buf);
    bcast(rank, buf);
    if (rank == 1)
        reduce_local(buf);
    else
        pack_external(buf);
    free(buf);
    allgatherv(rank);
    if (rank == 0)
        pack();
    tu_finish();
    return 0;
}
