/* Unit tests for the PMI wire codecs: PMI-1 (base/pmi_wire.c), PMI-2
 * (base/pmi2_wire.c), and the parser of PMI_process_mapping (base/pmi.c). */
#include "config.h"

#include "base/pmi2_wire.h"
#include "base/pmi_backend.h"
#include "base/pmi_wire.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* ---- PMI-2 (base/pmi2_wire.c) and the PMI_process_mapping parser the PMI-1
 * and PMI-2 backends share (base/pmi.c) ---- */

static int parse2(const char *body)
{
    err[0] = 0;
    return faro_pmi2_parse(body, strlen(body), &msg, err, sizeof err);
}

START_TEST(test2_format)
{
    char buf[FARO_PMI_LINE_MAX];
    int n = faro_pmi2_format(buf, sizeof buf, "kvs-put", "key", "a", "value", "b", NULL);
    ck_assert_int_eq(n, 6 + 26);
    ck_assert_str_eq(buf, "26    cmd=kvs-put;key=a;value=b;");
    n = faro_pmi2_format(buf, sizeof buf, "job-getid", NULL);
    ck_assert_str_eq(buf, "14    cmd=job-getid;");
    ck_assert_int_eq(n, 20);
    /* A ';' in a value travels doubled; '=' and spaces travel as they are. */
    n = faro_pmi2_format(buf, sizeof buf, "kvs-put", "key", "k", "value", "x;y=z w;", NULL);
    ck_assert_str_eq(buf + 6, "cmd=kvs-put;key=k;value=x;;y=z w;;;");
    ck_assert_int_eq(atoi(buf), n - 6);
    ck_assert_int_eq(faro_pmi2_format(buf, sizeof buf, "kvs-put", "", "v", NULL), -1);
    ck_assert_int_gt(faro_pmi2_format(buf, sizeof buf, "kvs-put", "key", "", NULL), 0);
}
END_TEST

START_TEST(test2_format_limits)
{
    char buf[FARO_PMI_LINE_MAX], big[FARO_PMI_VAL_MAX + 2];
    ck_assert_int_eq(faro_pmi2_format(buf, sizeof buf, "", NULL), -1);
    ck_assert_int_eq(faro_pmi2_format(buf, sizeof buf, "a;b", NULL), -1);
    ck_assert_int_eq(faro_pmi2_format(buf, sizeof buf, "x", "k=1", "v", NULL), -1);
    ck_assert_int_eq(faro_pmi2_format(buf, sizeof buf, "x", "k;1", "v", NULL), -1);
    ck_assert_int_eq(faro_pmi2_format(buf, sizeof buf, "x", "k", NULL, NULL), -1);
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ck_assert_int_eq(faro_pmi2_format(buf, sizeof buf, "x", "k", big, NULL), -1);
    big[FARO_PMI_VAL_MAX] = 0;
    ck_assert_int_gt(faro_pmi2_format(buf, sizeof buf, "x", "k", big, NULL), 0);
    /* The buffer is too small: -1, never a cut message. */
    ck_assert_int_eq(faro_pmi2_format(buf, 20, "kvs-put", "key", "a", "value", "b", NULL), -1);
    ck_assert_int_eq(faro_pmi2_format(buf, 6, "x", NULL), -1);
}
END_TEST

/* The spawn command's form: any number of pairs (repeated keys kept in
 * order), past FARO_PMI_LINE_MAX, the same escaping and key rules. */
START_TEST(test2_format_array)
{
    char *out = NULL;
    char *kv[] = {"ncmds", "1", "subcmd", "a;b", "argv0", "x", "argv0", "y", NULL};
    int n = faro_pmi2_format_array(&out, "spawn", kv);
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out + 6, "cmd=spawn;ncmds=1;subcmd=a;;b;argv0=x;argv0=y;");
    ck_assert_int_eq(atoi(out), n - 6);
    ck_assert_int_eq((int)strlen(out), n);
    free(out);
    /* 300 arguments of 100 bytes: far past one line */
    static char *many[2 * 300 + 1], val[101];
    memset(val, 'v', 100);
    for (int i = 0; i < 300; i++) {
        many[2 * i] = "argv";
        many[2 * i + 1] = val;
    }
    n = faro_pmi2_format_array(&out, "spawn", many);
    ck_assert_int_eq(n, 6 + 10 + 300 * 106);
    ck_assert_int_eq(atoi(out), n - 6);
    free(out);
    char *bad_key[] = {"k=1", "v", NULL}, *semi_key[] = {"k;", "v", NULL},
         *empty_key[] = {"", "v", NULL}, *no_val[] = {"k", NULL};
    ck_assert_int_eq(faro_pmi2_format_array(&out, "spawn", bad_key), -1);
    ck_assert_int_eq(faro_pmi2_format_array(&out, "spawn", semi_key), -1);
    ck_assert_int_eq(faro_pmi2_format_array(&out, "spawn", empty_key), -1);
    ck_assert_int_eq(faro_pmi2_format_array(&out, "spawn", no_val), -1);
    ck_assert_int_eq(faro_pmi2_format_array(&out, "a;b", no_val + 1), -1);
    static char big[FARO_PMI_VAL_MAX + 2];
    memset(big, 'b', FARO_PMI_VAL_MAX + 1);
    char *too_long[] = {"k", big, NULL};
    ck_assert_int_eq(faro_pmi2_format_array(&out, "spawn", too_long), -1);
    char *none[] = {NULL};
    ck_assert_int_eq(faro_pmi2_format_array(&out, "job-getid", none), 20);
    ck_assert_str_eq(out, "14    cmd=job-getid;");
    free(out);
}
END_TEST

START_TEST(test2_header)
{
    size_t len = 0;
    ck_assert_int_eq(faro_pmi2_header("25    ", &len, err, sizeof err), 0);
    ck_assert_uint_eq(len, 25);
    ck_assert_int_eq(faro_pmi2_header("    31", &len, err, sizeof err), 0); /* Hydra's %6u */
    ck_assert_uint_eq(len, 31);
    ck_assert_int_eq(faro_pmi2_header("1     ", &len, err, sizeof err), 0);
    ck_assert_uint_eq(len, 1);
    ck_assert_int_eq(faro_pmi2_header("0     ", &len, err, sizeof err), -1);
    ck_assert_int_eq(faro_pmi2_header("      ", &len, err, sizeof err), -1);
    ck_assert_int_eq(faro_pmi2_header("2 5   ", &len, err, sizeof err), -1);
    ck_assert_int_eq(faro_pmi2_header("cmd=in", &len, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cmd=in"));
    ck_assert_int_eq(faro_pmi2_header("999999", &len, err, sizeof err), -1);
}
END_TEST

START_TEST(test2_parse_good)
{
    /* Slurm's answer to fullinit, as its plugin writes it. */
    ck_assert_int_eq(parse2("cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;"
                           "size=4;appnum=-1;debugged=FALSE;pmiverbose=FALSE;"), 0);
    ck_assert_str_eq(faro_pmi_msg_cmd(&msg), "fullinit-response");
    int v = 0;
    ck_assert_int_eq(faro_pmi_msg_int(&msg, "size", &v), 0);
    ck_assert_int_eq(v, 4);
    ck_assert_int_eq(faro_pmi_msg_int(&msg, "appnum", &v), 0);
    ck_assert_int_eq(v, -1);
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "debugged"), "FALSE");
    /* Hydra's get: found, the value with an escaped ';', rc last. */
    ck_assert_int_eq(parse2("cmd=kvs-get-response;found=TRUE;value=x;;y=z;rc=0;"), 0);
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "value"), "x;y=z");
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "rc"), "0");
    /* A value that ends in ';', an empty value, no final ';'. */
    ck_assert_int_eq(parse2("cmd=x;a=b;;;c=;d=e"), 0);
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "a"), "b;");
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "c"), "");
    ck_assert_str_eq(faro_pmi_msg_get(&msg, "d"), "e");
    ck_assert_int_eq(msg.npairs, 4);
}
END_TEST

START_TEST(test2_roundtrip)
{
    static const char *const vals[] = { "", ";", ";;", "a;b;;c;", "spaces and = signs",
                                        "(vector,(0,1,2))" };
    char buf[FARO_PMI_LINE_MAX];
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        int n = faro_pmi2_format(buf, sizeof buf, "kvs-put", "key", "k", "value", vals[i], NULL);
        ck_assert_int_gt(n, 6);
        size_t len;
        ck_assert_int_eq(faro_pmi2_header(buf, &len, err, sizeof err), 0);
        ck_assert_uint_eq(len, (size_t)n - 6);
        ck_assert_int_eq(faro_pmi2_parse(buf + 6, len, &msg, err, sizeof err), 0);
        ck_assert_str_eq(faro_pmi_msg_get(&msg, "value"), vals[i]);
        ck_assert_str_eq(faro_pmi_msg_get(&msg, "key"), "k");
    }
}
END_TEST

START_TEST(test2_parse_malformed)
{
    ck_assert_int_eq(parse2(""), -1);
    ck_assert_ptr_nonnull(strstr(err, "empty"));
    ck_assert_int_eq(parse2("cmd=put;keyonly;"), -1);
    ck_assert_ptr_nonnull(strstr(err, "keyonly"));
    ck_assert_int_eq(parse2("cmd=put;=v;"), -1);
    ck_assert_ptr_nonnull(strstr(err, "empty key"));
    ck_assert_int_eq(parse2("key=a;cmd=put;"), -1);
    ck_assert_ptr_nonnull(strstr(err, "cmd=NAME"));
    ck_assert_int_eq(parse2("cmd=;"), -1);
    ck_assert_int_eq(faro_pmi2_parse("cmd=a;\0b", 8, &msg, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "NUL"));

    char body[FARO_PMI_LINE_MAX] = "cmd=x;";
    for (int i = 0; i < FARO_PMI_PAIRS_MAX; i++)
        strcat(body, "k=v;");
    ck_assert_int_eq(parse2(body), -1);
    ck_assert_ptr_nonnull(strstr(err, "pairs"));

    memset(body, 'v', sizeof body);
    memcpy(body, "cmd=x;k=", 8);
    body[8 + FARO_PMI_VAL_MAX + 1] = ';';
    body[8 + FARO_PMI_VAL_MAX + 2] = 0;
    ck_assert_int_eq(parse2(body), -1);
    ck_assert_ptr_nonnull(strstr(err, "limit"));
}
END_TEST

/* Messages arrive in pieces and back to back over a stream socket. */
START_TEST(test2_read)
{
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    const char *two = "26    cmd=kvs-put-response;rc=0;    28cmd=kvs-fence-response;rc=0;";
    ck_assert_int_eq(write(sv[1], two, 3), 3); /* the length field cut in two */
    ck_assert_int_eq(write(sv[1], two + 3, strlen(two) - 3), (ssize_t)strlen(two) - 3);
    ck_assert_int_eq(faro_pmi2_read(sv[0], &msg, err, sizeof err), 0);
    ck_assert_str_eq(faro_pmi_msg_cmd(&msg), "kvs-put-response");
    ck_assert_int_eq(faro_pmi2_read(sv[0], &msg, err, sizeof err), 0);
    ck_assert_str_eq(faro_pmi_msg_cmd(&msg), "kvs-fence-response");
    /* A PMI-1 line where PMI-2 was expected is named, not misread. */
    const char *v1 = "cmd=response_to_init pmi_version=1\n";
    ck_assert_int_eq(write(sv[1], v1, strlen(v1)), (ssize_t)strlen(v1));
    ck_assert_int_eq(faro_pmi2_read(sv[0], &msg, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "length field"));
    close(sv[0]);
    close(sv[1]);

    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ck_assert_int_eq(write(sv[1], "20    cmd=x;", 12), 12);
    close(sv[1]); /* closed in the middle of a message */
    ck_assert_int_eq(faro_pmi2_read(sv[0], &msg, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "middle"));
    ck_assert_int_eq(faro_pmi2_read(sv[0], &msg, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "closed"));
    close(sv[0]);
}
END_TEST

START_TEST(test_mapping)
{
    int node[8];
    ck_assert_int_eq(faro_pmi_mapping_parse("(vector,(0,2,2))", 4, node), 0);
    ck_assert_int_eq(node[0], 0);
    ck_assert_int_eq(node[1], 0);
    ck_assert_int_eq(node[2], 1);
    ck_assert_int_eq(node[3], 1);
    /* Blocks of different shapes, as Slurm writes an uneven step. */
    ck_assert_int_eq(faro_pmi_mapping_parse("(vector,(0,1,3),(1,1,1))", 4, node), 0);
    ck_assert_int_eq(node[2], 0);
    ck_assert_int_eq(node[3], 1);
    /* Cyclic: the vector repeats until every rank is placed. */
    ck_assert_int_eq(faro_pmi_mapping_parse("(vector,(0,2,1))", 5, node), 0);
    ck_assert_int_eq(node[0], 0);
    ck_assert_int_eq(node[1], 1);
    ck_assert_int_eq(node[2], 0);
    ck_assert_int_eq(node[4], 0);
    ck_assert_int_eq(faro_pmi_mapping_parse("(vector)", 2, node), -1);
    ck_assert_int_eq(faro_pmi_mapping_parse("vector,(0,1,2))", 2, node), -1);
    ck_assert_int_eq(faro_pmi_mapping_parse("(vector,(0,0,2))", 2, node), -1);
    ck_assert_int_eq(faro_pmi_mapping_parse("(vector,(-1,1,2))", 2, node), -1);
    ck_assert_int_eq(faro_pmi_mapping_parse("(vector,(0,1,2)", 2, node), -1);
    ck_assert_int_eq(faro_pmi_mapping_parse("(vector,(0,1,2)),", 2, node), -1);
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
    TCase *tc2 = tcase_create("pmi2");
    tcase_set_timeout(tc2, 10);
    tcase_add_test(tc2, test2_format);
    tcase_add_test(tc2, test2_format_limits);
    tcase_add_test(tc2, test2_format_array);
    tcase_add_test(tc2, test2_header);
    tcase_add_test(tc2, test2_parse_good);
    tcase_add_test(tc2, test2_roundtrip);
    tcase_add_test(tc2, test2_parse_malformed);
    tcase_add_test(tc2, test2_read);
    tcase_add_test(tc2, test_mapping);
    suite_add_tcase(s, tc2);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
