/*
 * comm_dup_free: duplicated communicators are separate matching spaces.
 *
 * - 5000 MPI_Comm_dup/MPI_Comm_free cycles (context ids must come back), each
 *   with a ring exchange on the new communicator while a message with the
 *   same tag and source waits on the parent: no message may cross.
 * - 64 communicators alive at once (dups of dups), every one carrying a
 *   message with the same tag, received in reverse order of sending.
 * - MPI_Comm_free with requests pending: the requests complete afterwards.
 * - MPI_Comm_idup, MPI_Comm_dup_with_info, names (not inherited by a dup),
 *   info hints (copied by a dup, replaced by dup_with_info).
 */
#include "util.h"

#define CYCLES 5000
#define ALIVE 64

static void ring_on(MPI_Comm comm, int value_base, int tag)
{
    int rank, size;
    TU_CHECK(MPI_Comm_rank(comm, &rank));
    TU_CHECK(MPI_Comm_size(comm, &size));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = value_base + rank, in = -1;
    MPI_Status st;
    TU_CHECK(MPI_Sendrecv(&out, 1, MPI_INT, right, tag, &in, 1, MPI_INT, left, tag, comm, &st));
    if (in != value_base + left)
        tu_fail("ring on a communicator: got %d from %d, expected %d", in, left, value_base + left);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "comm_dup_free");
    int right = (tu_rank + 1) % tu_size, left = (tu_rank + tu_size - 1) % tu_size;

    /* A message on MPI_COMM_WORLD with tag 7 waits unreceived at every rank
     * during all the cycles; receives on the dups use tag 7 and any source. */
    int parked = 1000000 + tu_rank, parked_in = -1;
    MPI_Request parked_send;
    TU_CHECK(MPI_Isend(&parked, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &parked_send));

    for (int i = 0; i < CYCLES; i++) {
        MPI_Comm c;
        TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        int r, s;
        TU_CHECK(MPI_Comm_rank(c, &r));
        TU_CHECK(MPI_Comm_size(c, &s));
        if (r != tu_rank || s != tu_size)
            tu_fail("cycle %d: dup has rank %d size %d", i, r, s);
        int out = i * 1000 + tu_rank, in = -1;
        MPI_Request rq;
        MPI_Status st;
        TU_CHECK(MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 7, c, &rq));
        TU_CHECK(MPI_Send(&out, 1, MPI_INT, right, 7, c));
        TU_CHECK(MPI_Wait(&rq, &st));
        if (in != i * 1000 + left || st.MPI_SOURCE != left)
            tu_fail("cycle %d: received %d from %d, expected %d from %d", i, in, st.MPI_SOURCE,
                    i * 1000 + left, left);
        TU_CHECK(MPI_Comm_free(&c));
        if (c != MPI_COMM_NULL)
            tu_fail("MPI_Comm_free did not set the handle to MPI_COMM_NULL");
    }
    TU_CHECK(MPI_Recv(&parked_in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Wait(&parked_send, MPI_STATUS_IGNORE));
    if (parked_in != 1000000 + left)
        tu_fail("parked message on MPI_COMM_WORLD: got %d", parked_in);

    /* Many alive at once, each a dup of the previous one. */
    MPI_Comm comms[ALIVE];
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]));
    for (int i = 1; i < ALIVE; i++)
        TU_CHECK(MPI_Comm_dup(comms[i - 1], &comms[i]));
    MPI_Request sends[ALIVE];
    int outs[ALIVE];
    for (int i = 0; i < ALIVE; i++) {
        outs[i] = i * 100 + tu_rank;
        TU_CHECK(MPI_Isend(&outs[i], 1, MPI_INT, right, 3, comms[i], &sends[i]));
    }
    for (int i = ALIVE - 1; i >= 0; i--) {
        int in = -1;
        TU_CHECK(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[i],
                          MPI_STATUS_IGNORE));
        if (in != i * 100 + left)
            tu_fail("communicator %d of %d alive: received %d, expected %d", i, ALIVE, in,
                    i * 100 + left);
    }
    TU_CHECK(MPI_Waitall(ALIVE, sends, MPI_STATUSES_IGNORE));
    for (int i = 0; i < ALIVE; i++) {
        int cmp;
        TU_CHECK(MPI_Comm_compare(MPI_COMM_WORLD, comms[i], &cmp));
        if (cmp != MPI_CONGRUENT)
            tu_fail("dup %d compares %d with MPI_COMM_WORLD, expected MPI_CONGRUENT", i, cmp);
    }
    /* free every other one, make new ones in the holes, check again */
    for (int i = 0; i < ALIVE; i += 2)
        TU_CHECK(MPI_Comm_free(&comms[i]));
    for (int i = 0; i < ALIVE; i += 2)
        TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]));
    for (int i = 0; i < ALIVE; i++)
        ring_on(comms[i], i * 10000, 5);
    for (int i = 0; i < ALIVE; i++)
        TU_CHECK(MPI_Comm_free(&comms[i]));

    /* Free with pending requests: the receive and the send complete later. */
    MPI_Comm c;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int big_n = 1 << 18; /* rendezvous-sized */
    int *sbuf = tu_malloc((size_t)big_n * sizeof(int)), *rbuf = tu_malloc((size_t)big_n * sizeof(int));
    tu_fill(sbuf, (size_t)big_n * sizeof(int), (unsigned)tu_rank);
    MPI_Request rq[2];
    TU_CHECK(MPI_Irecv(rbuf, big_n, MPI_INT, left, 9, c, &rq[0]));
    TU_CHECK(MPI_Isend(sbuf, big_n, MPI_INT, right, 9, c, &rq[1]));
    TU_CHECK(MPI_Comm_free(&c));
    /* a new communicator must not take the pending one's place */
    MPI_Comm d;
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    ring_on(d, 77, 9);
    TU_CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    tu_check_pattern(rbuf, (size_t)big_n * sizeof(int), (unsigned)left,
                     "message on a freed communicator");
    ring_on(d, 88, 9);
    TU_CHECK(MPI_Comm_free(&d));
    free(sbuf);
    free(rbuf);

    /* idup: a complete request, a usable communicator. */
    MPI_Request req;
    TU_CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &req));
    TU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (req != MPI_REQUEST_NULL)
        tu_fail("MPI_Wait on the idup request left it non-null");
    ring_on(c, 5, 1);

    /* names: set, get, not copied by dup */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    TU_CHECK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    if (strcmp(name, "MPI_COMM_WORLD") || len != 14)
        tu_fail("MPI_COMM_WORLD's name is \"%s\" (%d)", name, len);
    TU_CHECK(MPI_Comm_get_name(c, name, &len));
    if (len != 0 || name[0])
        tu_fail("a new communicator's name is \"%s\", expected empty", name);
    TU_CHECK(MPI_Comm_set_name(c, "ring"));
    TU_CHECK(MPI_Comm_get_name(c, name, &len));
    if (strcmp(name, "ring") || len != 4)
        tu_fail("name set to ring, got \"%s\"", name);
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    TU_CHECK(MPI_Comm_set_name(c, longname));
    TU_CHECK(MPI_Comm_get_name(c, name, &len));
    if (len != MPI_MAX_OBJECT_NAME - 1)
        tu_fail("a long name came back with length %d", len);
    TU_CHECK(MPI_Comm_set_name(c, "ring"));
    MPI_Comm e;
    TU_CHECK(MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &e));
    TU_CHECK(MPI_Comm_get_name(e, name, &len));
    if (len != 0)
        tu_fail("a dup inherited the name \"%s\"", name);
    int flag = 1;
    TU_CHECK(MPI_Comm_test_inter(e, &flag));
    if (flag)
        tu_fail("MPI_Comm_test_inter says true");
    ring_on(e, 6, 1);
    TU_CHECK(MPI_Comm_free(&e));

    /* info hints: kept by set_info, copied by dup, replaced by dup_with_info */
    MPI_Info info, got;
    char value[64];
    int nkeys;
    TU_CHECK(MPI_Comm_get_info(c, &got));
    TU_CHECK(MPI_Info_get_nkeys(got, &nkeys));
    if (nkeys != 0)
        tu_fail("a new communicator has %d info keys", nkeys);
    TU_CHECK(MPI_Info_free(&got));
    TU_CHECK(MPI_Info_create(&info));
    TU_CHECK(MPI_Info_set(info, "faro_test_hint", "yes"));
    TU_CHECK(MPI_Comm_set_info(c, info));
    TU_CHECK(MPI_Info_set(info, "faro_test_hint", "changed after set_info"));
    TU_CHECK(MPI_Comm_dup(c, &e));
    TU_CHECK(MPI_Comm_get_info(e, &got));
    TU_CHECK(MPI_Info_get(got, "faro_test_hint", sizeof value - 1, value, &flag));
    if (!flag || strcmp(value, "yes"))
        tu_fail("the dup's hint is %s", flag ? value : "missing");
    TU_CHECK(MPI_Info_free(&got));
    TU_CHECK(MPI_Comm_free(&e));
    TU_CHECK(MPI_Info_free(&info));
    TU_CHECK(MPI_Info_create(&info));
    TU_CHECK(MPI_Comm_dup_with_info(c, info, &e));
    TU_CHECK(MPI_Comm_get_info(e, &got));
    TU_CHECK(MPI_Info_get_nkeys(got, &nkeys));
    if (nkeys != 0)
        tu_fail("dup_with_info(empty info) kept %d keys", nkeys);
    TU_CHECK(MPI_Info_free(&got));
    TU_CHECK(MPI_Info_free(&info));
    TU_CHECK(MPI_Comm_free(&e));
    TU_CHECK(MPI_Comm_free(&c));

    /* compare: MPI_COMM_SELF against world, a comm against itself */
    int cmp;
    TU_CHECK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp));
    if (cmp != MPI_IDENT)
        tu_fail("MPI_COMM_WORLD vs itself: %d", cmp);
    TU_CHECK(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &cmp));
    if (cmp != (tu_size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL))
        tu_fail("MPI_COMM_SELF vs MPI_COMM_WORLD: %d", cmp);
    tu_finish();
    return 0;
}
