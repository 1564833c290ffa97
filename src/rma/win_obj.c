/*
 * What a window is besides its memory: MPI_Win_get_group, the hints
 * (MPI_Win_set_info/get_info), the name, the errhandler calls and the
 * predefined attributes (MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
 * MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL) that MPI_Win_get_attr answers on
 * every window. Also the numbering of predefined ops that requests use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"

#define CHECK_WIN(fn, w)                                                                     \
    do {                                                                                     \
        if (faro_win_check(w))                                                               \
            return faro_win_bad(fn, w);                                                      \
    } while (0)

#pragma weak MPI_Win_get_group = PMPI_Win_get_group
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    FARO_LOCKED;
    CHECK_WIN("MPI_Win_get_group", win);
    if (!group)
        return faro_win_err(win, MPI_ERR_ARG, "MPI_Win_get_group: group pointer is NULL");
    return PMPI_Comm_group(win->comm, group);
}

/* The standard's hints with the values Faro works with: what the program
 * set is kept and returned; the others say what the window does. */
static const char *const hint_keys[] = {"no_locks", "accumulate_ordering", "accumulate_ops",
                                        "same_size", "same_disp_unit",
                                        "alloc_shared_noncontig"};
static const char *const hint_defaults[] = {"false", "rar,raw,war,waw", "same_op_no_op",
                                            "false", "false", "false"};

#pragma weak MPI_Win_set_info = PMPI_Win_set_info
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char fn[] = "MPI_Win_set_info";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (faro_info_check(info))
        return faro_win_err(win, MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    MPI_Info copy = faro_info_merged(win->info, info); /* keys set before and not given stay */
    if (!copy)
        return faro_win_err(win, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    win->info = copy;
    const char *v = faro_info_value(copy, "no_locks");
    if (v)
        win->no_locks = strcmp(v, "true") == 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_info = PMPI_Win_get_info
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Win_get_info";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    if (!info_used)
        return faro_win_err(win, MPI_ERR_ARG, "%s: info_used pointer is NULL", fn);
    MPI_Info i = faro_info_copy(win->info ? win->info : MPI_INFO_NULL);
    if (!i)
        return faro_win_err(win, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (size_t k = 0; k < sizeof hint_keys / sizeof *hint_keys; k++)
        if (!faro_info_value(i, hint_keys[k]))
            PMPI_Info_set(i, hint_keys[k], k == 0 && win->no_locks ? "true" : hint_defaults[k]);
    *info_used = i;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_set_name = PMPI_Win_set_name
int PMPI_Win_set_name(MPI_Win win, const char *name)
{
    FARO_LOCKED;
    CHECK_WIN("MPI_Win_set_name", win);
    if (!name)
        return faro_win_err(win, MPI_ERR_ARG, "MPI_Win_set_name: name is NULL");
    snprintf(win->name, sizeof win->name, "%s", name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_name = PMPI_Win_get_name
int PMPI_Win_get_name(MPI_Win win, char *name, int *resultlen)
{
    FARO_LOCKED;
    CHECK_WIN("MPI_Win_get_name", win);
    if (!name || !resultlen)
        return faro_win_err(win, MPI_ERR_ARG, "MPI_Win_get_name: %s is NULL",
                            name ? "resultlen" : "win_name");
    strcpy(name, win->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

/* ---- errhandlers ---- */

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *eh)
{
    /* The same object as a communicator's: the kind of its function is the caller's word. */
    return faro_errhandler_create("MPI_Win_create_errhandler",
                                  (MPI_Comm_errhandler_function *)(void (*)(void))fn, eh);
}

#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler eh)
{
    FARO_LOCKED;
    CHECK_WIN("MPI_Win_set_errhandler", win);
    if (faro_errhandler_check(eh))
        return faro_win_err(win, MPI_ERR_ARG, "MPI_Win_set_errhandler: errhandler is not a "
                            "valid errhandler");
    faro_errhandler_retain(eh);
    MPI_Errhandler old = win->errhandler;
    win->errhandler = eh;
    faro_errhandler_release(old);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *eh)
{
    FARO_LOCKED;
    CHECK_WIN("MPI_Win_get_errhandler", win);
    if (!eh)
        return faro_win_err(win, MPI_ERR_ARG, "MPI_Win_get_errhandler: errhandler is NULL");
    *eh = win->errhandler;
    faro_errhandler_retain(*eh); /* the program frees what it gets */
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
int PMPI_Win_call_errhandler(MPI_Win win, int code)
{
    FARO_LOCKED;
    CHECK_WIN("MPI_Win_call_errhandler", win);
    faro_win_err_pass(win, code);
    return MPI_SUCCESS;
}

/* ---- predefined attributes ---- */

/* The values live in the window (the standard hands out pointers to them). */
int faro_win_predefined_attr(MPI_Win win, int keyval, void *value, int *flag)
{
    switch (keyval) {
    case MPI_WIN_BASE:
        *(void **)value = win->base;
        break;
    case MPI_WIN_SIZE:
        *(void **)value = &win->size;
        break;
    case MPI_WIN_DISP_UNIT:
        *(void **)value = &win->disp_unit;
        break;
    case MPI_WIN_CREATE_FLAVOR:
        *(void **)value = &win->flavor;
        break;
    case MPI_WIN_MODEL:
        *(void **)value = &win->model;
        break;
    default:
        return 0;
    }
    *flag = 1;
    return 1;
}

/* ---- numbering of predefined objects in requests ---- */

MPI_Op faro_op_predef_at(int kind)
{
    static const MPI_Op ops[FARO_OP_NPREDEF] = {
        [FARO_OP_MAX] = MPI_MAX,     [FARO_OP_MIN] = MPI_MIN,
        [FARO_OP_SUM] = MPI_SUM,     [FARO_OP_PROD] = MPI_PROD,
        [FARO_OP_LAND] = MPI_LAND,   [FARO_OP_BAND] = MPI_BAND,
        [FARO_OP_LOR] = MPI_LOR,     [FARO_OP_BOR] = MPI_BOR,
        [FARO_OP_LXOR] = MPI_LXOR,   [FARO_OP_BXOR] = MPI_BXOR,
        [FARO_OP_MAXLOC] = MPI_MAXLOC, [FARO_OP_MINLOC] = MPI_MINLOC,
        [FARO_OP_REPLACE] = MPI_REPLACE, [FARO_OP_NO_OP] = MPI_NO_OP};
    return ops[kind];
}
