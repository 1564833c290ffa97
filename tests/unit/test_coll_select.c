/*
 * Unit tests of the collective algorithm selection (coll/select.c): the
 * tunables' choices against algorithms.def, the built-in rules, forcing and
 * its fall-back, the tuning file (precedence, round trip through the
 * listing, rejected lines) and faro-coll(7) naming every algorithm. Check
 * runs each test in its own process, so environment and static state do not
 * leak between tests. Selection runs on a made-up communicator: only its size
 * and rank matter, and FARO_NODE_SIZE gives the node map.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "objects/comm.h"
#include "base/tunables.h"
#include "select.h"

static void init_ok(void)
{
    char err[1024] = "";
    ck_assert_msg(faro_tunables_load(err, sizeof err) == 0, "tunables: %s", err);
    faro_coll_select_reset();
    ck_assert_msg(faro_coll_select_init(err, sizeof err) == 0, "select: %s", err);
}

static struct faro_comm fake_comm(int size)
{
    struct faro_comm c;
    memset(&c, 0, sizeof c);
    c.size = size;
    faro.size = size; /* the fake node map numbers job ranks 0..size-1 */
    return c;
}

static const char *sel(int size, enum faro_coll_kind kind, size_t bytes, int commute, int uniform)
{
    struct faro_comm c = fake_comm(size);
    int a = faro_coll_select(&c, kind, bytes, commute, uniform);
    faro_coll_nodes_free(&c);
    ck_assert_int_eq(faro_coll_algs[a].kind, kind);
    return faro_coll_algs[a].name;
}

/* A file in /tmp with the given text; returns its path (static buffer). */
static const char *write_file(const char *text)
{
    static char path[64];
    strcpy(path, "/tmp/faro-coll-rules-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* The rule lines of the listing (comments dropped). */
static char *rules_text(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *all = open_memstream(&buf, &len);
    faro_coll_print_rules(all);
    fclose(all);
    char *out = calloc(1, len + 1);
    size_t n = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] != '#')
            n += (size_t)sprintf(out + n, "%s\n", line);
    free(buf);
    return out;
}

/* Does a line start with prefix and end with suffix? */
static int has_line(const char *text, const char *prefix, const char *suffix)
{
    size_t pl = strlen(prefix), sl = strlen(suffix);
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (len >= pl + sl && !strncmp(l, prefix, pl) && !strncmp(l + len - sl, suffix, sl))
            return 1;
        l += len + (e != NULL);
    }
    return 0;
}

START_TEST(test_choices_match_table)
{
    for (int k = 0; k < FARO_COLL_NKINDS; k++) {
        char want[1024] = "auto", name[96], upper[64];
        const char *kn = faro_coll_kind_name((enum faro_coll_kind)k);
        for (int a = 0; a < FARO_ALG_COUNT; a++)
            if (faro_coll_algs[a].kind == (enum faro_coll_kind)k)
                strcat(strcat(want, "|"), faro_coll_algs[a].name);
        size_t i;
        for (i = 0; kn[i]; i++)
            upper[i] = (char)(kn[i] >= 'a' && kn[i] <= 'z' ? kn[i] - 32 : kn[i]);
        upper[i] = '\0';
        snprintf(name, sizeof name, "FARO_COLL_%s_ALGORITHM", upper);
        int found = 0;
        for (int t = 0; t < FARO_TUN_COUNT; t++) {
            if (strcmp(faro_tunable_table[t].name, name))
                continue;
            found = 1;
            ck_assert_msg(!strcmp(faro_tunable_table[t].choices, want),
                          "%s choices '%s', algorithms.def gives '%s'", name,
                          faro_tunable_table[t].choices, want);
        }
        ck_assert_msg(found, "no tunable %s", name);
    }
}
END_TEST

START_TEST(test_builtin_defaults)
{
    setenv("FARO_NODE_SIZE", "64", 1); /* one node */
    init_ok();
    ck_assert_str_eq(sel(8, FARO_COLL_BARRIER, 0, 1, 1), "dissemination");
    ck_assert_str_eq(sel(8, FARO_COLL_BCAST, 1024, 1, 1), "binomial");
    ck_assert_str_eq(sel(2, FARO_COLL_BCAST, 1 << 20, 1, 1), "binomial");
    ck_assert_str_eq(sel(4, FARO_COLL_BCAST, 1 << 20, 1, 1), "scatter_allgather");
    ck_assert_str_eq(sel(8, FARO_COLL_ALLREDUCE, 8, 1, 1), "recursive_doubling");
    ck_assert_str_eq(sel(4, FARO_COLL_ALLREDUCE, 1 << 20, 1, 1), "rabenseifner");
    ck_assert_str_eq(sel(4, FARO_COLL_ALLREDUCE, 1 << 20, 0, 1), "recursive_doubling");
    ck_assert_str_eq(sel(16, FARO_COLL_ALLREDUCE, 4 << 20, 1, 1), "ring");
    ck_assert_str_eq(sel(8, FARO_COLL_ALLREDUCE, 4 << 20, 1, 1), "rabenseifner");
    ck_assert_str_eq(sel(4, FARO_COLL_ALLGATHER, 4096, 1, 1), "recursive_doubling");
    ck_assert_str_eq(sel(6, FARO_COLL_ALLGATHER, 4096, 1, 1), "bruck");
    ck_assert_str_eq(sel(6, FARO_COLL_ALLGATHER, 0, 1, 0), "ring");
    ck_assert_str_eq(sel(4, FARO_COLL_GATHER, 64, 1, 1), "linear");
    ck_assert_str_eq(sel(16, FARO_COLL_ALLTOALL, 16 * 8, 1, 1), "bruck");
    ck_assert_str_eq(sel(16, FARO_COLL_ALLTOALL, 0, 1, 0), "scattered");
    ck_assert_str_eq(sel(16, FARO_COLL_ALLTOALL, 16 * 65536, 1, 1), "pairwise");
    ck_assert_str_eq(sel(4, FARO_COLL_REDUCE_SCATTER, 1024, 0, 1), "reduce_scatterv");
    ck_assert_str_eq(sel(4, FARO_COLL_SCAN, 1024, 1, 1), "recursive_doubling");
}
END_TEST

START_TEST(test_node_aware_needs_nodes)
{
    setenv("FARO_NODE_SIZE", "2", 1); /* 8 ranks: 4 nodes of 2 */
    init_ok();
    ck_assert_str_eq(sel(8, FARO_COLL_BARRIER, 0, 1, 1), "node_aware");
    ck_assert_str_eq(sel(8, FARO_COLL_ALLREDUCE, 64, 1, 1), "node_aware");
    ck_assert_str_eq(sel(8, FARO_COLL_ALLREDUCE, 64, 0, 1), "recursive_doubling");
    setenv("FARO_NODE_SIZE", "1", 1); /* one rank per node: nothing to gain */
    init_ok();
    ck_assert_str_eq(sel(8, FARO_COLL_BARRIER, 0, 1, 1), "dissemination");
}
END_TEST

START_TEST(test_forced_and_fallback)
{
    setenv("FARO_NODE_SIZE", "2", 1);
    setenv("FARO_COLL_ALLREDUCE_ALGORITHM", "ring", 1);
    setenv("FARO_COLL_ALLGATHER_ALGORITHM", "bruck", 1);
    setenv("FARO_COLL_BARRIER_ALGORITHM", "node_aware", 1);
    init_ok();
    ck_assert_str_eq(sel(3, FARO_COLL_ALLREDUCE, 8, 1, 1), "ring");
    /* non-commutative: the table's choice */
    ck_assert_str_eq(sel(3, FARO_COLL_ALLREDUCE, 8, 0, 1), "recursive_doubling");
    ck_assert_str_eq(sel(4, FARO_COLL_ALLGATHER, 1 << 30, 1, 1), "bruck");
    /* a v variant: the table's choice */
    ck_assert_str_eq(sel(4, FARO_COLL_ALLGATHER, 0, 1, 0), "ring");
    /* forcing ignores the rules-only conditions (one node here) */
    setenv("FARO_NODE_SIZE", "64", 1);
    init_ok();
    ck_assert_str_eq(sel(5, FARO_COLL_BARRIER, 0, 1, 1), "node_aware");
}
END_TEST

START_TEST(test_file_rules_first)
{
    setenv("FARO_COLL_TUNING_FILE",
           write_file("# comment\n\n"
                      "allreduce 2-4 0-1k reduce_bcast   # trailing comment\n"
                      "allreduce 5-* 0-* noncommutative reduce_bcast\n"
                      "bcast 3 1K-2M binomial\n"),
           1);
    setenv("FARO_NODE_SIZE", "64", 1);
    init_ok();
    ck_assert_str_eq(sel(3, FARO_COLL_ALLREDUCE, 1024, 1, 1), "reduce_bcast");
    ck_assert_str_eq(sel(3, FARO_COLL_ALLREDUCE, 1025, 1, 1), "recursive_doubling");
    ck_assert_str_eq(sel(6, FARO_COLL_ALLREDUCE, 1 << 20, 0, 1), "reduce_bcast");
    ck_assert_str_eq(sel(6, FARO_COLL_ALLREDUCE, 1 << 20, 1, 1), "rabenseifner");
    ck_assert_str_eq(sel(3, FARO_COLL_BCAST, 1 << 20, 1, 1), "binomial");
    ck_assert_str_eq(sel(4, FARO_COLL_BCAST, 1 << 20, 1, 1), "scatter_allgather");
    unlink(faro_tun_str(FARO_TUN_COLL_TUNING_FILE));
}
END_TEST

START_TEST(test_round_trip)
{
    /* built-in table, then a file with a catch-all that hides the rest */
    setenv("FARO_NODE_SIZE", "64", 1);
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            setenv("FARO_COLL_TUNING_FILE",
                   write_file("scan 1-* 0-* linear\nalltoall 4-9 1k-64m any pairwise\n"), 1);
        init_ok();
        char *first = rules_text();
        const char *copy = write_file(first);
        setenv("FARO_COLL_TUNING_FILE", copy, 1);
        init_ok();
        char *second = rules_text();
        ck_assert_str_eq(first, second);
        /* the file's scan catch-all hides the built-in scan rules */
        ck_assert_int_eq(has_line(first, "scan ", " linear"), pass);
        ck_assert_int_eq(has_line(first, "scan ", " recursive_doubling"), !pass);
        ck_assert_int_eq(has_line(first, "alltoall        4-9      1k-64m ", " pairwise"), pass);
        unlink(copy);
        free(first);
        free(second);
    }
}
END_TEST

static void expect_bad(const char *text, const char *what)
{
    char err[1024] = "";
    const char *path = write_file(text);
    setenv("FARO_COLL_TUNING_FILE", path, 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    faro_coll_select_reset();
    ck_assert_int_eq(faro_coll_select_init(err, sizeof err), -1);
    ck_assert_msg(strstr(err, path) && strstr(err, what), "for '%s': got '%s', expected '%s'",
                  text, err, what);
    unlink(path);
}

START_TEST(test_bad_files)
{
    expect_bad("allreduce 1-* 0-* ring\nallreduc 1-* 0-* ring\n",
               "line 2: unknown collective 'allreduc' (allowed: barrier, bcast,");
    expect_bad("# x\nallreduce 1-* 0-* rings\n",
               "line 2: unknown algorithm 'rings' for allreduce (allowed: recursive_doubling, "
               "reduce_bcast, rabenseifner, ring, node_aware)");
    expect_bad("bcast 4-2 0-* binomial\n", "line 1: bad ranks range '4-2'");
    expect_bad("bcast 0-2 0-* binomial\n", "line 1: bad ranks range '0-2'");
    expect_bad("bcast 1-* 10-5 binomial\n", "line 1: bad bytes range '10-5'");
    expect_bad("bcast 1-* 1x-5 binomial\n", "line 1: bad bytes range '1x-5'");
    expect_bad("bcast 1-* 0-* binomial extra\n", "line 1: unknown op class 'binomial'");
    expect_bad("bcast 1-* 0-*\n", "line 1: 3 fields");
    expect_bad("bcast 1-* 0-* commutative binomial\n", "line 1: 'commutative' given for bcast");
    expect_bad("allreduce 1-* 0-* noncommutative ring\n", "line 1: allreduce ring needs a commutative op");
    char err[512];
    setenv("FARO_COLL_TUNING_FILE", "/nonexistent/rules", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_int_eq(faro_coll_select_init(err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/rules: cannot open it"));
}
END_TEST

START_TEST(test_man_page_names_all)
{
    FILE *f = fopen(TOP_SRCDIR "/man/man7/faro-coll.7", "r");
    ck_assert_ptr_nonnull(f);
    static char page[1 << 16];
    size_t n = fread(page, 1, sizeof page - 1, f);
    page[n] = '\0';
    fclose(f);
    for (int a = 0; a < FARO_ALG_COUNT; a++) {
        /* each algorithm as a tagged paragraph (.B name) in its collective's
         * subsection (.SS collective), which ends at the next .SS or .SH */
        char section[64], entry[128];
        const char *kind = faro_coll_kind_name(faro_coll_algs[a].kind);
        snprintf(section, sizeof section, "\n.SS %s\n", kind);
        snprintf(entry, sizeof entry, "\n.B %s\n", faro_coll_algs[a].name);
        char *start = strstr(page, section);
        ck_assert_msg(start, "faro-coll(7) has no subsection %s", kind);
        start += strlen(section);
        char *end = strstr(start, "\n.S");
        char *at = strstr(start, entry);
        ck_assert_msg(at && (!end || at < end), "faro-coll(7) does not list %s under %s",
                      faro_coll_algs[a].name, kind);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll_select");
    TCase *tc = tcase_create("select");
    tcase_add_test(tc, test_choices_match_table);
    tcase_add_test(tc, test_builtin_defaults);
    tcase_add_test(tc, test_node_aware_needs_nodes);
    tcase_add_test(tc, test_forced_and_fallback);
    tcase_add_test(tc, test_file_rules_first);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_bad_files);
    tcase_add_test(tc, test_man_page_names_all);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
