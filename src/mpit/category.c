/*
 * MPI_T categories: one per component, in a tree under "faro". The
 * components, their parents and descriptions are the
 * FARO_TUNABLE_COMPONENT lines of base/tunables_all.def, and a category's
 * control variables are the tunables declared after its line there, so a
 * tunable or a component added there lands in its category without a list
 * to keep here (and nothing here names a transport). Performance variables
 * go by the component pvar.c names for them: "p2p" for the protocol totals
 * and queue levels, a transport's ops->name for its row. The tree is built
 * once, at the first call, and never changes while the process lives.
 */
#include <pthread.h>
#include <string.h>

#include "base/tunables.h"
#include "mpit/mpit.h"

/* base/tunables_all.def read in order: component lines and tunables. */
static const struct item {
    const char *comp, *parent, *desc; /* a component line; comp NULL for a tunable */
    int tunable;
} items[] = {
#define FARO_TUNABLE(id, ...) {NULL, NULL, NULL, FARO_TUN_##id},
#define FARO_TUNABLE_COMPONENT(name, parent, description) {#name, #parent, description, -1},
#include "base/tunables_all.def"
#undef FARO_TUNABLE_COMPONENT
#undef FARO_TUNABLE
};
#define NITEMS (int)(sizeof items / sizeof *items)

#define MAX_CATS 32
#define MAX_SUBS 16

static struct category {
    const char *name, *desc;
    int first_cvar, ncvars; /* a component's tunables are consecutive in the table */
    int subs[MAX_SUBS];
    int nsubs;
} cats[MAX_CATS];
static int ncats;
static pthread_once_t built = PTHREAD_ONCE_INIT;

static int find(const char *name)
{
    for (int i = 0; i < ncats; i++)
        if (strcmp(cats[i].name, name) == 0)
            return i;
    return -1;
}

/* A .def with more components or children than the arrays hold loses the
 * extra ones here, and mpit_category then fails (it checks that every
 * variable is in exactly one category of one tree). */
static void build(void)
{
    int cur = -1;
    for (int i = 0; i < NITEMS; i++) {
        const struct item *it = &items[i];
        if (!it->comp) {
            if (cur >= 0 && cats[cur].ncvars++ == 0)
                cats[cur].first_cvar = it->tunable;
            continue;
        }
        if (ncats == MAX_CATS)
            break;
        cur = ncats++;
        cats[cur].name = it->comp;
        cats[cur].desc = it->desc;
        int parent = it->parent[0] ? find(it->parent) : -1;
        if (parent >= 0 && cats[parent].nsubs < MAX_SUBS)
            cats[parent].subs[cats[parent].nsubs++] = cur;
    }
}

#define C_N (pthread_once(&built, build), ncats)

static int bad_index(int cat)
{
    return cat < 0 || cat >= C_N;
}

/* Index i of the category's performance variables (i < 0: how many). */
static int pvar_at(const struct category *c, int i)
{
    int n = 0;
    for (int p = 0; p < faro_mpit_pvar_count(); p++)
        if (strcmp(faro_mpit_pvar_component(p), c->name) == 0 && n++ == i)
            return p;
    return i < 0 ? n : -1;
}

#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num
int PMPI_T_category_get_num(int *num_cat)
{
    FARO_MPIT_ENTER();
    if (!num_cat)
        return MPI_T_ERR_INVALID;
    *num_cat = C_N;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                             int *desc_len, int *num_cvars, int *num_pvars,
                             int *num_categories)
{
    FARO_MPIT_ENTER();
    if (bad_index(cat_index))
        return MPI_T_ERR_INVALID_INDEX;
    const struct category *c = &cats[cat_index];
    faro_mpit_copy(c->name, name, name_len);
    faro_mpit_copy(c->desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = c->ncvars;
    if (num_pvars)
        *num_pvars = pvar_at(c, -1);
    if (num_categories)
        *num_categories = c->nsubs;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index
int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    FARO_MPIT_ENTER();
    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < C_N; i++)
        if (strcmp(cats[i].name, name) == 0) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

/* The checks the three listing calls share. */
static int check_list(int cat, int len, const int indices[])
{
    if (bad_index(cat))
        return MPI_T_ERR_INVALID_INDEX;
    return len < 0 || (len > 0 && !indices) ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars
int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    FARO_MPIT_ENTER();
    int rc = check_list(cat_index, len, indices);
    for (int i = 0; rc == MPI_SUCCESS && i < len && i < cats[cat_index].ncvars; i++)
        indices[i] = cats[cat_index].first_cvar + i;
    return rc;
}

#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    FARO_MPIT_ENTER();
    int rc = check_list(cat_index, len, indices);
    for (int i = 0, p; rc == MPI_SUCCESS && i < len && (p = pvar_at(&cats[cat_index], i)) >= 0;
         i++)
        indices[i] = p;
    return rc;
}

#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories
int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    FARO_MPIT_ENTER();
    int rc = check_list(cat_index, len, indices);
    for (int i = 0; rc == MPI_SUCCESS && i < len && i < cats[cat_index].nsubs; i++)
        indices[i] = cats[cat_index].subs[i];
    return rc;
}

#pragma weak MPI_T_category_get_num_events = PMPI_T_category_get_num_events
int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    FARO_MPIT_ENTER();
    if (bad_index(cat_index))
        return MPI_T_ERR_INVALID_INDEX;
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = 0; /* no event types (event.c) */
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_events = PMPI_T_category_get_events
int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    FARO_MPIT_ENTER();
    return check_list(cat_index, len, indices); /* none to write */
}

#pragma weak MPI_T_category_changed = PMPI_T_category_changed
int PMPI_T_category_changed(int *update_number)
{
    FARO_MPIT_ENTER();
    if (!update_number)
        return MPI_T_ERR_INVALID;
    *update_number = 0; /* the tree is made once and never changes */
    return MPI_SUCCESS;
}
