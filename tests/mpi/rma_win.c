/*
 * rma_win: what a window is besides its operations:
 *   - the predefined attributes MPI_WIN_BASE, MPI_WIN_SIZE,
 *     MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL for each
 *     flavour (create, allocate, allocate_shared, dynamic); the pointer one
 *     window's MPI_WIN_SIZE gave still reads its size after another's is read;
 *   - MPI_Win_get_group equals the creation communicator's group;
 *   - MPI_Win_set_info / get_info keep the program's hints and report the
 *     standard ones; no_locks=true forbids MPI_Win_lock;
 *   - MPI_Win_set_name / get_name (empty by default);
 *   - MPI_Win_create_errhandler / set / get / call_errhandler: a user
 *     handler gets the window and the code;
 *   - user attributes with a delete callback run at MPI_Win_free;
 *   - MPI_Win_c2f / f2c;
 *   - MPI_Win_shared_query with contiguous parts and with
 *     alloc_shared_noncontig, and MPI_PROC_NULL; without
 *     alloc_shared_noncontig the parts are contiguous (MPI-3.1 11.2.3:
 *     each starts right after the previous one's last byte) for sizes that
 *     are not multiples of a cache line and a zero size in the middle, as
 *     every member sees them;
 *   - a window over a sub-communicator (odd ranks) whose ranks differ from
 *     MPI_COMM_WORLD's.
 */
#include "util.h"

static int rank, size;
static int handler_calls, handler_code;
static MPI_Win handler_win;

static void win_handler(MPI_Win *w, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_win = *w;
}

static int deleted;
static int del_fn(MPI_Win w, int k, void *val, void *extra)
{
    (void)w, (void)k, (void)extra;
    deleted += *(int *)val;
    return MPI_SUCCESS;
}

static void attrs(MPI_Win win, void *base, MPI_Aint size_, int unit, int flavor)
{
    void *v;
    int flag = 0;
    TU_CHECK(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    TU_ASSERT(flag && v == base, "MPI_WIN_BASE: flag %d, %p, expected %p", flag, v, base);
    TU_CHECK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag));
    TU_ASSERT(flag && *(MPI_Aint *)v == size_, "MPI_WIN_SIZE: %ld, expected %ld",
              (long)*(MPI_Aint *)v, (long)size_);
    TU_CHECK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
    TU_ASSERT(flag && *(int *)v == unit, "MPI_WIN_DISP_UNIT: %d, expected %d", *(int *)v, unit);
    TU_CHECK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    TU_ASSERT(flag && *(int *)v == flavor, "MPI_WIN_CREATE_FLAVOR: %d, expected %d", *(int *)v,
              flavor);
    TU_CHECK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
    TU_ASSERT(flag && (*(int *)v == MPI_WIN_UNIFIED || *(int *)v == MPI_WIN_SEPARATE),
              "MPI_WIN_MODEL: %d", *(int *)v);
}

static void group_name_info(MPI_Win win, MPI_Comm comm)
{
    MPI_Group wg, cg;
    int res;
    TU_CHECK(MPI_Win_get_group(win, &wg));
    TU_CHECK(MPI_Comm_group(comm, &cg));
    TU_CHECK(MPI_Group_compare(wg, cg, &res));
    TU_ASSERT(res == MPI_IDENT, "MPI_Win_get_group: not the communicator's group (%d)", res);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);

    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    TU_CHECK(MPI_Win_get_name(win, name, &len));
    TU_ASSERT(len == 0 && name[0] == 0, "default window name \"%s\"", name);
    TU_CHECK(MPI_Win_set_name(win, "my window"));
    TU_CHECK(MPI_Win_get_name(win, name, &len));
    TU_ASSERT(len == 9 && strcmp(name, "my window") == 0, "window name \"%s\"", name);

    MPI_Info info, used;
    MPI_Info_create(&info);
    MPI_Info_set(info, "faro_test_key", "x");
    MPI_Info_set(info, "accumulate_ordering", "none");
    TU_CHECK(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    TU_CHECK(MPI_Win_get_info(win, &used));
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(used, "faro_test_key", MPI_MAX_INFO_VAL, val, &flag);
    TU_ASSERT(flag && strcmp(val, "x") == 0, "MPI_Win_get_info lost a key the program set");
    MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL, val, &flag);
    TU_ASSERT(flag && strcmp(val, "none") == 0, "accumulate_ordering: %s", flag ? val : "unset");
    MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL, val, &flag);
    TU_ASSERT(flag && strcmp(val, "false") == 0, "no_locks: %s", flag ? val : "unset");
    MPI_Info_free(&used);
}

static void errhandlers(MPI_Win win)
{
    MPI_Errhandler eh, got;
    TU_CHECK(MPI_Win_get_errhandler(win, &got));
    TU_ASSERT(got == MPI_ERRORS_RETURN, "a window inherits its communicator's errhandler");
    MPI_Errhandler_free(&got);
    TU_CHECK(MPI_Win_create_errhandler(win_handler, &eh));
    TU_CHECK(MPI_Win_set_errhandler(win, eh));
    TU_CHECK(MPI_Errhandler_free(&eh));
    TU_CHECK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    TU_ASSERT(handler_calls == 1 && handler_code == MPI_ERR_OTHER && handler_win == win,
              "MPI_Win_call_errhandler: %d calls, code %d", handler_calls, handler_code);
    /* an error of the window's own goes there too */
    int rc = MPI_Win_unlock(0, win);
    TU_ASSERT(rc != MPI_SUCCESS && handler_calls == 2, "MPI_Win_unlock without a lock: rc %d, "
              "%d handler calls", rc, handler_calls);
    int cls;
    MPI_Error_class(handler_code, &cls);
    TU_ASSERT(cls == MPI_ERR_RMA_SYNC, "unlock without lock: class %d, expected "
              "MPI_ERR_RMA_SYNC", cls);
    TU_CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
}

/* Parts of 41, 0 (in the middle), 43, 44... bytes: part r+1 starts at part r's
 * base + size, in every member's view, and a store through one part's pointer
 * is the byte another member reads at the same address. */
static void shared_contiguous(MPI_Comm node)
{
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Aint mysize = nrank == 1 && nsize > 2 ? 0 : 41 + nrank;
    char *sbase;
    MPI_Win win;
    TU_CHECK(MPI_Win_allocate_shared(mysize, 1, MPI_INFO_NULL, node, &sbase, &win));
    for (MPI_Aint i = 0; i < mysize; i++)
        sbase[i] = (char)(3 * nrank + i);
    TU_CHECK(MPI_Win_fence(0, win));
    char *first = NULL, *next = NULL;
    for (int r = 0; r < nsize; r++) {
        MPI_Aint qs;
        int qu;
        char *qb;
        TU_CHECK(MPI_Win_shared_query(win, r, &qs, &qu, &qb));
        MPI_Aint want = r == 1 && nsize > 2 ? 0 : 41 + r;
        TU_ASSERT(qs == want && qu == 1, "contiguous shared window: shared_query(%d) size %ld, "
                  "expected %ld", r, (long)qs, (long)want);
        if (r == 0)
            first = qb;
        else if (qs > 0) /* a zero-size part has no bytes: its address is not checked */
            TU_ASSERT(qb == next, "contiguous shared window: part %d starts %ld bytes after "
                      "part 0, expected %ld (right after part %d's last byte)", r,
                      (long)(qb - first), (long)(next - first), r - 1);
        next = (qs > 0 ? qb : next) + qs;
        for (MPI_Aint i = 0; i < qs; i++)
            TU_ASSERT(qb[i] == (char)(3 * r + i), "contiguous shared window: part %d byte %ld "
                      "is %d", r, (long)i, qb[i]);
    }
    if (nrank == 0)
        TU_ASSERT(sbase == first, "contiguous shared window: rank 0's baseptr is not what "
                  "shared_query(0) gives");
    TU_CHECK(MPI_Win_fence(0, win));
    TU_CHECK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "rma_win");
    rank = tu_rank;
    size = tu_size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char buf[256];
    MPI_Win win;

    TU_CHECK(MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    attrs(win, buf, sizeof buf, 4, MPI_WIN_FLAVOR_CREATE);
    group_name_info(win, MPI_COMM_WORLD);
    errhandlers(win);
    MPI_Fint f = MPI_Win_c2f(win);
    TU_ASSERT(f != 0 && MPI_Win_f2c(f) == win, "MPI_Win_c2f/f2c do not round-trip");
    TU_ASSERT(MPI_Win_c2f(MPI_WIN_NULL) == 0 && MPI_Win_f2c(0) == MPI_WIN_NULL, "null window");
    int kv, one = 1;
    TU_CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &kv, NULL));
    TU_CHECK(MPI_Win_set_attr(win, kv, &one));
    TU_CHECK(MPI_Win_free(&win));
    TU_ASSERT(deleted == 1, "MPI_Win_free did not delete the attribute (%d)", deleted);
    TU_CHECK(MPI_Win_free_keyval(&kv));

    void *abase;
    TU_CHECK(MPI_Win_allocate(100, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &abase, &win));
    attrs(win, abase, 100, 1, MPI_WIN_FLAVOR_ALLOCATE);
    /* the attribute's pointer stays the window's own after another window is asked */
    MPI_Win other;
    MPI_Aint *sz1, *sz2;
    int fl;
    TU_CHECK(MPI_Win_create(buf, 16, 2, MPI_INFO_NULL, MPI_COMM_WORLD, &other));
    TU_CHECK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz1, &fl));
    TU_CHECK(MPI_Win_get_attr(other, MPI_WIN_SIZE, &sz2, &fl));
    TU_ASSERT(*sz1 == 100 && *sz2 == 16, "MPI_WIN_SIZE of two windows read %ld and %ld, "
              "expected 100 and 16", (long)*sz1, (long)*sz2);
    TU_CHECK(MPI_Win_free(&other));
    TU_CHECK(MPI_Win_free(&win));

    TU_CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    attrs(win, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
    TU_CHECK(MPI_Win_free(&win));

    /* no_locks */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    TU_CHECK(MPI_Win_create(buf, sizeof buf, 1, info, MPI_COMM_WORLD, &win));
    TU_EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
    TU_CHECK(MPI_Win_free(&win));
    MPI_Info_free(&info);

    /* shared windows on the node's ranks */
    MPI_Comm node;
    TU_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    for (int noncontig = 0; noncontig < 2; noncontig++) {
        MPI_Info_create(&info);
        if (noncontig)
            MPI_Info_set(info, "alloc_shared_noncontig", "true");
        char *sbase;
        MPI_Aint mysize = nrank == 0 ? 0 : 40 + nrank; /* rank 0 exposes nothing */
        TU_CHECK(MPI_Win_allocate_shared(mysize, 1, info, node, &sbase, &win));
        attrs(win, sbase, mysize, 1, MPI_WIN_FLAVOR_SHARED);
        for (MPI_Aint i = 0; i < mysize; i++)
            sbase[i] = (char)(nrank + i);
        TU_CHECK(MPI_Win_fence(0, win));
        for (int r = 0; r < nsize; r++) {
            MPI_Aint qs;
            int qu;
            char *qb;
            TU_CHECK(MPI_Win_shared_query(win, r, &qs, &qu, &qb));
            TU_ASSERT(qs == (r == 0 ? 0 : 40 + r) && qu == 1, "shared_query(%d): size %ld", r,
                      (long)qs);
            for (MPI_Aint i = 0; i < qs; i++)
                TU_ASSERT(qb[i] == (char)(r + i), "shared_query(%d): byte %ld is %d", r,
                          (long)i, qb[i]);
        }
        if (nsize > 1) {
            MPI_Aint qs;
            int qu;
            char *qb;
            TU_CHECK(MPI_Win_shared_query(win, MPI_PROC_NULL, &qs, &qu, &qb));
            TU_ASSERT(qs == 41, "shared_query(MPI_PROC_NULL): the first rank with memory "
                      "has 41 bytes, got %ld", (long)qs);
        }
        TU_CHECK(MPI_Win_fence(0, win));
        TU_CHECK(MPI_Win_free(&win));
        MPI_Info_free(&info);
    }
    shared_contiguous(node);
    MPI_Comm_free(&node);

    /* a window over the odd ranks: window ranks are not world ranks */
    MPI_Comm odd;
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &odd));
    int orank, osize;
    MPI_Comm_rank(odd, &orank);
    MPI_Comm_size(odd, &osize);
    int cell = -1;
    TU_CHECK(MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, odd, &win));
    TU_CHECK(MPI_Win_fence(0, win));
    int me = rank;
    TU_CHECK(MPI_Put(&me, 1, MPI_INT, (orank + 1) % osize, 0, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_fence(0, win));
    /* split key -rank: window rank orank is the world rank 2 * (osize - 1 - orank) + rank % 2 */
    int from = (orank + osize - 1) % osize, want = 2 * (osize - 1 - from) + rank % 2;
    TU_ASSERT(cell == want, "window over a split communicator: got %d, expected %d", cell,
              want);
    TU_CHECK(MPI_Win_free(&win));
    MPI_Comm_free(&odd);
    tu_finish();
    return 0;
}
