/*
 * PMI-2 backend (pmi_backend.h): the PMI-2 wire protocol of pmi2_wire.h on
 * the socket named by PMI_FD, as srun --mpi=pmi2 (Slurm's mpi/pmi2 plugin)
 * and MPICH's Hydra serve it.
 *
 * The session opens in PMI-1 form (cmd=init pmi_version=2), so a manager
 * that speaks only PMI-1 says so at once; when PMI-2 was only inferred from
 * the environment, pmi.c then goes on with PMI-1 on the same socket.
 *
 * Fence: Slurm answers kvs-fence when every task has fenced; Hydra answers at
 * once and holds back a kvs-get of an unknown key until every process has
 * fenced as often as the asker. So the fence here is kvs-fence and then a
 * get of a key nobody puts: a barrier under both (one extra request, which
 * Slurm's step daemon answers locally).
 */
#include "config.h"

#include "base/pmi_backend.h"
#include "base/pmi2_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* PMI-2 managers allow keys of 64 bytes and values of 1024 (MPICH, Slurm). */
#define P2_KEY_MAX 64
#define P2_VAL_MAX 1024
/* A key no rank puts: its get waits for every rank's fence under Hydra. */
#define P2_FENCE_KEY "faro-pmi2-fence"

static struct {
    int fd;
    int hydra; /* MPICH's Hydra serves this socket (its proxy sets HYDI_CONTROL_FD) */
    char jobid[256];
} p2 = { .fd = -1 };

static int p2_send(const char *buf, int len, char *err, size_t errlen)
{
    if (len < 0) {
        snprintf(err, errlen, "PMI-2 request does not fit in a %d-byte message (key or value "
                 "too long?)", FARO_PMI_LINE_MAX);
        return -1;
    }
    if (faro_pmi_write_all(p2.fd, buf, (size_t)len) < 0) {
        snprintf(err, errlen, "PMI-2: writing to the process manager on fd %d failed: %s",
                 p2.fd, strerror(errno));
        return -1;
    }
    return 0;
}

/* Read the response to the last request, which must be cmd=expect with rc=0
 * (a missing rc counts as 0). Returns 0; -1 when the exchange failed; -2 when
 * the manager answered with a nonzero rc; err says why. */
static int p2_reply(const char *expect, struct faro_pmi_msg *resp, char *err, size_t errlen)
{
    char why[256];
    if (faro_pmi2_read(p2.fd, resp, why, sizeof why) < 0) {
        snprintf(err, errlen, "PMI-2: %s%s", why, strstr(why, "closed") ? " (was the job "
                 "step or mpiexec killed?)" : "");
        return -1;
    }
    if (strcmp(faro_pmi_msg_cmd(resp), expect) != 0) {
        snprintf(err, errlen, "PMI-2: expected cmd=%s from the process manager, got cmd=%s",
                 expect, faro_pmi_msg_cmd(resp));
        return -1;
    }
    int rc = 0;
    if (faro_pmi_msg_get(resp, "rc") && (faro_pmi_msg_int(resp, "rc", &rc) < 0 || rc != 0)) {
        const char *msg = faro_pmi_msg_get(resp, "errmsg");
        snprintf(err, errlen, "PMI-2: %s failed (rc=%s): %s", expect,
                 faro_pmi_msg_get(resp, "rc"), msg ? msg : "no reason given");
        return -2;
    }
    return 0;
}

/* Send one request and read its response (p2_reply), calling wait(arg)
 * until the response is there when wait is not NULL. */
static int p2_call_while(const char *buf, int len, const char *expect, struct faro_pmi_msg *resp,
                         void (*wait)(void *arg), void *arg, char *err, size_t errlen)
{
    if (p2_send(buf, len, err, errlen) < 0)
        return -1;
    faro_pmi_wait_readable(p2.fd, wait, arg);
    return p2_reply(expect, resp, err, errlen);
}

static int p2_call(const char *buf, int len, const char *expect, struct faro_pmi_msg *resp,
                   char *err, size_t errlen)
{
    return p2_call_while(buf, len, expect, resp, NULL, NULL, err, errlen);
}

/* The PMI-1 form opening: "cmd=init pmi_version=2 pmi_subversion=0". */
static int p2_open(char *err, size_t errlen)
{
    char line[FARO_PMI_LINE_MAX], why[256];
    int len = faro_pmi_format(line, sizeof line, "init", "pmi_version", "2", "pmi_subversion",
                              "0", NULL);
    if (p2_send(line, len, err, errlen) < 0)
        return -1;
    /* One line comes back; nothing follows it until we speak again, so a
     * reader of our own here takes no bytes that belong to later messages. */
    struct faro_pmi_reader r;
    struct faro_pmi_msg m;
    char *l;
    size_t n;
    faro_pmi_reader_init(&r, p2.fd);
    enum faro_pmi_read_status st = faro_pmi_reader_next(&r, &l, &n, why, sizeof why);
    if (st != FARO_PMI_READ_LINE) {
        snprintf(err, errlen, "PMI-2: no answer to init: %s", st == FARO_PMI_READ_EOF ?
                 "the process manager closed the connection" : why);
        return -1;
    }
    if (faro_pmi_parse(l, n, &m, why, sizeof why) < 0 ||
        strcmp(faro_pmi_msg_cmd(&m), "response_to_init")) {
        snprintf(err, errlen, "PMI-2: the answer to init is not response_to_init: %.128s", l);
        return -1;
    }
    int rc = 0, version = 0;
    faro_pmi_msg_int(&m, "rc", &rc);
    faro_pmi_msg_int(&m, "pmi_version", &version);
    if (rc != 0 || version != 2) {
        const char *msg = faro_pmi_msg_get(&m, "msg");
        snprintf(err, errlen, "the process manager does not speak PMI-2 (it answered "
                 "pmi_version=%d rc=%d%s%s)", version, rc, msg ? ": " : "", msg ? msg : "");
        return FARO_PMI_FALLBACK;
    }
    return 0;
}

static int p2_init(struct faro_pmi_info *info, char *err, size_t errlen)
{
    int fd = -1, rank = -1;
    int have_fd = faro_pmi_env_fd(&fd, err, errlen);
    if (have_fd <= 0) {
        if (have_fd == 0)
            snprintf(err, errlen, "PMI-2 needs PMI_FD, and it is not set");
        return -1;
    }
    /* MPICH's client names itself by PMI_ID when there is one, else PMI_RANK. */
    const char *id = getenv("PMI_ID") ? "PMI_ID" : "PMI_RANK";
    if (faro_pmi_env_int(id, &rank, err, errlen) <= 0) {
        if (!getenv(id))
            snprintf(err, errlen, "PMI_FD is set but PMI_RANK is not; start the program with "
                     "srun or mpiexec, or unset PMI_FD to run it as a singleton");
        return -1;
    }
    p2.fd = fd;
    p2.hydra = getenv("HYDI_CONTROL_FD") && !getenv("PMI_JOBID"); /* (Slurm's sets PMI_JOBID) */
    int rc = p2_open(err, errlen);
    if (rc < 0)
        return rc;

    char buf[FARO_PMI_LINE_MAX], rankstr[16];
    struct faro_pmi_msg m;
    snprintf(rankstr, sizeof rankstr, "%d", rank);
    /* Slurm wants pmijobid (its PMI_JOBID); Hydra sets none. */
    const char *jobid = getenv("PMI_JOBID");
    int len = jobid ? faro_pmi2_format(buf, sizeof buf, "fullinit", "pmijobid", jobid,
                                       "pmirank", rankstr, "threaded", "FALSE", NULL)
                    : faro_pmi2_format(buf, sizeof buf, "fullinit", "pmirank", rankstr,
                                       "threaded", "FALSE", NULL);
    if (p2_call(buf, len, "fullinit-response", &m, err, errlen) < 0)
        return -1;
    if (faro_pmi_msg_int(&m, "rank", &info->rank) < 0 ||
        faro_pmi_msg_int(&m, "size", &info->size) < 0) {
        snprintf(err, errlen, "PMI-2: fullinit-response lacks rank or size");
        return -1;
    }
    /* Slurm says appnum=-1 (it does not count applications): one, the 0th. */
    if (faro_pmi_msg_int(&m, "appnum", &info->appnum) < 0 || info->appnum < 0)
        info->appnum = 0;
    /* A job started by a spawn command knows its spawner's job (Slurm sets
     * no PMI_SPAWNED). */
    const char *spawner = faro_pmi_msg_get(&m, "spawner-jobid");
    info->spawned = spawner && *spawner;
    if (info->size < 1 || info->rank < 0 || info->rank >= info->size) {
        snprintf(err, errlen, "PMI-2: rank %d and size %d are inconsistent (need "
                 "0 <= rank < size)", info->rank, info->size);
        return -1;
    }

    if (p2_call(buf, faro_pmi2_format(buf, sizeof buf, "job-getid", NULL), "job-getid-response",
                &m, err, errlen) < 0)
        return -1;
    const char *job = faro_pmi_msg_get(&m, "jobid");
    if (!job || !*job || strlen(job) >= sizeof info->kvsname) {
        snprintf(err, errlen, "PMI-2: job-getid-response has a missing or too long jobid");
        return -1;
    }
    strcpy(info->kvsname, job);
    strcpy(p2.jobid, job);
    info->key_max = P2_KEY_MAX;
    info->val_max = P2_VAL_MAX;
    return 0;
}

static int p2_put(const char *key, const char *val, char *err, size_t errlen)
{
    char buf[FARO_PMI_LINE_MAX];
    struct faro_pmi_msg m;
    return p2_call(buf, faro_pmi2_format(buf, sizeof buf, "kvs-put", "key", key, "value", val,
                                         NULL),
                   "kvs-put-response", &m, err, errlen) < 0 ? -1 : 0;
}

/* A get of key: 0 found (value in *v, pointing into m), 1 not found, -1 failed. */
static int p2_kvs_get(const char *cmd, const char *key, struct faro_pmi_msg *m, const char **v,
                      char *err, size_t errlen)
{
    char buf[FARO_PMI_LINE_MAX], reply[64];
    int len = strcmp(cmd, "kvs-get") == 0
                  ? faro_pmi2_format(buf, sizeof buf, cmd, "jobid", p2.jobid, "key", key, NULL)
                  : faro_pmi2_format(buf, sizeof buf, cmd, "key", key, NULL);
    snprintf(reply, sizeof reply, "%s-response", cmd);
    int rc = p2_call(buf, len, reply, m, err, errlen);
    if (rc == -1)
        return -1;
    const char *found = faro_pmi_msg_get(m, "found");
    *v = faro_pmi_msg_get(m, "value");
    return rc == 0 && found && strcmp(found, "TRUE") == 0 && *v ? 0 : 1;
}

static int p2_fence(void (*wait)(void *arg), void *arg, char *err, size_t errlen)
{
    char buf[FARO_PMI_LINE_MAX];
    struct faro_pmi_msg m;
    if (p2_call_while(buf, faro_pmi2_format(buf, sizeof buf, "kvs-fence", NULL),
                      "kvs-fence-response", &m, wait, arg, err, errlen) < 0)
        return -1;
    int len = faro_pmi2_format(buf, sizeof buf, "kvs-get", "jobid", p2.jobid, "key",
                               P2_FENCE_KEY, NULL);
    return p2_call_while(buf, len, "kvs-get-response", &m, wait, arg, err, errlen) == -1 ? -1
                                                                                          : 0;
}

/* The job's one key space: the owner does not matter (srcid is only a hint
 * in PMI-2, and Slurm ignores it). */
static int p2_get(int owner, const char *key, char *val, size_t vallen, char *err,
                  size_t errlen)
{
    struct faro_pmi_msg m;
    const char *v;
    int rc = p2_kvs_get("kvs-get", key, &m, &v, err, errlen);
    return rc ? rc : faro_pmi_copy_value(key, v, val, vallen, err, errlen);
}

/* Slurm and Hydra serve PMI_process_mapping as a job attribute. */
static int p2_node_map(int *node, int size)
{
    struct faro_pmi_msg m;
    const char *v;
    char err[256];
    if (p2_kvs_get("info-getjobattr", "PMI_process_mapping", &m, &v, err, sizeof err))
        return -1;
    return faro_pmi_mapping_parse(v, size, node);
}

static void p2_abort(int code, const char *msg, int error, int lost)
{
    char buf[FARO_PMI_LINE_MAX], codestr[16], text[FARO_PMI_VAL_MAX + 1];
    snprintf(codestr, sizeof codestr, "%d", code);
    snprintf(text, sizeof text, "%s", msg && *msg ? msg : "MPI_Abort");
    /* Slurm's reader ends a value at any ';' (it takes no ";;"), and then
     * drops the whole request: it would not end the step. */
    for (char *p = text; (p = strchr(p, ';')) != NULL;)
        *p = ',';
    /* isworld and msg as MPICH's client sends them (Slurm reads isworld), and
     * the exitcode of the PMI-2 message set. */
    int len = faro_pmi2_format(buf, sizeof buf, "abort", "isworld", "TRUE", "exitcode", codestr,
                               "msg", text, NULL);
    if (len < 0 || faro_pmi_write_all(p2.fd, buf, (size_t)len) < 0)
        return;
    /* No answer comes: the manager ends the job; wait a bounded time for it. */
    struct pollfd p = { .fd = p2.fd, .events = POLLIN };
    char junk[256];
    if (poll(&p, 1, FARO_PMI_ABORT_WAIT_MS) > 0)
        (void)!read(p2.fd, junk, sizeof junk);
}

static int p2_finalize(char *err, size_t errlen)
{
    char buf[FARO_PMI_LINE_MAX];
    struct faro_pmi_msg m;
    int rc = p2_call(buf, faro_pmi2_format(buf, sizeof buf, "finalize", NULL),
                     "finalize-response", &m, err, errlen) < 0 ? -1 : 0;
    close(p2.fd);
    p2.fd = -1;
    return rc;
}

/* ---- the name service ---- */

static int p2_names(const char *buf, int len, const char *expect, char *port, size_t portlen,
                    char *err, size_t errlen)
{
    struct faro_pmi_msg m;
    int rc = p2_call(buf, len, expect, &m, err, errlen);
    if (rc < 0)
        return rc;
    if (!port)
        return 0;
    /* MPICH's servers answer port=, Slurm's value=. */
    const char *v = faro_pmi_msg_get(&m, "port");
    if (!v)
        v = faro_pmi_msg_get(&m, "value");
    if (!v || strlen(v) >= portlen) {
        snprintf(err, errlen, "PMI-2: %s has %s port", expect, v ? "an overlong" : "no");
        return -1;
    }
    strcpy(port, v);
    return 0;
}

static int p2_publish(const char *service, const char *port, char *err, size_t errlen)
{
    char buf[FARO_PMI_LINE_MAX];
    return p2_names(buf, faro_pmi2_format(buf, sizeof buf, "name-publish", "name", service,
                                          "port", port, "infokeycount", "0", NULL),
                    "name-publish-response", NULL, 0, err, errlen);
}

static int p2_lookup(const char *service, char *port, size_t portlen, char *err, size_t errlen)
{
    char buf[FARO_PMI_LINE_MAX];
    return p2_names(buf, faro_pmi2_format(buf, sizeof buf, "name-lookup", "name", service,
                                          "infokeycount", "0", NULL),
                    "name-lookup-response", port, portlen, err, errlen);
}

static int p2_unpublish(const char *service, char *err, size_t errlen)
{
    char buf[FARO_PMI_LINE_MAX];
    return p2_names(buf, faro_pmi2_format(buf, sizeof buf, "name-unpublish", "name", service,
                                          "infokeycount", "0", NULL),
                    "name-unpublish-response", NULL, 0, err, errlen);
}

/* ---- spawn ---- */

/* A growing list of key, value, ... NULL, every string its own. */
struct p2_pairs {
    char **kv;
    size_t n, cap;
    int bad;
};

static void p2_pair(struct p2_pairs *l, const char *key, long idx, const char *val)
{
    char k[32];
    if (idx >= 0)
        snprintf(k, sizeof k, "%s%ld", key, idx);
    if (!l->bad && l->n + 3 > l->cap) {
        char **kv = realloc(l->kv, (2 * l->cap + 32) * sizeof *kv);
        l->bad = !kv;
        l->kv = kv ? kv : l->kv;
        l->cap = kv ? 2 * l->cap + 32 : l->cap;
    }
    if (l->bad)
        return;
    l->kv[l->n] = strdup(idx >= 0 ? k : key);
    l->kv[l->n + 1] = strdup(val);
    l->kv[l->n + 2] = NULL;
    l->bad = !l->kv[l->n] || !l->kv[l->n + 1];
    l->n += 2;
}

static void p2_pair_int(struct p2_pairs *l, const char *key, long v)
{
    char num[24];
    snprintf(num, sizeof num, "%ld", v);
    p2_pair(l, key, -1, num);
}

/* key0, value0, ... from pairs (key, value, ... NULL) after their count. */
static void p2_pair_list(struct p2_pairs *l, const char *count, const char *key,
                         const char *val, char *const *pairs)
{
    long n = 0;
    while (pairs && pairs[2 * n] && pairs[2 * n + 1])
        n++;
    p2_pair_int(l, count, n);
    for (long i = 0; i < n; i++) {
        p2_pair(l, key, i, pairs[2 * i]);
        p2_pair(l, val, i, pairs[2 * i + 1]);
    }
}

/* The PMI-2 spawn command, in the order Slurm's mpi/pmi2 plugin reads it:
 * ncmds, the preput pairs, then per command subcmd, maxprocs, argc, argvN,
 * infokeycount and the info pairs. Slurm starts the commands as a new step
 * of the job (an srun of its own) with the preput pairs in its key-value
 * space, and answers once that step is launched. */
static int p2_spawn(int count, const struct faro_pmi_spawn_cmd *cmds, char *const *preput,
                    char *err, size_t errlen)
{
    /* Hydra's PMI-2 server counts the fences of all its jobs in one counter
     * and retries held gets only at multiples of the fencing job's size:
     * parents and children of other sizes can wait for ever (docs/notes.md,
     * Dynamic processes). Its PMI-1 spawns well. */
    if (p2.hydra)
        return snprintf(err, errlen, "MPICH's Hydra serves PMI-2 here, and its PMI-2 server "
                        "can hang the jobs of a spawn (its fences count every job's together); "
                        "spawn over PMI-1, Hydra's default (unset FARO_PMI)"), -2;
    /* Slurm (which sets PMI_JOBID) starts several commands with srun
     * --multi-prog and drops their info: refuse what would go wrong. */
    for (int c = 0; count > 1 && getenv("PMI_JOBID") && c < count; c++)
        for (char *const *kv = cmds[c].info; kv && kv[0] && kv[1]; kv += 2)
            if (!strcmp(kv[0], "path") || !strcmp(kv[0], "wdir") || !strcmp(kv[0], "host") ||
                !strcmp(kv[0], "hosts") || !strcmp(kv[0], "hostfile"))
                return snprintf(err, errlen, "command %d has the info key %s, but Slurm's "
                                "srun --mpi=pmi2 ignores the info of MPI_Comm_spawn_multiple "
                                "(one command alone keeps its path, wdir and host)", c, kv[0]),
                       -2;
    struct p2_pairs l = {0};
    p2_pair_int(&l, "ncmds", count);
    p2_pair_list(&l, "preputcount", "ppkey", "ppval", preput);
    for (int c = 0; c < count; c++) {
        long argc = 0;
        while (cmds[c].argv && cmds[c].argv[argc])
            argc++;
        p2_pair(&l, "subcmd", -1, cmds[c].command);
        p2_pair_int(&l, "maxprocs", cmds[c].maxprocs);
        p2_pair_int(&l, "argc", argc);
        for (long i = 0; i < argc; i++)
            p2_pair(&l, "argv", i, cmds[c].argv[i]);
        p2_pair_list(&l, "infokeycount", "infokey", "infoval", cmds[c].info);
    }
    char *buf = NULL;
    int len = -1, rc = -1;
    size_t semi = 1;
    while (!l.bad && semi < l.n && !strchr(l.kv[semi], ';'))
        semi += 2;
    if (l.bad)
        snprintf(err, errlen, "out of memory for the PMI-2 spawn command");
    else if (semi < l.n) /* Slurm's reader takes no ";;" */
        snprintf(err, errlen, "the value '%.60s' of %s holds a ';', which PMI-2's spawn "
                 "command cannot carry (Slurm ends a value at any ';')", l.kv[semi],
                 l.kv[semi - 1]);
    else if ((len = faro_pmi2_format_array(&buf, "spawn", l.kv)) < 0)
        snprintf(err, errlen, "the PMI-2 spawn command cannot carry it (a value longer than "
                 "%d bytes?)", FARO_PMI_VAL_MAX);
    struct faro_pmi_msg m;
    if (len >= 0) {
        rc = p2_call(buf, len, "spawn-response", &m, err, errlen);
        if (rc == -2) /* the manager's reason, without the protocol around it */
            snprintf(err, errlen, "%s (rc=%s)", faro_pmi_msg_get(&m, "errmsg") ?
                     faro_pmi_msg_get(&m, "errmsg") : "it gave no reason",
                     faro_pmi_msg_get(&m, "rc"));
    }
    for (size_t i = 0; i < l.n; i++)
        free(l.kv[i]);
    free(l.kv);
    free(buf);
    return rc;
}

const struct faro_pmi_backend faro_pmi2_backend = {
    .name = "pmi2", .init = p2_init, .put = p2_put, .fence = p2_fence, .get = p2_get,
    .node_map = p2_node_map, .abort = p2_abort, .finalize = p2_finalize,
    .publish = p2_publish, .lookup = p2_lookup, .unpublish = p2_unpublish,
    .spawn = p2_spawn,
};
