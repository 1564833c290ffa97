/*
 * Helpers shared by the collective algorithms: temporaries laid out like
 * typed user buffers, local typed copies, waiting for a set of requests, and
 * the local reduction step.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "nbc_sched.h"

void *faro_coll_tmp_get(struct faro_coll_tmp *t, size_t bytes)
{
    t->heap = NULL;
    if (bytes <= sizeof t->stack.bytes)
        return t->stack.bytes;
    t->heap = malloc(bytes);
    return t->heap;
}

void faro_coll_tmp_free(struct faro_coll_tmp *t)
{
    free(t->heap);
    t->heap = NULL;
}

/* The data of element e lies in e*extent + [true_lb, true_lb + true_extent);
 * the extent may be negative, so both end elements are looked at. */
void faro_coll_span(size_t count, MPI_Datatype type, MPI_Aint *lo, MPI_Aint *hi)
{
    if (count == 0 || type->size == 0) {
        *lo = *hi = 0;
        return;
    }
    MPI_Aint last = (MPI_Aint)(count - 1) * type->extent;
    *lo = type->true_lb + (last < 0 ? last : 0);
    *hi = type->true_lb + type->true_extent + (last > 0 ? last : 0);
}

void *faro_coll_tmp_typed(struct faro_coll_tmp *t, size_t count, MPI_Datatype type)
{
    MPI_Aint lo, hi;
    faro_coll_span(count, type, &lo, &hi);
    char *mem = faro_coll_tmp_get(t, (size_t)(hi - lo) + 1);
    return mem ? mem - lo : NULL;
}

int faro_coll_copy(const struct faro_coll *c, const void *src, int scount, MPI_Datatype stype,
                   void *dst, int rcount, MPI_Datatype rtype)
{
    size_t n = (size_t)scount * stype->size;
    size_t room = (size_t)rcount * rtype->size;
    if (n > room)
        return faro_err(c->comm, MPI_ERR_TRUNCATE,
                        "%s: %zu bytes to copy locally but the receive buffer holds %zu "
                        "(count %d): truncated",
                        c->fn, n, room, rcount);
    /* The same address is a no-op only with the same layout: MPI_BOTTOM with
     * absolute-address types gives every block the same (NULL) base. */
    if (n == 0 || (src == dst && stype == rtype && scount == rcount))
        return MPI_SUCCESS;
    if (stype->dense && rtype->dense) {
        memcpy(faro_type_dense_at(dst, rtype), faro_type_dense_at(src, stype), n);
    } else if (rtype->dense) {
        faro_type_pack(src, (size_t)scount, stype, faro_type_dense_at(dst, rtype));
    } else if (stype->dense) {
        faro_type_unpack(faro_type_dense_at(src, stype), n, dst, rtype);
    } else {
        struct faro_coll_tmp tmp;
        void *packed = faro_coll_tmp_get(&tmp, n);
        if (!packed)
            return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", c->fn, n);
        faro_type_pack(src, (size_t)scount, stype, packed);
        faro_type_unpack(packed, n, dst, rtype);
        faro_coll_tmp_free(&tmp);
    }
    return MPI_SUCCESS;
}

int faro_coll_waitall(int n, MPI_Request *reqs)
{
    faro_wait_reqs(NULL, reqs, n, 0); /* one recorded wait, named by the tag's owner */
    int first = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        int rc = PMPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        if (rc && !first)
            first = rc;
    }
    return first;
}

int faro_coll_reduce_local(const struct faro_coll *c, MPI_Op op, const void *in, void *inout,
                           int count, MPI_Datatype type)
{
    if (count == 0)
        return MPI_SUCCESS;
    int cls = faro_op_reduce(op, in, inout, (size_t)count, type);
    if (cls)
        return faro_err(c->comm, cls, "%s: the reduction of %d elements of %s failed", c->fn,
                        count, type->name && type->name[0] ? type->name : "a derived datatype");
    return MPI_SUCCESS;
}

int faro_coll_root_blocks(const struct faro_coll *c, const struct faro_coll_blocks *blks,
                          int root, int receive)
{
    MPI_Request reqs[FARO_COLL_WINDOW];
    int n = 0, rc;
    for (int r = 0; r < c->size; r++) {
        int cnt = faro_coll_bcount(blks, r);
        MPI_Datatype t = faro_coll_btype(blks, r);
        if (r == root || (size_t)cnt * t->size == 0)
            continue;
        void *addr = faro_coll_baddr(blks, r);
        rc = receive ? faro_coll_irecv(c->fn, addr, cnt, t, r, c->tag, c->comm, &reqs[n])
                     : faro_coll_isend(c->fn, addr, cnt, t, r, c->tag, c->comm, &reqs[n]);
        if (rc) {
            faro_coll_waitall(n, reqs);
            return rc;
        }
        if (++n == FARO_COLL_WINDOW) {
            rc = faro_coll_waitall(n, reqs);
            n = 0;
            if (rc)
                return rc;
        }
    }
    return faro_coll_waitall(n, reqs);
}

const char *faro_coll_tag_owner(int tag)
{
    static const char *const names[] = {
        [2] = "MPI_Barrier", [3] = "MPI_Bcast", [4] = "MPI_Reduce", [5] = "MPI_Allreduce",
        [6] = "MPI_Gather(v)", [7] = "MPI_Scatter(v)", [8] = "MPI_Allgather(v)",
        [9] = "MPI_Alltoall(v,w)", [10] = "MPI_Reduce_scatter(_block)", [11] = "MPI_Scan",
        [12] = "MPI_Exscan", [13] = "MPI_Barrier", [14] = "MPI_Bcast", [15] = "MPI_Gather(v)",
        [16] = "MPI_Scatter(v)", [17] = "MPI_Allgather(v)", [18] = "MPI_Alltoall(v,w)",
        [19] = "MPI_Reduce", [20] = "MPI_Allreduce", [21] = "MPI_Reduce_scatter(_block)",
        [22] = "a neighbourhood collective", [23] = "the collective check",
        [24] = "the collective check"};
    if (tag <= FARO_NBC_TAG_BASE && tag > FARO_NBC_TAG_BASE - FARO_NBC_TAGS)
        return "a nonblocking collective";
    if (tag < 0 && -tag < (int)(sizeof names / sizeof names[0]))
        return names[-tag];
    return NULL;
}
