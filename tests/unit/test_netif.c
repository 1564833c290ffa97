/* Unit tests for the choice of network interfaces (base/netif.c): FARO_TCP_IF
 * lists, exclusions, the defaults for one node and for several hosts, and the
 * launcher's hint. Only loopback is sure to exist on every machine, so the
 * cases are written around it; tests/launcher/multihost.sh checks the
 * choice among real interfaces inside namespace hosts. */
#include "config.h"

#include "base/netif.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

static struct faro_netif ifs[FARO_NETIF_MAX];
static char reason[256], why[1024];

static int choose(const char *spec, int multi, const char *hint)
{
    reason[0] = why[0] = 0;
    return faro_netif_choose(spec, multi, hint, ifs, FARO_NETIF_MAX, reason, sizeof reason, why,
                             sizeof why);
}

START_TEST(test_loopback_specs)
{
    const char *specs[] = { "lo", "127.0.0.0/8", "127.0.0.1", "l*", "nosuch0,lo", "^nosuch0,lo" };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ck_assert_msg(choose(specs[i], 1, NULL) >= 1, "FARO_TCP_IF=%s: %s", specs[i], why);
        ck_assert_str_eq(ifs[0].name, "lo");
        ck_assert_int_eq(ifs[0].loopback, 1);
        ck_assert_ptr_nonnull(strstr(reason, "FARO_TCP_IF="));
    }
    char a[32];
    ck_assert_str_eq(faro_netif_str(ifs[0].addr, ifs[0].prefix, a, sizeof a), "127.0.0.1/8");
}
END_TEST

START_TEST(test_bad_specs)
{
    const char *bad[] = { "eth0/24", "10.0.0.0/33", "10.0.0.0/x", "^", "300.1.1.1/8" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_msg(choose(bad[i], 0, NULL) == -1, "FARO_TCP_IF=%s accepted", bad[i]);
        ck_assert_msg(strstr(why, "is not an interface name") != NULL, "%s: %s", bad[i], why);
    }
    ck_assert_int_eq(choose("nosuch0", 0, NULL), -1);
    ck_assert_ptr_nonnull(strstr(why, "FARO_TCP_IF=nosuch0 matches no IPv4 interface that is up"));
    ck_assert_ptr_nonnull(strstr(why, "lo 127.0.0.1/8")); /* what exists */
    char many[256] = "";
    for (int i = 0; i < 33; i++)
        strcat(many, "lo,");
    ck_assert_int_eq(choose(many, 0, NULL), -1);
    ck_assert_ptr_nonnull(strstr(why, "more than 32 entries"));
}
END_TEST

START_TEST(test_defaults)
{
    /* One node: loopback. */
    ck_assert_int_ge(choose("", 0, NULL), 1);
    ck_assert_str_eq(ifs[0].name, "lo");
    ck_assert_ptr_nonnull(strstr(reason, "every rank of the job is on this node"));
    /* Several hosts: never loopback, docker* or virbr* while another is up. */
    int n = choose("", 1, NULL);
    ck_assert_int_ge(n, 1);
    ck_assert_msg(!ifs[0].loopback || strstr(reason, "no other interface"),
                  "several hosts chose %s: %s", ifs[0].name, reason);
    for (int i = 0; i < n && !ifs[0].loopback; i++)
        ck_assert_msg(strncmp(ifs[i].name, "docker", 6) && strncmp(ifs[i].name, "virbr", 5),
                      "several hosts offered %s", ifs[i].name);
    /* Excluding loopback for one node leaves the others, or loopback-less
     * nothing. */
    n = choose("^lo", 0, NULL);
    for (int i = 0; i < n; i++)
        ck_assert_str_ne(ifs[i].name, "lo");
    if (n < 0)
        ck_assert_ptr_nonnull(strstr(why, "not excluded"));
}
END_TEST

START_TEST(test_hint)
{
    /* The launcher's connection went out of lo (a job whose hosts are all
     * this machine): lo first even for several hosts. */
    ck_assert_int_ge(choose("", 1, "lo"), 1);
    ck_assert_str_eq(ifs[0].name, "lo");
    ck_assert_ptr_nonnull(strstr(reason, "verified"));
    /* FARO_TCP_IF beats the hint; an excluded or unknown hint is ignored. */
    ck_assert_int_ge(choose("127.0.0.0/8", 1, "nosuch0"), 1);
    ck_assert_ptr_nonnull(strstr(reason, "FARO_TCP_IF"));
    int n = choose("^lo", 1, "lo");
    for (int i = 0; i < n; i++)
        ck_assert_str_ne(ifs[i].name, "lo");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("netif");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_loopback_specs);
    tcase_add_test(tc, test_bad_specs);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_hint);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
