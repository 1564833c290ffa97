/*
 * The programs of one job (MPMD): `mpiexec -n 2 a : -n 3 b` or a config
 * file (Hydra's -configfile, Open MPI's --app appfile) with one program and
 * its options per line. options.c parses each program's options; this file
 * reads config files and places ranks: a program's ranks follow those of
 * the programs before it, and MPI_APPNUM is the program's index.
 */
#include "config.h"

#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Words of a list under construction. */
struct words {
    char **v;
    size_t n, cap;
};

static int words_add(struct words *w, const char *s, size_t len)
{
    if (w->n + 2 > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        char **v = realloc(w->v, cap * sizeof *v);
        if (!v)
            return -1;
        w->v = v;
        w->cap = cap;
    }
    if (!(w->v[w->n] = strndup(s, len)))
        return -1;
    w->v[++w->n] = NULL;
    return 0;
}

/* Split one line into w: blanks separate words, '...' and "..." quote them
 * (no escapes inside), '#' at the start of a word begins a comment. -1 with
 * err set for an unclosed quote or no memory. */
static int apps_split_line(const char *line, struct words *w, char *err, size_t errlen)
{
    char word[4096];
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p || *p == '#')
            return 0;
        size_t n = 0;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            if (*p == '\'' || *p == '"') {
                const char *close = strchr(p + 1, *p);
                if (!close)
                    return snprintf(err, errlen, "an unclosed %c", *p), -1;
                for (p++; p < close && n < sizeof word; p++)
                    word[n++] = *p;
                p++;
            } else if (n < sizeof word) {
                word[n++] = *p++;
            }
        }
        if (n >= sizeof word)
            return snprintf(err, errlen, "a word longer than %zu bytes", sizeof word - 1), -1;
        if (words_add(w, word, n) < 0)
            return snprintf(err, errlen, "out of memory"), -1;
    }
}

char **mpx_apps_read_file(const char *path, char *err, size_t errlen)
{
    err[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read the config file %s: %s", path, strerror(errno));
        return NULL;
    }
    struct words all = { 0 }, one = { 0 };
    char *line = NULL, why[128];
    size_t cap = 0;
    int lineno = 0, bad = 0;
    while (!bad && getline(&line, &cap, f) >= 0) {
        lineno++;
        if (apps_split_line(line, &one, why, sizeof why) < 0) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            bad = 1;
        }
        /* A ':' in front of every program but the first. */
        if (!bad && one.n && all.n && words_add(&all, ":", 1) < 0)
            bad = 1;
        for (size_t i = 0; !bad && i < one.n; i++)
            bad = words_add(&all, one.v[i], strlen(one.v[i])) < 0;
        if (bad && !err[0])
            snprintf(err, errlen, "out of memory reading %s", path);
        mpx_argv_free(one.v);
        one = (struct words){ 0 };
    }
    free(line);
    fclose(f);
    if (!bad && all.n == 0) {
        snprintf(err, errlen, "the config file %s names no program", path);
        bad = 1;
    }
    if (bad) {
        mpx_argv_free(all.v);
        return NULL;
    }
    return all.v;
}

int mpx_apps_resolve(struct mpx_opts *o, int np)
{
    if (o->napps == 1 && o->apps[0].np == 0)
        o->apps[0].np = np;
    return 0;
}

int mpx_app_of(const struct mpx_opts *o, int rank)
{
    for (int k = 0, end = 0; k < o->napps; k++)
        if (rank < (end += o->apps[k].np))
            return k;
    return o->napps > 0 ? o->napps - 1 : 0;
}
