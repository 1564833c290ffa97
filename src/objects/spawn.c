/*
 * Dynamic processes: MPI_Comm_spawn, MPI_Comm_spawn_multiple,
 * MPI_Comm_get_parent (MPI 3.1 section 10.3; faro-dynamic(7)).
 *
 * The parents (the group of comm): the root checks the commands, opens a
 * port (port.c) and asks the process manager to start the commands as one
 * new job (base/pmi.c: PMI-1's spawn command, as MPICH's simple PMI sends
 * it; Faro's mpiexec serves it, and so does Hydra), with the port's name in
 * the new job's key-value space as PARENT_ROOT_PORT_NAME, MPICH's key. It
 * broadcasts the outcome; then every parent accepts on the port (dynconn.c)
 * and the root closes it. The children: MPI_Init of a process started so
 * (PMI_SPAWNED=1) reads the key and connects to the port over its
 * MPI_COMM_WORLD (faro_spawn_connect); that intercommunicator is
 * MPI_Comm_get_parent's until the program frees or disconnects it.
 *
 * Info keys go to the process manager, which reads host, hosts, hostfile,
 * wdir and path and ignores the others (as the standard asks), except soft,
 * read here: the largest count it allows up to maxprocs is started, and the
 * errcodes of the others say MPI_ERR_SPAWN. Faro can always start maxprocs
 * processes (hosts take more ranks than slots), so soft only ever lowers
 * the count to one it names.
 *
 * errcodes: one per process asked for (the sum of maxprocs), at every
 * member that passes an array, as MPICH does (the root's verdict is
 * broadcast): MPI_SUCCESS for the processes started, MPI_ERR_SPAWN for the
 * others. A spawn fails as a whole (nothing is started) or not at all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objects/port.h"
#include "base/pmi.h"

#define PARENT_KEY "PARENT_ROOT_PORT_NAME"

static MPI_Comm parent = MPI_COMM_NULL;

/* What the root tells the other parents. */
struct outcome {
    int32_t status;  /* MPI_SUCCESS, or the class of the root's error */
    int32_t total;   /* processes asked for: the errcodes */
    int32_t cut;     /* soft left some out: which ones follows */
    char msg[600];   /* the root's message */
};

/* ---- soft ---- */

/* The largest count of the triplet list spec ("1:8:2,12", MPI 3.1 section
 * 10.3.4) from 0 to maxprocs: *n, or -1 (none). 0, or -1 when malformed. */
static int soft_count(const char *spec, int maxprocs, int *n)
{
    *n = -1;
    for (const char *p = spec; *p;) {
        long v[3] = {0, 0, 1};
        int k = 0;
        char *end;
        for (;;) {
            v[k] = strtol(p, &end, 10);
            if (end == p || k > 2)
                return -1;
            p = end;
            k++;
            if (*p != ':')
                break;
            p++;
        }
        if (*p && *p != ',')
            return -1;
        if (*p)
            p++;
        long a = v[0], b = k > 1 ? v[1] : a, c = k > 2 ? v[2] : (b >= a ? 1 : -1), best = -1;
        if (c == 0 || (c > 0 && b < a) || (c < 0 && b > a))
            return k > 1 ? -1 : 0;
        if (c > 0) { /* a, a+c, ... up to b */
            long lim = b < maxprocs ? b : maxprocs;
            if (a <= lim)
                best = a + (lim - a) / c * c;
        } else { /* a, a+c, ... down to b: the first not above maxprocs */
            long first = a <= maxprocs ? a : a + (a - maxprocs - c - 1) / -c * c;
            if (first >= b)
                best = first;
        }
        if (best >= 0 && best > *n)
            *n = (int)best;
    }
    return 0;
}

/* ---- the root's part ---- */

struct request {
    int count;
    struct faro_pmi_spawn_cmd *cmds;
    char ***info;    /* per command: key, value, ... NULL (soft left out) */
    int *started;    /* per command: how many soft allows */
};

static void request_free(struct request *q)
{
    for (int c = 0; q->info && c < q->count; c++) {
        for (char **kv = q->info[c]; kv && *kv; kv++)
            free(*kv);
        free(q->info[c]);
    }
    free(q->info);
    free(q->cmds);
    free(q->started);
}

/* Command c's info keys (all but soft, which sets started[c]). An error
 * class with msg, or 0. */
static int request_info(struct request *q, int c, MPI_Info info, int maxprocs, char *msg,
                        size_t len)
{
    int nkeys = 0, flag, vlen;
    q->started[c] = maxprocs;
    if (info == MPI_INFO_NULL)
        return 0;
    if (PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        return snprintf(msg, len, "the info of command %d is not a valid info object", c),
               MPI_ERR_INFO;
    char **kv = calloc(2 * (size_t)nkeys + 1, sizeof *kv), key[MPI_MAX_INFO_KEY + 1];
    if (!(q->info[c] = kv))
        return snprintf(msg, len, "out of memory"), MPI_ERR_NO_MEM;
    for (int i = 0, k = 0; i < nkeys; i++) {
        char *val = NULL;
        if (PMPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS ||
            PMPI_Info_get_valuelen(info, key, &vlen, &flag) != MPI_SUCCESS || !flag ||
            !(val = malloc((size_t)vlen + 1)) ||
            PMPI_Info_get(info, key, vlen, val, &flag) != MPI_SUCCESS) {
            free(val);
            return snprintf(msg, len, "cannot read the info of command %d", c), MPI_ERR_INFO;
        }
        if (!strcmp(key, "soft")) {
            int n;
            if (soft_count(val, maxprocs, &n)) {
                snprintf(msg, len, "command %d: the info key soft='%.200s' is not a list of "
                         "counts and triplets a:b:c separated by commas", c, val);
                free(val);
                return MPI_ERR_INFO;
            }
            free(val);
            if (n < 1)
                return snprintf(msg, len, "command %d: the info key soft allows no count from "
                                "1 to maxprocs=%d", c, maxprocs), MPI_ERR_SPAWN;
            q->started[c] = n;
            continue;
        }
        if (!(kv[k] = strdup(key))) {
            free(val);
            return snprintf(msg, len, "out of memory"), MPI_ERR_NO_MEM;
        }
        kv[k + 1] = val;
        k += 2;
    }
    return 0;
}

/* Check the commands, open the port, ask the process manager. 0 and the
 * port's name, or an error class with msg. */
static int root_spawn(int count, char *cmds[], char **argvs[], const int maxprocs[],
                      const MPI_Info infos[], struct request *q, struct outcome *o,
                      char *port)
{
    char *msg = o->msg, err[512];
    size_t len = sizeof o->msg;
    if (count < 1)
        return snprintf(msg, len, "count %d is invalid (1 or more commands)", count),
               MPI_ERR_ARG;
    if (!cmds || !maxprocs || !infos)
        return snprintf(msg, len, "array_of_%s is NULL at the root",
                        !cmds ? "commands" : !maxprocs ? "maxprocs" : "info"), MPI_ERR_ARG;
    q->count = count;
    q->cmds = calloc((size_t)count, sizeof *q->cmds);
    q->info = calloc((size_t)count, sizeof *q->info);
    q->started = calloc((size_t)count, sizeof *q->started);
    if (!q->cmds || !q->info || !q->started)
        return snprintf(msg, len, "out of memory"), MPI_ERR_NO_MEM;
    long total = 0;
    for (int c = 0; c < count; c++) { /* first the counts: the errcodes they make */
        if (maxprocs[c] < 1)
            return snprintf(msg, len, "maxprocs %d of command %d ('%.100s') is invalid (1 or "
                            "more)", maxprocs[c], c, cmds[c] ? cmds[c] : "NULL"), MPI_ERR_ARG;
        total += maxprocs[c];
        if (total > INT32_MAX / 2)
            return snprintf(msg, len, "the sum of maxprocs is too large"), MPI_ERR_ARG;
    }
    o->total = (int32_t)total;
    for (int c = 0; c < count; c++) {
        if (!cmds[c] || !*cmds[c])
            return snprintf(msg, len, "command %d is %s", c, cmds[c] ? "empty" : "NULL"),
                   MPI_ERR_ARG;
        for (int i = 0; argvs && argvs[c] && argvs[c][i]; i++)
            if (strchr(argvs[c][i], '\n'))
                return snprintf(msg, len, "argument %d of command %d holds a newline, which "
                                "the process manager cannot pass on", i, c), MPI_ERR_ARG;
        int cls = request_info(q, c, infos[c], maxprocs[c], msg, len);
        if (cls)
            return cls;
        q->cmds[c] = (struct faro_pmi_spawn_cmd){.command = cmds[c],
                                                 .argv = argvs ? argvs[c] : NULL,
                                                 .maxprocs = q->started[c],
                                                 .info = q->info[c]};
        o->cut |= q->started[c] < maxprocs[c];
    }
    int cls = faro_port_open("MPI_Comm_spawn", port, err, sizeof err);
    if (cls)
        return snprintf(msg, len, "the children could not connect back: %s", err), cls;
    char *preput[] = {PARENT_KEY, port, NULL};
    int rc = faro_pmi_spawn(count, q->cmds, preput, err, sizeof err);
    if (rc) {
        faro_port_close(port);
        return snprintf(msg, len, "%s%s", rc == FARO_PMI_NO_SERVICE ? "" :
                        "the process manager could not start the processes: ", err),
               MPI_ERR_SPAWN;
    }
    return MPI_SUCCESS;
}

/* ---- both ---- */

static void fill_errcodes(int *errcodes, int total, const int *started, int status)
{
    for (int i = 0; errcodes != MPI_ERRCODES_IGNORE && i < total; i++)
        errcodes[i] = status ? MPI_ERR_SPAWN : started && !started[i] ? MPI_ERR_SPAWN
                                                                     : MPI_SUCCESS;
}

static int spawn(const char *fn, int count, char *cmds[], char **argvs[], const int maxprocs[],
                 const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm *intercomm,
                 int errcodes[])
{
    FARO_LOCKED;
    int rc = faro_dyn_check_args(fn, root, comm, intercomm, "intercomm");
    if (rc)
        return rc;
    *intercomm = MPI_COMM_NULL;
    int is_root = comm->rank == root, code = MPI_SUCCESS;
    struct outcome o = {0};
    struct request q = {0};
    char port[MPI_MAX_PORT_NAME] = "";
    if (is_root) {
        o.status = root_spawn(count, cmds, argvs, maxprocs, infos, &q, &o, port);
        if (o.status)
            code = faro_err(comm, o.status, "%s: %s", fn, o.msg);
    }
    /* Every member learns the verdict, and which processes soft left out. */
    int *started = NULL;
    rc = PMPI_Bcast(&o, sizeof o, MPI_BYTE, root, comm);
    if (!rc && !o.status && o.cut) {
        if (!(started = malloc((size_t)o.total * sizeof *started)))
            faro_fatal(MPI_ERR_NO_MEM, "%s: out of memory for %d errcodes", fn, o.total);
        for (int c = 0, i = 0; is_root && c < count; c++)
            for (int k = 0; k < maxprocs[c]; k++)
                started[i++] = k < q.started[c];
        rc = PMPI_Bcast(started, o.total, MPI_INT, root, comm);
    }
    request_free(&q);
    if (rc || o.status) {
        fill_errcodes(errcodes, o.total, NULL, 1);
        free(started);
        if (rc)
            return rc;
        return is_root ? code : faro_err(comm, o.status, "%s: %s (at the root, rank %d)", fn,
                                         o.msg, root);
    }
    rc = faro_dyn_handshake(fn, 1, port, root, comm, intercomm);
    if (is_root)
        faro_port_close(port);
    fill_errcodes(errcodes, o.total, started, rc);
    free(started);
    return rc;
}

#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmds[1] = {(char *)command};
    char **argvs[1] = {argv};
    return spawn("MPI_Comm_spawn", 1, cmds, argvs, &maxprocs, &info, root, comm, intercomm,
                 array_of_errcodes);
}

#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    return spawn("MPI_Comm_spawn_multiple", count, array_of_commands, array_of_argv,
                 array_of_maxprocs, array_of_info, root, comm, intercomm, array_of_errcodes);
}

#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
int PMPI_Comm_get_parent(MPI_Comm *p)
{
    if (!p)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Comm_get_parent: parent pointer is "
                        "NULL");
    *p = parent;
    return MPI_SUCCESS;
}

/* ---- the children ---- */

int faro_spawn_connect(char *err, size_t errlen)
{
    char port[MPI_MAX_PORT_NAME];
    if (faro_pmi_get(PARENT_KEY, port, sizeof port))
        return snprintf(err, errlen, "this process was started by MPI_Comm_spawn "
                        "(PMI_SPAWNED=1), but the process manager has no %s to reach its "
                        "parents by", PARENT_KEY), -1;
    /* Its errors are raised on MPI_COMM_WORLD: fatal unless the program could
     * have said otherwise, which it could not yet. */
    if (faro_dyn_handshake("MPI_Init", 0, port, 0, MPI_COMM_WORLD, &parent))
        return snprintf(err, errlen, "cannot connect to the parents that spawned this "
                        "job"), -1;
    snprintf(parent->name, sizeof parent->name, "MPI_COMM_PARENT"); /* MPICH's name for it */
    return 0;
}

void faro_spawn_forget(MPI_Comm c)
{
    if (c == parent)
        parent = MPI_COMM_NULL;
}
