/*
 * Sessions (MPI-4.0), without MPI_Init: a session, its psets, a
 * communicator from "mpi://WORLD" doing an allreduce, one from "mpi://SELF",
 * an intercommunicator from two halves of the world, the session's
 * errhandler (predefined and the program's), info, integer handles, bad pset
 * names; MPI_Initialized stays false throughout. After the last
 * MPI_Session_finalize a new MPI_Session_init fails with MPI_ERR_OTHER
 * (Faro cannot start the runtime twice in one process).
 */
#include "util.h"

static int handler_calls, handler_code;
static MPI_Session handler_session;

static void on_error(MPI_Session *s, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_session = *s;
}

static void expect_class(int rc, int cls, const char *fn, const char *what)
{
    tu_expect(rc, cls, fn, what);
}

int main(void)
{
    tu_name = "session";
    tu_arm_alarm(60);
    MPI_Session s;
    int flag = 1;
    TU_CHECK(MPI_Initialized(&flag));
    TU_ASSERT(!flag, "MPI_Initialized is true before anything");
    MPI_Info info;
    TU_CHECK(MPI_Info_create(&info));
    TU_CHECK(MPI_Info_set(info, "thread_level", "MPI_THREAD_SERIALIZED"));
    TU_CHECK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    TU_CHECK(MPI_Info_free(&info));
    TU_CHECK(MPI_Initialized(&flag));
    TU_ASSERT(!flag, "MPI_Initialized is true with only a session open");

    /* psets */
    int n = 0;
    TU_CHECK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    TU_ASSERT(n >= 2, "get_num_psets gave %d, expected at least 2", n);
    int have_world = 0, have_self = 0;
    for (int i = 0; i < n; i++) {
        char name[MPI_MAX_PSET_NAME_LEN];
        int len = 0;
        TU_CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        TU_ASSERT(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d: length %d", i, len);
        int len2 = (int)sizeof name;
        TU_CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len2, name));
        TU_ASSERT(len2 == len && (int)strlen(name) + 1 == len,
                  "pset %d: \"%s\" with lengths %d and %d", i, name, len, len2);
        have_world |= strcmp(name, "mpi://WORLD") == 0;
        have_self |= strcmp(name, "mpi://SELF") == 0;
    }
    TU_ASSERT(have_world && have_self, "the psets lack mpi://WORLD or mpi://SELF");

    /* a communicator over the world pset: rank, size, allreduce */
    MPI_Group wg;
    MPI_Comm comm;
    TU_CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &wg));
    TU_CHECK(MPI_Comm_create_from_group(wg, "org.faro.test.world", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &comm));
    int rank, size, gsize;
    TU_CHECK(MPI_Comm_rank(comm, &rank));
    TU_CHECK(MPI_Comm_size(comm, &size));
    TU_CHECK(MPI_Group_size(wg, &gsize));
    tu_rank = rank;
    tu_size = size;
    TU_ASSERT(size == gsize, "the world communicator has %d ranks, its group %d", size, gsize);
    MPI_Info pinfo;
    char val[64];
    int found = 0;
    TU_CHECK(MPI_Session_get_pset_info(s, "mpi://WORLD", &pinfo));
    TU_CHECK(MPI_Info_get(pinfo, "mpi_size", sizeof val - 1, val, &found));
    TU_ASSERT(found && atoi(val) == size, "pset info mpi_size is %s, expected %d",
              found ? val : "(absent)", size);
    TU_CHECK(MPI_Info_free(&pinfo));
    int sum = -1;
    TU_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
    TU_ASSERT(sum == size * (size - 1) / 2, "allreduce over mpi://WORLD gave %d, expected %d",
              sum, size * (size - 1) / 2);
    MPI_Errhandler eh;
    TU_CHECK(MPI_Comm_get_errhandler(comm, &eh));
    TU_ASSERT(eh == MPI_ERRORS_RETURN, "the new communicator lacks the errhandler given");
    TU_CHECK(MPI_Errhandler_free(&eh));

    /* self */
    MPI_Group sg;
    MPI_Comm self;
    TU_CHECK(MPI_Group_from_session_pset(s, "mpi://self", &sg)); /* names ignore case */
    TU_CHECK(MPI_Comm_create_from_group(sg, "org.faro.test.self", MPI_INFO_NULL,
                                        MPI_ERRHANDLER_NULL, &self));
    int ssize = 0;
    TU_CHECK(MPI_Comm_size(self, &ssize));
    TU_ASSERT(ssize == 1, "the self communicator has %d ranks", ssize);

    /* an intercommunicator between the two halves of the world */
    if (size >= 2) {
        int half = size / 2, low = rank < half;
        int lo[2] = {0, half - 1}, hi[2] = {half, size - 1};
        int range_lo[1][3] = {{lo[0], lo[1], 1}}, range_hi[1][3] = {{hi[0], hi[1], 1}};
        MPI_Group glo, ghi;
        TU_CHECK(MPI_Group_range_incl(wg, 1, range_lo, &glo));
        TU_CHECK(MPI_Group_range_incl(wg, 1, range_hi, &ghi));
        MPI_Comm inter;
        TU_CHECK(MPI_Intercomm_create_from_groups(low ? glo : ghi, 0, low ? ghi : glo, 0,
                                                  "org.faro.test.inter", MPI_INFO_NULL,
                                                  MPI_ERRORS_RETURN, &inter));
        int rsize = 0, isum = -1;
        TU_CHECK(MPI_Comm_remote_size(inter, &rsize));
        TU_ASSERT(rsize == (low ? size - half : half), "intercomm remote size %d", rsize);
        TU_CHECK(MPI_Allreduce(&rank, &isum, 1, MPI_INT, MPI_SUM, inter));
        int want = 0;
        for (int r = low ? half : 0; r < (low ? size : half); r++)
            want += r;
        TU_ASSERT(isum == want, "allreduce over the intercommunicator gave %d, expected %d",
                  isum, want);
        TU_CHECK(MPI_Comm_free(&inter));
        TU_CHECK(MPI_Group_free(&glo));
        TU_CHECK(MPI_Group_free(&ghi));
    }

    /* bad pset names, under MPI_ERRORS_RETURN */
    MPI_Group bad = MPI_GROUP_NULL;
    expect_class(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &bad), MPI_ERR_ARG,
                 "MPI_Group_from_session_pset", "unknown pset");
    expect_class(MPI_Group_from_session_pset(s, "", &bad), MPI_ERR_ARG,
                 "MPI_Group_from_session_pset", "empty pset name");
    expect_class(MPI_Group_from_session_pset(s, NULL, &bad), MPI_ERR_ARG,
                 "MPI_Group_from_session_pset", "NULL pset name");
    expect_class(MPI_Session_get_pset_info(s, "WORLD", &pinfo), MPI_ERR_ARG,
                 "MPI_Session_get_pset_info", "pset without mpi://");
    int len = 0;
    expect_class(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &len, NULL), MPI_ERR_ARG,
                 "MPI_Session_get_nth_pset", "n = number of psets");
    TU_ASSERT(bad == MPI_GROUP_NULL, "a failed Group_from_session_pset set the group");
    /* a communicator call's errors go to its errhandler argument */
    MPI_Comm none = MPI_COMM_NULL;
    expect_class(MPI_Comm_create_from_group(MPI_GROUP_NULL, "org.faro.test.bad", MPI_INFO_NULL,
                                            MPI_ERRORS_RETURN, &none), MPI_ERR_GROUP,
                 "MPI_Comm_create_from_group", "MPI_GROUP_NULL");
    expect_class(MPI_Comm_create_from_group(wg, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &none),
                 MPI_ERR_ARG, "MPI_Comm_create_from_group", "NULL stringtag");
    TU_ASSERT(none == MPI_COMM_NULL, "a failed Comm_create_from_group set the communicator");

    /* the program's errhandler */
    MPI_Errhandler mine, got;
    TU_CHECK(MPI_Session_create_errhandler(on_error, &mine));
    TU_CHECK(MPI_Session_set_errhandler(s, mine));
    TU_CHECK(MPI_Session_get_errhandler(s, &got));
    TU_ASSERT(got == mine, "Session_get_errhandler gave another handler");
    TU_CHECK(MPI_Errhandler_free(&got));
    int rc = MPI_Group_from_session_pset(s, "mpi://elsewhere", &bad);
    TU_ASSERT(handler_calls == 1 && handler_code == rc && handler_session == s,
              "the session's handler: %d calls, code %d (call returned %d)", handler_calls,
              handler_code, rc);
    TU_CHECK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    TU_ASSERT(handler_calls == 2 && handler_code == MPI_ERR_OTHER,
              "Session_call_errhandler: %d calls, code %d", handler_calls, handler_code);
    TU_CHECK(MPI_Errhandler_free(&mine)); /* the session keeps it */
    TU_CHECK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));

    /* info and integer handles */
    MPI_Info used;
    TU_CHECK(MPI_Session_get_info(s, &used));
    TU_CHECK(MPI_Info_get(used, "thread_level", sizeof val - 1, val, &found));
    TU_ASSERT(found && strncmp(val, "MPI_THREAD_", 11) == 0, "session info thread_level: %s",
              found ? val : "(absent)");
    TU_CHECK(MPI_Info_free(&used));
    MPI_Fint f = MPI_Session_c2f(s);
    TU_ASSERT(MPI_Session_f2c(f) == s, "Session_f2c(Session_c2f(s)) is not s");
    TU_ASSERT(MPI_Session_f2c(MPI_Session_c2f(MPI_SESSION_NULL)) == MPI_SESSION_NULL,
              "the null session does not convert to itself");

    TU_CHECK(MPI_Comm_free(&self));
    TU_CHECK(MPI_Comm_free(&comm));
    TU_CHECK(MPI_Group_free(&sg));
    TU_CHECK(MPI_Group_free(&wg));
    TU_CHECK(MPI_Session_finalize(&s));
    TU_ASSERT(s == MPI_SESSION_NULL, "Session_finalize did not set MPI_SESSION_NULL");
    TU_CHECK(MPI_Initialized(&flag));
    TU_ASSERT(!flag, "MPI_Initialized is true after a session-only program");
    TU_CHECK(MPI_Finalized(&flag));
    TU_ASSERT(!flag, "MPI_Finalized is true though MPI_Finalize was never called");
    /* the runtime went down with the last session: a new one is refused */
    rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    if (rc == MPI_SUCCESS || tu_class(rc) != MPI_ERR_OTHER) {
        fprintf(stderr, "session: rank %d: FAIL: Session_init after the last Session_finalize "
                "returned %d, expected class MPI_ERR_OTHER\n", rank, rc);
        return 1;
    }
    if (rank == 0)
        printf("session: OK (%d ranks)\n", size);
    return 0;
}
