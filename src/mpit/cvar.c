/*
 * MPI_T control variables: one per tunable, index = enum faro_tun_id, name =
 * the FARO_* environment name, so a tool and a job script speak of the same
 * thing. Everything a tool is told comes from the one table
 * (base/tunables_all.def); what the table does not say is decided here:
 *
 * - type: INT -> MPI_INT (MPI_COUNT when its range passes an int), SIZE ->
 *   MPI_COUNT (bytes), BOOL -> MPI_INT 0/1, ENUM -> MPI_INT with an
 *   enumeration of its choices, STRING -> MPI_CHAR (a count of
 *   FARO_MPIT_STRING_MAX characters). A tunable whose default is "(per
 *   transport)" and which nobody set reads -1.
 * - when a write takes effect (the scope): most tunables are read once, by
 *   MPI_Init: they may be written from MPI_T_init_thread until MPI_Init (the
 *   value then outlives MPI_Init's reading of the environment), and after
 *   that a write is refused with MPI_T_ERR_CVAR_SET_NEVER (not SET_NOT_NOW:
 *   MPI cannot be initialized again, so no later time would take it). A few
 *   are read each time they are used (live below) and may be written at any
 *   time. The compiler wrappers' tunables never reach a running process:
 *   MPI_T_SCOPE_CONSTANT, never writable. The collectives' choices must agree
 *   on every process: MPI_T_SCOPE_ALL_EQ; the rest are local.
 * - a written value goes through the tunable's own parser and range check
 *   (faro_tun_parse), as the environment's does; a bad value is refused with
 *   MPI_T_ERR_INVALID and the parser's message as a warning.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/tunables.h"
#include "mpit/mpit.h"
#include "objects/arena.h"
#include "p2p/match.h"

#define FARO_MPIT_STRING_MAX 1024

struct faro_mpit_cvar_handle {
    unsigned magic;
    int id;
    void *free_next; /* the pool's link while free */
};

/* Handles come from a FIFO pool over their arena (objects/arena.h), so that
 * a made-up handle is refused before it is read. */
static struct faro_pool cvar_handle_pool = FARO_POOL_INIT(
    "MPI_T cvar handle", FARO_ARENA_SMALL, struct faro_mpit_cvar_handle, free_next, 64);

__attribute__((constructor)) static void cvar_handle_arena_init(void)
{
    faro_pool_start(&cvar_handle_pool, NULL, 0, 0);
}

/* Read at each use: a write changes what the next use does. */
static const int live[] = {FARO_TUN_VERBOSE, FARO_TUN_UNEXPECTED_LIMIT,
                           FARO_TUN_CONNECT_TIMEOUT, FARO_TUN_ACCEPT_TIMEOUT};

/* Read by the compiler wrappers only. */
static const int wrappers_only[] = {
#define FARO_TUNABLE(id, type, def, min, max, choices, summary, desc) FARO_TUN_##id,
#include "tools/tools_tunables.def"
#undef FARO_TUNABLE
};

static struct faro_mpit_enum enums[FARO_TUN_COUNT];

static int listed(const int *ids, size_t n, int id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

static int scope_of(int id)
{
    if (listed(wrappers_only, sizeof wrappers_only / sizeof *wrappers_only, id))
        return MPI_T_SCOPE_CONSTANT;
    if (strncmp(faro_tunable_table[id].name, "FARO_COLL_", 10) == 0 || id == FARO_TUN_NODE_SIZE)
        return MPI_T_SCOPE_ALL_EQ;
    return MPI_T_SCOPE_LOCAL;
}

static MPI_Datatype type_of(int id)
{
    const struct faro_tunable_desc *d = &faro_tunable_table[id];
    switch (d->type) {
    case FARO_TUN_TYPE_INT:
        return d->min >= INT_MIN && d->max <= INT_MAX ? MPI_INT : MPI_COUNT;
    case FARO_TUN_TYPE_SIZE:
        return MPI_COUNT;
    case FARO_TUN_TYPE_STRING:
        return MPI_CHAR;
    default:
        return MPI_INT;
    }
}

#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num
int PMPI_T_cvar_get_num(int *num_cvar)
{
    FARO_MPIT_ENTER();
    if (!num_cvar)
        return MPI_T_ERR_INVALID;
    *num_cvar = FARO_TUN_COUNT;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info
int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                         int *desc_len, int *bind, int *scope)
{
    FARO_MPIT_ENTER();
    if (cvar_index < 0 || cvar_index >= FARO_TUN_COUNT)
        return MPI_T_ERR_INVALID_INDEX;
    const struct faro_tunable_desc *d = &faro_tunable_table[cvar_index];
    faro_mpit_copy(d->name, name, name_len);
    if (verbosity) /* the ones a user sets first are in faro_info's short list */
        *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
    if (datatype)
        *datatype = type_of(cvar_index);
    if (enumtype) {
        *enumtype = MPI_T_ENUM_NULL;
        if (d->type == FARO_TUN_TYPE_ENUM) {
            enums[cvar_index] = (struct faro_mpit_enum){d->name, d->choices};
            *enumtype = &enums[cvar_index];
        }
    }
    if (desc_len) {
        char text[4096];
        snprintf(text, sizeof text, "%s. %s (default: %s)", d->summary, d->description, d->def);
        faro_mpit_copy(text, desc, desc_len);
    }
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = scope_of(cvar_index);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index
int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    FARO_MPIT_ENTER();
    if (!name || !cvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < FARO_TUN_COUNT; i++)
        if (strcmp(faro_tunable_table[i].name, name) == 0) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc
int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    FARO_MPIT_ENTER();
    (void)obj_handle; /* every cvar is bound to no object */
    if (cvar_index < 0 || cvar_index >= FARO_TUN_COUNT)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct faro_mpit_cvar_handle *h = faro_pool_get(&cvar_handle_pool);
    if (!h)
        return MPI_T_ERR_MEMORY;
    *h = (struct faro_mpit_cvar_handle){FARO_MPIT_MAGIC, cvar_index, NULL};
    *handle = h;
    *count = type_of(cvar_index) == MPI_CHAR ? FARO_MPIT_STRING_MAX : 1;
    return MPI_SUCCESS;
}

static int bad_handle(MPI_T_cvar_handle h)
{
    return !h || !faro_pool_has(&cvar_handle_pool, h) || h->magic != FARO_MPIT_MAGIC;
}

static int check_access(MPI_T_cvar_handle h, const void *buf)
{
    if (bad_handle(h))
        return MPI_T_ERR_INVALID_HANDLE;
    return buf ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free
int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    FARO_MPIT_ENTER();
    if (!handle || bad_handle(*handle))
        return MPI_T_ERR_INVALID_HANDLE;
    faro_pool_put(&cvar_handle_pool, *handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read
int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    FARO_MPIT_ENTER();
    int rc = check_access(handle, buf);
    if (rc != MPI_SUCCESS)
        return rc;
    int id = handle->id;
    MPI_Datatype t = type_of(id);
    if (t == MPI_CHAR) {
        snprintf(buf, FARO_MPIT_STRING_MAX, "%s", faro_tun_str((enum faro_tun_id)id));
    } else if (t == MPI_COUNT) {
        MPI_Count v = faro_tun_int((enum faro_tun_id)id);
        memcpy(buf, &v, sizeof v);
    } else {
        int v = (int)faro_tun_int((enum faro_tun_id)id);
        memcpy(buf, &v, sizeof v);
    }
    return MPI_SUCCESS;
}

/* The value in buf as the environment would spell it, or -1 (an enum index
 * outside its choices). */
static int value_text(int id, const void *buf, char *text, size_t len)
{
    const struct faro_tunable_desc *d = &faro_tunable_table[id];
    MPI_Datatype t = type_of(id);
    if (t == MPI_CHAR) {
        snprintf(text, len, "%.*s", FARO_MPIT_STRING_MAX - 1, (const char *)buf);
        return 0;
    }
    if (t == MPI_COUNT) {
        MPI_Count v;
        memcpy(&v, buf, sizeof v);
        snprintf(text, len, "%lld", (long long)v);
        return 0;
    }
    int v;
    memcpy(&v, buf, sizeof v);
    if (d->type != FARO_TUN_TYPE_ENUM) {
        snprintf(text, len, "%d", v);
        return 0;
    }
    const char *c = d->choices;
    for (int i = 0; c && i < v; i++)
        if ((c = strchr(c, '|')))
            c++;
    if (v < 0 || !c) {
        faro_warn("MPI_T_cvar_write: %s: %d is not one of its %s choices (0 for the first)",
                  d->name, v, d->choices);
        return -1;
    }
    const char *bar = strchr(c, '|');
    snprintf(text, len, "%.*s", bar ? (int)(bar - c) : (int)strlen(c), c);
    return 0;
}

#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write
int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    FARO_MPIT_ENTER();
    int rc = check_access(handle, buf);
    if (rc != MPI_SUCCESS)
        return rc;
    int id = handle->id;
    const char *name = faro_tunable_table[id].name;
    if (scope_of(id) == MPI_T_SCOPE_CONSTANT) {
        faro_info(1, "MPI_T_cvar_write: %s is read by the compiler wrappers only: it never "
                  "changes a running process", name);
        return MPI_T_ERR_CVAR_SET_NEVER;
    }
    if ((faro.initialized || faro.finalized) && !listed(live, sizeof live / sizeof *live, id)) {
        faro_info(1, "MPI_T_cvar_write: %s is read by MPI_Init: write it between "
                  "MPI_T_init_thread and MPI_Init, or set it in the environment", name);
        return MPI_T_ERR_CVAR_SET_NEVER;
    }
    char text[FARO_MPIT_STRING_MAX + 32], err[512];
    if (value_text(id, buf, text, sizeof text) != 0)
        return MPI_T_ERR_INVALID;
    FARO_LOCKED; /* the library may be reading the old text on another thread */
    if (faro_tun_set((enum faro_tun_id)id, text, err, sizeof err) != 0) {
        faro_warn("MPI_T_cvar_write: %s", err);
        return MPI_T_ERR_INVALID;
    }
    if (id == FARO_TUN_VERBOSE)
        faro_log_level = (int)faro_tun_int(FARO_TUN_VERBOSE);
    if (id == FARO_TUN_UNEXPECTED_LIMIT)
        faro_unexp_limit_changed();
    return MPI_SUCCESS;
}
