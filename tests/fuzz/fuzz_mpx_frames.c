/*
 * libFuzzer harness: what mpiexec and faro_proxy decode from their control
 * connections (tools/mpiexec/ctl.c frames, tree.c's job description,
 * names.c's name requests). The input's first byte picks the connection's
 * state: even, a connection that has not authenticated (frames of at most
 * MPX_FRAME_AUTH_MAX bytes); odd, one that has. The rest goes through a
 * socketpair into the connection; every frame that comes out is decoded as a
 * job description (what a proxy gets from its parent after the handshake)
 * and as a name-service request, and read as strings and string vectors.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tools/mpiexec/mpiexec.h"

static void job_release(struct mpx_job *job)
{
    struct mpx_opts *o = &job->opts;
    for (int i = 0; i < o->napps; i++) {
        free(o->apps[i].argv);
        free(o->apps[i].env);
    }
    free(o->apps);
    free(o->env);
    free(o->prefix);
    free(job->hostname);
    free(job->host_of);
    free(job->agent);
    free(job->fwd_env);
    free(job->preput);
}

static void decode(const struct mpx_rd *frame)
{
    char err[256];
    struct mpx_rd r = *frame;
    struct mpx_job job;
    memset(&job, 0, sizeof job);
    (void)mpx_job_decode(&job, &r, err, sizeof err);
    job_release(&job);

    r = *frame;
    struct mpx_buf rep = {0};
    (void)mpx_names_answer(&r, &rep);
    mpx_buf_free(&rep);

    r = *frame;
    while (!r.bad && r.off < r.len) {
        char **v = mpx_rd_strv(&r);
        for (int i = 0; v && v[i]; i++)
            (void)strlen(v[i]);
        free(v);
        (void)mpx_rd_str(&r);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int sv[2];
    if (size < 1 || size > 100000 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
        return 0;
    struct mpx_conn c;
    mpx_conn_init(&c, sv[0], data[0] & 1 ? MPX_FRAME_MAX : MPX_FRAME_AUTH_MAX);
    const uint8_t *p = data + 1;
    size_t left = size - 1;
    while (c.fd >= 0) {
        size_t n = left < 4096 ? left : 4096; /* the frames arrive in pieces */
        if (n && write(sv[1], p, n) != (ssize_t)n)
            break;
        p += n;
        left -= n;
        if (!left)
            shutdown(sv[1], SHUT_WR);
        if (mpx_conn_fill(&c) < 0 && c.fd < 0)
            break;
        int type, got;
        struct mpx_rd frame;
        while ((got = mpx_conn_frame(&c, &type, &frame)) == 1)
            decode(&frame);
        if (got < 0 || !left)
            break;
    }
    mpx_conn_close(&c);
    mpx_buf_free(&c.in);
    mpx_buf_free(&c.out);
    close(sv[1]);
    return 0;
}
