/*
 * Info objects: (key, value) string pairs kept in insertion order, so
 * MPI_Info_get_nthkey walks them in the order they were set. An info holds a
 * handful of hints, so lookups are a linear scan.
 *
 * MPI_INFO_ENV is filled on first use from /proc/self/cmdline (command,
 * argv), the job (maxprocs, host, thread_level) and the working directory.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "objects/arena.h"

struct faro_info_predefined faro_mpi_info_env = {.obj = {.magic = FARO_INFO_MAGIC,
                                                          .predefined = 1}};
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* Info objects come from a FIFO pool over their arena (objects/arena.h,
 * linked through ent while free), so that a made-up handle is refused before
 * it is read. */
static struct faro_pool info_pool = FARO_POOL_INIT("info", FARO_ARENA_SMALL, struct faro_info, ent,
                                                   64);

__attribute__((constructor)) static void info_arena_init(void)
{
    static const void *const fixed[] = {MPI_INFO_ENV};
    faro_pool_start(&info_pool, fixed, 1, sizeof(struct faro_info_predefined));
}

static int find(MPI_Info info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->ent[i].key, key) == 0)
            return i;
    return -1;
}

/* Set without checks; 0 or -1 when out of memory. */
static int put(MPI_Info info, const char *key, const char *val)
{
    int i = find(info, key);
    char *v = strdup(val);
    if (!v)
        return -1;
    if (i >= 0) {
        free(info->ent[i].val);
        info->ent[i].val = v;
        return 0;
    }
    if (info->n == info->cap) {
        int ncap = info->cap ? info->cap * 2 : 8;
        struct faro_info_entry *e = realloc(info->ent, (size_t)ncap * sizeof *e);
        if (!e) {
            free(v);
            return -1;
        }
        info->ent = e;
        info->cap = ncap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return -1;
    }
    info->ent[info->n].key = k;
    info->ent[info->n].val = v;
    info->n++;
    return 0;
}

static void env_fill(void)
{
    MPI_Info e = MPI_INFO_ENV;
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        char buf[4096];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        if (n > 0) {
            put(e, "command", buf);
            size_t first = strlen(buf) + 1;
            /* the arguments, separated by spaces */
            for (size_t i = first; i + 1 < n; i++)
                if (buf[i] == '\0')
                    buf[i] = ' ';
            if (first < n)
                put(e, "argv", buf + first);
        }
    }
    char num[32];
    if (faro.initialized) {
        snprintf(num, sizeof num, "%d", faro.size);
        put(e, "maxprocs", num);
        if (faro.hostname[0])
            put(e, "host", faro.hostname);
        static const char *const levels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                             "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
        if (faro.thread_level >= 0 && faro.thread_level <= 3)
            put(e, "thread_level", levels[faro.thread_level]);
    }
    char cwd[1024];
    if (getcwd(cwd, sizeof cwd))
        put(e, "wdir", cwd);
}

int faro_info_check(MPI_Info info)
{
    if (!info || !faro_pool_has(&info_pool, info) || info->magic != FARO_INFO_MAGIC)
        return -1;
    if (info == MPI_INFO_ENV)
        pthread_once(&env_once, env_fill);
    return 0;
}

const char *faro_info_value(MPI_Info info, const char *key)
{
    if (faro_info_check(info))
        return NULL;
    int i = find(info, key);
    return i < 0 ? NULL : info->ent[i].val;
}

void faro_info_destroy(MPI_Info info)
{
    if (!info || info->predefined)
        return;
    for (int i = 0; i < info->n; i++) {
        free(info->ent[i].key);
        free(info->ent[i].val);
    }
    free(info->ent);
    faro_pool_put(&info_pool, info);
}

MPI_Info faro_info_copy(MPI_Info info)
{
    struct faro_info *c = faro_pool_get(&info_pool);
    if (!c)
        return NULL;
    c->magic = FARO_INFO_MAGIC;
    if (info && faro_info_check(info) == 0)
        for (int i = 0; i < info->n; i++)
            if (put(c, info->ent[i].key, info->ent[i].val)) {
                faro_info_destroy(c);
                return NULL;
            }
    return c;
}

MPI_Info faro_info_merged(MPI_Info old, MPI_Info given)
{
    MPI_Info copy = faro_info_copy(given);
    if (!copy || !old)
        return copy;
    for (int i = 0; i < old->n; i++)
        if (!faro_info_value(copy, old->ent[i].key))
            PMPI_Info_set(copy, old->ent[i].key, old->ent[i].val);
    faro_info_destroy(old);
    return copy;
}

/* ---- argument checks: each returns 0 or the raised error ---- */

static int check_info(const char *fn, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO, "%s: info is MPI_INFO_NULL", fn);
    if (faro_info_check(info))
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO, "%s: info %p is not an info object "
                        "(freed, or another kind of handle)", fn, (void *)info);
    return 0;
}

static int check_key(const char *fn, const char *key)
{
    if (!key)
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO_KEY, "%s: key is NULL", fn);
    size_t len = strlen(key);
    if (len == 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO_KEY, "%s: key is empty", fn);
    if (len > MPI_MAX_INFO_KEY)
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO_KEY, "%s: key \"%.40s...\" is %zu characters "
                        "(at most MPI_MAX_INFO_KEY=%d)", fn, key, len, MPI_MAX_INFO_KEY);
    return 0;
}

#define CHECK(call)                                                                  \
    do {                                                                             \
        int rc_ = (call);                                                            \
        if (rc_)                                                                     \
            return rc_;                                                              \
    } while (0)

/* ---- the MPI functions ---- */

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info *info)
{
    if (!info)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_create: info is NULL");
    *info = faro_info_copy(MPI_INFO_NULL);
    if (!*info)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Info_create: out of memory");
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_create_env = PMPI_Info_create_env
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    if (!info)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_create_env: info is NULL");
    *info = faro_info_copy(MPI_INFO_ENV);
    if (!*info)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Info_create_env: out of memory");
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    CHECK(check_info("MPI_Info_set", info));
    CHECK(check_key("MPI_Info_set", key));
    if (!value)
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO_VALUE, "MPI_Info_set: value of key \"%s\" "
                        "is NULL", key);
    size_t len = strlen(value);
    if (len > MPI_MAX_INFO_VAL)
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO_VALUE, "MPI_Info_set: value of key \"%s\" "
                        "is %zu characters (at most MPI_MAX_INFO_VAL=%d)", key, len,
                        MPI_MAX_INFO_VAL);
    if (put(info, key, value))
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Info_set: out of memory");
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    CHECK(check_info("MPI_Info_get", info));
    CHECK(check_key("MPI_Info_get", key));
    if (valuelen < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get: valuelen %d is negative",
                        valuelen);
    if (!flag || !value)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get: %s is NULL",
                        flag ? "value" : "flag");
    int i = find(info, key);
    *flag = i >= 0;
    if (i >= 0) {
        /* at most valuelen characters, then the terminator (value has valuelen+1) */
        size_t n = strlen(info->ent[i].val);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, info->ent[i].val, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    CHECK(check_info("MPI_Info_get_valuelen", info));
    CHECK(check_key("MPI_Info_get_valuelen", key));
    if (!flag || !valuelen)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get_valuelen: %s is NULL",
                        flag ? "valuelen" : "flag");
    int i = find(info, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(info->ent[i].val);
    return MPI_SUCCESS;
}

/* MPI 4: buflen in: the room in value (terminator included); out: the
 * room the whole value needs. A short buffer gets the value truncated. */
#pragma weak MPI_Info_get_string = PMPI_Info_get_string
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    CHECK(check_info("MPI_Info_get_string", info));
    CHECK(check_key("MPI_Info_get_string", key));
    if (!flag || !buflen)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get_string: %s is NULL",
                        flag ? "buflen" : "flag");
    if (*buflen < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get_string: *buflen %d is "
                        "negative", *buflen);
    if (*buflen > 0 && !value)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get_string: value is NULL with "
                        "*buflen %d", *buflen);
    int i = find(info, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    size_t len = strlen(info->ent[i].val);
    if (*buflen > 0) {
        size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
        memcpy(value, info->ent[i].val, n);
        value[n] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    CHECK(check_info("MPI_Info_get_nkeys", info));
    if (!nkeys)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get_nkeys: nkeys is NULL");
    *nkeys = info->n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    CHECK(check_info("MPI_Info_get_nthkey", info));
    if (n < 0 || n >= info->n)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get_nthkey: n %d is out of range "
                        "(the info has %d keys, n is 0..%d)", n, info->n, info->n - 1);
    if (!key)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get_nthkey: key is NULL");
    strcpy(key, info->ent[n].key); /* at most MPI_MAX_INFO_KEY characters */
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char *key)
{
    CHECK(check_info("MPI_Info_delete", info));
    CHECK(check_key("MPI_Info_delete", key));
    int i = find(info, key);
    if (i < 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO_NOKEY, "MPI_Info_delete: key \"%s\" is not "
                        "set in this info", key);
    free(info->ent[i].key);
    free(info->ent[i].val);
    memmove(&info->ent[i], &info->ent[i + 1], (size_t)(info->n - i - 1) * sizeof info->ent[0]);
    info->n--;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    CHECK(check_info("MPI_Info_dup", info));
    if (!newinfo)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_dup: newinfo is NULL");
    *newinfo = faro_info_copy(info);
    if (!*newinfo)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Info_dup: out of memory");
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info *info)
{
    if (!info)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_free: info is NULL");
    CHECK(check_info("MPI_Info_free", *info));
    if ((*info)->predefined)
        return faro_err(MPI_COMM_NULL, MPI_ERR_INFO, "MPI_Info_free: MPI_INFO_ENV is predefined "
                        "and cannot be freed");
    faro_handle_forget(FARO_H_INFO, *info);
    faro_info_destroy(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
