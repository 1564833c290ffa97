/* Affinity library on synthetic topologies: exact cpus for each policy and
 * rank count, span against pack, cpus-per-rank, the default binding rule,
 * the oversubscription warning, the report line, every error, and one real
 * binding of this process checked with sched_getaffinity. Each test runs in
 * its own process (Check forks), so binding here touches nothing else. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/affinity.h"
#include "base/tunables.h"

#ifndef FARO_MODELS_DIR
#error "FARO_MODELS_DIR must name the directory of the topology models"
#endif

static struct faro_hwtopo *load(const char *spec)
{
    struct faro_hwtopo *t = NULL;
    char err[512] = "";
    ck_assert_msg(faro_hwtopo_load(spec, &t, err, sizeof err) == 0, "load %s: %s", spec, err);
    return t;
}

/* "0-1,4": the sorted runs of a -1 terminated list. */
static void list_of(const int *pus, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; pus[i] >= 0;) {
        int j = i;
        while (pus[j + 1] >= 0 && pus[j + 1] == pus[j] + 1)
            j++;
        off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", pus[i]);
        if (j > i)
            off += (size_t)snprintf(buf + off, len - off, "-%d", pus[j]);
        i = j + 1;
    }
}

/* Map and compare with "rank0 rank1 ..." (space separated cpu lists). */
static void check_map(const char *topo, const char *map_by, const char *bind_to, int cpr, int n,
                      int bound, const char *want)
{
    struct faro_hwtopo *t = load(topo);
    struct faro_policy p;
    struct faro_placement pl;
    char err[512] = "", got[4096] = "", one[512];
    ck_assert_msg(faro_policy_parse(map_by, bind_to, cpr, &p, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(faro_map(t, &p, n, &pl, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(pl.nranks, n);
    for (int r = 0; r < n; r++) {
        list_of(pl.pus[r], one, sizeof one);
        strcat(got, r ? " " : "");
        strcat(got, one);
    }
    ck_assert_msg(pl.bound == bound && strcmp(got, want) == 0,
                  "%s on '%s', bind %s, %d cpus per rank, %d ranks: got [%s]%s, expected [%s]%s",
                  map_by, topo, bind_to ? bind_to : "(default)", cpr, n, got,
                  pl.bound ? "" : " unbound", want, bound ? "" : " unbound");
    faro_placement_free(&pl);
    faro_hwtopo_free(t);
}

/* Parse then map; returns the error message ("" when it worked). */
static const char *map_error(const char *topo, const char *map_by, const char *bind_to, int cpr,
                             const char *nic, int n)
{
    static char err[1024];
    struct faro_hwtopo *t = load(topo);
    struct faro_policy p;
    struct faro_placement pl;
    err[0] = '\0';
    if (faro_policy_parse(map_by, bind_to, cpr, &p, err, sizeof err) == 0) {
        snprintf(p.nic, sizeof p.nic, "%s", nic ? nic : "");
        if (faro_map(t, &p, n, &pl, err, sizeof err) == 0) {
            ck_assert_str_eq(err, "");
            faro_placement_free(&pl);
        } else {
            ck_assert_msg(err[0], "faro_map failed without a message");
        }
    } else {
        ck_assert_msg(err[0], "faro_policy_parse failed without a message");
    }
    faro_hwtopo_free(t);
    return err;
}

#define HAS(s, sub) ck_assert_msg(strstr((s), (sub)) != NULL, "'%s' lacks '%s'", (s), (sub))

START_TEST(load_counts)
{
    struct faro_hwtopo *t = load("package:2 numa:1 core:4 pu:1");
    ck_assert_int_eq(faro_hwtopo_ncores(t), 8);
    ck_assert_int_eq(faro_hwtopo_npus(t), 8);
    faro_hwtopo_free(t);
    t = load("package:2 core:2 pu:2");
    ck_assert_int_eq(faro_hwtopo_ncores(t), 4);
    ck_assert_int_eq(faro_hwtopo_npus(t), 8);
    faro_hwtopo_free(t);
    t = load("package:2 pu:3"); /* no cores: each PU counts as one */
    ck_assert_int_eq(faro_hwtopo_ncores(t), 6);
    faro_hwtopo_free(t);
    t = load(NULL); /* this machine */
    ck_assert_int_ge(faro_hwtopo_ncores(t), 1);
    ck_assert_int_ge(faro_hwtopo_npus(t), faro_hwtopo_ncores(t));
    faro_hwtopo_free(t);
}
END_TEST

START_TEST(load_errors)
{
    struct faro_hwtopo *t = (struct faro_hwtopo *)1;
    char err[512];
    ck_assert_int_eq(faro_hwtopo_load("bogus:3 pu:2", &t, err, sizeof err), -1);
    ck_assert_ptr_null(t);
    HAS(err, "FARO_TOPOLOGY=bogus:3 pu:2");
    HAS(err, "synthetic");
    ck_assert_int_eq(faro_hwtopo_load("/nonexistent/model.xml", &t, err, sizeof err), -1);
    HAS(err, "FARO_TOPOLOGY=/nonexistent/model.xml");
    HAS(err, "XML");
}
END_TEST

START_TEST(map_core)
{
    check_map("package:2 core:4 pu:2", "core", "core", 1, 3, 1, "0-1 2-3 4-5");
    check_map("package:2 core:4 pu:2", "core:span", "core", 1, 3, 1, "0-1 2-3 4-5");
    check_map("package:2 core:4 pu:1", "", NULL, 1, 8, 1, "0 1 2 3 4 5 6 7");
}
END_TEST

START_TEST(map_socket_span_pack)
{
    check_map("package:2 core:4 pu:1", "socket:span", "core", 1, 4, 1, "0 4 1 5");
    check_map("package:2 core:4 pu:1", "socket", "core", 1, 4, 1, "0 4 1 5"); /* span default */
    check_map("package:2 core:4 pu:1", "socket:pack", "core", 1, 5, 1, "0 1 2 3 4");
    check_map("package:2 core:4 pu:1", "socket:pack", "socket", 1, 5, 1,
              "0-3 0-3 0-3 0-3 4-7");
    /* span skips a full domain */
    check_map("package:2 core:4 pu:1", "socket:span", "core", 3, 2, 1, "0-2 4-6");
}
END_TEST

/* ppr:N:RES: N ranks per resource in order; more than N per resource on the
 * node is an error naming the counts; N that do not fit share it. */
START_TEST(map_ppr)
{
    check_map("package:2 core:4 pu:1", "ppr:2:socket", NULL, 1, 4, 1, "0 1 4 5");
    check_map("package:2 core:4 pu:1", "ppr:1:package", NULL, 1, 1, 1, "0"); /* lone: bound */
    check_map("package:2 core:4 pu:1", "ppr:2:socket", NULL, 2, 4, 1, "0-1 2-3 4-5 6-7");
    check_map("package:2 core:4 pu:1", "ppr:2:socket", "socket", 1, 3, 1, "0-3 0-3 4-7");
    check_map("package:2 core:4 pu:1", "ppr:2:socket", "none", 1, 2, 0, "0-7 0-7");
    check_map("package:2 numa:2 core:2 pu:1", "ppr:1:numa", NULL, 1, 4, 1, "0 2 4 6");
    check_map("package:1 l3cache:2 core:2 pu:1", "ppr:1:l3", NULL, 1, 2, 1, "0 2");
    check_map("package:1 core:2 pu:2", "ppr:1:core", NULL, 1, 2, 1, "0-1 2-3");
    check_map("package:1 core:2 pu:2", "ppr:2:core", "hwthread", 1, 4, 1, "0 1 2 3");
    check_map("package:1 core:2 pu:2", "ppr:2:core", NULL, 1, 3, 1, "0-1 0-1 2-3");
    HAS(map_error("package:2 core:4 pu:1", "ppr:2:socket", NULL, 1, NULL, 5),
        "ppr:2:socket: 5 ranks on this node, but its 2 sockets hold 4 at 2 each");
    HAS(map_error("package:2 core:4 pu:1", "ppr:2:node", NULL, 1, NULL, 1),
        "ppr:N:node is mpiexec's");
    HAS(map_error("package:2 core:4 pu:1", "ppr:x:core", NULL, 1, NULL, 1),
        "expected ppr:N:RESOURCE");
}
END_TEST

START_TEST(map_numa_l3)
{
    check_map("numa:2 core:2 pu:1", "numa", "core", 1, 3, 1, "0 2 1");
    check_map("numa:2 core:2 pu:1", "numa:pack", "numa", 1, 3, 1, "0-1 0-1 2-3");
    check_map("package:1 l3:2 core:3 pu:1", "l3cache:pack", "l3cache", 1, 2, 1, "0-2 0-2");
    check_map("package:1 l3:2 core:3 pu:1", "l3cache:span", "l3cache", 1, 2, 1, "0-2 3-5");
    check_map("package:1 l3:2 core:3 pu:1", "l3cache:span", "core", 1, 4, 1, "0 3 1 4");
    /* bind to a domain the map did not use: every such object the cores touch */
    check_map("package:2 core:2 pu:1", "core", "socket", 3, 1, 1, "0-3");

    struct faro_hwtopo *t = load("numa:2 core:2 pu:1");
    struct faro_policy p;
    struct faro_placement pl;
    char err[256];
    ck_assert_int_eq(faro_policy_parse("numa:span", "core", 1, &p, err, sizeof err), 0);
    ck_assert_int_eq(faro_map(t, &p, 3, &pl, err, sizeof err), 0);
    ck_assert_int_eq(pl.numa[0], 0);
    ck_assert_int_eq(pl.numa[1], 1);
    ck_assert_int_eq(pl.numa[2], 0);
    faro_placement_free(&pl);
    ck_assert_int_eq(faro_policy_parse("core", "socket", 2, &p, err, sizeof err), 0);
    ck_assert_int_eq(faro_map(t, &p, 2, &pl, err, sizeof err), 0);
    faro_placement_free(&pl);
    faro_hwtopo_free(t);
}
END_TEST

START_TEST(map_cpus_per_rank)
{
    check_map("package:2 core:4 pu:2", "core", "core", 2, 2, 1, "0-3 4-7");
    check_map("package:2 core:4 pu:2", "socket:span", "core", 2, 3, 1, "0-3 8-11 4-7");
    /* no socket has 2 free cores for rank 2: it takes the node's first free ones */
    check_map("package:2 core:3 pu:1", "socket:span", "core", 2, 3, 1, "0-1 3-4 2,5");
    check_map("package:2 core:4 pu:1", "core", NULL, 2, 4, 1, "0-1 2-3 4-5 6-7");
    check_map("package:2 core:4 pu:1", "core", NULL, 2, 5, 0,
              "0-7 0-7 0-7 0-7 0-7"); /* default: 10 > 8 cores, unbound */
}
END_TEST

START_TEST(map_hwthread)
{
    check_map("package:1 core:2 pu:2", "core", "hwthread", 1, 4, 1, "0 1 2 3");
    check_map("package:2 core:2 pu:2", "socket:span", "hwthread", 1, 3, 1, "0 4 1");
    check_map("package:1 core:2 pu:2", "core", "hwthread", 1, 5, 0, "0-3 0-3 0-3 0-3 0-3");
}
END_TEST

START_TEST(map_cpu_list)
{
    check_map("package:2 core:2 pu:2", "cpu-list:7,0,3", "core", 1, 3, 1, "7 0 3");
    check_map("package:2 core:2 pu:2", "cpu-list:0-3", "core", 2, 2, 1, "0-1 2-3");
    check_map("package:2 core:2 pu:2", "cpu-list:5", "socket", 1, 1, 1, "4-7");
    check_map("package:2 core:2 pu:2", "cpu-list:5,6", NULL, 1, 2, 1, "5 6");
    check_map("package:2 core:2 pu:2", "cpu-list:5,6", NULL, 1, 3, 0, "0-7 0-7 0-7");
}
END_TEST

START_TEST(default_and_oversubscribed)
{
    check_map("package:2 core:4 pu:1", "core", NULL, 1, 8, 1, "0 1 2 3 4 5 6 7");
    check_map("package:1 core:2 pu:1", "core", "none", 1, 2, 0, "0-1 0-1");
    check_map("package:1 core:2 pu:1", "core", "auto", 1, 2, 1, "0 1");
    check_map("package:1 core:2 pu:1", "core", NULL, 1, 1, 0, "0-1"); /* a lone rank */
    check_map("package:1 core:2 pu:1", "core", "core", 1, 1, 1, "0");
    check_map("package:1 core:2 pu:1", "cpu-list:1", NULL, 1, 1, 1, "1");

    struct faro_hwtopo *t = load("package:1 core:2 pu:1");
    struct faro_policy p;
    struct faro_placement pl;
    char err[256];
    ck_assert_int_eq(faro_policy_parse("core", NULL, 1, &p, err, sizeof err), 0);
    ck_assert_int_eq(faro_map(t, &p, 3, &pl, err, sizeof err), 0);
    ck_assert_int_eq(pl.bound, 0);
    ck_assert_str_eq(pl.warning, ""); /* the default says nothing */
    faro_placement_free(&pl);
    ck_assert_int_eq(faro_policy_parse("core", "core", 1, &p, err, sizeof err), 0);
    ck_assert_int_eq(faro_map(t, &p, 8, &pl, err, sizeof err), 0);
    ck_assert_int_eq(pl.bound, 0);
    ck_assert_str_eq(pl.warning,
                     "8 ranks x 1 cores per rank > 2 cores on this node: not binding "
                     "(oversubscribed)");
    for (int r = 0; r < 8; r++) /* nobody piled onto one core */
        ck_assert(pl.pus[r][0] == 0 && pl.pus[r][1] == 1 && pl.pus[r][2] == -1);
    faro_placement_free(&pl);
    ck_assert_int_eq(faro_policy_parse("numa", "numa", 1, &p, err, sizeof err), 0);
    ck_assert_int_eq(faro_map(t, &p, 3, &pl, err, sizeof err), 0);
    ck_assert_int_eq(pl.bound, 0);
    HAS(pl.warning, "oversubscribed");
    faro_placement_free(&pl);
    faro_hwtopo_free(t);
}
END_TEST

START_TEST(errors)
{
    const char *e;
    const char *topo = "package:2 core:4 pu:1";
    e = map_error(topo, "sockets", "core", 1, NULL, 2);
    HAS(e, "--map-by/FARO_MAP_BY sockets");
    HAS(e, "core, socket, numa, l3cache, nic, cpu-list");
    e = map_error(topo, "core", "cores", 1, NULL, 2);
    HAS(e, "--bind-to/FARO_BIND_TO cores");
    HAS(e, "none, hwthread, core, l3cache, socket, numa");
    e = map_error(topo, "core:spread", "core", 1, NULL, 2);
    HAS(e, "spread");
    HAS(e, "span");
    e = map_error(topo, "cpu-list:0,,2", "core", 1, NULL, 2);
    HAS(e, "not a cpu list");
    e = map_error(topo, "cpu-list:", "core", 1, NULL, 1);
    HAS(e, "not a cpu list");
    e = map_error(topo, "cpu-list:3-1", "core", 1, NULL, 1);
    HAS(e, "not a cpu list");
    e = map_error(topo, "cpu-list:0,99", "core", 1, NULL, 2);
    HAS(e, "cpu 99 is not on this node");
    HAS(e, "0-7");
    e = map_error(topo, "core", "core", 9, NULL, 1);
    HAS(e, "--cpus-per-rank/FARO_CPUS_PER_RANK 9");
    HAS(e, "8 cores");
    e = map_error(topo, "core", "core", 0, NULL, 1);
    HAS(e, "FARO_CPUS_PER_RANK 0");
    e = map_error(topo, "cpu-list:1,2", "core", 3, NULL, 1);
    HAS(e, "FARO_CPUS_PER_RANK 3");
    e = map_error(topo, "nic", "core", 1, NULL, 1); /* synthetic: no devices */
    HAS(e, "--map-by/FARO_MAP_BY nic");
    char spec[4096];
    snprintf(spec, sizeof spec, "%s/rx7640.xml", FARO_MODELS_DIR);
    e = map_error(spec, "nic", "core", 1, "mlx9_9", 1);
    HAS(e, "FARO_NIC=mlx9_9");
    ck_assert_str_eq(map_error(spec, "nic", "core", 1, "ib0", 1), "");
}
END_TEST

static void format_of(const char *topo, const char *map_by, const char *bind_to, int n, int r,
                      char *line, size_t len)
{
    struct faro_hwtopo *t = load(topo);
    struct faro_policy p;
    struct faro_placement pl;
    char err[256];
    ck_assert_int_eq(faro_policy_parse(map_by, bind_to, 1, &p, err, sizeof err), 0);
    ck_assert_int_eq(faro_map(t, &p, n, &pl, err, sizeof err), 0);
    ck_assert_int_eq(faro_placement_format(t, &pl, r, line, len), 0);
    ck_assert_int_eq(faro_placement_format(t, &pl, n, line + len / 2, len / 2), -1);
    faro_placement_free(&pl);
    faro_hwtopo_free(t);
}

START_TEST(report_line)
{
    char line[1024], spec[4096];
    format_of("package:2 core:2 pu:2", "core", "core", 2, 1, line, sizeof line);
    ck_assert_str_eq(line, "cpus 2-3 [../BB][../..] numa 0");
    format_of("package:2 core:2 pu:2", "socket:span", "core", 2, 1, line, sizeof line);
    ck_assert_str_eq(line, "cpus 4-5 [../..][BB/..] numa 0");
    format_of("package:1 core:2 pu:1", "core", "core", 3, 2, line, sizeof line);
    ck_assert_str_eq(line, "cpus 0-1 [B/B] numa 0 (not bound)");
    format_of("numa:2 core:1 pu:1", "numa", "none", 1, 0, line, sizeof line);
    ck_assert_str_eq(line, "cpus 0-1 [B/B] numa - (not bound)");
    snprintf(spec, sizeof spec, "%s/rx7640.xml", FARO_MODELS_DIR);
    format_of(spec, "nic", "core", 1, 0, line, sizeof line);
    ck_assert_str_eq(line, "cpus 8 [./.][./.][./.][./.][B/.][./.][./.][./.] numa 1 nic mlx4_0 "
                           "near");
    format_of(spec, "core", "core", 1, 0, line, sizeof line);
    HAS(line, "numa 0 nic mlx4_0 far");
    format_of(spec, "core", "none", 1, 0, line, sizeof line);
    HAS(line, "nic mlx4_0 partly near (not bound)");
}
END_TEST

/* The real thing: bind this (forked) process and read its mask back. */
START_TEST(real_binding)
{
    char err[512];
    struct faro_hwtopo *t = load(NULL);
    struct faro_policy p;
    struct faro_placement pl;
    int n = faro_hwtopo_ncores(t);
    ck_assert_int_eq(faro_policy_parse("core", "core", 1, &p, err, sizeof err), 0);
    ck_assert_int_eq(faro_map(t, &p, n, &pl, err, sizeof err), 0);
    setenv("FARO_BIND_TO", "core", 1);
    setenv("FARO_REPORT_BINDINGS", "1", 1);
    ck_assert_msg(faro_tunables_load(err, sizeof err) == 0, "%s", err);
    int last = n - 1;
    ck_assert_msg(faro_affinity_init(last, n, "testhost", 7, err, sizeof err) == 0, "%s", err);
    cpu_set_t mask;
    ck_assert_int_eq(sched_getaffinity(0, sizeof mask, &mask), 0);
    int k = 0;
    for (const int *pu = pl.pus[last]; *pu >= 0; pu++, k++)
        ck_assert_msg(CPU_ISSET(*pu, &mask), "cpu %d of local rank %d is not in the mask", *pu,
                      last);
    ck_assert_int_eq(CPU_COUNT(&mask), k);
    faro_placement_free(&pl);
    faro_hwtopo_free(t);

    /* a model is mapped and reported, never bound */
    setenv("FARO_TOPOLOGY", "package:4 core:4 pu:1", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_msg(faro_affinity_init(15, 16, "testhost", 15, err, sizeof err) == 0, "%s", err);
    cpu_set_t after;
    ck_assert_int_eq(sched_getaffinity(0, sizeof after, &after), 0);
    ck_assert(CPU_EQUAL(&mask, &after));

    /* a bad policy ends in an error naming it */
    setenv("FARO_MAP_BY", "diagonal", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_int_eq(faro_affinity_init(0, 1, "testhost", 0, err, sizeof err), -1);
    HAS(err, "FARO_MAP_BY diagonal");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("affinity");
    TCase *tc = tcase_create("synthetic");
    tcase_add_test(tc, load_counts);
    tcase_add_test(tc, load_errors);
    tcase_add_test(tc, map_core);
    tcase_add_test(tc, map_socket_span_pack);
    tcase_add_test(tc, map_ppr);
    tcase_add_test(tc, map_numa_l3);
    tcase_add_test(tc, map_cpus_per_rank);
    tcase_add_test(tc, map_hwthread);
    tcase_add_test(tc, map_cpu_list);
    tcase_add_test(tc, default_and_oversubscribed);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, report_line);
    tcase_add_test(tc, real_binding);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
