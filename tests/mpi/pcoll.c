/*
 * Persistent collectives (MPI-4.0): every MPI_*_init, each started ROUNDS
 * times (MPI_Start, or MPI_Startall over all of them at once) with the send
 * buffers rewritten before each start and the results checked after each;
 * MPI_IN_PLACE; an intercommunicator; inactive-request rules (Wait on an
 * inactive request, MPI_Start of an active one, MPI_Cancel, Request_free of
 * an inactive and of an active one); argument errors named after the init.
 */
#include "util.h"

#define ROUNDS 3
#define N 3 /* elements per block */
#define NCOLL 22

static int p, me;

static int val(int r, int k, int i)
{
    return r * 1000 + k * 100 + i;
}

static void expect(const char *what, int k, int idx, int got, int want)
{
    if (got != want)
        tu_fail("%s, start %d: element %d is %d, expected %d", what, k, idx, got, want);
}

/* The buffers of every operation, set up once; each start rewrites the
 * send side (fill) and checks the receive side (check). */
static int *sb[NCOLL], *rb[NCOLL];
static int *cnt, *dsp, *cnt_n, *dsp_n;
static MPI_Aint *wdsp;
static MPI_Datatype *wtypes;
static MPI_Comm ring;
static int left, right;

static const char *names[NCOLL] = {
    "Barrier_init", "Bcast_init", "Gather_init", "Gatherv_init", "Scatter_init",
    "Scatterv_init", "Allgather_init", "Allgatherv_init", "Alltoall_init", "Alltoallv_init",
    "Alltoallw_init", "Reduce_init", "Allreduce_init", "Reduce_scatter_init",
    "Reduce_scatter_block_init", "Scan_init", "Exscan_init", "Neighbor_allgather_init",
    "Neighbor_allgatherv_init", "Neighbor_alltoall_init", "Neighbor_alltoallv_init",
    "Neighbor_alltoallw_init"};

static void init_all(MPI_Request *req)
{
    MPI_Info info;
    TU_CHECK(MPI_Info_create(&info));
    TU_CHECK(MPI_Info_set(info, "faro_unused_hint", "1"));
    for (int c = 0; c < NCOLL; c++) {
        sb[c] = calloc((size_t)N * p * 2 + 8, sizeof(int));
        rb[c] = calloc((size_t)N * p * 2 + 8, sizeof(int));
    }
    int root = p - 1;
    TU_CHECK(MPI_Barrier_init(MPI_COMM_WORLD, info, &req[0]));
    TU_CHECK(MPI_Bcast_init(sb[1], N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    TU_CHECK(MPI_Gather_init(sb[2], N, MPI_INT, rb[2], N, MPI_INT, 0, MPI_COMM_WORLD, info,
                             &req[2]));
    TU_CHECK(MPI_Gatherv_init(sb[3], cnt[me], MPI_INT, rb[3], cnt, dsp, MPI_INT, root,
                              MPI_COMM_WORLD, info, &req[3]));
    TU_CHECK(MPI_Scatter_init(sb[4], N, MPI_INT, rb[4], N, MPI_INT, 0, MPI_COMM_WORLD, info,
                              &req[4]));
    TU_CHECK(MPI_Scatterv_init(sb[5], cnt, dsp, MPI_INT, rb[5], cnt[me], MPI_INT, root,
                               MPI_COMM_WORLD, info, &req[5]));
    TU_CHECK(MPI_Allgather_init(sb[6], N, MPI_INT, rb[6], N, MPI_INT, MPI_COMM_WORLD, info,
                                &req[6]));
    TU_CHECK(MPI_Allgatherv_init(sb[7], cnt[me], MPI_INT, rb[7], cnt, dsp, MPI_INT,
                                 MPI_COMM_WORLD, info, &req[7]));
    TU_CHECK(MPI_Alltoall_init(sb[8], N, MPI_INT, rb[8], N, MPI_INT, MPI_COMM_WORLD, info,
                               &req[8]));
    /* alltoallv: block j of N elements at j*N both ways */
    int *ncnt = malloc((size_t)p * sizeof(int)), *ndsp = malloc((size_t)p * sizeof(int));
    for (int j = 0; j < p; j++) {
        ncnt[j] = N;
        ndsp[j] = j * N;
    }
    TU_CHECK(MPI_Alltoallv_init(sb[9], ncnt, ndsp, MPI_INT, rb[9], ncnt, ndsp, MPI_INT,
                                MPI_COMM_WORLD, info, &req[9]));
    int *wcnt = malloc((size_t)p * sizeof(int)), *wd = malloc((size_t)p * sizeof(int));
    for (int j = 0; j < p; j++) {
        wcnt[j] = N;
        wd[j] = j * N * (int)sizeof(int);
    }
    TU_CHECK(MPI_Alltoallw_init(sb[10], wcnt, wd, wtypes, rb[10], wcnt, wd, wtypes,
                                MPI_COMM_WORLD, info, &req[10]));
    TU_CHECK(MPI_Reduce_init(sb[11], rb[11], N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, info,
                             &req[11]));
    /* in place: rb[12] holds this rank's data at each start and the sum after */
    TU_CHECK(MPI_Allreduce_init(MPI_IN_PLACE, rb[12], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                info, &req[12]));
    TU_CHECK(MPI_Reduce_scatter_init(sb[13], rb[13], cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                     info, &req[13]));
    TU_CHECK(MPI_Reduce_scatter_block_init(sb[14], rb[14], N, MPI_INT, MPI_SUM,
                                           MPI_COMM_WORLD, info, &req[14]));
    TU_CHECK(MPI_Scan_init(sb[15], rb[15], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, info,
                           &req[15]));
    TU_CHECK(MPI_Exscan_init(sb[16], rb[16], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, info,
                             &req[16]));
    TU_CHECK(MPI_Neighbor_allgather_init(sb[17], N, MPI_INT, rb[17], N, MPI_INT, ring, info,
                                         &req[17]));
    TU_CHECK(MPI_Neighbor_allgatherv_init(sb[18], N, MPI_INT, rb[18], cnt_n, dsp_n, MPI_INT,
                                          ring, info, &req[18]));
    TU_CHECK(MPI_Neighbor_alltoall_init(sb[19], N, MPI_INT, rb[19], N, MPI_INT, ring, info,
                                        &req[19]));
    TU_CHECK(MPI_Neighbor_alltoallv_init(sb[20], cnt_n, dsp_n, MPI_INT, rb[20], cnt_n, dsp_n,
                                         MPI_INT, ring, info, &req[20]));
    TU_CHECK(MPI_Neighbor_alltoallw_init(sb[21], cnt_n, wdsp, wtypes, rb[21], cnt_n, wdsp,
                                         wtypes, ring, info, &req[21]));
    /* the argument arrays and the info may go once the inits returned */
    for (int j = 0; j < p; j++)
        ncnt[j] = wcnt[j] = wd[j] = ndsp[j] = -7;
    free(ncnt);
    free(ndsp);
    free(wcnt);
    free(wd);
    TU_CHECK(MPI_Info_free(&info));
}

/* Rewrite the send sides for start k (and poison the receive sides). */
static void fill(int k)
{
    for (int c = 0; c < NCOLL; c++)
        for (int i = 0; i < N * p * 2; i++) {
            sb[c][i] = val(me, k, i);
            rb[c][i] = -1;
        }
    if (me != p - 1) /* the bcast root's buffer is the only one read */
        for (int i = 0; i < N; i++)
            sb[1][i] = -1;
    for (int i = 0; i < N; i++)
        rb[12][i] = val(me, k, i); /* in place */
}

static int sum_over(int from, int to, int k, int i) /* ranks from..to-1 */
{
    int s = 0;
    for (int r = from; r < to; r++)
        s += val(r, k, i);
    return s;
}

static void check(int k)
{
    int root = p - 1;
    for (int i = 0; i < N; i++)
        expect("Bcast_init", k, i, sb[1][i], val(root, k, i));
    if (me == 0)
        for (int r = 0; r < p; r++)
            for (int i = 0; i < N; i++)
                expect("Gather_init", k, r * N + i, rb[2][r * N + i], val(r, k, i));
    if (me == root)
        for (int r = 0; r < p; r++)
            for (int i = 0; i < cnt[r]; i++)
                expect("Gatherv_init", k, dsp[r] + i, rb[3][dsp[r] + i], val(r, k, i));
    for (int i = 0; i < N; i++)
        expect("Scatter_init", k, i, rb[4][i], val(0, k, me * N + i));
    for (int i = 0; i < cnt[me]; i++)
        expect("Scatterv_init", k, i, rb[5][i], val(root, k, dsp[me] + i));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < N; i++) {
            expect("Allgather_init", k, r * N + i, rb[6][r * N + i], val(r, k, i));
            expect("Alltoall_init", k, r * N + i, rb[8][r * N + i], val(r, k, me * N + i));
            expect("Alltoallv_init", k, r * N + i, rb[9][r * N + i], val(r, k, me * N + i));
            expect("Alltoallw_init", k, r * N + i, rb[10][r * N + i], val(r, k, me * N + i));
        }
    for (int r = 0; r < p; r++)
        for (int i = 0; i < cnt[r]; i++)
            expect("Allgatherv_init", k, dsp[r] + i, rb[7][dsp[r] + i], val(r, k, i));
    for (int i = 0; i < N; i++) {
        if (me == root)
            expect("Reduce_init", k, i, rb[11][i], sum_over(0, p, k, i));
        expect("Allreduce_init (in place)", k, i, rb[12][i], sum_over(0, p, k, i));
        expect("Reduce_scatter_block_init", k, i, rb[14][i], sum_over(0, p, k, me * N + i));
        expect("Scan_init", k, i, rb[15][i], sum_over(0, me + 1, k, i));
        if (me > 0)
            expect("Exscan_init", k, i, rb[16][i], sum_over(0, me, k, i));
    }
    int rsoff = 0; /* Reduce_scatter's blocks follow each other, no gaps */
    for (int r = 0; r < me; r++)
        rsoff += cnt[r];
    for (int i = 0; i < cnt[me]; i++)
        expect("Reduce_scatter_init", k, i, rb[13][i], sum_over(0, p, k, rsoff + i));
    if (p < 3) /* left and right are one rank: which message lands where is moot */
        return;
    /* ring neighbours: index 0 is the left one, 1 the right one */
    int nb[2] = {left, right};
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < N; i++) {
            expect("Neighbor_allgather_init", k, j * N + i, rb[17][j * N + i], val(nb[j], k, i));
            expect("Neighbor_allgatherv_init", k, dsp_n[j] + i, rb[18][dsp_n[j] + i],
                   val(nb[j], k, i));
            /* what neighbour nb[j] sent towards me: its block 1 - j */
            expect("Neighbor_alltoall_init", k, j * N + i, rb[19][j * N + i],
                   val(nb[j], k, (1 - j) * N + i));
            expect("Neighbor_alltoallv_init", k, dsp_n[j] + i, rb[20][dsp_n[j] + i],
                   val(nb[j], k, dsp_n[1 - j] + i));
            expect("Neighbor_alltoallw_init", k, dsp_n[j] + i, rb[21][dsp_n[j] + i],
                   val(nb[j], k, dsp_n[1 - j] + i));
        }
}

static void intercomm_case(void)
{
    if (p < 2)
        return;
    int low = me < p / 2;
    MPI_Comm half, inter;
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, low, me, &half));
    TU_CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? p / 2 : 0, 77, &inter));
    int in[2], out[2];
    MPI_Request r;
    TU_CHECK(MPI_Allreduce_init(in, out, 2, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &r));
    for (int k = 0; k < ROUNDS; k++) {
        in[0] = val(me, k, 0);
        in[1] = val(me, k, 1);
        TU_CHECK(MPI_Start(&r));
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        int from = low ? p / 2 : 0, to = low ? p : p / 2; /* the remote group */
        for (int i = 0; i < 2; i++)
            expect("Allreduce_init on an intercommunicator", k, i, out[i],
                   sum_over(from, to, k, i));
    }
    TU_CHECK(MPI_Request_free(&r));
    TU_CHECK(MPI_Comm_free(&inter));
    TU_CHECK(MPI_Comm_free(&half));
}

static void request_rules(void)
{
    int x = me, y = -1;
    MPI_Request r;
    MPI_Status st;
    TU_CHECK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    /* inactive: Wait and Test return at once with an empty status */
    int flag = 0;
    TU_CHECK(MPI_Wait(&r, &st));
    TU_ASSERT(r != MPI_REQUEST_NULL, "Wait on an inactive persistent collective freed it");
    TU_ASSERT(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
              "Wait on an inactive request: status source %d tag %d, expected the empty one",
              st.MPI_SOURCE, st.MPI_TAG);
    TU_CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    TU_ASSERT(flag, "Test on an inactive persistent collective gave flag 0");
    TU_CHECK(MPI_Start(&r));
    tu_expect(MPI_Start(&r), MPI_ERR_REQUEST, "MPI_Start", "start of an active request");
    tu_expect(MPI_Cancel(&r), MPI_ERR_REQUEST, "MPI_Cancel", "cancel of a persistent coll");
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TU_ASSERT(y == p - 1, "Allreduce_init MAX gave %d, expected %d", y, p - 1);
    TU_CHECK(MPI_Request_free(&r)); /* inactive */
    TU_ASSERT(r == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
    /* freed while active: completes, then goes away */
    TU_CHECK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    y = -1;
    TU_CHECK(MPI_Start(&r));
    TU_CHECK(MPI_Request_free(&r));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    /* recvbuf may hold partial sums meanwhile: wait for the total (the watchdog
     * ends a run that never gets it) */
    while (y != p * (p - 1) / 2) {
        int f;
        TU_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE));
    }

    /* argument errors: under the init's name, nothing left behind */
    MPI_Request bad = MPI_REQUEST_NULL;
    tu_expect(MPI_Allreduce_init(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &bad), MPI_ERR_COUNT, "MPI_Allreduce_init", "count -1");
    tu_expect(MPI_Bcast_init(&x, 1, MPI_INT, p, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
              MPI_ERR_ROOT, "MPI_Bcast_init", "root = size");
    tu_expect(MPI_Barrier_init(MPI_COMM_NULL, MPI_INFO_NULL, &bad), MPI_ERR_COMM,
              "MPI_Barrier_init", "MPI_COMM_NULL");
    tu_expect(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, NULL), MPI_ERR_ARG,
              "MPI_Barrier_init", "NULL request");
    MPI_Info freed;
    TU_CHECK(MPI_Info_create(&freed));
    MPI_Info stale = freed;
    TU_CHECK(MPI_Info_free(&freed));
    tu_expect(MPI_Scan_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, stale, &bad),
              MPI_ERR_INFO, "MPI_Scan_init", "freed info");
    TU_ASSERT(bad == MPI_REQUEST_NULL, "a failed init set the request");
    /* still usable, and the tags still agree after the failed inits */
    TU_CHECK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    TU_CHECK(MPI_Start(&r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Request_free(&r));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "pcoll");
    p = tu_size;
    me = tu_rank;
    int use_startall = tu_env_int("TEST_STARTALL", 0);
    cnt = malloc((size_t)p * sizeof(int));
    dsp = malloc((size_t)p * sizeof(int));
    for (int r = 0, off = 0; r < p; r++) { /* rank r: r % N + 1 elements, a gap after */
        cnt[r] = r % N + 1;
        dsp[r] = off;
        off += cnt[r] + 1;
    }
    int dims = p, periods = 1;
    TU_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &ring));
    TU_CHECK(MPI_Cart_shift(ring, 0, 1, &left, &right));
    cnt_n = malloc(2 * sizeof(int));
    dsp_n = malloc(2 * sizeof(int));
    wdsp = malloc((size_t)(p > 2 ? p : 2) * sizeof(MPI_Aint));
    wtypes = malloc((size_t)(p > 2 ? p : 2) * sizeof(MPI_Datatype));
    cnt_n[0] = cnt_n[1] = N;
    dsp_n[0] = N + 2; /* the left neighbour's block second, apart */
    dsp_n[1] = 0;
    wdsp[0] = dsp_n[0] * (MPI_Aint)sizeof(int);
    wdsp[1] = 0;
    for (int j = 0; j < (p > 2 ? p : 2); j++)
        wtypes[j] = MPI_INT;

    MPI_Request req[NCOLL];
    init_all(req);
    for (int k = 0; k < ROUNDS; k++) {
        fill(k);
        if (use_startall) {
            TU_CHECK(MPI_Startall(NCOLL, req));
            TU_CHECK(MPI_Waitall(NCOLL, req, MPI_STATUSES_IGNORE));
        } else {
            for (int c = 0; c < NCOLL; c++) {
                TU_CHECK(MPI_Start(&req[c]));
                int rc = MPI_Wait(&req[c], MPI_STATUS_IGNORE);
                if (rc != MPI_SUCCESS)
                    tu_fail("%s, start %d: MPI_Wait returned %s", names[c], k, tu_errstr(rc));
            }
        }
        for (int c = 0; c < NCOLL; c++)
            TU_ASSERT(req[c] != MPI_REQUEST_NULL, "%s: the request went after completion",
                      names[c]);
        check(k);
    }
    for (int c = 0; c < NCOLL; c++)
        TU_CHECK(MPI_Request_free(&req[c]));

    intercomm_case();
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    request_rules();
    TU_CHECK(MPI_Comm_free(&ring));
    tu_finish();
    return 0;
}
