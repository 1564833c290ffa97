/*
 * Reductions on intercommunicators (MPI-3.1 5.9.1, 5.9.6, 5.10): the result
 * at one group is the reduction of the other group's data.
 *
 *   reduce: the non-root group reduces to its rank 0 over its local
 *   communicator, which sends the result to the root;
 *   allreduce: each group reduces to its rank 0, the two leaders swap their
 *   results, each broadcasts what it got over its local communicator;
 *   reduce_scatter(_block): as allreduce, the leader scatters what it got
 *   over its local communicator. Both groups' vectors have the same length
 *   (the sum of the counts of the receiving group).
 */
#include <stdlib.h>

#include "collcheck.h"

static int check_red(const char *fn, MPI_Comm comm, const void *sendbuf, const void *recvbuf,
                     int count, MPI_Datatype type, MPI_Op op)
{
    if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
        return faro_inter_no_in_place(fn, comm);
    int rc = faro_coll_check_buf(fn, comm, count, type, "");
    return rc ? rc : faro_coll_check_op(fn, comm, op, type);
}

static int no_mem(const char *fn, MPI_Comm comm)
{
    return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
}

int faro_inter_reduce_args(const char *fn, const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, int *role)
{
    int rc;
    *role = faro_inter_role(fn, comm, root, &rc);
    if (*role < 0 || *role == FARO_INTER_IDLE)
        return rc;
    return check_red(fn, comm, *role == FARO_INTER_ROOT ? NULL : sendbuf,
                     *role == FARO_INTER_ROOT ? recvbuf : NULL, count, type, op);
}

int faro_inter_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                      MPI_Op op, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce";
    int role, rc = faro_inter_reduce_args(fn, sendbuf, recvbuf, count, type, op, root, comm,
                                          &role);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_inter_rooted(NULL, fn, comm, role, root, op, 0, count, type, NULL);
    if (rc || role == FARO_INTER_IDLE || (size_t)count * type->size == 0)
        return rc;
    if (role == FARO_INTER_ROOT)
        return faro_coll_recv(fn, recvbuf, count, type, 0, FARO_COLL_TAG_INTER_REDUCE, comm,
                              MPI_STATUS_IGNORE);
    struct faro_coll_tmp t = {0};
    void *tmp = comm->rank == 0 ? faro_coll_tmp_typed(&t, (size_t)count, type) : NULL;
    if (comm->rank == 0 && !tmp)
        return no_mem(fn, comm);
    rc = PMPI_Reduce(sendbuf, tmp, count, type, op, 0, comm->local);
    if (!rc && comm->rank == 0)
        rc = faro_coll_send(fn, tmp, count, type, root, FARO_COLL_TAG_INTER_REDUCE, comm);
    faro_coll_tmp_free(&t);
    return rc;
}

/* Each group's reduction of total elements to its leader, swapped between the
 * leaders: the other group's reduction lands in *got at the leader (recvbuf
 * when given, else a temporary in gt). */
static int reduce_swap(const char *fn, MPI_Comm comm, int tag, const void *sendbuf,
                       void *recvbuf, int total, MPI_Datatype type, MPI_Op op,
                       struct faro_coll_tmp *gt, void **got)
{
    struct faro_coll_tmp mt = {0};
    void *mine = NULL;
    *got = recvbuf;
    if (comm->rank == 0) {
        mine = faro_coll_tmp_typed(&mt, (size_t)total, type);
        if (!recvbuf && gt)
            *got = faro_coll_tmp_typed(gt, (size_t)total, type);
        if (!mine || !*got) {
            faro_coll_tmp_free(&mt);
            return no_mem(fn, comm);
        }
    }
    int rc = PMPI_Reduce(sendbuf, mine, total, type, op, 0, comm->local);
    if (!rc && comm->rank == 0)
        rc = faro_coll_sendrecv(fn, mine, total, type, 0, *got, total, type, 0, tag, comm,
                                MPI_STATUS_IGNORE);
    faro_coll_tmp_free(&mt);
    return rc;
}

int faro_inter_allreduce_args(const char *fn, const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int rc = check_red(fn, comm, sendbuf, recvbuf, count, type, op);
    if (!rc && sendbuf == recvbuf && (size_t)count * type->size > 0)
        rc = faro_coll_err_alias(fn, comm);
    return rc;
}

int faro_inter_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Allreduce";
    int rc = faro_inter_allreduce_args(fn, sendbuf, recvbuf, count, type, op, comm);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(NULL, fn, comm, -1, op, count, type, NULL);
    if (rc || (size_t)count * type->size == 0)
        return rc;
    void *got;
    rc = reduce_swap(fn, comm, FARO_COLL_TAG_INTER_ALLREDUCE, sendbuf, recvbuf, count, type, op,
                     NULL, &got);
    return rc ? rc : PMPI_Bcast(recvbuf, count, type, 0, comm->local);
}

int faro_inter_reduce_scatter_args(const char *fn, const void *sendbuf, void *recvbuf,
                                   int recvcount, const int recvcounts[], MPI_Datatype type,
                                   MPI_Op op, MPI_Comm comm, int *total)
{
    int n = comm->size, rc;
    if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
        return faro_inter_no_in_place(fn, comm);
    if (recvcounts)
        rc = faro_coll_check_counts(fn, comm, recvcounts, n, "recvcounts");
    else
        rc = faro_coll_check_count(fn, comm, recvcount, "recvcount");
    if (!rc)
        rc = faro_coll_check_type(fn, comm, type, "datatype");
    if (!rc)
        rc = faro_coll_check_op(fn, comm, op, type);
    if (rc)
        return rc;
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += recvcounts ? recvcounts[i] : recvcount;
    if (sum > 0x7fffffffL)
        return faro_err(comm, MPI_ERR_COUNT,
                        "%s: the counts add up to %ld elements, more than an int holds", fn, sum);
    *total = (int)sum;
    return MPI_SUCCESS;
}

/* recvcounts NULL: every rank gets recvcount (MPI_Reduce_scatter_block). */
int faro_inter_reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, int recvcount,
                              const int recvcounts[], MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm)
{
    int n = comm->size, total;
    int rc = faro_inter_reduce_scatter_args(fn, sendbuf, recvbuf, recvcount, recvcounts, type,
                                            op, comm, &total);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(NULL, fn, comm, -1, op, total, type, recvcounts);
    if (rc)
        return rc;
    int *displs = NULL;
    if (recvcounts) {
        displs = malloc(((size_t)n + 1) * sizeof(int));
        if (!displs)
            return no_mem(fn, comm);
        int at = 0;
        for (int i = 0; i < n; i++) {
            displs[i] = at;
            at += recvcounts[i];
        }
    }
    if (total > 0 && type->size > 0) {
        struct faro_coll_tmp gt = {0};
        void *got = NULL;
        rc = reduce_swap(fn, comm, FARO_COLL_TAG_INTER_REDUCE_SCATTER, sendbuf, NULL, total,
                         type, op, &gt, &got);
        if (!rc && recvcounts)
            rc = PMPI_Scatterv(got, recvcounts, displs, type, recvbuf, recvcounts[comm->rank],
                               type, 0, comm->local);
        else if (!rc)
            rc = PMPI_Scatter(got, recvcount, type, recvbuf, recvcount, type, 0, comm->local);
        faro_coll_tmp_free(&gt);
    }
    free(displs);
    return rc;
}
