/*
 * coll_matrix_nbc: nonblocking collectives in flight together (TEST_NBC=1).
 *
 * For two counts (37 and 5000 ints, the second past the eager limit), every
 * nonblocking variant of the chosen groups is started on MPI_COMM_WORLD, its
 * dup and its split half, one after the other without waiting, several on
 * each communicator (so an engine must keep their messages apart by
 * operation, not only by communicator); then one MPI_Waitall completes them
 * all and each result is checked against the same references as the
 * blocking matrix. Reductions use the non-commutative user op, which
 * catches ranks combined out of order, and MPI_SUM on doubles in place.
 * Built only where the library declares the I* collectives (TEST_HAVE_NBC,
 * set in tests/mpi/Makefile-collalg.inc).
 */
#include "util.h"

#include "coll_matrix.h"

#ifdef TEST_HAVE_NBC

/* One operation in flight: its buffers stay alive until the Waitall. */
struct pending {
    const char *fn, *cname;
    int rank, size;
    unsigned salt;
    struct tbuf s, r;
    double *w; /* expected r; NULL: nothing to check at this rank */
    void *extra;
};

#define MAXP 256
static struct pending pend[MAXP];
static MPI_Request reqs[MAXP];
static int npend;

static struct pending *add(const char *fn)
{
    if (npend == MAXP)
        tu_fail("coll_matrix_nbc: more than %d operations in flight", MAXP);
    struct pending *p = &pend[npend];
    memset(p, 0, sizeof *p);
    p->fn = fn;
    p->cname = cm.name;
    p->rank = cm.rank;
    p->size = cm.size;
    cm_begin(fn, NULL);
    cm_case("starting it");
    p->salt = cm.salt;
    return p;
}

static MPI_Request *req(void) { return &reqs[npend++]; }

static struct tbuf filled(enum tkind k, size_t n, int src, int dst, unsigned salt)
{
    struct tbuf b = tb_new(k, n);
    for (size_t j = 0; j < n; j++)
        tb_set(&b, j, cm_val(src, dst, j, salt));
    return b;
}

static struct tbuf red_filled(enum tkind k, enum opkind o, size_t n, unsigned salt)
{
    struct tbuf b = tb_new(k, n);
    for (size_t j = 0; j < n; j++)
        tb_set(&b, j, red_input(o, cm.rank, j, salt));
    return b;
}

static int *vcounts(int u, int scale)
{
    int *c = tu_malloc(sizeof(int) * 2 * cm.size);
    int d = 0;
    for (int p = cm.size - 1; p >= 0; p--) {
        c[p] = (p % 3 == 1 ? 0 : u + (p * 7) % 5) * scale;
        c[cm.size + p] = d;
        d += c[p] + scale;
    }
    return c; /* counts, then displacements */
}
static int vtotal(const int *c) { return c[cm.size] + c[0] + 1; }

static void start_group(const char *g, int u)
{
    int me = cm.rank, n = cm.size, root = cm.size - 1;
    struct pending *p;
    if (!strcmp(g, "barrier")) {
        add("MPI_Ibarrier");
        CM_CALL(MPI_Ibarrier(cm.comm, req()));
    } else if (!strcmp(g, "bcast")) {
        p = add("MPI_Ibcast");
        enum tkind k = side_kind(T_VEC, me);
        size_t len = 2 * (size_t)u;
        p->r = me == root ? filled(k, len, root, 0, p->salt) : tb_new(k, len);
        p->w = want_new(len);
        for (size_t j = 0; j < len; j++)
            p->w[j] = cm_val(root, 0, j, p->salt);
        CM_CALL(MPI_Ibcast(p->r.ptr, tb_count(&p->r), tb_type(&p->r), root, cm.comm, req()));
    } else if (!strcmp(g, "reduce") || !strcmp(g, "allreduce")) {
        int all = g[0] == 'a';
        p = add(all ? "MPI_Iallreduce" : "MPI_Ireduce");
        root = n / 2;
        p->s = red_filled(T_INT, OP_NONCOMM, (size_t)u, p->salt);
        if (all || me == root) {
            p->r = tb_new(T_INT, (size_t)u);
            p->w = want_new((size_t)u);
            for (size_t j = 0; j < (size_t)u; j++)
                p->w[j] = red_fold(OP_NONCOMM, 0, n - 1, j, p->salt);
        }
        if (all)
            CM_CALL(MPI_Iallreduce(p->s.ptr, p->r.ptr, u, MPI_INT, cm_noncomm, cm.comm, req()));
        else
            CM_CALL(MPI_Ireduce(p->s.ptr, p->r.ptr, u, MPI_INT, cm_noncomm, root, cm.comm,
                                req()));
        if (all) { /* and one in place on doubles */
            p = add("MPI_Iallreduce (in place)");
            p->r = red_filled(T_DOUBLE, OP_SUM, (size_t)u, p->salt);
            p->w = want_new((size_t)u);
            for (size_t j = 0; j < (size_t)u; j++)
                p->w[j] = red_fold(OP_SUM, 0, n - 1, j, p->salt);
            CM_CALL(MPI_Iallreduce(MPI_IN_PLACE, p->r.ptr, u, MPI_DOUBLE, MPI_SUM, cm.comm,
                                   req()));
        }
    } else if (!strcmp(g, "gather")) {
        p = add("MPI_Igather");
        /* 2u ints from each rank against u cm_vec elements per block */
        size_t len = 2 * (size_t)u;
        p->s = filled(T_INT, len, me, root, p->salt);
        if (me == root) {
            p->r = tb_new(T_VEC, len * n);
            p->w = want_new(p->r.n);
            for (int q = 0; q < n; q++)
                for (size_t j = 0; j < len; j++)
                    p->w[(size_t)q * len + j] = cm_val(q, root, j, p->salt);
        }
        CM_CALL(MPI_Igather(p->s.ptr, 2 * u, MPI_INT, p->r.ptr, u, cm_vec, root, cm.comm,
                            req()));
        p = add("MPI_Igatherv");
        int *c = vcounts(u, 1);
        p->extra = c;
        p->s = filled(T_INT, (size_t)c[me], me, root, p->salt);
        if (me == root) {
            p->r = tb_new(T_INT, (size_t)vtotal(c));
            p->w = want_new(p->r.n);
            for (int q = 0; q < n; q++)
                for (size_t j = 0; j < (size_t)c[q]; j++)
                    p->w[(size_t)c[n + q] + j] = cm_val(q, root, j, p->salt);
        }
        CM_CALL(MPI_Igatherv(p->s.ptr, c[me], MPI_INT, p->r.ptr, c, c + n, MPI_INT, root,
                             cm.comm, req()));
    } else if (!strcmp(g, "scatter")) {
        p = add("MPI_Iscatter");
        if (me == root) {
            p->s = tb_new(T_INT, (size_t)u * n);
            for (int q = 0; q < n; q++)
                for (size_t j = 0; j < (size_t)u; j++)
                    tb_set(&p->s, (size_t)q * u + j, cm_val(root, q, j, p->salt));
        }
        p->r = tb_new(T_INT, (size_t)u);
        p->w = want_new((size_t)u);
        for (size_t j = 0; j < (size_t)u; j++)
            p->w[j] = cm_val(root, me, j, p->salt);
        CM_CALL(MPI_Iscatter(p->s.ptr, u, MPI_INT, p->r.ptr, u, MPI_INT, root, cm.comm, req()));
        p = add("MPI_Iscatterv");
        int *c = vcounts(u, 1);
        p->extra = c;
        if (me == root) {
            p->s = tb_new(T_INT, (size_t)vtotal(c));
            for (int q = 0; q < n; q++)
                for (size_t j = 0; j < (size_t)c[q]; j++)
                    tb_set(&p->s, (size_t)c[n + q] + j, cm_val(root, q, j, p->salt));
        }
        p->r = tb_new(T_INT, (size_t)c[me]);
        p->w = want_new(p->r.n);
        for (size_t j = 0; j < p->r.n; j++)
            p->w[j] = cm_val(root, me, j, p->salt);
        CM_CALL(MPI_Iscatterv(p->s.ptr, c, c + n, MPI_INT, p->r.ptr, c[me], MPI_INT, root,
                              cm.comm, req()));
    } else if (!strcmp(g, "allgather")) {
        p = add("MPI_Iallgather (in place)");
        p->r = tb_new(T_INT, (size_t)u * n);
        p->w = want_new(p->r.n);
        for (int q = 0; q < n; q++)
            for (size_t j = 0; j < (size_t)u; j++) {
                p->w[(size_t)q * u + j] = cm_val(q, 0, j, p->salt);
                if (q == me)
                    tb_set(&p->r, (size_t)q * u + j, cm_val(q, 0, j, p->salt));
            }
        CM_CALL(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, p->r.ptr, u, MPI_INT,
                               cm.comm, req()));
        p = add("MPI_Iallgatherv");
        int *c = vcounts(u, 1);
        p->extra = c;
        p->s = filled(T_INT, (size_t)c[me], me, 0, p->salt);
        p->r = tb_new(T_INT, (size_t)vtotal(c));
        p->w = want_new(p->r.n);
        for (int q = 0; q < n; q++)
            for (size_t j = 0; j < (size_t)c[q]; j++)
                p->w[(size_t)c[n + q] + j] = cm_val(q, 0, j, p->salt);
        CM_CALL(MPI_Iallgatherv(p->s.ptr, c[me], MPI_INT, p->r.ptr, c, c + n, MPI_INT, cm.comm,
                                req()));
    } else if (!strcmp(g, "alltoall")) {
        p = add("MPI_Ialltoall");
        p->s = tb_new(T_INT, (size_t)u * n);
        p->r = tb_new(T_INT, (size_t)u * n);
        p->w = want_new(p->r.n);
        for (int q = 0; q < n; q++)
            for (size_t j = 0; j < (size_t)u; j++) {
                tb_set(&p->s, (size_t)q * u + j, cm_val(me, q, j, p->salt));
                p->w[(size_t)q * u + j] = cm_val(q, me, j, p->salt);
            }
        CM_CALL(MPI_Ialltoall(p->s.ptr, u, MPI_INT, p->r.ptr, u, MPI_INT, cm.comm, req()));
        p = add("MPI_Ialltoallv (in place)");
        /* in place needs symmetric counts: u + (p + me) % 3 */
        int *c = tu_malloc(sizeof(int) * 2 * n);
        p->extra = c;
        int d = 0;
        for (int q = 0; q < n; q++) {
            c[q] = (q + me) % 4 == 1 ? 0 : u + (q + me) % 3;
            c[n + q] = d;
            d += c[q] + 1;
        }
        p->r = tb_new(T_INT, (size_t)d);
        p->w = want_new(p->r.n);
        for (int q = 0; q < n; q++)
            for (size_t j = 0; j < (size_t)c[q]; j++) {
                tb_set(&p->r, (size_t)c[n + q] + j, cm_val(me, q, j, p->salt));
                p->w[(size_t)c[n + q] + j] = cm_val(q, me, j, p->salt);
            }
        CM_CALL(MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, p->r.ptr, c, c + n,
                               MPI_INT, cm.comm, req()));
    } else if (!strcmp(g, "reduce_scatter")) {
        p = add("MPI_Ireduce_scatter_block");
        p->s = red_filled(T_INT, OP_NONCOMM, (size_t)u * n, p->salt);
        p->r = tb_new(T_INT, (size_t)u);
        p->w = want_new((size_t)u);
        for (size_t j = 0; j < (size_t)u; j++)
            p->w[j] = red_fold(OP_NONCOMM, 0, n - 1, (size_t)me * u + j, p->salt);
        CM_CALL(MPI_Ireduce_scatter_block(p->s.ptr, p->r.ptr, u, MPI_INT, cm_noncomm, cm.comm,
                                          req()));
        p = add("MPI_Ireduce_scatter");
        int *c = vcounts(u, 1);
        p->extra = c;
        size_t total = 0, off = 0;
        for (int q = 0; q < n; q++) {
            if (q == me)
                off = total;
            total += (size_t)c[q];
        }
        p->s = red_filled(T_INT, OP_NONCOMM, total, p->salt);
        p->r = tb_new(T_INT, (size_t)c[me]);
        p->w = want_new(p->r.n);
        for (size_t j = 0; j < p->r.n; j++)
            p->w[j] = red_fold(OP_NONCOMM, 0, n - 1, off + j, p->salt);
        CM_CALL(MPI_Ireduce_scatter(p->s.ptr, p->r.ptr, c, MPI_INT, cm_noncomm, cm.comm, req()));
    } else if (!strcmp(g, "scan")) {
        for (int ex = 0; ex < 2; ex++) {
            p = add(ex ? "MPI_Iexscan" : "MPI_Iscan");
            p->s = red_filled(T_INT, OP_NONCOMM, (size_t)u, p->salt);
            p->r = tb_new(T_INT, (size_t)u);
            if (!ex || me > 0) {
                p->w = want_new((size_t)u);
                for (size_t j = 0; j < (size_t)u; j++)
                    p->w[j] = red_fold(OP_NONCOMM, 0, ex ? me - 1 : me, j, p->salt);
            }
            if (ex)
                CM_CALL(MPI_Iexscan(p->s.ptr, p->r.ptr, u, MPI_INT, cm_noncomm, cm.comm, req()));
            else
                CM_CALL(MPI_Iscan(p->s.ptr, p->r.ptr, u, MPI_INT, cm_noncomm, cm.comm, req()));
        }
    }
}

void cm_nbc(MPI_Comm comms[3], const char *names[3], const char *const *groups, int ngroups)
{
    static const int us[] = {37, 5000};
    cm_tu_sync();
    for (int ui = 0; ui < 2; ui++) {
        npend = 0;
        /* every group on every communicator, then everything again on
         * WORLD, so that one communicator has two of a kind in flight */
        for (int round = 0; round < 4; round++) {
            int c = round == 3 ? 0 : round;
            cm.comm = comms[c];
            cm.name = names[c];
            cm.is_world = c == 0;
            cm.salt = (unsigned)(round * 1000 + ui * 100000);
            MPI_Comm_rank(cm.comm, &cm.rank);
            MPI_Comm_size(cm.comm, &cm.size);
            for (int g = 0; g < ngroups; g++)
                start_group(groups[g], us[ui]);
        }
        int rc = MPI_Waitall(npend, reqs, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            tu_fail("MPI_Waitall on %d nonblocking collectives (count %d) returned %s", npend,
                    us[ui], tu_errstr(rc));
        for (int i = 0; i < npend; i++) {
            struct pending *p = &pend[i];
            cm.name = p->cname;
            cm.rank = p->rank;
            cm.size = p->size;
            cm_begin(p->fn, NULL);
            cm_case("count %d, operation %d of %d in flight", us[ui], i + 1, npend);
            if (p->w)
                tb_compare(&p->r, p->w, "recvbuf");
            if (p->s.mem)
                tb_free(&p->s);
            if (p->r.mem)
                tb_free(&p->r);
            free(p->w);
            free(p->extra);
        }
    }
}

#else

void cm_nbc(MPI_Comm comms[3], const char *names[3], const char *const *groups, int ngroups)
{
    (void)comms;
    (void)names;
    (void)groups;
    (void)ngroups;
    cm_tu_sync();
    tu_fail("TEST_NBC=1, but this build of the test has no nonblocking collectives "
            "(TEST_HAVE_NBC is not defined in tests/mpi/Makefile-collalg.inc)");
}

#endif
