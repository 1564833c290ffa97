/*
 * MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw. All three describe their
 * buffers as struct faro_coll_blocks and share the algorithms:
 *  - scattered: receives and sends to every peer posted FARO_COLL_WINDOW / 2
 *    pairs at a time, peers taken in order rank+i / rank-i so the load
 *    spreads; medium blocks and every v/w call;
 *  - pairwise: size - 1 rounds of one sendrecv each (partner rank ^ i when
 *    the size is a power of two), for large blocks;
 *  - in place (outside the selection table): pairwise with symmetric
 *    partners (partner = i - rank mod size: both send and receive the same
 *    block), each block packed into a temporary before it is overwritten.
 * Bruck's algorithm for small uniform blocks is in bruck.c; select.c chooses.
 */
#include "collcheck.h"

static int own_block(const struct faro_coll *c, const struct faro_coll_blocks *send,
                     const struct faro_coll_blocks *recv)
{
    int r = c->rank;
    return faro_coll_copy(c, faro_coll_baddr(send, r), faro_coll_bcount(send, r),
                          faro_coll_btype(send, r), faro_coll_baddr(recv, r),
                          faro_coll_bcount(recv, r), faro_coll_btype(recv, r));
}

int faro_coll_alltoall_scattered(const struct faro_coll *c, const struct faro_coll_blocks *send,
                                 const struct faro_coll_blocks *recv)
{
    /* a failed own-block copy (truncation) still exchanges with every peer */
    int size = c->size, lrc = own_block(c, send, recv), rc = MPI_SUCCESS;
    MPI_Request reqs[FARO_COLL_WINDOW];
    int n = 0;
    for (int i = 1; i < size; i++) {
        int src = (c->rank - i + size) % size, dst = (c->rank + i) % size;
        int rcnt = faro_coll_bcount(recv, src), scnt = faro_coll_bcount(send, dst);
        MPI_Datatype rt = faro_coll_btype(recv, src), st = faro_coll_btype(send, dst);
        if ((size_t)rcnt * rt->size > 0) {
            rc = faro_coll_irecv(c->fn, faro_coll_baddr(recv, src), rcnt, rt, src, c->tag,
                                 c->comm, &reqs[n]);
            if (rc)
                break;
            n++;
        }
        if ((size_t)scnt * st->size > 0) {
            rc = faro_coll_isend(c->fn, faro_coll_baddr(send, dst), scnt, st, dst, c->tag,
                                 c->comm, &reqs[n]);
            if (rc)
                break;
            n++;
        }
        if (n >= FARO_COLL_WINDOW - 1) {
            rc = faro_coll_waitall(n, reqs);
            n = 0;
            if (rc)
                return rc;
        }
    }
    int rw = faro_coll_waitall(n, reqs);
    return lrc ? lrc : rc ? rc : rw;
}

int faro_coll_alltoall_pairwise(const struct faro_coll *c, const struct faro_coll_blocks *send,
                                const struct faro_coll_blocks *recv)
{
    /* every step runs even after an error (a truncated block): peers wait for it */
    int size = c->size, rc = own_block(c, send, recv);
    int pow2 = (size & (size - 1)) == 0;
    for (int i = 1; i < size; i++) {
        int dst = pow2 ? c->rank ^ i : (c->rank + i) % size;
        int src = pow2 ? dst : (c->rank - i + size) % size;
        int src_rc = faro_coll_sendrecv(c->fn, faro_coll_baddr(send, dst),
                                        faro_coll_bcount(send, dst), faro_coll_btype(send, dst),
                                        dst, faro_coll_baddr(recv, src),
                                        faro_coll_bcount(recv, src), faro_coll_btype(recv, src),
                                        src, c->tag, c->comm, MPI_STATUS_IGNORE);
        if (!rc)
            rc = src_rc;
    }
    return rc;
}

int faro_coll_alltoall_inplace_pairwise(const struct faro_coll *c,
                                        const struct faro_coll_blocks *recv)
{
    int size = c->size, rc = MPI_SUCCESS;
    for (int i = 0; i < size && !rc; i++) {
        int p = (i - c->rank + size) % size;
        if (p == c->rank)
            continue;
        int cnt = faro_coll_bcount(recv, p);
        MPI_Datatype t = faro_coll_btype(recv, p);
        char *blk = faro_coll_baddr(recv, p);
        size_t bytes = (size_t)cnt * t->size;
        struct faro_coll_tmp tmp;
        char *out = faro_coll_tmp_get(&tmp, bytes);
        if (!out)
            return faro_err(c->comm, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", c->fn,
                            bytes);
        faro_type_pack(blk, (size_t)cnt, t, out);
        rc = faro_coll_sendrecv(c->fn, out, (int)bytes, MPI_BYTE, p, blk, cnt, t, p, c->tag,
                                c->comm, MPI_STATUS_IGNORE);
        faro_coll_tmp_free(&tmp);
    }
    return rc;
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoall";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_alltoallw(fn, 0, sendbuf, sendcount, NULL, NULL, sendtype, NULL, recvbuf,
                                    recvcount, NULL, NULL, recvtype, NULL, comm);
    if (!rc)
        rc = faro_coll_check_alltoall(fn, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                      recvtype);
    if (rc)
        return rc;
    size_t block = (size_t)recvcount * recvtype->size;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_ALLTOALL);
    struct faro_coll_blocks recv = faro_coll_blocks_uniform(recvbuf, recvcount, recvtype);
    struct faro_coll_blocks send = faro_coll_blocks_uniform(sendbuf, sendcount, sendtype);
    if (FARO_COLL_CHECKING && (rc = faro_cc_alltoall(NULL, fn, comm, sendbuf == MPI_IN_PLACE ? NULL : &send,
                                     &recv)))
        return rc;
    if (sendbuf == MPI_IN_PLACE)
        return faro_coll_alltoall_inplace_pairwise(&c, &recv);
    int alg = faro_coll_select(comm, FARO_COLL_ALLTOALL, block * (size_t)comm->size, 1, 1);
    return faro_coll_algs[alg].fn.alltoall(&c, &send, &recv);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallv";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_alltoallw(fn, 0, sendbuf, 0, sendcounts, sdispls, sendtype, NULL, recvbuf,
                                    0, recvcounts, rdispls, recvtype, NULL, comm);
    if (!rc)
        rc = faro_coll_check_alltoallv(fn, comm, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                       recvcounts, rdispls, recvtype);
    if (rc)
        return rc;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_ALLTOALL);
    struct faro_coll_blocks recv = faro_coll_blocks_v(recvbuf, recvcounts, rdispls, recvtype);
    struct faro_coll_blocks send = faro_coll_blocks_v(sendbuf, sendcounts, sdispls, sendtype);
    if (FARO_COLL_CHECKING && (rc = faro_cc_alltoall(NULL, fn, comm, sendbuf == MPI_IN_PLACE ? NULL : &send,
                                     &recv)))
        return rc;
    if (sendbuf == MPI_IN_PLACE)
        return faro_coll_alltoall_inplace_pairwise(&c, &recv);
    int alg = faro_coll_select(comm, FARO_COLL_ALLTOALL, 0, 1, 0);
    return faro_coll_algs[alg].fn.alltoall(&c, &send, &recv);
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallw";
    int rc = faro_coll_check_comm(fn, comm);
    if (!rc && comm->inter)
        return faro_inter_alltoallw(fn, 1, sendbuf, 0, sendcounts, sdispls, NULL, sendtypes,
                                    recvbuf, 0, recvcounts, rdispls, NULL, recvtypes, comm);
    if (!rc)
        rc = faro_coll_check_alltoallw(fn, comm, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                       recvcounts, rdispls, recvtypes);
    if (rc)
        return rc;
    struct faro_coll c = faro_coll_of(comm, fn, FARO_COLL_TAG_ALLTOALL);
    struct faro_coll_blocks recv = faro_coll_blocks_w(recvbuf, recvcounts, rdispls, recvtypes);
    struct faro_coll_blocks send = faro_coll_blocks_w(sendbuf, sendcounts, sdispls, sendtypes);
    if (FARO_COLL_CHECKING && (rc = faro_cc_alltoall(NULL, fn, comm, sendbuf == MPI_IN_PLACE ? NULL : &send,
                                     &recv)))
        return rc;
    if (sendbuf == MPI_IN_PLACE)
        return faro_coll_alltoall_inplace_pairwise(&c, &recv);
    int alg = faro_coll_select(comm, FARO_COLL_ALLTOALL, 0, 1, 0);
    return faro_coll_algs[alg].fn.alltoall(&c, &send, &recv);
}
