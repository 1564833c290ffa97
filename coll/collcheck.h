/*
 * Collective checking (FARO_COLL_CHECK=1): before a collective moves any
 * data, its ranks compare what they were called with, and a mismatch ends
 * the job with a message naming the collective, the communicator, the ranks
 * and what differs, instead of a hang or a silently wrong result.
 *
 * Who calls what. Every collective entry point (blocking and nonblocking,
 * intra- and intercommunicator, neighbourhood) checks its arguments as
 * usual, then, only when faro_coll_checking is set (one predictable branch
 * when it is not), describes the call with one of the faro_cc_* calls below.
 * A blocking call passes out = NULL and the check runs at once; a
 * nonblocking one gets the description in *out and hands it to
 * faro_sched_new, which runs it as the schedule's first rounds (nothing
 * blocks: the check progresses with the operation).
 *
 * What is compared, in two phases:
 *  A. Every rank sends a small record to its right neighbour in the ring of
 *     the communicator (on an intercommunicator: the ring of its local
 *     group, and the two leaders to each other) and compares it with its
 *     left neighbour's: the MPI function, the root, the op, and where every
 *     rank passes the same buffer description (Bcast, Reduce, Allreduce,
 *     Scan, Exscan, Reduce_scatter(_block)), its type signature and count.
 *     Pairwise equality around the ring is equality everywhere. The pattern
 *     depends on nothing the program passed, so it cannot hang on a
 *     mismatch; blocking and nonblocking calls share its tag, so a rank in
 *     MPI_Bcast and one in MPI_Ibcast meet and are told apart.
 *  B. Where MPI matches buffers pairwise (gather, scatter, allgather,
 *     alltoall and their v/w forms, the neighbourhood collectives), each
 *     rank sends every peer it gives data to the signature of that block,
 *     and each receiver compares it with the block it expects from that
 *     peer (gatherv: rank i's sendcount/sendtype against the root's
 *     recvcounts[i]/recvtype). Phase A made the pattern safe: the root and
 *     the collective agree by then.
 * Signatures are hashes of the sequence of basic types (datatype.h,
 * type_sig.c), so 4 x MPI_INT matches contiguous(4, MPI_INT) and a holey
 * vector of 4 ints, as MPI's type matching rules say.
 *
 * Cost when on: phase A is one message each way per rank per collective,
 * phase B one small message per pair that exchanges data. Tags: phase A
 * uses FARO_COLL_TAG_CHECK on every communicator; phase B
 * FARO_COLL_TAG_CHECK_FLOW for blocking calls and the operation's own tag
 * for nonblocking ones.
 */
#ifndef FARO_COLL_COLLCHECK_H
#define FARO_COLL_COLLCHECK_H

#include "coll.h"

/* FARO_COLL_CHECK, read with the other collective tunables (select.c). */
extern int faro_coll_checking;
#define FARO_COLL_CHECKING __builtin_expect(faro_coll_checking, 0)

struct faro_cc;
struct faro_sched;

/* Each describes one call whose arguments have been checked. out NULL: run
 * the check now; otherwise the description goes to *out for faro_sched_new.
 * Returns MPI_SUCCESS, or MPI_ERR_NO_MEM raised on comm; a mismatch does not
 * return (faro_fatal). */

/* Every rank passes the same (count, type) (type NULL: no buffer, the
 * barrier), root (-1: none) and op (MPI_OP_NULL: none); counts, when not
 * NULL, is an array of comm->size counts every rank passes alike
 * (Reduce_scatter's recvcounts). */
int faro_cc_same(struct faro_cc **out, const char *fn, MPI_Comm comm, int root, MPI_Op op,
                 MPI_Count count, MPI_Datatype type, const int *counts);
/* Gather(v) (scatter 0) and Scatter(v) (scatter 1): the leaf side is every
 * rank's one block (leaf_type NULL: MPI_IN_PLACE at the root), blks the
 * root's blocks (significant at the root only). */
int faro_cc_rooted(struct faro_cc **out, const char *fn, MPI_Comm comm, int scatter,
                   int leaf_count, MPI_Datatype leaf_type, const struct faro_coll_blocks *blks,
                   int root);
/* Allgather(v): every rank's one send block (send_type NULL: in place, the
 * rank's own receive block) against everyone's receive blocks. */
int faro_cc_allgather(struct faro_cc **out, const char *fn, MPI_Comm comm, int send_count,
                      MPI_Datatype send_type, const struct faro_coll_blocks *recv);
/* Alltoall(v,w): send NULL is in place (the receive blocks go out). */
int faro_cc_alltoall(struct faro_cc **out, const char *fn, MPI_Comm comm,
                     const struct faro_coll_blocks *send, const struct faro_coll_blocks *recv);
/* The neighbourhood collectives: block i of recv from n->in[i], block i of
 * send (block 0 when same_block) to n->out[i]. */
int faro_cc_neighbor(struct faro_cc **out, const char *fn, MPI_Comm comm,
                     const struct faro_nbrs *n, const struct faro_coll_blocks *send,
                     int same_block, const struct faro_coll_blocks *recv);

/* Intercommunicators (faro_cc_same serves Barrier, Allreduce and
 * Reduce_scatter(_block) there too). Rooted calls: role is
 * FARO_INTER_ROOT/IDLE/REMOTE with root the caller's root argument; blks,
 * for Gather(v) and (scatter set) Scatter(v), the blocks the call's
 * faro_inter_*_args gave (the root's blocks; a remote rank's one block);
 * NULL for Bcast and Reduce, whose leaf (count, type) is both sides'. */
int faro_cc_inter_rooted(struct faro_cc **out, const char *fn, MPI_Comm comm, int role, int root,
                         MPI_Op op, int scatter, int leaf_count, MPI_Datatype leaf_type,
                         const struct faro_coll_blocks *blks);
/* Allgather(v) (same_send: one send block for every remote rank) and
 * alltoall(v,w): block r of send to remote rank r, block r of recv from it. */
int faro_cc_inter_exchange(struct faro_cc **out, const char *fn, MPI_Comm comm,
                           const struct faro_coll_blocks *send, int same_send,
                           const struct faro_coll_blocks *recv);

/* The schedule's side (nbc_sched.c): the check's rounds first, and the
 * description becomes the schedule's (freed with it). */
void faro_cc_schedule(struct faro_sched *s, struct faro_cc *cc);

#endif
