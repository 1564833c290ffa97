/*
 * null_args: every MPI function that writes through a pointer argument,
 * called with that pointer NULL (one at a time, everything else valid),
 * must return an error of class MPI_ERR_ARG whose message names the function
 * and the argument, under MPI_ERRORS_RETURN, and the library must stay
 * usable. Statuses are not in the list where NULL is MPI_STATUS_IGNORE; the
 * statuses that are read or set (MPI_Get_count, MPI_Status_set_elements ...)
 * are.
 *
 * The list below is one CASE per (function, argument), grouped by area; it
 * was made by scanning include/mpi.h for non-const pointer parameters.
 * Not in it: MPI_Init/MPI_Init_thread (argc, argv and provided may be NULL;
 * before MPI_Init no errhandler can be set to return), and the window
 * attribute calls (no window exists yet; attr_win tests them).
 * Run with 2 ranks for the intercommunicator cases (other sizes skip them).
 * TEST_NULL_CASE=k runs case k only; TEST_NULL_TRACE=1 names each case on
 * stderr before calling it (to find a case that crashes).
 */
#include "util.h"

static int ncases, nfailed;

static void check(int k, const char *fn, const char *arg, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0, cls = tu_class(rc);
    msg[0] = '\0';
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, msg, &len);
    if (cls != MPI_ERR_ARG) {
        fprintf(stderr, "null_args: rank %d: FAIL: case %d: %s with %s NULL: %s, expected "
                "class MPI_ERR_ARG (%d)\n", tu_rank, k, fn, arg,
                rc == MPI_SUCCESS ? "succeeded" : tu_errstr(rc), MPI_ERR_ARG);
        nfailed++;
    } else if (!strstr(msg, fn) || !strstr(msg + strlen(fn), arg)) {
        fprintf(stderr, "null_args: rank %d: FAIL: case %d: %s with %s NULL: the message "
                "\"%s\" does not name the function and the argument\n", tu_rank, k, fn, arg,
                msg);
        nfailed++;
    }
}

static int trace;

#define CASE(fn, arg, call)                                                          \
    do {                                                                             \
        if (want < 0 || want == k) {                                                 \
            if (trace)                                                               \
                fprintf(stderr, "null_args: rank %d: case %d: %s(%s NULL)\n", tu_rank, k, \
                        fn, arg);                                                    \
            check(k, fn, arg, (call));                                               \
            ncases++;                                                                \
        }                                                                            \
        k++;                                                                         \
    } while (0)

/* ---- the objects the calls need ---- */

static MPI_Comm world, cart, graph, dgraph, inter; /* inter: MPI_COMM_NULL with 1 rank */
static MPI_Group group;
static MPI_Info info;
static MPI_Datatype vec; /* an hvector: envelope and contents of 2 ints, 1 address, 1 type */
static MPI_Status status;
static int ckey, tkey;

static int noop_copy(MPI_Comm c, int k, void *e, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)e, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

static void noop_errh(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
}

static void noop_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in, (void)inout, (void)len, (void)t;
}

static int greq_query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

static void make_objects(void)
{
    world = MPI_COMM_WORLD;
    TU_CHECK(MPI_Comm_group(world, &group));
    TU_CHECK(MPI_Info_create(&info));
    TU_CHECK(MPI_Info_set(info, "key", "value"));
    TU_CHECK(MPI_Type_create_hvector(2, 1, 8, MPI_INT, &vec));
    TU_CHECK(MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, world, &status));
    TU_CHECK(MPI_Comm_create_keyval(noop_copy, MPI_COMM_NULL_DELETE_FN, &ckey, NULL));
    TU_CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tkey,
                                    NULL));
    int dims[1] = {tu_size}, periods[1] = {0};
    TU_CHECK(MPI_Cart_create(world, 1, dims, periods, 0, &cart));
    int *index = tu_malloc((size_t)tu_size * sizeof(int));
    int *edges = tu_malloc((size_t)tu_size * sizeof(int));
    for (int i = 0; i < tu_size; i++) {
        index[i] = i + 1; /* every node points at node 0 */
        edges[i] = 0;
    }
    TU_CHECK(MPI_Graph_create(world, tu_size, index, edges, 0, &graph));
    free(index);
    free(edges);
    int self = tu_rank;
    TU_CHECK(MPI_Dist_graph_create_adjacent(world, 1, &self, MPI_UNWEIGHTED, 1, &self,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dgraph));
    inter = MPI_COMM_NULL;
    if (tu_size >= 2) {
        MPI_Comm local;
        TU_CHECK(MPI_Comm_split(world, tu_rank % 2, tu_rank, &local));
        TU_CHECK(MPI_Intercomm_create(local, 0, world, 1 - tu_rank % 2, 77, &inter));
        TU_CHECK(MPI_Comm_free(&local));
    }
}

static void free_objects(void)
{
    TU_CHECK(MPI_Group_free(&group));
    TU_CHECK(MPI_Info_free(&info));
    TU_CHECK(MPI_Type_free(&vec));
    TU_CHECK(MPI_Comm_free_keyval(&ckey));
    TU_CHECK(MPI_Type_free_keyval(&tkey));
    TU_CHECK(MPI_Comm_free(&cart));
    TU_CHECK(MPI_Comm_free(&graph));
    TU_CHECK(MPI_Comm_free(&dgraph));
    if (inter != MPI_COMM_NULL)
        TU_CHECK(MPI_Comm_free(&inter));
}

/* ---- the cases ---- */

static void run(int want)
{
    int k = 0;
    int i1 = 0, i2 = 0, ia[4] = {0}, r0[1] = {0}, one[1] = {1}, zero[1] = {0};
    int range[1][3] = {{0, 0, 1}};
    char buf[MPI_MAX_ERROR_STRING];
    MPI_Aint a1, a2, aa[2];
    MPI_Count c1, c2;
    MPI_Datatype ta[2], types2[2] = {MPI_INT, MPI_INT};
    MPI_Comm c;
    MPI_Group g;
    MPI_Request rq, reqs[1] = {MPI_REQUEST_NULL};
    MPI_Message msg;
    MPI_Fint fst[MPI_F_STATUS_SIZE];
    MPI_Status st;
    void *vp;
    int x[8] = {0};

    /* environment and errors */
    CASE("MPI_Initialized", "flag", MPI_Initialized(NULL));
    CASE("MPI_Finalized", "flag", MPI_Finalized(NULL));
    CASE("MPI_Query_thread", "provided", MPI_Query_thread(NULL));
    CASE("MPI_Is_thread_main", "flag", MPI_Is_thread_main(NULL));
    CASE("MPI_Get_processor_name", "name", MPI_Get_processor_name(NULL, &i1));
    CASE("MPI_Get_processor_name", "resultlen", MPI_Get_processor_name(buf, NULL));
    CASE("MPI_Get_version", "version", MPI_Get_version(NULL, &i1));
    CASE("MPI_Get_version", "subversion", MPI_Get_version(&i1, NULL));
    CASE("MPI_Get_library_version", "version", MPI_Get_library_version(NULL, &i1));
    CASE("MPI_Get_library_version", "resultlen", MPI_Get_library_version(buf, NULL));
    CASE("MPI_Error_string", "string", MPI_Error_string(MPI_ERR_ARG, NULL, &i1));
    CASE("MPI_Error_string", "resultlen", MPI_Error_string(MPI_ERR_ARG, buf, NULL));
    CASE("MPI_Error_class", "errorclass", MPI_Error_class(MPI_ERR_ARG, NULL));
    CASE("MPI_Add_error_class", "errorclass", MPI_Add_error_class(NULL));
    CASE("MPI_Add_error_code", "errorcode", MPI_Add_error_code(MPI_ERR_ARG, NULL));
    CASE("MPI_Comm_get_errhandler", "errhandler", MPI_Comm_get_errhandler(world, NULL));
    CASE("MPI_Comm_create_errhandler", "errhandler", MPI_Comm_create_errhandler(noop_errh, NULL));
    CASE("MPI_Errhandler_free", "errhandler", MPI_Errhandler_free(NULL));
    CASE("MPI_Alloc_mem", "baseptr", MPI_Alloc_mem(16, MPI_INFO_NULL, NULL));
    CASE("MPI_Buffer_detach", "buffer_addr", MPI_Buffer_detach(NULL, &i1));
    CASE("MPI_Buffer_detach", "size", MPI_Buffer_detach(&vp, NULL));

    /* point-to-point and completion */
    CASE("MPI_Isend", "request", MPI_Isend(x, 1, MPI_INT, MPI_PROC_NULL, 0, world, NULL));
    CASE("MPI_Issend", "request", MPI_Issend(x, 1, MPI_INT, MPI_PROC_NULL, 0, world, NULL));
    CASE("MPI_Irsend", "request", MPI_Irsend(x, 1, MPI_INT, MPI_PROC_NULL, 0, world, NULL));
    CASE("MPI_Ibsend", "request", MPI_Ibsend(x, 1, MPI_INT, MPI_PROC_NULL, 0, world, NULL));
    CASE("MPI_Irecv", "request", MPI_Irecv(x, 1, MPI_INT, MPI_PROC_NULL, 0, world, NULL));
    CASE("MPI_Send_init", "request", MPI_Send_init(x, 1, MPI_INT, MPI_PROC_NULL, 0, world, NULL));
    CASE("MPI_Ssend_init", "request", MPI_Ssend_init(x, 1, MPI_INT, MPI_PROC_NULL, 0, world, NULL));
    CASE("MPI_Rsend_init", "request", MPI_Rsend_init(x, 1, MPI_INT, MPI_PROC_NULL, 0, world, NULL));
    CASE("MPI_Bsend_init", "request", MPI_Bsend_init(x, 1, MPI_INT, MPI_PROC_NULL, 0, world, NULL));
    CASE("MPI_Recv_init", "request", MPI_Recv_init(x, 1, MPI_INT, MPI_PROC_NULL, 0, world, NULL));
    CASE("MPI_Start", "request", MPI_Start(NULL));
    CASE("MPI_Startall", "array_of_requests", MPI_Startall(1, NULL));
    CASE("MPI_Wait", "request", MPI_Wait(NULL, &st));
    CASE("MPI_Waitall", "array_of_requests", MPI_Waitall(1, NULL, &st));
    CASE("MPI_Waitany", "array_of_requests", MPI_Waitany(1, NULL, &i1, &st));
    CASE("MPI_Waitany", "index", MPI_Waitany(1, reqs, NULL, &st));
    CASE("MPI_Waitsome", "array_of_requests", MPI_Waitsome(1, NULL, &i1, ia, &st));
    CASE("MPI_Waitsome", "outcount", MPI_Waitsome(1, reqs, NULL, ia, &st));
    CASE("MPI_Waitsome", "array_of_indices", MPI_Waitsome(1, reqs, &i1, NULL, &st));
    CASE("MPI_Test", "request", MPI_Test(NULL, &i1, &st));
    CASE("MPI_Test", "flag", MPI_Test(reqs, NULL, &st));
    CASE("MPI_Testall", "array_of_requests", MPI_Testall(1, NULL, &i1, &st));
    CASE("MPI_Testall", "flag", MPI_Testall(1, reqs, NULL, &st));
    CASE("MPI_Testany", "array_of_requests", MPI_Testany(1, NULL, &i1, &i2, &st));
    CASE("MPI_Testany", "index", MPI_Testany(1, reqs, NULL, &i2, &st));
    CASE("MPI_Testany", "flag", MPI_Testany(1, reqs, &i1, NULL, &st));
    CASE("MPI_Testsome", "array_of_requests", MPI_Testsome(1, NULL, &i1, ia, &st));
    CASE("MPI_Testsome", "outcount", MPI_Testsome(1, reqs, NULL, ia, &st));
    CASE("MPI_Testsome", "array_of_indices", MPI_Testsome(1, reqs, &i1, NULL, &st));
    CASE("MPI_Request_get_status", "flag", MPI_Request_get_status(MPI_REQUEST_NULL, NULL, &st));
    CASE("MPI_Request_free", "request", MPI_Request_free(NULL));
    CASE("MPI_Cancel", "request", MPI_Cancel(NULL));
    CASE("MPI_Test_cancelled", "status", MPI_Test_cancelled(NULL, &i1));
    CASE("MPI_Test_cancelled", "flag", MPI_Test_cancelled(&status, NULL));
    CASE("MPI_Get_count", "status", MPI_Get_count(NULL, MPI_INT, &i1));
    CASE("MPI_Get_count", "count", MPI_Get_count(&status, MPI_INT, NULL));
    CASE("MPI_Get_elements", "status", MPI_Get_elements(NULL, MPI_INT, &i1));
    CASE("MPI_Get_elements", "count", MPI_Get_elements(&status, MPI_INT, NULL));
    CASE("MPI_Get_elements_x", "status", MPI_Get_elements_x(NULL, MPI_INT, &c1));
    CASE("MPI_Get_elements_x", "count", MPI_Get_elements_x(&status, MPI_INT, NULL));
    CASE("MPI_Status_c2f", "c_status", MPI_Status_c2f(NULL, fst));
    CASE("MPI_Status_c2f", "f_status", MPI_Status_c2f(&status, NULL));
    CASE("MPI_Status_f2c", "f_status", MPI_Status_f2c(NULL, &st));
    CASE("MPI_Status_f2c", "c_status", MPI_Status_f2c(fst, NULL));
    CASE("MPI_Status_set_elements", "status", MPI_Status_set_elements(NULL, MPI_INT, 1));
    CASE("MPI_Status_set_elements_x", "status", MPI_Status_set_elements_x(NULL, MPI_INT, 1));
    CASE("MPI_Status_set_cancelled", "status", MPI_Status_set_cancelled(NULL, 1));
    CASE("MPI_Grequest_start", "request",
         MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, NULL));
    CASE("MPI_Iprobe", "flag", MPI_Iprobe(MPI_PROC_NULL, 0, world, NULL, &st));
    CASE("MPI_Mprobe", "message", MPI_Mprobe(MPI_PROC_NULL, 0, world, NULL, &st));
    CASE("MPI_Improbe", "flag", MPI_Improbe(MPI_PROC_NULL, 0, world, NULL, &msg, &st));
    CASE("MPI_Improbe", "message", MPI_Improbe(MPI_PROC_NULL, 0, world, &i1, NULL, &st));
    CASE("MPI_Mrecv", "message", MPI_Mrecv(x, 1, MPI_INT, NULL, &st));
    CASE("MPI_Imrecv", "message", MPI_Imrecv(x, 1, MPI_INT, NULL, &rq));
    msg = MPI_MESSAGE_NO_PROC;
    CASE("MPI_Imrecv", "request", MPI_Imrecv(x, 1, MPI_INT, &msg, NULL));

    /* datatypes */
    CASE("MPI_Type_size", "size", MPI_Type_size(MPI_INT, NULL));
    CASE("MPI_Type_size_x", "size", MPI_Type_size_x(MPI_INT, NULL));
    CASE("MPI_Type_get_extent", "lb", MPI_Type_get_extent(MPI_INT, NULL, &a2));
    CASE("MPI_Type_get_extent", "extent", MPI_Type_get_extent(MPI_INT, &a1, NULL));
    CASE("MPI_Type_get_extent_x", "lb", MPI_Type_get_extent_x(MPI_INT, NULL, &c2));
    CASE("MPI_Type_get_extent_x", "extent", MPI_Type_get_extent_x(MPI_INT, &c1, NULL));
    CASE("MPI_Type_get_true_extent", "true_lb", MPI_Type_get_true_extent(MPI_INT, NULL, &a2));
    CASE("MPI_Type_get_true_extent", "true_extent", MPI_Type_get_true_extent(MPI_INT, &a1, NULL));
    CASE("MPI_Type_get_true_extent_x", "true_lb", MPI_Type_get_true_extent_x(MPI_INT, NULL, &c2));
    CASE("MPI_Type_get_true_extent_x", "true_extent",
         MPI_Type_get_true_extent_x(MPI_INT, &c1, NULL));
    CASE("MPI_Type_contiguous", "newtype", MPI_Type_contiguous(2, MPI_INT, NULL));
    CASE("MPI_Type_vector", "newtype", MPI_Type_vector(2, 1, 2, MPI_INT, NULL));
    CASE("MPI_Type_create_hvector", "newtype", MPI_Type_create_hvector(2, 1, 8, MPI_INT, NULL));
    CASE("MPI_Type_indexed", "newtype", MPI_Type_indexed(1, one, zero, MPI_INT, NULL));
    aa[0] = 0;
    aa[1] = 8;
    CASE("MPI_Type_create_hindexed", "newtype",
         MPI_Type_create_hindexed(1, one, aa, MPI_INT, NULL));
    CASE("MPI_Type_create_indexed_block", "newtype",
         MPI_Type_create_indexed_block(1, 1, zero, MPI_INT, NULL));
    CASE("MPI_Type_create_hindexed_block", "newtype",
         MPI_Type_create_hindexed_block(1, 1, aa, MPI_INT, NULL));
    CASE("MPI_Type_create_struct", "newtype",
         MPI_Type_create_struct(1, one, aa, types2, NULL));
    int sizes[1] = {4}, subsizes[1] = {2}, starts[1] = {0};
    CASE("MPI_Type_create_subarray", "newtype",
         MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, NULL));
    int gsizes[1] = {4}, distribs[1] = {MPI_DISTRIBUTE_BLOCK};
    int dargs[1] = {MPI_DISTRIBUTE_DFLT_DARG}, psizes[1] = {1};
    CASE("MPI_Type_create_darray", "newtype",
         MPI_Type_create_darray(1, 0, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT,
                                NULL));
    CASE("MPI_Type_create_resized", "newtype", MPI_Type_create_resized(MPI_INT, 0, 8, NULL));
    CASE("MPI_Type_dup", "newtype", MPI_Type_dup(MPI_INT, NULL));
    CASE("MPI_Type_commit", "datatype", MPI_Type_commit(NULL));
    CASE("MPI_Type_free", "datatype", MPI_Type_free(NULL));
    CASE("MPI_Type_get_envelope", "num_integers",
         MPI_Type_get_envelope(vec, NULL, &i1, &i2, &ia[0]));
    CASE("MPI_Type_get_envelope", "num_addresses",
         MPI_Type_get_envelope(vec, &i1, NULL, &i2, &ia[0]));
    CASE("MPI_Type_get_envelope", "num_datatypes",
         MPI_Type_get_envelope(vec, &i1, &i2, NULL, &ia[0]));
    CASE("MPI_Type_get_envelope", "combiner", MPI_Type_get_envelope(vec, &i1, &i2, &ia[0], NULL));
    CASE("MPI_Type_get_contents", "array_of_integers",
         MPI_Type_get_contents(vec, 2, 1, 1, NULL, aa, ta));
    CASE("MPI_Type_get_contents", "array_of_datatypes",
         MPI_Type_get_contents(vec, 2, 1, 1, ia, aa, NULL));
    CASE("MPI_Type_get_contents", "array_of_addresses",
         MPI_Type_get_contents(vec, 2, 1, 1, ia, NULL, ta));
    CASE("MPI_Type_get_name", "type_name", MPI_Type_get_name(MPI_INT, NULL, &i1));
    CASE("MPI_Type_get_name", "resultlen", MPI_Type_get_name(MPI_INT, buf, NULL));
    CASE("MPI_Type_match_size", "datatype", MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, NULL));
    CASE("MPI_Pack", "position", MPI_Pack(x, 1, MPI_INT, buf, 64, NULL, world));
    CASE("MPI_Unpack", "position", MPI_Unpack(buf, 64, NULL, x, 1, MPI_INT, world));
    CASE("MPI_Pack_size", "size", MPI_Pack_size(1, MPI_INT, world, NULL));
    CASE("MPI_Get_address", "address", MPI_Get_address(x, NULL));
    CASE("MPI_Type_create_keyval", "type_keyval",
         MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL));
    CASE("MPI_Type_free_keyval", "type_keyval", MPI_Type_free_keyval(NULL));
    CASE("MPI_Type_get_attr", "attribute_val", MPI_Type_get_attr(MPI_INT, tkey, NULL, &i1));
    CASE("MPI_Type_get_attr", "flag", MPI_Type_get_attr(MPI_INT, tkey, &vp, NULL));

    /* reductions and info */
    CASE("MPI_Op_create", "op", MPI_Op_create(noop_op, 1, NULL));
    CASE("MPI_Op_free", "op", MPI_Op_free(NULL));
    CASE("MPI_Op_commutative", "commute", MPI_Op_commutative(MPI_SUM, NULL));
    CASE("MPI_Info_create", "info", MPI_Info_create(NULL));
    CASE("MPI_Info_create_env", "info", MPI_Info_create_env(0, NULL, NULL));
    CASE("MPI_Info_get", "value", MPI_Info_get(info, "key", 10, NULL, &i1));
    CASE("MPI_Info_get", "flag", MPI_Info_get(info, "key", 10, buf, NULL));
    CASE("MPI_Info_get_valuelen", "valuelen", MPI_Info_get_valuelen(info, "key", NULL, &i1));
    CASE("MPI_Info_get_valuelen", "flag", MPI_Info_get_valuelen(info, "key", &i1, NULL));
    CASE("MPI_Info_get_string", "buflen", MPI_Info_get_string(info, "key", NULL, buf, &i1));
    i2 = 10;
    CASE("MPI_Info_get_string", "flag", MPI_Info_get_string(info, "key", &i2, buf, NULL));
    CASE("MPI_Info_get_nkeys", "nkeys", MPI_Info_get_nkeys(info, NULL));
    CASE("MPI_Info_get_nthkey", "key", MPI_Info_get_nthkey(info, 0, NULL));
    CASE("MPI_Info_dup", "newinfo", MPI_Info_dup(info, NULL));
    CASE("MPI_Info_free", "info", MPI_Info_free(NULL));

    /* communicators */
    CASE("MPI_Comm_size", "size", MPI_Comm_size(world, NULL));
    CASE("MPI_Comm_rank", "rank", MPI_Comm_rank(world, NULL));
    CASE("MPI_Comm_test_inter", "flag", MPI_Comm_test_inter(world, NULL));
    CASE("MPI_Comm_compare", "result", MPI_Comm_compare(world, world, NULL));
    CASE("MPI_Comm_group", "group", MPI_Comm_group(world, NULL));
    CASE("MPI_Comm_get_name", "comm_name", MPI_Comm_get_name(world, NULL, &i1));
    CASE("MPI_Comm_get_name", "resultlen", MPI_Comm_get_name(world, buf, NULL));
    CASE("MPI_Comm_get_info", "info_used", MPI_Comm_get_info(world, NULL));
    CASE("MPI_Comm_dup", "newcomm", MPI_Comm_dup(world, NULL));
    CASE("MPI_Comm_dup_with_info", "newcomm", MPI_Comm_dup_with_info(world, info, NULL));
    CASE("MPI_Comm_idup", "newcomm", MPI_Comm_idup(world, NULL, &rq));
    CASE("MPI_Comm_idup", "request", MPI_Comm_idup(world, &c, NULL));
    CASE("MPI_Comm_idup_with_info", "newcomm", MPI_Comm_idup_with_info(world, info, NULL, &rq));
    CASE("MPI_Comm_idup_with_info", "request", MPI_Comm_idup_with_info(world, info, &c, NULL));
    CASE("MPI_Comm_split", "newcomm", MPI_Comm_split(world, 0, 0, NULL));
    CASE("MPI_Comm_split_type", "newcomm",
         MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, NULL));
    CASE("MPI_Comm_create", "newcomm", MPI_Comm_create(world, group, NULL));
    CASE("MPI_Comm_create_group", "newcomm", MPI_Comm_create_group(world, group, 5, NULL));
    CASE("MPI_Comm_free", "comm", MPI_Comm_free(NULL));
    CASE("MPI_Comm_create_keyval", "comm_keyval",
         MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL));
    CASE("MPI_Comm_free_keyval", "comm_keyval", MPI_Comm_free_keyval(NULL));
    CASE("MPI_Comm_get_attr", "attribute_val", MPI_Comm_get_attr(world, ckey, NULL, &i1));
    CASE("MPI_Comm_get_attr", "flag", MPI_Comm_get_attr(world, ckey, &vp, NULL));
    CASE("MPI_Keyval_create", "keyval",
         MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, NULL, NULL));
    CASE("MPI_Keyval_free", "keyval", MPI_Keyval_free(NULL));
    CASE("MPI_Attr_get", "attribute_val", MPI_Attr_get(world, ckey, NULL, &i1));
    CASE("MPI_Attr_get", "flag", MPI_Attr_get(world, ckey, &vp, NULL));
    CASE("MPI_Win_create_keyval", "win_keyval",
         MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, NULL, NULL));
    CASE("MPI_Win_free_keyval", "win_keyval", MPI_Win_free_keyval(NULL));
    CASE("MPI_Win_create", "win", MPI_Win_create(x, 8, 1, MPI_INFO_NULL, world, NULL));
    CASE("MPI_Win_allocate", "win", MPI_Win_allocate(8, 1, MPI_INFO_NULL, world, &vp, NULL));
    CASE("MPI_Win_create_dynamic", "win", MPI_Win_create_dynamic(MPI_INFO_NULL, world, NULL));
    CASE("MPI_Win_free", "win", MPI_Win_free(NULL));

    /* groups */
    CASE("MPI_Group_size", "size", MPI_Group_size(group, NULL));
    CASE("MPI_Group_rank", "rank", MPI_Group_rank(group, NULL));
    CASE("MPI_Group_translate_ranks", "ranks2",
         MPI_Group_translate_ranks(group, 1, r0, group, NULL));
    CASE("MPI_Group_compare", "result", MPI_Group_compare(group, group, NULL));
    CASE("MPI_Group_union", "newgroup", MPI_Group_union(group, group, NULL));
    CASE("MPI_Group_intersection", "newgroup", MPI_Group_intersection(group, group, NULL));
    CASE("MPI_Group_difference", "newgroup", MPI_Group_difference(group, group, NULL));
    CASE("MPI_Group_incl", "newgroup", MPI_Group_incl(group, 1, r0, NULL));
    CASE("MPI_Group_excl", "newgroup", MPI_Group_excl(group, 1, r0, NULL));
    CASE("MPI_Group_range_incl", "ranges", MPI_Group_range_incl(group, 1, NULL, &g));
    CASE("MPI_Group_range_incl", "newgroup", MPI_Group_range_incl(group, 1, range, NULL));
    CASE("MPI_Group_range_excl", "ranges", MPI_Group_range_excl(group, 1, NULL, &g));
    CASE("MPI_Group_range_excl", "newgroup", MPI_Group_range_excl(group, 1, range, NULL));
    CASE("MPI_Group_free", "group", MPI_Group_free(NULL));

    /* topologies */
    int dims[1] = {tu_size}, periods[1] = {0}, remain[1] = {1};
    CASE("MPI_Cart_create", "comm_cart", MPI_Cart_create(world, 1, dims, periods, 0, NULL));
    CASE("MPI_Cart_map", "newrank", MPI_Cart_map(world, 1, dims, periods, NULL));
    CASE("MPI_Cart_coords", "coords", MPI_Cart_coords(cart, 0, 1, NULL));
    CASE("MPI_Cart_rank", "rank", MPI_Cart_rank(cart, zero, NULL));
    CASE("MPI_Cart_shift", "rank_source", MPI_Cart_shift(cart, 0, 1, NULL, &i2));
    CASE("MPI_Cart_shift", "rank_dest", MPI_Cart_shift(cart, 0, 1, &i1, NULL));
    CASE("MPI_Cart_sub", "newcomm", MPI_Cart_sub(cart, remain, NULL));
    CASE("MPI_Cart_get", "dims", MPI_Cart_get(cart, 1, NULL, &i1, &i2));
    CASE("MPI_Cart_get", "periods", MPI_Cart_get(cart, 1, &i1, NULL, &i2));
    CASE("MPI_Cart_get", "coords", MPI_Cart_get(cart, 1, &i1, &i2, NULL));
    CASE("MPI_Cartdim_get", "ndims", MPI_Cartdim_get(cart, NULL));
    CASE("MPI_Dims_create", "dims", MPI_Dims_create(4, 2, NULL));
    CASE("MPI_Topo_test", "status", MPI_Topo_test(cart, NULL));
    int gindex[1] = {0}, gedges[1] = {0};
    CASE("MPI_Graph_create", "comm_graph", MPI_Graph_create(world, 1, gindex, gedges, 0, NULL));
    CASE("MPI_Graph_map", "newrank", MPI_Graph_map(world, 1, gindex, gedges, NULL));
    CASE("MPI_Graphdims_get", "nnodes", MPI_Graphdims_get(graph, NULL, &i2));
    CASE("MPI_Graphdims_get", "nedges", MPI_Graphdims_get(graph, &i1, NULL));
    CASE("MPI_Graph_get", "index", MPI_Graph_get(graph, 1, 1, NULL, ia));
    CASE("MPI_Graph_get", "edges", MPI_Graph_get(graph, 1, 1, ia, NULL));
    CASE("MPI_Graph_neighbors_count", "nneighbors", MPI_Graph_neighbors_count(graph, 0, NULL));
    CASE("MPI_Graph_neighbors", "neighbors", MPI_Graph_neighbors(graph, 0, 1, NULL));
    int self[1] = {tu_rank};
    CASE("MPI_Dist_graph_create_adjacent", "comm_dist_graph",
         MPI_Dist_graph_create_adjacent(world, 1, self, MPI_UNWEIGHTED, 1, self, MPI_UNWEIGHTED,
                                        MPI_INFO_NULL, 0, NULL));
    CASE("MPI_Dist_graph_create", "comm_dist_graph",
         MPI_Dist_graph_create(world, 1, self, one, self, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                               NULL));
    CASE("MPI_Dist_graph_neighbors_count", "indegree",
         MPI_Dist_graph_neighbors_count(dgraph, NULL, &i1, &i2));
    CASE("MPI_Dist_graph_neighbors_count", "outdegree",
         MPI_Dist_graph_neighbors_count(dgraph, &i1, NULL, &i2));
    CASE("MPI_Dist_graph_neighbors_count", "weighted",
         MPI_Dist_graph_neighbors_count(dgraph, &i1, &i2, NULL));
    CASE("MPI_Dist_graph_neighbors", "sources",
         MPI_Dist_graph_neighbors(dgraph, 1, NULL, MPI_UNWEIGHTED, 1, ia, MPI_UNWEIGHTED));
    CASE("MPI_Dist_graph_neighbors", "destinations",
         MPI_Dist_graph_neighbors(dgraph, 1, ia, MPI_UNWEIGHTED, 1, NULL, MPI_UNWEIGHTED));

    /* intercommunicators */
    if (tu_size == 2) {
        CASE("MPI_Intercomm_create", "newintercomm",
             MPI_Intercomm_create(MPI_COMM_SELF, 0, world, 1 - tu_rank, 78, NULL));
        CASE("MPI_Intercomm_merge", "newintracomm", MPI_Intercomm_merge(inter, 0, NULL));
        CASE("MPI_Comm_remote_size", "size", MPI_Comm_remote_size(inter, NULL));
        CASE("MPI_Comm_remote_group", "group", MPI_Comm_remote_group(inter, NULL));
    }

    /* dynamic connections (the checks come before any connection is tried) */
    CASE("MPI_Open_port", "port_name", MPI_Open_port(MPI_INFO_NULL, NULL));
    CASE("MPI_Comm_accept", "newcomm",
         MPI_Comm_accept("x", MPI_INFO_NULL, 0, MPI_COMM_SELF, NULL));
    CASE("MPI_Comm_connect", "newcomm",
         MPI_Comm_connect("x", MPI_INFO_NULL, 0, MPI_COMM_SELF, NULL));
    CASE("MPI_Comm_disconnect", "comm", MPI_Comm_disconnect(NULL));
    CASE("MPI_Comm_join", "intercomm", MPI_Comm_join(0, NULL));
    CASE("MPI_Lookup_name", "port_name", MPI_Lookup_name("s", MPI_INFO_NULL, NULL));

    /* nonblocking collectives */
    int *counts = tu_malloc((size_t)tu_size * sizeof(int));
    int *displs = tu_malloc((size_t)tu_size * sizeof(int));
    MPI_Datatype *types = tu_malloc((size_t)tu_size * sizeof(MPI_Datatype));
    int *big = tu_malloc((size_t)tu_size * sizeof(int) * 2);
    for (int i = 0; i < tu_size; i++) {
        counts[i] = 1;
        displs[i] = i;
        types[i] = MPI_INT;
    }
    CASE("MPI_Ibarrier", "request", MPI_Ibarrier(world, NULL));
    CASE("MPI_Ibcast", "request", MPI_Ibcast(x, 1, MPI_INT, 0, world, NULL));
    CASE("MPI_Igather", "request", MPI_Igather(x, 1, MPI_INT, big, 1, MPI_INT, 0, world, NULL));
    CASE("MPI_Igatherv", "request",
         MPI_Igatherv(x, 1, MPI_INT, big, counts, displs, MPI_INT, 0, world, NULL));
    CASE("MPI_Iscatter", "request", MPI_Iscatter(big, 1, MPI_INT, x, 1, MPI_INT, 0, world, NULL));
    CASE("MPI_Iscatterv", "request",
         MPI_Iscatterv(big, counts, displs, MPI_INT, x, 1, MPI_INT, 0, world, NULL));
    CASE("MPI_Iallgather", "request", MPI_Iallgather(x, 1, MPI_INT, big, 1, MPI_INT, world, NULL));
    CASE("MPI_Iallgatherv", "request",
         MPI_Iallgatherv(x, 1, MPI_INT, big, counts, displs, MPI_INT, world, NULL));
    CASE("MPI_Ialltoall", "request", MPI_Ialltoall(big, 1, MPI_INT, big + tu_size, 1, MPI_INT,
                                                   world, NULL));
    CASE("MPI_Ialltoallv", "request", MPI_Ialltoallv(big, counts, displs, MPI_INT, big + tu_size,
                                                     counts, displs, MPI_INT, world, NULL));
    for (int i = 0; i < tu_size; i++)
        displs[i] = i * (int)sizeof(int);
    CASE("MPI_Ialltoallw", "request", MPI_Ialltoallw(big, counts, displs, types, big + tu_size,
                                                     counts, displs, types, world, NULL));
    CASE("MPI_Ireduce", "request", MPI_Ireduce(x, x + 1, 1, MPI_INT, MPI_SUM, 0, world, NULL));
    CASE("MPI_Iallreduce", "request", MPI_Iallreduce(x, x + 1, 1, MPI_INT, MPI_SUM, world, NULL));
    CASE("MPI_Ireduce_scatter", "request",
         MPI_Ireduce_scatter(big, x, counts, MPI_INT, MPI_SUM, world, NULL));
    CASE("MPI_Ireduce_scatter_block", "request",
         MPI_Ireduce_scatter_block(big, x, 1, MPI_INT, MPI_SUM, world, NULL));
    CASE("MPI_Iscan", "request", MPI_Iscan(x, x + 1, 1, MPI_INT, MPI_SUM, world, NULL));
    CASE("MPI_Iexscan", "request", MPI_Iexscan(x, x + 1, 1, MPI_INT, MPI_SUM, world, NULL));
    free(counts);
    free(displs);
    free(types);
    free(big);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "null_args");
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TU_CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    trace = tu_env_int("TEST_NULL_TRACE", 0);
    make_objects();
    run(tu_env_int("TEST_NULL_CASE", -1));
    /* still usable: a collective and point-to-point after all of that */
    int v = tu_rank, sum = -1;
    TU_CHECK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TU_ASSERT(sum == tu_size * (tu_size - 1) / 2, "Allreduce after the cases gave %d", sum);
    free_objects();
    if (nfailed)
        tu_fail("%d of %d calls with a NULL output argument did not return MPI_ERR_ARG naming "
                "the function and the argument (listed above)", nfailed, ncases);
    if (tu_rank == 0)
        printf("null_args: %d calls with a NULL pointer argument\n", ncases);
    tu_finish();
    return 0;
}
