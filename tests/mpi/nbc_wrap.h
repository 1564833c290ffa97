/*
 * nbc_wrap.h - runs a blocking-collective test program on the nonblocking
 * collectives: each MPI_<Coll> call of the including program becomes
 * MPI_I<coll> followed by a completion, the completion call rotating through
 * MPI_Wait, an MPI_Test polling loop, MPI_Waitall, MPI_Waitany, MPI_Waitsome
 * and MPI_Request_get_status polling + MPI_Wait, so every completion path
 * sees collective requests. The program's own references check the results.
 *
 * Use: include "util.h", then this header, then the blocking test's source.
 */
#ifndef FARO_TESTS_MPI_NBC_WRAP_H
#define FARO_TESTS_MPI_NBC_WRAP_H

#include "util.h"

static int nbc_complete(int rc, MPI_Request *req)
{
    static unsigned turn;
    if (rc != MPI_SUCCESS)
        return rc;
    int flag = 0, idx, n;
    switch (turn++ % 6) {
    case 0:
        rc = MPI_Wait(req, MPI_STATUS_IGNORE);
        break;
    case 1:
        while (!flag && rc == MPI_SUCCESS)
            rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        break;
    case 2:
        rc = MPI_Waitall(1, req, MPI_STATUSES_IGNORE);
        break;
    case 3:
        rc = MPI_Waitany(1, req, &idx, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && idx != 0)
            tu_fail("MPI_Waitany on one collective request gave index %d", idx);
        break;
    case 4:
        rc = MPI_Waitsome(1, req, &n, &idx, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS && (n != 1 || idx != 0))
            tu_fail("MPI_Waitsome on one collective request gave %d, index %d", n, idx);
        break;
    default:
        while (!flag && rc == MPI_SUCCESS)
            rc = MPI_Request_get_status(*req, &flag, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(req, MPI_STATUS_IGNORE);
        break;
    }
    if (rc == MPI_SUCCESS && *req != MPI_REQUEST_NULL)
        tu_fail("a completed collective request was not set to MPI_REQUEST_NULL");
    return rc;
}

#define NBC_WRAP(name, iname, params, args)                                                  \
    static inline int nbc_##name params                                                      \
    {                                                                                        \
        MPI_Request req_ = MPI_REQUEST_NULL;                                                 \
        int rc_ = iname args;                                                                \
        return nbc_complete(rc_, &req_);                                                     \
    }

NBC_WRAP(Barrier, MPI_Ibarrier, (MPI_Comm c), (c, &req_))
NBC_WRAP(Bcast, MPI_Ibcast, (void *b, int n, MPI_Datatype t, int r, MPI_Comm c),
         (b, n, t, r, c, &req_))
NBC_WRAP(Gather, MPI_Igather,
         (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int r,
          MPI_Comm c),
         (sb, sn, st, rb, rn, rt, r, c, &req_))
NBC_WRAP(Gatherv, MPI_Igatherv,
         (const void *sb, int sn, MPI_Datatype st, void *rb, const int *rn, const int *d,
          MPI_Datatype rt, int r, MPI_Comm c),
         (sb, sn, st, rb, rn, d, rt, r, c, &req_))
NBC_WRAP(Scatter, MPI_Iscatter,
         (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int r,
          MPI_Comm c),
         (sb, sn, st, rb, rn, rt, r, c, &req_))
NBC_WRAP(Scatterv, MPI_Iscatterv,
         (const void *sb, const int *sn, const int *d, MPI_Datatype st, void *rb, int rn,
          MPI_Datatype rt, int r, MPI_Comm c),
         (sb, sn, d, st, rb, rn, rt, r, c, &req_))
NBC_WRAP(Allgather, MPI_Iallgather,
         (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
          MPI_Comm c),
         (sb, sn, st, rb, rn, rt, c, &req_))
NBC_WRAP(Allgatherv, MPI_Iallgatherv,
         (const void *sb, int sn, MPI_Datatype st, void *rb, const int *rn, const int *d,
          MPI_Datatype rt, MPI_Comm c),
         (sb, sn, st, rb, rn, d, rt, c, &req_))
NBC_WRAP(Alltoall, MPI_Ialltoall,
         (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
          MPI_Comm c),
         (sb, sn, st, rb, rn, rt, c, &req_))
NBC_WRAP(Alltoallv, MPI_Ialltoallv,
         (const void *sb, const int *sn, const int *sd, MPI_Datatype st, void *rb,
          const int *rn, const int *rd, MPI_Datatype rt, MPI_Comm c),
         (sb, sn, sd, st, rb, rn, rd, rt, c, &req_))
NBC_WRAP(Alltoallw, MPI_Ialltoallw,
         (const void *sb, const int *sn, const int *sd, const MPI_Datatype *st, void *rb,
          const int *rn, const int *rd, const MPI_Datatype *rt, MPI_Comm c),
         (sb, sn, sd, st, rb, rn, rd, rt, c, &req_))
NBC_WRAP(Reduce, MPI_Ireduce,
         (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op o, int r, MPI_Comm c),
         (sb, rb, n, t, o, r, c, &req_))
NBC_WRAP(Allreduce, MPI_Iallreduce,
         (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
         (sb, rb, n, t, o, c, &req_))
NBC_WRAP(Reduce_scatter, MPI_Ireduce_scatter,
         (const void *sb, void *rb, const int *rn, MPI_Datatype t, MPI_Op o, MPI_Comm c),
         (sb, rb, rn, t, o, c, &req_))
NBC_WRAP(Reduce_scatter_block, MPI_Ireduce_scatter_block,
         (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
         (sb, rb, n, t, o, c, &req_))
NBC_WRAP(Scan, MPI_Iscan,
         (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
         (sb, rb, n, t, o, c, &req_))
NBC_WRAP(Exscan, MPI_Iexscan,
         (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
         (sb, rb, n, t, o, c, &req_))

#define MPI_Barrier nbc_Barrier
#define MPI_Bcast nbc_Bcast
#define MPI_Gather nbc_Gather
#define MPI_Gatherv nbc_Gatherv
#define MPI_Scatter nbc_Scatter
#define MPI_Scatterv nbc_Scatterv
#define MPI_Allgather nbc_Allgather
#define MPI_Allgatherv nbc_Allgatherv
#define MPI_Alltoall nbc_Alltoall
#define MPI_Alltoallv nbc_Alltoallv
#define MPI_Alltoallw nbc_Alltoallw
#define MPI_Reduce nbc_Reduce
#define MPI_Allreduce nbc_Allreduce
#define MPI_Reduce_scatter nbc_Reduce_scatter
#define MPI_Reduce_scatter_block nbc_Reduce_scatter_block
#define MPI_Scan nbc_Scan
#define MPI_Exscan nbc_Exscan
/* the program reports under nbc(<its name>) */
#define tu_init(argc, argv, name) (tu_init)(argc, argv, "nbc(" name ")")

#endif
