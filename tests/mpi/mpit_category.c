/*
 * MPI_T categories: unique names whose index round-trips; every control and
 * performance variable in exactly one category; the categories a tree (each
 * but the root the child of exactly one, all reachable from the root); the
 * components' own variables where they belong (FARO_SHM_EAGER_LIMIT and
 * shm_eager_sent under shm, p2p_eager_sent under p2p); a short list is cut
 * at its length; the update number does not move. Per process: one rank.
 */
#include "util.h"

static void expect_code(int rc, int want, const char *what)
{
    TU_ASSERT(rc == want, "%s returned %d (%s), expected %d (%s)", what, rc, tu_errstr(rc),
              want, tu_errstr(want));
}

static int cat_index(const char *name)
{
    int i = -1;
    TU_CHECK(MPI_T_category_get_index(name, &i));
    return i;
}

/* Is variable v among category c's (cvars when cv, else pvars)? */
static int holds(int c, int cv, int v)
{
    int nc, np, idx[256];
    TU_CHECK(MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, &nc, &np, NULL));
    int n = cv ? nc : np;
    TU_ASSERT(n <= 256, "category %d: %d variables", c, n);
    TU_CHECK(cv ? MPI_T_category_get_cvars(c, n, idx) : MPI_T_category_get_pvars(c, n, idx));
    for (int i = 0; i < n; i++)
        if (idx[i] == v)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int provided, ncat, ncv, npv, update0, update1;
    TU_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    tu_init(&argc, &argv, "mpit_category");
    TU_CHECK(MPI_T_category_changed(&update0));
    TU_CHECK(MPI_T_category_get_num(&ncat));
    TU_CHECK(MPI_T_cvar_get_num(&ncv));
    TU_CHECK(MPI_T_pvar_get_num(&npv));
    TU_ASSERT(ncat >= 8, "%d categories", ncat);
    int *cv_seen = calloc((size_t)ncv, sizeof(int)), *pv_seen = calloc((size_t)npv, sizeof(int));
    int *parents = calloc((size_t)ncat, sizeof(int));
    char (*names)[64] = calloc((size_t)ncat, sizeof *names);
    int idx[512];
    for (int c = 0; c < ncat; c++) {
        int len = 64, dlen = 0, nc, np, nsub;
        TU_CHECK(MPI_T_category_get_info(c, names[c], &len, NULL, &dlen, &nc, &np, &nsub));
        TU_ASSERT(len > 1 && dlen > 1, "category %d: name length %d, description length %d", c,
                  len, dlen);
        for (int j = 0; j < c; j++)
            TU_ASSERT(strcmp(names[c], names[j]) != 0, "categories %d and %d are both '%s'",
                      j, c, names[c]);
        TU_ASSERT(cat_index(names[c]) == c, "MPI_T_category_get_index('%s') is not %d",
                  names[c], c);
        TU_ASSERT(nc <= 512 && np <= 512 && nsub < ncat, "category %s: %d cvars, %d pvars, "
                  "%d subcategories", names[c], nc, np, nsub);
        TU_CHECK(MPI_T_category_get_cvars(c, nc, idx));
        for (int i = 0; i < nc; i++) {
            TU_ASSERT(idx[i] >= 0 && idx[i] < ncv, "category %s: cvar index %d", names[c],
                      idx[i]);
            cv_seen[idx[i]]++;
        }
        TU_CHECK(MPI_T_category_get_pvars(c, np, idx));
        for (int i = 0; i < np; i++) {
            TU_ASSERT(idx[i] >= 0 && idx[i] < npv, "category %s: pvar index %d", names[c],
                      idx[i]);
            pv_seen[idx[i]]++;
        }
        TU_CHECK(MPI_T_category_get_categories(c, nsub, idx));
        for (int i = 0; i < nsub; i++) {
            TU_ASSERT(idx[i] >= 0 && idx[i] < ncat && idx[i] != c,
                      "category %s: subcategory index %d", names[c], idx[i]);
            parents[idx[i]]++;
        }
    }
    char name[128];
    for (int v = 0; v < ncv; v++) {
        int len = sizeof name;
        TU_CHECK(MPI_T_cvar_get_info(v, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        TU_ASSERT(cv_seen[v] == 1, "cvar %s is in %d categories, expected 1", name,
                  cv_seen[v]);
    }
    for (int v = 0; v < npv; v++) {
        int len = sizeof name;
        TU_CHECK(MPI_T_pvar_get_info(v, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL, NULL, NULL));
        TU_ASSERT(pv_seen[v] == 1, "pvar %s is in %d categories, expected 1", name,
                  pv_seen[v]);
    }
    /* a tree: one root, every other category under exactly one, all reachable */
    int roots = 0, root = -1;
    for (int c = 0; c < ncat; c++) {
        TU_ASSERT(parents[c] <= 1, "category %s has %d parents", names[c], parents[c]);
        if (parents[c] == 0)
            roots++, root = c;
    }
    TU_ASSERT(roots == 1, "%d categories have no parent, expected one root", roots);
    int *reach = calloc((size_t)ncat, sizeof(int)), stack[64], top = 0, nreach = 0;
    stack[top++] = root;
    while (top) {
        int c = stack[--top], nsub;
        if (reach[c]++)
            continue;
        nreach++;
        TU_CHECK(MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, NULL, NULL, &nsub));
        TU_CHECK(MPI_T_category_get_categories(c, nsub, idx));
        for (int i = 0; i < nsub && top < 64; i++)
            stack[top++] = idx[i];
    }
    TU_ASSERT(nreach == ncat, "%d of %d categories are reachable from '%s'", nreach, ncat,
              names[root]);

    /* the components' own variables */
    int v;
    TU_CHECK(MPI_T_cvar_get_index("FARO_SHM_EAGER_LIMIT", &v));
    TU_ASSERT(holds(cat_index("shm"), 1, v), "FARO_SHM_EAGER_LIMIT is not in category shm");
    TU_CHECK(MPI_T_cvar_get_index("FARO_COLL_BCAST_ALGORITHM", &v));
    TU_ASSERT(holds(cat_index("coll"), 1, v), "FARO_COLL_BCAST_ALGORITHM is not in coll");
    TU_CHECK(MPI_T_pvar_get_index("shm_eager_sent", MPI_T_PVAR_CLASS_COUNTER, &v));
    TU_ASSERT(holds(cat_index("shm"), 0, v), "shm_eager_sent is not in category shm");
    TU_CHECK(MPI_T_pvar_get_index("p2p_eager_sent", MPI_T_PVAR_CLASS_COUNTER, &v));
    TU_ASSERT(holds(cat_index("p2p"), 0, v), "p2p_eager_sent is not in category p2p");

    /* a list is cut at its length */
    idx[0] = idx[1] = -7;
    TU_CHECK(MPI_T_category_get_cvars(cat_index("shm"), 1, idx));
    TU_ASSERT(idx[0] >= 0 && idx[1] == -7, "get_cvars with len 1 wrote [%d, %d]", idx[0],
              idx[1]);
    expect_code(MPI_T_category_get_cvars(ncat, 0, idx), MPI_T_ERR_INVALID_INDEX,
                "MPI_T_category_get_cvars(num)");
    expect_code(MPI_T_category_get_index("no-such-category", &v), MPI_T_ERR_INVALID_NAME,
                "MPI_T_category_get_index of an unknown name");
    TU_CHECK(MPI_T_category_changed(&update1));
    TU_ASSERT(update0 == update1, "the update number moved from %d to %d", update0, update1);
    free(cv_seen), free(pv_seen), free(parents), free(names), free(reach);
    TU_CHECK(MPI_T_finalize());
    tu_finish();
    return 0;
}
