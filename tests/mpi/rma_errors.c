/*
 * rma_errors: bad one-sided calls get an error of the right class (under
 * MPI_ERRORS_RETURN, on the window or, for a bad window, on
 * MPI_COMM_WORLD) and leave the library usable:
 *   - creation: negative size (MPI_ERR_SIZE), disp_unit 0 (MPI_ERR_DISP),
 *     MPI_COMM_NULL (MPI_ERR_COMM);
 *   - MPI_WIN_NULL and a freed window (MPI_ERR_WIN);
 *   - an operation outside any epoch (MPI_ERR_RMA_SYNC), to a bad rank
 *     (MPI_ERR_RANK), past the end of the target's window or at a negative
 *     displacement (MPI_ERR_RMA_RANGE), with mismatched sizes
 *     (MPI_ERR_TYPE), an accumulate with a user op or an op the type does
 *     not take (MPI_ERR_OP), but a zero-count one is not checked (mpi4py's
 *     testGetAccumulate: MPI_SUM on 0 MPI_BYTE); MPI_Accumulate with
 *     MPI_NO_OP (MPI_ERR_OP: only the fetching calls take it);
 *     MPI_Fetch_and_op and MPI_Compare_and_swap with a derived datatype, and
 *     MPI_Compare_and_swap with a floating type (MPI_ERR_TYPE);
 *   - synchronization out of order: unlock without lock, lock twice,
 *     flush without a lock, complete without start, wait without post, a
 *     fence inside a lock epoch, free with a lock held (MPI_ERR_RMA_SYNC);
 *     a bad lock type (MPI_ERR_LOCKTYPE); an assertion the call does not take
 *     (MPI_ERR_ASSERT: MPI_MODE_NOCHECK to a fence, NOPUT to a lock, ...);
 *   - flavour mismatches: shared_query on a created window, attach on a
 *     created window (MPI_ERR_RMA_FLAVOR); detach of memory never attached
 *     (MPI_ERR_RMA_ATTACH);
 *   - a put to a dynamic window where nothing is attached: the target finds
 *     it and the origin's unlock reports MPI_ERR_RMA_RANGE; in a PSCW epoch
 *     MPI_Win_complete reports it, and nothing of it is left for the next
 *     epoch's unlock;
 *   - MPI_Win_allocate_shared over ranks of several nodes (when run so:
 *     mpiexec -launcher fork -hosts a,b) is MPI_ERR_RMA_SHARED;
 *   - the error message names the call and what was wrong.
 * Afterwards a put still works.
 */
#include "util.h"

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in, (void)inout, (void)len, (void)t;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "rma_errors");
    int rank = tu_rank, size = tu_size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int buf[16] = {0}, x = 1;
    MPI_Win win = MPI_WIN_NULL;

    TU_EXPECT_CLASS(MPI_Win_create(buf, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                    MPI_ERR_SIZE);
    TU_EXPECT_CLASS(MPI_Win_create(buf, sizeof buf, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                    MPI_ERR_DISP);
    TU_EXPECT_CLASS(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_NULL, &win),
                    MPI_ERR_COMM);
    TU_EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
    TU_EXPECT_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);

    TU_CHECK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int right = (rank + 1) % size;
    /* outside any epoch */
    int rc = MPI_Put(&x, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    TU_EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC);
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    TU_ASSERT(strstr(msg, "MPI_Put") && strstr(msg, "epoch"), "message \"%s\" does not name "
              "the call and the missing epoch", msg);
    TU_EXPECT_CLASS(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC);
    TU_EXPECT_CLASS(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC);
    TU_EXPECT_CLASS(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC);
    TU_EXPECT_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    TU_EXPECT_CLASS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    TU_EXPECT_CLASS(MPI_Win_lock(12345, right, 0, win), MPI_ERR_LOCKTYPE);
    TU_EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK);
    /* assertions the call does not take (MPI-3.1 11.5.5): no epoch opens */
    MPI_Group all;
    MPI_Comm_group(MPI_COMM_WORLD, &all);
    rc = MPI_Win_fence(MPI_MODE_NOCHECK, win);
    TU_EXPECT_CLASS(rc, MPI_ERR_ASSERT);
    MPI_Error_string(rc, msg, &len);
    TU_ASSERT(strstr(msg, "MPI_Win_fence") && strstr(msg, "MPI_MODE_NOSUCCEED"), "message "
              "\"%s\" does not name the call and the assertions it takes", msg);
    TU_EXPECT_CLASS(MPI_Win_fence(1 << 20, win), MPI_ERR_ASSERT);
    TU_EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOPUT, win), MPI_ERR_ASSERT);
    TU_EXPECT_CLASS(MPI_Win_lock_all(MPI_MODE_NOSTORE, win), MPI_ERR_ASSERT);
    TU_EXPECT_CLASS(MPI_Win_post(all, MPI_MODE_NOSUCCEED, win), MPI_ERR_ASSERT);
    TU_EXPECT_CLASS(MPI_Win_start(all, MPI_MODE_NOPRECEDE, win), MPI_ERR_ASSERT);
    MPI_Group_free(&all);

    TU_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    TU_EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC);
    TU_EXPECT_CLASS(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    TU_EXPECT_CLASS(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    TU_EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    rc = MPI_Put(&x, 1, MPI_INT, right, 16, 1, MPI_INT, win);
    TU_EXPECT_CLASS(rc, MPI_ERR_RMA_RANGE);
    MPI_Error_string(rc, msg, &len);
    TU_ASSERT(strstr(msg, "outside") && strstr(msg, "64 bytes"), "range message \"%s\" does "
              "not say the window's size", msg);
    TU_EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, right, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    TU_EXPECT_CLASS(MPI_Get(buf, 2, MPI_INT, right, 15, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    TU_EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, right, 0, 2, MPI_INT, win), MPI_ERR_TYPE);
    MPI_Op uop;
    MPI_Op_create(user_fn, 1, &uop);
    TU_EXPECT_CLASS(MPI_Accumulate(&x, 1, MPI_INT, right, 0, 1, MPI_INT, uop, win), MPI_ERR_OP);
    MPI_Op_free(&uop);
    double d = 1;
    TU_EXPECT_CLASS(MPI_Accumulate(&d, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, MPI_BAND, win),
                    MPI_ERR_OP);
    /* zero elements: no op to check (as MPICH and Open MPI); one: MPI_SUM on MPI_BYTE is wrong */
    char c0 = 0, r0 = 0;
    TU_CHECK(MPI_Get_accumulate(&c0, 0, MPI_BYTE, &r0, 0, MPI_BYTE, right, 0, 0, MPI_BYTE,
                                MPI_SUM, win));
    TU_EXPECT_CLASS(MPI_Get_accumulate(&c0, 1, MPI_BYTE, &r0, 1, MPI_BYTE, right, 0, 1,
                                       MPI_BYTE, MPI_SUM, win), MPI_ERR_OP);
    rc = MPI_Accumulate(&x, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_NO_OP, win);
    TU_EXPECT_CLASS(rc, MPI_ERR_OP);
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        TU_ASSERT(strstr(msg, "MPI_Accumulate") && strstr(msg, "MPI_NO_OP"), "NO_OP message "
                  "\"%s\"", msg);
    }
    MPI_Datatype one_int;
    TU_CHECK(MPI_Type_contiguous(1, MPI_INT, &one_int));
    TU_CHECK(MPI_Type_commit(&one_int));
    int got = 0, cmp = 0;
    TU_EXPECT_CLASS(MPI_Fetch_and_op(&x, &got, one_int, right, 0, MPI_SUM, win), MPI_ERR_TYPE);
    TU_EXPECT_CLASS(MPI_Compare_and_swap(&x, &cmp, &got, one_int, right, 0, win),
                    MPI_ERR_TYPE);
    MPI_Type_free(&one_int);
    double dc = 0, dr = 0;
    rc = MPI_Compare_and_swap(&d, &dc, &dr, MPI_DOUBLE, right, 0, win);
    TU_EXPECT_CLASS(rc, MPI_ERR_TYPE);
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        TU_ASSERT(strstr(msg, "MPI_Compare_and_swap") && strstr(msg, "MPI_DOUBLE") &&
                  strstr(msg, "integer"), "floating compare-and-swap message \"%s\"", msg);
    }
    TU_CHECK(MPI_Fetch_and_op(&x, &got, MPI_INT, right, 0, MPI_NO_OP, win));
    TU_CHECK(MPI_Win_unlock(right, win));

    MPI_Aint qs;
    int qu;
    void *qb;
    TU_EXPECT_CLASS(MPI_Win_shared_query(win, 0, &qs, &qu, &qb), MPI_ERR_RMA_FLAVOR);
    TU_EXPECT_CLASS(MPI_Win_attach(win, buf, 4), MPI_ERR_RMA_FLAVOR);

    /* still usable */
    TU_CHECK(MPI_Win_fence(0, win));
    int me = rank + 100;
    TU_CHECK(MPI_Put(&me, 1, MPI_INT, right, 3, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    TU_ASSERT(buf[3] == (rank + size - 1) % size + 100, "the put after the errors: %d", buf[3]);
    TU_EXPECT_CLASS(MPI_Put(&x, 1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    TU_CHECK(MPI_Win_free(&win));
    TU_EXPECT_CLASS(MPI_Win_fence(0, win), MPI_ERR_WIN);

    /* dynamic: nothing attached at the target */
    TU_CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    TU_EXPECT_CLASS(MPI_Win_detach(win, buf), MPI_ERR_RMA_ATTACH);
    TU_CHECK(MPI_Win_attach(win, buf, sizeof buf));
    TU_EXPECT_CLASS(MPI_Win_attach(win, buf + 2, 4), MPI_ERR_RMA_ATTACH);
    MPI_Aint addr;
    MPI_Get_address(buf, &addr);
    TU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    /* 1 MiB past our own buffer: not attached at the neighbour */
    TU_CHECK(MPI_Put(&x, 1, MPI_INT, right, addr + (1 << 20), 1, MPI_INT, win));
    rc = MPI_Win_unlock(right, win);
    TU_EXPECT_CLASS(rc, MPI_ERR_RMA_RANGE);
    MPI_Error_string(rc, msg, &len);
    TU_ASSERT(strstr(msg, "MPI_Win_unlock") && strstr(msg, "attached"), "dynamic range "
              "message \"%s\"", msg);
    /* the same in a PSCW epoch: MPI_Win_complete ends it, so it reports the error */
    MPI_Group wgroup, from, to;
    int left = (rank + size - 1) % size;
    TU_CHECK(MPI_Win_get_group(win, &wgroup));
    TU_CHECK(MPI_Group_incl(wgroup, 1, &left, &from));
    TU_CHECK(MPI_Group_incl(wgroup, 1, &right, &to));
    TU_CHECK(MPI_Win_post(from, 0, win));
    TU_CHECK(MPI_Win_start(to, 0, win));
    TU_CHECK(MPI_Put(&x, 1, MPI_INT, right, addr + (1 << 20), 1, MPI_INT, win));
    rc = MPI_Win_complete(win);
    TU_EXPECT_CLASS(rc, MPI_ERR_RMA_RANGE);
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        TU_ASSERT(strstr(msg, "MPI_Win_complete") && strstr(msg, "attached"), "PSCW dynamic "
                  "range message \"%s\"", msg);
    }
    TU_CHECK(MPI_Win_wait(win));
    TU_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    TU_CHECK(MPI_Win_unlock(right, win)); /* no error of the PSCW epoch left over */
    MPI_Group_free(&from);
    MPI_Group_free(&to);
    MPI_Group_free(&wgroup);
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Win_detach(win, buf));
    TU_CHECK(MPI_Win_free(&win));
    /* across nodes (mpiexec -launcher fork -hosts a,b): no shared window */
    MPI_Comm node;
    int nsize;
    TU_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nsize);
    if (nsize < size) {
        void *sb;
        rc = MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &sb, &win);
        TU_EXPECT_CLASS(rc, MPI_ERR_RMA_SHARED);
        MPI_Error_string(rc, msg, &len);
        TU_ASSERT(strstr(msg, "node"), "cross-node shared window message \"%s\"", msg);
        TU_ASSERT(win == MPI_WIN_NULL, "a failed MPI_Win_allocate_shared left a handle");
    }
    MPI_Comm_free(&node);
    tu_finish();
    return 0;
}
