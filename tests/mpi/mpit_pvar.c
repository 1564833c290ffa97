/*
 * MPI_T performance variables: every one enumerates with a unique name, a
 * valid class and its index round-trips; the protocol counters move by
 * exactly what was sent (10 messages of 8 bytes eagerly, 3 of 2 MiB by
 * rendezvous), in the protocol total and in the row of the transport that
 * carried them, and not in another transport's row; a stopped counter does
 * not move, reset and readreset start again from 0; the unexpected queue's
 * level and high watermark and the posted receives (per communicator and in
 * all) count what is waiting. Two ranks; FARO_TRANSPORTS=tcp means tcp.
 *
 * With MPIT_EAGER0=1 the program writes FARO_EAGER_LIMIT=0 through MPI_T
 * before MPI_Init, and then every message must go by rendezvous: a cvar
 * write that MPI_Init honours.
 */
#include "util.h"

#define BIG (2 << 20)

static MPI_T_pvar_session session;
static int eager0;

static void expect_code(int rc, int want, const char *what)
{
    TU_ASSERT(rc == want, "%s returned %d (%s), expected %d (%s)", what, rc, tu_errstr(rc),
              want, tu_errstr(want));
}

static MPI_T_pvar_handle handle(const char *name, int cls, void *obj)
{
    int i, count;
    MPI_T_pvar_handle h;
    TU_CHECK(MPI_T_pvar_get_index(name, cls, &i));
    TU_CHECK(MPI_T_pvar_handle_alloc(session, i, obj, &h, &count));
    TU_ASSERT(count == 1, "%s: count %d", name, count);
    return h;
}

static unsigned long long rd(MPI_T_pvar_handle h)
{
    unsigned long long v = ~0ull;
    TU_CHECK(MPI_T_pvar_read(session, h, &v));
    return v;
}

static void expect(MPI_T_pvar_handle h, const char *name, unsigned long long want)
{
    unsigned long long v = rd(h);
    TU_ASSERT(v == want, "%s reads %llu, expected %llu%s", name, v, want,
              eager0 ? " (FARO_EAGER_LIMIT=0 written before MPI_Init)" : "");
}

static void enumerate(void)
{
    int n = 0;
    TU_CHECK(MPI_T_pvar_get_num(&n));
    TU_ASSERT(n >= 30, "MPI_T_pvar_get_num: %d performance variables", n);
    char (*names)[64] = calloc((size_t)n, sizeof *names);
    for (int i = 0; i < n; i++) {
        int len = 64, verbosity, cls, bind, ro, cont, atomic, dlen = 0;
        MPI_Datatype dt;
        MPI_T_enum et;
        TU_CHECK(MPI_T_pvar_get_info(i, names[i], &len, &verbosity, &cls, &dt, &et, NULL, &dlen,
                                     &bind, &ro, &cont, &atomic));
        TU_ASSERT(len > 1 && (int)strlen(names[i]) == len - 1 && dlen > 1,
                  "pvar %d: name '%s' length %d, description length %d", i, names[i], len,
                  dlen);
        for (int j = 0; j < i; j++)
            TU_ASSERT(strcmp(names[i], names[j]) != 0, "pvars %d and %d are both '%s'", j, i,
                      names[i]);
        int k = -1;
        TU_CHECK(MPI_T_pvar_get_index(names[i], cls, &k));
        TU_ASSERT(k == i, "MPI_T_pvar_get_index('%s') is %d, not %d", names[i], k, i);
        TU_ASSERT(cls >= MPI_T_PVAR_CLASS_STATE && cls <= MPI_T_PVAR_CLASS_GENERIC,
                  "pvar %s: class %d", names[i], cls);
        TU_ASSERT(dt == MPI_UNSIGNED_LONG_LONG && et == MPI_T_ENUM_NULL,
                  "pvar %s: datatype or enumeration unexpected", names[i]);
        TU_ASSERT(bind == MPI_T_BIND_NO_OBJECT || bind == MPI_T_BIND_MPI_COMM,
                  "pvar %s: bind %d", names[i], bind);
        TU_ASSERT(cls == MPI_T_PVAR_CLASS_COUNTER ? !cont && !ro : cont && ro,
                  "pvar %s: class %d with continuous %d, readonly %d", names[i], cls, cont, ro);
        TU_ASSERT(verbosity >= MPI_T_VERBOSITY_USER_BASIC &&
                  verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL, "pvar %s: verbosity", names[i]);
    }
    int k;
    expect_code(MPI_T_pvar_get_index("p2p_eager_sent", MPI_T_PVAR_CLASS_LEVEL, &k),
                MPI_T_ERR_INVALID_NAME, "MPI_T_pvar_get_index with the wrong class");
    expect_code(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                    NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX,
                "MPI_T_pvar_get_info(num)");
    free(names);
}

/* The receiver says when its counters are started: a message that arrived
 * before (in the last call's progress) would count before its time. Rank 1
 * checks only what arrives, rank 0 only what it sends, so the token itself
 * never counts. */
static void go(void)
{
    if (tu_rank == 1)
        TU_CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD));
    else
        TU_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* Counters: totals, the carrying transport's row, another transport's row. */
static void counters(void)
{
    const char *env = getenv("FARO_TRANSPORTS");
    const char *tp = env && strcmp(env, "tcp") == 0 ? "tcp" : "shm";
    const char *other = strcmp(tp, "tcp") == 0 ? "shm" : "tcp";
    const char *what[] = {"eager_%s", "eager_%s_bytes", "rndv_%s", "rndv_%s_bytes"};
    int sender = tu_rank == 0;
    const char *dir = sender ? "sent" : "recvd";
    /* by protocol: 10 x 8 bytes eager and 3 x BIG by rendezvous; all rendezvous when eager0 */
    unsigned long long want[4] = {10, 80, 3, 3ull * BIG};
    if (eager0)
        want[0] = 0, want[1] = 0, want[2] = 13, want[3] = 80 + 3ull * BIG;
    MPI_T_pvar_handle tot[4], row[4], zero[4];
    char name[64], fmt[64];
    for (int i = 0; i < 4; i++) {
        snprintf(fmt, sizeof fmt, "p2p_%s", what[i]);
        snprintf(name, sizeof name, fmt, dir);
        tot[i] = handle(name, MPI_T_PVAR_CLASS_COUNTER, NULL);
        snprintf(fmt, sizeof fmt, "%s_%s", tp, what[i]);
        snprintf(name, sizeof name, fmt, dir);
        row[i] = handle(name, MPI_T_PVAR_CLASS_COUNTER, NULL);
        snprintf(fmt, sizeof fmt, "%s_%s", other, what[i]);
        snprintf(name, sizeof name, fmt, dir);
        zero[i] = handle(name, MPI_T_PVAR_CLASS_COUNTER, NULL);
    }
    expect(tot[0], "a counter never started", 0);
    char *buf = malloc(BIG);
    tu_barrier(); /* the barrier's own messages are over on both sides */
    TU_CHECK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES));
    go();
    for (int i = 0; i < 13; i++) {
        int n = i < 10 ? 8 : BIG;
        if (sender)
            TU_CHECK(MPI_Send(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
        else
            TU_CHECK(MPI_Recv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < 4; i++) {
        char t[64];
        snprintf(fmt, sizeof fmt, "p2p_%s", what[i]);
        snprintf(t, sizeof t, fmt, dir);
        expect(tot[i], t, want[i]);
        snprintf(fmt, sizeof fmt, "%s_%s", tp, what[i]);
        snprintf(t, sizeof t, fmt, dir);
        expect(row[i], t, want[i]);
        snprintf(fmt, sizeof fmt, "%s_%s", other, what[i]);
        snprintf(t, sizeof t, fmt, dir);
        expect(zero[i], t, 0);
    }
    /* stopped: keeps its value; readreset: 0 after; write: the handle's own value */
    int msgs = eager0 ? 2 : 0; /* the counter that counts an 8-byte message */
    TU_CHECK(MPI_T_pvar_stop(session, tot[msgs]));
    unsigned long long before = rd(tot[msgs]);
    go();
    if (sender)
        TU_CHECK(MPI_Send(buf, 8, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
    else
        TU_CHECK(MPI_Recv(buf, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect(tot[msgs], "a stopped counter", before);
    expect(row[msgs], "the transport's counter, still started", before + 1);
    unsigned long long v;
    TU_CHECK(MPI_T_pvar_readreset(session, row[msgs], &v));
    TU_ASSERT(v == before + 1, "readreset read %llu, expected %llu", v, before + 1);
    expect(row[msgs], "a counter after readreset", 0);
    unsigned long long w = 1000;
    TU_CHECK(MPI_T_pvar_write(session, row[msgs], &w));
    TU_CHECK(MPI_T_pvar_start(session, tot[msgs]));
    go();
    if (sender)
        TU_CHECK(MPI_Send(buf, 8, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
    else
        TU_CHECK(MPI_Recv(buf, 8, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect(tot[msgs], "a counter started again", before + 1);
    expect(row[msgs], "a counter written 1000", 1001);
    TU_CHECK(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES));
    expect(row[msgs], "a counter after reset", 0);
    for (int i = 0; i < 4; i++) {
        TU_CHECK(MPI_T_pvar_handle_free(session, &tot[i]));
        TU_CHECK(MPI_T_pvar_handle_free(session, &row[i]));
    }
    TU_ASSERT(tot[0] == MPI_T_PVAR_HANDLE_NULL, "MPI_T_pvar_handle_free left the handle set");
    free(buf);
}

/* Levels: unexpected messages and posted receives, per communicator and in all. */
static void levels(void)
{
    MPI_Comm c;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_T_pvar_handle cu = handle("p2p_comm_unexpected_queued", MPI_T_PVAR_CLASS_LEVEL, &c);
    MPI_T_pvar_handle cp = handle("p2p_comm_posted_recvs", MPI_T_PVAR_CLASS_LEVEL, &c);
    MPI_T_pvar_handle u = handle("p2p_unexpected_queued", MPI_T_PVAR_CLASS_LEVEL, NULL);
    MPI_T_pvar_handle hw = handle("p2p_unexpected_queued_max",
                                  MPI_T_PVAR_CLASS_HIGHWATERMARK, NULL);
    MPI_T_pvar_handle p = handle("p2p_posted_recvs", MPI_T_PVAR_CLASS_LEVEL, NULL);
    expect_code(MPI_T_pvar_start(session, cu), MPI_T_ERR_PVAR_NO_STARTSTOP,
                "MPI_T_pvar_start of a continuous level");
    unsigned long long w = 5;
    expect_code(MPI_T_pvar_write(session, u, &w), MPI_T_ERR_PVAR_NO_WRITE,
                "MPI_T_pvar_write of a read-only level");
    int i, count;
    MPI_T_pvar_handle bad;
    TU_CHECK(MPI_T_pvar_get_index("p2p_comm_posted_recvs", MPI_T_PVAR_CLASS_LEVEL, &i));
    expect_code(MPI_T_pvar_handle_alloc(session, i, NULL, &bad, &count),
                MPI_T_ERR_INVALID_HANDLE, "a communicator-bound handle without a communicator");
    char buf[6][8];
    MPI_Request rq[6];
    if (tu_rank == 0) {
        for (int k = 0; k < 6; k++)
            TU_CHECK(MPI_Isend(buf[k], 8, MPI_BYTE, 1, k < 5 ? 7 : 8, c, &rq[k]));
        TU_CHECK(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
    } else {
        TU_CHECK(MPI_Probe(0, 8, c, MPI_STATUS_IGNORE)); /* the five before it are here too */
        expect(cu, "p2p_comm_unexpected_queued", 6);
        expect(u, "p2p_unexpected_queued", 6);
        TU_ASSERT(rd(hw) >= 6, "p2p_unexpected_queued_max reads %llu with 6 queued", rd(hw));
        for (int k = 0; k < 6; k++)
            TU_CHECK(MPI_Recv(buf[k], 8, MPI_BYTE, 0, k < 5 ? 7 : 8, c, MPI_STATUS_IGNORE));
        expect(cu, "p2p_comm_unexpected_queued after the receives", 0);
        TU_ASSERT(rd(hw) >= 6, "p2p_unexpected_queued_max fell to %llu", rd(hw));
        for (int k = 0; k < 2; k++)
            TU_CHECK(MPI_Irecv(buf[k], 8, MPI_BYTE, 0, 9, c, &rq[k]));
        expect(cp, "p2p_comm_posted_recvs", 2);
        expect(p, "p2p_posted_recvs", 2);
    }
    tu_barrier(); /* on MPI_COMM_WORLD: the receives on c stay posted */
    if (tu_rank == 0) {
        for (int k = 0; k < 2; k++)
            TU_CHECK(MPI_Send(buf[k], 8, MPI_BYTE, 1, 9, c));
    } else {
        TU_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        expect(cp, "p2p_comm_posted_recvs after the matches", 0);
    }
    TU_CHECK(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    tu_name = "mpit_pvar";
    int provided;
    TU_CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    eager0 = tu_env_int("MPIT_EAGER0", 0);
    if (eager0) {
        int i, count;
        MPI_T_cvar_handle h;
        MPI_Count zero = 0;
        TU_CHECK(MPI_T_cvar_get_index("FARO_EAGER_LIMIT", &i));
        TU_CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        TU_CHECK(MPI_T_cvar_write(h, &zero));
        TU_CHECK(MPI_T_cvar_handle_free(&h));
    }
    tu_init(&argc, &argv, "mpit_pvar");
    tu_need_ranks(2);
    enumerate();
    TU_CHECK(MPI_T_pvar_session_create(&session));
    if (tu_rank < 2) {
        counters();
        TU_CHECK(MPI_T_pvar_session_free(&session));
        TU_CHECK(MPI_T_pvar_session_create(&session));
        levels();
    }
    TU_CHECK(MPI_T_pvar_session_free(&session));
    TU_ASSERT(session == MPI_T_PVAR_SESSION_NULL, "session_free left the session set");
    TU_CHECK(MPI_T_finalize());
    tu_finish();
    return 0;
}
