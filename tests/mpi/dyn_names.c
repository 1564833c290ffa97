/*
 * dyn_names: the name service within one job. Every rank opens a port and
 * publishes it as "dyn_names-<rank>" (a name with a space in it, too), the
 * names are looked up by the next rank and must give the port that rank
 * received from its owner by MPI_Send; then each rank connects on
 * MPI_COMM_SELF to the port it looked up while accepting on its own (even
 * ranks accept first, so the ring does not wait on itself), and exchanges a
 * message. Errors: looking up a name nobody published is MPI_ERR_NAME with a
 * message naming it; publishing a name twice and unpublishing one that is
 * not published are MPI_ERR_SERVICE; NULL arguments MPI_ERR_ARG. Without a
 * process manager (TEST_SINGLETON=1, run without mpiexec) publish and lookup
 * fail with MPI_ERR_SERVICE / MPI_ERR_NAME and a message saying what to do.
 */
#include "util.h"

static void errors(int singleton)
{
    char port[MPI_MAX_PORT_NAME], msg[MPI_MAX_ERROR_STRING];
    int len, rc = MPI_Lookup_name("dyn_names-nobody", MPI_INFO_NULL, port);
    tu_expect(rc, MPI_ERR_NAME, "MPI_Lookup_name", "an unknown name");
    MPI_Error_string(rc, msg, &len);
    TU_ASSERT(strstr(msg, "dyn_names-nobody"), "the message does not name the service: %s", msg);
    if (singleton)
        TU_ASSERT(strstr(msg, "port name"), "the message does not say what to do: %s", msg);
    tu_expect(MPI_Unpublish_name("dyn_names-nobody", MPI_INFO_NULL, "x"), MPI_ERR_SERVICE,
              "MPI_Unpublish_name", "a name nobody published");
    tu_expect(MPI_Publish_name(NULL, MPI_INFO_NULL, "x"), MPI_ERR_ARG, "MPI_Publish_name",
              "a NULL service name");
    tu_expect(MPI_Publish_name("s", MPI_INFO_NULL, NULL), MPI_ERR_ARG, "MPI_Publish_name",
              "a NULL port name");
    tu_expect(MPI_Lookup_name("s", MPI_INFO_NULL, NULL), MPI_ERR_ARG, "MPI_Lookup_name",
              "a NULL port name");
    if (singleton) {
        rc = MPI_Publish_name("dyn_names-single", MPI_INFO_NULL, "faro-port:1:x");
        tu_expect(rc, MPI_ERR_SERVICE, "MPI_Publish_name", "without a process manager");
        MPI_Error_string(rc, msg, &len);
        TU_ASSERT(strstr(msg, "mpiexec"), "the message does not say what to do: %s", msg);
    }
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "dyn_names");
    int rank = tu_rank, size = tu_size;
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (tu_env_int("TEST_SINGLETON", 0)) {
        errors(1);
        tu_finish();
        return 0;
    }
    errors(0);
    char mine[MPI_MAX_PORT_NAME], sent[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME];
    char service[64], next_service[64], spaced[64];
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    TU_CHECK(MPI_Open_port(MPI_INFO_NULL, mine));
    snprintf(service, sizeof service, "dyn_names-%d", rank);
    snprintf(next_service, sizeof next_service, "dyn_names-%d", next);
    snprintf(spaced, sizeof spaced, "dyn names %d=x", rank);
    TU_CHECK(MPI_Publish_name(service, MPI_INFO_NULL, mine));
    TU_CHECK(MPI_Publish_name(spaced, MPI_INFO_NULL, mine));
    tu_expect(MPI_Publish_name(service, MPI_INFO_NULL, mine), MPI_ERR_SERVICE,
              "MPI_Publish_name", "a name published twice");
    TU_CHECK(MPI_Sendrecv(mine, MPI_MAX_PORT_NAME, MPI_CHAR, prev, 1, sent, MPI_MAX_PORT_NAME,
                          MPI_CHAR, next, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* every name is published */
    TU_CHECK(MPI_Lookup_name(next_service, MPI_INFO_NULL, found));
    TU_ASSERT(!strcmp(found, sent), "lookup of %s gave '%s', its owner sent '%s'", next_service,
              found, sent);
    snprintf(spaced, sizeof spaced, "dyn names %d=x", next);
    TU_CHECK(MPI_Lookup_name(spaced, MPI_INFO_NULL, found));
    TU_ASSERT(!strcmp(found, sent), "lookup of '%s' gave '%s'", spaced, found);

    if (size > 1) { /* along the ring with the names found: even ranks accept first */
        MPI_Comm to_next, from_prev;
        int v = rank, got = -1;
        for (int step = 0; step < 2; step++) {
            if ((rank % 2 == 0) == (step == 0))
                TU_CHECK(MPI_Comm_accept(mine, MPI_INFO_NULL, 0, MPI_COMM_SELF, &from_prev));
            else
                TU_CHECK(MPI_Comm_connect(found, MPI_INFO_NULL, 0, MPI_COMM_SELF, &to_next));
        }
        /* Isend: a ring of blocking sends would rely on eager buffering */
        MPI_Request sr;
        TU_CHECK(MPI_Isend(&v, 1, MPI_INT, 0, 2, to_next, &sr));
        TU_CHECK(MPI_Recv(&got, 1, MPI_INT, 0, 2, from_prev, MPI_STATUS_IGNORE));
        TU_CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        TU_ASSERT(got == prev, "over the looked-up port: %d, expected %d", got, prev);
        /* disconnect is collective, like a barrier: in the order of the accepts */
        MPI_Comm *first = rank % 2 == 0 ? &to_next : &from_prev;
        TU_CHECK(MPI_Comm_disconnect(first));
        TU_CHECK(MPI_Comm_disconnect(first == &to_next ? &from_prev : &to_next));
    }
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    TU_CHECK(MPI_Unpublish_name(service, MPI_INFO_NULL, mine));
    snprintf(spaced, sizeof spaced, "dyn names %d=x", rank);
    TU_CHECK(MPI_Unpublish_name(spaced, MPI_INFO_NULL, mine));
    tu_expect(MPI_Unpublish_name(service, MPI_INFO_NULL, mine), MPI_ERR_SERVICE,
              "MPI_Unpublish_name", "a name unpublished twice");
    TU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    tu_expect(MPI_Lookup_name(next_service, MPI_INFO_NULL, found), MPI_ERR_NAME,
              "MPI_Lookup_name", "a name after it was unpublished");
    TU_CHECK(MPI_Close_port(mine));
    tu_finish();
    return 0;
}
