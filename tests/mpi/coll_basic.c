/*
 * coll_basic: the data-moving collectives without reductions (Barrier, Bcast,
 * Gather(v), Scatter(v), Allgather(v), Alltoall(v,w)) checked element by
 * element against values computed locally, for every root, counts 0, 1, odd
 * and larger, MPI_IN_PLACE where the standard allows it, on MPI_COMM_WORLD,
 * MPI_COMM_SELF and the halves of MPI_COMM_WORLD (MPI_Comm_split). Set
 * TEST_LARGE=1 for 4 MiB Bcast/Alltoall/Allgather (done on WORLD only).
 */
#include "util.h"

#define GAP (-77) /* never a value the tests produce */

static int rank, size;
static const char *cname;

/* The value element i of the block that src sends to dst (root: variation). */
static int val(int src, int dst, int i, int salt)
{
    return src * 1000003 + dst * 1009 + i * 3 + salt;
}

static int *ibuf(size_t n, int fill)
{
    int *p = tu_malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

#define EXPECT(cond, ...)                                                                     \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            char m_[256];                                                                     \
            snprintf(m_, sizeof m_, __VA_ARGS__);                                             \
            tu_fail("%s on %s (size %d): %s", __func__, cname, size, m_);                     \
        }                                                                                     \
    } while (0)

static void t_bcast(MPI_Comm comm, int count)
{
    for (int root = 0; root < size; root++) {
        int *b = ibuf((size_t)count + 1, GAP);
        if (rank == root)
            for (int i = 0; i < count; i++)
                b[i] = val(root, 0, i, count);
        TU_CHECK(MPI_Bcast(b, count, MPI_INT, root, comm));
        for (int i = 0; i < count; i++)
            EXPECT(b[i] == val(root, 0, i, count), "root %d count %d: [%d] = %d", root, count, i,
                   b[i]);
        EXPECT(b[count] == GAP, "root %d count %d: wrote past the end", root, count);
        free(b);
    }
}

static void t_gather(MPI_Comm comm, int count, int in_place)
{
    for (int root = 0; root < size; root++) {
        int *s = ibuf((size_t)count, 0), *r = ibuf((size_t)count * size + 1, GAP);
        for (int i = 0; i < count; i++)
            s[i] = val(rank, root, i, 1);
        const void *sb = s;
        if (in_place && rank == root) {
            memcpy(r + (size_t)root * count, s, (size_t)count * sizeof(int));
            sb = MPI_IN_PLACE;
        }
        TU_CHECK(MPI_Gather(sb, count, MPI_INT, r, count, MPI_INT, root, comm));
        if (rank == root) {
            for (int p = 0; p < size; p++)
                for (int i = 0; i < count; i++)
                    EXPECT(r[p * count + i] == val(p, root, i, 1),
                           "root %d count %d in_place %d: block %d [%d] = %d", root, count,
                           in_place, p, i, r[p * count + i]);
            EXPECT(r[count * size] == GAP, "wrote past the end");
        }
        free(s);
        free(r);
    }
}

/* v-variant layout: rank p's block has vcount(p) elements at vdispl(p),
 * blocks in reverse rank order with a one-element gap between them. */
static int vcount(int p, int count)
{
    return count ? (p * 3 + count) % 5 : 0;
}
static int vdispl(int p, int count)
{
    int d = 0;
    for (int q = size - 1; q > p; q--)
        d += vcount(q, count) + 1;
    return d;
}
static int vtotal(int count)
{
    return vdispl(-1, count) + 1;
}

static void t_gatherv(MPI_Comm comm, int count, int in_place)
{
    int *counts = ibuf(size, 0), *displs = ibuf(size, 0);
    for (int p = 0; p < size; p++) {
        counts[p] = vcount(p, count);
        displs[p] = vdispl(p, count);
    }
    for (int root = 0; root < size; root++) {
        int n = vcount(rank, count);
        int *s = ibuf((size_t)n, 0), *r = ibuf((size_t)vtotal(count), GAP);
        for (int i = 0; i < n; i++)
            s[i] = val(rank, root, i, 2);
        const void *sb = s;
        if (in_place && rank == root) {
            memcpy(r + displs[root], s, (size_t)n * sizeof(int));
            sb = MPI_IN_PLACE;
        }
        TU_CHECK(MPI_Gatherv(sb, n, MPI_INT, r, counts, displs, MPI_INT, root, comm));
        if (rank == root) {
            int *e = ibuf((size_t)vtotal(count), GAP);
            for (int p = 0; p < size; p++)
                for (int i = 0; i < counts[p]; i++)
                    e[displs[p] + i] = val(p, root, i, 2);
            for (int i = 0; i < vtotal(count); i++)
                EXPECT(r[i] == e[i], "root %d count %d in_place %d: [%d] = %d, expected %d", root,
                       count, in_place, i, r[i], e[i]);
            free(e);
        }
        free(s);
        free(r);
    }
    free(counts);
    free(displs);
}

static void t_scatter(MPI_Comm comm, int count, int in_place)
{
    for (int root = 0; root < size; root++) {
        int *s = ibuf((size_t)count * size, 0), *r = ibuf((size_t)count + 1, GAP);
        if (rank == root)
            for (int p = 0; p < size; p++)
                for (int i = 0; i < count; i++)
                    s[p * count + i] = val(root, p, i, 3);
        void *rb = r;
        if (in_place && rank == root)
            rb = MPI_IN_PLACE;
        TU_CHECK(MPI_Scatter(s, count, MPI_INT, rb, count, MPI_INT, root, comm));
        const int *got = rb == MPI_IN_PLACE ? s + (size_t)root * count : r;
        for (int i = 0; i < count; i++)
            EXPECT(got[i] == val(root, rank, i, 3), "root %d count %d in_place %d: [%d] = %d",
                   root, count, in_place, i, got[i]);
        EXPECT(r[count] == GAP, "wrote past the end");
        free(s);
        free(r);
    }
}

static void t_scatterv(MPI_Comm comm, int count, int in_place)
{
    int *counts = ibuf(size, 0), *displs = ibuf(size, 0);
    for (int p = 0; p < size; p++) {
        counts[p] = vcount(p, count);
        displs[p] = vdispl(p, count);
    }
    for (int root = 0; root < size; root++) {
        int n = vcount(rank, count);
        int *s = ibuf((size_t)vtotal(count), GAP), *r = ibuf((size_t)n + 1, GAP);
        if (rank == root)
            for (int p = 0; p < size; p++)
                for (int i = 0; i < counts[p]; i++)
                    s[displs[p] + i] = val(root, p, i, 4);
        void *rb = in_place && rank == root ? MPI_IN_PLACE : (void *)r;
        TU_CHECK(MPI_Scatterv(s, counts, displs, MPI_INT, rb, n, MPI_INT, root, comm));
        const int *got = rb == MPI_IN_PLACE ? s + displs[root] : r;
        for (int i = 0; i < n; i++)
            EXPECT(got[i] == val(root, rank, i, 4), "root %d count %d: [%d] = %d", root, count, i,
                   got[i]);
        EXPECT(r[n] == GAP, "wrote past the end");
        free(s);
        free(r);
    }
    free(counts);
    free(displs);
}

static void t_allgather(MPI_Comm comm, int count, int in_place)
{
    int *s = ibuf((size_t)count, 0), *r = ibuf((size_t)count * size + 1, GAP);
    for (int i = 0; i < count; i++)
        s[i] = val(rank, 0, i, 5);
    const void *sb = s;
    if (in_place) {
        memcpy(r + (size_t)rank * count, s, (size_t)count * sizeof(int));
        sb = MPI_IN_PLACE;
    }
    TU_CHECK(MPI_Allgather(sb, count, MPI_INT, r, count, MPI_INT, comm));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < count; i++)
            EXPECT(r[(size_t)p * count + i] == val(p, 0, i, 5),
                   "count %d in_place %d: block %d [%d] = %d", count, in_place, p, i,
                   r[(size_t)p * count + i]);
    EXPECT(r[(size_t)count * size] == GAP, "wrote past the end");
    free(s);
    free(r);
}

static void t_allgatherv(MPI_Comm comm, int count, int in_place)
{
    int *counts = ibuf(size, 0), *displs = ibuf(size, 0);
    for (int p = 0; p < size; p++) {
        counts[p] = vcount(p, count);
        displs[p] = vdispl(p, count);
    }
    int n = counts[rank];
    int *s = ibuf((size_t)n, 0), *r = ibuf((size_t)vtotal(count), GAP);
    for (int i = 0; i < n; i++)
        s[i] = val(rank, 0, i, 6);
    const void *sb = s;
    if (in_place) {
        memcpy(r + displs[rank], s, (size_t)n * sizeof(int));
        sb = MPI_IN_PLACE;
    }
    TU_CHECK(MPI_Allgatherv(sb, n, MPI_INT, r, counts, displs, MPI_INT, comm));
    int *e = ibuf((size_t)vtotal(count), GAP);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < counts[p]; i++)
            e[displs[p] + i] = val(p, 0, i, 6);
    for (int i = 0; i < vtotal(count); i++)
        EXPECT(r[i] == e[i], "count %d in_place %d: [%d] = %d, expected %d", count, in_place, i,
               r[i], e[i]);
    free(e);
    free(s);
    free(r);
    free(counts);
    free(displs);
}

static void t_alltoall(MPI_Comm comm, int count, int in_place)
{
    size_t n = (size_t)count * size;
    int *s = ibuf(n, 0), *r = ibuf(n + 1, GAP);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < count; i++)
            (in_place ? r : s)[(size_t)p * count + i] = val(rank, p, i, 7);
    TU_CHECK(MPI_Alltoall(in_place ? MPI_IN_PLACE : s, count, MPI_INT, r, count, MPI_INT, comm));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < count; i++)
            EXPECT(r[(size_t)p * count + i] == val(p, rank, i, 7),
                   "count %d in_place %d: block %d [%d] = %d", count, in_place, p, i,
                   r[(size_t)p * count + i]);
    EXPECT(r[n] == GAP, "wrote past the end");
    free(s);
    free(r);
}

/* alltoallv: src sends f(src, dst) elements to dst; symmetric when in place */
static int a2a_count(int src, int dst, int count, int sym)
{
    if (!count)
        return 0;
    return sym ? (src + dst) % 4 + count - 1 : (src * 3 + dst * 5) % 4 + count - 1;
}

static void t_alltoallv(MPI_Comm comm, int count, int in_place, int w)
{
    int *sc = ibuf(size, 0), *sd = ibuf(size, 0), *rc = ibuf(size, 0), *rd = ibuf(size, 0);
    MPI_Datatype *types = tu_malloc(size * sizeof *types);
    int stot = 0, rtot = 0;
    for (int p = size - 1; p >= 0; p--) { /* blocks in reverse order, gaps between */
        sc[p] = a2a_count(rank, p, count, in_place);
        rc[p] = a2a_count(p, rank, count, in_place);
        sd[p] = stot;
        rd[p] = rtot;
        stot += sc[p] + 1;
        rtot += rc[p] + 1;
        types[p] = MPI_INT;
    }
    int *s = ibuf((size_t)stot, GAP), *r = ibuf((size_t)rtot, GAP);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < sc[p]; i++)
            (in_place ? r + rd[p] : s + sd[p])[i] = val(rank, p, i, 8);
    if (w) {
        for (int p = 0; p < size; p++) {
            sd[p] *= (int)sizeof(int);
            rd[p] *= (int)sizeof(int);
        }
        TU_CHECK(MPI_Alltoallw(in_place ? MPI_IN_PLACE : s, sc, sd, types, r, rc, rd, types,
                               comm));
        for (int p = 0; p < size; p++) {
            sd[p] /= (int)sizeof(int);
            rd[p] /= (int)sizeof(int);
        }
    } else {
        TU_CHECK(MPI_Alltoallv(in_place ? MPI_IN_PLACE : s, sc, sd, MPI_INT, r, rc, rd, MPI_INT,
                               comm));
    }
    int *e = ibuf((size_t)rtot, GAP);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < rc[p]; i++)
            e[rd[p] + i] = val(p, rank, i, 8);
    for (int i = 0; i < rtot; i++)
        EXPECT(r[i] == e[i], "w %d count %d in_place %d: [%d] = %d, expected %d", w, count,
               in_place, i, r[i], e[i]);
    free(e);
    free(s);
    free(r);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(types);
}

static void run_all(MPI_Comm comm, const char *name)
{
    cname = name;
    TU_CHECK(MPI_Comm_rank(comm, &rank));
    TU_CHECK(MPI_Comm_size(comm, &size));
    static const int counts[] = {0, 1, 7, 1000};
    for (int k = 0; k < 4; k++) {
        int count = counts[k];
        TU_CHECK(MPI_Barrier(comm));
        t_bcast(comm, count);
        for (int ip = 0; ip < 2; ip++) {
            t_gather(comm, count, ip);
            t_gatherv(comm, count, ip);
            t_scatter(comm, count, ip);
            t_scatterv(comm, count, ip);
            t_allgather(comm, count, ip);
            t_allgatherv(comm, count, ip);
            t_alltoall(comm, count, ip);
            t_alltoallv(comm, count, ip, 0);
            t_alltoallv(comm, count, ip, 1);
        }
    }
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_basic");
    run_all(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    run_all(MPI_COMM_SELF, "MPI_COMM_SELF");

    /* two halves, ranks reversed inside each (key = -rank) */
    MPI_Comm half;
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, tu_rank % 2, -tu_rank, &half));
    run_all(half, "a half of MPI_COMM_WORLD");
    TU_CHECK(MPI_Comm_free(&half));

    const char *large = getenv("TEST_LARGE");
    if (large && *large == '1') {
        cname = "MPI_COMM_WORLD (large)";
        TU_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
        TU_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
        int n = (4 << 20) / (int)sizeof(int); /* 4 MiB */
        t_bcast(MPI_COMM_WORLD, n + 3);
        t_alltoall(MPI_COMM_WORLD, n / size + 1, 0);
        t_alltoall(MPI_COMM_WORLD, n / size + 1, 1);
        t_allgather(MPI_COMM_WORLD, n / size + 1, 0);
        t_gather(MPI_COMM_WORLD, n / size + 1, 0);
    }
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    tu_finish();
    return 0;
}
