/* Unit tests for mpiexec's host lists, placement and launch tree
 * (tools/mpiexec/hostlist.c). */
#include "config.h"

#include "tools/mpiexec/hostlist.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct mpx_hostlist hl;
static char err[512];

static void setup(void)
{
    memset(&hl, 0, sizeof hl);
    err[0] = 0;
}

static void teardown(void)
{
    mpx_hosts_free(&hl);
}

static void expect_host(int i, const char *name, int slots)
{
    ck_assert_int_gt(hl.n, i);
    ck_assert_str_eq(hl.host[i].name, name);
    ck_assert_int_eq(hl.host[i].slots, slots);
}

START_TEST(test_list_spellings)
{
    /* Hydra's -hosts a,b:2 and Open MPI's -host a:2,b. */
    ck_assert_int_eq(mpx_hosts_parse_list(&hl, "a,b:2,node-3.example.org", "-hosts", err,
                                          sizeof err), 0);
    ck_assert_int_eq(hl.n, 3);
    expect_host(0, "a", 1);
    expect_host(1, "b", 2);
    expect_host(2, "node-3.example.org", 1);
    ck_assert_int_eq(hl.host[0].explicit_slots, 0);
    ck_assert_int_eq(hl.host[1].explicit_slots, 1);
    /* A host named again is the same node: its slots add up, the order stays. */
    ck_assert_int_eq(mpx_hosts_parse_list(&hl, "b,a:3,", "-host", err, sizeof err), 0);
    ck_assert_int_eq(hl.n, 3);
    expect_host(0, "a", 4);
    expect_host(1, "b", 3);
    ck_assert_int_eq(mpx_hosts_total_slots(&hl, 0), 8);
    ck_assert_int_eq(mpx_hosts_total_slots(&hl, 2), 6);
}
END_TEST

START_TEST(test_list_errors)
{
    const char *bad[] = { "a:0", "a:x", "a:", "a b", "a:2:3", "a/b", ",", "" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ck_assert_msg(mpx_hosts_parse_list(&hl, bad[i], "-hosts", err, sizeof err) < 0,
                      "'%s' was accepted", bad[i]);
        ck_assert_msg(strstr(err, "-hosts") != NULL, "'%s': message '%s' lacks the option",
                      bad[i], err);
    }
    ck_assert_int_eq(hl.n, 0);
    mpx_hosts_parse_list(&hl, "a:0", "-host", err, sizeof err);
    ck_assert_ptr_nonnull(strstr(err, "whole number from 1"));
    mpx_hosts_parse_list(&hl, "a/b", "-host", err, sizeof err);
    ck_assert_ptr_nonnull(strstr(err, "contains '/'"));
}
END_TEST

START_TEST(test_file_lines)
{
    ck_assert_int_eq(mpx_hosts_parse_line(&hl, "# a comment\n", "f:1", err, sizeof err), 0);
    ck_assert_int_eq(mpx_hosts_parse_line(&hl, "   \t\n", "f:2", err, sizeof err), 0);
    ck_assert_int_eq(hl.n, 0);
    ck_assert_int_eq(mpx_hosts_parse_line(&hl, "h1\n", "f:3", err, sizeof err), 0);
    ck_assert_int_eq(mpx_hosts_parse_line(&hl, "h2:4  # Hydra\n", "f:4", err, sizeof err), 0);
    ck_assert_int_eq(mpx_hosts_parse_line(&hl, "h3 slots=3\r\n", "f:5", err, sizeof err), 0);
    ck_assert_int_eq(mpx_hosts_parse_line(&hl, "  h4\tslots=2 max_slots=8 # Open MPI\n", "f:6",
                                          err, sizeof err), 0);
    ck_assert_int_eq(mpx_hosts_parse_line(&hl, "h1 slots=2\n", "f:7", err, sizeof err), 0);
    ck_assert_int_eq(hl.n, 4);
    expect_host(0, "h1", 3);
    expect_host(1, "h2", 4);
    expect_host(2, "h3", 3);
    expect_host(3, "h4", 2);

    ck_assert_int_lt(mpx_hosts_parse_line(&hl, "h5 slots=x\n", "f:8", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "f:8: 'slots=x'"));
    ck_assert_int_lt(mpx_hosts_parse_line(&hl, "h5 cpus=2\n", "f:9", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "f:9: unknown 'cpus=2'"));
    ck_assert_ptr_nonnull(strstr(err, "host slots=N"));
    ck_assert_int_lt(mpx_hosts_parse_line(&hl, "h6:2 slots=2\n", "f:10", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "twice"));
}
END_TEST

START_TEST(test_file_read)
{
    char path[] = "/tmp/faro-hostfile-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char text[] = "# cluster\nn1:2\nn2 slots=2\n\nn3\n";
    ck_assert_int_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    ck_assert_int_eq(mpx_hosts_read_file(&hl, path, err, sizeof err), 0);
    ck_assert_int_eq(hl.n, 3);
    expect_host(2, "n3", 1);
    ck_assert_int_eq(mpx_hosts_total_slots(&hl, 0), 5);

    fd = open(path, O_WRONLY | O_TRUNC);
    ck_assert_int_eq(write(fd, "# nothing\n\n", 11), 11);
    close(fd);
    ck_assert_int_lt(mpx_hosts_read_file(&hl, path, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "names no host"));
    unlink(path);
    ck_assert_int_lt(mpx_hosts_read_file(&hl, path, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "cannot read host file"));
}
END_TEST

START_TEST(test_slurm)
{
    ck_assert_int_eq(mpx_hosts_from_slurm(&hl, "n[01-03,7],gpu1", "2(x3),1,4", err, sizeof err),
                     0);
    ck_assert_int_eq(hl.n, 5);
    expect_host(0, "n01", 2);
    expect_host(2, "n03", 2);
    expect_host(3, "n7", 1);
    expect_host(4, "gpu1", 4);
    mpx_hosts_free(&hl);

    ck_assert_int_eq(mpx_hosts_from_slurm(&hl, "rack[1-2]-n[8-9],x", NULL, err, sizeof err), 0);
    ck_assert_int_eq(hl.n, 5);
    expect_host(0, "rack1-n8", 1);
    expect_host(1, "rack1-n9", 1);
    expect_host(2, "rack2-n8", 1);
    expect_host(4, "x", 1);
    mpx_hosts_free(&hl);

    ck_assert_int_eq(mpx_hosts_from_slurm(&hl, "c[098-101]", "1(x4)", err, sizeof err), 0);
    expect_host(0, "c098", 1);
    expect_host(3, "c101", 1);
    mpx_hosts_free(&hl);

    ck_assert_int_lt(mpx_hosts_from_slurm(&hl, "n[1-3", NULL, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "lacks its ']'"));
    ck_assert_int_lt(mpx_hosts_from_slurm(&hl, "n[3-1]", NULL, err, sizeof err), 0);
    ck_assert_int_lt(mpx_hosts_from_slurm(&hl, "n[1-3]", "2(x2)", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "more nodes"));
    ck_assert_int_lt(mpx_hosts_from_slurm(&hl, "n1", "2(3)", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "N(xM)"));
}
END_TEST

/* A large allocation's node list (found by fuzz_hostlist: each new name was
 * compared with every earlier one, so "n[1-70623]" took minutes) and one that
 * names more hosts than any machine has. */
START_TEST(test_slurm_large)
{
    ck_assert_int_eq(mpx_hosts_from_slurm(&hl, "n[000001-100000],n000007", NULL, err,
                                          sizeof err), 0);
    ck_assert_int_eq(hl.n, 100000);
    ck_assert_str_eq(hl.host[99999].name, "n100000");
    ck_assert_int_eq(hl.host[6].slots, 2);
    mpx_hosts_free(&hl);
    ck_assert_int_lt(mpx_hosts_from_slurm(&hl, "a[1-1000]b[1-100000]", NULL, err, sizeof err),
                     0);
    ck_assert_ptr_nonnull(strstr(err, "more than 262144 hosts"));
}
END_TEST

static void map(int np, enum mpx_map_policy pol, int ppn, const char *want)
{
    int host_of[64];
    char got[256] = "";
    ck_assert_int_eq(mpx_hosts_map(&hl, np, pol, ppn, host_of, err, sizeof err), 0);
    for (int r = 0; r < np; r++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%d", host_of[r]);
    ck_assert_str_eq(got, want);
}

START_TEST(test_map)
{
    ck_assert_int_eq(mpx_hosts_parse_list(&hl, "a:2,b:2,c", "-host", err, sizeof err), 0);
    map(5, MPX_MAP_SLOT, 0, "00112");
    map(8, MPX_MAP_SLOT, 0, "00112001"); /* wraps around: oversubscribed */
    map(5, MPX_MAP_NODE, 0, "01201");
    map(8, MPX_MAP_PPR, 1, "01201201");
    map(7, MPX_MAP_PPR, 2, "0011220");

    enum mpx_map_policy pol;
    int ppn = 0;
    ck_assert_int_eq(mpx_map_parse("node", &pol, &ppn, err, sizeof err), 1);
    ck_assert_int_eq(pol, MPX_MAP_NODE);
    ck_assert_int_eq(mpx_map_parse("slot", &pol, &ppn, err, sizeof err), 1);
    ck_assert_int_eq(pol, MPX_MAP_SLOT);
    ck_assert_int_eq(mpx_map_parse("ppr:4:node", &pol, &ppn, err, sizeof err), 1);
    ck_assert_int_eq(pol, MPX_MAP_PPR);
    ck_assert_int_eq(ppn, 4);
    ck_assert_int_eq(mpx_map_parse("core", &pol, &ppn, err, sizeof err), 0);
    ck_assert_int_eq(mpx_map_parse("socket:span", &pol, &ppn, err, sizeof err), 0);
    ck_assert_int_eq(mpx_map_parse("ppr:0:node", &pol, &ppn, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "ppr:N:RESOURCE"));
    ck_assert_int_eq(mpx_map_parse("ppr:2:rack", &pol, &ppn, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "numa"));
    /* per socket, NUMA node, L3 or core the library maps on each host (2) */
    ck_assert_int_eq(mpx_map_parse("ppr:2:socket", &pol, &ppn, err, sizeof err), 2);
    ck_assert_int_eq(mpx_map_parse("ppr:1:core", &pol, &ppn, err, sizeof err), 2);
}
END_TEST

static void mapping(const int *host_of, int np, const char *want)
{
    char buf[256];
    ck_assert_int_gt(mpx_process_mapping(host_of, np, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, want);
}

START_TEST(test_process_mapping)
{
    int block[] = { 0, 0, 1, 1, 2, 2 }, rr[] = { 0, 1, 2, 0 }, uneven[] = { 0, 0, 1, 2, 2, 2 };
    int wrap[] = { 0, 0, 1, 1, 0, 0, 1 }, one[] = { 0, 0, 0 }, shuffled[] = { 1, 0, 1, 0 };
    mapping(block, 6, "(vector,(0,3,2))");
    mapping(rr, 4, "(vector,(0,3,1))");
    mapping(uneven, 6, "(vector,(0,1,2),(1,1,1),(2,1,3))");
    mapping(wrap, 7, "(vector,(0,2,2))");
    mapping(one, 3, "(vector,(0,1,3))");
    mapping(shuffled, 4, "(vector,(1,1,1),(0,2,1),(0,1,1))"); /* valid, not minimal */
    char small[8];
    ck_assert_int_eq(mpx_process_mapping(block, 6, small, sizeof small), -1);
}
END_TEST

/* Every host is started exactly once, by its parent, and the depth grows as
 * the logarithm of the host count. */
static int tree_walk(int lo, int hi, int width, int parent, int nhosts, int *seen, int depth)
{
    int child[64], end[64], deepest = depth;
    int m = mpx_tree_children(lo, hi, width, child, end);
    for (int i = 0; i < m; i++) {
        int p;
        seen[child[i]]++;
        ck_assert_int_eq(mpx_tree_slice(nhosts, width, child[i], &p), end[i]);
        ck_assert_int_eq(p, parent);
        int d = tree_walk(child[i] + 1, end[i], width, child[i], nhosts, seen, depth + 1);
        if (d > deepest)
            deepest = d;
    }
    return deepest;
}

START_TEST(test_tree)
{
    int child[8], end[8];
    ck_assert_int_eq(mpx_tree_children(0, 8, 2, child, end), 2);
    ck_assert_int_eq(child[0], 0);
    ck_assert_int_eq(end[0], 4);
    ck_assert_int_eq(child[1], 4);
    ck_assert_int_eq(end[1], 8);
    ck_assert_int_eq(mpx_tree_children(3, 3, 2, child, end), 0);

    int sizes[] = { 1, 2, 3, 7, 8, 33, 157, 1000 }, widths[] = { 2, 4, 32 };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
            int n = sizes[s], k = widths[w];
            int *seen = calloc((size_t)n, sizeof *seen);
            int depth = tree_walk(0, n, k, -1, n, seen, 1);
            for (int h = 0; h < n; h++)
                ck_assert_msg(seen[h] == 1, "%d hosts, width %d: host %d started %d times", n,
                              k, h, seen[h]);
            int bound = 1; /* levels of a width-k tree that hold n hosts, plus one */
            for (long cap = k; cap < n; cap *= k)
                bound++;
            ck_assert_msg(depth <= 2 * bound + 1, "%d hosts, width %d: depth %d", n, k, depth);
            free(seen);
        }
    int p;
    ck_assert_int_eq(mpx_tree_slice(5, 2, 7, &p), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostlist");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_list_spellings);
    tcase_add_test(tc, test_list_errors);
    tcase_add_test(tc, test_file_lines);
    tcase_add_test(tc, test_file_read);
    tcase_add_test(tc, test_slurm);
    tcase_add_test(tc, test_slurm_large);
    tcase_add_test(tc, test_map);
    tcase_add_test(tc, test_process_mapping);
    tcase_add_test(tc, test_tree);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
