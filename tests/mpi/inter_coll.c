/*
 * inter_coll: every collective on an intercommunicator (groups A: the first
 * (size+1)/2 ranks of MPI_COMM_WORLD, B: the rest; then by parity), checked
 * element by element against values computed from the ranks: each root in
 * each group for the rooted ones (MPI_ROOT / MPI_PROC_NULL / remote rank),
 * both directions for the others, uneven counts for the v variants, and
 * Reduce_scatter(_block) with different receive counts in the two groups,
 * a derived datatype; leaders first or last of their groups, peer
 * MPI_COMM_WORLD or a duplicate; Scan and Exscan fail with MPI_ERR_COMM.
 * Needs 2+ ranks. inter_nbc.c builds it on the nonblocking forms.
 */
#include "util.h"

static int gid, lrank, lsize, rsize; /* my group (0: A, 1: B), sizes */

static int val(int g, int l, int i)
{
    return 1000000 * g + 1000 * l + i;
}

#define CHECKV(got, want, ...)                                                                \
    do {                                                                                      \
        if ((got) != (want))                                                                  \
            tu_fail(__VA_ARGS__);                                                             \
    } while (0)

static void rooted(MPI_Comm ic)
{
    int og = !gid;
    int buf[4096], out[4096], counts[64], displs[64];
    for (int rg = 0; rg < 2; rg++)
        for (int rr = 0; rr < (rg == gid ? lsize : rsize); rr++) {
            int in_root_group = rg == gid;
            int root = in_root_group ? (rr == lrank ? MPI_ROOT : MPI_PROC_NULL) : rr;
            int am_root = root == MPI_ROOT;

            /* bcast: 5 ints from the root */
            for (int i = 0; i < 5; i++)
                buf[i] = am_root ? val(rg, rr, i) : -1;
            TU_CHECK(MPI_Bcast(buf, 5, MPI_INT, root, ic));
            if (!in_root_group)
                for (int i = 0; i < 5; i++)
                    CHECKV(buf[i], val(rg, rr, i), "bcast root %d/%d: [%d] = %d", rg, rr, i,
                           buf[i]);
            if (root == MPI_PROC_NULL)
                CHECKV(buf[0], -1, "bcast: MPI_PROC_NULL rank's buffer changed");

            /* bcast of a derived type: every other int of 2 x vector(3, 1, 2) */
            MPI_Datatype vec;
            TU_CHECK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
            TU_CHECK(MPI_Type_commit(&vec));
            MPI_Aint lb, ext;
            MPI_Type_get_extent(vec, &lb, &ext);
            int nint = (int)(ext / (MPI_Aint)sizeof(int));
            for (int i = 0; i < 2 * nint + 1; i++)
                buf[i] = am_root ? val(rg, rr, 50 + i) : -1;
            TU_CHECK(MPI_Bcast(buf, 2, vec, root, ic));
            if (!in_root_group)
                for (int i = 0; i < 2 * nint + 1; i++) {
                    int inside = i % nint % 2 == 0 && i < 2 * nint;
                    CHECKV(buf[i], inside ? val(rg, rr, 50 + i) : -1,
                           "bcast vector root %d/%d: [%d] = %d", rg, rr, i, buf[i]);
                }
            MPI_Type_free(&vec);

            /* gather: 3 ints from each remote rank */
            for (int i = 0; i < 3; i++)
                out[i] = val(gid, lrank, i);
            memset(buf, 0xff, sizeof buf);
            TU_CHECK(MPI_Gather(out, 3, MPI_INT, buf, 3, MPI_INT, root, ic));
            if (am_root)
                for (int r = 0; r < rsize; r++)
                    for (int i = 0; i < 3; i++)
                        CHECKV(buf[3 * r + i], val(og, r, i), "gather: [%d][%d] = %d", r, i,
                               buf[3 * r + i]);

            /* gatherv: r+1 ints from remote r, blocks in reverse order with gaps */
            int at = 0;
            for (int r = rsize - 1; r >= 0; r--) {
                counts[r] = r + 1;
                displs[r] = at;
                at += r + 3;
            }
            for (int i = 0; i < lrank + 1; i++)
                out[i] = val(gid, lrank, 7 * i);
            memset(buf, 0xff, sizeof buf);
            TU_CHECK(MPI_Gatherv(out, lrank + 1, MPI_INT, buf, counts, displs, MPI_INT, root, ic));
            if (am_root)
                for (int r = 0; r < rsize; r++)
                    for (int i = 0; i < r + 1; i++)
                        CHECKV(buf[displs[r] + i], val(og, r, 7 * i), "gatherv: [%d][%d] = %d",
                               r, i, buf[displs[r] + i]);

            /* scatter: 4 ints to each remote rank */
            if (am_root)
                for (int r = 0; r < rsize; r++)
                    for (int i = 0; i < 4; i++)
                        out[4 * r + i] = val(gid, r, i + rr);
            memset(buf, 0xff, sizeof buf);
            TU_CHECK(MPI_Scatter(out, 4, MPI_INT, buf, 4, MPI_INT, root, ic));
            if (!in_root_group)
                for (int i = 0; i < 4; i++)
                    CHECKV(buf[i], val(rg, lrank, i + rr), "scatter: [%d] = %d", i, buf[i]);

            /* scatterv: r+2 ints to remote r */
            if (am_root)
                for (int r = 0; r < rsize; r++)
                    for (int i = 0; i < r + 2; i++)
                        out[displs[r] + i] = val(gid, r, 3 * i);
            memset(buf, 0xff, sizeof buf);
            for (int r = 0; r < rsize; r++)
                counts[r] = r + 2;
            TU_CHECK(MPI_Scatterv(out, counts, displs, MPI_INT, buf, lrank + 2, MPI_INT, root,
                                  ic));
            if (!in_root_group)
                for (int i = 0; i < lrank + 2; i++)
                    CHECKV(buf[i], val(rg, lrank, 3 * i), "scatterv: [%d] = %d", i, buf[i]);

            /* reduce: sum of 6 ints over the non-root group */
            for (int i = 0; i < 6; i++)
                out[i] = val(gid, lrank, i);
            memset(buf, 0xff, sizeof buf);
            TU_CHECK(MPI_Reduce(out, buf, 6, MPI_INT, MPI_SUM, root, ic));
            if (am_root)
                for (int i = 0; i < 6; i++) {
                    int want = 0;
                    for (int r = 0; r < rsize; r++)
                        want += val(og, r, i);
                    CHECKV(buf[i], want, "reduce: [%d] = %d, expected %d", i, buf[i], want);
                }
        }
}

static void all(MPI_Comm ic)
{
    int og = !gid;
    int buf[4096], out[4096], counts[64], displs[64], scounts[64], sdispls[64];

    for (int i = 0; i < 3; i++)
        TU_CHECK(MPI_Barrier(ic));

    /* allgather: 2 ints from every remote rank */
    out[0] = val(gid, lrank, 0);
    out[1] = val(gid, lrank, 1);
    memset(buf, 0xff, sizeof buf);
    TU_CHECK(MPI_Allgather(out, 2, MPI_INT, buf, 2, MPI_INT, ic));
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < 2; i++)
            CHECKV(buf[2 * r + i], val(og, r, i), "allgather: [%d][%d] = %d", r, i,
                   buf[2 * r + i]);

    /* allgatherv: r+1 ints from remote r, reversed with gaps */
    int at = 0;
    for (int r = rsize - 1; r >= 0; r--) {
        counts[r] = r + 1;
        displs[r] = at;
        at += r + 2;
    }
    for (int i = 0; i < lrank + 1; i++)
        out[i] = val(gid, lrank, 5 * i);
    memset(buf, 0xff, sizeof buf);
    TU_CHECK(MPI_Allgatherv(out, lrank + 1, MPI_INT, buf, counts, displs, MPI_INT, ic));
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < r + 1; i++)
            CHECKV(buf[displs[r] + i], val(og, r, 5 * i), "allgatherv: [%d][%d] = %d", r, i,
                   buf[displs[r] + i]);

    /* alltoall: block r goes to remote r */
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < 3; i++)
            out[3 * r + i] = val(gid, lrank, 10 * r + i);
    memset(buf, 0xff, sizeof buf);
    TU_CHECK(MPI_Alltoall(out, 3, MPI_INT, buf, 3, MPI_INT, ic));
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < 3; i++)
            CHECKV(buf[3 * r + i], val(og, r, 10 * lrank + i), "alltoall: [%d][%d] = %d", r, i,
                   buf[3 * r + i]);

    /* alltoallv: (l + r) % 3 + 1 ints between local l and remote r (0 for l == r == 1) */
    int sat = 0, rat = 0;
    for (int r = 0; r < rsize; r++) {
        scounts[r] = (lrank == 1 && r == 1) ? 0 : (lrank + r) % 3 + 1;
        counts[r] = (r == 1 && lrank == 1) ? 0 : (r + lrank) % 3 + 1;
        sdispls[r] = sat;
        displs[r] = rat + 1;
        sat += scounts[r];
        rat += counts[r] + 1;
        for (int i = 0; i < scounts[r]; i++)
            out[sdispls[r] + i] = val(gid, lrank, 10 * r + i);
    }
    memset(buf, 0xff, sizeof buf);
    TU_CHECK(MPI_Alltoallv(out, scounts, sdispls, MPI_INT, buf, counts, displs, MPI_INT, ic));
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < counts[r]; i++)
            CHECKV(buf[displs[r] + i], val(og, r, 10 * lrank + i), "alltoallv: [%d][%d] = %d",
                   r, i, buf[displs[r] + i]);

    /* alltoallw: the same with byte displacements and per-block types */
    MPI_Datatype st[64], rt[64];
    for (int r = 0; r < rsize; r++) {
        sdispls[r] *= (int)sizeof(int);
        displs[r] *= (int)sizeof(int);
        st[r] = rt[r] = MPI_INT;
    }
    memset(buf, 0xff, sizeof buf);
    TU_CHECK(MPI_Alltoallw(out, scounts, sdispls, st, buf, counts, displs, rt, ic));
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < counts[r]; i++)
            CHECKV(buf[displs[r] / (int)sizeof(int) + i], val(og, r, 10 * lrank + i),
                   "alltoallw: [%d][%d]", r, i);

    /* allreduce: the other group's sum */
    for (int i = 0; i < 7; i++)
        out[i] = val(gid, lrank, i);
    memset(buf, 0xff, sizeof buf);
    TU_CHECK(MPI_Allreduce(out, buf, 7, MPI_INT, MPI_SUM, ic));
    for (int i = 0; i < 7; i++) {
        int want = 0;
        for (int r = 0; r < rsize; r++)
            want += val(og, r, i);
        CHECKV(buf[i], want, "allreduce: [%d] = %d, expected %d", i, buf[i], want);
    }
    int mx = -1, me = val(gid, lrank, 0);
    TU_CHECK(MPI_Allreduce(&me, &mx, 1, MPI_INT, MPI_MAX, ic));
    CHECKV(mx, val(og, rsize - 1, 0), "allreduce max: %d", mx);

    /* reduce_scatter_block: vectors of T = lsize * rsize elements; this
     * group gets rsize each (T / lsize) of the other group's sum */
    int T = lsize * rsize;
    for (int i = 0; i < T; i++)
        out[i] = val(gid, lrank, i);
    memset(buf, 0xff, sizeof buf);
    TU_CHECK(MPI_Reduce_scatter_block(out, buf, rsize, MPI_INT, MPI_SUM, ic));
    for (int i = 0; i < rsize; i++) {
        int want = 0;
        for (int r = 0; r < rsize; r++)
            want += val(og, r, lrank * rsize + i);
        CHECKV(buf[i], want, "reduce_scatter_block: [%d] = %d, expected %d", i, buf[i], want);
    }

    /* reduce_scatter: uneven pieces of T, rank 0 one more, the last one less */
    at = 0;
    for (int l = 0; l < lsize; l++) {
        counts[l] = rsize + (lsize > 1 ? (l == 0) - (l == lsize - 1) : 0);
        displs[l] = at;
        at += counts[l];
    }
    memset(buf, 0xff, sizeof buf);
    TU_CHECK(MPI_Reduce_scatter(out, buf, counts, MPI_INT, MPI_SUM, ic));
    for (int i = 0; i < counts[lrank]; i++) {
        int want = 0;
        for (int r = 0; r < rsize; r++)
            want += val(og, r, displs[lrank] + i);
        CHECKV(buf[i], want, "reduce_scatter: [%d] = %d, expected %d", i, buf[i], want);
    }

    /* scan and exscan are not defined on intercommunicators: MPI_ERR_COMM */
    TU_CHECK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    for (int ex = 0; ex < 2; ex++) {
        int cls = -1, rc = ex ? MPI_Exscan(out, buf, 1, MPI_INT, MPI_SUM, ic)
                              : MPI_Scan(out, buf, 1, MPI_INT, MPI_SUM, ic);
        MPI_Error_class(rc, &cls);
        CHECKV(cls, MPI_ERR_COMM, "%s on an intercommunicator: error class %d, expected "
               "MPI_ERR_COMM", ex ? "exscan" : "scan", cls);
    }
    TU_CHECK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL));
}

#ifdef FARO_TESTS_MPI_NBC_WRAP_H
/* Built through nbc_wrap.h (inter_nbc.c): several nonblocking collectives in
 * flight at once on ic and on a second intercommunicator d over the same
 * groups, completed by one MPI_Waitall (up to 16 ranks). */
static void overlap(MPI_Comm ic, MPI_Comm d)
{
    int og = !gid;
    enum { N = 8 };
    static int bc[5], ar[7], ag[128], a2a[128], rd[4], rsb[64], ga[128], dar[2];
    int out[64 + 16 * 16], rout[4], one[2] = {val(gid, lrank, 0), val(gid, lrank, 1)};
    MPI_Request q[N + 1];
    int broot = gid == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0; /* A's rank 0 */
    int rroot = gid == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0; /* B's rank 0 */
    for (int i = 0; i < 5; i++)
        bc[i] = broot == MPI_ROOT ? val(0, 0, 90 + i) : -1;
    for (int i = 0; i < 7; i++)
        out[i] = val(gid, lrank, i);
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < 2; i++)
            out[16 + 2 * r + i] = val(gid, lrank, 20 * r + i);
    for (int i = 0; i < 4; i++)
        rout[i] = val(gid, lrank, 60 + i);
    TU_CHECK(MPI_Ibarrier(ic, &q[0]));
    TU_CHECK(MPI_Ibcast(bc, 5, MPI_INT, broot, ic, &q[1]));
    TU_CHECK(MPI_Iallreduce(out, ar, 7, MPI_INT, MPI_SUM, ic, &q[2]));
    TU_CHECK(MPI_Iallreduce(one, dar, 2, MPI_INT, MPI_MAX, d, &q[N]));
    TU_CHECK(MPI_Iallgather(one, 2, MPI_INT, ag, 2, MPI_INT, ic, &q[3]));
    TU_CHECK(MPI_Ialltoall(out + 16, 2, MPI_INT, a2a, 2, MPI_INT, ic, &q[4]));
    TU_CHECK(MPI_Ireduce(rout, rd, 4, MPI_INT, MPI_SUM, rroot, ic, &q[5]));
    /* vectors of lsize * rsize elements in both groups, rsize to each rank */
    for (int i = 0; i < lsize * rsize; i++)
        out[64 + i] = val(gid, lrank, 70 + i);
    TU_CHECK(MPI_Ireduce_scatter_block(out + 64, rsb, rsize, MPI_INT, MPI_SUM, ic, &q[6]));
    TU_CHECK(MPI_Igather(one, 2, MPI_INT, ga, 2, MPI_INT, broot, ic, &q[7]));
    TU_CHECK(MPI_Waitall(N + 1, q, MPI_STATUSES_IGNORE));
    if (gid == 1)
        for (int i = 0; i < 5; i++)
            CHECKV(bc[i], val(0, 0, 90 + i), "overlap: bcast [%d] = %d", i, bc[i]);
    for (int i = 0; i < 7; i++) {
        int want = 0;
        for (int r = 0; r < rsize; r++)
            want += val(og, r, i);
        CHECKV(ar[i], want, "overlap: allreduce [%d] = %d, expected %d", i, ar[i], want);
    }
    CHECKV(dar[0], val(og, rsize - 1, 0), "overlap: allreduce on the second: %d", dar[0]);
    for (int r = 0; r < rsize; r++)
        for (int i = 0; i < 2; i++) {
            CHECKV(ag[2 * r + i], val(og, r, i), "overlap: allgather [%d][%d] = %d", r, i,
                   ag[2 * r + i]);
            CHECKV(a2a[2 * r + i], val(og, r, 20 * lrank + i), "overlap: alltoall [%d][%d] = %d",
                   r, i, a2a[2 * r + i]);
        }
    if (rroot == MPI_ROOT)
        for (int i = 0; i < 4; i++) {
            int want = 0;
            for (int r = 0; r < rsize; r++)
                want += val(og, r, 60 + i);
            CHECKV(rd[i], want, "overlap: reduce [%d] = %d, expected %d", i, rd[i], want);
        }
    for (int i = 0; i < rsize; i++) {
        int want = 0;
        for (int r = 0; r < rsize; r++)
            want += val(og, r, 70 + rsize * lrank + i);
        CHECKV(rsb[i], want, "overlap: reduce_scatter_block [%d] = %d, expected %d", i, rsb[i],
               want);
    }
    if (broot == MPI_ROOT)
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < 2; i++)
                CHECKV(ga[2 * r + i], val(og, r, i), "overlap: gather [%d][%d] = %d", r, i,
                       ga[2 * r + i]);
}
#endif

/* For the programs that include this one (dyn_halves, spawn_basic): each
 * local rank sends to every remote rank a small message and to its
 * counterpart one large enough for a rendezvous; receives from
 * MPI_ANY_SOURCE. */
static inline void inter_p2p(MPI_Comm ic)
{
    enum { BIG = 300000 };
    static char big[BIG], in[BIG];
    MPI_Request q[128];
    int n = 0;
    for (int r = 0; r < rsize; r++) {
        static int small[64];
        small[r] = val(gid, lrank, r);
        TU_CHECK(MPI_Isend(&small[r], 1, MPI_INT, r, 5, ic, &q[n++]));
    }
    for (int i = 0; i < rsize; i++) {
        int v;
        MPI_Status st;
        TU_CHECK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &st));
        TU_ASSERT(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize, "source %d", st.MPI_SOURCE);
        TU_ASSERT(v == val(!gid, st.MPI_SOURCE, lrank), "p2p from %d: %d, expected %d",
                  st.MPI_SOURCE, v, val(!gid, st.MPI_SOURCE, lrank));
    }
    TU_CHECK(MPI_Waitall(n, q, MPI_STATUSES_IGNORE));
    /* big: local l and remote l (when both exist) swap a rendezvous message */
    if (lrank < rsize) {
        tu_fill(big, BIG, (unsigned)(gid * 100 + lrank));
        TU_CHECK(MPI_Sendrecv(big, BIG, MPI_CHAR, lrank, 6, in, BIG, MPI_CHAR, lrank, 6, ic,
                              MPI_STATUS_IGNORE));
        tu_check_pattern(in, BIG, (unsigned)(!gid * 100 + lrank), "big message");
    }
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "inter_coll");
    int rank = tu_rank, size = tu_size;
    if (size < 2 || size > 64)
        tu_fail("needs 2..64 ranks, got %d", size);
    for (int parity = 0; parity < 2; parity++) {
        gid = parity ? rank % 2 : rank >= (size + 1) / 2;
        MPI_Comm local, ic, d;
        TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, gid, rank, &local));
        /* parity 0: leaders are the first of each group, peer MPI_COMM_WORLD;
         * parity 1: the last of each group, peer a duplicate of it */
        int leader = -1, nlocal;
        for (int r = 0; r < size; r++)
            if ((parity ? r % 2 : r >= (size + 1) / 2) != gid && (leader < 0 || parity))
                leader = r;
        MPI_Comm peer = MPI_COMM_WORLD;
        if (parity)
            TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &peer));
        MPI_Comm_size(local, &nlocal);
        TU_CHECK(MPI_Intercomm_create(local, parity ? nlocal - 1 : 0, peer, leader, 3, &ic));
        if (parity)
            TU_CHECK(MPI_Comm_free(&peer));
        MPI_Comm_rank(ic, &lrank);
        MPI_Comm_size(ic, &lsize);
        MPI_Comm_remote_size(ic, &rsize);
        rooted(ic);
        all(ic);
        TU_CHECK(MPI_Comm_dup(ic, &d)); /* and on a duplicate, interleaved with the parent */
        all(d);
        rooted(ic);
#ifdef FARO_TESTS_MPI_NBC_WRAP_H
        if (size <= 16)
            overlap(ic, d);
#endif
        TU_CHECK(MPI_Comm_free(&d));
        TU_CHECK(MPI_Comm_free(&ic));
        TU_CHECK(MPI_Comm_free(&local));
    }
    tu_finish();
    return 0;
}
