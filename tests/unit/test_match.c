/* Matching queues: MPI's matching rules on posted and unexpected queues. */
#include <check.h>
#include <stdlib.h>

#include "p2p/match.h"
#include "p2p/request.h"

static struct faro_request reqs[8];

static struct faro_request *recv_req(int i, int src, int tag)
{
    reqs[i].rank = src;
    reqs[i].tag = tag;
    return &reqs[i];
}

static struct faro_unexp *unexp(int src, int tag)
{
    struct faro_unexp *u = calloc(1, sizeof *u);
    u->h.m.src = src;
    u->h.m.tag = tag;
    return u;
}

START_TEST(posted_in_order_with_wildcards)
{
    struct faro_mq *q = faro_mq_get(3);
    ck_assert_ptr_nonnull(q);
    faro_mq_post(q, recv_req(0, 1, 5));
    faro_mq_post(q, recv_req(1, MPI_ANY_SOURCE, 5));
    faro_mq_post(q, recv_req(2, 2, MPI_ANY_TAG));
    /* a message from 2 tag 5 matches the earliest posted that accepts it */
    ck_assert_ptr_eq(faro_mq_take_posted(q, 2, 5), &reqs[1]);
    ck_assert_ptr_eq(faro_mq_take_posted(q, 2, 5), &reqs[2]);
    ck_assert_ptr_null(faro_mq_take_posted(q, 2, 5));
    ck_assert_ptr_eq(faro_mq_take_posted(q, 1, 5), &reqs[0]);
    ck_assert_ptr_null(q->posted);
    ck_assert_ptr_null(q->posted_tail);
}
END_TEST

START_TEST(any_tag_skips_internal_negative_tags)
{
    struct faro_mq *q = faro_mq_get(4);
    faro_mq_post(q, recv_req(0, MPI_ANY_SOURCE, MPI_ANY_TAG));
    ck_assert_ptr_null(faro_mq_take_posted(q, 0, -7));
    ck_assert_ptr_eq(faro_mq_take_posted(q, 0, 0), &reqs[0]);
}
END_TEST

START_TEST(unexpected_arrival_order)
{
    struct faro_mq *q = faro_mq_get(5);
    struct faro_unexp *a = unexp(1, 7), *b = unexp(2, 7), *c = unexp(1, 8);
    faro_mq_add_unexp(q, a);
    faro_mq_add_unexp(q, b);
    faro_mq_add_unexp(q, c);
    ck_assert_ptr_eq(faro_mq_find_unexp(q, MPI_ANY_SOURCE, 7, 0), a); /* peek */
    ck_assert_ptr_eq(faro_mq_find_unexp(q, 1, MPI_ANY_TAG, 1), a);
    ck_assert_ptr_eq(faro_mq_find_unexp(q, 1, MPI_ANY_TAG, 1), c);
    ck_assert_ptr_null(faro_mq_find_unexp(q, 1, MPI_ANY_TAG, 1));
    ck_assert_ptr_eq(q->unexp_tail, b);
    ck_assert_ptr_eq(faro_mq_find_unexp(q, MPI_ANY_SOURCE, MPI_ANY_TAG, 1), b);
    ck_assert_ptr_null(q->unexp_tail);
    free(a);
    free(b);
    free(c);
}
END_TEST

START_TEST(unpost_middle_and_tail)
{
    struct faro_mq *q = faro_mq_get(6);
    faro_mq_post(q, recv_req(0, 0, 0));
    faro_mq_post(q, recv_req(1, 0, 1));
    faro_mq_post(q, recv_req(2, 0, 2));
    ck_assert_int_eq(faro_mq_unpost(q, &reqs[1]), 1);
    ck_assert_int_eq(faro_mq_unpost(q, &reqs[1]), 0);
    ck_assert_int_eq(faro_mq_unpost(q, &reqs[2]), 1);
    ck_assert_ptr_eq(q->posted_tail, &reqs[0]);
    faro_mq_post(q, recv_req(3, 0, 3));
    ck_assert_ptr_eq(faro_mq_take_posted(q, 0, 3), &reqs[3]);
}
END_TEST

START_TEST(contexts_are_separate_and_grow)
{
    struct faro_mq *a = faro_mq_get(0), *b = faro_mq_get(1000);
    ck_assert_ptr_ne(a, b);
    ck_assert_ptr_eq(faro_mq_get(1000), b);
    faro_mq_post(a, recv_req(0, 0, 0));
    ck_assert_ptr_null(faro_mq_take_posted(b, 0, 0));
    ck_assert_ptr_eq(faro_mq_take_posted(a, 0, 0), &reqs[0]);
    faro_mq_free_all();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("match");
    TCase *tc = tcase_create("queues");
    tcase_add_test(tc, posted_in_order_with_wildcards);
    tcase_add_test(tc, any_tag_skips_internal_negative_tags);
    tcase_add_test(tc, unexpected_arrival_order);
    tcase_add_test(tc, unpost_middle_and_tail);
    tcase_add_test(tc, contexts_are_separate_and_grow);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
