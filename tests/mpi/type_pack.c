/* type_pack: MPI_Pack/Unpack/Pack_size, addresses, and element counts of
 * partial receives.
 *   - pack an int, a vector and a struct one after another into one buffer,
 *     check the bytes and the positions, unpack them back;
 *   - MPI_Pack into a buffer too small is MPI_ERR_TRUNCATE;
 *   - a struct built from absolute addresses (MPI_Get_address) sent from
 *     MPI_BOTTOM arrives in the fields of a C struct;
 *   - a receive of count 3 of a struct type that gets 1 struct and a part of
 *     the next: MPI_Get_count is MPI_UNDEFINED, MPI_Get_elements counts the
 *     basic elements that arrived;
 *   - MPI_Sendrecv_replace of a strided column. */
#include "util.h"

#include <stddef.h>

struct rec { int id; double v[2]; char tag; };

static MPI_Datatype rec_type(void)
{
    int bl[3] = {1, 2, 1};
    MPI_Aint d[3] = {offsetof(struct rec, id), offsetof(struct rec, v), offsetof(struct rec, tag)};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t, r;
    TU_CHECK(MPI_Type_create_struct(3, bl, d, ty, &t));
    TU_CHECK(MPI_Type_create_resized(t, 0, sizeof(struct rec), &r));
    TU_CHECK(MPI_Type_free(&t));
    TU_CHECK(MPI_Type_commit(&r));
    return r;
}

static void pack_unpack(void)
{
    int one = 42, back_one = 0;
    double m[4][4], back[4][4];
    for (int i = 0; i < 16; i++)
        m[i / 4][i % 4] = i + 0.5, back[i / 4][i % 4] = -1;
    MPI_Datatype col, rt = rec_type();
    TU_CHECK(MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &col)); /* column 0 */
    TU_CHECK(MPI_Type_commit(&col));
    struct rec recs[2] = {{7, {1.5, 2.5}, 'x'}, {8, {3.5, 4.5}, 'y'}}, rback[2];
    memset(rback, 0, sizeof rback);

    int s1, s2, s3;
    TU_CHECK(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &s1));
    TU_CHECK(MPI_Pack_size(1, col, MPI_COMM_WORLD, &s2));
    TU_CHECK(MPI_Pack_size(2, rt, MPI_COMM_WORLD, &s3));
    TU_ASSERT(s1 >= 4 && s2 >= 32 && s3 >= 2 * 21, "Pack_size too small: %d %d %d", s1, s2, s3);
    int total = s1 + s2 + s3;
    char *buf = tu_malloc((size_t)total);
    int pos = 0;
    TU_CHECK(MPI_Pack(&one, 1, MPI_INT, buf, total, &pos, MPI_COMM_WORLD));
    TU_ASSERT(pos == 4, "position after an int is %d", pos);
    TU_CHECK(MPI_Pack(m, 1, col, buf, total, &pos, MPI_COMM_WORLD));
    TU_ASSERT(pos == 36, "position after a column is %d", pos);
    for (int i = 0; i < 4; i++) {
        double v;
        memcpy(&v, buf + 4 + 8 * i, 8);
        TU_ASSERT(v == m[i][0], "packed column element %d is %g, expected %g", i, v, m[i][0]);
    }
    TU_CHECK(MPI_Pack(recs, 2, rt, buf, total, &pos, MPI_COMM_WORLD));
    TU_ASSERT(pos == 36 + 2 * 21, "position after two records is %d", pos);
    int end = pos;
    pos = 0;
    TU_CHECK(MPI_Unpack(buf, end, &pos, &back_one, 1, MPI_INT, MPI_COMM_WORLD));
    TU_CHECK(MPI_Unpack(buf, end, &pos, back, 1, col, MPI_COMM_WORLD));
    TU_CHECK(MPI_Unpack(buf, end, &pos, rback, 2, rt, MPI_COMM_WORLD));
    TU_ASSERT(pos == end, "unpack ended at %d, packed %d", pos, end);
    TU_ASSERT(back_one == 42, "unpacked int %d", back_one);
    for (int i = 0; i < 16; i++) {
        double want = i % 4 == 0 ? m[i / 4][0] : -1;
        TU_ASSERT(back[i / 4][i % 4] == want, "unpacked matrix [%d][%d] = %g, expected %g",
                  i / 4, i % 4, back[i / 4][i % 4], want);
    }
    for (int i = 0; i < 2; i++)
        TU_ASSERT(rback[i].id == recs[i].id && rback[i].v[0] == recs[i].v[0] &&
                  rback[i].v[1] == recs[i].v[1] && rback[i].tag == recs[i].tag,
                  "unpacked record %d differs", i);

    /* too small */
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    pos = 8;
    int rc = MPI_Pack(m, 1, col, buf, 16, &pos, MPI_COMM_WORLD), cls = -1;
    MPI_Error_class(rc, &cls);
    TU_ASSERT(cls == MPI_ERR_TRUNCATE, "MPI_Pack into too small a buffer: %s", tu_errstr(rc));
    TU_ASSERT(pos == 8, "failed MPI_Pack moved the position to %d", pos);
    pos = 0;
    rc = MPI_Unpack(buf, 20, &pos, rback, 1, rt, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    TU_ASSERT(cls == MPI_ERR_TRUNCATE, "MPI_Unpack past the input: %s", tu_errstr(rc));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    free(buf);
    TU_CHECK(MPI_Type_free(&col));
    TU_CHECK(MPI_Type_free(&rt));
}

static void addresses(void)
{
    MPI_Aint a0, a1;
    double arr[8];
    TU_CHECK(MPI_Get_address(&arr[0], &a0));
    TU_CHECK(MPI_Get_address(&arr[5], &a1));
    TU_ASSERT(MPI_Aint_diff(a1, a0) == 40, "Aint_diff %ld", (long)MPI_Aint_diff(a1, a0));
    TU_ASSERT(MPI_Aint_add(a0, 40) == a1, "Aint_add");
    MPI_Datatype m;
    TU_CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m));
    TU_ASSERT(m == MPI_REAL8, "Type_match_size(REAL, 8) is not MPI_REAL8 (as in MPICH and "
              "Open MPI)");
    TU_CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m));
    int sz;
    TU_CHECK(MPI_Type_size(m, &sz));
    TU_ASSERT(sz == 4, "Type_match_size(INTEGER, 4) has size %d", sz);
}

/* Sender: struct fields spread over the stack, sent from MPI_BOTTOM. */
static void bottom(int sender, int peer)
{
    int id = 0;
    double val = 0;
    char note[6] = {0};
    if (sender) {
        id = 99, val = 2.25;
        memcpy(note, "hello", 6);
    }
    MPI_Aint d[3];
    TU_CHECK(MPI_Get_address(&id, &d[0]));
    TU_CHECK(MPI_Get_address(&val, &d[1]));
    TU_CHECK(MPI_Get_address(note, &d[2]));
    int bl[3] = {1, 1, 6};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
    TU_CHECK(MPI_Type_create_struct(3, bl, d, ty, &t));
    TU_CHECK(MPI_Type_commit(&t));
    if (sender) {
        TU_CHECK(MPI_Send(MPI_BOTTOM, 1, t, peer, 5, MPI_COMM_WORLD));
    } else {
        TU_CHECK(MPI_Recv(MPI_BOTTOM, 1, t, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        TU_ASSERT(id == 99 && val == 2.25 && !strcmp(note, "hello"),
                  "MPI_BOTTOM struct: got %d %g '%s'", id, val, note);
    }
    TU_CHECK(MPI_Type_free(&t));
}

static void partial(int sender, int peer)
{
    MPI_Datatype rt = rec_type(); /* int, 2 doubles, char: 4 basic elements, 21 bytes */
    if (sender) {
        char bytes[21 + 4 + 8 + 3];
        memset(bytes, 1, sizeof bytes);
        /* one record, then an int and a double of the next: 6 elements */
        TU_CHECK(MPI_Send(bytes, 21 + 4 + 8, MPI_BYTE, peer, 6, MPI_COMM_WORLD));
        /* one record and half a double: no whole number of elements */
        TU_CHECK(MPI_Send(bytes, 21 + 4 + 3, MPI_BYTE, peer, 7, MPI_COMM_WORLD));
    } else {
        struct rec r[3];
        MPI_Status st;
        int n;
        MPI_Count nx;
        TU_CHECK(MPI_Recv(r, 3, rt, peer, 6, MPI_COMM_WORLD, &st));
        TU_CHECK(MPI_Get_count(&st, rt, &n));
        TU_ASSERT(n == MPI_UNDEFINED, "Get_count of 1.x records is %d", n);
        TU_CHECK(MPI_Get_elements(&st, rt, &n));
        TU_ASSERT(n == 6, "Get_elements of a record + int + double is %d, expected 6", n);
        TU_CHECK(MPI_Get_elements_x(&st, rt, &nx));
        TU_ASSERT(nx == 6, "Get_elements_x is %lld", (long long)nx);
        TU_CHECK(MPI_Get_count(&st, MPI_BYTE, &n));
        TU_ASSERT(n == 33, "bytes received %d", n);
        TU_ASSERT(r[1].id == 0x01010101, "partial record's int not delivered");
        TU_CHECK(MPI_Recv(r, 3, rt, peer, 7, MPI_COMM_WORLD, &st));
        TU_CHECK(MPI_Get_elements(&st, rt, &n));
        TU_ASSERT(n == MPI_UNDEFINED, "Get_elements ending inside a double is %d", n);
    }
    TU_CHECK(MPI_Type_free(&rt));
}

/* Sendrecv_replace of a strided column: the gaps keep their own values. */
static void replace(int peer)
{
    double m[6][3];
    for (int i = 0; i < 18; i++)
        m[i / 3][i % 3] = tu_rank * 1000 + i;
    MPI_Datatype col;
    TU_CHECK(MPI_Type_vector(6, 1, 3, MPI_DOUBLE, &col));
    TU_CHECK(MPI_Type_commit(&col));
    TU_CHECK(MPI_Sendrecv_replace(&m[0][1], 1, col, peer, 8, peer, 8, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
    for (int i = 0; i < 18; i++) {
        double want = (i % 3 == 1 ? peer : tu_rank) * 1000 + i;
        TU_ASSERT(m[i / 3][i % 3] == want, "Sendrecv_replace: m[%d][%d] = %g, expected %g",
                  i / 3, i % 3, m[i / 3][i % 3], want);
    }
    TU_CHECK(MPI_Type_free(&col));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "type_pack");
    pack_unpack();
    addresses();
    if (tu_size >= 2) {
        int sender, peer = tu_pair(&sender);
        bottom(sender, peer);
        partial(sender, peer);
        replace(peer);
    }
    tu_finish();
    return 0;
}
