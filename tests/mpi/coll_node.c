/*
 * coll_node: the collectives that have a node-aware algorithm (Barrier,
 * Bcast, Reduce, Allreduce, Allgather) on communicators whose ranks lie on
 * the nodes in different ways, checked value by value. Meant to run with
 * FARO_NODE_SIZE (a fake node map) and FARO_COLL_<COLL>_ALGORITHM=node_aware,
 * but correct under any MPI and any algorithm.
 *
 * Communicators: MPI_COMM_WORLD, a dup of it, its odd/even halves, world in
 * reversed order, and world "shuffled": the even ranks first, then the odd
 * ones, so that with 2 ranks per node every node's ranks are far apart in the
 * new rank order (round-robin placement, the case where a node's blocks are
 * not contiguous). Every root; counts 0, 1, 7 and 3000 (past the eager
 * limit); MPI_IN_PLACE; and on odd ranks a vector type (2 ints with a gap)
 * against plain ints on the others.
 */
#include "util.h"

static int rank, size;
static const char *cname;
static MPI_Datatype vec; /* 2 ints, stride 2: extent 3 ints */

#define CHECK_EQ(got, want, ...)                                                                \
    do {                                                                                      \
        long long g_ = (got), w_ = (want);                                                    \
        if (g_ != w_) {                                                                       \
            char what_[200];                                                                  \
            snprintf(what_, sizeof what_, __VA_ARGS__);                                       \
            tu_fail("%s on %s (size %d): %s: expected %lld, got %lld", __func__, cname, size, \
                    what_, w_, g_);                                                           \
        }                                                                                     \
    } while (0)

/* int j of an element array of n ints laid out plainly or as vec elements */
static int *at(int *buf, int j, int usevec)
{
    return usevec ? buf + (j / 2) * 3 + (j % 2) * 2 : buf + j;
}

static void test_barrier(MPI_Comm comm)
{
    /* each rank's token must be out before anyone leaves the barrier */
    for (int it = 0; it < 3; it++) {
        int right = (rank + 1) % size, left = (rank - 1 + size) % size, got = -1;
        MPI_Request req;
        TU_CHECK(MPI_Irecv(&got, 1, MPI_INT, left, 10 + it, comm, &req));
        TU_CHECK(MPI_Send(&rank, 1, MPI_INT, right, 10 + it, comm));
        TU_CHECK(MPI_Barrier(comm));
        int flag = 0;
        TU_CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        if (!flag)
            TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK_EQ(got, left, "barrier round %d token", it);
    }
}

static void test_bcast(MPI_Comm comm, int n, int *buf)
{
    for (int root = 0; root < size; root++) {
        for (int j = 0; j < n; j++)
            buf[j] = rank == root ? root * 10000 + j : -1;
        TU_CHECK(MPI_Bcast(buf, n, MPI_INT, root, comm));
        for (int j = 0; j < n; j++)
            CHECK_EQ(buf[j], root * 10000 + j, "Bcast count %d root %d int %d", n, root, j);
        /* odd ranks receive n/2 vec elements of the root's 2 (n/2) ints */
        int m = n / 2, usevec = rank % 2 && rank != root;
        for (int j = 0; j < 3 * m + 1; j++)
            buf[j] = -1;
        if (rank == root)
            for (int j = 0; j < 2 * m; j++)
                buf[j] = j + 7;
        TU_CHECK(MPI_Bcast(buf, usevec ? m : 2 * m, usevec ? vec : MPI_INT, root, comm));
        for (int j = 0; j < 2 * m; j++)
            CHECK_EQ(*at(buf, j, usevec), j + 7, "Bcast vec count %d root %d int %d", m, root, j);
        if (usevec)
            for (int j = 0; j < m; j++)
                CHECK_EQ(buf[3 * j + 1], -1, "Bcast vec count %d root %d: gap %d written", m,
                         root, j);
    }
}

static void test_reduce(MPI_Comm comm, int n, int *buf, int *in)
{
    for (int root = 0; root < size; root++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int j = 0; j < n; j++) {
                in[j] = rank * 3 + j;
                buf[j] = rank == root && inplace ? in[j] : -5;
            }
            const void *s = inplace && rank == root ? MPI_IN_PLACE : in;
            TU_CHECK(MPI_Reduce(s, rank == root ? buf : NULL, n, MPI_INT, MPI_SUM, root, comm));
            if (rank == root)
                for (int j = 0; j < n; j++)
                    CHECK_EQ(buf[j], 3 * size * (size - 1) / 2 + size * j,
                             "Reduce(SUM) count %d root %d%s int %d", n, root,
                             inplace ? " in place" : "", j);
            for (int j = 0; j < n; j++)
                CHECK_EQ(in[j], rank * 3 + j, "Reduce count %d root %d: sendbuf changed at %d",
                         n, root, j);
        }
    }
}

static void test_allreduce(MPI_Comm comm, int n, int *buf, int *in)
{
    for (int j = 0; j < n; j++)
        in[j] = rank * 5 + j;
    TU_CHECK(MPI_Allreduce(in, buf, n, MPI_INT, MPI_SUM, comm));
    for (int j = 0; j < n; j++)
        CHECK_EQ(buf[j], 5 * size * (size - 1) / 2 + size * j, "Allreduce(SUM) count %d int %d",
                 n, j);
    /* in place, MAX of values whose largest comes from a different rank per j */
    for (int j = 0; j < n; j++)
        buf[j] = (rank + j) % size * 2 - (rank == j % size);
    TU_CHECK(MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_INT, MPI_MAX, comm));
    for (int j = 0; j < n; j++) {
        int want = INT32_MIN;
        for (int r = 0; r < size; r++) {
            int v = (r + j) % size * 2 - (r == j % size);
            want = v > want ? v : want;
        }
        CHECK_EQ(buf[j], want, "Allreduce(MAX) in place count %d int %d", n, j);
    }
    double *d = (double *)in, *dr = (double *)buf;
    int nd = n / 2;
    for (int j = 0; j < nd; j++)
        d[j] = rank + 0.5 * j;
    TU_CHECK(MPI_Allreduce(d, dr, nd, MPI_DOUBLE, MPI_SUM, comm));
    for (int j = 0; j < nd; j++)
        CHECK_EQ((long long)(2 * dr[j]), (long long)(size * (size - 1) + size * j),
                 "Allreduce(SUM double) count %d element %d", nd, j);
}

/* blocks of k ints (k even); odd ranks describe theirs as k/2 vec elements */
static void test_allgather(MPI_Comm comm, int k, int *buf, int *in)
{
    int usevec = rank % 2, cnt = usevec ? k / 2 : k;
    MPI_Datatype t = usevec ? vec : MPI_INT;
    size_t stride = usevec ? (size_t)3 * (k / 2) : (size_t)k; /* ints per block */
    for (int inplace = 0; inplace < 2; inplace++) {
        for (size_t j = 0; j < stride * size + 1; j++)
            buf[j] = -1;
        for (int j = 0; j < k; j++)
            in[j] = rank * 100000 + j;
        if (inplace)
            for (int j = 0; j < k; j++)
                *at(buf + rank * stride, j, usevec) = in[j];
        TU_CHECK(MPI_Allgather(inplace ? MPI_IN_PLACE : in, k, MPI_INT, buf, cnt, t, comm));
        for (int r = 0; r < size; r++)
            for (int j = 0; j < k; j++)
                CHECK_EQ(*at(buf + r * stride, j, usevec), r * 100000 + j,
                         "Allgather%s block %d of %d ints, int %d", inplace ? " in place" : "",
                         r, k, j);
        if (usevec)
            for (size_t j = 0; j < stride * size / 3; j++)
                CHECK_EQ(buf[3 * j + 1], -1, "Allgather vec: gap %zu written", j);
    }
}

static void run(MPI_Comm comm, const char *name)
{
    static const int counts[] = {0, 1, 7, 3000};
    cname = name;
    TU_CHECK(MPI_Comm_rank(comm, &rank));
    TU_CHECK(MPI_Comm_size(comm, &size));
    int *buf = malloc(sizeof(int) * (3 * 3000 / 2 * (size_t)size + 16));
    int *in = malloc(sizeof(int) * 3016);
    if (!buf || !in)
        tu_fail("out of memory");
    test_barrier(comm);
    for (int i = 0; i < 4; i++) {
        int n = counts[i];
        test_bcast(comm, n, buf);
        test_reduce(comm, n, buf, in);
        test_allreduce(comm, n, buf, in);
        test_allgather(comm, n + n % 2, buf, in);
    }
    free(buf);
    free(in);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_node");
    int wrank = tu_rank, wsize = tu_size;
    TU_CHECK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    TU_CHECK(MPI_Type_commit(&vec));
    MPI_Comm dup, half, reversed, shuffled;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half));
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &reversed));
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, (wrank % 2) * wsize + wrank, &shuffled));
    run(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    run(dup, "a dup of MPI_COMM_WORLD");
    run(half, wrank % 2 ? "the odd half" : "the even half");
    run(reversed, "world reversed");
    run(shuffled, "world shuffled (evens, then odds)");
    TU_CHECK(MPI_Comm_free(&dup));
    TU_CHECK(MPI_Comm_free(&half));
    TU_CHECK(MPI_Comm_free(&reversed));
    TU_CHECK(MPI_Comm_free(&shuffled));
    TU_CHECK(MPI_Type_free(&vec));
    tu_finish();
    return 0;
}
