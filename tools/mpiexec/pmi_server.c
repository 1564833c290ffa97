/*
 * The PMI-1 server side of a node: the key-value space as this host sees it,
 * the barrier (a fence over the whole job, tree.c), and the life-cycle
 * commands. Every request gets exactly one reply, in order, so any PMI-1
 * client (Faro's, MPICH's simple PMI) can talk to it.
 *
 * A put is visible to the ranks of this host at once and to every rank after
 * the next barrier; a get is answered here, never sent across the network.
 * The launcher publishes PMI_process_mapping (MPICH's format) before the
 * ranks start, so a client learns every rank's node in one get.
 */
#include "config.h"

#include "mpiexec.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KVS_BUCKETS 4096 /* ranks x keys per rank stays cheap to look up */

struct kvs_entry {
    struct kvs_entry *next;
    char *key, *val;
};

struct mpx_kvs {
    struct kvs_entry *bucket[KVS_BUCKETS];
};

/* The limits get_maxes announces; the codec enforces the same ones. */
#define SRV_KVSNAME_MAX 256

struct mpx_kvs *mpx_kvs_new(void)
{
    return calloc(1, sizeof(struct mpx_kvs));
}

void mpx_kvs_free(struct mpx_kvs *kvs)
{
    if (!kvs)
        return;
    for (int i = 0; i < KVS_BUCKETS; i++)
        for (struct kvs_entry *e = kvs->bucket[i], *n; e; e = n) {
            n = e->next;
            free(e->key);
            free(e->val);
            free(e);
        }
    free(kvs);
}

static struct kvs_entry **kvs_slot(struct mpx_kvs *kvs, const char *key)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    struct kvs_entry **pp = &kvs->bucket[h % KVS_BUCKETS];
    while (*pp && strcmp((*pp)->key, key) != 0)
        pp = &(*pp)->next;
    return pp;
}

/* Later puts of a key replace earlier ones. */
int mpx_kvs_put(struct mpx_kvs *kvs, const char *key, const char *val)
{
    struct kvs_entry **pp = kvs_slot(kvs, key);
    char *v = strdup(val);
    if (!v)
        return -1;
    if (*pp) {
        free((*pp)->val);
        (*pp)->val = v;
        return 0;
    }
    struct kvs_entry *e = malloc(sizeof *e);
    if (!e || !(e->key = strdup(key))) {
        free(e);
        free(v);
        return -1;
    }
    e->val = v;
    e->next = NULL;
    *pp = e;
    return 0;
}

int mpx_kvs_put_pairs(struct mpx_kvs *kvs, char *const *kv)
{
    for (; kv && kv[0] && kv[1]; kv += 2)
        if (mpx_kvs_put(kvs, kv[0], kv[1]) < 0)
            return -1;
    return 0;
}

static void srv_send(struct mpx_rank *r, const char *line, int len)
{
    if (r->pmi_fd < 0)
        return;
    if (len < 0) {
        fprintf(stderr, "mpiexec: internal error: a PMI reply to rank %d does not fit in a "
                "line\n", r->rank);
        return;
    }
    /* Replies are short and the rank waits for them, so the socket buffer has
     * room; a rank that went away makes this fail, and its exit is reported
     * by its process status. */
    (void)faro_pmi_write_all(r->pmi_fd, line, (size_t)len);
    r->pmi_bytes += (unsigned long)len;
}

void mpx_pmi_send(struct mpx_rank *r, const char *line, int len)
{
    srv_send(r, line, len);
}

#define SRV_REPLY(r, ...)                                                    \
    do {                                                                     \
        char line_[FARO_PMI_LINE_MAX];                                       \
        srv_send(r, line_, faro_pmi_format(line_, sizeof line_, __VA_ARGS__, NULL)); \
    } while (0)

static int srv_check_kvsname(struct mpx_job *job, struct mpx_rank *r,
                             const struct faro_pmi_msg *m, const char *reply)
{
    const char *k = faro_pmi_msg_get(m, "kvsname");
    if (k && strcmp(k, job->kvsname) != 0) {
        char msg[512];
        snprintf(msg, sizeof msg, "unknown kvsname %.64s; this job's is %s", k, job->kvsname);
        SRV_REPLY(r, reply, "rc", "-1", "msg", msg);
        return -1;
    }
    return 0;
}

static void srv_barrier_in(struct mpx_job *job, struct mpx_rank *r)
{
    if (r->in_barrier) {
        SRV_REPLY(r, "barrier_out", "rc", "-1", "msg", "barrier_in sent twice");
        return;
    }
    r->in_barrier = 1;
    job->barrier_count++;
    mpx_fence_local_ready(job);
}

void mpx_pmi_barrier_done(struct mpx_job *job)
{
    job->barrier_count = 0;
    for (int i = 0; i < job->nlocal; i++) {
        if (!job->ranks[i].in_barrier)
            continue;
        job->ranks[i].in_barrier = 0;
        SRV_REPLY(&job->ranks[i], "barrier_out");
    }
}

static void srv_abort(struct mpx_job *job, struct mpx_rank *r, const struct faro_pmi_msg *m)
{
    int code = 1;
    if (faro_pmi_msg_int(m, "exitcode", &code) < 0)
        code = 1;
    const char *msg = faro_pmi_msg_get(m, "message");
    if (!msg)
        msg = faro_pmi_msg_get(m, "msg");
    int how = MPX_ABORT_PROGRAM, flag = 0;
    if (faro_pmi_msg_int(m, "error", &flag) == 0 && flag)
        how = MPX_ABORT_ERROR;
    if (faro_pmi_msg_int(m, "lost_rank", &flag) == 0 && flag >= 0)
        how = flag;
    mpx_rank_aborted(job, r->rank, code, msg, how);
}

static void srv_handle(struct mpx_job *job, struct mpx_rank *r, const struct faro_pmi_msg *m)
{
    const char *cmd = faro_pmi_msg_cmd(m);
    char num[16];
    if (strcmp(cmd, "init") == 0) {
        int v = 0;
        if (faro_pmi_msg_int(m, "pmi_version", &v) < 0 || v != 1) {
            SRV_REPLY(r, "response_to_init", "pmi_version", "1", "pmi_subversion", "1", "rc",
                      "-1", "msg", "this mpiexec speaks PMI version 1 only");
            return;
        }
        r->pmi_state = MPX_PMI_INITED;
        SRV_REPLY(r, "response_to_init", "pmi_version", "1", "pmi_subversion", "1", "rc", "0");
    } else if (strcmp(cmd, "get_maxes") == 0) {
        char k[16], v[16], n[16];
        snprintf(n, sizeof n, "%d", SRV_KVSNAME_MAX);
        snprintf(k, sizeof k, "%d", FARO_PMI_KEY_MAX);
        snprintf(v, sizeof v, "%d", FARO_PMI_VAL_MAX);
        SRV_REPLY(r, "maxes", "kvsname_max", n, "keylen_max", k, "vallen_max", v);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        SRV_REPLY(r, "my_kvsname", "kvsname", job->kvsname);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        snprintf(num, sizeof num, "%d", r->app);
        SRV_REPLY(r, "appnum", "appnum", num);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        snprintf(num, sizeof num, "%d", job->universe);
        SRV_REPLY(r, "universe_size", "size", num);
    } else if (strcmp(cmd, "put") == 0) {
        const char *k = faro_pmi_msg_get(m, "key"), *v = faro_pmi_msg_get(m, "value");
        if (srv_check_kvsname(job, r, m, "put_result") < 0)
            return;
        if (!k || !*k || !v)
            SRV_REPLY(r, "put_result", "rc", "-1", "msg", "put needs key= and value=");
        else if (mpx_kvs_put(job->kvs, k, v) < 0)
            SRV_REPLY(r, "put_result", "rc", "-1", "msg", "out of memory in mpiexec");
        else {
            mpx_fence_put(job, k, v);
            SRV_REPLY(r, "put_result", "rc", "0", "msg", "success");
        }
    } else if (strcmp(cmd, "get") == 0) {
        const char *k = faro_pmi_msg_get(m, "key");
        if (srv_check_kvsname(job, r, m, "get_result") < 0)
            return;
        struct kvs_entry *e = k ? *kvs_slot(job->kvs, k) : NULL;
        if (e) {
            SRV_REPLY(r, "get_result", "rc", "0", "msg", "success", "value", e->val);
        } else {
            char msg[FARO_PMI_KEY_MAX + 64];
            snprintf(msg, sizeof msg, "key %s not found", k ? k : "(none given)");
            SRV_REPLY(r, "get_result", "rc", "-1", "msg", msg);
        }
    } else if (strcmp(cmd, "barrier_in") == 0) {
        srv_barrier_in(job, r);
    } else if (strcmp(cmd, "finalize") == 0) {
        r->pmi_state = MPX_PMI_FINALIZED;
        SRV_REPLY(r, "finalize_ack");
    } else if (strcmp(cmd, "abort") == 0) {
        srv_abort(job, r, m);
    } else if (mpx_names_serve(job, r, m)) { /* names.c: publish_name, lookup_name, ... */
    } else {
        char msg[128];
        snprintf(msg, sizeof msg, "unknown command %.64s", cmd);
        fprintf(stderr, "mpiexec: rank %d sent PMI command '%.64s', which this mpiexec does not "
                "serve; replying with an error\n", r->rank, cmd);
        SRV_REPLY(r, "error", "rc", "-1", "msg", msg);
    }
}

static void srv_close(struct mpx_rank *r)
{
    close(r->pmi_fd);
    r->pmi_fd = -1;
}

void mpx_pmi_serve(struct mpx_job *job, struct mpx_rank *r)
{
    char *line, err[256];
    size_t len;
    struct faro_pmi_msg m;
    while (r->pmi_fd >= 0) {
        switch (faro_pmi_reader_next(&r->reader, &line, &len, err, sizeof err)) {
        case FARO_PMI_READ_LINE:
            r->pmi_msgs++;
            r->pmi_bytes += (unsigned long)len + 1;
            if (mpx_spawn_line(job, r, line, len)) /* spawn_req.c: a spawn's lines */
                break;
            if (faro_pmi_parse(line, len, &m, err, sizeof err) < 0) {
                fprintf(stderr, "mpiexec: rank %d sent a malformed PMI line: %s\n", r->rank, err);
                SRV_REPLY(r, "error", "rc", "-1", "msg", err);
            } else {
                srv_handle(job, r, &m);
            }
            break;
        case FARO_PMI_READ_AGAIN:
            return;
        case FARO_PMI_READ_EOF:
            /* Closing early is judged when the process exits, from pmi_state. */
            srv_close(r);
            return;
        case FARO_PMI_READ_ERROR:
            if (!job->ending)
                fprintf(stderr, "mpiexec: rank %d: %s; closing its PMI connection\n", r->rank,
                        err);
            srv_close(r);
            return;
        }
    }
}
