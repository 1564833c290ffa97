/*
 * Nonblocking collectives: schedules and the engine that runs them (nbc_sched.c).
 *
 * A schedule is what one nonblocking collective call does at this rank,
 * written down at the call: a list of rounds, each round a list of steps
 * (send, receive, local reduce, local typed copy). A round starts by running
 * its steps in list order: local steps execute at once, sends and receives
 * are posted. The next round starts when every send and receive of the round
 * has completed. So a builder puts "receive into tmp" in one round and
 * "combine tmp, send the result on" in the next. Every address, count and
 * peer is fixed when the schedule is built; nothing is decided while it runs.
 *
 * Who calls what. An MPI_I* entry point (nbc_*.c) checks its arguments as the
 * blocking call does (check.c), then faro_sched_new, appends steps with the
 * faro_sched_* calls below (faro_sched_round closes a round) and hands the
 * schedule to faro_sched_start (a call with nothing to do at this rank still
 * builds an empty schedule, so that every rank takes the same tag), which allocates the MPI request (kind
 * FARO_REQ_COLL, ctx = the schedule), runs round 0 and returns the request.
 * From then on the schedule advances inside faro_progress, through the
 * poller that nbc_sched.c installs while any schedule is active (the core
 * does not know coll/ exists). MPI_Wait/Test/... complete the request like a
 * point-to-point one: they only look at its complete flag and status.
 *
 * Tags. Each nonblocking collective on a communicator takes comm->nbc_seq++
 * (in faro_nbc_check) and uses FARO_NBC_TAG_BASE - seq % FARO_NBC_TAGS. Every rank starts the
 * collectives of a communicator in the same order, so seq agrees everywhere;
 * 16384 operations would have to be in flight on one communicator before a
 * tag is reused. Blocking collectives keep their own tags (-2..-30), so both
 * kinds can be in flight together.
 *
 * Memory. The schedule owns its steps, its temporaries (faro_sched_tmp*) and
 * one reference to every datatype and op its steps name, so MPI_Type_free or
 * MPI_Op_free during the operation is safe. The user's buffers and arrays
 * are read at build time only as far as addresses and counts go: the v/w
 * count and displacement arrays are not read after the call returns. When the
 * last round is done (or a step failed and the round's posted operations have
 * completed), the engine marks the request complete and frees the schedule;
 * the request itself is the user's and goes with MPI_Wait/Test, or at once
 * if MPI_Request_free let go of it earlier.
 *
 * Errors. A failed step records its error class; the remaining rounds are
 * skipped and the request completes with that class in its status, which
 * MPI_Wait raises on the communicator.
 */
#ifndef FARO_COLL_NBC_SCHED_H
#define FARO_COLL_NBC_SCHED_H

#include "coll.h"

#define FARO_NBC_TAG_BASE (-4096)
#define FARO_NBC_TAGS 16384

struct faro_sched;

/* A schedule for one call of fn on comm, on the tag of the sequence number
 * faro_nbc_check took; NULL when out of memory (the caller raises
 * faro_sched_no_mem). cc: the call's collective check (FARO_COLL_CHECK,
 * collcheck.h), whose rounds come first; NULL when checking is off. */
struct faro_cc;
struct faro_sched *faro_sched_new(MPI_Comm comm, const char *fn, struct faro_cc *cc);
/* The MPI_ERR_NO_MEM of a schedule that could not be made. */
int faro_sched_no_mem(MPI_Comm comm, const char *fn);
/* The call's identity (comm, fn, tag, rank, size) for the builders. */
const struct faro_coll *faro_sched_coll(const struct faro_sched *s);

/* Steps of the current round. Zero-byte sends and receives are dropped (both
 * ends know the size from their arguments). Return 0, or -1 when out of
 * memory: the schedule is then marked failed and faro_sched_start reports it. */
int faro_sched_send(struct faro_sched *s, const void *buf, int count, MPI_Datatype t, int peer);
int faro_sched_recv(struct faro_sched *s, void *buf, int count, MPI_Datatype t, int peer);
/* Zero-byte messages that are kept (barrier signals). */
int faro_sched_signal(struct faro_sched *s, int peer);
int faro_sched_await(struct faro_sched *s, int peer);
/* inout = in op inout, run when the round starts */
int faro_sched_reduce(struct faro_sched *s, const void *in, void *inout, int count,
                      MPI_Datatype t, MPI_Op op);
/* typed local copy (the rules of faro_coll_copy) */
int faro_sched_copy(struct faro_sched *s, const void *src, int scount, MPI_Datatype stype,
                    void *dst, int rcount, MPI_Datatype rtype);
/* The same with a tag of their own (0: the schedule's), for the collective
 * check's records, which travel on FARO_COLL_TAG_CHECK. */
int faro_sched_send_tag(struct faro_sched *s, const void *buf, int count, MPI_Datatype t,
                        int peer, int tag);
int faro_sched_recv_tag(struct faro_sched *s, void *buf, int count, MPI_Datatype t, int peer,
                        int tag);
/* fn(arg), run when the round starts (the collective check's comparisons). */
int faro_sched_call(struct faro_sched *s, void (*fn)(void *arg), void *arg);
/* Close the current round: later steps wait for its sends and receives. An
 * empty round is not kept. */
void faro_sched_round(struct faro_sched *s);
/* On an intercommunicator, messages added while local is set go over the
 * private local communicator (comm->local), whose ranks are the local
 * group's (the schedule's rank and size): the intracommunicator builders
 * below then build the local steps of an intercommunicator algorithm. */
void faro_sched_local(struct faro_sched *s, int local);

/* Temporary memory owned by the schedule: bytes, or room for count elements
 * of t laid out like a user buffer (the pointer to pass with count, t).
 * NULL when out of memory (the schedule is marked failed). */
void *faro_sched_tmp(struct faro_sched *s, size_t bytes);
void *faro_sched_tmp_typed(struct faro_sched *s, size_t count, MPI_Datatype t);
/* Memory from malloc that the schedule frees with itself. */
void faro_sched_adopt(struct faro_sched *s, void *mem);

/* The checks every MPI_I* entry point starts with: comm is a live
 * communicator, request is not NULL. Once comm is known to be good it takes
 * the operation's sequence number (comm->nbc_seq++), before the call's other
 * checks, so that a call failing only at some ranks (a bad root-only
 * argument) does not shift the tags of later operations. The entry point then
 * hands an intercommunicator to its nbc_inter.c form. */
int faro_nbc_check(const char *fn, MPI_Comm comm, MPI_Request *request);

/* ---- builders shared by several schedules (over the schedule's rank and
 * size; over the local group when faro_sched_local is set) ---- */
/* nbc.c: dissemination barrier; binomial bcast from root; the root's side
 * of a linear gather (receive) or scatter, its own block copied with own
 * (NULL: in place) */
void faro_nbc_barrier(struct faro_sched *s);
void faro_nbc_bcast(struct faro_sched *s, void *buf, int count, MPI_Datatype t, int root);
void faro_nbc_root_side(struct faro_sched *s, const struct faro_coll_blocks *blks, int receive,
                        void *own, int owncount, MPI_Datatype owntype);
/* nbc_reduce.c: binomial reduce of own to recvbuf at root (rank order kept) */
void faro_nbc_reduce(struct faro_sched *s, const void *own, void *recvbuf, int count,
                     MPI_Datatype t, MPI_Op op, int root);

/* ---- intercommunicators (nbc_inter.c): the MPI_I* forms, after
 * faro_nbc_check; the arguments as the MPI call has them ---- */
int faro_nbc_inter_barrier(const char *fn, MPI_Comm comm, MPI_Request *request);
int faro_nbc_inter_bcast(const char *fn, void *buf, int count, MPI_Datatype type, int root,
                         MPI_Comm comm, MPI_Request *request);
/* recvcounts NULL: MPI_Igather */
int faro_nbc_inter_gatherv(const char *fn, const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           int root, MPI_Comm comm, MPI_Request *request);
/* sendcounts NULL: MPI_Iscatter */
int faro_nbc_inter_scatterv(const char *fn, const void *sendbuf, int sendcount,
                            const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request);
/* recvcounts NULL: MPI_Iallgather */
int faro_nbc_inter_allgatherv(const char *fn, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
/* counts NULL: MPI_Ialltoall; w: MPI_Ialltoallw */
int faro_nbc_inter_alltoallw(const char *fn, int w, const void *sendbuf, int sendcount,
                             const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             const MPI_Datatype sendtypes[], void *recvbuf, int recvcount,
                             const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request);
int faro_nbc_inter_reduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                          MPI_Request *request);
int faro_nbc_inter_allreduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *request);
/* recvcounts NULL: MPI_Ireduce_scatter_block */
int faro_nbc_inter_reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                                  int recvcount, const int recvcounts[], MPI_Datatype type,
                                  MPI_Op op, MPI_Comm comm, MPI_Request *request);

/* Start the schedule and give the program its request. Returns MPI_SUCCESS,
 * or an error raised on the communicator (out of memory while building); the
 * schedule is consumed either way. */
int faro_sched_start(struct faro_sched *s, MPI_Request *request);

/* Persistent collectives (persistent.c). While capture is set (to a
 * pointer, NULL ends it), the next faro_sched_start neither allocates a
 * request nor runs anything: it hands the built schedule to *into, marks it
 * kept and sets *request to MPI_REQUEST_NULL (an error before that leaves
 * *into untouched). A kept schedule runs on each faro_sched_rerun, which
 * completes r (the persistent request, owned by the caller) when the last
 * round is done, and is freed only by faro_sched_free. Its tag is the one its
 * build took, so restarts need no agreement on order beyond the builds'. */
void faro_sched_capture(struct faro_sched **into);
int faro_sched_rerun(struct faro_sched *s, struct faro_request *r);
void faro_sched_free(struct faro_sched *s);

/* For the hang report (runtime/hang.h: faro_hang_sched_fn): the MPI
 * function of a nonblocking collective's request and the point-to-point
 * requests its schedule waits for now. */
int faro_sched_describe(struct faro_request *r, const char **fn, struct faro_request **pending,
                        int max);

#endif
