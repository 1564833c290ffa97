/* hello: the basics every later test relies on: init state, rank and size,
 * processor name, version strings, timers, and one message from every rank
 * to rank 0. Set TEST_INIT_THREAD=1 to start through MPI_Init_thread. */
#include "util.h"

int main(int argc, char **argv)
{
    int flag = -1;
    if (MPI_Initialized(&flag) != MPI_SUCCESS || flag != 0) {
        fprintf(stderr, "hello: FAIL: MPI_Initialized before MPI_Init gave flag %d\n", flag);
        return 1;
    }
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag != 0) {
        fprintf(stderr, "hello: FAIL: MPI_Finalized before MPI_Init gave flag %d\n", flag);
        return 1;
    }
    tu_init(&argc, &argv, "hello");

    TU_CHECK(MPI_Initialized(&flag));
    TU_ASSERT(flag == 1, "MPI_Initialized after MPI_Init gave flag %d", flag);
    TU_CHECK(MPI_Finalized(&flag));
    TU_ASSERT(flag == 0, "MPI_Finalized before MPI_Finalize gave flag %d", flag);
    TU_ASSERT(tu_size >= 1, "MPI_Comm_size gave %d", tu_size);
    TU_ASSERT(tu_rank >= 0 && tu_rank < tu_size, "rank %d outside 0..%d", tu_rank, tu_size - 1);

    int srank = -1, ssize = -1;
    TU_CHECK(MPI_Comm_rank(MPI_COMM_SELF, &srank));
    TU_CHECK(MPI_Comm_size(MPI_COMM_SELF, &ssize));
    TU_ASSERT(srank == 0 && ssize == 1, "MPI_COMM_SELF has rank %d size %d, expected 0 and 1",
              srank, ssize);

    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len = -1;
    memset(name, 0x7f, sizeof name);
    TU_CHECK(MPI_Get_processor_name(name, &len));
    TU_ASSERT(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "processor name length %d", len);
    TU_ASSERT(name[len] == '\0' && (int)strlen(name) == len,
              "processor name not terminated at its reported length %d", len);

    int ver = -1, sub = -1;
    TU_CHECK(MPI_Get_version(&ver, &sub));
    TU_ASSERT(ver == MPI_VERSION && sub == MPI_SUBVERSION,
              "MPI_Get_version gave %d.%d but mpi.h says %d.%d", ver, sub, MPI_VERSION,
              MPI_SUBVERSION);
    TU_ASSERT(ver >= 1 && sub >= 0, "MPI_Get_version gave %d.%d", ver, sub);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    len = -1;
    TU_CHECK(MPI_Get_library_version(lib, &len));
    TU_ASSERT(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING,
              "library version length %d", len);
    TU_ASSERT((int)strlen(lib) == len, "library version string has strlen %zu, reported %d",
              strlen(lib), len);

    double tick = MPI_Wtick();
    TU_ASSERT(tick > 0.0 && tick < 1.0, "MPI_Wtick gave %g", tick);
    double t0 = MPI_Wtime(), t1 = t0;
    for (int i = 0; i < 1000000 && t1 == t0; i++)
        t1 = MPI_Wtime();
    TU_ASSERT(t1 > t0, "MPI_Wtime did not advance (%.9f then %.9f)", t0, t1);

    /* every rank reports to rank 0, which checks that each rank came once */
    int msg[2] = {tu_rank, len};
    if (tu_rank == 0) {
        char *seen = calloc((size_t)tu_size, 1);
        TU_ASSERT(seen, "out of memory");
        seen[0] = 1;
        for (int i = 1; i < tu_size; i++) {
            MPI_Status st;
            TU_CHECK(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st));
            TU_ASSERT(msg[0] == st.MPI_SOURCE, "message says rank %d, status says %d", msg[0],
                      st.MPI_SOURCE);
            TU_ASSERT(msg[0] > 0 && msg[0] < tu_size && !seen[msg[0]],
                      "rank %d reported twice or out of range", msg[0]);
            seen[msg[0]] = 1;
        }
        free(seen);
        printf("hello: %d ranks, MPI %d.%d, host %s\nhello: library: %.*s\n", tu_size, ver, sub,
               name, 200, lib);
    } else {
        TU_CHECK(MPI_Send(msg, 2, MPI_INT, 0, 1, MPI_COMM_WORLD));
    }
    tu_finish();
    TU_ASSERT(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 1,
              "MPI_Finalized after MPI_Finalize gave flag %d", flag);
    return 0;
}
