/*
 * attr_comm: keyvals and attributes on communicators.
 *   - set/get/delete on MPI_COMM_WORLD and MPI_COMM_SELF; replacing a value
 *     runs the delete callback on the old one
 *   - the predefined attributes (pointers to ints) and that they are read-only
 *   - copy callbacks on MPI_Comm_dup (MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN,
 *     a user one that changes the value, one that says "do not copy")
 *   - delete callbacks on MPI_Comm_free; a keyval freed while in use lives on
 *   - a failing copy callback makes MPI_Comm_dup fail; a failing delete
 *     callback makes MPI_Comm_delete_attr fail and keeps the attribute
 *   - the MPI-1 names (Keyval_create, Attr_put/get/delete)
 *   - MPI_COMM_SELF's attributes are deleted at MPI_Finalize, newest first
 */
#include "util.h"

static int nlog;
static int log_keys[16];

/* extra_state points at a counter of delete calls for that keyval */
static int count_delete(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val;
    (*(int *)extra)++;
    return MPI_SUCCESS;
}

static int plus_one_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    *(intptr_t *)out = (intptr_t)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)in, (void)out;
    *flag = 0;
    return *(int *)extra;
}

static int failing_delete(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val;
    return *(int *)extra;
}

static int log_delete(MPI_Comm c, int k, void *val, void *extra)
{
    (void)val, (void)extra;
    int flag = 0;
    /* MPI still works inside MPI_Finalize's callbacks */
    if (c == MPI_COMM_SELF && MPI_Finalized(&flag) == MPI_SUCCESS && !flag && nlog < 16)
        log_keys[nlog++] = k;
    return MPI_SUCCESS;
}

static int class_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void predefined(void)
{
    static const struct { int key; const char *name; } keys[] = {
        {MPI_TAG_UB, "MPI_TAG_UB"}, {MPI_HOST, "MPI_HOST"}, {MPI_IO, "MPI_IO"},
        {MPI_WTIME_IS_GLOBAL, "MPI_WTIME_IS_GLOBAL"}, {MPI_UNIVERSE_SIZE, "MPI_UNIVERSE_SIZE"},
        {MPI_APPNUM, "MPI_APPNUM"}, {MPI_LASTUSEDCODE, "MPI_LASTUSEDCODE"}};
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        int *v = NULL, flag = 0;
        TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, keys[i].key, &v, &flag));
        /* MPI_UNIVERSE_SIZE is set only when the launch knows one (hosts, -usize) */
        TU_ASSERT((flag && v) || (!flag && keys[i].key == MPI_UNIVERSE_SIZE),
                  "%s: flag %d, value %p", keys[i].name, flag, (void *)v);
        int rc = MPI_Comm_set_attr(MPI_COMM_WORLD, keys[i].key, NULL);
        TU_ASSERT(class_of(rc) == MPI_ERR_KEYVAL, "setting %s gave %s", keys[i].name,
                  tu_errstr(rc));
        rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, keys[i].key);
        TU_ASSERT(class_of(rc) == MPI_ERR_KEYVAL, "deleting %s gave %s", keys[i].name,
                  tu_errstr(rc));
        int k = keys[i].key;
        rc = MPI_Comm_free_keyval(&k);
        TU_ASSERT(class_of(rc) == MPI_ERR_KEYVAL, "freeing %s gave %s", keys[i].name,
                  tu_errstr(rc));
    }
    int *v, flag;
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    TU_ASSERT(*v >= 32767, "MPI_TAG_UB is %d", *v);
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
    TU_ASSERT(*v == MPI_PROC_NULL || (*v >= 0 && *v < tu_size), "MPI_HOST is %d", *v);
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
    TU_ASSERT(*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < tu_size),
              "MPI_IO is %d", *v);
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
    TU_ASSERT(*v == 0 || *v == 1, "MPI_WTIME_IS_GLOBAL is %d", *v);
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    const char *usize = getenv("MPIEXEC_UNIVERSE_SIZE");
    if (usize)
        TU_ASSERT(flag && *v == atoi(usize), "MPI_UNIVERSE_SIZE is %d (flag %d) under "
                  "MPIEXEC_UNIVERSE_SIZE=%s", flag ? *v : -1, flag, usize);
    else
        TU_ASSERT(!flag || *v >= tu_size, "MPI_UNIVERSE_SIZE is %d with %d ranks", *v, tu_size);
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
    TU_ASSERT(*v == 0, "MPI_APPNUM is %d", *v);
    TU_CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    TU_ASSERT(*v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE is %d", *v);
    TU_CHECK(MPI_Attr_get(MPI_COMM_SELF, MPI_TAG_UB, &v, &flag));
    TU_ASSERT(flag && *v >= 32767, "MPI_Attr_get(MPI_TAG_UB) on MPI_COMM_SELF");
}

/* dels outlives the call: the last attribute set here stays until MPI_Finalize */
static void set_get_delete(MPI_Comm comm, int *dels_out)
{
    int k, flag = -1;
    int *dels_p = dels_out;
#define dels (*dels_p)
    void *v = NULL;
    TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &k, dels_p));
    TU_ASSERT(k != MPI_KEYVAL_INVALID, "keyval is MPI_KEYVAL_INVALID");
    TU_CHECK(MPI_Comm_get_attr(comm, k, &v, &flag));
    TU_ASSERT(flag == 0, "attribute present before it was set");
    TU_CHECK(MPI_Comm_set_attr(comm, k, (void *)(intptr_t)42));
    TU_CHECK(MPI_Comm_get_attr(comm, k, &v, &flag));
    TU_ASSERT(flag == 1 && v == (void *)(intptr_t)42, "get after set: flag %d value %p", flag, v);
    TU_CHECK(MPI_Comm_set_attr(comm, k, (void *)(intptr_t)43)); /* replaces: deletes 42 */
    TU_ASSERT(dels == 1, "replacing a value ran %d delete callbacks, expected 1", dels);
    TU_CHECK(MPI_Comm_get_attr(comm, k, &v, &flag));
    TU_ASSERT(flag == 1 && v == (void *)(intptr_t)43, "get after replace: value %p", v);
    TU_CHECK(MPI_Comm_delete_attr(comm, k));
    TU_ASSERT(dels == 2, "delete ran %d delete callbacks in all, expected 2", dels);
    TU_CHECK(MPI_Comm_get_attr(comm, k, &v, &flag));
    TU_ASSERT(flag == 0, "attribute present after delete");

    /* freed while in use: the attribute stays readable through no handle, but
     * its delete callback still runs when it goes */
    TU_CHECK(MPI_Comm_set_attr(comm, k, (void *)(intptr_t)44));
    int k2 = k;
    TU_CHECK(MPI_Comm_free_keyval(&k2));
    TU_ASSERT(k2 == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    int rc = MPI_Comm_set_attr(comm, MPI_KEYVAL_INVALID, NULL);
    TU_ASSERT(class_of(rc) == MPI_ERR_KEYVAL, "set with MPI_KEYVAL_INVALID gave %s",
              tu_errstr(rc));
    TU_ASSERT(dels == 2, "freeing the keyval ran a delete callback");
    /* a dup copies nothing (null copy), a free of the dup deletes nothing */
    MPI_Comm d;
    TU_CHECK(MPI_Comm_dup(comm, &d));
    TU_CHECK(MPI_Comm_free(&d));
    TU_ASSERT(dels == 2, "dup/free with MPI_COMM_NULL_COPY_FN ran a delete callback");
    /* the attribute with the freed keyval goes with the comm: only for a dup */
    TU_CHECK(MPI_Comm_dup(comm, &d));
    int k3, dels3 = 0;
    TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &k3, &dels3));
    TU_CHECK(MPI_Comm_set_attr(d, k3, (void *)(intptr_t)7));
    TU_CHECK(MPI_Comm_free_keyval(&k3));
    TU_CHECK(MPI_Comm_free(&d));
    TU_ASSERT(dels3 == 1, "freeing a comm whose attribute's keyval was freed ran %d delete "
              "callbacks, expected 1", dels3);
    /* the one on comm (a predefined communicator) stays until MPI_Finalize */
#undef dels
}

static void dup_callbacks(void)
{
    int kdup, kplus, knull, dels_dup = 0, dels_plus = 0, dels_null = 0;
    TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &kdup, &dels_dup));
    TU_CHECK(MPI_Comm_create_keyval(plus_one_copy, count_delete, &kplus, &dels_plus));
    TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &knull, &dels_null));
    MPI_Comm a, b;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    TU_CHECK(MPI_Comm_set_attr(a, kdup, (void *)(intptr_t)100));
    TU_CHECK(MPI_Comm_set_attr(a, kplus, (void *)(intptr_t)200));
    TU_CHECK(MPI_Comm_set_attr(a, knull, (void *)(intptr_t)300));
    TU_CHECK(MPI_Comm_dup(a, &b));
    void *v;
    int flag;
    TU_CHECK(MPI_Comm_get_attr(b, kdup, &v, &flag));
    TU_ASSERT(flag && v == (void *)(intptr_t)100, "MPI_COMM_DUP_FN: flag %d value %p", flag, v);
    TU_CHECK(MPI_Comm_get_attr(b, kplus, &v, &flag));
    TU_ASSERT(flag && v == (void *)(intptr_t)201, "user copy: flag %d value %p", flag, v);
    TU_CHECK(MPI_Comm_get_attr(b, knull, &v, &flag));
    TU_ASSERT(!flag, "MPI_COMM_NULL_COPY_FN copied the attribute");
    TU_CHECK(MPI_Comm_get_attr(a, kplus, &v, &flag));
    TU_ASSERT(flag && v == (void *)(intptr_t)200, "the old comm's value changed: %p", v);
    TU_CHECK(MPI_Comm_free(&b));
    TU_ASSERT(dels_dup == 1 && dels_plus == 1 && dels_null == 0,
              "free of the dup: delete calls %d %d %d, expected 1 1 0", dels_dup, dels_plus,
              dels_null);
    TU_CHECK(MPI_Comm_free(&a));
    TU_ASSERT(dels_dup == 2 && dels_plus == 2 && dels_null == 1,
              "free of the original: delete calls %d %d %d, expected 2 2 1", dels_dup,
              dels_plus, dels_null);
    TU_CHECK(MPI_Comm_free_keyval(&kdup));
    TU_CHECK(MPI_Comm_free_keyval(&kplus));
    TU_CHECK(MPI_Comm_free_keyval(&knull));
}

static void callback_errors(void)
{
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int myclass, mycode;
    TU_CHECK(MPI_Add_error_class(&myclass));
    TU_CHECK(MPI_Add_error_code(myclass, &mycode));

    /* a copy callback that fails makes MPI_Comm_dup fail (on every rank, as
     * every rank's callback fails), and no new comm appears */
    int kfail, kdup, dels = 0;
    TU_CHECK(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &kfail, &mycode));
    TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &kdup, &dels));
    MPI_Comm a, b = MPI_COMM_WORLD;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    TU_CHECK(MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_attr(a, kdup, (void *)(intptr_t)1));
    TU_CHECK(MPI_Comm_set_attr(a, kfail, (void *)(intptr_t)2));
    int rc = MPI_Comm_dup(a, &b);
    TU_ASSERT(rc != MPI_SUCCESS, "MPI_Comm_dup succeeded with a failing copy callback");
    TU_ASSERT(class_of(rc) == myclass || class_of(rc) == MPI_ERR_OTHER,
              "MPI_Comm_dup with a failing copy callback gave %s (expected class %d)",
              tu_errstr(rc), myclass);
    /* the attribute copied before the failure was deleted again, if it was copied */
    TU_ASSERT(dels <= 1, "%d delete calls after a failed dup", dels);
    int before = dels;

    /* a failing delete callback: delete_attr fails and the attribute stays */
    int kdel, fail_code = mycode;
    TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &kdel, &fail_code));
    TU_CHECK(MPI_Comm_set_attr(a, kdel, (void *)(intptr_t)3));
    rc = MPI_Comm_delete_attr(a, kdel);
    TU_ASSERT(rc == mycode, "delete_attr with a failing callback returned %s, expected the "
              "callback's code %d", tu_errstr(rc), mycode);
    void *v;
    int flag;
    TU_CHECK(MPI_Comm_get_attr(a, kdel, &v, &flag));
    TU_ASSERT(flag && v == (void *)(intptr_t)3, "attribute gone after a failed delete");
    fail_code = MPI_SUCCESS; /* now let it go */
    TU_CHECK(MPI_Comm_delete_attr(a, kdel));
    TU_CHECK(MPI_Comm_delete_attr(a, kfail));
    TU_CHECK(MPI_Comm_free(&a));
    TU_ASSERT(dels == before + 1, "freeing the comm ran %d delete callbacks, expected 1",
              dels - before);
    /* keyval kinds are not mixed up */
    int tk;
    TU_CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, tk, NULL);
    TU_ASSERT(class_of(rc) == MPI_ERR_KEYVAL, "a datatype keyval on a comm gave %s",
              tu_errstr(rc));
    rc = MPI_Comm_get_attr(MPI_COMM_NULL, kdup, &v, &flag);
    TU_ASSERT(class_of(rc) == MPI_ERR_COMM, "get_attr on MPI_COMM_NULL gave %s", tu_errstr(rc));
    TU_CHECK(MPI_Type_free_keyval(&tk));
    TU_CHECK(MPI_Comm_free_keyval(&kfail));
    TU_CHECK(MPI_Comm_free_keyval(&kdup));
    TU_CHECK(MPI_Comm_free_keyval(&kdel));
    rc = MPI_Comm_free_keyval(&kdel);
    TU_ASSERT(class_of(rc) == MPI_ERR_KEYVAL, "freeing a freed keyval gave %s", tu_errstr(rc));
}

static void mpi1_names(void)
{
    int k, dels = 0, flag;
    void *v;
    TU_CHECK(MPI_Keyval_create(MPI_DUP_FN, count_delete, &k, &dels));
    TU_CHECK(MPI_Attr_put(MPI_COMM_WORLD, k, (void *)(intptr_t)5));
    TU_CHECK(MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag));
    TU_ASSERT(flag && v == (void *)(intptr_t)5, "MPI_Attr_get: flag %d value %p", flag, v);
    TU_CHECK(MPI_Attr_delete(MPI_COMM_WORLD, k));
    TU_ASSERT(dels == 1, "MPI_Attr_delete ran %d delete callbacks", dels);
    TU_CHECK(MPI_Keyval_free(&k));
    TU_ASSERT(k == MPI_KEYVAL_INVALID, "MPI_Keyval_free did not reset the handle");
    int k2;
    TU_CHECK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k2, NULL));
    TU_CHECK(MPI_Keyval_free(&k2));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "attr_comm");
    /* error cases below check the class returned; TU_CHECK catches the rest */
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    predefined();
    static int world_dels, self_dels;
    set_get_delete(MPI_COMM_WORLD, &world_dels);
    set_get_delete(MPI_COMM_SELF, &self_dels);
    dup_callbacks();
    callback_errors();
    mpi1_names();
    /* three attributes on MPI_COMM_SELF, deleted newest first by MPI_Finalize */
    int keys[3];
    for (int i = 0; i < 3; i++) {
        TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, log_delete, &keys[i], NULL));
        TU_CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, keys[i], NULL));
    }
    int ids[3] = {keys[0], keys[1], keys[2]};
    for (int i = 0; i < 3; i++)
        TU_CHECK(MPI_Comm_free_keyval(&keys[i]));
    tu_finish();
    if (nlog != 3 || log_keys[0] != ids[2] || log_keys[1] != ids[1] || log_keys[2] != ids[0]) {
        fprintf(stderr, "attr_comm: rank %d: FAIL: MPI_Finalize deleted %d MPI_COMM_SELF "
                "attributes (keys %d %d %d), expected 3, newest first (%d %d %d)\n", tu_rank,
                nlog, log_keys[0], log_keys[1], log_keys[2], ids[2], ids[1], ids[0]);
        return 1;
    }
    if (self_dels != 3) {
        fprintf(stderr, "attr_comm: rank %d: FAIL: the MPI_COMM_SELF attribute whose keyval "
                "was freed saw %d delete calls in all, expected 3 (the last in MPI_Finalize)\n",
                tu_rank, self_dels);
        return 1;
    }
    return 0;
}
