/*
 * Attributes and keyvals on communicators, datatypes and windows, the
 * deprecated MPI-1 names for them, and the predefined attributes.
 *
 * A keyval is an int: the predefined ones (MPI_TAG_UB...) are small
 * constants; the program's are FIRST_USER + (generation << SLOT_BITS | slot)
 * and name a slot of a table. A slot's generation moves on when its keyval
 * goes away, so a stale int (freed twice, or kept after the free) never names
 * the keyval that reuses the slot: it is MPI_ERR_KEYVAL, never someone else's.
 *
 * A keyval counts its references: the program's handle until
 * MPI_*_free_keyval, and one per attribute set with it. A keyval freed while
 * attributes use it lives on: its callbacks still run when those attributes
 * are copied or deleted (also by MPI_*_delete_attr and MPI_*_get_attr with
 * the old int, as MPI 3.1 6.7.2 asks), only new attributes cannot be set
 * with it, and a second free is MPI_ERR_KEYVAL.
 *
 * An object's attributes are a list, newest first; objects carry few. An
 * attribute whose copy or delete callback is running is "busy": callbacks may
 * set, get and delete the object's other attributes (the list is walked again
 * after each callback), but deleting or replacing the busy one from inside
 * its own callback is an error (MPI_ERR_KEYVAL), not a recursion.
 *
 * The predefined attributes are in no list: MPI_Comm_get_attr answers them
 * on every communicator, with a pointer to an int as the standard says.
 * MPI_UNIVERSE_SIZE is asked of the process manager when first read (one
 * PMI round trip, not paid by programs that never read it); a manager that
 * does not say (Hydra without -usize) leaves it unset (flag false), as MPICH
 * does.
 *
 * At MPI_THREAD_MULTIPLE the table and the lists are under the library lock.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core.h"
#include "base/pmi.h"

/* Where an attribute call's errors go: a window's own handler (win set), or
 * comm's (MPI_COMM_NULL: MPI_COMM_WORLD's, for datatypes and keyvals). */
struct err_to {
    MPI_Comm comm;
    MPI_Win win;
};
#define TO_COMM(c) ((struct err_to){(c), NULL})
#define TO_WIN(w) ((struct err_to){MPI_COMM_NULL, (w)})

static int attr_err(struct err_to to, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int attr_err(struct err_to to, int errclass, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return to.win ? faro_win_err(to.win, errclass, "%s", msg)
                  : faro_err(to.comm, errclass, "%s", msg);
}

/* A callback's own code, raised unchanged (fmt: where, for a fatal message). */
static int attr_err_pass(struct err_to to, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int attr_err_pass(struct err_to to, int code, const char *fmt, ...)
{
    if (to.win)
        return faro_win_err_pass(to.win, code);
    char where[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(where, sizeof where, fmt, ap);
    va_end(ap);
    return faro_err_pass(to.comm, code, "%s", where);
}

#define FIRST_USER 16
#define SLOT_BITS 16
#define MAX_SLOTS (1 << SLOT_BITS)
#define MAX_GEN ((INT_MAX - FIRST_USER) >> SLOT_BITS) /* generations 0..MAX_GEN-1 */

struct keyval {
    int kind;              /* FARO_ATTR_COMM, _TYPE or _WIN */
    int id;
    int freed;             /* the program freed its handle */
    int refs;              /* the program's handle + one per attribute */
    union {
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type;
        MPI_Win_copy_attr_function *win;
    } copy;
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
        MPI_Win_delete_attr_function *win;
    } del;
    void *extra;
};

struct faro_attr {
    struct keyval *kv;
    void *value;
    int busy;              /* its copy or delete callback is running (nesting depth) */
    struct faro_attr *next;
};

static struct slot {
    struct keyval *kv;     /* NULL: free */
    int gen;               /* of the keyval in it, or of the next one */
} *table;
static int ntable, first_free;

/* ---- predefined attributes ---- */

static struct {
    int tag_ub, host, io, wtime_is_global, universe_size, appnum;
} pre = {FARO_TAG_UB, MPI_PROC_NULL, MPI_ANY_SOURCE, 0, -1, 0};

void faro_attr_init(int appnum)
{
    pre.universe_size = -1; /* not asked yet */
    pre.appnum = appnum >= 0 ? appnum : 0;
}

static int *predefined_value(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB: return &pre.tag_ub;
    case MPI_HOST: return &pre.host;
    case MPI_IO: return &pre.io;
    case MPI_WTIME_IS_GLOBAL: return &pre.wtime_is_global;
    case MPI_UNIVERSE_SIZE: return &pre.universe_size;
    case MPI_APPNUM: return &pre.appnum;
    case MPI_LASTUSEDCODE: return &faro_lastusedcode;
    default: return NULL;
    }
}

/* ---- the callbacks MPI predefines: MPI_<OBJ>_NULL_COPY_FN, _DUP_FN, _NULL_DELETE_FN ---- */

#define PREDEFINED_CALLBACKS(obj_t, prefix)                                                 \
    int prefix##_null_copy_fn(obj_t o, int k, void *extra, void *in, void *out, int *flag) \
    {                                                                                       \
        (void)o, (void)k, (void)extra, (void)in, (void)out;                                 \
        *flag = 0;                                                                          \
        return MPI_SUCCESS;                                                                 \
    }                                                                                       \
    int prefix##_dup_fn(obj_t o, int k, void *extra, void *in, void *out, int *flag)       \
    {                                                                                       \
        (void)o, (void)k, (void)extra;                                                      \
        *(void **)out = in;                                                                 \
        *flag = 1;                                                                          \
        return MPI_SUCCESS;                                                                 \
    }                                                                                       \
    int prefix##_null_delete_fn(obj_t o, int k, void *value, void *extra)                  \
    {                                                                                       \
        (void)o, (void)k, (void)value, (void)extra;                                         \
        return MPI_SUCCESS;                                                                 \
    }

PREDEFINED_CALLBACKS(MPI_Comm, faro_comm)
PREDEFINED_CALLBACKS(MPI_Datatype, faro_type)
PREDEFINED_CALLBACKS(MPI_Win, faro_win)

static int call_copy(int kind, struct keyval *kv, void *oldobj, void *in, void *out, int *flag)
{
    *flag = 0;
    if (kind == FARO_ATTR_COMM)
        return kv->copy.comm(oldobj, kv->id, kv->extra, in, out, flag);
    if (kind == FARO_ATTR_TYPE)
        return kv->copy.type(oldobj, kv->id, kv->extra, in, out, flag);
    return kv->copy.win(oldobj, kv->id, kv->extra, in, out, flag);
}

static int call_delete(int kind, struct keyval *kv, void *obj, void *value)
{
    if (kind == FARO_ATTR_COMM)
        return kv->del.comm(obj, kv->id, value, kv->extra);
    if (kind == FARO_ATTR_TYPE)
        return kv->del.type(obj, kv->id, value, kv->extra);
    return kv->del.win(obj, kv->id, value, kv->extra);
}

static int null_copy(const struct keyval *kv)
{
    return kv->kind == FARO_ATTR_COMM   ? kv->copy.comm == faro_comm_null_copy_fn
           : kv->kind == FARO_ATTR_TYPE ? kv->copy.type == faro_type_null_copy_fn
                                        : kv->copy.win == faro_win_null_copy_fn;
}

/* ---- keyvals ---- */

static const char *const kind_name[] = {"communicator", "datatype", "window"};
static const char *const kind_api[] = {"Comm", "Type", "Win"};
static const char *const kind_arg[] = {"comm_keyval", "type_keyval", "win_keyval"};

/* The slot an id names while its keyval exists (freed by the program or not). */
static struct keyval *keyval_of(int id)
{
    if (id < FIRST_USER)
        return NULL;
    int i = (id - FIRST_USER) & (MAX_SLOTS - 1);
    struct keyval *kv = i < ntable ? table[i].kv : NULL;
    return kv && kv->id == id ? kv : NULL;
}

static void keyval_release(struct keyval *kv)
{
    if (--kv->refs > 0)
        return;
    int i = (kv->id - FIRST_USER) & (MAX_SLOTS - 1);
    table[i].kv = NULL;
    table[i].gen = (table[i].gen + 1) % MAX_GEN; /* the old id is stale from now on */
    if (i < first_free)
        first_free = i;
    free(kv);
}

static int keyval_create(const char *fn, int kind, void (*copy)(void), void (*del)(void),
                         int *keyval, void *extra)
{
    if (!keyval)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s pointer is NULL", fn,
                        kind_arg[kind]);
    FARO_LOCKED;
    int i = first_free;
    while (i < ntable && table[i].kv)
        i++;
    if (i == ntable) {
        if (ntable == MAX_SLOTS)
            return faro_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: %d keyvals exist, no more fit "
                            "(free some with MPI_*_free_keyval)", fn, ntable);
        int n = ntable ? 2 * ntable : 32;
        struct slot *t = realloc(table, (size_t)n * sizeof *t);
        if (!t)
            return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        for (int k = ntable; k < n; k++)
            t[k] = (struct slot){NULL, 0};
        table = t;
        ntable = n;
    }
    struct keyval *kv = calloc(1, sizeof *kv);
    if (!kv)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    kv->kind = kind;
    kv->id = FIRST_USER + (table[i].gen << SLOT_BITS | i);
    kv->refs = 1;
    kv->extra = extra;
    /* A NULL callback is taken as the null one (MPI_*_NULL_COPY_FN/_DELETE_FN). */
    if (kind == FARO_ATTR_COMM) {
        kv->copy.comm = copy ? (MPI_Comm_copy_attr_function *)copy : faro_comm_null_copy_fn;
        kv->del.comm = del ? (MPI_Comm_delete_attr_function *)del : faro_comm_null_delete_fn;
    } else if (kind == FARO_ATTR_TYPE) {
        kv->copy.type = copy ? (MPI_Type_copy_attr_function *)copy : faro_type_null_copy_fn;
        kv->del.type = del ? (MPI_Type_delete_attr_function *)del : faro_type_null_delete_fn;
    } else {
        kv->copy.win = copy ? (MPI_Win_copy_attr_function *)copy : faro_win_null_copy_fn;
        kv->del.win = del ? (MPI_Win_delete_attr_function *)del : faro_win_null_delete_fn;
    }
    table[i].kv = kv;
    first_free = i + 1;
    *keyval = kv->id;
    return MPI_SUCCESS;
}

/* The keyval of kind named by id, or NULL with *rc raised. A keyval the
 * program freed while attributes still use it is found only when
 * freed_too is set (getting and deleting those attributes). */
static struct keyval *keyval_get(const char *fn, int kind, int id, int freed_too,
                                 struct err_to errto, int *rc)
{
    struct keyval *kv = keyval_of(id);
    if (kv && kv->kind == kind && (freed_too || !kv->freed))
        return kv;
    if (kv && kv->kind != kind)
        *rc = attr_err(errto, MPI_ERR_KEYVAL, "%s: keyval %d is a %s keyval, not a %s one", fn,
                       id, kind_name[kv->kind], kind_name[kind]);
    else if (kv)
        *rc = attr_err(errto, MPI_ERR_KEYVAL, "%s: keyval %d was freed (MPI_%s_free_keyval); "
                       "its attributes can still be read and deleted, not set again", fn, id,
                       kind_api[kind]);
    else if (predefined_value(id))
        *rc = attr_err(errto, MPI_ERR_KEYVAL,
                       "%s: keyval %d is predefined (MPI_TAG_UB, MPI_HOST, ...): its attribute "
                       "can be read with MPI_Comm_get_attr only", fn, id);
    else
        *rc = attr_err(errto, MPI_ERR_KEYVAL,
                       "%s: keyval %d is not a valid keyval (%s; create one with "
                       "MPI_%s_create_keyval)", fn, id,
                       id == MPI_KEYVAL_INVALID ? "MPI_KEYVAL_INVALID" : "freed or never created",
                       kind_api[kind]);
    return NULL;
}

static int keyval_free(const char *fn, int kind, int *keyval)
{
    if (!keyval)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s pointer is NULL", fn,
                        kind_arg[kind]);
    FARO_LOCKED;
    int rc = MPI_SUCCESS;
    struct keyval *kv = keyval_get(fn, kind, *keyval, 1, TO_COMM(MPI_COMM_NULL), &rc);
    if (!kv)
        return rc;
    if (kv->freed) /* attributes keep it alive, the program's handle is gone */
        return faro_err(MPI_COMM_NULL, MPI_ERR_KEYVAL, "%s: keyval %d was already freed", fn,
                        *keyval);
    kv->freed = 1;
    *keyval = MPI_KEYVAL_INVALID;
    keyval_release(kv); /* attributes that use it keep it alive */
    return MPI_SUCCESS;
}

/* ---- attributes on one object ---- */

static struct faro_attr **link_of(struct faro_attr **list, const void *key, int by_attr)
{
    while (*list && (by_attr ? (const void *)*list : (const void *)(*list)->kv) != key)
        list = &(*list)->next;
    return list;
}

static struct faro_attr *find(struct faro_attr *list, const struct keyval *kv)
{
    return *link_of(&list, kv, 0);
}

static int busy_error(const char *fn, struct err_to errto, int keyval)
{
    return attr_err(errto, MPI_ERR_KEYVAL, "%s: the attribute of keyval %d is being copied or "
                    "deleted (this call comes from its own callback)", fn, keyval);
}

/* Run a's delete callback with a marked busy; a stays in the list. */
static int run_delete(int kind, struct faro_attr *a, void *obj)
{
    a->busy++;
    int rc = call_delete(kind, a->kv, obj, a->value);
    a->busy--;
    return rc;
}

/* Unlink a (it may have moved: callbacks add and delete others) and free it. */
static void drop(struct faro_attr **list, struct faro_attr *a)
{
    struct faro_attr **link = link_of(list, a, 1);
    *link = a->next;
    keyval_release(a->kv);
    free(a);
}

static int set_attr(const char *fn, int kind, void *obj, struct err_to errto,
                    struct faro_attr **list, int keyval, void *value)
{
    int rc = MPI_SUCCESS;
    struct keyval *kv = keyval_get(fn, kind, keyval, 0, errto, &rc);
    if (!kv)
        return rc;
    struct faro_attr *a = find(*list, kv);
    if (a && a->busy)
        return busy_error(fn, errto, keyval);
    if (a) { /* replacing a value deletes the old one first */
        rc = run_delete(kind, a, obj);
        if (rc != MPI_SUCCESS)
            return attr_err_pass(errto, rc,
                                 "%s: the delete callback of keyval %d failed on the old value",
                                 fn, keyval);
        a->value = value;
        return MPI_SUCCESS;
    }
    a = malloc(sizeof *a);
    if (!a)
        return attr_err(errto, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *a = (struct faro_attr){.kv = kv, .value = value, .next = *list};
    *list = a;
    kv->refs++;
    return MPI_SUCCESS;
}

static int get_attr(const char *fn, int kind, struct err_to errto, struct faro_attr *list,
                    int keyval, void *value, int *flag)
{
    if (!value || !flag)
        return attr_err(errto, MPI_ERR_ARG, "%s: %s is NULL", fn,
                        value ? "flag" : "attribute_val");
    int *pre_value = kind == FARO_ATTR_COMM ? predefined_value(keyval) : NULL;
    if (pre_value == &pre.universe_size && pre.universe_size < 0)
        pre.universe_size = faro_pmi_universe_size(); /* 0: the manager does not say */
    if (pre_value) {
        *(void **)value = pre_value;
        *flag = pre_value != &pre.universe_size || pre.universe_size > 0;
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS;
    struct keyval *kv = keyval_get(fn, kind, keyval, 1, errto, &rc);
    if (!kv)
        return rc;
    struct faro_attr *a = find(list, kv);
    *flag = a != NULL;
    if (a)
        *(void **)value = a->value;
    return MPI_SUCCESS;
}

/* Deleting an attribute the object does not have is not an error. */
static int delete_attr(const char *fn, int kind, void *obj, struct err_to errto,
                       struct faro_attr **list, int keyval)
{
    int rc = MPI_SUCCESS;
    struct keyval *kv = keyval_get(fn, kind, keyval, 1, errto, &rc);
    if (!kv)
        return rc;
    struct faro_attr *a = find(*list, kv);
    if (!a)
        return MPI_SUCCESS;
    if (a->busy)
        return busy_error(fn, errto, keyval);
    rc = run_delete(kind, a, obj);
    if (rc != MPI_SUCCESS)
        return attr_err_pass(errto, rc, "%s: the delete callback of keyval %d failed", fn,
                             keyval);
    drop(list, a);
    return MPI_SUCCESS;
}

/* ---- the hooks objects call ---- */

int faro_attr_copy_all(int kind, void *oldobj, struct faro_attr *src, void *newobj,
                       struct faro_attr **dst)
{
    FARO_LOCKED;
    struct faro_attr *head = NULL, **tail = &head;
    int rc = MPI_SUCCESS;
    *dst = NULL;
    for (struct faro_attr *a = src, *next; a; a = next) {
        if (null_copy(a->kv)) {
            next = a->next;
            continue;
        }
        void *out = NULL;
        int flag = 0;
        a->busy++; /* the callback may change the list around a, not a itself */
        rc = call_copy(kind, a->kv, oldobj, a->value, &out, &flag);
        a->busy--;
        next = a->next;
        if (rc != MPI_SUCCESS)
            break;
        if (!flag)
            continue;
        struct faro_attr *n = malloc(sizeof *n);
        if (!n) {
            call_delete(kind, a->kv, newobj, out);
            rc = MPI_ERR_NO_MEM;
            break;
        }
        *n = (struct faro_attr){.kv = a->kv, .value = out};
        n->kv->refs++;
        *tail = n;
        tail = &n->next;
    }
    if (rc == MPI_SUCCESS) {
        *dst = head;
        return MPI_SUCCESS;
    }
    while (head) { /* undo: the new object will not exist */
        struct faro_attr *n = head;
        head = n->next;
        call_delete(kind, n->kv, newobj, n->value);
        keyval_release(n->kv);
        free(n);
    }
    return rc;
}

/* Newest first; callbacks may delete other attributes or set new ones (which
 * are deleted in their turn), so the list is searched again each time. */
int faro_attr_delete_all(int kind, void *obj, struct faro_attr **list)
{
    FARO_LOCKED;
    for (;;) {
        struct faro_attr *a = *list;
        while (a && a->busy) /* its own callback is running further up */
            a = a->next;
        if (!a)
            return MPI_SUCCESS;
        int rc = run_delete(kind, a, obj);
        if (rc != MPI_SUCCESS)
            return rc;
        drop(list, a);
    }
}

/* ---- communicators ---- */

#define CHECK_COMM(fn, comm)                                                              \
    do {                                                                                  \
        if (faro_comm_check_local(comm))                                                  \
            return faro_comm_bad(fn, comm);                                               \
    } while (0)

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *keyval, void *extra)
{
    return keyval_create("MPI_Comm_create_keyval", FARO_ATTR_COMM, (void (*)(void))copy_fn,
                         (void (*)(void))delete_fn, keyval, extra);
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int *keyval)
{
    return keyval_free("MPI_Comm_free_keyval", FARO_ATTR_COMM, keyval);
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value)
{
    CHECK_COMM("MPI_Comm_set_attr", comm);
    FARO_LOCKED;
    return set_attr("MPI_Comm_set_attr", FARO_ATTR_COMM, comm, TO_COMM(comm), &comm->attrs, keyval,
                    value);
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    CHECK_COMM("MPI_Comm_get_attr", comm);
    FARO_LOCKED;
    return get_attr("MPI_Comm_get_attr", FARO_ATTR_COMM, TO_COMM(comm), comm->attrs, keyval, value,
                    flag);
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    CHECK_COMM("MPI_Comm_delete_attr", comm);
    FARO_LOCKED;
    return delete_attr("MPI_Comm_delete_attr", FARO_ATTR_COMM, comm, TO_COMM(comm), &comm->attrs,
                       keyval);
}

/* The MPI-1 names: the same operations on communicators. */

#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra)
{
    return keyval_create("MPI_Keyval_create", FARO_ATTR_COMM, (void (*)(void))copy_fn,
                         (void (*)(void))delete_fn, keyval, extra);
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int *keyval)
{
    return keyval_free("MPI_Keyval_free", FARO_ATTR_COMM, keyval);
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *value)
{
    CHECK_COMM("MPI_Attr_put", comm);
    FARO_LOCKED;
    return set_attr("MPI_Attr_put", FARO_ATTR_COMM, comm, TO_COMM(comm), &comm->attrs, keyval,
                    value);
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag)
{
    CHECK_COMM("MPI_Attr_get", comm);
    FARO_LOCKED;
    return get_attr("MPI_Attr_get", FARO_ATTR_COMM, TO_COMM(comm), comm->attrs, keyval, value,
                    flag);
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    CHECK_COMM("MPI_Attr_delete", comm);
    FARO_LOCKED;
    return delete_attr("MPI_Attr_delete", FARO_ATTR_COMM, comm, TO_COMM(comm), &comm->attrs,
                       keyval);
}

/* ---- datatypes (errors go to MPI_COMM_WORLD's handler) ---- */

#define CHECK_TYPE(fn, t)                                                                 \
    do {                                                                                  \
        if (faro_type_valid(t))                                                           \
            return faro_type_bad(fn, MPI_COMM_NULL, t);                                   \
    } while (0)

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn, int *keyval, void *extra)
{
    return keyval_create("MPI_Type_create_keyval", FARO_ATTR_TYPE, (void (*)(void))copy_fn,
                         (void (*)(void))delete_fn, keyval, extra);
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int *keyval)
{
    return keyval_free("MPI_Type_free_keyval", FARO_ATTR_TYPE, keyval);
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void *value)
{
    CHECK_TYPE("MPI_Type_set_attr", type);
    FARO_LOCKED;
    return set_attr("MPI_Type_set_attr", FARO_ATTR_TYPE, type, TO_COMM(MPI_COMM_NULL),
                    &type->attrs, keyval, value);
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void *value, int *flag)
{
    CHECK_TYPE("MPI_Type_get_attr", type);
    FARO_LOCKED;
    return get_attr("MPI_Type_get_attr", FARO_ATTR_TYPE, TO_COMM(MPI_COMM_NULL), type->attrs,
                    keyval, value, flag);
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype type, int keyval)
{
    CHECK_TYPE("MPI_Type_delete_attr", type);
    FARO_LOCKED;
    return delete_attr("MPI_Type_delete_attr", FARO_ATTR_TYPE, type, TO_COMM(MPI_COMM_NULL),
                       &type->attrs, keyval);
}

/* ---- windows (errors go to the window's handler; keyval calls to MPI_COMM_WORLD's) ---- */

#define CHECK_WIN(fn, w)                                                                  \
    do {                                                                                  \
        if (faro_win_check(w))                                                            \
            return faro_win_bad(fn, w);                                                   \
    } while (0)

#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                           MPI_Win_delete_attr_function *delete_fn, int *keyval, void *extra)
{
    return keyval_create("MPI_Win_create_keyval", FARO_ATTR_WIN, (void (*)(void))copy_fn,
                         (void (*)(void))delete_fn, keyval, extra);
}

#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
int PMPI_Win_free_keyval(int *keyval)
{
    return keyval_free("MPI_Win_free_keyval", FARO_ATTR_WIN, keyval);
}

#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
int PMPI_Win_set_attr(MPI_Win win, int keyval, void *value)
{
    FARO_LOCKED;
    CHECK_WIN("MPI_Win_set_attr", win);
    return set_attr("MPI_Win_set_attr", FARO_ATTR_WIN, win, TO_WIN(win), &win->attrs, keyval,
                    value);
}

#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
int PMPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
    FARO_LOCKED;
    CHECK_WIN("MPI_Win_get_attr", win);
    if (value && flag && faro_win_predefined_attr(win, keyval, value, flag))
        return MPI_SUCCESS;
    return get_attr("MPI_Win_get_attr", FARO_ATTR_WIN, TO_WIN(win), win->attrs, keyval, value,
                    flag);
}

#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    FARO_LOCKED;
    CHECK_WIN("MPI_Win_delete_attr", win);
    return delete_attr("MPI_Win_delete_attr", FARO_ATTR_WIN, win, TO_WIN(win), &win->attrs,
                       keyval);
}
