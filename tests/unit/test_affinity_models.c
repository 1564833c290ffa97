/* Mapping on the shipped topology models (affinity/models) and on synthetic
 * topologies: the exact cpus every local rank gets for each policy and rank
 * count, the oversubscription rule, and the errors for impossible policies.
 * Pure computation: nothing is bound. FARO_MODELS_DIR comes from the
 * Makefile (the source tree's affinity/models). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/affinity.h"

#ifndef FARO_MODELS_DIR
#error "FARO_MODELS_DIR must name the directory of the topology models"
#endif

/* A model by name ("rx7640"), or a synthetic string as it is. */
static struct faro_hwtopo *load(const char *model)
{
    char spec[4096], err[512] = "";
    if (strchr(model, ':'))
        snprintf(spec, sizeof spec, "%s", model);
    else
        snprintf(spec, sizeof spec, "%s/%s.xml", FARO_MODELS_DIR, model);
    struct faro_hwtopo *t = NULL;
    ck_assert_msg(faro_hwtopo_load(spec, &t, err, sizeof err) == 0, "loading %s: %s", spec, err);
    ck_assert_ptr_nonnull(t);
    return t;
}

/* Map n ranks; fails the test with the library's message on error. */
static void place(const char *model, const char *map_by, const char *bind_to, int cpr, int n,
                  struct faro_placement *pl)
{
    struct faro_hwtopo *t = load(model);
    struct faro_policy p;
    char err[512] = "";
    ck_assert_msg(faro_policy_parse(map_by, bind_to, cpr, &p, err, sizeof err) == 0,
                  "policy %s/%s/%d: %s", map_by, bind_to ? bind_to : "(default)", cpr, err);
    memset(pl, 0, sizeof *pl);
    ck_assert_msg(faro_map(t, &p, n, pl, err, sizeof err) == 0, "%s: map %d ranks by %s: %s",
                  model, n, map_by, err);
    ck_assert_int_eq(pl->nranks, n);
    faro_hwtopo_free(t);
}

/* A rank's PU list as "0-3,8,10": sorted, consecutive runs joined. */
static void list_of(const int *pus, char *buf, size_t len)
{
    int v[1024], n = 0;
    for (; n < 1024 && pus[n] >= 0; n++)
        v[n] = pus[n];
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", v[i]);
        if (j > i)
            off += (size_t)snprintf(buf + off, len - off, "-%d", v[j]);
        i = j + 1;
    }
}

/* Check every rank: want[r] is rank r's expected list. */
static void expect(const struct faro_placement *pl, const char *const *want, const char *what)
{
    ck_assert_msg(pl->bound, "%s: not bound (%s)", what, pl->warning);
    for (int r = 0; r < pl->nranks; r++) {
        char got[4096];
        list_of(pl->pus[r], got, sizeof got);
        ck_assert_msg(strcmp(got, want[r]) == 0, "%s: rank %d got cpus %s, expected %s", what,
                      r, got, want[r]);
    }
}

static void expect_numa(const struct faro_placement *pl, const int *want, const char *what)
{
    for (int r = 0; r < pl->nranks; r++)
        ck_assert_msg(pl->numa[r] == want[r], "%s: rank %d on numa %d, expected %d", what, r,
                      pl->numa[r], want[r]);
}

START_TEST(models_load)
{
    struct faro_hwtopo *t = load("rx7640");
    ck_assert_int_eq(faro_hwtopo_ncores(t), 16);
    ck_assert_int_eq(faro_hwtopo_npus(t), 16);
    faro_hwtopo_free(t);
    t = load("ft2");
    ck_assert_int_eq(faro_hwtopo_ncores(t), 24);
    ck_assert_int_eq(faro_hwtopo_npus(t), 24);
    faro_hwtopo_free(t);
}
END_TEST

START_TEST(rx7640_core)
{
    struct faro_placement pl;
    static const char *const w[] = { "0", "1", "2", "3", "4", "5", "6", "7",
                                     "8", "9", "10", "11", "12", "13", "14", "15" };
    place("rx7640", "core", "core", 1, 16, &pl);
    expect(&pl, w, "rx7640 core/core 16");
    static const int numa[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };
    expect_numa(&pl, numa, "rx7640 core/core 16");
    faro_placement_free(&pl);
    place("rx7640", "core", "core", 1, 3, &pl);
    expect(&pl, w, "rx7640 core/core 3");
    faro_placement_free(&pl);
}
END_TEST

/* The HCA is in cell 1: its cores first, cell 0 once they are taken. */
START_TEST(rx7640_nic)
{
    struct faro_placement pl;
    static const char *const w[] = { "8", "9", "10", "11", "12", "13", "14", "15",
                                     "0", "1", "2", "3", "4", "5", "6", "7" };
    static const int numa[] = { 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
    for (int n = 1; n <= 16; n++) {
        char what[64];
        snprintf(what, sizeof what, "rx7640 nic/core %d", n);
        place("rx7640", "nic", "core", 1, n, &pl);
        expect(&pl, w, what);
        expect_numa(&pl, numa, what);
        faro_placement_free(&pl);
    }
}
END_TEST

START_TEST(rx7640_socket_span_pack)
{
    struct faro_placement pl;
    static const char *const span[] = { "0", "2", "4", "6", "8", "10", "12", "14",
                                        "1", "3", "5", "7", "9", "11", "13", "15" };
    static const char *const pack[] = { "0", "1", "2", "3", "4", "5", "6", "7",
                                        "8", "9", "10", "11", "12", "13", "14", "15" };
    place("rx7640", "socket:span", "core", 1, 8, &pl);
    expect(&pl, span, "rx7640 socket:span 8");
    faro_placement_free(&pl);
    place("rx7640", "socket:span", "core", 1, 16, &pl);
    expect(&pl, span, "rx7640 socket:span 16");
    faro_placement_free(&pl);
    place("rx7640", "socket:pack", "core", 1, 16, &pl);
    expect(&pl, pack, "rx7640 socket:pack 16");
    faro_placement_free(&pl);
    /* bound to the whole socket: ranks 2k and 2k+1 share socket k */
    static const char *const sock[] = { "0-1", "0-1", "2-3", "2-3", "4-5", "4-5" };
    place("rx7640", "socket:pack", "socket", 1, 6, &pl);
    expect(&pl, sock, "rx7640 socket:pack bind socket 6");
    faro_placement_free(&pl);
}
END_TEST

/* Bound to the NUMA node, a rank gets its whole cell. */
START_TEST(rx7640_numa)
{
    struct faro_placement pl;
    static const char *const span[] = { "0-7", "8-15", "0-7", "8-15" };
    static const int numa_span[] = { 0, 1, 0, 1 };
    place("rx7640", "numa:span", "numa", 1, 4, &pl);
    expect(&pl, span, "rx7640 numa:span bind numa 4");
    expect_numa(&pl, numa_span, "rx7640 numa:span bind numa 4");
    faro_placement_free(&pl);
    static const char *const pack[] = { "0-7", "0-7", "0-7", "0-7", "0-7", "0-7", "0-7", "0-7",
                                        "8-15", "8-15" };
    place("rx7640", "numa:pack", "numa", 1, 10, &pl);
    expect(&pl, pack, "rx7640 numa:pack bind numa 10");
    faro_placement_free(&pl);
    /* nic with numa binding: cell 1 whole */
    static const char *const nic[] = { "8-15", "8-15" };
    place("rx7640", "nic", "numa", 1, 2, &pl);
    expect(&pl, nic, "rx7640 nic bind numa 2");
    faro_placement_free(&pl);
}
END_TEST

START_TEST(rx7640_cpus_per_rank)
{
    struct faro_placement pl;
    static const char *const w[] = { "0-1", "2-3", "4-5", "6-7", "8-9", "10-11", "12-13",
                                     "14-15" };
    place("rx7640", "core", "core", 2, 8, &pl);
    expect(&pl, w, "rx7640 core cpr 2");
    faro_placement_free(&pl);
    static const char *const nic[] = { "8-9", "10-11", "12-13", "14-15", "0-1", "2-3" };
    place("rx7640", "nic", "core", 2, 6, &pl);
    expect(&pl, nic, "rx7640 nic cpr 2");
    faro_placement_free(&pl);
    static const char *const cells[] = { "0-7", "8-15" };
    place("rx7640", "numa:span", "core", 8, 2, &pl);
    expect(&pl, cells, "rx7640 numa:span cpr 8");
    faro_placement_free(&pl);
}
END_TEST

START_TEST(rx7640_cpu_list)
{
    struct faro_placement pl;
    static const char *const w[] = { "0", "8" };
    place("rx7640", "cpu-list:0,8", "core", 1, 2, &pl);
    expect(&pl, w, "rx7640 cpu-list:0,8");
    faro_placement_free(&pl);
    static const char *const w2[] = { "8", "10", "12" };
    place("rx7640", "cpu-list:8,10,12", "core", 1, 3, &pl);
    expect(&pl, w2, "rx7640 cpu-list:8,10,12");
    faro_placement_free(&pl);
}
END_TEST

START_TEST(ft2_policies)
{
    struct faro_placement pl;
    char w[24][8];
    const char *wp[24];
    for (int r = 0; r < 24; r++) {
        snprintf(w[r], sizeof w[r], "%d", r);
        wp[r] = w[r];
    }
    /* the HCA is on socket 0, which holds cores 0-11: nic and core agree */
    place("ft2", "nic", "core", 1, 24, &pl);
    expect(&pl, wp, "ft2 nic 24");
    faro_placement_free(&pl);
    place("ft2", "core", "core", 1, 24, &pl);
    expect(&pl, wp, "ft2 core 24");
    faro_placement_free(&pl);
    static const char *const span[] = { "0", "12", "1", "13", "2", "14" };
    place("ft2", "socket:span", "core", 1, 6, &pl);
    expect(&pl, span, "ft2 socket:span 6");
    faro_placement_free(&pl);
    place("ft2", "numa:span", "core", 1, 6, &pl);
    expect(&pl, span, "ft2 numa:span 6");
    faro_placement_free(&pl);
    static const char *const pack[] = { "0", "1", "2", "3", "4", "5" };
    place("ft2", "socket:pack", "core", 1, 6, &pl);
    expect(&pl, pack, "ft2 socket:pack 6");
    faro_placement_free(&pl);
    static const char *const l3[] = { "0-11", "12-23" };
    place("ft2", "l3cache:span", "l3cache", 1, 2, &pl);
    expect(&pl, l3, "ft2 l3cache:span bind l3cache 2");
    faro_placement_free(&pl);
    place("ft2", "socket:span", "numa", 1, 2, &pl);
    expect(&pl, l3, "ft2 socket:span bind numa 2");
    faro_placement_free(&pl);
    static const char *const cpr[] = { "0-1", "12-13", "2-3", "14-15" };
    place("ft2", "socket:span", "core", 2, 4, &pl);
    expect(&pl, cpr, "ft2 socket:span cpr 2");
    faro_placement_free(&pl);
    static const char *const hyb[] = { "0-11", "12-23" };
    place("ft2", "socket:span", "core", 12, 2, &pl);
    expect(&pl, hyb, "ft2 socket:span cpr 12");
    faro_placement_free(&pl);
}
END_TEST

/* Several PUs per core: core binding takes all of the core's PUs. */
START_TEST(synthetic_smt)
{
    struct faro_placement pl;
    static const char *const w[] = { "0-1", "2-3", "4-5", "6-7" };
    place("package:2 core:2 pu:2", "core", "core", 1, 4, &pl);
    expect(&pl, w, "synthetic core 4");
    faro_placement_free(&pl);
    static const char *const s[] = { "0-1", "4-5", "2-3", "6-7" };
    place("package:2 core:2 pu:2", "socket:span", "core", 1, 4, &pl);
    expect(&pl, s, "synthetic socket:span 4");
    faro_placement_free(&pl);
    /* hwthread maps onto the hardware threads themselves */
    static const char *const h[] = { "0", "1", "2", "3" };
    place("package:2 core:2 pu:2", "core", "hwthread", 1, 4, &pl);
    expect(&pl, h, "synthetic bind hwthread 4");
    faro_placement_free(&pl);
}
END_TEST

/* Without a suffix core and nic pack, socket, numa and l3cache span. */
START_TEST(default_ordering)
{
    struct faro_placement pl;
    static const char *const span[] = { "0", "2", "4", "6", "8", "10", "12", "14", "1" };
    place("rx7640", "socket", "core", 1, 9, &pl);
    expect(&pl, span, "rx7640 socket 9");
    faro_placement_free(&pl);
    static const char *const numa[] = { "0", "8", "1", "9" };
    place("rx7640", "numa", "core", 1, 4, &pl);
    expect(&pl, numa, "rx7640 numa 4");
    faro_placement_free(&pl);
    /* one L3 per core on the Itanium: l3cache spans the cores in order */
    static const char *const l3[] = { "0", "1", "2", "3" };
    place("rx7640", "l3cache", "l3cache", 1, 4, &pl);
    expect(&pl, l3, "rx7640 l3cache 4");
    faro_placement_free(&pl);
    static const char *const ft2[] = { "0", "12", "1", "13" };
    place("ft2", "l3cache", "core", 1, 4, &pl);
    expect(&pl, ft2, "ft2 l3cache 4");
    faro_placement_free(&pl);
}
END_TEST

/* The report line of a rank near and of a rank far from the HCA. */
START_TEST(rx7640_report)
{
    struct faro_hwtopo *t = load("rx7640");
    struct faro_policy p;
    struct faro_placement pl;
    char err[512] = "", line[512];
    ck_assert_int_eq(faro_policy_parse("nic", "core", 1, &p, err, sizeof err), 0);
    ck_assert_msg(faro_map(t, &p, 9, &pl, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(faro_placement_format(t, &pl, 0, line, sizeof line), 0);
    ck_assert_str_eq(line, "cpus 8 [./.][./.][./.][./.][B/.][./.][./.][./.] numa 1 nic mlx4_0 near");
    ck_assert_int_eq(faro_placement_format(t, &pl, 8, line, sizeof line), 0);
    ck_assert_str_eq(line, "cpus 0 [B/.][./.][./.][./.][./.][./.][./.][./.] numa 0 nic mlx4_0 far");
    ck_assert_int_ne(faro_placement_format(t, &pl, 9, line, sizeof line), 0);
    faro_placement_free(&pl);
    ck_assert_int_eq(faro_policy_parse("numa:span", "numa", 1, &p, err, sizeof err), 0);
    ck_assert_msg(faro_map(t, &p, 2, &pl, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(faro_placement_format(t, &pl, 1, line, sizeof line), 0);
    ck_assert_str_eq(line, "cpus 8-15 [./.][./.][./.][./.][B/B][B/B][B/B][B/B] numa 1 nic mlx4_0 near");
    faro_placement_free(&pl);
    faro_hwtopo_free(t);
}
END_TEST

/* More ranks than cores: an explicit binding warns and binds nothing; the
 * default binds nothing. */
START_TEST(oversubscribed)
{
    struct faro_placement pl;
    place("rx7640", "core", "core", 1, 17, &pl);
    ck_assert_int_eq(pl.bound, 0);
    ck_assert_msg(pl.warning[0] != '\0', "no warning for 17 ranks bound to 16 cores");
    faro_placement_free(&pl);
    place("rx7640", "core", NULL, 1, 17, &pl);
    ck_assert_int_eq(pl.bound, 0);
    faro_placement_free(&pl);
    place("rx7640", "core", "core", 2, 9, &pl);
    ck_assert_int_eq(pl.bound, 0);
    faro_placement_free(&pl);
    /* the default binds to core when they fit */
    static const char *const w[] = { "0", "1", "2", "3" };
    place("rx7640", "core", NULL, 1, 4, &pl);
    expect(&pl, w, "rx7640 default 4");
    faro_placement_free(&pl);
    place("rx7640", "core", "none", 1, 4, &pl);
    ck_assert_int_eq(pl.bound, 0);
    faro_placement_free(&pl);
}
END_TEST

/* Impossible policies fail in parse or in map, with a message. */
static int fails(const char *model, const char *map_by, const char *bind_to, int cpr, int n)
{
    struct faro_hwtopo *t = load(model);
    struct faro_policy p;
    struct faro_placement pl;
    char err[512] = "";
    int rc = faro_policy_parse(map_by, bind_to, cpr, &p, err, sizeof err);
    if (rc == 0) {
        memset(&pl, 0, sizeof pl);
        rc = faro_map(t, &p, n, &pl, err, sizeof err);
        if (rc == 0)
            faro_placement_free(&pl);
    }
    faro_hwtopo_free(t);
    ck_assert_msg(rc != 0 || err[0] == '\0', "rc 0 with a message");
    ck_assert_msg(rc == 0 || err[0] != '\0', "%s/%s: failed without a message", map_by,
                  bind_to ? bind_to : "");
    return rc != 0;
}

START_TEST(bad_policies)
{
    ck_assert(fails("rx7640", "sockets", "core", 1, 2));
    ck_assert(fails("rx7640", "core", "cores", 1, 2));
    ck_assert(fails("rx7640", "core:spread", "core", 1, 2));
    ck_assert(fails("rx7640", "cpu-list:0,99", "core", 1, 2));
    ck_assert(fails("rx7640", "core", "core", 17, 1));
    ck_assert(fails("rx7640", "core", "core", 0, 1));
    ck_assert(fails("ft2", "core", "core", 25, 1));
    /* nic on a topology that has no network device */
    ck_assert(fails("package:2 numa:1 core:2 pu:1", "nic", "core", 1, 2));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("affinity_models");
    TCase *tc = tcase_create("mapping");
    tcase_add_test(tc, models_load);
    tcase_add_test(tc, rx7640_core);
    tcase_add_test(tc, rx7640_nic);
    tcase_add_test(tc, rx7640_socket_span_pack);
    tcase_add_test(tc, rx7640_numa);
    tcase_add_test(tc, rx7640_cpus_per_rank);
    tcase_add_test(tc, rx7640_cpu_list);
    tcase_add_test(tc, ft2_policies);
    tcase_add_test(tc, synthetic_smt);
    tcase_add_test(tc, default_ordering);
    tcase_add_test(tc, rx7640_report);
    tcase_add_test(tc, oversubscribed);
    tcase_add_test(tc, bad_policies);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
