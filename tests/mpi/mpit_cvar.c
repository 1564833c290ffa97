/*
 * MPI_T control variables (one per FARO_* tunable): every one enumerates with
 * a unique name, a valid type, scope and binding, and its index round-trips;
 * values read match what the environment set; a write between
 * MPI_T_init_thread and MPI_Init is the value MPI_Init uses (over the
 * environment's); writes the scope forbids, and bad values, are refused with
 * the standard's codes and leave the value alone.
 *
 * The test list sets FARO_RNDV_PIPELINE_DEPTH=5 and FARO_RNDV_PROTOCOL=pipeline.
 */
#include "util.h"

static int index_of(const char *name)
{
    int i = -1;
    TU_CHECK(MPI_T_cvar_get_index(name, &i));
    return i;
}

static MPI_T_cvar_handle handle(const char *name, int *count)
{
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    TU_CHECK(MPI_T_cvar_handle_alloc(index_of(name), NULL, &h, count));
    TU_ASSERT(h != MPI_T_CVAR_HANDLE_NULL, "%s: handle_alloc gave the null handle", name);
    return h;
}

static int read_int(const char *name)
{
    int count, v = -12345;
    MPI_T_cvar_handle h = handle(name, &count);
    TU_ASSERT(count == 1, "%s: count %d, expected 1", name, count);
    TU_CHECK(MPI_T_cvar_read(h, &v));
    TU_CHECK(MPI_T_cvar_handle_free(&h));
    TU_ASSERT(h == MPI_T_CVAR_HANDLE_NULL, "%s: handle_free left the handle set", name);
    return v;
}

static int write_int(const char *name, int v)
{
    int count;
    MPI_T_cvar_handle h = handle(name, &count);
    int rc = MPI_T_cvar_write(h, &v);
    TU_CHECK(MPI_T_cvar_handle_free(&h));
    return rc;
}

static void expect_code(int rc, int want, const char *what)
{
    TU_ASSERT(rc == want, "%s returned %d (%s), expected %d (%s)", what, rc, tu_errstr(rc),
              want, tu_errstr(want));
}

/* Every cvar: info, a unique name, index round-trip, a readable value. */
static void enumerate(void)
{
    int n = 0;
    TU_CHECK(MPI_T_cvar_get_num(&n));
    TU_ASSERT(n >= 50, "MPI_T_cvar_get_num: %d control variables, expected one per tunable", n);
    char (*names)[128] = calloc((size_t)n, sizeof *names);
    for (int i = 0; i < n; i++) {
        int len = 0, verbosity, bind, scope, desc_len = 0;
        MPI_Datatype dt;
        MPI_T_enum et;
        /* lengths first (NULL buffers), then the strings */
        TU_CHECK(MPI_T_cvar_get_info(i, NULL, &len, &verbosity, &dt, &et, NULL, &desc_len,
                                     &bind, &scope));
        TU_ASSERT(len > 1 && len <= 128, "cvar %d: name length %d", i, len);
        TU_ASSERT(desc_len > 1, "cvar %d: description length %d", i, desc_len);
        int len2 = len;
        TU_CHECK(MPI_T_cvar_get_info(i, names[i], &len2, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL));
        TU_ASSERT(len2 == len && (int)strlen(names[i]) == len - 1,
                  "cvar %d: name '%s' of length %d, the first call said %d", i, names[i],
                  len2, len);
        TU_ASSERT(strncmp(names[i], "FARO_", 5) == 0, "cvar %d: name '%s'", i, names[i]);
        for (int j = 0; j < i; j++)
            TU_ASSERT(strcmp(names[i], names[j]) != 0, "cvars %d and %d are both '%s'", j, i,
                      names[i]);
        TU_ASSERT(index_of(names[i]) == i, "MPI_T_cvar_get_index('%s') is not %d", names[i], i);
        TU_ASSERT(dt == MPI_INT || dt == MPI_COUNT || dt == MPI_CHAR,
                  "cvar %s: datatype is not MPI_INT, MPI_COUNT or MPI_CHAR", names[i]);
        TU_ASSERT(verbosity >= MPI_T_VERBOSITY_USER_BASIC &&
                  verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL, "cvar %s: verbosity %d", names[i],
                  verbosity);
        TU_ASSERT(bind == MPI_T_BIND_NO_OBJECT, "cvar %s: bind %d", names[i], bind);
        TU_ASSERT(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ,
                  "cvar %s: scope %d", names[i], scope);
        if (et != MPI_T_ENUM_NULL) {
            int items = 0, elen = 0;
            TU_ASSERT(dt == MPI_INT, "cvar %s: an enumeration that is not MPI_INT", names[i]);
            TU_CHECK(MPI_T_enum_get_info(et, &items, NULL, &elen));
            TU_ASSERT(items >= 2, "cvar %s: enumeration of %d items", names[i], items);
            for (int k = 0; k < items; k++) {
                char item[64];
                int value = -1, ilen = sizeof item;
                TU_CHECK(MPI_T_enum_get_item(et, k, &value, item, &ilen));
                TU_ASSERT(ilen > 1 && value == k, "cvar %s: item %d is '%s' (value %d)",
                          names[i], k, item, value);
            }
            int value;
            expect_code(MPI_T_enum_get_item(et, items, &value, NULL, NULL),
                        MPI_T_ERR_INVALID_ITEM, "MPI_T_enum_get_item past the last item");
        }
        int count;
        MPI_T_cvar_handle h;
        TU_CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        TU_ASSERT(dt == MPI_CHAR ? count > 1 : count == 1, "cvar %s: count %d", names[i], count);
        char buf[4096];
        TU_ASSERT((size_t)count <= sizeof buf, "cvar %s: count %d", names[i], count);
        TU_CHECK(MPI_T_cvar_read(h, buf));
        TU_CHECK(MPI_T_cvar_handle_free(&h));
    }
    free(names);
    int info_len = 0;
    expect_code(MPI_T_cvar_get_info(n, NULL, &info_len, NULL, NULL, NULL, NULL, NULL, NULL,
                                    NULL), MPI_T_ERR_INVALID_INDEX, "MPI_T_cvar_get_info(num)");
    int idx;
    expect_code(MPI_T_cvar_get_index("FARO_NO_SUCH_TUNABLE", &idx), MPI_T_ERR_INVALID_NAME,
                "MPI_T_cvar_get_index of an unknown name");
}

int main(int argc, char **argv)
{
    tu_name = "mpit_cvar";
    int provided = -1;
    TU_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    TU_ASSERT(provided == MPI_THREAD_SINGLE, "MPI_T_init_thread provided %d", provided);
    enumerate();

    /* values from the environment, before MPI_Init */
    TU_ASSERT(read_int("FARO_RNDV_PIPELINE_DEPTH") == 5,
              "FARO_RNDV_PIPELINE_DEPTH reads %d, the environment says 5",
              read_int("FARO_RNDV_PIPELINE_DEPTH"));
    MPI_T_enum et;
    TU_CHECK(MPI_T_cvar_get_info(index_of("FARO_RNDV_PROTOCOL"), NULL, NULL, NULL, NULL, &et,
                                 NULL, NULL, NULL, NULL));
    char item[64];
    int value, ilen = sizeof item, proto = read_int("FARO_RNDV_PROTOCOL");
    TU_CHECK(MPI_T_enum_get_item(et, proto, &value, item, &ilen));
    TU_ASSERT(strcmp(item, "pipeline") == 0, "FARO_RNDV_PROTOCOL reads %d ('%s'), the "
              "environment says pipeline", proto, item);
    int count;
    char text[2048];
    const char *env_tp = getenv("FARO_TRANSPORTS");
    MPI_T_cvar_handle h = handle("FARO_TRANSPORTS", &count);
    TU_ASSERT(count > 1 && (size_t)count <= sizeof text, "FARO_TRANSPORTS: count %d", count);
    TU_CHECK(MPI_T_cvar_read(h, text));
    TU_ASSERT(strcmp(text, env_tp ? env_tp : "shm,tcp") == 0, "FARO_TRANSPORTS reads '%s', "
              "expected '%s'", text, env_tp ? env_tp : "shm,tcp");
    TU_CHECK(MPI_T_cvar_handle_free(&h));

    /* bad values: refused, the value stays */
    expect_code(write_int("FARO_RNDV_PIPELINE_DEPTH", 0), MPI_T_ERR_INVALID,
                "writing 0 to FARO_RNDV_PIPELINE_DEPTH (range 1..1024)");
    expect_code(write_int("FARO_RNDV_PROTOCOL", 99), MPI_T_ERR_INVALID,
                "writing choice 99 to FARO_RNDV_PROTOCOL");
    TU_ASSERT(read_int("FARO_RNDV_PIPELINE_DEPTH") == 5, "a refused write changed "
              "FARO_RNDV_PIPELINE_DEPTH to %d", read_int("FARO_RNDV_PIPELINE_DEPTH"));
    /* a write before MPI_Init is what MPI_Init uses, over the environment */
    TU_CHECK(write_int("FARO_RNDV_PIPELINE_DEPTH", 7));
    TU_CHECK(write_int("FARO_RNDV_PROTOCOL", 0)); /* auto */

    tu_init(&argc, &argv, "mpit_cvar");
    TU_ASSERT(read_int("FARO_RNDV_PIPELINE_DEPTH") == 7, "after MPI_Init "
              "FARO_RNDV_PIPELINE_DEPTH reads %d, written 7 before MPI_Init",
              read_int("FARO_RNDV_PIPELINE_DEPTH"));
    TU_ASSERT(read_int("FARO_RNDV_PROTOCOL") == 0, "after MPI_Init FARO_RNDV_PROTOCOL reads "
              "%d, written 0 (auto) before", read_int("FARO_RNDV_PROTOCOL"));

    /* after MPI_Init: read-at-init ones refuse, live ones take the value */
    expect_code(write_int("FARO_RNDV_PIPELINE_DEPTH", 3), MPI_T_ERR_CVAR_SET_NEVER,
                "writing FARO_RNDV_PIPELINE_DEPTH after MPI_Init");
    TU_ASSERT(read_int("FARO_RNDV_PIPELINE_DEPTH") == 7, "a refused write changed "
              "FARO_RNDV_PIPELINE_DEPTH to %d", read_int("FARO_RNDV_PIPELINE_DEPTH"));
    int scope;
    TU_CHECK(MPI_T_cvar_get_info(index_of("FARO_CC"), NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL, &scope));
    TU_ASSERT(scope == MPI_T_SCOPE_CONSTANT, "FARO_CC: scope %d, expected constant", scope);
    h = handle("FARO_CC", &count);
    expect_code(MPI_T_cvar_write(h, "gcc"), MPI_T_ERR_CVAR_SET_NEVER, "writing FARO_CC");
    TU_CHECK(MPI_T_cvar_handle_free(&h));
    TU_CHECK(write_int("FARO_CONNECT_TIMEOUT", 42));
    TU_ASSERT(read_int("FARO_CONNECT_TIMEOUT") == 42, "FARO_CONNECT_TIMEOUT reads %d after "
              "writing 42", read_int("FARO_CONNECT_TIMEOUT"));
    expect_code(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE,
                "MPI_T_cvar_handle_free of a freed handle");

    char msg[MPI_MAX_ERROR_STRING];
    int len, cls;
    TU_CHECK(MPI_Error_string(MPI_T_ERR_CVAR_SET_NOT_NOW, msg, &len));
    TU_ASSERT(strstr(msg, "MPI_T_ERR_CVAR_SET_NOT_NOW"), "MPI_Error_string says '%s'", msg);
    TU_CHECK(MPI_Error_class(MPI_T_ERR_INVALID, &cls));
    TU_ASSERT(cls == MPI_T_ERR_INVALID, "MPI_Error_class(MPI_T_ERR_INVALID) is %d", cls);
    TU_CHECK(MPI_T_finalize());
    tu_finish();
    return 0;
}
