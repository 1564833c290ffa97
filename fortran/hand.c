/*
 * The Fortran bindings the generator cannot make (api/apigen_fortran_hand.py
 * lists them with the reason and holds their Fortran interfaces): C's
 * argc/argv (MPI_Init, MPI_Init_thread, MPI_Info_create_env), callbacks
 * written in Fortran (reductions, error handlers of the four object kinds,
 * attribute copy and delete functions, generalized requests, data
 * representations), spawn's CHARACTER arrays, and the Fortran-only
 * MPI_SIZEOF and MPI_F_SYNC_REG. Same convention as the generated ones
 * (pmpi_x_ with mpi_x_ a weak alias, ierror NULL when mpi_f08 leaves it out).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fortran/support.h"

/* (rc is evaluated whether or not mpi_f08 passed ierror) */
#define SET_IERROR(rc) do { int rc_ = (rc); if (ierror) *ierror = rc_; } while (0)

void pmpi_init_(MPI_Fint *ierror)
{
    SET_IERROR(MPI_Init(NULL, NULL));
}
#pragma weak mpi_init_ = pmpi_init_

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    SET_IERROR(MPI_Init_thread(NULL, NULL, *required, provided));
}
#pragma weak mpi_init_thread_ = pmpi_init_thread_

void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierror)
{
    MPI_Info c_info = MPI_INFO_NULL;
    int rc = MPI_Info_create_env(0, NULL, &c_info);
    *info = MPI_Info_c2f(c_info);
    SET_IERROR(rc);
}
#pragma weak mpi_info_create_env_ = pmpi_info_create_env_

/* Callbacks written in Fortran: reduction functions and error handlers. C
 * calls an MPI_User_function without its op, and an error handler without a
 * way back to the Fortran subroutine, so each distinct Fortran subroutine
 * gets one of a fixed set of C trampolines per kind, which remembers it (a
 * slot) and converts the handles to integers. Vectors arrive as addresses in
 * both styles (by reference in mpi and mpif.h, TYPE(C_PTR), VALUE in
 * mpi_f08), handles by reference (INTEGER or TYPE(MPI_Comm), one word). A
 * subroutine used again (an op created and freed in a loop) reuses its slot;
 * slots are never released: at most FARO_F_SLOTS distinct subroutines per
 * kind and process. */
typedef void faro_f_any_fn(void);
typedef void faro_f_user_fn(void *invec, void *inoutvec, MPI_Fint *len, MPI_Fint *datatype);
typedef void faro_f_user_c_fn(void *invec, void *inoutvec, MPI_Count *len, MPI_Fint *datatype);
typedef void faro_f_errh_fn(MPI_Fint *handle, MPI_Fint *error_code);
enum { CB_OP, CB_OP_C, CB_COMM_ERRH, CB_WIN_ERRH, CB_FILE_ERRH, CB_SESSION_ERRH, CB_KINDS };
#define FARO_F_SLOTS 32
static faro_f_any_fn *slot_fn[CB_KINDS][FARO_F_SLOTS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

#define FOR_SLOTS(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12)      \
    M(13) M(14) M(15) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26)     \
    M(27) M(28) M(29) M(30) M(31)
#define OP_TRAMPOLINE(i)                                                                   \
    static void op_trampoline_##i(void *in, void *inout, int *len, MPI_Datatype *type)     \
    {                                                                                      \
        MPI_Fint ftype = MPI_Type_c2f(*type);                                              \
        ((faro_f_user_fn *)slot_fn[CB_OP][i])(in, inout, len, &ftype);                     \
    }                                                                                      \
    static void op_c_trampoline_##i(void *in, void *inout, MPI_Count *len,                 \
                                    MPI_Datatype *type)                                    \
    {                                                                                      \
        MPI_Fint ftype = MPI_Type_c2f(*type);                                              \
        ((faro_f_user_c_fn *)slot_fn[CB_OP_C][i])(in, inout, len, &ftype);                 \
    }
/* an error handler of one object kind (obj: comm, win, file, session) */
#define ERRH_TRAMPOLINE_OF(obj, Obj, KIND, i)                                              \
    static void obj##_errh_trampoline_##i(MPI_##Obj *h, int *code, ...)                   \
    {                                                                                      \
        MPI_Fint fh = MPI_##Obj##_c2f(*h);                                                 \
        ((faro_f_errh_fn *)slot_fn[KIND][i])(&fh, code);                                   \
    }
#define ERRH_TRAMPOLINE(i)                                                                 \
    ERRH_TRAMPOLINE_OF(comm, Comm, CB_COMM_ERRH, i)                                        \
    ERRH_TRAMPOLINE_OF(win, Win, CB_WIN_ERRH, i)                                           \
    ERRH_TRAMPOLINE_OF(file, File, CB_FILE_ERRH, i)                                        \
    ERRH_TRAMPOLINE_OF(session, Session, CB_SESSION_ERRH, i)
FOR_SLOTS(OP_TRAMPOLINE)
FOR_SLOTS(ERRH_TRAMPOLINE)
#define OP_NAME(i) op_trampoline_##i,
#define OP_C_NAME(i) op_c_trampoline_##i,
static MPI_User_function *const op_trampoline[FARO_F_SLOTS] = { FOR_SLOTS(OP_NAME) };
static MPI_User_function_c *const op_c_trampoline[FARO_F_SLOTS] = { FOR_SLOTS(OP_C_NAME) };

/* The slot of fn among kind's, or -1 (after raising the error) when all are taken. */
static int take_slot(int kind, faro_f_any_fn *fn, const char *caller)
{
    int slot = -1;
    pthread_mutex_lock(&slot_lock);
    for (int i = 0; i < FARO_F_SLOTS && slot < 0; i++)
        if (!slot_fn[kind][i] || slot_fn[kind][i] == fn) {
            slot_fn[kind][i] = fn;
            slot = i;
        }
    pthread_mutex_unlock(&slot_lock);
    if (slot < 0)
        faro_f_error(MPI_ERR_INTERN, "%s (Fortran binding): more than 32 distinct Fortran "
                     "subroutines given to it in one process; Faro's Fortran layer has a "
                     "fixed set of trampolines", caller);
    return slot;
}

void pmpi_op_create_(faro_f_user_fn *user_fn, MPI_Fint *commute, MPI_Fint *op,
                     MPI_Fint *ierror)
{
    int slot = take_slot(CB_OP, (faro_f_any_fn *)user_fn, "MPI_Op_create");
    MPI_Op c_op = MPI_OP_NULL;
    int rc = slot < 0 ? MPI_ERR_INTERN : MPI_Op_create(op_trampoline[slot], *commute != 0, &c_op);
    *op = MPI_Op_c2f(c_op);
    SET_IERROR(rc);
}
#pragma weak mpi_op_create_ = pmpi_op_create_
/* the names mpi_f08's module procedures call (their own are MPI_Op_create ...) */
#pragma weak faro_f_op_create_ = pmpi_op_create_

/* MPI_Op_create_c: mpi_f08 only (the function's len is INTEGER(KIND=MPI_COUNT_KIND)) */
void faro_f_op_create_c_(faro_f_user_c_fn *user_fn, MPI_Fint *commute, MPI_Fint *op,
                         MPI_Fint *ierror)
{
    int slot = take_slot(CB_OP_C, (faro_f_any_fn *)user_fn, "MPI_Op_create_c");
    MPI_Op c_op = MPI_OP_NULL;
    int rc = slot < 0 ? MPI_ERR_INTERN
                      : MPI_Op_create_c(op_c_trampoline[slot], *commute != 0, &c_op);
    *op = MPI_Op_c2f(c_op);
    SET_IERROR(rc);
}

/* MPI_<Obj>_create_errhandler for Fortran subroutine fn: the trampolines
 * of kind KIND (obj's), a table of them, and the binding. */
#define CREATE_ERRHANDLER(obj, Obj, KIND)                                                  \
    static MPI_##Obj##_errhandler_function *const obj##_errh_trampoline[FARO_F_SLOTS] = {  \
        FOR_SLOTS(obj##_ERRH_NAME)                                                         \
    };                                                                                     \
    void pmpi_##obj##_create_errhandler_(faro_f_errh_fn *fn, MPI_Fint *errhandler,         \
                                         MPI_Fint *ierror)                                 \
    {                                                                                      \
        int slot = take_slot(KIND, (faro_f_any_fn *)fn, "MPI_" #Obj "_create_errhandler"); \
        MPI_Errhandler c_eh = MPI_ERRHANDLER_NULL;                                         \
        int rc = slot < 0 ? MPI_ERR_INTERN                                                 \
                 : MPI_##Obj##_create_errhandler(obj##_errh_trampoline[slot], &c_eh);      \
        *errhandler = MPI_Errhandler_c2f(c_eh);                                            \
        SET_IERROR(rc);                                                                    \
    }
#define comm_ERRH_NAME(i) comm_errh_trampoline_##i,
#define win_ERRH_NAME(i) win_errh_trampoline_##i,
#define file_ERRH_NAME(i) file_errh_trampoline_##i,
#define session_ERRH_NAME(i) session_errh_trampoline_##i,
CREATE_ERRHANDLER(comm, Comm, CB_COMM_ERRH)
CREATE_ERRHANDLER(win, Win, CB_WIN_ERRH)
CREATE_ERRHANDLER(file, File, CB_FILE_ERRH)
CREATE_ERRHANDLER(session, Session, CB_SESSION_ERRH)
#pragma weak mpi_comm_create_errhandler_ = pmpi_comm_create_errhandler_
#pragma weak faro_f_comm_create_errhandler_ = pmpi_comm_create_errhandler_
#pragma weak mpi_win_create_errhandler_ = pmpi_win_create_errhandler_
#pragma weak faro_f_win_create_errhandler_ = pmpi_win_create_errhandler_
#pragma weak mpi_file_create_errhandler_ = pmpi_file_create_errhandler_
#pragma weak faro_f_file_create_errhandler_ = pmpi_file_create_errhandler_
#pragma weak mpi_session_create_errhandler_ = pmpi_session_create_errhandler_
#pragma weak faro_f_session_create_errhandler_ = pmpi_session_create_errhandler_

/* Attribute keys created from Fortran: the keyval's extra_state is ours and
 * holds the Fortran copy and delete subroutines and the program's own extra
 * state, so one C copy and one C delete function per object kind serve
 * every key (no trampolines). The holder is not freed with the keyval (a few
 * bytes per key created). */
typedef void faro_f_copy_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                            MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror);
typedef void faro_f_delete_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra,
                              MPI_Fint *ierror);
struct faro_f_keyval {
    faro_f_copy_fn *copy;
    faro_f_delete_fn *del;
    MPI_Aint extra;
};

#define KEYVAL(obj, Type, conv)                                                             \
    static int obj##_copy(Type old, int keyval, void *extra, void *in, void *out, int *flag) \
    {                                                                                       \
        struct faro_f_keyval *k = extra;                                                    \
        MPI_Fint fold = MPI_##conv##_c2f(old), fkey = keyval, ierr = MPI_SUCCESS;           \
        MPI_Aint fin = (MPI_Aint)in, fout = 0;                                              \
        k->copy(&fold, &fkey, &k->extra, &fin, &fout, flag, &ierr);                         \
        *flag = *flag != 0;                                                                 \
        if (*flag)                                                                          \
            *(void **)out = (void *)fout;                                                   \
        return ierr;                                                                        \
    }                                                                                       \
    static int obj##_delete(Type o, int keyval, void *val, void *extra)                     \
    {                                                                                       \
        struct faro_f_keyval *k = extra;                                                    \
        MPI_Fint fo = MPI_##conv##_c2f(o), fkey = keyval, ierr = MPI_SUCCESS;               \
        MPI_Aint fval = (MPI_Aint)val;                                                      \
        k->del(&fo, &fkey, &fval, &k->extra, &ierr);                                        \
        return ierr;                                                                        \
    }                                                                                       \
    void pmpi_##obj##_create_keyval_(faro_f_copy_fn *copy, faro_f_delete_fn *del,           \
                                     MPI_Fint *keyval, MPI_Aint *extra_state,               \
                                     MPI_Fint *ierror)                                      \
    {                                                                                       \
        struct faro_f_keyval *k = malloc(sizeof *k);                                        \
        if (!k) {                                                                           \
            SET_IERROR(faro_f_nomem("MPI_" #conv "_create_keyval"));                        \
            return;                                                                         \
        }                                                                                   \
        *k = (struct faro_f_keyval){copy, del, *extra_state};                               \
        int rc = MPI_##conv##_create_keyval(obj##_copy, obj##_delete, keyval, k);           \
        if (rc != MPI_SUCCESS)                                                              \
            free(k);                                                                        \
        SET_IERROR(rc);                                                                     \
    }
KEYVAL(comm, MPI_Comm, Comm)
KEYVAL(type, MPI_Datatype, Type)
KEYVAL(win, MPI_Win, Win)
#pragma weak mpi_comm_create_keyval_ = pmpi_comm_create_keyval_
#pragma weak mpi_type_create_keyval_ = pmpi_type_create_keyval_
#pragma weak mpi_win_create_keyval_ = pmpi_win_create_keyval_
#pragma weak faro_f_comm_create_keyval_ = pmpi_comm_create_keyval_
#pragma weak faro_f_type_create_keyval_ = pmpi_type_create_keyval_
#pragma weak faro_f_win_create_keyval_ = pmpi_win_create_keyval_

/* The predefined callbacks as Fortran sees them (MPI_COMM_NULL_COPY_FN ...:
 * external subroutines): the same three for every object kind. */
void mpi_comm_null_copy_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                            MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    *flag = 0;
    *ierror = MPI_SUCCESS;
}
void mpi_comm_dup_fn_(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                      MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    *out = *in;
    *flag = 1;
    *ierror = MPI_SUCCESS;
}
void mpi_comm_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra,
                              MPI_Fint *ierror)
{
    *ierror = MPI_SUCCESS;
}
#pragma weak mpi_type_null_copy_fn_ = mpi_comm_null_copy_fn_
#pragma weak mpi_win_null_copy_fn_ = mpi_comm_null_copy_fn_
#pragma weak mpi_type_dup_fn_ = mpi_comm_dup_fn_
#pragma weak mpi_win_dup_fn_ = mpi_comm_dup_fn_
#pragma weak mpi_type_null_delete_fn_ = mpi_comm_null_delete_fn_
#pragma weak mpi_win_null_delete_fn_ = mpi_comm_null_delete_fn_

/* MPI_Comm_spawn: Fortran's argv is an array of CHARACTER(LEN=argv_len)
 * ending with a blank element, or MPI_ARGV_NULL (a common block); in
 * MPI_Comm_spawn_multiple, argv(count, *) holds program i's arguments in its
 * row i (elements stride apart), or is MPI_ARGVS_NULL. They and the
 * commands are read at root only, where they are significant. */
extern char faro_argv_null_[], faro_argvs_null_[];

static char **fortran_argv(const char *argv, size_t len, size_t stride, int *nomem)
{
    int n = 0;
    while (faro_f_cstr_len(argv + (size_t)n * stride, len) > 0)
        n++;
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int i = 0; v && i < n; i++)
        if (!(v[i] = faro_f_cstr(argv + (size_t)i * stride, len)))
            *nomem = 1;
    if (!v)
        *nomem = 1;
    return v;
}

static void free_argv(char **v)
{
    for (int i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                      MPI_Fint *array_of_errcodes, MPI_Fint *ierror, size_t command_len,
                      size_t argv_len)
{
    MPI_Comm c_comm = MPI_Comm_f2c(*comm), c_inter = MPI_COMM_NULL;
    int rank = -1, nomem = 0;
    MPI_Comm_rank(c_comm, &rank);
    char *c_command = NULL, **c_argv = MPI_ARGV_NULL;
    if (rank == *root) {
        if (!(c_command = faro_f_cstr(command, command_len)))
            nomem = 1;
        if (argv != faro_argv_null_)
            c_argv = fortran_argv(argv, argv_len, argv_len, &nomem);
    }
    int rc = nomem ? faro_f_nomem("MPI_Comm_spawn")
                   : MPI_Comm_spawn(c_command, c_argv, *maxprocs, MPI_Info_f2c(*info), *root,
                                    c_comm, &c_inter, faro_f_intarray(array_of_errcodes));
    *intercomm = MPI_Comm_c2f(c_inter);
    free(c_command);
    free_argv(c_argv);
    SET_IERROR(rc);
}
#pragma weak mpi_comm_spawn_ = pmpi_comm_spawn_
#pragma weak faro_f_comm_spawn_ = pmpi_comm_spawn_

/* Generalized requests from Fortran: as for keyvals, the C extra_state is a
 * holder of the Fortran query, free and cancel subroutines and the program's
 * extra state; the free callback frees the holder after calling. */
typedef void faro_f_query_fn(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierror);
typedef void faro_f_free_fn(MPI_Aint *extra, MPI_Fint *ierror);
typedef void faro_f_cancel_fn(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierror);
struct faro_f_grequest {
    faro_f_query_fn *query;
    faro_f_free_fn *free;
    faro_f_cancel_fn *cancel;
    MPI_Aint extra;
};

static int grequest_query(void *extra, MPI_Status *status)
{
    struct faro_f_grequest *g = extra;
    MPI_Fint fstatus[sizeof(MPI_Status) / sizeof(MPI_Fint)], ierr = MPI_SUCCESS;
    memcpy(fstatus, status, sizeof *status);
    g->query(&g->extra, fstatus, &ierr);
    memcpy(status, fstatus, sizeof *status);
    return ierr;
}

static int grequest_free(void *extra)
{
    struct faro_f_grequest *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(&g->extra, &ierr);
    free(g);
    return ierr;
}

static int grequest_cancel(void *extra, int complete)
{
    struct faro_f_grequest *g = extra;
    MPI_Fint fcomplete = complete != 0, ierr = MPI_SUCCESS;
    g->cancel(&g->extra, &fcomplete, &ierr);
    return ierr;
}

void pmpi_grequest_start_(faro_f_query_fn *query_fn, faro_f_free_fn *free_fn,
                          faro_f_cancel_fn *cancel_fn, MPI_Aint *extra_state, MPI_Fint *request,
                          MPI_Fint *ierror)
{
    struct faro_f_grequest *g = malloc(sizeof *g);
    if (!g) {
        SET_IERROR(faro_f_nomem("MPI_Grequest_start"));
        return;
    }
    *g = (struct faro_f_grequest){query_fn, free_fn, cancel_fn, *extra_state};
    MPI_Request c_request = MPI_REQUEST_NULL;
    int rc = MPI_Grequest_start(grequest_query, grequest_free, grequest_cancel, g, &c_request);
    if (rc != MPI_SUCCESS)
        free(g);
    *request = MPI_Request_c2f(c_request);
    SET_IERROR(rc);
}
#pragma weak mpi_grequest_start_ = pmpi_grequest_start_
#pragma weak faro_f_grequest_start_ = pmpi_grequest_start_

void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *array_of_commands, char *array_of_argv,
                               MPI_Fint *array_of_maxprocs, MPI_Fint *array_of_info,
                               MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                               MPI_Fint *array_of_errcodes, MPI_Fint *ierror,
                               size_t commands_len, size_t argv_len)
{
    MPI_Comm c_comm = MPI_Comm_f2c(*comm), c_inter = MPI_COMM_NULL;
    int rank = -1, nomem = 0, n = *count > 0 ? *count : 0;
    MPI_Comm_rank(c_comm, &rank);
    char **cmds = NULL, ***argvs = MPI_ARGVS_NULL;
    MPI_Info *infos = NULL;
    if (rank == *root) {
        cmds = calloc((size_t)n + 1, sizeof *cmds);
        infos = calloc((size_t)n + 1, sizeof *infos);
        if (array_of_argv != faro_argvs_null_ && !(argvs = calloc((size_t)n + 1, sizeof *argvs)))
            nomem = 1;
        for (int i = 0; cmds && infos && !nomem && i < n; i++) {
            if (!(cmds[i] = faro_f_cstr(array_of_commands + (size_t)i * commands_len,
                                        commands_len)))
                nomem = 1;
            infos[i] = MPI_Info_f2c(array_of_info[i]);
            if (argvs)
                argvs[i] = fortran_argv(array_of_argv + (size_t)i * argv_len, argv_len,
                                        (size_t)n * argv_len, &nomem);
        }
        if (!cmds || !infos)
            nomem = 1;
    }
    int rc = nomem ? faro_f_nomem("MPI_Comm_spawn_multiple")
                   : MPI_Comm_spawn_multiple(*count, cmds, argvs, array_of_maxprocs, infos,
                                             *root, c_comm, &c_inter,
                                             faro_f_intarray(array_of_errcodes));
    *intercomm = MPI_Comm_c2f(c_inter);
    for (int i = 0; i < n && (cmds || argvs); i++) {
        if (cmds)
            free(cmds[i]);
        if (argvs)
            free_argv(argvs[i]);
    }
    free(cmds);
    free(argvs);
    free(infos);
    SET_IERROR(rc);
}
#pragma weak mpi_comm_spawn_multiple_ = pmpi_comm_spawn_multiple_
#pragma weak faro_f_comm_spawn_multiple_ = pmpi_comm_spawn_multiple_

/* MPI_Register_datarep: as for keyvals, the C extra_state is a holder of
 * the Fortran conversion and extent subroutines and the program's extra
 * state (kept for the process's life, like the representation's name).
 * MPI_CONVERSION_FUNCTION_NULL is an external subroutine of this file whose
 * address the binding recognises. */
typedef void faro_f_conv_fn(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                            MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror);
typedef void faro_f_extent_fn(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra,
                              MPI_Fint *ierror);
struct faro_f_datarep {
    faro_f_conv_fn *read, *write;
    faro_f_extent_fn *extent;
    MPI_Aint extra;
};

void mpi_conversion_function_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count,
                                   void *filebuf, MPI_Offset *position, MPI_Aint *extra,
                                   MPI_Fint *ierror)
{
    *ierror = MPI_SUCCESS;
}

static int datarep_convert(faro_f_conv_fn *fn, void *userbuf, MPI_Datatype type, int count,
                           void *filebuf, MPI_Offset position, struct faro_f_datarep *d)
{
    MPI_Fint ftype = MPI_Type_c2f(type), fcount = count, ierr = MPI_SUCCESS;
    fn(userbuf, &ftype, &fcount, filebuf, &position, &d->extra, &ierr);
    return ierr;
}

static int datarep_read(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                        MPI_Offset position, void *extra)
{
    struct faro_f_datarep *d = extra;
    return datarep_convert(d->read, userbuf, type, count, filebuf, position, d);
}

static int datarep_write(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                         MPI_Offset position, void *extra)
{
    struct faro_f_datarep *d = extra;
    return datarep_convert(d->write, userbuf, type, count, filebuf, position, d);
}

static int datarep_extent(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    struct faro_f_datarep *d = extra;
    MPI_Fint ftype = MPI_Type_c2f(type), ierr = MPI_SUCCESS;
    d->extent(&ftype, extent, &d->extra, &ierr);
    return ierr;
}

void pmpi_register_datarep_(char *datarep, faro_f_conv_fn *read_fn, faro_f_conv_fn *write_fn,
                            faro_f_extent_fn *extent_fn, MPI_Aint *extra_state,
                            MPI_Fint *ierror, size_t datarep_len)
{
    struct faro_f_datarep *d = malloc(sizeof *d);
    char *name = faro_f_cstr(datarep, datarep_len);
    if (!d || !name) {
        free(d);
        free(name);
        SET_IERROR(faro_f_nomem("MPI_Register_datarep"));
        return;
    }
    *d = (struct faro_f_datarep){read_fn, write_fn, extent_fn, *extra_state};
    faro_f_conv_fn *null_fn = mpi_conversion_function_null_;
    int rc = MPI_Register_datarep(name, read_fn == null_fn ? MPI_CONVERSION_FN_NULL : datarep_read,
                                  write_fn == null_fn ? MPI_CONVERSION_FN_NULL : datarep_write,
                                  datarep_extent, d);
    if (rc != MPI_SUCCESS)
        free(d);
    free(name);
    SET_IERROR(rc);
}
#pragma weak mpi_register_datarep_ = pmpi_register_datarep_
#pragma weak faro_f_register_datarep_ = pmpi_register_datarep_

/* MPI_SIZEOF (modules mpi and mpi_f08 only: it needs the explicit
 * interface): x comes as the descriptor of an assumed-rank TYPE(*)
 * argument, whose element length is the answer, for every intrinsic type,
 * kind and rank at once; a derived type is refused. */
void faro_f_sizeof(CFI_cdesc_t *x, MPI_Fint *size, MPI_Fint *ierror)
{
    if (x->type == CFI_type_struct || x->type == CFI_type_other) {
        *size = MPI_UNDEFINED;
        SET_IERROR(faro_f_error(MPI_ERR_ARG, "%s: x is of a derived type; MPI_SIZEOF takes "
                                "a variable of an intrinsic type (INTEGER, REAL, COMPLEX, "
                                "LOGICAL, CHARACTER)", "MPI_Sizeof"));
        return;
    }
    *size = (MPI_Fint)x->elem_len;
    SET_IERROR(MPI_SUCCESS);
}

/* MPI_F_SYNC_REG: does nothing, out of the compiler's sight, so a variable
 * given to it is stored to memory before the call and loaded after it (for
 * buffers a nonblocking call or a window still uses). mpif.h and mpi pass
 * its address, mpi_f08 a descriptor. */
void pmpi_f_sync_reg_(void *buf)
{
    (void)buf;
}
#pragma weak mpi_f_sync_reg_ = pmpi_f_sync_reg_
void faro_f08_f_sync_reg(CFI_cdesc_t *buf)
{
    (void)buf;
}
