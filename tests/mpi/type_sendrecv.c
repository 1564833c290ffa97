/* type_sendrecv: derived datatypes through point-to-point. For each type
 * (vector, hvector of a struct, indexed, struct, subarray, resized, dup of a
 * vector) and element counts from one element up to a few MiB, ranks pair up
 * and move count elements:
 *   typed -> typed       (same type both sides)
 *   typed -> contiguous  (the receiver gets the packed stream as basic elements)
 *   contiguous -> typed  (the receiver scatters it)
 *   typed -> typed with Irecv posted first and the type freed before the data
 *                        arrives (the request keeps it alive)
 *   typed -> typed with the send's type freed right after MPI_Isend
 * The expected bytes come from each type's own description (a list of
 * (offset, length) pieces per element written out here), not from the
 * library; bytes of the receive buffer outside the pieces must stay as they
 * were. TEST_MAX_SIZE (bytes) limits the largest message. */
#include "util.h"

#define MAXP 64

struct piece { MPI_Aint off; int len; };
struct tcase {
    const char *name;
    MPI_Datatype type, basic; /* basic: the type every element is made of (or MPI_BYTE) */
    int basic_size;
    MPI_Aint extent, lb;
    int np;
    struct piece p[MAXP];      /* one element, in typemap order */
};

static int psize(const struct tcase *c)
{
    int s = 0;
    for (int i = 0; i < c->np; i++)
        s += c->p[i].len;
    return s;
}

static void add(struct tcase *c, MPI_Aint off, int len)
{
    if (c->np == MAXP)
        tu_fail("too many pieces in %s", c->name);
    c->p[c->np++] = (struct piece){off, len};
}

static void make_cases(struct tcase *c, int *n)
{
    int k = 0;
    /* vector: 8 blocks of 3 doubles, stride 5 */
    c[k] = (struct tcase){.name = "vector", .basic = MPI_DOUBLE, .basic_size = 8};
    TU_CHECK(MPI_Type_vector(8, 3, 5, MPI_DOUBLE, &c[k].type));
    for (int i = 0; i < 8; i++)
        add(&c[k], i * 40, 24);
    c[k].extent = 7 * 40 + 24;
    k++;
    /* indexed ints: uneven blocks, out of order */
    {
        int bl[4] = {3, 1, 4, 2}, d[4] = {10, 0, 20, 5};
        c[k] = (struct tcase){.name = "indexed", .basic = MPI_INT, .basic_size = 4};
        TU_CHECK(MPI_Type_indexed(4, bl, d, MPI_INT, &c[k].type));
        for (int i = 0; i < 4; i++)
            add(&c[k], d[i] * 4, bl[i] * 4);
        c[k].extent = 24 * 4;
    }
    k++;
    /* struct {char; double[2]; int} with padding */
    {
        int bl[3] = {1, 2, 1};
        MPI_Aint d[3] = {0, 8, 24};
        MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
        c[k] = (struct tcase){.name = "struct", .basic = MPI_BYTE, .basic_size = 1};
        TU_CHECK(MPI_Type_create_struct(3, bl, d, ty, &c[k].type));
        add(&c[k], 0, 1);
        add(&c[k], 8, 16);
        add(&c[k], 24, 4);
        c[k].extent = 32;
    }
    k++;
    /* hvector of 2 of that struct, stride 80 bytes */
    {
        c[k] = (struct tcase){.name = "hvector-of-struct", .basic = MPI_BYTE, .basic_size = 1};
        TU_CHECK(MPI_Type_create_hvector(3, 2, 80, c[k - 1].type, &c[k].type));
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++) {
                MPI_Aint b = i * 80 + j * 32;
                add(&c[k], b, 1);
                add(&c[k], b + 8, 16);
                add(&c[k], b + 24, 4);
            }
        c[k].extent = 2 * 80 + 64;
    }
    k++;
    /* subarray: 5x3 floats out of 8x10, from (2,4) */
    {
        int sizes[2] = {8, 10}, sub[2] = {5, 3}, st[2] = {2, 4};
        c[k] = (struct tcase){.name = "subarray", .basic = MPI_FLOAT, .basic_size = 4};
        TU_CHECK(MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, MPI_FLOAT,
                                          &c[k].type));
        for (int i = 0; i < 5; i++)
            add(&c[k], ((2 + i) * 10 + 4) * 4, 12);
        c[k].extent = 80 * 4;
    }
    k++;
    /* resized: 2 shorts at byte 6 of a 16-byte element with lb 4 */
    {
        int bl = 2;
        MPI_Aint d = 6;
        MPI_Datatype ty = MPI_SHORT, s;
        c[k] = (struct tcase){.name = "resized", .basic = MPI_SHORT, .basic_size = 2};
        TU_CHECK(MPI_Type_create_struct(1, &bl, &d, &ty, &s));
        TU_CHECK(MPI_Type_create_resized(s, 4, 16, &c[k].type));
        TU_CHECK(MPI_Type_free(&s));
        add(&c[k], 6, 4);
        c[k].extent = 16;
        c[k].lb = 4;
    }
    k++;
    /* resized contiguous at an offset: elements back to back from byte 8 */
    {
        MPI_Datatype s;
        int bl = 4;
        MPI_Aint d = 8;
        MPI_Datatype ty = MPI_INT;
        c[k] = (struct tcase){.name = "dense-at-offset", .basic = MPI_INT, .basic_size = 4};
        TU_CHECK(MPI_Type_create_struct(1, &bl, &d, &ty, &s));
        TU_CHECK(MPI_Type_dup(s, &c[k].type));
        TU_CHECK(MPI_Type_free(&s));
        add(&c[k], 8, 16);
        c[k].extent = 16;
        c[k].lb = 8;
    }
    k++;
    /* vector of 64-double blocks at stride 128 (the bandwidth case) */
    c[k] = (struct tcase){.name = "vector-64", .basic = MPI_DOUBLE, .basic_size = 8};
    TU_CHECK(MPI_Type_vector(4, 64, 128, MPI_DOUBLE, &c[k].type));
    for (int i = 0; i < 4; i++)
        add(&c[k], i * 1024, 512);
    c[k].extent = 3 * 1024 + 512;
    k++;
    /* 200-byte blocks: chunk boundaries of a pipelined or progressive
     * rendezvous fall inside blocks */
    c[k] = (struct tcase){.name = "vector-25", .basic = MPI_DOUBLE, .basic_size = 8};
    TU_CHECK(MPI_Type_vector(3, 25, 40, MPI_DOUBLE, &c[k].type));
    for (int i = 0; i < 3; i++)
        add(&c[k], i * 320, 200);
    c[k].extent = 2 * 320 + 200;
    k++;
    for (int i = 0; i < k; i++) {
        MPI_Aint lb, ext;
        TU_CHECK(MPI_Type_commit(&c[i].type));
        TU_CHECK(MPI_Type_get_extent(c[i].type, &lb, &ext));
        if (lb != c[i].lb || ext != c[i].extent)
            tu_fail("%s: lb %ld extent %ld, expected %ld %ld", c[i].name, (long)lb, (long)ext,
                    (long)c[i].lb, (long)c[i].extent);
        int size;
        TU_CHECK(MPI_Type_size(c[i].type, &size));
        if (size != psize(&c[i]))
            tu_fail("%s: size %d, expected %d", c[i].name, size, psize(&c[i]));
    }
    *n = k;
}

/* Check a typed receive: pieces hold the sender's bytes (sbuf laid out the
 * same way), everything else still holds 0xEE. Buffers r and s start at the
 * lower bound; piece offsets are from the buffer's origin. */
static void check_typed(const struct tcase *c, int count, const unsigned char *r,
                        const unsigned char *s, size_t span, const char *what)
{
    unsigned char *mask = calloc(span, 1);
    for (int e = 0; e < count; e++)
        for (int i = 0; i < c->np; i++)
            memset(mask + (MPI_Aint)e * c->extent + c->p[i].off - c->lb, 1, (size_t)c->p[i].len);
    for (size_t b = 0; b < span; b++) {
        unsigned char want = mask[b] ? s[b] : 0xEE;
        if (r[b] != want)
            tu_fail("%s %s count %d: byte %zu is 0x%02x, expected 0x%02x (%s)", c->name, what,
                    count, b, r[b], want, mask[b] ? "data" : "gap, must be untouched");
    }
    free(mask);
}

/* The packed stream of count elements of s, the straightforward way. */
static void ref_pack(const struct tcase *c, int count, const unsigned char *s, unsigned char *out)
{
    for (int e = 0; e < count; e++)
        for (int i = 0; i < c->np; i++) {
            memcpy(out, s + (MPI_Aint)e * c->extent + c->p[i].off - c->lb, (size_t)c->p[i].len);
            out += c->p[i].len;
        }
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "type_sendrecv");
    tu_arm_alarm(240);
    tu_need_ranks(2);
    int sender, peer = tu_pair(&sender);
    size_t max = 4u << 20;
    const char *env = getenv("TEST_MAX_SIZE");
    if (env && *env)
        max = (size_t)strtoull(env, NULL, 0);
    struct tcase cases[16];
    int ncases;
    make_cases(cases, &ncases);
    static const int counts[] = {1, 2, 7, 64, 1000, 9001, 40000, 200000};
    int tag = 0;
    for (int ci = 0; ci < ncases; ci++) {
        struct tcase *c = &cases[ci];
        int esize = psize(c);
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            int count = counts[k];
            size_t bytes = (size_t)count * (size_t)esize;
            if (bytes > max && k > 0)
                break;
            /* the buffer starts at lb: the element e spans [e*extent, (e+1)*extent) from it */
            size_t span = (size_t)count * (size_t)c->extent;
            unsigned char *sbase = tu_malloc(span), *rbase = tu_malloc(span);
            unsigned char *packed = tu_malloc(bytes), *rpacked = tu_malloc(bytes + 16);
            void *sbuf = sbase - c->lb, *rbuf = rbase - c->lb;
            unsigned seed = (unsigned)(ci * 100 + k);
            tu_fill(sbase, span, seed);
            ref_pack(c, count, sbase, packed);
            int nbasic = (int)(bytes / (size_t)c->basic_size);
            MPI_Status st;
            int got;

            /* typed -> typed */
            tag++;
            if (sender) {
                TU_CHECK(MPI_Send(sbuf, count, c->type, peer, tag, MPI_COMM_WORLD));
            } else {
                memset(rbase, 0xEE, span);
                TU_CHECK(MPI_Recv(rbuf, count, c->type, peer, tag, MPI_COMM_WORLD, &st));
                TU_CHECK(MPI_Get_count(&st, c->type, &got));
                if (got != count)
                    tu_fail("%s: Get_count %d, expected %d", c->name, got, count);
                check_typed(c, count, rbase, sbase, span, "typed->typed");
            }
            /* typed -> contiguous basic elements */
            tag++;
            if (sender) {
                TU_CHECK(MPI_Send(sbuf, count, c->type, peer, tag, MPI_COMM_WORLD));
            } else {
                memset(rpacked, 0xEE, bytes + 16);
                TU_CHECK(MPI_Recv(rpacked, nbasic, c->basic, peer, tag, MPI_COMM_WORLD, &st));
                TU_CHECK(MPI_Get_count(&st, c->basic, &got));
                if (got != nbasic)
                    tu_fail("%s: contiguous Get_count %d, expected %d", c->name, got, nbasic);
                if (memcmp(rpacked, packed, bytes) != 0)
                    tu_fail("%s count %d: typed->contiguous stream differs", c->name, count);
                tu_check_fill(rpacked + bytes, 16, 0xEE, "%s: after the stream", c->name);
            }
            /* contiguous -> typed */
            tag++;
            if (sender) {
                TU_CHECK(MPI_Send(packed, nbasic, c->basic, peer, tag, MPI_COMM_WORLD));
            } else {
                memset(rbase, 0xEE, span);
                TU_CHECK(MPI_Recv(rbuf, count, c->type, peer, tag, MPI_COMM_WORLD, &st));
                check_typed(c, count, rbase, sbase, span, "contiguous->typed");
            }
            /* Irecv first, type freed while the receive is pending */
            tag++;
            if (sender) {
                tu_token_recv(peer, tag);
                TU_CHECK(MPI_Send(sbuf, count, c->type, peer, tag, MPI_COMM_WORLD));
            } else {
                MPI_Datatype dup;
                MPI_Request rq;
                TU_CHECK(MPI_Type_dup(c->type, &dup));
                TU_CHECK(MPI_Type_commit(&dup));
                memset(rbase, 0xEE, span);
                TU_CHECK(MPI_Irecv(rbuf, count, dup, peer, tag, MPI_COMM_WORLD, &rq));
                TU_CHECK(MPI_Type_free(&dup));
                tu_token_send(peer, tag);
                TU_CHECK(MPI_Wait(&rq, &st));
                check_typed(c, count, rbase, sbase, span, "Irecv of a freed type");
            }
            /* Isend of a type freed before the send completes (a pipelined
             * rendezvous packs fragments after the Isend returned) */
            tag++;
            if (sender) {
                MPI_Datatype dup;
                MPI_Request rq;
                TU_CHECK(MPI_Type_dup(c->type, &dup));
                TU_CHECK(MPI_Type_commit(&dup));
                TU_CHECK(MPI_Isend(sbuf, count, dup, peer, tag, MPI_COMM_WORLD, &rq));
                TU_CHECK(MPI_Type_free(&dup));
                TU_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            } else {
                memset(rbase, 0xEE, span);
                TU_CHECK(MPI_Recv(rbuf, count, c->type, peer, tag, MPI_COMM_WORLD, &st));
                check_typed(c, count, rbase, sbase, span, "Isend of a freed type");
            }
            free(sbase), free(rbase), free(packed), free(rpacked);
        }
    }
    for (int i = 0; i < ncases; i++)
        TU_CHECK(MPI_Type_free(&cases[i].type));
    tu_finish();
    return 0;
}
