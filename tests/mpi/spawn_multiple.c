/*
 * spawn_multiple: MPI_Comm_spawn_multiple of two commands as one job, by
 * every rank of MPI_COMM_WORLD (root 0). Command 0 is this program by its
 * path, 2 processes, arguments "A <n>"; command 1 is this program by its
 * bare name with the info key path (its directory), wdir / and host
 * localhost, 1 process, arguments "B <n>". The children check that they
 * are one MPI_COMM_WORLD of 3 with command 0's processes first, their
 * arguments, MPI_APPNUM (the command's index), command 1's working
 * directory; the parents check errcodes (3 of them) and what each child
 * reports over the intercommunicator; all of them check an allgather of
 * (group, appnum) on the merged communicator.
 */
#include "util.h"

#include <limits.h>
#include <stdlib.h>

/* (group, appnum) of each process of the merged communicator: the parents
 * (appnum -1 for them) first. */
static void merged_check(MPI_Comm ic, int child, int appnum, int nparents)
{
    MPI_Comm m;
    int mine[2] = {child, appnum}, all[2 * 64], size;
    TU_CHECK(MPI_Intercomm_merge(ic, child, &m));
    TU_CHECK(MPI_Comm_size(m, &size));
    TU_ASSERT(size == nparents + 3, "merged size %d, expected %d", size, nparents + 3);
    TU_CHECK(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, m));
    for (int r = 0; r < size; r++) {
        int want_child = r >= nparents, want_app = !want_child ? -1 : r - nparents < 2 ? 0 : 1;
        TU_ASSERT(all[2 * r] == want_child && all[2 * r + 1] == want_app, "merged rank %d is "
                  "(child %d, appnum %d), expected (%d, %d)", r, all[2 * r], all[2 * r + 1],
                  want_child, want_app);
    }
    TU_CHECK(MPI_Comm_free(&m));
}

static void child(int argc, char **argv)
{
    MPI_Comm parent;
    int *appnum, flag;
    TU_CHECK(MPI_Comm_get_parent(&parent));
    TU_ASSERT(parent != MPI_COMM_NULL, "MPI_Comm_get_parent is MPI_COMM_NULL in a child");
    TU_ASSERT(tu_size == 3, "the spawned MPI_COMM_WORLD has %d processes, expected 3", tu_size);
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    TU_ASSERT(flag, "MPI_APPNUM is not set");
    int want = tu_rank < 2 ? 0 : 1;
    TU_ASSERT(*appnum == want, "MPI_APPNUM %d, expected %d (command %c)", *appnum, want,
              argv[1][0]);
    TU_ASSERT(argc == 3 && argv[1][0] == "AB"[want] && !argv[1][1], "rank %d got arguments "
              "'%s' ..., expected '%c'", tu_rank, argv[1], "AB"[want]);
    char cwd[PATH_MAX];
    if (want == 1)
        TU_ASSERT(getcwd(cwd, sizeof cwd) && !strcmp(cwd, "/"), "command 1 runs in %s, not "
                  "in / (info key wdir)", cwd);
    int nparents, report[2] = {tu_rank, *appnum};
    TU_CHECK(MPI_Comm_remote_size(parent, &nparents));
    TU_ASSERT(nparents == atoi(argv[2]), "%d parents, the arguments say %s", nparents, argv[2]);
    TU_CHECK(MPI_Send(report, 2, MPI_INT, 0, 7, parent));
    merged_check(parent, 1, *appnum, nparents);
    TU_CHECK(MPI_Comm_disconnect(&parent));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "spawn_multiple");
    if (argc == 3 && (!strcmp(argv[1], "A") || !strcmp(argv[1], "B"))) {
        child(argc, argv);
        TU_CHECK(MPI_Finalize());
        return 0;
    }
    static char self[PATH_MAX], dir[PATH_MAX];
    TU_ASSERT(realpath(argv[0], self), "realpath(%s) failed", argv[0]);
    snprintf(dir, sizeof dir, "%s", self);
    char *slash = strrchr(dir, '/');
    *slash = 0;
    char n[16];
    snprintf(n, sizeof n, "%d", tu_size);
    char *args_a[] = {"A", n, NULL}, *args_b[] = {"B", n, NULL};
    char *cmds[2] = {self, slash + 1}, **argvs[2] = {args_a, args_b};
    int maxprocs[2] = {2, 1}, errcodes[4] = {-1, -1, -1, -1};
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    TU_CHECK(MPI_Info_create(&infos[1]));
    TU_CHECK(MPI_Info_set(infos[1], "path", dir));
    TU_CHECK(MPI_Info_set(infos[1], "wdir", "/"));
    TU_CHECK(MPI_Info_set(infos[1], "host", "localhost"));
    MPI_Comm ic;
    TU_CHECK(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &ic,
                                     errcodes));
    for (int i = 0; i < 3; i++)
        TU_ASSERT(errcodes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, errcodes[i]);
    TU_ASSERT(errcodes[3] == -1, "errcodes[3] written: 3 processes were asked for");
    int rs;
    TU_CHECK(MPI_Comm_remote_size(ic, &rs));
    TU_ASSERT(rs == 3, "remote size %d, expected 3", rs);
    if (tu_rank == 0)
        for (int i = 0; i < 3; i++) {
            int report[2];
            MPI_Status st;
            TU_CHECK(MPI_Recv(report, 2, MPI_INT, MPI_ANY_SOURCE, 7, ic, &st));
            TU_ASSERT(report[0] == st.MPI_SOURCE && report[1] == (st.MPI_SOURCE < 2 ? 0 : 1),
                      "child %d reports rank %d appnum %d", st.MPI_SOURCE, report[0],
                      report[1]);
        }
    merged_check(ic, 0, -1, tu_size);
    TU_CHECK(MPI_Comm_disconnect(&ic));
    TU_CHECK(MPI_Info_free(&infos[1]));
    tu_finish();
    return 0;
}
