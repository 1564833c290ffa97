/*
 * rma_ops: the one-sided operations under each synchronization mode, on
 * every window flavour, and the datatype combinations:
 *   - MPI_Put / MPI_Get of contiguous data between every pair, small and
 *     large (past the size where a request's data travels on its own), on
 *     windows from MPI_Win_create, MPI_Win_allocate, MPI_Win_allocate_shared
 *     (when the ranks share a node) and MPI_Win_create_dynamic + attach;
 *   - derived types on both sides (a strided target, an indexed origin, a
 *     resized target with a negative lower bound);
 *   - MPI_Accumulate with every predefined op on ints, MPI_SUM on doubles,
 *     MPI_MAXLOC on MPI_2INT and MPI_DOUBLE_INT, MPI_REPLACE, and
 *     MPI_Get_accumulate with MPI_NO_OP;
 *   - MPI_Fetch_and_op and MPI_Compare_and_swap;
 *   - MPI_Rput / MPI_Rget / MPI_Raccumulate / MPI_Rget_accumulate;
 *   - synchronization by fence, PSCW, lock/unlock (shared and exclusive),
 *     lock_all + flush / flush_local / flush_all, and MPI_Win_sync.
 * Each rank checks its own window after the epoch that filled it.
 */
#include "util.h"

#define N 64
#define BIG (64 * 1024) /* ints: past one request message */

static int rank, size;

static int val(int src, int dst, int i)
{
    return src * 1000003 + dst * 1009 + i;
}

static void check_ints(const char *what, const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        TU_ASSERT(got[i] == want[i], "%s: element %d is %d, expected %d", what, i, got[i],
                  want[i]);
}

/* Everyone puts its row into slot [src] of its right neighbour's window
 * and gets the left neighbour's slot back, under a fence. */
static void put_get_fence(MPI_Win win, int *base, int n, const char *what)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *src = malloc((size_t)n * sizeof *src), *back = malloc((size_t)n * sizeof *back);
    int *want = malloc((size_t)n * sizeof *want);
    for (int i = 0; i < n; i++)
        src[i] = val(rank, right, i);
    memset(base, 0, (size_t)n * sizeof *base);
    TU_CHECK(MPI_Win_fence(0, win));
    TU_CHECK(MPI_Put(src, n, MPI_INT, right, 0, n, MPI_INT, win));
    TU_CHECK(MPI_Win_fence(0, win));
    for (int i = 0; i < n; i++)
        want[i] = val(left, rank, i);
    check_ints(what, base, want, n);
    TU_CHECK(MPI_Get(back, n, MPI_INT, right, 0, n, MPI_INT, win));
    TU_CHECK(MPI_Win_fence(0, win));
    check_ints(what, back, src, n);
    free(src);
    free(back);
    free(want);
}

static void flavours(void)
{
    int *mem = calloc(BIG, sizeof(int)), *abase = NULL, *sbase = NULL;
    MPI_Win win;
    TU_CHECK(MPI_Win_create(mem, BIG * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &win));
    put_get_fence(win, mem, N, "Win_create small");
    put_get_fence(win, mem, BIG, "Win_create large");
    TU_CHECK(MPI_Win_free(&win));
    TU_ASSERT(win == MPI_WIN_NULL, "MPI_Win_free left the handle");

    TU_CHECK(MPI_Win_allocate(BIG * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                              &abase, &win));
    put_get_fence(win, abase, N, "Win_allocate small");
    put_get_fence(win, abase, BIG, "Win_allocate large");
    TU_CHECK(MPI_Win_free(&win));

    MPI_Comm node;
    TU_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nsize;
    MPI_Comm_size(node, &nsize);
    if (nsize == size) {
        TU_CHECK(MPI_Win_allocate_shared(BIG * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                         MPI_COMM_WORLD, &sbase, &win));
        put_get_fence(win, sbase, BIG, "Win_allocate_shared");
        /* direct loads of the neighbour's part */
        int right = (rank + 1) % size;
        MPI_Aint qsize;
        int qunit;
        int *qbase;
        TU_CHECK(MPI_Win_shared_query(win, right, &qsize, &qunit, &qbase));
        TU_ASSERT(qsize == BIG * (MPI_Aint)sizeof(int) && qunit == (int)sizeof(int),
                  "Win_shared_query: size %ld unit %d", (long)qsize, qunit);
        TU_CHECK(MPI_Win_lock_all(0, win));
        sbase[0] = rank + 77;
        TU_CHECK(MPI_Win_sync(win));
        TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        TU_CHECK(MPI_Win_sync(win));
        TU_ASSERT(qbase[0] == right + 77, "load from the shared segment: %d, expected %d",
                  qbase[0], right + 77);
        TU_CHECK(MPI_Win_unlock_all(win));
        TU_CHECK(MPI_Win_free(&win));
    }
    MPI_Comm_free(&node);

    /* dynamic: each exposes mem, tells the others its address */
    TU_CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    TU_CHECK(MPI_Win_attach(win, mem, BIG * sizeof(int)));
    MPI_Aint mine, *addr = malloc((size_t)size * sizeof *addr);
    TU_CHECK(MPI_Get_address(mem, &mine));
    TU_CHECK(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int src[N], want[N];
    for (int i = 0; i < N; i++)
        src[i] = val(rank, right, i) + 5;
    TU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    TU_CHECK(MPI_Put(src, N, MPI_INT, right, addr[right] + 8 * (MPI_Aint)sizeof(int), N,
                     MPI_INT, win));
    TU_CHECK(MPI_Win_unlock(right, win));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        want[i] = val(left, rank, i) + 5;
    check_ints("dynamic window", mem + 8, want, N);
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Win_detach(win, mem));
    TU_CHECK(MPI_Win_free(&win));
    free(addr);
    free(mem);
}

/* Derived types: the target takes every other int (a vector), the origin
 * is an indexed type, and a resized target starts before its first element. */
static void derived(void)
{
    int mem[4 * N];
    MPI_Win win;
    TU_CHECK(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype vec, idx;
    TU_CHECK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    TU_CHECK(MPI_Type_commit(&vec));
    int blens[N / 2], displs[N / 2];
    for (int i = 0; i < N / 2; i++) {
        blens[i] = 2;
        displs[i] = 3 * i; /* 2 of every 3 ints */
    }
    TU_CHECK(MPI_Type_indexed(N / 2, blens, displs, MPI_INT, &idx));
    TU_CHECK(MPI_Type_commit(&idx));
    int src[3 * N / 2];
    for (int i = 0; i < 3 * N / 2; i++)
        src[i] = i % 3 == 2 ? -1 : val(rank, right, i);
    for (int i = 0; i < 4 * N; i++)
        mem[i] = -7;
    TU_CHECK(MPI_Win_fence(0, win));
    TU_CHECK(MPI_Put(src, 1, idx, right, 4, 1, vec, win)); /* byte disp 4: from int 1 */
    TU_CHECK(MPI_Win_fence(0, win));
    for (int k = 0, i = 0; k < N; i++) {
        if (i % 3 == 2)
            continue;
        int at = 1 + 2 * k;
        TU_ASSERT(mem[at] == val(left, rank, i), "vector target: int %d is %d, expected %d",
                  at, mem[at], val(left, rank, i));
        TU_ASSERT(mem[at + 1] == -7, "vector target: the gap at %d was written (%d)", at + 1,
                  mem[at + 1]);
        k++;
    }
    /* get back through the same types into a fresh origin */
    int back[3 * N / 2];
    for (int i = 0; i < 3 * N / 2; i++)
        back[i] = -1;
    TU_CHECK(MPI_Get(back, 1, idx, right, 4, 1, vec, win));
    TU_CHECK(MPI_Win_fence(0, win));
    check_ints("get through derived types", back, src, 3 * N / 2);
    /* accumulate SUM through a vector target */
    int ones[N];
    for (int i = 0; i < N; i++)
        ones[i] = i;
    TU_CHECK(MPI_Accumulate(ones, N, MPI_INT, right, 4, 1, vec, MPI_SUM, win));
    TU_CHECK(MPI_Win_fence(0, win));
    int k = 0;
    for (int i = 0; k < N; i++) {
        if (i % 3 == 2)
            continue;
        int at = 1 + 2 * k;
        TU_ASSERT(mem[at] == val(left, rank, i) + k, "accumulate through a vector: int %d is "
                  "%d, expected %d", at, mem[at], val(left, rank, i) + k);
        k++;
    }
    /* the next epoch's operations may land as soon as the target calls the fence */
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    /* a resized type whose lower bound is negative: one int at -4 bytes */
    MPI_Datatype neg;
    int bl = 1, d = -1;
    MPI_Datatype ind;
    TU_CHECK(MPI_Type_indexed(1, &bl, &d, MPI_INT, &ind));
    TU_CHECK(MPI_Type_create_resized(ind, -4, 4, &neg));
    TU_CHECK(MPI_Type_commit(&neg));
    int one = 4242 + rank;
    TU_CHECK(MPI_Put(&one, 1, MPI_INT, right, 40, 1, neg, win));
    TU_CHECK(MPI_Win_fence(0, win));
    TU_ASSERT(mem[9] == 4242 + left, "negative lower bound: int 9 is %d, expected %d", mem[9],
              4242 + left);
    MPI_Type_free(&neg);
    MPI_Type_free(&ind);
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    TU_CHECK(MPI_Win_free(&win));
}

/* Every predefined op on ints: each rank adds its contribution to every
 * other rank's window under lock_all; the result is known in closed form. */
static void ops(void)
{
    static const struct {
        MPI_Op op;
        const char *name;
    } iops[] = {{MPI_SUM, "MPI_SUM"}, {MPI_PROD, "MPI_PROD"}, {MPI_MAX, "MPI_MAX"},
                {MPI_MIN, "MPI_MIN"}, {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"},
                {MPI_LXOR, "MPI_LXOR"}, {MPI_BAND, "MPI_BAND"}, {MPI_BOR, "MPI_BOR"},
                {MPI_BXOR, "MPI_BXOR"}, {MPI_REPLACE, "MPI_REPLACE"}};
    int nops = (int)(sizeof iops / sizeof iops[0]);
    int *mem;
    MPI_Win win;
    TU_CHECK(MPI_Win_allocate(nops * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                              &mem, &win));
    int init[] = {0, 1, -1000, 1000, 1, 0, 0, -1, 0, 0, -5};
    TU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    memcpy(mem, init, sizeof init);
    TU_CHECK(MPI_Win_unlock(rank, win));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < size; t++)
        for (int k = 0; k < nops; k++) {
            int c = k == 1 ? 2 : k == 4 || k == 5 ? 1 : k == 6 ? 1 : k == 7 ? ~(1 << rank)
                  : k == 8 || k == 9 ? 1 << rank : k == 10 ? 99 : rank + 1;
            TU_CHECK(MPI_Accumulate(&c, 1, MPI_INT, t, k, 1, MPI_INT, iops[k].op, win));
        }
    TU_CHECK(MPI_Win_flush_all(win));
    TU_CHECK(MPI_Win_unlock_all(win));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    int all = 0;
    for (int r = 0; r < size; r++)
        all |= 1 << r;
    int want[] = {size * (size + 1) / 2, 1 << size, size, 1, 1, 1, size % 2, ~all, all,
                  all, 99};
    TU_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    for (int k = 0; k < nops; k++)
        TU_ASSERT(mem[k] == want[k], "%s: %d, expected %d", iops[k].name, mem[k], want[k]);
    TU_CHECK(MPI_Win_unlock(rank, win));
    TU_CHECK(MPI_Win_free(&win));

    /* doubles, pairs, and get_accumulate with MPI_NO_OP */
    struct {
        double d;
        int i;
    } *dpair;
    struct {
        double sum;
        int two[2];
        double pad;
    } *m;
    TU_CHECK(MPI_Win_allocate(sizeof *m + 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &win));
    dpair = (void *)((char *)m + sizeof *m);
    m->sum = 0;
    m->two[0] = -1;
    m->two[1] = -1;
    dpair->d = -1e9;
    dpair->i = -1;
    TU_CHECK(MPI_Win_fence(0, win));
    double dv = 0.5 * (rank + 1);
    int two[2] = {rank % 2 ? 100 : rank, rank};
    struct {
        double d;
        int i;
    } dp = {rank == size - 1 ? 1e6 : (double)rank, rank};
    for (int t = 0; t < size; t++) {
        TU_CHECK(MPI_Accumulate(&dv, 1, MPI_DOUBLE, t, 0, 1, MPI_DOUBLE, MPI_SUM, win));
        TU_CHECK(MPI_Accumulate(two, 1, MPI_2INT, t, 8, 1, MPI_2INT, MPI_MAXLOC, win));
        TU_CHECK(MPI_Accumulate(&dp, 1, MPI_DOUBLE_INT, t, (MPI_Aint)sizeof *m, 1,
                                MPI_DOUBLE_INT, MPI_MAXLOC, win));
    }
    TU_CHECK(MPI_Win_fence(0, win));
    TU_ASSERT(m->sum == 0.25 * size * (size + 1), "MPI_SUM on doubles: %g, expected %g", m->sum,
              0.25 * size * (size + 1));
    int maxv = size > 1 ? 100 : 0, maxi = size > 1 ? 1 : 0;
    TU_ASSERT(m->two[0] == maxv && m->two[1] == maxi, "MPI_MAXLOC on MPI_2INT: (%d, %d), "
              "expected (%d, %d)", m->two[0], m->two[1], maxv, maxi);
    TU_ASSERT(dpair->d == 1e6 && dpair->i == size - 1, "MPI_MAXLOC on MPI_DOUBLE_INT: (%g, %d)",
              dpair->d, dpair->i);
    double got = -1;
    TU_CHECK(MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, &got, 1, MPI_DOUBLE, (rank + 1) % size, 0,
                                1, MPI_DOUBLE, MPI_NO_OP, win));
    TU_CHECK(MPI_Win_fence(0, win));
    TU_ASSERT(got == 0.25 * size * (size + 1), "MPI_Get_accumulate(MPI_NO_OP): %g", got);
    TU_CHECK(MPI_Win_free(&win));
}

/* Fetch-and-op and compare-and-swap on one counter at rank 0. */
static void atomics(void)
{
    long long *ctr;
    MPI_Win win;
    TU_CHECK(MPI_Win_allocate(2 * sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &ctr, &win));
    ctr[0] = 0;
    ctr[1] = -1;
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    const int reps = 50;
    long long one = 1, old, seen_max = -1;
    TU_CHECK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < reps; i++) {
        TU_CHECK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, 0, MPI_SUM, win));
        TU_CHECK(MPI_Win_flush(0, win));
        TU_ASSERT(old > seen_max, "MPI_Fetch_and_op: fetched %lld after %lld", old, seen_max);
        seen_max = old;
    }
    /* one winner takes slot 1 from -1 */
    long long me = rank, cmp = -1, prev = 0;
    TU_CHECK(MPI_Compare_and_swap(&me, &cmp, &prev, MPI_LONG_LONG, 0, 1, win));
    TU_CHECK(MPI_Win_flush(0, win));
    TU_CHECK(MPI_Win_unlock_all(win));
    int won = prev == -1, winners = 0;
    TU_CHECK(MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TU_ASSERT(winners == 1, "MPI_Compare_and_swap: %d ranks swapped, expected 1", winners);
    if (rank == 0)
        TU_ASSERT(ctr[0] == (long long)reps * size, "MPI_Fetch_and_op counter: %lld, expected "
                  "%lld", ctr[0], (long long)reps * size);
    TU_CHECK(MPI_Win_free(&win));
}

/* Request-based operations, PSCW, and flush_local. */
static void requests_pscw(void)
{
    int *mem;
    MPI_Win win;
    TU_CHECK(MPI_Win_allocate(BIG * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                              &mem, &win));
    for (int i = 0; i < BIG; i++)
        mem[i] = 0;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group world, gr, gl;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &right, &gr);
    MPI_Group_incl(world, 1, &left, &gl);
    int *src = malloc(BIG * sizeof(int)), *back = malloc(BIG * sizeof(int));
    for (int i = 0; i < BIG; i++)
        src[i] = val(rank, right, i);
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Win_post(gl, 0, win));
    TU_CHECK(MPI_Win_start(gr, 0, win));
    MPI_Request rq[2];
    TU_CHECK(MPI_Rput(src, BIG, MPI_INT, right, 0, BIG, MPI_INT, win, &rq[0]));
    TU_CHECK(MPI_Raccumulate(src, 4, MPI_INT, right, BIG - 4, 4, MPI_INT, MPI_SUM, win, &rq[1]));
    TU_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    TU_CHECK(MPI_Win_complete(win));
    TU_CHECK(MPI_Win_wait(win));
    for (int i = 0; i < BIG; i++) {
        int w = val(left, rank, i) + (i >= BIG - 4 ? val(left, rank, i - (BIG - 4)) : 0);
        TU_ASSERT(mem[i] == w, "PSCW Rput/Raccumulate: int %d is %d, expected %d", i, mem[i], w);
    }
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MPI_Request g;
    TU_CHECK(MPI_Rget(back, BIG, MPI_INT, right, 0, BIG, MPI_INT, win, &g));
    TU_CHECK(MPI_Wait(&g, MPI_STATUS_IGNORE));
    for (int i = 0; i < BIG - 4; i++)
        TU_ASSERT(back[i] == src[i], "Rget: int %d is %d, expected %d", i, back[i], src[i]);
    int fetched[4], add[4] = {1, 1, 1, 1};
    TU_CHECK(MPI_Rget_accumulate(add, 4, MPI_INT, fetched, 4, MPI_INT, right, 0, 4, MPI_INT,
                                 MPI_SUM, win, &g));
    TU_CHECK(MPI_Wait(&g, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Win_flush_local(right, win));
    TU_CHECK(MPI_Win_unlock(right, win));
    check_ints("Rget_accumulate fetched", fetched, src, 4);
    /* PSCW with MPI_Win_test at the target */
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Win_post(gl, 0, win));
    TU_CHECK(MPI_Win_start(gr, 0, win));
    int x = 31337 + rank;
    TU_CHECK(MPI_Put(&x, 1, MPI_INT, right, 5, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_complete(win));
    int flag = 0;
    while (!flag)
        TU_CHECK(MPI_Win_test(win, &flag));
    TU_ASSERT(mem[5] == 31337 + left, "PSCW with MPI_Win_test: %d, expected %d", mem[5],
              31337 + left);
    MPI_Group_free(&gr);
    MPI_Group_free(&gl);
    MPI_Group_free(&world);
    free(src);
    free(back);
    TU_CHECK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "rma_ops");
    rank = tu_rank;
    size = tu_size;
    flavours();
    derived();
    ops();
    atomics();
    requests_pscw();
    tu_finish();
    return 0;
}
