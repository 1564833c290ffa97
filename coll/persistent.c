/*
 * Persistent collectives (MPI-4.0 6.12): MPI_Barrier_init ...
 * MPI_Neighbor_alltoallw_init, started with MPI_Start/MPI_Startall.
 *
 * Each init runs the nonblocking call of the same collective (nbc*.c) with
 * the schedule engine set to capture (nbc_sched.h: faro_sched_capture): the
 * arguments are checked exactly as the MPI_I* call checks them (its messages
 * are recorded under the init's name, faro_err_alias), the schedule is built
 * once, and instead of running it is kept. The program gets an inactive
 * persistent request of kind FARO_REQ_OPS whose ctx (struct pcoll) holds the
 * schedule; every MPI_Start reruns it from round 0 (faro_sched_rerun), so a
 * start costs no allocation and no argument check. The schedule reads the
 * buffers at each run, never at the build, so the program may change their
 * contents between starts. Intercommunicators work wherever the MPI_I* form
 * does.
 *
 * Tags: the schedule's tag is the one its init took from the communicator's
 * nonblocking sequence (faro_nbc_check), as an MPI_I* call would. Inits are
 * collective and ordered like every collective, so the tag agrees at every
 * rank; starts need no agreed order. A run's messages cannot meet the
 * previous run's: each pair of ranks exchanges them in the same order on the
 * same tag, and a rank starts again only after its own run completed. The
 * tag is reused after 16384 further nonblocking collectives or inits on the
 * communicator (FARO_NBC_TAGS); a persistent operation active at that moment
 * together with the operation that reuses its tag could cross.
 *
 * The info argument is checked (a valid info or MPI_INFO_NULL); Faro reads
 * no key of it yet. MPI_Cancel of a persistent collective is refused, as for
 * nonblocking ones; MPI_Request_free of an inactive one frees the schedule,
 * of an active one when its run completes.
 */
#include <stdlib.h>

#include "nbc_sched.h"
#include "p2p/request.h"

struct pcoll {
    const struct faro_req_ops *ops;
    struct faro_sched *s;
};

static int pcoll_start(struct faro_request *r)
{
    struct pcoll *p = r->ctx;
    return faro_sched_rerun(p->s, r);
}

static int pcoll_cancel(struct faro_request *r)
{
    return faro_err(r->comm, MPI_ERR_REQUEST, "MPI_Cancel: cannot cancel a persistent "
                    "collective (complete it with MPI_Wait/MPI_Test, then MPI_Request_free it)");
}

static void pcoll_destroy(struct faro_request *r)
{
    struct pcoll *p = r->ctx;
    faro_sched_free(p->s);
    free(p);
    r->ctx = NULL;
}

static const struct faro_req_ops pcoll_ops = {"a persistent collective", pcoll_start,
                                              pcoll_cancel, pcoll_destroy};

/* Before the MPI_I* call: capture its schedule into *s, its errors named fn. */
static void begin(const char *fn, const char *ifn, struct faro_sched **s)
{
    faro_err_alias(ifn, fn);
    faro_sched_capture(s);
}

/* After it: rc its result, s the schedule it built (NULL when it failed). */
static int end(const char *fn, int rc, struct faro_sched *s, MPI_Comm comm, MPI_Info info,
               MPI_Request *request)
{
    faro_sched_capture(NULL);
    faro_err_alias(NULL, NULL);
    if (rc)
        return rc;
    if (!s) /* every MPI_I* form ends in faro_sched_start */
        return faro_err(comm, MPI_ERR_INTERN, "%s: the collective built no schedule", fn);
    /* Checked after the build so that the sequence number is taken at every rank. */
    if (!request)
        rc = faro_err(comm, MPI_ERR_ARG, "%s: request is NULL (a pointer to an MPI_Request "
                      "is required)", fn);
    else if (info != MPI_INFO_NULL && faro_info_check(info))
        rc = faro_err(comm, MPI_ERR_INFO, "%s: info is not a valid info object (freed, or "
                      "never created); pass MPI_INFO_NULL for none", fn);
    struct pcoll *p = rc ? NULL : malloc(sizeof *p);
    struct faro_request *r = p ? faro_req_alloc(FARO_REQ_OPS, comm) : NULL;
    if (!r) {
        free(p);
        faro_sched_free(s);
        return rc ? rc : faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    p->ops = &pcoll_ops;
    p->s = s;
    r->ctx = p;
    r->persistent = 1;
    r->complete = 1; /* inactive */
    *request = r;
    return MPI_SUCCESS;
}

#define FARO_STR(x) #x
#define PERSISTENT(NAME, INAME, PARAMS, ARGS)                                                 \
    _Pragma(FARO_STR(weak MPI_##NAME = PMPI_##NAME))                                          \
    int PMPI_##NAME PARAMS                                                                    \
    {                                                                                         \
        FARO_LOCKED;                                                                          \
        struct faro_sched *s = NULL;                                                          \
        MPI_Request inner = MPI_REQUEST_NULL;                                                 \
        begin("MPI_" #NAME, "MPI_" #INAME, &s);                                               \
        int rc = PMPI_##INAME ARGS;                                                           \
        return end("MPI_" #NAME, rc, s, comm, info, request);                                 \
    }

PERSISTENT(Barrier_init, Ibarrier,
           (MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (comm, &inner))

PERSISTENT(Bcast_init, Ibcast,
           (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
            MPI_Info info, MPI_Request *request),
           (buffer, count, datatype, root, comm, &inner))

PERSISTENT(Gather_init, Igather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
            MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &inner))

PERSISTENT(Gatherv_init, Igatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
            &inner))

PERSISTENT(Scatter_init, Iscatter,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
            MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &inner))

PERSISTENT(Scatterv_init, Iscatterv,
           (const void *sendbuf, const int sendcounts[], const int displs[],
            MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
            int root, MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
            &inner))

PERSISTENT(Allgather_init, Iallgather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
            MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &inner))

PERSISTENT(Allgatherv_init, Iallgatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
            MPI_Info info, MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &inner))

PERSISTENT(Alltoall_init, Ialltoall,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
            MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &inner))

PERSISTENT(Alltoallv_init, Ialltoallv,
           (const void *sendbuf, const int sendcounts[], const int sdispls[],
            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
            comm, &inner))

PERSISTENT(Alltoallw_init, Ialltoallw,
           (const void *sendbuf, const int sendcounts[], const int sdispls[],
            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
            const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
            MPI_Request *request),
           (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
            comm, &inner))

PERSISTENT(Reduce_init, Ireduce,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            int root, MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (sendbuf, recvbuf, count, datatype, op, root, comm, &inner))

PERSISTENT(Allreduce_init, Iallreduce,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (sendbuf, recvbuf, count, datatype, op, comm, &inner))

PERSISTENT(Reduce_scatter_init, Ireduce_scatter,
           (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
            MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (sendbuf, recvbuf, recvcounts, datatype, op, comm, &inner))

PERSISTENT(Reduce_scatter_block_init, Ireduce_scatter_block,
           (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (sendbuf, recvbuf, recvcount, datatype, op, comm, &inner))

PERSISTENT(Scan_init, Iscan,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (sendbuf, recvbuf, count, datatype, op, comm, &inner))

PERSISTENT(Exscan_init, Iexscan,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (sendbuf, recvbuf, count, datatype, op, comm, &inner))

PERSISTENT(Neighbor_allgather_init, Ineighbor_allgather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
            MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &inner))

PERSISTENT(Neighbor_allgatherv_init, Ineighbor_allgatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
            MPI_Info info, MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &inner))

PERSISTENT(Neighbor_alltoall_init, Ineighbor_alltoall,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
            MPI_Request *request),
           (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &inner))

PERSISTENT(Neighbor_alltoallv_init, Ineighbor_alltoallv,
           (const void *sendbuf, const int sendcounts[], const int sdispls[],
            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request),
           (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
            comm, &inner))

PERSISTENT(Neighbor_alltoallw_init, Ineighbor_alltoallw,
           (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
            MPI_Info info, MPI_Request *request),
           (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
            comm, &inner))
