/*
 * One-sided communication (MPI_Win) is not built yet. The creation functions
 * exist so that programs which merely reference them (benchmark suites link
 * their RMA helpers into every program) build and run their other parts; a
 * program that really creates a window gets MPI_ERR_UNSUPPORTED_OPERATION
 * with a message, never a window that silently does nothing. Since no window
 * can exist, every other window function is MPI_ERR_WIN; window keyvals and
 * attributes (attr.c) work on the window object of win.h.
 */
#include <stdlib.h>

#include "core.h"

int faro_win_check(MPI_Win w)
{
    return w && w->magic == FARO_WIN_MAGIC ? 0 : -1;
}

int faro_win_bad(const char *fn, MPI_Win w)
{
    return faro_err(MPI_COMM_NULL, MPI_ERR_WIN, "%s: %s", fn,
                    w == MPI_WIN_NULL ? "window is MPI_WIN_NULL"
                                      : "argument is not a valid window (Faro cannot create "
                                        "windows yet)");
}

static int unsupported(MPI_Comm comm, const char *fn, MPI_Win *win)
{
    if (faro_comm_check(comm))
        return faro_err(MPI_COMM_NULL, MPI_ERR_COMM, "%s: invalid communicator", fn);
    if (!win)
        return faro_err(comm, MPI_ERR_ARG, "%s: win pointer is NULL", fn);
    *win = MPI_WIN_NULL;
    return faro_err(comm, MPI_ERR_UNSUPPORTED_OPERATION,
                    "%s: one-sided communication (MPI_Win) is not implemented in Faro yet; "
                    "use point-to-point or collectives", fn);
}

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    (void)base, (void)size, (void)disp_unit, (void)info;
    return unsupported(comm, "MPI_Win_create", win);
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    (void)size, (void)disp_unit, (void)info, (void)baseptr;
    return unsupported(comm, "MPI_Win_allocate", win);
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    (void)info;
    return unsupported(comm, "MPI_Win_create_dynamic", win);
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    (void)base, (void)size;
    return faro_win_bad("MPI_Win_attach", win);
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    (void)base;
    return faro_win_bad("MPI_Win_detach", win);
}

/* The attributes go first (their delete callbacks may still use the window). */
#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    static const char fn[] = "MPI_Win_free";
    FARO_LOCKED;
    if (!win)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: win pointer is NULL", fn);
    MPI_Win w = *win;
    if (faro_win_check(w))
        return faro_win_bad(fn, w);
    int rc = faro_attr_delete_all(FARO_ATTR_WIN, w, &w->attrs);
    if (rc)
        return faro_err_pass(MPI_COMM_NULL, rc, "%s: an attribute delete callback failed with "
                             "code %d", fn, rc);
    faro_handle_forget(FARO_H_WIN, w);
    w->magic = 0;
    free(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
