/*
 * The PMI-1 spawn command at a node, and its way to the first mpiexec and
 * back (mpiexec.h has the picture; subjob.c starts the job).
 *
 * MPICH's simple PMI sends MPI_Comm_spawn(_multiple) as one block of lines
 * per command, each line one key=value whose value runs to the end of the
 * line (so arguments may hold spaces):
 *
 *     mcmd=spawn
 *     nprocs=2  execname=./worker  totspawns=2  spawnssofar=1
 *     argcnt=1  arg1=--fast
 *     preput_num=1  preput_key_0=PARENT_ROOT_PORT_NAME  preput_val_0=...
 *     info_num=1  info_key_0=wdir  info_val_0=/scratch
 *     endcmd
 *
 * (one line each; the order of the lines differs between MPICH versions, and
 * older ones repeat the preput keys in every block), and the request ends
 * with the block whose spawnssofar is totspawns. The answer is one line,
 * cmd=spawn_result rc=0, or rc=-1 with the reason in msg=. Faro's client
 * (base/pmi.c) sends the same.
 *
 * A node reads the blocks of a rank into a request (MPX_MSG_SPAWN's
 * encoding: the commands, each with its program, count, arguments and info
 * pairs, then the preput pairs) and sends it towards the first mpiexec: a
 * proxy up its tree, a spawned job's mpiexec over its socket to the first
 * one. The answer comes back addressed by the rank's host and job rank (a
 * rank has at most one request outstanding).
 */
#include "config.h"

#include "mpiexec.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MCMD_MAX_BYTES (4u << 20)  /* one request, all blocks */
#define MCMD_MAX_BLOCKS 4096       /* commands in one spawn_multiple */

struct mpx_mcmd {
    struct mpx_buf apps;    /* the commands read so far, encoded */
    struct mpx_buf preput;  /* preput key, value strings */
    int napps, npreput;
    char **kv;              /* the block being read: key, value, ... */
    size_t nkv, cap, bytes;
    char why[300];          /* the first thing wrong with the request */
};

void mpx_mcmd_free(struct mpx_rank *r)
{
    struct mpx_mcmd *m = r->mcmd;
    if (!m)
        return;
    for (size_t i = 0; i < m->nkv; i++)
        free(m->kv[i]);
    free(m->kv);
    mpx_buf_free(&m->apps);
    mpx_buf_free(&m->preput);
    free(m);
    r->mcmd = NULL;
}

static void mcmd_bad(struct mpx_mcmd *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void mcmd_bad(struct mpx_mcmd *m, const char *fmt, ...)
{
    if (m->why[0])
        return; /* the first says it */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why, sizeof m->why, fmt, ap);
    va_end(ap);
}

static const char *mcmd_get(const struct mpx_mcmd *m, const char *key)
{
    for (size_t i = 0; i + 1 < m->nkv; i += 2)
        if (!strcmp(m->kv[i], key))
            return m->kv[i + 1];
    return NULL;
}

/* A count of the block: its value, 0 when an optional one is missing, -1
 * (and the reason kept) when it is wrong. */
static long mcmd_count(struct mpx_mcmd *m, const char *key, long min, long max, int required)
{
    const char *v = mcmd_get(m, key);
    char *end;
    if (!v && !required)
        return 0;
    if (!v) {
        mcmd_bad(m, "the spawn command lacks %s=", key);
        return -1;
    }
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < min || n > max) {
        mcmd_bad(m, "the spawn command's %s=%.32s is not a number from %ld to %ld", key, v, min,
                 max);
        return -1;
    }
    return n;
}

/* The value of the numbered key (arg1, info_key_0, ...); "" and the reason
 * kept when it is missing. */
static const char *mcmd_indexed(struct mpx_mcmd *m, const char *fmt, long i)
{
    char key[64];
    snprintf(key, sizeof key, fmt, i);
    const char *v = mcmd_get(m, key);
    if (!v)
        mcmd_bad(m, "the spawn command lacks %s=", key);
    return v ? v : "";
}

/* One block ended: encode its command. Returns 1 when it was the last. */
static int mcmd_block(struct mpx_mcmd *m)
{
    long np = mcmd_count(m, "nprocs", 1, MPX_MAX_NP, 1);
    long total = mcmd_count(m, "totspawns", 1, MCMD_MAX_BLOCKS, 1);
    long sofar = mcmd_count(m, "spawnssofar", 1, MCMD_MAX_BLOCKS, 1);
    long argc = mcmd_count(m, "argcnt", 0, 1 << 20, 0);
    long npre = mcmd_count(m, "preput_num", 0, 1 << 20, 0);
    long ninfo = mcmd_count(m, "info_num", 0, 1 << 20, 0);
    const char *exe = mcmd_get(m, "execname");
    if (!exe || !*exe)
        mcmd_bad(m, "the spawn command names no program (execname=)");
    m->napps++;
    if (m->why[0])
        return total < 0 || sofar < 0 || sofar >= total || m->napps >= MCMD_MAX_BLOCKS;
    mpx_buf_str(&m->apps, exe);
    mpx_buf_u32(&m->apps, (uint32_t)np);
    mpx_buf_u32(&m->apps, (uint32_t)argc);
    for (long i = 1; i <= argc; i++)
        mpx_buf_str(&m->apps, mcmd_indexed(m, "arg%ld", i));
    mpx_buf_u32(&m->apps, (uint32_t)(2 * ninfo));
    for (long i = 0; i < ninfo; i++) {
        mpx_buf_str(&m->apps, mcmd_indexed(m, "info_key_%ld", i));
        mpx_buf_str(&m->apps, mcmd_indexed(m, "info_val_%ld", i));
    }
    for (long i = 0; i < npre; i++) {
        mpx_buf_str(&m->preput, mcmd_indexed(m, "preput_key_%ld", i));
        mpx_buf_str(&m->preput, mcmd_indexed(m, "preput_val_%ld", i));
        m->npreput++;
    }
    return sofar >= total;
}

static void mcmd_reply(struct mpx_rank *r, int ok, const char *msg)
{
    char line[FARO_PMI_LINE_MAX];
    int len = ok ? faro_pmi_format(line, sizeof line, "spawn_result", "rc", "0", NULL)
                 : faro_pmi_format(line, sizeof line, "spawn_result", "rc", "-1", "msg", msg,
                                   NULL);
    mpx_pmi_send(r, line, len);
}

int mpx_spawn_line(struct mpx_job *job, struct mpx_rank *r, const char *line, size_t len)
{
    if (!r->mcmd && strncmp(line, "mcmd=", 5))
        return 0;
    if (!r->mcmd && !(r->mcmd = calloc(1, sizeof *r->mcmd))) {
        fprintf(stderr, "%s: out of memory for a spawn request of rank %d\n", mpx_me(job),
                r->rank);
        mcmd_reply(r, 0, "out of memory in mpiexec");
        return 1; /* its other lines fail to parse and are answered as errors */
    }
    struct mpx_mcmd *m = r->mcmd;
    m->bytes += len + 1;
    if (m->bytes > MCMD_MAX_BYTES) {
        fprintf(stderr, "%s: rank %d%s sent a spawn request of more than %u bytes; closing "
                "its PMI connection\n", mpx_me(job), r->rank, mpx_job_of(job), MCMD_MAX_BYTES);
        mpx_mcmd_free(r);
        close(r->pmi_fd);
        r->pmi_fd = -1;
        return 1;
    }
    if (!strncmp(line, "mcmd=", 5)) {
        if (strcmp(line, "mcmd=spawn"))
            mcmd_bad(m, "unknown multi-line command '%.64s'", line);
        return 1; /* a block starts */
    }
    if (strcmp(line, "endcmd")) {
        const char *eq = memchr(line, '=', len);
        if (!eq) {
            mcmd_bad(m, "a line of the spawn command is not key=value: '%.64s'", line);
            return 1;
        }
        if (m->nkv + 2 > m->cap) {
            size_t cap = m->cap ? 2 * m->cap : 32;
            char **kv = realloc(m->kv, cap * sizeof *kv);
            if (!kv) {
                mcmd_bad(m, "out of memory in mpiexec");
                return 1;
            }
            m->kv = kv;
            m->cap = cap;
        }
        m->kv[m->nkv] = strndup(line, (size_t)(eq - line));
        m->kv[m->nkv + 1] = strdup(eq + 1);
        if (!m->kv[m->nkv] || !m->kv[m->nkv + 1]) {
            free(m->kv[m->nkv]);
            free(m->kv[m->nkv + 1]);
            mcmd_bad(m, "out of memory in mpiexec");
            return 1;
        }
        m->nkv += 2;
        return 1;
    }
    int last = mcmd_block(m);
    for (size_t i = 0; i < m->nkv; i++)
        free(m->kv[i]);
    m->nkv = 0;
    if (!last)
        return 1;
    if (m->apps.oom || m->preput.oom)
        mcmd_bad(m, "out of memory in mpiexec");
    if (m->why[0]) {
        mcmd_reply(r, 0, m->why);
    } else {
        struct mpx_buf req = { 0 };
        mpx_buf_u32(&req, (uint32_t)m->napps);
        mpx_buf_put(&req, m->apps.p, m->apps.len);
        mpx_buf_u32(&req, (uint32_t)(2 * m->npreput));
        mpx_buf_put(&req, m->preput.p, m->preput.len);
        if (req.oom)
            mcmd_reply(r, 0, "out of memory in mpiexec");
        else
            mpx_spawn_request(job, job->hostname ? job->host : -1, r->rank, req.p, req.len);
        mpx_buf_free(&req);
    }
    mpx_mcmd_free(r);
    return 1;
}

/* host, rank, then the rest: a SPAWN or SPAWN_RESULT payload. */
static void req_frame(struct mpx_buf *b, int host, int rank)
{
    mpx_buf_u32(b, (uint32_t)host);
    mpx_buf_u32(b, (uint32_t)rank);
}

void mpx_spawn_request(struct mpx_job *job, int host, int rank, const void *req, size_t len)
{
    if (!job->is_root || job->top) {
        /* Towards the first mpiexec: up the tree, or from a spawned job's
         * mpiexec over its socket. */
        struct mpx_buf b = { 0 };
        req_frame(&b, host, rank);
        mpx_conn_send(job->top ? job->top : job->parent, MPX_MSG_SPAWN, b.p, b.len, req, len);
        mpx_buf_free(&b);
        return;
    }
    mpx_subjob_start(job, -1, host, rank, req, len);
}

void mpx_spawn_reply(struct mpx_job *job, int host, int rank, int ok, const char *msg)
{
    if (!job->hostname || host == job->host) {
        for (int i = 0; i < job->nlocal; i++)
            if (job->ranks[i].rank == rank) {
                mcmd_reply(&job->ranks[i], ok, msg);
                return;
            }
        return; /* it is gone; its exit tells */
    }
    struct mpx_link *k = mpx_kid_for(job, host);
    if (!k)
        return;
    struct mpx_buf b = { 0 };
    req_frame(&b, host, rank);
    mpx_buf_u32(&b, (uint32_t)ok);
    mpx_buf_str(&b, msg ? msg : "");
    mpx_kid_send(job, k, MPX_MSG_SPAWN_RESULT, b.p, b.len, NULL, 0);
    mpx_buf_free(&b);
}

void mpx_spawn_result(struct mpx_job *job, struct mpx_rd *p)
{
    int host = (int)mpx_rd_u32(p), rank = (int)mpx_rd_u32(p), ok = (int)mpx_rd_u32(p);
    const char *msg = mpx_rd_str(p);
    if (!p->bad)
        mpx_spawn_reply(job, host, rank, ok, msg);
}
