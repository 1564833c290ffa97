/*
 * The PMI client: how a rank learns who it is and exchanges addresses with
 * the process manager that started it.
 *
 * One interface over several protocols (pmi_backend.h has one backend per
 * protocol, one file each): the PMI-1 wire protocol (Faro's mpiexec, MPICH's
 * Hydra), the PMI-2 wire protocol (srun --mpi=pmi2, Hydra), PMIx through
 * libpmix (srun --mpi=pmix, Open MPI's mpirun), and none: a process started
 * without a process manager is a singleton, rank 0 of 1 with an in-process
 * key-value store, so every call below still works.
 *
 * faro_pmi_init picks the protocol from FARO_PMI, else from the environment
 * the manager left (faro_pmi_choose says which and why). All calls block
 * (request/response with the manager; a barrier may run the caller's work
 * while it waits) and are only made from MPI_Init, MPI_Finalize, MPI_Abort
 * and the name service calls, never on the message path.
 * Keys and values are printable text without spaces or '=' (binary data is
 * hex-encoded by the caller); the limits come from the manager.
 */
#ifndef FARO_PMI_H
#define FARO_PMI_H

#include <stddef.h>

struct faro_pmi_info {
    int rank, size, appnum;
    int singleton;           /* 1 when started without a process manager */
    int spawned;             /* 1 when started by MPI_Comm_spawn (PMI_SPAWNED=1) */
    char kvsname[256];
    int key_max, val_max;    /* what the manager allows, within Faro's own limits */
    const char *protocol;    /* "pmi1", "pmi2", "pmix" or "singleton" */
    char why[256];           /* why that protocol: "PMI_FD is set (mpiexec, Hydra)" ... */
};

/* The protocol faro_pmi_init would use in this environment, without
 * connecting, and why in why. NULL when the environment asks for one that is
 * not built (why says so). */
const char *faro_pmi_choose(char *why, size_t whylen);
/* The protocols this build speaks, and why any is missing ("pmi1 pmi2 pmix"). */
const char *faro_pmi_built(void);

/* Returns 0, or -1 with a one-line reason in err. */
int faro_pmi_init(struct faro_pmi_info *info, char *err, size_t errlen);
int faro_pmi_put(const char *key, const char *val);
/* Commits this rank's puts and waits for every rank: gets after it see all puts. */
int faro_pmi_barrier(void);
/* The same, calling wait(arg) over and over until every rank has arrived
 * (MPI_Finalize keeps its transports polled there: a peer's last send may
 * complete only once this rank acknowledges it). */
int faro_pmi_barrier_while(void (*wait)(void *arg), void *arg);
/* Returns 0 and the value, or -1 when the key is unknown or the manager is
 * gone. rank is the rank that put the key (PMIx files every key under the
 * rank that put it), or FARO_PMI_ANY_RANK for the manager's own keys. */
#define FARO_PMI_ANY_RANK (-1)
int faro_pmi_get_from(int rank, const char *key, char *val, size_t vallen);
/* faro_pmi_get_from(FARO_PMI_ANY_RANK, ...). */
int faro_pmi_get(const char *key, char *val, size_t vallen);
/* The node of every rank (node[0..size-1]; equal ids, same node) from the
 * manager's own map: PMI_process_mapping (PMI-1, PMI-2), the node ids of
 * PMIx. Returns 0, or -1 when the manager gives none (the caller then
 * exchanges host names). */
int faro_pmi_node_map(int *node);
/* Ask the process manager to end the whole job with this code and message. Does
 * not return when the manager acts; returns -1 when there is none (singleton). */
int faro_pmi_abort(int code, const char *msg);
/* The same when the library ends the job on an error of its own rather than
 * the program's MPI_Abort (key error=1), and when lost >= 0 because it lost
 * contact with that rank (key lost_rank), so that Faro's mpiexec can blame
 * the lost rank's own end (a signal, MPI_Abort, an exit) when it learns of
 * it, and this report only when nothing explains it. Other managers ignore
 * both keys. */
int faro_pmi_abort_error(int code, const char *msg, int lost);
int faro_pmi_finalize(void);

/* The name service (MPI_Publish_name and its kin): the PMI-1 commands
 * publish_name, lookup_name and unpublish_name as MPICH's Hydra serves them
 * (Faro's mpiexec too), PMI-2's name-publish and kin, PMIx_Publish and kin.
 * Returns 0; -2 when the service refused (a name
 * published already, an unknown one), with its reason in err;
 * FARO_PMI_NO_SERVICE when there is none (a singleton, or a process manager
 * that does not serve names); -1 when the exchange failed. */
#define FARO_PMI_NO_SERVICE (-3)
int faro_pmi_publish(const char *service, const char *port, char *err, size_t errlen);
int faro_pmi_lookup(const char *service, char *port, size_t portlen, char *err, size_t errlen);
int faro_pmi_unpublish(const char *service, char *err, size_t errlen);

/* MPI_UNIVERSE_SIZE: how many processes the process manager expects room
 * for (get_universe_size); 1 for a singleton; 0 when it does not say. */
int faro_pmi_universe_size(void);

/* Spawn (MPI_Comm_spawn_multiple): start the commands as one new job, with
 * the preput pairs in its key-value space (a get of the job's keys finds
 * them there). PMI-1: the spawn command as MPICH's simple PMI sends it (one
 * "mcmd=spawn" block of key=value lines per command, up to "endcmd"; Hydra
 * and Faro's mpiexec serve it); PMI-2: its spawn command (Slurm's srun
 * --mpi=pmi2); PMIx: PMIx_Spawn (Open MPI's mpirun; not Slurm's pmix).
 * Under PMI-2 and PMIx the root first checks the programs and directories
 * that are to run where it can see (no host key): those managers would
 * start a missing program without a word, or end the launch. info and
 * preput are key, value, ... NULL-terminated. Returns 0 once the manager
 * started them; -2 when it (or that check) refused, with the reason in err;
 * FARO_PMI_NO_SERVICE when there is no manager that spawns (a singleton, a
 * manager that answers cmd=error or PMIx's not-supported), err naming the
 * manager and what spawns; -1 when the request cannot be sent (a value
 * with a newline, a line too long) or the exchange failed. */
struct faro_pmi_spawn_cmd {
    const char *command;
    char *const *argv;       /* its arguments, NULL-terminated; NULL: none */
    int maxprocs;
    char *const *info;
};
int faro_pmi_spawn(int count, const struct faro_pmi_spawn_cmd *cmds, char *const *preput,
                   char *err, size_t errlen);

#endif
