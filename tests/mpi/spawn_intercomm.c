/*
 * spawn_intercomm: MPI_Intercomm_create between a spawned job and its
 * parents' MPI_COMM_WORLD, where most processes of either side have never
 * met the other job: parent rank 0 alone spawns 3 children on
 * MPI_COMM_SELF, then all parents and all children make an
 * intercommunicator of their MPI_COMM_WORLDs (leaders: parent 0 and child
 * 0, peer_comm the spawn's intercommunicator). Every parent then exchanges
 * a message with every child, an Allreduce and a Bcast run over it, and the
 * merged communicator reduces. Needs 2+ parents.
 */
#include "util.h"

#define NCHILD 3

static void use(MPI_Comm ic, int child, int nparents)
{
    int rsize, lrank;
    TU_CHECK(MPI_Comm_remote_size(ic, &rsize));
    TU_CHECK(MPI_Comm_rank(ic, &lrank));
    TU_ASSERT(rsize == (child ? nparents : NCHILD), "remote size %d, expected %d", rsize,
              child ? nparents : NCHILD);
    /* every process to every process of the other side, and back */
    MPI_Request q[64];
    int out[64], in, n = 0;
    for (int r = 0; r < rsize; r++) {
        out[r] = 1000 * child + 10 * lrank + r;
        TU_CHECK(MPI_Isend(&out[r], 1, MPI_INT, r, 9, ic, &q[n++]));
    }
    for (int r = 0; r < rsize; r++) {
        MPI_Status st;
        TU_CHECK(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 9, ic, &st));
        int want = 1000 * !child + 10 * st.MPI_SOURCE + lrank;
        TU_ASSERT(in == want, "from remote %d: %d, expected %d", st.MPI_SOURCE, in, want);
    }
    TU_CHECK(MPI_Waitall(n, q, MPI_STATUSES_IGNORE));
    /* an intercommunicator Allreduce: each side gets the other's sum */
    int mine = child ? 100 : 1, sum = 0;
    TU_CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic));
    TU_ASSERT(sum == (child ? nparents : 100 * NCHILD), "intercommunicator Allreduce: %d", sum);
    int b = child ? -1 : 77;
    if (child)
        TU_CHECK(MPI_Bcast(&b, 1, MPI_INT, 0, ic));
    else
        TU_CHECK(MPI_Bcast(&b, 1, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, ic));
    TU_ASSERT(b == 77, "intercommunicator Bcast from parent 0: %d", b);
    MPI_Comm m;
    int msize, total = 0, one = 1;
    TU_CHECK(MPI_Intercomm_merge(ic, child, &m));
    TU_CHECK(MPI_Comm_size(m, &msize));
    TU_CHECK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, m));
    TU_ASSERT(msize == nparents + NCHILD && total == msize, "merged: size %d, sum %d", msize,
              total);
    TU_CHECK(MPI_Comm_free(&m));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "spawn_intercomm");
    MPI_Comm parent, spawn_ic = MPI_COMM_NULL, ic;
    TU_CHECK(MPI_Comm_get_parent(&parent));
    int child = parent != MPI_COMM_NULL, nparents = tu_size;
    if (child) {
        spawn_ic = parent;
        TU_CHECK(MPI_Comm_remote_size(parent, &nparents)); /* 1: parent 0 spawned alone */
        TU_ASSERT(nparents == 1, "the spawn's remote group has %d processes", nparents);
        nparents = atoi(argv[1]);
    } else {
        TU_ASSERT(tu_size >= 2, "needs 2 or more processes");
        char n[16], *args[] = {n, NULL};
        snprintf(n, sizeof n, "%d", tu_size);
        if (tu_rank == 0)
            TU_CHECK(MPI_Comm_spawn(argv[0], args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                                    &spawn_ic, MPI_ERRCODES_IGNORE));
    }
    /* peer_comm matters at the leaders only: the others have none */
    TU_CHECK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, spawn_ic, 0, 17, &ic));
    use(ic, child, nparents);
    TU_CHECK(MPI_Comm_free(&ic));
    if (spawn_ic != MPI_COMM_NULL)
        TU_CHECK(MPI_Comm_disconnect(&spawn_ic));
    if (child) {
        TU_CHECK(MPI_Finalize());
        return 0;
    }
    tu_finish();
    return 0;
}
