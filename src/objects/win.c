/*
 * One-sided communication (MPI_Win) is not built yet. The creation functions
 * exist so that programs which merely reference them (benchmark suites link
 * their RMA helpers into every program) build and run their other parts; a
 * program that really creates a window gets MPI_ERR_UNSUPPORTED_OPERATION
 * with a message, never a window that silently does nothing. Since no window
 * can exist, every other window function is MPI_ERR_WIN.
 */
#include "core.h"

static int unsupported(MPI_Comm comm, const char *fn)
{
    if (faro_comm_check(comm))
        return faro_err(MPI_COMM_NULL, MPI_ERR_COMM, "%s: invalid communicator", fn);
    return faro_err(comm, MPI_ERR_UNSUPPORTED_OPERATION,
                    "%s: one-sided communication (MPI_Win) is not implemented in Faro yet; "
                    "use point-to-point or collectives", fn);
}

static int no_window(const char *fn)
{
    return faro_err(MPI_COMM_NULL, MPI_ERR_WIN,
                    "%s: invalid window (Faro cannot create windows yet)", fn);
}

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    (void)base, (void)size, (void)disp_unit, (void)info;
    if (win)
        *win = MPI_WIN_NULL;
    return unsupported(comm, "MPI_Win_create");
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    (void)size, (void)disp_unit, (void)info, (void)baseptr;
    if (win)
        *win = MPI_WIN_NULL;
    return unsupported(comm, "MPI_Win_allocate");
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    (void)info;
    if (win)
        *win = MPI_WIN_NULL;
    return unsupported(comm, "MPI_Win_create_dynamic");
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    (void)win, (void)base, (void)size;
    return no_window("MPI_Win_attach");
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    (void)win, (void)base;
    return no_window("MPI_Win_detach");
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    (void)win;
    return no_window("MPI_Win_free");
}
