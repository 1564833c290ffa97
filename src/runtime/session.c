/*
 * Sessions (MPI-4.0 chapter 11): MPI_Session_init/finalize, the process sets
 * ("psets") a session offers, groups from them and communicators from
 * groups, the session's errhandler and integer handles.
 *
 * A session holds one reference on the runtime (init.c:
 * faro_runtime_acquire), as MPI_Init does, so a program may use sessions
 * without MPI_Init, beside it, and finalize the two in any order; the last
 * one out takes the runtime down, and it cannot come back up in the same
 * process (a later MPI_Session_init or MPI_Init says so).
 *
 * Psets: "mpi://WORLD" (every process of the job) and "mpi://SELF" (this
 * process), named case-insensitively. Their groups are MPI_COMM_WORLD's and
 * MPI_COMM_SELF's, which the runtime makes whoever starts it.
 * MPI_Comm_create_from_group runs MPI_Comm_create_group over MPI_COMM_WORLD
 * (every group is a subgroup of the world's) on a tag hashed from the string
 * tag; MPI_Intercomm_create_from_groups makes the local communicator that
 * way and joins the two with MPI_Intercomm_create through MPI_COMM_WORLD.
 *
 * Errors of a session's calls go to its errhandler (faro_err_code records
 * the message; sraise() below dispatches).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core.h"
#include "objects/arena.h"

#define FARO_SESSION_MAGIC 0x53455353u

struct faro_session {
    uint32_t magic;
    MPI_Errhandler eh;
    MPI_Info info; /* what MPI_Session_get_info returns a copy of */
    int thread_level;
};

static const char *const psets[] = {"mpi://WORLD", "mpi://SELF"};
#define NPSETS 2

static const char *const level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                          "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

/* Call eh on code as a session's handler does. */
static int raise_on(MPI_Session s, MPI_Errhandler eh, int code)
{
    if (!eh || eh->kind == FARO_EH_RETURN)
        return code;
    if (eh->kind == FARO_EH_USER) {
        MPI_Session h = s;
        int k = code;
        ((MPI_Session_errhandler_function *)(void (*)(void))eh->fn)(&h, &k);
        return code;
    }
    char text[MPI_MAX_ERROR_STRING];
    int len;
    PMPI_Error_string(code, text, &len);
    faro_fatal(code, "%s (set MPI_ERRORS_RETURN on the session to handle errors in the "
               "program)", text);
}

#define sraise(s, cls, ...) raise_on((s), (s)->eh, faro_err_code((cls), __VA_ARGS__))

static int session_bad(const char *fn, MPI_Session s)
{
    /* no session to raise on: MPI_COMM_WORLD's handler, as for other errors
     * outside an object */
    return faro_err(MPI_COMM_NULL, MPI_ERR_SESSION, "%s: %s", fn,
                    s == MPI_SESSION_NULL ? "session is MPI_SESSION_NULL"
                                          : "not a valid session (uninitialised, finalized, "
                                            "or never made?)");
}

/* Session objects come from a FIFO pool over their arena (objects/arena.h,
 * linked through info while free), so that a made-up handle is refused
 * before it is read. */
static struct faro_pool session_pool = FARO_POOL_INIT("session", FARO_ARENA_SMALL,
                                                      struct faro_session, info, 16);

__attribute__((constructor)) static void session_arena_init(void)
{
    faro_pool_start(&session_pool, NULL, 0, 0);
}

static int session_check(MPI_Session s)
{
    return s && faro_pool_has(&session_pool, s) && s->magic == FARO_SESSION_MAGIC ? 0 : -1;
}

#define CHECK_SESSION(fn, s)                                                                  \
    do {                                                                                      \
        if (session_check(s))                                                                 \
            return session_bad(fn, s);                                                        \
    } while (0)

/* The thread level an info asks for with key "thread_level"; -1 when the
 * value names none. */
static int requested_level(MPI_Info info)
{
    const char *v = info != MPI_INFO_NULL ? faro_info_value(info, "thread_level") : NULL;
    if (!v)
        return MPI_THREAD_SINGLE;
    for (int l = 0; l < 4; l++)
        if (strcasecmp(v, level_names[l]) == 0)
            return l;
    return -1;
}

#pragma weak MPI_Session_init = PMPI_Session_init
int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char fn[] = "MPI_Session_init";
    if (errhandler == MPI_ERRHANDLER_NULL || faro_errhandler_check(errhandler))
        return faro_err(MPI_COMM_NULL, MPI_ERR_ERRHANDLER, "%s: errhandler is %s (pass "
                        "MPI_ERRORS_RETURN, MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT or one from "
                        "MPI_Session_create_errhandler)", fn,
                        errhandler ? "not a valid errhandler" : "MPI_ERRHANDLER_NULL");
    if (!session)
        return raise_on(NULL, errhandler, faro_err_code(MPI_ERR_ARG, "%s: session is NULL", fn));
    if (info != MPI_INFO_NULL && faro_info_check(info))
        return raise_on(NULL, errhandler, faro_err_code(MPI_ERR_INFO, "%s: info is not a valid "
                        "info object; pass MPI_INFO_NULL for none", fn));
    int level = requested_level(info);
    if (level < 0)
        return raise_on(NULL, errhandler, faro_err_code(MPI_ERR_INFO, "%s: info key "
                        "thread_level is \"%s\"; one of MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, "
                        "MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE is allowed", fn,
                        faro_info_value(info, "thread_level")));
    if (faro.finalized)
        return raise_on(NULL, errhandler, faro_err_code(MPI_ERR_OTHER, "%s: MPI was finalized "
                        "in this process (MPI_Finalize and every session's "
                        "MPI_Session_finalize); Faro cannot start it again", fn));
    struct faro_session *s = faro_pool_get(&session_pool);
    MPI_Info copy = s ? faro_info_copy(info) : NULL;
    if (!copy) {
        if (s)
            faro_pool_put(&session_pool, s);
        return raise_on(NULL, errhandler, faro_err_code(MPI_ERR_NO_MEM, "%s: out of memory",
                                                        fn));
    }
    int provided = MPI_THREAD_SINGLE;
    int rc = faro_runtime_acquire(fn, level, &provided);
    if (rc) {
        faro_info_destroy(copy);
        faro_pool_put(&session_pool, s);
        return rc;
    }
    char lv[32];
    snprintf(lv, sizeof lv, "%s", level_names[provided]);
    PMPI_Info_set(copy, "thread_level", lv);
    s->magic = FARO_SESSION_MAGIC;
    s->eh = errhandler;
    faro_errhandler_retain(errhandler);
    s->info = copy;
    s->thread_level = provided;
    *session = s;
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_finalize = PMPI_Session_finalize
int PMPI_Session_finalize(MPI_Session *session)
{
    static const char fn[] = "MPI_Session_finalize";
    if (!session)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: session pointer is NULL", fn);
    CHECK_SESSION(fn, *session);
    struct faro_session *s = *session;
    faro_handle_forget(FARO_H_SESSION, s);
    faro_errhandler_release(s->eh);
    faro_info_destroy(s->info);
    faro_pool_put(&session_pool, s);
    *session = MPI_SESSION_NULL;
    faro_runtime_release(); /* down when nothing else holds it */
    return MPI_SUCCESS;
}

static int pset_index(const char *name)
{
    for (int i = 0; name && i < NPSETS; i++)
        if (strcasecmp(name, psets[i]) == 0)
            return i;
    return -1;
}

static int bad_pset(const char *fn, MPI_Session s, const char *name)
{
    return sraise(s, MPI_ERR_ARG, "%s: pset name %s%s%s is not one this session offers "
                 "(\"mpi://WORLD\", \"mpi://SELF\")", fn, name ? "\"" : "",
                 name ? name : "NULL", name ? "\"" : "");
}

#pragma weak MPI_Session_get_num_psets = PMPI_Session_get_num_psets
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    static const char fn[] = "MPI_Session_get_num_psets";
    CHECK_SESSION(fn, session);
    (void)info; /* no query keys are defined */
    if (!npset_names)
        return sraise(session, MPI_ERR_ARG, "%s: npset_names is NULL", fn);
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_get_nth_pset = PMPI_Session_get_nth_pset
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    static const char fn[] = "MPI_Session_get_nth_pset";
    CHECK_SESSION(fn, session);
    (void)info;
    if (n < 0 || n >= NPSETS)
        return sraise(session, MPI_ERR_ARG, "%s: n is %d; 0..%d are allowed", fn, n, NPSETS - 1);
    if (!pset_len || (*pset_len > 0 && !pset_name))
        return sraise(session, MPI_ERR_ARG, "%s: %s is NULL", fn,
                     pset_len ? "pset_name" : "pset_len");
    int need = (int)strlen(psets[n]) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", psets[n]);
    *pset_len = need; /* 0 in: only the length needed, terminating NUL included */
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_get_pset_info = PMPI_Session_get_pset_info
int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char fn[] = "MPI_Session_get_pset_info";
    CHECK_SESSION(fn, session);
    int i = pset_index(pset_name);
    if (i < 0)
        return bad_pset(fn, session, pset_name);
    if (!info)
        return sraise(session, MPI_ERR_ARG, "%s: info is NULL", fn);
    char size[32];
    snprintf(size, sizeof size, "%d", i == 0 ? faro.size : 1);
    int rc = PMPI_Info_create(info);
    if (!rc)
        rc = PMPI_Info_set(*info, "mpi_size", size);
    return rc;
}

#pragma weak MPI_Session_get_info = PMPI_Session_get_info
int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Session_get_info";
    CHECK_SESSION(fn, session);
    if (!info_used)
        return sraise(session, MPI_ERR_ARG, "%s: info_used is NULL", fn);
    return PMPI_Info_dup(session->info, info_used);
}

#pragma weak MPI_Group_from_session_pset = PMPI_Group_from_session_pset
int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                 MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_from_session_pset";
    CHECK_SESSION(fn, session);
    int i = pset_index(pset_name);
    if (i < 0)
        return bad_pset(fn, session, pset_name);
    if (!newgroup)
        return sraise(session, MPI_ERR_ARG, "%s: newgroup is NULL", fn);
    return PMPI_Comm_group(i == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF, newgroup);
}

/* ---- errhandlers ---- */

#pragma weak MPI_Session_create_errhandler = PMPI_Session_create_errhandler
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    return faro_errhandler_create("MPI_Session_create_errhandler",
                                  (MPI_Comm_errhandler_function *)(void (*)(void))
                                      session_errhandler_fn, errhandler);
}

#pragma weak MPI_Session_set_errhandler = PMPI_Session_set_errhandler
int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Session_set_errhandler";
    CHECK_SESSION(fn, session);
    if (errhandler == MPI_ERRHANDLER_NULL || faro_errhandler_check(errhandler))
        return sraise(session, MPI_ERR_ARG, "%s: errhandler is %s", fn,
                     errhandler ? "not a valid errhandler" : "MPI_ERRHANDLER_NULL");
    faro_errhandler_retain(errhandler);
    faro_errhandler_release(session->eh);
    session->eh = errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_get_errhandler = PMPI_Session_get_errhandler
int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Session_get_errhandler";
    CHECK_SESSION(fn, session);
    if (!errhandler)
        return sraise(session, MPI_ERR_ARG, "%s: errhandler is NULL", fn);
    faro_errhandler_retain(session->eh); /* the program frees its handle */
    *errhandler = session->eh;
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_call_errhandler = PMPI_Session_call_errhandler
int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    CHECK_SESSION("MPI_Session_call_errhandler", session);
    raise_on(session, session->eh, errorcode);
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_c2f = PMPI_Session_c2f
MPI_Fint PMPI_Session_c2f(MPI_Session session)
{
    return faro_handle_c2f(FARO_H_SESSION, session);
}

#pragma weak MPI_Session_f2c = PMPI_Session_f2c
MPI_Session PMPI_Session_f2c(MPI_Fint session)
{
    return (MPI_Session)faro_handle_f2c(FARO_H_SESSION, session);
}

/* ---- communicators from groups ---- */

/* The internal tag of a string tag: FNV-1a, folded into 0..2^30-1 (the
 * range MPI_Comm_create_group's tags keep apart). */
static int tag_of(const char *stringtag)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)stringtag; *p; p++)
        h = (h ^ *p) * 16777619u;
    return (int)(h & ((1u << 30) - 1));
}

/* The arguments every from-group call shares; 0 or the code of the error
 * (recorded, not raised: the caller raises it on the errhandler argument). */
static int check_common(const char *fn, const char *stringtag, MPI_Info info,
                        MPI_Errhandler errhandler, const void *out)
{
    if (!stringtag)
        return faro_err_code(MPI_ERR_ARG, "%s: stringtag is NULL", fn);
    if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        return faro_err_code(MPI_ERR_ARG, "%s: stringtag has %zu characters; at most "
                             "MPI_MAX_STRINGTAG_LEN - 1 (%d)", fn, strlen(stringtag),
                             MPI_MAX_STRINGTAG_LEN - 1);
    if (info != MPI_INFO_NULL && faro_info_check(info))
        return faro_err_code(MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    if (errhandler != MPI_ERRHANDLER_NULL && faro_errhandler_check(errhandler))
        return faro_err_code(MPI_ERR_ARG, "%s: errhandler is not a valid errhandler", fn);
    if (!out)
        return faro_err_code(MPI_ERR_ARG, "%s: the new communicator's pointer is NULL", fn);
    if (!faro.initialized || faro.finalized)
        return faro_err_code(MPI_ERR_OTHER, "%s: no session is open and MPI_Init was not "
                             "called", fn);
    return MPI_SUCCESS;
}

/* Raise code on a from-group call's errhandler argument (NULL or not valid:
 * MPI_ERRORS_ARE_FATAL), as MPI-4.0 says. */
static int raise_for(MPI_Errhandler errhandler, int code)
{
    MPI_Errhandler eh = errhandler && !faro_errhandler_check(errhandler) ? errhandler
                                                                         : MPI_ERRORS_ARE_FATAL;
    if (eh->kind == FARO_EH_USER) {
        MPI_Comm none = MPI_COMM_NULL;
        int k = code;
        eh->fn(&none, &k);
        return code;
    }
    return raise_on(NULL, eh, code);
}

/* The internal calls run with MPI_COMM_WORLD's handler set to return (its
 * messages still name the MPI-4 call); a failure is then raised on the
 * errhandler argument (NULL: MPI_ERRORS_ARE_FATAL), as MPI-4.0 says. The
 * swap is under the library lock, but a wait inside the call lets another
 * thread's MPI_COMM_WORLD error meanwhile return instead of reaching its
 * handler (docs/notes.md). */
static MPI_Errhandler world_quiet(void)
{
    MPI_Errhandler was = MPI_COMM_WORLD->errhandler;
    MPI_COMM_WORLD->errhandler = MPI_ERRORS_RETURN;
    return was;
}

static int world_restore(MPI_Errhandler was, int rc, MPI_Errhandler errhandler)
{
    MPI_COMM_WORLD->errhandler = was;
    return rc ? raise_for(errhandler, rc) : rc;
}

/* The new communicator gets the errhandler (NULL: MPI_ERRORS_ARE_FATAL) and info. */
static int adopt(MPI_Comm c, MPI_Info info, MPI_Errhandler errhandler)
{
    if (c == MPI_COMM_NULL)
        return MPI_SUCCESS;
    int rc = PMPI_Comm_set_errhandler(c, errhandler ? errhandler : MPI_ERRORS_ARE_FATAL);
    if (!rc && info != MPI_INFO_NULL)
        rc = PMPI_Comm_set_info(c, info);
    return rc;
}

#pragma weak MPI_Comm_create_from_group = PMPI_Comm_create_from_group
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_from_group";
    FARO_LOCKED;
    int rc = check_common(fn, stringtag, info, errhandler, newcomm);
    if (rc)
        return raise_for(errhandler, rc);
    faro_err_alias("MPI_Comm_create_group", fn);
    MPI_Errhandler was = world_quiet();
    rc = PMPI_Comm_create_group(MPI_COMM_WORLD, group, tag_of(stringtag), newcomm);
    rc = world_restore(was, rc, errhandler);
    faro_err_alias(NULL, NULL);
    return rc ? rc : adopt(*newcomm, info, errhandler);
}

#pragma weak MPI_Intercomm_create_from_groups = PMPI_Intercomm_create_from_groups
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create_from_groups";
    FARO_LOCKED;
    int rc = check_common(fn, stringtag, info, errhandler, newintercomm);
    int rsize = 0;
    if (!rc && faro_group_check(remote_group))
        rc = faro_err_code(MPI_ERR_GROUP, "%s: remote_group is not a valid group", fn);
    if (!rc)
        PMPI_Group_size(remote_group, &rsize);
    if (!rc && (remote_leader < 0 || remote_leader >= rsize))
        rc = faro_err_code(MPI_ERR_RANK, "%s: remote_leader %d is not a rank of remote_group "
                           "(0..%d)", fn, remote_leader, rsize - 1);
    if (rc)
        return raise_for(errhandler, rc);
    MPI_Group world;
    int leader_world = MPI_UNDEFINED;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(remote_group, 1, &remote_leader, world, &leader_world);
    PMPI_Group_free(&world);
    MPI_Comm local = MPI_COMM_NULL;
    int tag = tag_of(stringtag);
    faro_err_alias("MPI_Comm_create_group", fn);
    MPI_Errhandler was = world_quiet();
    rc = PMPI_Comm_create_group(MPI_COMM_WORLD, local_group, tag, &local);
    faro_err_alias("MPI_Intercomm_create", fn);
    if (!rc) {
        PMPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
        rc = PMPI_Intercomm_create(local, local_leader, MPI_COMM_WORLD, leader_world,
                                   tag & 0x7fff, newintercomm);
    }
    rc = world_restore(was, rc, errhandler);
    faro_err_alias(NULL, NULL);
    if (local != MPI_COMM_NULL)
        PMPI_Comm_free(&local);
    return rc ? rc : adopt(*newintercomm, info, errhandler);
}
