/*
 * MPI_Init and MPI_Finalize, and the environment queries.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "core.h"
#include "p2p/match.h"
#include "runtime/hang.h"
#include "base/log.h"
#include "base/pmi.h"
#include "base/tunables.h"
#include "select.h"

struct faro_state faro = {.rank = 0, .size = 1};

static _Noreturn void init_failed(const char *msg)
{
    faro_fatal(MPI_ERR_OTHER, "MPI_Init: %s", msg);
}

/* The runtime (transports, communicators, the process manager's connection)
 * is shared by the world model (MPI_Init .. MPI_Finalize) and by sessions
 * (session.c): each holds one reference, the first brings it up and the last
 * takes it down. It comes up once per process: after it went down, neither
 * MPI_Init nor MPI_Session_init can bring it back (the process manager's
 * connection and the job's shared-memory names are gone), and both say so.
 * faro.initialized/finalized say whether it is up or went down (what the
 * calls check); MPI_Initialized/MPI_Finalized report the world model's own. */
static int runtime_refs;
static int world_state; /* 0 before MPI_Init, 1 after, 2 after MPI_Finalize */

static int runtime_up(int required, int *provided)
{
    char err[1024];
    if (faro_tunables_load(err, sizeof err))
        init_failed(err);
    if (faro_coll_select_init(err, sizeof err)) /* a bad FARO_COLL_TUNING_FILE stops here */
        init_failed(err);
    faro_log_level = (int)faro_tun_int(FARO_TUN_VERBOSE);
    /* Before the process manager learns of this rank: from then on mpiexec
     * may send the hang report's signal, whose default action kills. */
    faro_hang_init();

    struct faro_pmi_info pmi;
    if (faro_pmi_init(&pmi, err, sizeof err))
        init_failed(err);
    faro.rank = pmi.rank;
    faro.size = pmi.size;
    faro_log_rank = pmi.rank;
    faro_info(1, "process manager: %s, because %s", pmi.protocol, pmi.why);
    /* The job id names files in /dev/shm: keep it to safe characters. */
    snprintf(faro.jobid, sizeof faro.jobid, "%s", pmi.kvsname);
    if (pmi.singleton)
        snprintf(faro.jobid, sizeof faro.jobid, "faro-%d", (int)getpid());
    for (char *c = faro.jobid; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_')
            *c = '_';

    if (faro_wireup(err, sizeof err))
        init_failed(err);
    faro_comm_init();
    faro_attr_init(pmi.appnum);
    faro.thread_level = required; /* every level, MPI_THREAD_MULTIPLE included */
    faro_thread_init(faro.thread_level);
    if (faro_rma_wants_threads()) /* the progress thread calls in beside the program */
        faro_thread_multiple = 1;
    faro_signals_restore(); /* what the transports' libraries took at their start-up */
    if (provided)
        *provided = faro.thread_level;
    faro.initialized = 1;
    if (pmi.spawned && faro_spawn_connect(err, sizeof err)) /* the parents wait in spawn */
        init_failed(err);
    return MPI_SUCCESS;
}

static void finalize_wait(void *arg)
{
    faro_progress_idle(faro_progress());
}

static void runtime_down(void)
{
    faro_rma_finalize();
    faro_quiesce();
    /* The barrier keeps the transports polled: a peer still in faro_quiesce may
     * wait for this rank to acknowledge its last send (a transport whose sends
     * complete on the receiver's acknowledgement and that moves data only
     * when polled; docs/transports.md names them). */
    if (faro_pmi_barrier_while(finalize_wait, NULL))
        faro_fatal(MPI_ERR_OTHER, "MPI_Finalize: the process manager went away");
    faro_wireup_finalize();
    faro_mq_free_all();
    faro_pmi_finalize();
    faro.finalized = 1;
}

int faro_runtime_acquire(const char *fn, int required, int *provided)
{
    if (faro.finalized)
        return faro_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: MPI was finalized in this process "
                        "(MPI_Finalize and every session's MPI_Session_finalize); Faro cannot "
                        "start it again", fn);
    int rc = MPI_SUCCESS;
    if (!faro.initialized)
        rc = runtime_up(required, provided);
    else if (provided)
        *provided = faro.thread_level; /* the level it came up with */
    if (rc == MPI_SUCCESS)
        runtime_refs++;
    return rc;
}

void faro_runtime_release(void)
{
    if (--runtime_refs == 0)
        runtime_down();
}

static int init(int required, int *provided)
{
    if (world_state)
        return faro_err(MPI_COMM_NULL, MPI_ERR_OTHER,
                        world_state == 2 ? "MPI_Init: called after MPI_Finalize"
                                         : "MPI_Init: called twice");
    int rc = faro_runtime_acquire("MPI_Init", required, provided);
    if (rc == MPI_SUCCESS)
        world_state = 1;
    return rc;
}

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int *argc, char ***argv)
{
    return init(MPI_THREAD_SINGLE, NULL);
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Init_thread: required level %d is not one of MPI_THREAD_SINGLE.."
                        "MPI_THREAD_MULTIPLE", required);
    return init(required, provided);
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void)
{
    if (world_state != 1)
        return faro_err(MPI_COMM_NULL, MPI_ERR_OTHER, "MPI_Finalize: %s",
                        world_state ? "called twice" : "called before MPI_Init");
    /* MPI_COMM_SELF's attributes go first, newest first, while MPI still works
     * (libraries hang their clean-up there); then MPI_COMM_WORLD's. */
    int rc = faro_attr_delete_all(FARO_ATTR_COMM, MPI_COMM_SELF, &MPI_COMM_SELF->attrs);
    if (rc == MPI_SUCCESS)
        rc = faro_attr_delete_all(FARO_ATTR_COMM, MPI_COMM_WORLD, &MPI_COMM_WORLD->attrs);
    if (rc != MPI_SUCCESS)
        rc = faro_err_pass(MPI_COMM_WORLD, rc, "MPI_Finalize: an attribute's delete callback "
                           "failed");
    world_state = 2;
    faro_runtime_release(); /* down unless a session still holds it */
    return rc;
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int *flag)
{
    if (!flag)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Initialized: flag pointer is NULL");
    *flag = world_state >= 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int *flag)
{
    if (!flag)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Finalized: flag pointer is NULL");
    *flag = world_state == 2;
    return MPI_SUCCESS;
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[128];
    snprintf(msg, sizeof msg, "MPI_Abort called on %s with error code %d",
             !comm ? "MPI_COMM_NULL" : comm->name[0] ? comm->name : "a communicator without "
             "a name", errorcode);
    faro_error("%s", msg);
    int status = errorcode & 255;
    if (status == 0 && errorcode != 0)
        status = 1;
    faro_pmi_abort(errorcode, msg);
    _exit(status);
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int *provided)
{
    if (!provided)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Query_thread: provided pointer is NULL");
    *provided = faro.thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int *flag)
{
    if (!flag)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Is_thread_main: flag pointer is NULL");
    *flag = faro_thread_is_main(); /* the thread that called MPI_Init(_thread) */
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_processor_name: %s is NULL",
                        name ? "resultlen" : "name");
    if (!faro.hostname[0])
        faro_node_name();
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", faro.hostname);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

/* Profiling control: without a profiling layer that defines MPI_Pcontrol
 * itself, every level is accepted and has no effect, as the standard says. */
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_version: %s pointer is NULL",
                        version ? "subversion" : "version");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

/* What MPI-4.0 has that Faro lacks (docs/notes.md, "MPI-4"): MPI_VERSION
 * says 4 when this is empty. */
#define FARO_MPI4_MISSING "MPI-4.0 lacks _c, MPI_T, IO, Fortran, HW_GUIDED"

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_library_version: %s is NULL",
                        version ? "resultlen" : "version");
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "Faro %s (MPI %d.%d; %s; %s)",
             PACKAGE_VERSION, MPI_VERSION, MPI_SUBVERSION, FARO_MPI4_MISSING,
             FARO_BUILD_OPTIONS);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
