/*
 * attr_type: keyvals and attributes on datatypes: set/get/delete on a
 * predefined type and a derived one, copy callbacks on MPI_Type_dup, delete
 * callbacks on MPI_Type_free, a failing copy callback, and that comm and
 * datatype keyvals are not interchangeable.
 */
#include "util.h"

static int type_delete(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)val;
    (*(int *)extra)++;
    return MPI_SUCCESS;
}

static int times_ten(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra;
    *(intptr_t *)out = (intptr_t)in * 10;
    *flag = 1;
    return MPI_SUCCESS;
}

static int refuse(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static int class_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "attr_type");
    int k, kdup, dels = 0, dups_dels = 0, flag;
    void *v;
    TU_CHECK(MPI_Type_create_keyval(times_ten, type_delete, &k, &dels));
    TU_CHECK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_delete, &kdup, &dups_dels));

    /* predefined types carry attributes too */
    TU_CHECK(MPI_Type_set_attr(MPI_INT, k, (void *)(intptr_t)3));
    TU_CHECK(MPI_Type_get_attr(MPI_INT, k, &v, &flag));
    TU_ASSERT(flag && v == (void *)(intptr_t)3, "MPI_INT: flag %d value %p", flag, v);
    TU_CHECK(MPI_Type_get_attr(MPI_DOUBLE, k, &v, &flag));
    TU_ASSERT(!flag, "MPI_DOUBLE has MPI_INT's attribute");
    TU_CHECK(MPI_Type_delete_attr(MPI_INT, k));
    TU_ASSERT(dels == 1, "delete on MPI_INT ran %d delete callbacks", dels);

    MPI_Datatype t, d, dd;
    TU_CHECK(MPI_Type_contiguous(4, MPI_INT, &t));
    TU_CHECK(MPI_Type_set_attr(t, k, (void *)(intptr_t)7));
    TU_CHECK(MPI_Type_set_attr(t, kdup, (void *)(intptr_t)8));
    TU_CHECK(MPI_Type_dup(t, &d));
    TU_CHECK(MPI_Type_get_attr(d, k, &v, &flag));
    TU_ASSERT(flag && v == (void *)(intptr_t)70, "dup: user copy gave flag %d value %p", flag, v);
    TU_CHECK(MPI_Type_get_attr(d, kdup, &v, &flag));
    TU_ASSERT(flag && v == (void *)(intptr_t)8, "dup: MPI_TYPE_DUP_FN gave flag %d value %p",
              flag, v);
    TU_CHECK(MPI_Type_dup(d, &dd));
    TU_CHECK(MPI_Type_get_attr(dd, k, &v, &flag));
    TU_ASSERT(flag && v == (void *)(intptr_t)700, "dup of dup: value %p", v);
    TU_CHECK(MPI_Type_free(&dd));
    TU_ASSERT(dels == 2 && dups_dels == 1, "free of a dup: delete calls %d %d, expected 2 1",
              dels, dups_dels);
    TU_CHECK(MPI_Type_free(&d));
    TU_CHECK(MPI_Type_free(&t));
    TU_ASSERT(dels == 4 && dups_dels == 3, "frees: delete calls %d %d, expected 4 3", dels,
              dups_dels);

    /* a failing copy callback makes MPI_Type_dup fail */
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int kref;
    TU_CHECK(MPI_Type_create_keyval(refuse, MPI_TYPE_NULL_DELETE_FN, &kref, NULL));
    TU_CHECK(MPI_Type_contiguous(2, MPI_INT, &t));
    TU_CHECK(MPI_Type_set_attr(t, kdup, (void *)(intptr_t)9));
    TU_CHECK(MPI_Type_set_attr(t, kref, NULL));
    d = MPI_DATATYPE_NULL;
    int rc = MPI_Type_dup(t, &d);
    TU_ASSERT(class_of(rc) == MPI_ERR_OTHER, "MPI_Type_dup with a failing copy callback gave %s",
              tu_errstr(rc));
    TU_ASSERT(dups_dels <= 4, "failed dup ran %d delete callbacks", dups_dels - 3);
    int before = dups_dels;
    TU_CHECK(MPI_Type_free(&t));
    TU_ASSERT(dups_dels == before + 1, "free after a failed dup: %d delete calls",
              dups_dels - before);

    /* kinds do not mix; predefined comm keys are not datatype keys */
    int ck;
    TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    rc = MPI_Type_set_attr(MPI_INT, ck, NULL);
    TU_ASSERT(class_of(rc) == MPI_ERR_KEYVAL, "a comm keyval on a type gave %s", tu_errstr(rc));
    rc = MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &v, &flag);
    TU_ASSERT(class_of(rc) == MPI_ERR_KEYVAL, "MPI_TAG_UB on a type gave %s", tu_errstr(rc));
    rc = MPI_Type_set_attr(MPI_DATATYPE_NULL, k, NULL);
    TU_ASSERT(class_of(rc) == MPI_ERR_TYPE, "set_attr on MPI_DATATYPE_NULL gave %s",
              tu_errstr(rc));
    TU_CHECK(MPI_Comm_free_keyval(&ck));
    TU_CHECK(MPI_Type_free_keyval(&kref));
    TU_CHECK(MPI_Type_free_keyval(&k));
    TU_CHECK(MPI_Type_free_keyval(&kdup));
    tu_finish();
    return 0;
}
