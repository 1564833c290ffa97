/*
 * rma_win_errh: a window's attribute calls report through the window's
 * error handler, not MPI_COMM_WORLD's. MPI_COMM_WORLD keeps
 * MPI_ERRORS_ARE_FATAL (so an error sent there ends the job), the window
 * gets MPI_ERRORS_RETURN, then a user handler:
 *   - MPI_Win_set_attr/get_attr/delete_attr with MPI_KEYVAL_INVALID and
 *     with a communicator's keyval return MPI_ERR_KEYVAL;
 *   - a delete callback that fails: MPI_Win_delete_attr returns its code;
 *   - a user window handler is called once per error, with the window;
 *   - MPI_Win_create_errhandler's own errors (NULL function or handle, on
 *     MPI_COMM_WORLD, made MPI_ERRORS_RETURN for that) name it, not
 *     MPI_Comm_create_errhandler.
 */
#include "util.h"

static int fail_delete = 1;
static int handler_calls;
static MPI_Win handler_win = MPI_WIN_NULL;

static int failing_delete(MPI_Win w, int k, void *val, void *extra)
{
    (void)w, (void)k, (void)val, (void)extra;
    return fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void win_handler(MPI_Win *w, int *code, ...)
{
    (void)code;
    handler_calls++;
    handler_win = *w;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "rma_win_errh");
    int buf[4] = {0}, x = 1, flag = -1;
    void *val = NULL;
    MPI_Win win;
    TU_CHECK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    TU_CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

    TU_EXPECT_CLASS(MPI_Win_set_attr(win, MPI_KEYVAL_INVALID, &x), MPI_ERR_KEYVAL);
    TU_EXPECT_CLASS(MPI_Win_get_attr(win, MPI_KEYVAL_INVALID, &val, &flag), MPI_ERR_KEYVAL);
    TU_EXPECT_CLASS(MPI_Win_delete_attr(win, MPI_KEYVAL_INVALID), MPI_ERR_KEYVAL);
    int ckey;
    TU_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckey, NULL));
    int rc = MPI_Win_set_attr(win, ckey, &x);
    TU_EXPECT_CLASS(rc, MPI_ERR_KEYVAL);
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        TU_ASSERT(strstr(msg, "MPI_Win_set_attr") && strstr(msg, "communicator"),
                  "message \"%s\" does not name the call and the keyval's kind", msg);
    }
    TU_CHECK(MPI_Comm_free_keyval(&ckey));

    int wkey;
    TU_CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, failing_delete, &wkey, NULL));
    TU_CHECK(MPI_Win_set_attr(win, wkey, &x));
    TU_EXPECT_CLASS(MPI_Win_delete_attr(win, wkey), MPI_ERR_OTHER);
    TU_EXPECT_CLASS(MPI_Win_set_attr(win, wkey, buf), MPI_ERR_OTHER); /* replacing deletes */
    fail_delete = 0;
    TU_CHECK(MPI_Win_delete_attr(win, wkey));

    MPI_Errhandler eh;
    TU_CHECK(MPI_Win_create_errhandler(win_handler, &eh));
    TU_CHECK(MPI_Win_set_errhandler(win, eh));
    TU_CHECK(MPI_Errhandler_free(&eh));
    TU_EXPECT_CLASS(MPI_Win_get_attr(win, MPI_KEYVAL_INVALID, &val, &flag), MPI_ERR_KEYVAL);
    TU_ASSERT(handler_calls == 1 && handler_win == win, "the window's handler ran %d times "
              "(expected once, with the window)", handler_calls);

    TU_CHECK(MPI_Win_free_keyval(&wkey));
    TU_CHECK(MPI_Win_free(&win));

    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int i = 0; i < 2; i++) {
        rc = i ? MPI_Win_create_errhandler(win_handler, NULL)
               : MPI_Win_create_errhandler(NULL, &eh);
        TU_EXPECT_CLASS(rc, MPI_ERR_ARG);
        if (rc == MPI_SUCCESS)
            continue;
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        TU_ASSERT(strstr(msg, "MPI_Win_create_errhandler") && !strstr(msg, "MPI_Comm_"),
                  "message \"%s\" does not name MPI_Win_create_errhandler", msg);
    }
    tu_finish();
    return 0;
}
