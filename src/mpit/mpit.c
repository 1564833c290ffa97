/*
 * MPI_T: initialization, finalization, enumerations and the string rule
 * every *_get_info call follows. The variables live in cvar.c and pvar.c.
 */
#include <stdio.h>
#include <string.h>

#include "base/tunables.h"
#include "mpit/mpit.h"

int faro_mpit_refs;
pthread_mutex_t faro_mpit_mutex = PTHREAD_MUTEX_INITIALIZER;

void faro_mpit_copy(const char *s, char *buf, int *len)
{
    if (!len)
        return;
    int n = (int)strlen(s);
    if (!buf || *len <= 0) {
        *len = n + 1;
        return;
    }
    if (n > *len - 1)
        n = *len - 1;
    memcpy(buf, s, (size_t)n);
    buf[n] = 0;
    *len = n + 1;
}

#pragma weak MPI_T_init_thread = PMPI_T_init_thread
int PMPI_T_init_thread(int required, int *provided)
{
    pthread_mutex_lock(&faro_mpit_mutex);
    /* Before MPI_Init the tunables still hold their defaults: read the
     * environment now so that a cvar reads what MPI_Init would use. A bad
     * value stays at its default here; MPI_Init reports it. */
    if (faro_mpit_refs == 0 && !faro.initialized) {
        char err[256];
        (void)faro_tunables_load(err, sizeof err);
    }
    faro_mpit_refs++;
    pthread_mutex_unlock(&faro_mpit_mutex);
    if (provided) /* every level: the interface has its own lock */
        *provided = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
                    : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_finalize = PMPI_T_finalize
int PMPI_T_finalize(void)
{
    pthread_mutex_lock(&faro_mpit_mutex);
    int rc = MPI_SUCCESS;
    if (faro_mpit_refs == 0)
        rc = MPI_T_ERR_NOT_INITIALIZED;
    else
        faro_mpit_refs--;
    pthread_mutex_unlock(&faro_mpit_mutex);
    return rc;
}

/* Item i of "a|b|c": its start and length; -1 when there is none. */
static int choice_at(const char *choices, int i, const char **start)
{
    const char *c = choices;
    for (; i > 0; i--) {
        c = strchr(c, '|');
        if (!c)
            return -1;
        c++;
    }
    const char *bar = strchr(c, '|');
    *start = c;
    return bar ? (int)(bar - c) : (int)strlen(c);
}

static int choice_count(const char *choices)
{
    int n = 1;
    for (const char *c = choices; (c = strchr(c, '|')); c++)
        n++;
    return n;
}

#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    FARO_MPIT_ENTER();
    if (!enumtype)
        return MPI_T_ERR_INVALID_HANDLE;
    if (!num)
        return MPI_T_ERR_INVALID;
    *num = choice_count(enumtype->choices);
    faro_mpit_copy(enumtype->name, name, name_len);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item
int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    FARO_MPIT_ENTER();
    if (!enumtype)
        return MPI_T_ERR_INVALID_HANDLE;
    const char *start;
    int n = index < 0 ? -1 : choice_at(enumtype->choices, index, &start);
    if (n < 0)
        return MPI_T_ERR_INVALID_ITEM;
    if (!value)
        return MPI_T_ERR_INVALID;
    char item[128];
    snprintf(item, sizeof item, "%.*s", n, start);
    *value = index;
    faro_mpit_copy(item, name, name_len);
    return MPI_SUCCESS;
}
