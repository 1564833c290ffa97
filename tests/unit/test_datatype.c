/* Datatype engine: flattening, merging, bounds, pack/unpack (whole, partial,
 * ranges), envelope/contents, element counts. Runs without MPI_Init: only
 * calls that succeed are made here (error cases are in tests/mpi). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

/* Piece i of t's typemap (the runs written out). */
static struct piece {
    MPI_Aint off;
    size_t len;
} piece(MPI_Datatype t, size_t i)
{
    for (int k = 0; k < t->nrun; k++) {
        if (i < t->run[k].n)
            return (struct piece){t->run[k].off + (MPI_Aint)i * t->run[k].stride, t->run[k].len};
        i -= t->run[k].n;
    }
    ck_abort_msg("piece %zu is past the end", i);
    return (struct piece){0, 0};
}

static void seg_is(MPI_Datatype t, size_t i, MPI_Aint off, size_t len)
{
    ck_assert_uint_lt(i, t->nseg);
    struct piece p = piece(t, i);
    ck_assert_int_eq(p.off, off);
    ck_assert_uint_eq(p.len, len);
}

/* the obvious packer: element by element, piece by piece */
static void ref_pack(const char *buf, size_t count, MPI_Datatype t, char *out)
{
    for (size_t e = 0; e < count; e++)
        for (size_t s = 0; s < t->nseg; s++) {
            struct piece p = piece(t, s);
            memcpy(out, buf + (MPI_Aint)e * t->extent + p.off, p.len);
            out += p.len;
        }
}

START_TEST(vector_is_one_run)
{
    MPI_Datatype v;
    ck_assert_int_eq(MPI_Type_vector(3, 2, 4, MPI_INT, &v), MPI_SUCCESS);
    ck_assert_int_eq(v->nseg, 3);
    seg_is(v, 0, 0, 8);
    seg_is(v, 1, 16, 8);
    seg_is(v, 2, 32, 8);
    ck_assert_int_eq(v->nrun, 1);
    ck_assert_int_eq(v->run[0].stride, 16);
    ck_assert_uint_eq(v->size, 24);
    ck_assert_int_eq(v->lb, 0);
    ck_assert_int_eq(v->extent, 40);
    ck_assert_int_eq(v->true_extent, 40);
    ck_assert_ptr_eq(v->basic, MPI_INT);
    ck_assert_int_eq(v->nbasic, 6);
    ck_assert_int_eq(v->dense, 0);
    ck_assert_int_eq(v->committed, 0);
    ck_assert_int_ne(faro_type_check(v), 0); /* not committed yet */
    ck_assert_int_eq(MPI_Type_commit(&v), MPI_SUCCESS);
    ck_assert_int_eq(faro_type_check(v), 0);
    MPI_Datatype keep = v;
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
    ck_assert_ptr_eq(v, MPI_DATATYPE_NULL);
    ck_assert_int_ne(faro_type_valid(keep), 0); /* a stale handle reads as freed */
}
END_TEST

START_TEST(adjacent_pieces_merge)
{
    MPI_Datatype c, v, idx;
    ck_assert_int_eq(MPI_Type_contiguous(4, MPI_INT, &c), MPI_SUCCESS);
    ck_assert_int_eq(c->nseg, 1);
    ck_assert_int_eq(c->contig, 1);
    ck_assert_int_eq(MPI_Type_vector(5, 2, 2, MPI_DOUBLE, &v), MPI_SUCCESS);
    ck_assert_int_eq(v->nseg, 1);
    seg_is(v, 0, 0, 80);
    ck_assert_int_eq(v->contig, 1);
    int bl[3] = {1, 2, 1}, disp[3] = {0, 1, 5};
    ck_assert_int_eq(MPI_Type_indexed(3, bl, disp, MPI_INT, &idx), MPI_SUCCESS);
    ck_assert_int_eq(idx->nseg, 2);
    seg_is(idx, 0, 0, 12);
    seg_is(idx, 1, 20, 4);
    ck_assert_int_eq(idx->extent, 24);
    MPI_Type_free(&c);
    MPI_Type_free(&v);
    MPI_Type_free(&idx);
}
END_TEST

START_TEST(empty_type)
{
    MPI_Datatype e, v;
    ck_assert_int_eq(MPI_Type_contiguous(0, MPI_INT, &e), MPI_SUCCESS);
    ck_assert_int_eq(e->nseg, 0);
    ck_assert_ptr_nonnull(e->run); /* run[0].off is readable for every dense type */
    ck_assert_int_eq(e->run[0].off, 0);
    ck_assert_int_eq(e->dense, 1);
    ck_assert_uint_eq(e->size, 0);
    ck_assert_int_eq(e->extent, 0);
    ck_assert_int_eq(MPI_Type_vector(3, 1, 2, e, &v), MPI_SUCCESS);
    ck_assert_uint_eq(v->size, 0);
    ck_assert_int_eq(v->nbasic, 0);
    char buf[4] = {1, 2, 3, 4}, out[4] = {0};
    faro_type_pack(buf, 5, v, out);
    faro_type_unpack(out, 0, buf, v);
    ck_assert_int_eq(buf[0], 1);
    MPI_Type_free(&v);
    MPI_Type_free(&e);
    /* count 0 with no arrays at all */
    ck_assert_int_eq(MPI_Type_create_struct(0, NULL, NULL, NULL, &e), MPI_SUCCESS);
    ck_assert_uint_eq(e->size, 0);
    ck_assert_int_eq(MPI_Type_indexed(0, NULL, NULL, MPI_INT, &v), MPI_SUCCESS);
    int ni, na, nt, comb, ints[1];
    MPI_Datatype ty;
    MPI_Type_get_envelope(v, &ni, &na, &nt, &comb);
    ck_assert_int_eq(ni, 1);
    MPI_Type_get_contents(v, 1, 0, 1, ints, NULL, &ty);
    ck_assert_int_eq(ints[0], 0);
    MPI_Type_free(&v);
    MPI_Type_free(&e);
}
END_TEST

START_TEST(struct_bounds_and_padding)
{
    MPI_Datatype s, s2;
    int bl[3] = {1, 1, 1};
    MPI_Aint d[3] = {0, 8, 16};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_CHAR};
    ck_assert_int_eq(MPI_Type_create_struct(3, bl, d, ty, &s), MPI_SUCCESS);
    ck_assert_int_eq(s->nseg, 2); /* the double and the char after it touch */
    seg_is(s, 1, 8, 9);
    ck_assert_uint_eq(s->size, 10);
    ck_assert_int_eq(s->extent, 24); /* 17 padded to the alignment of double */
    ck_assert_int_eq(s->true_extent, 17);
    ck_assert_ptr_null(s->basic);
    ck_assert_int_eq(s->nbasic, 3);
    /* the same type twice: padding is kept, the runs repeat */
    MPI_Aint d2[2] = {0, 24};
    int bl2[2] = {1, 1};
    MPI_Datatype ty2[2] = {s, s};
    ck_assert_int_eq(MPI_Type_create_struct(2, bl2, d2, ty2, &s2), MPI_SUCCESS);
    ck_assert_int_eq(s2->extent, 48);
    ck_assert_int_eq(s2->nseg, 4);
    MPI_Type_free(&s);
    /* s2 still holds s: its contents give an equal type back */
    int ni, na, nt, comb;
    MPI_Type_get_envelope(s2, &ni, &na, &nt, &comb);
    ck_assert_int_eq(comb, MPI_COMBINER_STRUCT);
    ck_assert_int_eq(ni, 3);
    ck_assert_int_eq(na, 2);
    ck_assert_int_eq(nt, 2);
    int ints[3];
    MPI_Aint aints[2];
    MPI_Datatype types[2];
    ck_assert_int_eq(MPI_Type_get_contents(s2, 3, 2, 2, ints, aints, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[0], 2);
    ck_assert_int_eq(aints[1], 24);
    ck_assert_int_eq(types[0]->extent, 24);
    MPI_Type_get_envelope(types[0], &ni, &na, &nt, &comb);
    ck_assert_int_eq(comb, MPI_COMBINER_STRUCT);
    ck_assert_int_eq(nt, 3);
    MPI_Type_free(&types[0]);
    MPI_Type_free(&types[1]);
    MPI_Type_free(&s2);
}
END_TEST

START_TEST(resized_bounds_are_sticky)
{
    MPI_Datatype r, c, dense;
    ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, -4, 12, &r), MPI_SUCCESS);
    ck_assert_int_eq(r->lb, -4);
    ck_assert_int_eq(r->extent, 12);
    ck_assert_int_eq(r->true_lb, 0);
    ck_assert_int_eq(r->true_extent, 4);
    ck_assert_int_eq(MPI_Type_contiguous(3, r, &c), MPI_SUCCESS);
    ck_assert_int_eq(c->lb, -4);
    ck_assert_int_eq(c->extent, 36);
    ck_assert_int_eq(c->nseg, 3);
    seg_is(c, 2, 24, 4);
    ck_assert_int_eq(c->nrun, 1);
    /* data at an offset, elements back to back: dense but not contig */
    int bl = 2;
    MPI_Aint d = 8;
    MPI_Datatype ty = MPI_INT;
    ck_assert_int_eq(MPI_Type_create_struct(1, &bl, &d, &ty, &dense), MPI_SUCCESS);
    ck_assert_int_eq(dense->lb, 8);
    ck_assert_int_eq(dense->extent, 8);
    ck_assert_int_eq(dense->dense, 1);
    ck_assert_int_eq(dense->contig, 0);
    char buf[64], out[64];
    for (int i = 0; i < 64; i++)
        buf[i] = (char)i;
    faro_type_pack(buf, 3, dense, out);
    ck_assert_int_eq(memcmp(out, buf + 8, 24), 0);
    MPI_Type_free(&r);
    MPI_Type_free(&c);
    MPI_Type_free(&dense);
}
END_TEST

START_TEST(subarray_orders)
{
    MPI_Datatype a, f;
    int sizes[2] = {4, 6}, sub[2] = {2, 3}, starts[2] = {1, 2};
    ck_assert_int_eq(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &a),
                     MPI_SUCCESS);
    ck_assert_int_eq(a->nseg, 2);
    seg_is(a, 0, 32, 12);
    seg_is(a, 1, 56, 12);
    ck_assert_int_eq(a->lb, 0);
    ck_assert_int_eq(a->extent, 96);
    ck_assert_int_eq(a->true_lb, 32);
    ck_assert_int_eq(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT,
                                              &f), MPI_SUCCESS);
    ck_assert_int_eq(f->nseg, 3);
    seg_is(f, 0, 36, 8);
    seg_is(f, 1, 52, 8);
    seg_is(f, 2, 68, 8);
    ck_assert_int_eq(f->nrun, 1);
    MPI_Type_free(&a);
    MPI_Type_free(&f);
}
END_TEST

START_TEST(darray_block_and_cyclic)
{
    MPI_Datatype b, c;
    int g = 10, dist = MPI_DISTRIBUTE_BLOCK, darg = MPI_DISTRIBUTE_DFLT_DARG, p = 2;
    ck_assert_int_eq(MPI_Type_create_darray(2, 1, 1, &g, &dist, &darg, &p, MPI_ORDER_C, MPI_INT,
                                            &b), MPI_SUCCESS);
    ck_assert_int_eq(b->nseg, 1);
    seg_is(b, 0, 20, 20);
    ck_assert_int_eq(b->extent, 40);
    dist = MPI_DISTRIBUTE_CYCLIC;
    darg = 2;
    ck_assert_int_eq(MPI_Type_create_darray(2, 1, 1, &g, &dist, &darg, &p, MPI_ORDER_C, MPI_INT,
                                            &c), MPI_SUCCESS);
    /* rank 1 of 2, blocks of 2: indices 2,3 6,7 */
    ck_assert_int_eq(c->nseg, 2);
    seg_is(c, 0, 8, 8);
    seg_is(c, 1, 24, 8);
    MPI_Type_free(&b);
    MPI_Type_free(&c);
}
END_TEST

/* Random indexed-of-struct types: the engine against the obvious packer, for
 * whole counts, partial unpacks, and arbitrary ranges. */
START_TEST(pack_matches_reference)
{
    srand(12345);
    for (int iter = 0; iter < 200; iter++) {
        int nb = 1 + rand() % 6;
        int bl[8];
        MPI_Aint disp[8];
        MPI_Datatype ty[8], st, t;
        MPI_Aint at = 0;
        for (int i = 0; i < nb; i++) {
            static MPI_Datatype pool[4];
            pool[0] = MPI_CHAR, pool[1] = MPI_INT, pool[2] = MPI_DOUBLE, pool[3] = MPI_SHORT;
            ty[i] = pool[rand() % 4];
            bl[i] = rand() % 4;
            at += rand() % 3 * 8;
            disp[i] = at;
            at += bl[i] * ty[i]->extent;
        }
        ck_assert_int_eq(MPI_Type_create_struct(nb, bl, disp, ty, &st), MPI_SUCCESS);
        switch (iter % 3) {
        case 0: MPI_Type_vector(3, 2, 3, st, &t); break;
        case 1: { int b2[2] = {2, 1}, d2[2] = {3, 0}; MPI_Type_indexed(2, b2, d2, st, &t); break; }
        default: MPI_Type_contiguous(2, st, &t); break;
        }
        MPI_Type_commit(&t);
        size_t count = 1 + (size_t)(rand() % 5);
        size_t span = (size_t)(t->true_lb + t->true_extent) + count * (size_t)t->extent + 64;
        char *buf = malloc(span), *a = malloc(count * t->size + 1), *b = malloc(count * t->size + 1);
        char *back = malloc(span), *ref = malloc(span);
        for (size_t i = 0; i < span; i++)
            buf[i] = (char)(rand() & 0xff);
        ref_pack(buf, count, t, a);
        faro_type_pack(buf, count, t, b);
        ck_assert_int_eq(memcmp(a, b, count * t->size), 0);
        /* ranges stitched together give the same stream */
        size_t total = count * t->size, pos = 0;
        memset(b, 0, total + 1);
        while (pos < total) {
            size_t n = 1 + (size_t)rand() % (total - pos);
            faro_type_pack_range(buf, t, pos, n, b + pos);
            pos += n;
        }
        ck_assert_int_eq(memcmp(a, b, total), 0);
        /* partial unpack touches exactly the first k bytes' places */
        size_t k = total ? (size_t)rand() % (total + 1) : 0;
        memset(back, 0x5a, span);
        memset(ref, 0x5a, span);
        faro_type_unpack(a, k, back, t);
        for (size_t e = 0, left = k; left > 0; e++)
            for (size_t s = 0; s < t->nseg && left > 0; s++) {
                struct piece p = piece(t, s);
                size_t m = p.len < left ? p.len : left;
                memcpy(ref + (MPI_Aint)e * t->extent + p.off, buf + (MPI_Aint)e * t->extent + p.off,
                       m);
                left -= m;
            }
        ck_assert_int_eq(memcmp(back, ref, span), 0);
        free(buf), free(a), free(b), free(back), free(ref);
        MPI_Type_free(&t);
        MPI_Type_free(&st);
    }
}
END_TEST

/* Long runs of mid-sized pieces (the prefetching loop), whole and partial. */
START_TEST(long_runs)
{
    static const int blocks[] = {32, 64, 100, 1024, 4096};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        MPI_Datatype v;
        MPI_Type_vector(37, blocks[k], 2 * blocks[k] + 1, MPI_CHAR, &v);
        size_t span = (size_t)v->extent * 3, total = v->size * 3;
        char *buf = malloc(span), *a = malloc(total), *b = malloc(total), *back = calloc(1, span);
        for (size_t i = 0; i < span; i++)
            buf[i] = (char)(i * 7 + k);
        ref_pack(buf, 3, v, a);
        faro_type_pack(buf, 3, v, b);
        ck_assert_int_eq(memcmp(a, b, total), 0);
        faro_type_unpack(a, total - 5, back, v);
        memset(b, 0, total);
        faro_type_pack(back, 3, v, b);
        ck_assert_int_eq(memcmp(a, b, total - 5), 0);
        ck_assert_int_eq(b[total - 1], 0);
        free(buf), free(a), free(b), free(back);
        MPI_Type_free(&v);
    }
}
END_TEST

START_TEST(envelope_and_contents)
{
    MPI_Datatype t, d;
    int bl[2] = {2, 3}, disp[2] = {5, 0};
    MPI_Type_indexed(2, bl, disp, MPI_FLOAT, &t);
    int ni, na, nt, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    ck_assert_int_eq(comb, MPI_COMBINER_INDEXED);
    ck_assert_int_eq(ni, 5);
    ck_assert_int_eq(na, 0);
    ck_assert_int_eq(nt, 1);
    int ints[5];
    MPI_Datatype ty;
    MPI_Type_get_contents(t, 5, 0, 1, ints, NULL, &ty);
    ck_assert_int_eq(ints[0], 2);
    ck_assert_int_eq(ints[1], 2);
    ck_assert_int_eq(ints[2], 3);
    ck_assert_int_eq(ints[3], 5);
    ck_assert_int_eq(ints[4], 0);
    ck_assert_ptr_eq(ty, MPI_FLOAT);
    MPI_Type_get_envelope(MPI_FLOAT, &ni, &na, &nt, &comb);
    ck_assert_int_eq(comb, MPI_COMBINER_NAMED);
    MPI_Type_dup(t, &d);
    MPI_Type_get_envelope(d, &ni, &na, &nt, &comb);
    ck_assert_int_eq(comb, MPI_COMBINER_DUP);
    ck_assert_int_eq(nt, 1);
    ck_assert_int_eq(d->nseg, t->nseg);
    ck_assert_int_eq(d->extent, t->extent);
    MPI_Datatype r;
    MPI_Type_create_resized(d, 4, 100, &r);
    MPI_Aint a[2];
    MPI_Type_get_envelope(r, &ni, &na, &nt, &comb);
    ck_assert_int_eq(comb, MPI_COMBINER_RESIZED);
    MPI_Type_get_contents(r, 0, 2, 1, NULL, a, &ty);
    ck_assert_int_eq(a[0], 4);
    ck_assert_int_eq(a[1], 100);
    MPI_Type_get_envelope(ty, &ni, &na, &nt, &comb);
    ck_assert_int_eq(comb, MPI_COMBINER_DUP);
    MPI_Type_free(&ty);
    MPI_Type_free(&r);
    MPI_Type_free(&d);
    MPI_Type_free(&t);
}
END_TEST

START_TEST(elements_of_partial_messages)
{
    MPI_Datatype s, c;
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, d, ty, &s);
    MPI_Type_contiguous(2, s, &c);
    MPI_Status st;
    memset(&st, 0, sizeof st);
    int n;
    st.faro_count = 20 + 4 + 8; /* one struct, then int and a double */
    MPI_Get_elements(&st, s, &n);
    ck_assert_int_eq(n, 5);
    MPI_Get_count(&st, s, &n);
    ck_assert_int_eq(n, MPI_UNDEFINED);
    MPI_Get_elements(&st, c, &n);
    ck_assert_int_eq(n, 5);
    st.faro_count = 20 + 6; /* ends inside a double */
    MPI_Get_elements(&st, s, &n);
    ck_assert_int_eq(n, MPI_UNDEFINED);
    st.faro_count = 40;
    MPI_Get_count(&st, s, &n);
    ck_assert_int_eq(n, 2);
    MPI_Get_count(&st, c, &n);
    ck_assert_int_eq(n, 1);
    /* set then get */
    for (int k = 0; k <= 9; k++) {
        MPI_Status_set_elements(&st, c, k);
        MPI_Get_elements(&st, c, &n);
        ck_assert_int_eq(n, k);
    }
    MPI_Status_set_elements(&st, c, 4); /* a struct and an int */
    ck_assert_int_eq(st.faro_count, 20 + 4);
    MPI_Count big;
    MPI_Status_set_elements_x(&st, MPI_2INT, 3);
    MPI_Get_elements_x(&st, MPI_2INT, &big);
    ck_assert_int_eq(big, 3);
    ck_assert_int_eq(st.faro_count, 12);
    MPI_Type_free(&s);
    MPI_Type_free(&c);
}
END_TEST

START_TEST(names)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    ck_assert_str_eq(name, "MPI_DOUBLE");
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_DOUBLE, &t);
    MPI_Type_get_name(t, name, &len);
    ck_assert_int_eq(len, 0);
    MPI_Type_set_name(t, "pair of doubles");
    MPI_Type_get_name(t, name, &len);
    ck_assert_str_eq(name, "pair of doubles");
    MPI_Type_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("datatype");
    TCase *tc = tcase_create("engine");
    tcase_add_test(tc, vector_is_one_run);
    tcase_add_test(tc, adjacent_pieces_merge);
    tcase_add_test(tc, empty_type);
    tcase_add_test(tc, struct_bounds_and_padding);
    tcase_add_test(tc, resized_bounds_are_sticky);
    tcase_add_test(tc, subarray_orders);
    tcase_add_test(tc, darray_block_and_cyclic);
    tcase_add_test(tc, pack_matches_reference);
    tcase_add_test(tc, long_runs);
    tcase_add_test(tc, envelope_and_contents);
    tcase_add_test(tc, elements_of_partial_messages);
    tcase_add_test(tc, names);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
