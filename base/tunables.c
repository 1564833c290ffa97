/*
 * Tunables: the table from tunables.def, environment parsing and validation.
 *
 * Values live in plain arrays indexed by enum faro_tun_id so that any path may
 * read them. faro_tunables_load() resets every value to its default and then
 * applies the FARO_* environment; it may run more than once (MPI_Init after
 * faro_info's own call, tests) and warns about an unknown name only once.
 */
#include "base/tunables.h"
#include "base/log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

const struct faro_tunable_desc faro_tunable_table[FARO_TUN_COUNT] = {
#define FARO_TUNABLE(id, type, def, min, max, choices, summary, desc) \
    {"FARO_" #id, FARO_TUN_TYPE_##type, def, min, max, choices, summary, desc},
#include "base/tunables_all.def"
#undef FARO_TUNABLE
};

/* Variables the launcher passes to ranks start with this prefix; they are
 * Faro's own plumbing, not tunables, so they are never reported as unknown. */
#define FARO_INTERNAL_PREFIX "FARO_INTERNAL_"

/* The GPU client's key (gpu/client/gpu_tunables.def): known, and not a
 * tunable, since tunables' values are shown (faro_info, MPI_T). */
#define FARO_SECRET_KEY "FARO_GPU_KEY"

static long long tun_val[FARO_TUN_COUNT];
static char *tun_text[FARO_TUN_COUNT]; /* the user's text when set, owned here */
static unsigned char tun_set[FARO_TUN_COUNT];
static unsigned char tun_tool[FARO_TUN_COUNT]; /* set by faro_tun_set: the environment yields */
static int tun_ready;

/* Unknown names already warned about, so a second load stays quiet. */
static char **warned;
static size_t nwarned;

/* A default like "(per transport)" describes who decides; it is not a value. */
static int default_is_placeholder(const char *def)
{
    return def[0] == '(';
}

static const char *skip_space(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

/* True when only white space is left: values may carry stray blanks from scripts. */
static int only_space(const char *s)
{
    return *skip_space(s) == 0;
}

static int parse_int(const char *text, long long *out)
{
    const char *s = skip_space(text);
    char *end;
    if (*s == 0)
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || !only_space(end))
        return -1;
    *out = v;
    return 0;
}

static int parse_size(const char *text, long long *out)
{
    const char *s = skip_space(text);
    char *end;
    if (!isdigit((unsigned char)*s)) /* no sign, no empty text */
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (!only_space(end))
        return -1;
    if (v > ((unsigned long long)LLONG_MAX >> shift))
        return -2; /* a number, but too large for any range */
    *out = (long long)(v << shift);
    return 0;
}

static int parse_bool(const char *text, long long *out)
{
    static const char *const yes[] = {"1", "yes", "on", "true"};
    static const char *const no[] = {"0", "no", "off", "false"};
    const char *s = skip_space(text);
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    for (size_t i = 0; i < 4; i++) {
        if (strlen(yes[i]) == n && strncasecmp(s, yes[i], n) == 0) {
            *out = 1;
            return 0;
        }
        if (strlen(no[i]) == n && strncasecmp(s, no[i], n) == 0) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

/* Index of text among "a|b|c" (case-insensitive), or -1. */
static int parse_enum(const char *choices, const char *text, long long *out)
{
    const char *s = skip_space(text);
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    long long idx = 0;
    const char *c = choices;
    for (;;) {
        const char *bar = strchr(c, '|');
        size_t clen = bar ? (size_t)(bar - c) : strlen(c);
        if (n > 0 && clen == n && strncasecmp(c, s, n) == 0) {
            *out = idx;
            return 0;
        }
        if (!bar)
            return -1;
        c = bar + 1;
        idx++;
    }
}

/* "spin|yield|auto" -> "spin, yield, auto" for messages. */
static void choices_words(const char *choices, char *buf, size_t len)
{
    size_t o = 0;
    for (const char *c = choices; *c && o + 3 < len; c++) {
        if (*c == '|') {
            buf[o++] = ',';
            buf[o++] = ' ';
        } else {
            buf[o++] = *c;
        }
    }
    buf[o] = 0;
}

/* An example size inside the range, written the way users write it. */
static void size_example(long long min, long long max, char *buf, size_t len)
{
    long long ex = 65536;
    if (ex < min || ex > max)
        ex = min;
    if (ex != 0 && ex % (1LL << 30) == 0)
        snprintf(buf, len, "%lldg", ex >> 30);
    else if (ex != 0 && ex % (1LL << 20) == 0)
        snprintf(buf, len, "%lldm", ex >> 20);
    else if (ex != 0 && ex % (1LL << 10) == 0)
        snprintf(buf, len, "%lldk", ex >> 10);
    else
        snprintf(buf, len, "%lld", ex);
}

int faro_tun_parse(enum faro_tun_id id, const char *text, long long *out, char *err,
                   size_t errlen)
{
    if ((unsigned)id >= FARO_TUN_COUNT || !text) {
        if (err && errlen)
            snprintf(err, errlen, "tunable id %d is not in the table", (int)id);
        return -1;
    }
    const struct faro_tunable_desc *d = &faro_tunable_table[id];
    long long v = 0;
    int rc;
    char words[256], ex[32];

    switch (d->type) {
    case FARO_TUN_TYPE_INT:
        rc = parse_int(text, &v);
        if (rc == 0 && (v < d->min || v > d->max))
            rc = -1;
        if (rc != 0) {
            if (err && errlen)
                snprintf(err, errlen, "%s=%s is invalid: expected an integer from %lld to %lld",
                         d->name, text, d->min, d->max);
            return -1;
        }
        break;
    case FARO_TUN_TYPE_SIZE:
        rc = parse_size(text, &v);
        if (rc == 0 && (v < d->min || v > d->max))
            rc = -1;
        if (rc != 0) {
            size_example(d->min, d->max, ex, sizeof ex);
            if (err && errlen)
                snprintf(err, errlen,
                         "%s=%s is invalid: expected a size in bytes from %lld to %lld "
                         "(suffixes k, m, g; e.g. %s)",
                         d->name, text, d->min, d->max, ex);
            return -1;
        }
        break;
    case FARO_TUN_TYPE_BOOL:
        if (parse_bool(text, &v) != 0) {
            if (err && errlen)
                snprintf(err, errlen,
                         "%s=%s is invalid: expected a boolean: 1, yes, on, true or 0, no, off, "
                         "false",
                         d->name, text);
            return -1;
        }
        break;
    case FARO_TUN_TYPE_ENUM:
        if (parse_enum(d->choices, text, &v) != 0) {
            choices_words(d->choices, words, sizeof words);
            if (err && errlen)
                snprintf(err, errlen, "%s=%s is invalid: expected one of %s", d->name, text,
                         words);
            return -1;
        }
        break;
    case FARO_TUN_TYPE_STRING:
        v = -1; /* free text has no number; callers use faro_tun_str */
        break;
    }
    if (out)
        *out = v;
    return 0;
}

static void set_defaults(void)
{
    for (int i = 0; i < FARO_TUN_COUNT; i++) {
        const struct faro_tunable_desc *d = &faro_tunable_table[i];
        if (tun_tool[i])
            continue; /* a tool's value outlives a reload (MPI_T before MPI_Init) */
        long long v = -1;
        /* A placeholder or unparsable default means "no value": -1, not set. */
        if (!default_is_placeholder(d->def) &&
            faro_tun_parse((enum faro_tun_id)i, d->def, &v, NULL, 0) != 0)
            v = -1;
        tun_val[i] = v;
        free(tun_text[i]);
        tun_text[i] = NULL;
        tun_set[i] = 0;
    }
}

static int lookup(const char *name, size_t len)
{
    for (int i = 0; i < FARO_TUN_COUNT; i++) {
        const char *n = faro_tunable_table[i].name;
        if (strlen(n) == len && strncmp(n, name, len) == 0)
            return i;
    }
    return -1;
}

/* Levenshtein distance, two rows; names are short. */
static size_t edit_distance(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b);
    size_t row0[128], row1[128];
    if (la >= 128 || lb >= 128)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row0[j] = j;
    for (size_t i = 1; i <= la; i++) {
        row1[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = row0[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = row0[j] + 1, ins = row1[j - 1] + 1;
            size_t m = sub < del ? sub : del;
            row1[j] = m < ins ? m : ins;
        }
        memcpy(row0, row1, (lb + 1) * sizeof row0[0]);
    }
    return row0[lb];
}

static int already_warned(const char *name, size_t len)
{
    for (size_t i = 0; i < nwarned; i++)
        if (strlen(warned[i]) == len && strncmp(warned[i], name, len) == 0)
            return 1;
    return 0;
}

static void remember_warned(const char *name, size_t len)
{
    char **w = realloc(warned, (nwarned + 1) * sizeof *w);
    if (!w)
        return; /* worst case: the warning repeats */
    warned = w;
    warned[nwarned] = strndup(name, len);
    if (warned[nwarned])
        nwarned++;
}

static void warn_unknown(const char *name, size_t len)
{
    if (already_warned(name, len))
        return;
    remember_warned(name, len);

    int best = -1;
    size_t best_d = (size_t)-1;
    for (int i = 0; i < FARO_TUN_COUNT; i++) {
        size_t dist = edit_distance(name, len, faro_tunable_table[i].name);
        if (dist < best_d) {
            best_d = dist;
            best = i;
        }
    }
    /* Suggest only a near miss; a far one would mislead. */
    size_t allowed = len / 4 > 3 ? len / 4 : 3;
    if (best >= 0 && best_d <= allowed)
        faro_warn("%.*s is not a Faro tunable (did you mean %s?); see faro_info --all", (int)len,
                  name, faro_tunable_table[best].name);
    else
        faro_warn("%.*s is not a Faro tunable; see faro_info --all", (int)len, name);
}

int faro_tunables_load(char *err, size_t errlen)
{
    set_defaults();
    tun_ready = 1;

    /* Unknown names first: a typo is worth knowing even when another value is bad. */
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "FARO_", 5) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (strncmp(*e, FARO_INTERNAL_PREFIX, strlen(FARO_INTERNAL_PREFIX)) == 0)
            continue;
        if (len == strlen(FARO_SECRET_KEY) && strncmp(*e, FARO_SECRET_KEY, len) == 0)
            continue;
        if (lookup(*e, len) < 0)
            warn_unknown(*e, len);
    }

    int rc = 0;
    for (int i = 0; i < FARO_TUN_COUNT; i++) {
        const struct faro_tunable_desc *d = &faro_tunable_table[i];
        const char *text = getenv(d->name);
        if (!text || tun_tool[i])
            continue;
        /* An empty number means "unset" (FARO_X= in a script); an empty string is a value. */
        if (d->type != FARO_TUN_TYPE_STRING && only_space(text))
            continue;
        long long v;
        if (faro_tun_parse((enum faro_tun_id)i, text, &v, rc == 0 ? err : NULL,
                           rc == 0 ? errlen : 0) != 0) {
            rc = -1; /* report the first bad value; keep defaults for it */
            continue;
        }
        char *copy = strdup(text);
        if (!copy) {
            if (rc == 0 && err && errlen)
                snprintf(err, errlen, "%s: out of memory while reading the environment",
                         d->name);
            rc = -1;
            continue;
        }
        tun_val[i] = v;
        tun_text[i] = copy;
        tun_set[i] = 1;
    }
    return rc;
}

/* Getters work before load too (defaults), so a tool may read them early. */
static inline void ensure_ready(void)
{
    if (!tun_ready) {
        set_defaults();
        tun_ready = 1;
    }
}

long long faro_tun_int(enum faro_tun_id id)
{
    ensure_ready();
    return (unsigned)id < FARO_TUN_COUNT ? tun_val[id] : -1;
}

const char *faro_tun_str(enum faro_tun_id id)
{
    ensure_ready();
    if ((unsigned)id >= FARO_TUN_COUNT)
        return "";
    if (tun_set[id])
        return tun_text[id];
    const char *def = faro_tunable_table[id].def;
    /* A STRING whose default is a placeholder has no text until the user sets it. */
    if (faro_tunable_table[id].type == FARO_TUN_TYPE_STRING && default_is_placeholder(def))
        return "";
    return def;
}

int faro_tun_isset(enum faro_tun_id id)
{
    ensure_ready();
    return (unsigned)id < FARO_TUN_COUNT ? tun_set[id] : 0;
}

int faro_tun_set(enum faro_tun_id id, const char *text, char *err, size_t errlen)
{
    ensure_ready();
    long long v;
    if (faro_tun_parse(id, text, &v, err, errlen) != 0)
        return -1;
    char *copy = strdup(text);
    if (!copy) {
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", faro_tunable_table[id].name);
        return -1;
    }
    free(tun_text[id]);
    tun_text[id] = copy;
    tun_val[id] = v;
    tun_set[id] = 1;
    tun_tool[id] = 1;
    return 0;
}
