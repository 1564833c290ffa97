/* bad_handles: a program that passes garbage where a communicator, a
 * datatype or a request belongs (an uninitialised variable, a freed object's
 * stale copy) gets MPI_ERR_COMM, MPI_ERR_TYPE or MPI_ERR_REQUEST with a
 * message naming the call, under MPI_ERRORS_RETURN, and the library stays
 * usable; it must not crash. TEST_CASE picks the handles (comm, type,
 * request; default all). The garbage: an address nothing is mapped at, small
 * integers, a pointer into a buffer of junk, a pointer into the middle of a
 * real object, a non-canonical address; and the stale copy of a freed
 * communicator, datatype and request. */
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
    junk[4] = (char *)MPI_COMM_WORLD + 8;
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
    tu_finish();
    return 0;
}
