/*
 * The name service of one mpiexec, for MPI_Publish_name, MPI_Lookup_name and
 * MPI_Unpublish_name: the PMI-1 commands as MPICH's Hydra serves them,
 *
 *     cmd=publish_name service=S port=P    ->  cmd=publish_result rc=0 info=ok
 *     cmd=lookup_name service=S            ->  cmd=lookup_result rc=0 info=ok port=P
 *     cmd=unpublish_name service=S         ->  cmd=unpublish_result rc=0 info=ok
 *
 * and on failure rc=-1 with the reason in msg= and info=. Names are seen by
 * every job of the launch: the table is the first mpiexec's; a proxy sends
 * its ranks' requests up the launch tree (NAME_REQ), a spawned job's mpiexec
 * (subjob.c) on to the first one, and the answers come back down (NAME_REP)
 * to the rank's host, so a name published on one host, or by one job, is
 * found by every other. A name published twice is refused, as is
 * unpublishing one nobody published.
 * The hook: pmi_server.c hands every command it does not know to
 * mpx_names_serve first.
 */
#include "config.h"

#include "mpiexec.h"

#include <stdlib.h>
#include <string.h>

struct name {
    struct name *next;
    char *service, *port;
};

static struct name *names; /* freed with the process */

static struct name **find(const char *service)
{
    struct name **pp = &names;
    while (*pp && strcmp((*pp)->service, service))
        pp = &(*pp)->next;
    return pp;
}

/* The answer line to cmd for service (and port): served from this table. */
static int answer(const char *cmd, const char *service, const char *port, char *line,
                  size_t len)
{
    const char *why = NULL, *res, *found = NULL;
    if (!strcmp(cmd, "publish_name")) {
        res = "publish_result";
        struct name *n;
        if (!service || !*service || !port || !*port)
            why = "publish_name needs service= and port=";
        else if (*find(service))
            why = "the service name is published already";
        else if (!(n = calloc(1, sizeof *n)) || !(n->service = strdup(service)) ||
                 !(n->port = strdup(port))) {
            if (n) {
                free(n->service);
                free(n);
            }
            why = "out of memory in mpiexec";
        } else {
            n->next = names;
            names = n;
        }
    } else if (!strcmp(cmd, "lookup_name")) {
        res = "lookup_result";
        struct name *n = service ? *find(service) : NULL;
        if (n)
            found = n->port;
        else
            why = "no such service name is published in this launch";
    } else {
        res = "unpublish_result";
        struct name **pp = service ? find(service) : NULL, *n = pp ? *pp : NULL;
        if (n) {
            *pp = n->next;
            free(n->service);
            free(n->port);
            free(n);
        } else {
            why = "no such service name is published in this launch";
        }
    }
    return why ? faro_pmi_format(line, len, res, "rc", "-1", "msg", why, "info", why, NULL)
           : found ? faro_pmi_format(line, len, res, "rc", "0", "info", "ok", "port", found, NULL)
                   : faro_pmi_format(line, len, res, "rc", "0", "info", "ok", NULL);
}

static int is_name_cmd(const char *cmd)
{
    return !strcmp(cmd, "publish_name") || !strcmp(cmd, "lookup_name") ||
           !strcmp(cmd, "unpublish_name");
}

int mpx_names_serve(struct mpx_job *job, struct mpx_rank *r, const struct faro_pmi_msg *m)
{
    const char *cmd = faro_pmi_msg_cmd(m), *service = faro_pmi_msg_get(m, "service");
    const char *port = faro_pmi_msg_get(m, "port");
    if (!is_name_cmd(cmd))
        return 0;
    if (!job->is_root || job->top) { /* the table is the first mpiexec's */
        struct mpx_buf b = { 0 };
        mpx_buf_u32(&b, (uint32_t)r->rank);
        mpx_buf_str(&b, cmd);
        mpx_buf_str(&b, service ? service : "");
        mpx_buf_str(&b, port ? port : "");
        mpx_conn_send(job->top ? job->top : job->parent, MPX_MSG_NAME_REQ, b.p, b.len, NULL, 0);
        mpx_buf_free(&b);
        return 1;
    }
    char line[FARO_PMI_LINE_MAX];
    mpx_pmi_send(r, line, answer(cmd, service, port, line, sizeof line));
    return 1;
}

int mpx_names_answer(struct mpx_rd *p, struct mpx_buf *rep)
{
    int rank = (int)mpx_rd_u32(p);
    const char *cmd = mpx_rd_str(p), *service = mpx_rd_str(p), *port = mpx_rd_str(p);
    char line[FARO_PMI_LINE_MAX];
    if (p->bad || rank < 0 || !is_name_cmd(cmd))
        return -1;
    int len = answer(cmd, *service ? service : NULL, *port ? port : NULL, line, sizeof line);
    if (len < 0)
        return -1;
    mpx_buf_u32(rep, (uint32_t)rank);
    mpx_buf_str(rep, line);
    return 0;
}

void mpx_names_request(struct mpx_job *job, struct mpx_rd *p)
{
    if (job->top) { /* a spawned job's mpiexec: on to the first one */
        mpx_conn_send(job->top, MPX_MSG_NAME_REQ, p->p, p->len, NULL, 0);
        return;
    }
    struct mpx_rd peek = *p;
    int rank = (int)mpx_rd_u32(&peek);
    struct mpx_link *k;
    if (peek.bad || rank < 0 || rank >= job->np || !job->host_of ||
        !(k = mpx_kid_for(job, job->host_of[rank])))
        return;
    struct mpx_buf b = { 0 };
    if (mpx_names_answer(p, &b) == 0)
        mpx_conn_send(&k->c, MPX_MSG_NAME_REP, b.p, b.len, NULL, 0);
    mpx_buf_free(&b);
}

void mpx_names_reply(struct mpx_job *job, struct mpx_rd *p)
{
    int rank = (int)mpx_rd_u32(p);
    const char *line = mpx_rd_str(p);
    if (p->bad || rank < 0 || rank >= job->np)
        return;
    int h = job->host_of ? job->host_of[rank] : -1; /* -1: a job without hosts */
    struct mpx_link *k = h == job->host ? NULL : mpx_kid_for(job, h);
    if (k) {
        mpx_conn_send(&k->c, MPX_MSG_NAME_REP, p->p, p->len, NULL, 0);
        return;
    }
    for (int i = 0; i < job->nlocal; i++)
        if (job->ranks[i].rank == rank && job->ranks[i].pmi_fd >= 0)
            mpx_pmi_send(&job->ranks[i], line, (int)strlen(line));
}
