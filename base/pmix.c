/*
 * PMIx backend (pmi_backend.h): the client library of OpenPMIx (Debian's
 * libpmix-dev), as srun --mpi=pmix and Open MPI's mpirun serve it. Built
 * only when configure found libpmix (FARO_HAVE_PMIX).
 *
 * PMIx files every value under the process that put it, so a get names the
 * owner (pmi.h's faro_pmi_get_from). Puts are global and committed at the
 * fence, which collects every rank's data (PMIX_COLLECT_DATA), so the gets
 * after it are answered from the local copy (PMIX_OPTIONAL): a key nobody
 * put is "not found" at once instead of a wait on the server.
 *
 * The node map comes from PMIx's own job data: each rank's PMIX_NODEID, else
 * its PMIX_HOSTNAME; either is checked against this node's PMIX_LOCAL_PEERS
 * before it is believed.
 *
 * Spawn is PMIx_Spawn. PMIx has no key-value space that a new job starts
 * with, so the pairs the spawning root would preput (the parents' port) go
 * in the children's environment instead, as PMI_PREPUT_<key>, with
 * PMI_SPAWNED=1 (Open MPI passes its OMPI_PARENT_PORT the same way); a get
 * of a job key reads them first.
 */
#include "config.h"

#include "base/pmi_backend.h"
#include "base/pmi_wire.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    pmix_proc_t me;
    int size;
} px;

static int px_fail(pmix_status_t rc, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "PMIx: %s failed: %s", what, PMIx_Error_string(rc));
    return -1;
}

/* rank's value of key from the local copy only; NULL when there is none. */
static pmix_value_t *px_get(uint32_t rank, const char *key)
{
    pmix_proc_t proc;
    pmix_info_t opt;
    pmix_value_t *v = NULL;
    bool yes = true;
    PMIX_LOAD_PROCID(&proc, px.me.nspace, rank);
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&proc, key, &opt, 1, &v);
    PMIX_INFO_DESTRUCT(&opt);
    return rc == PMIX_SUCCESS ? v : NULL;
}

/* An unsigned number PMIx returned, whatever integer type it chose. */
static int px_get_uint(uint32_t rank, const char *key, unsigned long *out)
{
    pmix_value_t *v = px_get(rank, key);
    int rc = 0;
    if (!v)
        return -1;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_UINT64: *out = (unsigned long)v->data.uint64; break;
    case PMIX_UINT: *out = v->data.uint; break;
    case PMIX_INT: rc = v->data.integer < 0 ? -1 : (*out = (unsigned long)v->data.integer, 0);
        break;
    default: rc = -1;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

static int px_init(struct faro_pmi_info *info, char *err, size_t errlen)
{
    pmix_status_t rc = PMIx_Init(&px.me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        const char *ns = getenv("PMIX_NAMESPACE");
        snprintf(err, errlen, "PMIx_Init failed: %s (%s%s%s)", PMIx_Error_string(rc),
                 ns ? "PMIX_NAMESPACE=" : "no PMIx process manager started this process: "
                 "PMIX_NAMESPACE is unset", ns ? ns : "",
                 ns ? "; is the process manager that set it still there?" : "");
        return -1;
    }
    unsigned long size, appnum;
    if (px_get_uint(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &size) < 0 || size < 1 ||
        size > 0x7fffffff) {
        snprintf(err, errlen, "PMIx: the process manager gives no job size (%s)",
                 PMIX_JOB_SIZE);
        PMIx_Finalize(NULL, 0);
        return -1;
    }
    info->rank = (int)px.me.rank;
    info->size = px.size = (int)size;
    info->appnum = px_get_uint(px.me.rank, PMIX_APPNUM, &appnum) == 0 ? (int)appnum : 0;
    snprintf(info->kvsname, sizeof info->kvsname, "%s", px.me.nspace);
    info->key_max = PMIX_MAX_KEYLEN;
    info->val_max = FARO_PMI_VAL_MAX;
    return 0;
}

static int px_put(const char *key, const char *val, char *err, size_t errlen)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    return rc == PMIX_SUCCESS ? 0 : px_fail(rc, "PMIx_Put", err, errlen);
}

struct px_fence_wait {
    int done; /* set last, by PMIx's thread */
    pmix_status_t status;
};

static void px_fence_done(pmix_status_t status, void *cbdata)
{
    struct px_fence_wait *w = cbdata;
    w->status = status;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

static int px_fence(void (*wait)(void *arg), void *arg, char *err, size_t errlen)
{
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return px_fail(rc, "PMIx_Commit", err, errlen);
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (!wait) {
        rc = PMIx_Fence(NULL, 0, &collect, 1);
    } else {
        /* The fence completes in PMIx's own thread; meanwhile, the caller's work. */
        struct px_fence_wait w = { 0, PMIX_SUCCESS };
        rc = PMIx_Fence_nb(NULL, 0, &collect, 1, px_fence_done, &w);
        while (rc == PMIX_SUCCESS && !__atomic_load_n(&w.done, __ATOMIC_ACQUIRE))
            wait(arg);
        if (rc == PMIX_SUCCESS)
            rc = w.status;
    }
    PMIX_INFO_DESTRUCT(&collect);
    return rc == PMIX_SUCCESS ? 0 : px_fail(rc, "PMIx_Fence", err, errlen);
}

#define PX_PREPUT_ENV "PMI_PREPUT_" /* not FARO_: those are tunables */

static int px_get_value(int owner, const char *key, char *val, size_t vallen, char *err,
                        size_t errlen)
{
    char name[sizeof PX_PREPUT_ENV + FARO_PMI_KEY_MAX];
    snprintf(name, sizeof name, PX_PREPUT_ENV "%s", key);
    if (owner == FARO_PMI_ANY_RANK && getenv(name)) /* put there by the spawning root */
        return faro_pmi_copy_value(key, getenv(name), val, vallen, err, errlen);
    /* The manager's own keys are the job's: PMIx files them under the wildcard rank. */
    pmix_value_t *v = px_get(owner == FARO_PMI_ANY_RANK ? PMIX_RANK_WILDCARD : (uint32_t)owner,
                             key);
    if (!v)
        return 1;
    int rc;
    if (v->type != PMIX_STRING || !v->data.string) {
        snprintf(err, errlen, "PMIx: the value of key '%s' of rank %d is not a string (type "
                 "%d)", key, owner, (int)v->type);
        rc = -1;
    } else {
        rc = faro_pmi_copy_value(key, v->data.string, val, vallen, err, errlen);
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

/* Node ids from every rank's host name. */
static int px_nodes_by_name(int *node, int size)
{
    char **names = size > 0 ? calloc((size_t)size, sizeof *names) : NULL;
    int n = 0, rc = 0;
    for (int r = 0; names && r < size && rc == 0; r++) {
        pmix_value_t *v = px_get((uint32_t)r, PMIX_HOSTNAME);
        if (!v || v->type != PMIX_STRING || !v->data.string) {
            rc = -1;
        } else {
            int id = 0;
            while (id < n && strcmp(names[id], v->data.string))
                id++;
            if (id == n && !(names[n++] = strdup(v->data.string)))
                rc = -1;
            node[r] = id;
        }
        if (v)
            PMIX_VALUE_RELEASE(v);
    }
    for (int i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    return names ? rc : -1;
}

/* Does this node's PMIX_LOCAL_PEERS ("0,1,5") name exactly the ranks whose
 * node is ours? */
static int px_local_peers_agree(const int *node, int size)
{
    pmix_value_t *v = px_get(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
    if (!v)
        return 1; /* nothing to check against */
    int ok = v->type == PMIX_STRING && v->data.string, listed = 0, mine = 0;
    for (const char *p = ok ? v->data.string : ""; ok && *p;) {
        char *end;
        long r = strtol(p, &end, 10);
        ok = end != p && r >= 0 && r < size && node[r] == node[px.me.rank];
        listed++;
        p = *end == ',' ? end + 1 : end;
        ok = ok && (*end == ',' || *end == 0);
    }
    for (int r = 0; r < size; r++)
        mine += node[r] == node[px.me.rank];
    PMIX_VALUE_RELEASE(v);
    return ok && listed == mine;
}

static int px_node_map(int *node, int size)
{
    unsigned long id;
    int rc = 0;
    for (int r = 0; r < size && rc == 0; r++) {
        rc = px_get_uint((uint32_t)r, PMIX_NODEID, &id);
        node[r] = (int)id;
    }
    if (rc < 0 || !px_local_peers_agree(node, size))
        rc = px_nodes_by_name(node, size);
    return rc == 0 && px_local_peers_agree(node, size) ? 0 : -1;
}

static void px_abort(int code, const char *msg, int error, int lost)
{
    /* Returns when the manager has acted on it, or could not. */
    PMIx_Abort(code, msg ? msg : "MPI_Abort", NULL, 0);
}

static int px_finalize(char *err, size_t errlen)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : px_fail(rc, "PMIx_Finalize", err, errlen);
}

/* ---- the name service ---- */

/* The returns of pmi.h's name service calls for a PMIx status. */
static int px_names_rc(pmix_status_t rc, const char *what, const char *service, char *err,
                       size_t errlen)
{
    if (rc == PMIX_SUCCESS)
        return 0;
    snprintf(err, errlen, "PMIx: %s of '%s': %s", what, service, PMIx_Error_string(rc));
    if (rc == PMIX_ERR_NOT_SUPPORTED) {
        size_t n = strlen(err);
        snprintf(err + n, errlen - n, " (the process manager does not serve names)");
        return FARO_PMI_NO_SERVICE;
    }
    return rc == PMIX_ERR_NOT_FOUND || rc == PMIX_ERR_DUPLICATE_KEY ? -2 : -1;
}

static int px_service_ok(const char *service, char *err, size_t errlen)
{
    if (strlen(service) <= PMIX_MAX_KEYLEN)
        return 0;
    snprintf(err, errlen, "PMIx: the service name is %zu characters; PMIx allows %d",
             strlen(service), PMIX_MAX_KEYLEN);
    return -2;
}

static int px_publish(const char *service, const char *port, char *err, size_t errlen)
{
    if (px_service_ok(service, err, errlen))
        return -2;
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, service, port, PMIX_STRING);
    pmix_status_t rc = PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return px_names_rc(rc, "publish", service, err, errlen);
}

static int px_lookup(const char *service, char *port, size_t portlen, char *err, size_t errlen)
{
    if (px_service_ok(service, err, errlen))
        return -2;
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, service);
    pmix_status_t rc = PMIx_Lookup(&pd, 1, NULL, 0);
    int ret = px_names_rc(rc, "lookup", service, err, errlen);
    if (ret == 0 && (pd.value.type != PMIX_STRING || !pd.value.data.string)) {
        snprintf(err, errlen, "PMIx: the port published as '%s' is not a string", service);
        ret = -1;
    } else if (ret == 0) {
        ret = faro_pmi_copy_value(service, pd.value.data.string, port, portlen, err, errlen);
    }
    PMIX_PDATA_DESTRUCT(&pd);
    return ret;
}

static int px_unpublish(const char *service, char *err, size_t errlen)
{
    if (px_service_ok(service, err, errlen))
        return -2;
    char *keys[2] = { (char *)service, NULL };
    return px_names_rc(PMIx_Unpublish(keys, NULL, 0), "unpublish", service, err, errlen);
}

/* ---- the universe and spawn ---- */

/* PMIX_UNIV_SIZE: Open MPI's mpirun gives the slots it knows (the CPUs here,
 * or -H's), which may be fewer than the job's processes when it
 * oversubscribes: never fewer, as under Faro's mpiexec. */
static int px_universe_size(void)
{
    unsigned long n;
    if (px_get_uint(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, &n) < 0 || n > 0x7fffffff)
        return 0;
    return (int)n > px.size ? (int)n : px.size;
}

/* a, b and c (NULL: nothing) as one malloc'ed string; NULL when out of memory. */
static char *px_join(const char *a, const char *b, const char *c)
{
    size_t len = strlen(a) + (b ? strlen(b) : 0) + (c ? strlen(c) : 0) + 1;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%s%s%s", a, b ? b : "", c ? c : "");
    return s;
}

/* A growing NULL-terminated array of strings (the children's argv and
 * environment). */
struct px_strv {
    char **v;
    size_t n;
    int bad;
};

static void px_strv_add(struct px_strv *s, const char *a, const char *b, const char *c)
{
    char **v = s->bad ? NULL : realloc(s->v, (s->n + 2) * sizeof *v);
    char *e = v ? px_join(a, b, c) : NULL;
    s->v = v ? v : s->v;
    s->bad = !e;
    if (e) {
        s->v[s->n++] = e;
        s->v[s->n] = NULL;
    }
}

static void px_strv_free(struct px_strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

/* Command c as a PMIx app: its argv (the command first, as PMIx wants), the
 * environment with the preput pairs, and the info keys: wdir (relative: to
 * this process's directory, which is the default), path (the directory of
 * a bare command name), host, hosts and hostfile (PMIx's host and hostfile).
 * Other keys are ignored. */
static int px_app(pmix_app_t *app, const struct faro_pmi_spawn_cmd *cmd, char *const *preput,
                  struct px_strv *argv, struct px_strv *env, char *err, size_t errlen)
{
    const char *path = NULL, *wdir = NULL, *host = NULL, *hostfile = NULL;
    for (char *const *kv = cmd->info; kv && kv[0] && kv[1]; kv += 2) {
        if (!strcmp(kv[0], "path"))
            path = kv[1];
        else if (!strcmp(kv[0], "wdir"))
            wdir = kv[1];
        else if (!strcmp(kv[0], "host") || !strcmp(kv[0], "hosts"))
            host = kv[1];
        else if (!strcmp(kv[0], "hostfile"))
            hostfile = kv[1];
    }
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return snprintf(err, errlen, "PMIx spawn: this process's working directory is "
                        "unknown"), -1;
    if (path && !strchr(cmd->command, '/'))
        px_strv_add(argv, path, "/", cmd->command);
    else
        px_strv_add(argv, cmd->command, NULL, NULL);
    for (int i = 0; cmd->argv && cmd->argv[i]; i++)
        px_strv_add(argv, cmd->argv[i], NULL, NULL);
    px_strv_add(env, "PMI_SPAWNED=1", NULL, NULL);
    for (char *const *kv = preput; kv && kv[0] && kv[1]; kv += 2) {
        char name[sizeof PX_PREPUT_ENV + FARO_PMI_KEY_MAX + 1];
        snprintf(name, sizeof name, PX_PREPUT_ENV "%s=", kv[0]);
        px_strv_add(env, name, kv[1], NULL);
    }
    PMIX_APP_CONSTRUCT(app);
    app->cmd = argv->bad ? NULL : strdup(argv->v[0]);
    app->argv = argv->v;
    app->env = env->v;
    app->cwd = !wdir ? strdup(cwd) : *wdir == '/' ? strdup(wdir) : px_join(cwd, "/", wdir);
    app->maxprocs = cmd->maxprocs;
    size_t n = (host != NULL) + (hostfile != NULL);
    if (n) {
        PMIX_INFO_CREATE(app->info, n);
        if (host)
            PMIX_INFO_LOAD(&app->info[app->ninfo++], PMIX_HOST, host, PMIX_STRING);
        if (hostfile)
            PMIX_INFO_LOAD(&app->info[app->ninfo++], PMIX_HOSTFILE, hostfile, PMIX_STRING);
    }
    if (!app->cmd || !app->cwd || env->bad)
        return snprintf(err, errlen, "out of memory for the PMIx spawn"), -1;
    return 0;
}

static int px_spawn(int count, const struct faro_pmi_spawn_cmd *cmds, char *const *preput,
                    char *err, size_t errlen)
{
    pmix_app_t *apps = calloc((size_t)count, sizeof *apps);
    struct px_strv *argv = calloc((size_t)count, sizeof *argv),
                   *env = calloc((size_t)count, sizeof *env);
    int rc = apps && argv && env ? 0 : -1, made = 0;
    if (rc)
        snprintf(err, errlen, "out of memory for the PMIx spawn");
    for (; !rc && made < count; made++)
        rc = px_app(&apps[made], &cmds[made], preput, &argv[made], &env[made], err, errlen);
    if (!rc) {
        pmix_nspace_t nspace;
        pmix_status_t st = PMIx_Spawn(NULL, 0, apps, (size_t)count, nspace);
        if (st != PMIX_SUCCESS) {
            snprintf(err, errlen, "PMIx_Spawn failed: %s", PMIx_Error_string(st));
            rc = st == PMIX_ERR_NOT_SUPPORTED ? FARO_PMI_NO_SERVICE : -2;
        }
    }
    for (int c = 0; apps && c < made; c++) {
        apps[c].argv = apps[c].env = NULL; /* the px_strv's, freed below */
        PMIX_APP_DESTRUCT(&apps[c]);
    }
    for (int c = 0; argv && env && c < count; c++) {
        px_strv_free(&argv[c]);
        px_strv_free(&env[c]);
    }
    free(apps);
    free(argv);
    free(env);
    return rc;
}

const struct faro_pmi_backend faro_pmix_backend = {
    .name = "pmix", .init = px_init, .put = px_put, .fence = px_fence, .get = px_get_value,
    .node_map = px_node_map, .abort = px_abort, .finalize = px_finalize,
    .publish = px_publish, .lookup = px_lookup, .unpublish = px_unpublish,
    .universe_size = px_universe_size, .spawn = px_spawn,
};
