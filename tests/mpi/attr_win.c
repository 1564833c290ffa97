/*
 * attr_win: window keyvals and attributes:
 *   - MPI_Win_create_keyval with the predefined MPI_WIN_NULL_COPY_FN,
 *     MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN and with user callbacks;
 *     MPI_Win_free_keyval sets the handle to MPI_KEYVAL_INVALID, a second
 *     free is MPI_ERR_KEYVAL;
 *   - the predefined callbacks do what the standard says when called;
 *   - keyvals are typed: a window keyval on a communicator or a datatype,
 *     or theirs on a window call, is MPI_ERR_KEYVAL;
 *   - MPI_Win_set_attr/get_attr/delete_attr and MPI_Win_free on
 *     MPI_WIN_NULL or on a pointer that is no window are MPI_ERR_WIN;
 *     NULL output pointers are errors, not crashes;
 *   - on a real window: set, get, delete; a communicator keyval is refused.
 * Errors return (MPI_ERRORS_RETURN on MPI_COMM_WORLD).
 */
#include "util.h"

static int user_copy(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    (void)w, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int user_delete(MPI_Win w, int k, void *val, void *extra)
{
    (void)w, (void)k, (void)val, (void)extra;
    return MPI_SUCCESS;
}

static void predefined_callbacks(void)
{
    int x = 7, flag = -1;
    void *out = NULL;
    TU_CHECK(MPI_WIN_DUP_FN(MPI_WIN_NULL, 0, NULL, &x, &out, &flag));
    TU_ASSERT(flag == 1 && out == &x, "MPI_WIN_DUP_FN: flag %d, copied %p (expected %p)", flag,
              out, (void *)&x);
    flag = -1;
    out = NULL;
    TU_CHECK(MPI_WIN_NULL_COPY_FN(MPI_WIN_NULL, 0, NULL, &x, &out, &flag));
    TU_ASSERT(flag == 0, "MPI_WIN_NULL_COPY_FN: flag %d, expected 0", flag);
    TU_CHECK(MPI_WIN_NULL_DELETE_FN(MPI_WIN_NULL, 0, &x, NULL));
    /* the communicator and datatype ones exist too */
    flag = -1;
    TU_CHECK(MPI_COMM_DUP_FN(MPI_COMM_WORLD, 0, NULL, &x, &out, &flag));
    TU_ASSERT(flag == 1 && out == &x, "MPI_COMM_DUP_FN: flag %d", flag);
    TU_CHECK(MPI_TYPE_DUP_FN(MPI_INT, 0, NULL, &x, &out, &flag));
    TU_ASSERT(flag == 1 && out == &x, "MPI_TYPE_DUP_FN: flag %d", flag);
    TU_CHECK(MPI_COMM_NULL_COPY_FN(MPI_COMM_WORLD, 0, NULL, &x, &out, &flag));
    TU_ASSERT(flag == 0, "MPI_COMM_NULL_COPY_FN: flag %d", flag);
    TU_CHECK(MPI_TYPE_NULL_COPY_FN(MPI_INT, 0, NULL, &x, &out, &flag));
    TU_ASSERT(flag == 0, "MPI_TYPE_NULL_COPY_FN: flag %d", flag);
    TU_CHECK(MPI_COMM_NULL_DELETE_FN(MPI_COMM_WORLD, 0, &x, NULL));
    TU_CHECK(MPI_TYPE_NULL_DELETE_FN(MPI_INT, 0, &x, NULL));
}

static void keyvals(void)
{
    int kp = MPI_KEYVAL_INVALID, kd = MPI_KEYVAL_INVALID, ku = MPI_KEYVAL_INVALID;
    int kc = MPI_KEYVAL_INVALID, kt = MPI_KEYVAL_INVALID;
    TU_CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kp, NULL));
    TU_CHECK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &kd, NULL));
    TU_CHECK(MPI_Win_create_keyval(user_copy, user_delete, &ku, &kc));
    TU_ASSERT(kp != MPI_KEYVAL_INVALID && kd != kp && ku != kd && ku != kp,
              "window keyvals %d %d %d are not distinct valid keyvals", kp, kd, ku);
    TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL));
    TU_CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kt, NULL));
    TU_EXPECT_CLASS(MPI_Win_create_keyval(user_copy, user_delete, NULL, NULL), MPI_ERR_ARG);

    /* typed: a window keyval is no communicator or datatype keyval, and back */
    TU_EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, ku, NULL), MPI_ERR_KEYVAL);
    TU_EXPECT_CLASS(MPI_Type_set_attr(MPI_INT, ku, NULL), MPI_ERR_KEYVAL);
    int copy = kc;
    TU_EXPECT_CLASS(MPI_Win_free_keyval(&copy), MPI_ERR_KEYVAL);
    copy = kt;
    TU_EXPECT_CLASS(MPI_Win_free_keyval(&copy), MPI_ERR_KEYVAL);
    copy = ku;
    TU_EXPECT_CLASS(MPI_Comm_free_keyval(&copy), MPI_ERR_KEYVAL);

    /* no window to use them on: MPI_ERR_WIN, whatever the keyval */
    static double not_a_window[64]; /* zeroed memory that is no window */
    MPI_Win bogus = (MPI_Win)(void *)not_a_window;
    void *v = NULL;
    int flag = -1;
    TU_EXPECT_CLASS(MPI_Win_set_attr(MPI_WIN_NULL, ku, NULL), MPI_ERR_WIN);
    TU_EXPECT_CLASS(MPI_Win_get_attr(MPI_WIN_NULL, ku, &v, &flag), MPI_ERR_WIN);
    TU_EXPECT_CLASS(MPI_Win_delete_attr(MPI_WIN_NULL, ku), MPI_ERR_WIN);
    TU_EXPECT_CLASS(MPI_Win_set_attr(bogus, ku, NULL), MPI_ERR_WIN);
    TU_EXPECT_CLASS(MPI_Win_get_attr(bogus, ku, &v, &flag), MPI_ERR_WIN);
    TU_EXPECT_CLASS(MPI_Win_delete_attr(bogus, ku), MPI_ERR_WIN);
    TU_EXPECT_CLASS(MPI_Win_get_attr(bogus, ku, NULL, NULL), MPI_ERR_WIN);
    TU_ASSERT(flag == -1, "a failed MPI_Win_get_attr set flag to %d", flag);
    MPI_Win w = MPI_WIN_NULL;
    TU_EXPECT_CLASS(MPI_Win_free(&w), MPI_ERR_WIN);
    w = bogus;
    TU_EXPECT_CLASS(MPI_Win_free(&w), MPI_ERR_WIN);
    TU_ASSERT(w == bogus, "a failed MPI_Win_free changed the handle");
    TU_EXPECT_CLASS(MPI_Win_free(NULL), MPI_ERR_ARG);

    /* on a real window: set, get, a window keyval's value survives until free */
    int buf[4], val = 5, found = 0;
    void *got = NULL;
    TU_CHECK(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    TU_CHECK(MPI_Win_set_attr(w, ku, &val));
    TU_CHECK(MPI_Win_get_attr(w, ku, &got, &found));
    TU_ASSERT(found && got == &val, "MPI_Win_get_attr: found %d, %p (expected %p)", found, got,
              (void *)&val);
    TU_EXPECT_CLASS(MPI_Win_set_attr(w, kc, &val), MPI_ERR_KEYVAL);
    TU_CHECK(MPI_Win_delete_attr(w, ku));
    TU_CHECK(MPI_Win_get_attr(w, ku, &got, &found));
    TU_ASSERT(!found, "MPI_Win_delete_attr left the attribute");
    TU_CHECK(MPI_Win_free(&w));
    TU_ASSERT(w == MPI_WIN_NULL, "MPI_Win_free left a window handle");

    /* free: the handle becomes MPI_KEYVAL_INVALID, a second free is an error */
    int saved = ku;
    TU_CHECK(MPI_Win_free_keyval(&ku));
    TU_ASSERT(ku == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval left the handle at %d", ku);
    TU_EXPECT_CLASS(MPI_Win_free_keyval(&ku), MPI_ERR_KEYVAL);
    TU_EXPECT_CLASS(MPI_Win_free_keyval(&saved), MPI_ERR_KEYVAL);
    TU_EXPECT_CLASS(MPI_Win_free_keyval(NULL), MPI_ERR_ARG);
    TU_CHECK(MPI_Win_free_keyval(&kp));
    TU_CHECK(MPI_Win_free_keyval(&kd));
    TU_CHECK(MPI_Comm_free_keyval(&kc));
    TU_CHECK(MPI_Type_free_keyval(&kt));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "attr_win");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    predefined_callbacks();
    keyvals();
    tu_finish();
    return 0;
}
