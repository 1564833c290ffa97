/*
 * Helpers of the generated large-count entry points (narrow.h): range
 * checks and array copies for the calls that still run on int counts.
 */
#include <limits.h>
#include <stdlib.h>

#include "bigcount/narrow.h"

static MPI_Comm err_comm(MPI_Comm comm)
{
    return comm != MPI_COMM_NULL && faro_comm_check(comm) == 0 ? comm : MPI_COMM_NULL;
}

int faro_c_fits(const char *fn, MPI_Comm comm, const char *what, MPI_Count v)
{
    if (v >= INT_MIN && v <= INT_MAX)
        return MPI_SUCCESS;
    return faro_err(err_comm(comm), MPI_ERR_UNSUPPORTED_OPERATION,
                    "%s: %s is %lld, beyond INT_MAX: Faro runs this call on int counts and "
                    "cannot take it yet (docs/notes.md, Large counts, lists the calls that can)",
                    fn, what, (long long)v);
}

int faro_c_fold(const char *fn, MPI_Comm comm, const char *what, MPI_Op op, MPI_Count *count,
                MPI_Datatype *type, MPI_Datatype *made)
{
    if (*count >= INT_MIN && *count <= INT_MAX)
        return MPI_SUCCESS;
    if (!faro_op_check(op) && op->kind == FARO_OP_USER)
        return faro_err(err_comm(comm), MPI_ERR_UNSUPPORTED_OPERATION,
                        "%s: %s is %lld, beyond INT_MAX, with a user op: its function takes an "
                        "int length (MPI_Op_create_c is not built yet)", fn, what,
                        (long long)*count);
    if (*count < 0 || faro_type_check(*type) != 0)
        return faro_c_fits(fn, comm, what, *count);
    int rc = PMPI_Type_contiguous_c(*count, *type, made);
    if (!rc)
        rc = PMPI_Type_commit(made);
    if (rc)
        return rc;
    *type = *made;
    *count = 1;
    return MPI_SUCCESS;
}

void faro_c_unfold(MPI_Datatype *made)
{
    if (*made != MPI_DATATYPE_NULL)
        PMPI_Type_free(made);
}

static int no_mem(const char *fn, MPI_Comm comm, const char *what, MPI_Count n)
{
    return faro_err(err_comm(comm), MPI_ERR_NO_MEM, "%s: out of memory copying %s (%lld values)",
                    fn, what, (long long)n);
}

#define COPY_ARRAY(T, CHECK)                                                                 \
    do {                                                                                     \
        T *c = malloc(n > 0 ? (size_t)n * sizeof(T) : 1);                                    \
        if (!c)                                                                              \
            return no_mem(fn, comm, what, n);                                                \
        for (MPI_Count i = 0; i < n; i++) {                                                  \
            if (CHECK) {                                                                     \
                int rc = faro_c_fits(fn, comm, what, (MPI_Count)in[i]);                      \
                if (rc) {                                                                    \
                    free(c);                                                                 \
                    return rc;                                                               \
                }                                                                            \
            }                                                                                \
            c[i] = (T)in[i];                                                                 \
        }                                                                                    \
        *out = c;                                                                            \
        return MPI_SUCCESS;                                                                  \
    } while (0)

int faro_c_ints(const char *fn, MPI_Comm comm, const char *what, const MPI_Count *in,
                MPI_Count n, int **out)
{
    COPY_ARRAY(int, 1);
}

int faro_c_ints_of_aints(const char *fn, MPI_Comm comm, const char *what, const MPI_Aint *in,
                         MPI_Count n, int **out)
{
    COPY_ARRAY(int, 1);
}

int faro_c_aints(const char *fn, MPI_Comm comm, const char *what, const MPI_Count *in,
                 MPI_Count n, MPI_Aint **out)
{
    COPY_ARRAY(MPI_Aint, 0);
}

MPI_Count faro_c_len_comm_size(MPI_Comm comm)
{
    return faro_comm_check(comm) == 0 ? faro_comm_peer_size(comm) : 0;
}

/* in (out: 0) or out (1) degree of comm's topology; 0 without one */
static MPI_Count degree(MPI_Comm comm, int out)
{
    int kind = MPI_UNDEFINED, in_deg = 0, out_deg = 0, weighted, n = 0;
    if (faro_comm_check(comm) != 0 || PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return 0;
    if (kind == MPI_CART && PMPI_Cartdim_get(comm, &n) == MPI_SUCCESS)
        return 2 * (MPI_Count)n;
    if (kind == MPI_GRAPH && PMPI_Graph_neighbors_count(comm, comm->rank, &n) == MPI_SUCCESS)
        return n;
    if (kind == MPI_DIST_GRAPH &&
        PMPI_Dist_graph_neighbors_count(comm, &in_deg, &out_deg, &weighted) == MPI_SUCCESS)
        return out ? out_deg : in_deg;
    return 0;
}

MPI_Count faro_c_len_indegree(MPI_Comm comm)
{
    return degree(comm, 0);
}

MPI_Count faro_c_len_outdegree(MPI_Comm comm)
{
    return degree(comm, 1);
}
