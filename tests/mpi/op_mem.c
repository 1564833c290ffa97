/*
 * op_mem: MPI_Alloc_mem gives writable memory that MPI_Free_mem takes back,
 * also for size 0 and with an info; a negative size is MPI_ERR_ARG and an
 * impossible size MPI_ERR_NO_MEM. Memory from MPI_Alloc_mem works as a
 * message buffer.
 */
#include "util.h"

static void check_class(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != want)
        tu_fail("%s: expected error class %d, got %s", what, want,
                rc == MPI_SUCCESS ? "MPI_SUCCESS" : tu_errstr(rc));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "op_mem");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    size_t n = 1 << 20;
    unsigned char *a = NULL, *b = NULL;
    TU_CHECK(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &a));
    MPI_Info info;
    TU_CHECK(MPI_Info_create(&info));
    TU_CHECK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    TU_CHECK(MPI_Alloc_mem((MPI_Aint)n, info, &b));
    TU_CHECK(MPI_Info_free(&info));
    TU_ASSERT(a && b && a != b, "MPI_Alloc_mem gave %p and %p", (void *)a, (void *)b);
    tu_fill(a, n, 1);
    MPI_Request r;
    TU_CHECK(MPI_Irecv(b, (int)n, MPI_BYTE, tu_rank, 1, MPI_COMM_WORLD, &r));
    TU_CHECK(MPI_Send(a, (int)n, MPI_BYTE, tu_rank, 1, MPI_COMM_WORLD));
    TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    tu_check_pattern(b, n, 1, "self message between MPI_Alloc_mem buffers");
    TU_CHECK(MPI_Free_mem(a));
    TU_CHECK(MPI_Free_mem(b));

    void *z = NULL;
    TU_CHECK(MPI_Alloc_mem(0, MPI_INFO_NULL, &z));
    TU_CHECK(MPI_Free_mem(z));

    void *bad = NULL;
    check_class(MPI_Alloc_mem(-1, MPI_INFO_NULL, &bad), MPI_ERR_ARG, "size -1");
#ifndef __SANITIZE_ADDRESS__ /* AddressSanitizer ends the process instead of failing */
    check_class(MPI_Alloc_mem((MPI_Aint)(~(size_t)0 >> 2), MPI_INFO_NULL, &bad), MPI_ERR_NO_MEM,
                "an impossible size");
#endif
    tu_finish();
    return 0;
}
