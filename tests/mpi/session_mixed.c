/*
 * Sessions beside the world model, finalized in either order:
 *   TEST_ORDER=1: MPI_Session_init, MPI_Init, both used, MPI_Session_finalize,
 *                 MPI_COMM_WORLD still used, MPI_Finalize;
 *   TEST_ORDER=2: MPI_Init, MPI_Session_init, MPI_Finalize, the session's
 *                 communicator still used, MPI_Session_finalize.
 * MPI_Initialized/MPI_Finalized follow the world model only.
 */
#include "util.h"

static MPI_Comm from_world_pset(MPI_Session s, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    TU_CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    TU_CHECK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    TU_CHECK(MPI_Group_free(&g));
    return c;
}

static void sum_check(MPI_Comm c, int k, const char *what)
{
    int rank, size, sum = -1;
    TU_CHECK(MPI_Comm_rank(c, &rank));
    TU_CHECK(MPI_Comm_size(c, &size));
    int mine = rank + k;
    TU_CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
    TU_ASSERT(sum == size * (size - 1) / 2 + k * size, "%s: allreduce gave %d, expected %d",
              what, sum, size * (size - 1) / 2 + k * size);
}

static void flags(int init, int fini, const char *when)
{
    int a = -1, b = -1;
    TU_CHECK(MPI_Initialized(&a));
    TU_CHECK(MPI_Finalized(&b));
    TU_ASSERT(a == init && b == fini, "%s: MPI_Initialized %d, MPI_Finalized %d; expected %d %d",
              when, a, b, init, fini);
}

int main(int argc, char **argv)
{
    tu_name = "session_mixed";
    tu_arm_alarm(60);
    int order = tu_env_int("TEST_ORDER", 1);
    MPI_Session s;
    MPI_Comm c;
    if (order == 1) {
        TU_CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
        flags(0, 0, "after Session_init");
        c = from_world_pset(s, "mixed.one");
        TU_CHECK(MPI_Init(&argc, &argv));
        flags(1, 0, "after MPI_Init");
        TU_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &tu_rank));
        sum_check(c, 1, "session communicator beside MPI_Init");
        sum_check(MPI_COMM_WORLD, 2, "MPI_COMM_WORLD beside a session");
        TU_CHECK(MPI_Comm_free(&c));
        TU_CHECK(MPI_Session_finalize(&s));
        sum_check(MPI_COMM_WORLD, 3, "MPI_COMM_WORLD after Session_finalize");
        TU_CHECK(MPI_Finalize());
        flags(1, 1, "after MPI_Finalize");
    } else {
        TU_CHECK(MPI_Init(&argc, &argv));
        TU_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &tu_rank));
        TU_CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
        c = from_world_pset(s, "mixed.two");
        sum_check(c, 4, "session communicator after MPI_Init");
        TU_CHECK(MPI_Finalize());
        flags(1, 1, "after MPI_Finalize with a session open");
        sum_check(c, 5, "session communicator after MPI_Finalize");
        MPI_Session s2; /* a second session while the first holds the runtime */
        TU_CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
        MPI_Comm c2 = from_world_pset(s2, "mixed.three");
        sum_check(c2, 6, "second session's communicator");
        TU_CHECK(MPI_Comm_free(&c2));
        TU_CHECK(MPI_Session_finalize(&s2));
        TU_CHECK(MPI_Comm_free(&c));
        TU_CHECK(MPI_Session_finalize(&s));
        flags(1, 1, "after the last Session_finalize");
    }
    if (tu_rank == 0)
        printf("session_mixed: OK (order %d)\n", order);
    return 0;
}
