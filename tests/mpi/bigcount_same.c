/*
 * bigcount_same: every large-count (_c) call, with ordinary counts, gives
 * what its int call gives: point-to-point (blocking, nonblocking,
 * persistent, buffered, matched probe), status queries, datatype
 * constructors and queries, packing, the collectives (blocking and
 * nonblocking, v and w, neighbourhood), one-sided and MPI_Reduce_local.
 * Each pair runs on the same data into two buffers that must end equal.
 * Also: a count beyond INT_MAX on a call that still runs on int counts, or
 * with a user op, is refused with MPI_ERR_UNSUPPORTED_OPERATION, and the
 * library goes on.
 */
#include "util.h"

#include <limits.h>

#define N 12

static int rank, size;

static void same(const void *a, const void *b, size_t n, const char *what)
{
    if (memcmp(a, b, n)) {
        const unsigned char *x = a, *y = b;
        size_t i = 0;
        while (x[i] == y[i])
            i++;
        tu_fail("%s: the _c call's result differs from the int call's at byte %zu "
                "(0x%02x vs 0x%02x)", what, i, y[i], x[i]);
    }
}

static void fill(int *v, int n, int seed)
{
    for (int i = 0; i < n; i++)
        v[i] = seed * 1000 + rank * 100 + i;
}

/* ---- point-to-point ---- */

static void p2p(void)
{
    int out[N], a[N], b[N], peer = (rank + 1) % size, from = (rank - 1 + size) % size;
    MPI_Status sa, sb;
    MPI_Request r[4];
    fill(out, N, 1);
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Sendrecv(out, N, MPI_INT, peer, 1, a, N, MPI_INT, from, 1, MPI_COMM_WORLD, &sa));
    TU_CHECK(MPI_Sendrecv_c(out, N, MPI_INT, peer, 1, b, N, MPI_INT, from, 1, MPI_COMM_WORLD,
                            &sb));
    same(a, b, sizeof a, "MPI_Sendrecv_c");

    MPI_Count cc = -1, ce = -1;
    int ic = -1, ie = -1;
    TU_CHECK(MPI_Get_count(&sa, MPI_INT, &ic));
    TU_CHECK(MPI_Get_count_c(&sb, MPI_INT, &cc));
    TU_CHECK(MPI_Get_elements(&sa, MPI_INT, &ie));
    TU_CHECK(MPI_Get_elements_c(&sb, MPI_INT, &ce));
    if (ic != N || cc != N || ie != N || ce != N)
        tu_fail("MPI_Get_count(_c) / MPI_Get_elements(_c): %d %lld %d %lld, expected %d", ic,
                (long long)cc, ie, (long long)ce, N);

    /* blocking modes, ring order: even ranks send first */
    int (*sends_c[])(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm) = {
        MPI_Send_c, MPI_Ssend_c, MPI_Send_c};
    for (int k = 0; k < 3; k++) {
        memset(b, 0, sizeof b);
        TU_CHECK(MPI_Irecv_c(b, N, MPI_INT, from, 2, MPI_COMM_WORLD, &r[0]));
        TU_CHECK(sends_c[k](out, N, MPI_INT, peer, 2, MPI_COMM_WORLD));
        TU_CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        same(a, b, sizeof a, k == 1 ? "MPI_Ssend_c + MPI_Irecv_c" : "MPI_Send_c + MPI_Irecv_c");
    }
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Irecv(b, N, MPI_INT, from, 3, MPI_COMM_WORLD, &r[0]));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* every receive posted: a ready send is right */
    TU_CHECK(MPI_Rsend_c(out, N, MPI_INT, peer, 3, MPI_COMM_WORLD));
    TU_CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    same(a, b, sizeof a, "MPI_Rsend_c");
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Irecv(b, N, MPI_INT, from, 3, MPI_COMM_WORLD, &r[0]));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Irsend_c(out, N, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[1]));
    TU_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    same(a, b, sizeof a, "MPI_Irsend_c");

    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Isend_c(out, N, MPI_INT, peer, 4, MPI_COMM_WORLD, &r[0]));
    TU_CHECK(MPI_Recv_c(b, N, MPI_INT, from, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    same(a, b, sizeof a, "MPI_Isend_c + MPI_Recv_c");

    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Issend_c(out, N, MPI_INT, peer, 5, MPI_COMM_WORLD, &r[0]));
    TU_CHECK(MPI_Recv(b, N, MPI_INT, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    same(a, b, sizeof a, "MPI_Issend_c");

    /* persistent */
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Recv_init_c(b, N, MPI_INT, from, 6, MPI_COMM_WORLD, &r[0]));
    TU_CHECK(MPI_Send_init_c(out, N, MPI_INT, peer, 6, MPI_COMM_WORLD, &r[1]));
    TU_CHECK(MPI_Ssend_init_c(out, N, MPI_INT, peer, 7, MPI_COMM_WORLD, &r[2]));
    TU_CHECK(MPI_Startall(2, r));
    TU_CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    same(a, b, sizeof a, "MPI_Send_init_c + MPI_Recv_init_c");
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Start(&r[2]));
    TU_CHECK(MPI_Recv(b, N, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
    same(a, b, sizeof a, "MPI_Ssend_init_c");
    for (int i = 0; i < 3; i++)
        TU_CHECK(MPI_Request_free(&r[i]));

    /* buffered, through a buffer attached by the _c call */
    MPI_Count bsize = 0;
    int packed;
    TU_CHECK(MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &packed));
    MPI_Count want = 4 * ((MPI_Count)packed + MPI_BSEND_OVERHEAD);
    char *bbuf = malloc((size_t)want);
    void *back;
    TU_CHECK(MPI_Buffer_attach_c(bbuf, want));
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Bsend_c(out, N, MPI_INT, peer, 8, MPI_COMM_WORLD));
    TU_CHECK(MPI_Recv(b, N, MPI_INT, from, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    same(a, b, sizeof a, "MPI_Bsend_c");
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Ibsend_c(out, N, MPI_INT, peer, 9, MPI_COMM_WORLD, &r[0]));
    TU_CHECK(MPI_Recv(b, N, MPI_INT, from, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    same(a, b, sizeof a, "MPI_Ibsend_c");
    TU_CHECK(MPI_Buffer_detach_c(&back, &bsize));
    if (back != bbuf || bsize != want)
        tu_fail("MPI_Buffer_detach_c gave %p, %lld; attached %p, %lld", back, (long long)bsize,
                (void *)bbuf, (long long)want);
    free(bbuf);

    /* matched probe */
    MPI_Message m;
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Send(out, N, MPI_INT, peer, 10, MPI_COMM_WORLD));
    TU_CHECK(MPI_Mprobe(from, 10, MPI_COMM_WORLD, &m, &sb));
    TU_CHECK(MPI_Mrecv_c(b, N, MPI_INT, &m, &sb));
    same(a, b, sizeof a, "MPI_Mrecv_c");
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Send(out, N, MPI_INT, peer, 11, MPI_COMM_WORLD));
    TU_CHECK(MPI_Mprobe(from, 11, MPI_COMM_WORLD, &m, &sb));
    TU_CHECK(MPI_Imrecv_c(b, N, MPI_INT, &m, &r[0]));
    TU_CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    same(a, b, sizeof a, "MPI_Imrecv_c");

    /* in place exchange */
    memcpy(b, out, sizeof b);
    TU_CHECK(MPI_Sendrecv_replace_c(b, N, MPI_INT, peer, 12, from, 12, MPI_COMM_WORLD,
                                    MPI_STATUS_IGNORE));
    same(a, b, sizeof a, "MPI_Sendrecv_replace_c");
}

/* ---- datatypes ---- */

/* Sends t (count 1) from src to itself with both forms of the size query and
 * compares what a receive of MPI_INT gets. */
static void same_type(MPI_Datatype ti, MPI_Datatype tc, const char *what)
{
    int src[64], a[64], b[64], isz;
    MPI_Count csz, clb, cext, ctlb, ctext;
    MPI_Aint lb, ext, tlb, text;
    fill(src, 64, 3);
    TU_CHECK(MPI_Type_commit(&ti));
    TU_CHECK(MPI_Type_commit(&tc));
    TU_CHECK(MPI_Type_size(ti, &isz));
    TU_CHECK(MPI_Type_size_c(tc, &csz));
    TU_CHECK(MPI_Type_get_extent(ti, &lb, &ext));
    TU_CHECK(MPI_Type_get_extent_c(tc, &clb, &cext));
    TU_CHECK(MPI_Type_get_true_extent(ti, &tlb, &text));
    TU_CHECK(MPI_Type_get_true_extent_c(tc, &ctlb, &ctext));
    if (csz != isz || clb != lb || cext != ext || ctlb != tlb || ctext != text)
        tu_fail("%s: size/lb/extent/true lb/true extent %lld %lld %lld %lld %lld from the _c "
                "calls, %d %lld %lld %lld %lld from the int ones", what, (long long)csz,
                (long long)clb, (long long)cext, (long long)ctlb, (long long)ctext, isz,
                (long long)lb, (long long)ext, (long long)tlb, (long long)text);
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    int pos = 0;
    MPI_Count cpos = 0;
    TU_CHECK(MPI_Pack(src, 1, ti, a, (int)sizeof a, &pos, MPI_COMM_SELF));
    TU_CHECK(MPI_Pack_c(src, 1, tc, b, (MPI_Count)sizeof b, &cpos, MPI_COMM_SELF));
    if (cpos != pos)
        tu_fail("%s: MPI_Pack_c position %lld, MPI_Pack %d", what, (long long)cpos, pos);
    same(a, b, sizeof a, what);
    TU_CHECK(MPI_Type_free(&ti));
    TU_CHECK(MPI_Type_free(&tc));
}

static void datatypes(void)
{
    MPI_Datatype ti, tc;
    int bl[3] = {2, 1, 3}, di[3] = {0, 5, 9};
    MPI_Count cbl[3] = {2, 1, 3}, cdi[3] = {0, 5, 9};
    MPI_Aint ad[3] = {0, 20, 36};
    MPI_Count cad[3] = {0, 20, 36};
    MPI_Datatype types[3] = {MPI_INT, MPI_INT, MPI_INT};

    TU_CHECK(MPI_Type_contiguous(5, MPI_INT, &ti));
    TU_CHECK(MPI_Type_contiguous_c(5, MPI_INT, &tc));
    same_type(ti, tc, "MPI_Type_contiguous_c");
    TU_CHECK(MPI_Type_vector(3, 2, 4, MPI_INT, &ti));
    TU_CHECK(MPI_Type_vector_c(3, 2, 4, MPI_INT, &tc));
    same_type(ti, tc, "MPI_Type_vector_c");
    TU_CHECK(MPI_Type_create_hvector(3, 2, 20, MPI_INT, &ti));
    TU_CHECK(MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &tc));
    same_type(ti, tc, "MPI_Type_create_hvector_c");
    TU_CHECK(MPI_Type_indexed(3, bl, di, MPI_INT, &ti));
    TU_CHECK(MPI_Type_indexed_c(3, cbl, cdi, MPI_INT, &tc));
    same_type(ti, tc, "MPI_Type_indexed_c");
    TU_CHECK(MPI_Type_create_hindexed(3, bl, ad, MPI_INT, &ti));
    TU_CHECK(MPI_Type_create_hindexed_c(3, cbl, cad, MPI_INT, &tc));
    same_type(ti, tc, "MPI_Type_create_hindexed_c");
    TU_CHECK(MPI_Type_create_indexed_block(3, 2, di, MPI_INT, &ti));
    TU_CHECK(MPI_Type_create_indexed_block_c(3, 2, cdi, MPI_INT, &tc));
    same_type(ti, tc, "MPI_Type_create_indexed_block_c");
    TU_CHECK(MPI_Type_create_hindexed_block(3, 2, ad, MPI_INT, &ti));
    TU_CHECK(MPI_Type_create_hindexed_block_c(3, 2, cad, MPI_INT, &tc));
    same_type(ti, tc, "MPI_Type_create_hindexed_block_c");
    TU_CHECK(MPI_Type_create_struct(3, bl, ad, types, &ti));
    TU_CHECK(MPI_Type_create_struct_c(3, cbl, cad, types, &tc));
    same_type(ti, tc, "MPI_Type_create_struct_c");
    TU_CHECK(MPI_Type_create_resized(MPI_INT, -4, 12, &ti));
    TU_CHECK(MPI_Type_create_resized_c(MPI_INT, -4, 12, &tc));
    same_type(ti, tc, "MPI_Type_create_resized_c");
    int sizes[2] = {4, 6}, sub[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Count csizes[2] = {4, 6}, csub[2] = {2, 3}, cstarts[2] = {1, 2};
    TU_CHECK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &ti));
    TU_CHECK(MPI_Type_create_subarray_c(2, csizes, csub, cstarts, MPI_ORDER_C, MPI_INT, &tc));
    same_type(ti, tc, "MPI_Type_create_subarray_c");
    int gs[2] = {6, 4}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 1}, ps[2] = {2, 1};
    MPI_Count cgs[2] = {6, 4};
    TU_CHECK(MPI_Type_create_darray(2, 1, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &ti));
    TU_CHECK(MPI_Type_create_darray_c(2, 1, 2, cgs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &tc));
    same_type(ti, tc, "MPI_Type_create_darray_c");

    /* pack and unpack, sizes, external32 */
    int src[N], a[N], b[N], psz, pos = 0;
    MPI_Count cpsz, cpos = 0;
    MPI_Aint esz, epos = 0;
    MPI_Count cesz, cepos = 0;
    char pa[256], pb[256];
    fill(src, N, 4);
    TU_CHECK(MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &psz));
    TU_CHECK(MPI_Pack_size_c(N, MPI_INT, MPI_COMM_WORLD, &cpsz));
    if (cpsz != psz)
        tu_fail("MPI_Pack_size_c %lld, MPI_Pack_size %d", (long long)cpsz, psz);
    TU_CHECK(MPI_Pack(src, N, MPI_INT, pa, (int)sizeof pa, &pos, MPI_COMM_WORLD));
    pos = 0;
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Unpack(pa, (int)sizeof pa, &pos, a, N, MPI_INT, MPI_COMM_WORLD));
    TU_CHECK(MPI_Unpack_c(pa, (MPI_Count)sizeof pa, &cpos, b, N, MPI_INT, MPI_COMM_WORLD));
    if (cpos != pos)
        tu_fail("MPI_Unpack_c position %lld, MPI_Unpack %d", (long long)cpos, pos);
    same(a, b, sizeof a, "MPI_Unpack_c");
    TU_CHECK(MPI_Pack_external_size("external32", N, MPI_INT, &esz));
    TU_CHECK(MPI_Pack_external_size_c("external32", N, MPI_INT, &cesz));
    if (cesz != esz)
        tu_fail("MPI_Pack_external_size_c %lld, int form %lld", (long long)cesz, (long long)esz);
    memset(pa, 0, sizeof pa);
    memset(pb, 0, sizeof pb);
    TU_CHECK(MPI_Pack_external("external32", src, N, MPI_INT, pa, sizeof pa, &epos));
    TU_CHECK(MPI_Pack_external_c("external32", src, N, MPI_INT, pb, sizeof pb, &cepos));
    if (cepos != epos)
        tu_fail("MPI_Pack_external_c position %lld, int form %lld", (long long)cepos,
                (long long)epos);
    same(pa, pb, sizeof pa, "MPI_Pack_external_c");
    epos = 0;
    cepos = 0;
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    TU_CHECK(MPI_Unpack_external("external32", pa, sizeof pa, &epos, a, N, MPI_INT));
    TU_CHECK(MPI_Unpack_external_c("external32", pb, sizeof pb, &cepos, b, N, MPI_INT));
    same(a, b, sizeof a, "MPI_Unpack_external_c");
}

/* ---- collectives ---- */

static int *ints(int n)
{
    int *p = calloc((size_t)n, sizeof *p);
    if (!p)
        tu_fail("out of memory");
    return p;
}

static void sum_int(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

static void sum_int_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *t)
{
    (void)t;
    for (MPI_Count i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

static void collectives(void)
{
    int n = size * N;
    int *src = ints(n), *a = ints(n), *b = ints(n);
    int *counts = ints(size), *displs = ints(size);
    MPI_Count *ccounts = calloc((size_t)size, sizeof *ccounts);
    MPI_Aint *cdispls = calloc((size_t)size, sizeof *cdispls);
    MPI_Request r;
    fill(src, n, 5);
    /* v blocks: rank i gets i % 3 + 1 elements, packed from the end backwards */
    int at = n;
    for (int i = 0; i < size; i++) {
        counts[i] = i % 3 + 1;
        at -= counts[i] + 1;
        displs[i] = at;
        ccounts[i] = counts[i];
        cdispls[i] = displs[i];
    }
#define RESET()                                                                               \
    do {                                                                                      \
        memset(a, 0, (size_t)n * sizeof *a);                                                  \
        memset(b, 0, (size_t)n * sizeof *b);                                                  \
    } while (0)
#define SAME(what) same(a, b, (size_t)n * sizeof *a, what)

    RESET();
    memcpy(a, src, N * sizeof *a);
    memcpy(b, src, N * sizeof *b);
    TU_CHECK(MPI_Bcast(a, N, MPI_INT, size - 1, MPI_COMM_WORLD));
    TU_CHECK(MPI_Bcast_c(b, N, MPI_INT, size - 1, MPI_COMM_WORLD));
    SAME("MPI_Bcast_c");
    RESET();
    memcpy(b, src, N * sizeof *b);
    memcpy(a, src, N * sizeof *a);
    TU_CHECK(MPI_Bcast(a, N, MPI_INT, 0, MPI_COMM_WORLD));
    TU_CHECK(MPI_Ibcast_c(b, N, MPI_INT, 0, MPI_COMM_WORLD, &r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    SAME("MPI_Ibcast_c");

    RESET();
    TU_CHECK(MPI_Gather(src, N, MPI_INT, a, N, MPI_INT, 0, MPI_COMM_WORLD));
    TU_CHECK(MPI_Gather_c(src, N, MPI_INT, b, N, MPI_INT, 0, MPI_COMM_WORLD));
    SAME("MPI_Gather_c");
    RESET();
    TU_CHECK(MPI_Gatherv(src, counts[rank], MPI_INT, a, counts, displs, MPI_INT, 1 % size,
                         MPI_COMM_WORLD));
    TU_CHECK(MPI_Gatherv_c(src, counts[rank], MPI_INT, b, ccounts, cdispls, MPI_INT, 1 % size,
                           MPI_COMM_WORLD));
    SAME("MPI_Gatherv_c");
    RESET();
    TU_CHECK(MPI_Scatter(src, N, MPI_INT, a, N, MPI_INT, 0, MPI_COMM_WORLD));
    TU_CHECK(MPI_Scatter_c(src, N, MPI_INT, b, N, MPI_INT, 0, MPI_COMM_WORLD));
    SAME("MPI_Scatter_c");
    RESET();
    TU_CHECK(MPI_Scatterv(src, counts, displs, MPI_INT, a, counts[rank], MPI_INT, 0,
                          MPI_COMM_WORLD));
    TU_CHECK(MPI_Scatterv_c(src, ccounts, cdispls, MPI_INT, b, counts[rank], MPI_INT, 0,
                            MPI_COMM_WORLD));
    SAME("MPI_Scatterv_c");
    RESET();
    TU_CHECK(MPI_Allgather(src, N, MPI_INT, a, N, MPI_INT, MPI_COMM_WORLD));
    TU_CHECK(MPI_Allgather_c(src, N, MPI_INT, b, N, MPI_INT, MPI_COMM_WORLD));
    SAME("MPI_Allgather_c");
    RESET();
    TU_CHECK(MPI_Allgatherv(src, counts[rank], MPI_INT, a, counts, displs, MPI_INT,
                            MPI_COMM_WORLD));
    TU_CHECK(MPI_Allgatherv_c(src, counts[rank], MPI_INT, b, ccounts, cdispls, MPI_INT,
                              MPI_COMM_WORLD));
    SAME("MPI_Allgatherv_c");
    RESET();
    TU_CHECK(MPI_Iallgatherv_c(src, counts[rank], MPI_INT, b, ccounts, cdispls, MPI_INT,
                               MPI_COMM_WORLD, &r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Allgatherv(src, counts[rank], MPI_INT, a, counts, displs, MPI_INT,
                            MPI_COMM_WORLD));
    SAME("MPI_Iallgatherv_c");
    RESET();
    TU_CHECK(MPI_Alltoall(src, N, MPI_INT, a, N, MPI_INT, MPI_COMM_WORLD));
    TU_CHECK(MPI_Alltoall_c(src, N, MPI_INT, b, N, MPI_INT, MPI_COMM_WORLD));
    SAME("MPI_Alltoall_c");
    /* alltoallv: send counts[i] from displs[i], receive counts[rank] from each */
    int *rc = ints(size), *rd = ints(size);
    MPI_Count *crc = calloc((size_t)size, sizeof *crc);
    MPI_Aint *crd = calloc((size_t)size, sizeof *crd), *bd = calloc((size_t)size, sizeof *bd);
    MPI_Aint *rbd = calloc((size_t)size, sizeof *rbd);
    MPI_Datatype *tt = calloc((size_t)size, sizeof *tt);
    int *ibd = ints(size), *irbd = ints(size);
    for (int i = 0; i < size; i++) {
        rc[i] = crc[i] = counts[rank];
        rd[i] = crd[i] = i * N;
        ibd[i] = bd[i] = displs[i] * (int)sizeof(int);
        irbd[i] = rbd[i] = rd[i] * (int)sizeof(int);
        tt[i] = MPI_INT;
    }
    RESET();
    TU_CHECK(MPI_Alltoallv(src, counts, displs, MPI_INT, a, rc, rd, MPI_INT, MPI_COMM_WORLD));
    TU_CHECK(MPI_Alltoallv_c(src, ccounts, cdispls, MPI_INT, b, crc, crd, MPI_INT,
                             MPI_COMM_WORLD));
    SAME("MPI_Alltoallv_c");
    RESET();
    TU_CHECK(MPI_Ialltoallv_c(src, ccounts, cdispls, MPI_INT, b, crc, crd, MPI_INT,
                              MPI_COMM_WORLD, &r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Alltoallv(src, counts, displs, MPI_INT, a, rc, rd, MPI_INT, MPI_COMM_WORLD));
    SAME("MPI_Ialltoallv_c");
    RESET();
    TU_CHECK(MPI_Alltoallw(src, counts, ibd, tt, a, rc, irbd, tt, MPI_COMM_WORLD));
    TU_CHECK(MPI_Alltoallw_c(src, ccounts, bd, tt, b, crc, rbd, tt, MPI_COMM_WORLD));
    SAME("MPI_Alltoallw_c");

    /* reductions */
    RESET();
    TU_CHECK(MPI_Reduce(src, a, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    TU_CHECK(MPI_Reduce_c(src, b, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    SAME("MPI_Reduce_c");
    RESET();
    TU_CHECK(MPI_Allreduce(src, a, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    TU_CHECK(MPI_Allreduce_c(src, b, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    SAME("MPI_Allreduce_c");
    RESET();
    TU_CHECK(MPI_Iallreduce_c(src, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Allreduce(src, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    SAME("MPI_Iallreduce_c");
    RESET();
    TU_CHECK(MPI_Reduce_scatter(src, a, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TU_CHECK(MPI_Reduce_scatter_c(src, b, ccounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    SAME("MPI_Reduce_scatter_c");
    RESET();
    TU_CHECK(MPI_Reduce_scatter_block(src, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TU_CHECK(MPI_Reduce_scatter_block_c(src, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    SAME("MPI_Reduce_scatter_block_c");
    RESET();
    TU_CHECK(MPI_Scan(src, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TU_CHECK(MPI_Scan_c(src, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    SAME("MPI_Scan_c");
    RESET();
    TU_CHECK(MPI_Exscan(src, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TU_CHECK(MPI_Exscan_c(src, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    SAME("MPI_Exscan_c");
    RESET();
    memcpy(a, src, N * sizeof *a);
    memcpy(b, src, N * sizeof *b);
    TU_CHECK(MPI_Reduce_local(src, a, N, MPI_INT, MPI_PROD));
    TU_CHECK(MPI_Reduce_local_c(src, b, N, MPI_INT, MPI_PROD));
    SAME("MPI_Reduce_local_c");
    MPI_Op op_i, op_c;
    TU_CHECK(MPI_Op_create(sum_int, 1, &op_i));
    TU_CHECK(MPI_Op_create_c(sum_int_c, 1, &op_c));
    RESET();
    TU_CHECK(MPI_Allreduce(src, a, N, MPI_INT, op_i, MPI_COMM_WORLD));
    TU_CHECK(MPI_Allreduce_c(src, b, N, MPI_INT, op_c, MPI_COMM_WORLD));
    SAME("MPI_Allreduce_c with an MPI_Op_create_c op");
    memset(a, 0, (size_t)n * sizeof *a); /* b keeps the user op's result */
    TU_CHECK(MPI_Allreduce(src, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    SAME("MPI_Op_create_c's sum against MPI_SUM");
    TU_CHECK(MPI_Op_free(&op_i));
    TU_CHECK(MPI_Op_free(&op_c));

    /* neighbourhood, on a periodic ring */
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    int ncount[2] = {N / 2, N / 2}, ndispl[2] = {0, N / 2};
    MPI_Count cncount[2] = {N / 2, N / 2};
    MPI_Aint cndispl[2] = {0, N / 2}, bnd[2] = {0, N / 2 * sizeof(int)};
    MPI_Datatype nt[2] = {MPI_INT, MPI_INT};
    TU_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    RESET();
    TU_CHECK(MPI_Neighbor_allgather(src, N / 2, MPI_INT, a, N / 2, MPI_INT, ring));
    TU_CHECK(MPI_Neighbor_allgather_c(src, N / 2, MPI_INT, b, N / 2, MPI_INT, ring));
    SAME("MPI_Neighbor_allgather_c");
    RESET();
    TU_CHECK(MPI_Neighbor_allgatherv(src, N / 2, MPI_INT, a, ncount, ndispl, MPI_INT, ring));
    TU_CHECK(MPI_Neighbor_allgatherv_c(src, N / 2, MPI_INT, b, cncount, cndispl, MPI_INT, ring));
    SAME("MPI_Neighbor_allgatherv_c");
    RESET();
    TU_CHECK(MPI_Neighbor_alltoall(src, N / 2, MPI_INT, a, N / 2, MPI_INT, ring));
    TU_CHECK(MPI_Neighbor_alltoall_c(src, N / 2, MPI_INT, b, N / 2, MPI_INT, ring));
    SAME("MPI_Neighbor_alltoall_c");
    RESET();
    TU_CHECK(MPI_Neighbor_alltoallv(src, ncount, ndispl, MPI_INT, a, ncount, ndispl, MPI_INT,
                                    ring));
    TU_CHECK(MPI_Neighbor_alltoallv_c(src, cncount, cndispl, MPI_INT, b, cncount, cndispl,
                                      MPI_INT, ring));
    SAME("MPI_Neighbor_alltoallv_c");
    RESET();
    TU_CHECK(MPI_Ineighbor_alltoallv_c(src, cncount, cndispl, MPI_INT, b, cncount, cndispl,
                                       MPI_INT, ring, &r));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Neighbor_alltoallv(src, ncount, ndispl, MPI_INT, a, ncount, ndispl, MPI_INT,
                                    ring));
    SAME("MPI_Ineighbor_alltoallv_c");
    RESET();
    TU_CHECK(MPI_Neighbor_alltoallw(src, ncount, bnd, nt, a, ncount, bnd, nt, ring));
    TU_CHECK(MPI_Neighbor_alltoallw_c(src, cncount, bnd, nt, b, cncount, bnd, nt, ring));
    SAME("MPI_Neighbor_alltoallw_c");
    TU_CHECK(MPI_Comm_free(&ring));

    free(src), free(a), free(b), free(counts), free(displs), free(ccounts), free(cdispls);
    free(rc), free(rd), free(crc), free(crd), free(bd), free(rbd), free(tt), free(ibd);
    free(irbd);
}

/* ---- one-sided ---- */

static void onesided(void)
{
    int *base, src[N], a[N], b[N], peer = (rank + 1) % size;
    MPI_Win win;
    MPI_Aint qsize;
    MPI_Aint cdu;
    int du;
    void *qa, *qb;
    fill(src, N, 6);
    TU_CHECK(MPI_Win_allocate_c(4 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                &base, &win));
    memset(base, 0, 4 * N * sizeof(int));
    TU_CHECK(MPI_Win_fence(0, win));
    TU_CHECK(MPI_Put(src, N, MPI_INT, peer, 0, N, MPI_INT, win));
    TU_CHECK(MPI_Put_c(src, N, MPI_INT, peer, N, N, MPI_INT, win));
    TU_CHECK(MPI_Accumulate(src, N, MPI_INT, peer, 2 * N, N, MPI_INT, MPI_SUM, win));
    TU_CHECK(MPI_Accumulate_c(src, N, MPI_INT, peer, 3 * N, N, MPI_INT, MPI_SUM, win));
    TU_CHECK(MPI_Win_fence(0, win));
    same(base, base + N, N * sizeof(int), "MPI_Put_c");
    same(base + 2 * N, base + 3 * N, N * sizeof(int), "MPI_Accumulate_c");
    TU_CHECK(MPI_Get(a, N, MPI_INT, peer, 0, N, MPI_INT, win));
    TU_CHECK(MPI_Get_c(b, N, MPI_INT, peer, N, N, MPI_INT, win));
    TU_CHECK(MPI_Win_fence(0, win));
    same(a, b, sizeof a, "MPI_Get_c");
    TU_CHECK(MPI_Win_free(&win));

    /* a window on the program's memory; the request-based calls */
    int mem[2 * N], ga[N], gb[N];
    MPI_Request rq[2];
    memset(mem, 0, sizeof mem);
    TU_CHECK(MPI_Win_create_c(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    TU_CHECK(MPI_Win_lock_all(0, win));
    TU_CHECK(MPI_Rput(src, N, MPI_INT, peer, 0, N, MPI_INT, win, &rq[0]));
    TU_CHECK(MPI_Rput_c(src, N, MPI_INT, peer, N, N, MPI_INT, win, &rq[1]));
    TU_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    TU_CHECK(MPI_Win_flush_all(win));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    same(mem, mem + N, N * sizeof(int), "MPI_Rput_c");
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Get_accumulate(src, N, MPI_INT, ga, N, MPI_INT, peer, 0, N, MPI_INT, MPI_SUM,
                                win));
    TU_CHECK(MPI_Get_accumulate_c(src, N, MPI_INT, gb, N, MPI_INT, peer, N, N, MPI_INT,
                                  MPI_SUM, win));
    TU_CHECK(MPI_Win_flush_all(win));
    same(ga, gb, sizeof ga, "MPI_Get_accumulate_c");
    TU_CHECK(MPI_Rget(ga, N, MPI_INT, peer, 0, N, MPI_INT, win, &rq[0]));
    TU_CHECK(MPI_Rget_c(gb, N, MPI_INT, peer, N, N, MPI_INT, win, &rq[1]));
    TU_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    same(ga, gb, sizeof ga, "MPI_Rget_c");
    TU_CHECK(MPI_Win_unlock_all(win));
    TU_CHECK(MPI_Win_free(&win));

    MPI_Comm node;
    TU_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    TU_CHECK(MPI_Win_allocate_shared_c(N * sizeof(int), 8, MPI_INFO_NULL, node, &base, &win));
    TU_CHECK(MPI_Win_shared_query_c(win, 0, &qsize, &cdu, &qa));
    TU_CHECK(MPI_Win_shared_query(win, 0, &qsize, &du, &qb));
    if (cdu != du || du != 8 || qa != qb)
        tu_fail("MPI_Win_shared_query_c disp_unit %lld, MPI_Win_shared_query %d (8 given)",
                (long long)cdu, du);
    TU_CHECK(MPI_Win_free(&win));
    TU_CHECK(MPI_Comm_free(&node));
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in, (void)inout, (void)len, (void)t;
}

/* Counts beyond INT_MAX that Faro refuses: on a call that still runs on int
 * counts, and with a user op (its function takes an int length). */
static void beyond_int(void)
{
    int x = 0, y = 0;
    MPI_Count big = (MPI_Count)INT_MAX + 1, one = 1, zero = 0;
    MPI_Datatype t;
    MPI_Op op;
    TU_CHECK(MPI_Op_create(user_sum, 1, &op));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    tu_expect(MPI_Type_create_subarray_c(1, &big, &one, &zero, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Type_create_subarray_c",
              "a size beyond INT_MAX");
    tu_expect(MPI_Allreduce_c(&x, &y, (MPI_Count)INT_MAX + 1, MPI_INT, op, MPI_COMM_WORLD),
              MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Allreduce_c",
              "a count beyond INT_MAX with a user op");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    TU_CHECK(MPI_Op_free(&op));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* the library goes on */
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "bigcount_same");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    p2p();
    datatypes();
    collectives();
    onesided();
    beyond_int();
    tu_finish();
    return 0;
}
