/*
 * MPI_T events and sources: Faro defines no event types and one source (the
 * monotonic clock). The counts say so in every category, the calls on an
 * event index or registration refuse with the standard's codes, and the
 * source's timestamps move forward at the rate it states.
 */
#include <time.h>

#include "util.h"

static void expect_code(int rc, int want, const char *what)
{
    TU_ASSERT(rc == want, "%s returned %d (%s), expected %d (%s)", what, rc, tu_errstr(rc),
              want, tu_errstr(want));
}

static void callback(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s,
                     void *user)
{
    (void)e, (void)r, (void)s, (void)user;
}

int main(int argc, char **argv)
{
    int provided, n = -1, ncat, idx;
    TU_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    tu_init(&argc, &argv, "mpit_event");
    TU_CHECK(MPI_T_event_get_num(&n));
    TU_ASSERT(n == 0, "MPI_T_event_get_num says %d, Faro defines none", n);
    TU_CHECK(MPI_T_category_get_num(&ncat));
    for (int c = 0; c < ncat; c++) {
        int ne = -1;
        TU_CHECK(MPI_T_category_get_num_events(c, &ne));
        TU_ASSERT(ne == 0, "category %d has %d events", c, ne);
        TU_CHECK(MPI_T_category_get_events(c, 0, NULL));
    }
    expect_code(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL, NULL), MPI_T_ERR_INVALID_INDEX,
                "MPI_T_event_get_info(0)");
    expect_code(MPI_T_event_get_index("any", &idx), MPI_T_ERR_INVALID_NAME,
                "MPI_T_event_get_index");
    MPI_T_event_registration reg = MPI_T_EVENT_REGISTRATION_NULL;
    expect_code(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX,
                "MPI_T_event_handle_alloc(0)");
    expect_code(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL,
                                              callback), MPI_T_ERR_INVALID_HANDLE,
                "MPI_T_event_register_callback on the null registration");
    expect_code(MPI_T_event_handle_free(reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE,
                "MPI_T_event_handle_free on the null registration");

    TU_CHECK(MPI_T_source_get_num(&n));
    TU_ASSERT(n == 1, "MPI_T_source_get_num says %d, expected 1", n);
    char name[64];
    int len = sizeof name, dlen = 0;
    MPI_T_source_order order;
    MPI_Count tps, max, t0, t1;
    MPI_Info info;
    TU_CHECK(MPI_T_source_get_info(0, name, &len, NULL, &dlen, &order, &tps, &max, &info));
    TU_ASSERT(len > 1 && dlen > 1 && order == MPI_T_SOURCE_ORDERED && tps > 0 && max > 0,
              "source 0: '%s', order %d, %lld ticks/s, max %lld", name, (int)order,
              (long long)tps, (long long)max);
    if (info != MPI_INFO_NULL)
        TU_CHECK(MPI_Info_free(&info));
    TU_CHECK(MPI_T_source_get_timestamp(0, &t0));
    struct timespec ms = {0, 2000000};
    nanosleep(&ms, NULL);
    TU_CHECK(MPI_T_source_get_timestamp(0, &t1));
    TU_ASSERT(t1 - t0 >= tps / 500, "2 ms of sleep moved the source %lld ticks (%lld/s)",
              (long long)(t1 - t0), (long long)tps);
    expect_code(MPI_T_source_get_timestamp(1, &t0), MPI_T_ERR_INVALID_INDEX,
                "MPI_T_source_get_timestamp(1)");
    TU_CHECK(MPI_T_finalize());
    tu_finish();
    return 0;
}
