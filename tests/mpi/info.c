/*
 * info: MPI_Info objects. Keys keep insertion order, setting a key again
 * replaces its value in place, delete of a missing key is
 * MPI_ERR_INFO_NOKEY, over-long keys and values are MPI_ERR_INFO_KEY and
 * MPI_ERR_INFO_VALUE, MPI_Info_get truncates to valuelen, dup copies, and
 * MPI_INFO_ENV can be read.
 */
#include "util.h"

static void check_class(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != want)
        tu_fail("%s: expected error class %d, got %s", what, want,
                rc == MPI_SUCCESS ? "MPI_SUCCESS" : tu_errstr(rc));
}

static void expect(MPI_Info info, const char *key, const char *want)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = -1, len = -1;
    TU_CHECK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag));
    if (!want) {
        TU_ASSERT(flag == 0, "key \"%s\" should be absent, has \"%s\"", key, v);
        TU_CHECK(MPI_Info_get_valuelen(info, key, &len, &flag));
        TU_ASSERT(flag == 0, "get_valuelen finds absent key \"%s\"", key);
        return;
    }
    TU_ASSERT(flag == 1 && strcmp(v, want) == 0, "key \"%s\": flag %d value \"%s\", expected \"%s\"",
              key, flag, flag ? v : "", want);
    TU_CHECK(MPI_Info_get_valuelen(info, key, &len, &flag));
    TU_ASSERT(flag == 1 && len == (int)strlen(want), "valuelen of \"%s\" is %d, expected %zu", key,
              len, strlen(want));
}

static void expect_keys(MPI_Info info, int n, const char *const *keys)
{
    int nk = -1;
    TU_CHECK(MPI_Info_get_nkeys(info, &nk));
    TU_ASSERT(nk == n, "nkeys %d, expected %d", nk, n);
    for (int i = 0; i < n; i++) {
        char k[MPI_MAX_INFO_KEY + 1];
        TU_CHECK(MPI_Info_get_nthkey(info, i, k));
        TU_ASSERT(strcmp(k, keys[i]) == 0, "key %d is \"%s\", expected \"%s\"", i, k, keys[i]);
    }
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "info");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    MPI_Info info, dup;
    TU_CHECK(MPI_Info_create(&info));
    expect_keys(info, 0, NULL);
    TU_CHECK(MPI_Info_set(info, "zeta", "1"));
    TU_CHECK(MPI_Info_set(info, "alpha", "two"));
    TU_CHECK(MPI_Info_set(info, "mid", "three"));
    TU_CHECK(MPI_Info_set(info, "alpha", "TWO")); /* replaced, keeps its place */
    expect_keys(info, 3, (const char *const[]){"zeta", "alpha", "mid"});
    expect(info, "alpha", "TWO");
    expect(info, "nothere", NULL);

    /* truncation: valuelen characters and a terminator */
    char v[8];
    int flag;
    memset(v, 'X', sizeof v);
    TU_CHECK(MPI_Info_get(info, "mid", 3, v, &flag));
    TU_ASSERT(flag && strcmp(v, "thr") == 0, "get with valuelen 3 gave \"%.8s\"", v);

    /* MPI_Info_get_string (MPI 4): buflen in and out */
    int buflen = 0;
    TU_CHECK(MPI_Info_get_string(info, "mid", &buflen, NULL, &flag));
    TU_ASSERT(flag && buflen == 6, "get_string size query: flag %d buflen %d", flag, buflen);
    buflen = 4;
    TU_CHECK(MPI_Info_get_string(info, "mid", &buflen, v, &flag));
    TU_ASSERT(flag && buflen == 6 && strcmp(v, "thr") == 0, "get_string short: \"%s\" %d", v,
              buflen);

    TU_CHECK(MPI_Info_dup(info, &dup));
    TU_CHECK(MPI_Info_delete(info, "zeta"));
    expect_keys(info, 2, (const char *const[]){"alpha", "mid"});
    expect_keys(dup, 3, (const char *const[]){"zeta", "alpha", "mid"});
    expect(dup, "zeta", "1");
    check_class(MPI_Info_delete(info, "zeta"), MPI_ERR_INFO_NOKEY, "delete of a missing key");

    /* limits */
    char key[MPI_MAX_INFO_KEY + 2], val[MPI_MAX_INFO_VAL + 2];
    memset(key, 'k', sizeof key);
    key[MPI_MAX_INFO_KEY] = '\0';
    TU_CHECK(MPI_Info_set(info, key, "ok")); /* exactly the limit */
    key[MPI_MAX_INFO_KEY] = 'k';
    key[MPI_MAX_INFO_KEY + 1] = '\0';
    check_class(MPI_Info_set(info, key, "x"), MPI_ERR_INFO_KEY, "key over MPI_MAX_INFO_KEY");
    check_class(MPI_Info_set(info, "", "x"), MPI_ERR_INFO_KEY, "empty key");
    memset(val, 'v', sizeof val);
    val[MPI_MAX_INFO_VAL] = '\0';
    TU_CHECK(MPI_Info_set(info, "big", val));
    val[MPI_MAX_INFO_VAL] = 'v';
    val[MPI_MAX_INFO_VAL + 1] = '\0';
    check_class(MPI_Info_set(info, "big", val), MPI_ERR_INFO_VALUE, "value over MPI_MAX_INFO_VAL");
    check_class(MPI_Info_get_nthkey(info, 99, key), MPI_ERR_ARG, "nthkey out of range");
    check_class(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO, "MPI_INFO_NULL");

    /* MPI_INFO_ENV: readable, not freeable */
    int n = -1;
    TU_CHECK(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    TU_ASSERT(n >= 0, "MPI_INFO_ENV nkeys %d", n);
    TU_CHECK(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, val, &flag));
    if (flag && tu_rank == 0)
        printf("info: MPI_INFO_ENV has %d keys, command=%s\n", n, val);
    MPI_Info env = MPI_INFO_ENV;
    check_class(MPI_Info_free(&env), MPI_ERR_INFO, "freeing MPI_INFO_ENV");

    TU_CHECK(MPI_Info_free(&info));
    TU_CHECK(MPI_Info_free(&dup));
    TU_ASSERT(info == MPI_INFO_NULL && dup == MPI_INFO_NULL, "MPI_Info_free left the handle set");
    tu_finish();
    return 0;
}
