/*
 * coll_types: collectives on derived datatypes and with send and receive
 * signatures that differ as the standard allows: 4n x MPI_INT against n x
 * contiguous(4, MPI_INT); 3 x MPI_INT against one vector(3, 1, 2, MPI_INT)
 * whose holes must stay untouched; a vector with a negative stride (true
 * lower bound below the buffer pointer) through Allreduce and Scan, whose
 * temporaries must be laid out like it; a large Bcast of a vector type.
 */
#include "util.h"

#define GAP (-77)

static int rank, size;

static int *ibuf(size_t n, int fill)
{
    int *p = tu_malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

static int val(int src, int i) { return src * 100003 + i * 7 + 1; }

/* vec: 3 ints at 0, 2, 4 (extent 5 ints); holes at 1, 3 */
static MPI_Datatype vec, contig4, negvec;

static void check_vec_block(const int *b, int src, int first, const char *what)
{
    for (int j = 0; j < 3; j++)
        if (b[2 * j] != val(src, first + j))
            tu_fail("%s: element %d of the block from %d is %d, expected %d", what, j, src,
                    b[2 * j], val(src, first + j));
    if (b[1] != GAP || b[3] != GAP)
        tu_fail("%s: a hole of the vector type was written (block from %d)", what, src);
}

static void t_bcast_signatures(void)
{
    for (int root = 0; root < size; root++) {
        int n = 11;
        int *b = ibuf(4 * (size_t)n, GAP);
        if (rank == root)
            for (int i = 0; i < 4 * n; i++)
                b[i] = val(root, i);
        if (rank == root)
            TU_CHECK(MPI_Bcast(b, 4 * n, MPI_INT, root, MPI_COMM_WORLD));
        else
            TU_CHECK(MPI_Bcast(b, n, contig4, root, MPI_COMM_WORLD));
        for (int i = 0; i < 4 * n; i++)
            if (b[i] != val(root, i))
                tu_fail("Bcast 4n x MPI_INT / n x contiguous(4): [%d] = %d", i, b[i]);
        free(b);
    }
}

static void t_bcast_vec(int n)
{
    for (int root = 0; root < size; root += size > 3 ? 3 : 1) {
        int *b = ibuf(5 * (size_t)n, GAP);
        for (int e = 0; e < n; e++)
            for (int j = 0; j < 3; j++)
                if (rank == root)
                    b[5 * e + 2 * j] = val(root, 3 * e + j);
        TU_CHECK(MPI_Bcast(b, n, vec, root, MPI_COMM_WORLD));
        for (int e = 0; e < n; e++)
            check_vec_block(b + 5 * e, root, 3 * e, "Bcast vector");
        free(b);
    }
}

static void t_gather_scatter(void)
{
    for (int root = 0; root < size; root++) {
        int s[3] = {val(rank, 0), val(rank, 1), val(rank, 2)};
        int *r = ibuf(5 * (size_t)size, GAP);
        TU_CHECK(MPI_Gather(s, 3, MPI_INT, r, 1, vec, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int p = 0; p < size; p++)
                check_vec_block(r + 5 * p, p, 0, "Gather 3 x MPI_INT into vector");

        /* and back: the root scatters vector blocks, each rank gets 3 ints */
        int got[4] = {GAP, GAP, GAP, GAP};
        TU_CHECK(MPI_Scatter(r, 1, vec, got, 3, MPI_INT, root, MPI_COMM_WORLD));
        for (int j = 0; j < 3; j++)
            if (got[j] != val(rank, j))
                tu_fail("Scatter vector into 3 x MPI_INT (root %d): [%d] = %d", root, j, got[j]);
        if (got[3] != GAP)
            tu_fail("Scatter wrote past 3 ints");
        free(r);
    }
}

static void t_allgather_alltoall(void)
{
    int s[6];
    for (int j = 0; j < 6; j++)
        s[j] = val(rank, j);
    int *r = ibuf(10 * (size_t)size, GAP); /* 2 vec per rank */
    TU_CHECK(MPI_Allgather(s, 6, MPI_INT, r, 2, vec, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++) {
        check_vec_block(r + 10 * p, p, 0, "Allgather into vector");
        check_vec_block(r + 10 * p + 5, p, 3, "Allgather into vector");
    }
    free(r);

    /* alltoall: to each peer one vector's worth, sent as a vector, received as ints */
    int *sv = ibuf(5 * (size_t)size, GAP), *ri = ibuf(3 * (size_t)size, GAP);
    for (int p = 0; p < size; p++)
        for (int j = 0; j < 3; j++)
            sv[5 * p + 2 * j] = val(rank, 10 * p + j);
    TU_CHECK(MPI_Alltoall(sv, 1, vec, ri, 3, MPI_INT, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        for (int j = 0; j < 3; j++)
            if (ri[3 * p + j] != val(p, 10 * rank + j))
                tu_fail("Alltoall vector -> 3 x MPI_INT: from %d [%d] = %d", p, j, ri[3 * p + j]);
    /* and in place on vectors */
    for (int p = 0; p < size; p++)
        for (int j = 0; j < 3; j++)
            sv[5 * p + 2 * j] = val(rank, 10 * p + j);
    TU_CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, sv, 1, vec, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        for (int j = 0; j < 3; j++)
            if (sv[5 * p + 2 * j] != val(p, 10 * rank + j) || sv[5 * p + 1] != GAP ||
                sv[5 * p + 3] != GAP)
                tu_fail("Alltoall in place on vectors: block from %d differs", p);
    free(sv);
    free(ri);
}

/* negvec: 3 ints at 0, -2, -4 (in ints) from the element's pointer */
static void t_negative_stride(int n, int in_place)
{
    /* element e's ints at base + 5e + {0, -2, -4}: the buffer starts 4 ints before base */
    size_t len = 5 * (size_t)n + 4;
    int *mem = ibuf(len, GAP), *out = ibuf(len, GAP), *base = mem + 4, *obase = out + 4;
    for (int e = 0; e < n; e++)
        for (int j = 0; j < 3; j++)
            base[5 * e - 2 * j] = val(rank, 3 * e + j) % 1000;
    if (in_place)
        memcpy(out, mem, len * sizeof(int));
    TU_CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : base, obase, n, negvec, MPI_SUM,
                           MPI_COMM_WORLD));
    for (size_t i = 0; i < len; i++) {
        long k = (long)i - 4; /* index relative to base */
        long e = (k + 4) / 5, j = (5 * e - k) / 2;
        int in_elem = k >= -4 && e < n && (5 * e - k) % 2 == 0 && j >= 0 && j < 3;
        if (!in_elem) {
            if (out[i] != GAP)
                tu_fail("Allreduce negative-stride vector: hole %ld written", k);
            continue;
        }
        int want = 0;
        for (int p = 0; p < size; p++)
            want += val(p, 3 * (int)e + (int)j) % 1000;
        if (out[i] != want)
            tu_fail("Allreduce negative-stride vector (in place %d): element %ld.%ld = %d, "
                    "expected %d",
                    in_place, e, j, out[i], want);
    }
    /* Scan on the same layout */
    for (size_t i = 0; i < len; i++)
        out[i] = GAP;
    TU_CHECK(MPI_Scan(base, obase, n, negvec, MPI_SUM, MPI_COMM_WORLD));
    for (int e = 0; e < n; e++)
        for (int j = 0; j < 3; j++) {
            int want = 0;
            for (int p = 0; p <= rank; p++)
                want += val(p, 3 * e + j) % 1000;
            if (obase[5 * e - 2 * j] != want)
                tu_fail("Scan negative-stride vector: element %d.%d = %d, expected %d", e, j,
                        obase[5 * e - 2 * j], want);
        }
    free(mem);
    free(out);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "coll_types");
    rank = tu_rank;
    size = tu_size;
    TU_CHECK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    TU_CHECK(MPI_Type_commit(&vec));
    TU_CHECK(MPI_Type_contiguous(4, MPI_INT, &contig4));
    TU_CHECK(MPI_Type_commit(&contig4));
    MPI_Datatype nv;
    TU_CHECK(MPI_Type_vector(3, 1, -2, MPI_INT, &nv));
    /* spacing 5 ints, as vec */
    TU_CHECK(MPI_Type_create_resized(nv, -4 * (MPI_Aint)sizeof(int), 5 * sizeof(int), &negvec));
    TU_CHECK(MPI_Type_commit(&negvec));
    TU_CHECK(MPI_Type_free(&nv));

    t_bcast_signatures();
    t_bcast_vec(1);
    t_bcast_vec(13);
    t_bcast_vec(100000); /* 1.2 MB of data: the scatter + allgather path */
    t_gather_scatter();
    t_allgather_alltoall();
    t_negative_stride(1, 0);
    t_negative_stride(9, 1);
    t_negative_stride(20000, 0);

    TU_CHECK(MPI_Type_free(&vec));
    TU_CHECK(MPI_Type_free(&contig4));
    TU_CHECK(MPI_Type_free(&negvec));
    tu_finish();
    return 0;
}
