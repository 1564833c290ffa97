/*
 * MPI_Bcast. Binomial tree for small and medium messages (log2 size rounds,
 * the root's children served first so the deepest subtree starts first);
 * for large ones the root scatters the message in size pieces down a binomial
 * tree and a ring allgather completes it everywhere (van de Geijn), so each
 * link carries about twice the message instead of log2 size times.
 */
#include <stdlib.h>

#include "bigcount/wide.h"
#include "collcheck.h"

int faro_coll_bcast_binomial(const struct faro_coll *c, void *buf, MPI_Count count, MPI_Datatype t,
                             int root)
{
    int size = c->size, vr = (c->rank - root + size) % size;
    int mask = 1, rc;
    while (mask < size) {
        if (vr & mask) {
            int parent = (vr - mask + root) % size;
            rc = faro_coll_recv(c->fn, buf, count, t, parent, c->tag, c->comm, MPI_STATUS_IGNORE);
            if (rc)
                return rc;
            break;
        }
        mask <<= 1;
    }
    MPI_Request reqs[32];
    int n = 0;
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask >= size)
            continue;
        int child = (vr + mask + root) % size;
        rc = faro_coll_isend(c->fn, buf, count, t, child, c->tag, c->comm, &reqs[n]);
        if (rc) {
            faro_coll_waitall(n, reqs);
            return rc;
        }
        n++;
    }
    return faro_coll_waitall(n, reqs);
}

/* Bytes [lo, hi) of the message held by relative ranks [a, b). */
static void piece(size_t bytes, size_t chunk, int a, int b, size_t *lo, size_t *hi)
{
    *lo = (size_t)a * chunk < bytes ? (size_t)a * chunk : bytes;
    *hi = (size_t)b * chunk < bytes ? (size_t)b * chunk : bytes;
}

/* On the packed bytes of the message. */
static int scatter_allgather_bytes(const struct faro_coll *c, char *data, size_t bytes, int root)
{
    int size = c->size, vr = (c->rank - root + size) % size, rc;
    size_t chunk = (bytes + (size_t)size - 1) / (size_t)size, lo, hi;

    /* binomial scatter: relative rank vr ends up with the pieces of its subtree */
    int mask = 1;
    while (mask < size) {
        if (vr & mask) {
            piece(bytes, chunk, vr, vr + mask, &lo, &hi);
            int parent = (vr - mask + root) % size;
            rc = faro_coll_recv(c->fn, data + lo, (MPI_Count)(hi - lo), MPI_BYTE, parent, c->tag,
                                c->comm, MPI_STATUS_IGNORE);
            if (rc)
                return rc;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask >= size)
            continue;
        piece(bytes, chunk, vr + mask, vr + 2 * mask, &lo, &hi);
        int child = (vr + mask + root) % size;
        rc = faro_coll_send(c->fn, data + lo, (MPI_Count)(hi - lo), MPI_BYTE, child, c->tag, c->comm);
        if (rc)
            return rc;
    }

    /* ring allgather of the pieces, in relative ranks */
    int right = (c->rank + 1) % size, left = (c->rank - 1 + size) % size;
    for (int i = 0; i < size - 1; i++) {
        int s = (vr - i + size) % size, r = (vr - i - 1 + size) % size;
        size_t slo, shi, rlo, rhi;
        piece(bytes, chunk, s, s + 1, &slo, &shi);
        piece(bytes, chunk, r, r + 1, &rlo, &rhi);
        rc = faro_coll_sendrecv(c->fn, data + slo, (MPI_Count)(shi - slo), MPI_BYTE, right, data + rlo,
                                (MPI_Count)(rhi - rlo), MPI_BYTE, left, c->tag, c->comm,
                                MPI_STATUS_IGNORE);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

int faro_coll_bcast_scatter_allgather(const struct faro_coll *c, void *buf, MPI_Count count,
                                      MPI_Datatype t, int root)
{
    size_t bytes = (size_t)count * t->size;
    if (t->dense)
        return scatter_allgather_bytes(c, faro_type_dense_at(buf, t), bytes, root);
    /* a rank whose type has holes works on a packed copy */
    char *packed = malloc(bytes);
    if (!packed)
        return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", c->fn, bytes);
    if (c->rank == root)
        faro_type_pack(buf, (size_t)count, t, packed);
    int rc = scatter_allgather_bytes(c, packed, bytes, root);
    if (!rc && c->rank != root)
        faro_type_unpack(packed, bytes, buf, t);
    free(packed);
    return rc;
}

/* MPI_Bcast and MPI_Bcast_c (bigcount/wide.h): counts are MPI_Count all the
 * way down to the point-to-point posts. */
int faro_wide_Bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int root,
                    MPI_Comm comm)
{
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_bcast(fn, buf, count, type, root, comm);
    if (!rc)
        rc = faro_coll_check_bcast(fn, comm, buf, count, type, root);
    if (!rc && FARO_COLL_CHECKING)
        rc = faro_cc_same(NULL, fn, comm, root, MPI_OP_NULL, count, type, NULL);
    if (rc)
        return rc;
    size_t bytes = (size_t)count * type->size;
    if (comm->size == 1 || bytes == 0)
        return MPI_SUCCESS;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_BCAST);
    int alg = faro_coll_select(comm, FARO_COLL_BCAST, bytes, 1, 1);
    return faro_coll_algs[alg].fn.bcast(&c, buf, count, type, root);
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    return faro_wide_Bcast("MPI_Bcast", buf, count, type, root, comm);
}
