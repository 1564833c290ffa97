/*
 * MPI_T categories: one per component, in a tree under "faro". A category's
 * control variables are the tunables its component declares in its own
 * *_tunables.def, read here again (the same files base/tunables_all.def
 * joins), so a tunable added there lands in its category without a list to
 * keep. Performance variables go by the component pvar.c names for them:
 * "p2p" for the protocol totals and queue levels, a transport's name for its
 * row. The tree never changes while the process lives.
 */
#include <string.h>

#include "base/tunables.h"
#include "mpit/mpit.h"

#define FARO_TUNABLE(id, ...) FARO_TUN_##id,
static const int cv_core[] = {
#include "runtime/tunables.def"
};
static const int cv_pmi[] = {
#include "base/pmi_tunables.def"
};
static const int cv_shm[] = {
#include "shm/shm_tunables.def"
};
static const int cv_tcp[] = {
#include "tcp/tcp_tunables.def"
};
static const int cv_rcache[] = {
#include "common/rcache_tunables.def"
};
static const int cv_ofi[] = {
#include "ofi/ofi_tunables.def"
};
static const int cv_verbs[] = {
#include "verbs/verbs_tunables.def"
};
static const int cv_affinity[] = {
#include "affinity_tunables.def"
};
static const int cv_coll[] = {
#include "coll_tunables.def"
};
static const int cv_rma[] = {
#include "rma/rma_tunables.def"
};
static const int cv_tools[] = {
#include "tools/tools_tunables.def"
};
#undef FARO_TUNABLE

enum { C_FARO, C_CORE, C_P2P, C_PMI, C_TRANSPORTS, C_SELF, C_SHM, C_TCP, C_OFI, C_VERBS,
       C_RCACHE, C_AFFINITY, C_COLL, C_RMA, C_TOOLS, C_N };

static const int sub_faro[] = {C_CORE, C_PMI, C_TRANSPORTS, C_AFFINITY, C_COLL, C_RMA, C_TOOLS};
static const int sub_core[] = {C_P2P};
static const int sub_transports[] = {C_SELF, C_SHM, C_TCP, C_OFI, C_VERBS, C_RCACHE};

#define LIST(a) a, (int)(sizeof a / sizeof *a)
static const struct category {
    const char *name, *desc;
    const int *cvars;
    int ncvars;
    const char *pvars; /* the component pvar.c gives its variables, or NULL */
    const int *subs;
    int nsubs;
} cats[C_N] = {
    [C_FARO] = {"faro", "Faro: every component's variables, by component", NULL, 0, NULL,
                LIST(sub_faro)},
    [C_CORE] = {"core", "the MPI core: transport choice, protocols, waiting, errors, "
                "diagnostics", LIST(cv_core), NULL, LIST(sub_core)},
    [C_P2P] = {"p2p", "point-to-point messages: counts by protocol, matching queues", NULL,
               0, "p2p", NULL, 0},
    [C_PMI] = {"pmi", "the process manager interface (how a rank finds its job)",
               LIST(cv_pmi), NULL, NULL, 0},
    [C_TRANSPORTS] = {"transports", "the transports, each under its name", NULL, 0, NULL,
                      LIST(sub_transports)},
    [C_SELF] = {"self", "the loopback transport (a rank's messages to itself)", NULL, 0,
                "self", NULL, 0},
    [C_SHM] = {"shm", "the shared-memory transport (ranks of one node)", LIST(cv_shm), "shm",
               NULL, 0},
    [C_TCP] = {"tcp", "the TCP transport", LIST(cv_tcp), "tcp", NULL, 0},
    [C_OFI] = {"ofi", "the libfabric transport", LIST(cv_ofi), "ofi", NULL, 0},
    [C_VERBS] = {"verbs", "the InfiniBand verbs transport", LIST(cv_verbs), "verbs", NULL, 0},
    [C_RCACHE] = {"rcache", "the registration cache the RDMA transports share",
                  LIST(cv_rcache), NULL, NULL, 0},
    [C_AFFINITY] = {"affinity", "mapping and binding of ranks to cores", LIST(cv_affinity),
                    NULL, NULL, 0},
    [C_COLL] = {"coll", "collective algorithms and their selection", LIST(cv_coll), NULL, NULL,
                0},
    [C_RMA] = {"rma", "one-sided communication", LIST(cv_rma), NULL, NULL, 0},
    [C_TOOLS] = {"tools", "the compiler wrappers (mpicc, mpicxx): never a running process's",
                 LIST(cv_tools), NULL, NULL, 0},
};

static int bad_index(int cat)
{
    return cat < 0 || cat >= C_N;
}

/* Index i of the category's performance variables (i < 0: how many). */
static int pvar_at(const struct category *c, int i)
{
    int n = 0;
    for (int p = 0; c->pvars && p < faro_mpit_pvar_count(); p++)
        if (strcmp(faro_mpit_pvar_component(p), c->pvars) == 0 && n++ == i)
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
        indices[i] = cats[cat_index].cvars[i];
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
    *update_number = 0; /* the tree is made at build time and never changes */
    return MPI_SUCCESS;
}
