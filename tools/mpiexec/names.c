/*
 * The name service of one mpiexec, for MPI_Publish_name, MPI_Lookup_name and
 * MPI_Unpublish_name: the PMI-1 commands as MPICH's Hydra serves them,
 *
 *     cmd=publish_name service=S port=P    ->  cmd=publish_result rc=0 info=ok
 *     cmd=lookup_name service=S            ->  cmd=lookup_result rc=0 info=ok port=P
 *     cmd=unpublish_name service=S         ->  cmd=unpublish_result rc=0 info=ok
 *
 * and on failure rc=-1 with the reason in msg= and info=. Names are seen by
 * the ranks of this job only, and one table is kept per node process:
 * mpiexec serves the ranks of its own host and each faro_proxy those of its
 * host, so in a job across hosts a name is found only on the host that
 * published it (sharing names through the launch tree is not built). A name
 * published twice is refused, as is unpublishing one nobody published.
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

static void reply(struct mpx_rank *r, const char *cmd, const char *why, const char *port)
{
    char line[FARO_PMI_LINE_MAX];
    int len = why ? faro_pmi_format(line, sizeof line, cmd, "rc", "-1", "msg", why, "info", why,
                                    NULL)
              : port ? faro_pmi_format(line, sizeof line, cmd, "rc", "0", "info", "ok", "port",
                                       port, NULL)
                     : faro_pmi_format(line, sizeof line, cmd, "rc", "0", "info", "ok", NULL);
    mpx_pmi_send(r, line, len);
}

int mpx_names_serve(struct mpx_rank *r, const struct faro_pmi_msg *m)
{
    const char *cmd = faro_pmi_msg_cmd(m), *service = faro_pmi_msg_get(m, "service");
    const char *port = faro_pmi_msg_get(m, "port");
    if (!strcmp(cmd, "publish_name")) {
        struct name *n;
        if (!service || !*service || !port || !*port)
            reply(r, "publish_result", "publish_name needs service= and port=", NULL);
        else if (*find(service))
            reply(r, "publish_result", "the service name is published already", NULL);
        else if (!(n = calloc(1, sizeof *n)) || !(n->service = strdup(service)) ||
                 !(n->port = strdup(port))) {
            if (n) {
                free(n->service);
                free(n);
            }
            reply(r, "publish_result", "out of memory in mpiexec", NULL);
        } else {
            n->next = names;
            names = n;
            reply(r, "publish_result", NULL, NULL);
        }
    } else if (!strcmp(cmd, "lookup_name")) {
        struct name *n = service ? *find(service) : NULL;
        reply(r, "lookup_result", n ? NULL : "no such service name is published here",
              n ? n->port : NULL);
    } else if (!strcmp(cmd, "unpublish_name")) {
        struct name **pp = service ? find(service) : NULL, *n = pp ? *pp : NULL;
        if (n) {
            *pp = n->next;
            free(n->service);
            free(n->port);
            free(n);
        }
        reply(r, "unpublish_result", n ? NULL : "no such service name is published here",
              NULL);
    } else {
        return 0;
    }
    return 1;
}
