/*
 * dyn_cycles: what a dynamic connection leaves behind once it is closed must
 * be bounded. Ranks 0 and 1 run TEST_CYCLES (default 200) cycles of
 * MPI_Comm_accept / MPI_Comm_connect on MPI_COMM_SELF through one port, a
 * message each way and MPI_Comm_disconnect. Each counts its open file
 * descriptors after the first 10 cycles and after the last: the count may not
 * grow by more than 10 (a transport that keeps a descriptor per closed
 * connection, a socket or a pidfd, grows by one or more per cycle). Needs 2
 * ranks; others only wait.
 */
#include "util.h"

#include <dirent.h>

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    TU_ASSERT(d != NULL, "cannot open /proc/self/fd");
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "dyn_cycles");
    tu_need_ranks(2);
    int ncycles = tu_env_int("TEST_CYCLES", 200), early = -1;
    char port[MPI_MAX_PORT_NAME] = "";
    if (tu_rank == 0)
        TU_CHECK(MPI_Open_port(MPI_INFO_NULL, port));
    TU_CHECK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    for (int c = 0; c < ncycles && tu_rank < 2; c++) {
        MPI_Comm ic;
        if (tu_rank == 0)
            TU_CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
        else
            TU_CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
        int v = tu_rank * 1000 + c, got = -1;
        TU_CHECK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 7, &got, 1, MPI_INT, 0, 7, ic,
                              MPI_STATUS_IGNORE));
        TU_ASSERT(got == (1 - tu_rank) * 1000 + c, "cycle %d: got %d from the other side", c,
                  got);
        TU_CHECK(MPI_Comm_disconnect(&ic));
        if (c == 9 || (ncycles < 10 && c == ncycles - 1))
            early = count_fds();
    }
    if (tu_rank < 2) {
        int late = count_fds();
        TU_ASSERT(late <= early + 10, "%d open file descriptors after %d cycles, %d after 10: "
                  "closed connections keep descriptors", late, ncycles, early);
    }
    if (tu_rank == 0)
        TU_CHECK(MPI_Close_port(port));
    tu_finish();
    return 0;
}
