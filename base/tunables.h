/*
 * Tunables: FARO_* environment variables, each declared once in its component's
 * *_tunables.def (base/tunables_all.def lists them).
 *
 * faro_tunables_load() reads the environment once (MPI_Init, faro_info),
 * validates every FARO_* variable against the table and warns once about
 * FARO_* names the table does not know. Afterwards the getters are plain array
 * reads, cheap enough for any path.
 */
#ifndef FARO_TUNABLES_H
#define FARO_TUNABLES_H

#include <stddef.h>

enum faro_tun_id {
#define FARO_TUNABLE(id, type, def, min, max, choices, summary, desc) FARO_TUN_##id,
#include "base/tunables_all.def"
#undef FARO_TUNABLE
    FARO_TUN_COUNT
};

enum faro_tun_type { FARO_TUN_TYPE_INT, FARO_TUN_TYPE_SIZE, FARO_TUN_TYPE_BOOL,
                     FARO_TUN_TYPE_ENUM, FARO_TUN_TYPE_STRING };

struct faro_tunable_desc {
    const char *name;        /* "FARO_EAGER_LIMIT" */
    enum faro_tun_type type;
    const char *def;         /* default as written */
    long long min, max;
    const char *choices;
    const char *summary;
    const char *description;
};

extern const struct faro_tunable_desc faro_tunable_table[FARO_TUN_COUNT];

/* Parse and validate the environment. Returns 0, or -1 with a message in err
 * naming the variable, the bad value and what is allowed. */
int faro_tunables_load(char *err, size_t errlen);

long long faro_tun_int(enum faro_tun_id id);   /* INT, SIZE, BOOL, ENUM (choice index) */
const char *faro_tun_str(enum faro_tun_id id); /* STRING; the raw text for other types */
int faro_tun_isset(enum faro_tun_id id);       /* 1 when the user set it */

/* Set a value as a tool does (MPI_T_cvar_write): validated by faro_tun_parse
 * (-1 with its message in err), then kept over the environment by every later
 * faro_tunables_load, so a value set before MPI_Init is the one MPI_Init uses. */
int faro_tun_set(enum faro_tun_id id, const char *text, char *err, size_t errlen);

/* Parse one value as the table says (used by load, tests and faro_info). */
int faro_tun_parse(enum faro_tun_id id, const char *text, long long *out, char *err,
                   size_t errlen);

#endif
