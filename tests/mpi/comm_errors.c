/*
 * comm_errors: error classes of the communicator functions under
 * MPI_ERRORS_RETURN (null, freed and predefined handles, bad colours, tags,
 * groups, info), the errhandler a new communicator inherits, and the library
 * staying usable afterwards.
 */
#include "util.h"

static void expect_class(int rc, int cls, const char *what)
{
    int c = -1;
    if (rc == MPI_SUCCESS)
        tu_fail("%s: succeeded, expected error class %d", what, cls);
    TU_CHECK(MPI_Error_class(rc, &c));
    if (c != cls)
        tu_fail("%s: error class %d, expected %d (%s)", what, c, cls, tu_errstr(rc));
}

static int handler_calls;
static void count_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "comm_errors");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int size, rank, cmp, flag;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm c = MPI_COMM_NULL, d;
    MPI_Group g;
    MPI_Request rq;

    expect_class(MPI_Comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM, "Comm_size(NULL)");
    expect_class(MPI_Comm_rank(MPI_COMM_NULL, &rank), MPI_ERR_COMM, "Comm_rank(NULL)");
    expect_class(MPI_Comm_dup(MPI_COMM_NULL, &d), MPI_ERR_COMM, "Comm_dup(NULL)");
    expect_class(MPI_Comm_idup(MPI_COMM_NULL, &d, &rq), MPI_ERR_COMM, "Comm_idup(NULL)");
    expect_class(MPI_Comm_free(&c), MPI_ERR_COMM, "Comm_free(NULL)");
    c = MPI_COMM_WORLD;
    expect_class(MPI_Comm_free(&c), MPI_ERR_COMM, "Comm_free(MPI_COMM_WORLD)");
    c = MPI_COMM_SELF;
    expect_class(MPI_Comm_free(&c), MPI_ERR_COMM, "Comm_free(MPI_COMM_SELF)");
    expect_class(MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &cmp), MPI_ERR_COMM,
                 "Comm_compare(NULL, world)");
    expect_class(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &d), MPI_ERR_COMM, "Comm_split(NULL)");
    expect_class(MPI_Comm_split(MPI_COMM_WORLD, -3, 0, &d), MPI_ERR_ARG, "Comm_split(color -3)");
    expect_class(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &d), MPI_ERR_ARG,
                 "Comm_split_type(type 12345)");
    expect_class(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &d), MPI_ERR_GROUP,
                 "Comm_create(MPI_GROUP_NULL)");
    expect_class(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &d), MPI_ERR_GROUP,
                 "Comm_create_group(MPI_GROUP_NULL)");
    TU_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    expect_class(MPI_Comm_create_group(MPI_COMM_WORLD, g, -1, &d), MPI_ERR_TAG,
                 "Comm_create_group(tag -1)");
    /* a group that is not a subset of the communicator */
    if (tu_size >= 2) {
        MPI_Group self;
        TU_CHECK(MPI_Comm_group(MPI_COMM_SELF, &self));
        int other = tu_rank == 0 ? 1 : 0;
        MPI_Group og;
        TU_CHECK(MPI_Group_incl(g, 1, &other, &og));
        expect_class(MPI_Comm_create_group(MPI_COMM_SELF, og, 0, &d), MPI_ERR_GROUP,
                     "Comm_create_group(caller not in group)");
        MPI_Group both;
        TU_CHECK(MPI_Group_union(self, og, &both));
        expect_class(MPI_Comm_create_group(MPI_COMM_SELF, both, 0, &d), MPI_ERR_GROUP,
                     "Comm_create_group(group not within the communicator)");
        TU_CHECK(MPI_Group_free(&both));
        TU_CHECK(MPI_Group_free(&og));
        TU_CHECK(MPI_Group_free(&self));
    }
    TU_CHECK(MPI_Group_free(&g));
    expect_class(MPI_Comm_set_name(MPI_COMM_NULL, "x"), MPI_ERR_COMM, "Comm_set_name(NULL)");
    expect_class(MPI_Comm_get_name(MPI_COMM_NULL, name, &size), MPI_ERR_COMM,
                 "Comm_get_name(NULL)");
    expect_class(MPI_Comm_test_inter(MPI_COMM_NULL, &flag), MPI_ERR_COMM,
                 "Comm_test_inter(NULL)");
    expect_class(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM, "Comm_group(NULL)");
    expect_class(MPI_Topo_test(MPI_COMM_NULL, &flag), MPI_ERR_COMM, "Topo_test(NULL)");

    /* a freed communicator's handle copy is no communicator while it lives on
     * for a pending receive */
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm copy = c;
    int in = 0, peer = (tu_rank + 1) % tu_size, from = (tu_rank + tu_size - 1) % tu_size;
    TU_CHECK(MPI_Irecv(&in, 1, MPI_INT, from, 0, c, &rq));
    TU_CHECK(MPI_Comm_free(&c));
    expect_class(MPI_Comm_size(copy, &size), MPI_ERR_COMM, "Comm_size(freed, receive pending)");
    expect_class(MPI_Send(&tu_rank, 1, MPI_INT, peer, 0, copy), MPI_ERR_COMM,
                 "Send(freed communicator)");
    /* the sender side: a dup with the same members sends it */
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    TU_CHECK(MPI_Sendrecv(&tu_rank, 1, MPI_INT, peer, 0, &size, 1, MPI_INT, from, 0, d,
                          MPI_STATUS_IGNORE));
    TU_CHECK(MPI_Comm_free(&d));
    /* nobody sends on the freed one: cancel the receive */
    TU_CHECK(MPI_Cancel(&rq));
    MPI_Status st;
    TU_CHECK(MPI_Wait(&rq, &st));
    TU_CHECK(MPI_Test_cancelled(&st, &flag));
    if (!flag)
        tu_fail("the receive on the freed communicator matched something");

    /* a dup inherits the errhandler: a user handler counts an error */
    MPI_Errhandler eh;
    TU_CHECK(MPI_Comm_create_errhandler(count_handler, &eh));
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    TU_CHECK(MPI_Comm_set_errhandler(c, eh));
    TU_CHECK(MPI_Errhandler_free(&eh));
    TU_CHECK(MPI_Comm_dup(c, &d));
    TU_CHECK(MPI_Comm_free(&c));
    int before = handler_calls;
    MPI_Send(&tu_rank, 1, MPI_INT, tu_size, 0, d); /* bad rank */
    if (handler_calls != before + 1)
        tu_fail("the dup's inherited handler ran %d times", handler_calls - before);
    MPI_Errhandler got;
    TU_CHECK(MPI_Comm_get_errhandler(d, &got));
    TU_CHECK(MPI_Errhandler_free(&got));
    TU_CHECK(MPI_Comm_free(&d));

    /* a message never received on a freed communicator must not reach the
     * next communicator that reuses its context id (the library warns) */
    if (tu_size >= 2 && tu_rank < 2) {
        TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, tu_rank, &c));
        if (tu_rank == 0) {
            TU_CHECK(MPI_Send(&tu_rank, 1, MPI_INT, 1, 3, c));
            TU_CHECK(MPI_Send(&tu_rank, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
        } else { /* the world message comes after the stale one from the same rank */
            TU_CHECK(MPI_Recv(&in, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    } else {
        TU_CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, tu_rank, &c));
    }
    TU_CHECK(MPI_Comm_free(&c));
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    TU_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, MPI_STATUS_IGNORE));
    if (flag)
        tu_fail("a message sent to a freed communicator showed up on a new one");
    TU_CHECK(MPI_Comm_free(&c));

    /* usable afterwards */
    TU_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    TU_CHECK(MPI_Sendrecv(&tu_rank, 1, MPI_INT, peer, 0, &in, 1, MPI_INT, from, 0, c,
                          MPI_STATUS_IGNORE));
    if (in != from)
        tu_fail("after the errors: got %d", in);
    TU_CHECK(MPI_Comm_free(&c));
    tu_finish();
    return 0;
}
