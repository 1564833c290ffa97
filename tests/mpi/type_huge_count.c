/* type_huge_count: building a type costs what its shape costs, not what its
 * count costs. Under an address-space limit of HEADROOM_MB above what the
 * process uses after MPI_Init, the program builds types of up to INT_MAX
 * elements (contiguous, vector, hvector, indexed_block, hindexed, struct,
 * subarray, resized, dup, and types of those), checks their size
 * (MPI_Type_size gives MPI_UNDEFINED above INT_MAX, MPI_Type_size_x the real
 * size), extent and true extent against values computed here, and frees
 * them. An engine that keeps one piece per element runs out of memory
 * (MPI_ERR_NO_MEM) or out of time (the watchdog).
 *
 * Then two types with 2^24 elements move between ranks (a dense contiguous
 * and a vector of single bytes), checked byte for byte: buffers that exist. */
#include "util.h"

#include <limits.h>
#include <sys/resource.h>

#define HEADROOM_MB 384

/* Address space in use now (Linux /proc; 0 when unknown). */
static size_t vm_size(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%lu", &pages) != 1)
        pages = 0;
    fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static void limit_memory(void)
{
    size_t now = vm_size();
    if (!now)
        return;
    struct rlimit rl;
    getrlimit(RLIMIT_AS, &rl);
    rlim_t want = (rlim_t)(now + (size_t)HEADROOM_MB * 1024 * 1024);
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want)
        rl.rlim_cur = want;
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        perror("type_huge_count: setrlimit");
}

struct expect {
    const char *name;
    MPI_Count size;
    MPI_Aint lb, extent, true_lb, true_extent;
};

static void check_type(MPI_Datatype t, const struct expect *e)
{
    TU_CHECK(MPI_Type_commit(&t));
    int size = -2;
    MPI_Count size_x = -2;
    MPI_Aint lb, extent, tlb, textent;
    TU_CHECK(MPI_Type_size(t, &size));
    TU_CHECK(MPI_Type_size_x(t, &size_x));
    TU_CHECK(MPI_Type_get_extent(t, &lb, &extent));
    TU_CHECK(MPI_Type_get_true_extent(t, &tlb, &textent));
    int want_size = e->size > INT_MAX ? MPI_UNDEFINED : (int)e->size;
    TU_ASSERT(size == want_size, "%s: MPI_Type_size gave %d, expected %d", e->name, size,
              want_size);
    TU_ASSERT(size_x == e->size, "%s: MPI_Type_size_x gave %lld, expected %lld", e->name,
              (long long)size_x, (long long)e->size);
    TU_ASSERT(lb == e->lb && extent == e->extent,
              "%s: lb %ld extent %ld, expected lb %ld extent %ld", e->name, (long)lb,
              (long)extent, (long)e->lb, (long)e->extent);
    TU_ASSERT(tlb == e->true_lb && textent == e->true_extent,
              "%s: true lb %ld true extent %ld, expected %ld and %ld", e->name, (long)tlb,
              (long)textent, (long)e->true_lb, (long)e->true_extent);
}

/* Make a type with the call, or fail naming it (MPI_ERR_NO_MEM is the old engine). */
#define MAKE(call, what)                                                                   \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        if (rc_ != MPI_SUCCESS)                                                            \
            tu_fail("building %s: %s", what, tu_errstr(rc_));                              \
    } while (0)

static void build_and_query(void)
{
    const MPI_Aint imax = INT_MAX, half = INT_MAX / 2;
    MPI_Datatype contig, vec, four, vec4, vec4r, hvec, iblk, hidx, st, sub, dup, cc;

    MAKE(MPI_Type_contiguous(INT_MAX, MPI_CHAR, &contig), "contiguous(INT_MAX, MPI_CHAR)");
    check_type(contig, &(struct expect){"contiguous(INT_MAX, MPI_CHAR)", imax, 0, imax, 0, imax});

    MAKE(MPI_Type_vector(INT_MAX / 2, 1, 2, MPI_CHAR, &vec), "vector(INT_MAX/2, 1, 2, MPI_CHAR)");
    check_type(vec, &(struct expect){"vector(INT_MAX/2, 1, 2, MPI_CHAR)", half, 0,
                                     2 * (half - 1) + 1, 0, 2 * (half - 1) + 1});

    /* larger than INT_MAX bytes: 16 * (INT_MAX / 2) */
    MAKE(MPI_Type_contiguous(4, MPI_INT, &four), "contiguous(4, MPI_INT)");
    MAKE(MPI_Type_vector(INT_MAX / 2, 1, 3, four, &vec4), "vector(INT_MAX/2, 1, 3, 4 ints)");
    MPI_Aint v4ext = 3 * 16 * (half - 1) + 16;
    check_type(vec4, &(struct expect){"vector(INT_MAX/2, 1, 3, 4 ints)", 16 * (MPI_Count)half,
                                      0, v4ext, 0, v4ext});
    MAKE(MPI_Type_create_resized(vec4, INT_MAX, -1024, &vec4r), "resized vector of 4 ints");
    check_type(vec4r, &(struct expect){"resized(vector of 4 ints, INT_MAX, -1024)",
                                       16 * (MPI_Count)half, imax, -1024, 0, v4ext});

    MAKE(MPI_Type_create_hvector(INT_MAX, 2, 24, MPI_DOUBLE, &hvec), "hvector(INT_MAX, 2, 24)");
    MPI_Aint hext = 24 * (imax - 1) + 16;
    check_type(hvec, &(struct expect){"hvector(INT_MAX, 2, 24, MPI_DOUBLE)",
                                      16 * (MPI_Count)imax, 0, hext, 0, hext});

    int idisp[2] = {0, INT_MAX / 2};
    MAKE(MPI_Type_create_indexed_block(2, INT_MAX / 4, idisp, MPI_CHAR, &iblk),
         "indexed_block(2, INT_MAX/4)");
    check_type(iblk, &(struct expect){"indexed_block(2, INT_MAX/4, {0, INT_MAX/2}, MPI_CHAR)",
                                      2 * (INT_MAX / 4), 0, half + INT_MAX / 4, 0,
                                      half + INT_MAX / 4});

    int hbl[3] = {INT_MAX, 0, INT_MAX};
    MPI_Aint hdisp[3] = {8, 4, 8 + 4 * imax + 64};
    MAKE(MPI_Type_create_hindexed(3, hbl, hdisp, MPI_FLOAT, &hidx), "hindexed of INT_MAX floats");
    MPI_Aint hiext = 4 * imax + 64 + 4 * imax;
    check_type(hidx, &(struct expect){"hindexed({INT_MAX, 0, INT_MAX} floats)",
                                      8 * (MPI_Count)imax, 8, hiext, 8, hiext});

    int sbl[2] = {1, INT_MAX};
    MPI_Aint sdisp[2] = {0, 8};
    MPI_Datatype sty[2] = {vec, MPI_DOUBLE};
    MAKE(MPI_Type_create_struct(2, sbl, sdisp, sty, &st), "struct {vector, INT_MAX doubles}");
    MPI_Aint stext = 8 + 8 * imax; /* the vector (2*(half-1)+1 bytes) ends before that */
    check_type(st, &(struct expect){"struct {vector(INT_MAX/2, 1, 2, MPI_CHAR), INT_MAX doubles}",
                                    half + 8 * (MPI_Count)imax, 0, stext, 0, stext});

    int sizes[2] = {INT_MAX, 4}, subsizes[2] = {INT_MAX - 2, 2}, starts[2] = {1, 1};
    MAKE(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_SHORT, &sub),
         "subarray {INT_MAX, 4}");
    MPI_Aint subfirst = (4 * 1 + 1) * 2, sublast = (4 * (imax - 2) + 2) * 2 + 2;
    check_type(sub, &(struct expect){"subarray({INT_MAX, 4}, {INT_MAX-2, 2}, {1, 1}, MPI_SHORT)",
                                     2 * 2 * (MPI_Count)(imax - 2), 0, 4 * 2 * imax, subfirst,
                                     sublast - subfirst});

    MAKE(MPI_Type_dup(vec4, &dup), "dup of the vector of 4 ints");
    check_type(dup, &(struct expect){"dup(vector of 4 ints)", 16 * (MPI_Count)half, 0, v4ext, 0,
                                     v4ext});
    MAKE(MPI_Type_contiguous(INT_MAX, contig, &cc), "contiguous(INT_MAX, contiguous(INT_MAX))");
    check_type(cc, &(struct expect){"contiguous(INT_MAX, contiguous(INT_MAX, MPI_CHAR))",
                                    imax * imax, 0, imax * imax, 0, imax * imax});

    /* a count of elements of the big type fits MPI_Count */
    MPI_Status status;
    MPI_Count n = -1;
    TU_CHECK(MPI_Status_set_elements_x(&status, MPI_CHAR, INT_MAX));
    int count = -1;
    TU_CHECK(MPI_Get_count(&status, contig, &count));
    TU_ASSERT(count == 1, "INT_MAX chars are %d elements of contiguous(INT_MAX, MPI_CHAR)", count);
    TU_CHECK(MPI_Get_elements_x(&status, vec, &n));
    TU_ASSERT(n == INT_MAX, "MPI_Get_elements_x of INT_MAX bytes in the vector type gave %lld",
              (long long)n);

    MPI_Datatype all[] = {contig, vec, four, vec4, vec4r, hvec, iblk, hidx, st, sub, dup, cc};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        TU_CHECK(MPI_Type_free(&all[i]));
}

/* 2^24 elements of a dense and of a strided type, through point-to-point. */
static void move_big(int peer, int sender)
{
    const int n = 1 << 24;
    MPI_Datatype contig, vec;
    TU_CHECK(MPI_Type_contiguous(n, MPI_CHAR, &contig));
    TU_CHECK(MPI_Type_vector(n, 1, 2, MPI_CHAR, &vec));
    TU_CHECK(MPI_Type_commit(&contig));
    TU_CHECK(MPI_Type_commit(&vec));
    size_t span = 2 * (size_t)n;
    unsigned char *buf = tu_malloc(span);
    if (sender) {
        tu_fill(buf, span, 7);
        TU_CHECK(MPI_Send(buf, 1, contig, peer, 1, MPI_COMM_WORLD));
        TU_CHECK(MPI_Send(buf, 1, vec, peer, 2, MPI_COMM_WORLD));
    } else {
        memset(buf, 0, span);
        TU_CHECK(MPI_Recv(buf, 1, contig, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        tu_check_pattern(buf, (size_t)n, 7, "contiguous(2^24, MPI_CHAR) received");
        memset(buf, 0, span);
        TU_CHECK(MPI_Recv(buf, 1, vec, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (size_t i = 0; i < span; i++) {
            unsigned char want = i % 2 ? 0 : tu_pat(i, 7);
            if (buf[i] != want)
                tu_fail("vector(2^24, 1, 2, MPI_CHAR) received: byte %zu is 0x%02x, expected "
                        "0x%02x", i, buf[i], want);
        }
    }
    free(buf);
    TU_CHECK(MPI_Type_free(&contig));
    TU_CHECK(MPI_Type_free(&vec));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "type_huge_count");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    limit_memory();
    build_and_query();
    if (tu_size >= 2) {
        int sender;
        int peer = tu_pair(&sender);
        move_big(peer, sender);
    }
    tu_finish();
    return 0;
}
