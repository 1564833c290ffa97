/* Host lists, placement and the launch tree (see hostlist.h). */
#include "config.h"

#include "hostlist.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HL_SLOTS_MAX 65536 /* per host; beyond that a typo is likelier than a machine */

void mpx_hosts_free(struct mpx_hostlist *hl)
{
    for (int i = 0; i < hl->n; i++)
        free(hl->host[i].name);
    free(hl->host);
    free(hl->index);
    memset(hl, 0, sizeof *hl);
}

/* FNV-1a: names are short and trusted to be names by then. */
static unsigned hl_hash(const char *name, size_t len)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    return h;
}

/* The host called name, or -1. */
static int hl_find(const struct mpx_hostlist *hl, const char *name, size_t len)
{
    if (!hl->index)
        return -1;
    unsigned mask = (unsigned)hl->index_cap - 1;
    for (unsigned i = hl_hash(name, len) & mask;; i = (i + 1) & mask) {
        int h = hl->index[i] - 1;
        if (h < 0)
            return -1;
        if (strlen(hl->host[h].name) == len && !strncmp(hl->host[h].name, name, len))
            return h;
    }
}

static void hl_index_put(struct mpx_hostlist *hl, int h)
{
    const char *name = hl->host[h].name;
    unsigned mask = (unsigned)hl->index_cap - 1, i = hl_hash(name, strlen(name)) & mask;
    while (hl->index[i])
        i = (i + 1) & mask;
    hl->index[i] = h + 1;
}

/* Room for one more host in the index (kept at most half full). */
static int hl_index_grow(struct mpx_hostlist *hl)
{
    if (2 * (hl->n + 1) <= hl->index_cap)
        return 0;
    int cap = hl->index_cap ? 2 * hl->index_cap : 64;
    int *idx = calloc((size_t)cap, sizeof *idx);
    if (!idx)
        return -1;
    free(hl->index);
    hl->index = idx;
    hl->index_cap = cap;
    for (int h = 0; h < hl->n; h++)
        hl_index_put(hl, h);
    return 0;
}

static int hl_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_' || c == '@';
}

int mpx_hosts_add(struct mpx_hostlist *hl, const char *name, size_t len, int slots, char *err,
                  size_t errlen)
{
    if (len == 0) {
        snprintf(err, errlen, "an empty host name");
        return -1;
    }
    if (len > MPX_HOST_NAME_MAX) {
        snprintf(err, errlen, "host name '%.32s...' is longer than %d characters", name,
                 MPX_HOST_NAME_MAX);
        return -1;
    }
    for (size_t i = 0; i < len; i++)
        if (!hl_name_char(name[i])) {
            snprintf(err, errlen, "host name '%.*s' contains '%c' (allowed: letters, digits, "
                     "'.', '-', '_' and '@')", (int)len, name, name[i]);
            return -1;
        }
    int found = hl_find(hl, name, len);
    if (found >= 0) {
        struct mpx_host *h = &hl->host[found];
        int add = slots ? slots : 1;
        if (h->slots > HL_SLOTS_MAX - add) {
            snprintf(err, errlen, "host %s: more than %d slots in all", h->name, HL_SLOTS_MAX);
            return -1;
        }
        h->slots += add;
        h->explicit_slots |= slots != 0;
        return 0;
    }
    if (hl->n >= MPX_HOSTS_MAX) {
        snprintf(err, errlen, "the host list names more than %d hosts", MPX_HOSTS_MAX);
        return -1;
    }
    if (hl_index_grow(hl) < 0) {
        snprintf(err, errlen, "out of memory for the host list");
        return -1;
    }
    if (hl->n == hl->cap) {
        int cap = hl->cap ? 2 * hl->cap : 16;
        struct mpx_host *n = realloc(hl->host, (size_t)cap * sizeof *n);
        if (!n) {
            snprintf(err, errlen, "out of memory for the host list");
            return -1;
        }
        hl->host = n;
        hl->cap = cap;
    }
    struct mpx_host *h = &hl->host[hl->n];
    if (!(h->name = strndup(name, len))) {
        snprintf(err, errlen, "out of memory for the host list");
        return -1;
    }
    h->slots = slots ? slots : 1;
    h->explicit_slots = slots != 0;
    hl_index_put(hl, hl->n++);
    return 0;
}

/* A slot count: a whole number from 1 to HL_SLOTS_MAX. */
static int hl_count(const char *s, size_t len, int *out)
{
    char buf[16];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (*end || errno || v < 1 || v > HL_SLOTS_MAX || !isdigit((unsigned char)buf[0]))
        return -1;
    *out = (int)v;
    return 0;
}

/* "name" or "name:N". */
static int hl_add_item(struct mpx_hostlist *hl, const char *s, size_t len, const char *where,
                       char *err, size_t errlen)
{
    const char *colon = memchr(s, ':', len);
    int slots = 0;
    size_t nlen = colon ? (size_t)(colon - s) : len;
    char why[400];
    if (colon && hl_count(colon + 1, len - nlen - 1, &slots) < 0) {
        snprintf(err, errlen, "%s: '%.*s': the count after ':' must be a whole number from 1 "
                 "to %d", where, (int)len, s, HL_SLOTS_MAX);
        return -1;
    }
    if (mpx_hosts_add(hl, s, nlen, slots, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s: %s", where, why);
        return -1;
    }
    return 0;
}

int mpx_hosts_parse_list(struct mpx_hostlist *hl, const char *spec, const char *opt, char *err,
                         size_t errlen)
{
    int added = 0;
    for (const char *p = spec; *p;) {
        size_t len = strcspn(p, ",");
        if (len == 0) { /* "a,,b" or a trailing comma: tolerated */
            p++;
            continue;
        }
        if (hl_add_item(hl, p, len, opt, err, errlen) < 0)
            return -1;
        added++;
        p += len;
        if (*p)
            p++;
    }
    if (!added) {
        snprintf(err, errlen, "%s '%s': no host named (expected e.g. a,b or a:2,b:2)", opt, spec);
        return -1;
    }
    return 0;
}

static int hl_is_key(const char *tok, size_t klen, const char *key)
{
    return strlen(key) == klen && !strncmp(tok, key, klen);
}

int mpx_hosts_parse_line(struct mpx_hostlist *hl, const char *line, const char *where,
                         char *err, size_t errlen)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", line);
    buf[strcspn(buf, "#\r\n")] = 0;
    char *save = NULL, *tok = strtok_r(buf, " \t", &save);
    if (!tok)
        return 0; /* blank or comment */
    const char *name = tok;
    size_t nlen = strcspn(name, ":");
    if (hl_add_item(hl, name, strlen(name), where, err, errlen) < 0)
        return -1;
    struct mpx_host *h = NULL;
    for (int i = 0; i < hl->n && !h; i++)
        if (strlen(hl->host[i].name) == nlen && !strncmp(hl->host[i].name, name, nlen))
            h = &hl->host[i];
    while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
        const char *eq = strchr(tok, '=');
        size_t klen = eq ? (size_t)(eq - tok) : strlen(tok);
        int n;
        if (eq && (hl_is_key(tok, klen, "slots") || hl_is_key(tok, klen, "count"))) {
            if (hl_count(eq + 1, strlen(eq + 1), &n) < 0) {
                snprintf(err, errlen, "%s: '%s': slots must be a whole number from 1 to %d",
                         where, tok, HL_SLOTS_MAX);
                return -1;
            }
            if (strchr(name, ':')) {
                snprintf(err, errlen, "%s: '%s' gives the slots twice (host:N and slots=N)",
                         where, name);
                return -1;
            }
            /* The line counted one slot already; slots=N means N. */
            h->slots += n - 1;
            h->explicit_slots = 1;
        } else if (eq && (hl_is_key(tok, klen, "max_slots") || hl_is_key(tok, klen, "max-slots"))) {
            if (hl_count(eq + 1, strlen(eq + 1), &n) < 0) {
                snprintf(err, errlen, "%s: '%s': max_slots must be a whole number", where, tok);
                return -1;
            }
            /* Accepted for Open MPI host files; mpiexec oversubscribes anyway. */
        } else {
            snprintf(err, errlen, "%s: unknown '%s' after the host name (a line is 'host', "
                     "'host:N' or 'host slots=N [max_slots=M]'; '#' starts a comment)", where,
                     tok);
            return -1;
        }
    }
    return 0;
}

int mpx_hosts_read_file(struct mpx_hostlist *hl, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read host file %s: %s", path, strerror(errno));
        return -1;
    }
    char line[1024], where[PATH_MAX + 32];
    int lineno = 0, before = hl->n, rc = 0;
    long long slots_before = mpx_hosts_total_slots(hl, 0);
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, errlen, "%s: line longer than %zu characters", where,
                     sizeof line - 2);
            rc = -1;
            break;
        }
        rc = mpx_hosts_parse_line(hl, line, where, err, errlen);
    }
    fclose(f);
    if (rc == 0 && hl->n == before && mpx_hosts_total_slots(hl, 0) == slots_before) {
        snprintf(err, errlen, "host file %s names no host", path);
        rc = -1;
    }
    return rc;
}

/* ---- Slurm's compressed lists ---- */

/* Expand one item (brackets allowed anywhere) onto the list. */
static int hl_expand(struct mpx_hostlist *hl, const char *item, size_t len, int *count_idx,
                     const int *counts, int ncounts, char *err, size_t errlen)
{
    const char *lb = memchr(item, '[', len);
    if (!lb) {
        int slots = 1;
        if (counts) {
            if (*count_idx >= ncounts) {
                snprintf(err, errlen, "the Slurm node list has more nodes than the task counts "
                         "give numbers for");
                return -1;
            }
            slots = counts[(*count_idx)++];
        }
        char why[400];
        if (mpx_hosts_add(hl, item, len, slots, why, sizeof why) < 0) {
            snprintf(err, errlen, "Slurm node list: %s", why);
            return -1;
        }
        return 0;
    }
    const char *rb = memchr(lb, ']', len - (size_t)(lb - item));
    if (!rb) {
        snprintf(err, errlen, "Slurm node list item '%.*s' lacks its ']'", (int)len, item);
        return -1;
    }
    size_t plen = (size_t)(lb - item), slen = len - (size_t)(rb + 1 - item);
    const char *suffix = rb + 1;
    for (const char *r = lb + 1; r < rb;) {
        size_t rlen = strcspn(r, ",]");
        if (rlen > (size_t)(rb - r))
            rlen = (size_t)(rb - r);
        const char *dash = memchr(r, '-', rlen);
        char a[16] = "", b[16] = "";
        size_t alen = dash ? (size_t)(dash - r) : rlen, blen = dash ? rlen - alen - 1 : 0;
        if (alen == 0 || alen >= sizeof a || blen >= sizeof b || (dash && blen == 0)) {
            snprintf(err, errlen, "Slurm node list range '%.*s' is not N or N-M", (int)rlen, r);
            return -1;
        }
        memcpy(a, r, alen);
        memcpy(b, dash ? dash + 1 : r, dash ? blen : alen);
        char *e1, *e2;
        long lo = strtol(a, &e1, 10), hi = strtol(b, &e2, 10);
        if (*e1 || *e2 || lo < 0 || hi < lo || hi - lo > 100000) {
            snprintf(err, errlen, "Slurm node list range '%.*s' is not N or N-M with N <= M",
                     (int)rlen, r);
            return -1;
        }
        int width = a[0] == '0' ? (int)alen : 0; /* zero padding as written */
        for (long v = lo; v <= hi; v++) {
            char name[MPX_HOST_NAME_MAX + 64];
            int n = snprintf(name, sizeof name, "%.*s%0*ld%.*s", (int)plen, item, width, v,
                             (int)slen, suffix);
            if (n < 0 || (size_t)n >= sizeof name) {
                snprintf(err, errlen, "Slurm node name too long");
                return -1;
            }
            if (hl_expand(hl, name, (size_t)n, count_idx, counts, ncounts, err, errlen) < 0)
                return -1;
        }
        r += rlen;
        if (*r == ',')
            r++;
    }
    return 0;
}

/* "2(x3),1" -> 2 2 2 1. Returns the count, or -1. */
static int hl_slurm_counts(const char *s, int **out, char *err, size_t errlen)
{
    int n = 0, cap = 16;
    int *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return snprintf(err, errlen, "out of memory"), -1;
    for (const char *p = s; *p;) {
        char *end;
        long c = strtol(p, &end, 10), rep = 1;
        if (end == p || c < 1 || c > HL_SLOTS_MAX)
            goto bad;
        p = end;
        if (*p == '(') {
            if (p[1] != 'x')
                goto bad;
            rep = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || rep < 1 || rep > 1000000)
                goto bad;
            p = end + 1;
        }
        for (long i = 0; i < rep; i++) {
            if (n == cap) {
                int *nv = realloc(v, (size_t)(cap *= 2) * sizeof *v);
                if (!nv) {
                    free(v);
                    return snprintf(err, errlen, "out of memory"), -1;
                }
                v = nv;
            }
            v[n++] = (int)c;
        }
        if (*p == ',')
            p++;
        else if (*p)
            goto bad;
    }
    *out = v;
    return n;
bad:
    free(v);
    snprintf(err, errlen, "Slurm task counts '%s' are not of the form N(xM),N,...", s);
    return -1;
}

int mpx_hosts_from_slurm(struct mpx_hostlist *hl, const char *nodelist, const char *counts,
                         char *err, size_t errlen)
{
    int *cv = NULL, ncv = 0, idx = 0;
    if (counts && *counts && (ncv = hl_slurm_counts(counts, &cv, err, errlen)) < 0)
        return -1;
    int rc = 0;
    for (const char *p = nodelist; *p && rc == 0;) {
        /* An item ends at a comma outside brackets. */
        size_t len = 0;
        int depth = 0;
        while (p[len] && (depth || p[len] != ',')) {
            depth += p[len] == '[' ? 1 : p[len] == ']' ? -1 : 0;
            len++;
        }
        if (len)
            rc = hl_expand(hl, p, len, &idx, cv, ncv, err, errlen);
        p += len;
        if (*p)
            p++;
    }
    if (rc == 0 && hl->n == 0) {
        snprintf(err, errlen, "the Slurm node list '%s' names no node", nodelist);
        rc = -1;
    }
    free(cv);
    return rc;
}

/* ---- placement ---- */

int mpx_hosts_total_slots(const struct mpx_hostlist *hl, int ppn)
{
    long long t = 0;
    for (int i = 0; i < hl->n; i++)
        t += ppn > 0 ? ppn : hl->host[i].slots;
    return t > INT_MAX ? INT_MAX : (int)t;
}

int mpx_map_parse(const char *spec, enum mpx_map_policy *pol, int *ppn, char *err,
                  size_t errlen)
{
    if (!strcmp(spec, "slot") || !strcmp(spec, "slots") || !strcmp(spec, "by-slot")) {
        *pol = MPX_MAP_SLOT;
        return 1;
    }
    if (!strcmp(spec, "node") || !strcmp(spec, "nodes")) {
        *pol = MPX_MAP_NODE;
        return 1;
    }
    if (strncmp(spec, "ppr:", 4) != 0)
        return 0;
    /* ppr:N:node places hosts; per socket, NUMA node, L3 cache or core it is
     * the library's (FARO_MAP_BY), on each host, where the topology is known. */
    static const char *const local[] = {"socket", "package", "numa", "l3cache", "l3", "core"};
    const char *n = spec + 4, *colon = strchr(n, ':');
    int count, is_local = 0;
    for (size_t i = 0; colon && i < sizeof local / sizeof local[0]; i++)
        is_local |= !strcmp(colon + 1, local[i]);
    if (!colon || (strcmp(colon + 1, "node") && !is_local) ||
        hl_count(n, (size_t)(colon - n), &count) < 0) {
        snprintf(err, errlen, "--map-by '%s': expected ppr:N:RESOURCE, N a whole number of "
                 "ranks (1 or more) per node (host), socket (or package), numa, l3cache (or "
                 "l3) or core", spec);
        return -1;
    }
    if (is_local)
        return 2;
    *ppn = count;
    *pol = MPX_MAP_PPR;
    return 1;
}

int mpx_hosts_map(const struct mpx_hostlist *hl, int np, enum mpx_map_policy pol, int ppn,
                  int *host_of, char *err, size_t errlen)
{
    if (hl->n == 0) {
        snprintf(err, errlen, "no hosts to place %d ranks on", np);
        return -1;
    }
    if (pol == MPX_MAP_NODE) {
        for (int r = 0; r < np; r++)
            host_of[r] = r % hl->n;
        return 0;
    }
    int r = 0;
    while (r < np)
        for (int h = 0; h < hl->n && r < np; h++)
            for (int i = 0, cap = ppn > 0 ? ppn : hl->host[h].slots; i < cap && r < np; i++)
                host_of[r++] = h;
    return 0;
}

/* ---- PMI_process_mapping ---- */

struct pm_block {
    int start, nodes, per;
};

/* Does repeating blk[0..p) reproduce host_of? */
static int pm_repeats(const struct pm_block *blk, int p, const int *host_of, int np)
{
    int r = 0;
    while (r < np)
        for (int b = 0; b < p && r < np; b++)
            for (int k = 0; k < blk[b].nodes && r < np; k++)
                for (int i = 0; i < blk[b].per && r < np; i++)
                    if (host_of[r++] != blk[b].start + k)
                        return 0;
    return 1;
}

int mpx_process_mapping(const int *host_of, int np, char *buf, size_t len)
{
    int cap = 64, nb = 0;
    struct pm_block *blk = malloc((size_t)cap * sizeof *blk);
    if (!blk || np < 1) {
        free(blk);
        return -1;
    }
    /* Runs of ranks on one host, merged into blocks of consecutive hosts with
     * equal runs. */
    for (int r = 0; r < np;) {
        int h = host_of[r], n = 0;
        while (r < np && host_of[r] == h)
            r++, n++;
        struct pm_block *last = nb ? &blk[nb - 1] : NULL;
        if (last && last->per == n && last->start + last->nodes == h) {
            last->nodes++;
            continue;
        }
        if (nb == cap) {
            struct pm_block *nbk = realloc(blk, (size_t)(cap *= 2) * sizeof *blk);
            if (!nbk) {
                free(blk);
                return -1;
            }
            blk = nbk;
        }
        blk[nb++] = (struct pm_block){ h, 1, n };
    }
    /* The shortest prefix whose repetition gives the whole map. */
    int p = 1;
    while (p < nb && !pm_repeats(blk, p, host_of, np))
        p++;
    size_t used = (size_t)snprintf(buf, len, "(vector");
    for (int b = 0; b < p && used < len; b++)
        used += (size_t)snprintf(buf + used, len - used, ",(%d,%d,%d)", blk[b].start,
                                 blk[b].nodes, blk[b].per);
    if (used < len)
        used += (size_t)snprintf(buf + used, len - used, ")");
    free(blk);
    return used < len ? (int)used : -1;
}

/* ---- the launch tree ---- */

int mpx_tree_children(int lo, int hi, int width, int *child, int *end)
{
    int n = hi - lo;
    if (n <= 0)
        return 0;
    int m = n < width ? n : width, base = n / m, extra = n % m, at = lo;
    for (int i = 0; i < m; i++) {
        child[i] = at;
        at += base + (i < extra);
        end[i] = at;
    }
    return m;
}

int mpx_tree_slice(int nhosts, int width, int me, int *parent)
{
    int lo = 0, hi = nhosts;
    *parent = -1;
    for (;;) {
        int n = hi - lo, m = n < width ? n : width;
        int child[m > 0 ? m : 1], end[m > 0 ? m : 1];
        m = mpx_tree_children(lo, hi, width, child, end);
        int c = 0;
        while (c < m && end[c] <= me)
            c++;
        if (c == m)
            return -1; /* me is not in [lo, hi) */
        if (child[c] == me)
            return end[c];
        *parent = child[c];
        lo = child[c] + 1;
        hi = end[c];
    }
}
