/*
 * comm_idup: MPI_Comm_idup and MPI_Comm_idup_with_info are nonblocking
 * collectives (MPI-3.1 6.4.2): the call returns before the other processes
 * have called it, and the new communicator is usable once the request
 * completes. Checked:
 *  - a plain idup of MPI_COMM_WORLD completed by MPI_Wait and by an MPI_Test
 *    loop;
 *  - rank 0 receives one message from every other rank before it calls
 *    idup, while every other rank calls idup, then MPI_Ssend to rank 0, then
 *    waits (a blocking idup deadlocks here);
 *  - two idups of one communicator in flight at once; idups of two
 *    communicators started in opposite orders by even and odd ranks; an idup
 *    pending across a blocking MPI_Comm_dup of another communicator that the
 *    other ranks call first;
 *  - MPI_Comm_idup_with_info (the info is the new communicator's); an
 *    attribute copy callback runs as for MPI_Comm_dup; a copy callback that
 *    fails at odd ranks makes their idup fail at the call, while the even
 *    ranks' idups still complete (the failing ranks take part all the same)
 *    and a later idup works everywhere;
 *  - an idup of a communicator made by MPI_Comm_create_group, with the same
 *    late-root pattern inside the group;
 *  - sixteen idups in flight, then MPI_Waitall; an MPI_Iallreduce on the
 *    parent in flight while the idup runs; the parent freed before the
 *    request completes;
 *  - an idup of an intercommunicator whose local rank 0 of one group first
 *    receives from every remote rank.
 * Every new communicator is used: an allreduce and a ring exchange whose
 * payload names the communicator, with receives posted on every communicator
 * alive at once, so a context id given twice lets messages cross.
 */
#include "util.h"

#define TAG 5

/* The sum of the ranks of a group of n, and what every rank of c must see. */
static void use_comm(MPI_Comm c, int id)
{
    int inter, rank, size, rsize;
    TU_CHECK(MPI_Comm_test_inter(c, &inter));
    TU_CHECK(MPI_Comm_rank(c, &rank));
    TU_CHECK(MPI_Comm_size(c, &size));
    rsize = size;
    if (inter)
        TU_CHECK(MPI_Comm_remote_size(c, &rsize));
    int sum = -1;
    TU_CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    TU_ASSERT(sum == rsize * (rsize - 1) / 2,
              "communicator %d: allreduce of the ranks gave %d, expected %d", id, sum,
              rsize * (rsize - 1) / 2);
    int to = inter ? rank % rsize : (rank + 1) % size;
    int out[2] = {id, rank}, in[2] = {-1, -1};
    MPI_Request rq[2];
    TU_CHECK(MPI_Irecv(in, 2, MPI_INT, MPI_ANY_SOURCE, TAG, c, &rq[0]));
    TU_CHECK(MPI_Isend(out, 2, MPI_INT, to, TAG, c, &rq[1]));
    /* inter: remote ranks r with r % size == rank send here; take them all */
    int expect = inter ? 0 : 1;
    if (inter)
        for (int r = 0; r < rsize; r++)
            expect += r % size == rank;
    MPI_Status st;
    for (int k = 0; k < expect; k++) {
        if (k > 0)
            TU_CHECK(MPI_Irecv(in, 2, MPI_INT, MPI_ANY_SOURCE, TAG, c, &rq[0]));
        TU_CHECK(MPI_Wait(&rq[0], &st));
        TU_ASSERT(in[0] == id, "communicator %d: a message of communicator %d arrived "
                  "(context ids crossed)", id, in[0]);
        TU_ASSERT(in[1] == st.MPI_SOURCE, "communicator %d: payload names rank %d, source %d",
                  id, in[1], st.MPI_SOURCE);
    }
    if (expect == 0)
        TU_CHECK(MPI_Cancel(&rq[0]));
    if (expect == 0)
        TU_CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
}

/* n intracommunicators at once: every receive posted first (on all of
 * them), then the sends in reverse order; each payload must name its own. */
static void no_crossing(MPI_Comm *c, int n)
{
    int rank, size;
    MPI_Request *rq = tu_malloc(sizeof *rq * 2 * (size_t)n);
    int *in = tu_malloc(sizeof(int) * (size_t)n), *out = tu_malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        TU_CHECK(MPI_Comm_rank(c[i], &rank));
        TU_CHECK(MPI_Comm_size(c[i], &size));
        in[i] = -1;
        TU_CHECK(MPI_Irecv(&in[i], 1, MPI_INT, (rank + size - 1) % size, TAG + 1, c[i],
                           &rq[i]));
    }
    for (int i = n - 1; i >= 0; i--) {
        TU_CHECK(MPI_Comm_rank(c[i], &rank));
        TU_CHECK(MPI_Comm_size(c[i], &size));
        out[i] = 1000 + i;
        TU_CHECK(MPI_Isend(&out[i], 1, MPI_INT, (rank + 1) % size, TAG + 1, c[i], &rq[n + i]));
    }
    TU_CHECK(MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++)
        TU_ASSERT(in[i] == 1000 + i, "communicator %d of %d alive at once got communicator "
                  "%d's message (context ids crossed)", i, n, in[i] - 1000);
    free(rq);
    free(in);
    free(out);
}

static void check_congruent(MPI_Comm a, MPI_Comm b, const char *what)
{
    int cmp;
    TU_CHECK(MPI_Comm_compare(a, b, &cmp));
    TU_ASSERT(cmp == MPI_CONGRUENT, "%s: MPI_Comm_compare with the parent says %d, expected "
              "MPI_CONGRUENT", what, cmp);
}

/* Rank 0 of c receives from every other rank before it calls idup; the
 * others idup first, then MPI_Ssend to rank 0 (which can only complete once
 * rank 0 is past its receives), then wait. */
static void late_root(MPI_Comm c, int id)
{
    int rank, size, token = 7;
    TU_CHECK(MPI_Comm_rank(c, &rank));
    TU_CHECK(MPI_Comm_size(c, &size));
    MPI_Comm n = MPI_COMM_NULL;
    MPI_Request r;
    if (rank == 0) {
        for (int i = 1; i < size; i++)
            TU_CHECK(MPI_Recv(&token, 1, MPI_INT, i, TAG, c, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Comm_idup(c, &n, &r));
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        TU_CHECK(MPI_Comm_idup(c, &n, &r));
        TU_CHECK(MPI_Ssend(&token, 1, MPI_INT, 0, TAG, c));
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    TU_ASSERT(r == MPI_REQUEST_NULL, "a completed idup request was not set to MPI_REQUEST_NULL");
    check_congruent(c, n, "late root");
    use_comm(n, id);
    TU_CHECK(MPI_Comm_free(&n));
}

static int copies;
static int copy_fn(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)keyval;
    (void)extra;
    copies++;
    *(intptr_t *)out = (intptr_t)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int fail_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)keyval;
    (void)extra;
    *(void **)out = in;
    *flag = 1;
    return tu_rank % 2 ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void failing_copy(void)
{
    MPI_Comm p, n;
    MPI_Request r;
    int keyval, cls;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &p));
    TU_CHECK(MPI_Comm_set_errhandler(p, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_create_keyval(fail_copy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
    TU_CHECK(MPI_Comm_set_attr(p, keyval, NULL));
    int rc = MPI_Comm_idup(p, &n, &r);
    if (tu_rank % 2) {
        MPI_Error_class(rc, &cls);
        TU_ASSERT(cls == MPI_ERR_OTHER, "idup with a failing copy callback gave %s",
                  tu_errstr(rc));
    } else {
        TU_CHECK(rc);
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Comm_free(&n));
    }
    TU_CHECK(MPI_Comm_delete_attr(p, keyval));
    TU_CHECK(MPI_Comm_free_keyval(&keyval));
    TU_CHECK(MPI_Comm_idup(p, &n, &r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    use_comm(n, 50);
    TU_CHECK(MPI_Comm_free(&n));
    TU_CHECK(MPI_Comm_free(&p));
}

static void intercomm(void)
{
    int rank = tu_rank, size = tu_size;
    int gid = rank >= (size + 1) / 2; /* A: the first half, B: the rest */
    MPI_Comm local, ic, n;
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, gid, rank, &local));
    TU_CHECK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, gid ? 0 : (size + 1) / 2, 1, &ic));
    int lrank, rsize, token = 3;
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Request r;
    if (gid == 0 && lrank == 0) {
        for (int i = 0; i < rsize; i++)
            TU_CHECK(MPI_Recv(&token, 1, MPI_INT, i, TAG, ic, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Comm_idup(ic, &n, &r));
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        TU_CHECK(MPI_Comm_idup(ic, &n, &r));
        if (gid == 1)
            TU_CHECK(MPI_Ssend(&token, 1, MPI_INT, 0, TAG, ic));
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    int inter = 0;
    TU_CHECK(MPI_Comm_test_inter(n, &inter));
    TU_ASSERT(inter, "the idup of an intercommunicator is not an intercommunicator");
    check_congruent(ic, n, "intercommunicator");
    use_comm(n, 40);
    use_comm(ic, 41);
    /* two more in flight, then the blocking collectives of the new ones */
    MPI_Comm m[2];
    MPI_Request rr[2];
    TU_CHECK(MPI_Comm_idup(ic, &m[0], &rr[0]));
    TU_CHECK(MPI_Comm_idup(n, &m[1], &rr[1]));
    TU_CHECK(MPI_Waitall(2, rr, MPI_STATUSES_IGNORE));
    use_comm(m[1], 42);
    use_comm(m[0], 43);
    TU_CHECK(MPI_Comm_free(&m[0]));
    TU_CHECK(MPI_Comm_free(&m[1]));
    TU_CHECK(MPI_Comm_free(&n));
    TU_CHECK(MPI_Comm_free(&ic));
    TU_CHECK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "comm_idup");
    int rank = tu_rank, size = tu_size;
    MPI_Comm n, m;
    MPI_Request r, rr[2];

    /* plain, by MPI_Wait and by MPI_Test */
    TU_CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &n, &r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_congruent(MPI_COMM_WORLD, n, "plain");
    use_comm(n, 1);
    TU_CHECK(MPI_Comm_free(&n));
    TU_CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &n, &r));
    for (int flag = 0; !flag;)
        TU_CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    use_comm(n, 2);
    TU_CHECK(MPI_Comm_free(&n));

    /* While pending, calls that do not communicate work on the new handle (as
     * in MPICH and Open MPI: mpi4py sets its errhandler before waiting);
     * communication on it is refused with MPI_ERR_COMM until it completes. */
    TU_CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &n, &r));
    {
        int rk = -1, sz = -1, x = 0;
        TU_CHECK(MPI_Comm_set_errhandler(n, MPI_ERRORS_RETURN));
        TU_CHECK(MPI_Comm_set_name(n, "pending"));
        TU_CHECK(MPI_Comm_rank(n, &rk));
        TU_CHECK(MPI_Comm_size(n, &sz));
        TU_ASSERT(rk == rank && sz == size, "pending idup: rank %d size %d", rk, sz);
        TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        TU_EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, 0, 0, n), MPI_ERR_COMM);
        TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    }
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    use_comm(n, 3);
    TU_CHECK(MPI_Comm_free(&n));

    /* the late root, on WORLD and on a dup */
    late_root(MPI_COMM_WORLD, 3);
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &m));
    late_root(m, 4);

    /* two of one communicator at once, completed in reverse order */
    TU_CHECK(MPI_Comm_idup(m, &n, &rr[0]));
    MPI_Comm n2;
    TU_CHECK(MPI_Comm_idup(m, &n2, &rr[1]));
    TU_CHECK(MPI_Wait(&rr[1], MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Wait(&rr[0], MPI_STATUS_IGNORE));
    MPI_Comm three[3] = {n, n2, m};
    no_crossing(three, 3);
    use_comm(n2, 5);
    use_comm(n, 6);
    TU_CHECK(MPI_Comm_free(&n2));

    /* two communicators in opposite orders at even and odd ranks */
    MPI_Comm a = m, b = n, na, nb;
    if (rank % 2 == 0) {
        TU_CHECK(MPI_Comm_idup(a, &na, &rr[0]));
        TU_CHECK(MPI_Comm_idup(b, &nb, &rr[1]));
    } else {
        TU_CHECK(MPI_Comm_idup(b, &nb, &rr[1]));
        TU_CHECK(MPI_Comm_idup(a, &na, &rr[0]));
    }
    TU_CHECK(MPI_Waitall(2, rr, MPI_STATUSES_IGNORE));
    MPI_Comm four[4] = {na, nb, a, b};
    no_crossing(four, 4);
    TU_CHECK(MPI_Comm_free(&nb));
    TU_CHECK(MPI_Comm_free(&na));

    /* an idup pending across a blocking dup of another communicator that the
     * other ranks call first */
    MPI_Comm d;
    if (rank % 2 == 0) {
        TU_CHECK(MPI_Comm_idup(a, &na, &r));
        TU_CHECK(MPI_Comm_dup(b, &d));
    } else {
        TU_CHECK(MPI_Comm_dup(b, &d));
        TU_CHECK(MPI_Comm_idup(a, &na, &r));
    }
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_Comm two[2] = {na, d};
    no_crossing(two, 2);
    TU_CHECK(MPI_Comm_free(&na));
    TU_CHECK(MPI_Comm_free(&d));
    TU_CHECK(MPI_Comm_free(&n));

    /* with info; and an attribute copied by its callback */
    MPI_Info info, got;
    TU_CHECK(MPI_Info_create(&info));
    TU_CHECK(MPI_Info_set(info, "faro_test_hint", "idup"));
    int keyval, flag;
    TU_CHECK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
    TU_CHECK(MPI_Comm_set_attr(m, keyval, (void *)(intptr_t)41));
    TU_CHECK(MPI_Comm_idup_with_info(m, info, &n, &r));
    TU_CHECK(MPI_Info_free(&info));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Comm_get_info(n, &got));
    char value[64];
    TU_CHECK(MPI_Info_get(got, "faro_test_hint", (int)sizeof value - 1, value, &flag));
    TU_ASSERT(flag && strcmp(value, "idup") == 0, "idup_with_info: the hint is %s",
              flag ? value : "missing");
    TU_CHECK(MPI_Info_free(&got));
    void *val;
    TU_CHECK(MPI_Comm_get_attr(n, keyval, &val, &flag));
    TU_ASSERT(flag && (intptr_t)val == 42 && copies == 1,
              "idup: the attribute is %s %ld after %d copy callbacks (expected 42 after 1)",
              flag ? "" : "missing", flag ? (long)(intptr_t)val : 0L, copies);
    use_comm(n, 7);
    TU_CHECK(MPI_Comm_free(&n));
    TU_CHECK(MPI_Comm_free_keyval(&keyval));

    /* an idup of a communicator from MPI_Comm_create_group (the ranks in
     * reverse order), the late root again inside it */
    MPI_Group wg, rev;
    int *ranks = tu_malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        ranks[i] = size - 1 - i;
    TU_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    TU_CHECK(MPI_Group_incl(wg, size, ranks, &rev));
    MPI_Comm cg;
    TU_CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, rev, 17, &cg));
    TU_CHECK(MPI_Comm_idup(cg, &n, &r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_congruent(cg, n, "create_group");
    use_comm(n, 8);
    TU_CHECK(MPI_Comm_free(&n));
    late_root(cg, 9);
    TU_CHECK(MPI_Group_free(&rev));
    TU_CHECK(MPI_Group_free(&wg));
    free(ranks);

    /* sixteen in flight (of three parents), one Waitall */
    enum { MANY = 16 };
    MPI_Comm many[MANY + 1];
    MPI_Request mr[MANY];
    for (int i = 0; i < MANY; i++)
        TU_CHECK(MPI_Comm_idup(i % 3 == 0 ? MPI_COMM_WORLD : i % 3 == 1 ? m : cg, &many[i],
                               &mr[i]));
    TU_CHECK(MPI_Waitall(MANY, mr, MPI_STATUSES_IGNORE));
    many[MANY] = m;
    no_crossing(many, MANY + 1);
    for (int i = 0; i < MANY; i++)
        use_comm(many[i], 100 + i);
    for (int i = 0; i < MANY; i++)
        TU_CHECK(MPI_Comm_free(&many[i]));
    TU_CHECK(MPI_Comm_free(&cg));

    /* an Iallreduce of the parent on each side of the idup */
    int x = rank, y = 2 * rank, sx = -1, sy = -1;
    MPI_Request q[3];
    TU_CHECK(MPI_Iallreduce(&x, &sx, 1, MPI_INT, MPI_SUM, m, &q[0]));
    TU_CHECK(MPI_Comm_idup(m, &n, &q[1]));
    TU_CHECK(MPI_Iallreduce(&y, &sy, 1, MPI_INT, MPI_SUM, m, &q[2]));
    TU_CHECK(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
    TU_ASSERT(sx == size * (size - 1) / 2 && sy == size * (size - 1),
              "Iallreduce around an idup: %d and %d", sx, sy);
    use_comm(n, 10);
    TU_CHECK(MPI_Comm_free(&n));

    /* the parent freed while its idup is pending */
    TU_CHECK(MPI_Comm_idup(m, &n, &r));
    TU_CHECK(MPI_Comm_free(&m));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    use_comm(n, 11);
    TU_CHECK(MPI_Comm_free(&n));

    failing_copy();
    if (size >= 2)
        intercomm();
    tu_finish();
    return 0;
}
