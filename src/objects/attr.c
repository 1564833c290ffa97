/*
 * Attributes and keyvals on communicators and datatypes, the deprecated
 * MPI-1 names for them, and the predefined attributes.
 *
 * A keyval is an int: the predefined ones (MPI_TAG_UB...) are small
 * constants, the program's index a table from FIRST_USER on. A keyval
 * counts its references: the program's handle until MPI_*_free_keyval, and
 * one per attribute set with it, so a keyval freed while attributes use it
 * lives (and its callbacks run) until the last attribute goes.
 *
 * An object's attributes are a list, newest first; objects carry few.
 * The predefined attributes are in no list: MPI_Comm_get_attr answers them
 * on every communicator, with a pointer to an int as the standard says.
 *
 * At MPI_THREAD_MULTIPLE the table and the lists are under the library lock.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core.h"

#define KEYVAL_MAGIC 0x4b455956u
#define FIRST_USER 16

struct keyval {
    uint32_t magic;
    int kind;              /* FARO_ATTR_COMM or FARO_ATTR_TYPE */
    int id;
    int freed;             /* the program freed its handle */
    int refs;              /* the program's handle + one per attribute */
    union {
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type;
    } copy;
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
    } del;
    void *extra;
};

struct faro_attr {
    struct keyval *kv;
    void *value;
    struct faro_attr *next;
};

static struct keyval **table; /* table[id - FIRST_USER] */
static int ntable, first_free;

/* ---- predefined attributes ---- */

static struct {
    int tag_ub, host, io, wtime_is_global, universe_size, appnum;
} pre = {FARO_TAG_UB, MPI_PROC_NULL, MPI_ANY_SOURCE, 0, 1, 0};

void faro_attr_init(int appnum)
{
    pre.universe_size = faro.size;
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

/* ---- the callbacks MPI predefines ---- */

int faro_comm_null_copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int faro_comm_dup_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int faro_comm_null_delete_fn(MPI_Comm c, int k, void *value, void *extra)
{
    (void)c, (void)k, (void)value, (void)extra;
    return MPI_SUCCESS;
}

int faro_type_null_copy_fn(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int faro_type_dup_fn(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int faro_type_null_delete_fn(MPI_Datatype t, int k, void *value, void *extra)
{
    (void)t, (void)k, (void)value, (void)extra;
    return MPI_SUCCESS;
}

static int call_copy(int kind, struct keyval *kv, void *oldobj, void *in, void *out, int *flag)
{
    *flag = 0;
    if (kind == FARO_ATTR_COMM)
        return kv->copy.comm(oldobj, kv->id, kv->extra, in, out, flag);
    return kv->copy.type(oldobj, kv->id, kv->extra, in, out, flag);
}

static int call_delete(int kind, struct keyval *kv, void *obj, void *value)
{
    if (kind == FARO_ATTR_COMM)
        return kv->del.comm(obj, kv->id, value, kv->extra);
    return kv->del.type(obj, kv->id, value, kv->extra);
}

static int null_copy(const struct keyval *kv)
{
    return kv->kind == FARO_ATTR_COMM ? kv->copy.comm == faro_comm_null_copy_fn
                                      : kv->copy.type == faro_type_null_copy_fn;
}

/* ---- keyvals ---- */

static const char *kind_name(int kind)
{
    return kind == FARO_ATTR_COMM ? "communicator" : "datatype";
}

static void keyval_release(struct keyval *kv)
{
    if (--kv->refs > 0)
        return;
    int i = kv->id - FIRST_USER;
    table[i] = NULL;
    if (i < first_free)
        first_free = i;
    kv->magic = 0;
    free(kv);
}

static int keyval_create(const char *fn, int kind, void (*copy)(void), void (*del)(void),
                         int *keyval, void *extra)
{
    if (!keyval)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: keyval pointer is NULL", fn);
    FARO_LOCKED;
    int i = first_free;
    while (i < ntable && table[i])
        i++;
    if (i == ntable) {
        if (ntable > INT32_MAX / 2)
            return faro_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: %d keyvals exist, no more fit",
                            fn, ntable);
        int n = ntable ? 2 * ntable : 32;
        struct keyval **t = realloc(table, (size_t)n * sizeof *t);
        if (!t)
            return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        for (int k = ntable; k < n; k++)
            t[k] = NULL;
        table = t;
        ntable = n;
    }
    struct keyval *kv = calloc(1, sizeof *kv);
    if (!kv)
        return faro_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    kv->magic = KEYVAL_MAGIC;
    kv->kind = kind;
    kv->id = FIRST_USER + i;
    kv->refs = 1;
    kv->extra = extra;
    /* A NULL callback is taken as the null one (MPI_*_NULL_COPY_FN/_DELETE_FN). */
    if (kind == FARO_ATTR_COMM) {
        kv->copy.comm = copy ? (MPI_Comm_copy_attr_function *)copy : faro_comm_null_copy_fn;
        kv->del.comm = del ? (MPI_Comm_delete_attr_function *)del : faro_comm_null_delete_fn;
    } else {
        kv->copy.type = copy ? (MPI_Type_copy_attr_function *)copy : faro_type_null_copy_fn;
        kv->del.type = del ? (MPI_Type_delete_attr_function *)del : faro_type_null_delete_fn;
    }
    table[i] = kv;
    first_free = i + 1;
    *keyval = kv->id;
    return MPI_SUCCESS;
}

/* The live keyval of kind named by id, or NULL with *rc raised. */
static struct keyval *keyval_get(const char *fn, int kind, int id, MPI_Comm errcomm, int *rc)
{
    int i = id - FIRST_USER;
    struct keyval *kv = i >= 0 && i < ntable ? table[i] : NULL;
    if (kv && !kv->freed && kv->kind == kind)
        return kv;
    if (kv && !kv->freed)
        *rc = faro_err(errcomm, MPI_ERR_KEYVAL, "%s: keyval %d is a %s keyval, not a %s one", fn,
                       id, kind_name(kv->kind), kind_name(kind));
    else if (predefined_value(id))
        *rc = faro_err(errcomm, MPI_ERR_KEYVAL,
                       "%s: keyval %d is predefined (MPI_TAG_UB, MPI_HOST, ...): its attribute "
                       "can be read with MPI_Comm_get_attr only", fn, id);
    else
        *rc = faro_err(errcomm, MPI_ERR_KEYVAL,
                       "%s: keyval %d is not a valid keyval (%s; create one with "
                       "MPI_%s_create_keyval)", fn, id,
                       id == MPI_KEYVAL_INVALID ? "MPI_KEYVAL_INVALID" : "freed or never created",
                       kind == FARO_ATTR_COMM ? "Comm" : "Type");
    return NULL;
}

static int keyval_free(const char *fn, int kind, int *keyval)
{
    if (!keyval)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: keyval pointer is NULL", fn);
    FARO_LOCKED;
    int rc = MPI_SUCCESS;
    struct keyval *kv = keyval_get(fn, kind, *keyval, MPI_COMM_NULL, &rc);
    if (!kv)
        return rc;
    kv->freed = 1;
    *keyval = MPI_KEYVAL_INVALID;
    keyval_release(kv); /* attributes that use it keep it alive */
    return MPI_SUCCESS;
}

/* ---- attributes on one object ---- */

static struct faro_attr *find(struct faro_attr *list, const struct keyval *kv)
{
    for (; list; list = list->next)
        if (list->kv == kv)
            return list;
    return NULL;
}

static int set_attr(const char *fn, int kind, void *obj, MPI_Comm errcomm,
                    struct faro_attr **list, int keyval, void *value)
{
    int rc = MPI_SUCCESS;
    struct keyval *kv = keyval_get(fn, kind, keyval, errcomm, &rc);
    if (!kv)
        return rc;
    struct faro_attr *a = find(*list, kv);
    if (a) { /* replacing a value deletes the old one first */
        rc = call_delete(kind, kv, obj, a->value);
        if (rc != MPI_SUCCESS)
            return faro_err_pass(errcomm, rc,
                                 "%s: the delete callback of keyval %d failed on the old value",
                                 fn, keyval);
        a->value = value;
        return MPI_SUCCESS;
    }
    a = malloc(sizeof *a);
    if (!a)
        return faro_err(errcomm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    a->kv = kv;
    a->value = value;
    a->next = *list;
    *list = a;
    kv->refs++;
    return MPI_SUCCESS;
}

static int get_attr(const char *fn, int kind, MPI_Comm errcomm, struct faro_attr *list,
                    int keyval, void *value, int *flag)
{
    if (!value || !flag)
        return faro_err(errcomm, MPI_ERR_ARG, "%s: %s is NULL", fn,
                        value ? "flag" : "attribute_val");
    int *pre_value = kind == FARO_ATTR_COMM ? predefined_value(keyval) : NULL;
    if (pre_value) {
        *(void **)value = pre_value;
        *flag = 1;
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS;
    struct keyval *kv = keyval_get(fn, kind, keyval, errcomm, &rc);
    if (!kv)
        return rc;
    struct faro_attr *a = find(list, kv);
    *flag = a != NULL;
    if (a)
        *(void **)value = a->value;
    return MPI_SUCCESS;
}

/* Deleting an attribute the object does not have is not an error. */
static int delete_attr(const char *fn, int kind, void *obj, MPI_Comm errcomm,
                       struct faro_attr **list, int keyval)
{
    int rc = MPI_SUCCESS;
    struct keyval *kv = keyval_get(fn, kind, keyval, errcomm, &rc);
    if (!kv)
        return rc;
    struct faro_attr **link = list;
    while (*link && (*link)->kv != kv)
        link = &(*link)->next;
    struct faro_attr *a = *link;
    if (!a)
        return MPI_SUCCESS;
    rc = call_delete(kind, kv, obj, a->value);
    if (rc != MPI_SUCCESS)
        return faro_err_pass(errcomm, rc, "%s: the delete callback of keyval %d failed", fn,
                             keyval);
    *link = a->next;
    free(a);
    keyval_release(kv);
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
    for (struct faro_attr *a = src; a; a = a->next) {
        if (null_copy(a->kv))
            continue;
        void *out = NULL;
        int flag = 0;
        rc = call_copy(kind, a->kv, oldobj, a->value, &out, &flag);
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
        n->kv = a->kv;
        n->value = out;
        n->next = NULL;
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

int faro_attr_delete_all(int kind, void *obj, struct faro_attr **list)
{
    FARO_LOCKED;
    while (*list) {
        struct faro_attr *a = *list;
        int rc = call_delete(kind, a->kv, obj, a->value);
        if (rc != MPI_SUCCESS)
            return rc;
        *list = a->next;
        keyval_release(a->kv);
        free(a);
    }
    return MPI_SUCCESS;
}

/* ---- communicators ---- */

#define CHECK_COMM(fn, comm)                                                              \
    do {                                                                                  \
        if (faro_comm_check(comm))                                                        \
            return faro_err(MPI_COMM_NULL, MPI_ERR_COMM, "%s: %s", fn,                    \
                            comm == MPI_COMM_NULL ? "communicator is MPI_COMM_NULL"       \
                                                  : "argument is not a valid communicator"); \
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
    return set_attr("MPI_Comm_set_attr", FARO_ATTR_COMM, comm, comm, &comm->attrs, keyval,
                    value);
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    CHECK_COMM("MPI_Comm_get_attr", comm);
    FARO_LOCKED;
    return get_attr("MPI_Comm_get_attr", FARO_ATTR_COMM, comm, comm->attrs, keyval, value,
                    flag);
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    CHECK_COMM("MPI_Comm_delete_attr", comm);
    FARO_LOCKED;
    return delete_attr("MPI_Comm_delete_attr", FARO_ATTR_COMM, comm, comm, &comm->attrs,
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
    return set_attr("MPI_Attr_put", FARO_ATTR_COMM, comm, comm, &comm->attrs, keyval, value);
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag)
{
    CHECK_COMM("MPI_Attr_get", comm);
    FARO_LOCKED;
    return get_attr("MPI_Attr_get", FARO_ATTR_COMM, comm, comm->attrs, keyval, value, flag);
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    CHECK_COMM("MPI_Attr_delete", comm);
    FARO_LOCKED;
    return delete_attr("MPI_Attr_delete", FARO_ATTR_COMM, comm, comm, &comm->attrs, keyval);
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
    return set_attr("MPI_Type_set_attr", FARO_ATTR_TYPE, type, MPI_COMM_NULL, &type->attrs,
                    keyval, value);
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void *value, int *flag)
{
    CHECK_TYPE("MPI_Type_get_attr", type);
    FARO_LOCKED;
    return get_attr("MPI_Type_get_attr", FARO_ATTR_TYPE, MPI_COMM_NULL, type->attrs, keyval,
                    value, flag);
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype type, int keyval)
{
    CHECK_TYPE("MPI_Type_delete_attr", type);
    FARO_LOCKED;
    return delete_attr("MPI_Type_delete_attr", FARO_ATTR_TYPE, type, MPI_COMM_NULL,
                       &type->attrs, keyval);
}
