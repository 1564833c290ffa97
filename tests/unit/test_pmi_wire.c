/* Unit tests for the PMI-1 wire codec (src/runtime/pmi_wire.c). */
#include "config.h"

#include "base/pmi_wire.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct faro_pmi_msg msg;
static char err[256];

static int parse(const char *line)
{
    err[0] = 0;
    return faro_pmi_parse(line, strlen(line), &msg, err, sizeof err);
}

START_TEST(test_parse_good)
{
    ck_assert_int_eq(parse("cmd=put kvsname=k1 key=a value=b=c\n"), 0);
    ck_assert_int_eq(msg.npairs, 4);
    ck_assert_str_eq(faro_pmi_msg_cmd(&msg), "put");
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "kvsname"), "k1");
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "value"), "b=c"); /* '=' inside a value */
    ck_assert_ptr_null(faro_pmi_msg_get(&msg, "missing"));

    /* Extra blanks, CRLF, empty values, extra keys as Hydra sends them. */
    ck_assert_int_eq(parse("  cmd=get_result   rc=0 msg=success value=\r\n"), 0);
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "value"), "");
    int rc = 5;
    ck_assert_int_eq(faro_pmi_msg_int(&msg, "rc", &rc), 0);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(faro_pmi_msg_int(&msg, "msg", &rc), -1);
    ck_assert_int_eq(parse("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024"), 0);
    ck_assert_int_eq(faro_pmi_msg_int(&msg, "keylen_max", &rc), 0);
    ck_assert_int_eq(rc, 64);
}
END_TEST

START_TEST(test_parse_malformed)
{
    ck_assert_int_eq(parse(""), -1);
    ck_assert_ptr_nonnull(strstr(err, "empty"));
    ck_assert_int_eq(parse("   \n"), -1);
    ck_assert_int_eq(parse("cmd=put keyonly"), -1);
    ck_assert_ptr_nonnull(strstr(err, "keyonly"));
    ck_assert_int_eq(parse("cmd=put =value"), -1);
    ck_assert_ptr_nonnull(strstr(err, "empty key"));
    ck_assert_int_eq(parse("key=a cmd=put"), -1);
    ck_assert_ptr_nonnull(strstr(err, "cmd=NAME"));
    ck_assert_int_eq(parse("cmd= key=a"), -1);
    ck_assert_int_eq(faro_pmi_parse("cmd=a\0b", 7, &msg, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "NUL"));

    char line[200] = "cmd=x";
    for (int i = 0; i < FARO_PMI_PAIRS_MAX; i++)
        strcat(line, " k=v");
    ck_assert_int_eq(parse(line), -1);
    ck_assert_ptr_nonnull(strstr(err, "more than"));
}
END_TEST

START_TEST(test_parse_limits)
{
    static char line[FARO_PMI_LINE_MAX * 2];
    /* A key at the limit passes, one byte more fails. */
    strcpy(line, "cmd=put ");
    memset(line + 8, 'k', FARO_PMI_KEY_MAX);
    strcpy(line + 8 + FARO_PMI_KEY_MAX, "=v");
    ck_assert_int_eq(parse(line), 0);
    memset(line + 8, 'k', FARO_PMI_KEY_MAX + 1);
    strcpy(line + 8 + FARO_PMI_KEY_MAX + 1, "=v");
    ck_assert_int_eq(parse(line), -1);
    ck_assert_ptr_nonnull(strstr(err, "limit"));

    strcpy(line, "cmd=put value=");
    memset(line + 14, 'v', FARO_PMI_VAL_MAX);
    line[14 + FARO_PMI_VAL_MAX] = 0;
    ck_assert_int_eq(parse(line), 0);
    strcat(line, "v");
    ck_assert_int_eq(parse(line), -1);
    ck_assert_ptr_nonnull(strstr(err, "value"));

    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = 0;
    memcpy(line, "cmd=x y=", 8);
    ck_assert_int_eq(parse(line), -1);
    ck_assert_ptr_nonnull(strstr(err, "longer than"));
}
END_TEST

START_TEST(test_format_roundtrip)
{
    char buf[FARO_PMI_LINE_MAX];
    int n = faro_pmi_format(buf, sizeof buf, "abort", "exitcode", "3", "message",
                            "bad thing: 100% sure\nreally", NULL);
    ck_assert_int_gt(n, 0);
    ck_assert_int_eq((int)strlen(buf), n);
    ck_assert_str_eq(buf, "cmd=abort exitcode=3 message=bad%20thing:%20100%25%20sure%0Areally\n");
    ck_assert_int_eq(parse(buf), 0);
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "message"), "bad thing: 100% sure\nreally");

    /* A '%' not followed by two hex digits is kept as it is. */
    ck_assert_int_eq(parse("cmd=x v=50%off%2"), 0);
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "v"), "50%off%2");

    ck_assert_int_eq(faro_pmi_format(buf, sizeof buf, "barrier_in", NULL), 15);
    ck_assert_str_eq(buf, "cmd=barrier_in\n");
}
END_TEST

START_TEST(test_format_rejects)
{
    char buf[64];
    ck_assert_int_eq(faro_pmi_format(buf, sizeof buf, "put", "bad key", "v", NULL), -1);
    ck_assert_int_eq(faro_pmi_format(buf, sizeof buf, "put", "k=", "v", NULL), -1);
    ck_assert_int_eq(faro_pmi_format(buf, sizeof buf, "put", "", "v", NULL), -1);
    ck_assert_int_eq(faro_pmi_format(buf, sizeof buf, "", NULL), -1);
    char big[100];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ck_assert_int_eq(faro_pmi_format(buf, sizeof buf, "put", "value", big, NULL), -1);
    static char huge[FARO_PMI_VAL_MAX + 2];
    memset(huge, 'v', sizeof huge - 1);
    static char line[FARO_PMI_LINE_MAX];
    ck_assert_int_eq(faro_pmi_format(line, sizeof line, "put", "value", huge, NULL), -1);
}
END_TEST

START_TEST(test_reader_partial)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    struct faro_pmi_reader r;
    faro_pmi_reader_init(&r, p[0]);
    char *line;
    size_t len;

    ck_assert_int_eq(faro_pmi_reader_next(&r, &line, &len, err, sizeof err), FARO_PMI_READ_AGAIN);
    ck_assert_int_eq(write(p[1], "cmd=get key", 11), 11);
    ck_assert_int_eq(faro_pmi_reader_next(&r, &line, &len, err, sizeof err), FARO_PMI_READ_AGAIN);
    ck_assert_int_eq(write(p[1], "=a\ncmd=barrier_in\ncmd=fin", 25), 25);
    ck_assert_int_eq(faro_pmi_reader_next(&r, &line, &len, err, sizeof err), FARO_PMI_READ_LINE);
    ck_assert_str_eq(line, "cmd=get key=a");
    ck_assert_int_eq((int)len, 13);
    ck_assert_int_eq(faro_pmi_reader_next(&r, &line, &len, err, sizeof err), FARO_PMI_READ_LINE);
    ck_assert_str_eq(line, "cmd=barrier_in");
    ck_assert_int_eq(faro_pmi_reader_next(&r, &line, &len, err, sizeof err), FARO_PMI_READ_AGAIN);
    ck_assert_int_eq(write(p[1], "alize\n", 6), 6);
    ck_assert_int_eq(faro_pmi_reader_next(&r, &line, &len, err, sizeof err), FARO_PMI_READ_LINE);
    ck_assert_str_eq(line, "cmd=finalize");
    close(p[1]);
    ck_assert_int_eq(faro_pmi_reader_next(&r, &line, &len, err, sizeof err), FARO_PMI_READ_EOF);
    close(p[0]);
}
END_TEST

START_TEST(test_reader_errors)
{
    int p[2];
    char *line;
    size_t len;
    struct faro_pmi_reader r;

    /* EOF in the middle of a line. */
    ck_assert_int_eq(pipe(p), 0);
    faro_pmi_reader_init(&r, p[0]);
    ck_assert_int_eq(write(p[1], "cmd=half", 8), 8);
    close(p[1]);
    ck_assert_int_eq(faro_pmi_reader_next(&r, &line, &len, err, sizeof err), FARO_PMI_READ_ERROR);
    ck_assert_ptr_nonnull(strstr(err, "middle"));
    close(p[0]);

    /* A line that never ends. */
    ck_assert_int_eq(pipe(p), 0);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    faro_pmi_reader_init(&r, p[0]);
    static char junk[FARO_PMI_LINE_MAX + 10];
    memset(junk, 'x', sizeof junk);
    ck_assert_int_eq(write(p[1], junk, sizeof junk), (ssize_t)sizeof junk);
    ck_assert_int_eq(faro_pmi_reader_next(&r, &line, &len, err, sizeof err), FARO_PMI_READ_ERROR);
    ck_assert_ptr_nonnull(strstr(err, "longer"));
    close(p[0]);
    close(p[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pmi_wire");
    TCase *tc = tcase_create("codec");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_parse_good);
    tcase_add_test(tc, test_parse_malformed);
    tcase_add_test(tc, test_parse_limits);
    tcase_add_test(tc, test_format_roundtrip);
    tcase_add_test(tc, test_format_rejects);
    tcase_add_test(tc, test_reader_partial);
    tcase_add_test(tc, test_reader_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
