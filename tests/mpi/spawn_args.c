/*
 * spawn_args: the arguments of MPI_Comm_spawn reach the children unchanged:
 * empty ones, spaces, tabs, quotes, '%', '=', option-like words, UTF-8,
 * shell characters, a 3000-byte one and 200 arguments in all; each child
 * compares its argv with the list and reports to parent 0. Then
 * MPI_ARGV_NULL (the child gets no arguments at all), and an argument too
 * long for the process manager's lines (MPI_ERR_SPAWN at every parent,
 * under MPI_ERRORS_RETURN, and the next spawn works).
 */
#include "util.h"

#define NARGS 200
#define LONG_ARG 3000

static char *list[NARGS + 1];

static void make_list(void)
{
    static const char *fixed[] = {"args", "", "two words", "tab\there", "quote'\"s",
                                  "per%cent%20", "key=value=x", "-n", "--", "\xc3\xbc\xc3\xb1"
                                  "\xc3\xaf", "$HOME `x` ;|&<>*?", "  ", NULL};
    static char big[LONG_ARG + 1], numbered[NARGS][16];
    int n = 0;
    for (; fixed[n]; n++)
        list[n] = (char *)fixed[n];
    for (int i = 0; i < LONG_ARG; i++)
        big[i] = (char)('a' + i % 26);
    list[n++] = big;
    for (; n < NARGS; n++) {
        snprintf(numbered[n], sizeof numbered[n], "arg-%d", n);
        list[n] = numbered[n];
    }
    list[NARGS] = NULL;
}

static void child(int argc, char **argv)
{
    MPI_Comm parent;
    TU_CHECK(MPI_Comm_get_parent(&parent));
    TU_ASSERT(parent != MPI_COMM_NULL, "no parent");
    int ok = 1;
    if (argc == 1) { /* MPI_ARGV_NULL */
        ok = 2;
    } else {
        TU_ASSERT(argc == NARGS + 1, "argc %d, expected %d", argc, NARGS + 1);
        for (int i = 0; i < NARGS; i++)
            TU_ASSERT(!strcmp(argv[i + 1], list[i]), "argument %d is '%.60s', expected "
                      "'%.60s'", i + 1, argv[i + 1], list[i]);
    }
    if (tu_rank == 0)
        TU_CHECK(MPI_Send(&ok, 1, MPI_INT, 0, 3, parent));
    TU_CHECK(MPI_Comm_disconnect(&parent));
}

/* Spawn 2 children with args; parent 0 hears that they saw want. */
static void spawn_and_hear(const char *self, char **args, int want)
{
    MPI_Comm ic;
    TU_CHECK(MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                            MPI_ERRCODES_IGNORE));
    int got = 0;
    if (tu_rank == 0) {
        TU_CHECK(MPI_Recv(&got, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE));
        TU_ASSERT(got == want, "the children said %d, expected %d", got, want);
    }
    TU_CHECK(MPI_Comm_disconnect(&ic));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "spawn_args");
    make_list();
    if (argc == 1 || !strcmp(argv[1], "args")) {
        MPI_Comm parent;
        TU_CHECK(MPI_Comm_get_parent(&parent));
        if (parent != MPI_COMM_NULL) {
            child(argc, argv);
            TU_CHECK(MPI_Finalize());
            return 0;
        }
    }
    spawn_and_hear(argv[0], list, 1);
    spawn_and_hear(argv[0], MPI_ARGV_NULL, 2);

    static char huge[5000];
    memset(huge, 'x', sizeof huge - 1);
    char *too_long[] = {"args", huge, NULL};
    MPI_Comm ic;
    int errcodes[2];
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    tu_expect(MPI_Comm_spawn(argv[0], too_long, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                             errcodes),
              MPI_ERR_SPAWN, "MPI_Comm_spawn", "a 4999-byte argument");
    TU_ASSERT(ic == MPI_COMM_NULL, "a failed spawn left an intercommunicator");
    spawn_and_hear(argv[0], list, 1);
    tu_finish();
    return 0;
}
