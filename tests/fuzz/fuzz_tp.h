/* What the transport harnesses (fuzz_tcp, fuzz_ofi) share: the job they
 * pretend to be rank 0 of (4 ranks on one node, a fixed job key and port
 * key) and owner callbacks that read every byte delivered, so ASan checks
 * the bounds the transport hands out. */
#ifndef FARO_FUZZ_TP_H
#define FARO_FUZZ_TP_H

#include <stddef.h>
#include <stdint.h>

#include "transport.h"

static const uint8_t job_key[16] = "faro-fuzz-jobkey";
static const uint8_t port_key[8] = "fuzzport";
static const int node_of[4];
static const int local_ranks[4] = {0, 1, 2, 3};
static int peers[5];
static unsigned char sink;

static void handler(void *core, void *ctx, const void *hdr, size_t hdrlen, const void *data,
                    size_t len)
{
    const uint8_t *h = hdr, *d = data;
    for (size_t i = 0; i < hdrlen; i++)
        sink ^= h[i];
    for (size_t i = 0; i < len; i++)
        sink ^= d[i];
}

static void *accepted(void *core, faro_tp_ep_t *ep, uint64_t id, unsigned port)
{
    return port ? &peers[4] : &peers[id % 4];
}

/* The environment of rank 0; core points at the env itself. */
#define FUZZ_TP_ENV(env, lost_cb)                                                         \
    {.rank = 0, .size = 4, .node_of = node_of, .local_rank = 0, .local_size = 4,          \
     .local_ranks = local_ranks, .jobid = "fuzz", .job_key = job_key,                     \
     .job_key_len = sizeof job_key, .ncores = 1, .core = &(env), .accepted = accepted,    \
     .ep_lost = (lost_cb)}

#endif
