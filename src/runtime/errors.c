/*
 * Errors. Every error raised in an MPI call carries its own message
 * ("MPI_Send: tag -5 is invalid (0..MPI_TAG_UB=...)"). The message is kept in a
 * small ring and its slot is folded into the returned code above the class
 * bits, so MPI_Error_string(code) gives back the exact message and
 * MPI_Error_class(code) the class.
 *
 * A code is class | slot << CLASS_BITS:
 *   slot 0              the class itself (predefined, or added by the program)
 *   slot 1..RING        a message in the ring
 *   slot RING+1...      a code added with MPI_Add_error_code (user_codes[slot-RING-1])
 * so classes the program adds stay below 1 << CLASS_BITS, and the class of
 * any code is its low bits. Errhandlers and the tables the program extends
 * are here too.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "base/log.h"
#include "base/pmi.h"
#include "objects/arena.h"

#define RING 64
#define CLASS_BITS 8

#define MAX_CLASS ((1 << CLASS_BITS) - 1)

static char ring[RING][MPI_MAX_ERROR_STRING - 96]; /* room for the class name */
static atomic_uint ring_next;

/* What the program added (under the library lock at MPI_THREAD_MULTIPLE). */
static int last_class = MPI_ERR_LASTCODE; /* classes MPI_ERR_LASTCODE+1..last_class exist */
static char *class_text[MAX_CLASS + 1];   /* MPI_Add_error_string of a class */
struct user_code {
    int errclass;
    char *text;
};
static struct user_code *user_codes;
static int nuser_codes, cap_user_codes;
int faro_lastusedcode = MPI_ERR_LASTCODE; /* the MPI_LASTUSEDCODE attribute (attr.c) */

struct faro_errhandler_predefined faro_mpi_errors_are_fatal = {.obj = {
    .magic = FARO_ERRHANDLER_MAGIC, .kind = FARO_EH_FATAL, .predefined = 1}};
struct faro_errhandler_predefined faro_mpi_errors_return = {.obj = {
    .magic = FARO_ERRHANDLER_MAGIC, .kind = FARO_EH_RETURN, .predefined = 1}};
struct faro_errhandler_predefined faro_mpi_errors_abort = {.obj = {
    .magic = FARO_ERRHANDLER_MAGIC, .kind = FARO_EH_ABORT, .predefined = 1}};

static const char *class_names[MPI_ERR_LASTCODE] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: other error",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid keyval",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: info key too long",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: info value too long",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: no such info key",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: spawn error",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: invalid name",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assert",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting RMA accesses",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong RMA synchronization",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: arguments differ between processes",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid access mode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: no such file",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: no space left",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already defined",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: conversion error",
    [MPI_ERR_IO] = "MPI_ERR_IO: I/O error",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory out of range",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_ERR_PROC_ABORTED] = "MPI_ERR_PROC_ABORTED: peer process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "MPI_ERR_VALUE_TOO_LARGE: value too large",
    [MPI_ERR_ERRHANDLER] = "MPI_ERR_ERRHANDLER: invalid error handler",
    [MPI_T_ERR_MEMORY] = "MPI_T_ERR_MEMORY: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T_ERR_NOT_INITIALIZED: the tool interface is not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T_ERR_CANNOT_INIT: the tool interface cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T_ERR_INVALID_INDEX: index out of range",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T_ERR_INVALID_ITEM: enumeration item out of range",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T_ERR_INVALID_HANDLE: invalid tool handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T_ERR_OUT_OF_HANDLES: no more tool handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T_ERR_OUT_OF_SESSIONS: no more performance variable sessions",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T_ERR_INVALID_SESSION: invalid performance variable session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T_ERR_CVAR_SET_NOT_NOW: the control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T_ERR_CVAR_SET_NEVER: the control variable can never be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T_ERR_PVAR_NO_STARTSTOP: the performance variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T_ERR_PVAR_NO_WRITE: the performance variable cannot be written or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T_ERR_PVAR_NO_ATOMIC: the performance variable cannot be read and reset atomically",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T_ERR_INVALID_NAME: no variable or category of that name",
    [MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid use of the tool interface",
    [MPI_T_ERR_NOT_SUPPORTED] = "MPI_T_ERR_NOT_SUPPORTED: not supported by this implementation",
    [MPI_T_ERR_NOT_ACCESSIBLE] = "MPI_T_ERR_NOT_ACCESSIBLE: not accessible now",
    [MPI_ERR_SESSION] = "MPI_ERR_SESSION: invalid session",
};

static int code_class(int code)
{
    return code > 0 ? code & MAX_CLASS : code;
}

/* The class and slot of a code the library gave out; -1 for anything else. */
static int decode(int code, int *cls, unsigned *slot)
{
    if (code < 0)
        return -1;
    int c = code & MAX_CLASS;
    unsigned s = (unsigned)code >> CLASS_BITS;
    int predefined = c < MPI_ERR_LASTCODE;
    if (!predefined && !(c > MPI_ERR_LASTCODE && c <= last_class))
        return -1;
    if (s >= 1 && s <= RING && !predefined)
        return -1; /* the library raises only predefined classes with a message */
    if (s > RING) {
        unsigned k = s - RING - 1;
        if (k >= (unsigned)nuser_codes || user_codes[k].errclass != c)
            return -1;
    }
    *cls = c;
    *slot = s;
    return 0;
}

/* MPI_Error_string's text of a valid code. */
static void describe(int cls, unsigned slot, char *out, size_t len)
{
    const char *text;
    if (slot > RING)
        text = user_codes[slot - RING - 1].text;
    else if (cls > MPI_ERR_LASTCODE)
        text = class_text[cls];
    else if (slot >= 1)
        text = NULL;
    else
        text = class_names[cls];
    if (slot >= 1 && slot <= RING)
        snprintf(out, len, "%s: %s", class_names[cls], ring[slot - 1]);
    else
        snprintf(out, len, "%s", text ? text : "");
}

static _Noreturn void vfatal(int code, int lost, const char *fmt, va_list ap)
{
    char msg[MPI_MAX_ERROR_STRING];
    vsnprintf(msg, sizeof msg, fmt, ap);
    faro_error("%s", msg);
    int status = code_class(code);
    if (status <= 0 || status > 255)
        status = 1;
    faro_pmi_abort_error(status, msg, lost); /* returns only without a process manager */
    _exit(status);
}

_Noreturn void faro_fatal(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfatal(code, -1, fmt, ap);
}

_Noreturn void faro_fatal_lost(int code, int lost, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfatal(code, lost, fmt, ap);
}

static MPI_Errhandler handler_of(MPI_Comm *comm)
{
    if (*comm == MPI_COMM_NULL) /* errors outside a communicator: MPI_COMM_WORLD's */
        *comm = MPI_COMM_WORLD;
    MPI_Errhandler eh = (*comm)->errhandler;
    return eh ? eh : MPI_ERRORS_ARE_FATAL;
}

/* A user handler gets copies: what it does to its arguments does not change
 * the code the call returns. */
static void call_user(MPI_Errhandler eh, MPI_Comm comm, int code)
{
    MPI_Comm c = comm;
    int k = code;
    eh->fn(&c, &k);
}

/* Fatal handlers on a code the program made: say which code and its text. */
static _Noreturn void fatal_code(int code, const char *where)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int cls;
    unsigned slot;
    if (decode(code, &cls, &slot) == 0)
        describe(cls, slot, text, sizeof text);
    faro_fatal(code, "%s: error code %d%s%s (set MPI_ERRORS_RETURN on the communicator to "
               "handle errors in the program)", where, code, text[0] ? ": " : "", text);
}

/* faro_err_alias: "FROM: ..." is recorded as "TO: ..." (under the library lock). */
static const char *alias_from, *alias_to;

void faro_err_alias(const char *from, const char *to)
{
    alias_from = from;
    alias_to = to;
}

const char *faro_err_alias_name(const char *fn)
{
    return alias_from && fn && !strcmp(fn, alias_from) ? alias_to : fn;
}

/* The message goes into the ring; the code carries its slot. */
static int record(int errclass, const char *fmt, va_list ap, unsigned *slotp)
{
    unsigned slot = atomic_fetch_add_explicit(&ring_next, 1, memory_order_relaxed) % RING;
    vsnprintf(ring[slot], sizeof ring[slot], fmt, ap);
    size_t n = alias_from ? strlen(alias_from) : 0;
    if (n && strncmp(ring[slot], alias_from, n) == 0 && ring[slot][n] == ':') {
        char rest[sizeof ring[slot]];
        snprintf(rest, sizeof rest, "%s", ring[slot] + n);
        snprintf(ring[slot], sizeof ring[slot], "%s%s", alias_to, rest);
    }
    *slotp = slot;
    return errclass | (int)((slot + 1) << CLASS_BITS);
}

static _Noreturn void fatal_recorded(int errclass, unsigned slot, const char *object)
{
    faro_fatal(errclass, "%s (%s; set MPI_ERRORS_RETURN on the %s to handle errors in the "
               "program)", ring[slot],
               errclass < MPI_ERR_LASTCODE ? class_names[errclass] : "error", object);
}

int faro_err_code(int errclass, const char *fmt, ...)
{
    unsigned slot;
    va_list ap;
    va_start(ap, fmt);
    int code = record(errclass, fmt, ap, &slot);
    va_end(ap);
    return code;
}

int faro_err(MPI_Comm comm, int errclass, const char *fmt, ...)
{
    unsigned slot;
    va_list ap;
    va_start(ap, fmt);
    int code = record(errclass, fmt, ap, &slot);
    va_end(ap);

    MPI_Errhandler eh = handler_of(&comm);
    switch (eh->kind) {
    case FARO_EH_RETURN:
        return code;
    case FARO_EH_USER:
        call_user(eh, comm, code);
        return code;
    default:
        fatal_recorded(errclass, slot, "communicator");
    }
}

/* A window's user handler gets copies, like a communicator's. */
static void call_user_win(MPI_Errhandler eh, MPI_Win win, int code)
{
    MPI_Win w = win;
    int k = code;
    ((MPI_Win_errhandler_function *)(void (*)(void))eh->fn)(&w, &k);
}

int faro_win_err(MPI_Win win, int errclass, const char *fmt, ...)
{
    unsigned slot;
    va_list ap;
    va_start(ap, fmt);
    int code = record(errclass, fmt, ap, &slot);
    va_end(ap);

    MPI_Errhandler eh = win->errhandler;
    switch (eh->kind) {
    case FARO_EH_RETURN:
        return code;
    case FARO_EH_USER:
        call_user_win(eh, win, code);
        return code;
    default:
        fatal_recorded(errclass, slot, "window");
    }
}

int faro_win_err_pass(MPI_Win win, int code)
{
    MPI_Errhandler eh = win->errhandler;
    if (eh->kind == FARO_EH_USER)
        call_user_win(eh, win, code);
    else if (eh->kind != FARO_EH_RETURN) {
        FARO_LOCKED;
        fatal_code(code, "a window's operation failed");
    }
    return code;
}

/* Errors on another kind of object (a file: src/io/): its handler eh gets a
 * copy of the handle, like a window's; object names it in the fatal message. */
int faro_obj_verr(MPI_Errhandler eh, void *obj, const char *object, int errclass,
                  const char *fmt, va_list ap)
{
    unsigned slot;
    int code = record(errclass, fmt, ap, &slot);
    if (eh->kind == FARO_EH_RETURN)
        return code;
    if (eh->kind != FARO_EH_USER)
        fatal_recorded(errclass, slot, object);
    faro_obj_err_pass(eh, obj, object, code);
    return code;
}

int faro_obj_err_pass(MPI_Errhandler eh, void *obj, const char *object, int code)
{
    if (eh->kind == FARO_EH_USER) {
        void *h = obj;
        int k = code;
        ((void (*)(void **, int *, ...))(void (*)(void))eh->fn)(&h, &k);
    } else if (eh->kind != FARO_EH_RETURN) {
        char where[64];
        snprintf(where, sizeof where, "a %s's operation failed", object);
        FARO_LOCKED;
        fatal_code(code, where);
    }
    return code;
}

int faro_err_pass(MPI_Comm comm, int code, const char *fmt, ...)
{
    MPI_Errhandler eh = handler_of(&comm);
    if (eh->kind == FARO_EH_RETURN)
        return code;
    if (eh->kind == FARO_EH_USER) {
        call_user(eh, comm, code);
        return code;
    }
    char where[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(where, sizeof where, fmt, ap);
    va_end(ap);
    FARO_LOCKED;
    fatal_code(code, where);
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int code, int *errclass)
{
    FARO_LOCKED;
    int cls;
    unsigned slot;
    if (decode(code, &cls, &slot))
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Error_class: %d is not an error code (0..%d, or one the program "
                        "added; MPI_LASTUSEDCODE is %d)", code, MPI_ERR_LASTCODE - 1,
                        faro_lastusedcode);
    if (!errclass)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Error_class: errorclass is NULL");
    *errclass = cls;
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int code, char *string, int *resultlen)
{
    FARO_LOCKED;
    int cls;
    unsigned slot;
    if (decode(code, &cls, &slot))
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Error_string: %d is not an error code (0..%d, or one the program "
                        "added; MPI_LASTUSEDCODE is %d)", code, MPI_ERR_LASTCODE - 1,
                        faro_lastusedcode);
    if (!string || !resultlen)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Error_string: %s is NULL",
                        string ? "resultlen" : "string");
    describe(cls, slot, string, MPI_MAX_ERROR_STRING);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

/* ---- classes, codes and strings the program adds ---- */

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int *errorclass)
{
    FARO_LOCKED;
    if (!errorclass)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Add_error_class: errorclass is NULL");
    if (last_class == MAX_CLASS)
        return faro_err(MPI_COMM_NULL, MPI_ERR_OTHER,
                        "MPI_Add_error_class: all %d classes a program may add are in use "
                        "(classes are %d..%d; add codes to a class with MPI_Add_error_code "
                        "instead)", MAX_CLASS - MPI_ERR_LASTCODE, MPI_ERR_LASTCODE + 1,
                        MAX_CLASS);
    *errorclass = ++last_class;
    faro_lastusedcode = last_class;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    FARO_LOCKED;
    int cls;
    unsigned slot;
    if (errorclass <= MPI_SUCCESS || decode(errorclass, &cls, &slot) || slot != 0)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Add_error_code: %d is not an error class (1..%d, or one from "
                        "MPI_Add_error_class: %d..%d)", errorclass, MPI_ERR_LASTCODE - 1,
                        MPI_ERR_LASTCODE + 1, last_class);
    if (!errorcode)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Add_error_code: errorcode is NULL");
    if (nuser_codes >= (INT_MAX >> CLASS_BITS) - RING - 1)
        return faro_err(MPI_COMM_NULL, MPI_ERR_OTHER,
                        "MPI_Add_error_code: %d codes added: no more fit in an int",
                        nuser_codes);
    if (nuser_codes == cap_user_codes) {
        int cap = cap_user_codes ? 2 * cap_user_codes : 16;
        struct user_code *n = realloc(user_codes, (size_t)cap * sizeof *n);
        if (!n)
            return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Add_error_code: out of memory");
        user_codes = n;
        cap_user_codes = cap;
    }
    int k = nuser_codes++;
    user_codes[k] = (struct user_code){.errclass = errorclass, .text = NULL};
    *errorcode = errorclass | (RING + 1 + k) << CLASS_BITS;
    faro_lastusedcode = *errorcode;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char *string)
{
    FARO_LOCKED;
    int cls;
    unsigned slot;
    if (decode(errorcode, &cls, &slot) || cls < MPI_ERR_LASTCODE || (slot >= 1 && slot <= RING))
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Add_error_string: %d is not a class or code the program added "
                        "(predefined ones keep their text)", errorcode);
    if (!string)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Add_error_string: string is NULL");
    size_t len = strlen(string);
    if (len >= MPI_MAX_ERROR_STRING)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "MPI_Add_error_string: string has %zu characters (at most %d)", len,
                        MPI_MAX_ERROR_STRING - 1);
    char *copy = strdup(string);
    if (!copy)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Add_error_string: out of memory");
    char **text = slot > RING ? &user_codes[slot - RING - 1].text : &class_text[cls];
    free(*text);
    *text = copy;
    return MPI_SUCCESS;
}

/* ---- errhandlers ---- */

/* User errhandlers come from a FIFO pool over their arena (objects/arena.h,
 * linked through fn while free), so that a made-up handle is refused before
 * it is read. */
static struct faro_pool eh_pool = FARO_POOL_INIT("errhandler", FARO_ARENA_SMALL,
                                                 struct faro_errhandler, fn, 32);

__attribute__((constructor)) static void eh_arena_init(void)
{
    static const void *const fixed[] = {MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN,
                                        MPI_ERRORS_ABORT};
    faro_pool_start(&eh_pool, fixed, 3, sizeof(struct faro_errhandler_predefined));
}

int faro_errhandler_check(MPI_Errhandler eh)
{
    return eh && faro_pool_has(&eh_pool, eh) && eh->magic == FARO_ERRHANDLER_MAGIC ? 0 : -1;
}

void faro_errhandler_retain(MPI_Errhandler eh)
{
    if (!eh->predefined)
        __atomic_add_fetch(&eh->refcount, 1, __ATOMIC_RELAXED);
}

void faro_errhandler_release(MPI_Errhandler eh)
{
    if (eh->predefined || __atomic_sub_fetch(&eh->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    faro_handle_forget(FARO_H_ERRHANDLER, eh);
    faro_pool_put(&eh_pool, eh);
}

static int check_eh(const char *fn, MPI_Errhandler eh)
{
    if (eh == MPI_ERRHANDLER_NULL)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: errhandler is MPI_ERRHANDLER_NULL", fn);
    if (faro_errhandler_check(eh))
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG,
                        "%s: argument is not a valid errhandler (uninitialised, freed, or "
                        "never created?)", fn);
    return MPI_SUCCESS;
}

static int check_comm(const char *fn, MPI_Comm comm)
{
    return faro_comm_check_local(comm) ? faro_comm_bad(fn, comm) : MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
    int rc = check_comm("MPI_Comm_set_errhandler", comm);
    if (!rc)
        rc = check_eh("MPI_Comm_set_errhandler", eh);
    if (rc)
        return rc;
    FARO_LOCKED;
    faro_errhandler_retain(eh);
    MPI_Errhandler old = comm->errhandler;
    comm->errhandler = eh;
    faro_errhandler_release(old);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *eh)
{
    int rc = check_comm("MPI_Comm_get_errhandler", comm);
    if (rc)
        return rc;
    if (!eh)
        return faro_err(comm, MPI_ERR_ARG, "MPI_Comm_get_errhandler: errhandler is NULL");
    FARO_LOCKED;
    *eh = comm->errhandler;
    faro_errhandler_retain(*eh); /* the program frees what it gets */
    return MPI_SUCCESS;
}

int faro_errhandler_create(const char *fn, MPI_Comm_errhandler_function *f, MPI_Errhandler *eh)
{
    if (!f || !eh)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s is NULL", fn,
                        f ? "errhandler" : "function");
    struct faro_errhandler *e = faro_pool_get(&eh_pool);
    if (!e)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: no memory", fn);
    e->magic = FARO_ERRHANDLER_MAGIC;
    e->kind = FARO_EH_USER;
    e->fn = f;
    e->refcount = 1;
    *eh = e;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *eh)
{
    return faro_errhandler_create("MPI_Comm_create_errhandler", fn, eh);
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int code)
{
    int rc = check_comm("MPI_Comm_call_errhandler", comm);
    if (rc)
        return rc;
    MPI_Errhandler eh = comm->errhandler;
    if (eh->kind == FARO_EH_USER)
        call_user(eh, comm, code);
    else if (eh->kind != FARO_EH_RETURN) {
        FARO_LOCKED;
        fatal_code(code, "MPI_Comm_call_errhandler: the program raised an error");
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *eh)
{
    if (!eh)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Errhandler_free: errhandler is NULL");
    int rc = check_eh("MPI_Errhandler_free", *eh);
    if (rc)
        return rc;
    faro_errhandler_release(*eh); /* objects that use it keep it alive */
    *eh = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
