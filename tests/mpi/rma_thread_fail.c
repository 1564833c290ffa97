/*
 * rma_thread_fail: when the progress thread of FARO_ASYNC_PROGRESS cannot
 * start, the window call fails whole: MPI_ERR_OTHER naming the call, the
 * handle MPI_WIN_NULL, and no window left behind (a later window works).
 * The thread is made to fail by an address-space limit just above what the
 * process uses, so that its stack cannot be mapped. Run with
 * FARO_ASYNC_PROGRESS=1; without it (or when the limit does not stop the
 * thread) the first window simply works and the test says so and passes.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "util.h"

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "rma_thread_fail");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int buf[4] = {0};
    MPI_Win win = MPI_WIN_NULL;
    struct rlimit old;
    TU_ASSERT(getrlimit(RLIMIT_AS, &old) == 0, "getrlimit failed");
    unsigned long long vm = tu_vm_size();
    TU_ASSERT(vm > 0, "cannot read VmSize");
    struct rlimit tight = {(rlim_t)(vm + (2u << 20)), old.rlim_max};
    TU_ASSERT(setrlimit(RLIMIT_AS, &tight) == 0, "setrlimit failed");
    int rc = MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    setrlimit(RLIMIT_AS, &old);
    if (rc == MPI_SUCCESS) {
        printf("rma_thread_fail: the progress thread started (no FARO_ASYNC_PROGRESS, or the "
               "limit did not stop it): nothing to check\n");
        TU_CHECK(MPI_Win_free(&win));
    } else {
        TU_ASSERT(win == MPI_WIN_NULL, "a failed MPI_Win_create left a handle");
        TU_EXPECT_CLASS(rc, MPI_ERR_OTHER);
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        TU_ASSERT(strstr(msg, "MPI_Win_create") && strstr(msg, "progress thread"),
                  "message \"%s\" does not name the call and the thread", msg);
    }
    /* the library is still usable, and the next window starts the thread */
    TU_CHECK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    TU_CHECK(MPI_Win_fence(0, win));
    TU_CHECK(MPI_Win_fence(0, win));
    TU_CHECK(MPI_Win_free(&win));
    tu_finish();
    return 0;
}
