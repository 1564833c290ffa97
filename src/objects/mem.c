/*
 * MPI_Alloc_mem / MPI_Free_mem. No transport registers memory, so this is
 * the C allocator; blocks are aligned to a cache line (64 bytes) so reduction
 * kernels and copies start aligned. The info hints are accepted and ignored.
 */
#include <errno.h>
#include <stdlib.h>

#include "core.h"

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    if (size < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Alloc_mem: size %ld is negative",
                        (long)size);
    if (info != MPI_INFO_NULL && faro_info_check(info))
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO, "MPI_Alloc_mem: info %p is not an info "
                        "object (MPI_INFO_NULL or one from MPI_Info_create)", (void *)info);
    if (!baseptr)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Alloc_mem: baseptr is NULL (the "
                        "address of a pointer to set is needed)");
    void *p = NULL;
    /* size 0 still gives a distinct pointer that MPI_Free_mem accepts */
    if (posix_memalign(&p, 64, size ? (size_t)size : 1))
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem: cannot allocate %ld "
                        "bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}
