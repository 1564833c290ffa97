/*
 * attr_keyval_life: how long a keyval lives, and callbacks that change the
 * attributes of the object they run on. Errors return (MPI_ERRORS_RETURN).
 *   1. A keyval freed while an attribute uses it lives on (MPI 3.1 6.7.2):
 *      its handle becomes MPI_KEYVAL_INVALID; with the old int the attribute
 *      can still be read and deleted (the delete callback runs), MPI_Comm_dup
 *      still runs its copy callback and MPI_Comm_free its delete callback;
 *      only setting a new value is refused (MPI_ERR_KEYVAL). Keyvals created
 *      meanwhile get other ints. Once the last attribute is gone the old int
 *      is stale: MPI_ERR_KEYVAL, even after a new keyval took its place.
 *   2. Freeing a keyval twice is MPI_ERR_KEYVAL and changes nothing: before
 *      and after the last attribute went, and from inside a delete callback
 *      (which frees its keyval, as libraries do) followed by the program.
 *   3. A delete callback that deletes other attributes of its object: by
 *      MPI_Comm_delete_attr, by MPI_Comm_free and MPI_Type_free; each
 *      callback runs exactly once. A delete callback that sets a new attribute
 *      during MPI_Comm_free: that one is deleted too. A callback that deletes
 *      or replaces its own attribute gets MPI_ERR_KEYVAL (no recursion), and
 *      the outer deletion still succeeds.
 *   4. A copy callback that deletes an attribute of the communicator being
 *      duplicated: the deleted one is not copied, nothing crashes.
 *   5. MPI_Finalize deletes MPI_COMM_SELF's attributes first, newest first,
 *      then MPI_COMM_WORLD's; there too callbacks delete other attributes.
 *      Checked after MPI_Finalize returned.
 */
#include "util.h"

/* ---- callbacks: extra_state points at a struct calls ---- */

struct calls {
    int copies, deletes;
    int last_key;          /* keyval argument of the last call */
    int inner_class;       /* what a nested call returned (-1: none made) */
    int *delete_too;       /* more keyvals to delete from inside the delete callback */
    int ndelete_too;
    int set_key;           /* a keyval to set from inside the delete callback, or -1 */
    int own;               /* 1: delete own attribute inside, 2: replace it */
    int free_own;          /* free the keyval (a copy of the int) inside */
};

static int copy_cb(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    struct calls *n = extra;
    n->copies++;
    n->last_key = k;
    for (int i = 0; i < n->ndelete_too; i++) /* on the communicator being duplicated */
        TU_CHECK(MPI_Comm_delete_attr(c, n->delete_too[i]));
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm c, int k, void *val, void *extra)
{
    (void)val;
    struct calls *n = extra;
    n->deletes++;
    n->last_key = k;
    for (int i = 0; i < n->ndelete_too; i++)
        TU_CHECK(MPI_Comm_delete_attr(c, n->delete_too[i]));
    if (n->set_key >= 0) {
        TU_CHECK(MPI_Comm_set_attr(c, n->set_key, NULL));
        n->set_key = -1;
    }
    if (n->own == 1)
        n->inner_class = tu_class(MPI_Comm_delete_attr(c, k));
    else if (n->own == 2)
        n->inner_class = tu_class(MPI_Comm_set_attr(c, k, NULL));
    if (n->free_own) {
        int copy = k;
        n->inner_class = tu_class(MPI_Comm_free_keyval(&copy));
    }
    return MPI_SUCCESS;
}

static int type_delete_cb(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)val;
    struct calls *n = extra;
    n->deletes++;
    n->last_key = k;
    for (int i = 0; i < n->ndelete_too; i++)
        TU_CHECK(MPI_Type_delete_attr(t, n->delete_too[i]));
    return MPI_SUCCESS;
}

static int new_key(struct calls *n)
{
    int k = MPI_KEYVAL_INVALID;
    memset(n, 0, sizeof *n);
    n->inner_class = -1;
    n->set_key = -1;
    TU_CHECK(MPI_Comm_create_keyval(copy_cb, delete_cb, &k, n));
    return k;
}

static void has_attr(MPI_Comm c, int k, int want, const char *what)
{
    void *v;
    int flag = -1;
    TU_CHECK(MPI_Comm_get_attr(c, k, &v, &flag));
    TU_ASSERT(flag == want, "%s: MPI_Comm_get_attr flag %d, expected %d", what, flag, want);
}

/* 1. */
static void freed_keyval_lives(void)
{
    struct calls n;
    MPI_Comm c, d;
    int k = new_key(&n), saved = k, other[32];
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    TU_CHECK(MPI_Comm_set_attr(c, k, &n));
    TU_CHECK(MPI_Comm_free_keyval(&k));
    TU_ASSERT(k == MPI_KEYVAL_INVALID, "MPI_Comm_free_keyval left the handle at %d", k);
    TU_ASSERT(n.deletes == 0, "freeing the keyval ran the delete callback");
    for (int i = 0; i < 32; i++) {
        TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &other[i],
                                        NULL));
        TU_ASSERT(other[i] != saved, "a new keyval got the int %d of a keyval still in use",
                  saved);
    }
    void *v = NULL;
    int flag = 0;
    TU_CHECK(MPI_Comm_get_attr(c, saved, &v, &flag));
    TU_ASSERT(flag && v == &n, "reading the attribute of a freed keyval: flag %d", flag);
    TU_EXPECT_CLASS(MPI_Comm_set_attr(c, saved, NULL), MPI_ERR_KEYVAL);
    TU_CHECK(MPI_Comm_dup(c, &d)); /* the copy callback still runs */
    TU_ASSERT(n.copies == 1 && n.last_key == saved, "dup: copy callback ran %d times (key %d)",
              n.copies, n.last_key);
    has_attr(d, saved, 1, "the dup");
    TU_CHECK(MPI_Comm_free(&d)); /* and the delete callback */
    TU_ASSERT(n.deletes == 1, "freeing the dup ran the delete callback %d times", n.deletes);
    TU_CHECK(MPI_Comm_delete_attr(c, saved)); /* the last attribute: the keyval goes */
    TU_ASSERT(n.deletes == 2 && n.last_key == saved, "delete_attr with the freed keyval ran the "
              "delete callback %d times in all (expected 2)", n.deletes);
    has_attr(c, other[0], 0, "an unrelated keyval");
    /* stale now, also once a new keyval may sit in the same place */
    TU_EXPECT_CLASS(MPI_Comm_delete_attr(c, saved), MPI_ERR_KEYVAL);
    TU_EXPECT_CLASS(MPI_Comm_get_attr(c, saved, &v, &flag), MPI_ERR_KEYVAL);
    struct calls n2;
    int k2 = new_key(&n2);
    TU_ASSERT(k2 != saved, "a new keyval got the stale int %d", saved);
    int stale = saved;
    TU_EXPECT_CLASS(MPI_Comm_free_keyval(&stale), MPI_ERR_KEYVAL);
    TU_CHECK(MPI_Comm_set_attr(c, k2, &n2)); /* the new keyval was not touched */
    TU_CHECK(MPI_Comm_free(&c));
    TU_ASSERT(n2.deletes == 1, "the new keyval's delete callback ran %d times", n2.deletes);
    TU_CHECK(MPI_Comm_free_keyval(&k2));
    for (int i = 0; i < 32; i++)
        TU_CHECK(MPI_Comm_free_keyval(&other[i]));
}

/* 2. */
static void double_free(void)
{
    struct calls n;
    MPI_Comm c;
    int k = new_key(&n), copy = k;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_SELF, &c));
    TU_CHECK(MPI_Comm_set_attr(c, k, NULL));
    TU_CHECK(MPI_Comm_free_keyval(&k));
    TU_EXPECT_CLASS(MPI_Comm_free_keyval(&copy), MPI_ERR_KEYVAL); /* still in use */
    TU_ASSERT(copy != MPI_KEYVAL_INVALID, "a failed free changed the handle");
    TU_EXPECT_CLASS(MPI_Type_free_keyval(&copy), MPI_ERR_KEYVAL);  /* wrong kind */
    has_attr(c, copy, 1, "after a double free");
    TU_CHECK(MPI_Comm_free(&c));
    TU_ASSERT(n.deletes == 1, "delete callback ran %d times", n.deletes);
    TU_EXPECT_CLASS(MPI_Comm_free_keyval(&copy), MPI_ERR_KEYVAL); /* gone */
    k = MPI_KEYVAL_INVALID;
    TU_EXPECT_CLASS(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);

    /* the callback frees its keyval, then the program does (and again at
     * the next deletion): only the first free counts */
    MPI_Comm c2;
    k = new_key(&n);
    copy = k;
    n.free_own = 1;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_SELF, &c));
    TU_CHECK(MPI_Comm_dup(MPI_COMM_SELF, &c2));
    TU_CHECK(MPI_Comm_set_attr(c, k, NULL));
    TU_CHECK(MPI_Comm_set_attr(c2, k, NULL));
    TU_CHECK(MPI_Comm_free(&c));
    TU_ASSERT(n.deletes == 1 && n.inner_class == MPI_SUCCESS, "the callback's free of its "
              "keyval gave class %d", n.inner_class);
    TU_EXPECT_CLASS(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
    TU_ASSERT(k == copy, "a failed free changed the handle");
    TU_CHECK(MPI_Comm_free(&c2));
    TU_ASSERT(n.deletes == 2 && n.inner_class == MPI_ERR_KEYVAL, "second callback: %d deletes, "
              "its free gave class %d", n.deletes, n.inner_class);
    TU_EXPECT_CLASS(MPI_Comm_free_keyval(&copy), MPI_ERR_KEYVAL);
}

/* 3. */
static void delete_in_callback(void)
{
    struct calls n1, n2, n3, n4;
    int k1 = new_key(&n1), k2 = new_key(&n2), k3 = new_key(&n3), k4 = new_key(&n4);
    int others[2] = {k1, k3};
    MPI_Comm c;

    /* by MPI_Comm_delete_attr: k2's callback deletes k1 and k3 */
    for (int how = 0; how < 2; how++) {
        TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        n1.deletes = n2.deletes = n3.deletes = 0;
        n2.delete_too = others;
        n2.ndelete_too = 2;
        TU_CHECK(MPI_Comm_set_attr(c, k1, NULL));
        TU_CHECK(MPI_Comm_set_attr(c, k2, NULL));
        TU_CHECK(MPI_Comm_set_attr(c, k3, NULL));
        if (how == 0) {
            TU_CHECK(MPI_Comm_delete_attr(c, k2));
            has_attr(c, k1, 0, "k1 after k2's callback deleted it");
            has_attr(c, k2, 0, "k2 after delete_attr");
            has_attr(c, k3, 0, "k3 after k2's callback deleted it");
        }
        TU_CHECK(MPI_Comm_free(&c)); /* how 1: the same from inside MPI_Comm_free */
        TU_ASSERT(n1.deletes == 1 && n2.deletes == 1 && n3.deletes == 1, "%s: delete callbacks "
                  "ran %d, %d, %d times", how ? "Comm_free" : "Comm_delete_attr", n1.deletes,
                  n2.deletes, n3.deletes);
        n2.ndelete_too = 0;
    }

    /* a callback that sets a new attribute while the communicator is freed */
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    n1.deletes = n4.deletes = 0;
    n1.set_key = k4;
    TU_CHECK(MPI_Comm_set_attr(c, k1, NULL));
    TU_CHECK(MPI_Comm_free(&c));
    TU_ASSERT(n1.deletes == 1 && n4.deletes == 1, "attribute set during Comm_free: callbacks "
              "ran %d and %d times", n1.deletes, n4.deletes);

    /* deleting or replacing its own attribute from inside: an error, no recursion */
    for (int own = 1; own <= 2; own++) {
        TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        n1.deletes = 0;
        n1.own = own;
        n1.inner_class = -1;
        TU_CHECK(MPI_Comm_set_attr(c, k1, NULL));
        TU_CHECK(MPI_Comm_delete_attr(c, k1));
        TU_ASSERT(n1.deletes == 1 && n1.inner_class == MPI_ERR_KEYVAL, "%s its own attribute in "
                  "its delete callback: %d calls, inner class %d", own == 1 ? "deleting" :
                  "replacing", n1.deletes, n1.inner_class);
        has_attr(c, k1, 0, "after the outer delete");
        TU_CHECK(MPI_Comm_set_attr(c, k1, NULL));
        TU_CHECK(MPI_Comm_free(&c));
        TU_ASSERT(n1.deletes == 2, "Comm_free: %d calls", n1.deletes);
        n1.own = 0;
    }

    /* datatypes: one callback deletes the other attributes at MPI_Type_free */
    struct calls t1 = {0}, t2 = {0}, t3 = {0};
    int tk[3], tothers[2];
    TU_CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete_cb, &tk[0], &t1));
    TU_CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete_cb, &tk[1], &t2));
    TU_CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete_cb, &tk[2], &t3));
    tothers[0] = tk[0];
    tothers[1] = tk[2];
    t2.delete_too = tothers;
    t2.ndelete_too = 2;
    MPI_Datatype t;
    TU_CHECK(MPI_Type_contiguous(2, MPI_INT, &t));
    for (int i = 0; i < 3; i++)
        TU_CHECK(MPI_Type_set_attr(t, tk[i], NULL));
    int saved = tk[1];
    TU_CHECK(MPI_Type_free_keyval(&tk[1])); /* in use: lives until Type_free */
    TU_CHECK(MPI_Type_free(&t));
    TU_ASSERT(t1.deletes == 1 && t2.deletes == 1 && t3.deletes == 1 && t2.last_key == saved,
              "Type_free: delete callbacks ran %d, %d, %d times", t1.deletes, t2.deletes,
              t3.deletes);
    TU_CHECK(MPI_Type_free_keyval(&tk[0]));
    TU_CHECK(MPI_Type_free_keyval(&tk[2]));
    TU_CHECK(MPI_Comm_free_keyval(&k1));
    TU_CHECK(MPI_Comm_free_keyval(&k2));
    TU_CHECK(MPI_Comm_free_keyval(&k3));
    TU_CHECK(MPI_Comm_free_keyval(&k4));
}

/* 4. */
static void copy_deletes(void)
{
    struct calls n1, n2;
    int k1 = new_key(&n1), k2 = new_key(&n2);
    MPI_Comm c, d;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    TU_CHECK(MPI_Comm_set_attr(c, k1, NULL)); /* older: copied after k2 */
    TU_CHECK(MPI_Comm_set_attr(c, k2, NULL));
    n2.delete_too = &k1;
    n2.ndelete_too = 1;
    TU_CHECK(MPI_Comm_dup(c, &d));
    TU_ASSERT(n2.copies == 1 && n1.copies == 0 && n1.deletes == 1, "copy callback deleting "
              "another attribute: copies %d/%d, deletes of k1 %d", n2.copies, n1.copies,
              n1.deletes);
    has_attr(d, k1, 0, "the dup, k1 deleted before its turn");
    has_attr(d, k2, 1, "the dup, k2");
    n2.ndelete_too = 0;
    TU_CHECK(MPI_Comm_free(&d));
    TU_CHECK(MPI_Comm_free(&c));
    TU_CHECK(MPI_Comm_free_keyval(&k1));
    TU_CHECK(MPI_Comm_free_keyval(&k2));
}

/* 5. At MPI_Finalize: each callback logs its keyval. */
static int fin_log[8], fin_n;
static int fin_keys[5], fin_deletes[5];

static int fin_delete(MPI_Comm c, int k, void *val, void *extra)
{
    (void)val;
    int i = (int)(intptr_t)extra;
    if (fin_n < 8)
        fin_log[fin_n++] = i;
    fin_deletes[i]++;
    if (i == 3) /* SELF's newest: deletes SELF's oldest, which then never runs first */
        MPI_Comm_delete_attr(c, fin_keys[0]);
    return MPI_SUCCESS;
}

static void set_finalize_attrs(void)
{
    for (int i = 0; i < 5; i++)
        TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fin_delete, &fin_keys[i],
                                        (void *)(intptr_t)i));
    TU_CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, fin_keys[4], NULL)); /* WORLD's */
    for (int i = 0; i < 4; i++) /* SELF: 0 oldest .. 3 newest */
        TU_CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, fin_keys[i], NULL));
    for (int i = 0; i < 5; i++) { /* freed: the attributes keep them */
        int copy = fin_keys[i];
        TU_CHECK(MPI_Comm_free_keyval(&copy));
    }
}

static void check_finalize_order(void)
{
    /* 3 (deletes 0 from inside), 2, 1, then WORLD's 4 */
    static const int want[] = {3, 0, 2, 1, 4};
    int ok = fin_n == 5;
    for (int i = 0; ok && i < 5; i++)
        ok = fin_log[i] == want[i] && fin_deletes[i] == 1;
    if (!ok) {
        fprintf(stderr, "attr_keyval_life: rank %d: FAIL: MPI_Finalize ran %d delete callbacks "
                "in the order", tu_rank, fin_n);
        for (int i = 0; i < fin_n && i < 8; i++)
            fprintf(stderr, " %d", fin_log[i]);
        fprintf(stderr, ", expected 3 0 2 1 4 (SELF newest first, 3 deleting 0; then WORLD)\n");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "attr_keyval_life");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    freed_keyval_lives();
    double_free();
    delete_in_callback();
    copy_deletes();
    set_finalize_attrs();
    alarm(0);
    TU_CHECK(MPI_Finalize());
    check_finalize_order();
    if (tu_rank == 0)
        printf("attr_keyval_life: OK (%d ranks)\n", tu_size);
    return 0;
}
