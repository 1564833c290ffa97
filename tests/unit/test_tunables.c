/*
 * Unit tests for the tunables table: parsing of every type, range checks,
 * error texts, defaults, isset, and the once-only warning about unknown names.
 * Check runs each test in its own process, so environment and static state
 * do not leak between tests.
 */
/* Included, not linked, so the static parsers can be tested directly
 * (no BOOL tunable exists yet); the test links log.c only. */
#include "base/tunables.c"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Run faro_tunables_load with stderr captured into buf; returns load's result. */
static int load_captured(char *err, size_t errlen, char *buf, size_t buflen)
{
    fflush(stderr);
    FILE *tmp = tmpfile();
    ck_assert_ptr_nonnull(tmp);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    int rc = faro_tunables_load(err, errlen);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, buflen - 1, tmp);
    buf[n] = 0;
    fclose(tmp);
    return rc;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

START_TEST(test_defaults)
{
    char err[512] = "";
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_RNDV_PIPELINE_DEPTH), 8);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_SHM_SLOT_SIZE), 32 * 1024);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_TCP_FRAG_SIZE), 256 * 1024);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_WAIT_POLICY), 2); /* auto */
    ck_assert_int_eq(faro_tun_isset(FARO_TUN_RNDV_PIPELINE_DEPTH), 0);
    ck_assert_str_eq(faro_tun_str(FARO_TUN_TRANSPORTS), "shm,tcp");
    /* "(per transport)" is no value: -1 and not set. */
    ck_assert_int_eq(faro_tun_int(FARO_TUN_EAGER_LIMIT), -1);
    ck_assert_int_eq(faro_tun_isset(FARO_TUN_EAGER_LIMIT), 0);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_RNDV_FRAG_SIZE), -1);
    /* A placeholder STRING default has no text. */
    ck_assert_str_eq(faro_tun_str(FARO_TUN_CC), "");
}
END_TEST

START_TEST(test_getters_before_load)
{
    ck_assert_int_eq(faro_tun_int(FARO_TUN_SHM_SLOTS), 32);
    ck_assert_int_eq(faro_tun_isset(FARO_TUN_SHM_SLOTS), 0);
}
END_TEST

START_TEST(test_size_suffixes)
{
    static const struct { const char *text; long long want; } cases[] = {
        {"0", 0}, {"100", 100}, {"64k", 65536}, {"64K", 65536}, {"2m", 2 << 20},
        {"2M", 2 << 20}, {"1g", 1LL << 30}, {"1G", 1LL << 30}, {" 8k ", 8192},
    };
    char err[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long long v = -5;
        ck_assert_msg(faro_tun_parse(FARO_TUN_EAGER_LIMIT, cases[i].text, &v, err, sizeof err) == 0,
                      "%s: %s", cases[i].text, err);
        ck_assert_int_eq(v, cases[i].want);
    }
    setenv("FARO_EAGER_LIMIT", "16k", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_EAGER_LIMIT), 16384);
    ck_assert_int_eq(faro_tun_isset(FARO_TUN_EAGER_LIMIT), 1);
    ck_assert_str_eq(faro_tun_str(FARO_TUN_EAGER_LIMIT), "16k");
}
END_TEST

START_TEST(test_size_bad)
{
    static const char *const bad[] = {"12x", "", "-1", "k", "1.5k", "2g", "64kk",
                                      "99999999999999999999", "1t"};
    char err[512];
    long long v;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(faro_tun_parse(FARO_TUN_EAGER_LIMIT, bad[i], &v, err, sizeof err) == -1,
                      "%s accepted", bad[i]);

    setenv("FARO_EAGER_LIMIT", "12x", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), -1);
    ck_assert_str_eq(err, "FARO_EAGER_LIMIT=12x is invalid: expected a size in bytes from 0 to "
                          "1073741824 (suffixes k, m, g; e.g. 64k)");
    /* The bad value leaves the default in place. */
    ck_assert_int_eq(faro_tun_isset(FARO_TUN_EAGER_LIMIT), 0);
}
END_TEST

START_TEST(test_size_range)
{
    char err[512];
    long long v;
    /* SHM_SLOT_SIZE is 4096..4194304. */
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_SHM_SLOT_SIZE, "4k", &v, err, sizeof err), 0);
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_SHM_SLOT_SIZE, "4m", &v, err, sizeof err), 0);
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_SHM_SLOT_SIZE, "4095", &v, err, sizeof err), -1);
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_SHM_SLOT_SIZE, "5m", &v, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "FARO_SHM_SLOT_SIZE=5m is invalid"));
    ck_assert_ptr_nonnull(strstr(err, "from 4096 to 4194304"));
}
END_TEST

START_TEST(test_int)
{
    char err[512];
    long long v;
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_VERBOSE, "3", &v, err, sizeof err), 0);
    ck_assert_int_eq(v, 3);
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_VERBOSE, "4", &v, err, sizeof err), -1);
    ck_assert_str_eq(err, "FARO_VERBOSE=4 is invalid: expected an integer from 0 to 3");
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_VERBOSE, "-1", &v, err, sizeof err), -1);
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_VERBOSE, "1k", &v, err, sizeof err), -1);
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_VERBOSE, "two", &v, err, sizeof err), -1);

    setenv("FARO_RNDV_PIPELINE_DEPTH", "16", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_RNDV_PIPELINE_DEPTH), 16);
    ck_assert_int_eq(faro_tun_isset(FARO_TUN_RNDV_PIPELINE_DEPTH), 1);
}
END_TEST

START_TEST(test_enum)
{
    char err[512];
    setenv("FARO_WAIT_POLICY", "yield", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_WAIT_POLICY), 1);
    setenv("FARO_WAIT_POLICY", "SPIN", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_WAIT_POLICY), 0);

    setenv("FARO_WAIT_POLICY", "fast", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), -1);
    ck_assert_str_eq(err, "FARO_WAIT_POLICY=fast is invalid: expected one of spin, yield, auto");
    /* A prefix of a choice is not a choice. */
    long long v;
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_WAIT_POLICY, "spi", &v, err, sizeof err), -1);
    ck_assert_int_eq(faro_tun_parse(FARO_TUN_WAIT_POLICY, "", &v, err, sizeof err), -1);
}
END_TEST

START_TEST(test_bool)
{
    static const char *const yes[] = {"1", "yes", "on", "true", "YES", "True"};
    static const char *const no[] = {"0", "no", "off", "false", "OFF"};
    static const char *const bad[] = {"2", "y", "", "enable", "yess"};
    long long v;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        v = -1;
        ck_assert_msg(parse_bool(yes[i], &v) == 0 && v == 1, "%s", yes[i]);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        v = -1;
        ck_assert_msg(parse_bool(no[i], &v) == 0 && v == 0, "%s", no[i]);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(parse_bool(bad[i], &v) == -1, "%s accepted", bad[i]);
}
END_TEST

START_TEST(test_string)
{
    char err[512];
    setenv("FARO_TCP_IF", "eth0", 1);
    setenv("FARO_CC", "clang", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_str_eq(faro_tun_str(FARO_TUN_TCP_IF), "eth0");
    ck_assert_str_eq(faro_tun_str(FARO_TUN_CC), "clang");
    ck_assert_int_eq(faro_tun_isset(FARO_TUN_CC), 1);
    /* Unset again: back to the default after a reload. */
    unsetenv("FARO_TCP_IF");
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_str_eq(faro_tun_str(FARO_TUN_TCP_IF), "");
    ck_assert_int_eq(faro_tun_isset(FARO_TUN_TCP_IF), 0);
}
END_TEST

START_TEST(test_empty_number_is_unset)
{
    char err[512];
    setenv("FARO_SHM_SLOTS", "", 1);
    ck_assert_int_eq(faro_tunables_load(err, sizeof err), 0);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_SHM_SLOTS), 32);
    ck_assert_int_eq(faro_tun_isset(FARO_TUN_SHM_SLOTS), 0);
}
END_TEST

START_TEST(test_unknown_warns_once)
{
    char err[512], out[4096];
    setenv("FARO_EAGR_LIMIT", "1k", 1);
    setenv("FARO_COMPLETELY_DIFFERENT_THING", "1", 1);
    setenv("FARO_INTERNAL_JOB", "x", 1); /* launcher plumbing: never warned */
    ck_assert_int_eq(load_captured(err, sizeof err, out, sizeof out), 0);
    ck_assert_int_eq(count(out, "FARO_EAGR_LIMIT is not a Faro tunable (did you mean "
                                "FARO_EAGER_LIMIT?); see faro_info --all"), 1);
    ck_assert_int_eq(count(out, "FARO_COMPLETELY_DIFFERENT_THING is not a Faro tunable; see "
                                "faro_info --all"), 1);
    ck_assert_ptr_null(strstr(out, "FARO_INTERNAL_JOB"));
    ck_assert_ptr_null(strstr(out, "FARO_EAGER_LIMIT is not"));

    /* Second load: same environment, no new warnings. */
    ck_assert_int_eq(load_captured(err, sizeof err, out, sizeof out), 0);
    ck_assert_str_eq(out, "");

    /* A new unknown name still gets its one warning. */
    setenv("FARO_TCP_FRAGSIZE", "1", 1);
    ck_assert_int_eq(load_captured(err, sizeof err, out, sizeof out), 0);
    ck_assert_int_eq(count(out, "is not a Faro tunable"), 1);
    ck_assert_ptr_nonnull(strstr(out, "did you mean FARO_TCP_FRAG_SIZE?"));
}
END_TEST

START_TEST(test_first_error_reported)
{
    char err[512], out[1024];
    setenv("FARO_VERBOSE", "9", 1);
    setenv("FARO_WAIT_POLICY", "fast", 1);
    ck_assert_int_eq(load_captured(err, sizeof err, out, sizeof out), -1);
    /* Table order decides which is reported: WAIT_POLICY precedes VERBOSE. */
    ck_assert_ptr_nonnull(strstr(err, "FARO_WAIT_POLICY=fast"));
    ck_assert_ptr_null(strstr(err, "FARO_VERBOSE"));
    /* Bad values keep their defaults. */
    ck_assert_int_eq(faro_tun_int(FARO_TUN_VERBOSE), 0);
    ck_assert_int_eq(faro_tun_int(FARO_TUN_WAIT_POLICY), 2);
}
END_TEST

START_TEST(test_table_defaults_parse)
{
    /* Every default is a placeholder "(...)" or parses: a typo in the table fails here. */
    char err[512];
    for (int i = 0; i < FARO_TUN_COUNT; i++) {
        const struct faro_tunable_desc *d = &faro_tunable_table[i];
        ck_assert_msg(strncmp(d->name, "FARO_", 5) == 0, "%s", d->name);
        ck_assert_msg(d->summary[0] && d->description[0], "%s lacks text", d->name);
        if (d->def[0] == '(')
            continue;
        long long v;
        ck_assert_msg(faro_tun_parse(i, d->def, &v, err, sizeof err) == 0, "default: %s", err);
        if (d->type == FARO_TUN_TYPE_ENUM)
            ck_assert_msg(d->choices[0], "%s: ENUM without choices", d->name);
    }
}
END_TEST

/* Each test starts from an environment without FARO_* settings (the caller's
 * or an earlier test's, when CK_FORK=no). */
static void clear_faro_env(void)
{
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; *e; e++) {
            if (strncmp(*e, "FARO_", 5) == 0) {
                char name[256];
                size_t n = strcspn(*e, "=");
                if (n >= sizeof name)
                    continue;
                memcpy(name, *e, n);
                name[n] = 0;
                unsetenv(name);
                again = 1;
                break;
            }
        }
    }
}

static Suite *tunables_suite(void)
{
    Suite *s = suite_create("tunables");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, clear_faro_env, NULL);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_getters_before_load);
    tcase_add_test(tc, test_size_suffixes);
    tcase_add_test(tc, test_size_bad);
    tcase_add_test(tc, test_size_range);
    tcase_add_test(tc, test_int);
    tcase_add_test(tc, test_enum);
    tcase_add_test(tc, test_bool);
    tcase_add_test(tc, test_string);
    tcase_add_test(tc, test_empty_number_is_unset);
    tcase_add_test(tc, test_unknown_warns_once);
    tcase_add_test(tc, test_first_error_reported);
    tcase_add_test(tc, test_table_defaults_parse);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tunables_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
