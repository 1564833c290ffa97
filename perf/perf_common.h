/*
 * perf_common.h: what the benchmark programs perf/p2p.c and perf/coll.c
 * share: option parsing helpers, the message-size sweep, the off-cache
 * region size, the progress line and the csv/json row writer. Standard MPI
 * C and POSIX only, so that the programs build unchanged with any MPI's
 * mpicc (the header sits next to the sources; `mpicc perf/p2p.c` finds it).
 *
 * Output: rank 0 writes every row as soon as it is measured. csv is "# "
 * comment lines, one header line, then one line per row with an empty field
 * where a value does not apply; json is one object
 * {"tool":..,"mpi":..,"np":..,"results":[rows]} whose rows carry the csv
 * header's keys, null where a value does not apply. The table format is
 * each program's own (IMB style).
 */
#ifndef FARO_PERF_COMMON_H
#define FARO_PERF_COMMON_H

/* strdup, sysconf, isatty also under a strict -std=c11 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum perf_format { PERF_TABLE, PERF_CSV, PERF_JSON };

static const char *perf_tool = "perf";

static inline int perf_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

/* An error every rank finds (options, a failed check): rank 0 says it in
 * one write and aborts; the others wait to be taken down with it, so that
 * no other rank's abort cuts the message short. */
static inline void perf_die(const char *fmt, ...)
{
    if (perf_rank() == 0) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        fprintf(stderr, "%s: %s\n", perf_tool, msg);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 2);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    exit(2);
}

/* An error of this rank alone. */
static inline void perf_oom(size_t bytes)
{
    fprintf(stderr, "%s: rank %d: out of memory (%zu bytes)\n", perf_tool, perf_rank(), bytes);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

/* "4096", "64k", "4m", "1g" (powers of 1024) */
static inline size_t perf_parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        perf_die("bad size '%s' (use e.g. 0, 4096, 64k, 4m)", s);
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end != '\0')
        perf_die("bad size suffix in '%s' (k, m or g)", s);
    return (size_t)v;
}

/* A comma-separated list of sizes; returns the count, *out malloc'd. */
static inline int perf_parse_size_list(const char *s, size_t **out)
{
    int n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    size_t *v = malloc(sizeof(*v) * (size_t)n);
    char *copy = strdup(s);
    if (!v || !copy)
        perf_oom(sizeof(*v) * (size_t)n);
    int k = 0;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ","))
        v[k++] = perf_parse_size(tok);
    free(copy);
    if (k == 0)
        perf_die("empty list '%s'", s);
    *out = v;
    return k;
}

/* Repetitions per round: about 64 MiB moved per round so that a round lasts
 * milliseconds; 16384 up to 4 KiB, at least 20; times --iters-scale. */
static inline long perf_reps(size_t n, double scale)
{
    long r = (long)((64.0 * 1024 * 1024) / (double)(n > 4096 ? n : 4096));
    if (r < 20)
        r = 20;
    r = (long)((double)r * scale);
    return r < 2 ? 2 : r;
}

static int perf_cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The sweep: minsz, then doubling (0 is followed by 1) up to maxsz (always
 * included), plus, when `around` is given, each threshold T +-1 and
 * +-12.5% inside [minsz, maxsz]. Returns the count, *out malloc'd, sorted
 * and without duplicates. */
static inline int perf_sizes(size_t minsz, size_t maxsz, const size_t *around, int naround,
                             size_t **out)
{
    int cap = 80 + 5 * naround, n = 0;
    size_t *v = malloc(sizeof(*v) * (size_t)cap);
    if (!v)
        perf_oom(sizeof(*v) * (size_t)cap);
    for (size_t s = minsz;;) {
        v[n++] = s;
        if (s >= maxsz)
            break;
        size_t next = s == 0 ? 1 : s * 2;
        s = next > maxsz ? maxsz : next;
    }
    for (int i = 0; i < naround; i++) {
        size_t t = around[i];
        size_t cand[5] = {t, t + 1, t ? t - 1 : 0, t - t / 8, t + t / 8};
        for (int j = 0; j < 5; j++)
            if (cand[j] >= minsz && cand[j] <= maxsz)
                v[n++] = cand[j];
    }
    qsort(v, (size_t)n, sizeof(*v), perf_cmp_size);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || v[i] != v[u - 1])
            v[u++] = v[i];
    *out = v;
    return u;
}

/* Thresholds --fine-sweep looks around when --around is not given. */
static const size_t perf_default_around[] = {4096, 8192, 12288, 16384, 65536, 131072, 262144};

/* Bytes of the last-level cache (0 when unknown). */
static inline size_t perf_llc_bytes(void)
{
    long v = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    if (v > 0)
        return (size_t)v;
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[128], buf[64];
        int level = 0;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        if (fscanf(f, "%d", &level) != 1)
            level = 0;
        fclose(f);
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(buf, sizeof(buf), f)) {
            buf[strcspn(buf, "\n")] = '\0';
            size_t s = strtoul(buf, NULL, 10);
            if (strchr(buf, 'K'))
                s *= 1024;
            else if (strchr(buf, 'M'))
                s *= 1024 * 1024;
            if (level >= 2 && s > best)
                best = s;
        }
        fclose(f);
    }
    return best;
}

/* --off-cache without a value: twice the last-level cache, at least 64 MiB. */
static inline size_t perf_off_cache_default(void)
{
    size_t r = 2 * perf_llc_bytes();
    return r < ((size_t)64 << 20) ? (size_t)64 << 20 : r;
}

/* Buffers cycled over a region so that, with --off-cache, each iteration
 * touches memory the last iterations did not (IMB -off_cache): slot k of
 * nslots, each slot one iteration's bytes rounded up to a cache line. */
struct perf_cycle {
    char *base;
    size_t slot, nslots, cur;
};

static inline void perf_cycle_init(struct perf_cycle *c, char *base, size_t region, size_t need)
{
    c->base = base;
    c->slot = (need + 63) & ~(size_t)63;
    if (c->slot == 0)
        c->slot = 64;
    c->nslots = region / c->slot;
    if (c->nslots < 1)
        c->nslots = 1;
    c->cur = 0;
}

static inline char *perf_cycle_next(struct perf_cycle *c)
{
    char *p = c->base + c->cur * c->slot;
    if (++c->cur == c->nslots)
        c->cur = 0;
    return p;
}

/* Progress on stderr (rank 0), one line overwritten with \r. */
static int perf_progress_on;

static inline void perf_progress(const char *fmt, ...)
{
    if (!perf_progress_on)
        return;
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r%-79.79s", line);
    fflush(stderr);
}

static inline void perf_progress_done(void)
{
    if (perf_progress_on)
        fprintf(stderr, "\r%79s\r", "");
}

/* The first line of MPI_Get_library_version, JSON-safe. */
static inline void perf_library(char *out, size_t len)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(lib, &n);
    lib[strcspn(lib, "\n")] = '\0';
    size_t j = 0;
    for (size_t i = 0; lib[i] && j + 2 < len; i++) {
        unsigned char ch = (unsigned char)lib[i];
        if (ch < 0x20)
            continue;
        if (ch == '"' || ch == '\\')
            out[j++] = '\\';
        out[j++] = (char)ch;
    }
    out[j] = '\0';
}

/* csv/json row writer; the keys are the csv header's. */
struct perf_out {
    int format;
    int nkeys;
    const char *const *keys;
    int rows;
};

static inline void perf_out_begin(struct perf_out *o, const char *lib, int np)
{
    if (o->format == PERF_CSV) {
        printf("# library: %s\n", lib);
        for (int i = 0; i < o->nkeys; i++)
            printf("%s%s", i ? "," : "", o->keys[i]);
        printf("\n");
    } else if (o->format == PERF_JSON) {
        printf("{\"tool\":\"%s\",\"mpi\":\"%s\",\"np\":%d,\"results\":[", perf_tool, lib, np);
    }
    fflush(stdout);
}

/* vals[i] is the text of key i, NULL where it does not apply; the first
 * value is a name (a json string), the others numbers. */
static inline void perf_out_row(struct perf_out *o, const char *const *vals)
{
    if (o->format == PERF_CSV) {
        for (int i = 0; i < o->nkeys; i++)
            printf("%s%s", i ? "," : "", vals[i] ? vals[i] : "");
        printf("\n");
    } else if (o->format == PERF_JSON) {
        printf("%s\n {", o->rows ? "," : "");
        for (int i = 0; i < o->nkeys; i++)
            printf(i == 0 ? "%s\"%s\":\"%s\"" : "%s\"%s\":%s", i ? "," : "", o->keys[i],
                   vals[i] ? vals[i] : "null");
        printf("}");
    }
    o->rows++;
    fflush(stdout);
}

static inline void perf_out_end(struct perf_out *o)
{
    if (o->format == PERF_JSON)
        printf("\n]}\n");
    fflush(stdout);
}

/* --format NAME */
static inline int perf_parse_format(const char *v)
{
    if (!strcmp(v, "table"))
        return PERF_TABLE;
    if (!strcmp(v, "csv"))
        return PERF_CSV;
    if (!strcmp(v, "json"))
        return PERF_JSON;
    perf_die("--format takes table, csv or json");
    return PERF_TABLE;
}

/* The options every tool takes. */
struct perf_opts {
    size_t minsz, maxsz;
    double scale;     /* --iters-scale */
    int rounds, format;
    int progress;     /* 0 off, 1 on a terminal, 2 always */
    size_t off_cache; /* 0: off */
};

/* The option at argv[*i] if it is one of struct perf_opts's (its value, if
 * any, at argv[*i + 1]): applied to o, *i moved past it, 1. Otherwise 0. */
static inline int perf_parse_common(int argc, char **argv, int *i, struct perf_opts *o)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!strcmp(a, "--csv")) {
        o->format = PERF_CSV;
    } else if (!strcmp(a, "--format") && v) {
        o->format = perf_parse_format(v), (*i)++;
    } else if (!strcmp(a, "--min-size") && v) {
        o->minsz = perf_parse_size(v), (*i)++;
    } else if (!strcmp(a, "--max-size") && v) {
        o->maxsz = perf_parse_size(v), (*i)++;
    } else if (!strcmp(a, "--off-cache")) {
        o->off_cache = perf_off_cache_default();
    } else if (!strncmp(a, "--off-cache=", 12)) {
        o->off_cache = perf_parse_size(a + 12);
    } else if (!strcmp(a, "--iters-scale") && v) {
        o->scale = atof(v), (*i)++;
        if (o->scale <= 0)
            perf_die("--iters-scale must be > 0");
    } else if (!strcmp(a, "--rounds") && v) {
        o->rounds = atoi(v), (*i)++;
        if (o->rounds < 1)
            perf_die("--rounds must be >= 1");
    } else if (!strcmp(a, "--progress")) {
        o->progress = 1;
    } else if (!strcmp(a, "--progress=always")) {
        o->progress = 2;
    } else {
        return 0;
    }
    return 1;
}

/* --progress: on rank 0 only, and with plain --progress only on a terminal. */
static inline void perf_progress_enable(int rank, const struct perf_opts *o)
{
    perf_progress_on = rank == 0 && (o->progress == 2 || (o->progress == 1 && isatty(2)));
}

#endif
