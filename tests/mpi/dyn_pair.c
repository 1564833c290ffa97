/*
 * dyn_pair: one side of a connection between two jobs started separately
 * (tests/mpi/dyn-jobs.sh starts both, each under its own mpiexec):
 *
 *   dyn_pair accept FILE    rank 0 opens a port and writes its name to FILE
 *                           (atomically); the job accepts on MPI_COMM_WORLD
 *   dyn_pair connect FILE   rank 0 waits for FILE and reads the name; the job
 *                           connects on MPI_COMM_WORLD (its last rank the root)
 *
 * On the intercommunicator, as dyn_halves checks it between two halves of one
 * job: sizes, point-to-point both ways (eager and rendezvous sizes), every
 * intercommunicator collective (inter_coll.c's checks; the accepting job is
 * group 0), MPI_Intercomm_merge with the accepting job first and collectives
 * on the merged communicator (which needs connections between every pair of
 * processes of the two jobs), a duplicate, MPI_Comm_disconnect. Three cycles
 * on one port.
 *
 *   dyn_pair accept-broken FILE / connect-stall FILE
 *                           after the connection both jobs call
 *                           MPI_Intercomm_merge; the connecting job's last
 *                           rank sleeps 30 s first, so the roots wait in the
 *                           context id agreement (the connecting job's rank 0
 *                           writes FILE.merging), and dyn-jobs.sh kills that job
 *                           meanwhile. Every rank of the accepting job must
 *                           fail in the merge with MPI_ERR_PROC_ABORTED ("the
 *                           connection ... broke while the context ids were
 *                           agreed"): none may wait for ever, and the job goes on.
 *
 *   dyn_pair accept-die FILE / connect-lose FILE
 *                           after the connection every connecting rank
 *                           exchanges a message with accepting rank 0, which
 *                           then ends abruptly (its whole job goes); the
 *                           connecting job must see MPI_ERR_PROC_ABORTED on
 *                           the intercommunicator, free it, and go on.
 */
#include "util.h"

#define main inter_coll_main
#include "inter_coll.c"
#undef main

#include <errno.h>
#include <time.h>

static void write_port(const char *file, const char *port)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    TU_ASSERT(f, "cannot write %s: %s", tmp, strerror(errno));
    fprintf(f, "%s\n", port);
    fclose(f);
    TU_ASSERT(rename(tmp, file) == 0, "cannot rename %s: %s", tmp, strerror(errno));
}

static void read_port(const char *file, char *port)
{
    for (int i = 0; i < 600; i++) { /* 60 s */
        FILE *f = fopen(file, "r");
        if (f) {
            TU_ASSERT(fgets(port, MPI_MAX_PORT_NAME, f), "%s is empty", file);
            fclose(f);
            port[strcspn(port, "\n")] = 0;
            return;
        }
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    tu_fail("no port name appeared in %s within 60 s", file);
}

static void p2p(MPI_Comm ic)
{
    enum { BIG = 200000 };
    static char big[BIG], in[BIG];
    for (int r = 0; r < rsize; r++) { /* ring shifted by the rank: every pair talks */
        int to = (lrank + r) % rsize, v = val(gid, lrank, to), got = -1;
        MPI_Request q;
        TU_CHECK(MPI_Isend(&v, 1, MPI_INT, to, 9, ic, &q));
        MPI_Status st;
        TU_CHECK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 9, ic, &st));
        TU_ASSERT(got == val(!gid, st.MPI_SOURCE, lrank), "p2p from %d: %d, expected %d",
                  st.MPI_SOURCE, got, val(!gid, st.MPI_SOURCE, lrank));
        TU_CHECK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    }
    if (lrank < rsize) {
        tu_fill(big, BIG, (unsigned)(gid * 100 + lrank));
        TU_CHECK(MPI_Sendrecv(big, BIG, MPI_CHAR, lrank, 6, in, BIG, MPI_CHAR, lrank, 6, ic,
                              MPI_STATUS_IGNORE));
        tu_check_pattern(in, BIG, (unsigned)(!gid * 100 + lrank), "big message");
    }
}

static void merged(MPI_Comm ic)
{
    MPI_Comm m;
    int mrank, msize, one = 1, n = 0, mine = val(gid, lrank, 0), all[128];
    TU_CHECK(MPI_Intercomm_merge(ic, gid, &m)); /* the accepting job (0) first */
    TU_CHECK(MPI_Comm_rank(m, &mrank));
    TU_CHECK(MPI_Comm_size(m, &msize));
    TU_ASSERT(msize == lsize + rsize, "merged size %d", msize);
    TU_ASSERT(mrank == (gid ? rsize + lrank : lrank), "merged rank %d (group %d, rank %d)",
              mrank, gid, lrank);
    TU_CHECK(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, m));
    TU_ASSERT(n == msize, "allreduce on the merged communicator: %d", n);
    TU_CHECK(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, m));
    for (int r = 0; r < msize; r++) {
        int g = r >= (gid ? rsize : lsize);
        int want = val(g, g ? r - (gid ? rsize : lsize) : r, 0);
        TU_ASSERT(all[r] == want, "allgather on the merged communicator: [%d] = %d, "
                  "expected %d", r, all[r], want);
    }
    int token = mrank == msize - 1 ? 77 : 0; /* the connecting job's last rank */
    TU_CHECK(MPI_Bcast(&token, 1, MPI_INT, msize - 1, m));
    TU_ASSERT(token == 77, "bcast on the merged communicator: %d", token);
    MPI_Comm half; /* a split across the two jobs: odd and even merged ranks */
    TU_CHECK(MPI_Comm_split(m, mrank % 2, -mrank, &half));
    int hs, hsum = 0;
    TU_CHECK(MPI_Comm_size(half, &hs));
    TU_CHECK(MPI_Allreduce(&mrank, &hsum, 1, MPI_INT, MPI_SUM, half));
    int want = 0;
    for (int r = mrank % 2; r < msize; r += 2)
        want += r;
    TU_ASSERT(hsum == want, "allreduce on a split of the merged communicator: %d, expected %d",
              hsum, want);
    TU_CHECK(MPI_Comm_free(&half));
    TU_CHECK(MPI_Barrier(m));
    TU_CHECK(MPI_Comm_free(&m));
}

/* connect-lose: the accepting job's rank 0 ends; this job goes on. */
static void lose(MPI_Comm ic)
{
    int v = val(gid, lrank, 0), got = -1;
    TU_CHECK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &got, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE));
    int rc = MPI_Recv(&got, 1, MPI_INT, 0, 2, ic, MPI_STATUS_IGNORE); /* never sent */
    TU_ASSERT(tu_class(rc) == MPI_ERR_PROC_ABORTED, "a receive from the lost process gave %s, "
              "expected MPI_ERR_PROC_ABORTED", tu_errstr(rc));
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    TU_ASSERT(strstr(msg, "rank 0 of job"), "the message does not name the lost process: %s",
              msg);
    rc = MPI_Send(&v, 1, MPI_INT, 0, 3, ic); /* the communicator is broken now */
    TU_ASSERT(tu_class(rc) == MPI_ERR_PROC_ABORTED, "a send on the broken communicator gave "
              "%s", tu_errstr(rc));
    TU_CHECK(MPI_Comm_disconnect(&ic));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* this job still works */
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "dyn_pair");
    TU_ASSERT(argc == 3, "usage: dyn_pair accept|connect|accept-die|connect-lose FILE");
    const char *mode = argv[1], *file = argv[2];
    int accepting = !strncmp(mode, "accept", 6), dying = !strcmp(mode, "accept-die"),
        losing = !strcmp(mode, "connect-lose"), broken = !strcmp(mode, "accept-broken");
    gid = !accepting;
    TU_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &lrank));
    TU_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &lsize));
    int root = accepting ? 0 : lsize - 1;
    char port[MPI_MAX_PORT_NAME] = "";
    if (accepting && lrank == root) {
        TU_CHECK(MPI_Open_port(MPI_INFO_NULL, port));
        write_port(file, port);
    } else if (!accepting && lrank == root) {
        read_port(file, port);
    }
    if (broken || !strcmp(mode, "connect-stall")) { /* the other job dies in a merge */
        MPI_Comm ic, m;
        if (accepting)
            TU_CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &ic));
        else
            TU_CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &ic));
        if (!broken) { /* the connecting job: killed in here */
            char merging[4096];
            snprintf(merging, sizeof merging, "%s.merging", file);
            if (lrank == lsize - 1 && lrank != 0)
                sleep(30);
            if (lrank == 0) /* the merge's leader */
                write_port(merging, "merging");
        }
        TU_CHECK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
        int rc = MPI_Intercomm_merge(ic, gid, &m);
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        TU_ASSERT(tu_class(rc) == MPI_ERR_PROC_ABORTED && strstr(msg, "context ids"),
                  "a merge whose other side died in the agreement gave %s", tu_errstr(rc));
        TU_CHECK(MPI_Comm_free(&ic));
        TU_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* this job still works */
        if (lrank == root)
            TU_CHECK(MPI_Close_port(port));
        tu_finish();
        return 0;
    }
    for (int cycle = 0; cycle < (dying || losing ? 1 : 3); cycle++) {
        MPI_Comm ic, d;
        if (accepting)
            TU_CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &ic));
        else
            TU_CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, root, MPI_COMM_WORLD, &ic));
        int lr, ls;
        TU_CHECK(MPI_Comm_rank(ic, &lr));
        TU_CHECK(MPI_Comm_size(ic, &ls));
        TU_CHECK(MPI_Comm_remote_size(ic, &rsize));
        TU_ASSERT(lr == lrank && ls == lsize, "rank %d size %d, expected %d %d", lr, ls, lrank,
                  lsize);
        if (dying) {
            int v = val(gid, lrank, 0), got = -1;
            /* A synchronous send: the message has reached rank r before this
             * process dies (a buffered one may still sit in the transport's
             * send queue at _exit, and r would rightly see a lost peer). */
            for (int r = 0; lrank == 0 && r < rsize; r++) {
                MPI_Request rq;
                TU_CHECK(MPI_Irecv(&got, 1, MPI_INT, r, 1, ic, &rq));
                TU_CHECK(MPI_Ssend(&v, 1, MPI_INT, r, 1, ic));
                TU_CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            }
            if (lrank == 0) {
                fprintf(stderr, "dyn_pair: rank 0 of the accepting job ends now, on purpose\n");
                _exit(3);
            }
            pause(); /* until this job's mpiexec ends it */
        }
        if (losing) {
            lose(ic);
            break;
        }
        p2p(ic);
        rooted(ic);
        all(ic);
        merged(ic);
        TU_CHECK(MPI_Comm_dup(ic, &d));
        p2p(d);
        TU_CHECK(MPI_Comm_disconnect(&d));
        TU_CHECK(MPI_Comm_disconnect(&ic));
    }
    if (accepting && lrank == root)
        TU_CHECK(MPI_Close_port(port));
    tu_finish();
    return 0;
}
