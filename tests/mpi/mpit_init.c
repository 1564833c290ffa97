/*
 * MPI_T initialization order: calls before MPI_T_init_thread are refused
 * with MPI_T_ERR_NOT_INITIALIZED; init and finalize count (two inits need
 * two finalizes, one more finalize is refused); the interface works before
 * MPI_Init, across it, and after MPI_Finalize, and can start again there.
 */
#include "util.h"

static void expect_code(int rc, int want, const char *what)
{
    TU_ASSERT(rc == want, "%s returned %d (%s), expected %d (%s)", what, rc, tu_errstr(rc),
              want, tu_errstr(want));
}

/* One cvar read: the interface is usable. */
static int verbose(void)
{
    int i, count, v = -1;
    MPI_T_cvar_handle h;
    TU_CHECK(MPI_T_cvar_get_index("FARO_VERBOSE", &i));
    TU_CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    TU_CHECK(MPI_T_cvar_read(h, &v));
    TU_CHECK(MPI_T_cvar_handle_free(&h));
    return v;
}

int main(int argc, char **argv)
{
    tu_name = "mpit_init";
    int n, provided;
    expect_code(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED,
                "MPI_T_cvar_get_num before MPI_T_init_thread");
    expect_code(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED,
                "MPI_T_finalize before MPI_T_init_thread");
    TU_CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    TU_ASSERT(provided == MPI_THREAD_MULTIPLE, "MPI_T_init_thread provided %d", provided);
    TU_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    TU_ASSERT(verbose() == 0, "FARO_VERBOSE reads %d before MPI_Init", verbose());
    TU_CHECK(MPI_T_finalize());
    TU_CHECK(MPI_T_cvar_get_num(&n)); /* one init is still open */

    tu_init(&argc, &argv, "mpit_init");
    TU_ASSERT(verbose() == 0, "FARO_VERBOSE reads %d after MPI_Init", verbose());
    TU_CHECK(MPI_T_finalize());
    expect_code(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED,
                "MPI_T_cvar_get_num after the last MPI_T_finalize");
    expect_code(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED, "a third MPI_T_finalize");
    TU_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    alarm(0);
    int rank = tu_rank;
    TU_CHECK(MPI_Finalize());
    /* after MPI_Finalize: still usable, and can start again */
    TU_ASSERT(verbose() == 0, "FARO_VERBOSE reads %d after MPI_Finalize", verbose());
    TU_CHECK(MPI_T_finalize());
    TU_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    TU_CHECK(MPI_T_cvar_get_num(&n));
    TU_ASSERT(n > 0, "%d cvars after MPI_Finalize", n);
    TU_CHECK(MPI_T_finalize());
    if (rank == 0)
        printf("mpit_init: OK\n");
    return 0;
}
