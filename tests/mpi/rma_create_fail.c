/*
 * rma_create_fail: window creation is collective, so a failure at one
 * member is an error at every member, not a hang of the others:
 *   - MPI_Win_allocate where only the last rank cannot have its memory (an
 *     address-space limit 48 MiB above what it uses, 64 MiB asked for there):
 *     that rank gets MPI_ERR_NO_MEM, every other rank MPI_ERR_NO_MEM too with
 *     a message naming the rank that failed, and every handle is
 *     MPI_WIN_NULL. On one node the shared segment is tried first (the last
 *     rank cannot map it, so every member falls back to private memory);
 *     with FARO_RMA_SHM_DIRECT=0, or across nodes, private memory at once;
 *   - MPI_Win_allocate_shared under the same limit: an error everywhere;
 *   - then the library is usable: windows of every member work.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "util.h"

#define BIG ((MPI_Aint)64 << 20)

/* The outcome of a creation at which the last rank failed: an error of class
 * MPI_ERR_NO_MEM everywhere, no handle. */
static void expect_failed(const char *call, int rc, MPI_Win win, int last)
{
    TU_ASSERT(rc != MPI_SUCCESS, "%s succeeded though rank %d could not have its memory",
              call, last);
    TU_EXPECT_CLASS(rc, MPI_ERR_NO_MEM);
    TU_ASSERT(win == MPI_WIN_NULL, "a failed %s left a handle", call);
    char msg[MPI_MAX_ERROR_STRING], want[64];
    int len;
    MPI_Error_string(rc, msg, &len);
    snprintf(want, sizeof want, "rank %d", last);
    TU_ASSERT(strstr(msg, call) && (tu_rank == last || strstr(msg, want)), "message \"%s\" "
              "does not name the call (and, at the others, the rank that failed)", msg);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "rma_create_fail");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int last = tu_size - 1;
    /* every connection made first: a transport's own pools (libfabric's) are not
     * what the limit is for */
    int *cells = tu_malloc((size_t)tu_size * sizeof *cells);
    int *back = tu_malloc((size_t)tu_size * sizeof *back);
    for (int r = 0; r < tu_size; r++)
        cells[r] = tu_rank;
    TU_CHECK(MPI_Alltoall(cells, 1, MPI_INT, back, 1, MPI_INT, MPI_COMM_WORLD));
    free(cells);
    free(back);
    struct rlimit old;
    TU_ASSERT(getrlimit(RLIMIT_AS, &old) == 0, "getrlimit failed");
    if (tu_rank == last) {
        unsigned long long vm = tu_vm_size();
        TU_ASSERT(vm > 0, "cannot read VmSize");
        struct rlimit tight = {(rlim_t)(vm + (48u << 20)), old.rlim_max};
        TU_ASSERT(setrlimit(RLIMIT_AS, &tight) == 0, "setrlimit failed");
    }
    MPI_Aint size = tu_rank == last ? BIG : 64;
    void *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    expect_failed("MPI_Win_allocate", rc, win, last);
    win = MPI_WIN_NULL;
    rc = MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    /* over several nodes that call is refused for another reason: no check then */
    MPI_Comm node;
    int nsize;
    TU_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    if (nsize == tu_size) {
        TU_ASSERT(rc != MPI_SUCCESS, "MPI_Win_allocate_shared succeeded though rank %d could "
                  "not map its memory", last);
        TU_EXPECT_CLASS(rc, MPI_ERR_NO_MEM);
        TU_ASSERT(win == MPI_WIN_NULL, "a failed MPI_Win_allocate_shared left a handle");
    }
    if (tu_rank == last)
        TU_ASSERT(setrlimit(RLIMIT_AS, &old) == 0, "setrlimit (back) failed");
    /* the library is usable: a window of every member, one operation */
    int *mem;
    TU_CHECK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                              &win));
    *mem = -1;
    TU_CHECK(MPI_Win_fence(0, win));
    int me = tu_rank;
    TU_CHECK(MPI_Put(&me, 1, MPI_INT, (tu_rank + 1) % tu_size, 0, 1, MPI_INT, win));
    TU_CHECK(MPI_Win_fence(0, win));
    TU_ASSERT(*mem == (tu_rank + tu_size - 1) % tu_size, "after the failures, a put gave %d",
              *mem);
    TU_CHECK(MPI_Win_free(&win));
    tu_finish();
    return 0;
}
