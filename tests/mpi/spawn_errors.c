/*
 * spawn_errors: MPI_Comm_spawn(_multiple) with bad input, under
 * MPI_ERRORS_RETURN, at every rank of MPI_COMM_WORLD (root 0): each case
 * must fail at every rank with the expected class and a message naming the
 * call, fill errcodes, leave the intercommunicator MPI_COMM_NULL, and leave
 * the library usable (a real spawn follows every few cases). Then the info
 * keys: soft (fewer processes, errcodes saying which), an unknown key
 * (ignored), wdir and path.
 *
 * Cases: a program that does not exist; maxprocs 0; a NULL command; count 0;
 * an invalid root; an intercommunicator as comm; a NULL intercomm pointer;
 * an argument with a newline; a working directory that does not exist; a
 * malformed soft; a soft that allows no count up to maxprocs.
 */
#include "util.h"

#include <limits.h>
#include <stdlib.h>

static char *self;

static void expect_fail(int rc, int cls, const char *fn, const char *what, MPI_Comm ic,
                        const int *errcodes, int n)
{
    tu_expect(rc, cls, fn, what);
    TU_ASSERT(ic == MPI_COMM_NULL, "%s: the intercommunicator is not MPI_COMM_NULL", what);
    for (int i = 0; errcodes && i < n; i++)
        TU_ASSERT(tu_class(errcodes[i]) == MPI_ERR_SPAWN, "%s: errcodes[%d] is %d, expected "
                  "MPI_ERR_SPAWN", what, i, errcodes[i]);
}

/* A spawn that works: the children answer and go. */
static void good_spawn(int n, MPI_Info info, int expect_remote)
{
    char *args[] = {"child", NULL};
    int errcodes[8];
    MPI_Comm ic;
    TU_CHECK(MPI_Comm_spawn(self, args, n, info, 0, MPI_COMM_WORLD, &ic, errcodes));
    int rs, token = 0;
    TU_CHECK(MPI_Comm_remote_size(ic, &rs));
    TU_ASSERT(rs == expect_remote, "remote size %d, expected %d", rs, expect_remote);
    for (int i = 0; i < n; i++)
        TU_ASSERT(tu_class(errcodes[i]) == (i < expect_remote ? MPI_SUCCESS : MPI_ERR_SPAWN),
                  "errcodes[%d] = %d with %d of %d started", i, errcodes[i], expect_remote, n);
    if (tu_rank == 0)
        TU_CHECK(MPI_Recv(&token, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD));
    TU_ASSERT(token == 4200 + expect_remote, "the children's token is %d", token);
    TU_CHECK(MPI_Comm_disconnect(&ic));
}

/* want_cwd: the working directory the parents asked for, or NULL. */
static void child(const char *want_cwd)
{
    MPI_Comm parent;
    TU_CHECK(MPI_Comm_get_parent(&parent));
    TU_ASSERT(parent != MPI_COMM_NULL, "no parent");
    int token = 4200 + tu_size;
    if (tu_rank == 0)
        TU_CHECK(MPI_Send(&token, 1, MPI_INT, 0, 1, parent));
    char cwd[PATH_MAX];
    if (want_cwd)
        TU_ASSERT(getcwd(cwd, sizeof cwd) && !strcmp(cwd, want_cwd), "working directory %s, "
                  "expected %s", cwd, want_cwd);
    TU_CHECK(MPI_Comm_disconnect(&parent));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "spawn_errors");
    if (argc > 1 && !strcmp(argv[1], "child")) {
        child(argc > 2 ? argv[2] : NULL);
        TU_CHECK(MPI_Finalize());
        return 0;
    }
    static char me[PATH_MAX];
    TU_ASSERT(realpath(argv[0], me), "realpath(%s) failed", argv[0]);
    self = me;
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int root = tu_rank == 0, errcodes[8];
    MPI_Comm ic = MPI_COMM_NULL;
    const char *fn = "MPI_Comm_spawn";
    char *args[] = {"child", NULL};
    char *bad_host = getenv("SPAWN_BAD_HOST");
    if (getenv("SPAWN_NO_MANAGER") || bad_host) {
        /* spawn-jobs.sh: a singleton has nothing to spawn with; a host that
         * cannot be reached fails the spawn alone */
        MPI_Info info = MPI_INFO_NULL;
        if (bad_host) {
            TU_CHECK(MPI_Info_create(&info));
            TU_CHECK(MPI_Info_set(info, "host", bad_host));
        }
        int rc = MPI_Comm_spawn(self, args, 2, info, 0, MPI_COMM_WORLD, &ic, errcodes);
        expect_fail(rc, MPI_ERR_SPAWN, fn, bad_host ? "an unreachable host" :
                    "no process manager that spawns", ic, errcodes, 2);
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        const char *no_pm = getenv("SPAWN_NO_MANAGER");
        const char *want = bad_host ? bad_host : *no_pm ? no_pm : "without a process manager";
        TU_ASSERT(strstr(msg, want), "the message \"%s\" does not say '%s'", msg, want);
        if (info != MPI_INFO_NULL)
            TU_CHECK(MPI_Info_free(&info));
        if (bad_host) /* and the launch goes on */
            good_spawn(1, MPI_INFO_NULL, 1);
        tu_finish();
        return 0;
    }

    expect_fail(MPI_Comm_spawn("./no-such-program-spawn_errors", args, 3, MPI_INFO_NULL, 0,
                               MPI_COMM_WORLD, &ic, errcodes),
                MPI_ERR_SPAWN, fn, "a program that does not exist", ic, errcodes, 3);
    good_spawn(2, MPI_INFO_NULL, 2);
    expect_fail(MPI_Comm_spawn(self, args, root ? 0 : 5, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                               errcodes),
                MPI_ERR_ARG, fn, "maxprocs 0 at the root", ic, NULL, 0);
    expect_fail(MPI_Comm_spawn(root ? NULL : self, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                               &ic, MPI_ERRCODES_IGNORE),
                MPI_ERR_ARG, fn, "a NULL command at the root", ic, NULL, 0);
    char *cmds[1] = {self};
    int maxprocs[1] = {1};
    MPI_Info infos[1] = {MPI_INFO_NULL};
    expect_fail(MPI_Comm_spawn_multiple(root ? 0 : 1, cmds, NULL, maxprocs, infos, 0,
                                        MPI_COMM_WORLD, &ic, errcodes),
                MPI_ERR_ARG, "MPI_Comm_spawn_multiple", "count 0 at the root", ic, NULL, 0);
    expect_fail(MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, tu_size, MPI_COMM_WORLD, &ic,
                               errcodes),
                MPI_ERR_ROOT, fn, "root = size", ic, NULL, 0);
    TU_EXPECT_CLASS(MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, NULL,
                                   errcodes), MPI_ERR_ARG);
    char *nl_args[] = {"child", "two\nlines", NULL};
    expect_fail(MPI_Comm_spawn(self, nl_args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                               errcodes),
                MPI_ERR_ARG, fn, "an argument with a newline", ic, errcodes, 1);
    good_spawn(1, MPI_INFO_NULL, 1);

    MPI_Info info;
    TU_CHECK(MPI_Info_create(&info));
    TU_CHECK(MPI_Info_set(info, "wdir", "/no/such/directory/spawn_errors"));
    expect_fail(MPI_Comm_spawn(self, args, 2, info, 0, MPI_COMM_WORLD, &ic, errcodes),
                MPI_ERR_SPAWN, fn, "info wdir that does not exist", ic, errcodes, 2);
    TU_CHECK(MPI_Info_free(&info));
    TU_CHECK(MPI_Info_create(&info));
    TU_CHECK(MPI_Info_set(info, "soft", "1:x"));
    expect_fail(MPI_Comm_spawn(self, args, 2, info, 0, MPI_COMM_WORLD, &ic, errcodes),
                MPI_ERR_INFO, fn, "a malformed soft", ic, errcodes, 2);
    TU_CHECK(MPI_Info_set(info, "soft", "7:9,12"));
    expect_fail(MPI_Comm_spawn(self, args, 4, info, 0, MPI_COMM_WORLD, &ic, errcodes),
                MPI_ERR_SPAWN, fn, "a soft with no count up to maxprocs", ic, errcodes, 4);

    /* an intercommunicator is no comm for spawn (the one of a good spawn) */
    TU_CHECK(MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                            MPI_ERRCODES_IGNORE));
    MPI_Comm bad = MPI_COMM_NULL;
    int token;
    TU_CHECK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    tu_expect(MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, ic, &bad, errcodes),
              MPI_ERR_COMM, fn, "an intercommunicator as comm");
    if (tu_rank == 0)
        TU_CHECK(MPI_Recv(&token, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Comm_disconnect(&ic));

    /* soft: the largest count it allows up to maxprocs; an unknown key is
     * ignored */
    TU_CHECK(MPI_Info_set(info, "soft", "1,3:1:-1,7"));
    TU_CHECK(MPI_Info_set(info, "faro_no_such_key", "whatever"));
    good_spawn(5, info, 3);
    TU_CHECK(MPI_Info_set(info, "soft", "0:8:2"));
    good_spawn(5, info, 4);
    TU_CHECK(MPI_Info_free(&info));

    /* path with a bare program name, and wdir (the child checks it) */
    char dir[PATH_MAX], *slash, *wd_args[] = {"child", "/", NULL};
    snprintf(dir, sizeof dir, "%s", self);
    TU_CHECK(MPI_Info_create(&info));
    if ((slash = strrchr(dir, '/'))) {
        *slash = 0;
        TU_CHECK(MPI_Info_set(info, "path", dir));
        TU_CHECK(MPI_Info_set(info, "wdir", "/"));
        char *base = slash + 1;
        int one = 1;
        MPI_Info infos1[1] = {info};
        char *cmds1[1] = {base}, **argvs1[1] = {wd_args};
        TU_CHECK(MPI_Comm_spawn_multiple(1, cmds1, argvs1, &one, infos1, 0, MPI_COMM_WORLD,
                                         &ic, errcodes));
        TU_ASSERT(errcodes[0] == MPI_SUCCESS, "path + wdir: errcodes[0] = %d", errcodes[0]);
        if (tu_rank == 0)
            TU_CHECK(MPI_Recv(&token, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Comm_disconnect(&ic));
    }
    TU_CHECK(MPI_Info_free(&info));
    tu_finish();
    return 0;
}
