/*
 * Unit tests of the wait-for graph (tools/hangdoc/waitfor.c): report lines
 * in the format the ranks print (faro-debug(7)), the deadlock fixed point,
 * and the summary's words.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hangdoc/waitfor.h"

static struct faro_waitfor *g;
static char *out;

static void setup(void)
{
    g = NULL;
    out = NULL;
}

static void teardown(void)
{
    faro_waitfor_free(g);
    free(out);
}

/* Feed lines (NULL-terminated); every one must be taken. */
static void feed(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (const char *l = first; l; l = va_arg(ap, const char *))
        ck_assert_msg(faro_waitfor_line(g, l) == 1, "line not taken: %s", l);
    va_end(ap);
}

/* The summary as a string; returns the deadlocked ranks. */
static int summary(void)
{
    size_t len;
    free(out);
    FILE *f = open_memstream(&out, &len);
    int n = faro_waitfor_summary(g, f);
    fclose(f);
    return n;
}

#define HAS(s) ck_assert_msg(strstr(out, s), "summary lacks \"%s\":\n%s", s, out)

START_TEST(recv_recv_deadlock)
{
    g = faro_waitfor_new(2);
    feed("faro: rank 1: waiting: MPI_Recv for 2.0 s: receive from rank 0 tag 5 on "
         "MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 1: waiting: end of report (1 blocked call, 1 line)",
         "faro: rank 0: waiting: MPI_Recv for 2.0 s: receive from rank 1 tag 5 on "
         "MPI_COMM_WORLD (0 of 4 bytes)\n",
         "faro: rank 0: waiting: end of report (1 blocked call, 1 line)", NULL);
    ck_assert(faro_waitfor_complete(g));
    ck_assert_int_eq(summary(), 2);
    HAS("hang report: 2 of 2 ranks blocked in MPI");
    HAS("rank 0 waits for rank 1 in MPI_Recv (receive, tag 5 on MPI_COMM_WORLD)");
    HAS("rank 1 waits for rank 0 in MPI_Recv (receive, tag 5 on MPI_COMM_WORLD)");
    HAS("deadlock: rank 0 -> rank 1 -> rank 0");
}
END_TEST

/* A send and the receive it meets are both "waiting" for a moment. */
/* A rank polling in vain (MPI_Test, MPI_Iprobe loops) counts as blocked;
 * one polling and one blocked, too. */
START_TEST(polling_ranks)
{
    g = faro_waitfor_new(3);
    feed("faro: rank 0: waiting: MPI_Test (polling) for 1.0 s: receive from rank 1 tag 6 on "
         "MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 0: waiting: end of report (1 blocked call, 1 line)",
         "faro: rank 1: waiting: MPI_Iprobe (polling) for 1.2 s: probe from rank 2 tag 8 on "
         "MPI_COMM_WORLD",
         "faro: rank 1: waiting: end of report (1 blocked call, 1 line)",
         "faro: rank 2: waiting: MPI_Recv for 3.0 s: receive from rank 0 tag 1 on "
         "MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 2: waiting: end of report (1 blocked call, 1 line)", NULL);
    ck_assert_int_eq(summary(), 3);
    HAS("hang report: 3 of 3 ranks blocked in MPI (2 of them polling in vain)");
    HAS("rank 0 polls for rank 1 in MPI_Test (receive, tag 6 on MPI_COMM_WORLD)");
    HAS("rank 1 polls for rank 2 in MPI_Iprobe (probe, tag 8 on MPI_COMM_WORLD)");
    HAS("rank 2 waits for rank 0 in MPI_Recv");
    HAS("deadlock: rank 0 -> rank 1 -> rank 2 -> rank 0");
    /* the poll ended: rank 1 may yet send */
    feed("faro: rank 1: waiting: resumed: polling after 2.0 s", NULL);
    ck_assert_int_eq(summary(), 0);
}
END_TEST

START_TEST(matched_send_is_not_a_deadlock)
{
    g = faro_waitfor_new(2);
    feed("faro: rank 0: waiting: MPI_Recv for 1.0 s: receive from rank 1 any tag on "
         "MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 1: waiting: MPI_Ssend for 1.0 s: synchronous send to rank 0 tag 5 on "
         "MPI_COMM_WORLD (4 bytes, 0 sent)", NULL);
    ck_assert_int_eq(summary(), 0);
    HAS("no deadlock found");
}
END_TEST

START_TEST(silent_rank_may_still_send)
{
    g = faro_waitfor_new(3);
    feed("faro: rank 0: waiting: MPI_Recv for 9.0 s: receive from rank 2 tag 1 on "
         "MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 0: waiting: end of report (1 blocked call, 1 line)",
         "faro: rank 1: waiting: end of report (0 blocked calls, 0 lines)", NULL);
    ck_assert(!faro_waitfor_complete(g));
    ck_assert_int_eq(summary(), 0);
    HAS("rank 1 is not blocked in MPI");
    HAS("rank 2 did not answer");
    HAS("1 not answering");
}
END_TEST

START_TEST(waiting_for_a_finalized_rank)
{
    g = faro_waitfor_new(2);
    feed("faro: rank 0: waiting: MPI_Recv for 9.0 s: receive from rank 1 tag 1 on "
         "MPI_COMM_WORLD (0 of 4 bytes)", NULL);
    faro_waitfor_state(g, 1, FARO_WF_FINALIZING);
    ck_assert_int_eq(summary(), 1);
    HAS("rank 1 is in MPI_Finalize");
    HAS("deadlock: rank 0 -> rank 1 (in MPI_Finalize)");
    faro_waitfor_state(g, 1, FARO_WF_EXITED);
    ck_assert_int_eq(summary(), 1);
    HAS("deadlock: rank 0 -> rank 1 (exited)");
}
END_TEST

/* MPI_ANY_SOURCE waits for every other rank: stuck only when all are. */
START_TEST(any_source)
{
    g = faro_waitfor_new(3);
    feed("faro: rank 0: waiting: MPI_Recv for 3.0 s: receive from any rank any tag on "
         "MPI_COMM_WORLD (0 of 8 bytes)",
         "faro: rank 1: waiting: MPI_Recv for 3.0 s: receive from rank 2 tag 4 on "
         "MPI_COMM_WORLD (0 of 8 bytes)", NULL);
    ck_assert_int_eq(summary(), 0); /* rank 2 runs: it may send to 0 or 1 */
    feed("faro: rank 2: waiting: MPI_Recv for 3.0 s: receive from rank 0 tag 4 on "
         "MPI_COMM_WORLD (0 of 8 bytes)", NULL);
    ck_assert_int_eq(summary(), 3);
    HAS("rank 0 waits for any rank in MPI_Recv (receive, any tag on MPI_COMM_WORLD)");
}
END_TEST

/* Waitany is an OR over its requests, Waitall an AND. */
START_TEST(waitany_and_waitall)
{
    g = faro_waitfor_new(3);
    feed("faro: rank 0: waiting: MPI_Waitany for 3.0 s: any of request 0 of 2 (2 pending): "
         "receive from rank 1 tag 1 on MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 0: waiting: MPI_Waitany for 3.0 s: any of request 1 of 2 (2 pending): "
         "receive from rank 2 tag 1 on MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 1: waiting: MPI_Recv for 3.0 s: receive from rank 0 tag 9 on "
         "MPI_COMM_WORLD (0 of 4 bytes)", NULL);
    ck_assert_int_eq(summary(), 0); /* rank 2 may send */
    faro_waitfor_state(g, 2, FARO_WF_EXITED);
    ck_assert_int_eq(summary(), 2);

    faro_waitfor_free(g);
    g = faro_waitfor_new(3);
    feed("faro: rank 0: waiting: MPI_Waitall for 3.0 s: request 0 of 2 (2 pending): "
         "receive from rank 1 tag 1 on MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 0: waiting: MPI_Waitall for 3.0 s: request 1 of 2 (2 pending): "
         "receive from rank 2 tag 1 on MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 1: waiting: MPI_Recv for 3.0 s: receive from rank 0 tag 9 on "
         "MPI_COMM_WORLD (0 of 4 bytes)", NULL);
    ck_assert_int_eq(summary(), 2); /* rank 2 cannot help rank 0 with rank 1's message */
    HAS("deadlock: rank 0 -> rank 1 -> rank 0");
}
END_TEST

START_TEST(collective_hint)
{
    g = faro_waitfor_new(2);
    feed("faro: rank 0: waiting: MPI_Barrier for 2.0 s: receive from rank 1 internal tag -2 "
         "(MPI_Barrier) on MPI_COMM_WORLD (0 of 0 bytes)",
         "faro: rank 1: waiting: MPI_Recv for 2.0 s: receive from rank 0 tag 7 on "
         "MPI_COMM_WORLD (0 of 4 bytes)", NULL);
    ck_assert_int_eq(summary(), 2);
    HAS("rank 0 waits for rank 1 in MPI_Barrier (receive, internal tag -2 on MPI_COMM_WORLD)");
    HAS("hint: rank 0 waits in MPI_Barrier on MPI_COMM_WORLD, which rank 1 has not called "
        "(rank 1 is in MPI_Recv)");
}
END_TEST

/* A collective's own wait reports MPI_Wait; the line names the collective. */
START_TEST(nonblocking_collective_and_probe)
{
    g = faro_waitfor_new(2);
    feed("faro: rank 0: waiting: MPI_Wait for 2.0 s: MPI_Ibarrier: receive from rank 1 "
         "internal tag -4096 (a nonblocking collective) on MPI_COMM_WORLD (0 of 0 bytes)",
         "faro: rank 1: waiting: MPI_Probe for 2.0 s: probe from rank 0 tag 1 on "
         "MPI_COMM_WORLD", NULL);
    ck_assert_int_eq(summary(), 2);
    HAS("rank 1 waits for rank 0 in MPI_Probe (probe, tag 1 on MPI_COMM_WORLD)");
}
END_TEST

START_TEST(threads_and_other_waits)
{
    g = faro_waitfor_new(3);
    /* one thread of rank 0 is stuck on rank 1, the other waits on rank 2, who runs */
    feed("faro: rank 0: waiting: thread 11: MPI_Recv for 1.0 s: receive from rank 1 tag 1 on "
         "MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 0: waiting: thread 12: MPI_Recv for 1.0 s: receive from rank 2 tag 1 on "
         "MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 1: waiting: MPI_Recv for 1.0 s: receive from rank 0 tag 3 on "
         "MPI_COMM_WORLD (0 of 4 bytes)", NULL);
    ck_assert_int_eq(summary(), 0);
    /* a generalized request names no peer: never called stuck */
    faro_waitfor_reset(g);
    feed("faro: rank 0: waiting: MPI_Wait for 1.0 s: generalized request (MPI_Grequest_complete "
         "by the program)", NULL);
    ck_assert_int_eq(summary(), 0);
    HAS("rank 0 waits in MPI_Wait (not on a peer)");
}
END_TEST

START_TEST(lines_reports_and_resumes)
{
    g = faro_waitfor_new(2);
    /* prefixes before "faro: rank" are fine; other lines are not taken */
    ck_assert_int_eq(faro_waitfor_line(g, "[1] faro: rank 1: waiting: MPI_Recv for 1.0 s: "
                                          "receive from rank 0 tag 5 on MPI_COMM_WORLD (0 of 4 "
                                          "bytes)"), 1);
    ck_assert_int_eq(faro_waitfor_line(g, "hello from rank 1"), 0);
    ck_assert_int_eq(faro_waitfor_line(g, "faro: rank 1: warning: something"), 0);
    ck_assert_int_eq(faro_waitfor_line(g, "faro: rank 7: waiting: end of report"), -1);
    ck_assert_int_eq(faro_waitfor_line(g, "faro: rank 0: waiting: MPI_Recv garbage"), -1);
    ck_assert_int_eq(faro_waitfor_line(g, "faro: rank 0: waiting: MPI_Recv for 1 s: receive "
                                          "from rank x tag 5 on W (0 of 4 bytes)"), -1);
    feed("faro: rank 1: waiting: end of report (1 blocked call, 1 line)",
         "faro: rank 0: waiting: MPI_Recv for 1.0 s: receive from rank 1 tag 5 on "
         "MPI_COMM_WORLD (0 of 4 bytes)",
         "faro: rank 0: waiting: end of report (1 blocked call, 1 line)", NULL);
    ck_assert_int_eq(summary(), 2);
    /* rank 1 resumed: what it waited for was met */
    feed("faro: rank 1: waiting: resumed: MPI_Recv after 3.0 s", NULL);
    ck_assert_int_eq(summary(), 0);
    /* a new report replaces the old one */
    feed("faro: rank 0: waiting: MPI_Send for 1.0 s: send to rank 1 tag 6 on MPI_COMM_WORLD "
         "(65536 bytes, 0 sent)",
         "faro: rank 0: waiting: end of report (1 blocked call, 1 line)", NULL);
    ck_assert_int_eq(summary(), 0);
    HAS("rank 0 waits for rank 1 in MPI_Send (send, tag 6 on MPI_COMM_WORLD)");
    ck_assert(!strstr(out, "tag 5"));
    faro_waitfor_reset(g);
    ck_assert(!faro_waitfor_complete(g));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("waitfor");
    TCase *tc = tcase_create("graph");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, recv_recv_deadlock);
    tcase_add_test(tc, polling_ranks);
    tcase_add_test(tc, matched_send_is_not_a_deadlock);
    tcase_add_test(tc, silent_rank_may_still_send);
    tcase_add_test(tc, waiting_for_a_finalized_rank);
    tcase_add_test(tc, any_source);
    tcase_add_test(tc, waitany_and_waitall);
    tcase_add_test(tc, collective_hint);
    tcase_add_test(tc, nonblocking_collective_and_probe);
    tcase_add_test(tc, threads_and_other_waits);
    tcase_add_test(tc, lines_reports_and_resumes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
