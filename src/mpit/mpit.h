/*
 * The MPI_T tool interface (MPI-4.0 chapter 15): what a tool sees of Faro.
 *
 * - control variables (cvar.c): one per tunable of the one table
 *   (base/tunables_all.def), in its order, under its FARO_* name;
 * - performance variables (pvar.c): the protocol and transport counters the
 *   core keeps (struct faro_tp_counts in core.h, the unexpected queue in
 *   p2p/match.c) and levels derived from the matching queues when read;
 * - categories (category.c): one per component, its cvars taken from that
 *   component's own *_tunables.def;
 * - events (event.c): none, and one source (the process clock).
 *
 * The interface has its own reference count (MPI_T_init_thread /
 * MPI_T_finalize), independent of MPI_Init and MPI_Finalize, and its own lock:
 * every entry point holds faro_mpit_mutex for its whole call. Calls that
 * look at the core's queues take the library lock too, after this one.
 */
#ifndef FARO_MPIT_H
#define FARO_MPIT_H

#include <pthread.h>

#include "core.h"
#include "runtime/thread.h"

extern int faro_mpit_refs FARO_HIDDEN;             /* MPI_T_init_thread minus MPI_T_finalize */
extern pthread_mutex_t faro_mpit_mutex FARO_HIDDEN;

static inline void faro_mpit_unlock_scope(int *scope)
{
    (void)scope;
    pthread_mutex_unlock(&faro_mpit_mutex);
}

/* First statement of every entry point but init and finalize: refuses calls
 * outside MPI_T_init_thread..MPI_T_finalize, and holds the lock until return. */
#define FARO_MPIT_ENTER()                                                              \
    pthread_mutex_lock(&faro_mpit_mutex);                                              \
    int faro_mpit_scope_ __attribute__((cleanup(faro_mpit_unlock_scope), unused)) = 0; \
    if (faro_mpit_refs == 0)                                                           \
    return MPI_T_ERR_NOT_INITIALIZED

/* The standard's way of returning a string: with buf NULL or *len 0 only the
 * length needed (NUL included) goes to *len; otherwise up to *len - 1
 * characters and a NUL are written and *len says how many were (NUL
 * included). len NULL: nothing is returned. */
void faro_mpit_copy(const char *s, char *buf, int *len) FARO_HIDDEN;

/* A "a|b|c" choice list as an MPI_T enumeration (values 0, 1, ...). */
struct faro_mpit_enum {
    const char *name;
    const char *choices;
};

/* Mark of a live handle: a freed or foreign pointer is refused. */
#define FARO_MPIT_MAGIC 0x4d504954u /* "MPIT" */

/* Categories (category.c) list the cvars of a component by tunable id and the
 * pvars by index; pvar.c says which pvars belong to which component. */
int faro_mpit_pvar_count(void) FARO_HIDDEN;
const char *faro_mpit_pvar_component(int index) FARO_HIDDEN;

#endif
