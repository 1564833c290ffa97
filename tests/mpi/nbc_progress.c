/*
 * nbc_progress: nonblocking collectives in flight together and mixed with
 * everything else, each result checked against values computed locally.
 *  - several different collectives started back to back on one
 *    communicator, completed in reverse order;
 *  - the same collective 64 times in flight on one communicator (each must
 *    keep its own tag), completed with Waitall; 40 Ibarriers with Testall;
 *  - collectives on MPI_COMM_WORLD, a dup and a split at once, completed by
 *    Waitany and Waitsome;
 *  - blocking collectives and user point-to-point (MPI_ANY_TAG receives
 *    included) while a nonblocking collective is pending;
 *  - overlap: a rank computes in slices and calls MPI_Test between them;
 *  - MPI_Request_free before completion: the operation still completes (its
 *    buffer gets the result while the program keeps calling MPI);
 *  - MPI_Type_free and MPI_Op_free while an operation uses them.
 */
#include "util.h"

static int rank, size;

static int sum_ranks(int n, int add)
{
    return n * (n - 1) / 2 + n * add;
}

static void several_on_one_comm(void)
{
    int a[5], b[7], g[64], all[64 * 2], c[64 * 2];
    MPI_Request r[5];
    for (int i = 0; i < 5; i++)
        a[i] = rank + i;
    for (int i = 0; i < 7; i++)
        b[i] = rank == size - 1 ? 100 + i : -1;
    int mine[2] = {rank, -rank};
    for (int i = 0; i < 2 * size; i++)
        all[i] = rank * 1000 + i;
    TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, a, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]));
    TU_CHECK(MPI_Ibcast(b, 7, MPI_INT, size - 1, MPI_COMM_WORLD, &r[1]));
    TU_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &r[2]));
    TU_CHECK(MPI_Igather(mine, 2, MPI_INT, g, 2, MPI_INT, 0, MPI_COMM_WORLD, &r[3]));
    TU_CHECK(MPI_Ialltoall(all, 2, MPI_INT, c, 2, MPI_INT, MPI_COMM_WORLD, &r[4]));
    for (int i = 4; i >= 0; i--)
        TU_CHECK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    for (int i = 0; i < 5; i++)
        if (a[i] != sum_ranks(size, i))
            tu_fail("several: Iallreduce a[%d] = %d, expected %d", i, a[i], sum_ranks(size, i));
    for (int i = 0; i < 7; i++)
        if (b[i] != 100 + i)
            tu_fail("several: Ibcast b[%d] = %d", i, b[i]);
    for (int i = 0; rank == 0 && i < size; i++)
        if (g[2 * i] != i || g[2 * i + 1] != -i)
            tu_fail("several: Igather block %d = %d,%d", i, g[2 * i], g[2 * i + 1]);
    for (int i = 0; i < size; i++)
        for (int k = 0; k < 2; k++)
            if (c[2 * i + k] != i * 1000 + 2 * rank + k)
                tu_fail("several: Ialltoall from %d [%d] = %d", i, k, c[2 * i + k]);
}

static void many_in_flight(void)
{
    enum { N = 64 };
    static int v[N][3];
    MPI_Request r[N];
    for (int k = 0; k < N; k++) {
        for (int i = 0; i < 3; i++)
            v[k][i] = rank * k + i;
        TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, v[k], 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[k]));
    }
    TU_CHECK(MPI_Waitall(N, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < N; k++)
        for (int i = 0; i < 3; i++)
            if (v[k][i] != k * sum_ranks(size, 0) + size * i)
                tu_fail("many: op %d [%d] = %d", k, i, v[k][i]);
    MPI_Request b[40];
    for (int k = 0; k < 40; k++)
        TU_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &b[k]));
    int flag = 0;
    while (!flag)
        TU_CHECK(MPI_Testall(40, b, &flag, MPI_STATUSES_IGNORE));
}

static void several_comms(void)
{
    MPI_Comm dup, half;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half)); /* reversed order */
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    int x = rank, y = rank * 2, z[3] = {0, 0, 0}, hx = hrank + 1;
    MPI_Request r[4];
    if (rank == 0)
        z[0] = 7, z[1] = 8, z[2] = 9;
    TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, dup, &r[0]));
    TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]));
    TU_CHECK(MPI_Iscan(MPI_IN_PLACE, &hx, 1, MPI_INT, MPI_SUM, half, &r[2]));
    TU_CHECK(MPI_Ibcast(z, 3, MPI_INT, 0, dup, &r[3]));
    int left = 4;
    while (left > 0) {
        int idx, n, ids[4];
        if (left % 2) {
            TU_CHECK(MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE));
            if (idx == MPI_UNDEFINED)
                tu_fail("comms: Waitany found no active request with %d left", left);
            left--;
        } else {
            TU_CHECK(MPI_Waitsome(4, r, &n, ids, MPI_STATUSES_IGNORE));
            if (n == MPI_UNDEFINED || n < 1)
                tu_fail("comms: Waitsome gave %d with %d left", n, left);
            left -= n;
        }
    }
    for (int i = 0; i < 4; i++)
        if (r[i] != MPI_REQUEST_NULL)
            tu_fail("comms: request %d not MPI_REQUEST_NULL after completion", i);
    if (x != sum_ranks(size, 0) || y != 2 * sum_ranks(size, 0))
        tu_fail("comms: allreduce on dup %d / world %d", x, y);
    if (hx != (hrank + 1) * (hrank + 2) / 2)
        tu_fail("comms: Iscan on the split = %d, expected %d", hx, (hrank + 1) * (hrank + 2) / 2);
    if (z[0] != 7 || z[1] != 8 || z[2] != 9)
        tu_fail("comms: Ibcast on dup = %d %d %d", z[0], z[1], z[2]);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
}

static void mixed_with_blocking(void)
{
    enum { N = 1000 };
    static int a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = rank + i;
    MPI_Request r, pr;
    TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, a, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r));
    int got = -1, right = (rank + 1) % size, left = (rank - 1 + size) % size;
    TU_CHECK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pr));
    for (int i = 0; i < N; i++)
        b[i] = i;
    TU_CHECK(MPI_Allreduce(MPI_IN_PLACE, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Send(&rank, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
    MPI_Status st;
    TU_CHECK(MPI_Wait(&pr, &st));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (got != left || st.MPI_TAG != 5)
        tu_fail("mixed: user receive got %d tag %d, expected %d tag 5", got, st.MPI_TAG, left);
    for (int i = 0; i < N; i++)
        if (a[i] != size - 1 + i || b[i] != size * i)
            tu_fail("mixed: [%d] Iallreduce %d (want %d), Allreduce %d (want %d)", i, a[i],
                    size - 1 + i, b[i], size * i);
}

static void overlap(void)
{
    enum { N = 1 << 15 };
    int *a = malloc(N * sizeof *a), *s = malloc(N * sizeof *s), *t = malloc(N * sizeof *t);
    if (!a || !s || !t)
        tu_fail("overlap: out of memory");
    for (int i = 0; i < N; i++)
        a[i] = i % 97 + rank;
    for (int i = 0; i < N; i++)
        s[i] = rank * 31 + i / (N / size);
    MPI_Request r[2];
    TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]));
    TU_CHECK(MPI_Ialltoall(s, N / size, MPI_INT, t, N / size, MPI_INT, MPI_COMM_WORLD, &r[1]));
    volatile double acc = 0;
    int flag = 0, slices = 0;
    while (!flag) {
        for (int k = 0; k < 20000; k++) /* a slice of "computation" */
            acc += k * 0.5;
        slices++;
        TU_CHECK(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE));
    }
    for (int i = 0; i < N; i++)
        if (a[i] != size * (i % 97) + sum_ranks(size, 0))
            tu_fail("overlap: Iallreduce [%d] = %d", i, a[i]);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < N / size; i++)
            if (t[p * (N / size) + i] != p * 31 + rank)
                tu_fail("overlap: Ialltoall from %d [%d] = %d", p, i, t[p * (N / size) + i]);
    (void)acc;
    free(a);
    free(s);
    free(t);
}

/* Freed requests: the operations still run to completion. */
static void request_free(void)
{
    static int v[16], w[4];
    for (int i = 0; i < 16; i++)
        v[i] = 1;
    for (int i = 0; i < 4; i++)
        w[i] = rank == 0 ? 42 : 0;
    MPI_Request r;
    TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, v, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    TU_CHECK(MPI_Request_free(&r));
    if (r != MPI_REQUEST_NULL)
        tu_fail("free: MPI_Request_free did not set MPI_REQUEST_NULL");
    TU_CHECK(MPI_Ibcast(w, 4, MPI_INT, 0, MPI_COMM_WORLD, &r));
    TU_CHECK(MPI_Request_free(&r));
    TU_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
    TU_CHECK(MPI_Request_free(&r));
    /* Only MPI calls write the buffers: keep calling until they hold the result. */
    double t0 = MPI_Wtime();
    for (;;) {
        int flag, done = v[15] == size && w[3] == 42;
        if (done)
            break;
        if (MPI_Wtime() - t0 > 20)
            tu_fail("free: freed operations did not complete (v %d, w %d)", v[15], w[3]);
        TU_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                            MPI_STATUS_IGNORE));
        if (flag)
            tu_fail("free: a user probe saw a message (collective traffic leaked?)");
    }
    for (int i = 0; i < 16; i++)
        if (v[i] != size)
            tu_fail("free: v[%d] = %d", i, v[i]);
    /* the freed ones must not disturb the next operations on the comm */
    int x = 1;
    TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (x != size)
        tu_fail("free: later Iallreduce = %d", x);
}

/* Affine maps x -> m x + c composed in rank order: associative, not commutative. */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    int *f = in, *g = inout; /* g after f */
    for (int i = 0; i < *len; i++, f += 2, g += 2) {
        int m = f[0] * g[0], c = g[0] * f[1] + g[1];
        g[0] = m;
        g[1] = c;
    }
}

static void free_while_pending(void)
{
    MPI_Datatype vec, pair;
    MPI_Op op;
    TU_CHECK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    TU_CHECK(MPI_Type_commit(&vec));
    TU_CHECK(MPI_Type_contiguous(2, MPI_INT, &pair));
    TU_CHECK(MPI_Type_commit(&pair));
    TU_CHECK(MPI_Op_create(affine_fn, 0, &op));
    int buf[6], d[2] = {2 + rank % 2, rank + 1};
    for (int i = 0; i < 6; i++)
        buf[i] = rank == 0 ? i : -1;
    MPI_Request r[2];
    TU_CHECK(MPI_Ibcast(buf, 1, vec, 0, MPI_COMM_WORLD, &r[0]));
    TU_CHECK(MPI_Iallreduce(MPI_IN_PLACE, d, 1, pair, op, MPI_COMM_WORLD, &r[1]));
    TU_CHECK(MPI_Type_free(&vec));
    TU_CHECK(MPI_Type_free(&pair));
    TU_CHECK(MPI_Op_free(&op));
    TU_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 6; i++)
        if (buf[i] != (i % 2 == 0 || rank == 0 ? i : -1))
            tu_fail("freed type: buf[%d] = %d", i, buf[i]);
    int m = 1, c = 0; /* f_{p-1} o ... o f_0 */
    for (int p = 0; p < size; p++) {
        int pm = 2 + p % 2;
        m *= pm;
        c = pm * c + p + 1;
    }
    if (d[0] != m || d[1] != c)
        tu_fail("freed op: (%d, %d), expected (%d, %d)", d[0], d[1], m, c);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "nbc_progress");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int rep = 0; rep < 3; rep++) {
        several_on_one_comm();
        many_in_flight();
        several_comms();
        mixed_with_blocking();
        overlap();
        request_free();
        free_while_pending();
    }
    tu_finish();
    return 0;
}
