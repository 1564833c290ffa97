/*
 * Windows (owner: win.c). One-sided communication is not built yet: no call
 * creates a window, so every window argument is invalid today. What a window
 * already has is what other areas hang on it: its attribute list (attr.c),
 * deleted by MPI_Win_free like a communicator's by MPI_Comm_free.
 */
#ifndef FARO_OBJECTS_WIN_H
#define FARO_OBJECTS_WIN_H

#include <stdint.h>
#include "mpi.h"

#define FARO_WIN_MAGIC 0x57494e44u

struct faro_attr;

struct faro_win {
    uint32_t magic;          /* FARO_WIN_MAGIC while the program may use the handle */
    MPI_Comm comm;           /* the communicator it was created on */
    struct faro_attr *attrs; /* attribute list (attr.c) */
};

int faro_win_check(MPI_Win w); /* 0 when usable */
/* The MPI_ERR_WIN error of a bad window argument under fn (raised). */
int faro_win_bad(const char *fn, MPI_Win w);

#endif
