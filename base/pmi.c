/*
 * PMI client (see pmi.h): the choice of protocol, the checks every call
 * shares, and the singleton. The protocols themselves are backends
 * (pmi_backend.h: pmi1.c, pmi2.c, pmix.c).
 *
 * The choice (FARO_PMI=auto, the default), first match wins:
 *   PMI_FD names an open descriptor   the launcher that started this process
 *                                     left a socket: PMI-2 when PMI_VERSION=2
 *                                     or PMI_JOBID (srun --mpi=pmi2) says so,
 *                                     else PMI-1 (mpiexec, Hydra)
 *   PMIX_RANK and PMIX_NAMESPACE      PMIx (srun --mpi=pmix, Open MPI's mpirun)
 *   PMI_PORT                          PMI-1 over TCP (Hydra's -pmi-port)
 *   PMI_FD set but not open           an error that says so
 *   nothing                           singleton
 * An open PMI_FD goes first because only the direct launcher can hand one
 * over, while PMIX_* may be inherited from a launcher further out (Hydra
 * started inside an srun --mpi=pmix step). PMI-2 that is only inferred falls
 * back to PMI-1 on the same socket when the manager turns it down.
 */
#include "config.h"

#include "base/pmi_backend.h"
#include "base/pmi_wire.h"
#include "base/program.h"
#include "base/log.h"
#include "base/tunables.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pmi_kv {
    char *key, *val;
};

static struct {
    int inited;
    const struct faro_pmi_backend *be; /* NULL for a singleton */
    struct faro_pmi_info info;
    struct pmi_kv *kv; /* singleton store */
    size_t nkv, capkv;
} pmi;

/* ---- shared by the backends ---- */

int faro_pmi_env_int(const char *name, int *out, char *err, size_t errlen)
{
    const char *s = getenv(name);
    if (!s)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v > INT_MAX) {
        snprintf(err, errlen, "%s='%s' is not a non-negative integer; it is set by the "
                 "process manager (mpiexec, srun), do not set it by hand", name, s);
        return -1;
    }
    *out = (int)v;
    return 1;
}

int faro_pmi_env_fd(int *fd, char *err, size_t errlen)
{
    int rc = faro_pmi_env_int("PMI_FD", fd, err, errlen);
    if (rc > 0 && fcntl(*fd, F_GETFD) < 0) {
        snprintf(err, errlen, "PMI_FD=%d is not an open file descriptor; start the program "
                 "with mpiexec or srun, or unset PMI_FD to run it as a singleton", *fd);
        return -1;
    }
    if (rc > 0) /* programs the rank starts must not inherit the job's PMI connection */
        fcntl(*fd, F_SETFD, FD_CLOEXEC);
    return rc;
}

int faro_pmi_copy_value(const char *key, const char *v, char *val, size_t vallen, char *err,
                        size_t errlen)
{
    if (strlen(v) >= vallen) {
        snprintf(err, errlen, "PMI: value of key '%s' is %zu bytes, the buffer holds %zu", key,
                 strlen(v), vallen ? vallen - 1 : 0);
        return -1;
    }
    strcpy(val, v);
    return 0;
}

void faro_pmi_wait_readable(int fd, void (*wait)(void *arg), void *arg)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    while (wait && poll(&p, 1, 0) == 0)
        wait(arg);
}

int faro_pmi_mapping_parse(const char *val, int size, int *node)
{
    int blk[64][3], nb = 0, used;
    const char *p = val;
    if (strncmp(p, "(vector", 7))
        return -1;
    p += 7;
    while (nb < 64 && sscanf(p, ",(%d,%d,%d)%n", &blk[nb][0], &blk[nb][1], &blk[nb][2],
                             &used) == 3) {
        if (blk[nb][0] < 0 || blk[nb][1] < 1 || blk[nb][2] < 1)
            return -1;
        nb++;
        p += used;
    }
    if (nb == 0 || strcmp(p, ")"))
        return -1;
    for (int r = 0; r < size;)
        for (int b = 0; b < nb && r < size; b++)
            for (int k = 0; k < blk[b][1] && r < size; k++)
                for (int i = 0; i < blk[b][2] && r < size; i++)
                    node[r++] = blk[b][0] + k;
    return 0;
}

/* ---- the choice ---- */

const char *faro_pmi_built(void)
{
#ifdef FARO_HAVE_PMIX
    return "pmi1 pmi2 pmix";
#else
    return "pmi1 pmi2 (no pmix: " FARO_PMIX_NOTE ")";
#endif
}

/* The backend for a protocol name; NULL for the singleton. *ok is 0 when the
 * name is a protocol this build lacks. */
static const struct faro_pmi_backend *pmi_backend(const char *name, int *ok)
{
    *ok = 1;
    if (strcmp(name, "pmi1") == 0)
        return &faro_pmi1_backend;
    if (strcmp(name, "pmi2") == 0)
        return &faro_pmi2_backend;
#ifdef FARO_HAVE_PMIX
    if (strcmp(name, "pmix") == 0)
        return &faro_pmix_backend;
#else
    if (strcmp(name, "pmix") == 0)
        *ok = 0;
#endif
    return NULL;
}

/* The protocol the environment asks for, and why; *inferred is 1 when a
 * refusal of PMI-2 may fall back to PMI-1. */
static const char *pmi_choose(char *why, size_t whylen, int *inferred)
{
    static const char *const names[] = { "auto", "pmi1", "pmi2", "pmix", "singleton" };
    long long forced = faro_tun_int(FARO_TUN_PMI);
    *inferred = 0;
    if (forced > 0 && forced < (long long)(sizeof names / sizeof names[0])) {
        snprintf(why, whylen, "FARO_PMI=%s", names[forced]);
        return names[forced];
    }
    const char *fd = getenv("PMI_FD"), *version = getenv("PMI_VERSION");
    char *end;
    long fdnum = fd ? strtol(fd, &end, 10) : -1;
    if (fd && *fd && !*end && fdnum >= 0 && fdnum <= INT_MAX && fcntl((int)fdnum, F_GETFD) >= 0) {
        *inferred = 1;
        if (version && strcmp(version, "2") == 0) {
            snprintf(why, whylen, "PMI_FD is set and PMI_VERSION=2");
            return "pmi2";
        }
        if (version && strcmp(version, "1") == 0) {
            snprintf(why, whylen, "PMI_FD is set and PMI_VERSION=1");
            return "pmi1";
        }
        if (getenv("PMI_JOBID")) {
            snprintf(why, whylen, "PMI_FD and PMI_JOBID are set (srun --mpi=pmi2)");
            return "pmi2";
        }
        snprintf(why, whylen, "PMI_FD is set (mpiexec, Hydra)");
        return "pmi1";
    }
    if (getenv("PMIX_RANK") && getenv("PMIX_NAMESPACE")) {
        snprintf(why, whylen, "PMIX_RANK and PMIX_NAMESPACE are set (srun --mpi=pmix, "
                 "Open MPI's mpirun)");
        return "pmix";
    }
    if (getenv("PMI_PORT")) {
        snprintf(why, whylen, "PMI_PORT is set (Hydra's -pmi-port)");
        return "pmi1";
    }
    if (fd) {
        snprintf(why, whylen, "PMI_FD is set");
        return "pmi1"; /* whose init says what is wrong with it */
    }
    snprintf(why, whylen, "no process manager variables (PMI_FD, PMI_PORT, PMIX_RANK) are set");
    return "singleton";
}

const char *faro_pmi_choose(char *why, size_t whylen)
{
    int inferred, ok;
    const char *name = pmi_choose(why, whylen, &inferred);
    pmi_backend(name, &ok);
    if (ok)
        return name;
    size_t n = strlen(why);
    snprintf(why + n, whylen - n, ", but this Faro was built without PMIx (%s)",
             faro_pmi_built());
    return NULL;
}

/* ---- the calls of pmi.h ---- */

static void pmi_singleton(struct faro_pmi_info *info)
{
    info->rank = 0;
    info->size = 1;
    info->singleton = 1;
    info->key_max = FARO_PMI_KEY_MAX;
    info->val_max = FARO_PMI_VAL_MAX;
    snprintf(info->kvsname, sizeof info->kvsname, "faro-%ld-singleton", (long)getpid());
}

int faro_pmi_init(struct faro_pmi_info *info, char *err, size_t errlen)
{
    char why[sizeof info->why];
    int inferred, ok;
    memset(info, 0, sizeof *info);
    const char *name = pmi_choose(why, sizeof why, &inferred);
    const struct faro_pmi_backend *be = pmi_backend(name, &ok);
    if (!ok) {
        snprintf(err, errlen, "PMIx is the protocol here, because %s; but this Faro was "
                 "built without PMIx (%s): rebuild it with libpmix-dev installed, or start the "
                 "program with srun --mpi=pmi2 or Faro's mpiexec", why, FARO_PMIX_NOTE);
        return -1;
    }
    if (be) {
        int rc = be->init(info, err, errlen);
        if (rc == FARO_PMI_FALLBACK && inferred) {
            size_t n = strlen(why);
            snprintf(why + n, sizeof why - n, "; PMI-2 turned down, so PMI-1");
            memset(info, 0, sizeof *info);
            be = &faro_pmi1_backend;
            rc = be->init(info, err, errlen);
        }
        if (rc == FARO_PMI_FALLBACK) {
            size_t n = strlen(err);
            snprintf(err + n, errlen - n, "; %s forces it: unset it to let Faro pick", why);
        }
        if (rc < 0)
            return -1;
        /* Our own message limits bound what we send, whatever the manager allows. */
        if (info->key_max > FARO_PMI_KEY_MAX)
            info->key_max = FARO_PMI_KEY_MAX;
        if (info->val_max > FARO_PMI_VAL_MAX)
            info->val_max = FARO_PMI_VAL_MAX;
        info->protocol = be->name;
    } else {
        pmi_singleton(info);
        info->protocol = "singleton";
    }
    snprintf(info->why, sizeof info->why, "%s", why);
    /* Started by MPI_Comm_spawn: Hydra's variable, which Faro's mpiexec sets too (a
     * backend may know it otherwise: PMI-2's spawner-jobid). */
    int spawned = 0;
    if (faro_pmi_env_int("PMI_SPAWNED", &spawned, err, errlen) < 0)
        return -1;
    info->spawned = be && (spawned || info->spawned);
    pmi.be = be;
    pmi.info = *info;
    pmi.inited = 1;
    return 0;
}

static int pmi_check_kv(const char *key, const char *val)
{
    if (!pmi.inited) {
        faro_error("PMI: used before faro_pmi_init");
        return -1;
    }
    if (!key || !*key || (int)strlen(key) > pmi.info.key_max || strpbrk(key, " =;\n\t%")) {
        faro_error("PMI: key '%.64s' is invalid: it must be 1..%d bytes without spaces, '=', "
                   "';' or '%%'", key ? key : "(null)", pmi.info.key_max);
        return -1;
    }
    if (val && (int)strlen(val) > pmi.info.val_max) {
        faro_error("PMI: value of key '%s' is %zu bytes, the process manager allows %d",
                   key, strlen(val), pmi.info.val_max);
        return -1;
    }
    return 0;
}

static struct pmi_kv *pmi_local_find(const char *key)
{
    for (size_t i = 0; i < pmi.nkv; i++)
        if (strcmp(pmi.kv[i].key, key) == 0)
            return &pmi.kv[i];
    return NULL;
}

static int pmi_local_put(const char *key, const char *val)
{
    struct pmi_kv *kv = pmi_local_find(key);
    char *v = strdup(val);
    if (!v)
        return -1;
    if (kv) {
        free(kv->val);
        kv->val = v;
        return 0;
    }
    if (pmi.nkv == pmi.capkv) {
        size_t cap = pmi.capkv ? 2 * pmi.capkv : 16;
        struct pmi_kv *n = realloc(pmi.kv, cap * sizeof *n);
        if (!n) {
            free(v);
            return -1;
        }
        pmi.kv = n;
        pmi.capkv = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return -1;
    }
    pmi.kv[pmi.nkv++] = (struct pmi_kv){ k, v };
    return 0;
}

int faro_pmi_put(const char *key, const char *val)
{
    if (pmi_check_kv(key, val ? val : "") < 0 || !val)
        return -1;
    if (!pmi.be)
        return pmi_local_put(key, val);
    char err[512];
    if (pmi.be->put(key, val, err, sizeof err) < 0) {
        faro_error("%s", err);
        return -1;
    }
    return 0;
}

int faro_pmi_barrier_while(void (*wait)(void *arg), void *arg)
{
    if (!pmi.inited) {
        faro_error("PMI: used before faro_pmi_init");
        return -1;
    }
    char err[512];
    if (pmi.be && pmi.be->fence(wait, arg, err, sizeof err) < 0) {
        faro_error("%s", err);
        return -1;
    }
    return 0;
}

int faro_pmi_barrier(void)
{
    return faro_pmi_barrier_while(NULL, NULL);
}

int faro_pmi_get_from(int rank, const char *key, char *val, size_t vallen)
{
    if (pmi_check_kv(key, NULL) < 0)
        return -1;
    char err[512];
    int rc;
    if (!pmi.be) {
        struct pmi_kv *kv = pmi_local_find(key);
        rc = kv ? faro_pmi_copy_value(key, kv->val, val, vallen, err, sizeof err) : 1;
    } else {
        rc = pmi.be->get(rank, key, val, vallen, err, sizeof err);
    }
    if (rc < 0)
        faro_error("%s", err);
    return rc ? -1 : 0; /* a missing key is an answer, not an error: callers probe */
}

int faro_pmi_get(const char *key, char *val, size_t vallen)
{
    return faro_pmi_get_from(FARO_PMI_ANY_RANK, key, val, vallen);
}

int faro_pmi_node_map(int *node)
{
    if (!pmi.inited)
        return -1;
    if (!pmi.be) {
        node[0] = 0;
        return 0;
    }
    return pmi.be->node_map ? pmi.be->node_map(node, pmi.info.size) : -1;
}

/* error: the library's own (key error=1); lost >= 0: the rank it lost. */
static int pmi_abort(int code, const char *msg, int error, int lost)
{
    if (pmi.inited && pmi.be)
        pmi.be->abort(code, msg, error, lost);
    return -1;
}

int faro_pmi_abort(int code, const char *msg)
{
    return pmi_abort(code, msg, 0, -1);
}

int faro_pmi_abort_error(int code, const char *msg, int lost)
{
    return pmi_abort(code, msg, 1, lost);
}

int faro_pmi_finalize(void)
{
    if (!pmi.inited)
        return 0;
    int rc = 0;
    char err[512];
    if (pmi.be && pmi.be->finalize(err, sizeof err) < 0) {
        faro_error("%s", err);
        rc = -1;
    }
    for (size_t i = 0; i < pmi.nkv; i++) {
        free(pmi.kv[i].key);
        free(pmi.kv[i].val);
    }
    free(pmi.kv);
    pmi.kv = NULL;
    pmi.nkv = pmi.capkv = 0;
    pmi.be = NULL;
    pmi.inited = 0;
    return rc;
}

/* ---- the name service ---- */

static int pmi_no_names(char *err, size_t errlen)
{
    if (!pmi.inited || !pmi.be)
        snprintf(err, errlen, "this process runs without a process manager (no mpiexec), so "
                 "no name service is here");
    else
        snprintf(err, errlen, "the process manager's protocol (%s) has no name service here",
                 pmi.be->name);
    return FARO_PMI_NO_SERVICE;
}

/* MPI wants MPI_ERR_SERVICE for a name published twice and for one nobody
 * published; Open MPI's PMIx server takes both without a word, and Slurm's
 * PMI-2 the second. So a publish and an unpublish look the name up first,
 * for every protocol alike (one more request, on a rare call; two processes
 * that publish one name at the same moment may still both succeed). */
int faro_pmi_publish(const char *service, const char *port, char *err, size_t errlen)
{
    if (!pmi.inited || !pmi.be || !pmi.be->publish)
        return pmi_no_names(err, errlen);
    char old[FARO_PMI_VAL_MAX + 1];
    int rc = pmi.be->lookup(service, old, sizeof old, err, errlen);
    if (rc == 0) {
        snprintf(err, errlen, "the name '%s' is published already (port %s)", service, old);
        return -2;
    }
    return rc == -2 ? pmi.be->publish(service, port, err, errlen) : rc;
}

int faro_pmi_lookup(const char *service, char *port, size_t portlen, char *err, size_t errlen)
{
    if (!pmi.inited || !pmi.be || !pmi.be->lookup)
        return pmi_no_names(err, errlen);
    return pmi.be->lookup(service, port, portlen, err, errlen);
}

int faro_pmi_unpublish(const char *service, char *err, size_t errlen)
{
    if (!pmi.inited || !pmi.be || !pmi.be->unpublish)
        return pmi_no_names(err, errlen);
    char port[FARO_PMI_VAL_MAX + 1];
    int rc = pmi.be->lookup(service, port, sizeof port, err, errlen);
    return rc ? rc : pmi.be->unpublish(service, err, errlen);
}

/* ---- the universe and spawn ---- */

int faro_pmi_universe_size(void)
{
    if (!pmi.inited || !pmi.be)
        return 1;
    return pmi.be->universe_size ? pmi.be->universe_size() : 0;
}

/* Who serves this process, for messages: from what each manager leaves in
 * the environment of its processes. */
static const char *pmi_manager(void)
{
    const char *proto = pmi.be->name;
    if (strcmp(proto, "pmi1") && getenv("SLURM_STEP_ID"))
        return strcmp(proto, "pmix") ? "Slurm's srun --mpi=pmi2" : "Slurm's srun --mpi=pmix";
    if (!strcmp(proto, "pmix") && getenv("OMPI_COMM_WORLD_SIZE"))
        return "Open MPI's mpirun";
    return "the process manager";
}

/* Slurm's srun starts a step whose program or directory is missing and
 * never answers the parents, who wait for it for ever; Open MPI's mpirun ends
 * the whole launch. So before asking those (not Faro's mpiexec, which checks
 * itself, on every host), the root checks each command that is to run where
 * it can see: a command without host, hosts or hostfile. 0, or -2 (a refusal,
 * as the manager's) with err. */
static int pmi_spawn_check(int count, const struct faro_pmi_spawn_cmd *cmds, char *err,
                           size_t errlen)
{
    for (int c = 0; c < count; c++) {
        const char *path = NULL, *wdir = NULL, *cmd = cmds[c].command;
        int elsewhere = 0;
        for (char *const *kv = cmds[c].info; kv && kv[0] && kv[1]; kv += 2) {
            path = strcmp(kv[0], "path") ? path : kv[1];
            wdir = strcmp(kv[0], "wdir") ? wdir : kv[1];
            elsewhere |= !strcmp(kv[0], "host") || !strcmp(kv[0], "hosts") ||
                         !strcmp(kv[0], "hostfile");
        }
        char full[4096], why[4400];
        struct stat st;
        if (elsewhere)
            continue;
        const char *bad = !wdir ? NULL : stat(wdir, &st) < 0 ? strerror(errno)
                          : !S_ISDIR(st.st_mode) ? "not a directory" : NULL;
        if (bad)
            return snprintf(err, errlen, "command %d: the working directory (info key wdir) "
                            "%s: %s", c, wdir, bad), -2;
        if (path && !strchr(cmd, '/'))
            snprintf(full, sizeof full, "%s/%s", path, cmd);
        if (faro_program_check(path && !strchr(cmd, '/') ? full : cmd, wdir, why, sizeof why))
            return snprintf(err, errlen, "command %d: %s (checked here before asking %s)", c,
                            why, pmi_manager()), -2;
    }
    return 0;
}

int faro_pmi_spawn(int count, const struct faro_pmi_spawn_cmd *cmds, char *const *preput,
                   char *err, size_t errlen)
{
    if (!pmi.inited || !pmi.be) {
        snprintf(err, errlen, "this process was started without a process manager (no "
                 "mpiexec), so nothing can start processes for it");
        return FARO_PMI_NO_SERVICE;
    }
    int rc = !pmi.be->spawn ? FARO_PMI_NO_SERVICE
             : pmi.be == &faro_pmi1_backend ? 0 : pmi_spawn_check(count, cmds, err, errlen);
    if (!rc)
        rc = pmi.be->spawn(count, cmds, preput, err, errlen);
    if (rc == FARO_PMI_NO_SERVICE) {
        size_t n = pmi.be->spawn ? strlen(err) : 0;
        snprintf(err + n, errlen - n, "%s%s does not start processes over %s: spawn under "
                 "Faro's mpiexec (inside a Slurm allocation too), Hydra, Open MPI's mpirun "
                 "or srun --mpi=pmi2", n ? ": " : "", pmi_manager(), pmi.be->name);
    }
    return rc;
}
