/*
 * libFuzzer harness: mpiexec's host-list parsers (tools/mpiexec/hostlist.c),
 * which read what users type (-hosts, -host), host files and the Slurm
 * allocation's SLURM_JOB_NODELIST / SLURM_TASKS_PER_NODE. The input is split
 * at its first two NUL bytes into three strings, fed to each parser; a parsed
 * list is then placed (every map policy) and its launch tree built, and the
 * placement must put every rank on a listed host.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/mpiexec/hostlist.h"

static void place(const struct mpx_hostlist *hl)
{
    char err[256];
    int host_of[64];
    if (hl->n <= 0)
        return;
    for (int pol = MPX_MAP_SLOT; pol <= MPX_MAP_PPR; pol++)
        for (int np = 1; np <= 64; np += 21)
            if (mpx_hosts_map(hl, np, pol, pol == MPX_MAP_PPR ? 2 : 0, host_of, err,
                              sizeof err) == 0) {
                for (int r = 0; r < np; r++)
                    if (host_of[r] < 0 || host_of[r] >= hl->n)
                        abort(); /* a rank placed on no listed host */
                char map[1024];
                (void)mpx_process_mapping(host_of, np, map, sizeof map);
            }
    (void)mpx_hosts_total_slots(hl, 0);
    int parent, child[8], end[8];
    for (int me = 0; me < hl->n && me < 16; me++)
        (void)mpx_tree_slice(hl->n, 2, me, &parent);
    (void)mpx_tree_children(0, hl->n, 8, child, end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *s = malloc(size + 3);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = s[size + 1] = s[size + 2] = 0;
    /* three strings; each ends before s + size + 3 (the NULs appended) */
    const char *a = s, *b = a + strlen(a) + 1, *c = b + strlen(b) + 1;

    char err[256];
    struct mpx_hostlist hl = {0};
    if (mpx_hosts_parse_list(&hl, a, "-hosts", err, sizeof err) == 0)
        place(&hl);
    mpx_hosts_free(&hl);

    memset(&hl, 0, sizeof hl);
    for (const char *line = a; *line;) { /* the first string as a host file */
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char one[512];
        if (n >= sizeof one)
            n = sizeof one - 1;
        memcpy(one, line, n);
        one[n] = 0;
        if (mpx_hosts_parse_line(&hl, one, "fuzz:1", err, sizeof err))
            break;
        line += nl ? (size_t)(nl - line) + 1 : n;
    }
    place(&hl);
    mpx_hosts_free(&hl);

    memset(&hl, 0, sizeof hl);
    if (mpx_hosts_from_slurm(&hl, b, *c ? c : NULL, err, sizeof err) == 0)
        place(&hl);
    mpx_hosts_free(&hl);

    enum mpx_map_policy pol;
    int ppn;
    (void)mpx_map_parse(b, &pol, &ppn, err, sizeof err);
    free(s);
    return 0;
}
