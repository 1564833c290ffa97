/* bad_handles: a program that passes garbage where a handle belongs (an
 * uninitialised variable, a freed object's stale copy) gets the error class
 * of the handle's kind with a message naming the call, under
 * MPI_ERRORS_RETURN, and the library stays usable; it must not crash. The
 * kinds and their classes: communicator MPI_ERR_COMM, datatype MPI_ERR_TYPE,
 * request and message MPI_ERR_REQUEST, op MPI_ERR_OP, group MPI_ERR_GROUP,
 * info MPI_ERR_INFO, errhandler MPI_ERR_ARG (as for MPI_ERRHANDLER_NULL),
 * window MPI_ERR_WIN, file MPI_ERR_FILE, session MPI_ERR_SESSION; and the
 * tools interface's cvar handles, pvar sessions and pvar handles, whose calls
 * return MPI_T_ERR_INVALID_HANDLE / MPI_T_ERR_INVALID_SESSION. TEST_CASE
 * picks the kind (comm, type, request, op, group, info, errhandler, win,
 * file, message, session, mpit; default all). The garbage: an address nothing is
 * mapped at, small integers, a pointer into a buffer of junk, a pointer into
 * the middle of a real object, a non-canonical address; and the stale copy
 * of a freed (closed, received, finalized) object of the kind. */
#include "util.h"

#include <sys/mman.h>

#define NJUNK 6
static void *junk[NJUNK];
static const char *junk_what[NJUNK] = {
    "an unmapped address", "the integer 1", "the integer 4096",
    "a pointer into a buffer of junk", "a pointer into the middle of MPI_COMM_WORLD",
    "a non-canonical address"};

static void make_junk(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    TU_ASSERT(p != MAP_FAILED, "mmap failed");
    TU_ASSERT(munmap(p, (size_t)page) == 0, "munmap failed");
    static unsigned char buf[4096];
    memset(buf, 0xa5, sizeof buf);
    junk[0] = p + 64;
    junk[1] = (void *)(uintptr_t)1;
    junk[2] = (void *)(uintptr_t)4096;
    junk[3] = buf + 128;
    junk[4] = (char *)MPI_COMM_WORLD + 8; /* readable: only the magic number tells */
    junk[5] = (void *)(uintptr_t)0xdeadbeefdeadbeefull;
}

/* rc must be cls, its message naming fn; then the library must still work. */
static void expect(int rc, int cls, const char *fn, const char *what)
{
    tu_expect(rc, cls, fn, what);
    int x = tu_rank, y = -1;
    TU_CHECK(MPI_Sendrecv(&x, 1, MPI_INT, tu_rank, 5, &y, 1, MPI_INT, tu_rank, 5, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    TU_ASSERT(y == tu_rank, "a self sendrecv after %s gave %d", what, y);
}

static void bad_comm(MPI_Comm c, const char *what)
{
    int v = 0, n;
    MPI_Request req;
    expect(MPI_Comm_rank(c, &n), MPI_ERR_COMM, "MPI_Comm_rank", what);
    expect(MPI_Comm_size(c, &n), MPI_ERR_COMM, "MPI_Comm_size", what);
    expect(MPI_Send(&v, 1, MPI_INT, 0, 1, c), MPI_ERR_COMM, "MPI_Send", what);
    expect(MPI_Irecv(&v, 1, MPI_INT, 0, 1, c, &req), MPI_ERR_COMM, "MPI_Irecv", what);
    expect(MPI_Barrier(c), MPI_ERR_COMM, "MPI_Barrier", what);
    MPI_Comm d;
    expect(MPI_Comm_dup(c, &d), MPI_ERR_COMM, "MPI_Comm_dup", what);
    expect(MPI_Comm_split(c, 0, 0, &d), MPI_ERR_COMM, "MPI_Comm_split", what);
    MPI_Group g;
    expect(MPI_Comm_group(c, &g), MPI_ERR_COMM, "MPI_Comm_group", what);
    char name[MPI_MAX_OBJECT_NAME];
    expect(MPI_Comm_get_name(c, name, &n), MPI_ERR_COMM, "MPI_Comm_get_name", what);
    expect(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), MPI_ERR_COMM,
           "MPI_Comm_set_errhandler", what);
    expect(MPI_Allreduce(&v, &n, 1, MPI_INT, MPI_SUM, c), MPI_ERR_COMM, "MPI_Allreduce", what);
    expect(MPI_Ibarrier(c, &req), MPI_ERR_COMM, "MPI_Ibarrier", what);
    expect(MPI_Iprobe(0, 1, c, &n, MPI_STATUS_IGNORE), MPI_ERR_COMM, "MPI_Iprobe", what);
    expect(MPI_Comm_free(&c), MPI_ERR_COMM, "MPI_Comm_free", what);
}

static void bad_type(MPI_Datatype t, const char *what)
{
    int v[4] = {0}, n;
    MPI_Request req;
    expect(MPI_Type_size(t, &n), MPI_ERR_TYPE, "MPI_Type_size", what);
    expect(MPI_Send(v, 1, t, tu_rank, 1, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send", what);
    expect(MPI_Irecv(v, 1, t, tu_rank, 1, MPI_COMM_WORLD, &req), MPI_ERR_TYPE, "MPI_Irecv", what);
    expect(MPI_Bcast(v, 1, t, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Bcast", what);
    MPI_Datatype d;
    expect(MPI_Type_contiguous(2, t, &d), MPI_ERR_TYPE, "MPI_Type_contiguous", what);
    MPI_Aint lb, extent;
    expect(MPI_Type_get_extent(t, &lb, &extent), MPI_ERR_TYPE, "MPI_Type_get_extent", what);
    expect(MPI_Pack_size(1, t, MPI_COMM_WORLD, &n), MPI_ERR_TYPE, "MPI_Pack_size", what);
    expect(MPI_Allreduce(v, v + 2, 1, t, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Allreduce",
           what);
    MPI_Datatype c = t;
    expect(MPI_Type_commit(&c), MPI_ERR_TYPE, "MPI_Type_commit", what);
    c = t;
    expect(MPI_Type_free(&c), MPI_ERR_TYPE, "MPI_Type_free", what);
}

static void bad_request(MPI_Request r, const char *what)
{
    MPI_Request q = r;
    int flag;
    expect(MPI_Wait(&q, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait", what);
    q = r;
    expect(MPI_Test(&q, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Test", what);
    MPI_Request two[2] = {MPI_REQUEST_NULL, r};
    expect(MPI_Waitall(2, two, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "MPI_Waitall", what);
    q = r;
    expect(MPI_Request_free(&q), MPI_ERR_REQUEST, "MPI_Request_free", what);
    q = r;
    expect(MPI_Cancel(&q), MPI_ERR_REQUEST, "MPI_Cancel", what);
    q = r;
    expect(MPI_Start(&q), MPI_ERR_REQUEST, "MPI_Start", what);
    expect(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST,
           "MPI_Request_get_status", what);
    int idx;
    two[0] = MPI_REQUEST_NULL;
    two[1] = r;
    expect(MPI_Waitany(2, two, &idx, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Waitany", what);
    two[1] = r;
    expect(MPI_Testall(2, two, &flag, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "MPI_Testall", what);
}

static void bad_op(MPI_Op op, const char *what)
{
    int v = 1, w = 0, flag;
    MPI_Request req;
    expect(MPI_Op_commutative(op, &flag), MPI_ERR_OP, "MPI_Op_commutative", what);
    expect(MPI_Reduce_local(&v, &w, 1, MPI_INT, op), MPI_ERR_OP, "MPI_Reduce_local", what);
    expect(MPI_Allreduce(&v, &w, 1, MPI_INT, op, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
           what);
    expect(MPI_Reduce(&v, &w, 1, MPI_INT, op, 0, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Reduce", what);
    expect(MPI_Iallreduce(&v, &w, 1, MPI_INT, op, MPI_COMM_WORLD, &req), MPI_ERR_OP,
           "MPI_Iallreduce", what);
    expect(MPI_Scan(&v, &w, 1, MPI_INT, op, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Scan", what);
    MPI_Op c = op;
    expect(MPI_Op_free(&c), MPI_ERR_OP, "MPI_Op_free", what);
}

static void bad_group(MPI_Group g, const char *what)
{
    int n, r0 = 0, r1;
    MPI_Group d;
    MPI_Comm c;
    expect(MPI_Group_size(g, &n), MPI_ERR_GROUP, "MPI_Group_size", what);
    expect(MPI_Group_rank(g, &n), MPI_ERR_GROUP, "MPI_Group_rank", what);
    expect(MPI_Group_translate_ranks(g, 1, &r0, MPI_GROUP_EMPTY, &r1), MPI_ERR_GROUP,
           "MPI_Group_translate_ranks", what);
    expect(MPI_Group_union(MPI_GROUP_EMPTY, g, &d), MPI_ERR_GROUP, "MPI_Group_union", what);
    expect(MPI_Group_incl(g, 0, &r0, &d), MPI_ERR_GROUP, "MPI_Group_incl", what);
    expect(MPI_Group_compare(g, MPI_GROUP_EMPTY, &n), MPI_ERR_GROUP, "MPI_Group_compare", what);
    expect(MPI_Comm_create(MPI_COMM_WORLD, g, &c), MPI_ERR_GROUP, "MPI_Comm_create", what);
    expect(MPI_Comm_create_group(MPI_COMM_WORLD, g, 3, &c), MPI_ERR_GROUP,
           "MPI_Comm_create_group", what);
    d = g;
    expect(MPI_Group_free(&d), MPI_ERR_GROUP, "MPI_Group_free", what);
}

static void bad_info(MPI_Info info, const char *what)
{
    int n, flag;
    char key[MPI_MAX_INFO_KEY + 1], val[64];
    MPI_Info d;
    expect(MPI_Info_get_nkeys(info, &n), MPI_ERR_INFO, "MPI_Info_get_nkeys", what);
    expect(MPI_Info_set(info, "k", "v"), MPI_ERR_INFO, "MPI_Info_set", what);
    n = (int)sizeof val;
    expect(MPI_Info_get_string(info, "k", &n, val, &flag), MPI_ERR_INFO, "MPI_Info_get_string",
           what);
    expect(MPI_Info_get_nthkey(info, 0, key), MPI_ERR_INFO, "MPI_Info_get_nthkey", what);
    expect(MPI_Info_delete(info, "k"), MPI_ERR_INFO, "MPI_Info_delete", what);
    expect(MPI_Info_dup(info, &d), MPI_ERR_INFO, "MPI_Info_dup", what);
    expect(MPI_Comm_set_info(MPI_COMM_WORLD, info), MPI_ERR_INFO, "MPI_Comm_set_info", what);
    d = info;
    expect(MPI_Info_free(&d), MPI_ERR_INFO, "MPI_Info_free", what);
}

static void bad_errhandler(MPI_Errhandler eh, const char *what)
{
    MPI_Comm d;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    expect(MPI_Comm_set_errhandler(d, eh), MPI_ERR_ARG, "MPI_Comm_set_errhandler", what);
    TU_CHECK(MPI_Comm_free(&d));
    MPI_Errhandler c = eh;
    expect(MPI_Errhandler_free(&c), MPI_ERR_ARG, "MPI_Errhandler_free", what);
}

static void bad_win(MPI_Win w, const char *what)
{
    int v = 0, flag;
    MPI_Group g;
    void *attr;
    expect(MPI_Win_get_group(w, &g), MPI_ERR_WIN, "MPI_Win_get_group", what);
    expect(MPI_Win_fence(0, w), MPI_ERR_WIN, "MPI_Win_fence", what);
    expect(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w), MPI_ERR_WIN, "MPI_Win_lock", what);
    expect(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w), MPI_ERR_WIN, "MPI_Put", what);
    expect(MPI_Win_get_attr(w, MPI_WIN_BASE, &attr, &flag), MPI_ERR_WIN, "MPI_Win_get_attr",
           what);
    expect(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN), MPI_ERR_WIN, "MPI_Win_set_errhandler",
           what);
    MPI_Win c = w;
    expect(MPI_Win_free(&c), MPI_ERR_WIN, "MPI_Win_free", what);
}

static void bad_file(MPI_File fh, const char *what)
{
    int v;
    MPI_Offset size;
    expect(MPI_File_get_size(fh, &size), MPI_ERR_FILE, "MPI_File_get_size", what);
    expect(MPI_File_read(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_FILE, "MPI_File_read",
           what);
    expect(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_FILE,
           "MPI_File_write_at", what);
    expect(MPI_File_sync(fh), MPI_ERR_FILE, "MPI_File_sync", what);
    MPI_File c = fh;
    expect(MPI_File_close(&c), MPI_ERR_FILE, "MPI_File_close", what);
}

static void bad_message(MPI_Message m, const char *what)
{
    int v;
    MPI_Message c = m;
    MPI_Request req;
    expect(MPI_Mrecv(&v, 1, MPI_INT, &c, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Mrecv", what);
    c = m;
    expect(MPI_Imrecv(&v, 1, MPI_INT, &c, &req), MPI_ERR_REQUEST, "MPI_Imrecv", what);
}

static void bad_session(MPI_Session s, const char *what)
{
    int n;
    MPI_Group g;
    MPI_Info info;
    expect(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n), MPI_ERR_SESSION,
           "MPI_Session_get_num_psets", what);
    expect(MPI_Session_get_info(s, &info), MPI_ERR_SESSION, "MPI_Session_get_info", what);
    expect(MPI_Group_from_session_pset(s, "mpi://WORLD", &g), MPI_ERR_SESSION,
           "MPI_Group_from_session_pset", what);
    expect(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN), MPI_ERR_SESSION,
           "MPI_Session_set_errhandler", what);
    MPI_Session c = s;
    expect(MPI_Session_finalize(&c), MPI_ERR_SESSION, "MPI_Session_finalize", what);
}

static void no_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in, (void)inout, (void)len, (void)t;
}

static void no_handler(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
}

/* Every kind of garbage through one kind's calls (a cast from void *). */
#define EACH_JUNK(call, type)                                                                 \
    do {                                                                                      \
        for (int i_ = 0; i_ < NJUNK; i_++)                                                    \
            call((type)junk[i_], junk_what[i_]);                                              \
    } while (0)

/* MPI_T calls return their error classes (no handler, no message). */
static void expect_t(int rc, int cls, const char *fn, const char *what)
{
    if (rc != cls)
        tu_fail("%s: %s gave %d, expected %d", fn, what, rc, cls);
}

static void bad_cvar_handle(MPI_T_cvar_handle h, const char *what)
{
    int v = 0;
    expect_t(MPI_T_cvar_read(h, &v), MPI_T_ERR_INVALID_HANDLE, "MPI_T_cvar_read", what);
    expect_t(MPI_T_cvar_write(h, &v), MPI_T_ERR_INVALID_HANDLE, "MPI_T_cvar_write", what);
    MPI_T_cvar_handle c = h;
    expect_t(MPI_T_cvar_handle_free(&c), MPI_T_ERR_INVALID_HANDLE, "MPI_T_cvar_handle_free",
             what);
}

static void bad_pvar_session(MPI_T_pvar_session s, const char *what)
{
    MPI_T_pvar_handle h;
    int n;
    expect_t(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION,
             "MPI_T_pvar_start", what);
    expect_t(MPI_T_pvar_handle_alloc(s, 0, NULL, &h, &n), MPI_T_ERR_INVALID_SESSION,
             "MPI_T_pvar_handle_alloc", what);
    MPI_T_pvar_session c = s;
    expect_t(MPI_T_pvar_session_free(&c), MPI_T_ERR_INVALID_SESSION, "MPI_T_pvar_session_free",
             what);
}

static void bad_pvar_handle(MPI_T_pvar_handle h, const char *what)
{
    MPI_T_pvar_session s;
    unsigned long long v;
    TU_ASSERT(MPI_T_pvar_session_create(&s) == MPI_SUCCESS, "MPI_T_pvar_session_create failed");
    expect_t(MPI_T_pvar_read(s, h, &v), MPI_T_ERR_INVALID_HANDLE, "MPI_T_pvar_read", what);
    if (h != MPI_T_PVAR_ALL_HANDLES) /* may be the integer 1, which starts them all */
        expect_t(MPI_T_pvar_start(s, h), MPI_T_ERR_INVALID_HANDLE, "MPI_T_pvar_start", what);
    MPI_T_pvar_handle c = h;
    expect_t(MPI_T_pvar_handle_free(s, &c), MPI_T_ERR_INVALID_HANDLE, "MPI_T_pvar_handle_free",
             what);
    TU_ASSERT(MPI_T_pvar_session_free(&s) == MPI_SUCCESS, "MPI_T_pvar_session_free failed");
}

/* The tools interface's handles: cvar handles, pvar sessions and handles. */
static void mpit_kinds(void)
{
    int provided, n;
    TU_ASSERT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS,
              "MPI_T_init_thread failed");
    EACH_JUNK(bad_cvar_handle, MPI_T_cvar_handle);
    EACH_JUNK(bad_pvar_session, MPI_T_pvar_session);
    EACH_JUNK(bad_pvar_handle, MPI_T_pvar_handle);
    MPI_T_cvar_handle ch, stale_ch;
    TU_ASSERT(MPI_T_cvar_handle_alloc(0, NULL, &ch, &n) == MPI_SUCCESS,
              "MPI_T_cvar_handle_alloc failed");
    stale_ch = ch;
    TU_ASSERT(MPI_T_cvar_handle_free(&ch) == MPI_SUCCESS, "MPI_T_cvar_handle_free failed");
    bad_cvar_handle(stale_ch, "a freed cvar handle");
    MPI_T_pvar_session s, stale_s;
    TU_ASSERT(MPI_T_pvar_session_create(&s) == MPI_SUCCESS, "MPI_T_pvar_session_create failed");
    stale_s = s;
    TU_ASSERT(MPI_T_pvar_session_free(&s) == MPI_SUCCESS, "MPI_T_pvar_session_free failed");
    bad_pvar_session(stale_s, "a freed pvar session");
    TU_ASSERT(MPI_T_finalize() == MPI_SUCCESS, "MPI_T_finalize failed");
}

/* An object made by make into o_ and freed by release: its stale copy
 * through one kind's calls. */
#define STALE(type, call, make, release, what)                                                \
    do {                                                                                      \
        type o_, stale_;                                                                      \
        TU_CHECK(make);                                                                       \
        stale_ = o_;                                                                          \
        TU_CHECK(release);                                                                    \
        call(stale_, what);                                                                   \
    } while (0)

/* The kinds MPI-1 did not have: made-up handles and a freed object's copy. */
static void newer_kinds(const char *c, int all)
{
    if (all || !strcmp(c, "op")) {
        EACH_JUNK(bad_op, MPI_Op);
        STALE(MPI_Op, bad_op, MPI_Op_create(no_op, 1, &o_), MPI_Op_free(&o_), "a freed op");
    }
    if (all || !strcmp(c, "group")) {
        EACH_JUNK(bad_group, MPI_Group);
        STALE(MPI_Group, bad_group, MPI_Comm_group(MPI_COMM_WORLD, &o_), MPI_Group_free(&o_),
              "a freed group");
    }
    if (all || !strcmp(c, "info")) {
        EACH_JUNK(bad_info, MPI_Info);
        STALE(MPI_Info, bad_info, MPI_Info_create(&o_), MPI_Info_free(&o_), "a freed info");
    }
    if (all || !strcmp(c, "errhandler")) {
        EACH_JUNK(bad_errhandler, MPI_Errhandler);
        STALE(MPI_Errhandler, bad_errhandler, MPI_Comm_create_errhandler(no_handler, &o_),
              MPI_Errhandler_free(&o_), "a freed errhandler");
    }
    if (all || !strcmp(c, "win")) {
        EACH_JUNK(bad_win, MPI_Win);
        STALE(MPI_Win, bad_win, MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &o_),
              MPI_Win_free(&o_), "a freed window");
    }
    if (all || !strcmp(c, "file")) {
        EACH_JUNK(bad_file, MPI_File);
        char path[64];
        long pid = (long)getpid();
        TU_CHECK(MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD));
        snprintf(path, sizeof path, "/tmp/bad_handles.%ld", pid);
        STALE(MPI_File, bad_file,
              MPI_File_open(MPI_COMM_WORLD, path,
                            MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                            MPI_INFO_NULL, &o_),
              MPI_File_close(&o_), "a closed file");
    }
    if (all || !strcmp(c, "message")) {
        EACH_JUNK(bad_message, MPI_Message);
        int v = 7, w;
        MPI_Request send; /* not a blocking send: it would wait for a rendezvous's match */
        TU_CHECK(MPI_Isend(&v, 1, MPI_INT, tu_rank, 11, MPI_COMM_WORLD, &send));
        STALE(MPI_Message, bad_message,
              MPI_Mprobe(tu_rank, 11, MPI_COMM_WORLD, &o_, MPI_STATUS_IGNORE),
              MPI_Mrecv(&w, 1, MPI_INT, &o_, MPI_STATUS_IGNORE), "a received message");
        TU_CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE));
    }
    if (all || !strcmp(c, "session")) {
        EACH_JUNK(bad_session, MPI_Session);
        STALE(MPI_Session, bad_session, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &o_),
              MPI_Session_finalize(&o_), "a finalized session");
    }
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "bad_handles");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    const char *c = getenv("TEST_CASE") ? getenv("TEST_CASE") : "all";
    int all = !strcmp(c, "all");
    make_junk();

    if (all || !strcmp(c, "comm")) {
        for (int i = 0; i < NJUNK; i++)
            bad_comm((MPI_Comm)junk[i], junk_what[i]);
        /* a freed communicator that no request holds: its object is gone */
        MPI_Comm d, stale;
        TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        stale = d;
        TU_CHECK(MPI_Comm_free(&d));
        bad_comm(stale, "a freed communicator");
        /* ... also once a new communicator was made */
        MPI_Comm fresh;
        TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &fresh));
        bad_comm(stale, "a freed communicator after a new one was made");
        TU_CHECK(MPI_Comm_free(&fresh));
    }
    if (all || !strcmp(c, "type")) {
        for (int i = 0; i < NJUNK; i++)
            bad_type((MPI_Datatype)junk[i], junk_what[i]);
    }
    if (all || !strcmp(c, "request")) {
        for (int i = 0; i < NJUNK; i++)
            bad_request((MPI_Request)junk[i], junk_what[i]);
        /* a completed request's stale copy, before any new request is made */
        int v = 1, w = 0;
        MPI_Request r, stale;
        TU_CHECK(MPI_Irecv(&w, 1, MPI_INT, tu_rank, 9, MPI_COMM_WORLD, &r));
        TU_CHECK(MPI_Send(&v, 1, MPI_INT, tu_rank, 9, MPI_COMM_WORLD));
        stale = r;
        TU_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        TU_ASSERT(r == MPI_REQUEST_NULL, "MPI_Wait did not null the request");
        MPI_Request q = stale;
        expect(MPI_Wait(&q, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait",
               "a completed request");
    }
    newer_kinds(c, all);
    if (all || !strcmp(c, "mpit"))
        mpit_kinds();
    tu_finish();
    return 0;
}
