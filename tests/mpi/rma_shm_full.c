/*
 * rma_shm_full: windows larger than /dev/shm can hold (run by
 * rma-shm-full.sh under a 256 KiB /dev/shm of its own):
 *   - MPI_Win_allocate of 1 MiB on one node succeeds (private memory, the
 *     operations as messages), every page can be written, a get works;
 *   - MPI_Win_allocate_shared of 1 MiB is MPI_ERR_NO_MEM with a message
 *     that names /dev/shm, not a SIGBUS at the first touch.
 */
#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "rma_shm_full");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *p;
    MPI_Win w;
    const int n = (1 << 20) / (int)sizeof(int);
    TU_CHECK(MPI_Win_allocate(n * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &p, &w));
    for (int i = 0; i < n; i++) /* every page */
        p[i] = i + tu_rank;
    TU_CHECK(MPI_Win_fence(0, w));
    int v = -1, right = (tu_rank + 1) % tu_size;
    TU_CHECK(MPI_Get(&v, 1, MPI_INT, right, n - 1, 1, MPI_INT, w));
    TU_CHECK(MPI_Win_fence(0, w));
    TU_ASSERT(v == n - 1 + right, "get from the last page: %d, expected %d", v, n - 1 + right);
    TU_CHECK(MPI_Win_free(&w));
    int rc = MPI_Win_allocate_shared(n * (MPI_Aint)sizeof(int), 1, MPI_INFO_NULL,
                                     MPI_COMM_WORLD, &p, &w);
    TU_EXPECT_CLASS(rc, MPI_ERR_NO_MEM);
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    TU_ASSERT(strstr(msg, "/dev/shm") != NULL, "message \"%s\" does not name /dev/shm", msg);
    tu_finish();
    return 0;
}
