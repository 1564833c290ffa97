/*
 * dyn_errors: wrong use of ports and dynamic connections gives an error of
 * the right class with a message naming the call, under MPI_ERRORS_RETURN,
 * never a hang, and the library stays usable (a good connection at the end).
 *
 *  - malformed port names (not Faro's, a bad id, a bad key, no transport,
 *    junk, no terminating NUL within MPI_MAX_PORT_NAME): MPI_ERR_PORT at the
 *    root of MPI_Comm_connect, and every member of the group gets an error;
 *  - MPI_Comm_accept on a port this process did not open, MPI_Close_port of
 *    an unknown or already closed port: MPI_ERR_PORT;
 *  - root out of range: MPI_ERR_ROOT; an intercommunicator: MPI_ERR_COMM;
 *    NULL newcomm or port_name: MPI_ERR_ARG; MPI_Comm_disconnect of
 *    MPI_COMM_WORLD: MPI_ERR_COMM;
 *  - MPI_Comm_connect with a port name whose key was altered: MPI_ERR_PORT
 *    at once (the transport refuses it before serving anything), and the
 *    port still takes its right key;
 *  - MPI_Comm_connect to a port that was closed: MPI_ERR_PORT at once;
 *  - MPI_Comm_connect to an open port nobody accepts on: MPI_ERR_PORT after
 *    FARO_CONNECT_TIMEOUT (the test list sets 3 s); MPI_Comm_accept with
 *    FARO_ACCEPT_TIMEOUT set and nobody connecting: MPI_ERR_PORT.
 * Needs 2+ ranks: rank 0 opens ports, rank 1 connects.
 */
#include "util.h"

#include <time.h>

static double now(void)
{
    return MPI_Wtime();
}

static void bad_name(const char *name, const char *what)
{
    MPI_Comm ic;
    int rc = MPI_Comm_connect(name, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
    tu_expect(rc, MPI_ERR_PORT, "MPI_Comm_connect", what);
}

/* Ranks 0 (accepting on port) and 1 connect and exchange their ranks. */
static void good_connection(const char *port, int rank, const char *after)
{
    MPI_Comm ic;
    int v = rank, got = -1;
    if (rank == 0)
        TU_CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
    else
        TU_CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
    TU_CHECK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 0, &got, 1, MPI_INT, 0, 0, ic, MPI_STATUS_IGNORE));
    TU_ASSERT(got == !rank, "after %s: %d", after, got);
    TU_CHECK(MPI_Comm_disconnect(&ic));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "dyn_errors");
    int rank = tu_rank, size = tu_size;
    tu_need_ranks(2);
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Comm ic = MPI_COMM_NULL;
    char port[MPI_MAX_PORT_NAME], name[MPI_MAX_PORT_NAME + 16];

    /* malformed names, at the root of MPI_COMM_SELF */
    bad_name("", "an empty port name");
    bad_name("tcp://10.0.0.1:4711", "another MPI's port name");
    bad_name("faro-port:1:zz", "a bad process id");
    bad_name("faro-port:1:0000000000000001:1234", "a short key");
    bad_name("faro-port:1:0000000000000001:000102030405060708090a0b0c0d0e0f",
             "no transport address");
    bad_name("faro-port:1:0000000000000001:000102030405060708090a0b0c0d0e0f:tcp:zz",
             "a bad address");
    bad_name("faro-port:1:0000000000000001:000102030405060708090a0b0c0d0e0f:nosuch:0102",
             "a transport this process does not have");
    memset(name, 'x', sizeof name); /* no NUL within MPI_MAX_PORT_NAME */
    memcpy(name, "faro-port:1:", 12);
    name[sizeof name - 1] = 0;
    bad_name(name, "an unterminated name");

    /* a bad name at the root of a bigger group: every member fails */
    int rc = MPI_Comm_connect(rank == 0 ? "not a port" : NULL, MPI_INFO_NULL, 0,
                              MPI_COMM_WORLD, &ic);
    if (rank == 0)
        tu_expect(rc, MPI_ERR_PORT, "MPI_Comm_connect", "a bad name at the root");
    else
        tu_expect(rc, MPI_ERR_PORT, "MPI_Comm_connect", "a bad name at the root, seen by a "
                  "member");

    /* arguments */
    tu_expect(MPI_Comm_connect("x", MPI_INFO_NULL, size, MPI_COMM_WORLD, &ic), MPI_ERR_ROOT,
              "MPI_Comm_connect", "root out of range");
    tu_expect(MPI_Comm_accept("x", MPI_INFO_NULL, -1, MPI_COMM_WORLD, &ic), MPI_ERR_ROOT,
              "MPI_Comm_accept", "root -1");
    tu_expect(MPI_Comm_accept("x", MPI_INFO_NULL, 0, MPI_COMM_SELF, NULL), MPI_ERR_ARG,
              "MPI_Comm_accept", "newcomm NULL");
    tu_expect(MPI_Comm_accept(NULL, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic), MPI_ERR_ARG,
              "MPI_Comm_accept", "port_name NULL at the root");
    tu_expect(MPI_Comm_disconnect(&(MPI_Comm){MPI_COMM_WORLD}), MPI_ERR_COMM,
              "MPI_Comm_disconnect", "MPI_COMM_WORLD");
    tu_expect(MPI_Open_port(MPI_INFO_NULL, NULL), MPI_ERR_ARG, "MPI_Open_port",
              "port_name NULL");
    tu_expect(MPI_Close_port("faro-port:1:0000000000000001:000102030405060708090a0b0c0d0e0f:"
                             "tcp:0102"), MPI_ERR_PORT, "MPI_Close_port", "a port never opened");
    tu_expect(MPI_Close_port("junk"), MPI_ERR_PORT, "MPI_Close_port", "a malformed name");

    /* accept on a port of another process; an intercommunicator as comm */
    if (rank == 0)
        TU_CHECK(MPI_Open_port(MPI_INFO_NULL, port));
    TU_CHECK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (rank == 1)
        tu_expect(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic), MPI_ERR_PORT,
                  "MPI_Comm_accept", "a port another process opened");
    MPI_Comm local, inter;
    TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local));
    TU_CHECK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, !(rank % 2), 5, &inter));
    TU_CHECK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    tu_expect(MPI_Comm_accept(port, MPI_INFO_NULL, 0, inter, &ic), MPI_ERR_COMM,
              "MPI_Comm_accept", "an intercommunicator");
    TU_CHECK(MPI_Comm_free(&inter));
    TU_CHECK(MPI_Comm_free(&local));

    /* a port name whose key differs in one digit: the port's process refuses
     * the connection at once (no time-out), before it serves anything, and
     * the port still takes its own key */
    if (rank == 1) {
        char forged[MPI_MAX_PORT_NAME];
        snprintf(forged, sizeof forged, "%s", port);
        char *k = forged + strlen("faro-port:1:") + 17; /* after the process id */
        *k = *k == '0' ? '1' : '0';
        double t = now();
        rc = MPI_Comm_connect(forged, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        tu_expect(rc, MPI_ERR_PORT, "MPI_Comm_connect", "a port name with a wrong key");
        TU_ASSERT(now() - t < 2, "refusing a wrong key took %.1f s (a time-out, not a "
                  "refusal?)", now() - t);
    }
    if (rank < 2)
        good_connection(port, rank, "a wrong key");

    /* a closed port: the connection is refused at once */
    if (rank == 0) {
        TU_CHECK(MPI_Close_port(port));
        tu_expect(MPI_Close_port(port), MPI_ERR_PORT, "MPI_Close_port", "a port closed twice");
    }
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        double t = now();
        rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        tu_expect(rc, MPI_ERR_PORT, "MPI_Comm_connect", "a closed port");
        TU_ASSERT(now() - t < 10, "connecting to a closed port took %.1f s", now() - t);
    }

    /* an open port nobody accepts on: the connect times out; an accept
     * nobody connects to times out (FARO_ACCEPT_TIMEOUT) */
    if (rank == 0)
        TU_CHECK(MPI_Open_port(MPI_INFO_NULL, port));
    TU_CHECK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (rank == 1) {
        double t = now();
        rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        tu_expect(rc, MPI_ERR_PORT, "MPI_Comm_connect", "a port nobody accepts on");
        TU_ASSERT(now() - t >= 2, "the connect gave up after %.1f s, before "
                  "FARO_CONNECT_TIMEOUT", now() - t);
    }
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0 && tu_env_int("FARO_ACCEPT_TIMEOUT", 0) > 0) {
        /* the connection that timed out went away: nobody is left to accept */
        rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        tu_expect(rc, MPI_ERR_PORT, "MPI_Comm_accept", "nobody connecting");
    }
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));

    /* still usable: a good connection between ranks 0 and 1 */
    if (rank < 2)
        good_connection(port, rank, "the errors");
    if (rank == 0)
        TU_CHECK(MPI_Close_port(port));
    tu_finish();
    return 0;
}
