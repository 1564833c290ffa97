/*
 * inter_comm: intercommunicators from a split of MPI_COMM_WORLD into uneven
 * halves (group A: the first (size+1)/2 ranks, group B: the rest, or by
 * parity with reversed keys). Checks sizes, remote groups, test_inter,
 * compare, point-to-point both ways (tags, MPI_ANY_SOURCE, MPI_ANY_TAG, probe,
 * MPI_PROC_NULL), merge ordering for every high/low choice, dup/free cycles
 * (traffic on many live intercommunicators never crosses), names and
 * attributes, MPI_Comm_split / split_type / create of an intercommunicator, and
 * error classes under MPI_ERRORS_RETURN. Needs 2+ ranks.
 */
#include "util.h"

static int rank, size;

/* Group A / B membership and the world ranks of each group, in group order. */
struct split {
    int in_a;
    int na, nb;
    int a[64], b[64];
};

static void make_split(int parity, struct split *s)
{
    s->na = s->nb = 0;
    for (int r = 0; r < size; r++) {
        int in_a = parity ? r % 2 == 0 : r < (size + 1) / 2;
        if (in_a)
            s->a[s->na++] = r;
        else
            s->b[s->nb++] = r;
    }
    if (parity) { /* keys reverse the order inside each group */
        for (int i = 0; i < s->na / 2; i++) {
            int t = s->a[i];
            s->a[i] = s->a[s->na - 1 - i];
            s->a[s->na - 1 - i] = t;
        }
        for (int i = 0; i < s->nb / 2; i++) {
            int t = s->b[i];
            s->b[i] = s->b[s->nb - 1 - i];
            s->b[s->nb - 1 - i] = t;
        }
    }
    s->in_a = parity ? rank % 2 == 0 : rank < (size + 1) / 2;
}

static MPI_Comm make_inter(int parity, struct split *s, MPI_Comm *local)
{
    make_split(parity, s);
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, !s->in_a, parity ? size - rank : rank, local));
    /* leaders: local rank 0 of each group; peer: their world ranks */
    int remote_leader = s->in_a ? s->b[0] : s->a[0];
    MPI_Comm inter;
    TU_CHECK(MPI_Intercomm_create(*local, 0, MPI_COMM_WORLD, remote_leader, 7 + parity, &inter));
    return inter;
}

static void check_basics(MPI_Comm inter, const struct split *s)
{
    int flag, lsize, rsize, lrank;
    TU_CHECK(MPI_Comm_test_inter(inter, &flag));
    TU_ASSERT(flag, "Comm_test_inter: false on an intercommunicator");
    TU_CHECK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    TU_ASSERT(!flag, "Comm_test_inter: true on MPI_COMM_WORLD");
    TU_CHECK(MPI_Comm_size(inter, &lsize));
    TU_CHECK(MPI_Comm_remote_size(inter, &rsize));
    TU_CHECK(MPI_Comm_rank(inter, &lrank));
    const int *mine = s->in_a ? s->a : s->b, *theirs = s->in_a ? s->b : s->a;
    int nm = s->in_a ? s->na : s->nb, nt = s->in_a ? s->nb : s->na;
    TU_ASSERT(lsize == nm && rsize == nt, "sizes %d/%d, expected %d/%d", lsize, rsize, nm, nt);
    TU_ASSERT(mine[lrank] == rank, "local rank %d is world %d, expected %d", lrank, mine[lrank],
              rank);

    /* the groups, translated to MPI_COMM_WORLD ranks */
    MPI_Group wg, lg, rg;
    int idx[64], out[64];
    for (int i = 0; i < 64; i++)
        idx[i] = i;
    TU_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    TU_CHECK(MPI_Comm_group(inter, &lg));
    TU_CHECK(MPI_Comm_remote_group(inter, &rg));
    TU_CHECK(MPI_Group_translate_ranks(lg, nm, idx, wg, out));
    for (int i = 0; i < nm; i++)
        TU_ASSERT(out[i] == mine[i], "local group rank %d is world %d, expected %d", i, out[i],
                  mine[i]);
    TU_CHECK(MPI_Group_translate_ranks(rg, nt, idx, wg, out));
    for (int i = 0; i < nt; i++)
        TU_ASSERT(out[i] == theirs[i], "remote group rank %d is world %d, expected %d", i,
                  out[i], theirs[i]);
    int gr;
    TU_CHECK(MPI_Group_rank(rg, &gr));
    TU_ASSERT(gr == MPI_UNDEFINED, "this process is in its remote group");
    MPI_Group_free(&wg);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);

    /* compare: itself, a dup, an intracommunicator */
    MPI_Comm d;
    int cmp;
    TU_CHECK(MPI_Comm_compare(inter, inter, &cmp));
    TU_ASSERT(cmp == MPI_IDENT, "compare(inter, inter) = %d", cmp);
    TU_CHECK(MPI_Comm_dup(inter, &d));
    TU_CHECK(MPI_Comm_test_inter(d, &flag));
    TU_ASSERT(flag, "a dup of an intercommunicator is not one");
    TU_CHECK(MPI_Comm_compare(inter, d, &cmp));
    TU_ASSERT(cmp == MPI_CONGRUENT, "compare(inter, dup) = %d", cmp);
    TU_CHECK(MPI_Comm_compare(inter, MPI_COMM_WORLD, &cmp));
    TU_ASSERT(cmp == MPI_UNEQUAL, "compare(inter, world) = %d", cmp);
    TU_CHECK(MPI_Comm_free(&d));
}

/* Every process sends to every remote rank (tag: its local rank) and
 * receives from MPI_ANY_SOURCE; the status names the sender's remote rank. */
static void check_p2p(MPI_Comm inter, int salt)
{
    int lrank, lsize, rsize;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Request reqs[64];
    int out[64][2];
    for (int r = 0; r < rsize; r++) {
        out[r][0] = salt + 1000 * lrank + r;
        out[r][1] = rank;
        TU_CHECK(MPI_Isend(out[r], 2, MPI_INT, r, lrank, inter, &reqs[r]));
    }
    int seen[64] = {0};
    for (int i = 0; i < rsize; i++) {
        int in[2];
        MPI_Status st;
        TU_CHECK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &st));
        TU_ASSERT(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize, "probe: source %d",
                  st.MPI_SOURCE);
        TU_CHECK(MPI_Recv(in, 2, MPI_INT, MPI_ANY_SOURCE, st.MPI_TAG, inter, &st));
        int src = st.MPI_SOURCE;
        TU_ASSERT(src >= 0 && src < rsize && !seen[src], "recv: source %d (twice?)", src);
        seen[src] = 1;
        TU_ASSERT(st.MPI_TAG == src, "recv: tag %d from remote %d", st.MPI_TAG, src);
        TU_ASSERT(in[0] == salt + 1000 * src + lrank, "recv: data %d from remote %d, expected %d",
                  in[0], src, salt + 1000 * src + lrank);
    }
    TU_CHECK(MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE));
    TU_CHECK(MPI_Barrier(inter)); /* the MPI_ANY_TAG probes above must not see what follows */
    /* pairs: local rank l with remote rank l, a specific tag, MPI_ANY_SOURCE */
    int x = lrank, y = -1;
    MPI_Status st;
    if (lrank < rsize && lrank < lsize) {
        TU_CHECK(MPI_Sendrecv(&x, 1, MPI_INT, lrank, 5, &y, 1, MPI_INT, MPI_ANY_SOURCE, 5, inter,
                              &st));
        TU_ASSERT(y == lrank && st.MPI_SOURCE == lrank, "sendrecv: got %d from %d, expected %d",
                  y, st.MPI_SOURCE, lrank);
    }
    TU_CHECK(MPI_Recv(&y, 1, MPI_INT, MPI_PROC_NULL, 0, inter, &st));
    TU_ASSERT(st.MPI_SOURCE == MPI_PROC_NULL, "recv from MPI_PROC_NULL: source %d",
              st.MPI_SOURCE);
    TU_CHECK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, inter));
}

static void check_merge(MPI_Comm inter, const struct split *s)
{
    for (int mode = 0; mode < 3; mode++) {
        /* 0: A low, 1: A high, 2: both high (either order, consistent) */
        int high = mode == 0 ? !s->in_a : mode == 1 ? s->in_a : 1;
        MPI_Comm m;
        TU_CHECK(MPI_Intercomm_merge(inter, high, &m));
        int mrank, msize, flag;
        TU_CHECK(MPI_Comm_rank(m, &mrank));
        TU_CHECK(MPI_Comm_size(m, &msize));
        TU_CHECK(MPI_Comm_test_inter(m, &flag));
        TU_ASSERT(!flag && msize == size, "merge: size %d, inter %d", msize, flag);
        /* everyone's world rank in merged order */
        int all[64];
        TU_CHECK(MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, m));
        int a_first = mode == 0 ? 1 : mode == 1 ? 0 : all[0] == s->a[0];
        if (mode == 2)
            TU_ASSERT(all[0] == s->a[0] || all[0] == s->b[0], "merge: rank 0 is world %d",
                      all[0]);
        for (int i = 0; i < size; i++) {
            int want = a_first ? (i < s->na ? s->a[i] : s->b[i - s->na])
                               : (i < s->nb ? s->b[i] : s->a[i - s->nb]);
            TU_ASSERT(all[i] == want, "merge mode %d: rank %d is world %d, expected %d", mode, i,
                      all[i], want);
        }
        int sum = 0;
        TU_CHECK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, m));
        TU_ASSERT(sum == size * (size - 1) / 2, "merge: allreduce %d", sum);
        TU_CHECK(MPI_Comm_free(&m));
    }
}

/* Many live duplicates at once, each with traffic in flight; messages are
 * sent in the reverse order of the receives: only contexts keep them apart. */
static void check_dups(MPI_Comm inter)
{
    enum { N = 12 };
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    for (int cycle = 0; cycle < 5; cycle++) {
        MPI_Comm d[N];
        MPI_Request rq[N * 64];
        int in[N][64], out[N];
        for (int i = 0; i < N; i++) {
            TU_CHECK(MPI_Comm_dup(i % 2 ? d[i - 1] : inter, &d[i]));
            for (int r = 0; r < rsize; r++)
                TU_CHECK(MPI_Irecv(&in[i][r], 1, MPI_INT, r, 3, d[i], &rq[i * rsize + r]));
        }
        for (int i = N - 1; i >= 0; i--) {
            out[i] = 100 * cycle + i;
            for (int r = 0; r < rsize; r++)
                TU_CHECK(MPI_Send(&out[i], 1, MPI_INT, r, 3, d[i]));
        }
        TU_CHECK(MPI_Waitall(N * rsize, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < N; i++)
            for (int r = 0; r < rsize; r++)
                TU_ASSERT(in[i][r] == 100 * cycle + i, "dup %d cycle %d from %d: got %d", i,
                          cycle, r, in[i][r]);
        for (int i = 0; i < N; i++)
            TU_CHECK(MPI_Comm_free(&d[i]));
    }
}

static int split_color(int l)
{
    return l == 2 ? MPI_UNDEFINED : l % 2;
}

/* Split (colour by local rank, keys reversing the order) and create (each
 * side the first half of its group, reversed): the new intercommunicators'
 * groups, ranks and traffic. */
static void check_split_create(MPI_Comm inter)
{
    int lrank, lsize, rsize;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm n;
    int color = split_color(lrank);
    TU_CHECK(MPI_Comm_split(inter, color, -lrank, &n));
    int lw[64], rw[64], nl = 0, nr = 0, me = -1; /* old local ranks, new order */
    for (int l = lsize - 1; l >= 0; l--)
        if (color != MPI_UNDEFINED && split_color(l) == color) {
            if (l == lrank)
                me = nl;
            lw[nl++] = l;
        }
    for (int r = rsize - 1; r >= 0; r--)
        if (color != MPI_UNDEFINED && split_color(r) == color)
            rw[nr++] = r;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) { /* create: the first (size+1)/2 of each group, reversed */
            MPI_Group g, sub;
            int incl[64];
            nl = (lsize + 1) / 2;
            nr = (rsize + 1) / 2;
            me = -1;
            for (int i = 0; i < nl; i++) {
                incl[i] = lw[i] = nl - 1 - i;
                if (lw[i] == lrank)
                    me = i;
            }
            for (int i = 0; i < nr; i++)
                rw[i] = nr - 1 - i;
            MPI_Comm_group(inter, &g);
            TU_CHECK(MPI_Group_incl(g, nl, incl, &sub));
            TU_CHECK(MPI_Comm_create(inter, sub, &n));
            MPI_Group_free(&g);
            MPI_Group_free(&sub);
        }
        const char *what = pass ? "create" : "split";
        if (me < 0 || nr == 0) {
            TU_ASSERT(n == MPI_COMM_NULL, "%s: a communicator where MPI_COMM_NULL was due", what);
            continue;
        }
        TU_ASSERT(n != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
        int flag, nsize, nrsize, nrank;
        TU_CHECK(MPI_Comm_test_inter(n, &flag));
        MPI_Comm_size(n, &nsize);
        MPI_Comm_remote_size(n, &nrsize);
        MPI_Comm_rank(n, &nrank);
        TU_ASSERT(flag && nsize == nl && nrsize == nr && nrank == me,
                  "%s: inter %d size %d/%d remote %d/%d rank %d/%d", what, flag, nsize, nl,
                  nrsize, nr, nrank, me);
        /* the remote group, in the old intercommunicator's remote ranks */
        MPI_Group ng, og;
        int idx[64], out[64];
        for (int i = 0; i < 64; i++)
            idx[i] = i;
        MPI_Comm_remote_group(n, &ng);
        MPI_Comm_remote_group(inter, &og);
        TU_CHECK(MPI_Group_translate_ranks(ng, nr, idx, og, out));
        for (int i = 0; i < nr; i++)
            TU_ASSERT(out[i] == rw[i], "%s: remote rank %d is old %d, expected %d", what, i,
                      out[i], rw[i]);
        MPI_Group_free(&ng);
        MPI_Group_free(&og);
        /* traffic: every remote rank sends its old rank */
        int got[64];
        MPI_Request rq[64];
        for (int r = 0; r < nr; r++)
            TU_CHECK(MPI_Irecv(&got[r], 1, MPI_INT, r, 9, n, &rq[r]));
        for (int r = 0; r < nr; r++)
            TU_CHECK(MPI_Send(&lrank, 1, MPI_INT, r, 9, n));
        TU_CHECK(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
        for (int r = 0; r < nr; r++)
            TU_ASSERT(got[r] == rw[r], "%s: remote %d sent %d, expected %d", what, r, got[r],
                      rw[r]);
        int sum = -1, want = 0;
        for (int r = 0; r < nr; r++)
            want += rw[r];
        TU_CHECK(MPI_Allreduce(&lrank, &sum, 1, MPI_INT, MPI_SUM, n));
        TU_ASSERT(sum == want, "%s: allreduce %d, expected %d", what, sum, want);
        TU_CHECK(MPI_Comm_free(&n));
    }
    /* split_type: on one node the shared split keeps both whole groups */
    MPI_Comm node;
    int nodesize;
    TU_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nodesize);
    MPI_Comm_free(&node);
    TU_CHECK(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &n));
    if (nodesize == size) {
        int nsize = -1, nrsize = -1, nrank = -1;
        MPI_Comm_size(n, &nsize);
        MPI_Comm_remote_size(n, &nrsize);
        MPI_Comm_rank(n, &nrank);
        TU_ASSERT(nsize == lsize && nrsize == rsize && nrank == lrank,
                  "split_type shared: size %d remote %d rank %d", nsize, nrsize, nrank);
    }
    if (n != MPI_COMM_NULL) {
        TU_CHECK(MPI_Barrier(n));
        TU_CHECK(MPI_Comm_free(&n));
    }
    TU_CHECK(MPI_Comm_split_type(inter, MPI_UNDEFINED, 0, MPI_INFO_NULL, &n));
    TU_ASSERT(n == MPI_COMM_NULL, "split_type MPI_UNDEFINED: not MPI_COMM_NULL");
}

static int copies;
static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)key;
    (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void check_names_attrs(MPI_Comm inter)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, key, flag;
    void *val;
    copies = 0;
    TU_CHECK(MPI_Comm_set_name(inter, "my intercomm"));
    TU_CHECK(MPI_Comm_get_name(inter, name, &len));
    TU_ASSERT(strcmp(name, "my intercomm") == 0, "name '%s'", name);
    TU_CHECK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    static int payload = 42;
    TU_CHECK(MPI_Comm_set_attr(inter, key, &payload));
    MPI_Comm d;
    TU_CHECK(MPI_Comm_dup(inter, &d));
    TU_CHECK(MPI_Comm_get_attr(d, key, &val, &flag));
    TU_ASSERT(flag && val == &payload && copies == 1, "attribute not copied by dup");
    TU_CHECK(MPI_Comm_free(&d));
    TU_CHECK(MPI_Comm_delete_attr(inter, key));
    TU_CHECK(MPI_Comm_free_keyval(&key));
}

static void expect_class(int rc, int cls, const char *what)
{
    int c = -1;
    if (rc == MPI_SUCCESS)
        tu_fail("%s: succeeded, expected error class %d", what, cls);
    TU_CHECK(MPI_Error_class(rc, &c));
    if (c != cls)
        tu_fail("%s: error class %d, expected %d (%s)", what, c, cls, tu_errstr(rc));
}

static void check_errors(MPI_Comm inter, MPI_Comm local)
{
    TU_CHECK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN));
    int rsize, x = 0, y;
    MPI_Comm c;
    MPI_Group g;
    MPI_Comm_remote_size(inter, &rsize);
    expect_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &y), MPI_ERR_COMM, "remote_size(world)");
    expect_class(MPI_Comm_remote_group(local, &g), MPI_ERR_COMM, "remote_group(intra)");
    expect_class(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM, "merge(world)");
    expect_class(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_COMM,
                 "Intercomm_create(local = inter)");
    expect_class(MPI_Intercomm_create(local, 99, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_RANK,
                 "Intercomm_create(local_leader 99)");
    expect_class(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 0, -5, &c), MPI_ERR_TAG,
                 "Intercomm_create(tag -5)");
    expect_class(MPI_Send(&x, 1, MPI_INT, rsize, 0, inter), MPI_ERR_RANK, "send to rank rsize");
    expect_class(MPI_Recv(&x, 1, MPI_INT, rsize, 0, inter, MPI_STATUS_IGNORE), MPI_ERR_RANK,
                 "recv from rank rsize");
    expect_class(MPI_Bcast(&x, 1, MPI_INT, rsize, inter), MPI_ERR_ROOT, "bcast root rsize");
    expect_class(MPI_Bcast(&x, 1, MPI_INT, -7, inter), MPI_ERR_ROOT, "bcast root -7");
    expect_class(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM, "scan(inter)");
    expect_class(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM, "exscan(inter)");
    expect_class(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER,
                 "allreduce in place (inter)");
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    if (size > 2) /* the local group is a proper subset of the world's */
        expect_class(MPI_Comm_create(inter, g, &c), MPI_ERR_GROUP, "create(inter, world group)");
    MPI_Group_free(&g);
    MPI_Comm_group(inter, &g);
    expect_class(MPI_Comm_create_group(inter, g, 0, &c), MPI_ERR_COMM, "create_group(inter)");
    MPI_Group_free(&g);
    int dims[1] = {0}, periods[1] = {0};
    expect_class(MPI_Cart_create(inter, 1, dims, periods, 0, &c), MPI_ERR_COMM,
                 "cart_create(inter)");
    /* still usable */
    TU_CHECK(MPI_Barrier(inter));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "inter_comm");
    rank = tu_rank;
    size = tu_size;
    if (size < 2 || size > 64)
        tu_fail("needs 2..64 ranks, got %d", size);
    for (int parity = 0; parity < 2; parity++) {
        struct split s;
        MPI_Comm local, inter;
        inter = make_inter(parity, &s, &local);
        check_basics(inter, &s);
        check_p2p(inter, parity * 7);
        check_merge(inter, &s);
        check_dups(inter);
        check_names_attrs(inter);
        check_split_create(inter);
        if (parity)
            check_errors(inter, local);
        TU_CHECK(MPI_Comm_free(&inter));
        TU_CHECK(MPI_Comm_free(&local));
    }
    tu_finish();
    return 0;
}
