/*
 * dyn_halves: MPI_Comm_accept / MPI_Comm_connect between two halves of one
 * job. MPI_COMM_WORLD is split into A (the first (size+1)/2 ranks) and B;
 * one group opens a port and accepts on its half, the other connects (the
 * port name goes round on MPI_COMM_WORLD). On the intercommunicator:
 * sizes and the remote group (it must name the right MPI_COMM_WORLD ranks),
 * point-to-point both ways (MPI_ANY_SOURCE, eager and rendezvous sizes),
 * every intercommunicator collective (inter_coll.c's checks), then
 * MPI_Intercomm_merge (order by the high flag) with collectives on the merged
 * communicator, and MPI_Comm_disconnect. Five cycles: A or B accepting, roots
 * first or last of their groups, one port reused for several accepts, two
 * ports open at once, an intercommunicator dup'ed before the disconnect.
 * Needs 2..64 ranks.
 */
#include "util.h"

#define main inter_coll_main
#include "inter_coll.c"
#undef main

static int wrank, wsize;

/* The world ranks of group g, in group order. */
static int members(int g, int *w)
{
    int n = 0;
    for (int r = 0; r < wsize; r++)
        if ((r >= (wsize + 1) / 2) == g)
            w[n++] = r;
    return n;
}

static void check_groups(MPI_Comm ic)
{
    int w[64], out[64], idx[64], n = members(!gid, w);
    MPI_Group wg, rg;
    TU_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    TU_CHECK(MPI_Comm_remote_group(ic, &rg));
    for (int i = 0; i < n; i++)
        idx[i] = i;
    TU_CHECK(MPI_Group_translate_ranks(rg, n, idx, wg, out));
    for (int i = 0; i < n; i++)
        TU_ASSERT(out[i] == w[i], "remote rank %d is world rank %d, expected %d", i, out[i],
                  w[i]);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
}

static void merged(MPI_Comm ic, int high)
{
    MPI_Comm m;
    int mrank, msize, sum = 0, want = 0;
    TU_CHECK(MPI_Intercomm_merge(ic, high, &m));
    TU_CHECK(MPI_Comm_rank(m, &mrank));
    TU_CHECK(MPI_Comm_size(m, &msize));
    TU_ASSERT(msize == wsize, "merged size %d, expected %d", msize, wsize);
    /* the low group first: high = gid here, so A (gid 0) comes first */
    int expect = high == gid ? (gid ? (wsize + 1) / 2 + lrank : lrank)
                             : (gid ? lrank : wsize / 2 + lrank);
    TU_ASSERT(mrank == expect, "merged rank %d, expected %d (group %d, high %d)", mrank, expect,
              gid, high);
    TU_CHECK(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, m));
    for (int r = 0; r < wsize; r++)
        want += r;
    TU_ASSERT(sum == want, "allreduce on the merged communicator: %d, expected %d", sum, want);
    int b = mrank == msize - 1 ? 4242 : -1;
    TU_CHECK(MPI_Bcast(&b, 1, MPI_INT, msize - 1, m));
    TU_ASSERT(b == 4242, "bcast on the merged communicator: %d", b);
    int all[64];
    TU_CHECK(MPI_Allgather(&wrank, 1, MPI_INT, all, 1, MPI_INT, m));
    for (int r = 0; r < msize; r++) { /* A's world ranks then B's, or the reverse */
        int first = high == gid ? 0 : 1; /* the group that came first */
        int w[64], na = members(first, w);
        int want_w = r < na ? w[r] : (members(!first, w), w[r - na]);
        TU_ASSERT(all[r] == want_w, "allgather on the merged communicator: [%d] = %d, "
                  "expected %d", r, all[r], want_w);
    }
    TU_CHECK(MPI_Barrier(m));
    TU_CHECK(MPI_Comm_free(&m));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "dyn_halves");
    wrank = tu_rank;
    wsize = tu_size;
    if (wsize < 2 || wsize > 64)
        tu_fail("needs 2..64 ranks, got %d", wsize);
    gid = wrank >= (wsize + 1) / 2;
    MPI_Comm local;
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, gid, wrank, &local));
    TU_CHECK(MPI_Comm_rank(local, &lrank));
    TU_CHECK(MPI_Comm_size(local, &lsize));
    int nb = wsize / 2, na = wsize - nb;
    char port[MPI_MAX_PORT_NAME], port2[MPI_MAX_PORT_NAME];

    /* per cycle: the accepting group, whether each group's root is its last
     * rank, and whether the acceptor opens a fresh port (cycles 2 and 3 reuse
     * cycle 1's, which B's first rank keeps open) */
    static const int acc_of[5] = {0, 1, 1, 1, 0}, aroot_last[5] = {0, 0, 0, 0, 1},
                     croot_last[5] = {0, 1, 0, 1, 1}, fresh[5] = {1, 1, 0, 0, 1},
                     close_after[5] = {1, 0, 0, 1, 1};
    for (int cycle = 0; cycle < 5; cycle++) {
        int acceptor = acc_of[cycle];
        int last = gid == acceptor ? aroot_last[cycle] : croot_last[cycle];
        int root = last ? lsize - 1 : 0;
        int aroot = (acceptor ? na : 0) + (aroot_last[cycle] ? (acceptor ? nb : na) - 1 : 0);
        if (fresh[cycle] && gid == acceptor && lrank == root) {
            TU_CHECK(MPI_Open_port(MPI_INFO_NULL, port));
            if (cycle == 4) /* a second port open at the same time: the first is used */
                TU_CHECK(MPI_Open_port(MPI_INFO_NULL, port2));
        }
        TU_CHECK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, aroot, MPI_COMM_WORLD));
        MPI_Comm ic;
        if (gid == acceptor)
            TU_CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, root, local, &ic));
        else
            TU_CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, root, local, &ic));
        int flag;
        TU_CHECK(MPI_Comm_test_inter(ic, &flag));
        TU_ASSERT(flag, "cycle %d: not an intercommunicator", cycle);
        int lr, ls;
        TU_CHECK(MPI_Comm_rank(ic, &lr));
        TU_CHECK(MPI_Comm_size(ic, &ls));
        TU_CHECK(MPI_Comm_remote_size(ic, &rsize));
        TU_ASSERT(lr == lrank && ls == lsize && rsize == (gid ? na : nb),
                  "cycle %d: rank %d size %d remote %d, expected %d %d %d", cycle, lr, ls,
                  rsize, lrank, lsize, gid ? na : nb);
        check_groups(ic);
        inter_p2p(ic);
        if (cycle < 2) { /* every collective, as inter_coll checks them */
            rooted(ic);
            all(ic);
        } else {
            all(ic);
        }
        merged(ic, cycle % 2 ? gid : !gid);
        if (cycle == 3) { /* a dup lives on after the disconnect of its parent */
            MPI_Comm d;
            TU_CHECK(MPI_Comm_dup(ic, &d));
            TU_CHECK(MPI_Comm_disconnect(&ic));
            inter_p2p(d);
            ic = d;
        }
        TU_CHECK(MPI_Comm_disconnect(&ic));
        TU_ASSERT(ic == MPI_COMM_NULL, "cycle %d: MPI_Comm_disconnect left the handle set",
                  cycle);
        if (close_after[cycle] && gid == acceptor && lrank == root) {
            TU_CHECK(MPI_Close_port(port));
            if (cycle == 4)
                TU_CHECK(MPI_Close_port(port2));
        }
    }
    TU_CHECK(MPI_Comm_free(&local));
    tu_finish();
    return 0;
}
