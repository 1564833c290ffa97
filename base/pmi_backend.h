/*
 * The PMI client's backends, one per protocol a process manager may speak:
 *
 *   pmi1       the PMI-1 "simple" wire protocol (pmi1.c): Faro's mpiexec, Hydra,
 *              Slurm's mpi/pmi2 plugin (which serves PMI-1 too)
 *   pmi2       the PMI-2 wire protocol (pmi2.c): srun --mpi=pmi2, Hydra
 *   pmix       PMIx through libpmix (pmix.c, built when configure found it):
 *              srun --mpi=pmix, Open MPI's mpirun
 *   singleton  no process manager: rank 0 of 1 with a local store (pmi.c)
 *
 * pmi.c chooses one in faro_pmi_init (from FARO_PMI or the environment),
 * checks every key and value against the limits once, and then forwards each
 * call of pmi.h to the chosen backend. A backend never prints: it says why it
 * failed in err and pmi.c decides what the caller sees.
 */
#ifndef FARO_PMI_BACKEND_H
#define FARO_PMI_BACKEND_H

#include "base/pmi.h"

#include <stddef.h>

struct faro_pmi_backend {
    const char *name;
    /* Connect and fill rank, size, appnum, kvsname, key_max, val_max (info
     * comes zeroed). Returns 0; -1 with err set; FARO_PMI_FALLBACK when the
     * manager turned the protocol down before anything else happened, so that
     * pmi.c may try the next one on the same connection. */
    int (*init)(struct faro_pmi_info *info, char *err, size_t errlen);
    int (*put)(const char *key, const char *val, char *err, size_t errlen);
    /* Make this rank's puts visible and wait for every rank; call wait(arg)
     * over and over meanwhile when wait is not NULL. */
    int (*fence)(void (*wait)(void *arg), void *arg, char *err, size_t errlen);
    /* owner is the rank that put the key, or FARO_PMI_ANY_RANK for the job's
     * own keys. Returns 0 with the value in val; 1 when the key is unknown;
     * -1 with err set when the exchange failed or the value does not fit. */
    int (*get)(int owner, const char *key, char *val, size_t vallen, char *err, size_t errlen);
    /* node[r] for every rank from the manager's own map (ids need not be
     * dense); -1 when it has none. */
    int (*node_map)(int *node, int size);
    /* Ends the job; returns only when the manager did not act. error: the
     * library ends it on an error of its own, not the program's MPI_Abort;
     * lost >= 0: because it lost contact with that rank (pmi.h:
     * faro_pmi_abort_error; only PMI-1 carries them, for Faro's mpiexec). */
    void (*abort)(int code, const char *msg, int error, int lost);
    int (*finalize)(char *err, size_t errlen);
    /* The name service; the returns of pmi.h's faro_pmi_publish and kin. */
    int (*publish)(const char *service, const char *port, char *err, size_t errlen);
    int (*lookup)(const char *service, char *port, size_t portlen, char *err, size_t errlen);
    int (*unpublish)(const char *service, char *err, size_t errlen);
    /* MPI_UNIVERSE_SIZE (> 0), 0 when the manager does not say (NULL: it
     * never says); and spawn, with the returns of pmi.h's faro_pmi_spawn
     * (FARO_PMI_NO_SERVICE: the manager answered that it does not serve it;
     * pmi.c adds who it is and what spawns). */
    int (*universe_size)(void);
    int (*spawn)(int count, const struct faro_pmi_spawn_cmd *cmds, char *const *preput,
                 char *err, size_t errlen);
};

#define FARO_PMI_FALLBACK (-4)

extern const struct faro_pmi_backend faro_pmi1_backend, faro_pmi2_backend;
#ifdef FARO_HAVE_PMIX
extern const struct faro_pmi_backend faro_pmix_backend;
#endif

/* ---- shared by the wire-protocol backends (pmi.c) ---- */

/* Parse a non-negative int from the environment: 1 ok, 0 unset, -1 bad (err). */
int faro_pmi_env_int(const char *name, int *out, char *err, size_t errlen);
/* PMI_FD: 1 with an open descriptor (now close-on-exec) in *fd, 0 unset, -1
 * not a number or not open (err). */
int faro_pmi_env_fd(int *fd, char *err, size_t errlen);
/* Copy a value the manager returned into the caller's buffer: 0, or -1 with
 * err saying it does not fit. */
int faro_pmi_copy_value(const char *key, const char *v, char *val, size_t vallen, char *err,
                        size_t errlen);
/* MPICH's PMI_process_mapping, "(vector,(first node,node count,ranks per
 * node),...)" repeated until every rank is placed: node[r] for size ranks.
 * Returns 0, or -1 when the text is malformed. */
int faro_pmi_mapping_parse(const char *val, int size, int *node);
/* Wait (poll) until fd is readable, calling wait(arg) meanwhile. */
void faro_pmi_wait_readable(int fd, void (*wait)(void *arg), void *arg);
/* How long abort waits for the manager to end the job before giving up. */
#define FARO_PMI_ABORT_WAIT_MS 10000

#endif
