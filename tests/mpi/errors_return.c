/* errors_return: with MPI_ERRORS_RETURN, bad arguments return an error code
 * of the right class instead of ending the job, and the library stays
 * usable. Checked (each on Send and/or Recv, Isend/Irecv):
 *   MPI_ERR_RANK   destination/source >= size or negative (not PROC_NULL)
 *   MPI_ERR_TAG    negative tag on a send; negative tag other than
 *                  MPI_ANY_TAG on a receive
 *   MPI_ERR_COUNT  negative count
 *   MPI_ERR_BUFFER NULL buffer with count > 0; MPI_IN_PLACE as a point-to-point buffer
 *   MPI_ERR_TYPE   MPI_DATATYPE_NULL
 *   MPI_ERR_COMM   MPI_COMM_NULL
 * A tag above MPI_TAG_UB is not tested: the bound is an attribute, and
 * attributes are not part of what these tests may use.
 * Then: error strings are non-empty, a NULL buffer with count 0 is legal,
 * and a normal exchange works. */
#include "util.h"

static int nchecked;

static void expect_class(int rc, int want, const char *wantname, const char *what)
{
    int cls = -1;
    nchecked++;
    TU_ASSERT(rc != MPI_SUCCESS, "%s returned MPI_SUCCESS, expected %s", what, wantname);
    TU_CHECK(MPI_Error_class(rc, &cls));
    TU_ASSERT(cls == want, "%s: expected %s (%d), got %s", what, wantname, want, tu_errstr(rc));
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    TU_CHECK(MPI_Error_string(rc, s, &len));
    TU_ASSERT(len > 0 && (int)strlen(s) == len, "%s: empty or unterminated error string", what);
}

#define EXPECT(call, cls) expect_class((call), cls, #cls, #call)

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "errors_return");
    tu_need_ranks(2);
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    TU_CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    TU_ASSERT(eh == MPI_ERRORS_RETURN, "Comm_get_errhandler did not return MPI_ERRORS_RETURN");

    int cls = -1;
    TU_CHECK(MPI_Error_class(MPI_SUCCESS, &cls));
    TU_ASSERT(cls == MPI_SUCCESS, "Error_class(MPI_SUCCESS) gave %d", cls);

    int peer = (tu_rank + 1) % tu_size;
    int v[4] = {1, 2, 3, 4};
    MPI_Status st;
    MPI_Request req;
    const int badtag = -12345; /* negative and not MPI_ANY_TAG */
    TU_ASSERT(badtag != MPI_ANY_TAG, "MPI_ANY_TAG is -12345?");

    EXPECT(MPI_Send(v, 1, MPI_INT, tu_size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(v, 1, MPI_INT, tu_size + 100, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Recv(v, 1, MPI_INT, tu_size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Isend(v, 1, MPI_INT, tu_size, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
    EXPECT(MPI_Irecv(v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
    EXPECT(MPI_Ssend(v, 1, MPI_INT, tu_size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);

    EXPECT(MPI_Send(v, 1, MPI_INT, peer, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Send(v, 1, MPI_INT, peer, badtag, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Send(v, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Isend(v, 1, MPI_INT, peer, badtag, MPI_COMM_WORLD, &req), MPI_ERR_TAG);
    EXPECT(MPI_Recv(v, 1, MPI_INT, peer, badtag, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    EXPECT(MPI_Irecv(v, 1, MPI_INT, peer, badtag, MPI_COMM_WORLD, &req), MPI_ERR_TAG);

    EXPECT(MPI_Send(v, -1, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Recv(v, -3, MPI_INT, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Isend(v, -1, MPI_INT, peer, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);

    EXPECT(MPI_Send(NULL, 4, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Recv(NULL, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
    EXPECT(MPI_Irecv(NULL, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    EXPECT(MPI_Send(MPI_IN_PLACE, 4, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Recv(MPI_IN_PLACE, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
    EXPECT(MPI_Isend(MPI_IN_PLACE, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);

    EXPECT(MPI_Send(v, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(v, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);

    EXPECT(MPI_Send(v, 1, MPI_INT, peer, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Recv(v, 1, MPI_INT, peer, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
    int dummy;
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &dummy), MPI_ERR_COMM);

    /* still usable: a NULL buffer with count 0 is legal, then real data */
    int right = (tu_rank + 1) % tu_size, left = (tu_rank + tu_size - 1) % tu_size;
    TU_CHECK(MPI_Irecv(NULL, 0, MPI_INT, left, 5, MPI_COMM_WORLD, &req));
    TU_CHECK(MPI_Send(NULL, 0, MPI_INT, right, 5, MPI_COMM_WORLD));
    TU_CHECK(MPI_Wait(&req, &st));
    tu_check_status(&st, left, 5, 0, "zero-count message with NULL buffer");
    int out[64], in[64];
    for (int i = 0; i < 64; i++)
        out[i] = tu_rank * 1000 + i;
    TU_CHECK(MPI_Sendrecv(out, 64, MPI_INT, right, 6, in, 64, MPI_INT, left, 6, MPI_COMM_WORLD,
                          &st));
    for (int i = 0; i < 64; i++)
        TU_ASSERT(in[i] == left * 1000 + i, "exchange after errors: int %d is %d, expected %d", i,
                  in[i], left * 1000 + i);
    if (tu_rank == 0)
        printf("errors_return: %d bad calls returned the right class\n", nchecked);
    tu_finish();
    return 0;
}
