/*
 * faro_info --mpit: what a tool sees through MPI_T (src/mpit/), printed by
 * asking the interface itself, so the listing is what a tool gets: the
 * category tree with each category's control variables (the tunables, with
 * their scope) and performance variables (with their class and binding).
 */
#include <stdio.h>

#include "faro_info.h"
#include "mpi.h"

static const char *scope_name(int s)
{
    static const char *const names[] = {"constant", "readonly", "local", "group", "group_eq",
                                        "all", "all_eq"};
    return s >= MPI_T_SCOPE_CONSTANT && s <= MPI_T_SCOPE_ALL_EQ
               ? names[s - MPI_T_SCOPE_CONSTANT] : "?";
}

static const char *class_name(int c)
{
    static const char *const names[] = {"state", "level", "size", "percentage",
                                        "highwatermark", "lowwatermark", "counter",
                                        "aggregate", "timer", "generic"};
    return c >= MPI_T_PVAR_CLASS_STATE && c <= MPI_T_PVAR_CLASS_GENERIC
               ? names[c - MPI_T_PVAR_CLASS_STATE] : "?";
}

static void show_category(int cat, int depth)
{
    char name[64], desc[256];
    int nlen = sizeof name, dlen = sizeof desc, ncv, npv, nsub, idx[256];
    if (PMPI_T_category_get_info(cat, name, &nlen, desc, &dlen, &ncv, &npv, &nsub) != 0)
        return;
    printf("%*s%s: %s\n", 2 * depth, "", name, desc);
    if (ncv > 256 || npv > 256 || nsub > 256)
        return;
    PMPI_T_category_get_cvars(cat, ncv, idx);
    for (int i = 0; i < ncv; i++) {
        int len = sizeof name, scope;
        PMPI_T_cvar_get_info(idx[i], name, &len, NULL, NULL, NULL, NULL, NULL, NULL, &scope);
        printf("%*scvar %s (%s)\n", 2 * depth + 2, "", name, scope_name(scope));
    }
    PMPI_T_category_get_pvars(cat, npv, idx);
    for (int i = 0; i < npv; i++) {
        int len = sizeof name, cls, bind;
        PMPI_T_pvar_get_info(idx[i], name, &len, NULL, &cls, NULL, NULL, NULL, NULL, &bind, NULL,
                             NULL, NULL);
        printf("%*spvar %s (%s%s)\n", 2 * depth + 2, "", name, class_name(cls),
               bind == MPI_T_BIND_MPI_COMM ? ", per communicator" : "");
    }
    PMPI_T_category_get_categories(cat, nsub, idx);
    for (int i = 0; i < nsub; i++)
        show_category(idx[i], depth + 1);
}

int faro_info_mpit(void)
{
    int provided, ncat, ncv, npv, nev, root = 0;
    if (PMPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != 0)
        return 1;
    PMPI_T_category_get_num(&ncat);
    PMPI_T_cvar_get_num(&ncv);
    PMPI_T_pvar_get_num(&npv);
    PMPI_T_event_get_num(&nev);
    printf("MPI_T: %d control variables, %d performance variables, %d categories, %d event "
           "types (docs/notes.md, MPI_T)\n", ncv, npv, ncat, nev);
    PMPI_T_category_get_index("faro", &root);
    show_category(root, 0);
    PMPI_T_finalize();
    return fflush(stdout) == 0 ? 0 : 1;
}
