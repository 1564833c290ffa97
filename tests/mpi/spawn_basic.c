/*
 * spawn_basic: MPI_Comm_spawn of this program as children (SPAWN_CHILDREN,
 * default 3) by every rank of MPI_COMM_WORLD, root 0, then twice more with
 * the root last and on MPI_COMM_SELF of the last rank. Checked on both sides:
 * MPI_Comm_get_parent (MPI_COMM_NULL in the parents, the intercommunicator
 * in the children), the sizes and the remote groups, errcodes, MPI_APPNUM
 * and MPI_UNIVERSE_SIZE in the children; point-to-point both ways (eager and
 * rendezvous sizes, MPI_ANY_SOURCE); every intercommunicator collective
 * (inter_coll.c's checks: parents are group 0, children group 1);
 * MPI_Intercomm_merge with the children high; MPI_Comm_disconnect, after
 * which the children's MPI_Comm_get_parent is MPI_COMM_NULL.
 */
#include "util.h"

#define main inter_coll_main
#include "inter_coll.c"
#undef main

/* The merged communicator: the parents first (the children say high). */
static void merged(MPI_Comm ic)
{
    MPI_Comm m;
    int mrank, msize, sum = 0;
    TU_CHECK(MPI_Intercomm_merge(ic, gid, &m));
    TU_CHECK(MPI_Comm_rank(m, &mrank));
    TU_CHECK(MPI_Comm_size(m, &msize));
    int np = gid ? rsize : lsize;
    TU_ASSERT(msize == lsize + rsize, "merged size %d, expected %d", msize, lsize + rsize);
    TU_ASSERT(mrank == (gid ? np + lrank : lrank), "merged rank %d, expected %d", mrank,
              gid ? np + lrank : lrank);
    TU_CHECK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, m));
    TU_ASSERT(sum == msize * (msize - 1) / 2, "allreduce on the merged communicator: %d", sum);
    TU_CHECK(MPI_Comm_free(&m));
}

static void both_sides(MPI_Comm ic, int expect_local, int expect_remote)
{
    int flag;
    TU_CHECK(MPI_Comm_test_inter(ic, &flag));
    TU_ASSERT(flag, "not an intercommunicator");
    TU_CHECK(MPI_Comm_rank(ic, &lrank));
    TU_CHECK(MPI_Comm_size(ic, &lsize));
    TU_CHECK(MPI_Comm_remote_size(ic, &rsize));
    TU_ASSERT(lsize == expect_local && rsize == expect_remote, "local size %d, remote %d; "
              "expected %d and %d", lsize, rsize, expect_local, expect_remote);
    inter_p2p(ic);
    rooted(ic);
    all(ic);
    merged(ic);
    TU_CHECK(MPI_Comm_disconnect(&ic));
    TU_ASSERT(ic == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle set");
}

/* SPAWN_UNIVERSE=N (spawn-jobs.sh): MPI_UNIVERSE_SIZE must be N, in the
 * parents and in the children alike; -1: it must not be set. */
static void check_universe(void)
{
    int want = tu_env_int("SPAWN_UNIVERSE", 0), *usize, flag;
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag));
    TU_ASSERT(!want || (want < 0 ? !flag : flag && *usize == want), "MPI_UNIVERSE_SIZE: "
              "flag %d, value %d; expected %d (-1: not set)", flag, flag ? *usize : -1, want);
}

static void child(int nparents)
{
    MPI_Comm parent;
    gid = 1;
    TU_CHECK(MPI_Comm_get_parent(&parent));
    TU_ASSERT(parent != MPI_COMM_NULL, "MPI_Comm_get_parent is MPI_COMM_NULL in a child");
    int *appnum, *usize, flag;
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    TU_ASSERT(flag && *appnum == 0, "MPI_APPNUM: flag %d value %d, expected 0", flag,
              flag ? *appnum : -1);
    /* set by Faro's mpiexec (Hydra sets it only when given -usize) */
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag));
    TU_ASSERT(!flag || *usize >= 1, "MPI_UNIVERSE_SIZE is %d", *usize);
    check_universe();
    /* the remote group is the parents' comm, whose size the children know */
    int rs;
    TU_CHECK(MPI_Comm_remote_size(parent, &rs));
    TU_ASSERT(rs == nparents, "the parent group has %d processes, the argument says %d", rs,
              nparents);
    both_sides(parent, tu_size, nparents);
    TU_CHECK(MPI_Comm_get_parent(&parent));
    TU_ASSERT(parent == MPI_COMM_NULL, "MPI_Comm_get_parent after MPI_Comm_disconnect: not "
              "MPI_COMM_NULL");
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "spawn_basic");
    if (argc > 2 && !strcmp(argv[1], "child")) {
        child(atoi(argv[2]));
        TU_CHECK(MPI_Finalize());
        return 0;
    }
    MPI_Comm parent;
    TU_CHECK(MPI_Comm_get_parent(&parent));
    TU_ASSERT(parent == MPI_COMM_NULL, "MPI_Comm_get_parent is not MPI_COMM_NULL in a process "
              "that was not spawned");
    check_universe();
    int nchildren = tu_env_int("SPAWN_CHILDREN", 3);
    gid = 0;
    /* root first, root last, then one rank alone on MPI_COMM_SELF */
    for (int round = 0; round < 3; round++) {
        MPI_Comm comm = round < 2 ? MPI_COMM_WORLD : MPI_COMM_SELF;
        int csize, root = round == 1 ? tu_size - 1 : 0;
        if (round == 2 && tu_rank != tu_size - 1)
            continue;
        TU_CHECK(MPI_Comm_size(comm, &csize));
        char nparents[16], *args[] = {"child", nparents, NULL};
        snprintf(nparents, sizeof nparents, "%d", csize);
        int errcodes[64];
        for (int i = 0; i < 64; i++)
            errcodes[i] = -1;
        MPI_Comm ic;
        /* only the root's command, arguments and count count */
        int me_root = (round < 2 ? tu_rank : 0) == root;
        TU_CHECK(MPI_Comm_spawn(me_root ? argv[0] : NULL, me_root ? args : NULL,
                                me_root ? nchildren : -1, MPI_INFO_NULL, root, comm, &ic,
                                errcodes));
        for (int i = 0; i < nchildren; i++)
            TU_ASSERT(errcodes[i] == MPI_SUCCESS, "round %d: errcodes[%d] = %d", round, i,
                      errcodes[i]);
        TU_ASSERT(errcodes[nchildren] == -1, "round %d: errcodes[%d] written (past the %d "
                  "processes)", round, nchildren, nchildren);
        both_sides(ic, csize, nchildren);
    }
    tu_finish();
    return 0;
}
