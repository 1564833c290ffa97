/*
 * spawn_nested: spawned processes spawn in turn. The job (N ranks) spawns 2
 * children; the children spawn 1 grandchild (root: their last rank); the
 * grandchild answers its parents, the children add their own ranks and
 * answer theirs. MPI_UNIVERSE_SIZE goes down the generations and must be
 * the same in each. Then everyone disconnects, and the grandchild goes on
 * for half a second after its parents have finished: mpiexec must wait for
 * it, and the job ends with 0.
 */
#include "util.h"

#include <time.h>

static int universe(void)
{
    int *u, flag;
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &u, &flag));
    return flag ? *u : -1;
}

/* The universe the parents saw, from their rank 0 (the remote root). */
static void same_universe(MPI_Comm parent)
{
    int theirs = -2;
    TU_CHECK(MPI_Bcast(&theirs, 1, MPI_INT, 0, parent));
    TU_ASSERT(theirs == universe(), "MPI_UNIVERSE_SIZE is %d here and %d in the parents",
              universe(), theirs);
}

static void tell_universe(MPI_Comm ic)
{
    int u = universe();
    TU_CHECK(MPI_Bcast(&u, 1, MPI_INT, tu_rank == 0 ? MPI_ROOT : MPI_PROC_NULL, ic));
}

static void grandchild(MPI_Comm parent)
{
    int rs, token = 1000;
    TU_CHECK(MPI_Comm_remote_size(parent, &rs));
    TU_ASSERT(rs == 2 && tu_size == 1, "grandchild: %d parents, %d of us; expected 2 and 1", rs,
              tu_size);
    same_universe(parent);
    TU_CHECK(MPI_Send(&token, 1, MPI_INT, 0, 4, parent));
    TU_CHECK(MPI_Comm_disconnect(&parent));
    struct timespec ts = {0, 500000000};
    nanosleep(&ts, NULL); /* outlive the generations before */
}

static void child(MPI_Comm parent, char *self)
{
    same_universe(parent);
    char *args[] = {"grandchild", NULL};
    MPI_Comm ic;
    int token = 0, sum;
    TU_CHECK(MPI_Comm_spawn(tu_rank == tu_size - 1 ? self : NULL, args, 1, MPI_INFO_NULL,
                            tu_size - 1, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE));
    tell_universe(ic);
    if (tu_rank == 0)
        TU_CHECK(MPI_Recv(&token, 1, MPI_INT, 0, 4, ic, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Comm_disconnect(&ic));
    token += tu_rank;
    TU_CHECK(MPI_Reduce(&token, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (tu_rank == 0)
        TU_CHECK(MPI_Send(&sum, 1, MPI_INT, 0, 5, parent));
    TU_CHECK(MPI_Comm_disconnect(&parent));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "spawn_nested");
    MPI_Comm parent;
    TU_CHECK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        if (argc > 1 && !strcmp(argv[1], "grandchild"))
            grandchild(parent);
        else
            child(parent, argv[0]);
        TU_CHECK(MPI_Finalize());
        return 0;
    }
    char *args[] = {"child", NULL};
    MPI_Comm ic;
    TU_CHECK(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                            MPI_ERRCODES_IGNORE));
    tell_universe(ic);
    int sum = -1;
    if (tu_rank == 0) {
        TU_CHECK(MPI_Recv(&sum, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE));
        TU_ASSERT(sum == 1001, "the children and grandchild added up to %d, expected 1001",
                  sum);
    }
    TU_CHECK(MPI_Comm_disconnect(&ic));
    tu_finish();
    return 0;
}
